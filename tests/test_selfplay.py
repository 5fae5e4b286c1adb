"""Self-play tournaments (robot.selfplay, `squeeze selfplay`) with real components: real engines in real worker
processes (a local pool, a Dask LocalCluster on loopback), the real results store, a real `squeeze selfplay` process
killed with SIGKILL. Engines are small (PIMC with 2-4 worlds) to keep the suite quick."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from squeeze.config.settings import SelfPlaySettings
from squeeze.engine.record import BoardRecord
from squeeze.robot.selfplay import executors
from squeeze.robot.selfplay.run import SelfPlayError, StrictStop, load_team, prepare_run, run_selfplay
from squeeze.robot.summary import parse_summary
from squeeze.robot.tm.store import ResultsStore

SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")} | {"SQUEEZE_LOG__LEVEL": "warning"}


@pytest.fixture(autouse=True)
def _no_settings_env(monkeypatch):
    for name in [n for n in os.environ if n.startswith("SQUEEZE_")]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def team_files(tmp_path_factory):
    """Two small engines as TOML settings files (a team may be a preset or a file): PIMC with 2 and 3 worlds, the
    rules alone at every call (a Borel simulation's depth depends on the time it gets, and these runs are compared
    with a reference run card for card)."""
    folder = tmp_path_factory.mktemp("teams")
    paths = []
    for name, worlds in (("two", 2), ("three", 3)):
        path = folder / f"{name}.toml"
        path.write_text(f'[engine]\ndeclarer_selector = "pimc"\nworlds = {worlds}\ninference = false\nborel = false\n')
        paths.append(str(path))
    return paths


def teams(files, seed=1):
    return tuple(load_team(f, seed=seed) for f in files)


def settings(out, files, **kw):
    values = dict(a=files[0], b=files[1], boards=6, workers=2, chunk_boards=1, out=out)
    return SelfPlaySettings(**(values | kw))


def results(out):
    store = ResultsStore(out / "results.sqlite", create=False)
    try:
        return [(r.board, r.room) for r in store.results()], store.errors("selfplay")
    finally:
        store.close()


def test_both_rooms_of_a_board_are_committed_together_or_not_at_all(tmp_path):
    from squeeze.robot.tm.plan import random_boards
    from squeeze.robot.tm.store import DuplicateBoardError

    boards = random_boards(1, 2, seed=4)
    store = ResultsStore(tmp_path / "r.sqlite", create=True)
    store.set_plan(boards, {"x": 1})
    store.add_match("selfplay", 2, "A", "B")
    rec = {room: BoardRecord(board=1, deal=boards[0].deal, room=room) for room in ("Open", "Closed")}
    store.commit_board("selfplay", "Closed", rec["Closed"])
    with pytest.raises(DuplicateBoardError, match="board 1"):
        store.commit_boards("selfplay", [("Open", rec["Open"], ()), ("Closed", rec["Closed"], ())], dd=(1, [[7] * 4]))
    assert [(r.board, r.room) for r in store.results()] == [(1, "Closed")] and store.dd_tables() == {}
    store.commit_boards("selfplay", [("Open", rec["Open"], ())], dd=(1, [[7] * 4]))
    assert store.dd_tables() == {1: [[7] * 4]}
    store.void_board("selfplay", ("Open", "Closed"), 2, "Open room: boom")
    assert store.errors("selfplay") == {2: "Open room: boom"} and store.errors("other") == {}
    store.close()


def test_the_sprt_reads_the_boards_done_without_a_gap_in_board_order():
    from squeeze.engine.stats import Sprt
    from squeeze.engine.teams import BoardComparison
    from squeeze.robot.selfplay.report import sprt_state

    def comp(board, swing):
        return BoardComparison(board, swing, 0, swing, swing, ("3NN", "3NN"))

    test = Sprt(0, 0.5, min_boards=2)
    # boards 1-4 lost heavily, 6-9 won, board 5 still in play: only 1-4 count, whatever finished later
    comps = [comp(b, -20) for b in range(1, 5)] + [comp(b, 12) for b in range(6, 10)]
    done = {1, 2, 3, 4, 6, 7, 8, 9}
    state = sprt_state(test, comps, done, list(range(1, 10)))
    assert state.verdict == "H0" and state.boards == 4  # 20 IMPs lost a board: decided after four of them
    # board 5 voided: it is done, adds no swing, and the boards after it count
    state = sprt_state(Sprt(0, 0.5, min_boards=6), comps, done | {5}, list(range(1, 10)))
    assert state.boards == 8 and state.verdict == "continue"  # (4 lost by 20, 4 won by 12: too spread to tell)


# --- runs --------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_workers(tmp_path_factory, team_files):
    """Six boards on two local workers, one board per chunk."""
    out = tmp_path_factory.mktemp("two-workers")
    s = settings(out, team_files)
    seen = []
    report = run_selfplay(s, teams(team_files), progress=seen.append)
    return s, report, seen


def test_a_run_plays_every_board_in_both_rooms_and_writes_its_files(two_workers):
    s, report, seen = two_workers
    assert report.stopped is None
    played, voided = results(s.out)
    assert sorted(played) == sorted((b, room) for b in range(1, 7) for room in ("Open", "Closed")) and not voided
    summary = json.loads((s.out / "summary.json").read_text())
    assert summary == report.summary
    parsed = parse_summary((s.out / "summary.json").read_bytes())  # the one schema, every field checked
    assert parsed.source == "selfplay" and parsed.match == "selfplay" and parsed.planned == 6 and parsed.seed == 1
    assert parsed.to_dict() == summary and parsed.bidding is not None and parsed.think_seconds is None
    assert summary["boards"] == 6 and summary["teams"] == {"a": "two", "b": "three"}
    for key in ("imps_per_board", "stderr", "interval95", "los", "flat", "bidding", "play", "par_adjusted"):
        assert key in summary
    # the bidding/play split adds up to the swing; same bidding system both sides here, so every swing is play
    assert summary["bidding"]["imps_per_board"] + summary["play"]["imps_per_board"] == pytest.approx(
        summary["imps_per_board"])
    assert (s.out / "imps.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pbn = (s.out / "boards.pbn").read_text()
    assert pbn.count('[Room "Open"]') == 6 and pbn.count('[Room "Closed"]') == 6
    assert '[North "two"]' in pbn and '[North "three"]' in pbn and "Time N/S" not in pbn
    assert seen[-1].done == 6 and seen[-1].planned == 6


def test_same_seed_same_boards_pbn_with_one_worker(two_workers, tmp_path, team_files):
    s, _, _ = two_workers
    one = settings(tmp_path, team_files, workers=1, chunk_boards=4)
    run_selfplay(one, teams(team_files))
    assert (tmp_path / "boards.pbn").read_bytes() == (s.out / "boards.pbn").read_bytes()


def test_the_same_command_again_plays_nothing_more(two_workers, monkeypatch, team_files):
    s, report, _ = two_workers
    before = (s.out / "boards.pbn").read_bytes()

    def no_executor(*args):
        raise AssertionError("a finished run opened an executor")

    monkeypatch.setattr("squeeze.robot.selfplay.run.open_executor", no_executor)
    again = run_selfplay(s, teams(team_files))
    assert again.summary == report.summary and (s.out / "boards.pbn").read_bytes() == before


def test_a_resume_with_another_configuration_is_refused(two_workers, team_files):
    s, _, _ = two_workers
    with pytest.raises(SelfPlayError, match=r"another configuration.*teams\.a\.engine\.play\.worlds: 2 in the "
                                            r"stored run, 3 now"):
        prepare_run(s, teams(team_files[::-1]))
    with pytest.raises(SelfPlayError, match=r"the deals \(checksum\)"):  # other deals
        prepare_run(s.model_copy(update={"seed": 2}), teams(team_files, seed=2))


def test_a_resume_after_the_rule_file_changed_is_refused(tmp_path):
    # the plan records the rule files' contents: resuming with a changed system would mix two rule sets in one result
    from squeeze.config.bidding import system_file

    rules = tmp_path / "mysystem.toml"
    rules.write_bytes(system_file("sayc").read_bytes())
    files = []
    for name in ("a", "b"):
        team = tmp_path / f"{name}.toml"
        team.write_text(f'[engine]\nsystem = "{rules}"\nworlds = 2\ninference = false\nborel = false\n')
        files.append(str(team))
    s = settings(tmp_path / "run", files, boards=2, workers=1)
    prepare_run(s, teams(files)).store.close()
    prepare_run(s, teams(files)).store.close()   # the same files: the same run
    rules.write_bytes(rules.read_bytes() + b"\n# one more line\n")
    with pytest.raises(SelfPlayError, match=r"another configuration.*teams\.a\.rules\."):
        prepare_run(s, teams(files))


def test_a_team_is_a_preset_or_a_file():
    assert load_team("fast", seed=3).params.play.worlds == 8 and load_team("fast", seed=3).params.seed == 3
    with pytest.raises(SelfPlayError, match="neither a preset"):
        load_team("no-such-team", seed=1)


def test_a_robot_error_voids_its_board_in_both_rooms_and_the_run_goes_on(tmp_path, team_files):
    # a hard limit no decision can meet: every board's first call is cut short by it
    s = settings(tmp_path, team_files, boards=3, workers=1, decision_seconds=1e-9)
    report = run_selfplay(s, teams(team_files))
    played, voided = results(tmp_path)
    assert played == [] and sorted(voided) == [1, 2, 3]
    assert all("hard limit" in e and e.startswith("Open room") for e in voided.values())
    assert report.summary["voided"]["count"] == 3 and report.summary["boards"] == 0


def test_strict_stops_at_a_robot_error_without_voiding(tmp_path, team_files):
    s = settings(tmp_path, team_files, boards=3, workers=1, decision_seconds=1e-9, strict=True)
    # every card search is cut short at once; which board's error comes first depends on whether the bidder (which
    # checks its deadline between rules) finished a board's auction in time, so any board may be the one
    with pytest.raises(StrictStop, match=r"board \d+: .*hard limit"):
        run_selfplay(s, teams(team_files))
    assert results(tmp_path)[1] == {}  # nothing voided: the same command plays that board again


def test_without_dask_the_executor_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # (an import of it now raises ImportError)
    with pytest.raises(executors.ExecutorError, match=r"pip install 'squeeze-bridge\[dask\]'"):
        executors.open_executor("dask-local", 1)


def cli(*args, **kw):
    return subprocess.run(SQUEEZE + ["selfplay", *args], capture_output=True, text=True, env=ENV, **kw)


@pytest.mark.parametrize("args, message", [
    (["--sprt", "zero,half"], "sprt"),
    (["--sprt", "0.5,0"], "m0 < m1"),
    (["--executor", "yarn"], "executor"),
    (["--a", "nonesuch"], "neither a preset"),
    (["--boards", "0"], "boards"),
])
def test_bad_input_is_refused_clearly(tmp_path, args, message):
    r = cli("--out", str(tmp_path / "out"), *args, timeout=60)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_sprt_stops_a_run(tmp_path):
    # the same engine in both rooms: every board is flat, so the test accepts "no edge" once flat boards have
    # outweighed its prior of the spread (a few boards for an edge of 3 IMPs), and the run warns of the teams
    from squeeze.engine.stats import Sprt

    expected = Sprt(0, 3, min_boards=5).first_verdict([0] * 40).boards
    assert 5 < expected < 15
    out = tmp_path / "out"
    args = ["--a", "fast", "--b", "fast", "--worlds", "2", "--boards", "40", "--chunk", "1", "-j", "2",
            "--sprt", "0,3", "--sprt-min-boards", "5", "--out", str(out)]
    r = cli(*args, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"SPRT H0 after {expected} boards" in r.stdout
    assert "warning: team A and team B are the same configuration" in r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sprt"]["verdict"] == "H0" and summary["sprt"]["boards"] == expected
    assert expected <= summary["boards"] < 40 and summary["flat"] == summary["boards"]
    # decided: the same command plays nothing more
    again = cli(*args, timeout=120)
    assert again.returncode == 0 and json.loads((out / "summary.json").read_text())["boards"] == summary["boards"]


# --- lost workers, a killed run, Dask ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference(tmp_path_factory, team_files):
    """Twenty boards on the local pool, nothing disturbed: what every other way of running them must give (a run of
    the first N boards gives the first N games of it: board k is the same deal whatever the number of boards)."""
    out = tmp_path_factory.mktemp("reference")
    run_selfplay(settings(out, team_files, boards=20, chunk_boards=2), teams(team_files))
    return (out / "boards.pbn").read_bytes()


def killer(kill):
    """A progress callback that kills one worker process with SIGKILL once some boards are done."""
    state = {"killed": None}

    def progress(p):
        if state["killed"] is None and p.done >= 2 and p.workers:
            state["killed"] = p.workers[0]
            kill(p.workers[0])

    return progress, state


def assert_every_board_once(out, boards):
    played, voided = results(out)
    assert len(played) == len(set(played)) == 2 * boards and not voided


@pytest.mark.slow
def test_a_local_worker_killed_mid_run_loses_no_board(tmp_path, team_files, reference):
    progress, state = killer(lambda pid: os.kill(pid, signal.SIGKILL))
    report = run_selfplay(settings(tmp_path, team_files, boards=8, chunk_boards=2), teams(team_files),
                          progress=progress)
    assert state["killed"] is not None and report.stopped is None
    assert_every_board_once(tmp_path, 8)
    pbn = (tmp_path / "boards.pbn").read_bytes()
    assert pbn.count(b'[Room "Closed"]') == 8 and reference.startswith(pbn)


@pytest.mark.slow
def test_a_dask_local_cluster_gives_the_local_pools_results_even_when_a_worker_is_killed(tmp_path, team_files,
                                                                                          reference):
    pytest.importorskip("distributed")
    progress, state = killer(lambda pid: os.kill(pid, signal.SIGKILL))  # the nanny starts a new worker
    s = settings(tmp_path, team_files, boards=20, chunk_boards=2, executor="dask-local")
    report = run_selfplay(s, teams(team_files), progress=progress)
    assert state["killed"] is not None and report.stopped is None
    assert_every_board_once(tmp_path, 20)
    assert (tmp_path / "boards.pbn").read_bytes() == reference


def committed(out):
    try:
        with sqlite3.connect(out / "results.sqlite") as db:
            return db.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


@pytest.mark.slow
def test_a_run_killed_with_sigkill_and_restarted_plays_every_board_once(tmp_path, team_files, reference):
    out = tmp_path / "out"
    args = ["--a", team_files[0], "--b", team_files[1], "--boards", "8", "--chunk", "1", "-j", "2",
            "--out", str(out)]
    # its own process group: SIGKILL to the group takes the workers down with it, as a crash of the machine would
    proc = subprocess.Popen(SQUEEZE + ["selfplay", *args], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while committed(out) < 6 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    first = committed(out)
    assert 6 <= first < 16
    r = cli(*args, timeout=300)
    assert r.returncode == 0, r.stderr
    assert_every_board_once(out, 8)
    pbn = (out / "boards.pbn").read_bytes()
    assert pbn.count(b'[Room "Closed"]') == 8 and reference.startswith(pbn)


_POOL_PARENT = """
import sys, time
from squeeze.robot.selfplay.executors import LocalPool
pool = LocalPool(1)
pool.submit(time.sleep, 120)
while not pool.worker_pids():
    time.sleep(0.05)
print(pool.worker_pids()[0], flush=True)
time.sleep(120)
"""


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (an orphan's exit is reaped by whatever init the machine runs, if any)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_pool_worker_ends_when_its_parent_is_killed(tmp_path):
    # SIGKILL to the parent alone (a run stopped by a signal it cannot handle): its worker, busy in a chunk, must not
    # play on for nobody
    proc = subprocess.Popen([sys.executable, "-c", _POOL_PARENT], env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(proc.stdout.readline())
        assert _running(worker)  # in its chunk
        proc.kill()
        proc.wait(30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if not _running(worker):
                break
            time.sleep(0.1)
        else:
            os.kill(worker, signal.SIGKILL)
            pytest.fail("the pool's worker outlived its parent by 30 s")
    finally:
        if proc.poll() is None:
            proc.kill()


def test_sigterm_stops_a_run_cleanly_with_its_files_written(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(SQUEEZE + ["selfplay", "--a", "fast", "--b", "fast", "--worlds", "2", "--boards", "40",
                                       "--chunk", "1", "-j", "2", "--out", str(out)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while committed(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    assert "interrupted: run the same command to continue" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert 1 <= summary["boards"] < 40 and summary["boards"] * 2 == committed(out)


def test_a_run_killed_between_its_plan_and_its_match_resumes(tmp_path, team_files):
    # the plan and the match are two transactions: a store with the plan alone is what such a kill leaves
    s = settings(tmp_path, team_files, boards=2, workers=1)
    prep = prepare_run(s, teams(team_files))
    prep.store._db.execute("DELETE FROM matches")
    prep.store.close()
    report = run_selfplay(s, teams(team_files))
    assert report.summary["boards"] == 2 and len(results(tmp_path)[0]) == 4


def test_a_verdict_goes_on_from_its_ledger_in_a_new_folder_only_at_the_commit_that_played_it(tmp_path, team_files):
    """bench/selfplay.py --verdict: the ledger it writes restores the run where its folder is gone (a new session or
    machine), the resumed run plays nothing more and says the same (its SPRT's state too); a ledger from another
    commit is refused."""
    two, three = team_files
    ledger = tmp_path / "run.jsonl"
    cmd = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "bench", "selfplay.py"), "--verdict", two,
           three, "--boards", "2", "--workers", "1", "--out", str(tmp_path / "run"), "--ledger", str(ledger),
           "--sprt", "0,3"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    result = [line for line in first.stdout.splitlines() if line.startswith("RESULT ")]
    assert len(result) == 1 and "ledger: 4 table boards" in first.stdout
    assert " sprt=continue sprt_boards=2 " in result[0]  # two boards: no verdict before thirty
    header = json.loads(ledger.read_text(encoding="utf-8").splitlines()[0])
    assert header["source"]["commit"] and "selfplay.py" in header["source"]["command"]

    shutil.rmtree(tmp_path / "run")
    again = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "4 table boards carried over" in again.stdout
    assert [line for line in again.stdout.splitlines() if line.startswith("RESULT ")] == result

    shutil.rmtree(tmp_path / "run")
    lines = ledger.read_text(encoding="utf-8").splitlines()
    header["source"]["commit"] = "0" * 40
    ledger.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    refused = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    assert refused.returncode != 0 and f"played at commit {'0' * 40}" in refused.stderr
    assert "git worktree add" in refused.stderr and not (tmp_path / "run" / "results.sqlite").exists()
