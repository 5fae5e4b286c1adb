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
from .tm.run import prepare_run, start_publisher
from .tm.server import TableManager

__all__ = ["TeamSpec", "MatchResult", "run_match", "MATCH_NAME", "MATCH_OWNS"]

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
    robot.starts += 1
    log = open(robot.log_path, "ab")
    env = {**os.environ, "SQUEEZE_LOG__FORMAT": "json"}
    robot.proc = await asyncio.create_subprocess_exec(*robot.argv, stdin=asyncio.subprocess.DEVNULL,
                                                      stdout=log, stderr=log, env=env)
    log.close()  # the child holds its own descriptor


async def run_match(boards: int, team_a: TeamSpec, team_b: TeamSpec, out: Path | str, *, seed: int = 1,
                    resume: bool = False, tm_settings: Optional[dict] = None, max_restarts: int = 3,
                    stall_seconds: float = 600.0, mqtt: Optional[MqttSettings] = None,
                    on_progress: Optional[Callable[[TableManager, dict], None]] = None) -> MatchResult:
    """Play the match (module doc) and write its files into ``out``. ``tm_settings``: more ``[tm]`` settings;
    ``mqtt``: publish the tables' live events (as ``squeeze tm --mqtt`` does)."""
    out = Path(out)
    if team_a.name == team_b.name:
        raise ValueError(f"the two teams need different names, both are {team_a.name!r}")
    clash = sorted(set(tm_settings or {}) & MATCH_OWNS)
    if clash:
        raise ValueError(f"[tm] {', '.join(clash)} cannot apply to a match: its boards, seed, rooms and folder are "
                         "the match's own ([match] boards, seed, out; a board file is [tm] boards_file)")
    settings = TableManagerSettings(**{"port": 0, "end_pause_seconds": 0.1, **(tm_settings or {}),
                                       "results_dir": out, "boards": boards, "seed": seed, "rooms": 2})
    publisher = await start_publisher(mqtt)  # first: a broker that cannot start stops the match before any file
    store, _ = prepare_run(settings, resume=resume)
    (out / "logs").mkdir(exist_ok=True)
    manager = TableManager(settings, store, [MatchSpec(MATCH_NAME, (team_a.name, team_b.name), 2)],
                           publisher=publisher, deal_delay_seconds=None if mqtt is None else mqtt.deal_delay_seconds)
    port = await manager.start()
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    robots = [_Robot(t, s, argv, out / "logs" / f"{t.name}-{s.letter}.log")
              for t in (team_a, team_b) for s in Seat if (argv := t.argv(host, port, s)) is not None]
    problems: list[str] = []
    if any(t.external for t in (team_a, team_b)):
        _log.info("match.waiting_for_external_robots", host=host, port=port,
                  teams=[t.name for t in (team_a, team_b) if t.external])
        print(f"squeeze match: waiting for robots to connect to {host}:{port}", flush=True)
    total = 2 * len(store.deals())
    restarts = 0
    try:
        for r in robots:
            await _launch(r)
        done = asyncio.create_task(manager.wait_done())
        last_count, last_change = -1, time.monotonic()
        while not done.done():
            await asyncio.wait({done}, timeout=0.25)
            count = sum(len(store.finished(MATCH_NAME, room)) for room in ROOMS[2])  # (no records read)
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            if on_progress is not None:
                on_progress(manager, {"finished": count, "total": total,
                                      "robots": {(r.team.name, r.seat): r.proc for r in robots}})
            if done.done():
                break
            for r in robots:
                if r.proc is not None and r.proc.returncode not in (None, 0):  # 0: its room's session ended
                    if r.starts > max_restarts:
                        problems.append(f"{r.team.name} {r.seat.letter} kept failing (exit {r.proc.returncode})")
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
    finally:
        await manager.close()
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
            finished = len(records) == total
            summary = write_outputs(store, out, source="match", seed=seed, think_seconds=think_seconds(records),
                                    finished=finished, robot_restarts=restarts, problems=problems,
                                    configs=Pair[Optional[str]](a=team_a.command or team_a.config,
                                                                b=team_b.command or team_b.config))
        finally:
            store.close()
            if publisher is not None:
                await publisher.close()
    return MatchResult(summary, finished, out, restarts, problems)
