"""What the protocol machines tell the layer above, for both sides of the table: one module, like h11's events.

A robot's ``ClientMachine`` emits the seat's events (``SeatAssigned`` ... ``TableError``); a table manager's
``TableMachine`` emits the table's (``PlayerSeated`` ... ``CardRelayed``). The events both sides have are one type:
``BoardStarted`` (the table knows the board's number when it starts it; a seat learns it from the next line,
``DealAnnounced``) and ``SessionEnded`` (the table counts the boards it played; a seat is only told the session is
over). Every event is an immutable value, delivered once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, NamedTuple, Optional, Union

from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.board import PublicPlay
from squeeze.engine.cards import Card, Deal, Hand, Seat, Vul
from squeeze.engine.record import BoardRecord, CallNote, CardNote

from . import messages as m

__all__ = [
    # both sides
    "BoardStarted",
    "SessionEnded",
    # a seat (ClientMachine)
    "ClientEvent",
    "SeatAssigned",
    "TeamsAnnounced",
    "DealAnnounced",
    "HandReceived",
    "CallRequested",
    "CallReceived",
    "AuctionComplete",
    "CardRequested",
    "CardReceived",
    "DummyRevealed",
    "TrickComplete",
    "BoardComplete",
    "TimingReceived",
    "TableError",
    "LineReceived",
    "LineRejected",
    # a table (TableMachine)
    "TableEvent",
    "PlayerSeated",
    "PlayerLeft",
    "BoardFinished",
    "CallRelayed",
    "CardRelayed",
]


# --- both sides --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardStarted:
    """``Start of board``: a board begins, or begins again (``restarted``: a board was in progress and the table
    started it over). ``board`` is its number on the table's side; a seat learns it from ``DealAnnounced``."""

    restarted: bool
    board: Optional[int] = None


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """``End of session``. ``boards_played``: the boards the table finished in the session (the table's side)."""

    boards_played: Optional[int] = None


# --- a seat ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatAssigned:
    seat: Seat
    team: str


@dataclass(frozen=True, slots=True)
class TeamsAnnounced:
    ns: str
    ew: str
    scoring: Optional[str]


@dataclass(frozen=True, slots=True)
class DealAnnounced:
    board: int
    dealer: Seat
    vul: Vul


@dataclass(frozen=True, slots=True)
class HandReceived:
    seat: Seat
    hand: Hand


@dataclass(frozen=True, slots=True)
class CallRequested:
    """Our turn to call: answer with ``ClientMachine.send_call``."""

    seat: Seat
    auction: Auction


@dataclass(frozen=True, slots=True)
class CallReceived:
    seat: Seat
    call: Call
    alert: bool
    explanation: str


@dataclass(frozen=True, slots=True)
class AuctionComplete:
    auction: Auction
    contract: Optional[Contract]  #: ``None``: passed out
    declarer: Optional[Seat]
    dummy: Optional[Seat]


@dataclass(frozen=True, slots=True)
class CardRequested:
    """A card is due from ``seat``'s hand (ours, or dummy's when we are declarer): answer with
    ``ClientMachine.send_card``."""

    seat: Seat
    from_dummy: bool
    legal: tuple[Card, ...]
    trick: int


@dataclass(frozen=True, slots=True)
class CardReceived:
    seat: Seat
    card: Card
    trick: int


@dataclass(frozen=True, slots=True)
class DummyRevealed:
    seat: Seat
    hand: Hand


@dataclass(frozen=True, slots=True)
class TrickComplete:
    trick: int
    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat


@dataclass(frozen=True, slots=True)
class BoardComplete:
    board: Optional[int]
    auction: Auction
    cards: tuple[Card, ...]
    contract: Optional[Contract]
    declarer_tricks: Optional[int]
    deal: Optional[Deal]  #: rebuilt from the cards played (``None`` when passed out)


@dataclass(frozen=True, slots=True)
class TimingReceived:
    timing: m.Timing


@dataclass(frozen=True, slots=True)
class TableError:
    """``Illegal bid``/``Illegal card``/an error line from the table manager. The machine does not change: the
    table manager and we disagree about the state, which only a ``Start of board`` (board restart) can repair."""

    message: Union[m.IllegalCall, m.IllegalCard, m.ErrorMessage]


@dataclass(frozen=True, slots=True)
class LineReceived:
    """A complete line came (``ClientMachine.receive_data``): it comes before the events the line causes, or
    before its ``LineRejected``, so the I/O layer can log every line as received."""

    line: str


@dataclass(frozen=True, slots=True)
class LineRejected:
    """A line from the table manager that the machine refused (``ClientMachine.receive_data``): ``error`` says why
    and the machine is unchanged, unless ``error.fatal`` (the manager refused our seat: nothing more can happen on
    this connection). ``line`` is ``None`` for bytes that never made a line (an over-long one)."""

    line: Optional[str]
    error: Exception


ClientEvent = Union[
    SeatAssigned, TeamsAnnounced, BoardStarted, DealAnnounced, HandReceived, CallRequested, CallReceived,
    AuctionComplete, CardRequested, CardReceived, DummyRevealed, TrickComplete, BoardComplete, TimingReceived,
    SessionEnded, TableError, LineReceived, LineRejected,
]


# --- a table -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    connection: Hashable
    seat: Seat
    team: str
    rejoined: bool


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    connection: Hashable
    seat: Seat


@dataclass(frozen=True, slots=True)
class BoardFinished:
    record: BoardRecord


class CallRelayed(NamedTuple):
    """A call passed the gate and went to the other seats: ``auction`` ends with it (for live events)."""

    board: int
    auction: Auction
    note: CallNote


class CardRelayed(NamedTuple):
    """A card went to the other seats: ``play`` (what the table sees, no hand) ends with it."""

    board: int
    play: PublicPlay
    note: CardNote


TableEvent = Union[PlayerSeated, PlayerLeft, BoardStarted, BoardFinished, SessionEnded, CallRelayed, CardRelayed]
