"""Write seeded deals for bench/dd_core_bench.c (one deal a line: hands N,E,S,W x suits C,D,H,S as 13-bit masks):
the deals of bench/dd.py's (f) section (the shared harness's make_deals, seed 20240601) or its freak deals (g).

  .venv/bin/python bench/dd_core_deals.py --n 40 > bench/out/deals40.txt
  .venv/bin/python bench/dd_core_deals.py --n 30 --freak > bench/out/freak30.txt
"""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--freak", action="store_true")
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("bench_dd", HERE / "dd.py")
    dd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dd)
    H = dd.load_harness(dd.DEFAULT_HARNESS)
    hands_list = (dd.freak_deals(args.n, args.seed + 5) if args.freak
                  else [d["hands"] for d in H.make_deals(args.n, args.seed)])
    for hands in hands_list:   # harness suits S,H,D,C = 0..3, ranks 2..14; ours C,D,H,S = 0..3, bit r-2
        h = [[0] * 4 for _ in range(4)]
        for p in range(4):
            for s, r in hands[p]:
                h[p][3 - s] |= 1 << (r - 2)
        print(" ".join(str(h[p][s]) for p in range(4) for s in range(4)))


if __name__ == "__main__":
    main()
