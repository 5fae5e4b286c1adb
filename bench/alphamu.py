"""αμ versus PIMC declaring 3NT: the protocol of Cazenave & Ventos' Tables 1 and 2.

Protocol (paper §5, gaps filled as in our notes §2.6):
- Auction 1NT-3NT by South: South 15-17 HCP balanced, North 10-15 HCP with no four-card major (a direct raise).
  West leads. The defenders' worlds use those constraints; declarer's worlds only what the play shows (show-outs).
- Filter: each candidate deal is played ``--filter-runs`` times (K, default 10) by a PIMC declarer (M=1, 20 worlds)
  against PIMC defenders (20 worlds), with different seeds; the deal is kept only if PIMC makes it on a share of
  runs strictly between 30% and 70%.
- Every configuration (M = 1, 2, 3 with 20 and 40 declarer worlds) plays every kept deal once, with the same
  per-deal seed; αμ declares, the defence is PIMC with 20 worlds. Worlds are uniform (no inference), as in the paper.
- Reported: make rate with its binomial standard error per configuration, the paired gain of M=3 over M=1 at
  each world count with its standard error (the RESULT keys for 40 worlds end in ``_w40``), discrepancies
  (declarer decisions where αμ's card differs from its own M=1 choice), and the mean time per declarer move
  (searched moves only: forced and equal-card plays take no time).
- ``--repeats R`` (not the paper's; default 1) plays every kept deal R times per configuration, game r with the same
  seed in every configuration. Finding a kept deal costs about ten times what playing it costs (the filter plays
  some 65 PIMC games per kept deal), so extra games on the same deals are the cheap way to shrink the standard
  error of the paired gain. The paper's RESULT keys stay on game 0; the ``*_all`` keys pool all R games, with
  standard errors and a sign-flip test over deals (a deal's games are averaged first, never counted as independent).

Resumable: every filtered candidate and every finished (deal, configuration) is appended as one fsync'd JSON line
to ``--out`` (default bench/out/alphamu.jsonl; ``squeeze.robot.runlog``); a rerun with the same settings skips what
is there, and ``--report-only`` just summarises the file. ``--jobs N`` plays candidates and deals in N worker
processes (the kept set is the same: the first kept deals by index). The filter stops a candidate's runs as soon as
its verdict is certain. ``--dd-window LO:HI`` is an opt-in shortcut that is *not* the paper's protocol: candidates
whose double-dummy tricks lie outside LO..HI are dropped unplayed (most 1NT-3NT deals make 11+ tricks double dummy
and PIMC makes them 10 times out of 10).

The double-dummy oracle is ``--solver endplay`` (endplay's DDS, a bench-only reference) or ``--solver engine``
(engine.dds). Both give the same answers; endplay stays the default because its batch calls use DDS's own threads,
which makes it the faster of the two here (two PIMC games: 6-7 s against 11 s for engine.dds on one thread,
bench/RESULTS.md). The solver is named in the output and is part of the resume key.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from squeeze.engine.auction import Contract  # noqa: E402
from squeeze.engine.board import Play  # noqa: E402
from squeeze.engine.cards import Hand, Seat, Suit  # noqa: E402
from squeeze.engine.play.card_player import CardPlayer, PlaySettings  # noqa: E402
from squeeze.engine.play.position import SearchPosition  # noqa: E402
from squeeze.engine.sampling import SeatConstraints, WorldSampler  # noqa: E402
from squeeze.robot.runlog import RunLog  # noqa: E402
from squeeze.engine.stats import mcnemar_p, mean_se, sign_flip_p  # noqa: E402


# --- hand constraints of 1NT - 3NT ------------------------------------------------------------------------------

class Balanced:
    """4333, 4432 or 5332 (a shape predicate: the sampler applies it to the shape table)."""

    def on_shape(self, shape) -> bool:
        return tuple(sorted(shape, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))

    def __call__(self, hand: Hand) -> bool:
        return self.on_shape(hand.shape)

    def describe(self) -> str:
        return "balanced"


def nt_constraints() -> dict[Seat, SeatConstraints]:
    opener = SeatConstraints(hcp=(15, 17), predicates=(Balanced(),))
    lengths = [(0, 13)] * 4
    lengths[Suit.HEARTS] = (0, 3)
    lengths[Suit.SPADES] = (0, 3)
    responder = SeatConstraints(hcp=(10, 15), lengths=tuple(lengths))
    return {Seat.SOUTH: opener, Seat.NORTH: responder}


# --- oracles ----------------------------------------------------------------------------------------------------

class EndplayOracle:
    """endplay's DDS behind the DDOracle interface (bench reference only; runtime code never imports endplay).

    Positions go to DDS's threaded ``SolveAllBoardsBin`` as binary deals built straight from the bitmasks: going
    through endplay's ``Deal`` objects (PBN text, then the current trick played card by card) cost a sixth of a
    whole game's time. Same library, same calls, same answers."""

    name = "endplay"

    def __init__(self) -> None:
        from endplay import _dds

        self._dds = _dds

    def _solve(self, positions, target: int, solutions: int):
        """One futureTricks per position: DDS solves up to 200 boards per threaded call."""
        dds = self._dds
        out = []
        for k in range(0, len(positions), dds.MAXNOOFBOARDS):
            chunk = positions[k:k + dds.MAXNOOFBOARDS]
            bo = dds.boards()
            bo.noOfBoards = len(chunk)
            for j, p in enumerate(chunk):
                dl = bo.deals[j]
                dl.trump = 4 if p.trump == 4 else 3 - p.trump   # DDS: 0 = spades .. 3 = clubs, 4 = notrump
                dl.first = p.leader
                for i, c in enumerate(p.trick):
                    dl.currentTrickSuit[i] = 3 - c // 13
                    dl.currentTrickRank[i] = c % 13 + 2
                for h in range(4):
                    bits = p.hands[h]
                    for s in range(4):
                        dl.remainCards[h][3 - s] = ((bits >> (13 * s)) & 0x1FFF) << 2   # rank r at bit r
                bo.target[j], bo.solutions[j], bo.mode[j] = target, solutions, 1
            solved = dds.solvedBoards()
            dds.SolveAllBoardsBin(bo, solved)
            out.extend(solved.solvedBoard[j] for j in range(len(chunk)))
        return out

    @staticmethod
    def _cards(fut):
        """(card index, score) for every card of a futureTricks, equal cards expanded."""
        for i in range(fut.cards):
            base = 13 * (3 - fut.suit[i]) - 2
            ranks = (1 << fut.rank[i]) | fut.equals[i]
            while ranks:
                r = ranks.bit_length() - 1
                ranks ^= 1 << r
                yield base + r, fut.score[i]

    def solve_cards_many(self, positions):
        return [dict(self._cards(f)) for f in self._solve(list(positions), -1, 3)]

    def make_cards_many(self, positions, needs):
        """Cards reaching each position's trick target (DDS target mode, one threaded batch per target)."""
        out: list[set[int] | None] = [None] * len(positions)
        by_need: dict[int, list[int]] = {}
        for i, (p, need) in enumerate(zip(positions, needs)):
            legal = p.legal()
            if need <= 0:
                out[i] = {c for c in range(52) if legal >> c & 1}
            elif need > p.tricks_left:
                out[i] = set()
            else:
                by_need.setdefault(need, []).append(i)
        for need, idx in by_need.items():
            solved = self._solve([positions[i] for i in idx], need, 2)
            for i, fut in zip(idx, solved):
                out[i] = {c for c, sc in self._cards(fut) if sc >= need}
        return out


def make_oracle(name: str):
    if name == "endplay":
        return EndplayOracle()
    from squeeze.engine.play.oracle import EngineDDOracle

    o = EngineDDOracle()
    o.name = "engine.dds"  # type: ignore[attr-defined]
    return o


# --- one deal played out ----------------------------------------------------------------------------------------

def play_deal(deal, decl: CardPlayer, defence: CardPlayer, seed: int, until_decided: bool = False) -> dict:
    """Play 3NT by South out. ``until_decided`` (the filter, which only needs made or down) stops as soon as
    declarer has nine tricks or the defence five: the cards left change nothing it records."""
    contract = Contract.parse("3NS")
    p = Play(deal, contract)
    rng = random.Random(seed)
    moves = searched = discrepancies = 0
    secs = 0.0
    departures: list[dict] = []
    while not p.is_complete:
        if until_decided and (p.declarer_tricks >= 9 or p.defender_tricks >= 5):
            break
        declaring = p.next_seat in (p.declarer, p.dummy)
        t0 = time.perf_counter()
        d = (decl if declaring else defence).choose(p, rng)
        dt = time.perf_counter() - t0
        if declaring:
            moves += 1
            if d.selector != "forced":
                searched += 1
                secs += dt
                if d.pimc_card is not None and d.pimc_card != d.card:
                    discrepancies += 1
                    # where αμ left PIMC's card, for studying the deals the two decide differently
                    departures.append({"at": len(p.cards), "card": str(d.card), "pimc": str(d.pimc_card),
                                       "m": d.m, "goal": None if d.goal is None else round(d.goal, 4)})
        p = p.then(d.card)
    return {"tricks": p.declarer_tricks, "made": p.declarer_tricks >= 9, "decl_moves": moves,
            "searched_moves": searched, "decl_seconds": secs, "discrepancies": discrepancies,
            "departures": departures}


def players(oracle, m: int, worlds: int, budget: float | None, def_worlds: int, flags: str = "TRE"):
    decl = CardPlayer(PlaySettings(declarer_selector="alphamu", worlds_declarer=worlds, max_m=m,
                                   declarer_budget_s=budget if budget is not None else 1e9, inference=False,
                                   tt="T" in flags, root_cut="R" in flags, early_cut="E" in flags),
                      oracle=oracle, constraints=nt_constraints())
    defence = CardPlayer(PlaySettings(worlds_defender=def_worlds, inference=False), oracle=oracle,
                         constraints=nt_constraints())
    return decl, defence


def candidate_deal(base_seed: int, i: int):
    sampler = WorldSampler(None, [nt_constraints().get(s) or SeatConstraints() for s in Seat])
    return sampler.sample(1, (base_seed * 1_000_003 + i) & 0x7FFFFFFF).deal(0)


# --- work units (run in this process or in worker processes with --jobs) -------------------------------------------

_ORACLES: dict[str, object] = {}


def _oracle(name: str):
    if name not in _ORACLES:
        _ORACLES[name] = make_oracle(name)
    return _ORACLES[name]


def filter_task(solver: str, seed: int, i: int, runs: int, def_worlds: int, dd_window=None) -> dict:
    """Play the candidate ``runs`` times with PIMC on both sides; kept iff 0.3 < makes / runs < 0.7.

    Stops as soon as the verdict is certain (e.g. 7 makes of 10 already rule the deal out), which changes no
    decision. ``dd_window`` (opt-in, not the paper's protocol): skip deals whose double-dummy tricks for South in
    notrump lie outside ``(lo, hi)`` without playing them.
    """
    deal = candidate_deal(seed, i)
    rec = {"type": "filter", "i": i, "runs": runs, "deal": deal.to_pbn()}
    oracle = _oracle(solver)
    if dd_window is not None:
        p = Play(deal, Contract.parse("3NS"))
        pos = SearchPosition(tuple(h.bits for h in deal.hands), (), int(p.leader), 4)
        dd = 13 - max(oracle.solve_cards_many([pos])[0].values())  # West leads: South's side takes the rest
        rec["dd_tricks"] = dd
        if not dd_window[0] <= dd <= dd_window[1]:
            return {**rec, "makes": None, "played": 0, "kept": False}
    decl, defence = players(oracle, 1, 20, None, def_worlds)
    makes = played = 0
    for k in range(runs):
        makes += play_deal(deal, decl, defence, seed * 7919 + i * 104729 + k, until_decided=True)["made"]
        played += 1
        if makes / runs >= 0.7 or (makes + runs - played) / runs <= 0.3:
            break  # the verdict can no longer change
    return {**rec, "makes": makes, "played": played, "kept": 0.3 < makes / runs < 0.7}


def play_seed(seed: int, idx: int, rep: int) -> int:
    """The seed of game ``rep`` of kept deal ``idx``: the same for every configuration (paired games). Game 0 is
    the paper's one game per deal; candidate indices stay far below the 10**7 step, so no two games share a seed."""
    return seed * 31337 + idx + rep * 10_000_000


def play_task(solver: str, seed: int, idx: int, m: int, w: int, flags: str, name: str, budget, def_worlds: int,
              rep: int = 0) -> dict:
    deal = candidate_deal(seed, idx)
    decl, defence = players(_oracle(solver), m, w, budget, def_worlds, flags)
    rec = {"type": "play", "i": idx, "config": name}
    if rep:
        rec["rep"] = rep  # absent means game 0 (records written before --repeats existed)
    return {**rec, **play_deal(deal, decl, defence, play_seed(seed, idx, rep))}


def config_name(m: int, w: int, flags: str) -> str:
    return f"M{m}W{w}" + ("" if flags == "TRE" else f"-{flags or 'none'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=200, help="kept deals wanted (default 200)")
    ap.add_argument("--filter-runs", type=int, default=10, help="PIMC runs per candidate deal for the 30-70%% filter")
    ap.add_argument("--configs", default="1:20,2:20,3:20,1:40,2:40,3:40",
                    help="M:worlds[:flags] list; flags = αμ speed-ups kept: T (TT), R (root cut), E (early cut), "
                         "- for none (Table 2); default TRE")
    ap.add_argument("--def-worlds", type=int, default=20)
    ap.add_argument("--budget", type=float, default=None, help="αμ seconds per move beyond M=1 (default: none)")
    ap.add_argument("--solver", choices=("endplay", "engine"), default="endplay")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "alphamu.jsonl"))
    ap.add_argument("--max-candidates", type=int, default=100000)
    ap.add_argument("--report-only", action="store_true",
                    help="no new work: summarise the deals of --out that every configuration has played")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (deals in parallel); default 1")
    ap.add_argument("--dd-window", default=None, metavar="LO:HI",
                    help="opt-in pre-filter (not the paper's): play only candidates whose double-dummy tricks for "
                         "South in NT are in LO..HI")
    ap.add_argument("--repeats", type=int, default=1,
                    help="games per kept deal and configuration, each with its own seed shared by all configurations "
                         "(default 1, the paper's protocol; the RESULT keys of the paper are always from game 0, "
                         "and the *_all keys pool every game)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 2 kept deals, K=2 filter runs, M=1 and M=3 at 20 worlds")
    a = ap.parse_args(argv)
    if a.quick:
        a.deals, a.filter_runs, a.configs = 2, 2, "1:20,3:20"
        if a.out == str(ROOT / "bench" / "out" / "alphamu.jsonl"):
            a.out = str(ROOT / "bench" / "out" / "alphamu_quick.jsonl")
    if a.repeats < 1:
        ap.error(f"--repeats must be at least 1, got {a.repeats}")
    if a.dd_window is not None:
        lo, _, hi = a.dd_window.partition(":")
        if not (lo.isdigit() and hi.isdigit() and int(lo) <= int(hi)):
            ap.error(f"bad --dd-window {a.dd_window!r}: use LO:HI, e.g. 8:10")
        a.dd_window = (int(lo), int(hi))
    configs = []
    for part in a.configs.split(","):
        bits = part.split(":")
        if len(bits) not in (2, 3) or not all(b.isdigit() for b in bits[:2]) or \
                (len(bits) == 3 and not set(bits[2]) <= set("TRE-")):
            ap.error(f"bad configuration {part!r}: use M:worlds or M:worlds:flags (flags from T, R, E, or -)")
        configs.append((int(bits[0]), int(bits[1]), bits[2].replace("-", "") if len(bits) == 3 else "TRE"))
    oracle = _oracle(a.solver)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    settings_key = {"seed": a.seed, "filter_runs": a.filter_runs, "def_worlds": a.def_worlds,
                    "budget": a.budget, "solver": a.solver}
    if a.dd_window is not None:
        settings_key["dd_window"] = list(a.dd_window)
    # Resume: read what is already there for these settings.
    filtered: dict[int, dict] = {}
    played: dict[tuple[int, str, int], dict] = {}  # (deal, configuration, game)
    log = RunLog(out)
    contents = log.read()
    if contents.torn is not None:
        # a run killed mid-write leaves a partial last line: that record is simply redone (the next append cuts it)
        torn = contents.torn
        print(f"  {out}:{torn.line}: unreadable record skipped ({torn.text[:60]!r}...)", file=sys.stderr)
    for rec in contents.records:
        if rec.get("settings") != settings_key:
            continue
        if rec["type"] == "filter":
            filtered[rec["i"]] = rec
        elif rec["type"] == "play":
            played[(rec["i"], rec["config"], rec.get("rep", 0))] = rec

    def append(rec: dict) -> None:
        rec["settings"] = settings_key
        log.append(rec)

    print(f"αμ bench: solver={getattr(oracle, 'name', a.solver)}, {platform.processor() or platform.machine()}, "
          f"python {platform.python_version()}; out={out}")
    t_start = time.time()
    pool = None
    if a.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(a.jobs)

    def run(fn, tasks):
        """Results of ``fn(*task)`` in task order (in parallel with --jobs), each appended as soon as it is known."""
        if pool is None:
            for t in tasks:
                yield fn(*t)
        else:
            futures = [pool.submit(fn, *t) for t in tasks]
            for f in futures:
                yield f.result()

    kept: list[int] = sorted(i for i, r in filtered.items() if r["kept"])
    i = 0
    if a.report_only:
        a.max_candidates = 0
        kept = kept[: a.deals]
    while len(kept) < a.deals and i < a.max_candidates:
        # Next wave: as many unfiltered candidates (in index order) as there are workers.
        wave = []
        while len(wave) < max(1, a.jobs) and i < a.max_candidates:
            if i not in filtered:
                wave.append((a.solver, a.seed, i, a.filter_runs, a.def_worlds, a.dd_window))
            i += 1
        for rec in run(filter_task, wave):
            append(rec)
            filtered[rec["i"]] = rec
            what = (f"double dummy {rec['dd_tricks']} tricks, not played" if rec["makes"] is None
                    else f"PIMC made {rec['makes']} of {rec['played']} runs (of {rec['runs']})")
            print(f"  candidate {rec['i']}: {what} -> {'kept' if rec['kept'] else 'dropped'}", flush=True)
            if rec["kept"]:
                kept.append(rec["i"])
    kept = sorted(kept)[: a.deals]  # the first kept deals by index: the same set whatever --jobs is
    # Game 0 of every deal first (the paper's protocol), then the extra games.
    tasks = [(a.solver, a.seed, idx, m, w, flags, config_name(m, w, flags), a.budget, a.def_worlds, rep)
             for rep in range(a.repeats) for idx in kept for m, w, flags in configs
             if (idx, config_name(m, w, flags), rep) not in played]
    if a.report_only:
        tasks = []
    for rec in run(play_task, tasks):
        append(rec)
        played[(rec["i"], rec["config"], rec.get("rep", 0))] = rec
        game = f" game {rec['rep']}" if rec.get("rep") else ""
        print(f"  deal {rec['i']}{game} {rec['config']}: {rec['tricks']} tricks "
              f"({'made' if rec['made'] else 'down'}), "
              f"{rec['decl_seconds'] / max(1, rec['searched_moves']):.3f} s/move", flush=True)

    def complete(idx: int, reps: int) -> bool:
        return all((idx, config_name(m, w, f), r) in played for m, w, f in configs for r in range(reps))

    kept_all = [idx for idx in kept if complete(idx, a.repeats)]  # deals with every game of every configuration
    kept = [idx for idx in kept if complete(idx, 1)]
    if pool is not None:
        pool.shutdown()

    print(f"\nkept deals: {len(kept)} (of {len(filtered)} candidates); wall time this run {time.time() - t_start:.0f} s")

    def summarise(deals: list[int], reps: int, title: str) -> dict:
        """Print one table over ``reps`` games of each deal; rates and their standard errors are over deals (each
        deal's games averaged first), so games of one deal never count as independent."""
        print(f"\n{title}")
        print(f"{'config':12} {'deals':>5} {'games':>5} {'make':>7} {'±se':>6} {'discrep':>12} {'s/move':>8}")
        out: dict[str, dict] = {}
        for m, w, flags in configs:
            name = config_name(m, w, flags)
            recs = [[played[(i, name, r)] for r in range(reps)] for i in deals]
            per_deal = {i: sum(g["made"] for g in gs) / reps for i, gs in zip(deals, recs)}
            rate, se = mean_se(list(per_deal.values()))
            flat = [g for gs in recs for g in gs]
            moves = sum(g["searched_moves"] for g in flat)
            spm = sum(g["decl_seconds"] for g in flat) / moves if moves else float("nan")
            disc, alld = sum(g["discrepancies"] for g in flat), sum(g["decl_moves"] for g in flat)
            out[name] = {"rate": rate, "se": se, "spm": spm, "per_deal": per_deal}
            print(f"{name:12} {len(deals):5d} {len(flat):5d} {100 * rate:6.1f}% {100 * se:5.1f} "
                  f"{disc:5d}/{alld:<6d} {spm:8.3f}")
        for w in sorted({w for _, w, _ in configs}):
            base, alpha = f"M1W{w}", f"M3W{w}"
            if base not in out or alpha not in out:
                continue
            d1, d3 = out[base]["per_deal"], out[alpha]["per_deal"]
            diffs = [d3[i] - d1[i] for i in deals]
            g, gse = mean_se(diffs)
            up, down = sum(1 for d in diffs if d > 0), sum(1 for d in diffs if d < 0)
            out[f"gain_w{w}"] = {"points": g, "se": gse, "p": sign_flip_p(diffs), "up": up, "down": down}
            print(f"M3 vs M1 ({w} worlds), paired over {len(diffs)} deals x {reps} game(s): gain {100 * g:+.1f} "
                  f"points (se {100 * gse:.1f}); deals where M3 did better: {up}, worse: {down}; "
                  f"sign-flip p = {out[f'gain_w{w}']['p']:.3f}"
                  # with one game a deal the discordant deals are McNemar's; averaged games are not
                  + (f", McNemar p = {mcnemar_p(up, down):.3f}" if reps == 1 else ""))
            if reps == 1:
                # Where M3 first left PIMC's card on the deals the two decided differently (older records lack
                # it): the place to look when asking why αμ won or lost a deal.
                for i, d in zip(deals, diffs):
                    dep = played[(i, alpha, 0)].get("departures")
                    if d and dep:
                        x = dep[0]
                        est = "?" if x.get("goal") is None else f"{100 * x['goal']:.0f}%"
                        print(f"  deal {i}: M3 {'made, M1 did not' if d > 0 else 'failed, M1 made'}; first departure "
                              f"at card {x['at'] + 1}: αμ {x['card']}, PIMC {x['pimc']} (αμ's estimate {est} to make)")
        return out

    def r1(x: float, scale: float = 100.0, nd: int = 1):
        return "nan" if math.isnan(x) else round(scale * x, nd)

    summary = summarise(kept, 1, "game 0 of each deal (the paper's protocol: one game per deal)")
    res: dict[str, object] = {"deals": len(kept)}
    for m in (1, 2, 3):
        if f"M{m}W20" in summary:
            res[f"make_m{m}"] = r1(summary[f"M{m}W20"]["rate"])
    if "gain_w20" in summary:
        s1, s3, gain = summary["M1W20"], summary["M3W20"], summary["gain_w20"]
        res["gain_m3_points"] = r1(gain["points"])
        res["gain_m3_stderr"] = r1(gain["se"])
        res["sec_per_move_m1"] = r1(s1["spm"], 1, 3)
        res["sec_per_move_m3"] = r1(s3["spm"], 1, 3)
        res["time_ratio_m3_m1"] = round(s3["spm"] / s1["spm"], 2) if s1["spm"] else "nan"
        res["mcnemar_p_m3"] = round(mcnemar_p(gain["up"], gain["down"]), 3)
    for w in sorted({w for _, w, _ in configs} - {20}):
        # Other world counts (the paper's Table 2 at 40): their own make-rates, paired gain and time per move.
        for m in (1, 2, 3):
            if f"M{m}W{w}" in summary:
                res[f"make_m{m}_w{w}"] = r1(summary[f"M{m}W{w}"]["rate"])
        if f"gain_w{w}" in summary:
            gain = summary[f"gain_w{w}"]
            res[f"gain_m3_points_w{w}"] = r1(gain["points"])
            res[f"gain_m3_stderr_w{w}"] = r1(gain["se"])
            res[f"sec_per_move_m3_w{w}"] = r1(summary[f"M3W{w}"]["spm"], 1, 3)
            res[f"mcnemar_p_m3_w{w}"] = round(mcnemar_p(gain["up"], gain["down"]), 3)
    if a.repeats > 1:
        pooled = summarise(kept_all, a.repeats, f"all {a.repeats} games of each deal that has them all")
        res["deals_all"] = len(kept_all)
        res["games_per_deal"] = a.repeats
        for m in (1, 2, 3):
            if f"M{m}W20" in pooled:
                res[f"make_m{m}_all"] = r1(pooled[f"M{m}W20"]["rate"])
        if "gain_w20" in pooled:
            res["gain_m3_points_all"] = r1(pooled["gain_w20"]["points"])
            res["gain_m3_stderr_all"] = r1(pooled["gain_w20"]["se"])
            res["p_gain_m3_all"] = round(pooled["gain_w20"]["p"], 3)
    print("RESULT " + " ".join(f"{k}={v}" for k, v in res.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
