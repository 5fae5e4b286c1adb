"""Self-play: tables of engine players wired in-process (no TCP, no protocol).

``play_board`` runs one board at a table of four ``engine.Player`` seats. Each seat is told only what it may know
(``engine.SeatView``): its hand, the auction, and during the play dummy and the cards played; declarer chooses
dummy's cards. Tournaments over many boards and an executor build on this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from squeeze.engine.auction import Auction, Call
from squeeze.engine.board import BoardRecord, Play
from squeeze.engine.cards import Card, Deal, Seat, dealer_for_board, vul_for_board
from squeeze.engine.player import Player
from squeeze.engine.view import SeatView

__all__ = ["CallMade", "CardMade", "PlayedBoard", "play_board"]


@dataclass(frozen=True)
class CallMade:
    seat: Seat
    call: Call
    alert: bool
    explanation: str


@dataclass(frozen=True)
class CardMade:
    seat: Seat  # whose card it is (dummy's cards are chosen by declarer)
    card: Card
    reason: str


@dataclass(frozen=True)
class PlayedBoard:
    record: BoardRecord  # deal, auction, play and result: what PBN export and scoring need
    calls: tuple[CallMade, ...]
    cards: tuple[CardMade, ...]
    play: Play | None  # None when passed out or when only the auction was run


def play_board(board: int, deal: Deal, robots: Mapping[Seat, Player], *, play: bool = True) -> PlayedBoard:
    """Bid ``deal`` as board number ``board`` (which sets dealer and vulnerability) with ``robots[seat]`` at each
    seat, then, if ``play`` and it was not passed out, play it out. Errors from a robot propagate (``BridgeError``
    for an illegal call or card)."""
    dealer, vul = dealer_for_board(board), vul_for_board(board)
    auction = Auction(dealer)
    calls: list[CallMade] = []
    while not auction.is_complete:
        seat = auction.next_seat
        choice = robots[seat].bid(SeatView(seat, deal[seat], auction, vul, board=board))
        calls.append(CallMade(seat, choice.call, choice.alert, choice.describe()))
        auction = auction.then(choice.call)  # raises on an illegal call
    contract = auction.contract
    if not play or contract is None:
        record = BoardRecord(board=board, deal=deal, dealer=dealer, vul=vul, auction=auction)
        return PlayedBoard(record, tuple(calls), (), None)
    p = Play(deal, contract)
    cards: list[CardMade] = []
    while not p.is_complete:
        mover = p.next_seat
        seat = p.declarer if mover == p.dummy else mover
        view = SeatView.from_play(p, seat, auction=auction, vul=vul, board=board)
        decision = robots[seat].play(view)
        cards.append(CardMade(mover, decision.card, decision.reason))
        p = p.then(decision.card)  # raises IllegalCardError on an illegal card
    record = BoardRecord.from_play(board, p, dealer=dealer, vul=vul, auction=auction)
    return PlayedBoard(record, tuple(calls), tuple(cards), p)
