"""A PIMC batch solved with one thread and with two (``Solver.solve_many(..., threads=2)``), same worlds, same run.

    .venv/bin/python bench/dd_threads.py [--worlds 60] [--batches 2] [--seed 11]

Each batch: one North-South pair, ``--worlds`` random East-West layouts, West to lead in notrump, every card scored.
A fresh solver (cold tables) for each timing. Prints ``RESULT speedup_2_threads=...`` (one-thread time / two-thread
time; 2.0 is perfect on two cores). A measurement only: the tests check that both give the same answers.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from squeeze.engine.cards import Card, Deal, Hand, Seat, Strain  # noqa: E402
from squeeze.engine.dds import Position, Solver  # noqa: E402


def worlds(rng: random.Random, n: int) -> list[Position]:
    base = Deal.random(rng)
    rest = [Card.from_index(i) for i in range(52)
            if not ((base[Seat.NORTH].bits | base[Seat.SOUTH].bits) >> i) & 1]
    out = []
    for _ in range(n):
        rng.shuffle(rest)
        d = Deal([base[Seat.NORTH], Hand.from_cards(rest[:13]), base[Seat.SOUTH], Hand.from_cards(rest[13:])])
        out.append(Position.from_deal(d, Seat.WEST))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", type=int, default=60)
    ap.add_argument("--batches", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="one batch of 10 worlds: checks the bench runs")
    a = ap.parse_args(argv)
    if a.quick:
        a.worlds, a.batches = min(a.worlds, 10), 1
    rng = random.Random(a.seed)
    t1 = t2 = 0.0
    for b in range(a.batches):
        batch = worlds(rng, a.worlds)
        times = {}
        answers = {}
        for threads in (1, 2):
            s = Solver()
            t = time.perf_counter()
            answers[threads] = s.solve_many(batch, Strain.NOTRUMP, threads=threads)
            times[threads] = time.perf_counter() - t
        assert answers[1] == answers[2]
        t1 += times[1]
        t2 += times[2]
        print(f"batch {b}: {a.worlds} worlds  1 thread {times[1]:7.2f} s  2 threads {times[2]:7.2f} s  "
              f"speed-up {times[1] / times[2]:.2f}", flush=True)
    print(f"RESULT speedup_2_threads={t1 / t2:.2f} worlds={a.worlds} batches={a.batches}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
