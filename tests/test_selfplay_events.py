"""``squeeze selfplay --mqtt``: every finished board of a real self-play process reaches a real mosquitto in the table
manager's event schema, and the run ends with a board-by-board recap a player reads (also written by ``--recap``);
a line per board as it is stored when not on a terminal."""

from __future__ import annotations

import asyncio
import os
import sys

from event_tools import Collector, Mosquitto
from squeeze.engine.teams import CLOSED, OPEN, room_swing
from squeeze.robot.recap import format_recap, recap_from_store, result_text
from squeeze.robot.tm.store import ResultsStore

SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")} | {"SQUEEZE_LOG__LEVEL": "warning"}
BOARDS = 3


async def test_selfplay_publishes_every_finished_board_and_prints_the_recap(tmp_path):
    team = tmp_path / "two.toml"
    team.write_text('[engine]\ndeclarer_selector = "pimc"\nworlds = 2\ninference = false\nborel = false\n')
    out = tmp_path / "run"
    mosquitto = Mosquitto(tmp_path).start()
    try:
        async with Collector(mosquitto.port) as seen:
            proc = await asyncio.create_subprocess_exec(
                *SQUEEZE, "selfplay", "--a", str(team), "--b", "fast", "--boards", str(BOARDS), "--chunk", "1",
                "-j", "2", "--out", str(out), "--mqtt", mosquitto.url, "--recap", str(tmp_path / "recap.txt"),
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=ENV)
            stdout, stderr = await asyncio.wait_for(proc.communicate(), 600)
            assert proc.returncode == 0, stderr.decode()
            # result events go with QoS 1 and are flushed before the run ends; give the subscriber a moment
            await seen.wait_for(lambda evs: sum(e.kind == "summary" for e in evs) == 2 * BOARDS, timeout=20)
    finally:
        mosquitto.stop()
    stdout, stderr = stdout.decode(), stderr.decode()
    store = ResultsStore(out / "results.sqlite", create=False)
    stored = {(r.board, r.room): r.record for r in store.results()}
    store.close()
    assert len(stored) == 2 * BOARDS

    # every board of each room, once, in the table manager's order and schema, with the stored record
    for room in (OPEN, CLOSED):
        evs = [e for e in seen.events if e.table == f"selfplay.{room}"]
        assert [e.seq for e in evs] == list(range(1, len(evs) + 1))  # per table from 1: no gap, no repeat
        results = [e for e in evs if e.kind == "result"]
        assert sorted(e.board for e in results) == list(range(1, BOARDS + 1))
        for e in results:
            assert e.record == stored[(e.board, room)].to_dict()
        for board in range(1, BOARDS + 1):
            kinds = [e.kind for e in evs if e.board == board]
            assert kinds[0] == "board" and kinds[-3:] == ["deal", "result", "summary"]  # hands only at the end
            rec = stored[(board, room)]
            assert kinds.count("call") == len(rec.auction.calls) and kinds.count("card") == len(rec.play)
        # the summary after the last board counts every board, with the IMPs against the other room
        last = [e for e in evs if e.kind == "summary"][-1]
        assert last.boards == BOARDS and last.compared == BOARDS
        other = CLOSED if room == OPEN else OPEN
        assert last.imps == sum(room_swing(stored[(b, room)].score_ns(), stored[(b, other)].score_ns())
                                for b in range(1, BOARDS + 1))
    assert "events: " in stderr and " 0 dropped" in stderr

    # a line per board as it was stored (not a terminal here)
    lines = [line for line in stderr.splitlines() if line.startswith("squeeze selfplay: board ")]
    assert len(lines) == BOARDS
    for line in lines:
        board = int(line.split()[3].rstrip(":"))
        assert f"open {result_text(stored[(board, OPEN)])}, closed {result_text(stored[(board, CLOSED)])}" in line

    # the recap: every board, both rooms' contracts with declarer and result, N/S scores, the swing, par
    recap = (tmp_path / "recap.txt").read_text()
    assert recap in stdout
    rows, teams = recap_from_store(out, "selfplay", solve_seconds=0)
    assert recap == format_recap(rows, teams) and teams == ("two", "fast")
    body = recap.splitlines()[2:2 + BOARDS]
    for board, line in zip(range(1, BOARDS + 1), body):
        o, c = stored[(board, OPEN)], stored[(board, CLOSED)]
        swing = room_swing(o.score_ns(), c.score_ns())
        fields = line.split()
        assert fields[0] == str(board)
        assert result_text(o) in line and result_text(c) in line
        assert str(o.score_ns()) in fields and str(c.score_ns()) in fields
        assert (f"{swing:+d}" if swing else "0") in fields
        assert rows[board - 1].par is not None  # self-play stores each deal's double-dummy table: par is known
        score, contract = rows[board - 1].par
        assert ("passed out" if contract is None else f"{contract.text} {score:+d}") in line
    total_a = sum(r.swing for r in rows if r.swing > 0)
    assert recap.splitlines()[-1].startswith(f"{BOARDS} boards compared: two {total_a} - ")
