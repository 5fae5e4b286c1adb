"""Where the IMPs go in a two-room team match: a bridge player's account of every board, read from the store.

A match's verdict says who won; this says why. For each board played in both rooms (``TeamMatch``):

- the swing and its split into **bidding** (the IMPs the two contracts are worth double dummy) and **play** (the
  rest), as ``squeeze selfplay`` splits it;
- the **play, card by card, against double dummy**: before each card the solver gives every legal card's value;
  a card that gives the side less than the best one *loses* the difference (``CardLoss``). From the declaring side's
  count, result = double-dummy value + tricks the defenders lost - tricks the declaring side lost, exactly, so the
  play part of each room splits into the **opening lead**, the **defence** after it and **declarer play**;
- the **auction's category**: the level decision (part-score / game / slam: bid when double dummy makes it, missed
  when the side could make it and stopped lower, failed when it went down), a **competitive** auction (both sides
  bid) and a **sacrifice** (a doubled contract that goes down where the opponents could make more), or the strain.

``analyse_match`` builds the per-team table of those categories, the think times (per decision and per board, each
team's mean, p95 and max, and the ratio of the two teams' totals), the incidents and the worst boards;
``write_report`` writes ``report.md`` (for a person), ``report.json`` and ``imps.png`` beside the store. With a
``baseline`` (another run of the same boards, the same seats), the paired difference of the swings board by board,
and how far the run repeats the baseline (``replay_pairing``: whose call or card first differs on each table board).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from squeeze.engine.auction import Contract
from squeeze.engine.bidding.borel import is_override
from squeeze.engine.board import Play, PublicPlay
from squeeze.engine.cards import Card, Seat, Strain
from squeeze.engine.dds import Position, Solver
from squeeze.engine.record import BoardRecord
from squeeze.engine.scoring import GAME_LEVEL, par, score
from squeeze.engine.stats import imp_summary
from squeeze.engine.teams import compare_board

__all__ = ["CardLoss", "RoomPlay", "BoardAnalysis", "analyse_board", "analyse_match", "write_report",
           "level_class", "paired_difference"]

#: The classes of a contract's level, low to high.
LEVELS = ("passed", "part-score", "game", "small slam", "grand slam")


def level_class(contract: Optional[Contract]) -> str:
    if contract is None:
        return "passed"
    if contract.level == 7:
        return "grand slam"
    if contract.level == 6:
        return "small slam"
    return "game" if contract.level >= GAME_LEVEL[Strain(contract.strain)] else "part-score"


@dataclass(frozen=True)
class CardLoss:
    """A card that gave its side fewer tricks than the best card, double dummy."""

    index: int  #: 0..51 in the play
    seat: Seat  #: whose hand it came from
    card: Card
    best: Card  #: a card that kept the most
    lost: int  #: tricks


@dataclass(frozen=True)
class RoomPlay:
    """One room's play against double dummy (declaring side's count)."""

    dd_tricks: int  #: before the opening lead
    result: int
    lead_lost: int  #: by the opening lead (defenders)
    defence_lost: int  #: by the defenders after the lead
    declarer_lost: int  #: by declarer, from both hands
    losses: tuple[CardLoss, ...]

    def __post_init__(self) -> None:
        # every trick of difference is some card's: the identity the split rests on
        assert self.result == self.dd_tricks + self.lead_lost + self.defence_lost - self.declarer_lost


def play_against_dd(record: BoardRecord, solver: Solver) -> Optional[RoomPlay]:
    """Each card of the record's play against the double-dummy best (``None``: passed out, or no play)."""
    c = record.contract
    if c is None or c.declarer is None or not record.play:
        return None
    play = Play(record.deal, c)
    declarer_side = c.declarer.is_ns
    losses: list[CardLoss] = []
    dd = None
    lost = {"lead": 0, "defence": 0, "declarer": 0}
    for i, card in enumerate(record.play):
        values = solver.solve_cards(Position.from_play(play), Strain(c.strain))
        seat = play.public.next_seat
        best_card, best = next(iter(values.items()))
        if i == 0:
            dd = 13 - best  # the defenders are on lead: the declaring side takes the rest
        got = values[card]
        if got < best:
            losses.append(CardLoss(i, seat, card, best_card, best - got))
            if seat.is_ns == declarer_side:
                lost["declarer"] += best - got
            elif i == 0:
                lost["lead"] += best - got
            else:
                lost["defence"] += best - got
        play = play.then(card)
    if len(record.play) < 52 or dd is None:
        return None
    return RoomPlay(dd, play.public.declarer_tricks, lost["lead"], lost["defence"], lost["declarer"], tuple(losses))


@dataclass(frozen=True)
class BoardAnalysis:
    board: int
    rooms: dict[str, BoardRecord]  #: "Open", "Closed"
    teams: dict[str, dict[str, str]]  #: room -> {"NS": team, "EW": team}
    dd: tuple  #: tricks[strain][seat]
    par_ns: int
    swing: int  #: IMPs to the first team (N/S in the open room)
    bidding: int
    play: int
    room_play: dict[str, Optional[RoomPlay]]
    categories: dict[str, dict[str, object]] = field(default_factory=dict)  #: room -> facts about its auction


def _side_best(dd, side_ns: bool) -> int:
    """The most tricks the side takes double dummy in any strain, with its better declarer (by level class)."""
    seats = (Seat.NORTH, Seat.SOUTH) if side_ns else (Seat.EAST, Seat.WEST)
    best_class = 0
    for strain in Strain:
        t = max(dd[int(strain)][int(s)] for s in seats)
        level = t - 6
        if level >= 7:
            cls = 4
        elif level == 6:
            cls = 3
        elif level >= GAME_LEVEL[strain]:
            cls = 2
        elif level >= 1:
            cls = 1
        else:
            cls = 0
        best_class = max(best_class, cls)
    return best_class


def _auction_facts(record: BoardRecord, dd, par_ns: int) -> dict[str, object]:
    """The auction's category in one room: who declared, the level class and its double-dummy fate, competition."""
    c = record.contract
    a = record.auction
    bidders = {s.is_ns for i, call in enumerate(a.calls) if call.is_bid for s in (a.seat_of(i),)} if a else set()
    facts: dict[str, object] = {"competitive": len(bidders) == 2, "level": level_class(c)}
    if c is None or c.declarer is None:
        facts.update(declarer_ns=None, makes_dd=None, sacrifice=False)
        for side in (True, False):
            if _side_best(dd, side) >= 1:
                facts.setdefault("missed_by", []).append("NS" if side else "EW")  # type: ignore[union-attr]
        return facts
    t = dd[int(Strain(c.strain))][int(c.declarer)]
    makes = t >= c.level + 6
    vul = record.vul.is_vulnerable(c.declarer)
    dd_score = score(c, t, vul)
    ns_score = dd_score if c.declarer.is_ns else -dd_score
    opp_par = (par_ns if not c.declarer.is_ns else -par_ns)  # the opponents' par, from their side
    facts.update(declarer_ns=c.declarer.is_ns, makes_dd=makes, dd_score_ns=ns_score,
                 sacrifice=bool(c.doubled and not makes and opp_par > 0),
                 best_class=LEVELS[_side_best(dd, c.declarer.is_ns)], strain=Strain(c.strain).letter)
    return facts


def _teams_of(record: BoardRecord, first: str, second: str) -> dict[str, str]:
    """{"NS": team, "EW": team} of a room: from the players, else the two-room convention (first team N/S open)."""
    ns = record.players.get(Seat.NORTH) or record.players.get(Seat.SOUTH)
    ew = record.players.get(Seat.EAST) or record.players.get(Seat.WEST)
    if ns and ew:
        return {"NS": ns, "EW": ew}
    return {"NS": first, "EW": second} if record.room != "Closed" else {"NS": second, "EW": first}


def analyse_board(open_room: BoardRecord, closed_room: BoardRecord, dd, solver: Solver,
                  teams: tuple[str, str]) -> BoardAnalysis:
    cmp = compare_board(open_room, closed_room, dd)
    par_ns, _ = par(dd, open_room.vul)
    rooms = {"Open": open_room, "Closed": closed_room}
    return BoardAnalysis(
        board=open_room.board, rooms=rooms, teams={r: _teams_of(rec, *teams) for r, rec in rooms.items()},
        dd=tuple(tuple(row) for row in dd), par_ns=par_ns, swing=cmp.swing, bidding=cmp.bidding, play=cmp.play,
        room_play={r: play_against_dd(rec, solver) for r, rec in rooms.items()},
        categories={r: _auction_facts(rec, dd, par_ns) for r, rec in rooms.items()})


# --- the match ---------------------------------------------------------------------------------------------------

def _quantile(xs: Sequence[float], q: float) -> Optional[float]:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _num(x: Optional[float], digits: int = 3) -> Optional[float]:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


def _think(records: Sequence[BoardRecord], teams: tuple[str, str]) -> dict:
    per_decision: dict[str, list[float]] = {t: [] for t in teams}
    per_board: dict[str, list[float]] = {t: [] for t in teams}
    for r in records:
        side_team = _teams_of(r, *teams)
        if r.auction is not None:
            for i, n in enumerate(r.call_notes):
                if n.seconds is not None:
                    per_decision[side_team["NS" if r.auction.seat_of(i).is_ns else "EW"]].append(n.seconds)
        if r.contract is not None and r.card_notes:
            for seat, n in zip(PublicPlay(r.contract, r.play).players, r.card_notes):
                if n.seconds is not None:
                    per_decision[side_team["NS" if seat.is_ns else "EW"]].append(n.seconds)
        for side, secs in (("NS", r.seconds_ns), ("EW", r.seconds_ew)):
            if secs is not None:
                per_board[side_team[side]].append(secs)
    out: dict = {}
    for t in teams:
        d, b = per_decision[t], per_board[t]
        out[t] = {"decisions": len(d), "mean": _num(sum(d) / len(d) if d else None), "p95": _num(_quantile(d, 0.95)),
                  "max": _num(max(d) if d else None), "board_mean": _num(sum(b) / len(b) if b else None),
                  "board_p95": _num(_quantile(b, 0.95)), "board_max": _num(max(b) if b else None),
                  "total": _num(sum(b) if b else sum(d), 1)}
    a, b = out[teams[0]]["total"], out[teams[1]]["total"]
    out["ratio"] = _num(a / b if a is not None and b else None, 4)
    return out


def _category_table(analyses: Sequence[BoardAnalysis], teams: tuple[str, str]) -> dict:
    """For each team: IMPs won and lost in each bidding category, and tricks lost in play by role."""
    table = {t: {"boards": 0,
                 "bidding_imps": {"level": 0, "competitive": 0, "sacrifice": 0, "strain/other": 0},
                 "level": {k: 0 for k in ("games bid", "games made dd", "games missed", "games failed", "slams bid",
                                          "slams made dd", "slams missed", "slams failed", "part-scores failed")},
                 "play_imps": 0,
                 "tricks_lost": {"opening lead": 0, "defence": 0, "declarer": 0},
                 "boards_declared": 0, "boards_defended": 0}
             for t in teams}
    for an in analyses:
        sign = {teams[0]: 1, teams[1]: -1}
        for t in teams:
            table[t]["boards"] += 1
            table[t]["play_imps"] += sign[t] * an.play
        # bidding IMPs by the category of the board's auctions
        facts = an.categories
        o, c = facts["Open"], facts["Closed"]
        if o.get("sacrifice") or c.get("sacrifice"):
            cat = "sacrifice"
        elif o["level"] != c["level"] or o.get("declarer_ns") != c.get("declarer_ns"):
            cat = "competitive" if (o["competitive"] or c["competitive"]) and o.get("declarer_ns") != c.get(
                "declarer_ns") else "level"
        elif o["competitive"] or c["competitive"]:
            cat = "competitive"
        else:
            cat = "strain/other"
        for t in teams:
            table[t]["bidding_imps"][cat] += sign[t] * an.bidding
        # each room: the declaring team's level decision, and each role's tricks lost
        for room, _rec in an.rooms.items():
            f = facts[room]
            side_team = an.teams[room]
            if f.get("declarer_ns") is not None:
                decl = side_team["NS" if f["declarer_ns"] else "EW"]
                defs = side_team["EW" if f["declarer_ns"] else "NS"]
                lvl = table[decl]["level"]
                if f["level"] == "game":
                    lvl["games bid"] += 1
                    lvl["games made dd" if f["makes_dd"] else "games failed"] += 1
                elif f["level"] in ("small slam", "grand slam"):
                    lvl["slams bid"] += 1
                    lvl["slams made dd" if f["makes_dd"] else "slams failed"] += 1
                elif f["level"] == "part-score" and not f["makes_dd"]:
                    lvl["part-scores failed"] += 1
                best = f.get("best_class")
                if f["level"] == "part-score" and best in ("game", "small slam", "grand slam"):
                    lvl["games missed"] += 1
                if f["level"] in ("part-score", "game") and best in ("small slam", "grand slam"):
                    lvl["slams missed"] += 1
                rp = an.room_play[room]
                if rp is not None:
                    table[decl]["boards_declared"] += 1
                    table[defs]["boards_defended"] += 1
                    table[decl]["tricks_lost"]["declarer"] += rp.declarer_lost
                    table[defs]["tricks_lost"]["opening lead"] += rp.lead_lost
                    table[defs]["tricks_lost"]["defence"] += rp.defence_lost
    return table


def paired_difference(swings: dict[int, int], baseline: dict[int, int]) -> dict:
    """This run's swings against a baseline run's on the boards both played: mean difference with its interval."""
    common = sorted(set(swings) & set(baseline))
    s = imp_summary([swings[b] - baseline[b] for b in common])
    return {"boards": len(common), "mean": _num(s.mean, 4), "stderr": _num(s.se, 4),
            "interval95": [_num(s.low, 4), _num(s.high, 4)], "los": _num(s.los, 4)}


def paired_by_override(records: Sequence[BoardRecord], swings: dict[int, int], baseline: dict[int, int]) -> dict:
    """The paired difference apart on the boards where a simulated call overrode the rules (in either room) and on
    the others. Simulation is judged against the opponents it projects with, our own rules: a robot that bids
    otherwise is where it can lose, and a paired run against a baseline without it shows where."""
    simulated = {r.board for r in records if any(is_override(n.explanation) for n in r.call_notes)}
    return {"overridden": paired_difference({b: x for b, x in swings.items() if b in simulated}, baseline),
            "not_overridden": paired_difference({b: x for b, x in swings.items() if b not in simulated}, baseline)}


def _first_difference(xs: Sequence, ys: Sequence) -> Optional[int]:
    """The first index where two sequences hold different items, as far as the shorter goes (``None``: none)."""
    return next((k for k, (x, y) in enumerate(zip(xs, ys)) if x != y), None)


def replay_pairing(records: Sequence[BoardRecord], base_records: Sequence[BoardRecord]) -> dict:
    """How far a replay repeats its baseline, table board by table board (the same board and room in both runs).

    A paired difference removes a deal's luck only where both runs would play it alike except for the change being
    judged. So for each table board: was the auction the same, and if not, whose call came first to differ; with
    the same auction, was the play the same card for card, and if not, whose card first differed (a play cut short
    by a claim is the same play as far as it goes). A robot whose card play does not repeat on the same deal shows
    up as the first to differ in the play."""
    base = {(r.board, r.room): r for r in base_records}
    out: dict = {"table_boards": 0, "same_auction": 0, "same_play": 0, "first_call": {}, "first_card": {}}
    for r in records:
        b = base.get((r.board, r.room))
        if b is None or r.deal != b.deal:
            continue
        out["table_boards"] += 1
        calls = tuple(r.auction.calls) if r.auction else ()
        base_calls = tuple(b.auction.calls) if b.auction else ()
        if calls != base_calls:
            i = _first_difference(calls, base_calls)
            i = min(len(calls), len(base_calls)) if i is None else i
            who = r.players.get(r.auction.dealer.next(i), "?") if r.auction else "?"
            out["first_call"][who] = out["first_call"].get(who, 0) + 1
            continue
        out["same_auction"] += 1
        j = _first_difference(r.play, b.play)
        if j is None:
            out["same_play"] += 1
            continue
        who = r.players.get(r.deal.holder(r.play[j]), "?")
        out["first_card"][who] = out["first_card"].get(who, 0) + 1
    return out


def auction_divergence(analyses: Sequence[BoardAnalysis], ours: str) -> list[dict]:
    """Where the two rooms' auctions of a board first part. Up to that call they are the same, so the same seat
    acts, held by us in one room and by the other team in the other: the two calls are two robots' answers to one
    question. Boards are counted by the stage of the auction at that call (nobody has bid yet; only our side, or
    only theirs, has bid; both) and by how the calls compare (we passed where the other robot bid, the higher of two
    bids, ...), with our bidding IMPs on those boards, worst first. A robot that stays out of auctions the other
    enters shows up as many boards of "their auction: we passed, they bid" and their IMPs."""
    def kind(call) -> str:
        return "passed" if call.is_pass else "bid" if call.is_bid else "doubled" if call.is_double else "redoubled"

    rows: dict[tuple[str, str], dict] = {}
    for a in analyses:
        o, c = a.rooms["Open"].auction, a.rooms["Closed"].auction
        if o is None or c is None:
            continue
        i = _first_difference(o.calls, c.calls)
        if i is None:
            continue
        open_is_ours = a.rooms["Open"].players.get(o.seat_of(i)) == ours
        mine, other = (o.calls[i], c.calls[i]) if open_is_ours else (c.calls[i], o.calls[i])
        # calls before i by the acting side (an even distance back) and by the side across
        side = {d % 2: any(x.is_bid for j, x in enumerate(o.calls[:i]) if (i - j) % 2 == d % 2) for d in (0, 1)}
        stage = ("opening" if not (side[0] or side[1]) else "their auction" if not side[0] else
                 "our auction" if not side[1] else "contested")
        if mine.is_bid and other.is_bid:
            how = "both bid, ours higher" if other < mine else "both bid, theirs higher"
        else:
            how = f"we {kind(mine)}, they {kind(other)}"
        row = rows.setdefault((stage, how), {"stage": stage, "calls": how, "boards": 0, "bidding_imps": 0})
        row["boards"] += 1
        row["bidding_imps"] += a.bidding if a.teams["Open"]["NS"] == ours else -a.bidding
    return sorted(rows.values(), key=lambda r: (r["bidding_imps"], -r["boards"], r["stage"], r["calls"]))


def _tally(counts: dict[str, int]) -> str:
    """``{"BEN": 2, "Squeeze": 1}`` as "BEN 2, Squeeze 1" ("none" when empty)."""
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def _records(folder: Path) -> list[BoardRecord]:
    from .tm.store import STORE_FILE, ResultsStore

    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        return [row.record for row in store.results()]
    finally:
        store.close()


def _incidents(folder: Path) -> list[dict]:
    from .tm.store import STORE_FILE, ResultsStore

    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        return [{"match": m, "room": r, "board": b, "kind": k, "detail": d} for m, r, b, k, d in store.incidents()]
    finally:
        store.close()


def _dd_tables(folder: Path, deals: dict[int, BoardRecord], solver: Solver) -> dict[int, tuple]:
    """Each deal's double-dummy table, cached beside the store (solving is the slow part of a report)."""
    cache_file = folder / "analysis-dd.json"
    cache: dict[str, list] = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    out = {}
    for b, rec in deals.items():
        key = f"{b}:{rec.deal.to_pbn()}"
        if key not in cache:
            cache[key] = [list(row) for row in solver.solve_table(rec.deal).tricks]
        out[b] = tuple(tuple(row) for row in cache[key])
    cache_file.write_text(json.dumps(cache))
    return out


def analyse_match(records: Sequence[BoardRecord], teams: tuple[str, str], *, solver: Optional[Solver] = None,
                  dd: Optional[dict[int, tuple]] = None) -> tuple[list[BoardAnalysis], dict]:
    """Every board both rooms finished, analysed; and the match's figures (module doc)."""
    solver = solver or Solver()
    by_board: dict[int, dict[str, BoardRecord]] = {}
    for r in records:
        by_board.setdefault(r.board, {})[r.room] = r
    analyses = []
    for b, rooms in sorted(by_board.items()):
        if {"Open", "Closed"} <= set(rooms):
            tricks = dd[b] if dd is not None and b in dd else solver.solve_table(rooms["Open"].deal).tricks
            analyses.append(analyse_board(rooms["Open"], rooms["Closed"], tricks, solver, teams))
    swings = [a.swing for a in analyses]
    s = imp_summary(swings)
    bid = imp_summary([a.bidding for a in analyses])
    ply = imp_summary([a.play for a in analyses])
    figures = {
        "teams": list(teams),
        "verdict": {"boards": len(analyses), "imps_per_board": _num(s.mean, 4), "stderr": _num(s.se, 4),
                    "interval95": [_num(s.low, 4), _num(s.high, 4)], "los": _num(s.los, 4),
                    "imps": {teams[0]: sum(x for x in swings if x > 0), teams[1]: -sum(x for x in swings if x < 0)},
                    "bidding": {"imps_per_board": _num(bid.mean, 4), "stderr": _num(bid.se, 4)},
                    "play": {"imps_per_board": _num(ply.mean, 4), "stderr": _num(ply.se, 4)}},
        "think": _think([r for a in analyses for r in a.rooms.values()], teams),
        "categories": _category_table(analyses, teams),
        "swings": {str(a.board): a.swing for a in analyses},
    }
    return analyses, figures


# --- the report --------------------------------------------------------------------------------------------------

def _auction_text(rec: BoardRecord) -> list[str]:
    if rec.auction is None:
        return ["(no auction)"]
    lines = []
    for i, call in enumerate(rec.auction.calls):
        seat = rec.auction.seat_of(i)
        note = rec.call_notes[i] if i < len(rec.call_notes) else None
        expl = ""
        if note is not None and note.explanation:
            expl = f" — {note.explanation}"
        alert = "!" if note is not None and note.alert else ""
        lines.append(f"{seat.letter} {call}{alert}{expl}")
    return lines


def _play_text(rec: BoardRecord, rp: Optional[RoomPlay]) -> list[str]:
    if rec.contract is None or not rec.play:
        return []
    lost = {} if rp is None else {x.index: x for x in rp.losses}
    public = PublicPlay(rec.contract, rec.play)
    lines = []
    players = public.players
    for t, (_leader, cards, winner) in enumerate(public.tricks):
        marks = []
        for k, card in enumerate(cards):
            i = 4 * t + k
            x = lost.get(i)
            marks.append(f"{players[i].letter}:{card}" + (f"(-{x.lost}, {x.best})" if x else ""))
        lines.append(f"trick {t + 1:2d}: " + " ".join(marks) + f"  won by {winner.letter}")
    return lines


def _dd_text(dd) -> str:
    order = (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS)
    return "  ".join(f"{('NT' if st == Strain.NOTRUMP else st.letter)} " +
                     "/".join(str(dd[int(st)][int(s)]) for s in Seat) for st in order) + " (N/E/S/W)"


def _ours_swing(an: BoardAnalysis, ours: str) -> int:
    return an.swing if an.teams["Open"]["NS"] == ours else -an.swing


def board_text(an: BoardAnalysis, ours: str) -> str:
    """One board for a bridge player: both rooms' auctions with explanations, the play with the cards that cost a
    trick double dummy (``-1, SA``: one trick, and a card that kept it), the double-dummy table and par."""
    o = an.rooms["Open"]
    sign = 1 if an.teams["Open"]["NS"] == ours else -1
    out = [f"### Board {an.board}: {sign * an.swing:+d} IMPs to {ours} (bidding {sign * an.bidding:+d}, "
           f"play {sign * an.play:+d})", "",
           f"Dealer {o.dealer.letter}, vul {o.vul.pbn}. Deal `{o.deal.to_pbn()}`", "",
           f"Double dummy: {_dd_text(an.dd)}; par N/S {an.par_ns:+d}", ""]
    for room in ("Open", "Closed"):
        rec = an.rooms[room]
        rp = an.room_play[room]
        t = an.teams[room]
        contract = "passed out" if rec.contract is None else rec.contract.text
        res = "" if rec.result is None else f", {rec.result} tricks"
        dd = "" if rp is None else (f" (double dummy {rp.dd_tricks}; lost: lead {rp.lead_lost}, defence "
                                    f"{rp.defence_lost}, declarer {rp.declarer_lost})")
        out += [f"**{room} room** — N/S {t['NS']}, E/W {t['EW']}: {contract}{res}, N/S {rec.score_ns():+d}{dd}", "",
                "```", *_auction_text(rec), *(["", *_play_text(rec, rp)] if rec.play else []), "```", ""]
    return "\n".join(out)


def _markdown(figures: dict, analyses: Sequence[BoardAnalysis], ours: str, worst: int) -> str:
    """The report; ``figures["verdict"]`` is from ``ours``'s side (``write_report`` turns it round if need be)."""
    v = figures["verdict"]
    theirs = [t for t in figures["teams"] if t != ours][0]
    lo, hi = v["interval95"]
    per = v["imps_per_board"]
    lines = [f"# {ours} against {theirs}", "",
             f"**{v['boards']} boards**: {ours} {'' if per is None else f'{per:+.3f}'} IMPs/board, standard error "
             f"{v['stderr']}, 95 % interval [{lo}, {hi}], likelihood of superiority {v['los']}; IMPs "
             f"{v['imps'][ours]} to {v['imps'][theirs]}. Split: bidding {v['bidding']['imps_per_board']} "
             f"± {v['bidding']['stderr']}, play {v['play']['imps_per_board']} ± {v['play']['stderr']} IMPs/board.",
             ""]
    if "baseline" in figures:
        p = figures["baseline"]
        lines += [f"Against the baseline run on the same boards: {p['mean']} IMPs/board (se {p['stderr']}, 95 % "
                  f"[{p['interval95'][0]}, {p['interval95'][1]}]) over {p['boards']} boards."
                  + (f" Split: bidding {p['bidding']['mean']} (se {p['bidding']['stderr']}), play "
                     f"{p['play']['mean']} (se {p['play']['stderr']})." if "bidding" in p else ""), ""]
        if "pairing" in p:
            q = p["pairing"]
            lines += [f"How far the run repeats the baseline: of {q['table_boards']} table boards in both, "
                      f"{q['same_auction']} were bid the same (the first call to differ otherwise: "
                      f"{_tally(q['first_call'])}); of those, {q['same_play']} were played card for card the same "
                      f"(the first card to differ otherwise: {_tally(q['first_card'])}).", ""]
        if "overridden" in p:
            o, n = p["overridden"], p["not_overridden"]
            lines += [f"On the boards where a simulated call overrode the rules (in either room): {o['mean']} "
                      f"IMPs/board (se {o['stderr']}) over {o['boards']} boards; on the others: {n['mean']} (se "
                      f"{n['stderr']}) over {n['boards']}.", ""]
    th = figures["think"]
    lines += ["## Think time", "", "| team | decisions | mean s | p95 s | max s | per board mean s | p95 | max | total s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t in figures["teams"]:
        x = th[t]
        lines.append(f"| {t} | {x['decisions']} | {x['mean']} | {x['p95']} | {x['max']} | {x['board_mean']} | "
                     f"{x['board_p95']} | {x['board_max']} | {x['total']} |")
    lines += ["", f"{figures['teams'][0]}'s total over {figures['teams'][1]}'s: {th['ratio']}", ""]
    cat = figures["categories"]
    lines += ["## Where the IMPs go", "", "IMPs won (+) or lost (-) by each team; bidding IMPs by the category of the "
              "board's auctions; tricks lost against double dummy by role.", "",
              "| | " + " | ".join(figures["teams"]) + " |", "|---|" + "---:|" * len(figures["teams"])]
    rows = [("bidding: level (part-score/game/slam)", lambda c: c["bidding_imps"]["level"]),
            ("bidding: competitive", lambda c: c["bidding_imps"]["competitive"]),
            ("bidding: sacrifices", lambda c: c["bidding_imps"]["sacrifice"]),
            ("bidding: strain and other", lambda c: c["bidding_imps"]["strain/other"]),
            ("play (IMPs)", lambda c: c["play_imps"]),
            ("tricks lost: opening lead", lambda c: c["tricks_lost"]["opening lead"]),
            ("tricks lost: defence", lambda c: c["tricks_lost"]["defence"]),
            ("tricks lost: declarer", lambda c: c["tricks_lost"]["declarer"]),
            ("boards declared / defended", lambda c: f"{c['boards_declared']} / {c['boards_defended']}")]
    rows += [(f"level: {k}", lambda c, k=k: c["level"][k]) for k in cat[ours]["level"]]
    for name, get in rows:
        lines.append(f"| {name} | " + " | ".join(str(get(cat[t])) for t in figures["teams"]) + " |")
    other = next((t for t in figures["teams"] if t != ours), "the other team")
    lines += ["", "## Where the two rooms' auctions first part", "",
              f"At the first call that differs, the same seat acts: {ours} in one room, {other} in the other (\"they\" "
              f"below). Boards by the auction's stage and the two calls, with {ours}'s bidding IMPs on them.", "",
              "| stage | calls | boards | bidding IMPs |", "|---|---|---:|---:|"]
    lines += [f"| {r['stage']} | {r['calls']} | {r['boards']} | {r['bidding_imps']} |"
              for r in figures.get("divergence", [])]
    inc = figures.get("incidents", [])
    lines += ["", f"## Incidents ({len(inc)})", ""]
    lines += [f"- board {i['board']} {i['room']}: {i['kind']}: {i['detail']}" for i in inc[:50]]
    worst_boards = sorted(analyses, key=lambda a: (_ours_swing(a, ours), a.board))[:worst]
    lines += ["", f"## The {len(worst_boards)} worst boards for {ours}", ""]
    lines += [board_text(a, ours) for a in worst_boards]
    return "\n".join(lines) + "\n"


def _plot(analyses: Sequence[BoardAnalysis], ours: str, path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    sign = [1 if a.teams["Open"]["NS"] == ours else -1 for a in analyses]
    xs, mean, lo, hi = [], [], [], []
    sw: list[int] = []
    for a, s in zip(analyses, sign):
        sw.append(s * a.swing)
        if len(sw) >= 2:
            st = imp_summary(sw)
            xs.append(len(sw))
            mean.append(st.mean)
            lo.append(st.low)
            hi.append(st.high)
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(xs, mean, label=f"{ours}: IMPs/board")
    ax.fill_between(xs, lo, hi, alpha=0.25, label="95 % interval")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("boards")
    ax.set_ylabel("IMPs per board")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def write_report(folder: Path, *, ours: str, baseline: Optional[Path] = None, worst: int = 20) -> dict:
    """Analyse the match stored in ``folder`` and write ``report.md``, ``report.json`` and ``imps.png`` there."""
    folder = Path(folder)
    records = _records(folder)
    names = sorted({t for r in records for t in r.players.values()})
    first = next((r for r in records if r.room == "Open" and r.players), None)
    if first is None:
        teams = (ours, next((n for n in names if n != ours), "opponents"))
    else:
        teams = (first.players[Seat.NORTH], first.players[Seat.EAST])
    solver = Solver()
    deals = {r.board: r for r in records}
    dd = _dd_tables(folder, deals, solver)
    analyses, figures = analyse_match(records, teams, solver=solver, dd=dd)
    figures["incidents"] = _incidents(folder)
    if teams[0] != ours:  # the headline figures from our side
        v = figures["verdict"]
        for part in (v, v["bidding"], v["play"]):
            part["imps_per_board"] = None if part["imps_per_board"] is None else -part["imps_per_board"]
        v["interval95"] = [None if x is None else -x for x in reversed(v["interval95"])]
        v["los"] = None if v["los"] is None else round(1 - v["los"], 4)
        figures["swings"] = {b: -x for b, x in figures["swings"].items()}
    if baseline is not None:
        base_records = _records(Path(baseline))
        base_analyses, base = analyse_match(base_records, teams, solver=solver,
                                            dd=_dd_tables(Path(baseline), {r.board: r for r in base_records}, solver))
        sign = 1 if teams[0] == ours else -1
        swings = {int(k): x for k, x in figures["swings"].items()}
        base_swings = {int(k): sign * x for k, x in base["swings"].items()}
        figures["baseline"] = {**paired_difference(swings, base_swings),
                               **paired_by_override(records, swings, base_swings)}
        # The same difference split board by board into its bidding part (the double-dummy value of the contracts)
        # and its play part (the rest): a replay against a robot whose card play is not repeatable pairs the first
        # far better than the second.
        for part in ("bidding", "play"):
            mine = {a.board: sign * getattr(a, part) for a in analyses if getattr(a, part) is not None}
            theirs = {a.board: sign * getattr(a, part) for a in base_analyses if getattr(a, part) is not None}
            figures["baseline"][part] = paired_difference(mine, theirs)
        figures["baseline"]["pairing"] = replay_pairing(records, base_records)
    figures["divergence"] = auction_divergence(analyses, ours)
    (folder / "report.md").write_text(_markdown(figures, analyses, ours, worst), encoding="utf-8")
    (folder / "report.json").write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _plot(analyses, ours, folder / "imps.png")
    return figures
