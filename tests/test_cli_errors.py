"""A new user's mistakes, each tried as a real process: one line ``error: ...`` and the documented exit code, never a
traceback, and nothing left behind that refuses the next run; the same command continues a stopped run."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from terminal import foreground_sigint

SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}


def run(*args: str, timeout: float = 120, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run(SQUEEZE + list(args), capture_output=True, text=True, timeout=timeout,
                          env={**ENV, **(env or {})}, cwd=cwd)


def one_error(r, code: int, *fragments: str, after: int = 0) -> str:
    """The run failed with ``code`` and said why in one ``error:`` line (logs aside; ``after``: that many error
    lines of a file's diagnostics come first), with no traceback."""
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 + after, r.stderr
    for f in fragments:
        assert f in errors[-1], errors[-1]
    return errors[-1]


@pytest.fixture
def taken_port():
    """A loopback port something else listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_tm(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(SQUEEZE + ["tm", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**ENV, "SQUEEZE_LOG__LEVEL": "warning"}, cwd=cwd)


def stop_when_listening(proc: subprocess.Popen) -> tuple[str, str]:
    """Wait for the manager's "listening" line, SIGTERM it and return its output (it exits 1: stopped)."""
    line = proc.stdout.readline()
    assert "listening on" in line, (line, proc.stderr.read())
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    return line + out, err


# --- the table manager --------------------------------------------------------------------------------------------
def test_tm_on_a_port_in_use_is_one_line_with_exit_2_and_leaves_nothing(tmp_path, taken_port):
    r = run("tm", "--port", str(taken_port), "--boards", "2", "--out", "results", cwd=tmp_path)
    one_error(r, 2, f"cannot listen on 127.0.0.1:{taken_port}: address already in use", "choose another --port")
    assert not (tmp_path / "results").exists()  # bound before the store is made: nothing half-made
    # the same command on a free port starts (nothing refuses it)
    stop_when_listening(start_tm("--port", str(free_port()), "--boards", "2", "--out", "results", cwd=tmp_path))
    assert (tmp_path / "results" / "results.sqlite").is_file()


def test_tm_with_the_embedded_brokers_port_taken_is_one_line_without_the_brokers_traceback(tmp_path, taken_port):
    r = run("tm", "--port", "0", "--boards", "1", "--out", "results", "--mqtt", "embedded", cwd=tmp_path,
            env={"SQUEEZE_MQTT__PORT": str(taken_port)})
    one_error(r, 2, f"the embedded MQTT broker cannot listen on 127.0.0.1:{taken_port}: address already in use")
    assert "Broker startup failed" not in r.stderr and not (tmp_path / "results").exists()


def test_tm_continues_the_same_run_and_refuses_another_naming_the_difference(tmp_path):
    first = ["--port", "0", "--boards", "2", "--seed", "5", "--out", "results"]
    stop_when_listening(start_tm(*first, cwd=tmp_path))
    # the same command again: the run is continued, without --resume (still accepted)
    for extra in ((), ("--resume",)):
        out, err = stop_when_listening(start_tm(*first, *extra, cwd=tmp_path))
        assert "continuing the run in results (0 boards stored)" in err, err
    # other boards: refused before listening, and it says what differs and what to do
    r = run("tm", "--port", "0", "--boards", "3", "--seed", "5", "--out", "results", cwd=tmp_path)
    line = one_error(r, 2, "results holds another run", "give the same options as when it started",
                     "choose another --out", "boards: boards 1-2 in the stored run, boards 1-3 now")
    assert "listening" not in r.stdout and "seed" not in line.split("Differences:")[1]


def test_tm_boards_is_a_count_and_a_board_file_is_boards_file(tmp_path):
    r = run("tm", "--boards", "games.pbn", cwd=tmp_path)
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", r.stderr).split())  # (a usage error comes in typer's box)
    assert r.returncode == 2 and "a PBN file of boards is --boards-file FILE" in said
    r = run("tm", "--boards-file", "missing.pbn", "--out", "results", cwd=tmp_path)
    one_error(r, 2, "missing.pbn")
    assert not (tmp_path / "results").exists()
    # the old spelling of the count still works, with a warning
    proc = start_tm("--port", "0", "--random-boards", "2", "--out", "results", cwd=tmp_path)
    _, err = stop_when_listening(proc)
    assert "--random-boards is deprecated" in err and "--boards 2" in err


# --- the robot ----------------------------------------------------------------------------------------------------
def test_seat_with_a_transcript_in_a_missing_folder_is_one_line(tmp_path):
    r = run("seat", "--transcript", str(tmp_path / "no" / "such" / "t.log"), "--port", str(free_port()))
    one_error(r, 2, "cannot write the transcript", "No such file or directory")


def test_ctrl_c_on_seat_exits_130_with_one_line_and_no_traceback_from_its_worker():
    # a terminal's Ctrl-C reaches the whole process group: the seat and its decision worker
    with foreground_sigint():
        proc = subprocess.Popen(SQUEEZE + ["seat", "--port", str(free_port()), "--preset", "fast"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                                env={**ENV, "SQUEEZE_LOG__FORMAT": "json"})
    seen = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # the worker is up once the seat tries to connect
        line = proc.stderr.readline()
        seen.append(line)
        if not line or "seat.connect_retry" in line:
            break
    assert "seat.connect_retry" in seen[-1], "".join(seen)
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "squeeze seat: interrupted"


# --- the match ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,fragments", [
    (["--a", "nosuch"], ["team 'nosuch' is neither a preset (default, fast, strong) nor a TOML settings file"]),
    (["--b", "nosuch.toml"], ["team 'nosuch.toml' is neither a preset"]),
    (["--b-cmd", "no-such-program {host} {port} {seat}"],
     ["cannot run 'no-such-program' (no such program on the PATH, or not executable)"]),
    (["--b-cmd", "prog {hots} {port}"], ["{hots} is not a placeholder (use {host}, {port}, {seat}, {team})"]),
])
def test_a_match_checks_every_team_before_anything_starts(tmp_path, args, fragments):
    t0 = time.monotonic()
    r = run("match", "--boards", "1", "--out", "m", *args, cwd=tmp_path)
    one_error(r, 2, *fragments)
    assert time.monotonic() - t0 < 60  # (it took 34 s of robot restarts before)
    assert not (tmp_path / "m").exists()  # nothing the next run would refuse


def test_a_match_refuses_a_folder_holding_another_run_and_says_what_differs(tmp_path):
    # a table manager's run in the folder (stopped at once): a match there is refused, naming the differences
    stop_when_listening(start_tm("--port", "0", "--boards", "1", "--out", "m", cwd=tmp_path))
    r = run("match", "--boards", "1", "--a", "fast", "--b", "fast", "--out", "m", cwd=tmp_path)
    one_error(r, 2, "m holds another run", "rooms: 1 in the stored run, 2 now", "choose another --out")


# --- PBN ----------------------------------------------------------------------------------------------------------
def _pbn_of_one_board(tmp_path: Path) -> bytes:
    from squeeze.engine.cards import Deal, dealer_for_board, vul_for_board
    from squeeze.engine.pbn import PbnGame, encode_pbn, format_game
    from squeeze.engine.record import BoardRecord
    import random

    rec = BoardRecord(board=1, deal=Deal.random(random.Random(1)), dealer=dealer_for_board(1), vul=vul_for_board(1))
    return encode_pbn(format_game(PbnGame.from_record(rec)))


@pytest.mark.parametrize("kind,fragment", [
    ("empty", "no PBN game in it"),
    ("plain", "no PBN game in it"),
    ("truncated", "no game could be read (the error above)"),
])
def test_pbn_without_a_readable_game_is_an_error_and_writes_nothing(tmp_path, kind, fragment):
    good = _pbn_of_one_board(tmp_path)
    data = {"empty": b"", "plain": b"Dear club, here are the boards of Tuesday.\n",
            "truncated": good[:good.index(b"[Deal") + 12]}[kind]
    (tmp_path / "in.pbn").write_bytes(data)
    r = run("pbn", "in.pbn", "--lin", "out.lin", "--export", "out.pbn", cwd=tmp_path)
    one_error(r, 1, f"in.pbn: {fragment}", "nothing written", after=int(kind == "truncated"))
    assert "games read" not in r.stdout
    assert not (tmp_path / "out.lin").exists() and not (tmp_path / "out.pbn").exists()
    # a good file converts, exit 0
    (tmp_path / "good.pbn").write_bytes(good)
    r = run("pbn", "good.pbn", "--lin", "out.lin", cwd=tmp_path)
    assert r.returncode == 0 and "1 games read" in r.stdout and (tmp_path / "out.lin").stat().st_size > 0
