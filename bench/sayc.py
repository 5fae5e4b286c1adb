"""Agreement of `squeeze bid --batch` with the saycbridge SAYC test vectors (research/bidding/sayc_dev.jsonl).

Runs the real CLI in a subprocess (the ARCHITECTURE.md batch contract), then prints agreement overall, on the
explicit records, per category and per phase, beside the two peer engines' answers the file carries (saycbridge's
z3b as of 2013, TricksterBots' SAYC bot as of 2025), the no-call rate, the most frequent expected -> got misses, and
the time per call. Records with an ``issues`` field are excluded. Per-record results go to --out (default
bench/out/sayc_results.jsonl) so regressions show per id.

Held-out split, so that the rules are never tuned on what judges them: every record belongs to a *root test* (an
explicit vector and the derived subtests of it, ``parent_id``); a fixed hash of the root id puts about a third of
the roots in the held-out part (338 of 987 records), the rest is the tuning part. Every figure is printed for the whole file, the tuning part and the
held-out part. ``--show`` prints misses of the tuning part only: rules are never tuned on the held-out part.

    .venv/bin/python bench/sayc.py [--quick] [--show CATEGORY] [--out FILE] [--rules FILE] [--simulate]
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from shared import shared_path  # noqa: E402

DATA = shared_path("research/bidding/sayc_dev.jsonl")


def held_out(rec: dict) -> bool:
    """The fixed held-out third: by root test (an explicit vector together with its derived subtests)."""
    root = rec.get("parent_id") or rec["id"]
    return int(hashlib.sha256(("squeeze-holdout:" + root).encode()).hexdigest(), 16) % 3 == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every 3rd record only")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--show", default="", help="print the misses of this category ('all' for every one)")
    ap.add_argument("--rules", default="", help="rule file (.toml, or git:REV: bench/rules.py) to use instead of "
                    "the packaged sayc")
    ap.add_argument("--simulate", action="store_true",
                    help="answer as the robot does, simulating close calls (not reproducible: each call has a deadline); "
                         "without it the rules alone answer, which is what the file checks")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "sayc_results.jsonl")
    args = ap.parse_args()
    if not args.data.is_file():
        sys.exit(f"bench/sayc.py: no test vectors at {args.data} (give --data FILE, or set SQUEEZE_SHARED)")
    from rules import load_rules

    system = load_rules(args.rules or "sayc")
    rules_file = args.rules
    if args.rules.startswith("git:"):  # the CLI reads files: the revision's text goes to one under bench/out
        out_rules = ROOT / "bench" / "out" / f"rules_{args.rules[4:]}.toml"
        out_rules.parent.mkdir(parents=True, exist_ok=True)
        out_rules.write_text(system.source, encoding="utf-8")
        rules_file = str(out_rules)

    recs = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    recs = [r for r in recs if "issues" not in r]
    if args.quick:
        recs = recs[::3]
    payload = "".join(
        json.dumps({"id": r["id"], "hand": r["hand"], "auction": r["auction"], "dealer": r["dealer"], "vul": r["vul"]})
        + "\n"
        for r in recs
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "squeeze.robot.cli", "bid", "--batch", "--simulate" if args.simulate else "--no-simulate"]
        + (["--system", rules_file] if rules_file else []),
        input=payload, capture_output=True, text=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"squeeze bid --batch failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    got = {}
    for line in proc.stdout.splitlines():
        o = json.loads(line)
        got[o["id"]] = o
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as f:
        for r in recs:
            o = got.get(r["id"], {})
            f.write(json.dumps({"id": r["id"], "expected": r["expected"], "call": o.get("call"),
                                "rule": o.get("rule"), "ok": o.get("call") == r["expected"]}) + "\n")

    def agree(rs, key):
        return sum(1 for r in rs if key(r) == r["expected"])

    ours = lambda r: got.get(r["id"], {}).get("call")  # noqa: E731
    z3b = lambda r: r.get("z3b_2013")  # noqa: E731
    tri = lambda r: r.get("trickster_2025")  # noqa: E731
    explicit = [r for r in recs if r["kind"] == "explicit"]
    n = len(recs)
    nocall = sum(1 for r in recs if not ours(r))
    tune = [r for r in recs if not held_out(r)]
    hold = [r for r in recs if held_out(r)]
    print(f"records: {n} ({len(explicit)} explicit; tuning part {len(tune)}, held-out part {len(hold)}); "
          f"wall {elapsed:.1f}s for the batch ({1000 * elapsed / max(1, n):.2f} ms per call incl. start-up)")
    print(f"{'':28s} {'squeeze all':>14s} {'tuning part':>14s} {'held-out':>14s} {'z3b 2013':>12s} "
          f"{'trickster':>14s}")

    def pct(rs, key=ours):
        return agree(rs, key) / len(rs) if rs else float("nan")

    def row(name, rs):
        a, z = agree(rs, ours), agree(rs, z3b)
        tu = [r for r in rs if not held_out(r)]
        ho = [r for r in rs if held_out(r)]
        ex = [r for r in rs if r["kind"] == "explicit"]
        t = agree(ex, tri)
        print(f"{name:28s} {a:4d}/{len(rs):<4d} {a / len(rs):5.1%} {agree(tu, ours):4d}/{len(tu):<4d}{pct(tu):6.1%} "
              f"{agree(ho, ours):4d}/{len(ho):<4d}{pct(ho):6.1%} {z:4d} {z / len(rs):6.1%}   "
              f"{t:4d}/{len(ex):<4d}{(t / len(ex)) if ex else 0:5.1%}")
        return a / len(rs), pct(tu), pct(ho)

    overall = row("ALL", recs)
    row("explicit only", explicit)
    print("-- per category")
    cats = sorted({r["category"] for r in recs})
    percat = {c: row(c, [r for r in recs if r["category"] == c]) for c in cats}
    print("-- per phase")
    for p in sorted({r["phase"] for r in recs}):
        row(p, [r for r in recs if r["phase"] == p])
    print(f"no-call results: {nocall}")
    conf = collections.Counter((r["expected"], ours(r)) for r in tune if ours(r) != r["expected"])
    print("top misses of the tuning part (expected -> got):",
          ", ".join(f"{e}->{g}:{k}" for (e, g), k in conf.most_common(12)))
    if args.show:
        for r in tune:
            if ours(r) != r["expected"] and args.show in ("all", r["category"], r["group"]):
                o = got.get(r["id"], {})
                print(f"{r['id']} [{r['group'][5:]}] {r['hand']:20s} {' '.join(r['auction']) or '-':28s} "
                      f"vul={r['vul']:4s} exp={r['expected']:3s} got={o.get('call')} ({o.get('rule')}) "
                      f"z3b={r.get('z3b_2013')} {r.get('note', '')}")
    # In-process timing of the rule interpreter alone (no process start-up), caches cold per new auction:
    # a rules-only call must take under 10 ms (the budget of a robot that bids by rules alone), reported as a ratio
    # to that budget.
    sys.path.insert(0, str(ROOT))
    from squeeze.engine.auction import Auction
    from squeeze.engine.bidding import Bidder
    from squeeze.engine.cards import Hand, Seat, Vul

    bidder = Bidder.of(system)
    times = []
    for r in recs:
        h = Hand.parse(r["hand"])
        a = Auction(Seat.parse(r["dealer"]), r["auction"])
        v = Vul.parse(r["vul"])
        t0 = time.perf_counter()
        bidder.choose(h, a, v)
        times.append(time.perf_counter() - t0)
    times.sort()
    mean_ms = 1000 * sum(times) / len(times)
    p99_ms = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"rules-only call: mean {mean_ms:.2f} ms, p99 {p99_ms:.2f} ms, max {1000 * times[-1]:.2f} ms "
          f"(budget 10 ms: mean at {mean_ms / 10:.2f}x of budget)")
    # Self-play sanity (no DDS: a crude HCP yardstick): four copies of the engine bid seeded random deals; count the
    # sides with 26+ HCP that did not reach a game they declare, and the games bid on fewer than 20 HCP.
    import random as _random

    from squeeze.engine.cards import Deal

    rng = _random.Random(1)
    n_deals = 100 if args.quick else 300
    game_sides = missed = thin = 0
    for _ in range(n_deals):
        d = Deal.random(rng)
        a = Auction(Seat(rng.randrange(4)))
        while not a.is_complete:
            a = a.then(bidder.choose(d[a.next_seat], a, Vul.NONE, alternatives=False).call)
        c = a.contract
        ns = d[Seat.NORTH].hcp + d[Seat.SOUTH].hcp
        for side, side_hcp in ((0, ns), (1, 40 - ns)):
            declares = c is not None and int(c.declarer) & 1 == side
            game = declares and c.level >= (3 if c.strain == 4 else 4 if c.strain >= 2 else 5)
            if side_hcp >= 26:
                game_sides += 1
                missed += not game
            if game and side_hcp < 20 and not c.doubled:
                thin += 1
    print(f"self-play {n_deals} deals: {game_sides} sides with 26+ HCP, {missed} without a game "
          f"({missed / max(1, game_sides):.0%}); {thin} undoubled games bid on fewer than 20 HCP")
    worst = min(percat, key=lambda c: percat[c][0])
    worst_ho = min(percat, key=lambda c: percat[c][2])
    print(f"RESULT agreement={overall[0]:.3f} tuning={overall[1]:.3f} heldout={overall[2]:.3f} "
          f"gap={overall[1] - overall[2]:.3f} records={n} explicit={agree(explicit, ours) / len(explicit):.3f} "
          f"worst_category={worst} worst={percat[worst][0]:.3f} worst_heldout_category={worst_ho} "
          f"worst_heldout={percat[worst_ho][2]:.3f} nocall={nocall} call_ms_mean={mean_ms:.2f} "
          f"call_ms_p99={p99_ms:.2f} budget_ratio={mean_ms / 10:.3f} selfplay_missed_games={missed / max(1, game_sides):.2f}")


if __name__ == "__main__":
    main()
