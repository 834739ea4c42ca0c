"""Long fuzzing runs of the codec and a replica, with atheris: python tools/fuzz.py codec|replica.

atheris is coverage-guided (libFuzzer):

    pip install atheris
    python tools/fuzz.py codec -max_total_time=600     # the frame decoder
    python tools/fuzz.py replica -runs=1000000         # a replica fed what it decodes
    python tools/fuzz.py majority-frames -max_total_time=600
    python tools/fuzz.py majority-below -max_total_time=600

The last two run the properties of a table that commits by a majority from
``tests/protocol/test_fuzz.py`` themselves (hypothesis's ``fuzz_one_input``, libFuzzer's
input as hypothesis's choices; they need the test extra): Ballots, Tallies and Polls bent
from those of a real play, offered to any seat on any link, and an ordered message with
any ``below``. A failing input raises with the frame it made.

Arguments after the target go to libFuzzer (``-help=1`` lists them). The properties are
those of ``tests/protocol/test_fuzz.py``, which CI runs for a few hundred cases each:
any bytes decode to messages that encode back to themselves, or raise
RemoteProtocolError; a replica takes a message or refuses it with RemoteProtocolError,
and a refusal changes nothing. Any other exception, or a broken property, stops the run
with the input that caused it saved as ``crash-*`` in the current directory. The golden
frames seed the corpus.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from p2pnerts.protocol import (
    CommitFrame,
    FrameDecoder,
    LinkMessage,
    Message,
    RemoteProtocolError,
    Replica,
    decode,
    encode,
)
from p2pnerts.rules import TableOptions


def _decoded(data: bytes) -> list[Message | LinkMessage | CommitFrame]:
    try:
        return list(FrameDecoder().feed(data))
    except RemoteProtocolError:
        return []


def codec(data: bytes) -> None:
    for message in _decoded(data):
        assert decode(encode(message)) == message


def _state(replica: Replica) -> tuple[object, ...]:
    pending = [p.message for p in replica.pending]
    return (list(replica.have), replica.clock, replica.committed, replica.digest, pending)


def replica(data: bytes) -> None:
    seat = Replica(1, TableOptions(), 3)
    for message in _decoded(data):
        if not isinstance(message, Message):
            continue
        before = _state(seat)
        try:
            seat.receive(message, 1.0)
        except RemoteProtocolError:
            assert _state(seat) == before


def _golden_corpus() -> str:
    """A directory of seed inputs: every golden frame of protocol/golden.json."""
    golden = json.loads((Path(__file__).parents[1] / "protocol" / "golden.json").read_text())
    corpus = Path(tempfile.mkdtemp(prefix="p2pnerts-fuzz-"))
    for frame in golden["frames"]:
        (corpus / frame["name"]).write_bytes(bytes.fromhex(frame["hex"]))
    return str(corpus)


@functools.cache
def _property(name: str) -> Callable[[bytes], None]:
    """A property of tests/protocol/test_fuzz.py as a function of libFuzzer's bytes (read
    as hypothesis's choices)."""
    tests = Path(__file__).parents[1] / "tests"
    sys.path[:0] = [str(tests / "protocol"), str(tests)]
    prop: Callable[[bytes], None] = getattr(
        importlib.import_module("test_fuzz"), name
    ).hypothesis.fuzz_one_input
    return prop


def _majority(name: str) -> Callable[[bytes], None]:
    return lambda data: _property(name)(data)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "codec": codec,
    "replica": replica,
    "majority-frames": _majority(
        "test_a_majority_seat_takes_or_refuses_any_commit_frame_and_learns_no_false_outcome"
    ),
    "majority-below": _majority(
        "test_a_majority_seat_takes_or_refuses_an_ordered_message_with_any_below"
    ),
}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        print(f"usage: python tools/fuzz.py {{{','.join(TARGETS)}}} [libFuzzer options]")
        return 2
    try:
        atheris = importlib.import_module("atheris")  # not a dependency: for long runs only
    except ImportError:
        print("tools/fuzz.py needs atheris: pip install atheris", file=sys.stderr)
        return 2
    atheris.instrument_all()  # coverage of everything loaded: p2pnerts, msgpack, rules
    seeds = _golden_corpus()
    atheris.Setup([sys.argv[0], *sys.argv[2:], seeds], TARGETS[sys.argv[1]])
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
