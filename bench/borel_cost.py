"""What a simulated call costs: Borel simulation's CPU time per decision, one configuration against another.

Collects the decisions the simulation would weigh (two or more sane candidates) from the rules' own auctions on
seeded deals (``bench/bidding_par``'s deals), then decides each of them with configuration A and with configuration
B, interleaved (A, B, A, B ...: load on the machine falls on both alike), each with the same seeded worlds and no
deadline, so both finish their work. Reports each one's CPU seconds per decision (this process, solver threads
included: what a loaded machine does not inflate) with the ratio B / A, the wall seconds and how often B's call
differs from A's (the price of any shortcut B takes). By default A is the simulation as it was (every world solved,
``sequential = false``) and B the current settings.

``--ref DIR`` compares code instead of settings: A is the checkout at ``DIR`` (its own ``.venv``), B this one, each
deciding in a worker process of its own (``DIR/.venv/bin/python`` running this file against ``DIR``'s package), the
same decisions in the order A, B, B, A, A, B, B, A ... so that load and warm-up fall on both alike; without
``--a``/``--b`` both use their current default settings. ``--dump FILE`` writes every decision's calls (JSON lines)
for a comparison across runs.

    .venv/bin/python bench/borel_cost.py [--decisions 150] [--seed 11] [--b KEY=VALUE ...] [--a KEY=VALUE ...]
    .venv/bin/python bench/borel_cost.py --ref /path/to/other/checkout [--decisions 60] [--seed 12]

Ends with ``RESULT decisions=.. cpu_a=.. cpu_b=.. ratio=.. wall_a=.. wall_b=.. differ=..``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bidding_par import deal_of  # noqa: E402  (the same seeded deals)
from overrides import overrides  # noqa: E402

from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.bidding import Bidder  # noqa: E402
from squeeze.engine.bidding.borel import BorelBidder, BorelSettings  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402

SYSTEM = "sayc"



def rules_bidder():
    """The rules' bidder of SYSTEM, in this checkout or in a ``--ref`` checkout from before ``Bidder.of``."""
    system = load_system(SYSTEM)
    return Bidder.of(system) if hasattr(Bidder, "of") else system.bidder()

def decisions(n: int, seed: int, probe: BorelBidder) -> list[SeatView]:
    """The first ``n`` decisions of the rules' auctions on ``seed``'s deals that the simulation would weigh."""
    rules = rules_bidder()
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
    return overrides(BorelSettings, pairs)


def decide(bidder: BorelBidder, view: SeatView, seed: int, k: int) -> tuple[str, float, float, dict]:
    """Decision ``k``: (call, CPU s, wall s, stages), its worlds seeded from ``seed`` and ``k``, no deadline."""
    rng = random.Random(seed * 7919 + k)
    c0, w0 = time.process_time(), time.perf_counter()
    call = bidder.choose(view, rng, None, 1e9).call
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return str(call), cpu, wall, dict(bidder.last.stages)


def serve(args) -> None:
    """Worker of ``--ref``: the decisions of ``--seed``, decided one per line of stdin (its index), each answered by
    one line of JSON on stdout."""
    base = dataclasses.asdict(BorelSettings(enabled=True))
    bidder = BorelBidder(rules_bidder(), BorelSettings(**{**base, **parse(args.settings)}))
    views = decisions(args.decisions, args.seed, bidder)
    print(json.dumps({"decisions": len(views), "auctions": [f"{v.seat.letter} after {v.auction}" for v in views]}),
          flush=True)
    for line in sys.stdin:
        k = int(line)
        call, cpu, wall, stages = decide(bidder, views[k], args.seed, k)
        print(json.dumps({"k": k, "call": call, "cpu": cpu, "wall": wall, "stages": stages}), flush=True)


class Worker:
    """A ``serve`` process running the code of the checkout at ``root`` (with its own virtual environment)."""

    def __init__(self, root: Path, settings: list[str], n: int, seed: int) -> None:
        py = root / ".venv" / "bin" / "python"
        if not py.exists():
            sys.exit(f"error: {py} not found: --ref needs a checkout with its .venv built (make build)")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            [str(py), str(Path(__file__).resolve()), "--serve", "--decisions", str(n), "--seed", str(seed),
             "--settings", *settings], cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.head = json.loads(self.proc.stdout.readline())

    def decide(self, k: int) -> dict:
        self.proc.stdin.write(f"{k}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"error: the worker stopped (exit code {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--a", nargs="*", default=None,
                    help="configuration A: BorelSettings KEY=VALUE (default: sequential=false; with --ref: none)")
    ap.add_argument("--b", nargs="*", default=[], help="configuration B (default: the current settings)")
    ap.add_argument("--ref", type=Path, default=None,
                    help="A is the code of the checkout at this directory (run with its own .venv), B this code")
    ap.add_argument("--dump", type=Path, default=None, help="write every decision's calls here (JSON lines)")
    ap.add_argument("--quick", action="store_true", help="30 decisions")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--settings", nargs="*", default=[], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve(args)
    n = 30 if args.quick else args.decisions
    a_set = args.a if args.a is not None else ([] if args.ref else ["sequential=false"])
    parse(a_set), parse(args.b)  # (bad keys fail here, before any work)
    if args.ref is not None:
        workers = {"a": Worker(args.ref.resolve(), a_set, n, args.seed), "b": Worker(ROOT, args.b, n, args.seed)}
        if workers["a"].head != workers["b"].head:
            sys.exit("error: the two checkouts do not find the same decisions (their rules bid differently)")
        auctions = workers["b"].head["auctions"]
        deciders = {name: (lambda k, w=w: w.decide(k)) for name, w in workers.items()}
        print(f"{len(auctions)} decisions to weigh (seed {args.seed}); A: the code at {args.ref} "
              f"({a_set or 'defaults'}), B: this code ({args.b or 'defaults'})", flush=True)
    else:
        base = dataclasses.asdict(BorelSettings(enabled=True))
        bidder = rules_bidder()
        a = BorelBidder(bidder, BorelSettings(**{**base, **parse(a_set)}))
        b = BorelBidder(bidder, BorelSettings(**{**base, **parse(args.b)}))
        views = decisions(n, args.seed, a)
        auctions = [f"{v.seat.letter} after {v.auction}" for v in views]

        def local(bd):
            def run(k):
                call, cpu, wall, stages = decide(bd, views[k], args.seed, k)
                return {"call": call, "cpu": cpu, "wall": wall, "stages": stages}
            return run

        deciders = {"a": local(a), "b": local(b)}
        print(f"{len(views)} decisions to weigh (seed {args.seed}); A: {a_set or 'defaults'}, "
              f"B: {args.b or 'defaults'}", flush=True)
    cpu = {"a": 0.0, "b": 0.0}
    wall = {"a": 0.0, "b": 0.0}
    stages: dict[str, dict[str, float]] = {"a": {}, "b": {}}
    differ = 0
    dump = args.dump.open("w") if args.dump else None
    for k in range(len(auctions)):
        calls = {}
        # A B, B A, A B ...: whichever runs second in a pair runs first in the next
        for name in ("a", "b") if k % 2 == 0 else ("b", "a"):
            r = deciders[name](k)
            calls[name] = r["call"]
            cpu[name] += r["cpu"]
            wall[name] += r["wall"]
            for st, v in r["stages"].items():
                stages[name][st] = stages[name].get(st, 0.0) + v
        differ += calls["a"] != calls["b"]
        if dump:
            dump.write(json.dumps({"k": k, "auction": auctions[k], "a": calls["a"], "b": calls["b"]}) + "\n")
        if (k + 1) % 25 == 0:
            print(f"  {k + 1}: cpu A {cpu['a'] / (k + 1):.3f} s, B {cpu['b'] / (k + 1):.3f} s per decision", flush=True)
    if dump:
        dump.close()
    if args.ref is not None:
        for w in workers.values():
            w.close()
    m = max(1, len(auctions))
    for name in ("a", "b"):
        print(f"{name.upper()}: {cpu[name] / m:.3f} CPU-s, {wall[name] / m:.3f} wall-s per decision; stages (wall): "
              + ", ".join(f"{st} {v / m:.3f}" for st, v in sorted(stages[name].items())))
    print(f"calls that differ: {differ} of {len(auctions)}")
    print(f"RESULT decisions={len(auctions)} cpu_a={cpu['a'] / m:.4f} cpu_b={cpu['b'] / m:.4f} "
          f"ratio={cpu['b'] / max(1e-9, cpu['a']):.3f} wall_a={wall['a'] / m:.4f} wall_b={wall['b'] / m:.4f} "
          f"differ={differ}")


if __name__ == "__main__":
    main()
