"""Borel simulation against the rules alone: a bidding-only team match on seeded deals.

Deal ``i`` of seed ``s`` is ``Deal.random(Random(s * 1_000_003 + i))`` (as ``bench/bidding_par.py``), board number
``i + 1`` gives dealer and vulnerability. Team A bids with rules + simulation (``engine.bidding.borel``), team B
with the rules only (the same system). Open room: A sits North-South; closed room: A sits East-West. Each final
contract is scored at its declarer's double-dummy tricks (tables cached in ``bench/out/dd_tables.jsonl``, shared
with ``bidding_par``), and A's swing is the IMPs of ``open N/S score - closed N/S score``: the figure is IMPs per
deal for the simulation, with its standard error and 95 % interval (``engine.stats``).

Every simulated decision has the real budget: a deadline ``--seconds`` (the call's time, default
``PlayerParams.seconds_per_call``) from when it starts, so its cost is measured as it would be at a table
(``sec_per_decision``: mean wall seconds of a simulated decision; ``cpu_per_decision``: its CPU seconds, solver
threads included, which a loaded machine does not inflate; ``simulated_share``: simulated decisions / all of A's
decisions). A decision cut short by its deadline answers with the rules' call, as at a table: on a machine shared
with other work, give ``--seconds`` in proportion (the figure then says what the method gains with the CPU time a
2-second call has on an idle 2-core machine).

Resumable: one JSON line per deal in ``--out`` (default ``bench/out/borel_s<seed>_v<VERSION>.jsonl``), keyed by the seed, the
deal and the simulation settings; a re-run skips the deals already there (Ctrl-C loses at most the deals in
progress). ``--workers`` processes bid deals in parallel (each simulation solves on ``--threads`` threads).

    .venv/bin/python bench/borel.py [--deals 500] [--seed 7] [--quick] [--workers 1] [--threads 2]
        [--worlds 32] [--z 1.0] [--margin 0.5] [--gap 5] [--double-failing 2] [--scoring imps|matchpoints]
        [--show N] [--no-confirm]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.bidding import Bidder  # noqa: E402
from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.engine.bidding.borel import BorelBidder, BorelSettings  # noqa: E402
from squeeze.engine.cards import Deal, Seat, Vul  # noqa: E402
from squeeze.engine.player import PlayerParams  # noqa: E402
from squeeze.engine.scoring import imps, score  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402
from squeeze.robot.logs import log_decision  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from bidding_par import CACHE, deal_of, load_cache  # noqa: E402  (the same deals and DD-table cache)
SYSTEM = "sayc"
#: Part of each result's key: bump it when the simulation's behaviour changes, so a resumed run never mixes versions.
VERSION = 2


_W: dict = {}  # per worker process: the bidders, the solver and the DD cache


def _init(settings: dict, seconds: float) -> None:
    _W["rules"] = Bidder.of(load_system(SYSTEM))
    _W["borel"] = BorelBidder(_W["rules"], BorelSettings(**settings))
    _W["seconds"] = seconds
    _W["cache"] = load_cache()


def table(d: Deal) -> list:
    pbn = d.to_pbn()
    t = _W["cache"].get(pbn)
    if t is None:
        from squeeze.engine.dds import solve_table

        t = [list(r) for r in solve_table(d).tricks]
        _W["cache"][pbn] = t
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        with CACHE.open("a") as f:
            f.write(json.dumps({"deal": pbn, "t": t}) + "\n")
    return t


def bid_room(board: int, d: Deal, dealer: Seat, vul: Vul, sim_side: int, seed: int) -> tuple[Auction, dict]:
    borel: BorelBidder = _W["borel"]
    rules = _W["rules"]
    a = Auction(dealer)
    info = {"decisions": 0, "simulated": 0, "seconds": 0.0, "cpu": 0.0, "cut_short": 0, "cut_why": {}, "stages": {}, "overrides": []}
    while not a.is_complete:
        seat = a.next_seat
        if int(seat) & 1 == sim_side:
            view = SeatView(seat, d[seat], a, vul, board=board)
            rng = random.Random(((seed * 1_000_003 + board) * 7 + int(seat)) * 1_009 + len(a.calls))
            cpu = time.process_time()  # this process's CPU time, solver threads included
            ch = log_decision(borel.choose(view, rng, time.monotonic() + _W["seconds"], _W["seconds"]))
            cpu = time.process_time() - cpu
            r = borel.last
            info["decisions"] += 1
            if r.simulated:
                info["simulated"] += 1
                info["seconds"] += r.seconds
                info["cpu"] += cpu
                for k, v in r.stages.items():
                    info["stages"][k] = info["stages"].get(k, 0.0) + v
                info["cut_short"] += r.cut_short
                if r.cut_short:
                    stage = r.why_not.split("(", 1)[-1].split(")")[0].split(" in time")[0]
                    info["cut_why"][stage] = info["cut_why"].get(stage, 0) + 1
            if ch.call != r.rules_call:
                info["overrides"].append({"seat": seat.letter, "auction": " ".join(map(str, a.calls)),
                                          "hand": str(d[seat]), "rules": str(r.rules_call), "call": str(ch.call),
                                          "gains": r.gains, "worlds": r.worlds, "distrusted": r.distrusted})
            call = ch.call
        else:
            call = rules.choose(d[seat], a, vul, alternatives=False).call
        a = a.then(call)
    return a, info


def ns_score(a: Auction, t: list, vul: Vul) -> int:
    c = a.contract
    if c is None:
        return 0
    s = score(c, t[int(c.strain)][int(c.declarer)], vul.is_vulnerable(c.declarer))
    return s if c.declarer.is_ns else -s


def run_deal(job: tuple[int, int, str]) -> dict:
    seed, i, key = job
    board, d, dealer, vul = deal_of(seed, i)
    t = table(d)
    open_a, open_i = bid_room(board, d, dealer, vul, 0, seed)
    closed_a, closed_i = bid_room(board, d, dealer, vul, 1, seed)
    o, c = ns_score(open_a, t, vul), ns_score(closed_a, t, vul)
    return {"key": key, "seed": seed, "deal": i, "board": board, "pbn": d.to_pbn(),
            "open": " ".join(map(str, open_a.calls)), "closed": " ".join(map(str, closed_a.calls)),
            "open_ns": o, "closed_ns": c, "imps": imps(o - c),
            "decisions": open_i["decisions"] + closed_i["decisions"],
            "simulated": open_i["simulated"] + closed_i["simulated"],
            "sim_seconds": round(open_i["seconds"] + closed_i["seconds"], 4),
            "sim_cpu": round(open_i["cpu"] + closed_i["cpu"], 4),
            "cut_short": open_i["cut_short"] + closed_i["cut_short"],
            "cut_why": {k: open_i["cut_why"].get(k, 0) + closed_i["cut_why"].get(k, 0)
                        for k in {**open_i["cut_why"], **closed_i["cut_why"]}},
            "stages": {k: round(open_i["stages"].get(k, 0) + closed_i["stages"].get(k, 0), 4)
                       for k in {**open_i["stages"], **closed_i["stages"]}},
            "overrides": [dict(room="open", **x) for x in open_i["overrides"]]
            + [dict(room="closed", **x) for x in closed_i["overrides"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="20 deals, 16 worlds")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=BorelSettings.threads)
    ap.add_argument("--worlds", type=int, default=BorelSettings.worlds)
    ap.add_argument("--z", type=float, default=BorelSettings.z)
    ap.add_argument("--margin", type=float, default=None, help="IMPs (teams) or points (matchpoints)")
    ap.add_argument("--gap", type=int, default=BorelSettings.gap_imps)
    ap.add_argument("--double-failing", type=int, default=BorelSettings.double_failing,
                    help="an undoubled contract this many tricks short is scored doubled in the worlds (0: never); "
                         "the judge here scores contracts as bid, by rules that seldom double")
    ap.add_argument("--scoring", default=BorelSettings.scoring, choices=("imps", "matchpoints"))
    ap.add_argument("--seconds", type=float, default=PlayerParams().seconds_per_call)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--show", type=int, default=10, help="overrides printed (biggest swings first)")
    ap.add_argument("--no-confirm", action="store_true", help="bid a call that passes on the first worlds without "
                                                              "confirming it on fresh ones (BorelSettings.confirm)")
    args = ap.parse_args()
    n = 20 if args.quick else args.deals
    worlds = 16 if args.quick else args.worlds
    settings = dict(enabled=True, worlds=worlds, min_worlds=min(BorelSettings.min_worlds, worlds), z=args.z,
                    gap_imps=args.gap, double_failing=args.double_failing, scoring=args.scoring,
                    threads=args.threads, confirm=not args.no_confirm)
    if args.margin is not None:
        settings["margin_imps" if args.scoring == "imps" else "margin_points"] = args.margin
    full = dataclasses.asdict(BorelSettings(**settings))
    key = json.dumps({"settings": full, "seconds": args.seconds, "version": VERSION}, sort_keys=True)
    out = args.out or ROOT / "bench" / "out" / f"borel_s{args.seed}_v{VERSION}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[int, dict] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if r.get("key") == key and r.get("seed") == args.seed:
                done[r["deal"]] = r
    todo = [(args.seed, i, key) for i in range(n) if i not in done]
    print(f"{len(done)} of {n} deals already in {out}; bidding {len(todo)} "
          f"({args.workers} worker(s), {args.threads} solver thread(s), {worlds} worlds, z {args.z})", flush=True)
    t0 = time.perf_counter()
    with out.open("a") as f:
        if args.workers <= 1:
            _init(full, args.seconds)
            results = map(run_deal, todo)
        else:
            ex = ProcessPoolExecutor(args.workers, initializer=_init, initargs=(full, args.seconds))
            results = ex.map(run_deal, todo, chunksize=1)
        for k, r in enumerate(results, 1):
            f.write(json.dumps(r) + "\n")
            f.flush()
            done[r["deal"]] = r
            if k % 25 == 0:
                print(f"  {k}/{len(todo)} deals in {time.perf_counter() - t0:.0f}s", flush=True)
        if args.workers > 1:
            ex.shutdown()
    rows = [done[i] for i in range(n) if i in done]
    report(rows, args.show)


def report(rows: list[dict], show: int) -> None:
    from squeeze.engine.stats import interval95, mean_se

    swings = [r["imps"] for r in rows]
    m, se = mean_se(swings)
    lo, hi = interval95(m, se)
    decisions = sum(r["decisions"] for r in rows)
    simulated = sum(r["simulated"] for r in rows)
    secs = sum(r["sim_seconds"] for r in rows)
    cpu = sum(r.get("sim_cpu", 0.0) for r in rows)
    cut = sum(r.get("cut_short", 0) for r in rows)
    why: dict[str, int] = {}
    stages: dict[str, float] = {}
    for r in rows:
        for k, v in r.get("stages", {}).items():
            stages[k] = stages.get(k, 0.0) + v
    for r in rows:
        for k, v in r.get("cut_why", {}).items():
            why[k] = why.get(k, 0) + v
    ovr = [dict(o, imps=r["imps"], board=r["board"], open=r["open"], closed=r["closed"]) for r in rows
           for o in r["overrides"]]
    swing_deals = [r for r in rows if r["imps"]]
    print(f"deals {len(rows)}: {m:+.3f} IMPs/deal for rules+simulation (se {se:.3f}, 95% interval "
          f"[{lo:+.3f}, {hi:+.3f}]); {len(swing_deals)} deals swing: won {sum(1 for r in rows if r['imps'] > 0)}, "
          f"lost {sum(1 for r in rows if r['imps'] < 0)}")
    print(f"decisions {decisions}, simulated {simulated} ({simulated / max(1, decisions):.1%}), "
          f"{secs / max(1, simulated):.2f} s per simulated decision ({cpu / max(1, simulated):.2f} CPU-s, all threads), "
          f"{cut} cut short by the deadline {why or ''}; "
          f"{len(ovr)} overrides")
    print("seconds per simulated decision by stage: "
          + ", ".join(f"{k} {v / max(1, simulated):.3f}" for k, v in sorted(stages.items())))
    for o in sorted(ovr, key=lambda o: -abs(o["imps"]))[:show]:
        print(f"  board {o['board']} {o['room']} {o['seat']} [{o['auction']}] {o['hand']}: rules {o['rules']} -> "
              f"{o['call']} {o['gains']} deal {o['imps']:+d} IMPs | open {o['open']} | closed {o['closed']}")
    print(f"RESULT deals={len(rows)} imps_per_deal={m:.3f} stderr={se:.3f} lo95={lo:.3f} hi95={hi:.3f} "
          f"sec_per_decision={secs / max(1, simulated):.3f} cpu_per_decision={cpu / max(1, simulated):.3f} "
          f"simulated_share={simulated / max(1, decisions):.3f} "
          f"overrides={len(ovr)} cut_short={cut}")


if __name__ == "__main__":
    main()
