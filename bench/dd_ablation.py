"""What each technique of the double-dummy core buys: the same positions solved with one feature switched off.

Positions: the opening leads of seeded random deals (every card scored, as in bench/dd.py (b)), strains and
leaders rotating.  Each variant gets a fresh solver and a cap of ``--cap`` card nodes per position (a capped
position counts the cap, which understates that variant's cost; the column says how many were capped).

    .venv/bin/python bench/dd_ablation.py [--deals 30] [--cap 20000000]

Prints one line per variant (card nodes, trick-start nodes, seconds, capped) and ``RESULT`` with the node ratio of
every variant to the full solver.  Measures, never asserts: the tests check correctness.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from squeeze.engine.cards import Deal, Seat, Strain  # noqa: E402
from squeeze.engine.dds import _solver as core  # noqa: E402

VARIANTS = [
    ("all on (default)", 0),
    ("- transposition table", core.OPT_TT),
    ("- partition search (exact positions in the table)", core.OPT_PARTITION),
    ("- quick tricks (cash-out line, second hand)", core.OPT_QUICK),
    ("- partner entries and ruffs in the cash-out line", core.OPT_QT_PARTNER),
    ("- later tricks", core.OPT_LATER),
    ("- equivalent cards", core.OPT_EQUIV),
    ("- move ordering", core.OPT_ORDER),
    ("+ killer lead per depth (off by default)", -core.OPT_KILLER),
    ("- cut-off card cache", core.OPT_CUTCACHE),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cap", type=int, default=20_000_000, help="card nodes per position before giving up")
    ap.add_argument("--only", default=None, help="comma-separated variant numbers (0 = all on)")
    ap.add_argument("--quick", action="store_true", help="6 deals: checks the bench runs, measures nothing")
    a = ap.parse_args(argv)
    if a.quick:
        a.deals = min(a.deals, 6)
    rng = random.Random(a.seed)
    cases = []
    for i in range(a.deals):
        d = Deal.random(rng)
        cases.append((tuple(h.bits for h in d.hands), int(Strain(i % 5)), int(Seat(i % 4))))
    chosen = range(len(VARIANTS)) if a.only is None else [int(x) for x in a.only.split(",")]
    base_nodes = None
    result = {}
    print(f"{a.deals} opening-lead positions (seed {a.seed}), every card scored; cap {a.cap:,} card nodes each")
    print(f"{'variant':52} {'card nodes':>14} {'trick nodes':>13} {'seconds':>8} {'capped':>6}")
    for k in chosen:
        name, off = VARIANTS[k]
        s = core.CoreSolver(64 << 20)
        s.set_options(core.OPT_DEFAULT | -off if off < 0 else core.OPT_DEFAULT & ~off)
        nodes = tricks = capped = 0
        t0 = time.perf_counter()
        for bits, trump, leader in cases:
            s.reset()
            s.clear_stats()
            s.set_node_limit(a.cap)
            try:
                s.solve_cards(bits, trump, leader, [])
            except RuntimeError:
                capped += 1
            st = s.stats()
            nodes += min(st["nodes"], a.cap)
            tricks += st["trick_nodes"]
        secs = time.perf_counter() - t0
        print(f"{name:52} {nodes:14,} {tricks:13,} {secs:8.2f} {capped:6d}", flush=True)
        if k == 0:
            base_nodes = nodes
        elif base_nodes:
            what = "with" if name.startswith("+") else "without"
            result[f"nodes_x_{what}_{name.split('(')[0].strip('-+ ').replace(' ', '_')}"] = round(nodes / base_nodes, 2)
    print("RESULT " + " ".join(f"{k}={v}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
