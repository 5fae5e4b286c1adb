"""What ``squeeze tm`` does: build the plan, open (or resume) the store, serve until every match is over, export.

``prepare_run`` is the part that can fail on bad input (a bad boards file, match file or range, a folder that
already holds a run, a resume with other boards) and raises ``RunError`` with the reason before anything listens;
``run_tm`` serves. SIGTERM and SIGINT stop the server cleanly: what finished is in the store, and the files are
written from it; ``--resume`` continues. A store write that fails (disk full, read-only folder) stops the server
too (``EXIT_STORE_FAILED``, the reason on stderr): every board counted is in the store, the one that could not be
written is not, and ``--resume`` plays it once the folder is writable again. The same exit code when every board
is stored but the files cannot be written at the end: ``--resume`` then only writes them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import signal
import sys
from pathlib import Path
from typing import Optional

import structlog

from squeeze.config.settings import MqttSettings, TableManagerSettings

from .export import write_outputs
from .plan import MatchSpec, PlanError, load_boards, load_match_file, parse_board_range, random_boards
from ..events import EventPublisher
from .server import TableManager
from .store import STORE_FILE, ResultsStore, StoreError, StoreWriteError

__all__ = ["RunError", "prepare_run", "run_tm", "EXIT_DONE", "EXIT_STOPPED", "EXIT_STORE_FAILED"]

EXIT_DONE = 0  #: every match played out
EXIT_STOPPED = 1  #: stopped by a signal before the end (resume with --resume)
EXIT_STORE_FAILED = 3  #: stopped because the results store could not write (resume with --resume once it can)

_log = structlog.get_logger("squeeze.tm")


class RunError(RuntimeError):
    """A run that cannot start: the message says why (bad input, nothing is lost)."""


def prepare_run(settings: TableManagerSettings, *, resume: bool) -> tuple[ResultsStore, Optional[list[MatchSpec]]]:
    """The store (created, or opened to resume) and the match file's matches (``None``: teams open matches)."""
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
    plan = {"boards": [b.board for b in boards], "digest": digest, "rooms": settings.rooms}
    folder = Path(settings.results_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create results folder {folder}: {exc.strerror}") from None
    try:
        store = ResultsStore(folder / STORE_FILE, create=not resume)
    except StoreError as exc:
        raise RunError(str(exc)) from None
    if resume:
        if store.plan() != plan:
            store.close()
            raise RunError(f"{folder}: the boards or rooms differ from those of the run being resumed (give the "
                           "same --boards, --board-range, --seed and --rooms as when it started)")
    else:
        try:
            store.set_plan(boards, plan)
        except StoreError as exc:
            store.close()
            raise RunError(str(exc)) from None
    try:
        store.set_settings(settings.model_dump(mode="json"))
    except StoreError as exc:
        store.close()
        raise RunError(str(exc)) from None
    return store, matches


async def _serve(settings: TableManagerSettings, store: ResultsStore, matches: Optional[list[MatchSpec]],
                 publisher: Optional[EventPublisher], deal_delay_seconds: Optional[float]) -> int:
    try:
        tm = TableManager(settings, store, matches, publisher=publisher, deal_delay_seconds=deal_delay_seconds)
    except StoreWriteError as exc:  # (the match file's matches could not be stored)
        _stopped_on_store(str(exc), 0)
        return EXIT_STORE_FAILED
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    port = await tm.start()
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
          "Make the results folder writable (or free space), then continue with --resume.", file=sys.stderr,
          flush=True)


async def _run(settings: TableManagerSettings, resume: bool, mqtt: Optional[MqttSettings]) -> int:
    # the publisher first: an embedded broker that cannot listen stops the run before the store is created
    publisher = await start_publisher(mqtt)
    try:
        store, matches = prepare_run(settings, resume=resume)
        try:
            code = await _serve(settings, store, matches, publisher, None if mqtt is None else mqtt.deal_delay_seconds)
            if code == EXIT_STORE_FAILED:  # (the folder cannot take the files either; the store holds what counts)
                return code
            try:
                summary = write_outputs(store, settings.results_dir,
                                        seed=None if settings.boards_file is not None else settings.seed)
            except OSError as exc:  # (a full disk or read-only folder at the very end: the store has every board)
                print(f"squeeze tm: stopped, the results files cannot be written to {settings.results_dir}: "
                      f"{exc.strerror or exc}\nsqueeze tm: every finished board is in the results store; make the "
                      "folder writable (or free space), then run the same command with --resume to write the files.",
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


def run_tm(settings: TableManagerSettings, *, resume: bool, mqtt: Optional[MqttSettings] = None) -> int:
    """Prepare, serve until every match is over (or a signal), write the files; the exit code. With ``mqtt``
    enabled, every table's live events are published (``robot.events``), the embedded broker started first."""
    return asyncio.run(_run(settings, resume, mqtt))
