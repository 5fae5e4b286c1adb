"""``squeeze match``: two robot configurations meet over real TCP at our table manager, eight robot processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from squeeze.engine.dds import solve_table
from squeeze.engine.pbn import read_pbn
from squeeze.engine.scoring import imps, par
from squeeze.robot.match import MATCH_NAME, TeamSpec, run_match
from squeeze.robot.recap import result_text
from squeeze.robot.summary import parse_summary
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from terminal import foreground_sigint


def _rooms(games):
    by_board: dict[int, dict[str, object]] = {}
    for g in games:
        by_board.setdefault(g.record.board, {})[g.record.room] = g
    return by_board


@pytest.mark.slow
def test_a_two_board_match_end_to_end(tmp_path):
    out = tmp_path / "m"
    # team B is "another program": any command launched per seat (here our own robot, spelled as a user would)
    other = f"{sys.executable} -m squeeze.robot.cli seat --host {{host}} --port {{port}} --seat {{seat}} " \
            "--team {team} --preset fast"
    # the settings file's [tm] reaches the match's table manager ([match] too): a slow opponent needs looser clocks
    config = tmp_path / "loose.toml"
    config.write_text('[tm]\nboard_seconds = 3600\ntime_fate = "warn"\n[match]\nstall_seconds = 900\n')
    r = subprocess.run([sys.executable, "-m", "squeeze.robot.cli", "match", "--boards", "2", "--a", "fast",
                        "--b-cmd", other, "--a-name", "Alpha", "--b-name", "Beta", "--out", str(out),
                        "--config", str(config), "--recap", str(tmp_path / "recap.txt")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    # progress counts boards (both rooms), not table boards
    assert "squeeze match: 2/2 boards finished" in r.stderr and "/4 boards" not in r.stderr
    store = ResultsStore(out / STORE_FILE, create=False)
    stored = store.settings()
    records = [row.record for row in store.results()]
    store.close()
    assert stored["board_seconds"] == 3600 and stored["time_fate"] == "warn" and stored["rooms"] == 2
    summary = json.loads((out / "summary.json").read_text())
    text = (out / "boards.pbn").read_text()
    result = read_pbn(text, strict=True)
    assert result.ok and len(result.games) == 4
    rooms = _rooms(result.games)
    swings = []
    for _board, pair in sorted(rooms.items()):
        assert set(pair) == {"Open", "Closed"}
        o, c = pair["Open"].record, pair["Closed"].record
        assert o.deal == c.deal and o.dealer == c.dealer and o.vul == c.vul  # the same board in both rooms
        swing = imps(o.score_ns() - c.score_ns())
        assert pair["Open"].tags["ScoreIMP"] == str(swing) and pair["Closed"].tags["ScoreIMP"] == str(-swing)
        swings.append(swing)
    assert summary["boards"] == 2 and summary["swings"] == {str(b): s for b, s in zip(sorted(rooms), swings)}
    # the recap a player reads, printed and in --recap FILE: each room's contract and result, the swing, par
    recap = (tmp_path / "recap.txt").read_text()
    assert recap in r.stdout and recap.startswith("Board by board: Alpha (N/S in the open room")
    body = recap.splitlines()[2:2 + len(rooms)]  # (a title, the column heads, then a line per board)
    for (board, pair), swing, line in zip(sorted(rooms.items()), swings, body):
        assert line.split()[0] == str(board)
        assert result_text(pair["Open"].record) in line and result_text(pair["Closed"].record) in line
        assert (f"{swing:+d}" if swing else "0") in line.split()
        d = pair["Open"].record
        score, contract = par(solve_table(d.deal), d.vul)  # the match has no stored tables: solved for the recap
        assert ("passed out" if contract is None else f"{contract.text} {score:+d}") in line
    assert summary["teams"] == {"a": "Alpha", "b": "Beta"}
    assert summary["imps"] == {"a": sum(s for s in swings if s > 0), "b": -sum(s for s in swings if s < 0)}
    assert summary["imps_per_board"] == pytest.approx(sum(swings) / 2)
    assert summary["vp"]["a"] + summary["vp"]["b"] == pytest.approx(20)
    assert summary["think_seconds"]["a"]["decisions"] > 50 and summary["finished"] is True
    # the one schema of every summary.json, every field checked on the way in
    parsed = parse_summary((out / "summary.json").read_text())
    assert parsed.source == "match" and parsed.match == MATCH_NAME and parsed.to_dict() == summary
    assert parsed.configs.b.endswith("--preset fast") and parsed.robot_restarts == 0 and parsed.problems == []
    endplay_pbn = pytest.importorskip("endplay.parsers.pbn")
    boards = endplay_pbn.loads(text)
    assert len(boards) == 4 and {str(b.deal.to_pbn()) for b in boards} == \
        {g.record.deal.to_pbn() for g in result.games}
    assert "Alpha" in (out / f"{MATCH_NAME}.lin").read_text()
    # our robots explain every call to our table manager, which keeps the explanations in the records
    ours = [n for r in records for i, n in enumerate(r.call_notes) if r.players.get(r.auction.seat_of(i)) == "Alpha"]
    assert ours and sum(1 for n in ours if n.explanation) > len(ours) / 2


@pytest.mark.slow
def test_ctrl_c_on_a_match_says_how_to_continue_and_the_same_command_does(tmp_path):
    import os

    argv = [sys.executable, "-m", "squeeze.robot.cli", "match", "--boards", "2", "--a", "fast", "--b", "fast",
            "--out", str(tmp_path / "m")]
    # a terminal's Ctrl-C reaches the whole foreground process group: here the match's own session
    with foreground_sigint():
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "squeeze match: 1/2 boards finished" in line:
            break
    assert "1/2 boards finished" in seen[-1], "".join(seen)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted: every finished board is stored in" in err and "run the same command to continue" in err
    assert "fast-A" in out  # what was finished: its recap and verdict
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "continuing the run in" in again.stderr and "(2 boards stored)" in again.stderr
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["boards"] == 2 and summary["finished"] is True


def test_a_tm_key_that_a_match_sets_itself_is_refused_not_ignored(tmp_path):
    config = tmp_path / "clash.toml"
    config.write_text("[tm]\nrooms = 1\nseed = 5\n")
    r = subprocess.run([sys.executable, "-m", "squeeze.robot.cli", "match", "--boards", "1", "--out",
                        str(tmp_path / "m"), "--config", str(config)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "[tm] rooms, seed cannot apply to a match" in r.stderr, r.stdout + r.stderr


@pytest.mark.slow
async def test_a_robot_killed_mid_match_the_match_finishes_and_nothing_counts_twice(tmp_path):
    killed: list[int] = []

    def kill_once(manager, progress):
        if killed:
            return
        for match in manager.matches.values():
            for table in match.tables:
                if table.room == "Open" and table.machine.play is not None and len(table.machine.play.cards) >= 6:
                    proc = progress["robots"][("Alpha", table.machine.play.declarer)]
                    if proc is not None and proc.returncode is None:
                        proc.send_signal(signal.SIGKILL)
                        killed.append(table.machine.board.board)
                        return

    result = await run_match(2, TeamSpec("Alpha", "fast"), TeamSpec("Beta", "fast"), tmp_path / "k",
                             tm_settings={"hold_seconds": 5}, on_progress=kill_once)
    assert killed, "no robot was killed"
    assert result.finished and result.restarts >= 1
    s = result.summary
    assert s["boards"] == 2 and s["matches"][MATCH_NAME]["played"] == {"Open": 2, "Closed": 2}
    games = read_pbn((tmp_path / "k" / "boards.pbn").read_text()).games
    assert sorted((g.record.board, g.record.room) for g in games) == [(1, "Closed"), (1, "Open"), (2, "Closed"),
                                                                       (2, "Open")]
    assert all(len(g.record.play) == 52 or g.record.is_passed_out for g in games)
    # the board during which the robot died was started again (the table manager's rule), and it says so
    text = (tmp_path / "k" / "boards.pbn").read_text()
    assert "started again" in text or "void" in text
