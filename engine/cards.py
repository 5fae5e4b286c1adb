"""Cards, hands and deals: small immutable values over bitmasks.

Bit layout (shared with the double-dummy core and the sampler): a set of cards is one Python ``int`` of 52 bits,
suit ``s`` (``Suit`` value, clubs = 0 ... spades = 3) occupies bits ``13*s .. 13*s + 12`` and rank ``r`` (2..14)
is bit ``r - 2`` inside its suit, so the ace is the highest bit of each 13-bit group.

Text forms (ARCHITECTURE.md "Contracts"): a hand is PBN ``S.H.D.C`` with ranks ``AKQJT98765432`` (void = empty),
a deal is ``"N:<hand> <hand> <hand> <hand>"`` clockwise from the named seat, a card is suit letter + rank (``SA``).
"""

from __future__ import annotations

import random
from enum import IntEnum
from typing import Iterable, Iterator, NamedTuple

__all__ = [
    "BridgeError",
    "ParseError",
    "InvalidDealError",
    "Seat",
    "Suit",
    "Strain",
    "Rank",
    "Card",
    "Hand",
    "Deal",
    "Vul",
    "dealer_for_board",
    "vul_for_board",
    "FULL_SUIT",
    "ALL_CARDS",
]


class BridgeError(ValueError):
    """Base class of every error raised for bad bridge input (a ``ValueError``, so callers may catch either)."""


class ParseError(BridgeError):
    """Text that does not follow the notation it claims to be in."""


class InvalidDealError(BridgeError):
    """Cards that cannot form the requested hands or deal (duplicates, wrong counts)."""


_SEAT_TITLES = ("North", "East", "South", "West")


class Seat(IntEnum):
    """Compass seats in clockwise order, numbered as DDS numbers them (N=0, E=1, S=2, W=3)."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @property
    def letter(self) -> str:
        return "NESW"[self]

    @property
    def title(self) -> str:
        """The seat's name as people and the Blue Chip protocol write it: ``North``, ``East``, ``South``, ``West``."""
        return _SEAT_TITLES[self]

    @property
    def lho(self) -> "Seat":
        """Left-hand opponent: the next seat clockwise, who plays or calls after this one."""
        return _SEATS[(self + 1) & 3]

    @property
    def partner(self) -> "Seat":
        return _SEATS[(self + 2) & 3]

    @property
    def rho(self) -> "Seat":
        return _SEATS[(self + 3) & 3]

    def next(self, steps: int = 1) -> "Seat":
        # a tuple lookup, not Seat(...): enum construction is slow and this runs per call and per card
        return _SEATS[(self + steps) & 3]

    @property
    def is_ns(self) -> bool:
        return not (self & 1)

    @property
    def side_name(self) -> str:
        return "NS" if self.is_ns else "EW"

    def same_side(self, other: "Seat") -> bool:
        return (self ^ other) & 1 == 0

    @classmethod
    def parse(cls, text: str) -> "Seat":
        """``"N"``, ``"north"``, ``"North"`` ... (case-insensitive, surrounding blanks ignored)."""
        t = text.strip().upper()
        for seat in cls:
            if t == seat.letter or t == seat.name:
                return seat
        raise ParseError(f"not a seat: {text!r} (expected N, E, S or W)")

    def __str__(self) -> str:
        return self.letter


_SEATS: tuple[Seat, ...] = tuple(Seat)


class Suit(IntEnum):
    """The four suits in bidding order (clubs lowest)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "\u2663\u2666\u2665\u2660"[self]

    @property
    def is_major(self) -> bool:
        return self >= Suit.HEARTS

    @classmethod
    def parse(cls, text: str) -> "Suit":
        t = text.strip().upper()
        if len(t) == 1 and t in "CDHS":
            return cls("CDHS".index(t))
        if len(t) == 1 and t in "\u2663\u2666\u2665\u2660":
            return cls("\u2663\u2666\u2665\u2660".index(t))
        for s in cls:
            if t == s.name:
                return s
        raise ParseError(f"not a suit: {text!r} (expected S, H, D or C)")

    def __str__(self) -> str:
        return self.letter


#: PBN and hand diagrams list suits from spades down.
SUITS_HIGH_FIRST: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)


class Strain(IntEnum):
    """A contract's denomination, in bidding order; suit strains share their ``Suit`` value."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    NOTRUMP = 4

    @property
    def letter(self) -> str:
        """One-letter form used in calls and contracts: ``C D H S N``."""
        return "CDHSN"[self]

    @property
    def suit(self) -> Suit | None:
        return None if self == Strain.NOTRUMP else Suit(int(self))

    @property
    def is_suit(self) -> bool:
        return self != Strain.NOTRUMP

    @classmethod
    def parse(cls, text: str) -> "Strain":
        """``C D H S``, ``N``/``NT`` (any case)."""
        t = text.strip().upper()
        if t in ("N", "NT", "NOTRUMP", "NOTRUMPS"):
            return cls.NOTRUMP
        try:
            return cls(int(Suit.parse(t)))
        except ParseError:
            raise ParseError(f"not a strain: {text!r} (expected C, D, H, S or N/NT)") from None

    def __str__(self) -> str:
        return self.letter


class Rank(IntEnum):
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        return _RANK_LETTERS[self - 2]

    @property
    def hcp(self) -> int:
        return max(0, self - 10)

    @classmethod
    def parse(cls, text: str) -> "Rank":
        """``A K Q J T 9 .. 2``; ``10`` is accepted for the ten (any case)."""
        t = text.strip().upper()
        if t == "10":
            return cls.TEN
        if len(t) == 1 and t in _RANK_LETTERS:
            return cls(_RANK_LETTERS.index(t) + 2)
        raise ParseError(f"not a rank: {text!r} (expected one of AKQJT98765432)")

    def __str__(self) -> str:
        return self.letter


_RANK_LETTERS = "23456789TJQKA"
_RANK_INDEX = {ch: i for i, ch in enumerate(_RANK_LETTERS)}  # rank letter -> 0..12 (2..A)
FULL_SUIT = (1 << 13) - 1
ALL_CARDS = (1 << 52) - 1
#: High-card points of each 13-bit suit pattern is the sum over its bits; precomputed per suit mask.
_HCP_BY_MASK = [0] * (1 << 13)
for _m in range(1 << 13):
    _HCP_BY_MASK[_m] = 4 * ((_m >> 12) & 1) + 3 * ((_m >> 11) & 1) + 2 * ((_m >> 10) & 1) + ((_m >> 9) & 1)
del _m


class Card(NamedTuple):
    """One card. Orders by suit (clubs lowest) then rank; ``index`` is its bit number (0..51)."""

    suit: Suit
    rank: Rank

    @property
    def index(self) -> int:
        return 13 * self.suit + self.rank - 2

    @property
    def mask(self) -> int:
        return 1 << (13 * self.suit + self.rank - 2)

    @property
    def hcp(self) -> int:
        return self.rank.hcp

    @classmethod
    def from_index(cls, index: int) -> "Card":
        if not 0 <= index < 52:
            raise BridgeError(f"card index out of range: {index}")
        return _CARDS[index]

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Suit letter then rank: ``SA``, ``hT``, ``D10``. Rank-first (``AS``) is also accepted."""
        t = text.strip().upper()
        if len(t) in (2, 3):
            if t[0] in "SHDC":
                try:
                    return cls(Suit.parse(t[0]), Rank.parse(t[1:]))
                except ParseError:
                    pass
            if t[-1] in "SHDC":
                try:
                    return cls(Suit.parse(t[-1]), Rank.parse(t[:-1]))
                except ParseError:
                    pass
        raise ParseError(f"not a card: {text!r} (expected suit then rank, like SA or H7)")

    def __str__(self) -> str:
        return "CDHS"[self.suit] + _RANK_LETTERS[self.rank - 2]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_CARDS = tuple(Card(Suit(i // 13), Rank(i % 13 + 2)) for i in range(52))


def _iter_bits_high_first(mask: int) -> Iterator[int]:
    while mask:
        top = mask.bit_length() - 1
        yield top
        mask ^= 1 << top


class Hand:
    """An immutable set of cards (usually a player's 13), stored as a 52-bit mask.

    ``Hand.parse("AK94.T82.K73.QJ5")`` reads PBN order S.H.D.C; ``str(hand)`` prints it back with ranks descending.
    Iteration yields cards from the ace of spades down to the two of clubs.
    """

    __slots__ = ("_bits",)

    def __init__(self, bits: int = 0) -> None:
        if bits < 0 or bits > ALL_CARDS:
            raise BridgeError(f"hand mask out of range: {bits:#x}")
        object.__setattr__(self, "_bits", int(bits))

    def __setattr__(self, name, value):
        raise AttributeError("Hand is immutable")

    # --- construction -------------------------------------------------------------------------------------
    @classmethod
    def from_cards(cls, cards: Iterable[Card | str]) -> "Hand":
        bits = 0
        for c in cards:
            card = Card.parse(c) if isinstance(c, str) else c
            if bits & card.mask:
                raise InvalidDealError(f"card {card} appears twice")
            bits |= card.mask
        return cls(bits)

    @classmethod
    def from_suit_masks(cls, masks_by_suit: Iterable[int]) -> "Hand":
        """Masks indexed by ``Suit`` (clubs first)."""
        bits = 0
        for s, m in enumerate(masks_by_suit):
            bits |= (m & FULL_SUIT) << (13 * s)
        return cls(bits)

    @classmethod
    def parse(cls, text: str) -> "Hand":
        """PBN hand ``S.H.D.C`` (ranks in any order, ``10`` accepted for ``T``); ``-`` or empty is an empty hand."""
        t = text.strip()
        if t in ("", "-"):
            return cls(0)
        parts = t.split(".")
        if len(parts) != 4:
            raise ParseError(f"hand {text!r} must have four suits separated by dots (S.H.D.C), found {len(parts)}")
        bits = 0
        for suit, part in zip(SUITS_HIGH_FIRST, parts):
            p = part.strip().upper().replace("10", "T")
            for ch in p:
                r = _RANK_INDEX.get(ch)
                if r is None:
                    raise ParseError(f"hand {text!r}: {ch!r} is not a rank (expected AKQJT98765432)")
                bit = 1 << (13 * suit + r)
                if bits & bit:
                    raise InvalidDealError(f"card {Card(suit, Rank(_RANK_LETTERS.index(ch) + 2))} appears twice")
                bits |= bit
        return cls(bits)

    # --- queries ------------------------------------------------------------------------------------------
    @property
    def bits(self) -> int:
        return self._bits

    def suit_mask(self, suit: Suit | int) -> int:
        """13-bit mask of this hand's cards in ``suit`` (bit 12 = ace)."""
        return (self._bits >> (13 * suit)) & FULL_SUIT

    def length(self, suit: Suit | int) -> int:
        return self.suit_mask(suit).bit_count()

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """Suit lengths in PBN order: spades, hearts, diamonds, clubs."""
        return tuple(self.length(s) for s in SUITS_HIGH_FIRST)  # type: ignore[return-value]

    @property
    def hcp(self) -> int:
        b = self._bits
        return (
            _HCP_BY_MASK[b & FULL_SUIT]
            + _HCP_BY_MASK[(b >> 13) & FULL_SUIT]
            + _HCP_BY_MASK[(b >> 26) & FULL_SUIT]
            + _HCP_BY_MASK[(b >> 39) & FULL_SUIT]
        )

    def suit_hcp(self, suit: Suit | int) -> int:
        return _HCP_BY_MASK[self.suit_mask(suit)]

    @property
    def is_balanced(self) -> bool:
        """4-3-3-3, 4-4-3-2 or 5-3-3-2."""
        return tuple(sorted(self.shape, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))

    def cards_in(self, suit: Suit | int) -> list[Card]:
        """Cards of ``suit``, highest first."""
        m = self.suit_mask(suit)
        return [_CARDS[13 * suit + b] for b in _iter_bits_high_first(m)]

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = Card.parse(card)
        if not isinstance(card, Card):
            return False
        return bool(self._bits & card.mask)

    def __iter__(self) -> Iterator[Card]:
        for b in _iter_bits_high_first(self._bits):
            yield _CARDS[b]

    def __len__(self) -> int:
        return self._bits.bit_count()

    def __bool__(self) -> bool:
        return self._bits != 0

    # --- set algebra (each returns a new Hand) --------------------------------------------------------------
    def add(self, card: Card) -> "Hand":
        if self._bits & card.mask:
            raise InvalidDealError(f"card {card} appears twice")
        return Hand(self._bits | card.mask)

    def remove(self, card: Card) -> "Hand":
        if not self._bits & card.mask:
            raise InvalidDealError(f"card {card} is not in the hand {self}")
        return Hand(self._bits & ~card.mask)

    def __or__(self, other: "Hand") -> "Hand":
        return Hand(self._bits | other._bits)

    def __and__(self, other: "Hand") -> "Hand":
        return Hand(self._bits & other._bits)

    def __sub__(self, other: "Hand") -> "Hand":
        return Hand(self._bits & ~other._bits)

    # --- value semantics ----------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other._bits == self._bits

    def __hash__(self) -> int:
        return hash(("Hand", self._bits))

    def __str__(self) -> str:
        return ".".join(
            "".join(_RANK_LETTERS[b - 13 * s] for b in _iter_bits_high_first(self._bits & (FULL_SUIT << 13 * s)))
            for s in SUITS_HIGH_FIRST
        )

    def __repr__(self) -> str:
        return f"Hand.parse({str(self)!r})"

    def __reduce__(self):
        return (Hand, (self._bits,))


class Deal:
    """Four hands indexed by ``Seat``. A complete deal has 13 cards in each hand and all 52 cards once.

    ``Deal.parse("N:AK94.T82.K73.QJ5 ...")`` reads a PBN deal string (hands clockwise from the named seat);
    ``str(deal)`` prints it from North, ``deal.to_pbn(first=Seat.EAST)`` from any seat.
    A deal with fewer cards (a position during play) is made with ``complete=False``: the hands must then be
    disjoint, and it is the caller's business that the counts make sense.
    """

    __slots__ = ("_hands",)

    def __init__(self, hands: Iterable[Hand], *, complete: bool = True) -> None:
        hs = tuple(hands)
        if len(hs) != 4:
            raise InvalidDealError(f"a deal has four hands, got {len(hs)}")
        seen = 0
        for h in hs:
            dup = seen & h.bits
            if dup:
                raise InvalidDealError(f"card {Card.from_index(dup.bit_length() - 1)} appears twice")
            seen |= h.bits
        if complete:
            for seat, h in zip(Seat, hs):
                if len(h) != 13:
                    raise InvalidDealError(f"deal has {len(h)} cards in {seat.title}")
        object.__setattr__(self, "_hands", hs)

    def __setattr__(self, name, value):
        raise AttributeError("Deal is immutable")

    @classmethod
    def parse(cls, text: str, *, complete: bool = True) -> "Deal":
        """PBN deal string ``"<seat>:<h> <h> <h> <h>"``. Without a ``<seat>:`` prefix North is assumed.

        In a complete deal one hand may be ``-`` (unknown): it is filled with the 13 cards the others lack.
        """
        t = " ".join(text.strip().split())
        first = Seat.NORTH
        if len(t) >= 2 and t[1] == ":":
            first = Seat.parse(t[0])
            t = t[2:].strip()
        parts = t.split(" ") if t else []
        if len(parts) != 4:
            raise ParseError(f"deal {text!r} must list four hands separated by spaces, found {len(parts)}")
        hands: list[Hand | None] = [None] * 4
        unknown = []
        for i, p in enumerate(parts):
            seat = first.next(i)
            if p == "-":
                unknown.append(seat)
                hands[seat] = Hand(0)
                continue
            try:
                hands[seat] = Hand.parse(p)
            except BridgeError as exc:
                raise type(exc)(f"{seat.title}: {exc}") from None
        if complete and len(unknown) == 1:
            seen = 0
            for h in hands:
                dup = seen & h.bits  # type: ignore[union-attr]
                if dup:
                    raise InvalidDealError(f"card {Card.from_index(dup.bit_length() - 1)} appears twice")
                seen |= h.bits  # type: ignore[union-attr]
            hands[unknown[0]] = Hand(ALL_CARDS & ~seen)
        return cls(hands, complete=complete)  # type: ignore[arg-type]

    @classmethod
    def random(cls, rng: random.Random | int | None = None) -> "Deal":
        """A uniformly random complete deal; ``rng`` is a ``random.Random`` or a seed."""
        r = rng if isinstance(rng, random.Random) else random.Random(rng)
        cards = list(range(52))
        r.shuffle(cards)
        hands = []
        for s in range(4):
            bits = 0
            for c in cards[13 * s : 13 * s + 13]:
                bits |= 1 << c
            hands.append(Hand(bits))
        return cls(hands)

    @property
    def hands(self) -> tuple[Hand, Hand, Hand, Hand]:
        return self._hands  # type: ignore[return-value]

    def __getitem__(self, seat: Seat | int) -> Hand:
        return self._hands[seat]

    def holder(self, card: Card) -> Seat | None:
        for seat, h in zip(Seat, self._hands):
            if h.bits & card.mask:
                return seat
        return None

    def replace(self, seat: Seat, hand: Hand, *, complete: bool | None = None) -> "Deal":
        hs = list(self._hands)
        hs[seat] = hand
        return Deal(hs, complete=self.is_complete if complete is None else complete)

    @property
    def is_complete(self) -> bool:
        return all(len(h) == 13 for h in self._hands)

    def to_pbn(self, first: Seat = Seat.NORTH) -> str:
        return f"{first.letter}:" + " ".join(str(self._hands[first.next(i)]) for i in range(4))

    def diagram(self) -> str:
        """A plain-text hand diagram (North top, West left, East right, South bottom)."""
        def lines(h: Hand) -> list[str]:
            return [
                f"{s.letter} " + ("".join(c.rank.letter for c in h.cards_in(s)) or "-") for s in SUITS_HIGH_FIRST
            ]

        n, e, s, w = (lines(self._hands[x]) for x in Seat)
        pad = " " * 16
        out = [pad + x for x in n]
        out += [f"{w[i]:<32}{e[i]}" for i in range(4)]
        out += [pad + x for x in s]
        return "\n".join(out)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and other._hands == self._hands

    def __hash__(self) -> int:
        return hash(("Deal", self._hands))

    def __str__(self) -> str:
        return self.to_pbn()

    def __repr__(self) -> str:
        return f"Deal.parse({self.to_pbn()!r})"

    def __reduce__(self):
        return (Deal, (self._hands,), None) if self.is_complete else (_deal_partial, (self._hands,))


def _deal_partial(hands):
    return Deal(hands, complete=False)


class Vul(IntEnum):
    """Vulnerability of a board. PBN spells these ``None NS EW All``."""

    NONE = 0
    NS = 1
    EW = 2
    BOTH = 3

    def is_vulnerable(self, seat: Seat) -> bool:
        if self == Vul.BOTH:
            return True
        if self == Vul.NONE:
            return False
        return seat.is_ns == (self == Vul.NS)

    @property
    def pbn(self) -> str:
        return ("None", "NS", "EW", "All")[self]

    @classmethod
    def parse(cls, text: str) -> "Vul":
        """Every spelling in use: ``None Love - o 0``, ``NS N-S n``, ``EW E-W e``, ``All Both b`` (any case)."""
        t = text.strip().upper().replace("-", "").replace("/", "").replace(" ", "")
        table = {
            "": cls.NONE, "NONE": cls.NONE, "LOVE": cls.NONE, "O": cls.NONE, "0": cls.NONE, "NEITHER": cls.NONE,
            "NS": cls.NS, "N": cls.NS, "NORTHSOUTH": cls.NS,
            "EW": cls.EW, "E": cls.EW, "EASTWEST": cls.EW,
            "ALL": cls.BOTH, "BOTH": cls.BOTH, "B": cls.BOTH,
        }
        if text.strip() == "-":
            return cls.NONE
        if t in table:
            return table[t]
        raise ParseError(f"not a vulnerability: {text!r} (expected None, NS, EW or All)")

    def __str__(self) -> str:
        return self.pbn


def _check_board(board: int) -> int:
    if not isinstance(board, int) or board < 1:
        raise BridgeError(f"board numbers start at 1, got {board!r}")
    return board


def dealer_for_board(board: int) -> Seat:
    """N, E, S, W for boards 1, 2, 3, 4, repeating."""
    return Seat((_check_board(board) - 1) % 4)


def vul_for_board(board: int) -> Vul:
    """The standard 16-board cycle (None, NS, EW, All, NS, EW, All, None, EW, All, None, NS, All, None, NS, EW)."""
    b = (_check_board(board) - 1) % 16
    return Vul((b + b // 4) % 4)
