"""A seat coming back checks what it kept on disk against what the table says it dealt:
a deck of a round the table never reached, or another deck than its Ready showed and
pledged, stops it with one clear error (a state file edited, or another table's),
changing nothing; an honest disk comes back as before."""

from __future__ import annotations

from dataclasses import replace

import pytest
from _table import Table
from test_headers import _dealt

from p2pnerts.protocol import Disk, KeptStateError, PeerRejoined, Status


def _back_with(edit: dict[str, object]) -> tuple[Table, Disk]:
    """Seat 2 crashes in round 1, is left out, and comes back with its disk edited."""
    table = _dealt()
    disk = table.crash(2)
    table.run_for(6)
    edited = replace(disk, **edit)  # type: ignore[arg-type]
    table.restart(2, edited)
    return table, edited


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ({"round": 2**31}, r"deck of round 2147483648, and the table is in round 1"),
        ({"round": 3}, r"deck of round 3, and the table is in round 1"),
        ({"order": ()}, r"its deck of round 1 is not the one seat 2 dealt"),
        ({"secrets": bytes(64)}, r"its deck of round 1 is not the one seat 2 dealt"),
    ],
    ids=["round-far-ahead", "round-ahead", "other-deck", "other-secret"],
)
def test_a_seat_coming_back_with_a_disk_the_table_never_dealt_it_stops_changing_nothing(
    edit: dict[str, object], reason: str
) -> None:
    table, _ = _back_with(edit)
    with pytest.raises(KeptStateError, match=reason):
        table.run_for(4)
    back = table.replicas[2]
    assert back.status is Status.OUT and back.committed == 0


def test_a_seat_coming_back_with_its_own_disk_is_let_back_in() -> None:
    table, _ = _back_with({})
    table.run_for(4)
    assert table.replicas[2].status is Status.NORMAL
    assert [e.seat for e in table.of(0, PeerRejoined)] == [2]


def test_the_error_is_one_line_for_a_person_with_exit_status_1() -> None:
    error = KeptStateError("its deck of round 1 is not the one seat 2 dealt")
    assert (error.context, error.status) == ("state file", 1)
