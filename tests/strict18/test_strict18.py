"""Squeeze against strict protocol-18 peers written from the Blue Chip specification, not from our codec
(``strict_tm.py``, ``strict_robot.py``), as real processes over TCP on loopback:

- four ``squeeze seat`` with default settings finish boards at the strict manager, which checks every line, call and
  card, and what each robot believes (its transcript, its log) is what the manager recorded;
- four ``squeeze seat --explanations`` finish boards at ``squeeze tm``;
- four strict robots finish boards at ``squeeze tm`` (its defaults), also with a clock overrun on one of them
  (``force`` and ``warn``): they fail on any line outside the protocol, so finishing proves they got none, and the
  director finds the overrun in the manager's log, the PBN and summary.json;
- the strict peers themselves fail on what the protocol does not define (``Infos.``, ``Error`` lines, ``Playing
  IMP``, ``Open room``, an alert shown to the bidder's partner, ...) and import nothing but the standard library.
"""

from __future__ import annotations

import ast
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from squeeze.robot.tm.store import STORE_FILE, ResultsStore

HERE = Path(__file__).resolve().parent
STRICT_TM = HERE / "strict_tm.py"
STRICT_ROBOT = HERE / "strict_robot.py"
SQUEEZE = str(Path(sys.executable).with_name("squeeze"))
SEATS = ("North", "East", "South", "West")
TEAMS = {"North": "Alpha", "South": "Alpha", "East": "Beta", "West": "Beta"}


class Processes:
    """Processes started by a test; whatever is still running at the end is killed (by its own pid)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen] = []

    def start(self, argv, *, stdout=subprocess.DEVNULL, stderr=None, **kw) -> subprocess.Popen:
        proc = subprocess.Popen([str(a) for a in argv], stdout=stdout, stderr=stderr, text=True, **kw)
        self.started.append(proc)
        return proc

    def __enter__(self) -> "Processes":
        return self

    def __exit__(self, *exc) -> None:
        for p in self.started:
            if p.poll() is None:
                p.kill()
                p.wait()


def listening_port(proc: subprocess.Popen) -> int:
    """The port in a manager's first line of output (``... listening on HOST:PORT``)."""
    line = proc.stdout.readline()
    assert "listening on" in line, f"the manager did not start: {line!r}"
    return int(line.rsplit(":", 1)[1])


def wait_all(procs: dict[str, subprocess.Popen], timeout: float, logs: dict[str, Path]) -> dict[str, int]:
    """Exit codes of ``procs`` (name -> process), failing with the logs of the ones that did not end in time."""
    deadline = time.monotonic() + timeout
    codes = {}
    for name, p in procs.items():
        try:
            codes[name] = p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            tails = {n: logs[n].read_text(errors="replace")[-1500:] for n in logs if logs[n].exists()}
            pytest.fail(f"{name} did not finish within {timeout:g} s; logs: {json.dumps(tails, indent=1)}")
    return codes


def start_strict_tm(procs: Processes, tmp: Path, boards: int, seed: int) -> tuple[subprocess.Popen, int]:
    tm = procs.start([sys.executable, STRICT_TM, "--port", 0, "--boards", boards, "--seed", seed,
                      "--out", tmp / "strict_tm.json", "--log", tmp / "strict_tm.log", "--lead-pause", 0.05,
                      "--timeout", 150], stdout=subprocess.PIPE, stderr=open(tmp / "strict_tm.err", "w"))
    return tm, listening_port(tm)


def start_squeeze_tm(procs: Processes, tmp: Path, boards: int, seed: int, *args) -> tuple[subprocess.Popen, int]:
    tm = procs.start([SQUEEZE, "tm", "--port", 0, "--out", tmp / "out", "--random-boards", boards, "--seed", seed,
                      *args], stdout=subprocess.PIPE, stderr=open(tmp / "tm.log", "w"),
                     env={**os.environ, "SQUEEZE_LOG__LEVEL": "info", "SQUEEZE_LOG__FORMAT": "json"})
    return tm, listening_port(tm)


def start_squeeze_seats(procs: Processes, tmp: Path, port: int, *flags) -> dict[str, subprocess.Popen]:
    env = {**os.environ, "SQUEEZE_LOG__LEVEL": "info", "SQUEEZE_LOG__FORMAT": "json"}
    return {s: procs.start([SQUEEZE, "seat", "--host", "127.0.0.1", "--port", port, "--seat", s[0], "--team",
                            TEAMS[s], "--transcript", tmp / f"{s}.transcript", *flags],
                           stderr=open(tmp / f"{s}.log", "w"), env=env) for s in SEATS}


def start_strict_robots(procs: Processes, tmp: Path, port: int, slow: dict[str, float] | None = None) -> dict:
    slow = slow or {}
    return {s: procs.start([sys.executable, STRICT_ROBOT, "127.0.0.1", port, s[0], TEAMS[s], "--record",
                            tmp / f"{s}.json", "--log", tmp / f"{s}.lines", "--timeout", 60,
                            *(["--slow-once", slow[s]] if s in slow else [])],
                           stderr=open(tmp / f"{s}.err", "w")) for s in SEATS}


# --- what each side recorded, in one notation: calls 1C..7N P X XX, cards rank+suit as the protocol writes them ----

def spec_contract(contract: str | None, declarer: str | None) -> str | None:
    """The strict peers' contract (``1NTX`` by ``South``) as Squeeze writes it (``1NXS``)."""
    return None if contract is None else contract.replace("NT", "N") + declarer[0]


def spec_call(token: str) -> str:
    return token[:2] if token.endswith("NT") else token


_CALL_LINE = re.compile(r"(North|East|South|West) (passes|doubles|redoubles|bids (\S+))")
_CARD_LINE = re.compile(r"(North|East|South|West) plays (\S\S)$")


def transcript_boards(path: Path) -> list[dict]:
    """Each board as one robot saw it in its ``--transcript``: every call (its own sent, the others received) and
    every card (its own and, as declarer, dummy's sent; the others received), in order."""
    boards: list[dict] = []
    for raw in path.read_text().splitlines():
        _, direction, line = raw.split(" ", 2)
        if line == "Start of board" and direction == "in":
            boards.append({"calls": [], "cards": []})
            continue
        mt = _CALL_LINE.match(line)
        if mt and boards and not boards[-1]["cards"]:
            word = mt.group(2)
            boards[-1]["calls"].append(spec_call(mt.group(3)) if mt.group(3) else
                                       {"passes": "P", "doubles": "X", "redoubles": "XX"}[word])
            continue
        mt = _CARD_LINE.match(line)
        if mt and boards:
            boards[-1]["cards"].append(mt.group(2))
    return boards


def log_events(path: Path, name: str) -> list[dict]:
    events = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            ev = json.loads(line)
            if ev.get("event") == name:
                events.append(ev)
    return events


def store_rows(folder: Path) -> list[dict]:
    """Our table manager's results, in the strict peers' notation."""
    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        rows = []
        for r in store.results():
            rec = r.record
            rows.append({"board": r.board, "calls": [str(c) for c in rec.auction.calls],
                         "cards": [str(c)[1] + str(c)[0] for c in rec.play],
                         "contract": None if rec.contract is None else str(rec.contract),
                         "declarer_tricks": rec.result if rec.contract is not None else None,
                         "explanations": [n.explanation for n in rec.call_notes]})
        return rows
    finally:
        store.close()


# --- Squeeze at the strict manager -----------------------------------------------------------------------------------

@pytest.mark.slow
def test_four_squeeze_seats_with_default_settings_finish_boards_at_the_strict_manager(tmp_path):
    """The issue's failure: our robot's default (then ``West passes Infos. ...``) made a strict protocol-18 manager
    drop the table on the second call. With default settings now, every line, call and card passes its checks."""
    with Processes() as procs:
        tm, port = start_strict_tm(procs, tmp_path, boards=2, seed=5)
        seats = start_squeeze_seats(procs, tmp_path, port)
        logs = {s: tmp_path / f"{s}.log" for s in SEATS} | {"strict tm": tmp_path / "strict_tm.log"}
        codes = wait_all({"strict tm": tm, **seats}, 240, logs)
    result = json.loads((tmp_path / "strict_tm.json").read_text())
    assert codes == {name: 0 for name in codes}, (result.get("error"), (tmp_path / "strict_tm.err").read_text())
    assert result["ok"] and [b["board"] for b in result["boards"]] == [1, 2]
    assert any(b["contract"] for b in result["boards"]), "no board was played: choose another seed"
    for seat in SEATS:
        seen = transcript_boards(tmp_path / f"{seat}.transcript")
        believed = log_events(tmp_path / f"{seat}.log", "seat.board_complete")
        assert log_events(tmp_path / f"{seat}.log", "seat.table_error") == []
        assert len(seen) == len(believed) == 2
        for mine, belief, theirs in zip(seen, believed, result["boards"]):
            assert mine["calls"] == [spec_call(c) for c in theirs["auction"]], seat
            assert mine["cards"] == [c for t in theirs["tricks"] for c in t["cards"]], seat
            assert (belief["board"], belief["contract"], belief["declarer_tricks"]) == (
                theirs["board"], spec_contract(theirs["contract"], theirs["declarer"]), theirs["declarer_tricks"]), seat
        sent = [line.split(" ", 2)[2] for line in (tmp_path / f"{seat}.transcript").read_text().splitlines()
                if line.split(" ", 2)[1] == "out"]
        assert not any("Infos." in line for line in sent)


# --- Squeeze with explanations at our manager ------------------------------------------------------------------------

@pytest.mark.slow
def test_four_squeeze_seats_with_explanations_finish_boards_at_squeeze_tm(tmp_path):
    """``--explanations``: every call goes with its text (``Infos.`` for unalerted ones); our manager keeps it in the
    records and passes on to these protocol-18 seats only what protocol 18 has."""
    with Processes() as procs:
        tm, port = start_squeeze_tm(procs, tmp_path, 2, 6)
        seats = start_squeeze_seats(procs, tmp_path, port, "--explanations", "--preset", "fast")
        logs = {s: tmp_path / f"{s}.log" for s in SEATS} | {"tm": tmp_path / "tm.log"}
        codes = wait_all({**seats, "tm": tm}, 240, logs)
    assert codes == {name: 0 for name in codes}
    rows = store_rows(tmp_path / "out")
    assert [r["board"] for r in rows] == [1, 2]
    assert any(e for r in rows for e in r["explanations"])  # kept in the records
    infos_sent = infos_received = 0
    for seat in SEATS:
        lines = [raw.split(" ", 2) for raw in (tmp_path / f"{seat}.transcript").read_text().splitlines()]
        infos_sent += sum(1 for _, d, line in lines if d == "out" and " Infos. " in line)
        infos_received += sum(1 for _, d, line in lines if d == "in" and "Infos." in line)
        believed = log_events(tmp_path / f"{seat}.log", "seat.board_complete")
        assert [(b["board"], b["contract"], b["declarer_tricks"]) for b in believed] == [
            (r["board"], r["contract"], r["declarer_tricks"]) for r in rows]
    assert infos_sent > 0 and infos_received == 0


# --- strict robots at our manager ------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("clock", ["defaults", "force", "warn"])
def test_four_strict_robots_finish_boards_at_squeeze_tm(tmp_path, clock):
    """Default settings; then small limits and West asleep past the card limit once (``force``: the table plays the
    card, which West, playing the lowest legal card, would have played too; ``warn``: it waits). Board 1 is passed
    out (seed 29): the manager's flow after a pass-out is checked too."""
    args: list = [] if clock == "defaults" else ["--card-limit", 1, "--grace-seconds", 0.5, "--time-fate",
                                                 clock]
    slow = {} if clock == "defaults" else {"West": 3.0}
    with Processes() as procs:
        tm, port = start_squeeze_tm(procs, tmp_path, 3, 29, *args)
        robots = start_strict_robots(procs, tmp_path, port, slow)
        logs = {s: tmp_path / f"{s}.lines" for s in SEATS} | {"tm": tmp_path / "tm.log"}
        codes = wait_all({**robots, "tm": tm}, 60, logs)
    errors = {s: (tmp_path / f"{s}.err").read_text() for s in SEATS}
    assert codes == {name: 0 for name in codes}, errors
    assert set(errors.values()) == {""}

    rows = store_rows(tmp_path / "out")
    assert [r["board"] for r in rows] == [1, 2, 3]
    assert [r["contract"] is None for r in rows] == [True, False, False]
    for seat in SEATS:
        record = json.loads((tmp_path / f"{seat}.json").read_text())
        assert record["ok"] and [b["board"] for b in record["boards"]] == [1, 2, 3]
        for mine, ours in zip(record["boards"], rows):
            assert [spec_call(c) for c in mine["auction"]] == ours["calls"]
            assert [c for t in mine["tricks"] for c in t["cards"]] == ours["cards"]
            assert (spec_contract(mine["contract"], mine["declarer"]), mine["declarer_tricks"]) == (
                ours["contract"], ours["declarer_tricks"])

    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    (match,) = summary["matches"].values()  # (named by the first team to connect)
    incidents = [(i["board"], i["kind"], i["detail"]) for i in match["incident_log"]]
    pbn = (tmp_path / "out" / "boards.pbn").read_text(encoding="latin-1")
    tm_log = tmp_path / "tm.log"
    if clock == "defaults":
        assert incidents == [] and log_events(tm_log, "tm.clock") == []
        return
    slept = (tmp_path / "West.lines").read_text()
    assert "sleeping 3 s before this card" in slept
    kinds = [k for _, k, _ in incidents]
    assert kinds == (["clock", "forced"] if clock == "force" else ["clock"])
    assert all(d.startswith("West: ") for _, _, d in incidents)
    assert re.search(r"\{clock: West: [\d.]+ s on one card \(limit 1 s\)\}", pbn)
    assert ("{forced: West: the table made its card" in pbn) is (clock == "force")
    assert [e["detail"] for e in log_events(tm_log, "tm.clock")] == [d for _, k, d in incidents if k == "clock"]
    assert len(log_events(tm_log, "tm.forced")) == (clock == "force")


# --- the strict peers: with each other, and on what the protocol does not define ------------------------------------

def test_the_strict_peers_play_each_other(tmp_path):
    """Four strict robots at the strict manager (board 3 passed out, seed 25): both sides of the spec agree."""
    with Processes() as procs:
        tm, port = start_strict_tm(procs, tmp_path, boards=4, seed=25)
        robots = start_strict_robots(procs, tmp_path, port)
        logs = {s: tmp_path / f"{s}.lines" for s in SEATS} | {"strict tm": tmp_path / "strict_tm.log"}
        codes = wait_all({**robots, "strict tm": tm}, 60, logs)
    assert codes == {name: 0 for name in codes}
    result = json.loads((tmp_path / "strict_tm.json").read_text())
    assert [b["contract"] is None for b in result["boards"]] == [False, False, True, False]
    for seat in SEATS:
        record = json.loads((tmp_path / f"{seat}.json").read_text())
        assert [(b["board"], b["auction"], b["contract"], b["declarer"], b["tricks"], b["declarer_tricks"])
                for b in record["boards"]] == [
            (b["board"], b["auction"], b["contract"], b["declarer"], b["tricks"], b["declarer_tricks"])
            for b in result["boards"]]


def _connect_four(port: int, north_call: str) -> dict[str, socket.socket]:
    """Four raw players at the strict manager, each sending its lines up to North's first call (board 1, North
    deals), North's being ``north_call``."""
    socks = {}
    for seat in SEATS:
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f'Connecting "{TEAMS[seat]}" as {seat} using protocol version 18', f"{seat} ready for teams",
                 f"{seat} ready to start", f"{seat} ready for deal", f"{seat} ready for cards"]
        lines.append(north_call if seat == "North" else f"{seat} ready for North's bid")
        s.sendall("".join(line + "\r\n" for line in lines).encode("latin-1"))
        socks[seat] = s
    return socks


def _read_until_closed(sock: socket.socket, timeout: float = 10.0) -> str:
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data.decode("latin-1")
        if not chunk:
            return data.decode("latin-1")
        data += chunk


@pytest.mark.parametrize("call", [
    "North passes Infos. No suitable action",  # an explanation of an unalerted call: protocol 19
    "North passes Alert. Forcing for one round.",  # nothing may follow a pass
    "North doubles",  # nothing to double: an illegal call
    "north passes",  # the spec's casing
    "North bids 1N",  # the spec writes NT
    "North bids 1C.",  # punctuation the spec does not define
    "North passes\n",  # LF alone ends a line
])
def test_the_strict_manager_drops_the_table_on_a_line_the_protocol_does_not_define(tmp_path, call):
    with Processes() as procs:
        tm, port = start_strict_tm(procs, tmp_path, boards=1, seed=1)
        socks = _connect_four(port, call)
        received = {s: _read_until_closed(sock) for s, sock in socks.items()}  # every socket closed by the manager
        assert tm.wait(10) == 1
    err = (tmp_path / "strict_tm.err").read_text()
    assert "Illegal" in err and "North" in err, err
    assert not json.loads((tmp_path / "strict_tm.json").read_text())["ok"]
    assert all("Start of board" in text for text in received.values())


def test_the_strict_manager_relays_an_alert_to_the_opponents_only(tmp_path):
    with Processes() as procs:
        tm, port = start_strict_tm(procs, tmp_path, boards=1, seed=1)
        socks = _connect_four(port, "North bids 1C Alert. 12 to 14 total points.")
        relayed = {}
        for seat in ("East", "South", "West"):
            socks[seat].settimeout(10)
            data = b""
            while b"North bids 1C" not in data:
                data += socks[seat].recv(65536)
            relayed[seat] = [line for line in data.decode().split("\r\n") if line.startswith("North bids")][0]
        tm.kill()
    assert relayed == {"East": "North bids 1C Alert. 12 to 14 total points.", "South": "North bids 1C",
                       "West": "North bids 1C Alert. 12 to 14 total points."}


_GOOD = {  # the fake manager's lines to a strict South (team "Alpha"), each after South's line before it
    "seated": 'South ("Alpha") seated',
    "teams": 'Teams : N/S : "Alpha". E/W : "Beta"',
    "start": "Start of board",
    "board": "Board number 1. Dealer North. Neither vulnerable",
    "cards": "South's cards : S A K Q 2. H K 3 2. D 4 3 2. C 4 3 2.",
    "north": "North passes",
    "east": "East bids 1C Alert. 12 to 14 total points.",
}
_SOUTH_SAYS = ['Connecting "Alpha" as South using protocol version 18', "South ready for teams",
               "South ready to start", "South ready for deal", "South ready for cards", "South ready for North's bid",
               "South ready for East's bid", "South passes"]


def _fake_manager(tmp_path, lines: dict[str, str]) -> tuple[list[str], int, str]:
    """Serve a strict South the given lines, in order, each after the line South must send before it; returns what
    South sent, its exit status and its error output."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    robot = subprocess.Popen([sys.executable, str(STRICT_ROBOT), "127.0.0.1", str(port), "S", "Alpha", "--timeout",
                              "10"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said: list[str] = []
    try:
        server.settimeout(10)
        conn, _ = server.accept()
        conn.settimeout(5)
        reader = conn.makefile("rb")
        for reply in [*lines.values(), None]:
            raw = reader.readline()
            if not raw:
                break
            said.append(raw.decode().rstrip("\r\n"))
            if reply is None:
                break
            conn.sendall(reply.encode() + b"\r\n")
        reader.close()  # (the file holds the socket open)
        conn.close()
        code = robot.wait(10)
        return said, code, robot.stderr.read()
    finally:
        server.close()
        if robot.poll() is None:
            robot.kill()
            robot.wait()


def test_the_strict_robot_takes_protocol_18_as_the_spec_writes_it(tmp_path):
    said, _, _ = _fake_manager(tmp_path, _GOOD)
    assert said == _SOUTH_SAYS  # an opponent's alert with its text accepted; then its own (legal) call
    variants = dict(_GOOD, teams='Teams : N/S : "Alpha" E/W : "Beta"',
                    board="Board number 1. Dealer North. Neither vulnerable.")  # the forms managers send
    assert _fake_manager(tmp_path, variants)[0] == _SOUTH_SAYS


@pytest.mark.parametrize("where,line", [
    ("teams", "Error: Time limit: South, 61.0 s on one card (limit 60 s); the table acts in 10 s"),
    ("teams", 'Teams : N/S : "Alpha". E/W : "Beta". Playing IMP'),
    ("board", "Board number 1. Dealer North. Neither vulnerable. Open room."),
    ("north", "North bids 1C Alert. 12 to 14 total points."),  # our partner's alert
    ("north", "North passes Infos. No suitable action"),
    ("north", "North doubles"),  # nothing to double
    ("east", "Illegal bid"),
    ("east", "EAST bids 1C"),
])
def test_the_strict_robot_stops_on_a_line_the_protocol_does_not_define(tmp_path, where, line):
    said, code, err = _fake_manager(tmp_path, dict(_GOOD, **{where: line}))
    assert code == 1 and "strict robot South" in err and repr(line) in err, err
    assert said == _SOUTH_SAYS[:list(_GOOD).index(where) + 1]  # nothing more after it


def test_the_strict_peers_import_nothing_but_the_standard_library():
    """What makes them an independent peer: nothing of Squeeze (codec or engine), nothing installed."""
    for path in (STRICT_TM, STRICT_ROBOT, HERE / "spec18.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
        assert imported - set(sys.stdlib_module_names) == {"spec18"} - ({"spec18"} if path.name == "spec18.py"
                                                                        else set()), path.name
