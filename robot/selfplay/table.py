"""One board at an in-process table (no TCP, no protocol): ``play_board``.

The table has four ``engine.Player`` seats. Each seat is told only what it may know (``engine.SeatView``): its
hand, the auction, and during the play dummy and the cards played; declarer chooses dummy's cards. Tournaments over
many boards (``robot.selfplay.run``) build on this.

``limit_seconds`` is a hard limit per decision: each call and card is asked with that deadline, and a decision the
deadline cut short (``cut_short``) raises ``DecisionOverLimit``. A self-play run voids such a board rather than
keep it, because a cut-short decision depends on the machine's load, and a board must replay the same from its
seed.
"""

from __future__ import annotations

import time
from typing import Mapping

from squeeze.engine.auction import Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import BridgeError, Deal, Seat, Vul, dealer_for_board, vul_for_board
from squeeze.engine.player import Player
from squeeze.engine.record import BoardRecord, CallNote, CardNote
from squeeze.engine.view import SeatView
from squeeze.robot.logs import log_decision

__all__ = ["play_board", "DecisionOverLimit"]


class DecisionOverLimit(BridgeError):
    """A robot's call or card was cut short by the hard limit per decision."""


def play_board(board: int, deal: Deal, robots: Mapping[Seat, Player], *, play: bool = True,
               limit_seconds: float | None = None, dealer: Seat | None = None,
               vul: Vul | None = None) -> tuple[BoardRecord, Play | None]:
    """Bid ``deal`` as board number ``board`` with ``robots[seat]`` at each seat, then, if ``play`` and it was not
    passed out, play it out. ``dealer`` and ``vul``: a board file's, where it gives them (unset: the board
    number's).

    Returns the record, with a ``CallNote`` per call (alert, explanation, seconds the robot took) and a ``CardNote``
    per card (reason, seconds) and the seconds each side took, and the ``Play`` (``None`` when passed out or when
    only the auction was run). Errors from a robot propagate (``BridgeError`` for an illegal call or card,
    ``DecisionOverLimit`` past ``limit_seconds``; see the module doc).
    """

    def deadline() -> float | None:
        return None if limit_seconds is None else time.monotonic() + limit_seconds

    def check(cut_short: bool, seat: Seat, what: str) -> None:
        if cut_short:
            raise DecisionOverLimit(f"board {board}: {seat.title}'s {what} was cut short by the hard limit "
                                    f"of {limit_seconds:g} s per decision")

    dealer = dealer_for_board(board) if dealer is None else dealer
    vul = vul_for_board(board) if vul is None else vul
    auction = Auction(dealer)
    call_notes: list[CallNote] = []
    side_seconds = [0.0, 0.0]  # N-S, E-W
    while not auction.is_complete:
        seat = auction.next_seat
        view = SeatView(seat, deal[seat], auction, vul, board=board)
        start = time.perf_counter()
        choice = log_decision(robots[seat].bid(view, deadline()))
        seconds = time.perf_counter() - start
        check(choice.cut_short, seat, f"call after {len(auction.calls)} calls")
        side_seconds[not seat.is_ns] += seconds
        call_notes.append(CallNote(choice.alert, choice.describe(), seconds))
        auction = auction.then(choice.call)  # raises on an illegal call
    common = dict(dealer=dealer, vul=vul, auction=auction, call_notes=call_notes)
    contract = auction.contract
    if not play or contract is None:
        record = BoardRecord(board=board, deal=deal, seconds_ns=side_seconds[0], seconds_ew=side_seconds[1], **common)
        return record, None
    p = Play(deal, contract)
    card_notes: list[CardNote] = []
    while not p.is_complete:
        mover = p.next_seat
        seat = p.declarer if mover == p.dummy else mover
        view = SeatView.from_play(p, seat, auction=auction, vul=vul, board=board)
        start = time.perf_counter()
        decision = log_decision(robots[seat].play(view, deadline()))
        seconds = time.perf_counter() - start
        check(decision.cut_short, seat, f"card {len(p.cards) + 1}")
        side_seconds[not seat.is_ns] += seconds
        card_notes.append(CardNote(decision.reason, seconds))
        p = p.then(decision.card)  # raises IllegalCardError on an illegal card
    record = BoardRecord.from_play(board, p, card_notes=card_notes, seconds_ns=side_seconds[0],
                                   seconds_ew=side_seconds[1], **common)
    return record, p
