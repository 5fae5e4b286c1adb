"""``squeeze seat`` (robot.agent.SeatAgent) at real table managers over real TCP on loopback.

Four of our robots play whole boards at an in-test manager (``tm_fixture.InTestTM``, a real asyncio server around
``TableMachine``) that speaks each dialect of the research note; connections are cut mid-auction and mid-play and
the boards still end as they would have; a silent manager, a refused seat and garbage lines end or go on cleanly.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time

import pytest

from squeeze.engine.auction import Auction
from squeeze.config.bidding import load_system
from squeeze.engine.bidding import Bidder
from squeeze.engine.cards import Deal, Seat, dealer_for_board, vul_for_board
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.bidding.borel import BorelSettings
from squeeze.engine.player import PlayerParams
from squeeze.engine.record import BoardRecord
from squeeze.robot.agent import (
    EXIT_OK, EXIT_REFUSED, EXIT_SILENT, AgentOptions, SeatAgent, open_table_connection,
)
from squeeze.robot.worker import DecisionWorker

from tm_fixture import InTestTM, bridge_moniteur, canonical, chatty_timing, lower_case, wbridge5

# The rules alone at every call: a session cut and resumed must end as the reference did, and a Borel simulation's
# depth depends on the time it gets.
FAST = PlayerParams(play=PlaySettings(declarer_selector="pimc", worlds=4, inference=False),
                    borel=BorelSettings(enabled=False), seed=3)
TEAMS = {Seat.NORTH: "Squeeze", Seat.SOUTH: "Squeeze", Seat.EAST: "Rivals", Seat.WEST: "Rivals"}


def contested_boards(n: int, seed: int = 1) -> list[BoardRecord]:
    """``n`` boards that our bidder does not pass out (so every seat is declarer, dummy or defender)."""
    rng, bidder, out = random.Random(seed), Bidder.of(load_system("sayc")), []
    while len(out) < n:
        number = len(out) + 1
        deal, dealer, vul = Deal.random(rng), dealer_for_board(number), vul_for_board(number)
        a = Auction(dealer)
        while not a.is_complete:
            a = a.then(bidder.choose(deal[a.next_seat], a, vul, alternatives=False).call)
        if a.contract is not None:
            out.append(BoardRecord(board=number, deal=deal, dealer=dealer, vul=vul))
    return out


@pytest.fixture(scope="module")
def workers():
    """Four decision workers, started once for the module (each is a process with its own engine)."""
    ws = {s: DecisionWorker(FAST) for s in Seat}
    for w in ws.values():
        asyncio.run(w.start())
    yield ws
    for w in ws.values():
        w.close()


def options(port: int, seat: Seat, **kw) -> AgentOptions:
    base = dict(port=port, seat=seat, team=TEAMS[seat], connect_timeout_s=10, silence_timeout_s=30,
                seconds_per_call=1.0, seconds_per_card=1.0, safety_margin_s=2.0)
    return AgentOptions(**{**base, **kw})


async def play_session(tm: InTestTM, workers, *, during=None, **kw) -> dict[Seat, int]:
    port = await tm.start()
    agents = {s: SeatAgent(options(port, s, **kw), FAST, worker=workers[s]) for s in Seat}
    tasks = {s: asyncio.create_task(a.run()) for s, a in agents.items()}
    try:
        if during is not None:
            await during(tm, agents)
        codes = dict(zip(tasks, await asyncio.wait_for(asyncio.gather(*tasks.values()), timeout=240)))
    finally:
        for t in tasks.values():
            t.cancel()
        await tm.close()
    return codes


def summary(records: list[BoardRecord]) -> list[tuple]:
    return [(r.board, str(r.contract), r.result, tuple(str(c) for c in r.play)) for r in records]


@pytest.mark.parametrize("dialect,quirk", [
    (canonical, {}), (bridge_moniteur, {}), (wbridge5, {}), (lower_case, {}), (chatty_timing, {}),
    (canonical, {"declarer_names_lead": True}),
])
async def test_four_robots_finish_boards_in_every_dialect(workers, dialect, quirk):
    boards = contested_boards(2)
    tm = InTestTM(boards, dialect=dialect, **quirk)
    codes = await play_session(tm, workers)
    assert codes == {s: EXIT_OK for s in Seat}, tm.errors
    assert [r.board for r in tm.records] == [1, 2]
    assert all(len(r.play) == 52 and r.result is not None for r in tm.records)
    assert not tm.errors


async def test_a_seat_cut_mid_auction_and_mid_play_reconnects_and_the_boards_end_the_same(workers):
    boards = contested_boards(2, seed=4)
    # The same decisions in both sessions need decisions no deadline cuts short: FAST ends in a fraction of a second
    # on an idle core, but a 1 s budget on a loaded machine cut an opening lead after 2 of its 4 worlds (a clean-clone
    # run beside two BEN matches), and the boards then differed for a reason that is not the reconnect.
    roomy = dict(seconds_per_call=30.0, seconds_per_card=30.0)
    reference = InTestTM(boards)
    assert await play_session(reference, workers, **roomy) == {s: EXIT_OK for s in Seat}

    async def cut_twice(tm: InTestTM, agents) -> None:
        while tm.table.auction is None or len(tm.table.auction.calls) < 2:
            await asyncio.sleep(0.005)
        tm.cut(Seat.EAST)  # mid-auction
        while tm.table.play is None or len(tm.table.play.cards) < 7:
            await asyncio.sleep(0.005)
        tm.cut(Seat.SOUTH)  # mid-play

    tm = InTestTM(boards)
    codes = await play_session(tm, workers, during=cut_twice, **roomy)
    assert codes == {s: EXIT_OK for s in Seat}
    assert summary(tm.records) == summary(reference.records)


async def test_a_silent_manager_ends_the_run_with_an_error(workers):
    async def silent(reader, writer):
        await reader.read(1000)  # takes the Connecting line, never answers
        await asyncio.sleep(30)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    agent = SeatAgent(options(port, Seat.NORTH, silence_timeout_s=0.5), FAST, worker=workers[Seat.NORTH])
    t0 = time.monotonic()
    assert await asyncio.wait_for(agent.run(), 10) == EXIT_SILENT
    assert time.monotonic() - t0 < 5
    server.close()


async def test_a_taken_seat_is_refused_cleanly(workers):
    tm = InTestTM(contested_boards(1))
    port = await tm.start()
    first = asyncio.create_task(SeatAgent(options(port, Seat.NORTH), FAST, worker=workers[Seat.NORTH]).run())
    while tm.table.seat_of(1) is None:
        await asyncio.sleep(0.01)
    second = SeatAgent(options(port, Seat.NORTH), FAST, worker=workers[Seat.SOUTH])
    assert await asyncio.wait_for(second.run(), 10) == EXIT_REFUSED
    first.cancel()
    await tm.close()


async def test_garbage_from_the_manager_is_logged_and_skipped(workers):
    boards = contested_boards(1, seed=9)

    def garbage(line: str) -> list[str]:
        return ["\x00%%% not a protocol line", line] if line.startswith("Board number") else [line]

    tm = InTestTM(boards, dialect=garbage)
    codes = await play_session(tm, workers)
    assert codes == {s: EXIT_OK for s in Seat} and len(tm.records) == 1


@pytest.mark.slow
def test_four_squeeze_seat_processes_complete_a_board(tmp_path):
    """Real ``squeeze seat`` processes (the console command) at the in-test manager, one board, exit code 0."""

    async def main() -> tuple[list[int], InTestTM]:
        tm = InTestTM(contested_boards(1, seed=2))
        port = await tm.start()
        env = {**os.environ, "SQUEEZE_LOG__FORMAT": "json"}
        procs = [await asyncio.create_subprocess_exec(
            sys.executable, "-m", "squeeze.robot.cli", "seat", "--host", "127.0.0.1", "--port", str(port),
            "--seat", s.letter, "--team", TEAMS[s], "--preset", "fast", "--transcript", str(tmp_path / f"{s.letter}.log"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env) for s in Seat]
        try:
            codes = await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), 240)
        finally:
            for p in procs:
                if p.returncode is None:
                    p.kill()
            await tm.close()
        return list(codes), tm

    codes, tm = asyncio.run(main())
    assert codes == [0, 0, 0, 0]
    assert len(tm.records) == 1 and len(tm.records[0].play) == 52
    transcript = (tmp_path / "N.log").read_text().splitlines()
    assert any(" out Connecting" in l for l in transcript) and any(" in End of session" in l for l in transcript)


async def test_the_seat_waits_for_a_manager_that_is_still_starting(workers):
    """Started before the manager listens, the agent retries with backoff and plays once it is up."""
    import socket as _socket

    probe = _socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # a free port, not listening yet
    tm = InTestTM(contested_boards(1, seed=5))
    agents = {s: SeatAgent(options(port, s), FAST, worker=workers[s]) for s in Seat}
    tasks = [asyncio.create_task(a.run()) for a in agents.values()]
    await asyncio.sleep(0.8)  # the agents are retrying now
    tm.server = await asyncio.start_server(tm._client, "127.0.0.1", port)
    try:
        codes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    finally:
        await tm.close()
    assert codes == [EXIT_OK] * 4 and len(tm.records) == 1


async def test_a_cancellation_during_a_refused_connect_is_never_taken_for_one_more_refusal():
    """Ctrl-C while a seat retries its connection: the cancellation must reach the retry loop. On Python 3.11,
    ``asyncio.wait_for`` answers a cancellation that meets an already refused connection with the ``OSError``, and
    the seat (which retries on ``OSError``) went on for its whole connect timeout: seen as a seat that ignored Ctrl-C
    under load. Cancelled at every point of the attempt, the task ends cancelled or had ended before."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nobody listens: every attempt is refused at once
    outcomes = {"cancelled": 0, "ended before": 0}
    for i in range(300):
        task = asyncio.create_task(open_table_connection("127.0.0.1", port))
        for _ in range(i % 12):  # a different point of the attempt each time
            await asyncio.sleep(0)
        if not task.cancel():
            outcomes["ended before"] += 1
            assert isinstance(task.exception(), OSError)
            continue
        with pytest.raises(asyncio.CancelledError):
            await task
        outcomes["cancelled"] += 1
    assert outcomes["cancelled"] > 50 and outcomes["ended before"] > 50, outcomes  # both sides of the race were met


async def test_the_opening_lead_has_its_own_budget(workers):
    """The opening lead is chosen from the auction alone and meets the most relaxed worlds: it gets
    ``seconds_per_lead`` (up to a quarter of the defender's share of the board's time), every other card
    ``seconds_per_card``."""
    import dataclasses

    tm = InTestTM(contested_boards(1, seed=6))
    port = await tm.start()
    params = dataclasses.replace(FAST, seconds_per_lead=6.0)
    agents = {s: SeatAgent(options(port, s, seconds_per_card=0.5, board_seconds=120.0), params, worker=workers[s])
              for s in Seat}
    tasks = [asyncio.create_task(a.run()) for a in agents.values()]
    try:
        assert await asyncio.wait_for(asyncio.gather(*tasks), timeout=240) == [EXIT_OK] * 4, tm.errors
    finally:
        for t in tasks:
            t.cancel()
        await tm.close()
    cards = [(s, r) for s, a in agents.items() for r in a.decisions if r["kind"] == "card"]
    leader = tm.records[0].contract.declarer.lho
    leads = [r for s, r in cards if s == leader and r["decisions_left"] == 13 and r["budget_s"] > 0.5]
    assert len(leads) == 1 and leads[0]["budget_s"] == pytest.approx(6.0, abs=0.05)
    assert sum(r["budget_s"] > 0.5 for _, r in cards) == 1
