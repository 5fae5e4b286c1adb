"""``TableManager``: the asyncio server of ``squeeze tm``. One port, many tables, each a ``protocol.TableMachine``.

The server only moves bytes and time; the machines own the protocol. What the server adds:

Routing (``routing``, pure). A new connection's first line is ``Connecting "<team>" as <seat|ANYPL> ...`` (or, after
a drop, a seat's next line: see below). Its team names the match and the seat it asks for names the room; the
server hands ``routing.route`` its matches as plain views and opens the match it names, or sends back its refusal.
The machine then checks everything else (seat taken, team names, version) and its refusal is sent back before the
socket closes.

Durability. A finished board (``BoardFinished``) is committed to the ``ResultsStore`` *before* any line that the
same input produced is sent, so no table starts its next board before the last one is on disk. Boards already in
the store are not queued again (a resumed run), and the store refuses a second result for a board. A write that
fails (disk full, read-only folder: ``StoreWriteError``) stops the whole manager at once (``failure`` says why):
every connection gets an ``Error`` line and is closed, nothing the failed input produced is sent, and the board
that could not be stored is not counted; it is played again when the run is continued. Carrying on would let that table
move on past a board that is in no store.

Clocks (``clocks``, pure). Every tick the server describes what each table waits for (``TableMachine.waiting_for``)
as a ``clocks.Wait`` and its ``clocks.TableClock`` says what should happen: warn, force (``TableMachine.act_for``: a
pass, the lowest legal card, or the ready line) or void (the board is played again from the start), each with its
reason; the server carries it out. Each incident goes into the store, the record of the board that finishes (PBN,
summary) and the live events. The seat itself is told only with ``warn_at_table`` (see ``clocks``). Nor is it told
when the table has overtaken it (made a line for it, or voided the attempt it was thinking in): the protocol has no
way to say so, and its lines still in flight are late, not wrong, so the table refuses them without the ``Illegal
bid``/``Illegal card`` a strict robot would stop on (``Table.lagging``; they are logged) until it takes a line from
that seat on a later attempt of a board.

Drops. A seat whose socket closes is held ``hold_seconds``: it may come back with a fresh ``Connecting`` (the board
restarts once it is ready to start) or, JobScheffers-style, continue on a new socket with its next line (the table
resends what it missed) where that line can name only one live table (robots of several tables on one address must
say ``Connecting`` again: a continuation that fits two tables is refused with a clear error). Past the hold the board in progress is voided and restarted, to be played from the start
when the seat returns; a board is never half-counted.

Limits (``[tm]``): line length, lines per second, connections per address, idle time before the first line (a
deadline from opening, so bytes trickled without a line end - slowloris - do not extend it; a seated connection
likewise has ``idle_seconds`` to end a line it started), a socket that does not read what we send. A connection over a limit is closed with a log line saying which; nothing
one connection does reaches another table. With ``compliance_report``, a compliance report per connection lists every line
that is not canonical protocol 18.

Live events. With a ``publisher`` (``--mqtt``), each table has a ``robot.events.TableFeed``: board start, every call
and card as relayed, tricks, then deal, result and summary once the board is committed. Handing them over never
waits and a fault there is logged, never raised: the publisher's queue absorbs a slow or dead broker.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import socket
import time
from pathlib import Path
from typing import Callable, Optional

import structlog

from squeeze.config.settings import TableManagerSettings
from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord
from squeeze.protocol import messages as m
from squeeze.protocol.errors import LocalProtocolError, ProtocolError
from squeeze.protocol.framing import LineBuffer
from squeeze.protocol.table import (
    BoardFinished, BoardStarted, CallRelayed, CardRelayed, Outbound, PlayerLeft, PlayerSeated, SessionEnded, TableMachine,
    TableOptions, TablePhase,
)
from squeeze.robot.events import EventPublisher, TableFeed, table_id

from . import clocks, routing
from .compliance import ComplianceReport
from .plan import ROOMS, MatchSpec
from .store import DuplicateBoardError, ResultsStore, StoreWriteError

__all__ = ["TableManager", "Listener", "Match", "Table", "READ_CHUNK", "MAX_UNSENT_BYTES"]

_log = structlog.get_logger("squeeze.tm")

#: Bytes read from a socket at a time. A line longer than ``max_line_bytes`` is caught within two reads.
READ_CHUNK = 65536
#: Bytes we keep queued for a peer that does not read. A robot reads every line it is sent (the protocol is lock
#: step): a megabyte unread is a peer that stopped reading, and keeping more would let it grow our memory.
MAX_UNSENT_BYTES = 1 << 20


class _Conn:
    """One TCP connection: its limits' state, and the table and seat it plays once seated."""

    __slots__ = ("id", "peer", "writer", "buffer", "table", "seat", "tokens", "refilled", "closed", "report",
                 "spoke")

    def __init__(self, cid: int, peer: str, writer: asyncio.StreamWriter, max_line: int, rate: float,
                 report: Optional[ComplianceReport]) -> None:
        self.id = cid
        self.peer = peer
        self.writer = writer
        self.buffer = LineBuffer(max_line + 2)
        self.table: Optional[Table] = None
        self.seat: Optional[Seat] = None
        self.tokens = rate  # token bucket: one token a line, refilled at ``rate`` a second, holding at most ``rate``
        self.refilled = time.monotonic()
        self.closed = False
        self.report = report
        self.spoke = False


class Table:
    """One room of a match: its machine, its seats' connections, its clocks and the incidents of the current
    board's attempt."""

    def __init__(self, match: "Match", room: str, machine: TableMachine) -> None:
        self.match = match
        self.room = room
        self.machine = machine
        self.conns: dict[Seat, _Conn] = {}
        self.held: dict[Seat, Optional[float]] = {}  # seat -> when it dropped (None: its board already voided)
        self.clock = clocks.TableClock()  # its clock state: the wait timed, the seats forced on this board
        self.incidents: list[str] = []  # of the board attempt in progress: go into its record when it finishes
        # seats the table has overtaken (a line made for them, or the attempt they were thinking in voided): their
        # late lines get no reply, until the table takes a line from them on a later attempt of a board
        self.lagging: set[Seat] = set()
        self.peers: dict[Seat, str] = {}  # address each seat last connected from
        self.done = False
        self.ending = False
        self.feed: Optional[TableFeed] = None  # live events (--mqtt), when the manager publishes them
        self.log = _log.bind(match=match.name, room=room or "-")

    @property
    def label(self) -> str:
        return f"{self.match.name}{'/' + self.room if self.room else ''}"


class Match:
    """Two teams and their room(s): team a is N/S in the open room and E/W in the closed room (``routing``)."""

    def __init__(self, name: str, rooms: int, teams: list[Optional[str]]) -> None:
        self.name = name
        self.teams = teams
        self.tables: list[Table] = []
        self.rooms = rooms

    def role_of(self, room_index: int, seat: Seat) -> int:
        """0 (team a) or 1 (team b): who sits at ``seat`` in room ``room_index``."""
        return routing.role_of(room_index, seat)

    def view(self) -> routing.MatchView:
        """This match as routing sees it."""
        return routing.MatchView(self.name, (self.teams[0], self.teams[1]), tuple(
            routing.RoomView(frozenset(t.conns), frozenset(t.held), t.done, tuple(t.peers.items()))
            for t in self.tables))

    @property
    def done(self) -> bool:
        return all(t.done for t in self.tables)


class Listener:
    """The manager's port, bound before anything else is made (a port that is taken stops a run before its results
    store exists): ``await Listener.open(host, port)``, then ``TableManager.start(listener)`` serves on it. The
    server accepts nothing until then."""

    def __init__(self, server: asyncio.base_events.Server) -> None:
        self._server = server
        self._accept: Optional[Callable] = None

    @classmethod
    async def open(cls, host: str, port: int) -> "Listener":
        """Bind ``host:port`` (0: any free port); ``OSError`` when it cannot (taken, not this machine's address)."""
        holder: list[Listener] = []

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await holder[0]._accept(reader, writer)  # type: ignore[misc]

        server = await asyncio.start_server(accept, host, port, limit=READ_CHUNK, start_serving=False)
        holder.append(cls(server))
        return holder[0]

    @property
    def port(self) -> int:
        return self._server.sockets[0].getsockname()[1]

    def serve(self, accept: Callable) -> asyncio.base_events.Server:
        self._accept = accept
        return self._server

    def close(self) -> None:
        self._server.close()


class TableManager:
    """The server. ``await start()`` binds and returns the port; ``await wait_done()`` returns once every match's
    rooms have ended their sessions (with a match file or in a resumed run: the known matches; otherwise at least
    one match was opened); ``await close()`` stops everything.

    Args:
        settings: the ``[tm]`` section.
        store: the run's ``ResultsStore`` (its deals are the boards played).
        matches: the match file's matches (``None``: opened by connecting teams; after a resume, the stored ones).
        clock: monotonic seconds (tests pass their own).
        publisher: where each table's live events go (``--mqtt``; ``None``: nowhere). The deal is published only
            once its board is over at that table, or ``deal_delay_seconds`` after it started.
        deal_delay_seconds: see ``[mqtt] deal_delay_seconds``.
    """

    def __init__(self, settings: TableManagerSettings, store: ResultsStore, matches: Optional[list[MatchSpec]] = None,
                 *, clock: Callable[[], float] = time.monotonic, publisher: Optional[EventPublisher] = None,
                 deal_delay_seconds: Optional[float] = None) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.publisher = publisher
        self.deal_delay_seconds = deal_delay_seconds
        self._feed_failed = False
        self.boards = store.deals()
        self.options = TableOptions(send_timing=settings.send_timing, error_replies=settings.warn_at_table,
                                    scoring=settings.scoring)
        self.matches: dict[str, Match] = {}
        self.fixed = matches is not None  # matches known in advance: a team not in them is refused
        known = {r.name: r for r in store.matches()}
        for spec in matches or []:
            if spec.name not in known:
                store.add_match(spec.name, spec.rooms, *spec.teams)
        for row in store.matches():
            self._open_match(row.name, row.rooms, [row.team_a, row.team_b])
        if known and not matches:
            self.fixed = False  # resumed on-demand run: more teams may still open matches
        self._ids = itertools.count(1)
        self._conns: dict[int, _Conn] = {}
        self._per_address: dict[str, int] = {}
        self._server: Optional[asyncio.base_events.Server] = None
        self._ticker: Optional[asyncio.Task] = None
        self._tasks: set[asyncio.Task] = set()
        self._done = asyncio.Event()
        self.port: Optional[int] = None
        self.committed = 0  #: boards committed by this process
        self.failure: Optional[str] = None  #: why the manager stopped, when a store write failed
        self.reports: list[ComplianceReport] = []

    # --- matches ------------------------------------------------------------------------------------------------
    def _open_match(self, name: str, rooms: int, teams: list[Optional[str]]) -> Match:
        match = Match(name, rooms, list(teams))
        stored = self.store.results() if self.publisher is not None else []
        for i, room in enumerate(ROOMS[rooms]):
            done = self.store.finished(name, room)
            queue = [b for b in self.boards if b.board not in done]
            ns, ew = routing.room_teams(teams, i)  # (None: the first player of that side names it)
            machine = TableMachine(queue, ns_team=ns, ew_team=ew, options=self.options)
            table = Table(match, room, machine)
            if self.publisher is not None:  # a resumed run's summaries count the boards stored before too
                finished = [r.record for r in stored if r.match == name and r.room == room]
                table.feed = TableFeed(self.publisher, self.settings.event, table_id(name, room),
                                       deal_delay_seconds=self.deal_delay_seconds, finished=finished)
            # Resumed with every board of this room stored: it is over. Its robots may already have had their End
            # of session (from the manager that was killed right after sending it) and will never come back to
            # collect it; a robot that does come is still seated and told the session has ended.
            table.done = not queue
            match.tables.append(table)
        self.matches[name] = match
        return match

    def _route(self, msg: m.Connect) -> Table | str:
        """The room a ``Connecting`` line goes to (its match opened first if it is new), or the reason it is
        refused (``routing.route``)."""
        s = self.settings
        decision = routing.route([mt.view() for mt in self.matches.values()], msg.team, msg.seat, fixed=self.fixed,
                                 max_matches=s.max_matches, rooms=s.rooms)
        if isinstance(decision, routing.Refusal):
            return decision.reason
        if decision.opens:
            self._stored(self.store.add_match, decision.match, decision.rooms)
            self._open_match(decision.match, decision.rooms, [None, None])
            _log.info("tm.match_opened", match=decision.match, team=msg.team, rooms=decision.rooms)
        return self.matches[decision.match].tables[decision.room]

    # --- life cycle ---------------------------------------------------------------------------------------------
    async def start(self, listener: Optional["Listener"] = None) -> int:
        """Serve on ``listener`` (its port bound beforehand: ``Listener.open``), or on the settings' host and port."""
        s = self.settings
        listener = listener or await Listener.open(s.host, s.port)
        self._server = listener.serve(self._accept)
        await self._server.start_serving()
        self.port = self._server.sockets[0].getsockname()[1]
        self._ticker = asyncio.create_task(self._tick_forever(clocks.tick_seconds(s)))
        _log.info("tm.listening", host=s.host, port=self.port, boards=len(self.boards),
                  matches=sorted(self.matches), rooms=s.rooms, time_fate=s.time_fate)
        self._check_done()
        return self.port

    async def wait_done(self) -> None:
        await self._done.wait()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._ticker is not None:
            self._ticker.cancel()
        for conn in list(self._conns.values()):
            self._close(conn, "the table manager is shutting down")
        # the readers see their sockets closed and return; one stuck anyway is cancelled
        if self._tasks:
            _done, stuck = await asyncio.wait(set(self._tasks), timeout=1.0)
            for t in stuck:
                t.cancel()
        if self._server is not None:
            await self._server.wait_closed()

    def _check_done(self) -> None:
        if self.matches and all(mt.done for mt in self.matches.values()) and (self.fixed or
                                                                             all(None not in mt.teams for mt in
                                                                                 self.matches.values())):
            self._done.set()

    # --- connections --------------------------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        s = self.settings
        sock = writer.get_extra_info("socket")
        if sock is not None:  # lock-step small lines: Nagle's delay costs seconds per board (research note 7)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peername = writer.get_extra_info("peername")
        peer = str(peername[0]) if peername else "?"
        cid = next(self._ids)
        report = ComplianceReport(cid, peer) if s.compliance_report else None
        conn = _Conn(cid, peer, writer, s.max_line_bytes, s.lines_per_second, report)
        if self._per_address.get(peer, 0) >= s.connections_per_address:
            _log.warning("tm.refused", conn=cid, peer=peer,
                         reason=f"more than {s.connections_per_address} connections from {peer}")
            writer.write(m.ErrorMessage(reason=f"Too many connections from {peer}").format().encode("latin-1"))
            writer.close()
            return
        self._per_address[peer] = self._per_address.get(peer, 0) + 1
        self._conns[cid] = conn
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        _log.info("tm.connected", conn=cid, peer=peer)
        try:
            await self._read(conn, reader)
        except StoreWriteError:  # (``_fail`` has already stopped everything and said why)
            pass
        except (ConnectionError, OSError) as exc:
            self._close(conn, f"connection error: {exc}")
        except Exception:  # a bug must cost one connection, never the server or another table
            _log.exception("tm.internal_error", conn=cid)
            self._close(conn, "internal error (logged)")
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def _read(self, conn: _Conn, reader: asyncio.StreamReader) -> None:
        s = self.settings
        # Deadlines, not per-read timeouts: a slowloris peer trickling a byte at a time (no line end) would reset
        # a per-read timeout forever. An unseated connection has idle_seconds from opening for its first line; a
        # seated one has idle_seconds to finish a line it has started (a robot sends each line in one write).
        first_line_by = time.monotonic() + s.idle_seconds
        partial_since: Optional[float] = None
        while not conn.closed:
            if conn.table is None:
                deadline, why = first_line_by, f"idle: no Connecting line within {s.idle_seconds:g} s"
            elif partial_since is not None:
                deadline, why = partial_since + s.idle_seconds, f"slow: no line end within {s.idle_seconds:g} s"
            else:
                deadline, why = None, ""
            try:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for answers a cancellation (the manager
                # stopping) that meets a line just read with the line, and the cancellation is lost
                async with asyncio.timeout(None if deadline is None else deadline - time.monotonic()):
                    data = await reader.read(READ_CHUNK)
            except asyncio.TimeoutError:
                reason = why.split(": ", 1)[1]
                self._write(conn, m.ErrorMessage(reason=reason[0].upper() + reason[1:]).format(), conn.table)
                self._close(conn, why)
                return
            if not data:
                self._close(conn, "closed by peer")
                return
            if conn.report is not None:
                conn.report.raw(data)
            try:
                lines = conn.buffer.feed(data)
            except ProtocolError as exc:
                self._close(conn, f"line too long: {exc}")
                return
            if not conn.buffer.pending:
                partial_since = None
            elif lines or partial_since is None:  # (a new line has started)
                partial_since = time.monotonic()
            for line in lines:
                if conn.closed:
                    return
                if len(line) > s.max_line_bytes:
                    self._close(conn, f"line too long: {len(line)} bytes, the limit is {s.max_line_bytes}")
                    return
                if not self._take_token(conn):
                    self._close(conn, f"flood: more than {s.lines_per_second:g} lines a second")
                    return
                self._on_line(conn, line)

    def _take_token(self, conn: _Conn) -> bool:
        rate = self.settings.lines_per_second
        now = time.monotonic()
        conn.tokens = min(rate, conn.tokens + (now - conn.refilled) * rate)
        conn.refilled = now
        if conn.tokens < 1:
            return False
        conn.tokens -= 1
        return True

    def _close(self, conn: _Conn, reason: str) -> None:
        if conn.closed:
            return
        conn.closed = True
        self._conns.pop(conn.id, None)
        self._per_address[conn.peer] = self._per_address.get(conn.peer, 1) - 1
        if self._per_address[conn.peer] <= 0:
            del self._per_address[conn.peer]
        table = conn.table
        log = table.log if table is not None else _log
        level = log.info if reason in ("closed by peer", "session ended") else log.warning
        level("tm.closed", conn=conn.id, peer=conn.peer, seat=None if conn.seat is None else conn.seat.letter,
              reason=reason)
        try:
            conn.writer.close()
        except (RuntimeError, OSError):  # the loop is closing, or the socket is already gone
            pass
        if conn.report is not None:
            self._finish_report(conn)
        if table is not None and conn.seat is not None:
            seat = conn.seat
            if table.conns.get(seat) is conn:
                del table.conns[seat]
                table.machine.disconnect(conn.id)
                self._handle_events(table)
                if table.machine.phase != TablePhase.ENDED:
                    table.held[seat] = self.clock()
                    table.log.warning("tm.seat_held", seat=seat.letter, hold_seconds=self.settings.hold_seconds)

    def _finish_report(self, conn: _Conn) -> None:
        report = conn.report
        table = conn.table
        report.close(None if table is None else table.label, None if conn.seat is None else conn.seat.letter)
        self.reports.append(report)
        folder = Path(self.settings.results_dir) / "compliance"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"conn-{conn.id}.json").write_text(json.dumps(report.to_dict(), indent=1) + "\n")
        except OSError as exc:
            _log.error("tm.report_not_written", conn=conn.id, error=str(exc))
        _log.info("tm.compliance", conn=conn.id, deviations=len(report.deviations))

    # --- lines --------------------------------------------------------------------------------------------------
    def _on_line(self, conn: _Conn, line: str) -> None:
        if self.failure is not None:  # stopped: no input may move a table on
            return
        table = conn.table
        log = table.log if table is not None else _log
        log.info("tm.line", conn=conn.id, seat=None if conn.seat is None else conn.seat.letter, dir="in", line=line)
        if table is None:
            self._first_line(conn, line)
            return
        self._feed(table, conn, line)

    def _first_line(self, conn: _Conn, line: str) -> None:
        """A connection's first line: ``Connecting`` (routed by team), or a held seat's next line on a new socket."""
        try:
            msg = m.parse(line)
        except ProtocolError as exc:
            if conn.report is not None:
                conn.report.deviation(line, f"rejected: {exc}")
            self._refuse(conn, line, routing.CONNECT_FIRST)
            return
        if conn.report is not None:
            conn.report.check(line, msg)
        if isinstance(msg, m.Connect):
            target = self._route(msg)
            if isinstance(target, str):
                self._refuse(conn, line, target)
                return
            self._feed(target, conn, line)
            return
        # JobScheffers-style continuation: a held seat's next line on a new socket, with no team in it; taken only
        # where the seat and the address name one table (``routing.route_continuation``)
        target = routing.route_continuation([mt.view() for mt in self.matches.values()], getattr(msg, "seat", None),
                                            conn.peer)
        if isinstance(target, routing.Refusal):
            self._refuse(conn, line, target.reason)
            return
        table = self.matches[target.match].tables[target.room]
        try:
            out = table.machine.receive(conn.id, line, now=self.clock())
        except ProtocolError:
            self._refuse(conn, line, routing.CONNECT_FIRST)
            return
        self._after(table, out)

    def _refuse(self, conn: _Conn, line: str, reason: str) -> None:
        reply = m.ErrorMessage(reason=reason[:300]).format()
        self._write(conn, reply, None)
        self._close(conn, f"refused: {reason}")

    def _feed(self, table: Table, conn: _Conn, line: str) -> None:
        if conn.report is not None and conn.table is not None:
            try:
                conn.report.check(line, m.parse(line))
            except ProtocolError as exc:
                conn.report.deviation(line, f"rejected: {exc}")
        try:
            out = table.machine.receive(conn.id, line, now=self.clock())
        except ProtocolError as exc:
            late = conn.seat in table.lagging
            table.log.warning("tm.bad_line", conn=conn.id, seat=None if conn.seat is None else conn.seat.letter,
                              error=str(exc), fatal=exc.fatal, late=late)
            if conn.report is not None and conn.table is not None:
                conn.report.deviation(line, f"refused by the table: {exc}")
            if exc.reply and (not late or self.settings.warn_at_table):
                self._write(conn, exc.reply, table)
            if exc.fatal:
                self._close(conn, f"refused: {exc}")
            return
        if conn.seat in table.lagging and conn.seat not in table.clock.forced:
            table.lagging.discard(conn.seat)  # in step again: a line of a later attempt than the one overtaken
            table.log.info("tm.in_step", seat=conn.seat.letter)
        self._after(table, out)

    def _after(self, table: Table, out: list[Outbound]) -> None:
        """Handle the machine's events (commit finished boards first), then send its lines."""
        self._handle_events(table)
        for o in out:
            conn = table.conns.get(o.seat)
            if conn is not None:
                self._write(conn, o.line, table)
        if table.done and not table.ending:
            table.ending = True  # the spec's short pause, so the last lines reach the peers before the close
            asyncio.get_running_loop().call_later(self.settings.end_pause_seconds, self._end_table, table)

    def _write(self, conn: _Conn, line: str, table: Optional[Table]) -> None:
        if conn.closed:
            return
        (table.log if table is not None else _log).info(
            "tm.line", conn=conn.id, seat=None if conn.seat is None else conn.seat.letter, dir="out",
            line=line.rstrip("\r\n"))
        transport = conn.writer.transport
        if transport.is_closing():
            return
        conn.writer.write(line.encode("latin-1", "replace"))
        if transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
            self._close(conn, f"not reading: more than {MAX_UNSENT_BYTES} bytes unsent")

    def _end_table(self, table: Table) -> None:
        for conn in list(table.conns.values()):
            self._close(conn, "session ended")
        self._check_done()

    # --- events -------------------------------------------------------------------------------------------------
    def _handle_events(self, table: Table) -> None:
        events = table.machine.events()
        if self.failure is not None:  # stopped: nothing more is stored (see _fail)
            return
        for ev in events:
            if isinstance(ev, PlayerSeated):
                conn = self._conns.get(ev.connection)
                if conn is None:
                    continue
                conn.table, conn.seat = table, ev.seat
                table.conns[ev.seat] = conn
                table.held.pop(ev.seat, None)
                table.peers[ev.seat] = conn.peer
                match = table.match
                role = match.role_of(match.tables.index(table), ev.seat)
                if match.teams[role] is None:
                    match.teams[role] = ev.team
                    self._stored(self.store.set_teams, match.name, *match.teams)
                    # the match's other rooms learn the team's side there (room_teams swaps them): an ANYPL player
                    # of this team who comes to one of them is seated on that side, not on the first free one
                    for i, other in enumerate(match.tables):
                        try:
                            other.machine.name_teams(*routing.room_teams(match.teams, i))
                        except LocalProtocolError as exc:  # (cannot happen: a side follows from room and seat)
                            other.log.warning("tm.teams_disagree", error=str(exc))
                table.log.info("tm.seated", conn=conn.id, seat=ev.seat.letter, team=ev.team, rejoined=ev.rejoined)
            elif isinstance(ev, PlayerLeft):
                table.log.info("tm.left", conn=ev.connection, seat=ev.seat.letter)
            elif isinstance(ev, BoardStarted):
                table.incidents = []
                table.clock.new_board()
                table.log.info("tm.board_started", board=ev.board, restarted=ev.restarted)
                if ev.restarted:  # a seat came back (or the table voided the attempt): said in the board's record
                    self._incident(table, "restart", f"board {ev.board} started again from the beginning")
                if table.feed is not None and table.machine.board is not None:
                    board = dataclasses.replace(table.machine.board, room=table.room, table=table.match.name)
                    self._to_feed(table, table.feed.board_started, board, players=self._players(table),
                                  restarted=ev.restarted)
            elif isinstance(ev, CallRelayed):
                if table.feed is not None:
                    self._to_feed(table, table.feed.call, ev.auction, ev.note)
            elif isinstance(ev, CardRelayed):
                if table.feed is not None:
                    self._to_feed(table, table.feed.card, ev.play, ev.note)
            elif isinstance(ev, BoardFinished):
                self._commit(table, ev.record)
            elif isinstance(ev, SessionEnded):
                table.done = True
                table.log.info("tm.session_ended", boards=ev.boards_played)

    def _commit(self, table: Table, record: BoardRecord) -> None:
        rec = dataclasses.replace(record, room=table.room, table=table.match.name,
                                  event=record.event or self.settings.event)
        try:
            self._stored(self.store.commit_board, table.match.name, table.room, rec, table.incidents)
        except DuplicateBoardError as exc:  # cannot happen while boards are queued from the store; never count twice
            table.log.error("tm.duplicate_board", board=rec.board, error=str(exc))
            return
        self.committed += 1
        if table.feed is not None:
            others = [t.feed.records for t in table.match.tables if t is not table and t.feed is not None]
            self._to_feed(table, table.feed.board_finished, rec, other=others[0] if others else None)
        table.log.info("tm.board_finished", board=rec.board, contract=None if rec.contract is None else
                       str(rec.contract), result=rec.result, score_ns=rec.score_ns(), seconds_ns=rec.seconds_ns,
                       seconds_ew=rec.seconds_ew, incidents=len(table.incidents))
        table.incidents = []

    def _players(self, table: Table) -> dict[Seat, str]:
        """The team at each seat of ``table`` (as far as known)."""
        match = table.match
        room = match.tables.index(table)
        teams = {s: match.teams[match.role_of(room, s)] for s in Seat}
        return {s: t for s, t in teams.items() if t is not None}

    def _to_feed(self, table: Table, method: Callable, *args, **kwargs) -> None:
        """Hand an event to the table's feed. Live events are a spectator's convenience: a fault in them is logged
        (once) and must never stop a table."""
        try:
            method(*args, **kwargs)
        except Exception:
            if not self._feed_failed:
                self._feed_failed = True
                table.log.exception("tm.events_error")

    def _stored(self, write: Callable, *args) -> None:
        """``write(*args)``, a store write; a failure stops the manager (``_fail``) and is raised again, so that the
        caller sends nothing that the input produced (the table must not move on past what is not stored)."""
        if self.failure is not None:
            raise StoreWriteError(self.failure)
        try:
            write(*args)
        except StoreWriteError as exc:
            self._fail(str(exc))
            raise

    def _fail(self, reason: str) -> None:
        """Stop serving: the store cannot write. Every connection is told and closed; ``wait_done`` returns."""
        if self.failure is not None:
            return
        self.failure = reason
        self._done.set()  # first: whatever fails below, the run ends
        if self._server is not None:
            self._server.close()
        _log.error("tm.store_failed", error=reason, committed=self.committed,
                   advice="nothing unsaved was counted: make the results folder writable, then run the same command")
        notice = m.ErrorMessage(reason="The table manager stopped: it cannot save results").format()
        for conn in list(self._conns.values()):
            self._write(conn, notice, conn.table)
            self._close(conn, f"the table manager stopped: {reason}")

    def _incident(self, table: Table, kind: str, detail: str) -> None:
        board = table.machine.board.board if table.machine.board is not None else None
        table.incidents.append(f"{kind}: {detail}")
        self._stored(self.store.add_incident, table.match.name, table.room, board, kind, detail)
        table.log.warning(f"tm.{kind}", board=board, detail=detail)
        if table.feed is not None and board is not None:
            self._to_feed(table, table.feed.incident, board, kind, detail)

    # --- clocks -------------------------------------------------------------------------------------------------
    async def _tick_forever(self, every: float) -> None:
        while self.failure is None:
            await asyncio.sleep(every)
            for match in list(self.matches.values()):
                for table in match.tables:
                    if not table.done:
                        try:
                            self._tick(table, self.clock())
                        except StoreWriteError:  # (``_fail`` has stopped everything)
                            return
                        except Exception:  # one table's bug must not stop the clocks of the others
                            table.log.exception("tm.internal_error")

    def _tick(self, table: Table, now: float) -> None:
        """Carry out what the clock policy (``clocks``) says of ``table`` at ``now``."""
        s = self.settings
        machine = table.machine
        # seats gone longer than the hold: the board in progress is voided, to be replayed when they are back
        board = machine.board.board if machine.phase == TablePhase.BOARD and machine.board is not None else None
        for expired in clocks.expired_holds(s, table.held, now, board):
            table.held[expired.seat] = None
            if expired.board is not None:
                self._incident(table, expired.kind, expired.detail)
                self._after(table, machine.restart_board())
        wait = self._wait(table)
        if wait is None:
            return
        action = table.clock.decide(s, wait, now)
        if isinstance(action, clocks.CatchUp):
            if self._force_out_of_step(table):
                return
            action = table.clock.decide(s, wait, now, catch_up=False)
        if action is None:
            return
        if isinstance(action, clocks.Warn):
            self._incident(table, action.kind, action.detail)
            if action.notice is not None:
                self._write(table.conns[action.seat], m.ErrorMessage(reason=action.notice).format(), table)
        elif isinstance(action, clocks.Void):
            self._incident(table, action.kind, action.detail)
            table.lagging.add(action.seat)
            self._after(table, machine.restart_board())
        elif isinstance(action, clocks.Force):
            self._force(table, action)

    @staticmethod
    def _wait(table: Table) -> Optional[clocks.Wait]:
        """What ``table`` waits for, as the clocks see it (``None``: nothing, or its session has ended)."""
        machine = table.machine
        waiting = machine.waiting_for
        if waiting is None or machine.phase == TablePhase.ENDED:
            return None
        kind, missing, acting = waiting
        return clocks.Wait(kind, tuple(missing), acting, frozenset(table.conns),
                           side_used=machine.think_time(acting.is_ns)[0] if acting is not None else 0.0,
                           board=machine.board.board if machine.board else None,
                           calls=len(machine.auction.calls) if machine.auction else -1,
                           cards=len(machine.play.cards) if machine.play else -1)

    def _force_out_of_step(self, table: Table) -> bool:
        """Make every line owed by a seat already forced on this board; ``True`` if any was made."""
        made = 0
        for _ in range(4 * 400):  # (a board owes fewer lines than this; the bound only guards against a loop)
            wait = self._wait(table)
            if wait is None or table.done:
                break
            seat = table.clock.out_of_step(wait)
            if seat is None:
                break
            try:
                out = table.machine.act_for(seat, clocks.CatchUp(seat).reason, now=self.clock())
            except ProtocolError:
                break
            made += 1
            self._after(table, out)
        if made:
            table.log.info("tm.forced_out_of_step", lines=made)
        return made > 0

    def _force(self, table: Table, action: clocks.Force) -> None:
        seat = action.seat
        try:
            out = table.machine.act_for(seat, action.reason, now=self.clock())
        except ProtocolError as exc:  # (LocalProtocolError) the seat's own line came first after all
            table.log.info("tm.force_skipped", seat=seat.letter, reason=str(exc))
            return
        table.clock.forced_line(seat)
        table.lagging.add(seat)
        self._incident(table, action.kind, action.detail)
        self._after(table, out)
