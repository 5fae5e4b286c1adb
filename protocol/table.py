"""The table manager's side of the Blue Chip protocol for one table, sans I/O: ``TableMachine``.

The asyncio server (``robot.tm``) only moves bytes::

    try:
        out = table.receive(conn_id, line, now=monotonic())  # -> [Outbound(seat, line), ...]
    except ProtocolError as exc:                  # bad line from that connection; the table is unchanged
        out = []
        if exc.reply: send(conn_id, exc.reply)
        if exc.fatal: close(conn_id)
    for o in out: send(writer_of[o.seat], o.line)
    for event in table.events(): ...              # PlayerSeated (learn conn -> seat), CallRelayed, CardRelayed,
                                                  # BoardFinished(record) ...

Lock-step gating (research note 1.0): every relay waits until *all* the seats that must be ready for it have said
so. Lines from the four seats arrive in any order (edge case 12): the call or card of the seat whose turn it is may
come before the others are ready - it is checked at once (an illegal one gets ``Illegal bid``/``Illegal card``) and
held until the gate opens; the same seat's next ``ready`` line, and dummy's ``ready for dummy's card`` while the
others wait for dummy's cards, are accepted one gate ahead. A repeated ``ready`` (sent again after a reconnect) is
accepted and does nothing (edge case 22). Nothing is ever lost while relaying (the barrier race of section 7): the
machine has no concurrency, the server feeds it one line at a time.

Results leave as ``engine.record.BoardRecord`` (deal, auction, play, contract, declarer's tricks, team names, a
``CallNote`` per call - alert, explanation, seconds - a ``CardNote`` per card - the player's text, seconds - and each
side's seconds on the board). ``act_for(seat, reason)`` is the server's answer to a seat that owes a line and does
not send it (a clock ran out): the table makes that seat's ready line, or its pass / lowest legal card, itself, and
the reason is written in the call's or card's note.
"""

from __future__ import annotations

from enum import Enum
from typing import Hashable, Iterable, Literal, NamedTuple, Optional, Union

from pydantic import BaseModel, ConfigDict

from squeeze.engine.auction import PASS, Auction, IllegalCallError
from squeeze.engine.board import IllegalCardError, Play
from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord, CallNote, CardNote

from . import messages as m
from .events import (
    BoardFinished, BoardStarted, CallRelayed, CardRelayed, PlayerLeft, PlayerSeated, SessionEnded, TableEvent,
)
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError

# The table's events are defined in ``events`` (one module for both sides) and re-exported here.
__all__ = [
    "TablePhase",
    "TableOptions",
    "TableMachine",
    "Outbound",
    "PlayerSeated",
    "PlayerLeft",
    "BoardStarted",
    "BoardFinished",
    "SessionEnded",
    "CallRelayed",
    "CardRelayed",
    "SUPPORTED_VERSIONS",
]

#: Versions we seat. 18 is the WCBC protocol; JobScheffers' host also seats 19 clients (a superset that degrades
#: to 18 when the TM sends no v19 extras, which we never do). Anything else (ZBridge's 20) speaks a different
#: language and is refused at connect time, as the spec requires.
SUPPORTED_VERSIONS = (18, 19)

ALL_SEATS = frozenset(Seat)

#: Our error replies quote the offending line; a peer's line may be up to ``MAX_LINE_LENGTH`` characters, and some
#: peers read lines into 200-500 byte buffers (research note 1.1, 3), so an error reply is cut to 300 characters.
MAX_ERROR_REPLY_CHARS = 300

#: The Timing line has two digits of minutes per board and three of hours in the total: longer times are capped
#: (they are only reported, never acted on, by the protocol).
MAX_BOARD_SECONDS = 99 * 60 + 59
MAX_TOTAL_SECONDS = 999 * 3600


class TablePhase(str, Enum):
    SEATING = "seating"  #: waiting for four seats to connect and say ``ready for teams``
    READY_TO_START = "ready_to_start"  #: Teams sent, waiting for four ``ready to start``
    BOARD = "board"  #: a board is in progress
    ENDED = "ended"  #: ``End of session`` sent


class Outbound(NamedTuple):
    """One line for the server to send: ``(seat, line)`` with ``line`` CRLF-terminated ``str``; encode it as
    latin-1 (``errors="replace"``), the encoding ``parse`` assumes for bytes."""

    seat: Seat
    line: str

    @property
    def is_lead(self) -> bool:
        """A ``to lead`` line: the spec has the TM pause (1 s) before it, so the last player of a trick cannot
        lead before the trick is over on the TM's side; a server for slow foreign robots sleeps before these."""
        return self.line.endswith(" to lead\r\n")

    @property
    def is_end_of_session(self) -> bool:
        """``End of session``: the server closes this seat's socket after a short pause."""
        return self.line == "End of session\r\n"


class TableOptions(BaseModel):
    """How this table talks (defaults suit our own robots and the foreign ones listed in the research note).

    send_timing: send the Timing line after each board (one foreign client crashes on it: section 7).
    relay_alerts: pass a bidder's ``Alert.`` and explanation to its opponents (never to its partner).
    error_replies: answer a bad line with an ``Error: ...`` line (the spec says to ignore it silently; a clear
        reply is what section 7 asks for). ``Illegal bid``/``Illegal card`` are always sent.
    explain_illegal: append the reason to those (``Illegal bid. 1C is insufficient after 1NT``). Off by default:
        the spec's bare text is what foreign robots may match; our own client reads either.
    scoring: the match type a seat that connected with protocol 19 is told on the Teams line (``. Playing IMP``).
    format: dialect choices for the lines we send (final full stop of the Board line, ...).

    A refused ``Connecting`` line is always answered with its reason before the connection closes. Each seat is
    sent the protocol it announced: a protocol-18 seat never gets a line of protocol 19 (``m.PROTOCOL_19``).
    """

    model_config = ConfigDict(frozen=True)

    send_timing: bool = True
    relay_alerts: bool = True
    error_replies: bool = True
    explain_illegal: bool = False
    scoring: Literal["IMP", "MP"] = "IMP"
    format: m.FormatOptions = m.DEFAULT_FORMAT


class _Gate(NamedTuple):
    """What the table waits for: ``readers`` must all say ``ready``; then ``actor``'s call/card is relayed.

    kind: ``teams``, ``start``, ``deal``, ``cards``, ``bid``, ``card`` or ``dummy``; for ``card``, ``player`` is
    the hand the card comes from (dummy's cards are sent by declarer, the ``actor``).
    """

    kind: str
    actor: Optional[Seat]
    player: Optional[Seat]
    readers: frozenset


_SIMPLE_READY = {
    "teams": m.ReadyForTeams,
    "start": m.ReadyToStart,
    "deal": m.ReadyForDeal,
    "cards": m.ReadyForCards,
    "dummy": m.ReadyForDummy,
}
_READY_WORDS = {
    "teams": "ready for teams", "start": "ready to start", "deal": "ready for deal", "cards": "ready for cards",
    "dummy": "ready for dummy",
}
_READY_TYPES = (
    m.ReadyForTeams, m.ReadyToStart, m.ReadyForDeal, m.ReadyForCards, m.ReadyForCall, m.ReadyForCard, m.ReadyForDummy,
)
_CLIENT_TYPES = _READY_TYPES + (m.CallMade, m.CardPlayed, m.ReceivedDummy)


class _SeatInfo:
    __slots__ = ("team", "version", "conn")

    def __init__(self, team: str, version: int, conn: Optional[Hashable]) -> None:
        self.team = team
        self.version = version
        self.conn = conn


class TableMachine:
    """One table of four seats: seating, teams, then the queued boards one after another.

    Args:
        boards: the boards to play, in order, as ``BoardRecord``s of which only ``board``, ``deal``, ``dealer``,
            ``vul``, ``event``, ``room`` and ``table`` are used (and passed on to the board's result). More can be queued with ``add_boards`` until the last one ends; then the
            table sends ``End of session``.
        ns_team, ew_team: required team names (``None``: the first player seated on that side names it).
        options: ``TableOptions``.

    Time. The machine reads no clock: every input that can start or end a seat's turn (``receive``, ``act_for``)
    carries ``now``, the caller's monotonic seconds, from which the thinking time of each call and card is measured
    (so a recorded session replays to the same record, and tests set the time they want). Without it (``now=0.0``
    throughout), every thinking time is zero.
    """

    def __init__(
        self,
        boards: Iterable[BoardRecord] = (),
        *,
        ns_team: Optional[str] = None,
        ew_team: Optional[str] = None,
        options: TableOptions = TableOptions(),
    ) -> None:
        self.options = options
        self._fmt = options.format
        self._now = 0.0  # the time of the input being handled (see Time)
        self.teams: list[Optional[str]] = [
            None if ns_team is None else m.validate_team_name(ns_team),
            None if ew_team is None else m.validate_team_name(ew_team),
        ]
        if self.teams[0] is not None and self.teams[0] == self.teams[1]:
            raise ValueError(f"the two teams need different names, both are {ns_team!r}")
        self._queue: list[BoardRecord] = []
        self.add_boards(boards)
        self.phase = TablePhase.SEATING
        self._seats: list[Optional[_SeatInfo]] = [None, None, None, None]
        self._conn_seat: dict[Hashable, Seat] = {}
        self._rejoining: set[Seat] = set()
        self._events: list[TableEvent] = []
        self.results: list[BoardRecord] = []  #: boards finished since creation
        self.boards_done = 0  #: boards finished in the session
        self._unanswered: dict[Seat, list[str]] = {s: [] for s in Seat}
        self._last_ready: dict[Seat, m.Message] = {}
        self._total_time = [0.0, 0.0]
        self._reset_board_state()
        self.board: Optional[BoardRecord] = None
        self._gate: Optional[_Gate] = _Gate("teams", None, None, ALL_SEATS)

    def _reset_board_state(self) -> None:
        self.auction: Optional[Auction] = None
        self.play: Optional[Play] = None
        self._ready: set[Seat] = set()
        self._early: dict[Seat, m.Message] = {}
        self._pending: Optional[tuple[Seat, m.Message, object]] = None
        self._lookahead: Optional[tuple[_Gate, frozenset]] = None
        self._lookahead_play: Optional[Play] = None
        self._last_action: dict[Seat, m.Message] = {}  # last call/card relayed per seat (repeat detection)
        self._board_time = [0.0, 0.0]
        self._turn_start: Optional[float] = None
        self._call_notes: list[CallNote] = []  # one per call relayed
        self._card_notes: list[CardNote] = []  # one per card relayed
        self._pending_note: tuple[float, str] = (0.0, "")  # (seconds, forced reason) of the held call/card
        self._forcing: str = ""  # reason of the act_for in progress

    # --- public API ------------------------------------------------------------------------------------------
    def add_boards(self, boards: Iterable[BoardRecord]) -> None:
        """Queue more boards (checked: a complete deal each).

        Raises:
            LocalProtocolError: the session has ended, or a board has no complete deal.
        """
        new = list(boards)
        for b in new:
            if not isinstance(b, BoardRecord) or not b.deal.is_complete:
                raise LocalProtocolError(f"a board to play needs a complete deal: {b!r}")
        if getattr(self, "phase", None) == TablePhase.ENDED:
            raise LocalProtocolError("the session has ended")
        self._queue.extend(new)

    @property
    def boards_left(self) -> int:
        """Boards queued and not yet started."""
        return len(self._queue)

    def events(self) -> list[TableEvent]:
        """Events since the last call (each returned once)."""
        ev, self._events = self._events, []
        return ev

    def seat_of(self, connection: Hashable) -> Optional[Seat]:
        return self._conn_seat.get(connection)

    @property
    def waiting_for(self) -> Optional[tuple[str, list[Seat], Optional[Seat]]]:
        """``(gate kind, seats not yet ready, seat whose call/card is awaited or None)`` - for time limits."""
        g = self._gate
        if g is None:
            return None
        missing = sorted(g.readers - self._ready)
        acting = g.actor if g.kind in ("bid", "card") and self._pending is None else None
        return g.kind, missing, acting

    def think_time(self, side_ns: bool) -> tuple[float, float]:
        """Seconds used by a side on this board and in the session so far (also the basis of the Timing line)."""
        i = 0 if side_ns else 1
        return self._board_time[i], self._total_time[i] + self._board_time[i]

    def disconnect(self, connection: Hashable) -> None:
        """The server lost ``connection``. Its seat stays reserved for the same team: a fresh ``Connecting`` for it
        (the board then restarts once it is ready to start again) or, JobScheffers-style, a seat-prefixed line on a
        new connection (attached to the free seat; lines it missed are sent again) continue the session."""
        seat = self._conn_seat.pop(connection, None)
        if seat is None:
            return
        info = self._seats[seat]
        if info is not None:
            info.conn = None
        self._events.append(PlayerLeft(connection=connection, seat=seat))

    def name_teams(self, ns_team: Optional[str], ew_team: Optional[str]) -> None:
        """Name the sides nobody has named yet (``None``: leave it). The manager of a team match calls it when a team
        sits in another room, so that an ``ANYPL`` player of that team is seated on its own side here too.

        Raises:
            LocalProtocolError: a side already has another team, or both sides would have the same one.
        """
        teams = list(self.teams)
        for side, team in enumerate((ns_team, ew_team)):
            if team is None:
                continue
            team = m.validate_team_name(team)
            if teams[side] is not None and teams[side] != team:
                raise LocalProtocolError(f"{('N/S', 'E/W')[side]} is team {teams[side]!r} here, not {team!r}")
            teams[side] = team
        if teams[0] is not None and teams[0] == teams[1]:
            raise LocalProtocolError(f"the two teams need different names, both are {teams[0]!r}")
        self.teams = teams

    def restart_board(self) -> list[Outbound]:
        """Start the current board again (operator's choice, or a reconnect): ``Start of board`` to all four.

        Raises:
            LocalProtocolError: no board is in progress.
        """
        if self.phase != TablePhase.BOARD or self.board is None:
            raise LocalProtocolError("no board is in progress")
        out: list[Outbound] = []
        self._begin_board(self.board, out, restarted=True)
        return out

    def act_for(self, seat: Seat, reason: str, *, now: float = 0.0) -> list[Outbound]:
        """Make the line ``seat`` owes now, as if it had sent it (its clock ran out): the ready line the table waits
        for, or, when it is that seat's turn, a pass or the lowest legal card (of dummy's hand when declarer plays
        for dummy). ``reason`` goes in that call's ``CallNote.explanation`` or card's ``CardNote.reason``. ``now``: as
        in ``receive``. Returns the lines to send, like ``receive``.

        Raises:
            LocalProtocolError: ``seat`` owes nothing now (it is ready, or nobody waits for it).
        """
        g = self._gate
        msg: Optional[m.Message] = None
        if g is not None and g.kind in ("bid", "card") and g.actor == seat and self._pending is None:
            if g.kind == "bid":
                msg = m.CallMade(seat=seat, call=PASS)
            else:
                legal = self.play.legal_cards()
                msg = m.CardPlayed(seat=g.player, card=min(legal, key=lambda c: (c.rank, c.suit)))
        elif g is not None and seat in g.readers and seat not in self._ready:
            kind = g.kind
            if kind in _SIMPLE_READY:
                msg = _SIMPLE_READY[kind](seat=seat)
            elif kind == "bid":
                msg = m.ReadyForCall(seat=seat, caller=g.actor)
            else:
                msg = m.ReadyForCard(seat=seat, player=g.player, trick=len(self.play.cards) // 4 + 1)
        if msg is None:
            raise LocalProtocolError(f"{seat.title} owes no line now ({self._describe_wait()})")
        self._forcing = reason
        self._now = now
        try:
            return self._on_message(seat, msg, msg.format(self._fmt))
        finally:
            self._forcing = ""

    def receive(self, connection: Hashable, line: Union[str, bytes], *, now: float = 0.0) -> list[Outbound]:
        """Process one line from ``connection`` (any hashable id; a ``Seat`` is fine when each seat has its own
        port), arrived at ``now`` (monotonic seconds: a call or card is timed from the moment its turn opened to the
        ``now`` it arrives). Returns the lines to send, in order. Blank lines are ignored.

        Raises:
            ProtocolError: the line is malformed, from an unseated connection and not ``Connecting``, for another
                seat, out of order, an illegal call (``reply`` is ``Illegal bid``) or card (``Illegal card``), or
                obsolete (``received dummy``). The table is unchanged. ``reply`` holds the line to send back (or
                ``None``), ``fatal`` says to close the connection (refused ``Connecting``).
        """
        if isinstance(line, (bytes, bytearray)):
            if not bytes(line).strip():
                return []
        elif isinstance(line, str) and not line.strip():
            return []
        self._now = now
        try:
            msg = m.parse(line)
        except ProtocolError as exc:
            raise self._error(str(exc), connection, line) from None
        seat = self._conn_seat.get(connection)
        if seat is None:
            if isinstance(msg, m.Connect):
                return self._on_connect(connection, msg, line)
            return self._reattach(connection, msg, line)
        return self._on_message(seat, msg, line)

    # --- errors ----------------------------------------------------------------------------------------------
    def _error(
        self, text: str, sender: Hashable, line: object, *, reply: Optional[m.Message] = None, fatal: bool = False
    ) -> RemoteProtocolError:
        if reply is None and (self.options.error_replies or fatal):
            reply = m.ErrorMessage(reason=text[:MAX_ERROR_REPLY_CHARS])
        return RemoteProtocolError(
            text, line=line if isinstance(line, (str, bytes)) else None,
            reply=None if reply is None else reply.format(self._fmt), sender=sender, fatal=fatal,
        )

    def _illegal(self, cls: type, reason: str) -> m.Message:
        return cls(reason=reason[:MAX_ERROR_REPLY_CHARS]) if self.options.explain_illegal else cls()

    # --- seating ---------------------------------------------------------------------------------------------
    def _on_connect(self, conn: Hashable, msg: m.Connect, line: object) -> list[Outbound]:
        if msg.version not in SUPPORTED_VERSIONS:
            raise self._error(f"Protocol version is not 18 but {msg.version}", conn, line, fatal=True)
        seat = msg.seat if msg.seat is not None else self._choose_seat(msg.team)
        if seat is None:
            raise self._error(f"No seat is free for team {msg.team!r}", conn, line, fatal=True)
        info = self._seats[seat]
        if info is not None and info.conn is not None:
            raise self._error(f"Seat {seat.title} has already been taken", conn, line, fatal=True)
        side, other = (0, 1) if seat.is_ns else (1, 0)
        if self.teams[side] is not None and self.teams[side] != msg.team:
            raise self._error(f'Team name must be "{self.teams[side]}"', conn, line, fatal=True)
        if self.teams[side] is None and self.teams[other] == msg.team:
            raise self._error(
                f'Team name must differ from opponents\' team name "{self.teams[other]}"', conn, line, fatal=True
            )
        rejoined = info is not None
        self._seats[seat] = _SeatInfo(msg.team, msg.version, conn)
        self._conn_seat[conn] = seat
        self.teams[side] = msg.team
        if rejoined and self.phase != TablePhase.SEATING:
            self._rejoining.add(seat)
        self._events.append(PlayerSeated(connection=conn, seat=seat, team=msg.team, rejoined=rejoined))
        out: list[Outbound] = []
        self._send(out, seat, m.Seated(seat=seat, team=msg.team))
        return out

    def _choose_seat(self, team: str) -> Optional[Seat]:
        """A free seat for an ``ANYPL`` connection: on the side already named ``team``, else on an unnamed side. A seat
        nobody has held comes before one whose player dropped (that player is likely to come back and ask for it)."""
        free = [s for s in Seat if self._seats[s] is None] + [
            s for s in Seat if self._seats[s] is not None and self._seats[s].conn is None and self._seats[s].team == team]
        for s in free:
            if self.teams[0 if s.is_ns else 1] == team:
                return s
        for s in free:
            if self.teams[0 if s.is_ns else 1] is None and self.teams[1 if s.is_ns else 0] != team:
                return s
        return None

    def _reattach(self, conn: Hashable, msg: m.Message, line: object) -> list[Outbound]:
        seat = getattr(msg, "seat", None)
        if isinstance(msg, m.CardPlayed) and seat is None:
            seat = None if self.play is None else self.play.declarer
        info = None if seat is None else self._seats[seat]
        if not isinstance(msg, _CLIENT_TYPES) or info is None or info.conn is not None:
            raise self._error(
                "Expected 'Connecting \"<team>\" as <seat> using protocol version 18'", conn, line, fatal=True
            )
        info.conn = conn
        self._conn_seat[conn] = seat
        missed = list(self._unanswered[seat])
        try:
            out = self._on_message(seat, msg, line)
        except ProtocolError:
            info.conn = None
            del self._conn_seat[conn]
            raise
        self._events.append(PlayerSeated(connection=conn, seat=seat, team=info.team, rejoined=True))
        return [Outbound(seat, l) for l in missed] + out

    # --- dispatch --------------------------------------------------------------------------------------------
    def _on_message(self, seat: Seat, msg: m.Message, line: object) -> list[Outbound]:
        if self.phase == TablePhase.ENDED:
            raise self._error("The session has ended", seat, line)
        if isinstance(msg, m.Connect):
            raise self._error(f"Already seated as {seat.title}", seat, line)
        if not isinstance(msg, _CLIENT_TYPES):
            raise self._error("Unexpected message from a player (that is a table manager's message)", seat, line)
        named = msg.seat
        if named != seat and not (isinstance(msg, m.CardPlayed) and self._may_play_for_dummy(seat, named)):
            raise self._error(
                f"You are seated as {seat.title}; a message for {'Dummy' if named is None else named.title} is ignored",
                seat, line,
            )
        if isinstance(msg, m.CallMade):
            if not self._on_call(seat, msg, line):
                self._unanswered[seat] = []
                return []
        elif isinstance(msg, m.CardPlayed):
            if not self._on_card(seat, msg, line):
                self._unanswered[seat] = []
                return []
        elif isinstance(msg, m.ReceivedDummy):
            raise self._error(
                "'received dummy' is obsolete (not in protocol 18) and was ignored", seat, line
            )
        else:
            done = self._on_ready(seat, msg, line)
            if done is not None:
                return done
        self._unanswered[seat] = []
        out: list[Outbound] = []
        self._pump(out)
        return out

    def _may_play_for_dummy(self, seat: Seat, named: Optional[Seat]) -> bool:
        p = self.play
        return p is not None and seat == p.declarer and (named is None or named == p.dummy)

    # --- ready lines -----------------------------------------------------------------------------------------
    def _fits(self, gate: Optional[_Gate], seat: Seat, msg: m.Message, play: Optional[Play] = None) -> bool:
        """Is ``msg`` (a ready line from ``seat``) one of the readies ``gate`` waits for? ``play`` is the play the
        gate refers to (default: the current one)."""
        if gate is None or seat not in gate.readers:
            return False
        kind = gate.kind
        simple = _SIMPLE_READY.get(kind)
        if simple is not None:
            return type(msg) is simple
        if kind == "bid":
            return type(msg) is m.ReadyForCall and msg.caller == gate.actor
        if kind == "card":
            if type(msg) is not m.ReadyForCard:
                return False
            p = play if play is not None else self.play
            trick = len(p.cards) // 4 + 1
            if msg.trick is not None and msg.trick != trick:
                return False
            return msg.player == gate.player or (msg.player is None and gate.player == p.dummy)
        return False

    def _on_ready(self, seat: Seat, msg: m.Message, line: object) -> Optional[list[Outbound]]:
        """Record a ready line; returns a list to short-cut (idempotent repeat, rejoin handling), else ``None``."""
        # A seat that came back with a fresh Connecting starts its handshake again: its readies are answered as such
        # even when they repeat what its old connection said (it never got the Teams line if that one dropped).
        if seat in self._rejoining and type(msg) in (m.ReadyForTeams, m.ReadyToStart):
            return self._on_rejoin_ready(seat, msg, line)
        prev = self._last_ready.get(seat)
        if prev is msg or (type(prev) is type(msg) and prev.__dict__ == msg.__dict__):
            self._unanswered[seat] = []
            return []  # the same ready again (resent after a reconnect): nothing to do (edge case 22)
        gate = self._gate
        if self._fits(gate, seat, msg):
            if seat in self._ready:
                return []
            self._ready.add(seat)
            self._last_ready[seat] = msg
            return None
        la = self._lookahead
        if la is not None and seat in la[1] and seat not in self._early and self._fits(la[0], seat, msg, self._lookahead_play):
            self._early[seat] = msg
            self._last_ready[seat] = msg
            return None
        raise self._error(f"Unexpected '{msg.format(self._fmt).strip()}': {self._describe_wait()}", seat, line)

    def _on_rejoin_ready(self, seat: Seat, msg: m.Message, line: object) -> list[Outbound]:
        out: list[Outbound] = []
        if type(msg) is m.ReadyForTeams:
            self._unanswered[seat] = []
            self._send(out, seat, m.Teams(ns=self.teams[0], ew=self.teams[1]))
            return out
        # ReadyToStart from a seat that came back: it has lost the board, so everyone starts it again.
        self._rejoining.discard(seat)
        self._unanswered[seat] = []
        self._last_ready[seat] = msg
        if self.phase == TablePhase.READY_TO_START:
            self._ready.add(seat)
            self._pump(out)
        elif self.phase == TablePhase.BOARD and self.board is not None:
            self._begin_board(self.board, out, restarted=True)
        return out

    def _describe_wait(self) -> str:
        g = self._gate
        if g is None:
            return "nothing is expected"
        missing = ", ".join(s.title for s in sorted(g.readers - self._ready))
        if g.kind == "bid":
            what = f"waiting for {g.actor.title}'s call"
        elif g.kind == "card":
            what = f"waiting for {g.player.title}'s card"
            if g.player != g.actor:
                what += f" (played by {g.actor.title})"
        else:
            what = f"waiting for '{_READY_WORDS[g.kind]}'"
        return what + (f"; not yet ready: {missing}" if missing else "")

    # --- calls and cards -------------------------------------------------------------------------------------
    def _on_call(self, seat: Seat, msg: m.CallMade, line: object) -> bool:
        """Check the call and hold it for the gate; ``False`` if it only repeats the held call."""
        g = self._gate
        if self._last_action.get(seat) == msg and (g is None or g.actor != seat):
            return False  # already relayed: the seat re-sent it after a reconnect
        if g is None or g.kind != "bid" or g.actor != seat:
            why = f"Call out of turn from {seat.title}: {self._describe_wait()}"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCall, why))
        if self._pending is not None:
            if self._pending[1] == msg:
                return False  # the same call again (resent after a reconnect)
            why = f"{seat.title} has already called"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCall, why))
        try:
            auction = self.auction.then(msg.call)
        except IllegalCallError as exc:
            why = f"Illegal call by {seat.title}: {exc}"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCall, str(exc))) from None
        self._set_pending(seat, msg, auction)
        return True

    def _on_card(self, seat: Seat, msg: m.CardPlayed, line: object) -> bool:
        """Check the card and hold it for the gate; ``False`` if it only repeats the held card."""
        g = self._gate
        player = self.play.dummy if (msg.seat is None and self.play is not None) else msg.seat
        if self._last_action.get(seat) == msg and (g is None or g.actor != seat or g.player != player):
            return False  # already relayed: the seat re-sent it after a reconnect
        if g is None or g.kind != "card" or g.actor != seat or g.player != player:
            why = f"Card out of turn from {seat.title}: {self._describe_wait()}"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCard, why))
        if self._pending is not None:
            if self._pending[1].card == msg.card:
                return False  # the same card again (resent after a reconnect)
            why = f"{player.title} has already played"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCard, why))
        try:
            play = self.play.then(msg.card)
        except IllegalCardError as exc:
            why = f"Illegal card from {player.title}: {exc}"
            raise self._error(why, seat, line, reply=self._illegal(m.IllegalCard, str(exc))) from None
        self._set_pending(seat, msg, play)
        return True

    def _set_pending(self, seat: Seat, msg: m.Message, state: object) -> None:
        side = 0 if seat.is_ns else 1
        seconds = 0.0
        if self._turn_start is not None:
            seconds = max(0.0, self._now - self._turn_start)
            self._board_time[side] += seconds
            self._turn_start = None
        self._pending = (seat, msg, state)
        self._pending_note = (seconds, self._forcing)
        nxt, play = self._gate_after_action(state)
        self._lookahead = None if nxt is None else (nxt, frozenset((seat,)))
        self._lookahead_play = play

    def _gate_after_action(self, state: object) -> tuple[Optional[_Gate], Optional[Play]]:
        """The gate that follows once the held call/card is relayed, and the play it refers to."""
        if isinstance(state, Auction):
            if not state.is_complete:
                return self._bid_gate(state), None
            contract = state.contract
            if contract is None:
                # Passed out. The spec has every player send "ready for deal" at once (no Start of board); the
                # last passer can do so before its pass is relayed: accept it for the next board.
                # (If no board follows, the table sends End of session and the early line is simply dropped.)
                return _Gate("deal", None, None, ALL_SEATS), None
            play = Play(self.board.deal, contract)
            return self._card_gate(play), play
        play = state
        n = len(play.cards)
        if n == 1:
            return _Gate("dummy", None, None, ALL_SEATS - {play.dummy}), play
        if n == 52:
            return None, None
        return self._card_gate(play), play

    @staticmethod
    def _bid_gate(auction: Auction) -> _Gate:
        s = auction.next_seat
        return _Gate("bid", s, s, ALL_SEATS - {s})

    @staticmethod
    def _card_gate(play: Play) -> _Gate:
        player = play.next_seat
        actor = play.declarer if player == play.dummy else player
        return _Gate("card", actor, player, ALL_SEATS - {actor})

    # --- the pump: open every gate whose conditions are met ---------------------------------------------------
    def _pump(self, out: list[Outbound]) -> None:
        while True:
            g = self._gate
            if g is None or not g.readers <= self._ready:
                return
            kind = g.kind
            if kind in ("bid", "card") and self._pending is None:
                return
            if kind == "teams":
                teams = m.Teams(ns=self.teams[0], ew=self.teams[1])
                self._send_by_version(out, Seat, teams, teams.model_copy(update={"scoring": self.options.scoring}))
                self.phase = TablePhase.READY_TO_START
                self._open(_Gate("start", None, None, ALL_SEATS))
            elif kind == "start":
                self.phase = TablePhase.BOARD
                self._next_board(out)
            elif kind == "deal":
                b = self.board
                info = m.BoardInfo(board=b.board, dealer=b.dealer, vul=b.vul)
                self._send_by_version(out, Seat, info, info.model_copy(update={"room": _room(b.room)}))
                self._open(_Gate("cards", None, None, ALL_SEATS))
            elif kind == "cards":
                for s in Seat:
                    self._send(out, s, m.Cards(seat=s, hand=self.board.deal[s]))
                self.auction = Auction(self.board.dealer)
                self._open(self._bid_gate(self.auction))
            elif kind == "bid":
                self._relay_call(out)
            elif kind == "card":
                self._relay_card(out)
            elif kind == "dummy":
                shown = m.DummyCards(hand=self.board.deal[self.play.dummy])
                self._send_many(out, [s for s in Seat if s != self.play.dummy], shown)
                self._open(self._card_gate(self.play))

    def _open(self, gate: Optional[_Gate]) -> None:
        early = self._early
        self._gate = gate
        self._ready = set()
        self._early = {}
        self._pending = None
        self._lookahead = None
        for s, msg in early.items():
            if self._fits(gate, s, msg):
                self._ready.add(s)
        if gate is not None and gate.kind in ("bid", "card"):
            self._turn_start = self._now
        if gate is not None and gate.kind == "dummy":
            # Dummy announces its first card while the others still wait for dummy's cards.
            self._lookahead = (self._card_gate(self.play), frozenset((self.play.dummy,)))
            self._lookahead_play = self.play

    def _relay_call(self, out: list[Outbound]) -> None:
        seat, msg, auction = self._pending
        self.auction = auction
        self._last_action[seat] = msg
        seconds, forced = self._pending_note
        note = CallNote(alert=msg.alert, explanation=forced or msg.explanation, seconds=seconds)
        self._call_notes.append(note)
        self._events.append(CallRelayed(board=self.board.board, auction=auction, note=note))
        full = msg if self.options.relay_alerts else msg.without_alert()
        bare = msg.without_alert()
        if full is bare:
            self._send_many(out, [s for s in Seat if s != seat], bare)
        else:
            self._send(out, seat.partner, bare)
            self._send_by_version(out, (seat.lho, seat.rho), full.for_version(m.PROTOCOL_VERSION), full)
        nxt = self._lookahead[0] if self._lookahead is not None else None
        if not auction.is_complete:
            self._open(nxt or self._bid_gate(auction))
            return
        contract = auction.contract
        if contract is None:
            self._open(None)
            self._end_board(out)
            return
        self.play = self._lookahead_play if self._lookahead_play is not None else Play(self.board.deal, contract)
        self._open(nxt or self._card_gate(self.play))
        self._send_to_lead(out)

    def _relay_card(self, out: list[Outbound]) -> None:
        seat, msg, play = self._pending
        self.play = play
        self._last_action[seat] = msg
        seconds, forced = self._pending_note
        note = CardNote(reason=forced or msg.info, seconds=seconds)
        self._card_notes.append(note)
        self._events.append(CardRelayed(board=self.board.board, play=play.public, note=note))
        g = self._gate
        # The echo names the hand the card came from, never carries free text (protocol 18), and is canonical.
        echo = msg if (msg.seat == g.player and not msg.info) else m.CardPlayed(seat=g.player, card=msg.card)
        self._send_many(out, sorted(g.readers), echo)
        nxt = self._lookahead[0] if self._lookahead is not None else None  # computed when the card arrived
        n = len(play.cards)
        if n == 52:
            self._open(None)
            self._end_board(out)
        elif n == 1:
            self._open(nxt)
        else:
            self._open(nxt)
            if n % 4 == 0:
                self._send_to_lead(out)

    def _send_to_lead(self, out: list[Outbound]) -> None:
        g = self._gate
        if g.player == g.actor:
            self._send(out, g.actor, m.ToLead(seat=g.player))
        else:
            self._send(out, g.actor, m.ToLead(seat=None))  # "Dummy to lead", to declarer

    # --- boards ----------------------------------------------------------------------------------------------
    def _next_board(self, out: list[Outbound]) -> None:
        if not self._queue:
            self._end_session(out)
            return
        self._begin_board(self._queue.pop(0), out, restarted=False)

    def _begin_board(self, board: BoardRecord, out: list[Outbound], *, restarted: bool) -> None:
        # After a pass-out, players following the spec's flow may already have said "ready for deal".
        carried = {} if restarted else {s: r for s, r in self._early.items() if type(r) is m.ReadyForDeal}
        self.board = board
        self._reset_board_state()
        self._early = carried
        self._last_ready = dict(carried)
        self._send_many(out, Seat, m.StartOfBoard())
        self._open(_Gate("deal", None, None, ALL_SEATS))
        self._events.append(BoardStarted(restarted=restarted, board=board.board))

    def _end_board(self, out: list[Outbound]) -> None:
        b = self.board
        auction = self.auction
        play = self.play
        players = {s: self._seats[s].team for s in Seat if self._seats[s] is not None}
        common = dict(dealer=b.dealer, vul=b.vul, auction=auction, players=players, event=b.event, room=b.room,
                      table=b.table, call_notes=self._call_notes, card_notes=self._card_notes,
                      seconds_ns=self._board_time[0], seconds_ew=self._board_time[1])
        if play is None:
            record = BoardRecord(board=b.board, deal=b.deal, contract=auction.contract, **common)
        else:  # the Play was checked card by card as it came in: no second replay
            record = BoardRecord.from_play(b.board, play, result=play.declarer_tricks, **common)
        self.results.append(record)
        self.boards_done += 1
        self._events.append(BoardFinished(record=record))
        if self.options.send_timing:
            ns, ew = self._board_time
            self._total_time[0] += ns
            self._total_time[1] += ew
            timing = m.Timing(
                ns_board=min(int(ns), MAX_BOARD_SECONDS), ns_total=min(int(self._total_time[0]), MAX_TOTAL_SECONDS),
                ew_board=min(int(ew), MAX_BOARD_SECONDS), ew_total=min(int(self._total_time[1]), MAX_TOTAL_SECONDS),
            )
            self._send_many(out, Seat, timing)
        else:
            self._total_time[0] += self._board_time[0]
            self._total_time[1] += self._board_time[1]
        self._board_time = [0.0, 0.0]
        self._next_board(out)

    def _end_session(self, out: list[Outbound]) -> None:
        self.board = None
        self._reset_board_state()
        self._gate = None
        self.phase = TablePhase.ENDED
        self._send_many(out, Seat, m.EndOfSession())
        self._events.append(SessionEnded(boards_played=self.boards_done))

    def _send_many(self, out: list[Outbound], seats: Iterable[Seat], msg: m.Message) -> None:
        line = msg._text(self._fmt) + "\r\n"  # formatted once for every recipient
        for seat in seats:
            out.append(Outbound(seat, line))
            self._unanswered[seat].append(line)

    def _send_by_version(self, out: list[Outbound], seats: Iterable[Seat], msg18: m.Message,
                         msg19: m.Message) -> None:
        """``msg19`` to the seats that connected with protocol 19 or later, ``msg18`` to the others."""
        v19 = [s for s in seats if self._seats[s] is not None and self._seats[s].version >= m.PROTOCOL_19]
        if msg19 is msg18 or msg19 == msg18 or not v19:
            self._send_many(out, seats, msg18)
            return
        self._send_many(out, [s for s in seats if s not in v19], msg18)
        self._send_many(out, v19, msg19)

    def _send(self, out: list[Outbound], seat: Seat, msg: m.Message) -> None:
        line = msg._text(self._fmt) + "\r\n"
        out.append(Outbound(seat, line))
        self._unanswered[seat].append(line)


def _room(room: str) -> Optional[str]:
    r = (room or "").strip().title()
    return r if r in ("Open", "Closed") else None
