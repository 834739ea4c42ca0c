"""Reference captures of the table screen, into ui/captures: python tools/capture.py [NAME...].

Without names it writes every capture; ``python tools/capture.py NAME...`` writes only the
captures named.

Each capture runs ``p2pnerts play`` in a tmux window of its size, types a few keys (Enter:
ready for the first round; ``WAIT``: the countdown and a few seconds of the bots' play),
and saves what the window shows. The bots play in real time, so two runs differ in the
details; the captures are for reviewing the layout.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "ui" / "captures"
WAIT = "wait"
"""Not a key: wait out the countdown and let the bots play a few seconds."""
READY = ["Enter", WAIT]
"""Ready for the first round, and into play."""
FAST_ROUNDS = ["--bots", "3", "--level", "10", "--rounds", "3"]
CAPTURES: tuple[tuple[str, int, int, list[str], list[str]], ...] = (
    # name, width, height, options, keys typed after the table shows
    ("ready-80x24", 80, 24, ["--bots", "3"], []),
    ("table-80x24", 80, 24, ["--bots", "3"], [*READY, "Space", "n"]),
    ("table-160x50", 160, 50, ["--bots", "3"], [*READY, "Space", "n"]),
    ("table-14-players-80x24", 80, 24, ["--bots", "13"], [*READY, "Space"]),
    ("table-14-players-160x50", 160, 50, ["--bots", "13"], [*READY, "Space", "c"]),
    ("help-80x24", 80, 24, ["--bots", "3"], [*READY, "?"]),
    ("classroom-80x24", 80, 24, ["--bots", "3"], [*READY, "c"]),
    # Bots at level 10 end a round in a few seconds (the person's seat playing nothing).
    ("round-end-80x24", 80, 24, FAST_ROUNDS, READY),
    ("table-teams-80x24", 80, 24, ["--teams", "2+2"], [*READY, "Space"]),
    ("table-teams-14-players-160x50", 160, 50, ["--teams", "+".join("2" * 7)], [*READY, " ", "c"]),
    ("round-end-teams-80x24", 80, 24, ["--teams", "2+1+2", *FAST_ROUNDS[2:]], READY),
)


def capture(name: str, width: int, height: int, options: list[str], keys: list[str]) -> str:
    tmux = shutil.which("tmux")
    if tmux is None:
        sys.exit("capture.py needs tmux")
    base = [tmux, "-L", f"p2pnerts-{name}-{os.getpid()}", "-f", os.devnull]
    play = [sys.executable, "-m", "p2pnerts", "play", *options, "--seed", "7"]
    command = f"cd {shlex.quote(str(ROOT))} && LANG=C.UTF-8 {shlex.join(play)}; sleep 60"
    size = ["-x", str(width), "-y", str(height)]
    subprocess.run([*base, "new-session", "-d", "-s", "c", *size, command], check=True)
    try:
        time.sleep(3)
        for key in keys:
            if key == WAIT:
                time.sleep(11 if "--level" in options else 7)
                continue
            subprocess.run([*base, "send-keys", "-t", "c", key], check=True)
            time.sleep(0.3)
        shown = subprocess.run(
            [*base, "capture-pane", "-p", "-t", "c"], check=True, capture_output=True, text=True
        )
        return shown.stdout
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)


def main(names: list[str]) -> int:
    unknown = set(names) - {c[0] for c in CAPTURES}
    if unknown:
        sys.exit(f"no capture named {', '.join(sorted(unknown))}")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, width, height, options, keys in CAPTURES:
        if names and name not in names:
            continue
        path = OUT / f"{name}.txt"
        path.write_text(capture(name, width, height, options, keys), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
