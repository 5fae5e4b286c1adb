"""``SeatView``: one seat's knowledge of a board, the one record of it that every layer shares.

A seat at a table knows its own hand, the auction, the vulnerability, dummy's hand once it is down, and every card
played: who played it, who led and who won each trick, who showed out of what (``engine.board.PublicPlay``). It
never knows the whole deal. The protocol's client machine keeps one (``ClientMachine.seat_view()``), self-play
builds one per decision (``SeatView.from_play``), and ``engine.Player`` and the card player decide from it alone;
inference and the sampler read their hard facts from it (``known_cards``, ``constraints``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

from .auction import Auction, Contract
from .board import IllegalCardError, Play, PublicPlay
from .cards import BridgeError, Card, Hand, Seat, Suit, Vul
from .sampling import SeatConstraints

__all__ = ["SeatView"]


@dataclass(frozen=True)
class SeatView:
    """What ``seat`` knows of a board. ``board`` only seeds decisions.

    ``auction`` may be ``None`` for a play problem given by its ``contract`` alone (``squeeze play``); otherwise
    the contract is the auction's. ``alerted`` holds the indices of the auction's calls the table marked alerted
    (an opponent's alerted call our system reads as natural is their convention: ``Bidder.explain_auction``);
    ``explanations`` the table's text of other seats' calls, as ``(index, text)`` pairs (a mapping is accepted), whose
    stated ranges the sampler takes for an opponent's call (``bidding.disclosure``).
    ``dummy`` is dummy's original hand, known once the opening lead is made (it is ignored before, and for dummy
    itself, whose own hand is ``hand``). Building a view replays the cards and checks
    them against every hand the seat can see: a view that contradicts itself raises ``BridgeError``.
    """

    seat: Seat
    hand: Hand
    auction: Optional[Auction]
    vul: Vul = Vul.NONE
    cards: tuple[Card, ...] = ()
    dummy: Optional[Hand] = None
    board: int = 0
    contract: Optional[Contract] = None
    alerted: frozenset[int] = frozenset()
    explanations: tuple[tuple[int, str], ...] = ()
    _play: Optional[PublicPlay] = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        s = object.__setattr__
        if len(self.hand) != 13:
            raise BridgeError(f"{self.seat.title}'s hand must have 13 cards, got {len(self.hand)}")
        s(self, "alerted", frozenset(self.alerted))
        n_calls = len(self.auction.calls) if self.auction is not None else 0
        if any(not 0 <= i < n_calls for i in self.alerted):
            raise BridgeError(f"alerted calls {sorted(self.alerted)} are not all calls of the auction ({n_calls} calls)")
        pairs = self.explanations.items() if isinstance(self.explanations, Mapping) else self.explanations
        s(self, "explanations", tuple(sorted((int(i), str(t)) for i, t in pairs if t)))
        if any(not 0 <= i < n_calls for i, _ in self.explanations):
            raise BridgeError(f"explained calls {[i for i, _ in self.explanations]} are not all calls of the auction "
                              f"({n_calls} calls)")
        s(self, "cards", tuple(c if isinstance(c, Card) else Card.parse(c) for c in self.cards))
        if self.auction is not None:
            if self.contract is not None and self.auction.is_complete and self.contract != self.auction.contract:
                raise BridgeError(f"contract {self.contract} is not the auction's ({self.auction.contract})")
            s(self, "contract", self.auction.contract if self.auction.is_complete else None)
        if self.cards and self.contract is None:
            raise BridgeError("cards were played before the auction ended" if self.auction is not None
                              else "cards were played without a contract")
        if self.contract is not None and self.contract.declarer is None:
            raise BridgeError(f"contract {self.contract} has no declarer")
        if self.dummy is not None and (not self.cards or self.seat == self.contract.declarer.partner):
            s(self, "dummy", None)  # not part of this view: dummy is not down yet, or the viewer is dummy
        if self.dummy is not None:
            if len(self.dummy) != 13:
                raise BridgeError(f"dummy's hand must be its original 13 cards, got {len(self.dummy)}")
            if self.dummy.bits & self.hand.bits:
                raise BridgeError(f"dummy and {self.seat.title} both hold "
                                  f"{Card.from_index((self.dummy.bits & self.hand.bits).bit_length() - 1)}")
        if self.contract is None:
            s(self, "_play", None)
            return
        play = self._play
        if play is None or play.cards != self.cards or play.contract != self.contract:
            play = PublicPlay(self.contract)
            for c in self.cards:
                play = self._next_play(play, c)
        s(self, "_play", play)

    # -- building ----------------------------------------------------------------------------------------------
    @classmethod
    def from_play(cls, play: Play, seat: Seat, *, auction: Optional[Auction] = None, vul: Vul = Vul.NONE,
                  board: int = 0) -> "SeatView":
        """What ``seat`` sees of ``play`` (whose whole deal is known to the caller, e.g. a self-play table)."""
        dummy = play.deal[play.dummy] if play.cards and seat != play.dummy else None
        return cls(seat, play.deal[seat], auction, vul, play.cards, dummy, board,
                   None if auction is not None else play.contract, _play=play.public)

    def then(self, card: Card | str) -> "SeatView":
        """The view after the next card (checked against the hands the seat sees: ``IllegalCardError``)."""
        if self._play is None:
            raise BridgeError("no card can be played: the auction is not over or was passed out")
        c = Card.parse(card) if isinstance(card, str) else card
        return replace(self, cards=self.cards + (c,), _play=self._next_play(self._play, c))

    def with_dummy(self, dummy: Hand) -> "SeatView":
        return replace(self, dummy=dummy)

    def prefix(self, n: int) -> "SeatView":
        """The view as it was after the first ``n`` cards."""
        return replace(self, cards=self.cards[:n], _play=None)

    def _next_play(self, play: PublicPlay, card: Card) -> PublicPlay:
        seat = play.next_seat
        own = self.remaining_in(play, seat)
        if own is None:
            for other in Seat:
                held = self.remaining_in(play, other)
                if held is not None and held & card.mask:
                    raise IllegalCardError(f"{card} is in {other.title}'s hand, not "
                                           f"{seat.title}'s")
        return play.then(card, hand=own)

    # -- what the seat knows -----------------------------------------------------------------------------------
    @property
    def play(self) -> Optional[PublicPlay]:
        """The cards played as the table sees them (``None`` before the auction ends or when passed out)."""
        return self._play

    @property
    def declarer(self) -> Optional[Seat]:
        return None if self.contract is None else self.contract.declarer

    def original_hand(self, seat: Seat) -> Optional[Hand]:
        """``seat``'s 13 cards as dealt, if this seat sees them (its own, or dummy's once it is down)."""
        if seat == self.seat:
            return self.hand
        if self.dummy is not None and seat == self.contract.declarer.partner:  # type: ignore[union-attr]
            return self.dummy
        return None

    def remaining_in(self, play: PublicPlay, seat: Seat) -> Optional[int]:
        hand = self.original_hand(seat)
        return None if hand is None else hand.bits & ~play.played_by(seat)

    def remaining(self, seat: Seat) -> Optional[Hand]:
        """The cards ``seat`` still holds, if this seat sees its hand."""
        if self._play is None:
            return self.hand if seat == self.seat else None
        bits = self.remaining_in(self._play, seat)
        return None if bits is None else Hand(bits)

    @property
    def mover(self) -> Optional[Seat]:
        """Whose card is next (``None`` outside the play or after the last card)."""
        p = self._play
        return None if p is None or p.is_complete else p.next_seat

    @property
    def decider(self) -> Optional[Seat]:
        """Who chooses the next card: declarer chooses dummy's."""
        mover = self.mover
        if mover is None:
            return None
        return self.declarer if mover == self.contract.declarer.partner else mover  # type: ignore[union-attr]

    def legal_cards(self) -> list[Card]:
        """The next card's legal choices, when this seat sees the mover's hand (else empty)."""
        mover = self.mover
        held = None if mover is None else self.remaining_in(self._play, mover)  # type: ignore[arg-type]
        return [] if held is None else list(Hand(self._play.legal(held)))  # type: ignore[union-attr]

    def card_problem(self, card: Card) -> str:
        """Why the next card cannot be ``card`` as far as this seat can tell ('' if it can)."""
        if self._play is None:
            return "no card is due: the auction is not over or was passed out"
        try:
            self._next_play(self._play, card)
        except IllegalCardError as exc:
            return str(exc)
        return ""

    def known_cards(self) -> tuple[int, int, int, int]:
        """Per seat, the mask of cards known to be in its *original* hand: hands seen and cards played."""
        known = [0, 0, 0, 0]
        for seat in Seat:
            hand = self.original_hand(seat)
            if hand is not None:
                known[seat] |= hand.bits
            if self._play is not None:
                known[seat] |= self._play.played_by(seat)
        return tuple(known)  # type: ignore[return-value]

    def constraints(self, base: Optional[Mapping[Seat, SeatConstraints]] = None) -> list[SeatConstraints]:
        """Per seat: ``base`` (e.g. what the auction showed) tightened by every show-out in the play."""
        out = []
        for seat in Seat:
            c = (base or {}).get(seat) or SeatConstraints()
            if self._play is not None:
                voids = self._play.shown_out(seat)
                for suit in Suit:
                    if voids >> suit & 1:
                        c = c.shown_out(suit, self._play.played_by(seat))
            out.append(c)
        return out
