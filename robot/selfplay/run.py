"""A self-play run: ``prepare_run`` (the teams, the deals, the store, the resume check) and ``run_selfplay`` (the
chunks on an executor, every finished board committed as it comes, the SPRT, the files); and what a tournament
(``robot.selfplay.tournament``) shares with it: ``Run``, the state of a run of one or more matches over one store,
and ``play``, the loop that plays their chunks.

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
import itertools
import json
import math
import time
import tomllib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import structlog

from squeeze.config.settings import (
    PoolRunSettings, SelfPlaySettings, SettingsError, available_presets, engine_params, load_settings,
)
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
from .worker import BoardOutcome, ChunkItem, Job, run_chunk

__all__ = ["SelfPlayError", "StrictStop", "ExecutorError", "Team", "load_team", "check_engines", "engine_plan",
           "deals_digest", "Pairing", "Prepared", "open_store", "prepare_run", "RunProgress", "eta_seconds",
           "FinishedBoard", "RunReport", "parse_sprt", "Run", "play", "run_selfplay", "write_files", "MATCH",
           "MAX_ATTEMPTS"]

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


def _file_seed(path: str) -> Optional[int]:
    """The ``[engine] seed`` a settings file sets itself, if any."""
    try:
        seed = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("engine", {}).get("seed")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return None  # (load_settings reports what is wrong with the file)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def load_team(spec: str, *, seed: int, config_file: Optional[str] = None, preset: Optional[str] = None,
              engine: Optional[dict[str, Any]] = None, name: Optional[str] = None) -> Team:
    """A team's engine from ``spec``: a preset name (over ``config_file``), or a TOML settings file (over
    ``preset``); ``engine`` holds flags given for every team, the highest layer. Every robot is seeded with the run's
    ``seed``, so that two teams meet the same random streams, unless its own TOML file sets ``[engine] seed`` (the
    same engine with another seed: a measure of the noise). ``name``: the team's name (default: the preset's name,
    or the file's stem).

    Raises ``SelfPlayError`` for a spec that is neither, or settings the engine refuses."""
    try:
        if spec in available_presets():
            overrides = dict(engine or {}, seed=seed)
            settings, default_name = load_settings(config_file, preset=spec, engine=overrides), spec
        elif Path(spec).is_file():
            file_seed = _file_seed(spec)
            overrides = dict(engine or {}, seed=seed if file_seed is None else file_seed)
            settings, default_name = load_settings(spec, preset=preset, engine=overrides), Path(spec).stem
        else:
            raise SelfPlayError(f"team {spec!r} is neither a preset ({', '.join(available_presets())}) nor a "
                                "TOML settings file")
        return Team(name or default_name, spec, engine_params(settings))
    except (OSError, SettingsError, BridgeError) as exc:
        raise SelfPlayError(f"team {spec}: {exc}") from None


def check_engines(teams: Sequence[Team]) -> None:
    """Refuse, before any worker starts, a bidding system that cannot be loaded or a solver that is not built
    (checked here once, not once per board in every worker)."""
    from squeeze.config.bidding import BiddingSystemError, load_system
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


def _plan_params(params: PlayerParams) -> dict:
    """A team's parameters as the plan records them: all of them but the build of the double-dummy search, which
    gives the same answers either way (a run resumes on a machine without x86-64-v3)."""
    out = dataclasses.asdict(params)
    del out["play"]["solver_core"]
    return out


def engine_plan(team: Team) -> dict:
    """What a run's plan records of a team: its engine parameters (``_plan_params``) and the rule files' contents,
    not only their names (a resume after a rule changed is another run)."""
    from squeeze.config.bidding import system_digest

    return {"name": team.name, "engine": _plan_params(team.params),
            "rules": {name: system_digest(name)
                      for name in {team.params.system, team.params.opponents_system or team.params.system}}}


def deals_digest(deals: Sequence[BoardRecord]) -> str:
    """The checksum of a run's deals (each board's deal, dealer and vulnerability)."""
    return hashlib.sha256("\n".join(b.to_json() for b in deals).encode()).hexdigest()


@dataclass(frozen=True)
class Pairing:
    """One match of a run: its name in the store, its two teams' names (A first) and the ``Job`` its chunks carry
    (``None``: played elsewhere, through the table manager)."""

    match: str
    names: tuple[str, str]
    job: Optional[Job]


@dataclass
class Prepared:
    store: ResultsStore
    deals: list[BoardRecord]
    plan: dict
    pairings: list[Pairing]


def open_store(folder: Path, deals: list[BoardRecord], plan: dict, pairings: list[Pairing], *,
               what: str) -> Prepared:
    """The store in ``folder`` for ``plan``: a new run (the deals, the plan and every pairing's match stored), or the
    same run resumed. ``what`` names the kind of run in errors ("self-play run", "tournament").

    Raises ``SelfPlayError``: a folder that cannot be made, a store holding another run (what differs is named)."""
    # the plan goes through JSON before it is compared with a stored one, which comes back from JSON (tuples: lists)
    plan = json.loads(json.dumps(plan, sort_keys=True))
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
        if stored is None or stored.get("kind") != plan["kind"]:
            raise SelfPlayError(f"{folder} holds a run that is not a {what}; choose another --out")
        raise SelfPlayError(f"{folder} holds a {what} with another configuration; to resume it give the same "
                            "options as when it started, or choose another --out. Differences: "
                            + "; ".join(plan_differences(stored, plan)))
    try:
        if stored is None:
            store.set_plan(deals, plan)
        known = {m.name for m in store.matches()}
        for p in pairings:  # (also when a kill came between the plan and the matches: separate transactions)
            if p.match not in known:
                store.add_match(p.match, 2, *p.names)
    except StoreError as exc:
        store.close()
        raise SelfPlayError(str(exc)) from None
    return Prepared(store, deals, plan, pairings)


def prepare_run(settings: SelfPlaySettings, teams: tuple[Team, Team]) -> Prepared:
    """Deal the boards, build the plan and open the store in ``settings.out``: a new run, or the same run resumed.

    Raises ``SelfPlayError``: a folder that cannot be made, a store holding another run (what differs is named), a
    bidding system or solver that cannot be loaded."""
    check_engines(teams)
    event = f"Squeeze self-play: {teams[0].name} v {teams[1].name}"
    dealt = random_boards(1, settings.boards, settings.seed)
    digest = deals_digest(dealt)  # the deals alone
    deals = [dataclasses.replace(b, event=event) for b in dealt]
    plan = {"kind": "selfplay", "rooms": 2, "boards": settings.boards, "digest": digest, "seed": settings.seed,
            "decision_seconds": settings.decision_seconds,
            "teams": {label: engine_plan(t) for label, t in zip(("a", "b"), teams)}}
    job = Job(teams=(teams[0].params, teams[1].params), names=(teams[0].name, teams[1].name),
              limit_seconds=settings.decision_seconds, event=event)
    return open_store(Path(settings.out), deals, plan, [Pairing(MATCH, job.names, job)], what="self-play run")


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
        return eta_seconds(self.planned, self.done, self.done_at_start, self.started)


def eta_seconds(planned: int, done: int, done_at_start: int, started: float) -> float:
    """Time to finish ``planned`` boards at the pace since ``started`` (``time.monotonic()``; NaN before the first
    board of the session)."""
    rate = (done - done_at_start) / max(1e-9, time.monotonic() - started)
    return math.nan if rate <= 0 else (planned - done) / rate


@dataclass(frozen=True)
class FinishedBoard:
    """One board of ``match`` as it is stored: both rooms' records and their comparison, or the error that voided
    it."""

    board: int
    open: Optional[BoardRecord] = None
    closed: Optional[BoardRecord] = None
    comparison: Optional[BoardComparison] = None
    error: Optional[str] = None
    match: str = MATCH


@dataclass
class RunReport:
    summary: dict
    stopped: Optional[str]  #: None: every planned board done; "sprt": the test decided; "interrupted"
    out: Path


def parse_sprt(settings: PoolRunSettings) -> Optional[Sprt]:
    if settings.sprt is None:
        return None
    m0, m1 = (float(x) for x in settings.sprt.split(","))
    try:
        return Sprt(m0, m1, settings.alpha, settings.beta, settings.sprt_min_boards)
    except BridgeError as exc:
        raise SelfPlayError(f"--sprt {settings.sprt}: {exc}") from None


class Run:
    """The state of one session of a run of one or more matches: what is done, the comparisons, the SPRT of each
    match played here (``Pairing.job``), and committing a board's outcome to the store; then telling of it:
    ``on_board`` with each board as it is stored (``FinishedBoard``), and ``events`` (an ``events.EventPublisher``
    or ``BackgroundPublisher``, started) with each match's live events, tables ``<match>.Open`` and
    ``<match>.Closed`` (``events.RoomsFeed``)."""

    def __init__(self, prep: Prepared, *, strict: bool, sprt: Optional[Sprt],
                 on_board: Optional[Callable[[FinishedBoard], None]] = None, events: Any = None) -> None:
        self.prep, self.strict, self.sprt, self.on_board = prep, strict, sprt, on_board
        store = prep.store
        self.boards = [b.board for b in prep.deals]
        self.deals = {b.board: b for b in prep.deals}
        self.pairings = {p.match: p for p in prep.pairings}
        self.dd = store.dd_tables()
        self.voided: dict[str, dict[int, str]] = {m: store.errors(m) for m in self.pairings}
        rooms: dict[tuple[str, int], dict[str, BoardRecord]] = {}
        for row in store.results():
            if row.match in self.pairings:
                rooms.setdefault((row.match, row.board), {})[row.room] = row.record
        self.comparisons: dict[str, dict[int, BoardComparison]] = {m: {} for m in self.pairings}
        for (m, b), r in rooms.items():
            if len(r) == 2 and b in self.dd:
                self.comparisons[m][b] = compare_board(r[OPEN], r[CLOSED], self.dd[b])
        self.done = {m: set(self.comparisons[m]) | set(self.voided[m]) for m in self.pairings}
        # live events: each room's boards so far (a resumed run's summaries count them too)
        event = prep.deals[0].event if prep.deals else ""
        self.feeds: dict[str, RoomsFeed] = {} if events is None else {
            m: RoomsFeed(events, event, m, finished={
                room: [rooms[m, b][room] for b in sorted(self.comparisons[m])] for room in (OPEN, CLOSED)})
            for m in self.pairings}
        self.chunks_done = 0  # chunks that came back this session
        self.losses = 0  # chunks lost this session

    def ordered(self, match: str) -> list[BoardComparison]:
        """The match's comparisons in board order."""
        return [c for _, c in sorted(self.comparisons[match].items())]

    def sprt_result(self, match: str) -> Optional[SprtResult]:
        """The match's SPRT state (None: no SPRT, or a match not played here)."""
        if self.sprt is None or self.pairings[match].job is None:
            return None
        return sprt_state(self.sprt, self.ordered(match), self.done[match], self.boards)

    def decided(self, match: str) -> bool:
        state = self.sprt_result(match)
        return state is not None and state.verdict != "continue"

    def left(self, match: str) -> list[int]:
        """The boards the match has still to play (none once its SPRT decided)."""
        return [] if self.decided(match) else [b for b in self.boards if b not in self.done[match]]

    def items(self, boards: Sequence[int]) -> tuple[ChunkItem, ...]:
        """What a worker is sent for ``boards``: each deal, and whether its double-dummy table is still wanted."""
        return tuple((b, self.deals[b].deal.to_pbn(), int(self.deals[b].dealer), int(self.deals[b].vul),
                      b not in self.dd) for b in boards)

    def commit(self, match: str, rec_open: BoardRecord, rec_closed: BoardRecord, dd: Optional[list]) -> bool:
        """Store both rooms of a board of ``match`` (and the deal's double-dummy table, unless it is known already)
        in one transaction, and count it; False when the store already had it."""
        b = rec_open.board
        if b in self.done[match]:
            return False
        known = dd is None
        dd = self.dd[b] if known else dd
        try:
            self.prep.store.commit_boards(match, [(OPEN, rec_open, ()), (CLOSED, rec_closed, ())],
                                          dd=None if known else (b, dd))
        except DuplicateBoardError:
            return False
        self.dd[b] = dd  # type: ignore[assignment]
        self.comparisons[match][b] = compare_board(rec_open, rec_closed, dd)
        self.done[match].add(b)
        if match in self.feeds:  # (stored first: an event never tells of a board the store lacks)
            self.feeds[match].board_finished({OPEN: rec_open, CLOSED: rec_closed})
        if self.on_board is not None:
            self.on_board(FinishedBoard(b, rec_open, rec_closed, self.comparisons[match][b], match=match))
        return True

    def record(self, match: str, outcome: BoardOutcome) -> None:
        """Commit one board's outcome (both rooms, or its void) and count it."""
        store, b = self.prep.store, outcome.board
        if b in self.done[match]:  # a chunk played twice (its first run's result came after all): already counted
            return
        if outcome.error is not None:
            where = "" if match == MATCH else f"{match}: "
            if self.strict:
                raise StrictStop(f"{where}board {b}: {outcome.error} (--strict: stopped; without it the board is "
                                 "voided and the run goes on)")
            _log.warning("selfplay.void", match=match, board=b, error=outcome.error)
            store.void_board(match, (OPEN, CLOSED), b, outcome.error)
            self.voided[match][b] = outcome.error
            self.done[match].add(b)
            if self.on_board is not None:
                self.on_board(FinishedBoard(b, error=outcome.error, match=match))
        else:
            self.commit(match, BoardRecord.from_json(outcome.open or ""), BoardRecord.from_json(outcome.closed or ""),
                        outcome.dd)

    def lost(self, item: tuple[str, tuple[int, ...]], error: str, attempts: dict, queue: deque) -> None:
        """A chunk whose worker died: again (first in line), split into boards, or, for one board lost too often,
        voided (a board that kills its worker every time)."""
        match, boards = item
        n = attempts[item] = attempts.get(item, 0) + 1
        self.losses += 1
        _log.warning("selfplay.chunk_lost", match=match, boards=list(boards), attempt=n, error=error)
        if self.chunks_done == 0 and self.losses >= MAX_ATTEMPTS:
            # nothing has ever come back: the workers cannot run at all (not a board's fault), so no board is voided
            raise SelfPlayError(f"the workers died {self.losses} times before finishing any board: {error}")
        if n < MAX_ATTEMPTS:
            queue.appendleft(item)
        elif len(boards) > 1:
            queue.extendleft(reversed([(match, (b,)) for b in boards]))
        else:
            self.record(match, BoardOutcome(boards[0], error=f"its worker was lost {n} times: {error}"))

    def progress(self, started: float, done_at_start: int, workers: list[int]) -> RunProgress:
        """The progress of a run of one match (self-play)."""
        ordered = self.ordered(MATCH)
        return RunProgress(len(self.boards), len(self.done[MATCH]), len(self.voided[MATCH]),
                           imp_summary([c.swing for c in ordered]), started, done_at_start, self.sprt_result(MATCH),
                           workers)

    def finished(self) -> int:
        """Boards finished (compared or voided) over every match."""
        return sum(len(d) for d in self.done.values())


def run_selfplay(settings: SelfPlaySettings, teams: tuple[Team, Team], *,
                 progress: Optional[Callable[[RunProgress], None]] = None,
                 on_board: Optional[Callable[[FinishedBoard], None]] = None, events: Any = None) -> RunReport:
    """Play (or resume) the run ``settings`` describes between ``teams`` (A, B) and write its files.

    ``progress`` is called after every chunk with a ``RunProgress``, ``on_board`` with each board as it is stored
    (``FinishedBoard``); ``events`` (an ``events.EventPublisher`` or ``BackgroundPublisher``, started) gets every
    finished board's live events, the table manager's schema, tables ``selfplay.Open`` and ``selfplay.Closed``
    (``events.RoomsFeed``). Ctrl-C (``KeyboardInterrupt``) stops the run cleanly: the files are written from what
    the store holds and the report says ``interrupted``; the same command continues. Raises ``SelfPlayError`` (bad
    input, another run in the folder, a robot error under ``strict``) and ``ExecutorError`` (Dask missing or
    unreachable)."""
    sprt = parse_sprt(settings)
    prep = prepare_run(settings, teams)
    try:
        run = Run(prep, strict=settings.strict, sprt=sprt, on_board=on_board, events=events)
        started, done_at_start = time.monotonic(), run.finished()
        notify = None if progress is None else (lambda workers: progress(run.progress(started, done_at_start,
                                                                                      workers)))
        try:
            stopped = play(run, settings, notify)
        except SelfPlayError:
            write_files(run, settings)  # what finished before the error stays readable
            raise
        if stopped is None and run.decided(MATCH):
            stopped = "sprt"
        return RunReport(write_files(run, settings), stopped, Path(settings.out))
    finally:
        prep.store.close()


def play(run: Run, settings: PoolRunSettings, notify: Optional[Callable[[list[int]], None]]) -> Optional[str]:
    """Play every board left of every match of ``run`` whose ``Pairing.job`` says it is played here, on the
    executor ``settings`` name; the matches' chunks in turn (board order within each), so that every match's
    figures grow together. A match whose SPRT decides gets no more chunks; once only decided matches are left, the
    chunks still running are dropped. ``notify(worker ids)`` after each round of results and at the end.

    Returns "interrupted" (Ctrl-C, SIGTERM) or None."""
    per_match = []
    for p in run.prep.pairings:
        if p.job is not None:
            left = run.left(p.match)
            per_match.append([(p.match, tuple(left[i:i + settings.chunk_boards]))
                              for i in range(0, len(left), settings.chunk_boards)])
    queue: deque[tuple[str, tuple[int, ...]]] = deque(
        item for round_ in itertools.zip_longest(*per_match) for item in round_ if item is not None)
    if not queue:
        return None
    pool = open_executor(settings.executor, settings.workers)
    in_flight: dict[Any, tuple[str, tuple[int, ...]]] = {}
    attempts: dict[tuple, int] = {}
    stopped: Optional[str] = None
    decided_only = False
    _log.info("selfplay.start", boards=len(run.boards), matches=len(per_match), chunks=len(queue),
              done=run.finished(), workers=pool.workers, executor=settings.executor)
    try:
        while (queue or in_flight) and not decided_only:
            # two chunks per worker in flight: none idles between chunks, and a stop wastes little
            while queue and len(in_flight) < 2 * pool.workers:
                match, boards = item = queue.popleft()
                if run.decided(match) or all(b in run.done[match] for b in boards):
                    continue
                job = run.pairings[match].job
                in_flight[pool.submit(run_chunk, job, run.items(boards))] = item
            for future in pool.wait(list(in_flight), timeout=1.0):
                item = in_flight.pop(future)
                try:
                    outcomes = pool.result(future)
                except Exception as exc:  # a lost worker (ChunkLost), or a bug in the worker's own code
                    run.lost(item, f"{type(exc).__name__}: {exc}", attempts, queue)
                    continue
                run.chunks_done += 1
                was_decided = run.decided(item[0])
                for outcome in outcomes:
                    run.record(item[0], outcome)
                state = run.sprt_result(item[0])
                if not was_decided and state is not None and state.verdict != "continue":
                    _log.info("selfplay.sprt", match=item[0], verdict=state.verdict, boards=state.boards,
                              llr=state.llr)
            pending = {m for m, _ in queue} | {m for m, _ in in_flight.values()}
            decided_only = bool(pending) and all(run.decided(m) for m in pending)
            if notify is not None:
                notify(pool.worker_pids())
    except KeyboardInterrupt:
        stopped = "interrupted"
    finally:
        # stopped early (SPRT, Ctrl-C, an error): chunks still running are of no use, their boards are not stored
        pool.close(cancel=bool(in_flight) or stopped is not None or decided_only)
    if notify is not None:
        notify([])
    return stopped


def write_files(run: Run, settings: SelfPlaySettings) -> dict:
    """``boards.pbn``, ``selfplay.lin``, ``summary.json`` and ``imps.png`` in ``settings.out``, from the store."""
    out = Path(settings.out)
    write_boards(run.prep.store, out, timing=False)
    state = run.sprt_result(MATCH)
    summary = store_summary(run.prep.store, "selfplay", double_dummy=True, seed=settings.seed,
                            sprt=None if state is None else sprt_figures(run.sprt, state))  # type: ignore[arg-type]
    write_summary(out, summary)
    plot_running(run.ordered(MATCH), out / "imps.png")
    return summary.to_dict()
