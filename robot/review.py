"""The review of one board, for a person who played it (``squeeze play-web``): all four hands, the auction with
every call's explanation, the play trick by trick against double dummy, par and the score; and its PBN.

Double dummy, card by card: before each card the solver values every legal card for the side to play (tricks it
takes from there, the current trick included); the card played is then worth a number of tricks to declarer's side
*if everyone plays perfectly from there on* (``dd_after``), and a card worth less than the best one *costs* the
difference (``cost``, in tricks, for the side that played it). The first card's ``dd_before`` is the contract's
double-dummy result; with every cost counted, result = ``dd_before`` + what the defenders gave away - what
declarer's side gave away (``robot.analysis.play_against_dd`` relies on the same identity).

A call's explanation is the one its maker gave (a robot's, as our table manager stores or relays it); where none
came (a partner's call is never relayed to a seat, a protocol-18 manager relays nothing) the system's reading of
the call is given instead, marked as such (``source``).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from squeeze.engine.auction import Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import Seat, Strain
from squeeze.engine.pbn import PbnGame, write_pbn
from squeeze.engine.record import BoardRecord
from squeeze.engine.scoring import par

__all__ = ["review_board", "board_pbn", "hand_dict", "outcome_text", "SystemReader"]

#: Reads an auction with a bidding system: ``[(seat, call, explanation, alertable), ...]`` per call.
SystemReader = Callable[[Auction, object], list]


def hand_dict(hand) -> Optional[dict[str, str]]:
    """A hand as the page's card display takes it: ``{"S": "AKT2", "H": "", ...}`` (``None`` for no hand)."""
    if hand is None:
        return None
    return dict(zip("SHDC", str(hand).split(".")))


def outcome_text(contract, tricks: Optional[int]) -> str:
    """``made``, ``made +1``, ``down 2`` ('' when passed out or unknown)."""
    if contract is None or tricks is None:
        return ""
    over = tricks - contract.tricks_needed
    return "made" if over == 0 else f"made +{over}" if over > 0 else f"down {-over}"


def explained_calls(record: BoardRecord, reader: Optional[SystemReader] = None) -> list[dict]:
    """Each call with its alert and explanation: its maker's, else the system's reading (``source``: ``table`` or
    ``system``; '' when neither says anything)."""
    if record.auction is None:
        return []
    readings = reader(record.auction, record.vul) if reader is not None else []
    out = []
    for i, call in enumerate(record.auction.calls):
        note = record.call_notes[i] if record.call_notes else None
        seat = record.auction.dealer.next(i)
        text, source = (note.explanation, "table") if note is not None and note.explanation else ("", "")
        if not text and i < len(readings):
            text, source = readings[i][2], "system"
        out.append({"seat": seat.letter, "call": str(call), "alert": bool(note and note.alert),
                    "explanation": text, "source": source})
    return out


def review_board(record: BoardRecord, *, solver=None, reader: Optional[SystemReader] = None,
                 you: Optional[Seat] = None) -> dict:
    """The review of ``record`` as JSON-ready data (module doc). ``solver``: an ``engine.dds.Solver`` (none: no
    double-dummy figures); ``you``: the person's seat (the score is also given from that side)."""
    deal_known = record.deal.is_complete
    c = record.contract
    out: dict = {
        "board": record.board, "dealer": record.dealer.letter, "vul": record.vul.pbn,
        "hands": {s.letter: hand_dict(record.deal[s]) if deal_known or len(record.deal[s]) else None for s in Seat},
        "calls": explained_calls(record, reader), "contract": None if c is None else c.text,
        "declarer": None if c is None else c.declarer.letter, "tricks": record.result,
        "outcome": outcome_text(c, record.result), "score_ns": record.score_ns(),
        "you": None if you is None else you.letter, "par": None, "dd_table": None, "play": [], "dd_start": None,
        "costs": {s.letter: 0 for s in Seat}, "players": {s.letter: n for s, n in record.players.items()},
    }
    if you is not None:
        out["score_you"] = out["score_ns"] if you.is_ns else -out["score_ns"]
    if solver is None or not deal_known:
        return out
    table = solver.solve_table(record.deal)
    par_ns, par_contract = par(table, record.vul)
    out["par"] = {"score_ns": par_ns, "contract": None if par_contract is None else par_contract.text}
    out["dd_table"] = {strain.letter: {s.letter: table[strain][s] for s in Seat} for strain in Strain}
    if c is None or not record.play:
        return out
    from squeeze.engine.dds import Position  # (the compiled solver: only when there is one)

    play = Play(record.deal, c)
    declaring_ns = c.declarer.is_ns
    notes = record.card_notes
    cards = []
    for i, card in enumerate(record.play):
        values = solver.solve_cards(Position.from_play(play), Strain(c.strain))
        seat = play.public.next_seat
        best_card, best = next(iter(values.items()))
        got = values[card]
        done = play.public.declarer_tricks
        left = 13 - len(play.public.tricks)
        ours = seat.is_ns == declaring_ns

        def to_declarer(v: int, done=done, ours=ours, left=left) -> int:
            return done + (v if ours else left - v)

        if i == 0:
            out["dd_start"] = to_declarer(best)
        cost = best - got
        out["costs"][seat.letter] += cost
        cards.append({"seat": seat.letter, "card": str(card), "dd_after": to_declarer(got), "cost": cost,
                      "best": str(best_card) if cost else None,
                      "reason": notes[i].reason if notes else ""})
        play = play.then(card)
    tricks = []
    for k, (leader, _tcards, winner) in enumerate(play.public.tricks):
        tricks.append({"trick": k + 1, "leader": leader.letter, "winner": winner.letter,
                       "cards": cards[4 * k:4 * k + 4]})
    out["play"] = tricks
    return out


def board_pbn(record: BoardRecord, review: Optional[dict] = None) -> str:
    """The board as PBN with the robots' notes: alerted calls' explanations as notes, other calls' explanations and
    each card's reason as comments, and with a review, par (``OptimumScore``) and every card that cost a trick
    double dummy."""
    game = PbnGame.from_record(record, reasons=True)
    extra: list[tuple[str, str]] = []
    for i, note in enumerate(record.call_notes):
        if note.explanation and not note.alert:
            extra.append((f"Auction:{i}", note.explanation))
    tags = dict(game.tags)
    if review is not None:
        if review.get("par") is not None:
            tags["OptimumScore"] = f"NS {review['par']['score_ns']}"
        for k, trick in enumerate(review.get("play", [])):
            for j, card in enumerate(trick["cards"]):
                if card["cost"]:
                    extra.append((f"Play:{4 * k + j}", f"double dummy: {card['card']} costs {card['cost']} "
                                                       f"trick{'s' if card['cost'] > 1 else ''} ({card['best']} "
                                                       "was best)"))
    game = dataclasses.replace(game, tags=tags, comments=game.comments + tuple(extra))
    return write_pbn([game], score=record.contract is not None and record.result is not None)
