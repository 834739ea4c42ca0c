"""A signed message's cost, run by python tools/bench.py sign [--messages N] [--json]."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import Any

from p2pnerts.protocol import Play, Signer, signed_bytes, verify
from p2pnerts.rules import TurnStock


def bench_sign(args: argparse.Namespace) -> dict[str, Any]:
    """What a signed message costs on one core: signing a Play, and verifying it (the
    verdict's memo bypassed, as a peer verifies each message of another seat once)."""
    signer = Signer.computed(0, 4)
    play = Play(0, 0, 17, 5, 1, TurnStock(0, rotation=0))  # (a turn sent names its rotation)
    count = int(args.messages)
    start = time.process_time()
    for n in range(count):
        signed = signer.sign(replace(play, clock=17 + n))
    signing = (time.process_time() - start) / count
    data = signed_bytes(signed, signer.table)
    if not verify(signer.keys[0], signed.sig, data):
        raise SystemExit("the benchmark's own signature does not verify: nothing to time")
    start = time.process_time()
    for _ in range(count):
        verify(signer.keys[0], signed.sig, data)
    verifying = (time.process_time() - start) / count
    figures = {"sign_us": signing * 1e6, "verify_us": verifying * 1e6, "messages": count}
    if not args.json:
        print(f"Ed25519 per Play, one core, {count} messages")
        print(f"  sign    {figures['sign_us']:6.1f} us (payload encoded once more)")
        print(f"  verify  {figures['verify_us']:6.1f} us")
    return {"sign": figures}
