"""Double-dummy benchmark: engine.dds against DDS 2.9 (endplay's libdds, test/bench oracle only), same deals, same
run, one thread each.  Uses the shared harness ``tools/dd_vs_dds.py`` of the shared folder (``bench/shared.py``
finds it: its deal generator, DDS binding and candidate runner) and adds (d), the PIMC batch.

  (a) full table per deal          ours Solver.solve_table        vs DDS CalcDDtable
  (b) trick 1, every card scored   ours Solver.solve_cards        vs DDS SolveBoard(solutions=3)
  (c) mid-play (after 4 tricks + 0..3 cards), every card scored
  (d) PIMC batch: W worlds sharing North-South's hands, trick 1 (West leads), ours solve_many vs W SolveBoard calls
  (e) opening leads of the card-play bench (bench/alphamu.py): West's 20 worlds after 1NT-3NT (South 15-17
      balanced, North 10-15 without a four-card major), notrump, every lead scored; also trick-start nodes
      (ours: searched trick-start positions; DDS: its futureTricks.nodes), which do not depend on the machine
  (f) the bridge-solver column: DDS, ours and macroxue/bridge-solver (the fastest solver we know) on the same
      seeded deals, interleaved deal by deal (the order rotates), one thread each, every answer checked against
      DDS: full tables, and every opening lead (deal i: strain i % 5, leader i % 4, as (b)).  bridge-solver runs
      as a co-process (``tools/bridge-solver`` of the shared folder: build it with bench/build_bs.sh into
      bench/out/bridge-solver); its driver times the solver call only.  Skipped, with a message, when the
      binary is not built.  Ratios: ours/bridge-solver and each/DDS (ratio of total times).
  (g) freak deals: every hand holds two long suits (5+ cards each); tables and opening leads, ours against DDS
      (and bridge-solver when built), interleaved as (f)

Ends with ``RESULT ratio_table=.. ratio_trick1=.. ratio_midplay=.. ratio_pimc_batch=.. ratio_nt_leads=..
nodes_nt_leads=.. bs_table=.. bs_leads=.. freak_table=.. freak_leads=.. wrong=N ...`` (ratio_* = our time / DDS
time; bs_* = our time / bridge-solver's; freak_* = our time / DDS's on the freak deals; below 1 means faster).  ``--quick`` runs few deals (a few minutes at most).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from shared import shared_path  # noqa: E402

DEFAULT_HARNESS = str(shared_path("tools/dd_vs_dds.py"))


def load_harness(path: str):
    spec = importlib.util.spec_from_file_location("dd_vs_dds", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["dd_vs_dds"] = mod
    spec.loader.exec_module(mod)
    return mod


def pimc_worlds(H, rng: random.Random, n_worlds: int):
    """One North-South pair, n_worlds random East-West layouts of the other 26 cards (harness card tuples)."""
    base = H.random_deal(rng)
    ns = base[0] + base[2]
    rest = [c for h in (base[1], base[3]) for c in h]
    worlds = []
    for _ in range(n_worlds):
        rng.shuffle(rest)
        worlds.append([sorted(base[0]), sorted(rest[:13]), sorted(base[2]), sorted(rest[13:])])
    assert all(len(set(map(tuple, w[0] + w[2]))) == len(ns) for w in worlds)
    return worlds


DEFAULT_BS_DIR = str(shared_path("tools/bridge-solver"))
DEFAULT_BS = str(ROOT / "bench" / "out" / "bridge-solver" / "bs_batch")


def freak_deals(n: int, seed: int) -> list[list[list[tuple[int, int]]]]:
    """n deals where every hand holds two suits of 5+ cards (harness hands: N, E, S, W lists of (suit, rank))."""
    shapes = [(6, 5, 1, 1), (5, 5, 2, 1), (6, 5, 2, 0), (7, 5, 1, 0), (6, 6, 1, 0), (5, 5, 3, 0), (7, 6, 0, 0),
              (6, 5, 1, 1), (5, 5, 2, 1)]
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        rows = []
        for _ in range(4):
            shp = list(rng.choice(shapes))
            rng.shuffle(shp)
            rows.append(shp)
        if any(sum(r[s] for r in rows) != 13 for s in range(4)):
            continue
        hands: list[list[tuple[int, int]]] = [[], [], [], []]
        for s in range(4):
            ranks = list(range(2, 15))
            rng.shuffle(ranks)
            k = 0
            for h in range(4):
                hands[h] += [(s, r) for r in ranks[k:k + rows[h][s]]]
                k += rows[h][s]
        out.append([sorted(h) for h in hands])
    return out


def load_bs(bs_dir: str, binary: str):
    """compare.py of the shared bridge-solver folder (its request/reply conversions and co-process), or None
    with the reason."""
    if not Path(binary).is_file():
        return None, f"bridge-solver not built ({binary} missing: run bench/build_bs.sh)"
    path = Path(bs_dir) / "compare.py"
    if not path.is_file():
        return None, f"{path} missing"
    spec = importlib.util.spec_from_file_location("bs_compare", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, ""


def load_other_build(path: str):
    """Another build of engine.dds's extension (a .so file), loaded beside ours under its own module name so that
    the two do not share state: the previous version as a contestant, timed in the same run."""
    import importlib.machinery
    import importlib.util

    if not Path(path).is_file():
        raise SystemExit(f"--versus so:{path}: no such file")
    name = "_squeeze_other_build._solver"   # the init function is found by the last component
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def three_way(H, dds, cand, bs_mod, binary, hands_list, wl, warm, alt=None):
    """Interleaved DDS / ours / bridge-solver (when bs_mod) over hands_list; wl 'table' or 'leads' (deal i: strain
    i % 5 in DDS order, leader i % 4).  alt: (Candidate, core build name) of a fourth contestant, "ours" with a
    step taken back (--versus), interleaved too.  Returns ({who: total seconds}, {who: wrong answers})."""
    from squeeze.engine.cards import Deal, Seat, Strain
    from squeeze.engine.dds import Position

    order = (Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS, Strain.NOTRUMP)
    who_all = ("dds", "ours", "bs") if bs_mod else ("dds", "ours")
    if alt:
        who_all += ("alt",)
        alt[0].reset()
    from squeeze.engine.dds import _solver
    core = _solver.core_variant()
    dds.fresh(1, warm)
    cand.reset()
    bs = bs_mod.BsCoprocess(binary) if bs_mod else None
    t = {w: 0.0 for w in who_all}
    bad = {w: 0 for w in who_all}
    per: dict[str, list[float]] = {w: [] for w in who_all}
    try:
        for i, hands in enumerate(hands_list):
            deal = Deal.parse(H.hands_to_pbn(hands))
            strain, first = i % 5, i % 4
            if wl == "table":
                td = H.Dds.table_deal(hands)
                req = bs_mod.table_request(hands, H) if bs else None
            else:
                dl = H.Dds.solve_deal(hands, strain, first, [])
                pos = Position.from_deal(deal, Seat(first))
                req = bs_mod.leads_request(hands, strain, first, H) if bs else None
            got = {}
            for k in range(len(who_all)):
                who = who_all[(i + k) % len(who_all)]
                if who == "dds":
                    a = time.perf_counter()
                    r = dds.calc_table(td) if wl == "table" else dds.solve_board(dl, 0)
                    per["dds"].append(time.perf_counter() - a)
                    t["dds"] += per["dds"][-1]
                    got["dds"] = r if wl == "table" else H.Dds.fut_to_dict(r)
                elif who in ("ours", "alt"):
                    solver = cand.solver if who == "ours" else alt[0].solver
                    _solver.set_core_variant(core if who == "ours" else alt[1])
                    a = time.perf_counter()
                    r = (solver.solve_table(deal) if wl == "table"
                         else solver.solve_cards(pos, order[strain]))
                    per[who].append(time.perf_counter() - a)
                    t[who] += per[who][-1]
                    got[who] = ([[r[st][seat] for seat in Seat] for st in order] if wl == "table"
                                else {str(c): v for c, v in r.items()})
                else:
                    wall, _cpu, _rt, payload = bs.ask(req)
                    per["bs"].append(wall)
                    t["bs"] += wall
                    got["bs"] = (bs_mod.parse_bs_table(payload) if wl == "table"
                                 else bs_mod.parse_bs_plays(payload, first))
            ref = got["dds"]
            bad["ours"] += got["ours"] != ref
            if alt:
                bad["alt"] += got["alt"] != ref
            if bs:
                if wl == "table":
                    bad["bs"] += got["bs"] != ref
                else:   # bridge-solver scores one card per group of equivalent cards
                    bad["bs"] += any(ref.get(c) != v for c, v in got["bs"].items()) or not got["bs"]
    finally:
        _solver.set_core_variant(core)
        if bs:
            bs.close()
    t["slower"] = sum(o > d for o, d in zip(per["ours"], per["dds"]))   # deals where ours took longer than DDS
    t["worst"] = max(o / d for o, d in zip(per["ours"], per["dds"]))
    if bs:   # the fastest solver's own count, for scale: a deal DDS happens to suit shows up in both
        t["bs_slower"] = sum(b > d for b, d in zip(per["bs"], per["dds"]))
        t["bs_worst"] = max(b / d for b, d in zip(per["bs"], per["dds"]))
    return t, bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="few deals: a few minutes at most")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--n-table", type=int, default=None)
    ap.add_argument("--n-trick1", type=int, default=None)
    ap.add_argument("--n-midplay", type=int, default=None)
    ap.add_argument("--pimc-batches", type=int, default=None)
    ap.add_argument("--pimc-worlds", type=int, default=100)
    ap.add_argument("--pimc-threads", type=int, default=2, help="(d) is also timed with solve_many(threads=N) "
                    "against the same DDS time (1 thread each for the main figure; 0 or 1: not timed)")
    ap.add_argument("--lead-deals", type=int, default=None, help="(e): candidate deals of the card-play bench, "
                    "20 worlds each (default 10, 2 with --quick)")
    ap.add_argument("--tt-mib", type=int, default=64)
    ap.add_argument("--harness", default=DEFAULT_HARNESS)
    ap.add_argument("--bs-deals", type=int, default=None, help="(f): deals for the bridge-solver column, tables "
                    "and opening leads (default 100, 10 with --quick; 0 skips)")
    ap.add_argument("--freak-deals", type=int, default=None, help="(g): freak deals (default 30, 6 with --quick)")
    ap.add_argument("--bs", default=DEFAULT_BS, help="bridge-solver's batch driver (bench/build_bs.sh)")
    ap.add_argument("--bs-dir", default=DEFAULT_BS_DIR, help="the shared bridge-solver folder (its compare.py)")
    ap.add_argument("--versus", default="", help="(f), (g): a fourth contestant, ours with one step taken back, "
                    "interleaved with the others: 'opts:MASK' (search features switched off, e.g. opts:0x100 = no "
                    "cut-off card cache), 'core:portable' (the portable build of the search) or 'so:PATH' (another "
                    "build of the extension, e.g. the previous commit's engine/dds/_solver*.so copied aside)")
    ap.add_argument("--core", choices=("auto", "portable", "fast"), default="auto",
                    help="which build of the search runs (engine.dds._solver.set_core_variant)")
    ap.add_argument("--only", default="", help="comma-separated sections to run (a,b,c,d,e,f,g; default all)")
    ap.add_argument("--options", type=lambda x: int(x, 0), default=None,
                    help="search feature mask (engine.dds._solver.OPT_*), to measure what each technique buys")
    args = ap.parse_args(argv)
    q = args.quick
    n_table = args.n_table if args.n_table is not None else (3 if q else 20)
    n_t1 = args.n_trick1 if args.n_trick1 is not None else (10 if q else 100)
    n_mid = args.n_midplay if args.n_midplay is not None else 200
    n_batches = args.pimc_batches if args.pimc_batches is not None else (1 if q else 3)
    n_worlds = args.pimc_worlds if not q else min(args.pimc_worlds, 20)

    H = load_harness(args.harness)
    from bench.dd_candidate import Candidate
    from squeeze.engine.dds import _solver

    core = _solver.set_core_variant(args.core)

    path = H.find_lib("endplay")
    if not path:
        raise SystemExit("libdds.so not found (pip install endplay: it is the benchmark's reference)")
    dds = H.Dds(path)
    info = dds.info()
    print(f"DDS {info['version']} ({info['threading']} threading) vs engine.dds; 1 thread each; "
          f"machine {H.machine_info()['cpu']}; our search build: {core}")
    n_all = max(n_table, n_t1, n_mid)
    deals = H.make_deals(n_all, args.seed)
    warm = [w["hands"] for w in H.make_deals(3, args.seed + 7)]

    cand = Candidate(tt_mib=args.tt_mib, options=args.options)
    print(f"our transposition table: {cand.solver.tt_bytes / 2**20:.0f} MiB per solver")
    figures: dict[str, float] = {}
    wrong = 0
    only = set(args.only.split(",")) if args.only else set("abcdefg")
    if "a" not in only:
        n_table = 0
    if "b" not in only:
        n_t1 = 0
    if "c" not in only:
        n_mid = 0
    if "d" not in only:
        n_batches = 0
    for key, label, n in (("table", "(a) full table", n_table), ("trick1", "(b) trick 1, all cards", n_t1),
                          ("midplay", "(c) mid-play, all cards", n_mid)):
        ds = deals[:n]
        if not n:
            continue
        if key == "table":
            items = [H.Dds.table_deal(d["hands"]) for d in ds]
            dfn = dds.calc_table
            args_c = [d["pbn"] for d in ds]
            cfn = cand.calc_table
        elif key == "trick1":
            items = [H.Dds.solve_deal(d["hands"], d["trick1"]["strain"], d["trick1"]["first"], []) for d in ds]
            dfn = lambda dl: H.Dds.fut_to_dict(dds.solve_board(dl, 0))  # noqa: E731
            args_c = [(d["pbn"], d["trick1"]["strain"], d["trick1"]["first"], []) for d in ds]
            cfn = lambda a: cand.solve_board(*a)  # noqa: E731
        else:
            m = [d["midplay"] for d in ds]
            items = [H.Dds.solve_deal(x["remaining"], x["strain"], x["first"], x["current_trick"]) for x in m]
            dfn = lambda dl: H.Dds.fut_to_dict(dds.solve_board(dl, 0))  # noqa: E731
            args_c = [(H.hands_to_pbn(x["remaining"]), x["strain"], x["first"],
                       [H.card_str(*c) for c in x["current_trick"]]) for x in m]
            cfn = lambda a: cand.solve_board(*a)  # noqa: E731
        dds.fresh(1, warm)
        t_dds, per_d, ref = H.timed_loop(dfn, items)
        cand.reset()
        t_ours, per_o, got = H.timed_loop(cfn, args_c)
        bad = sum(H._norm(a) != H._norm(b) for a, b in zip(got, ref))
        wrong += bad
        ratio = t_ours / t_dds
        figures[key] = ratio
        unit = "deal" if key == "table" else "call"
        print(f"{label:<28} n={n:4d}  DDS {1000 * t_dds / n:9.2f} ms/{unit}  ours {1000 * t_ours / n:9.2f} "
              f"ms/{unit} (median {1000 * sorted(per_o)[len(per_o) // 2]:.2f}, max {1000 * max(per_o):.1f})  "
              f"ratio {ratio:6.2f}  wrong {bad}", flush=True)

    # (d) PIMC batch
    rng = random.Random(args.seed + 99)
    t_dds = t_ours = t_thr = 0.0
    bad = 0
    thr = args.pimc_threads if args.pimc_threads > 1 else 0
    positions = None
    for b in range(n_batches):
        worlds = pimc_worlds(H, rng, n_worlds)
        strain = b % 5
        first = 3  # West leads: declarer South, the robot sees North-South
        dls = [H.Dds.solve_deal(w, strain, first, []) for w in worlds]
        dds.fresh(1, warm)
        a = time.perf_counter()
        ref = [H.Dds.fut_to_dict(dds.solve_board(dl, 0)) for dl in dls]
        t_dds += time.perf_counter() - a
        cand.reset()
        a = time.perf_counter()
        got = cand.solve_many([H.hands_to_pbn(w) for w in worlds], strain, first)
        t_ours += time.perf_counter() - a
        bad += sum(H._norm(x) != H._norm(y) for x, y in zip(got, ref))
        if thr:   # the same batch on `thr` solvers in as many threads (cold tables, as above)
            from squeeze.engine.cards import Deal, Seat, Strain
            from squeeze.engine.dds import Position
            order = (Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS, Strain.NOTRUMP)
            positions = [Position(Deal.parse(H.hands_to_pbn(w), complete=False), Seat(first)) for w in worlds]
            cand.reset()   # Solver.reset() resets the helpers too
            a = time.perf_counter()
            got_t = cand.solver.solve_many(positions, order[strain], threads=thr)
            t_thr += time.perf_counter() - a
            bad += sum(H._norm({str(c): v for c, v in x.items()}) != H._norm(y) for x, y in zip(got_t, ref))
    wrong += bad
    if n_batches:
        figures["pimc_batch"] = t_ours / t_dds
        print(f"{'(d) PIMC batch':<28} {n_batches} x {n_worlds} worlds  DDS {1000 * t_dds / n_batches:9.1f} ms/batch  "
              f"ours {1000 * t_ours / n_batches:9.1f} ms/batch  ratio {figures['pimc_batch']:6.2f}  wrong {bad}")
        if thr:
            figures[f"pimc_batch_{thr}t"] = t_thr / t_dds
            print(f"{'(d) PIMC batch, threads':<28} solve_many(threads={thr}) {1000 * t_thr / n_batches:9.1f} ms/batch  "
                  f"ratio to 1-thread DDS {figures[f'pimc_batch_{thr}t']:6.2f}")

    # (e) opening leads of the card-play bench, from the defender's view
    n_leads = args.lead_deals if args.lead_deals is not None else (2 if q else 10)
    if "e" not in only:
        n_leads = 0
    if n_leads:
        from bench.alphamu import candidate_deal, nt_constraints
        from squeeze.engine.cards import Seat
        from squeeze.engine.sampling import SeatConstraints, WorldSampler

        cons = nt_constraints()
        t_dds = t_ours = 0.0
        n_dds = n_ours = bad = 0
        for i in range(n_leads):
            west = candidate_deal(2024, i).hands[Seat.WEST].bits
            ws = WorldSampler([0, 0, 0, west], [cons.get(st) or SeatConstraints() for st in Seat]).sample(20, 1000 + i)
            pbns = [ws.deal(k).to_pbn() for k in range(20)]
            dls = [H.Dds.solve_deal(H.pbn_to_hands(pb), 4, 3, []) for pb in pbns]
            dds.fresh(1, warm)
            a = time.perf_counter()
            futs = [dds.solve_board(dl, 0) for dl in dls]
            t_dds += time.perf_counter() - a
            n_dds += sum(f.nodes for f in futs)
            cand.reset()
            before = cand.solver.stats()["trick_nodes"]
            a = time.perf_counter()
            got = cand.solve_many(pbns, 4, 3)
            t_ours += time.perf_counter() - a
            n_ours += cand.solver.stats()["trick_nodes"] - before
            bad += sum(H._norm(x) != H._norm(H.Dds.fut_to_dict(y)) for x, y in zip(got, futs))
        wrong += bad
        figures["nt_leads"] = t_ours / t_dds
        print(f"{'(e) 3NT opening leads':<28} {n_leads} x 20 worlds  DDS {1000 * t_dds / n_leads:9.1f} ms/batch  "
              f"ours {1000 * t_ours / n_leads:9.1f} ms/batch  ratio {figures['nt_leads']:6.2f}  "
              f"nodes ours/DDS {n_ours / n_dds:.2f} ({n_ours} / {n_dds})  wrong {bad}")
        figures["nodes_nt_leads"] = n_ours / n_dds

    # (f) the bridge-solver column, (g) freak deals
    n_bs = args.bs_deals if args.bs_deals is not None else (10 if q else 100)
    n_freak = args.freak_deals if args.freak_deals is not None else (6 if q else 30)
    bs_mod, why = load_bs(args.bs_dir, args.bs)
    if not bs_mod:
        print(f"(f) bridge-solver column skipped: {why}")
    sections = []
    if "f" in only and n_bs and bs_mod:
        hl = [d["hands"] for d in H.make_deals(max(n_bs, n_all), args.seed)[:n_bs]]
        sections += [("f", "bs", "table", hl), ("f", "bs", "leads", hl)]
    if "g" in only and n_freak:
        fl = freak_deals(n_freak, args.seed + 5)
        sections += [("g", "freak", "table", fl), ("g", "freak", "leads", fl)]
    alt = None
    if args.versus:
        kind, _, val = args.versus.partition(":")
        if kind == "opts":
            alt = (Candidate(tt_mib=args.tt_mib, options=_solver.OPT_DEFAULT & ~int(val, 0)), core)
        elif kind == "core":
            alt = (Candidate(tt_mib=args.tt_mib, options=args.options), val)
        elif kind == "so":
            other = Candidate(tt_mib=args.tt_mib)
            other.solver._core = load_other_build(val).CoreSolver(args.tt_mib << 20)
            if args.options is not None:
                other.solver._core.set_options(args.options)
            alt = (other, core)
        else:
            raise SystemExit(f"--versus: opts:MASK, core:portable or so:PATH, not {args.versus!r}")
    for sec, tag, wl, hl in sections:
        t, bad = three_way(H, dds, cand, bs_mod, args.bs, hl, wl, warm, alt)
        wrong += bad["ours"]
        n = len(hl)
        line = (f"({sec}) {'freak ' if tag == 'freak' else ''}{wl:<6} n={n:4d}  DDS {1000 * t['dds'] / n:8.2f}  "
                f"ours {1000 * t['ours'] / n:8.2f}")
        if "bs" in t:
            line += f"  bridge-solver {1000 * t['bs'] / n:8.2f}"
        line += f" ms/deal   ours/DDS {t['ours'] / t['dds']:.3f}"
        if "bs" in t:
            line += f"  bs/DDS {t['bs'] / t['dds']:.3f}  ours/bs {t['ours'] / t['bs']:.3f}"
        line += f"   wrong: ours {bad['ours']}" + (f" bs {bad['bs']}" if "bs" in bad else "")
        line += f"   ours slower than DDS on {t['slower']}/{n} deals (worst {t['worst']:.2f}x)"
        if "bs_slower" in t:
            line += f", bridge-solver on {t['bs_slower']}/{n} (worst {t['bs_worst']:.2f}x)"
        if alt:
            line += (f"\n      versus {args.versus}: {1000 * t['alt'] / n:8.2f} ms/deal, ours/it {t['ours'] / t['alt']:.3f}"
                     f" (the step buys {t['alt'] / t['ours']:.2f}x), it/DDS {t['alt'] / t['dds']:.3f}"
                     + (f", it/bs {t['alt'] / t['bs']:.3f}" if "bs" in t else "") + f", wrong {bad['alt']}")
            wrong += bad["alt"]
            figures[f"{tag}_{wl}_step"] = t["alt"] / t["ours"]
        print(line, flush=True)
        if tag == "bs":
            figures[f"bs_{wl}"] = t["ours"] / t["bs"]
            figures[f"dds_{wl}"] = t["ours"] / t["dds"]
        else:
            figures[f"freak_{wl}"] = t["ours"] / t["dds"]
            if "bs" in t:
                figures[f"freak_bs_{wl}"] = t["ours"] / t["bs"]

    print("RESULT " + " ".join(f"{'' if k.startswith(('nodes', 'bs_', 'dds_', 'freak')) else 'ratio_'}{k}={v:.3f}"
                               for k, v in figures.items())
          + f" wrong={wrong} tt_mib={cand.solver.tt_bytes >> 20} n_table={n_table} n_trick1={n_t1} "
            f"n_midplay={n_mid} pimc={n_batches}x{n_worlds}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
