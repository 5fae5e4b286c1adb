"""What ``squeeze tm`` does: build the plan, open (or continue) the store, serve until every match is over, export.

``prepare_run`` is the part that can fail on bad input (a bad boards file, match file or range, a folder that
holds another run) and raises ``RunError`` with the reason; ``run_tm`` listens first (a port that is taken stops
the run before any file is made), then prepares and serves. A folder that holds the same run (the same boards and
rooms) is continued: the boards stored are not played again; one that holds another run is refused, naming each
difference. SIGTERM and SIGINT stop the server cleanly: what finished is in the store, and the files are written
from it; the same command continues. A store write that fails (disk full, read-only folder) stops the server too
(``EXIT_STORE_FAILED``, the reason on stderr): every board counted is in the store, the one that could not be
written is not, and the same command plays it once the folder is writable again. The same exit code when every
board is stored but the files cannot be written at the end: the same command then only writes them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import hashlib
import os
import signal
import sys
from pathlib import Path
from typing import Any, Optional

import structlog

from squeeze.config.settings import MqttSettings, TableManagerSettings

from .export import write_outputs
from .plan import ROOMS, MatchSpec, PlanError, load_boards, load_match_file, parse_board_range, random_boards
from ..events import EventPublisher
from .server import Listener, TableManager
from .store import STORE_FILE, ResultsStore, StoreError, StoreWriteError, plan_differences

__all__ = ["RunError", "prepare_run", "run_tm", "EXIT_DONE", "EXIT_STOPPED", "EXIT_BAD_INPUT", "EXIT_STORE_FAILED"]

EXIT_DONE = 0  #: every match played out
EXIT_STOPPED = 1  #: stopped by a signal before the end (the same command continues)
EXIT_BAD_INPUT = 2  #: refused before anything started (``RunError``): bad input, a port taken, another run there
EXIT_STORE_FAILED = 3  #: stopped because the results store could not write (the same command continues once it can)

_log = structlog.get_logger("squeeze.tm")


class RunError(RuntimeError):
    """A run that cannot start: the message says why (bad input, nothing is lost)."""


def prepare_run(settings: TableManagerSettings, *, resume: Optional[bool] = None, extra_plan: Optional[dict] = None,
                ) -> tuple[ResultsStore, Optional[list[MatchSpec]]]:
    """The store and the match file's matches (``None``: teams open matches). A store already in the folder is
    continued when its plan (boards, rooms, and ``extra_plan``: what a caller adds to what defines its run) is the
    same, refused naming each difference otherwise; ``resume=True`` (``--resume``) also refuses a folder that
    holds no run."""
    try:
        rng = None if settings.board_range is None else parse_board_range(settings.board_range)
        if settings.boards_file is not None:
            boards = load_boards(settings.boards_file, rng, settings.event)
        else:
            first, last = rng if rng is not None else (1, settings.boards)
            boards = random_boards(first, last, settings.seed)
            boards = [dataclasses.replace(b, event=settings.event) for b in boards]
        matches = None if settings.match_file is None else load_match_file(settings.match_file, settings.rooms)
    except PlanError as exc:
        raise RunError(str(exc)) from None
    digest = hashlib.sha256("\n".join(b.to_json() for b in boards).encode()).hexdigest()
    plan: dict[str, Any] = {"boards": [b.board for b in boards], "digest": digest, "rooms": settings.rooms,
                            **(extra_plan or {})}
    folder = Path(settings.results_dir)
    path = folder / STORE_FILE
    existing = path.exists() and path.stat().st_size > 0
    if resume and not existing:
        raise RunError(f"{path}: no run to resume here (without --resume, a new run starts in {folder})")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create results folder {folder}: {exc.strerror}") from None
    try:
        store = ResultsStore(path, create=not existing)
    except StoreError as exc:
        raise RunError(str(exc)) from None
    stored = store.plan()
    if stored is not None:  # (a store from before ``extra_plan`` had it: what it lacks is not compared)
        plan = {k: v for k, v in plan.items() if k in stored or k not in (extra_plan or {})}
    if stored is not None and stored != plan:
        store.close()
        raise RunError(f"{folder} holds another run; to continue it, give the same options as when it started (its "
                       "boards, seed, rooms and teams), or choose another --out to start a new one. Differences: "
                       + "; ".join(plan_differences(stored, plan)))
    try:
        if stored is None:  # (also a store whose first transaction a kill cut short)
            store.set_plan(boards, plan)
        store.set_settings(settings.model_dump(mode="json"))
    except StoreError as exc:
        store.close()
        raise RunError(str(exc)) from None
    if stored is not None:
        done = sum(len(store.finished(m.name, room)) for m in store.matches() for room in ROOMS[m.rooms])
        _log.info("tm.continued", folder=str(folder), boards_stored=done)
        print(f"squeeze: continuing the run in {folder} ({done} boards stored)", file=sys.stderr, flush=True)
    return store, matches


async def _serve(settings: TableManagerSettings, store: ResultsStore, matches: Optional[list[MatchSpec]],
                 publisher: Optional[EventPublisher], deal_delay_seconds: Optional[float], listener: Listener) -> int:
    try:
        tm = TableManager(settings, store, matches, publisher=publisher, deal_delay_seconds=deal_delay_seconds)
    except StoreWriteError as exc:  # (the match file's matches could not be stored)
        _stopped_on_store(str(exc), 0)
        return EXIT_STORE_FAILED
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    port = await tm.start(listener)
    print(f"squeeze tm: listening on {settings.host}:{port}", flush=True)  # (scripts read the port from here)
    done = asyncio.create_task(tm.wait_done())
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({done, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finished = done.done()
    done.cancel()
    stopped.cancel()
    await tm.close()
    _log.info("tm.stopped", finished=finished, committed=tm.committed)
    if tm.failure is not None:
        _stopped_on_store(tm.failure, tm.committed)
        return EXIT_STORE_FAILED
    return EXIT_DONE if finished else EXIT_STOPPED


async def start_publisher(mqtt: Optional[MqttSettings]) -> Optional[EventPublisher]:
    """The events publisher of ``[mqtt]`` (``None`` when off), started; ``RunError`` if its broker cannot start."""
    if mqtt is None or not mqtt.enabled:
        return None
    try:
        publisher = EventPublisher(mqtt)
    except ValueError as exc:  # a port 0 for a broker of one's own
        raise RunError(str(exc)) from None
    try:
        await publisher.start()
    except OSError as exc:  # the embedded broker's port is taken, or its address is not this machine's
        raise RunError(str(exc)) from None
    kind = "the embedded broker at " if mqtt.embedded else ""
    print(f"squeeze tm: publishing events to {kind}{publisher.url}", flush=True)
    return publisher


def _stopped_on_store(reason: str, committed: int) -> None:
    print(f"squeeze tm: stopped, the results store cannot write: {reason}\n"
          f"squeeze tm: {committed} boards were stored by this run before it stopped; nothing unsaved was counted. "
          "Make the results folder writable (or free space), then run the same command to continue.", file=sys.stderr,
          flush=True)


async def _run(settings: TableManagerSettings, resume: Optional[bool], mqtt: Optional[MqttSettings]) -> int:
    # the port first, then the publisher (an embedded broker that cannot listen), then the store: a start that
    # fails leaves no file behind
    try:
        listener = await Listener.open(settings.host, settings.port)
    except OSError as exc:  # (asyncio's message repeats the address: the reason alone)
        reason = (os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror or str(exc)).lower()
        hint = " (another program listens there: choose another --port)" if exc.errno == errno.EADDRINUSE else ""
        raise RunError(f"cannot listen on {settings.host}:{settings.port}: {reason}{hint}") from None
    try:
        publisher = await start_publisher(mqtt)
    except BaseException:
        listener.close()
        raise
    try:
        try:
            store, matches = prepare_run(settings, resume=resume)
        except BaseException:
            listener.close()
            raise
        try:
            code = await _serve(settings, store, matches, publisher, None if mqtt is None else mqtt.deal_delay_seconds,
                                listener)
            if code == EXIT_STORE_FAILED:  # (the folder cannot take the files either; the store holds what counts)
                return code
            try:
                summary = write_outputs(store, settings.results_dir,
                                        seed=None if settings.boards_file is not None else settings.seed)
            except OSError as exc:  # (a full disk or read-only folder at the very end: the store has every board)
                print(f"squeeze tm: stopped, the results files cannot be written to {settings.results_dir}: "
                      f"{exc.strerror or exc}\nsqueeze tm: every finished board is in the results store; make the "
                      "folder writable (or free space), then run the same command again to write the files.",
                      file=sys.stderr, flush=True)
                return EXIT_STORE_FAILED
            finished = sum(n for m in summary["matches"].values() for n in m["played"].values())
            print(f"squeeze tm: {finished} boards finished, results in {settings.results_dir}", flush=True)
            return code
        finally:
            store.close()
    finally:
        if publisher is not None:
            stats = await publisher.close()
            print(f"squeeze tm: events: {stats.published} published, {stats.dropped} dropped", flush=True)


def run_tm(settings: TableManagerSettings, *, resume: Optional[bool] = None, mqtt: Optional[MqttSettings] = None) -> int:
    """Listen, prepare, serve until every match is over (or a signal), write the files; the exit code. With
    ``mqtt`` enabled, every table's live events are published (``robot.events``), the embedded broker started
    before the store is made. ``RunError``: refused before anything started (nothing is left behind)."""
    return asyncio.run(_run(settings, resume, mqtt))
