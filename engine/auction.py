"""Calls, auctions and contracts.

A ``Call`` is one of 38 values (pass, double, redouble, 35 bids) with a dense index so tables can be arrays.
``Auction`` is immutable: ``auction.then(call)`` checks legality and returns the longer auction; the specific error
classes say how a call was wrong (``InsufficientBidError``, ``IllegalDoubleError`` ...), all ``IllegalCallError``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from .cards import BridgeError, ParseError, Seat, Strain

__all__ = [
    "Call",
    "PASS",
    "DOUBLE",
    "REDOUBLE",
    "ALL_CALLS",
    "IllegalCallError",
    "InsufficientBidError",
    "IllegalDoubleError",
    "IllegalRedoubleError",
    "AuctionEndedError",
    "Auction",
    "Contract",
]


class Call:
    """Pass, double, redouble or a bid. ``Call.parse("1N")``; ``str(call)`` prints ``P X XX 1C .. 7N``.

    ``index``: 0 = pass, 1 = double, 2 = redouble, 3 + 5*(level-1) + strain for bids, so bids compare by index.
    """

    __slots__ = ("index",)

    def __new__(cls, index: int) -> "Call":
        if not 0 <= index < 38:
            raise BridgeError(f"call index out of range: {index}")
        if index < len(_CALLS_BY_INDEX):
            return _CALLS_BY_INDEX[index]
        self = object.__new__(cls)
        object.__setattr__(self, "index", index)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("Call is immutable")

    def __reduce__(self):
        return (Call, (self.index,))

    @classmethod
    def bid(cls, level: int, strain: Strain | int) -> "Call":
        if not 1 <= level <= 7:
            raise BridgeError(f"bid level must be 1..7, got {level}")
        return cls(3 + 5 * (level - 1) + int(strain))

    @property
    def is_pass(self) -> bool:
        return self.index == 0

    @property
    def is_double(self) -> bool:
        return self.index == 1

    @property
    def is_redouble(self) -> bool:
        return self.index == 2

    @property
    def is_bid(self) -> bool:
        return self.index >= 3

    @property
    def level(self) -> int:
        return (self.index - 3) // 5 + 1 if self.index >= 3 else 0

    @property
    def strain(self) -> Strain | None:
        return Strain((self.index - 3) % 5) if self.index >= 3 else None

    @classmethod
    def parse(cls, text: str) -> "Call":
        """``P``/``Pass``, ``X``/``Dbl``/``Double``, ``XX``/``Rdbl``/``Redouble``, ``1C``..``7N`` (``NT`` accepted).

        Case-insensitive; a trailing alert mark ``!`` is not part of the call and is rejected here (strip it first).
        """
        t = text.strip().upper()
        if t in _SPECIAL_NAMES:
            return _CALLS_BY_INDEX[_SPECIAL_NAMES[t]]
        if 2 <= len(t) <= 3 and t[0] in "1234567":
            try:
                strain = Strain.parse(t[1:])
            except ParseError:
                pass
            else:
                return cls.bid(int(t[0]), strain)
        raise ParseError(f"not a call: {text!r} (expected P, X, XX or a bid 1C..7N)")

    def __str__(self) -> str:
        if self.index < 3:
            return ("P", "X", "XX")[self.index]
        return f"{self.level}{'CDHSN'[(self.index - 3) % 5]}"

    @property
    def pbn(self) -> str:
        """PBN spelling: ``Pass``, ``X``, ``XX``, ``1NT``, ``4S``."""
        if self.index == 0:
            return "Pass"
        s = str(self)
        return s + "T" if s.endswith("N") else s

    def __repr__(self) -> str:
        return f"Call.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Call) and other.index == self.index

    def __hash__(self) -> int:
        return hash(("Call", self.index))

    def __lt__(self, other: "Call") -> bool:
        return self.index < other.index


_CALLS_BY_INDEX: list = []
_CALLS_BY_INDEX.extend(Call(i) for i in range(38))
_SPECIAL_NAMES = {
    "P": 0, "PASS": 0, "PA": 0, "PS": 0,
    "X": 1, "D": 1, "DBL": 1, "DOUBLE": 1, "DOUBLES": 1,
    "XX": 2, "R": 2, "RDBL": 2, "REDOUBLE": 2, "REDOUBLES": 2,
}
PASS = Call(0)
DOUBLE = Call(1)
REDOUBLE = Call(2)
ALL_CALLS: tuple[Call, ...] = tuple(_CALLS_BY_INDEX)


class IllegalCallError(BridgeError):
    """A call that the laws do not allow at this point of the auction."""


class InsufficientBidError(IllegalCallError):
    pass


class IllegalDoubleError(IllegalCallError):
    pass


class IllegalRedoubleError(IllegalCallError):
    pass


class AuctionEndedError(IllegalCallError):
    pass


class Contract:
    """The final contract: level, strain, 0/1/2 for undoubled/doubled/redoubled, and declarer (may be unknown).

    Text: ``4H``, ``3N``/``3NT``, ``6SXX``, optionally followed by the declarer's seat: ``3NS`` is 3NT by South,
    ``4SXN`` 4S doubled by North.
    """

    __slots__ = ("level", "strain", "doubled", "declarer")

    def __init__(self, level: int, strain: Strain | int, doubled: int = 0, declarer: Seat | None = None) -> None:
        if not 1 <= level <= 7:
            raise BridgeError(f"contract level must be 1..7, got {level}")
        if doubled not in (0, 1, 2):
            raise BridgeError(f"doubled must be 0, 1 or 2, got {doubled}")
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "strain", Strain(strain))
        object.__setattr__(self, "doubled", doubled)
        object.__setattr__(self, "declarer", None if declarer is None else Seat(declarer))

    def __setattr__(self, name, value):
        raise AttributeError("Contract is immutable")

    def __reduce__(self):
        return (Contract, (self.level, self.strain, self.doubled, self.declarer))

    @classmethod
    def parse(cls, text: str) -> "Contract":
        t = text.strip().upper().replace(" ", "")
        if len(t) < 2 or t[0] not in "1234567":
            raise ParseError(f"not a contract: {text!r} (expected like 4H, 3NT, 6SXX, 3NS for 3NT by South)")
        level = int(t[0])
        rest = t[1:]
        if rest.startswith("NT"):
            strain, rest = Strain.NOTRUMP, rest[2:]
        elif rest[:1] in ("C", "D", "H", "S", "N"):
            strain, rest = Strain.parse(rest[0]), rest[1:]
        else:
            raise ParseError(f"not a contract: {text!r} (no strain after the level)")
        doubled = 0
        if rest.startswith("XX"):
            doubled, rest = 2, rest[2:]
        elif rest.startswith("X"):
            doubled, rest = 1, rest[1:]
        declarer = None
        if rest:
            if rest in ("N", "E", "S", "W"):
                declarer = Seat.parse(rest)
            else:
                raise ParseError(f"not a contract: {text!r} (unexpected {rest!r} after the strain)")
        return cls(level, strain, doubled, declarer)

    def with_declarer(self, declarer: Seat) -> "Contract":
        return Contract(self.level, self.strain, self.doubled, declarer)

    @property
    def tricks_needed(self) -> int:
        return self.level + 6

    @property
    def call(self) -> Call:
        return Call.bid(self.level, self.strain)

    @property
    def pbn(self) -> str:
        """PBN ``Contract`` tag value: ``4S``, ``3NT``, ``6HXX`` (declarer goes in its own tag)."""
        return f"{self.level}{'NT' if self.strain == Strain.NOTRUMP else self.strain.letter}{'X' * self.doubled}"

    @property
    def text(self) -> str:
        """The contract as Squeeze prints it for people, one way everywhere: ``4HX by S``, ``3NT by W`` (``4HX``
        without a declarer). ``str`` is the compact notation commands read back: ``4HXS``, ``3NW``."""
        return self.pbn if self.declarer is None else f"{self.pbn} by {self.declarer.letter}"

    def __str__(self) -> str:
        return f"{self.level}{self.strain.letter}{'X' * self.doubled}{self.declarer.letter if self.declarer is not None else ''}"

    def __repr__(self) -> str:
        return f"Contract.parse({str(self)!r})"

    def _key(self):
        return (self.level, int(self.strain), self.doubled, self.declarer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Contract) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(("Contract", self._key()))


class Auction:
    """An auction from ``dealer``: an immutable sequence of legal calls.

    ``Auction(Seat.NORTH, ["1N", "P", "3N", "P", "P", "P"])`` checks every call; ``auction.then("X")`` returns a new
    auction or raises an ``IllegalCallError`` subclass whose message says why ("3C is insufficient after 3D").
    """

    __slots__ = ("dealer", "calls", "_last_bid", "_last_bidder", "_doubled", "_last_actor", "_passes")

    def __init__(self, dealer: Seat | int, calls: Iterable[Call | str] = ()) -> None:
        object.__setattr__(self, "dealer", Seat(dealer))
        object.__setattr__(self, "calls", ())
        object.__setattr__(self, "_last_bid", None)
        object.__setattr__(self, "_last_bidder", None)
        object.__setattr__(self, "_doubled", 0)
        object.__setattr__(self, "_last_actor", None)
        object.__setattr__(self, "_passes", 0)
        state = self
        for c in calls:
            state = state.then(c)
        for name in Auction.__slots__:
            object.__setattr__(self, name, getattr(state, name))

    def __setattr__(self, name, value):
        raise AttributeError("Auction is immutable")

    def __reduce__(self):
        return (Auction, (self.dealer, self.calls))

    @classmethod
    def parse(cls, text: str, dealer: Seat | str = Seat.NORTH) -> "Auction":
        """Calls separated by blanks, commas or dashes: ``"1N P 3N P P P"``; ``AP`` ends it with all pass."""
        d = Seat.parse(dealer) if isinstance(dealer, str) else dealer
        toks = [t for t in text.replace(",", " ").replace("-", " ").split() if t]
        a = cls(d)
        for t in toks:
            if t.upper() == "AP":
                while not a.is_complete:
                    a = a.then(PASS)
                continue
            a = a.then(t)
        return a

    # --- state --------------------------------------------------------------------------------------------
    @property
    def next_seat(self) -> Seat:
        return self.dealer.next(len(self.calls))

    @property
    def last_bid(self) -> Call | None:
        return self._last_bid

    @property
    def last_bidder(self) -> Seat | None:
        return self._last_bidder

    @property
    def is_complete(self) -> bool:
        """Four passes to start, or three passes after a bid, double or redouble."""
        n = len(self.calls)
        if self._last_bid is None:
            return n >= 4
        return self._passes >= 3

    @property
    def is_passed_out(self) -> bool:
        return self.is_complete and self._last_bid is None

    def seat_of(self, i: int) -> Seat:
        """Seat that made call number ``i`` (0 = the dealer's first call)."""
        return self.dealer.next(i)

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[Call]:
        return iter(self.calls)

    def __getitem__(self, i):
        return self.calls[i]

    # --- legality -----------------------------------------------------------------------------------------
    def check(self, call: Call) -> None:
        """Raise the specific ``IllegalCallError`` if ``call`` is not legal now; return ``None`` otherwise."""
        if self.is_complete:
            raise AuctionEndedError(f"the auction is over; {call} cannot be made")
        seat = self.next_seat
        if call.is_bid:
            if self._last_bid is not None and call.index <= self._last_bid.index:
                raise InsufficientBidError(f"{call} is insufficient after {self._last_bid}")
        elif call.is_double:
            if self._last_bid is None:
                raise IllegalDoubleError("X is illegal: there is no bid to double")
            if self._doubled:
                raise IllegalDoubleError(f"X is illegal: {self._last_bid} is already doubled")
            if self._last_bidder.same_side(seat):  # type: ignore[union-attr]
                raise IllegalDoubleError(f"X is illegal: {self._last_bid} was bid by {seat.title}'s own side")
        elif call.is_redouble:
            if self._doubled != 1:
                raise IllegalRedoubleError(
                    "XX is illegal: " + ("it is already redoubled" if self._doubled == 2 else "nothing is doubled")
                )
            if not self._last_bidder.same_side(seat):  # type: ignore[union-attr]
                raise IllegalRedoubleError(f"XX is illegal: only the side that bid {self._last_bid} may redouble")

    def is_legal(self, call: Call | str) -> bool:
        try:
            self.check(Call.parse(call) if isinstance(call, str) else call)
        except IllegalCallError:
            return False
        return True

    def legal_calls(self) -> list[Call]:
        if self.is_complete:
            return []
        return [c for c in ALL_CALLS if self.is_legal(c)]

    def then(self, call: Call | str) -> "Auction":
        """The auction with ``call`` added (checked)."""
        c = Call.parse(call) if isinstance(call, str) else call
        self.check(c)
        new = object.__new__(Auction)
        seat = self.next_seat
        set_ = object.__setattr__
        set_(new, "dealer", self.dealer)
        set_(new, "calls", self.calls + (c,))
        if c.is_bid:
            set_(new, "_last_bid", c)
            set_(new, "_last_bidder", seat)
            set_(new, "_doubled", 0)
            set_(new, "_last_actor", seat)
            set_(new, "_passes", 0)
        else:
            set_(new, "_last_bid", self._last_bid)
            set_(new, "_last_bidder", self._last_bidder)
            if c.is_pass:
                set_(new, "_doubled", self._doubled)
                set_(new, "_last_actor", self._last_actor)
                set_(new, "_passes", self._passes + 1)
            else:
                set_(new, "_doubled", 1 if c.is_double else 2)
                set_(new, "_last_actor", seat)
                set_(new, "_passes", 0)
        return new

    # --- result -------------------------------------------------------------------------------------------
    @property
    def contract(self) -> Contract | None:
        """The final contract with its declarer, or ``None`` if not complete or passed out."""
        if not self.is_complete or self._last_bid is None:
            return None
        return self.current_contract

    @property
    def current_contract(self) -> Contract | None:
        """The contract if the auction ended now (``None`` before any bid)."""
        if self._last_bid is None:
            return None
        return Contract(self._last_bid.level, self._last_bid.strain, self._doubled, self.declarer_of(self._last_bid))

    def declarer_of(self, bid: Call) -> Seat:
        """First player of the side that made ``bid``'s last bid in its strain (the law's declarer)."""
        side_seat = None
        for i in range(len(self.calls) - 1, -1, -1):
            if self.calls[i] == bid:
                side_seat = self.seat_of(i)
                break
        if side_seat is None:
            raise BridgeError(f"{bid} was not bid in this auction")
        for i, c in enumerate(self.calls):
            if c.is_bid and c.strain == bid.strain and self.seat_of(i).same_side(side_seat):
                return self.seat_of(i)
        raise AssertionError("unreachable")

    @property
    def declarer(self) -> Seat | None:
        c = self.contract
        return None if c is None else c.declarer

    @property
    def doubled(self) -> int:
        return self._doubled

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Auction) and other.dealer == self.dealer and other.calls == self.calls

    def __hash__(self) -> int:
        return hash(("Auction", self.dealer, self.calls))

    def __str__(self) -> str:
        """``"N: 1N P 3N P P P"`` (dealer, then the calls)."""
        return f"{self.dealer.letter}:" + "".join(" " + str(c) for c in self.calls)

    def __repr__(self) -> str:
        return f"Auction.parse({' '.join(str(c) for c in self.calls)!r}, dealer={self.dealer.letter!r})"

    @classmethod
    def from_string(cls, text: str) -> "Auction":
        """Inverse of ``str(auction)``."""
        t = text.strip()
        if len(t) < 2 or t[1] != ":":
            raise ParseError(f"not an auction: {text!r} (expected 'N: 1N P 3N P P P')")
        return cls.parse(t[2:], Seat.parse(t[0]))

    def calls_by(self, seat: Seat) -> list[Call]:
        return [c for i, c in enumerate(self.calls) if self.seat_of(i) == seat]


def calls_from_strings(calls: Sequence[str]) -> list[Call]:
    return [Call.parse(c) for c in calls]
