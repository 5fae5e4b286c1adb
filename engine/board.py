"""The play of a hand.

The rules of the play live here once: who wins a trick (``trick_winner_index``), which cards are legal
(``legal_mask``), and the walk through the tricks (``PublicPlay``: the cards as the whole table sees them, no hand
needed). ``Play`` is the card-play counterpart of ``Auction``: a ``PublicPlay`` checked against a deal
(``play.then(card)`` raises ``IllegalCardError`` naming what was wrong). The record of a whole board is
``engine.record.BoardRecord``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from .auction import Contract
from .cards import BridgeError, Card, Deal, Hand, Seat, Strain, Suit

__all__ = ["IllegalCardError", "SUIT_MASKS", "trick_winner", "trick_winner_index", "legal_mask", "PublicPlay", "Play"]


class IllegalCardError(BridgeError):
    """A card that the laws do not allow now (not held, revoke, play after the end)."""


SUIT_MASKS = tuple(0x1FFF << (13 * s) for s in range(4))  #: the 13 card bits of each suit (``Card.index``)


def trick_winner(cards: Sequence[Card], leader: Seat, trump: Strain) -> Seat:
    """Seat that wins a complete trick of four ``cards`` led by ``leader`` with ``trump`` (NOTRUMP for none)."""
    if len(cards) != 4:
        raise BridgeError(f"a trick has four cards, got {len(cards)}")
    return Seat(trick_winner_index(tuple(c.index for c in cards), int(leader), int(trump)))


def trick_winner_index(trick: Sequence[int], leader: int, trump: int) -> int:
    """The one implementation of who wins a trick, for hot loops: cards as bit indices (``Card.index``), seats and
    strain as plain ints (a strain of 4, notrump, matches no suit)."""
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


def legal_mask(hand: int, trick: Sequence[int]) -> int:
    """The one rule of which cards may be played: the cards of ``hand`` (a mask) that may go to ``trick`` (card
    indices, in order): follow the suit led when able, else anything."""
    if trick:
        follow = hand & SUIT_MASKS[trick[0] // 13]
        if follow:
            return follow
    return hand


class PublicPlay:
    """The cards played to a contract as the whole table sees them: no hand is needed.

    Who played each card, the tricks with their leader and winner, the trick in progress, who is to play, the
    tricks won, and who has shown out of what. This is the one place that walks the tricks of a board: ``Play``
    (which adds the deal), a seat's ``SeatView``, the protocol's client machine, the card player, inference and
    the PBN writer all use it.

    ``then(card)`` refuses only what the table can see is wrong: a card already played, or a card of a suit its
    player has shown out of (a proven revoke). Whether the player holds the card needs a hand: ``check(card,
    hand)``. ``total`` is the number of cards in a complete play (52; fewer for test positions).
    """

    __slots__ = ("contract", "cards", "players", "_leader", "_trick", "_tricks", "_decl_tricks", "_played",
                 "_by_seat", "_voids", "_total")

    def __init__(self, contract: Contract, cards: Iterable[Card | str] = (), *, total: int = 52) -> None:
        if contract.declarer is None:
            raise BridgeError("a play needs a contract with a declarer")
        if not 0 < total <= 52 or total % 4:
            raise BridgeError(f"a complete play has a multiple of 4 cards, up to 52; got {total}")
        s = object.__setattr__
        s(self, "contract", contract)
        s(self, "cards", ())
        s(self, "players", ())
        s(self, "_leader", contract.declarer.lho)
        s(self, "_trick", ())
        s(self, "_tricks", ())
        s(self, "_decl_tricks", 0)
        s(self, "_played", 0)
        s(self, "_by_seat", (0, 0, 0, 0))
        s(self, "_voids", (0, 0, 0, 0))
        s(self, "_total", total)
        state = self
        for c in cards:
            state = state.then(c)
        for name in PublicPlay.__slots__:
            s(self, name, getattr(state, name))

    def __setattr__(self, name, value):
        raise AttributeError("PublicPlay is immutable")

    def __reduce__(self):
        return (_public_play, (self.contract, self.cards, self._total))

    # -- what everyone sees ------------------------------------------------------------------------------------
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
        """Whose card is next (dummy's cards are chosen by declarer, but they are dummy's)."""
        return self._leader.next(len(self._trick))

    @property
    def current_trick(self) -> tuple[Card, ...]:
        return self._trick

    @property
    def tricks(self) -> tuple[tuple[Seat, tuple[Card, ...], Seat], ...]:
        """Completed tricks as ``(leader, cards, winner)``."""
        return self._tricks

    @property
    def declarer_tricks(self) -> int:
        return self._decl_tricks

    @property
    def defender_tricks(self) -> int:
        return len(self._tricks) - self._decl_tricks

    @property
    def is_complete(self) -> bool:
        return len(self.cards) == self._total

    @property
    def total(self) -> int:
        return self._total

    @property
    def played(self) -> int:
        """Mask of every card played, the current trick's included."""
        return self._played

    def played_by(self, seat: Seat | int) -> int:
        """Mask of the cards ``seat`` has played."""
        return self._by_seat[seat]

    def shown_out(self, seat: Seat | int) -> int:
        """Bit ``s`` set: ``seat`` has shown out of suit ``s`` (failed to follow to it)."""
        return self._voids[seat]

    @property
    def trick_indices(self) -> tuple[int, ...]:
        """The current trick's cards as indices (for the int-level search code)."""
        return tuple(c.index for c in self._trick)

    # -- checks and the next state ---------------------------------------------------------------------------
    def check(self, card: Card, hand: int | None = None) -> None:
        """Raise ``IllegalCardError`` if the next player may not play ``card``: from what the table sees, and, when
        ``hand`` (the mask of the cards that player still holds) is given, from its hand too."""
        seat = self.next_seat
        who = seat.title
        if self.is_complete:
            raise IllegalCardError(f"the play is over; {card} cannot be played")
        if self._played & card.mask:
            raise IllegalCardError(f"{card} has already been played")
        if hand is not None:
            if not hand & card.mask:
                raise IllegalCardError(f"{card} is not in {who}'s hand")
            if self._trick:
                led = self._trick[0].suit
                if card.suit != led and hand & SUIT_MASKS[led]:
                    raise IllegalCardError(f"{card} is a revoke: {who} must follow {Suit(led).name.lower()}")
        elif self._voids[seat] >> card.suit & 1:
            raise IllegalCardError(f"{who} has shown out of {Suit(card.suit).name.lower()}")

    def legal(self, hand: int) -> int:
        """The legal cards (mask) for the next player from ``hand``, the cards it still holds."""
        return legal_mask(hand, self.trick_indices)

    def then(self, card: Card | str, *, hand: int | None = None, trusted: bool = False) -> "PublicPlay":
        """The play after ``card`` by the next player, checked as ``check`` does unless ``trusted`` (a reader that
        only needs the trick leaders now and checks the whole play against the deal later)."""
        c = Card.parse(card) if isinstance(card, str) else card
        if not trusted:
            self.check(c, hand)
        elif self.is_complete:
            raise IllegalCardError(f"the play is over; {c} cannot be played")
        seat = self._leader.next(len(self._trick))
        new = object.__new__(PublicPlay)
        s = object.__setattr__
        s(new, "contract", self.contract)
        s(new, "_total", self._total)
        s(new, "cards", self.cards + (c,))
        s(new, "players", self.players + (seat,))
        s(new, "_played", self._played | c.mask)
        by_seat = list(self._by_seat)
        by_seat[seat] |= c.mask
        s(new, "_by_seat", tuple(by_seat))
        voids = self._voids
        if self._trick and c.suit != self._trick[0].suit:
            v = list(voids)
            v[seat] |= 1 << self._trick[0].suit
            voids = tuple(v)
        s(new, "_voids", voids)
        trick = self._trick + (c,)
        if len(trick) == 4:
            winner = Seat(trick_winner_index(tuple(x.index for x in trick), self._leader, self.contract.strain))
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

    def prefix(self, n: int) -> "PublicPlay":
        """The play as it was after its first ``n`` cards."""
        return PublicPlay(self.contract, self.cards[:n], total=self._total)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PublicPlay) and other.contract == self.contract and other.cards == self.cards
                and other._total == self._total)

    def __hash__(self) -> int:
        return hash(("PublicPlay", self.contract, self.cards, self._total))

    def __repr__(self) -> str:
        return f"PublicPlay({self.contract!r}, {[str(c) for c in self.cards]!r})"


def _public_play(contract: Contract, cards: tuple[Card, ...], total: int) -> PublicPlay:
    return PublicPlay(contract, cards, total=total)


def _public(name: str) -> property:
    """A ``Play`` attribute that is its ``PublicPlay``'s."""
    return property(lambda self: getattr(self.public, name), doc=getattr(PublicPlay, name).__doc__)


class Play:
    """Cards played so far to a contract, checked against the deal: a ``PublicPlay`` plus the hands.

    ``Play(deal, contract)`` starts with the opening leader (declarer's LHO) on lead. ``then(card)`` returns the
    next state. ``tricks`` lists completed tricks as ``(leader, cards, winner)``.
    """

    __slots__ = ("deal", "public", "_remaining")

    def __init__(self, deal: Deal, contract: Contract, cards: Iterable[Card | str] = ()) -> None:
        s = object.__setattr__
        s(self, "deal", deal)
        s(self, "public", PublicPlay(contract, total=4 * min(len(h) for h in deal.hands)))
        s(self, "_remaining", tuple(h.bits for h in deal.hands))
        state = self
        for c in cards:
            state = state.then(c)
        s(self, "public", state.public)
        s(self, "_remaining", state._remaining)

    def __setattr__(self, name, value):
        raise AttributeError("Play is immutable")

    def __reduce__(self):
        return (Play, (self.deal, self.contract, self.cards))

    # What the table sees is the PublicPlay's: declarer, dummy, trump, leader, next_seat, current_trick, tricks,
    # declarer_tricks, defender_tricks, is_complete, contract and cards read through to it.
    contract = _public("contract")
    cards = _public("cards")
    declarer = _public("declarer")
    dummy = _public("dummy")
    trump = _public("trump")
    leader = _public("leader")
    next_seat = _public("next_seat")
    current_trick = _public("current_trick")
    tricks = _public("tricks")
    declarer_tricks = _public("declarer_tricks")
    defender_tricks = _public("defender_tricks")
    is_complete = _public("is_complete")

    def remaining(self, seat: Seat) -> Hand:
        return Hand(self._remaining[seat])

    def remaining_deal(self) -> Deal:
        return Deal((Hand(b) for b in self._remaining), complete=False)

    def legal_cards(self) -> list[Card]:
        if self.is_complete:
            return []
        return list(Hand(self.public.legal(self._remaining[self.next_seat])))

    def check(self, card: Card) -> None:
        p = self.public
        p.check(card, None if p.is_complete else self._remaining[p.next_seat])

    def then(self, card: Card | str) -> "Play":
        c = Card.parse(card) if isinstance(card, str) else card
        p = self.public
        public = p.then(c, hand=None if p.is_complete else self._remaining[p.next_seat])
        new = object.__new__(Play)
        s = object.__setattr__
        s(new, "deal", self.deal)
        s(new, "public", public)
        rem = list(self._remaining)
        rem[p.next_seat] &= ~c.mask
        s(new, "_remaining", tuple(rem))
        return new

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and other.deal == self.deal and other.public == self.public

    def __hash__(self) -> int:
        return hash(("Play", self.deal, self.public))

    def __repr__(self) -> str:
        return f"Play({self.deal!r}, {self.contract!r}, {[str(c) for c in self.cards]!r})"
