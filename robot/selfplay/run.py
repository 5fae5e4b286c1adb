"""A self-play run: ``prepare_run`` (the teams, the deals, the store, the resume check) and ``run_selfplay`` (the
chunks on an executor, every finished board committed as it comes, the SPRT, the files).

The run is one match, ``selfplay``, of the table manager's results store (``robot.tm.store``) in ``OUT/
results.sqlite``, rooms ``Open`` and ``Closed``. Its plan holds the deals' checksum and the full configuration (each
team's engine parameters and a digest of its bidding system files, the seed, the hard limit per decision): the same
command in the same folder resumes the run and plays only the boards not yet in the store; a command with anything
else is refused, naming what differs.
Both rooms of a board (and its double-dummy table) go into the store in one transaction, and a robot error voids the
board in both rooms, also for good; so a run killed at any instant and started again plays every board exactly once.

Files, written from the store (never from memory) at the end and when stopped: ``boards.pbn`` (both rooms, no
timings: the same seed gives the same bytes), ``selfplay.lin`` (vugraph), ``summary.json`` (``robot.summary``),
``imps.png`` (with matplotlib).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import structlog

from squeeze.config.settings import SelfPlaySettings, SettingsError, available_presets, engine_params, load_settings
from squeeze.engine.cards import BridgeError
from squeeze.engine.player import PlayerParams
from squeeze.engine.record import BoardRecord
from squeeze.engine.stats import ImpSummary, Sprt, SprtResult, imp_summary
from squeeze.engine.teams import CLOSED, OPEN, BoardComparison, compare_board
from squeeze.robot.events import RoomsFeed
from squeeze.robot.summary import sprt_figures
from squeeze.robot.tm.export import store_summary, write_boards, write_summary
from squeeze.robot.tm.plan import random_boards
from squeeze.robot.tm.store import STORE_FILE, DuplicateBoardError, ResultsStore, StoreError, plan_differences

from .executors import ExecutorError, open_executor
from .report import plot_running, sprt_state
from .worker import BoardOutcome, Job, run_chunk

__all__ = ["SelfPlayError", "StrictStop", "ExecutorError", "Team", "load_team", "Prepared", "prepare_run",
           "RunProgress", "FinishedBoard", "RunReport", "run_selfplay", "write_files", "MATCH", "MAX_ATTEMPTS"]

MATCH = "selfplay"  #: the run's match name in the store
#: A chunk lost this many times is split into single boards; a single board lost this many times is voided.
MAX_ATTEMPTS = 3

_log = structlog.get_logger("squeeze.selfplay")


class SelfPlayError(RuntimeError):
    """A run that cannot start or go on: bad input, a resume with another configuration, an error under --strict."""


class StrictStop(SelfPlayError):
    """A robot error stopped the run (``strict``): the board is not voided, the same command plays it again."""


@dataclass(frozen=True)
class Team:
    name: str  #: the preset's name, or the TOML file's stem
    source: str  #: what was given: a preset name or a file path
    params: PlayerParams


def load_team(spec: str, *, seed: int, config_file: Optional[str] = None, preset: Optional[str] = None,
              engine: Optional[dict[str, Any]] = None) -> Team:
    """A team's engine from ``spec``: a preset name (over ``config_file``), or a TOML settings file (over
    ``preset``); ``engine`` holds flags given for both teams, the highest layer. Every robot is seeded with the run's
    ``seed``, so that two teams meet the same random streams.

    Raises ``SelfPlayError`` for a spec that is neither, or settings the engine refuses."""
    overrides = dict(engine or {}, seed=seed)
    try:
        if spec in available_presets():
            settings, name = load_settings(config_file, preset=spec, engine=overrides), spec
        elif Path(spec).is_file():
            settings, name = load_settings(spec, preset=preset, engine=overrides), Path(spec).stem
        else:
            raise SelfPlayError(f"team {spec!r} is neither a preset ({', '.join(available_presets())}) nor a "
                                "TOML settings file")
        return Team(name, spec, engine_params(settings))
    except (OSError, SettingsError, BridgeError) as exc:
        raise SelfPlayError(f"team {spec}: {exc}") from None


@dataclass
class Prepared:
    store: ResultsStore
    job: Job
    deals: list[BoardRecord]
    plan: dict
    teams: tuple[Team, Team]


def _plan_params(params: PlayerParams) -> dict:
    """A team's parameters as the plan records them: all of them but the build of the double-dummy search, which
    gives the same answers either way (a run resumes on a machine without x86-64-v3)."""
    out = dataclasses.asdict(params)
    del out["play"]["solver_core"]
    return out


def prepare_run(settings: SelfPlaySettings, teams: tuple[Team, Team]) -> Prepared:
    """Deal the boards, build the plan and open the store in ``settings.out``: a new run, or the same run resumed.

    Raises ``SelfPlayError``: a folder that cannot be made, a store holding another run (what differs is named), a
    bidding system or solver that cannot be loaded (checked here, not once per board in every worker)."""
    from squeeze.config.bidding import BiddingSystemError, load_system, system_digest
    from squeeze.engine.play.oracle import SolverUnavailable, default_oracle

    for team in teams:
        try:
            for name in (team.params.system, team.params.opponents_system):
                if name is not None:
                    load_system(name)
        except BiddingSystemError as exc:
            raise SelfPlayError(f"team {team.source}: {exc}") from None
    try:
        default_oracle(1)  # (the smallest table: only whether the solver is built)
    except SolverUnavailable as exc:
        raise SelfPlayError(str(exc)) from None
    event = f"Squeeze self-play: {teams[0].name} v {teams[1].name}"
    dealt = random_boards(1, settings.boards, settings.seed)
    digest = hashlib.sha256("\n".join(b.to_json() for b in dealt).encode()).hexdigest()  # the deals alone
    deals = [dataclasses.replace(b, event=event) for b in dealt]
    # the plan goes through JSON before it is compared with a stored one, which comes back from JSON (tuples: lists)
    plan = json.loads(json.dumps({
        "kind": "selfplay", "rooms": 2, "boards": settings.boards, "digest": digest, "seed": settings.seed,
        "decision_seconds": settings.decision_seconds,
        # the rule files' contents, not only their names: a resume after a rule changed is another run
        "teams": {label: {"name": t.name, "engine": _plan_params(t.params),
                          "rules": {name: system_digest(name)
                                    for name in {t.params.system, t.params.opponents_system or t.params.system}}}
                  for label, t in zip(("a", "b"), teams)},
    }, sort_keys=True))
    folder = Path(settings.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SelfPlayError(f"cannot create the output folder {folder}: {exc.strerror}") from None
    path = folder / STORE_FILE
    resume = path.exists() and path.stat().st_size > 0
    try:
        store = ResultsStore(path, create=not resume)
    except StoreError as exc:
        raise SelfPlayError(str(exc)) from None
    stored = store.plan()
    if resume and stored != plan:
        store.close()
        if stored is None or stored.get("kind") != "selfplay":
            raise SelfPlayError(f"{folder} holds a run that is not a self-play run; choose another --out")
        raise SelfPlayError(f"{folder} holds a self-play run with another configuration; to resume it give the same "
                            "options as when it started, or choose another --out. Differences: "
                            + "; ".join(plan_differences(stored, plan)))
    if stored is None:
        store.set_plan(deals, plan)
    if not any(m.name == MATCH for m in store.matches()):  # (also when a kill came between the two transactions)
        store.add_match(MATCH, 2, teams[0].name, teams[1].name)
    job = Job(key=digest + ":" + hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()[:16],
              teams=(teams[0].params, teams[1].params), names=(teams[0].name, teams[1].name),
              limit_seconds=settings.decision_seconds, event=event)
    return Prepared(store, job, deals, plan, teams)


@dataclass
class RunProgress:
    """The state of a run, given to the progress callback after each chunk and at the end."""

    planned: int
    done: int  #: boards finished (compared or voided), this session and before
    voided: int
    summary: ImpSummary  #: IMPs per board so far
    started: float  #: time.monotonic() at the start of this session
    done_at_start: int
    sprt: Optional[SprtResult] = None
    workers: list[int] = field(default_factory=list)  #: the worker processes' ids, where the executor knows them

    @property
    def eta_seconds(self) -> float:
        """Time to finish all planned boards at this session's pace (NaN before the first board)."""
        rate = (self.done - self.done_at_start) / max(1e-9, time.monotonic() - self.started)
        return math.nan if rate <= 0 else (self.planned - self.done) / rate


@dataclass(frozen=True)
class FinishedBoard:
    """One board as it is stored: both rooms' records and their comparison, or the error that voided it."""

    board: int
    open: Optional[BoardRecord] = None
    closed: Optional[BoardRecord] = None
    comparison: Optional[BoardComparison] = None
    error: Optional[str] = None


@dataclass
class RunReport:
    summary: dict
    stopped: Optional[str]  #: None: every planned board done; "sprt": the test decided; "interrupted"
    out: Path


def _parse_sprt(settings: SelfPlaySettings) -> Optional[Sprt]:
    if settings.sprt is None:
        return None
    m0, m1 = (float(x) for x in settings.sprt.split(","))
    try:
        return Sprt(m0, m1, settings.alpha, settings.beta, settings.sprt_min_boards)
    except BridgeError as exc:
        raise SelfPlayError(f"--sprt {settings.sprt}: {exc}") from None


def _chunks(boards: list[BoardRecord], size: int) -> deque[tuple[tuple[int, str], ...]]:
    items = [(b.board, b.deal.to_pbn()) for b in boards]
    return deque(tuple(items[i:i + size]) for i in range(0, len(items), size))


class _Run:
    """The state of one session of a run: what is done, the comparisons, the SPRT."""

    def __init__(self, prep: Prepared, settings: SelfPlaySettings, sprt: Optional[Sprt],
                 on_board: Optional[Callable[[FinishedBoard], None]] = None, events: Any = None) -> None:
        self.prep, self.settings, self.sprt, self.on_board = prep, settings, sprt, on_board
        store = prep.store
        self.boards = [b.board for b in prep.deals]
        self.deals = {b.board: b for b in prep.deals}
        self.voided = store.errors(MATCH)
        dd = store.dd_tables()
        rooms: dict[int, dict[str, BoardRecord]] = {}
        for row in store.results():
            if row.match == MATCH:
                rooms.setdefault(row.board, {})[row.room] = row.record
        self.comparisons: dict[int, BoardComparison] = {
            b: compare_board(r[OPEN], r[CLOSED], dd[b]) for b, r in rooms.items() if len(r) == 2 and b in dd}
        # live events: each room's boards so far (a resumed run's summaries count them too)
        self.feed = None if events is None else RoomsFeed(events, prep.job.event, MATCH, finished={
            room: [rooms[b][room] for b in sorted(self.comparisons)] for room in (OPEN, CLOSED)})
        self.done = set(self.comparisons) | set(self.voided)
        self.chunks_done = 0  # chunks that came back this session
        self.losses = 0  # chunks lost this session

    def sprt_result(self) -> Optional[SprtResult]:
        if self.sprt is None:
            return None
        ordered = [self.comparisons[b] for b in sorted(self.comparisons)]
        return sprt_state(self.sprt, ordered, self.done, self.boards)

    def record(self, outcome: BoardOutcome) -> None:
        """Commit one board's outcome (both rooms, or its void) and count it."""
        store, b = self.prep.store, outcome.board
        if b in self.done:  # a chunk played twice (its first run's result came after all): already counted
            return
        if outcome.error is not None:
            if self.settings.strict:
                raise StrictStop(f"board {b}: {outcome.error} (--strict: stopped; without it the board is voided "
                                 "and the run goes on)")
            _log.warning("selfplay.void", board=b, error=outcome.error)
            store.void_board(MATCH, (OPEN, CLOSED), b, outcome.error)
            self.voided[b] = outcome.error
            finished = FinishedBoard(b, error=outcome.error)
        else:
            rec_open, rec_closed = BoardRecord.from_json(outcome.open), BoardRecord.from_json(outcome.closed)
            try:
                store.commit_boards(MATCH, [(OPEN, rec_open, ()), (CLOSED, rec_closed, ())], dd=(b, outcome.dd))
            except DuplicateBoardError:
                return
            self.comparisons[b] = compare_board(rec_open, rec_closed, outcome.dd)  # type: ignore[arg-type]
            finished = FinishedBoard(b, rec_open, rec_closed, self.comparisons[b])
            if self.feed is not None:  # (stored first: an event never tells of a board the store lacks)
                self.feed.board_finished({OPEN: rec_open, CLOSED: rec_closed})
        self.done.add(b)
        if self.on_board is not None:
            self.on_board(finished)

    def lost(self, chunk: tuple, error: str, attempts: dict, queue: deque) -> None:
        """A chunk whose worker died: again (first in line), split into boards, or, for one board lost too often,
        voided (a board that kills its worker every time)."""
        n = attempts[chunk] = attempts.get(chunk, 0) + 1
        self.losses += 1
        _log.warning("selfplay.chunk_lost", boards=[b for b, _ in chunk], attempt=n, error=error)
        if self.chunks_done == 0 and self.losses >= MAX_ATTEMPTS:
            # nothing has ever come back: the workers cannot run at all (not a board's fault), so no board is voided
            raise SelfPlayError(f"the workers died {self.losses} times before finishing any board: {error}")
        if n < MAX_ATTEMPTS:
            queue.appendleft(chunk)
        elif len(chunk) > 1:
            queue.extendleft(reversed([(item,) for item in chunk]))
        else:
            self.record(BoardOutcome(chunk[0][0], error=f"its worker was lost {n} times: {error}"))

    def progress(self, started: float, done_at_start: int, workers: list[int]) -> RunProgress:
        ordered = [self.comparisons[b] for b in sorted(self.comparisons)]
        return RunProgress(len(self.boards), len(self.done), len(self.voided),
                           imp_summary([c.swing for c in ordered]), started, done_at_start, self.sprt_result(),
                           workers)


def run_selfplay(settings: SelfPlaySettings, teams: tuple[Team, Team], *,
                 progress: Optional[Callable[[RunProgress], None]] = None,
                 on_board: Optional[Callable[[FinishedBoard], None]] = None, events: Any = None) -> RunReport:
    """Play (or resume) the run ``settings`` describes between ``teams`` (A, B) and write its files.

    ``progress`` is called after every chunk with a ``RunProgress``, ``on_board`` with each board as it is stored
    (``FinishedBoard``); ``events`` (an ``events.EventPublisher`` or ``BackgroundPublisher``, started) gets every
    finished board's live events, the table manager's schema, tables ``selfplay.Open`` and ``selfplay.Closed``
    (``events.RoomsFeed``). Ctrl-C (``KeyboardInterrupt``) stops the run
    cleanly: the files are written from what the store holds and the report says ``interrupted``; the same command
    continues. Raises ``SelfPlayError`` (bad input, another run in the folder, a robot error under ``strict``) and
    ``ExecutorError`` (Dask missing or unreachable)."""
    sprt = _parse_sprt(settings)
    prep = prepare_run(settings, teams)
    try:
        run = _Run(prep, settings, sprt, on_board, events)
        try:
            stopped = _play(run, settings, progress)
        except SelfPlayError:
            write_files(run, settings)  # what finished before the error stays readable
            raise
        return RunReport(write_files(run, settings), stopped, Path(settings.out))
    finally:
        prep.store.close()


def _play(run: _Run, settings: SelfPlaySettings, progress: Optional[Callable[[RunProgress], None]]) -> Optional[str]:
    started, done_at_start = time.monotonic(), len(run.done)
    state = run.sprt_result()
    if state is not None and state.verdict != "continue":
        return "sprt"  # decided in an earlier session: nothing more to play
    queue = _chunks([run.deals[b] for b in run.boards if b not in run.done], settings.chunk_boards)
    if not queue:
        return None
    pool = open_executor(settings.executor, settings.workers)
    in_flight: dict[Any, tuple] = {}
    attempts: dict[tuple, int] = {}
    stopped: Optional[str] = None
    _log.info("selfplay.start", boards=len(run.boards), done=len(run.done), workers=pool.workers,
              executor=settings.executor)
    try:
        while (queue or in_flight) and stopped is None:
            # two chunks per worker in flight: none idles between chunks, and a stop wastes little
            while queue and len(in_flight) < 2 * pool.workers:
                chunk = queue.popleft()
                if all(b in run.done for b, _ in chunk):
                    continue
                in_flight[pool.submit(run_chunk, run.prep.job, chunk)] = chunk
            for future in pool.wait(list(in_flight), timeout=1.0):
                chunk = in_flight.pop(future)
                try:
                    outcomes = pool.result(future)
                except Exception as exc:  # a lost worker (ChunkLost), or a bug in the worker's own code
                    run.lost(chunk, f"{type(exc).__name__}: {exc}", attempts, queue)
                    continue
                run.chunks_done += 1
                for outcome in outcomes:
                    run.record(outcome)
                state = run.sprt_result()
                if state is not None and state.verdict != "continue":
                    stopped = "sprt"
                    _log.info("selfplay.sprt", verdict=state.verdict, boards=state.boards, llr=state.llr)
                    break
            if progress is not None:
                progress(run.progress(started, done_at_start, pool.worker_pids()))
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        # stopped early (SPRT, Ctrl-C, an error): chunks still running are of no use, their boards are not stored
        pool.close(cancel=bool(in_flight) or stopped is not None)
    if progress is not None:
        progress(run.progress(started, done_at_start, []))
    return stopped


def write_files(run: _Run, settings: SelfPlaySettings) -> dict:
    """``boards.pbn``, ``selfplay.lin``, ``summary.json`` and ``imps.png`` in ``settings.out``, from the store."""
    out = Path(settings.out)
    write_boards(run.prep.store, out, timing=False)
    state = run.sprt_result()
    summary = store_summary(run.prep.store, "selfplay", double_dummy=True, seed=settings.seed,
                            sprt=None if state is None else sprt_figures(run.sprt, state))  # type: ignore[arg-type]
    write_summary(out, summary)
    plot_running([run.comparisons[b] for b in sorted(run.comparisons)], out / "imps.png")
    return summary.to_dict()
