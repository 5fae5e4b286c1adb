"""The reliability harness: ``squeeze tm`` as a real process, many tables of random-legal scripted clients on
loopback, faults injected at random points, and an audit of the results store against the plan and against what
the clients saw. Used by ``tests/reliability`` (small runs) and ``bench/reliability.py`` (the full run).

Why scripted clients (``tests/tm_client.ScriptedClient``, four dialects) and not engine robots: a robot thinks for
seconds a board; the clients answer at once with a seeded random legal call or card, so hundreds of boards take
seconds and the table manager, not the engine, is what is loaded. A "robot process" (the process fault) is the same
client in a process of its own (``scripted_seat.py``), killed with SIGKILL and started again.

The audit, made from two independent sources:

- ``lost``: boards of the plan (every match, room and board) with no row in the store at the end, plus boards a
  client saw finish that the store does not hold as the client saw them;
- ``duplicated``: boards a client saw finish twice at its table (the store's primary key cannot hold two rows, so
  a second play of a finished board shows here), plus the manager's own ``tm.duplicate_board`` refusals;
- ``mismatched``: a stored board whose calls and cards differ from what its seats saw.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import resource
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Optional

from squeeze.engine.cards import Seat
from squeeze.protocol.client import (
    AuctionComplete, BoardComplete, BoardStarted, CallReceived, CallRequested, CardReceived, CardRequested,
    DealAnnounced, DummyRevealed, HandReceived, SeatAssigned, TeamsAnnounced, TimingReceived, TrickComplete,
)
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from event_tools import Collector, Mosquitto
from tm_client import DIALECTS, ScriptedClient, start_in_order

SQUEEZE = str(Path(sys.executable).with_name("squeeze"))
SCRIPTED_SEAT = str(Path(__file__).with_name("scripted_seat.py"))

#: Every state a seat's connection can be in, named by the event that led to it: a drop is injected right after
#: each of these at least once in a fault run ("connections dropped at every protocol state").
DROP_POINTS = (SeatAssigned, TeamsAnnounced, BoardStarted, DealAnnounced, HandReceived, CallRequested, CallReceived,
               AuctionComplete, CardRequested, CardReceived, DummyRevealed, TrickComplete, BoardComplete,
               TimingReceived)
#: How a dropped seat comes back: on a new socket where it broke (JobScheffers-style), with a fresh ``Connecting``,
#: or after the manager's hold (the board in progress is voided, and replayed on its return).
RECOVERIES = ("resume", "rejoin", "late")
ROOMS = ("Open", "Closed")
#: The manager's ``idle_seconds`` in these runs: a connection has this long to send its first line (or to end a
#: line it started), which the slowloris and silent clients of ``hostile_clients`` run into.
IDLE_SECONDS = 2.0
#: The teams of the one-room table the hostile clients seat themselves at (see ``hostile_clients``).
HOSTILE_TEAMS = ("Hostile", "Host")


def match_name(i: int) -> str:
    return f"m{i:02d}"


def match_teams(i: int) -> tuple[str, str]:
    return f"R{i:02d}a", f"R{i:02d}b"


def table_of(team_index: int, seat: Seat) -> str:
    """The room a team's seat sits in: team a is N/S in the open room and E/W in the closed room."""
    return ROOMS[(0 if seat.is_ns else 1) ^ team_index]


def write_match_file(path: Path, matches: int) -> None:
    path.write_text("".join(f'[[match]]\nname = "{match_name(i)}"\nteams = ["{a}", "{b}"]\nrooms = 2\n\n'
                            for i in range(matches) for a, b in [match_teams(i)]))


def rss_mib(pid: int) -> Optional[float]:
    """Resident memory of ``pid`` in MiB (``None`` once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class TMProcess:
    """``squeeze tm`` in a process of its own on a loopback port that stays the same across restarts (the clients
    reconnect to it). ``up`` is set while it listens; its stderr goes to ``folder/tm-N.err``, one file a start."""

    def __init__(self, folder: Path, *, matches: int, boards: int, seed: int = 1, hostile_table: bool = False,
                 mqtt_url: Optional[str] = None, **tm_settings) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.out = self.folder / "out"
        self.match_file = self.folder / "matches.toml"
        write_match_file(self.match_file, matches)
        if hostile_table:  # one more table, for the hostile clients' own (flooding) seat
            with self.match_file.open("a") as f:
                f.write(f'[[match]]\nname = "hostile"\nteams = ["{HOSTILE_TEAMS[0]}", "{HOSTILE_TEAMS[1]}"]\nrooms = 1\n')
        self.boards, self.seed, self.mqtt_url = boards, seed, mqtt_url
        # every client comes from 127.0.0.1: allow all of them (and the hostile ones) from one address
        self.env = {**os.environ, "PYTHONFAULTHANDLER": "1",  # (a hung manager shows its stacks on SIGABRT)
                    "SQUEEZE_LOG__LEVEL": os.environ.get("RL_LOG", "warning"), "SQUEEZE_LOG__FORMAT": "json",
                    "SQUEEZE_TM__CONNECTIONS_PER_ADDRESS": str(8 * matches + 64)}
        self.env.update({f"SQUEEZE_TM__{k.upper()}": str(v) for k, v in tm_settings.items()})
        self.port = 0
        self.proc: Optional[asyncio.subprocess.Process] = None
        self.starts = 0
        self.exits: list[int] = []
        self.up = asyncio.Event()

    async def start(self, *, resume: bool = False) -> int:
        argv = [SQUEEZE, "tm", "--port", str(self.port), "--out", str(self.out), "--boards", str(self.boards),
                "--seed", str(self.seed), "--rooms", "2", "--match", str(self.match_file),
                *(["--mqtt", self.mqtt_url] if self.mqtt_url else [])]
        path = self.folder / f"tm-{self.starts}.err"
        self.starts += 1
        for _ in range(50):  # the port of a killed manager may take a moment to be free again
            # stderr through a pipe, as a service's log goes to its supervisor: the disk-full fault limits the
            # manager's files, not its log
            self.proc = await asyncio.create_subprocess_exec(*argv, *(["--resume"] if resume else []),
                                                             stdout=asyncio.subprocess.PIPE,
                                                             stderr=asyncio.subprocess.PIPE, env=self.env)
            self._drain = asyncio.create_task(self._keep_log(self.proc, path))
            line = await self._first_lines()
            if "listening on" in line:
                break
            code = await self.proc.wait()
            await self._drain
            if "address already in use" not in self.stderr():
                raise RuntimeError(f"squeeze tm did not start (exit {code}): {self.stderr()[-2000:]}")
            await asyncio.sleep(0.1)
        self.port = int(line.rsplit(":", 1)[1])
        self.up.set()
        return self.port

    async def _first_lines(self) -> str:
        """Its stdout up to the ``listening on`` line (a publishing manager first names its broker); ``""`` if it
        exited before listening. The rest of its stdout (a line or two at the end) is left in the pipe."""
        while True:
            line = (await asyncio.wait_for(self.proc.stdout.readline(), 30)).decode()
            if not line or "listening on" in line:
                return line

    @staticmethod
    async def _keep_log(proc: asyncio.subprocess.Process, path: Path) -> None:
        with open(path, "wb") as f:
            async for line in proc.stderr:
                f.write(line)
                f.flush()

    async def wait(self, timeout: float = 30) -> int:
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        await asyncio.wait_for(self._drain, 10)
        self.exits.append(code)
        self.up.clear()
        return code

    async def kill(self) -> int:
        """SIGKILL: no clean-up of any kind, as a crash or the OOM killer would."""
        self.up.clear()
        self.proc.send_signal(signal.SIGKILL)
        return await self.wait()

    def fill_disk(self) -> None:
        """From now on no file of the manager may grow past 4 KiB (RLIMIT_FSIZE; Python ignores SIGXFSZ, so the
        write fails with EFBIG): its next store write fails as on a full disk."""
        self.up.clear()
        resource.prlimit(self.proc.pid, resource.RLIMIT_FSIZE, (4096, 4096))

    def rss_mib(self) -> Optional[float]:
        return None if self.proc is None or self.proc.returncode is not None else rss_mib(self.proc.pid)

    def stderr(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.folder.glob("tm-*.err")))

    def log_events(self, name: str) -> list[dict]:
        """The manager's JSON log events called ``name``, over every start."""
        found = []
        for line in self.stderr().splitlines():
            if line.startswith("{") and f'"{name}"' in line:
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if ev.get("event") == name:
                    found.append(ev)
        return found

    def stored(self) -> list:
        store = ResultsStore(self.out / STORE_FILE, create=False)
        try:
            return store.results()
        finally:
            store.close()


@dataclasses.dataclass
class FaultPlan:
    """What a run injects. ``drop_rate``: chance of a drop at each client event once every drop point has had one
    (until then 1 in 2); ``max_drops``: drops in all; ``tm_kills``/``disk_full``: manager faults, spread at random
    over the run; ``process_seats``: the first table's seats run as processes, ``process_kills`` of them SIGKILLed;
    ``broker_restarts``: the manager publishes its live events to a mosquitto of the run's own, which is SIGKILLed
    and started again this many times (the tables must not notice; events must flow again afterwards)."""

    drop_rate: float = 0.002
    max_drops: int = 40
    tm_kills: int = 0
    disk_full: int = 0
    process_kills: int = 0
    broker_restarts: int = 0
    hold_seconds: float = 0.4


@dataclasses.dataclass
class Report:
    tables: int
    planned: int
    stored: int = 0
    lost: int = 0
    duplicated: int = 0
    mismatched: int = 0
    stuck: int = 0
    voided: int = 0
    events: int = 0  #: live events the run's watcher received over MQTT (with a broker)
    seconds: float = 0.0
    rss_start_mib: float = 0.0
    rss_end_mib: float = 0.0
    faults: Counter = dataclasses.field(default_factory=Counter)
    problems: list = dataclasses.field(default_factory=list)

    @property
    def rss_growth_mib(self) -> float:
        return self.rss_end_mib - self.rss_start_mib

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())


class _Drops:
    """The ``kill_when`` of every in-process client: drops a connection right after an event, each drop point
    first, then now and then."""

    def __init__(self, plan: FaultPlan, rng: random.Random, report: Report) -> None:
        self.plan, self.rng, self.report = plan, rng, report
        self.by_point: Counter = Counter()

    def __call__(self, ev, client) -> bool:
        if not isinstance(ev, DROP_POINTS) or sum(self.by_point.values()) >= self.plan.max_drops:
            return False
        point = type(ev).__name__
        if self.rng.random() < (0.5 if self.by_point[point] == 0 else self.plan.drop_rate):
            self.by_point[point] += 1
            self.report.faults[f"drop:{point}"] += 1
            return True
        return False


class _Seat:
    """One seat of a table, kept playing through every fault until its session ends: an in-process client, or
    (``process=True``) ``scripted_seat.py`` in its own process."""

    def __init__(self, tm: TMProcess, match: int, team_index: int, seat: Seat, dialect: str, seed: int,
                 process: bool) -> None:
        self.tm, self.match, self.team_index, self.process = tm, match, team_index, process
        self.team = match_teams(match)[team_index]
        self.table = (match_name(match), table_of(team_index, seat))
        self.seat_ = seat
        self.client = ScriptedClient(tm.port, self.team, seat, dialect=dialect, seed=seed)
        self.proc: Optional[asyncio.subprocess.Process] = None
        self.completed: list[tuple] = []  # (board, calls, cards) of every BoardComplete this seat saw
        self.outcome = ""

    # --- the process flavour ------------------------------------------------------------------------------------
    async def _run_process(self) -> str:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, SCRIPTED_SEAT, str(self.tm.port), self.team, self.seat_.letter, str(self.client.seed),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        async for raw in self.proc.stdout:  # a line a finished board, flushed: a SIGKILL loses none already seen
            row = json.loads(raw)
            if "board" in row:
                self.completed.append((row["board"], tuple(row["calls"]), tuple(row["cards"])))
            else:
                self.outcome = row["outcome"]
        code = await self.proc.wait()
        return "killed" if code < 0 else (self.outcome or "closed")

    # --- both ---------------------------------------------------------------------------------------------------
    def _collect(self) -> None:
        self.completed += [(r[0], r[3], r[4]) for r in self.client.results]
        self.client.results = []

    async def _attempt(self, how: str) -> str:
        while True:
            try:
                if self.process:
                    return await self._run_process()
                if how == "resume":
                    return await self.client.resume()
                return await (self.client.play() if how == "first" else self.client.rejoin())
            except OSError:  # refused: the manager is restarting; come back with a fresh Connecting
                if self.tm.proc.returncode == 0:  # (it found every board stored and ended the run)
                    return "ended"
                how = "rejoin"
                await asyncio.sleep(0.1)
                await self.tm.up.wait()

    async def keep_playing(self, first: asyncio.Task, drops: Optional[_Drops], rng: random.Random,
                           report: Report) -> str:
        outcome = await first
        while outcome != "ended":
            self._collect()
            if outcome == "refused":  # came back before the manager saw the old socket close: try again
                report.faults["refused_on_return"] += 1
                self.refusals = self.client.table_errors[-1:]
                await asyncio.sleep(0.2)
            await self.tm.up.wait()
            how = "rejoin"
            if outcome == "killed" and not self.process:
                how = rng.choice(RECOVERIES)
                report.faults[f"recovered:{how}"] += 1
                if how == "late":
                    await asyncio.sleep(self.tm_hold + 0.3)
            self.client.kill_when = drops
            outcome = await self._attempt(how)
        self._collect()
        self.outcome = outcome
        return outcome

    tm_hold = 0.4


async def run_tables(folder: Path, *, matches: int, boards: int, seed: int = 1, faults: Optional[FaultPlan] = None,
                     timeout: float = 300.0, hostile=None) -> Report:
    """``matches`` two-room matches (2 x ``matches`` tables) of ``boards`` boards on one ``squeeze tm`` process,
    with ``faults`` injected; returns the audit. ``hostile(tm)``, a coroutine, runs beside the tables."""
    rng = random.Random(seed)
    plan = faults or FaultPlan(max_drops=0)
    Path(folder).mkdir(parents=True, exist_ok=True)
    broker = Mosquitto(folder).start() if plan.broker_restarts else None
    tm = TMProcess(folder, matches=matches, boards=boards, seed=seed, hold_seconds=plan.hold_seconds,
                   hostile_table=hostile is not None, idle_seconds=IDLE_SECONDS,
                   mqtt_url=broker.url if broker is not None else None)
    try:
        return await _run_tables(tm, plan, broker, rng, matches=matches, seed=seed, timeout=timeout,
                                 hostile=hostile)
    finally:
        if broker is not None:
            broker.stop()


async def _run_tables(tm: "TMProcess", plan: FaultPlan, broker: Optional[Mosquitto], rng: random.Random, *,
                      matches: int, seed: int, timeout: float, hostile) -> Report:
    boards = tm.boards
    report = Report(tables=2 * matches, planned=2 * matches * boards)
    drops = _Drops(plan, rng, report) if plan.max_drops else None
    t0 = time.monotonic()
    await tm.start()
    report.rss_start_mib = tm.rss_mib() or 0.0
    collector = None
    if broker is not None:  # a watcher of the live events, reconnecting like ``squeeze watch``
        collector = Collector(broker.port)
        await collector.__aenter__()
    samples: list[float] = []

    async def sample_rss() -> None:
        while True:
            rss = tm.rss_mib()
            if rss is not None and tm.starts == 1:
                samples.append(rss)
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample_rss())
    seats: list[_Seat] = []
    for i in range(matches):
        for team_index in (0, 1):
            for seat, dialect in zip(Seat, DIALECTS):
                process = plan.process_kills > 0 and i == 0 and team_index == 0  # team a of match 0 (both rooms)
                s = _Seat(tm, i, team_index, seat, "bluechip" if process else dialect, seed + 7 * i, process)
                s.tm_hold = plan.hold_seconds
                seats.append(s)
    tables: dict[tuple, list[_Seat]] = {}
    for s in seats:
        tables.setdefault(s.table, []).append(s)

    async def seat_table(members: list[_Seat]) -> list[asyncio.Task]:
        members.sort(key=lambda s: s.seat_)  # N, E, S, W: the ANYPL dialect (West) takes the seat left to it
        firsts = []
        for s in members:
            if s.process:
                firsts.append(asyncio.create_task(s._attempt("first")))
                continue
            firsts.append(asyncio.create_task(s._attempt("first")))
            await asyncio.wait_for(s.client.seated.wait(), 30)
            s.client.requested = s.client.seat  # a seat that comes back asks for its own seat, not ANYPL
        return firsts

    players: dict[asyncio.Task, _Seat] = {}
    for members in tables.values():
        firsts = await seat_table(members)
        players.update({asyncio.create_task(s.keep_playing(f, drops, rng, report)): s for s, f in zip(members, firsts)})
    # Drops start once every table is full: while a table seats, a dropped seat is simply free again, and an ANYPL
    # seat may take it (right for a manager; a director then seats the robot that was late).
    for s in seats:
        s.client.kill_when = drops
    chaos = asyncio.create_task(_chaos(tm, plan, seats, rng, report, broker, collector))
    side = asyncio.create_task(hostile(tm)) if hostile is not None else None
    done, pending = await asyncio.wait(players, timeout=timeout)
    report.stuck = len({players[p].table for p in pending})  # tables with a seat whose session never ended
    report.problems += [f"{players[p].table} {players[p].seat_.name}: never ended (last refusal: "
                        f"{getattr(players[p], 'refusals', None)})" for p in pending]
    for p in pending:
        p.cancel()
    try:  # (a fault in progress when the tables ended is seen through: its checks may still fail)
        await asyncio.wait_for(asyncio.shield(chaos), 40)
    except asyncio.TimeoutError:
        pass
    for p in done:  # a seat's task that raised is the harness's failure, not a table's: say it, never hide it
        if p.exception() is not None:
            report.problems.append(f"{players[p].table} {players[p].seat_.name}: the scripted seat raised "
                                   f"{p.exception()!r}")
    if chaos.done() and chaos.exception() is not None:
        report.problems.append(f"the fault injector raised {chaos.exception()!r}")
    chaos.cancel()
    if side is not None:
        try:
            report.problems += await asyncio.wait_for(side, 60) or []
        except asyncio.TimeoutError:
            report.problems.append("the hostile clients did not finish")
    try:
        code = await tm.wait(30) if not pending else None
        if code != 0:
            report.problems.append(f"squeeze tm exited {code} at the end" if code is not None else
                                   "squeeze tm was still running with tables stuck: killed")
    except asyncio.TimeoutError:
        # where it hangs: SIGABRT makes the manager (run with PYTHONFAULTHANDLER) print every thread's stack
        where = ""
        if tm.proc.returncode is None:
            tm.proc.send_signal(signal.SIGABRT)
            try:
                await tm.wait(5)
            except asyncio.TimeoutError:
                pass
            stacks = [l.strip() for l in tm.stderr().splitlines() if l.strip().startswith(("File ", "Thread ",
                                                                                          "Current thread "))]
            where = "; its stacks: " + " | ".join(stacks[-12:]) if stacks else ""
        else:
            where = f" (it had exited {tm.proc.returncode}, but its stderr stayed open)"
        report.problems.append(f"squeeze tm did not exit after every table ended: killed{where}")
    if tm.proc.returncode is None:
        await tm.kill()
    sampler.cancel()
    if collector is not None:
        await collector.__aexit__(None, None, None)
        report.events = len(collector.events)
    report.seconds = time.monotonic() - t0
    if samples:  # the first sample after the tables are seated and playing, and the last one
        report.rss_start_mib, report.rss_end_mib = samples[min(len(samples) - 1, 5)], samples[-1]
    _audit(tm, tables, report)
    return report


async def _chaos(tm: TMProcess, plan: FaultPlan, seats: list[_Seat], rng: random.Random, report: Report,
                 broker: Optional[Mosquitto] = None, collector: Optional[Collector] = None) -> None:
    """The faults at random moments: the manager's and the broker's one at a time, each survived before the next;
    the robot-process kills beside them, timed by their own tables (which may end long before the run does)."""
    faults = ["tm_kill"] * plan.tm_kills + ["disk_full"] * plan.disk_full + ["broker_restart"] * plan.broker_restarts
    rng.shuffle(faults)
    planned = len({s.table for s in seats}) * tm.boards
    # each fault at a random point of the run: once a random share (10 to 80 %) of the boards have been seen ending
    points = sorted(rng.uniform(0.1, 0.8) for _ in faults)
    kills = asyncio.create_task(_process_kills(tm, plan, seats, random.Random(rng.random()), report))
    try:
        for fault, point in zip(faults, points):
            while _progress(seats) < point * planned:
                await asyncio.sleep(0.02)
            await tm.up.wait()
            if fault == "tm_kill":
                code = await tm.kill()
                if code != -signal.SIGKILL:
                    report.problems.append(f"the manager was to be SIGKILLed but exited {code}")
                    return
                await tm.start(resume=True)
            elif fault == "disk_full":
                tm.fill_disk()
                code = await tm.wait(60)
                err = tm.stderr()
                # (the store's clear error; or, when the disk fills as the last board ends, the files')
                if code != 3 or not ("the results store cannot write" in err or "results files cannot be written"
                                     in err) or "same command" not in err:
                    report.problems.append(f"disk full: the manager exited {code} without its clear error")
                    return
                await tm.start(resume=True)  # (the new process has no file-size limit: the disk has room again)
            else:  # broker_restart
                await asyncio.to_thread(broker.kill)  # SIGKILL: mid-publish, no goodbye to any client
                await asyncio.sleep(rng.uniform(0.2, 1.0))  # boards finish meanwhile: their events wait in the queue
                seen = len(collector.events)
                await asyncio.to_thread(broker.start)  # the same port
                if not await _events_flow(collector, seen, seats, planned):
                    report.problems.append("live events did not flow again within 30 s of the broker's restart")
            report.faults[fault] += 1
        await kills
    finally:
        kills.cancel()


async def _process_kills(tm: TMProcess, plan: FaultPlan, seats: list[_Seat], rng: random.Random,
                         report: Report) -> None:
    """SIGKILL a robot process ``plan.process_kills`` times, each at a random share of its tables' boards."""
    tables = {s.table for s in seats if s.process}
    mine = [s for s in seats if s.table in tables]  # (all four seats: _progress counts quarters)
    planned = len(tables) * tm.boards
    points = sorted(rng.uniform(0.1, 0.7) for _ in range(plan.process_kills))
    while points:
        point = points[0]
        while True:
            if _progress(mine) >= planned:
                report.problems.append("a robot-process kill was planned after its tables had ended")
                return
            # a robot with a board still to play: one killed as its table ends would come back to a table that
            # has said End of session (or to a manager that has exited), which is not the fault being tested
            alive = [s for s in seats if s.process and s.proc is not None and s.proc.returncode is None
                     and len({b for b, *_ in s.completed}) < tm.boards - 1]
            if _progress(mine) >= point * planned and alive:
                break
            await asyncio.sleep(0.02)
        try:
            rng.choice(alive).proc.send_signal(signal.SIGKILL)
        except ProcessLookupError:  # it ended just now (its returncode not collected yet): another moment
            await asyncio.sleep(0.02)
            continue
        points.pop(0)
        report.faults["process_kill"] += 1


async def _events_flow(collector: Collector, seen: int, seats: list[_Seat], planned: int) -> bool:
    """Whether events reached the watcher after its ``seen`` first (the manager reconnected and published: any
    event, since scripted tables make events faster than one publisher sends them, and a backlog goes out in
    order); also ``True`` if every board ended first."""
    async def flowing() -> None:
        while len(collector.events) <= seen:
            if _progress(seats) >= planned:
                return
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(flowing(), 30)
        return True
    except asyncio.TimeoutError:
        return False


def _progress(seats: list[_Seat]) -> float:
    """Boards seen ending so far, over all tables (each seat sees each board once: a quarter of the sightings)."""
    return sum(len(s.completed) + len(s.client.results) for s in seats) / 4


def _audit(tm: TMProcess, tables: dict[tuple, list[_Seat]], report: Report) -> None:
    rows = tm.stored()
    stored = {(r.match, r.room, r.board): ([str(c) for c in r.record.auction.calls], [str(c) for c in r.record.play])
              for r in rows}
    report.stored = len([k for k in stored if k[0] != "hostile"])
    planned = {(t[0], t[1], b) for t in tables for b in range(1, tm.boards + 1)}
    report.lost = len(planned - set(stored))
    report.duplicated = len(tm.log_events("tm.duplicate_board"))
    report.voided = len([e for e in tm.log_events("tm.void")])
    for table, members in tables.items():
        # How many times the table finished each board: the count that at least two seats saw. The seat that plays
        # a board's last call or card sees the board end as it sends it, before the manager has stored it; if the
        # store then fails (or the manager dies), the board is played again and that one seat sees it end twice.
        # Every other seat sees the end only from the manager's relay, which follows the commit.
        seen = [Counter(b for b, _calls, _cards in s.completed) for s in members]
        for board in {b for c in seen for b in c}:
            report.duplicated += max(0, sorted((c[board] for c in seen), reverse=True)[1] - 1)
        for s in members:
            for board, calls, cards in s.completed:
                row = stored.get((*table, board))
                if row is None:
                    report.lost += 1
                    report.problems.append(f"{table} board {board}: seen finished by {s.seat_.name}, not stored")
                elif (list(calls), list(cards)) != (list(row[0]), list(row[1])):
                    report.mismatched += 1
                    report.problems.append(f"{table} board {board}: stored differently from what {s.seat_.name} saw: "
                                           f"{_first_difference((calls, cards), row)}")


def _first_difference(seen: tuple, stored: tuple) -> str:
    """Where a seat's sighting of a board and the stored board part: the first differing call or card."""
    for what, mine, theirs in (("call", seen[0], stored[0]), ("card", seen[1], stored[1])):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            if a != b:
                return f"{what} {i + 1}: saw {a}, stored {b} (saw {' '.join(mine)}; stored {' '.join(theirs)})"
        if len(mine) != len(theirs):
            return f"{len(mine)} {what}s seen, {len(theirs)} stored"
    return "the same"


# --- hostile clients ----------------------------------------------------------------------------------------------
async def _read_all(reader: asyncio.StreamReader, timeout: float) -> bytes:
    """Everything until the manager closes the socket (a reset, when it closed with our bytes unread)."""
    data = b""
    while True:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), timeout)
        except (ConnectionError, asyncio.TimeoutError):
            return data
        if not chunk:
            return data
        data += chunk


async def _raw(tm: TMProcess, payload: bytes = b"", trickle: bytes = b"", every: float = 0.1,
               timeout: float = 10.0) -> bytes:
    """Open a connection, send ``payload`` and then ``trickle`` a byte at a time; what the manager answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", tm.port)
    answer = asyncio.create_task(_read_all(reader, timeout))  # read all along: a write after the close would reset
    try:
        writer.write(payload)
        for b in trickle:
            if answer.done():
                break
            writer.write(bytes([b]))
            await asyncio.sleep(every)
        return await answer
    except ConnectionError:
        return await answer
    finally:
        writer.close()


async def hostile_clients(tm: TMProcess) -> list[str]:
    """Every kind of bad client at once, beside the tables: each must get a clear answer or a clear log line and
    none may touch another table. Returns what went wrong (empty: nothing). Kinds: garbage, a 1 MiB line, a
    flood of lines from a seated seat, slowloris (a ``Connecting`` line trickled without its line end), a second
    connection claiming a taken seat, a client that connects and never speaks."""
    problems: list[str] = []
    taken = match_teams(0)[0]
    # a table of the hostile teams: its North floods once seated, is cut off, comes back and the table plays on
    table = [ScriptedClient(tm.port, HOSTILE_TEAMS[0] if s.is_ns else HOSTILE_TEAMS[1], s, seed=3) for s in Seat]
    tasks = await start_in_order(table)
    expected = {
        "garbage": (_raw(tm, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"), b"Error: Expected 'Connecting"),
        "1 MiB line": (_raw(tm, b"North bids 1C Alert. " + b"x" * (1 << 20)), b""),
        "slowloris": (_raw(tm, trickle=b'Connecting "R00a" as North using protocol version 18' * 2,
                           every=0.1, timeout=IDLE_SECONDS + 5), b"Error: No Connecting line within"),
        "taken seat": (_raw(tm, f'Connecting "{taken}" as North using protocol version 18\r\n'.encode()),
                       b"Error: Seat North has already been taken"),
        "silent": (_raw(tm, timeout=IDLE_SECONDS + 5), b"Error: No Connecting line within"),
    }
    table[0].send_raw(b"North ready for teams\r\n" * 5000)  # the flood, from a seated seat
    answers = await asyncio.gather(*(coro for coro, _ in expected.values()))
    for (kind, (_coro, want)), got in zip(expected.items(), answers):
        if not (got.startswith(want) if want else got == b""):
            problems.append(f"{kind}: answered {got[:80]!r}, expected {want!r}")
    if await asyncio.wait_for(tasks[0], 20) != "closed":
        problems.append("flood: the flooding seat was not cut off")
    tasks[0] = asyncio.create_task(table[0].rejoin())  # it comes back and behaves: its table plays on
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    if outcomes != ["ended"] * 4:
        problems.append(f"the hostile table did not finish after the flood: {outcomes}")
    reasons = [e.get("reason", "") for e in tm.log_events("tm.closed")]
    for words in ("line too long", "flood: more than", "idle: no Connecting line", "refused: Seat North has already",
                  "refused: Expected 'Connecting"):
        if not any(words in r for r in reasons):
            problems.append(f"no log line closing a connection for {words!r}")
    return problems

