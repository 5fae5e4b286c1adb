"""``DecisionWorker``: one seat's ``engine.Player`` in a process of its own, asked from an asyncio loop.

The engine is synchronous and CPU-bound; a seat at a table must keep reading and answering while it thinks. The
worker process keeps the ``Player`` (its solver and its beliefs about the board) for the whole session, so the
only cost per decision is sending a ``SeatView`` down a pipe. The asyncio side waits on the pipe's file descriptor
(``loop.add_reader``): no thread, and the loop never blocks.

A decision that is not back by its hard deadline is abandoned: the process is killed (it may be deep in a solve
that cannot be interrupted) and a fresh one started, and the caller answers with a safe fallback. A worker that
dies (a crash in the engine, a signal) is likewise restarted; its ``Player`` starts afresh, which only costs the
beliefs of the board in progress.

The worker is a spawned process: it configures its logging as its parent does (``robot.logs.current_logging``), so
that what the engine logs there (Borel overrides, relaxed sampling) comes out on standard error in the parent's
format and level, JSON lines in a service.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Literal, Optional

import structlog

from squeeze.config.bidding import load_system
from squeeze.engine.player import Player, PlayerParams
from squeeze.engine.view import SeatView
from .logs import EngineEvent, configure_logging, current_logging, engine_events, log_events

__all__ = ["Decision", "DecisionWorker", "WorkerFailed"]

_log = structlog.get_logger(__name__)


class WorkerFailed(Exception):
    """The worker did not answer in time, died, or raised: the caller must fall back (the worker is restarted)."""


@dataclass(frozen=True)
class Decision:
    """A worker's answer: a call (``1N``, ``P`` ...) or a card (``SA`` ...), as text, with what the engine said."""

    kind: Literal["call", "card"]
    value: str
    explanation: str
    alert: bool = False
    seconds: float = 0.0  # thinking time measured in the worker
    cut_short: bool = False  # the engine stopped at its deadline with its best answer so far
    worlds: int = 0
    events: tuple[EngineEvent, ...] = ()  # what the engine said happened on the way, logged by the asking side


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while a worker process starts, so that it inherits "ignored" (Python keeps a disposition its
    parent changed): Ctrl-C at a terminal reaches the whole process group, and the parent, not the worker, answers
    it (the worker is stopped by its parent; no KeyboardInterrupt traceback from it, even in its start-up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_main(conn: Connection, params: PlayerParams,
                 log: tuple[str, str]) -> None:  # pragma: no cover - runs in the child process
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (inherited already; set again for a worker started otherwise)
    configure_logging(*log)  # (spawned: structlog starts unconfigured here)
    t0 = time.monotonic()
    player = Player(params, systems=load_system)
    player.prepare()  # the bidding system and the solver, before the first deadline rather than on its time
    _log.info("worker.ready", pid=os.getpid(), seconds=round(time.monotonic() - t0, 3))
    conn.send(("ready",))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        req_id, kind, view, budget = request
        t0 = time.monotonic()
        deadline = t0 + budget
        try:
            if kind == "call":
                choice = player.bid(view, deadline=deadline)
                answer = Decision("call", str(choice.call), choice.describe(), choice.alert,
                                  time.monotonic() - t0, choice.cut_short, events=engine_events(choice))
            else:
                d = player.play(view, deadline=deadline)
                answer = Decision("card", str(d.card), d.reason, False, time.monotonic() - t0, d.cut_short,
                                  d.worlds, engine_events(d))
            conn.send((req_id, answer))
        except Exception:  # the engine's bug must not end the session: report it, keep serving
            conn.send((req_id, traceback.format_exc(limit=8)))


class DecisionWorker:
    """An ``engine.Player`` in a child process (see module doc). ``await start()``, then ``await decide(...)``."""

    # Start-up imports numpy and compiles the bidding system: a few seconds on an idle core, but over a minute was
    # seen with the load at 15 on 2 cores (a match of robots beside a test suite), and a seat that gives up then
    # exits and is restarted into the same wait. Late decisions have their own limits; a slow start only delays.
    def __init__(self, params: PlayerParams, *, start_timeout: float = 600.0) -> None:
        self.params = params
        self.start_timeout = start_timeout
        self._ctx = multiprocessing.get_context("spawn")  # no fork of a running event loop and its sockets
        self._proc: Optional[multiprocessing.process.BaseProcess] = None
        self._conn: Optional[Connection] = None
        self._next_id = 0
        self.restarts = 0

    @property
    def pid(self) -> Optional[int]:
        return None if self._proc is None else self._proc.pid

    @property
    def started(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    async def start(self) -> None:
        """Start the process and wait until its ``Player`` is built (raises ``WorkerFailed`` if it cannot)."""
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.params, current_logging()), daemon=True,
                                 name="squeeze-decisions")
        with _sigint_ignored():
            proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        try:
            msg = await self._recv(time.monotonic() + self.start_timeout)
        except WorkerFailed:
            self._kill()
            raise
        if msg != ("ready",):
            self._kill()
            raise WorkerFailed(f"the decision worker did not start: {msg!r}")

    async def restart(self, why: str) -> None:
        self.restarts += 1
        _log.warning("worker.restart", why=why, restarts=self.restarts)
        self._kill()
        await self.start()

    async def decide(self, kind: Literal["call", "card"], view: SeatView, budget: float,
                     hard_deadline: float) -> Decision:
        """Ask for a call or card with ``budget`` seconds of thinking; give up at ``hard_deadline`` (monotonic).

        Raises ``WorkerFailed`` (late, dead, or an engine error); the worker is restarted before it returns, so the
        next decision finds it ready.
        """
        if self._conn is None:
            await self.start()
        self._next_id += 1
        req_id = self._next_id
        try:
            self._conn.send((req_id, kind, view, max(0.0, budget)))  # type: ignore[union-attr]
            while True:
                msg = await self._recv(hard_deadline)
                if msg[0] == req_id:
                    break  # an answer to an abandoned request cannot come: the worker was restarted since
        except WorkerFailed as exc:
            await self.restart(str(exc))
            raise
        except (OSError, EOFError, BrokenPipeError) as exc:
            await self.restart(f"pipe: {exc!r}")
            raise WorkerFailed(f"the decision worker's pipe broke: {exc!r}") from None
        answer = msg[1]
        if isinstance(answer, str):
            raise WorkerFailed(f"the engine raised:\n{answer}")
        log_events(answer.events)  # here, where the process's logging is set up (the child's is not)
        return answer

    async def _recv(self, deadline: float):
        """The next message from the worker, waiting on the pipe without blocking the loop."""
        conn, proc = self._conn, self._proc
        assert conn is not None and proc is not None
        loop = asyncio.get_running_loop()
        while not conn.poll():
            ready = loop.create_future()
            fd = conn.fileno()
            loop.add_reader(fd, lambda ready=ready: ready.done() or ready.set_result(None))
            try:
                # Wake at least every 0.5 s to notice a dead worker whose pipe end is held open elsewhere.
                await asyncio.wait_for(ready, timeout=max(0.0, min(0.5, deadline - time.monotonic())))
            except asyncio.TimeoutError:
                pass
            finally:
                loop.remove_reader(fd)
            if conn.poll():
                break
            if not proc.is_alive():
                raise WorkerFailed(f"the decision worker died (exit code {proc.exitcode})")
            if time.monotonic() >= deadline:
                raise WorkerFailed("the decision worker is late")
        try:
            return conn.recv()
        except (EOFError, OSError) as exc:
            raise WorkerFailed(f"the decision worker died ({exc!r})") from None

    def _kill(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None and self._proc.is_alive():
            self._proc.kill()
            self._proc.join(5)
        self._proc, self._conn = None, None

    def close(self) -> None:
        """Stop the worker (politely if it is idle, else by force)."""
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                pass
        if self._proc is not None:
            self._proc.join(2)
        self._kill()
