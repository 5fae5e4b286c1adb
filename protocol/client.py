"""The robot's side of the Blue Chip protocol, sans I/O: ``ClientMachine``.

The machine is the one owner of protocol state for one seat, its receive buffer included. The I/O layer
(``robot.agent``) only does::

    machine.connect()
    send(machine.bytes_to_send())
    while data := socket.read():
        events = machine.receive_data(data)       # LineReceived, then that line's events (or LineRejected), ...
        while events:
            event = events.pop(0)
            if isinstance(event, CallRequested): machine.send_call(engine_call(event))
            if isinstance(event, CardRequested): machine.send_card(engine_card(event))
            events += machine.take_events()   # what our own call or card caused (AuctionComplete, BoardComplete ...)
        send(machine.bytes_to_send())
    machine.receive_data(b"")                     # the connection closed: a partial line is dropped

``receive_line(line)`` is the same for one line already framed (in-memory tables, tests); it raises what
``receive_data`` reports as ``LineRejected``.

Events are delivered once each, in order, and none can be lost: ``send_call``/``send_card`` return nothing and
queue the events they cause (``AuctionComplete`` after our final pass, ``TrickComplete``/``BoardComplete`` after
our card); ``take_events()`` hands them over, and ``receive_line`` returns whatever is still queued before the
events of the new line.

Every ``ready for ...`` line is produced by the machine at the right moment (research note 1.3-1.7), including the
seat-dependent ones: dummy announces ``ready for dummy's card`` and never plays or asks for dummy; declarer plays
dummy's cards under dummy's seat name, waits for ``Dummy to lead`` when dummy is on lead, and gets no echo of
dummy's cards; every player but dummy asks for dummy after the opening lead; the leader waits for ``to lead``.

Input from the table manager that is impossible (a card not in that hand or already played, a revoke we can see,
an illegal call, a message out of order) raises ``ProtocolError`` and leaves the machine unchanged, so the agent can
log it and carry on; the only exception is the connection handshake, where any reply other than ``seated`` is a
refusal and moves the machine to ``ClientPhase.ERROR``.
"""

from __future__ import annotations

import functools
from enum import Enum
from typing import Any, Optional, Union

from squeeze.engine.auction import PASS, Auction, Call, Contract, IllegalCallError
from squeeze.engine.cards import Card, Deal, Hand, Seat, Vul
from squeeze.engine.view import SeatView

from . import messages as m
from .events import (
    AuctionComplete, BoardComplete, BoardStarted, CallReceived, CallRequested, CardReceived, CardRequested,
    ClientEvent, DealAnnounced, DummyRevealed, HandReceived, LineReceived, LineRejected, SeatAssigned, SessionEnded, TableError,
    TeamsAnnounced, TimingReceived, TrickComplete,
)
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError, excerpt
from .framing import LineBuffer

# The seat's events are defined in ``events`` (one module for both sides) and re-exported here.
__all__ = [
    "EXPLANATION_MODES",
    "ClientPhase",
    "ClientMachine",
    "ClientEvent",
    "SeatAssigned",
    "TeamsAnnounced",
    "BoardStarted",
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
    "SessionEnded",
    "TableError",
    "LineReceived",
    "LineRejected",
]

#: What ``ClientMachine(explanations=...)`` accepts (see its doc).
EXPLANATION_MODES = ("auto", "on", "off")

#: Cards in a deal; the play ends after the 52nd (no claims in protocol 18: every card is played, edge case 23).
CARDS_PER_BOARD = 52


class ClientPhase(str, Enum):
    IDLE = "idle"  #: created, ``connect()`` not called yet
    CONNECTING = "connecting"  #: ``Connecting`` sent, waiting for ``seated``
    AWAIT_TEAMS = "await_teams"  #: ``ready for teams`` sent
    AWAIT_START = "await_start"  #: ``ready to start`` sent (or a board finished): waiting for ``Start of board``
    AWAIT_DEAL_INFO = "await_deal_info"  #: ``ready for deal`` sent
    AWAIT_CARDS = "await_cards"  #: ``ready for cards`` sent
    AUCTION = "auction"
    PLAY = "play"
    BOARD_DONE = "board_done"  #: last card or fourth pass seen: Timing, ``Start of board`` or ``End of session`` next
    SESSION_ENDED = "session_ended"
    ERROR = "error"  #: the table manager refused us; nothing more can happen on this connection


#: Lines that inform but do not answer what we sent (they leave ``unanswered_lines()`` as it was).
_INFORMATIONAL = (m.Timing, m.IllegalCall, m.IllegalCard, m.ErrorMessage)

_BOARD_PHASES = (
    ClientPhase.AWAIT_START, ClientPhase.AWAIT_DEAL_INFO, ClientPhase.AWAIT_CARDS, ClientPhase.AUCTION,
    ClientPhase.PLAY, ClientPhase.BOARD_DONE,
)
_MID_BOARD = (ClientPhase.AWAIT_CARDS, ClientPhase.AUCTION, ClientPhase.PLAY)




@functools.lru_cache(maxsize=None)
def _ready_line(kind: str, seat: Seat, other: Optional[Seat], trick: int) -> m.Message:
    """The ``ready for ...`` messages a client sends, built once (there are only a few hundred distinct ones)."""
    if kind == "call":
        return m.ReadyForCall(seat=seat, caller=other)
    return m.ReadyForCard(seat=seat, player=other, trick=trick)


class ClientMachine:
    """One robot seat's protocol state machine.

    Args:
        team: our team name (sent in ``Connecting``; the same for both partners).
        seat: the seat we ask for, or ``None`` to connect as ``ANYPL`` and take the seat the TM gives us.
        version: protocol version to announce (18; 19 is accepted by some TMs).
        info: free text after the version (off by default: Bridge Moniteur rejects it).
        dummy_card_style: ``"dummy"`` (``ready for dummy's card``, the form every TM accepts - research note
            section 7) or ``"seat"`` (``ready for North's card``) for defenders waiting for dummy's card.
        passout_ready_for_deal: after a passed-out board, send ``ready for deal`` at once (the spec's flow) instead
            of waiting for ``Start of board`` (what table managers actually do).
        send_alerts: mark our alerted calls ``Alert.``; ``False`` sends them unalerted (for TMs that mangle alerts).
        explanations: the text explaining our calls. ``"auto"``: canonical protocol 18 (`` Alert. text`` after an
            alerted bid, nothing after a pass, double or redouble, no ``Infos.``) until the manager shows it speaks
            protocol 19 (``Playing IMP|MP`` on its Teams line, or a room on its Board line), then every
            explanation; ``"on"``: every explanation whatever the manager (``Infos.`` for an unalerted call);
            ``"off"``: none (a bare `` Alert.`` marks an alerted bid). A protocol-18 manager that matches calls
            exactly drops the table on ``West passes Infos. ...`` (research note 1.6, 1.12).
        format_options: dialect choices for the lines we send.
    """

    def __init__(
        self,
        team: str,
        seat: Optional[Seat] = None,
        *,
        version: int = m.PROTOCOL_VERSION,
        info: str = "",
        dummy_card_style: str = "dummy",
        passout_ready_for_deal: bool = False,
        send_alerts: bool = True,
        explanations: str = "auto",
        format_options: m.FormatOptions = m.DEFAULT_FORMAT,
    ) -> None:
        if dummy_card_style not in ("dummy", "seat"):
            raise ValueError(f"dummy_card_style must be 'dummy' or 'seat', not {dummy_card_style!r}")
        if explanations not in EXPLANATION_MODES:
            raise ValueError(f"explanations must be one of {', '.join(EXPLANATION_MODES)}, not {explanations!r}")
        # Validate team/version/info now (a bad team name is the caller's error, reported as ValueError).
        self._connect_msg = m.Connect(team=team, seat=seat, version=version, info=info)
        self.team: str = self._connect_msg.team
        self.seat: Optional[Seat] = None if seat is None else Seat(seat)
        self._requested_seat = self.seat
        self.dummy_card_style = dummy_card_style
        self.passout_ready_for_deal = passout_ready_for_deal
        self.send_alerts = send_alerts
        self.explanations = explanations
        #: The protocol version the manager has shown it speaks: 18 until a line of protocol 19 arrives.
        self.peer_version = m.PROTOCOL_VERSION
        self.format_options = format_options
        self.phase = ClientPhase.IDLE
        self.teams: Optional[tuple[str, str]] = None
        self._out: list[str] = []
        self._events: list[ClientEvent] = []  # caused by our own call or card, not yet taken (see take_events)
        self._unanswered: list[str] = []
        self._last_msg: Optional[m.Message] = None  # last line accepted (to recognise a re-sent line)
        self._buffer = LineBuffer()  # bytes of the current connection not yet a complete line
        self._reset_board()

    # --- public state -----------------------------------------------------------------------------------------
    def _reset_board(self) -> None:
        self.board: Optional[int] = None
        self.dealer: Optional[Seat] = None
        self.vul: Optional[Vul] = None
        self.hand: Optional[Hand] = None  #: our 13 cards as dealt
        self.auction: Optional[Auction] = None
        self._alerted: frozenset[int] = frozenset()  # indices of the board's calls that came alerted
        self._explained: dict[int, str] = {}  # other seats' calls that came with an explanation, by index
        self.contract: Optional[Contract] = None
        self.declarer: Optional[Seat] = None
        self.dummy: Optional[Seat] = None
        self.dummy_hand: Optional[Hand] = None  #: dummy's 13 cards as shown
        # Our knowledge of the play (tricks, leaders, show-outs, the hands we see): engine.view.SeatView, the one
        # record of it that the engine decides from too. Set when the auction ends in a contract.
        self._view: Optional[SeatView] = None
        self._expect: Optional[tuple[str, Optional[Seat]]] = None
        self._deal_ready_sent = False  # "ready for deal" already sent for the coming board (spec pass-out flow)

    @property
    def role(self) -> Optional[str]:
        """``"declarer"``, ``"dummy"``, ``"defender"`` once the auction has a contract, else ``None``."""
        if self.declarer is None or self.seat is None:
            return None
        if self.seat == self.declarer:
            return "declarer"
        if self.seat == self.dummy:
            return "dummy"
        return "defender"

    @property
    def waiting_for(self) -> Optional[tuple[str, Optional[Seat]]]:
        """During auction and play: ``("call"|"card", seat)`` (a line from the TM), ``("my_call"|"my_card", seat)``
        (our decision), ``("lead", seat)`` (the TM's ``to lead``) or ``("dummy", None)`` (dummy's cards)."""
        return self._expect

    @property
    def next_seat(self) -> Optional[Seat]:
        """Who plays the next card (during play)."""
        return None if self._view is None else self._view.mover

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card played so far, in order."""
        return () if self._view is None else self._view.cards

    @property
    def tricks(self) -> tuple[tuple[Seat, tuple[Card, ...], Seat], ...]:
        """Completed tricks as ``(leader, cards, winner)``."""
        return () if self._view is None else self._view.play.tricks  # type: ignore[union-attr]

    @property
    def declarer_tricks(self) -> int:
        return 0 if self._view is None else self._view.play.declarer_tricks  # type: ignore[union-attr]

    def seat_view(self) -> SeatView:
        """What our seat knows of the board now, for ``engine.Player`` (after our cards have come).

        Raises:
            LocalProtocolError: no board is under way (our cards have not come yet).
        """
        if self._view is not None:
            return self._view
        if self.hand is None or self.auction is None:
            raise LocalProtocolError(f"no board under way ({self.phase.value})")
        return SeatView(self.seat, self.hand, self.auction, self.vul or Vul.NONE, board=self.board or 0,
                        alerted=self._alerted, explanations=self._explained)

    # --- output ----------------------------------------------------------------------------------------------
    def lines_to_send(self) -> list[str]:
        """The CRLF-terminated lines to send now, in order (each returned once)."""
        out, self._out = self._out, []
        return out

    def bytes_to_send(self) -> bytes:
        """``lines_to_send()`` joined and encoded (latin-1, so explanations with accents survive)."""
        return "".join(self.lines_to_send()).encode("latin-1", "replace")

    def unanswered_lines(self) -> list[str]:
        """Lines sent since the last line received: what to send again on a fresh socket to continue where the
        old one broke (JobScheffers' hosts attach a seat-prefixed line on a new socket to that seat)."""
        return list(self._unanswered)

    def _send(self, msg: m.Message) -> None:
        line = msg._text(self.format_options) + "\r\n"
        self._out.append(line)
        self._unanswered.append(line)

    # --- connection ------------------------------------------------------------------------------------------
    def connect(self) -> None:
        """Queue the ``Connecting`` line. Also used to reconnect: board state is kept until the TM restarts the
        board (``Start of board``), which is what our table manager does after a seat rejoins."""
        self._unanswered = []
        self._last_msg = None
        self._buffer = LineBuffer()
        seat = self.seat if self.phase != ClientPhase.IDLE else self._requested_seat
        msg = self._connect_msg if seat == self._connect_msg.seat else self._connect_msg.model_copy(update={"seat": seat})
        self._send(msg)
        self.phase = ClientPhase.CONNECTING

    # --- input -----------------------------------------------------------------------------------------------
    def take_events(self) -> list[ClientEvent]:
        """The events our own ``send_call``/``send_card`` caused and nobody has taken yet (each is given once)."""
        out, self._events = self._events, []
        return out

    def receive_data(self, data: bytes) -> list[ClientEvent]:
        """Bytes from the table manager, as they came off the socket; ``b""`` says the connection closed.

        Every line the bytes complete (CR LF, LF or a lone CR; ``framing.LineBuffer``) is handled in order, as by
        ``receive_line``: the result holds, for each, ``LineReceived(line)`` then the events the line causes - or a
        ``LineRejected(line, error)`` when the machine refuses it (it is then unchanged, and the next line is
        handled all the same). Events not yet taken come first (see ``take_events``). Bytes that pass
        ``framing.MAX_BUFFER`` without a line end are a ``LineRejected`` with no line. Once the session has ended or
        the manager has refused us (a fatal ``LineRejected``), the rest is not read: nothing more can happen on
        this connection. A partial line waits for the next bytes; ``b""`` drops it, and so does ``connect()`` (a
        new connection starts with an empty buffer). Never raises ``ProtocolError``.
        """
        events = self.take_events()
        if not data:
            self._buffer = LineBuffer()
            return events
        try:
            lines = self._buffer.feed(data)
        except ProtocolError as exc:
            return events + [LineRejected(line=None, error=exc)]
        for line in lines:
            if self.phase in (ClientPhase.SESSION_ENDED, ClientPhase.ERROR):
                break
            events.append(LineReceived(line=line))
            try:
                events += self._receive_line(line)
            except ProtocolError as exc:
                events.append(LineRejected(line=line, error=exc))
        return events

    def receive_line(self, line: Union[str, bytes]) -> list[ClientEvent]:
        """Process one line from the table manager and return the events not yet taken (see ``take_events``)
        followed by those the line causes.

        Empty lines are ignored (edge case 3). Lines to send in answer are queued for ``lines_to_send()``.

        Raises:
            ProtocolError: the line is not a protocol message, or not one that can come now, or it contradicts
                what we know (a card not in that hand, an illegal call ...). The machine is unchanged - except in
                ``CONNECTING``, where any answer but ``seated`` (for our seat) is a refusal: the phase becomes
                ``ERROR`` and the error has ``fatal=True``.
        """
        events = self._receive_line(line)  # raises before anything queued is handed over
        return self.take_events() + events

    def _receive_line(self, line: Union[str, bytes]) -> list[ClientEvent]:
        if isinstance(line, (bytes, bytearray)):
            if not bytes(line).strip():
                return []
        elif isinstance(line, str) and not line.strip():
            return []
        if self.phase == ClientPhase.CONNECTING:
            try:
                msg = m.parse(line)
            except ProtocolError as exc:
                self.phase = ClientPhase.ERROR
                raise RemoteProtocolError(f"table manager refused the connection: {exc}", line=line, fatal=True) from None
            if not isinstance(msg, m.Seated) or (self._requested_seat is not None and msg.seat != self._requested_seat):
                self.phase = ClientPhase.ERROR
                raise RemoteProtocolError(
                    f"table manager refused the connection: {excerpt(line)}", line=line, fatal=True
                )
            self.seat = msg.seat
            self._unanswered = []
            self._last_msg = msg
            self._send(m.ReadyForTeams(seat=msg.seat))
            self.phase = ClientPhase.AWAIT_TEAMS
            return [SeatAssigned(seat=msg.seat, team=msg.team)]
        msg = m.parse(line)
        handler = self._HANDLERS.get(type(msg))
        unanswered = self._unanswered
        self._unanswered = []
        try:
            if handler is None or self.phase in (ClientPhase.IDLE, ClientPhase.SESSION_ENDED, ClientPhase.ERROR):
                raise self._unexpected(line)
            events = handler(self, msg, line)
        except ProtocolError:
            self._unanswered = unanswered
            if self._last_msg is not None and msg == self._last_msg:
                # The same line again, and it makes no sense now: a table manager re-sending what we already
                # handled (after a reconnect). Harmless: ignore it.
                return []
            raise
        self._last_msg = msg
        if type(msg) in _INFORMATIONAL:
            self._unanswered = unanswered  # not an answer to what we sent
        return events

    def _unexpected(self, line: Any, why: str = "") -> RemoteProtocolError:
        what = f" ({why})" if why else ""
        return RemoteProtocolError(
            f"unexpected line in phase {self.phase.value}{what}: {excerpt(line)}", line=line
        )

    # handlers: each validates fully before changing anything

    def _on_seated(self, msg: m.Seated, line: Any) -> list[ClientEvent]:
        raise self._unexpected(line, "already seated")

    def _on_teams(self, msg: m.Teams, line: Any) -> list[ClientEvent]:
        event = TeamsAnnounced(ns=msg.ns, ew=msg.ew, scoring=msg.scoring)
        if msg.scoring is not None:
            self.peer_version = max(self.peer_version, m.PROTOCOL_19)
        if self.phase == ClientPhase.AWAIT_TEAMS:
            self.teams = (msg.ns, msg.ew)
            self._send(m.ReadyToStart(seat=self.seat))
            self.phase = ClientPhase.AWAIT_START
            return [event]
        # Bridge Moniteur repeats the Teams line after a tournament restart: note it, change nothing.
        return [event]

    def _on_start(self, msg: m.StartOfBoard, line: Any) -> list[ClientEvent]:
        if self.phase not in _BOARD_PHASES:
            raise self._unexpected(line)
        restarted = self.phase in _MID_BOARD
        already = self._deal_ready_sent and self.phase == ClientPhase.AWAIT_DEAL_INFO
        self._reset_board()
        if not already:
            self._send(m.ReadyForDeal(seat=self.seat))
        self.phase = ClientPhase.AWAIT_DEAL_INFO
        return [BoardStarted(restarted=restarted)]

    def _on_board(self, msg: m.BoardInfo, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.AWAIT_DEAL_INFO:
            raise self._unexpected(line)
        self.board, self.dealer, self.vul = msg.board, msg.dealer, msg.vul
        if msg.room is not None:
            self.peer_version = max(self.peer_version, m.PROTOCOL_19)
        self._deal_ready_sent = False
        self._send(m.ReadyForCards(seat=self.seat))
        self.phase = ClientPhase.AWAIT_CARDS
        return [DealAnnounced(board=msg.board, dealer=msg.dealer, vul=msg.vul)]

    def _on_cards(self, msg: m.Cards, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.AWAIT_CARDS:
            raise self._unexpected(line)
        if msg.seat != self.seat:
            raise self._unexpected(line, f"these are {msg.seat.title}'s cards, we are {self.seat.title}")
        self.hand = msg.hand
        self.auction = Auction(self.dealer)
        self._alerted = frozenset()
        self._explained = {}
        self.phase = ClientPhase.AUCTION
        events: list[ClientEvent] = [HandReceived(seat=msg.seat, hand=msg.hand)]
        self._next_in_auction(events)
        return events

    def _on_call(self, msg: m.CallMade, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.AUCTION or self._expect != ("call", msg.seat):
            raise self._unexpected(line, self._describe_wait())
        try:
            auction = self.auction.then(msg.call)
        except IllegalCallError as exc:
            raise RemoteProtocolError(f"illegal call from {msg.seat.title}: {exc}: {excerpt(line)}", line=line) from None
        self.auction = auction
        if msg.alert:
            self._alerted = self._alerted | {len(auction.calls) - 1}
        if msg.explanation:
            self._explained[len(auction.calls) - 1] = msg.explanation
        events: list[ClientEvent] = [
            CallReceived(seat=msg.seat, call=msg.call, alert=msg.alert, explanation=msg.explanation)
        ]
        self._next_in_auction(events)
        return events

    def _on_to_lead(self, msg: m.ToLead, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.PLAY or self._expect is None or self._expect[0] != "lead":
            raise self._unexpected(line, self._describe_wait())
        leader = self._expect[1]
        ok = msg.seat == leader or (leader == self.dummy and msg.seat in (None, self.seat))
        if not ok:
            raise self._unexpected(line, f"{leader.title} is on lead")
        events: list[ClientEvent] = []
        self._request_card(leader, events)
        return events

    def _on_card(self, msg: m.CardPlayed, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.PLAY or self._expect is None or self._expect[0] != "card":
            raise self._unexpected(line, self._describe_wait())
        player = self._expect[1]
        seat = self.dummy if msg.seat is None else msg.seat
        if seat != player:
            raise self._unexpected(line, self._describe_wait())
        problem = self._check_card(player, msg.card)
        if problem:
            raise RemoteProtocolError(f"impossible card: {problem}: {excerpt(line)}", line=line)
        events: list[ClientEvent] = [CardReceived(seat=player, card=msg.card, trick=len(self.cards) // 4 + 1)]
        self._apply_card(player, msg.card, events)
        self._next_in_play(events)
        return events

    def _on_dummy(self, msg: m.DummyCards, line: Any) -> list[ClientEvent]:
        if self.phase != ClientPhase.PLAY or self._expect != ("dummy", None):
            raise self._unexpected(line, self._describe_wait())
        clash = msg.hand.bits & (self.hand.bits | self._view.play.played)
        if clash:
            card = Card.from_index(clash.bit_length() - 1)
            raise RemoteProtocolError(f"impossible dummy: {card} is ours or already played: {excerpt(line)}", line=line)
        self._set_dummy(msg.hand)
        events: list[ClientEvent] = [DummyRevealed(seat=self.dummy, hand=msg.hand)]
        self._next_in_play(events)
        return events

    def _on_timing(self, msg: m.Timing, line: Any) -> list[ClientEvent]:
        if self.phase == ClientPhase.AWAIT_TEAMS:
            raise self._unexpected(line)
        return [TimingReceived(timing=msg)]

    def _on_end(self, msg: m.EndOfSession, line: Any) -> list[ClientEvent]:
        self.phase = ClientPhase.SESSION_ENDED
        self._expect = None
        return [SessionEnded()]

    def _on_table_error(self, msg: Any, line: Any) -> list[ClientEvent]:
        return [TableError(message=msg)]

    def _on_client_message(self, msg: Any, line: Any) -> list[ClientEvent]:
        raise self._unexpected(line, "that is a robot's message, not a table manager's")

    _HANDLERS = {
        m.Seated: _on_seated,
        m.Teams: _on_teams,
        m.StartOfBoard: _on_start,
        m.BoardInfo: _on_board,
        m.Cards: _on_cards,
        m.CallMade: _on_call,
        m.ToLead: _on_to_lead,
        m.CardPlayed: _on_card,
        m.DummyCards: _on_dummy,
        m.Timing: _on_timing,
        m.EndOfSession: _on_end,
        m.IllegalCall: _on_table_error,
        m.IllegalCard: _on_table_error,
        m.ErrorMessage: _on_table_error,
        m.Connect: _on_client_message,
        m.ReadyForTeams: _on_client_message,
        m.ReadyToStart: _on_client_message,
        m.ReadyForDeal: _on_client_message,
        m.ReadyForCards: _on_client_message,
        m.ReadyForCall: _on_client_message,
        m.ReadyForCard: _on_client_message,
        m.ReadyForDummy: _on_client_message,
        m.ReceivedDummy: _on_client_message,
    }

    def _describe_wait(self) -> str:
        if self._expect is None:
            return ""
        kind, seat = self._expect
        who = "dummy" if seat is None else seat.title
        return {
            "call": f"waiting for {who}'s call",
            "card": f"waiting for {who}'s card",
            "my_call": "waiting for our own call",
            "my_card": f"waiting for our own card from {who}'s hand",
            "lead": f"waiting for 'to lead' for {who}",
            "dummy": "waiting for dummy's cards",
        }[kind]

    # --- our decisions ---------------------------------------------------------------------------------------
    def send_call(
        self, call: Union[Call, str], *, alert: bool = False, explanation: str = "", fallback: bool = False
    ) -> None:
        """Make our call (after a ``CallRequested`` event). The events it causes (``AuctionComplete`` ...) are
        queued for ``take_events()``.

        With ``fallback=True`` an illegal call is replaced by a pass (always legal on our turn; edge case 16) -
        check ``auction.calls[-1]`` for what was sent.

        Raises:
            LocalProtocolError: not our turn to call, or ``call`` is illegal (and ``fallback`` is off). Nothing
                is queued or changed.
        """
        if self.phase != ClientPhase.AUCTION or self._expect is None or self._expect[0] != "my_call":
            raise LocalProtocolError(f"it is not our turn to call ({self._describe_wait() or self.phase.value})")
        c = Call.parse(call) if isinstance(call, str) else call
        try:
            auction = self.auction.then(c)
        except IllegalCallError as exc:
            if not fallback:
                raise LocalProtocolError(f"we may not call {c}: {exc}") from None
            c, alert, explanation = PASS, False, ""
            auction = self.auction.then(c)
        if not self.send_alerts:
            alert = False
        if self.explanations == "off":
            explanation = ""
        made = m.CallMade(seat=self.seat, call=c, alert=alert, explanation=explanation)
        if self.explanations == "auto":
            made = made.for_version(self.peer_version)
        self._send(made)
        self.auction = auction
        self._next_in_auction(self._events)

    def send_card(self, card: Union[Card, str], *, info: str = "", fallback: bool = False) -> None:
        """Play ``card`` from the hand named by the last ``CardRequested`` (ours, or dummy's when declarer). The
        events it causes (``TrickComplete``, ``BoardComplete`` ...) are queued for ``take_events()``.

        With ``fallback=True`` an illegal card is replaced by the first legal one.

        Raises:
            LocalProtocolError: no card is due from us, or ``card`` is not a legal card from that hand (and
                ``fallback`` is off). Nothing is queued or changed.
        """
        if self.phase != ClientPhase.PLAY or self._expect is None or self._expect[0] != "my_card":
            raise LocalProtocolError(f"no card is due from us ({self._describe_wait() or self.phase.value})")
        seat = self._expect[1]
        c = Card.parse(card) if isinstance(card, str) else card
        problem = self._check_card(seat, c)
        if problem:
            if not fallback:
                raise LocalProtocolError(f"we may not play {c}: {problem}")
            c, info = self.legal_cards()[0], ""
        self._send(m.CardPlayed(seat=seat, card=c, info=info))
        self._apply_card(seat, c, self._events)
        self._next_in_play(self._events)

    def legal_cards(self) -> list[Card]:
        """Legal cards for the hand we must play from now (empty if no card is due from us)."""
        if self._expect is None or self._expect[0] != "my_card":
            return []
        return self._legal_from(self._expect[1])

    def _legal_from(self, seat: Seat) -> list[Card]:
        return self._view.legal_cards() if self._view is not None and self._view.mover == seat else []

    # --- flow ------------------------------------------------------------------------------------------------
    def _next_in_auction(self, events: list[ClientEvent]) -> None:
        a = self.auction
        if a.is_complete:
            contract = a.contract
            if contract is None:
                events.append(AuctionComplete(auction=a, contract=None, declarer=None, dummy=None))
                self._finish_board(events)
                return
            self.contract, self.declarer, self.dummy = contract, contract.declarer, contract.declarer.partner
            self._view = SeatView(self.seat, self.hand, a, self.vul or Vul.NONE, board=self.board or 0,
                                  alerted=self._alerted, explanations=self._explained)
            self.phase = ClientPhase.PLAY
            events.append(AuctionComplete(auction=a, contract=contract, declarer=self.declarer, dummy=self.dummy))
            self._next_in_play(events)
            return
        nxt = a.next_seat
        if nxt == self.seat:
            self._expect = ("my_call", nxt)
            events.append(CallRequested(seat=nxt, auction=a))
        else:
            self._send(_ready_line("call", self.seat, nxt, 0))
            self._expect = ("call", nxt)

    def _next_in_play(self, events: list[ClientEvent]) -> None:
        k = len(self.cards)
        if k >= CARDS_PER_BOARD:
            self._finish_board(events)
            return
        me, dummy = self.seat, self.dummy
        player = self._view.mover
        trick = k // 4 + 1
        if me == dummy:
            # Dummy never plays and never asks for dummy; it announces every card, its own as "dummy's card".
            self._send(_ready_line("card", me, None if player == dummy else player, trick))
            self._expect = ("card", player)
            return
        if k == 1 and self.dummy_hand is None:
            self._send(m.ReadyForDummy(seat=me))
            self._expect = ("dummy", None)
            return
        ours = player == me or (player == dummy and me == self.declarer)
        if ours:
            if k % 4 == 0:
                self._expect = ("lead", player)  # never lead before the TM says "to lead" (edge case 17)
            else:
                self._request_card(player, events)
            return
        named = None if (player == dummy and self.dummy_card_style == "dummy") else player
        self._send(_ready_line("card", me, named, trick))
        self._expect = ("card", player)

    def _request_card(self, seat: Seat, events: list[ClientEvent]) -> None:
        self._expect = ("my_card", seat)
        events.append(
            CardRequested(
                seat=seat, from_dummy=seat != self.seat, legal=tuple(self._legal_from(seat)),
                trick=len(self.cards) // 4 + 1,
            )
        )

    def _check_card(self, seat: Seat, card: Card) -> str:
        """Why ``seat`` (the next to play) cannot play ``card`` now, as far as we can know ('' if it can)."""
        return self._view.card_problem(card)

    def _apply_card(self, seat: Seat, card: Card, events: list[ClientEvent]) -> None:
        before = len(self._view.play.tricks)
        self._view = self._view.then(card)
        play = self._view.play
        if len(play.tricks) > before:
            leader, cards, winner = play.tricks[-1]
            events.append(TrickComplete(trick=len(play.tricks), leader=leader, cards=cards, winner=winner))

    def _finish_board(self, events: list[ClientEvent]) -> None:
        self._expect = None
        deal = None
        if len(self.cards) == CARDS_PER_BOARD:
            deal = Deal([Hand(self._view.play.played_by(s)) for s in Seat])
        events.append(
            BoardComplete(
                board=self.board, auction=self.auction, cards=tuple(self.cards), contract=self.contract,
                declarer_tricks=self.declarer_tricks if self.contract is not None else None, deal=deal,
            )
        )
        if self.contract is None and self.passout_ready_for_deal:
            self._send(m.ReadyForDeal(seat=self.seat))
            self._reset_board()
            self._deal_ready_sent = True
            self.phase = ClientPhase.AWAIT_DEAL_INFO
            return
        self.phase = ClientPhase.BOARD_DONE

    def _set_dummy(self, hand: Hand) -> None:
        self.dummy_hand = hand
        if self.seat != self.dummy:  # dummy's own hand is already ours
            self._view = self._view.with_dummy(hand)
