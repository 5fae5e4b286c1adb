"""``squeeze tm`` in process, over real TCP on loopback: four scripted clients in four dialects."""

import asyncio

import pytest

from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord
from tm_client import DIALECTS, InProcessTM, ScriptedClient, four_clients, start_in_order

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
