"""``HumanSeat``: a person's seat at any Blue Chip table manager, over TCP - the protocol side of ``squeeze
play-web``.

The seat is a real protocol connection: it says ``Connecting``, answers every ``ready`` line and sends the person's
calls and cards, so a table manager cannot tell it from a robot (ours, or any protocol-18 manager). As in
``robot.agent``, ``protocol.ClientMachine`` owns the protocol state and this module only moves lines; it is the
one place ``play-web`` touches the protocol, so a change of the machine's API stays here.

What it adds for a person:

- a snapshot of what the seat may see (``SeatSnapshot``): its hand, the auction with each call's alert and the
  explanation the table relayed (protocol 19; a protocol-18 manager relays none), dummy once down, the play, whose
  turn it is and the legal calls or cards;
- checked decisions: ``call``/``card`` refuse what is not legal (``SeatRefusal``, with the reason in a player's
  words) and send nothing;
- a pause between boards: once a board is over, the lines that follow (``Start of board`` of the next one, or
  ``End of session``) are held until ``next_board()``, so the person can look at the board before the next one is
  dealt; a table manager waits for the seat's ``ready for deal``, as it waits for any robot that is slow;
- each finished board as an ``engine.record.BoardRecord`` of what the seat saw (the deal, rebuilt from the cards
  played; each call's alert and relayed explanation).

Protocol version: 18 by default (canonical, what every manager takes); 19 at our own table manager, which then
relays every robot's explanation to this seat (never its partner's call: the rules let a player ask the opponents
only).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable, Optional

import structlog

from squeeze.engine.auction import Auction, Call, Contract, IllegalCallError
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat, Vul
from squeeze.engine.record import BoardRecord, CallNote
from squeeze.protocol.client import (
    BoardComplete, BoardStarted, CallReceived, ClientMachine, ClientPhase, SessionEnded, TableError, TeamsAnnounced,
)
from squeeze.protocol.errors import ProtocolError
from squeeze.protocol.framing import LineBuffer

from .agent import open_table_connection

__all__ = ["HumanSeat", "SeatSnapshot", "SeatRefusal", "CallSeen"]

_log = structlog.get_logger("squeeze.human_seat")


class SeatRefusal(Exception):
    """A call or card the seat does not send: not the person's turn, or not legal (the message says why)."""


@dataclass(frozen=True)
class CallSeen:
    """One call as the seat saw it: the table's alert and relayed explanation (empty when none came)."""

    seat: Seat
    call: Call
    alert: bool = False
    explanation: str = ""


@dataclass(frozen=True)
class SeatSnapshot:
    """What the seat knows now (engine types; the page's JSON is made from it by ``robot.play_web``)."""

    seat: Optional[Seat]
    status: str  #: ``connecting``, ``waiting`` (for a board), ``auction``, ``play``, ``over`` (a board), ``ended``
    detail: str  #: a line for the person: what the table waits for, or why the session stopped
    teams: tuple[str, str] = ("", "")
    board: Optional[int] = None
    dealer: Optional[Seat] = None
    vul: Optional[Vul] = None
    hand: Optional[Hand] = None  #: the seat's 13 cards as dealt
    calls: tuple[CallSeen, ...] = ()
    auction: Optional[Auction] = None
    contract: Optional[Contract] = None
    dummy_hand: Optional[Hand] = None
    cards: tuple[Card, ...] = ()  #: every card played, in order
    players: tuple[Seat, ...] = ()  #: who played each card
    tricks: tuple = ()  #: completed tricks as ``(leader, cards, winner)``
    turn: Optional[tuple[str, Seat]] = None  #: ``("call"|"card", seat)`` when the person is to act
    legal_calls: tuple[Call, ...] = ()
    legal_cards: tuple[Card, ...] = ()
    last: Optional[BoardRecord] = None  #: the board just finished, while the seat holds before the next one
    error: str = ""  #: the table's last error line (``Illegal card`` ...)


class HumanSeat:
    """The person's seat (module doc). ``await seat.run()`` plays the session; ``on_change()`` is called after every
    change; ``on_board(record)`` once per finished board (before the seat holds)."""

    def __init__(self, host: str, port: int, seat: Optional[Seat], *, team: str = "Human", protocol_version: int = 18,
                 on_change: Callable[[], None] = lambda: None,
                 on_board: Callable[[BoardRecord], None] = lambda record: None,
                 connect_timeout_s: float = 30.0) -> None:
        self.host, self.port = host, port
        self.machine = ClientMachine(team, seat, version=protocol_version, explanations="off")
        self.on_change, self.on_board = on_change, on_board
        self.connect_timeout_s = connect_timeout_s
        self.status, self.detail = "connecting", f"connecting to {host}:{port}"
        self.records: list[BoardRecord] = []
        self._calls: list[CallSeen] = []
        self._error = ""
        self._writer: Optional[asyncio.StreamWriter] = None
        self._held: Optional[list[str]] = None  # lines kept while the person looks at a finished board
        self._last: Optional[BoardRecord] = None
        self._lock = asyncio.Lock()  # one line or one decision at a time through the machine
        self._released = asyncio.Event()  # set when the person goes on after a board
        self._eof = False

    # -- the session ---------------------------------------------------------------------------------------------
    async def run(self) -> str:
        """Connect, play until ``End of session`` (``"ended"``), a refusal (``"refused"``), a closed connection
        (``"dropped"``) or no connection at all (``"unreachable"``)."""
        conn = await self._connect()
        if conn is None:
            self._set("ended", f"no table manager answers at {self.host}:{self.port}")
            return "unreachable"
        reader, self._writer = conn
        async with self._lock:
            self.machine.connect()
            await self._flush()
        buffer = LineBuffer()
        try:
            while True:
                data = await reader.read(65536)
                if not data and self._held is not None:
                    # the manager closed after its last line (End of session) while the person looks at the
                    # board: those lines are handled when the person goes on
                    self._eof = True
                    await self._released.wait()
                    if self.machine.phase == ClientPhase.SESSION_ENDED:
                        return "ended"
                if not data:
                    if self.machine.phase != ClientPhase.SESSION_ENDED:
                        self._set("ended", "the table manager closed the connection")
                        return "dropped"
                    return "ended"
                try:
                    lines = buffer.feed(data)
                except ProtocolError as exc:
                    _log.warning("human_seat.bad_line", error=str(exc))
                    continue
                for line in lines:
                    outcome = await self._line(line)
                    if outcome:
                        return outcome
        except (ConnectionError, OSError) as exc:
            self._set("ended", f"the connection to the table manager broke: {exc}")
            return "dropped"
        finally:
            if self._writer is not None:
                self._writer.close()

    async def _connect(self):
        deadline = asyncio.get_running_loop().time() + self.connect_timeout_s
        while True:
            try:
                return await open_table_connection(self.host, self.port)
            except (OSError, asyncio.TimeoutError):
                if asyncio.get_running_loop().time() > deadline:
                    return None
                await asyncio.sleep(0.2)

    async def _line(self, line: str) -> Optional[str]:
        if self._held is not None:  # the person is looking at the board just finished
            self._held.append(line)
            return None
        async with self._lock:
            _log.info("human_seat.line", dir="in", line=line)
            try:
                events = self.machine.receive_line(line)
            except ProtocolError as exc:
                if exc.fatal:
                    self._set("ended", f"the table manager refused the seat: {line.strip()}")
                    return "refused"
                _log.warning("human_seat.rejected_line", line=line, error=str(exc))
                return None
            self._handle(events)
            await self._flush()
        if self.machine.phase == ClientPhase.SESSION_ENDED:
            self._set("ended", "the session is over")
            return "ended"
        self.on_change()
        return None

    def _handle(self, events) -> None:
        mc = self.machine
        for ev in events:
            if isinstance(ev, BoardStarted):
                self._calls, self._error, self._last = [], "", None
            elif isinstance(ev, CallReceived):
                self._calls.append(CallSeen(ev.seat, ev.call, ev.alert, ev.explanation))
            elif isinstance(ev, TableError):
                self._error = ev.message.format().strip()
            elif isinstance(ev, TeamsAnnounced):
                pass
            elif isinstance(ev, BoardComplete):
                self._finished(ev)
            elif isinstance(ev, SessionEnded):
                pass
        self.status = {ClientPhase.AUCTION: "auction", ClientPhase.PLAY: "play"}.get(
            mc.phase, "over" if self._held is not None else "waiting")
        self.detail = self._describe()

    def _finished(self, ev: BoardComplete) -> None:
        mc = self.machine
        deal = ev.deal
        if deal is None:  # passed out: only our own hand is known
            deal = Deal([mc.hand if s == mc.seat else Hand() for s in Seat], complete=False)
        names = {}
        if mc.teams is not None:
            names = {s: mc.teams[0] if s.is_ns else mc.teams[1] for s in Seat}
        try:
            record = BoardRecord(board=ev.board or 1, deal=deal, dealer=mc.dealer, vul=mc.vul, auction=ev.auction,
                                 play=ev.cards, players=names,
                                 call_notes=tuple(CallNote(c.alert, c.explanation) for c in self._calls))
        except BridgeError as exc:  # (the machine checked every card: not expected)
            _log.error("human_seat.bad_record", error=str(exc))
            return
        self.records.append(record)
        self._last = record
        self._held = []
        self.on_board(record)

    def _describe(self) -> str:
        mc = self.machine
        wait = mc.waiting_for
        if self._held is not None:
            return "the board is over: look it over, then go on to the next board"
        if wait is None:
            return {ClientPhase.CONNECTING: "waiting to be seated",
                    ClientPhase.AWAIT_TEAMS: "seated; waiting for the teams",
                    ClientPhase.AWAIT_START: "waiting for the first board"}.get(mc.phase, "waiting for the table")
        kind, seat = wait
        name = "dummy" if seat is None else seat.name.title()
        return {"call": f"waiting for {name}'s call", "card": f"waiting for {name}'s card",
                "my_call": "your call", "my_card": "your card" if seat == mc.seat else f"your card from {name}",
                "lead": f"waiting for the table to ask {name} to lead", "dummy": "waiting for dummy's cards"}[kind]

    def _set(self, status: str, detail: str) -> None:
        self.status, self.detail = status, detail
        self.on_change()

    # -- the person's decisions ------------------------------------------------------------------------------------
    async def call(self, text: str) -> None:
        """Send the person's call (``1H``, ``P``, ``X``, ``XX``); ``SeatRefusal`` if it is not legal now."""
        async with self._lock:
            mc = self.machine
            if mc.waiting_for is None or mc.waiting_for[0] != "my_call":
                raise SeatRefusal(f"it is not your turn to call ({self._describe()})")
            try:
                call = Call.parse(text)
            except BridgeError:
                raise SeatRefusal(f"{text!r} is not a call") from None
            try:
                mc.auction.check(call)
            except IllegalCallError as exc:
                raise SeatRefusal(f"you may not call {call}: {exc}") from None
            mc.send_call(call)
            self._calls.append(CallSeen(mc.seat, call))
            self._handle(mc.take_events())
            await self._flush()
        self.on_change()

    async def card(self, text: str) -> None:
        """Play the person's card (from dummy when the person is declarer and dummy is to play); ``SeatRefusal``
        if it is not the person's turn or the card is not legal."""
        async with self._lock:
            mc = self.machine
            if mc.waiting_for is None or mc.waiting_for[0] != "my_card":
                raise SeatRefusal(f"it is not your turn to play ({self._describe()})")
            try:
                card = Card.parse(text)
            except BridgeError:
                raise SeatRefusal(f"{text!r} is not a card") from None
            if card not in mc.legal_cards():
                raise SeatRefusal(self._why_not(card))
            mc.send_card(card)
            self._handle(mc.take_events())
            await self._flush()
        self.on_change()

    def _why_not(self, card: Card) -> str:
        mc = self.machine
        seat = mc.waiting_for[1]
        view = mc.seat_view()
        hand = view.remaining(seat)
        whose = "your hand" if seat == mc.seat else "dummy's hand"
        if hand is None or card not in hand:
            return f"{card} is not in {whose}"
        trick = view.play.current_trick
        if trick:
            led = trick[0].suit
            return f"you must follow suit: {led.name.lower()} were led and {whose} holds one"
        return f"you may not play {card} now: {view.card_problem(card) or 'not a legal card'}"

    async def next_board(self) -> None:
        """Go on after a finished board: the lines held since are handled now."""
        held, self._held = self._held, None
        self._last = None
        if held is None:
            return
        self.status, self.detail = "waiting", self._describe()
        try:
            for line in held:
                if await self._line(line):
                    return
            if self._eof:
                self._set("ended", "the table manager closed the connection")
        finally:
            self._released.set()
            self._released = asyncio.Event()
        self.on_change()

    @property
    def holding(self) -> bool:
        return self._held is not None

    async def _flush(self) -> None:
        lines = self.machine.lines_to_send()
        w = self._writer
        if not lines or w is None or w.is_closing():
            return
        for line in lines:
            _log.info("human_seat.line", dir="out", line=line.rstrip())
        try:
            w.write("".join(lines).encode("latin-1", "replace"))
            await w.drain()
        except (ConnectionError, OSError) as exc:
            _log.warning("human_seat.write_error", error=str(exc))

    # -- what the page shows ----------------------------------------------------------------------------------
    def snapshot(self) -> SeatSnapshot:
        mc = self.machine
        turn, legal_calls, legal_cards = None, (), ()
        wait = mc.waiting_for
        if self._held is None and wait is not None and wait[0] == "my_call":
            turn, legal_calls = ("call", wait[1]), tuple(mc.auction.legal_calls())
        elif self._held is None and wait is not None and wait[0] == "my_card":
            turn, legal_cards = ("card", wait[1]), tuple(mc.legal_cards())
        players: tuple[Seat, ...] = ()
        cards = tuple(mc.cards)
        if cards:
            players = tuple(mc.seat_view().play.players)
        tricks = tuple(mc.tricks)
        return SeatSnapshot(
            seat=mc.seat, status=self.status, detail=self.detail, teams=mc.teams or ("", ""), board=mc.board,
            dealer=mc.dealer, vul=mc.vul, hand=mc.hand, calls=tuple(self._calls), auction=mc.auction,
            contract=mc.contract, dummy_hand=mc.dummy_hand, cards=cards, players=players, tricks=tricks, turn=turn,
            legal_calls=legal_calls, legal_cards=legal_cards, last=self._last, error=self._error)
