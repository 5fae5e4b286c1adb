"""Bidding speed of this checkout against another revision, in the same run: the rules-only interpreter, caches
cold, on three workloads (the SAYC test vectors with alternatives, 300 seeded auctions bid by four robots, and the
exact meaning tests of those auctions' calls on 40 random hands each: the sampler's hot path).

Each side runs in its own fresh process (CPU time of the workloads only: imports and the system's compilation are
left out), the two alternating ``--pairs`` times; the figure is the median of the per-pair ratios (this checkout's
time / the reference's), so a machine shared with other work slows both sides of a pair alike. The reference is
``git archive REV`` unpacked under ``bench/out/bidding_speed/`` (pure Python: the bidder needs no compiled code).

    .venv/bin/python bench/bidding_speed.py [--ref main] [--pairs 5] [--quick]

Ends with ``RESULT ratio_total=.. ratio_vectors=.. ratio_auctions=.. ratio_meanings=.. pairs=N`` (below 1: this
checkout is faster).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from shared import shared_path  # noqa: E402

PARTS = ("vectors", "auctions", "meanings")

# Run inside a fresh interpreter with the tree to time first on sys.path (argv: tree, vectors file, deals).
_WORKLOAD = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from squeeze.engine.auction import Auction
from squeeze.engine.cards import Deal, Hand, Seat, Vul
try:  # this checkout: the configuration loads the system
    from squeeze.config.bidding import load_system
    from squeeze.engine.bidding import Bidder
    system = load_system("sayc")
    bidder = Bidder.of(system) if hasattr(Bidder, "of") else system.bidder()  # (before Bidder.of: the system's)
except ImportError:  # older trees: the engine loaded it
    from squeeze.engine.bidding import get_bidder
    bidder = get_bidder("sayc")
import squeeze.engine.bidding as loaded
assert loaded.__file__.startswith(sys.argv[1]), loaded.__file__
recs = [r for r in (json.loads(x) for x in open(sys.argv[2]) if x.strip()) if "issues" not in r]
out = {}
t = time.process_time()
for r in recs:
    bidder.choose(Hand.parse(r["hand"]), Auction(Seat.parse(r["dealer"]), r["auction"]), Vul.parse(r["vul"]))
out["vectors"] = time.process_time() - t
rng = random.Random(1)
auctions = []
t = time.process_time()
for _ in range(int(sys.argv[3])):
    d = Deal.random(rng)
    a, v = Auction(Seat(rng.randrange(4))), Vul(rng.randrange(4))
    while not a.is_complete:
        a = a.then(bidder.choose(d[a.next_seat], a, v, alternatives=False).call)
    auctions.append((a, v))
out["auctions"] = time.process_time() - t
hands = [Deal.random(rng)[Seat.NORTH] for _ in range(40)]
t = time.process_time()
for a, v in auctions[: len(auctions) * 2 // 5]:
    for c in bidder.explain_auction(a, v, viewpoint=Seat.SOUTH).values():
        for p in c.predicates:
            for h in hands:
                p(h)
out["meanings"] = time.process_time() - t
print(json.dumps(out))
"""


def tree_of(rev: str) -> Path:
    """``git archive rev`` unpacked once under bench/out, with a ``squeeze`` folder of links naming its packages the
    way the installed project does (squeeze.engine is engine/, ...)."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    base = ROOT / "bench" / "out" / "bidding_speed" / sha
    if not (base / "squeeze").is_dir():
        data = subprocess.run(["git", "archive", sha, "engine", "config"], cwd=ROOT, capture_output=True,
                              check=True).stdout
        base.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(base / "src", filter="data")
        (base / "squeeze").mkdir()
        for name in ("engine", "config"):
            (base / "squeeze" / name).symlink_to(base / "src" / name)
    return base


def this_tree() -> Path:
    base = ROOT / "bench" / "out" / "bidding_speed" / "this"
    if not (base / "squeeze").is_dir():
        (base / "squeeze").mkdir(parents=True)
        for name in ("engine", "config"):
            (base / "squeeze" / name).symlink_to(ROOT / name)
    return base


def run(tree: Path, vectors: Path, deals: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _WORKLOAD, str(tree), str(vectors), str(deals)], capture_output=True,
                         text=True, cwd=tree)
    if out.returncode:
        sys.exit(f"bench/bidding_speed.py: the workload failed in {tree}:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", default="main", help="the revision to compare with (default: main)")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2 pairs, 100 auctions")
    ap.add_argument("--data", type=Path, default=shared_path("research/bidding/sayc_dev.jsonl"),
                    help="the SAYC test vectors (JSON lines)")
    args = ap.parse_args()
    if not args.data.is_file():
        sys.exit(f"bench/bidding_speed.py: no test vectors at {args.data} (give --data FILE, or set SQUEEZE_SHARED)")
    pairs, deals = (2, 100) if args.quick else (args.pairs, 300)
    ref, this = tree_of(args.ref), this_tree()
    ratios: dict[str, list[float]] = {p: [] for p in (*PARTS, "total")}
    for i in range(pairs):
        a, b = (run(this, args.data, deals), run(ref, args.data, deals)) if i % 2 == 0 else \
            reversed((run(ref, args.data, deals), run(this, args.data, deals)))
        a["total"], b["total"] = sum(a[p] for p in PARTS), sum(b[p] for p in PARTS)
        print(f"pair {i + 1}: " + "  ".join(f"{p} {a[p]:.2f}/{b[p]:.2f} s" for p in (*PARTS, "total")))
        for p in ratios:
            ratios[p].append(a[p] / b[p])
    med = {p: statistics.median(r) for p, r in ratios.items()}
    print(f"this checkout / {args.ref}: " + ", ".join(f"{p} {med[p]:.3f}" for p in (*PARTS, "total"))
          + f" (medians of {pairs} pairs; CPU seconds)")
    print(f"RESULT ratio_total={med['total']:.3f} ratio_vectors={med['vectors']:.3f} "
          f"ratio_auctions={med['auctions']:.3f} ratio_meanings={med['meanings']:.3f} pairs={pairs}")


if __name__ == "__main__":
    main()
