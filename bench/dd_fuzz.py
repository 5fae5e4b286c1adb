"""Differential fuzz of engine.dds against DDS (endplay, the test oracle): many random positions, every answer checked.

tests/test_dds.py checks a few hundred positions on every run; a new bound or pruning rule in the search can be wrong
in one position of several thousand (a third-hand bound that forgot one rank it relied on was wrong in 11 of 72,000
checks), so each such step is also run through this before it lands:

    .venv/bin/python bench/dd_fuzz.py --seed 3 --positions 60000

Positions: a random deal, strain and declarer, 3..11 tricks of random legal play and 0..3 cards of the next trick;
every legal card's score (solve_cards) against DDS's SolveBoard.  Every --table-every'th position also checks the full
5x4 table of a random ending (3..8 cards a hand), which exercises every leader and strain on one solver.  Prints each
mismatch and a RESULT line; the exit status is 1 when anything differed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from squeeze.engine.cards import Deal, Hand  # noqa: E402
from squeeze.engine.dds import Solver  # noqa: E402
from test_dds import dds_cards, dds_table, random_position  # noqa: E402  (the tests' DDS oracle)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--table-every", type=int, default=5, help="check an ending's full table every N positions")
    ap.add_argument("--tt-mib", type=int, default=16)
    ap.add_argument("--quick", action="store_true", help="2,000 positions (a smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.positions = 2000

    rng = random.Random(args.seed)
    solver = Solver(tt_mib=args.tt_mib)
    checked = tables = bad = 0
    start = time.perf_counter()
    for i in range(args.positions):
        pos, strain = random_position(rng, rng.randrange(3, 12), rng.randrange(4))
        if pos.tricks_left:
            checked += 1
            if solver.solve_cards(pos, strain) != dds_cards(pos, strain):
                bad += 1
                print(f"MISMATCH {pos!r} {strain.name}", flush=True)
        if args.table_every and i % args.table_every == 0:
            deal, size = Deal.random(rng), rng.randrange(3, 9)
            hands = []
            for hand in deal.hands:
                cards = list(hand)
                rng.shuffle(cards)
                hands.append(Hand.from_cards(cards[:size]))
            ending = Deal(hands, complete=False)
            tables += 1
            if [list(r) for r in solver.solve_table(ending).tricks] != dds_table(ending):
                bad += 1
                print(f"TABLE MISMATCH {ending.to_pbn()}", flush=True)
    print(f"RESULT seed={args.seed} positions={checked} tables={tables} mismatches={bad} "
          f"seconds={time.perf_counter() - start:.0f}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
