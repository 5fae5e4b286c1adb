"""Opening leads against double dummy: what our leads cost, two configurations on the same deals.

The opening lead is the defence's decision with the least to go on, and where BEN's neural leads beat ours in the
match (``robot.analysis``: tricks lost at the lead). This bench measures it without BEN. Deal ``i`` of ``--seed``
is ``bidding_par``'s (board ``i + 1`` gives dealer and vulnerability); four copies of our rules bid it (no
simulation, so the auction does not depend on the configuration); the opening leader of the final contract then
leads with configuration A and with configuration B, each from its own seat's view (the auction's constraints,
its seeded worlds), no deadline. Every lead is scored by the solver: the defence's double-dummy tricks after each
legal lead of the full deal (one ``solve_cards`` call), so a lead costs the tricks it gives away against the best
lead, and the points of the contract's result, in IMPs.

Per configuration: mean tricks and IMPs lost to the double-dummy best lead, the share of leads that cost a trick,
contracts the lead lets through that a best lead beats, CPU seconds per lead; then B - A paired with its standard
error (positive: B leads better).

    .venv/bin/python bench/leads.py --deals 600 --seed 5 --b worlds_defender=60
    .venv/bin/python bench/leads.py --deals 600 --seed 5 --a objective=make --b objective=tricks
    .venv/bin/python bench/leads.py --quick       # 20 deals

``--from-match DIR...`` takes the leads of stored matches instead (``bench/ben_match.py``'s, ``squeeze match``'s):
each board's auction as called there, with the alerts and explanations the table relayed to the leader, leads
with A and B from the leader's seat, and the lead made at the table is scored beside them, by team: A against
another robot's leads on the very same auctions and seats. ``--rows FILE`` writes every lead as a JSON line.

    .venv/bin/python bench/leads.py --from-match BEN_RUN... --b objective=imps --rows leads.jsonl

A configuration is ``KEY=VALUE[,KEY=VALUE]`` over ``PlaySettings``' fields (``engine/play/card_player.py``), on top
of the engine's defaults. Ends with ``RESULT deals=.. imps_lost_a=.. imps_lost_b=.. delta_imps=.. delta_se=..
tricks_lost_a=.. tricks_lost_b=.. cpu_a=.. cpu_b=..``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bidding_par import deal_of  # noqa: E402
from overrides import overrides  # noqa: E402

from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.engine.bidding import Bidder  # noqa: E402
from squeeze.engine.board import Play  # noqa: E402
from squeeze.engine.dds import Position, Solver  # noqa: E402
from squeeze.engine.play.card_player import PlaySettings  # noqa: E402
from squeeze.engine.player import Player, PlayerParams  # noqa: E402
from squeeze.engine.scoring import imps, score  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402
from squeeze.robot.tm.store import STORE_FILE  # noqa: E402


def parse_config(text: str) -> PlaySettings:
    """``KEY=VALUE,...`` over PlaySettings' fields, on top of the engine's defaults."""
    return replace(PlaySettings(), **overrides(PlaySettings, [p for p in text.split(",") if p.strip()]))


@dataclass
class Tally:
    leads: int = 0
    tricks_lost: int = 0
    costly: int = 0  # leads that give a trick away
    let_through: int = 0  # contracts the best lead beats and this lead lets make
    imps_lost: list[int] = field(default_factory=list)  # per deal, the IMPs the lead cost the defence
    cpu: float = 0.0
    relaxed: int = 0  # leads whose worlds set part of the auction aside (the relaxation ladder)
    relaxed_lost: int = 0  # tricks those leads lost


def lead_for(player: Player, play: Play, auction: Auction, vul, board: int, told: dict):
    view = replace(SeatView.from_play(play, play.leader, auction=auction, vul=vul, board=board), **told)
    player.end_board()
    t0 = time.process_time()
    d = player.play(view)
    return d.card, time.process_time() - t0, bool(d.relaxations)


def seeded_cases(bidder: Bidder, seed: int, n: int):
    """``bidding_par``'s deals of ``seed``, bid by four copies of our rules (no table lead)."""
    for i in range(n):
        board, deal, dealer, vul = deal_of(seed, i)
        auction = Auction(dealer)
        while not auction.is_complete:
            auction = auction.then(bidder.choose(deal[auction.next_seat], auction, vul, alternatives=False).call)
        yield board, deal, auction, vul, None, {}


def told_to(rec, seat) -> dict:
    """What the table told ``seat`` of the opponents' calls of a stored board (a manager relays their alerts and
    explanations to the other side), as ``SeatView`` fields."""
    theirs = [(i, n) for i, n in enumerate(rec.call_notes) if not rec.auction.seat_of(i).same_side(seat)]
    return {"alerted": frozenset(i for i, n in theirs if n.alert),
            "explanations": tuple((i, n.explanation) for i, n in theirs if n.alert and n.explanation)}


def match_cases(folders: list[str]):
    """Every played board of the stored matches in ``folders``: its auction as called at the table (another
    robot's calls read by our rules, as our robot reads them there, with the alerts and explanations the table
    relayed to the leader) and the lead made there, with its team."""
    from squeeze.robot.analysis import _records, _teams_of

    for folder in folders:
        if not (Path(folder) / STORE_FILE).is_file():
            sys.exit(f"error: {folder} holds no match store ({STORE_FILE})")
        for rec in _records(Path(folder)):
            if rec.contract is None or not rec.play:
                continue
            leader = Play(rec.deal, rec.contract).leader
            team = _teams_of(rec, "A", "B")["NS" if leader.is_ns else "EW"]
            yield rec.board, rec.deal, rec.auction, rec.vul, (team, rec.play[0]), told_to(rec, leader)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--a", default="", help="configuration A (default: the engine's defaults)")
    ap.add_argument("--b", default="worlds_defender=60", help="configuration B")
    ap.add_argument("--show", type=int, default=0, help="print the N deals where A and B differ most")
    ap.add_argument("--quick", action="store_true", help="20 deals")
    ap.add_argument("--from-match", nargs="+", metavar="DIR", default=None,
                    help="the leads of stored matches instead (a folder of `squeeze match`, `squeeze tm` or "
                         "bench/ben_match.py): their auctions, seats and vulnerability, and the lead made at the table")
    ap.add_argument("--rows", default=None, metavar="FILE", help="also write one JSON line per lead (the deal, "
                                                               "auction, each lead and what it lost) to FILE")
    args = ap.parse_args()
    if args.quick:
        args.deals = 20
    configs = {"a": parse_config(args.a), "b": parse_config(args.b)}
    bidder = Bidder.of(load_system("sayc"))
    players = {k: Player(PlayerParams(play=s, seed=args.seed), systems=load_system) for k, s in configs.items()}
    for p in players.values():
        p.prepare()
    solver = Solver()
    tally = {k: Tally() for k in configs}
    table_tally: dict[str, Tally] = {}
    versus: dict[str, list[int]] = {}
    differ = []
    rows_out = open(args.rows, "w", encoding="utf-8") if args.rows else None
    t_start = time.monotonic()
    cases = match_cases(args.from_match) if args.from_match else seeded_cases(bidder, args.seed, args.deals)
    for i, (board, deal, auction, vul, table, told) in enumerate(cases):
        c = auction.contract
        if c is None:
            continue
        play = Play(deal, c)
        # the defence's tricks after each lead (the side to move is the leader's)
        after = solver.solve_cards(Position(deal, play.leader), c.strain)
        best = max(after.values())
        vulnerable = vul.is_vulnerable(c.declarer)
        best_score = score(c, 13 - best, vulnerable)
        row = {}
        for k, player in players.items():
            card, cpu, relaxed = lead_for(player, play, auction, vul, board, told)
            t = tally[k]
            got = after[card]
            if relaxed:  # the auction's picture could not be dealt whole: some of it set aside
                t.relaxed += 1
                t.relaxed_lost += best - got
            t.leads += 1
            t.cpu += cpu
            t.tricks_lost += best - got
            t.costly += got < best
            t.let_through += (13 - best < c.tricks_needed) and (13 - got >= c.tricks_needed)
            t.imps_lost.append(imps(score(c, 13 - got, vulnerable) - best_score))
            row[k] = (card, best - got, relaxed)
        if table is not None:  # the lead made at the table, by the team that made it
            team, card = table
            tt = table_tally.setdefault(team, Tally())
            tt.leads += 1
            tt.tricks_lost += best - after[card]
            tt.costly += after[card] < best
            tt.let_through += (13 - best < c.tricks_needed) and (13 - after[card] >= c.tricks_needed)
            tt.imps_lost.append(imps(score(c, 13 - after[card], vulnerable) - best_score))
            # ours (A) against theirs on the very same auction and seat
            versus.setdefault(team, []).append(tally["a"].imps_lost[-1] - tt.imps_lost[-1])
        if rows_out is not None:
            rows_out.write(json.dumps({
                "board": board, "deal": str(deal), "auction": str(auction), "contract": str(c),
                "best_tricks": best, **{k: {"card": str(card), "lost": lost, "imps": tally[k].imps_lost[-1], "relaxed": relaxed}
                                        for k, (card, lost, relaxed) in row.items()},
                **({"table": {"team": table[0], "card": str(table[1]), "lost": best - after[table[1]],
                              "imps": table_tally[table[0]].imps_lost[-1]}} if table is not None else {})}) + "\n")
        if row["a"][0] != row["b"][0]:
            differ.append((tally["a"].imps_lost[-1] - tally["b"].imps_lost[-1], board, str(deal), str(auction), str(c),
                           row))
        if (i + 1) % 100 == 0:
            print(f"leads: {i + 1} deals, {time.monotonic() - t_start:.0f} s", flush=True)
    n = tally["a"].leads
    if n == 0:
        sys.exit("error: every deal was passed out")
    diffs = [a - b for a, b in zip(tally["a"].imps_lost, tally["b"].imps_lost)]  # B better: positive
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else float("nan")
    print(f"{n} opening leads (seed {args.seed}); A = {args.a or 'defaults'}, B = {args.b or 'defaults'}")
    print("| | A | B |\n|---|---:|---:|")
    for label, fn in (("IMPs lost to the DD best lead, per deal", lambda t: sum(t.imps_lost) / n),
                      ("tricks lost to the DD best lead, per deal", lambda t: t.tricks_lost / n),
                      ("leads that cost a trick", lambda t: t.costly / n),
                      ("contracts let through that the best lead beats", lambda t: t.let_through / n),
                      ("CPU s per lead", lambda t: t.cpu / n)):
        print(f"| {label} | {fn(tally['a']):.4f} | {fn(tally['b']):.4f} |")
    print(f"B - A: {mean:+.4f} IMPs/deal better for B (se {se:.4f}); leads differ on {len(differ)} deals")
    for gain, board, deal, auction, c, row in sorted(differ, key=lambda r: -abs(r[0]))[:args.show]:
        print(f"  board {board} {deal} {auction} -> {c}: A {row['a'][0]} (-{row['a'][1]}), "
              f"B {row['b'][0]} (-{row['b'][1]}), {gain:+d} IMPs for B")
    for k, t in tally.items():
        if t.relaxed:
            rest = t.leads - t.relaxed
            print(f"{k.upper()}: {t.relaxed} leads ({t.relaxed / n:.1%}) from worlds that set part of the auction "
                  f"aside lost {t.relaxed_lost / t.relaxed:.4f} tricks each; the other {rest} lost "
                  f"{(t.tricks_lost - t.relaxed_lost) / max(1, rest):.4f}")
    for team, t in sorted(table_tally.items()):
        v = versus[team]
        m = sum(v) / len(v)
        sv = math.sqrt(sum((d - m) ** 2 for d in v) / (len(v) - 1) / len(v)) if len(v) > 1 else float("nan")
        print(f"at the table, {team}: {t.leads} leads, {t.tricks_lost / t.leads:.4f} tricks and "
              f"{sum(t.imps_lost) / t.leads:.4f} IMPs lost to the DD best lead, {t.costly / t.leads:.1%} cost a "
              f"trick; A on the same auctions and seats: {-m:+.4f} IMPs/lead better than {team}'s (se {sv:.4f})")
    a, b = tally["a"], tally["b"]
    print(f"RESULT deals={n} imps_lost_a={sum(a.imps_lost) / n:.4f} imps_lost_b={sum(b.imps_lost) / n:.4f} "
          f"delta_imps={mean:+.4f} delta_se={se:.4f} tricks_lost_a={a.tricks_lost / n:.4f} "
          f"tricks_lost_b={b.tricks_lost / n:.4f} cpu_a={a.cpu / n:.3f} cpu_b={b.cpu / n:.3f}")


if __name__ == "__main__":
    main()
