"""``squeeze match``: a robot-vs-robot team match as at the World Computer Bridge Championships.

Two rooms, the same boards: team A sits North-South in the open room and East-West in the closed room, team B the
other way round, and each board scores IMPs on the difference. ``run_match`` starts our table manager
(``robot.tm.TableManager``, in this process, on a free loopback port, with its results store in the output folder)
and eight robots as separate processes speaking TCP to it: ``squeeze seat`` with each team's configuration (a
preset or a TOML file), or any command (``--b-cmd "prog {host} {port} {seat}"``), or robots that connect on their
own (``--b-external``). It watches them until the match is over:

- a robot process that dies is started again (it says ``Connecting`` again; the table restarts the board it was
  playing, or voids it after its hold and replays it: the table manager's rules, recorded as incidents); a robot
  that keeps dying, or a match that makes no progress for ``stall_seconds``, stops the match (what is finished is
  kept and written) — the match never hangs;
- the files are written from the store, so a board is counted once whatever happened: ``boards.pbn`` (both rooms,
  ``ScoreIMP`` per room), ``<match>.lin``, ``summary.json`` (``robot.tm.export``; the verdict, IMPs per board with
  standard error and 95 % interval and VPs on the WBF 20-VP scale, is the schema's, ``robot.summary``), to which
  the match adds what only it knows: each team's thinking time per decision (mean, p95, max), the robots
  restarted, the problems that stopped it, and each team's configuration.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import structlog

from squeeze.config.settings import MqttSettings, TableManagerSettings
from squeeze.engine.cards import Seat

from .summary import Pair, think_seconds
from .tm.export import write_outputs
from .tm.plan import ROOMS, MatchSpec
from .tm.run import RunError, prepare_run, start_publisher
from .tm.server import Listener, TableManager

__all__ = ["TeamSpec", "MatchResult", "run_match", "check_match", "match_plan", "MATCH_NAME", "MATCH_OWNS"]

MATCH_NAME = "match"
#: ``[tm]`` keys a match sets itself (from ``[match]``): a settings file that sets them is refused, not ignored.
MATCH_OWNS = frozenset({"boards", "board_range", "seed", "rooms", "match_file", "results_dir"})
_log = structlog.get_logger("squeeze.match")


@dataclass(frozen=True)
class TeamSpec:
    """One team: our robot with ``config`` (a preset name or a TOML file), or ``command`` (a template with
    ``{host}``, ``{port}``, ``{seat}``, ``{team}``, launched once per seat), or ``external`` robots that connect
    by themselves."""

    name: str
    config: Optional[str] = "default"
    command: Optional[str] = None
    external: bool = False

    def check(self) -> None:
        """Raise ``RunError`` if this team's robots cannot start: a configuration that is neither a preset nor a
        TOML settings file the engine accepts, a command whose program is not there or whose placeholders are not
        ``{host}``, ``{port}``, ``{seat}``, ``{team}``."""
        if self.external:
            return
        if self.command is not None:
            try:
                argv = self.argv("127.0.0.1", 2000, Seat.NORTH)
            except (KeyError, IndexError) as exc:
                raise RunError(f"team {self.name}: command {self.command!r}: {{{exc.args[0]}}} is not a placeholder "
                               "(use {host}, {port}, {seat}, {team})") from None
            except ValueError as exc:  # a stray brace, an unclosed quote
                raise RunError(f"team {self.name}: command {self.command!r}: {exc}") from None
            if not argv:
                raise RunError(f"team {self.name}: the command is empty")
            if shutil.which(argv[0]) is None:
                raise RunError(f"team {self.name}: cannot run {argv[0]!r} (no such program"
                               f"{'' if os.sep in argv[0] else ' on the PATH'}, or not executable)")
            return
        from .selfplay.run import SelfPlayError, load_team  # (the same check as self-play's teams)

        try:
            team = load_team(self.config or "default", seed=1)
            from squeeze.config.bidding import BiddingSystemError, load_system

            opponents = team.params.opponents_system
            load_system(team.params.system).bidder(None if opponents is None else load_system(opponents))
        except SelfPlayError as exc:
            raise RunError(str(exc)) from None
        except BiddingSystemError as exc:
            raise RunError(f"team {self.config}: {exc}") from None

    def argv(self, host: str, port: int, seat: Seat) -> Optional[list[str]]:
        if self.external:
            return None
        if self.command is not None:
            return shlex.split(self.command.format(host=host, port=port, seat=seat.letter, team=self.name))
        where = ["--config", self.config] if self.config and self.config.endswith(".toml") else \
            ["--preset", self.config or "default"]
        # Explanations on: our table manager takes them, keeps them in the records and passes on to each seat only
        # what its protocol allows.
        return [sys.executable, "-m", "squeeze.robot.cli", "seat", "--host", host, "--port", str(port),
                "--seat", seat.letter, "--team", self.name, "--explanations", *where]


def check_match(team_a: TeamSpec, team_b: TeamSpec, tm_settings: Optional[dict] = None) -> None:
    """Everything a match needs before it starts: two team names, each team's robots able to start
    (``TeamSpec.check``), no ``[tm]`` setting the match sets itself. ``RunError`` says what is wrong."""
    if team_a.name == team_b.name:
        raise RunError(f"the two teams need different names, both are {team_a.name!r}")
    clash = sorted(set(tm_settings or {}) & MATCH_OWNS)
    if clash:
        raise RunError(f"[tm] {', '.join(clash)} cannot apply to a match: its boards, seed, rooms and folder are "
                       "the match's own ([match] boards, seed, out; a board file is [tm] boards_file)")
    for team in (team_a, team_b):
        team.check()


def match_plan(team_a: TeamSpec, team_b: TeamSpec) -> dict:
    """What defines a match beside its boards, in the store's plan: who plays, each team's name and configuration
    (a folder holding another match is refused, not continued). A team run by a command is known by its name
    (the command's options may change between sessions: ``nice``, paths)."""
    return {"teams": {side: {"name": t.name, "config": None if t.command or t.external else t.config,
                             "robots": "external" if t.external else "command" if t.command else "squeeze"}
                      for side, t in (("a", team_a), ("b", team_b))}}


@dataclass
class _Robot:
    team: TeamSpec
    seat: Seat
    argv: list[str]
    log_path: Path
    proc: Optional[asyncio.subprocess.Process] = None
    starts: int = 0


@dataclass
class MatchResult:
    summary: dict
    finished: bool  # every board of both rooms is in the store
    out: Path
    restarts: int = 0
    problems: list[str] = field(default_factory=list)


async def _launch(robot: _Robot) -> None:
    """Start the robot's process; ``OSError`` when it cannot start (the program is gone, not executable)."""
    robot.starts += 1
    env = {**os.environ, "SQUEEZE_LOG__FORMAT": "json"}
    with open(robot.log_path, "ab") as log:  # (the child holds its own descriptor)
        # a session of its own: Ctrl-C at the terminal reaches the match, which stops its robots itself
        robot.proc = await asyncio.create_subprocess_exec(*robot.argv, stdin=asyncio.subprocess.DEVNULL,
                                                          stdout=log, stderr=log, env=env, start_new_session=True)


async def run_match(boards: int, team_a: TeamSpec, team_b: TeamSpec, out: Path | str, *, seed: int = 1,
                    resume: Optional[bool] = None, tm_settings: Optional[dict] = None, max_restarts: int = 3,
                    stall_seconds: float = 600.0, mqtt: Optional[MqttSettings] = None,
                    on_progress: Optional[Callable[[TableManager, dict], None]] = None) -> MatchResult:
    """Play the match (module doc) and write its files into ``out``. ``tm_settings``: more ``[tm]`` settings;
    ``mqtt``: publish the tables' live events (as ``squeeze tm --mqtt`` does). ``on_progress(manager, progress)``
    is called a few times a second: ``progress["boards"]`` boards of ``progress["total"]`` are finished in both
    rooms, ``progress["rooms"]`` counts each room's.

    Everything is checked before anything starts (``check_match``; the port is bound before the results store is
    made). A folder that holds the same match (boards, seed, teams) is continued: only the boards not stored are
    played; another run there is refused, naming what differs (``RunError``); ``resume=True`` also refuses a folder
    that holds no run."""
    out = Path(out)
    check_match(team_a, team_b, tm_settings)
    settings = TableManagerSettings(**{"port": 0, "end_pause_seconds": 0.1, **(tm_settings or {}),
                                       "results_dir": out, "boards": boards, "seed": seed, "rooms": 2})
    try:
        listener = await Listener.open(settings.host, settings.port)
    except OSError as exc:
        raise RunError(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}") from None
    publisher = None
    try:
        publisher = await start_publisher(mqtt)  # a broker that cannot start stops the match before any file
        store, _ = prepare_run(settings, resume=resume, extra_plan={"match": match_plan(team_a, team_b)})
    except BaseException:
        listener.close()
        if publisher is not None:
            await publisher.close()
        raise
    robots: list[_Robot] = []
    problems: list[str] = []
    restarts = 0
    manager: Optional[TableManager] = None
    try:
        (out / "logs").mkdir(exist_ok=True)
        manager = TableManager(settings, store, [MatchSpec(MATCH_NAME, (team_a.name, team_b.name), 2)],
                               publisher=publisher,
                               deal_delay_seconds=None if mqtt is None else mqtt.deal_delay_seconds)
        port = await manager.start(listener)
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
        robots = [_Robot(t, s, argv, out / "logs" / f"{t.name}-{s.letter}.log")
                  for t in (team_a, team_b) for s in Seat if (argv := t.argv(host, port, s)) is not None]
        if any(t.external for t in (team_a, team_b)):
            _log.info("match.waiting_for_external_robots", host=host, port=port,
                      teams=[t.name for t in (team_a, team_b) if t.external])
            print(f"squeeze match: waiting for robots to connect to {host}:{port}", flush=True)
        total = len(store.deals())
        for r in robots:
            await _launch(r)
        done = asyncio.create_task(manager.wait_done())
        last_count, last_change = -1, time.monotonic()
        while not done.done():
            await asyncio.wait({done}, timeout=0.25)
            rooms = {room: store.finished(MATCH_NAME, room) for room in ROOMS[2]}  # (no records read)
            count = sum(len(b) for b in rooms.values())
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            if on_progress is not None:
                on_progress(manager, {"boards": len(set.intersection(*rooms.values())), "total": total,
                                      "rooms": {room: len(b) for room, b in rooms.items()},
                                      "robots": {(r.team.name, r.seat): r.proc for r in robots}})
            if done.done():
                break
            for r in robots:
                if r.proc is not None and r.proc.returncode not in (None, 0):  # 0: its room's session ended
                    if r.starts > max_restarts:
                        problems.append(f"{r.team.name} {r.seat.letter} kept failing (exit {r.proc.returncode}; "
                                        f"its log: {r.log_path})")
                        break
                    _log.warning("match.robot_restart", team=r.team.name, seat=r.seat.letter,
                                 exit_code=r.proc.returncode, starts=r.starts)
                    restarts += 1
                    await _launch(r)
            if problems:
                break
            if time.monotonic() - last_change > stall_seconds:
                problems.append(f"no board finished for {stall_seconds:.0f} s: the match was stopped")
                break
        done.cancel()
        if manager.failure is not None:  # the manager stopped: a board could not be stored (disk full, read-only)
            problems.append(f"the table manager stopped: {manager.failure}")
    except OSError as exc:  # a robot's program that cannot start (checked before, gone since)
        problems.append(f"a robot could not start: {exc}")
    finally:
        if manager is not None:
            await manager.close()
        else:
            listener.close()
        for r in robots:
            if r.proc is not None and r.proc.returncode is None:
                r.proc.terminate()
        for r in robots:
            if r.proc is not None:
                try:
                    await asyncio.wait_for(r.proc.wait(), 5)
                except asyncio.TimeoutError:
                    r.proc.kill()
                    await r.proc.wait()
        try:
            records = [row.record for row in store.results() if row.match == MATCH_NAME]
            finished = len(records) == 2 * len(store.deals())
            summary = write_outputs(store, out, source="match", seed=seed, think_seconds=think_seconds(records),
                                    finished=finished, robot_restarts=restarts, problems=problems,
                                    configs=Pair[Optional[str]](a=team_a.command or team_a.config,
                                                                b=team_b.command or team_b.config))
        finally:
            store.close()
            if publisher is not None:
                await publisher.close()
    return MatchResult(summary, finished, out, restarts, problems)
