"""``SeatAgent``: our robot in one seat of any Blue Chip table manager, over TCP (``squeeze seat``).

The agent only moves bytes and time. ``protocol.ClientMachine`` owns the protocol state (which line comes next,
what to answer); ``engine.Player`` decides, in a ``DecisionWorker`` process so that the event loop never blocks.
While a decision is being made the agent keeps reading, logging and answering the table (a ``Timing`` line, an
error, a restarted board). A decision that a restarted board made stale is dropped, never sent.

Time. Each decision gets a budget: the engine's per-call or per-card budget, capped by an even share of what is
left of the board's allowance (WCBC: two minutes per board per pair; each seat of the pair gets half, and
declarer inherits dummy's half once the auction is over) over the decisions still to come. The worker is given
that budget as its deadline; the agent waits ``safety_margin_s`` longer, then answers with a safe legal fallback
(pass; ``engine.play.card_player.fallback_card``: the lowest card of the suit led, else of the longest suit), restarts the worker and logs it.
It never sends an illegal call or card: the machine checks every one, and an illegal engine answer is replaced by
the fallback.

Connection. The first connection is retried with backoff while the manager starts. A dropped connection is
reopened (up to ``max_reconnects`` times): the agent sends the lines the table has not answered yet, which a
manager that keeps the seat (ours, JobScheffers') takes as the seat coming back mid-board; if it answers with the
handshake's refusal instead, the agent reconnects once more and says ``Connecting`` again, and the manager restarts
the board. A line the machine rejects (garbage, an impossible card) is logged with the line and skipped; the
machine is unchanged, and a ``Start of board`` resynchronises it. ``End of session`` ends the run with exit code
0; a manager that says nothing for ``silence_timeout_s`` while we wait for it ends it with an error.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Optional

import structlog

from squeeze.engine.auction import PASS, Call
from squeeze.engine.cards import Card, Seat
from squeeze.engine.play.card_player import fallback_card
from squeeze.engine.player import PlayerParams
from squeeze.protocol import messages as m
from squeeze.protocol.client import ClientMachine, ClientPhase
from squeeze.protocol.events import (
    BoardComplete, BoardStarted, CallRequested, CardRequested, ClientEvent, LineReceived, LineRejected, SeatAssigned,
    SessionEnded, TableError, TeamsAnnounced, TimingReceived,
)

from .worker import Decision, DecisionWorker, WorkerFailed

__all__ = ["AgentOptions", "SeatAgent", "options_from_settings", "EXIT_OK", "EXIT_REFUSED", "EXIT_UNREACHABLE",
           "EXIT_SILENT", "EXIT_DROPPED"]

EXIT_OK = 0  #: the session ended (``End of session``)
EXIT_REFUSED = 2  #: the table manager refused our seat
EXIT_UNREACHABLE = 3  #: no connection could be made
EXIT_SILENT = 4  #: the table manager said nothing for ``silence_timeout_s``
EXIT_DROPPED = 5  #: the connection kept dropping (``max_reconnects`` used up)

_log = structlog.get_logger("squeeze.seat")


async def open_table_connection(host: str, port: int, timeout: float = 10.0):
    """A connection to a table manager, for a seat (robot or person): ``OSError`` or ``TimeoutError`` when there is
    none within ``timeout``. ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` answers a
    cancellation that meets a refused connection with the ``OSError``, so a Ctrl-C during the retries was taken for
    one more refusal and lost (the seat went on retrying)."""
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(host, port)
    sock = writer.get_extra_info("socket")
    if sock is not None:  # lock-step small lines: Nagle's delay would cost seconds per board
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return reader, writer


@dataclass(frozen=True)
class AgentOptions:
    """How the agent connects and speaks. Built from ``[robot]`` settings by ``options_from_settings``."""

    host: str = "127.0.0.1"
    port: int = 2000
    seat: Optional[Seat] = None  #: ``None``: connect as ``ANYPL``
    team: str = "Squeeze"
    protocol_version: int = m.PROTOCOL_VERSION
    dummy_card_style: str = "dummy"
    send_alerts: bool = True
    explanations: str = "auto"  #: ``ClientMachine``'s: ``auto`` (as the manager's protocol allows), ``on``, ``off``
    pacing_s: float = 0.0  #: wait before each line we send (managers that mishandle glued lines)
    connect_timeout_s: float = 30.0  #: keep retrying the first connection this long
    reconnect_backoff_s: float = 2.0  #: longest wait between connection attempts
    max_reconnects: int = 30
    silence_timeout_s: float = 300.0
    seconds_per_call: float = 2.0
    seconds_per_card: float = 2.0
    board_seconds: float = 120.0  #: the pair's thinking allowance per board
    safety_margin_s: float = 0.25  #: how much longer than the budget we wait for the worker
    transcript: Optional[Path] = None


@dataclass
class _Clock:
    """Our thinking time on the board in progress, and the share of the allowance a decision may take."""

    board_seconds: float
    used: float = 0.0

    def reset(self) -> None:
        self.used = 0.0

    def budget(self, per_decision: float, decisions_left: int, own_share: float) -> float:
        left = self.board_seconds * own_share - self.used
        return max(0.0, min(per_decision, left / max(1, decisions_left)))


@dataclass
class _Pending:
    """A decision being made: what it answers, to recognise a stale one."""

    kind: str
    token: tuple
    task: asyncio.Task = field(repr=False)


class SeatAgent:
    """One seat over TCP (see module doc). ``exit_code = await SeatAgent(options, params).run()``."""

    def __init__(self, options: AgentOptions, params: PlayerParams, *, worker: Optional[DecisionWorker] = None):
        self.options = options
        self.params = params
        self._owns_worker = worker is None  # a worker handed in (tests, a match reusing processes) outlives the run
        self.worker = worker or DecisionWorker(params)
        self.machine = ClientMachine(
            options.team, options.seat, version=options.protocol_version,
            dummy_card_style=options.dummy_card_style, send_alerts=options.send_alerts,
            explanations=options.explanations,
        )
        self.clock = _Clock(options.board_seconds)
        self.decisions: list[dict] = []  # every decision's record (kind, value, seconds, budget, fallback ...)
        self.boards: list[BoardComplete] = []
        self._writer: Optional[asyncio.StreamWriter] = None
        self._pending: Optional[_Pending] = None
        self._transcript: Optional[IO[str]] = None
        self._send_lock = asyncio.Lock()
        self._lines_accepted = 0  # lines of the current connection the machine took (a resume that worked)

    # -- the run -------------------------------------------------------------------------------------------------
    async def run(self) -> int:
        o = self.options
        if o.transcript is not None:
            self._transcript = open(o.transcript, "a", encoding="utf-8")
        try:
            if not self.worker.started:
                await self.worker.start()
            return await self._run()
        finally:
            if self._pending is not None:
                self._pending.task.cancel()
            if self._owns_worker:
                self.worker.close()
            if self._transcript is not None:
                self._transcript.close()

    async def _run(self) -> int:
        o = self.options
        drops = 0
        handshake = True
        while True:
            conn = await self._connect(first=handshake and drops == 0)
            if conn is None:
                return EXIT_UNREACHABLE
            reader, writer = conn
            self._writer = writer
            if handshake:
                self.machine.connect()
                await self._flush()
            else:
                lines = self.machine.unanswered_lines()
                _log.info("seat.resume", lines=[l.rstrip() for l in lines], board=self.machine.board)
                await self._send_lines(lines)
            outcome = await self._session(reader)
            self._writer = None
            writer.close()
            if outcome == "ended":
                return EXIT_OK
            if outcome == "silent":
                return EXIT_SILENT
            if outcome == "refused":
                if handshake:
                    return EXIT_REFUSED
                handshake = True  # the manager would not take us back mid-board: start the board over
                continue
            drops += 1
            if drops > o.max_reconnects:
                _log.error("seat.gave_up", drops=drops)
                return EXIT_DROPPED
            # Resume mid-board only when there is something to resume, and not again after a resume the manager
            # answered with nothing we could use (it does not take seats back that way): then the handshake.
            failed_resume = not handshake and self._lines_accepted == 0
            handshake = failed_resume or not self.machine.unanswered_lines() or self.machine.phase in (
                ClientPhase.IDLE, ClientPhase.CONNECTING, ClientPhase.ERROR)

    async def _connect(self, first: bool):
        """Open the connection, retrying with backoff (for ``connect_timeout_s`` on the first one)."""
        o = self.options
        give_up = time.monotonic() + o.connect_timeout_s
        wait = 0.05
        attempt = 0
        while True:
            attempt += 1
            try:
                reader, writer = await open_table_connection(o.host, o.port)
            except (OSError, asyncio.TimeoutError) as exc:
                if time.monotonic() + wait > give_up:
                    _log.error("seat.unreachable", host=o.host, port=o.port, attempts=attempt, error=str(exc))
                    return None
                _log.info("seat.connect_retry", host=o.host, port=o.port, attempt=attempt, error=str(exc))
                await asyncio.sleep(wait)
                wait = min(o.reconnect_backoff_s, wait * 2)
                continue
            _log.info("seat.connected", host=o.host, port=o.port, attempt=attempt, first=first)
            return reader, writer

    async def _session(self, reader: asyncio.StreamReader) -> str:
        """Read and handle lines until the session ends (``ended``), the table refuses us (``refused``), the
        connection drops (``dropped``) or the table goes silent (``silent``)."""
        o = self.options
        self._lines_accepted = 0
        while True:
            try:
                async with asyncio.timeout(o.silence_timeout_s):  # (not wait_for: see open_table_connection)
                    data = await reader.read(65536)
            except asyncio.TimeoutError:
                if self._pending is not None:
                    continue  # we are the ones thinking (the clock bounds it)
                _log.error("seat.silent_table", seconds=o.silence_timeout_s, phase=self.machine.phase.value)
                return "silent"
            except (ConnectionError, OSError) as exc:
                data = b""
                _log.warning("seat.read_error", error=str(exc))
            if not data:
                self.machine.receive_data(b"")
                return self._closed()
            for line, events in _by_line(self.machine.receive_data(data)):
                if line is not None:
                    self._record("in", line)
                rejected = next((e for e in events if isinstance(e, LineRejected)), None)
                if rejected is not None:
                    exc = rejected.error
                    if line is None:
                        _log.warning("seat.bad_line", error=str(exc))
                    elif getattr(exc, "fatal", False):
                        _log.error("seat.refused", line=line, error=str(exc))
                        return "refused"
                    else:
                        _log.warning("seat.rejected_line", line=line, error=str(exc), phase=self.machine.phase.value)
                    continue
                if line is not None:
                    self._lines_accepted += int(not any(isinstance(e, TableError) for e in events))
                await self._handle(events)
                await self._flush()
                if any(isinstance(e, SessionEnded) for e in events):
                    return "ended"

    def _closed(self) -> str:
        phase = self.machine.phase
        if phase == ClientPhase.SESSION_ENDED:
            return "ended"
        between = phase in (ClientPhase.BOARD_DONE, ClientPhase.AWAIT_START, ClientPhase.AWAIT_TEAMS)
        _log.warning("seat.connection_closed", phase=phase.value, board=self.machine.board,
                     mid_board=not between, cards=len(self.machine.cards))
        return "dropped"

    # -- events --------------------------------------------------------------------------------------------------
    async def _handle(self, events: list[ClientEvent]) -> None:
        queue = list(events)
        while queue:
            ev = queue.pop(0)
            if isinstance(ev, SeatAssigned):
                _log.info("seat.seated", seat=ev.seat.letter, team=ev.team)
                if ev.team != self.options.team:
                    _log.warning("seat.team_renamed", ours=self.options.team, announced=ev.team)
            elif isinstance(ev, TeamsAnnounced):
                ours = ev.ns if self.machine.seat is not None and self.machine.seat.is_ns else ev.ew
                _log.info("seat.teams", ns=ev.ns, ew=ev.ew, scoring=ev.scoring)
                if ours != self.options.team:
                    _log.warning("seat.team_renamed", ours=self.options.team, announced=ours)
            elif isinstance(ev, BoardStarted):
                self._cancel_pending("board restarted" if ev.restarted else "new board")
                self.clock.reset()
            elif isinstance(ev, (CallRequested, CardRequested)):
                self._start_decision(ev)
            elif isinstance(ev, BoardComplete):
                self.boards.append(ev)
                _log.info("seat.board_complete", board=ev.board,
                          contract=None if ev.contract is None else str(ev.contract),
                          declarer_tricks=ev.declarer_tricks, thinking_s=round(self.clock.used, 3))
            elif isinstance(ev, TimingReceived):
                _log.info("seat.timing", line=ev.timing.format().strip())
            elif isinstance(ev, TableError):
                _log.warning("seat.table_error", message=ev.message.format().strip())
            elif isinstance(ev, SessionEnded):
                _log.info("seat.session_ended", boards=len(self.boards))
            queue += self.machine.take_events()

    def _token(self) -> tuple:
        mc = self.machine
        return (mc.board, mc.waiting_for, len(mc.auction.calls) if mc.auction else 0, len(mc.cards))

    def _start_decision(self, ev: CallRequested | CardRequested) -> None:
        self._cancel_pending("superseded")
        kind = "call" if isinstance(ev, CallRequested) else "card"
        task = asyncio.get_running_loop().create_task(self._decide(kind, ev))
        self._pending = _Pending(kind, self._token(), task)

    def _cancel_pending(self, why: str) -> None:
        if self._pending is not None and not self._pending.task.done():
            _log.info("seat.decision_dropped", why=why, kind=self._pending.kind)
            self._pending.task.cancel()
        self._pending = None

    def _budget(self, kind: str) -> tuple[float, int, float]:
        mc, o = self.machine, self.options
        declarer = mc.role == "declarer"
        share = 1.0 if declarer else 0.5  # declarer thinks for dummy too once the auction is over
        if kind == "call":
            left = 2 + 13  # a couple more calls, and as many cards as a defender plays
            return self.clock.budget(o.seconds_per_call, left, 0.5), left, 0.5
        ours = 13 - len(mc.cards) // 4
        left = ours * (2 if declarer else 1)
        if not mc.cards:
            # The opening lead: its own budget, up to a quarter of the defender's share (12 cards still to come are
            # mostly quick: PIMC on few worlds, often a single legal card).
            return self.clock.budget(self.params.seconds_per_lead, 4, share), left, share
        return self.clock.budget(o.seconds_per_card, left, share), left, share

    async def _decide(self, kind: str, ev: CallRequested | CardRequested) -> None:
        token = self._token()
        view = self.machine.seat_view()
        budget, left, _share = self._budget(kind)
        t0 = time.monotonic()
        hard = t0 + budget + self.options.safety_margin_s
        decision: Optional[Decision] = None
        error = ""
        try:
            decision = await self.worker.decide(kind, view, budget, hard)  # type: ignore[arg-type]
        except WorkerFailed as exc:
            error = str(exc).splitlines()[0] if str(exc) else repr(exc)
        elapsed = time.monotonic() - t0
        self.clock.used += elapsed
        if self._pending is None or self._pending.token != token or self._token() != token:
            return  # the board moved on while we thought (a restart): this answer is stale
        self._pending = None
        record = {"kind": kind, "board": self.machine.board, "budget_s": round(budget, 4),
                  "seconds": round(elapsed, 4), "decisions_left": left}
        if kind == "call":
            await self._answer_call(decision, error, record)
        else:
            await self._answer_card(ev, decision, error, record)  # type: ignore[arg-type]
        self.decisions.append(record)
        await self._handle(self.machine.take_events())
        await self._flush()

    async def _answer_call(self, decision: Optional[Decision], error: str, record: dict) -> None:
        mc = self.machine
        call, alert, explanation = PASS, False, ""
        if decision is not None:
            try:
                call = Call.parse(decision.value)
                alert, explanation = decision.alert, decision.explanation
            except Exception as exc:  # an engine answer we cannot read: pass
                error = f"unreadable call {decision.value!r}: {exc}"
        fell_back = decision is None or bool(error)
        if fell_back or not mc.auction.is_legal(call):
            if decision is not None and not error:
                error = f"illegal call {call} from the engine"
            call, alert, explanation = PASS, False, ""
            fell_back = True
        mc.send_call(call, alert=alert, explanation=explanation, fallback=True)
        record.update(value=str(mc.auction.calls[-1]), explanation=explanation, fallback=fell_back,
                      cut_short=bool(decision and decision.cut_short), error=error or None)
        log = _log.warning if fell_back else _log.info
        log("seat.decision", **record)

    async def _answer_card(self, ev: CardRequested, decision: Optional[Decision], error: str,
                           record: dict) -> None:
        mc = self.machine
        legal = tuple(mc.legal_cards())
        card: Optional[Card] = None
        if decision is not None and not error:
            try:
                card = Card.parse(decision.value)
            except Exception as exc:
                error = f"unreadable card {decision.value!r}: {exc}"
        if card is None or card not in legal:
            if card is not None:
                error = f"illegal card {card} from the engine"
            view = mc.seat_view()
            card, _why = fallback_card(view.remaining(ev.seat).bits, view.play.trick_indices)  # type: ignore[union-attr]
        fell_back = bool(error) or decision is None
        mc.send_card(card, fallback=True)
        record.update(value=str(card), seat=ev.seat.letter, explanation=decision.explanation if decision else "",
                      worlds=decision.worlds if decision else 0, fallback=fell_back,
                      cut_short=bool(decision and decision.cut_short), error=error or None)
        log = _log.warning if fell_back else _log.info
        log("seat.decision", **record)

    # -- output --------------------------------------------------------------------------------------------------
    async def _flush(self) -> None:
        await self._send_lines(self.machine.lines_to_send())

    async def _send_lines(self, lines: list[str]) -> None:
        if not lines:
            return
        async with self._send_lock:  # lines leave in order even with pacing sleeps between them
            w = self._writer
            for line in lines:
                if self.options.pacing_s > 0:
                    await asyncio.sleep(self.options.pacing_s)
                self._record("out", line.rstrip("\r\n"))
                if w is None or w.is_closing():
                    continue  # dropped: the line stays unanswered in the machine and is sent again on reconnect
                try:
                    w.write(line.encode("latin-1", "replace"))
                    await w.drain()
                except (ConnectionError, OSError) as exc:
                    _log.warning("seat.write_error", error=str(exc))

    def _record(self, direction: str, line: str) -> None:
        _log.info("seat.line", dir=direction, line=line)
        if self._transcript is not None:
            self._transcript.write(f"{time.time():.3f} {direction} {line}\n")
            self._transcript.flush()


def _by_line(events: list[ClientEvent]) -> list[tuple[Optional[str], list[ClientEvent]]]:
    """``receive_data``'s events cut at each ``LineReceived``: ``(line, its events)`` in order (``None``: events
    that belong to no line - taken from before, or an over-long line's ``LineRejected``)."""
    groups: list[tuple[Optional[str], list[ClientEvent]]] = [(None, [])]
    for ev in events:
        if isinstance(ev, LineReceived):
            groups.append((ev.line, []))
        elif isinstance(ev, LineRejected) and ev.line is None:
            groups.append((None, [ev]))
        else:
            groups[-1][1].append(ev)
    return [g for g in groups if g[0] is not None or g[1]]


def options_from_settings(settings, *, transcript: Optional[Path] = None) -> AgentOptions:
    """The agent's options from ``Settings`` (``[robot]`` for the connection and dialect, ``[engine]`` for the
    per-decision budgets)."""
    r, e = settings.robot, settings.engine
    return AgentOptions(
        host=r.host, port=r.port, seat=None if r.seat == "ANY" else Seat.parse(r.seat), team=r.team,
        protocol_version=r.protocol_version, dummy_card_style=r.dummy_card_style, send_alerts=r.alerts,
        explanations=r.explanations, pacing_s=r.pacing_ms / 1000, connect_timeout_s=r.connect_timeout_seconds,
        reconnect_backoff_s=r.reconnect_seconds, max_reconnects=r.max_reconnects,
        silence_timeout_s=r.silence_timeout_seconds, seconds_per_call=e.seconds_per_call,
        seconds_per_card=e.seconds_per_card, board_seconds=r.board_seconds,
        safety_margin_s=r.safety_margin_seconds, transcript=transcript,
    )
