"""The play of a hand.

``Play`` is the card-play counterpart of ``Auction``: an immutable, checked sequence of cards for a deal and a
contract (``play.then(card)`` raises ``IllegalCardError`` naming what was wrong). The record of a whole board is
``engine.record.BoardRecord``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from .auction import Contract
from .cards import BridgeError, Card, Deal, Hand, Seat, Strain, Suit

__all__ = ["IllegalCardError", "trick_winner", "trick_winner_index", "Play"]


class IllegalCardError(BridgeError):
    """A card that the laws do not allow now (not held, revoke, play after the end)."""


def trick_winner(cards: Sequence[Card], leader: Seat, trump: Strain) -> Seat:
    """Seat that wins a complete trick of four ``cards`` led by ``leader`` with ``trump`` (NOTRUMP for none)."""
    if len(cards) != 4:
        raise BridgeError(f"a trick has four cards, got {len(cards)}")
    best = 0
    for i in range(1, 4):
        c, b = cards[i], cards[best]
        if c.suit == b.suit:
            if c.rank > b.rank:
                best = i
        elif trump != Strain.NOTRUMP and c.suit == trump:
            best = i
    return leader.next(best)


def trick_winner_index(trick: Sequence[int], leader: int, trump: int) -> int:
    """``trick_winner`` for hot loops: cards as bit indices (``Card.index``), seats and strain as plain ints."""
    best = 0
    bs, br = divmod(trick[0], 13)
    for i in range(1, 4):
        s, r = divmod(trick[i], 13)
        if s == bs:
            if r > br:
                best, br = i, r
        elif s == trump:
            best, bs, br = i, s, r
    return (leader + best) % 4


class Play:
    """Cards played so far to a contract, checked against the deal.

    ``Play(deal, contract)`` starts with the opening leader (declarer's LHO) on lead. ``then(card)`` returns the
    next state. ``tricks`` lists completed tricks as ``(leader, cards, winner)``.
    """

    __slots__ = ("deal", "contract", "cards", "_remaining", "_leader", "_trick", "_tricks", "_decl_tricks", "_total")

    def __init__(self, deal: Deal, contract: Contract, cards: Iterable[Card | str] = ()) -> None:
        if contract.declarer is None:
            raise BridgeError("a play needs a contract with a declarer")
        s = object.__setattr__
        s(self, "deal", deal)
        s(self, "contract", contract)
        s(self, "cards", ())
        s(self, "_remaining", tuple(h.bits for h in deal.hands))
        s(self, "_leader", contract.declarer.lho)
        s(self, "_trick", ())
        s(self, "_tricks", ())
        s(self, "_decl_tricks", 0)
        s(self, "_total", 4 * min(len(h) for h in deal.hands))  # cards in a complete play of this deal
        state = self
        for c in cards:
            state = state.then(c)
        for name in Play.__slots__:
            s(self, name, getattr(state, name))

    def __setattr__(self, name, value):
        raise AttributeError("Play is immutable")

    def __reduce__(self):
        return (Play, (self.deal, self.contract, self.cards))

    @property
    def declarer(self) -> Seat:
        return self.contract.declarer  # type: ignore[return-value]

    @property
    def dummy(self) -> Seat:
        return self.declarer.partner

    @property
    def trump(self) -> Strain:
        return self.contract.strain

    @property
    def leader(self) -> Seat:
        """Who led (or is to lead) the current trick."""
        return self._leader

    @property
    def next_seat(self) -> Seat:
        return self._leader.next(len(self._trick))

    @property
    def current_trick(self) -> tuple[Card, ...]:
        return self._trick

    @property
    def tricks(self) -> tuple[tuple[Seat, tuple[Card, ...], Seat], ...]:
        return self._tricks

    @property
    def declarer_tricks(self) -> int:
        return self._decl_tricks

    @property
    def defender_tricks(self) -> int:
        return len(self._tricks) - self._decl_tricks

    @property
    def is_complete(self) -> bool:
        return len(self.cards) == self._total and not self._trick

    def remaining(self, seat: Seat) -> Hand:
        return Hand(self._remaining[seat])

    def remaining_deal(self) -> Deal:
        return Deal((Hand(b) for b in self._remaining), complete=False)

    def legal_cards(self) -> list[Card]:
        if self.is_complete:
            return []
        hand = Hand(self._remaining[self.next_seat])
        if self._trick:
            follow = [c for c in hand if c.suit == self._trick[0].suit]
            if follow:
                return follow
        return list(hand)

    def check(self, card: Card) -> None:
        if self.is_complete:
            raise IllegalCardError(f"the play is over; {card} cannot be played")
        seat = self.next_seat
        held = self._remaining[seat]
        if not held & card.mask:
            if self.deal.holder(card) is None:
                raise IllegalCardError(f"{card} is not in {seat.name.title()}'s hand")
            if any(card in cs for _, cs, _ in self._tricks) or card in self._trick:
                raise IllegalCardError(f"{card} has already been played")
            raise IllegalCardError(f"{card} is not in {seat.name.title()}'s hand")
        if self._trick:
            led = self._trick[0].suit
            if card.suit != led and (held >> (13 * led)) & 0x1FFF:
                raise IllegalCardError(
                    f"{card} is a revoke: {seat.name.title()} must follow {Suit(led).name.lower()}"
                )

    def then(self, card: Card | str) -> "Play":
        c = Card.parse(card) if isinstance(card, str) else card
        self.check(c)
        seat = self.next_seat
        new = object.__new__(Play)
        s = object.__setattr__
        s(new, "deal", self.deal)
        s(new, "contract", self.contract)
        s(new, "_total", self._total)
        s(new, "cards", self.cards + (c,))
        rem = list(self._remaining)
        rem[seat] &= ~c.mask
        s(new, "_remaining", tuple(rem))
        trick = self._trick + (c,)
        if len(trick) == 4:
            winner = trick_winner(trick, self._leader, self.trump)
            s(new, "_tricks", self._tricks + ((self._leader, trick, winner),))
            s(new, "_decl_tricks", self._decl_tricks + (1 if winner.same_side(self.declarer) else 0))
            s(new, "_leader", winner)
            s(new, "_trick", ())
        else:
            s(new, "_tricks", self._tricks)
            s(new, "_decl_tricks", self._decl_tricks)
            s(new, "_leader", self._leader)
            s(new, "_trick", trick)
        return new

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Play)
            and other.deal == self.deal
            and other.contract == self.contract
            and other.cards == self.cards
        )

    def __hash__(self) -> int:
        return hash(("Play", self.deal, self.contract, self.cards))

    def __repr__(self) -> str:
        return f"Play({self.deal!r}, {self.contract!r}, {[str(c) for c in self.cards]!r})"
