"""Regenerate protocol/golden.json, the wire spec's golden frames: python tools/golden.py [--check].

Every frame is built from fixed message values (in `tools/goldenfile/`, a module for each
part of the file, the values they share in `goldenfile/values.py`) and encoded by
`p2pnerts.protocol`; its meaning is written beside it in readable form (the notation is
in the file). The tests decode each frame and compare it with that meaning, and encode
the meaning back to the same bytes, so the file pins the format down for a peer written
in any language. The file also holds frames every peer must refuse, with the error each
gives, and test vectors for the deck commitment and the running digest.

    python tools/golden.py           rewrite the file
    python tools/golden.py --check   exit 1 if the file is not what the codec gives now

Run it when the format changes on purpose and read the diff: every byte that moved is a
change to the protocol, and `PROTOCOL_VERSION` may have to move with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from goldenfile.frames import FRAMES  # beside this script
from goldenfile.invalid import INVALID
from goldenfile.links import link_frames, spectator_frames
from goldenfile.majority import COMMIT_FRAMES
from goldenfile.meaning import NOTATION, link_meaning, meaning
from goldenfile.vectors import vectors

from p2pnerts.protocol import PROTOCOL_VERSION, RemoteProtocolError, decode, encode

GOLDEN = Path(__file__).resolve().parent.parent / "protocol" / "golden.json"


def document() -> dict[str, Any]:
    """The whole file, once the codec has refused every invalid frame as the file says."""
    for name, _, frame, _, text in INVALID:
        try:
            decode(frame)
        except RemoteProtocolError as exc:
            if text not in str(exc):
                raise SystemExit(f"{name}: the codec says {exc!s}, the spec says {text}") from None
        else:
            raise SystemExit(f"{name}: the codec accepts a frame the spec refuses")
    return {
        "about": "Golden frames of the p2pnerts wire protocol (protocol/SPEC.md), written by"
        " tools/golden.py: do not edit by hand.",
        "version": PROTOCOL_VERSION,
        "notation": NOTATION,
        "frames": [
            {"name": name, "note": note, "hex": encode(m).hex(), "meaning": meaning(m)}
            for name, m, note in FRAMES + COMMIT_FRAMES
        ],
        "link_frames": [
            {"name": name, "note": note, "hex": encode(m).hex(), "meaning": link_meaning(m)}
            for name, m, note in link_frames() + spectator_frames()
        ],
        "invalid": [
            {"name": name, "note": note, "hex": frame.hex(), "error": error, "message": text}
            for name, note, frame, error, text in INVALID
        ],
        "vectors": vectors(),
    }


def dump(value: Any, indent: str = "") -> str:
    """JSON with one key per line, but short lists of plain values kept on one line."""
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return "[\n" + ",\n".join(inner + dump(v, inner) for v in value) + f"\n{indent}]"
    return json.dumps(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    text = dump(document()) + "\n"
    if args.check:
        current = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else ""
        if current != text:
            print(f"{GOLDEN} is out of date: run python tools/golden.py", file=sys.stderr)
            return 1
        return 0
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(text, encoding="utf-8")
    frames = len(FRAMES) + len(COMMIT_FRAMES)
    print(f"wrote {frames} frames and {len(INVALID)} invalid frames to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
