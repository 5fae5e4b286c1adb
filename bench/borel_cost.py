"""What a simulated call costs: Borel simulation's CPU time per decision, one configuration against another.

Collects the decisions the simulation would weigh (two or more sane candidates) from the rules' own auctions on
seeded deals (``bench/bidding_par``'s deals), then decides each of them with configuration A and with configuration
B, interleaved (A, B, A, B ...: load on the machine falls on both alike), each with the same seeded worlds and no
deadline, so both finish their work. Reports each one's CPU seconds per decision (this process, solver threads
included: what a loaded machine does not inflate) with the ratio B / A, the wall seconds and how often B's call
differs from A's (the price of any shortcut B takes). By default A is the simulation as it was (every world solved,
``sequential = false``) and B the current settings.

    .venv/bin/python bench/borel_cost.py [--decisions 150] [--seed 11] [--b KEY=VALUE ...] [--a KEY=VALUE ...]

Ends with ``RESULT decisions=.. cpu_a=.. cpu_b=.. ratio=.. wall_a=.. wall_b=.. differ=..``.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bidding_par import deal_of  # noqa: E402  (the same seeded deals)

from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.bidding.borel import BorelBidder, BorelSettings  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402

SYSTEM = "sayc"


def decisions(n: int, seed: int, probe: BorelBidder) -> list[SeatView]:
    """The first ``n`` decisions of the rules' auctions on ``seed``'s deals that the simulation would weigh."""
    rules = load_system(SYSTEM).bidder()
    out: list[SeatView] = []
    i = 0
    while len(out) < n:
        board, d, dealer, vul = deal_of(seed, i)
        i += 1
        a = Auction(dealer)
        while not a.is_complete and len(out) < n:
            seat = a.next_seat
            view = SeatView(seat, d[seat], a, vul, board=board)
            choice = rules.choose(d[seat], a, vul, alternatives=True)
            cands, _ = probe.options(view, choice)
            if len(cands) > 1:
                out.append(view)
            a = a.then(choice.call)
    return out


def parse(pairs: list[str]) -> dict:
    out = {}
    for p in pairs:
        k, _, v = p.partition("=")
        field = BorelSettings.__dataclass_fields__.get(k)
        if field is None:
            sys.exit(f"error: unknown BorelSettings field {k!r}")
        out[k] = {"true": True, "false": False}.get(v.lower(), v) if field.type in ("bool",) else type(
            getattr(BorelSettings(), k))(v)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--a", nargs="*", default=["sequential=false"], help="configuration A: BorelSettings KEY=VALUE")
    ap.add_argument("--b", nargs="*", default=[], help="configuration B (default: the current settings)")
    ap.add_argument("--quick", action="store_true", help="30 decisions")
    args = ap.parse_args()
    n = 30 if args.quick else args.decisions
    base = dataclasses.asdict(BorelSettings(enabled=True))
    bidder = load_system(SYSTEM).bidder()
    a = BorelBidder(bidder, BorelSettings(**{**base, **parse(args.a)}))
    b = BorelBidder(bidder, BorelSettings(**{**base, **parse(args.b)}))
    views = decisions(n, args.seed, a)
    print(f"{len(views)} decisions to weigh (seed {args.seed}); A: {args.a or 'defaults'}, B: {args.b or 'defaults'}",
          flush=True)
    cpu = {"a": 0.0, "b": 0.0}
    wall = {"a": 0.0, "b": 0.0}
    stages: dict[str, dict[str, float]] = {"a": {}, "b": {}}
    differ = 0
    for k, view in enumerate(views):
        calls = {}
        for name, bidder in (("a", a), ("b", b)) if k % 2 == 0 else (("b", b), ("a", a)):
            rng = random.Random(args.seed * 7919 + k)
            c0, w0 = time.process_time(), time.perf_counter()
            calls[name] = bidder.choose(view, rng, None, 1e9).call
            cpu[name] += time.process_time() - c0
            wall[name] += time.perf_counter() - w0
            for st, v in bidder.last.stages.items():
                stages[name][st] = stages[name].get(st, 0.0) + v
        differ += calls["a"] != calls["b"]
        if (k + 1) % 25 == 0:
            print(f"  {k + 1}: cpu A {cpu['a'] / (k + 1):.3f} s, B {cpu['b'] / (k + 1):.3f} s per decision", flush=True)
    m = max(1, len(views))
    for name in ("a", "b"):
        print(f"{name.upper()}: {cpu[name] / m:.3f} CPU-s, {wall[name] / m:.3f} wall-s per decision; stages (wall): "
              + ", ".join(f"{st} {v / m:.3f}" for st, v in sorted(stages[name].items())))
    print(f"calls that differ: {differ} of {len(views)}")
    print(f"RESULT decisions={len(views)} cpu_a={cpu['a'] / m:.4f} cpu_b={cpu['b'] / m:.4f} "
          f"ratio={cpu['b'] / max(1e-9, cpu['a']):.3f} wall_a={wall['a'] / m:.4f} wall_b={wall['b'] / m:.4f} "
          f"differ={differ}")


if __name__ == "__main__":
    main()
