"""The table manager as a real process (``squeeze tm``), killed with SIGKILL between and during boards and started
again with ``--resume``: every board is finished exactly once, with the result an uninterrupted run gives."""

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from squeeze.protocol.client import BoardComplete, CallReceived
from squeeze.robot.summary import parse_summary
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from tm_client import InProcessTM, four_clients, rejoin_in_order, start_in_order

SQUEEZE = str(Path(sys.executable).with_name("squeeze"))
BOARDS = ["--boards", "5", "--seed", "3"]


async def start_tm(folder, *args, port=0):
    """``squeeze tm`` in its own process; returns it and its port (read from its first line of output)."""
    proc = await asyncio.create_subprocess_exec(
        SQUEEZE, "tm", "--port", str(port), "--out", str(folder), *BOARDS, *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "SQUEEZE_LOG__LEVEL": "warning"})
    line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
    assert "listening on" in line, line
    return proc, int(line.rsplit(":", 1)[1])


def rows(folder):
    store = ResultsStore(Path(folder) / STORE_FILE, create=False)
    try:
        return [(r.board, [str(c) for c in r.record.auction.calls], [str(c) for c in r.record.play], r.record.result)
                for r in store.results()]
    finally:
        store.close()


@pytest.mark.slow
async def test_sigkill_between_and_during_boards_then_resume_finishes_every_board_once(tmp_path):
    async with InProcessTM(tmp_path / "reference", boards=5, seed=3) as ref:
        tasks = await start_in_order(four_clients(ref.port, seed=1))
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    reference = rows(tmp_path / "reference")
    assert [r[0] for r in reference] == [1, 2, 3, 4, 5]

    folder = tmp_path / "run"
    proc, port = await start_tm(folder)
    kills = {"between": False, "during": False}

    def killer(ev, c):
        # between boards: the moment North has seen board 2 end (the manager stored it before sending its last card)
        if not kills["between"] and isinstance(ev, BoardComplete) and ev.board == 2:
            kills["between"] = True
            proc.send_signal(signal.SIGKILL)
        # during a board: the third call of board 4
        elif (kills["between"] and not kills["during"] and isinstance(ev, CallReceived) and c.machine.board == 4
              and len(c.machine.auction.calls) >= 3):
            kills["during"] = True
            proc.send_signal(signal.SIGKILL)
        return False

    clients = four_clients(port, seed=1)
    clients[0].kill_when = killer
    tasks = await start_in_order(clients)
    for round_ in ("between", "during"):
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert kills[round_] and set(outcomes) == {"closed"}, (round_, outcomes)
        assert await proc.wait() == -signal.SIGKILL
        done = [r[0] for r in rows(folder)]
        assert done == sorted(set(done))  # never twice
        if round_ == "between":
            assert done == [1, 2]
        clients[0].kill_when = killer
        proc, _ = await start_tm(folder, "--resume", port=port)
        tasks = await rejoin_in_order(clients)
    assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
    assert await asyncio.wait_for(proc.wait(), 10) == 0
    assert rows(folder) == reference  # every board once, as the uninterrupted run played it
    summary = parse_summary((folder / "summary.json").read_text())  # the one schema, every field checked
    assert summary.boards == 5 and summary.rooms == 1 and summary.played == {"table": 5} and summary.source == "tm"
    assert (folder / "boards.pbn").read_text(encoding="latin-1").count("[Board ") == 5


async def test_bad_input_is_refused_before_anything_listens(tmp_path):
    bad = tmp_path / "bad.pbn"
    bad.write_text('[Board "1"]\n[Deal "N:AKQ.. . ."]\n')
    proc = await asyncio.create_subprocess_exec(
        SQUEEZE, "tm", "--port", "0", "--out", str(tmp_path / "out"), "--boards-file", str(bad),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode == 2 and b"error: boards file" in err and b"listening" not in out
    proc = await asyncio.create_subprocess_exec(
        SQUEEZE, "tm", "--port", "0", "--out", str(tmp_path / "out"), "--resume",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode == 2 and b"no run to resume" in err
