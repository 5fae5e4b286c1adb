"""``squeeze tm`` in process, over real TCP on loopback: four scripted clients in four dialects."""

import asyncio

import pytest

from squeeze.engine.cards import Seat
from tm_client import InProcessTM, ScriptedClient, four_clients, start_in_order

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


async def test_full_boards_four_dialects(tmp_path):
    async with InProcessTM(tmp_path, boards=2, seed=3) as tm:
        clients = four_clients(tm.port, seed=1)
        tasks = await start_in_order(clients)
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        await asyncio.wait_for(tm.manager.wait_done(), 5)
        assert outcomes == ["ended"] * 4
        assert [c.seat for c in clients] == [N, E, S, W]
        rows = tm.store.results()
        assert [r.board for r in rows] == [1, 2]
        for c in clients:
            assert c.errors == [] and c.table_errors == []
            assert [(b, ct, t) for b, ct, t, *_ in c.results] == [
                (r.board, None if r.record.contract is None else str(r.record.contract), r.record.result)
                for r in rows]
        rec = rows[0].record
        assert rec.players == {N: "NS team", E: "EW team", S: "NS team", W: "EW team"}
        assert rec.seconds_ns is not None and len(rec.call_notes) == len(rec.auction.calls)


def summary(store):
    """What must not change when a board is interrupted: per board the auction, the play and the result."""
    return [(r.board, r.room, [str(c) for c in r.record.auction.calls], [str(c) for c in r.record.play],
             r.record.result) for r in store.results()]


async def until(predicate, timeout=10.0):
    async def poll():
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), timeout)


@pytest.fixture
async def reference(tmp_path):
    """Boards 1-2 of seed 3 played by seed-1 clients with no interruption."""
    async with InProcessTM(tmp_path / "reference", boards=2, seed=3) as tm:
        tasks = await start_in_order(four_clients(tm.port, seed=1))
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        return summary(tm.store)


def _table(tm):
    (match,) = tm.manager.matches.values()
    return match.tables[0]


async def test_killed_mid_auction_rejoins_and_the_board_ends_as_uninterrupted(tmp_path, reference):
    from squeeze.protocol.client import CallReceived

    def mid_auction(ev, c):
        return isinstance(ev, CallReceived) and c.machine.board == 1 and len(c.machine.auction.calls) >= 2

    async with InProcessTM(tmp_path / "run", boards=2, seed=3) as tm:
        clients = four_clients(tm.port, seed=1)
        clients[2].kill_when = mid_auction  # South, the "js" dialect
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(tasks[2], 30) == "killed"
        await until(lambda: S in _table(tm).held)
        tasks[2] = asyncio.create_task(clients[2].rejoin())  # a restarted robot: Connecting again
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert summary(tm.store) == reference
        kinds = [k for *_, k, _d in tm.store.incidents()]
        assert "void" not in kinds  # back within the hold: the board restarted, nothing voided by the clock


async def test_killed_mid_play_continues_on_a_new_socket_and_the_board_ends_as_uninterrupted(tmp_path, reference):
    from squeeze.protocol.client import CardReceived

    def mid_play(ev, c):
        return (isinstance(ev, CardReceived) and c.machine.board == 2 and len(c.machine.cards) >= 9
                and c.machine.unanswered_lines())  # (a line to resend: the table knows the new socket by it)

    async with InProcessTM(tmp_path / "run", boards=2, seed=3) as tm:
        clients = four_clients(tm.port, seed=1)
        clients[1].kill_when = mid_play  # East, the "ben" dialect
        tasks = await start_in_order(clients)
        outcome = await asyncio.wait_for(tasks[1], 30)
        if outcome == "ended":  # board 2 was passed out: nothing to interrupt with these seeds
            pytest.fail("the seeds must give board 2 a play")
        assert outcome == "killed"
        await until(lambda: E in _table(tm).held)
        tasks[1] = asyncio.create_task(clients[1].resume())  # the same robot, a new socket, its unanswered lines
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert summary(tm.store) == reference
        assert clients[1].errors == []


@pytest.mark.parametrize("warn_at_table", [False, True])
async def test_a_seat_that_never_answers_is_forced_and_the_table_goes_on(tmp_path, warn_at_table):
    from squeeze.protocol.client import CallRequested

    async with InProcessTM(tmp_path, boards=2, seed=3, seconds_per_call=0.3, seconds_per_card=0.3, grace_seconds=0.2,
                           ready_seconds=0.5, warn_at_table=warn_at_table) as tm:
        clients = four_clients(tm.port, seed=1)
        clients[0].mute_when = lambda ev, c: isinstance(ev, CallRequested)  # North hangs at its first call
        tasks = await start_in_order(clients)
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert outcomes[1:] == ["ended"] * 3
        rows = tm.store.results()
        assert [r.board for r in rows] == [1, 2]  # both boards finished without North
        first = rows[0]
        assert any(i.startswith("clock: North") for i in first.incidents)
        assert any(i.startswith("forced: North") for i in first.incidents)
        north_calls = [n for i, n in enumerate(first.record.call_notes)
                       if first.record.auction.seat_of(i) == N]
        assert north_calls and all(n.explanation.startswith("forced by the table manager") for n in north_calls)
        assert all(str(c) == "P" for i, c in enumerate(first.record.auction.calls)
                   if first.record.auction.seat_of(i) == N)
        # the clock is the director's: the robot hears of it only when the director asks
        assert any("Time limit: North" in line for line in clients[0].table_errors) is warn_at_table


class LowestCard(ScriptedClient):
    """Plays the card the table makes for a late seat (the lowest legal one), so that a forced card does not change
    the deal as this client sees it."""

    def choose_card(self, ev):
        return min(ev.legal, key=lambda c: (c.rank, c.suit))


async def test_a_seat_the_table_overtook_gets_no_illegal_card_for_its_late_lines(tmp_path):
    """A protocol-18 robot cannot be told that the table played its card for it: the card and the ready lines it
    sends after waking are late, not wrong. They are refused in the log, never answered with 'Illegal card' (a strict
    robot stops on that), and the seat is in step again by the next board."""
    from structlog.testing import capture_logs

    from squeeze.protocol.client import CardRequested

    sleep = {"left": 1}

    def once(ev, c):  # South's first card of its own: asleep long past the limit, while the table plays on
        if isinstance(ev, CardRequested) and not ev.from_dummy and sleep["left"]:
            sleep["left"] = 0
            return 2.0
        return 0.0

    with capture_logs() as logs:
        async with InProcessTM(tmp_path, boards=2, seed=3, seconds_per_card=0.3, grace_seconds=0.2) as tm:
            clients = [LowestCard(tm.port, "NS team" if s.is_ns else "EW team", s, seed=1) for s in Seat]
            clients[S].delay_when = once  # (East declares both boards)
            tasks = await start_in_order(clients)
            assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
            kinds = [k for *_, k, _d in tm.store.incidents()]
            assert [r.board for r in tm.store.results()] == [1, 2]
    assert sleep["left"] == 0 and "clock" in kinds and "forced" in kinds
    assert clients[S].table_errors == [] and clients[S].errors == []
    late = [e for e in logs if e["event"] == "tm.bad_line" and e.get("late")]
    # its own card among them, refused (already played by the table, or out of turn by now) without a reply
    assert any(e["error"].startswith(("Illegal card from South", "Card out of turn from South")) for e in late)
    assert [e["seat"] for e in logs if e["event"] == "tm.in_step"] == ["S"]


async def test_void_fate_replays_the_board_once_and_it_ends_as_uninterrupted(tmp_path, reference):
    from squeeze.protocol.client import CallRequested

    slow_once = {"left": 1}

    def delay(ev, c):
        if isinstance(ev, CallRequested) and c.machine.board == 1 and slow_once["left"]:
            slow_once["left"] = 0
            return 1.0
        return 0.0

    async with InProcessTM(tmp_path / "run", boards=2, seed=3, time_fate="void", seconds_per_call=0.3,
                           grace_seconds=0.2) as tm:
        clients = four_clients(tm.port, seed=1)
        first_caller = {N: 0, E: 1, S: 2, W: 3}[Seat.NORTH]  # board 1: North deals
        clients[first_caller].delay_when = delay
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert summary(tm.store) == reference
        kinds = [k for *_, k, _d in tm.store.incidents()]
        assert kinds.count("void") == 1 and "forced" not in kinds


async def test_a_seat_gone_past_its_hold_voids_the_board_which_is_replayed_on_its_return(tmp_path, reference):
    from squeeze.protocol.client import CallReceived

    def mid_auction(ev, c):
        return isinstance(ev, CallReceived) and c.machine.board == 1 and len(c.machine.auction.calls) >= 2

    async with InProcessTM(tmp_path / "run", boards=2, seed=3, hold_seconds=0.2) as tm:
        clients = four_clients(tm.port, seed=1)
        clients[2].kill_when = mid_auction
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(tasks[2], 30) == "killed"
        await until(lambda: any(k == "void" for *_, k, _d in tm.store.incidents()))
        tasks[2] = asyncio.create_task(clients[2].rejoin())
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert summary(tm.store) == reference  # voided, replayed from the start, counted once
        (void,) = [d for *_, k, d in tm.store.incidents() if k == "void"]
        assert "South disconnected for more than 0.2 s" in void


async def test_no_timing_sends_no_timing_line(tmp_path):
    from structlog.testing import capture_logs

    with capture_logs() as logs:
        async with InProcessTM(tmp_path, boards=1, seed=3, send_timing=False) as tm:
            tasks = await start_in_order(four_clients(tm.port, seed=1))
            assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
    sent = [e["line"] for e in logs if e["event"] == "tm.line" and e["dir"] == "out"]
    assert "End of session" in sent and not [line for line in sent if line.startswith("Timing")]


async def test_a_continuation_that_could_belong_to_two_tables_is_refused_and_the_robot_says_connecting(tmp_path):
    """Robots of both rooms on one address: a new socket that only continues ``East``'s lines cannot be told from the
    other room's East (whose old socket the manager may not have seen close yet), so it is refused with a clear
    error instead of being seated at whichever table the line also fits; the robot then names its team."""
    from squeeze.protocol.client import CardReceived

    def mid_play(ev, c):
        return (isinstance(ev, CardReceived) and c.machine.board == 2 and len(c.machine.cards) >= 9
                and c.machine.unanswered_lines())

    async with InProcessTM(tmp_path, boards=2, seed=3, rooms=2) as tm:
        open_clients = four_clients(tm.port, seed=1)
        closed_clients = four_clients(tm.port, teams=("EW team", "NS team"), seed=2)
        open_clients[1].kill_when = mid_play
        for c in closed_clients:  # the closed room plays slowly: still live when the open room's East comes back
            c.delay_when = lambda ev, c: 0.03
        tasks = await start_in_order(open_clients) + await start_in_order(closed_clients)
        (match,) = tm.manager.matches.values()  # (made when the teams came)
        open_room, closed_room = match.tables
        assert await asyncio.wait_for(tasks[1], 30) == "killed"
        await until(lambda: E in open_room.held)
        assert await asyncio.wait_for(open_clients[1].resume(), 10) in ("refused", "closed")
        assert open_clients[1].table_errors[-1:] == [
            "Error: Cannot tell which table this line continues (2 tables have East from 127.0.0.1): send "
            "'Connecting \"<team>\" as East using protocol version 18'"]
        assert E not in closed_room.held and closed_room.conns[E] is not None  # the other East was never touched
        tasks[1] = asyncio.create_task(open_clients[1].rejoin())
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 8
        rows = tm.store.results()
        assert sorted((r.room, r.board) for r in rows) == [("Closed", 1), ("Closed", 2), ("Open", 1), ("Open", 2)]
