"""A table peer's game log, kept as it plays (the format: `p2pnerts.logs`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from p2pnerts.logs import GameLog
from p2pnerts.net._peer import TablePeer
from p2pnerts.protocol import CommitFrame, Message


def keep_log(
    peer: TablePeer, directory: Path, options: str, report: Callable[[str], None]
) -> Callable[[], None] | None:
    """Log ``peer``'s match in ``directory`` from now on (every frame it sends and
    receives, commit frames too, and every commit), at ``peer.log_path``, until the
    returned function is called; None, said in one line, if the log cannot be written
    (the match is played all the same)."""
    try:
        log = GameLog.start(
            directory,
            table=peer.table,
            name=peer.name,
            seat=peer.seat,
            roster=peer.roster,
            options=options,
            now=trio.current_time(),
            majority=peer.replica.by_majority,
        )
    except OSError as exc:
        report(f"no game log: cannot write in {directory}: {exc.strerror or exc}")
        return None
    replica = peer.replica
    unfollow = log.follow(replica)

    def frame(outgoing: bool, seat: int | None, message: Message | CommitFrame) -> None:
        log.frame(outgoing, seat, message, trio.current_time())

    def commits(_: object) -> None:
        log.commits(replica.committed, replica.log.digests.get, trio.current_time())

    def stop() -> None:
        # Unhooked before the file closes: a link may still hand the peer a message as
        # the match winds down (a peer died on "write to closed file" after its match).
        peer.traffic.remove(frame)
        peer.frame_traffic.remove(frame)
        peer.watchers.remove(commits)
        unfollow()
        log.close()

    peer.traffic.append(frame)
    peer.frame_traffic.append(frame)
    peer.watchers.append(commits)
    peer.log_path = log.path
    return stop
