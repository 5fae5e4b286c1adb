"""Contracts reached, judged double dummy against par: four copies of the engine bid N seeded random deals.

A judge no test file can be fitted to. Deal ``i`` of seed ``s`` is ``Deal.random(Random(s * 1_000_003 +
i))``, board number ``i + 1`` gives the dealer and vulnerability. Every final contract is scored at its declarer's
double-dummy tricks and compared with the deal's par (``engine.scoring.par``). Per rule file:

* mean IMPs lost to par per deal (|IMP(result - par)|, North-South view; four copies of one engine bid, so any
  departure from par is somebody's error);
* missed games / slams: a side has a double-dummy game (slam) in some strain, did not declare a contract at that
  level or higher, and scored less than that game (slam) would have (a penalty worth more is not a miss);
  missed games are also counted among sides with 25+ HCP between them (``missed_games25``): most double-dummy
  games are 21-24 HCP games that sound bidding does not reach;
* for scale, ``oracle_missed_games``: the missed-game share of an oracle that knows each side's combined HCP and fit
  lengths and bids game at even odds (``--oracle-odds``), the floor sound bidding works against;
* failed games / slams: a game (slam) contract that goes down double dummy;
* part-score accuracy: final part-score contracts that make; deals whose par is a part score and that end within
  one IMP of par;
* passed-out deals;
* doubled or redoubled final contracts in an artificial call, or in a strain the declaring side never showed
  (what the interpreter's escape guard prevents);
* the worst 20 deals with their auctions.

``--rules FILE`` is the rule file judged (default: the packaged ``sayc``); ``--baseline FILE`` is bid on the same
deals in the same run (default ``git:494ee73``, the packaged sayc.toml of SAYC's first wave, read from git: see
``bench/rules.py``; ``none`` to skip), with the paired difference in
IMPs lost. Double-dummy tables are cached in ``bench/out/dd_tables.jsonl`` (keyed by the deal), so only the first
run of a seed pays for the solving (about 0.2 s a deal, on ``--threads`` threads).

The paired section also lists the deals the two files bid differently (``changed=`` in the RESULT line): a change
to a rare sequence moves few deals, and their number says how much the paired figure saw.
It also scores the change as a team match would (``changer_imps``): on each deal bid differently, the side whose
call first differs gains the IMPs of its score against the baseline's on that deal. Par counts a making game as a
loss where par is the opponents' cheap sacrifice (no copy of the engine takes it); a match does not.

``--changed-only`` prints the paired section alone and solves only the deals the two files bid differently: the
same paired figures at a few percent of the solving, so a change can be judged on fresh seeds (many of them).

``--ablate FEATURE`` bids the baseline with the same rules and one of the interpreter's features switched off
instead: what that feature is worth on these deals.

    .venv/bin/python bench/bidding_par.py [--deals 1000] [--seed 1] [--quick] [--rules FILE] [--baseline FILE|none]
                                          [--ablate unmisread|bounded_hulls|denied_hcp] [--changed-only]
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack, contextmanager
import json
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from squeeze.engine.auction import Auction, Contract  # noqa: E402
from squeeze.engine.cards import Deal, Seat, Strain, Vul, dealer_for_board, vul_for_board  # noqa: E402
from squeeze.engine.scoring import GAME_LEVEL, imps, par, score  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from rules import FIRST_WAVE, load_rules  # noqa: E402

from squeeze.engine.bidding import Bidder  # noqa: E402

CACHE = ROOT / "bench" / "out" / "dd_tables.jsonl"


def deal_of(seed: int, i: int) -> tuple[int, Deal, Seat, Vul]:
    """Deal ``i`` of ``seed`` (0-based) as board ``i + 1``: its number, deal, dealer and vulnerability (also
    ``bench/borel.py``'s deals)."""
    d = Deal.random(random.Random(seed * 1_000_003 + i))
    return i + 1, d, dealer_for_board(i + 1), vul_for_board(i + 1)


def changer_gain(dealer: Seat, calls, base_calls, ns: int, base_ns: int) -> int:
    """IMPs the side that made the first call the two auctions differ in gains by it (0 when they do not differ).

    Par calls any departure from par an error, so a making game where par is the opponents' cheap sacrifice scores
    as a loss; a team match scores a changed call against the other table. Here the other table is the baseline
    on the same deal, and the swing is credited to the side whose call first differs (the change's own call: the
    later calls of both sides follow from it)."""
    # (two complete auctions that agree call for call are the same auction: neither is a prefix of the other)
    first = next((i for i, (x, y) in enumerate(zip(calls, base_calls)) if x != y), None)
    if first is None:
        return 0
    ns_side = (int(dealer) + first) % 2 == 0
    return imps(ns - base_ns) if ns_side else imps(base_ns - ns)


def deals(n: int, seed: int) -> list[tuple[int, Deal, Seat, Vul]]:
    return [deal_of(seed, i) for i in range(n)]


def load_cache() -> dict[str, list]:
    """The cached DD tables ``t[strain][seat]`` by PBN deal (``bench/out/dd_tables.jsonl``, shared with
    ``bench/borel.py``)."""
    cache: dict[str, list] = {}
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            try:
                o = json.loads(line)
                cache[o["deal"]] = o["t"]
            except (ValueError, KeyError):
                continue  # a torn last line of a killed run
    return cache


def tables(ds: list[Deal], threads: int) -> list[tuple[tuple[int, ...], ...]]:
    """DD tables ``t[strain][seat]`` for every deal, from the cache or solved (and cached)."""
    cache = load_cache()
    todo = [d for d in dict.fromkeys(d.to_pbn() for d in ds) if d not in cache]
    if todo:
        from squeeze.engine.dds import solve_table

        t0 = time.perf_counter()
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(threads) as ex, CACHE.open("a") as f:
            for pbn, tab in zip(todo, ex.map(lambda p: solve_table(Deal.parse(p)), todo)):
                cache[pbn] = [list(row) for row in tab.tricks]
                f.write(json.dumps({"deal": pbn, "t": cache[pbn]}) + "\n")
        print(f"solved {len(todo)} double-dummy tables in {time.perf_counter() - t0:.1f}s ({threads} threads)")
    return [tuple(tuple(r) for r in cache[d.to_pbn()]) for d in ds]


def best_at(t, side: int, vul: Vul, min_level: int) -> int:
    """The side's best score from a contract at ``min_level`` or higher relative to game (0: game, 6: slam), made
    double dummy; 0 when none makes. ``min_level``: "game" levels per strain, or 6 (small slam)."""
    best = 0
    for strain in Strain:
        decl = max((Seat(side), Seat(side + 2)), key=lambda s: t[strain][s])
        tr = t[strain][decl]
        lo = GAME_LEVEL[strain] if min_level == 0 else min_level
        for level in range(lo, 8):
            if tr >= level + 6:
                best = max(best, score(Contract(level, strain), tr, vul.is_vulnerable(decl)))
    return best


@dataclass
class Tally:
    name: str
    losses: list[int] = field(default_factory=list)
    game_sides: int = 0
    missed_games: int = 0
    game_sides25: int = 0  # the same, among sides with 25+ HCP between them (most DD games are 21-24 HCP games)
    missed_games25: int = 0
    slam_sides: int = 0
    missed_slams: int = 0
    games_bid: int = 0
    failed_games: int = 0
    slams_bid: int = 0
    failed_slams: int = 0
    partscores: int = 0
    partscores_made: int = 0
    ps_par: int = 0
    ps_par_ok: int = 0
    passed_out: int = 0
    dbl_unshown: int = 0
    calls: int = 0
    seconds: float = 0.0
    rows: list = field(default_factory=list)


def _guards() -> dict:
    """Interpreter features ``--ablate`` can switch off for the baseline: name -> (module, function, its stand-in)."""
    from squeeze.engine.bidding import interpreter, rules as rule_lang

    return {
        # the guard that keeps a forcing rule from making a bid partner reads as non-forcing
        "unmisread": (interpreter, "_unmisread", lambda cands: cands),
        # length hulls from bounds of non-constant sides (``ln(t) >= 3 + (level >= 3)``): constants only
        "bounded_hulls": (rule_lang, "_bounded_comparisons", lambda node, env: rule_lang._constant_comparisons(node)),
        # partner's strength estimate less the HCP counts earlier candidates take on strength alone
        "denied_hcp": (interpreter, "_unclaimed", lambda rng, claimed: rng),
    }


GUARDS = ("bounded_hulls", "denied_hcp", "unmisread")


@contextmanager
def features_off(names):
    """The interpreter features ``names`` (``_guards``) switched off while the block runs, restored after."""
    guards = _guards()
    with ExitStack() as stack:
        for name in names:
            module, attr, stand_in = guards[name]
            stack.callback(setattr, module, attr, getattr(module, attr))
            setattr(module, attr, stand_in)
        yield


def bid_all(name: str, rules: str, boards, tabs, ablate: str | None = None) -> Tally:
    if ablate is None:
        return _bid_all(name, Bidder.of(load_rules(rules)), boards, tabs)
    system = load_rules(rules)  # (the loader's cached object: its rules' memos are cleared on the way in and out)
    for rule in system.rules:
        rule.memo.clear()
    try:
        with features_off([ablate]):  # the feature off, for a bidder of its own (fresh caches)
            return _bid_all(name, Bidder(system), boards, tabs)
    finally:
        for rule in system.rules:
            rule.memo.clear()


def bid_out(bidder: Bidder, d: Deal, dealer: Seat, vul: Vul) -> Auction:
    """The whole auction four copies of ``bidder`` bid on ``d``."""
    a = Auction(dealer)
    while not a.is_complete:
        a = a.then(bidder.choose(d[a.next_seat], a, vul, alternatives=False).call)
    return a


def ns_score(t, vul: Vul, a: Auction) -> int:
    """North-South's score of ``a``'s final contract at its declarer's double-dummy tricks (0 when passed out)."""
    c = a.contract
    if c is None:
        return 0
    s = score(c, t[c.strain][c.declarer], vul.is_vulnerable(c.declarer))
    return s if c.declarer.is_ns else -s


def _bid_all(name: str, bidder: Bidder, boards, tabs) -> Tally:
    tally = Tally(name)
    for (board, d, dealer, vul), t in zip(boards, tabs):
        t0 = time.perf_counter()
        a = bid_out(bidder, d, dealer, vul)
        tally.seconds += time.perf_counter() - t0
        tally.calls += len(a.calls)
        par_ns, par_c = par(t, vul)
        c = a.contract
        ns = ns_score(t, vul, a)
        if c is None:
            tally.passed_out += 1
        else:
            made = t[c.strain][c.declarer] >= c.level + 6
            if c.level >= 6:
                tally.slams_bid += 1
                tally.failed_slams += not made
            elif c.level >= GAME_LEVEL[c.strain]:
                tally.games_bid += 1
                tally.failed_games += not made
            else:
                tally.partscores += 1
                tally.partscores_made += made
            tally.dbl_unshown += bidder.doubled_in_unshown_strain(a, vul)
        loss = abs(imps(ns - par_ns))
        tally.losses.append(loss)
        if par_c is not None and par_c.level < GAME_LEVEL[par_c.strain] and not par_c.doubled:
            tally.ps_par += 1
            tally.ps_par_ok += loss <= 1
        for side in (0, 1):
            mine = ns if side == 0 else -ns
            declares_at = 0 if c is None or (int(c.declarer) & 1) != side else c.level
            game = best_at(t, side, vul, 0)
            if game > 0:
                tally.game_sides += 1
                reached = c is not None and declares_at >= GAME_LEVEL[c.strain]
                tally.missed_games += not reached and mine < game
                if d[Seat(side)].hcp + d[Seat(side + 2)].hcp >= 25:
                    tally.game_sides25 += 1
                    tally.missed_games25 += not reached and mine < game
            slam = best_at(t, side, vul, 6)
            if slam > 0:
                tally.slam_sides += 1
                tally.missed_slams += declares_at < 6 and mine < slam
        tally.rows.append((loss, board, d, dealer, vul, a, c, ns, par_ns, par_c))
    return tally


def report(t: Tally) -> dict[str, float]:
    n = len(t.losses)
    m = {
        "imps_lost": sum(t.losses) / n,
        "missed_games": t.missed_games / max(1, t.game_sides),
        "missed_games25": t.missed_games25 / max(1, t.game_sides25),
        "missed_slams": t.missed_slams / max(1, t.slam_sides),
        "failed_games": t.failed_games / max(1, t.games_bid),
        "failed_slams": t.failed_slams / max(1, t.slams_bid),
        "partscore_made": t.partscores_made / max(1, t.partscores),
        "partscore_par": t.ps_par_ok / max(1, t.ps_par),
        "passed_out": t.passed_out,
        "dbl_unshown": t.dbl_unshown,
        "call_ms": 1000 * t.seconds / max(1, t.calls),
    }
    print(f"== {t.name}")
    print(f"  IMPs lost to par per deal: {m['imps_lost']:.3f}  (deals with a loss: "
          f"{sum(1 for x in t.losses if x)} of {n})")
    print(f"  missed games among sides with 25+ HCP: {t.missed_games25}/{t.game_sides25} ({m['missed_games25']:.1%})")
    print(f"  missed games: {t.missed_games}/{t.game_sides} sides with a DD game ({m['missed_games']:.1%}); "
          f"missed slams: {t.missed_slams}/{t.slam_sides} ({m['missed_slams']:.1%})")
    print(f"  failed games: {t.failed_games}/{t.games_bid} ({m['failed_games']:.1%}); "
          f"failed slams: {t.failed_slams}/{t.slams_bid} ({m['failed_slams']:.1%})")
    print(f"  part scores made: {t.partscores_made}/{t.partscores} ({m['partscore_made']:.1%}); part-score par "
          f"within 1 IMP: {t.ps_par_ok}/{t.ps_par} ({m['partscore_par']:.1%})")
    print(f"  passed out: {t.passed_out}; doubled/redoubled in an artificial call or unshown strain: "
          f"{t.dbl_unshown}; mean call {m['call_ms']:.2f} ms")
    return m


def oracle_missed_games(boards, tabs, odds: float = 0.5) -> tuple[float, float]:
    """What "missed games among sides with a double-dummy game" can be for sound bidding: an oracle that knows each
    side's combined HCP and fit lengths exactly (more than an auction can tell) and bids game whenever at least
    ``odds`` of the sides alike (same HCP, longest fit, major fit) in these deals have a double-dummy game, with no
    opponents in the way. Returns (its share of DD-game sides missed, its share of games bid that fail). The groups
    are formed on the deals they judge, so the figure flatters the oracle."""
    groups: dict[tuple, list[int]] = {}
    sides = []
    for (_board, d, _dealer, vul), t in zip(boards, tabs):
        for side in (0, 1):
            a, b = d[Seat(side)], d[Seat(side + 2)]
            fits = [a.length(x) + b.length(x) for x in range(4)]
            key = (a.hcp + b.hcp, min(max(fits), 10), min(max(fits[2:]), 10))
            game = best_at(t, side, vul, 0) > 0
            g = groups.setdefault(key, [0, 0])
            g[0] += 1
            g[1] += game
            sides.append((key, game))
    bids = {k for k, (n, g) in groups.items() if g >= odds * n}
    games = sum(g for _k, g in sides)
    missed = sum(1 for k, g in sides if g and k not in bids)
    bid = sum(1 for k, _g in sides if k in bids)
    failed = sum(1 for k, g in sides if k in bids and not g)
    return missed / max(1, games), failed / max(1, bid)


def changed_only(args, n: int, boards) -> None:
    """The paired comparison alone, solving only the deals the two files bid differently.

    A deal both files bid alike adds 0 to every paired figure, so those figures (the mean difference in IMPs lost
    to par over all ``n`` deals, its standard error, the team-match score) come out exactly as in the full run,
    while the double-dummy solving, the slow part on a fresh seed, shrinks to the changed deals (usually a few
    percent). The absolute report of either file needs every deal's table and is not printed.

    ``--rules`` may name several files (comma-separated, candidates for one change each): the baseline is bid once,
    the tables solved once for every deal any of them changed, and each file gets its own figures and RESULT line
    (with ``rules=``), exactly as a run of that file alone would print them."""
    from squeeze.engine.stats import mean_se

    files = [f for f in args.rules.split(",") if f]
    base = Bidder.of(load_rules(args.baseline))
    t0 = time.perf_counter()
    base_calls = [bid_out(base, d, dealer, vul) for _b, d, dealer, vul in boards]
    judged = []  # (file, its bidder, its auctions, the deals it bids differently)
    for f in files:
        rules = Bidder.of(load_rules(f))
        auctions = [bid_out(rules, d, dealer, vul) for _b, d, dealer, vul in boards]
        judged.append((f, rules, auctions, [i for i in range(n) if auctions[i].calls != base_calls[i].calls]))
    union = sorted({i for *_x, changed in judged for i in changed})
    print(f"bid {n} deals with {len(files) + 1} files in {time.perf_counter() - t0:.1f}s; "
          f"{len(union)} bid differently")
    tabs = dict(zip(union, tables([boards[i][1] for i in union], args.threads)))
    for f, rules, auctions, changed in judged:
        diff, gains = [0] * n, [0] * n
        by_rule: dict[str, list[int]] = {}  # the rule that made the first differing call: its deals' par differences
        tag = f"[{f}] " if len(files) > 1 else ""
        for i in changed:
            board, d, dealer, vul = boards[i]
            a, b, t = auctions[i], base_calls[i], tabs[i]
            par_ns, _par_c = par(t, vul)
            ns, base_ns = ns_score(t, vul, a), ns_score(t, vul, b)
            diff[i] = abs(imps(base_ns - par_ns)) - abs(imps(ns - par_ns))
            gains[i] = changer_gain(dealer, a.calls, b.calls, ns, base_ns)
            first = next(k for k, (x, y) in enumerate(zip(a.calls, b.calls)) if x != y)
            prefix = Auction(dealer, a.calls[:first])
            rule = rules.choose(d[prefix.next_seat], prefix, vul, alternatives=False).rule_id
            by_rule.setdefault(rule, []).append(diff[i])
            print(f"{tag}board {board} {d.to_pbn()} par NS {par_ns:+d}: {diff[i]:+d} to par, {gains[i]:+d} as a "
                  f"match (first differing call: {a.calls[first]} by {rule})")
            print(f"   rules:    {' '.join(str(x) for x in a.calls)}  NS {ns:+d}")
            print(f"   baseline: {' '.join(str(x) for x in b.calls)}  NS {base_ns:+d}")
        for rule, ds in sorted(by_rule.items(), key=lambda kv: sum(kv[1])):
            print(f"   {tag}{rule}: {len(ds)} deals, {sum(ds):+d} IMPs to par")
        mu, se = mean_se(diff)
        g_mu, g_se = mean_se(gains)
        print(f"== {tag}paired: baseline loses {mu:+.3f} IMPs/deal more than the rules judged (se {se:.3f}); "
              f"better on {sum(1 for x in diff if x > 0)} deals, worse on {sum(1 for x in diff if x < 0)}")
        print(f"RESULT deals={n} seed={args.seed} changed_only=1 delta_imps={mu:+.4f} delta_se={se:.4f} "
              f"changed={len(changed)} changer_imps={g_mu:+.4f} changer_se={g_se:.4f}"
              + (f" rules={f}" if len(files) > 1 else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="200 deals")
    ap.add_argument("--rules", default="sayc", help="rule file (.toml), packaged system name or git:REV; with "
                    "--changed-only several, comma-separated, each judged against the one baseline bidding")
    ap.add_argument("--baseline", default=FIRST_WAVE, help="rule file bid on the same deals (as --rules); 'none' to "
                    "skip")
    ap.add_argument("--ablate", choices=sorted(GUARDS), default=None, help="the baseline is the same rules bid with "
                    "this interpreter feature off (unmisread: a forcing rule may make a bid partner reads as "
                    "non-forcing; bounded_hulls: length hulls from constants only; denied_hcp: partner's strength "
                    "from the rule's own condition only); replaces --baseline")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--worst", type=int, default=20)
    ap.add_argument("--changed-only", action="store_true", help="only the paired comparison with --baseline, "
                    "solving only the deals the two files bid differently (fast on a fresh seed)")
    ap.add_argument("--oracle-odds", type=float, default=0.5, help="the (HCP, fits) oracle bids game from these odds")
    args = ap.parse_args()
    n = 200 if args.quick else args.deals
    boards = deals(n, args.seed)
    if args.changed_only:
        if args.ablate is not None or args.baseline.lower() == "none":
            raise SystemExit("error: --changed-only compares --rules with a --baseline file")
        return changed_only(args, n, boards)
    if "," in args.rules:
        raise SystemExit("error: several --rules files are judged with --changed-only")
    tabs = tables([b[1] for b in boards], args.threads)
    main_t = bid_all(f"rules {args.rules}", args.rules, boards, tabs)
    m = report(main_t)
    oracle_missed, oracle_failed = oracle_missed_games(boards, tabs, args.oracle_odds)
    print(f"  for scale: an oracle of each side's combined HCP and fits, bidding game at {args.oracle_odds:.0%} odds, misses "
          f"{oracle_missed:.1%} of the DD-game sides (and {oracle_failed:.1%} of its games fail)")
    base = None
    if args.ablate is not None or args.baseline.lower() != "none":
        base_t = (bid_all(f"without {args.ablate}", args.rules, boards, tabs, ablate=args.ablate)
                  if args.ablate is not None else
                  bid_all(f"baseline {Path(args.baseline).name}", args.baseline, boards, tabs))
        base = report(base_t)
        from squeeze.engine.stats import mean_se

        diff = [b - a for a, b in zip(main_t.losses, base_t.losses)]
        mu, se = mean_se(diff)
        better = sum(1 for x in diff if x > 0)
        worse = sum(1 for x in diff if x < 0)
        print(f"== paired: baseline loses {mu:+.3f} IMPs/deal more than the rules judged (se {se:.3f}); "
              f"better on {better} deals, worse on {worse}")
        # a change to a rare sequence moves few deals: how many auctions it changed says how much the figure saw
        changed = [(r, q) for r, q in zip(main_t.rows, base_t.rows) if r[5].calls != q[5].calls]
        gains = [changer_gain(r[3], r[5].calls, q[5].calls, r[7], q[7])
                 for r, q in zip(main_t.rows, base_t.rows)]
        g_mu, g_se = mean_se(gains)
        print(f"== as a team match against the baseline (the side whose call first differs, scored against the "
              f"baseline's result): {g_mu:+.3f} IMPs/deal (se {g_se:.3f})")
        print(f"== bid differently: {len(changed)} of {n} deals" + (" (up to 20 below)" if changed else ""))
        for r, q in changed[:20]:
            print(f"board {r[1]} {r[2].to_pbn()} par NS {r[8]:+d}")
            print(f"   rules:    {' '.join(str(x) for x in r[5].calls)}  NS {r[7]:+d}")
            print(f"   baseline: {' '.join(str(x) for x in q[5].calls)}  NS {q[7]:+d}")
    if args.worst:
        print(f"== worst {args.worst} deals ({main_t.name})")
        for loss, board, d, dealer, vul, a, c, ns, par_ns, par_c in sorted(main_t.rows, key=lambda r: -r[0])[
                :args.worst]:
            print(f"board {board} dealer {dealer.letter} vul {vul.pbn}: lost {loss} IMPs; "
                  f"{c if c is not None else 'passed out'} NS {ns:+d}, par {par_c} NS {par_ns:+d}")
            print(f"   {d.to_pbn()}")
            print(f"   {' '.join(str(x) for x in a.calls)}")
    out = (f"RESULT deals={n} seed={args.seed} imps_lost={m['imps_lost']:.3f} missed_games={m['missed_games']:.3f} "
           f"missed_games25={m['missed_games25']:.3f} oracle_missed_games={oracle_missed:.3f} "
           f"missed_slams={m['missed_slams']:.3f} failed_games={m['failed_games']:.3f} "
           f"failed_slams={m['failed_slams']:.3f} partscore_made={m['partscore_made']:.3f} "
           f"partscore_par={m['partscore_par']:.3f} passed_out={m['passed_out']} dbl_unshown={m['dbl_unshown']} "
           f"call_ms={m['call_ms']:.2f}")
    if base is not None:
        out += (f" base_imps_lost={base['imps_lost']:.3f} base_missed_games={base['missed_games']:.3f} "
                f"base_missed_games25={base['missed_games25']:.3f} "
                f"base_dbl_unshown={base['dbl_unshown']} delta_imps={base['imps_lost'] - m['imps_lost']:+.3f} "
                f"changed={len(changed)} changer_imps={g_mu:+.4f} changer_se={g_se:.4f}")
    print(out)


if __name__ == "__main__":
    main()
