"""A tournament of N entrants (``squeeze tournament``): a round robin (every entrant against every other) or a
gauntlet (the first entrant against each of the others), every pairing a two-room match on the same boards (board
k is one deal for every pairing), with standings that carry their intervals.

- Entrants: ``NAME=SPEC`` (``parse_entrant``), SPEC a preset, a TOML settings file (``run.load_team``) or
  ``cmd:COMMAND``, an external robot launched once per seat (``"prog {host} {port} {seat}"``, as ``squeeze match
  --b-cmd``). Names are one word (letters, digits, ``_.+-``): they name teams at a table manager too.
- One results store in ``OUT/results.sqlite`` (``robot.tm.store``): the deals once, a match per pairing named ``"A
  v B"`` (A, the entrant listed first, sits N/S in the open room), each board of each pairing once. The plan holds
  the format, the order of the entrants, each one's engine (``run.engine_plan``) or command, the deals' checksum,
  the seed and the hard limit: the same command resumes, anything else is refused naming what differs.
- In-process pairings are played by ``run.play``, the loop self-play uses, their chunks in turn so that the
  standings grow evenly. A pairing with an external robot cannot be hosted by a worker: it is played after them, one
  at a time, through our table manager (``robot.match.run_match``, real TCP, in ``OUT/tm/<pairing>/`` with that
  manager's own store, fed the tournament's deals as a PBN file); each board it finishes is copied into the
  tournament's store (with the deal's double-dummy table), so a kill at any moment loses nothing and counts nothing
  twice: the same command resumes the match there and copies what is missing.
- A gauntlet's pairings may stop by SPRT (``--sprt M0,M1``: the first entrant gaining M0 or M1 IMPs per board over
  that opponent), each on its own; a round robin plays every board (its standings are over the field, and uneven
  pairings would weigh opponents unevenly). External pairings play every board.
- After every finished chunk (and every board of an external pairing) ``standings.json`` (``standings``) is
  written again from what the store holds; at the end also ``standings.png`` (one line per entrant with its
  interval; matplotlib is the optional extra ``plot``), ``boards.pbn`` (no timings: a seed gives the same bytes),
  one LIN file per pairing and ``summary.json`` (``robot.summary``, a match per pairing, source ``tournament``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import dataclasses
import math
import re
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import structlog

from squeeze.config.settings import TOURNAMENT_SEEDED_BOARDS, TournamentSettings
from squeeze.engine.pbn import encode_pbn, write_pbn
from squeeze.engine.record import BoardRecord
from squeeze.engine.stats import imp_summary
from squeeze.engine.teams import paired_rooms
from squeeze.robot.logs import configure_logging
from squeeze.robot.summary import sprt_figures
from squeeze.robot.tm.export import match_file_name, store_summary, write_boards, write_file, write_summary
from squeeze.robot.tm.plan import PlanError, load_boards, random_boards
from squeeze.robot.tm.store import STORE_FILE, ResultsStore, StoreError

from .report import plot_standings
from .run import (
    Pairing, Prepared, Run, SelfPlayError, Team, check_engines, deals_digest, engine_plan, eta_seconds, load_team,
    open_store, parse_sprt, play,
)
from .standings import PairingResult, Standings, build_standings
from .worker import Job

__all__ = ["TournamentError", "Entrant", "parse_entrant", "load_entrants", "pairings_of", "match_name",
           "prepare_tournament", "TournamentProgress", "TournamentReport", "run_tournament", "EVENT",
           "COMMAND_PREFIX", "IN_PROCESS", "TABLE_MANAGER"]

EVENT = "Squeeze tournament"
#: An entrant's SPEC that starts with this is an external robot's command.
COMMAND_PREFIX = "cmd:"
IN_PROCESS, TABLE_MANAGER = "in-process", "table-manager"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}")

_log = structlog.get_logger("squeeze.tournament")


class TournamentError(SelfPlayError):
    """A tournament that cannot start: too few entrants, a bad name or spec, a bad boards file, options that do
    not go together."""


@dataclass(frozen=True)
class Entrant:
    """One entrant: our engine (``team``) or an external robot (``command``); ``config`` is the SPEC as given."""

    name: str
    config: str
    team: Optional[Team] = None
    command: Optional[str] = None


def parse_entrant(text: str) -> tuple[str, str]:
    """``"NAME=SPEC"`` -> ``(NAME, SPEC)``; a bare SPEC is named after it (a preset's name, a file's stem).

    Raises ``TournamentError`` for an empty spec or a name that is not one word."""
    name, sep, spec = text.partition("=")
    if not sep or name.startswith(COMMAND_PREFIX) or "/" in name or name.endswith(".toml"):
        # (no "=" before the spec: a bare spec, which may itself hold "=" in a command)
        name, spec = "", text
    spec = spec.strip()
    if not spec or spec == COMMAND_PREFIX:
        raise TournamentError(f"entrant {text!r}: expected NAME=PRESET, NAME=FILE.toml or NAME=cmd:COMMAND")
    if not name:
        if spec.startswith(COMMAND_PREFIX):
            raise TournamentError(f"entrant {text!r}: an external robot needs a name (NAME=cmd:COMMAND)")
        name = Path(spec).stem
    name = name.strip()
    if not _NAME.fullmatch(name):
        raise TournamentError(f"entrant {text!r}: the name {name!r} must be one word of letters, digits and _.+- "
                              "(at most 32 characters): it names a team at the table")
    return name, spec


def load_entrants(texts: Sequence[str], *, seed: int, config_file: Optional[str] = None,
                  preset: Optional[str] = None, engine: Optional[dict[str, Any]] = None) -> list[Entrant]:
    """The entrants of ``texts`` (``parse_entrant``), in order; engines are loaded as ``run.load_team`` does (the
    run's ``seed`` unless an entrant's own TOML file sets one; ``engine``: flags given for every entrant).

    Raises ``TournamentError``: fewer than two, a name twice, a spec that is neither a preset, a file nor a
    command."""
    if len(texts) < 2:
        raise TournamentError(f"a tournament needs at least two entrants, got {len(texts)} (--entrant NAME=SPEC, "
                              "repeated, or [tournament] entrants)")
    out: list[Entrant] = []
    for text in texts:
        name, spec = parse_entrant(text)
        if any(e.name == name for e in out):
            raise TournamentError(f"two entrants are named {name!r}: give each its own name (NAME=SPEC)")
        if spec.startswith(COMMAND_PREFIX):
            command = spec.removeprefix(COMMAND_PREFIX).strip()
            if "{seat}" not in command:
                raise TournamentError(f"entrant {name}: the command must take {{seat}} (and {{host}}, {{port}}): it "
                                      "is launched once per seat")
            out.append(Entrant(name, spec, command=command))
        else:
            try:
                team = load_team(spec, seed=seed, config_file=config_file, preset=preset, engine=engine, name=name)
            except SelfPlayError as exc:
                raise TournamentError(f"entrant {name}: {exc}") from None
            out.append(Entrant(name, spec, team=team))
    return out


def pairings_of(format: str, names: Sequence[str]) -> list[tuple[str, str]]:
    """The pairings (A, B) of ``names``: a round robin's every pair (the one listed first is A), a gauntlet's first
    name against each of the others."""
    if format == "gauntlet":
        return [(names[0], other) for other in names[1:]]
    return list(combinations(names, 2))


def match_name(a: str, b: str) -> str:
    """The name of the pairing of A and B in the store (entrant names are one word, so it cannot be ambiguous)."""
    return f"{a} v {b}"


def _deals(settings: TournamentSettings) -> list[BoardRecord]:
    if settings.boards_file is None:
        return random_boards(1, settings.boards or TOURNAMENT_SEEDED_BOARDS, settings.seed)
    try:
        boards = load_boards(settings.boards_file)
    except PlanError as exc:
        raise TournamentError(str(exc)) from None
    if settings.boards is not None:
        if settings.boards > len(boards):
            raise TournamentError(f"boards file {settings.boards_file} has {len(boards)} boards; {settings.boards} "
                                  "asked for")
        boards = boards[:settings.boards]
    return [dataclasses.replace(b, event="") for b in boards]  # (the deals alone: the file's event is not a deal)


def prepare_tournament(settings: TournamentSettings, entrants: Sequence[Entrant]) -> Prepared:
    """Deal (or read) the boards, build the plan and open the store in ``settings.out``: a new tournament, or the
    same one resumed.

    Raises ``TournamentError`` (bad options, a bad boards file) and ``SelfPlayError`` (a folder that cannot be made,
    a store holding another run, naming what differs; a bidding system or solver that cannot be loaded)."""
    if settings.sprt is not None and settings.format != "gauntlet":
        raise TournamentError("--sprt stops a gauntlet's pairings; a round robin plays every board (its standings "
                              "are over the field): give --format gauntlet, or leave --sprt out")
    if len(entrants) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    check_engines([e.team for e in entrants if e.team is not None])
    dealt = _deals(settings)
    deals = [dataclasses.replace(b, event=EVENT) for b in dealt]
    names = [e.name for e in entrants]
    by_name = {e.name: e for e in entrants}
    pairs = pairings_of(settings.format, names)
    plan = {"kind": "tournament", "format": settings.format, "rooms": 2, "boards": len(deals),
            "digest": deals_digest(dealt), "seed": settings.seed, "decision_seconds": settings.decision_seconds,
            "order": names, "pairings": [list(p) for p in pairs],
            "entrants": {e.name: engine_plan(e.team) if e.team is not None else {"command": e.command}
                         for e in entrants}}
    pairings = []
    for a, b in pairs:
        teams = (by_name[a].team, by_name[b].team)
        job = None if None in teams else Job(teams=(teams[0].params, teams[1].params), names=(a, b),  # type: ignore
                                             limit_seconds=settings.decision_seconds, event=EVENT)
        pairings.append(Pairing(match_name(a, b), (a, b), job))
    return open_store(Path(settings.out), deals, plan, pairings, what="tournament")


@dataclass
class TournamentProgress:
    """The state of a tournament, given to the progress callback after each round of results and at the end."""

    standings: Standings
    planned: int  #: boards of every pairing, less those a decided SPRT spared
    done: int  #: boards finished (scored or voided) over every pairing, this session and before
    started: float  #: time.monotonic() at the start of this session
    done_at_start: int
    playing: list[str] = field(default_factory=list)  #: the pairings with boards left
    workers: list[int] = field(default_factory=list)

    @property
    def eta_seconds(self) -> float:
        return eta_seconds(self.planned, self.done, self.done_at_start, self.started)


@dataclass
class TournamentReport:
    standings: Standings
    summary: dict
    stopped: Optional[str]  #: None: every pairing finished or decided; "interrupted"; "incomplete" (problems)
    out: Path
    problems: list[str] = field(default_factory=list)


class _Tournament:
    """A tournament's session: the run (``run.Run``), its entrants and settings, and its standings."""

    def __init__(self, prep: Prepared, settings: TournamentSettings, entrants: Sequence[Entrant]) -> None:
        self.settings, self.entrants = settings, list(entrants)
        self.run = Run(prep, strict=settings.strict, sprt=parse_sprt(settings))
        self.out = Path(settings.out)
        self.started, self.done_at_start = time.monotonic(), self.run.finished()
        self._written = -1

    def standings(self) -> Standings:
        run = self.run
        results = []
        for p in run.prep.pairings:
            state = run.sprt_result(p.match)
            results.append(PairingResult(
                p.match, *p.names, via=IN_PROCESS if p.job is not None else TABLE_MANAGER, planned=len(run.boards),
                swings={b: c.swing for b, c in run.comparisons[p.match].items()}, voided=len(run.voided[p.match]),
                sprt=None if state is None else sprt_figures(run.sprt, state)))  # type: ignore[arg-type]
        boards_file = None if self.settings.boards_file is None else str(self.settings.boards_file)
        return build_standings(format=self.settings.format, seed=self.settings.seed, boards=len(run.boards),
                               boards_file=boards_file, entrants=[(e.name, e.config) for e in self.entrants],
                               pairings=results)

    def progress(self, workers: list[int]) -> TournamentProgress:
        run = self.run
        left = {m: len(run.left(m)) for m in run.pairings}
        return TournamentProgress(self.standings(), run.finished() + sum(left.values()), run.finished(),
                                  self.started, self.done_at_start, [m for m, n in left.items() if n], workers)

    def write_standings(self, standings: Optional[Standings] = None) -> Standings:
        standings = standings or self.standings()
        write_file(self.out / "standings.json", standings.to_json().encode("utf-8"))
        self._written = self.run.finished()
        return standings

    def notifier(self, progress: Optional[Callable[[TournamentProgress], None]]) -> Callable[[list[int]], None]:
        """What ``run.play`` calls after each round of results: the standings written again when a board
        finished, then ``progress``."""

        def notify(workers: list[int]) -> None:
            if self.run.finished() != self._written or progress is not None:
                p = self.progress(workers)
                if self.run.finished() != self._written:
                    self.write_standings(p.standings)
                if progress is not None:
                    progress(p)

        return notify

    def write_files(self) -> tuple[Standings, dict]:
        """``standings.json``, ``standings.png``, ``boards.pbn``, the LIN files and ``summary.json``, from the
        store (and the comparisons read from it)."""
        store = self.run.prep.store
        write_boards(store, self.out, timing=False)
        summary = store_summary(store, "tournament", double_dummy=True, seed=self.settings.seed)
        write_summary(self.out, summary)
        standings = self.write_standings()
        plot_standings(self.running(), self.out / "standings.png")
        return standings, summary.to_dict()

    def running(self, points: int = 200) -> dict[str, list[tuple[int, Any]]]:
        """Each entrant's IMPs per board against the field (``engine.stats.imp_summary``, clustered by deal) after
        each board of the plan, at most ``points`` of them: what ``standings.png`` draws."""
        run = self.run
        order = {b: i for i, b in enumerate(run.boards, 1)}
        swings: dict[str, list[tuple[int, int, int]]] = {e.name: [] for e in self.entrants}
        for p in run.prep.pairings:
            a, b = p.names
            for board, c in run.comparisons[p.match].items():
                swings[a].append((order[board], board, c.swing))
                swings[b].append((order[board], board, -c.swing))
        step = max(1, math.ceil(len(run.boards) / points))
        out: dict[str, list[tuple[int, Any]]] = {}
        for name, rows in swings.items():
            rows.sort()
            series, i = [], 0
            for k in range(step, len(run.boards) + step, step):
                k = min(k, len(run.boards))
                while i < len(rows) and rows[i][0] <= k:
                    i += 1
                if i:
                    series.append((k, imp_summary([r[2] for r in rows[:i]], deals=[r[1] for r in rows[:i]])))
            out[name] = series
        return out


def run_tournament(settings: TournamentSettings, entrants: Sequence[Entrant], *,
                   progress: Optional[Callable[[TournamentProgress], None]] = None,
                   tm_settings: Optional[dict] = None, max_restarts: int = 3,
                   stall_seconds: float = 600.0) -> TournamentReport:
    """Play (or resume) the tournament ``settings`` describes and write its files (module doc).

    ``progress`` is called after every round of results with a ``TournamentProgress``. ``tm_settings``,
    ``max_restarts`` and ``stall_seconds``: for pairings with an external robot, as ``squeeze match`` takes them.
    Ctrl-C (``KeyboardInterrupt``) stops cleanly: the files are written from the store and the report says
    ``interrupted``; the same command continues. Raises ``TournamentError``/``SelfPlayError`` (bad input, another run
    in the folder, a robot error under ``strict``) and ``ExecutorError`` (Dask missing or unreachable)."""
    prep = prepare_tournament(settings, entrants)
    problems: list[str] = []
    try:
        t = _Tournament(prep, settings, entrants)
        notify = t.notifier(progress)
        try:
            stopped = play(t.run, settings, notify)
            by_name = {e.name: e for e in entrants}
            for p in prep.pairings:
                if stopped is None and p.job is None and t.run.left(p.match):
                    problems += _play_external(t, p, (by_name[p.names[0]], by_name[p.names[1]]), notify,
                                               tm_settings or {}, max_restarts, stall_seconds)
        except KeyboardInterrupt:
            stopped = "interrupted"
        except SelfPlayError:
            t.write_files()  # what finished before the error stays readable
            raise
        if stopped is None and problems:
            stopped = "incomplete"
        standings, summary = t.write_files()
        return TournamentReport(standings, summary, stopped, t.out, problems)
    finally:
        prep.store.close()


def _play_external(t: _Tournament, pairing: Pairing, entrants: tuple[Entrant, Entrant],
                   notify: Callable[[list[int]], None], tm_settings: dict, max_restarts: int,
                   stall_seconds: float) -> list[str]:
    """Play one pairing through our table manager (module doc); returns its problems (none when every board of
    both rooms finished)."""
    from squeeze.robot.match import MATCH_NAME, TeamSpec, run_match

    run = t.run
    folder = t.out / "tm" / match_file_name(pairing.match)
    folder.mkdir(parents=True, exist_ok=True)
    boards_file = t.out / "tm" / "boards.pbn"  # the tournament's deals, the same bytes at every start
    write_file(boards_file, encode_pbn(write_pbn(run.deals[b] for b in run.boards)))
    specs = [TeamSpec(e.name, None, command=e.command) if e.command is not None else TeamSpec(e.name, e.config)
             for e in entrants]
    solving = cf.ThreadPoolExecutor(1, thread_name_prefix="dd")  # (the solver releases the GIL: the manager runs on)
    pending: dict[int, tuple[cf.Future, BoardRecord, BoardRecord]] = {}
    seen = [-1]

    def copy(store: ResultsStore) -> None:
        """Copy the boards both rooms finished at the manager into the tournament's store; a deal whose
        double-dummy table is not known yet is solved in a thread and copied once solved."""
        for b, (o, c) in paired_rooms([r.record for r in store.results() if r.match == MATCH_NAME]).items():
            if b not in run.done[pairing.match] and b not in pending:
                if b in run.dd:
                    run.commit(pairing.match, o, c, None)
                else:
                    from squeeze.engine.dds import solve_table

                    pending[b] = (solving.submit(lambda d: [list(r) for r in solve_table(d).tricks], o.deal), o, c)
        for b, (future, o, c) in list(pending.items()):
            if future.done():
                del pending[b]
                run.commit(pairing.match, o, c, future.result())

    def on_progress(manager: Any, state: dict) -> None:
        if state["boards"] != seen[0] or pending:  # (boards finished in both rooms)
            seen[0] = state["boards"]
            copy(manager.store)
            notify([])

    resume = (folder / STORE_FILE).exists()
    _log.info("tournament.external", match=pairing.match, folder=str(folder), resume=resume)
    # the manager logs every line it exchanges: to a file beside its store (as squeeze match does), not over ours
    saved = structlog.get_config()
    log_file = open(folder / "match.log", "a", encoding="utf-8")
    configure_logging("info", "json", stream=log_file)
    try:
        result = asyncio.run(run_match(len(run.boards), specs[0], specs[1], folder, seed=t.settings.seed,
                                       resume=resume, tm_settings={**tm_settings, "boards_file": boards_file},
                                       max_restarts=max_restarts, stall_seconds=stall_seconds,
                                       on_progress=on_progress))
        problems = [f"{pairing.match}: {p}" for p in result.problems]
    except (ValueError, OSError) as exc:  # (RunError is a ValueError: a manager that cannot start)
        problems = [f"{pairing.match}: {exc}"]
    finally:
        # whatever the manager finished (also when stopped or killed earlier) is copied: the same command resumes
        try:
            store = ResultsStore(folder / STORE_FILE, create=False)
        except StoreError:
            store = None
        if store is not None:
            try:
                copy(store)
                for _b, (future, o, c) in list(pending.items()):
                    run.commit(pairing.match, o, c, future.result())
                pending.clear()
            finally:
                store.close()
        solving.shutdown(wait=True)
        structlog.configure(**saved)
        log_file.close()
        notify([])
    return problems
