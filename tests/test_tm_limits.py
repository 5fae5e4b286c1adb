"""``squeeze tm`` against bad and hostile input over real TCP: each gets the protocol's answer or is cut off with a
clear log line, and the table plays on."""

import asyncio
import json

from structlog.testing import capture_logs

from squeeze.engine.cards import Card, Seat
from squeeze.protocol.client import CallRequested, CardRequested
from squeeze.robot.summary import parse_summary
from squeeze.robot.tm.export import write_outputs
from squeeze.robot.tm.transcript import read_transcript
from tm_client import InProcessTM, ScriptedClient, four_clients, start_in_order

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


async def raw_connection(port):
    return await asyncio.open_connection("127.0.0.1", port)


async def read_all(reader, timeout=5.0):
    """Everything until the table manager closes the socket (a reset, when it closed with our bytes unread)."""
    data = b""
    while True:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), timeout)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def closed_because(logs, words):
    return [e for e in logs if e["event"] == "tm.closed" and words in e["reason"]]


class Cheater(ScriptedClient):
    """Tries one illegal call and one illegal card before answering legally."""

    tried_call = tried_card = False

    def choose_call(self, ev: CallRequested):
        if not self.tried_call and ev.auction.last_bid is not None:
            self.tried_call = True
            self.send_raw(f"{self.seat.title} bids 1C\r\n".encode())  # insufficient (or a repeat of 1C)
        return super().choose_call(ev)

    def choose_card(self, ev: CardRequested):
        if not self.tried_card:
            self.tried_card = True
            hand = self.machine.dummy_hand if ev.from_dummy else self.machine.hand
            bad = [c for c in hand if c not in ev.legal] or [Card.parse("SA") if Card.parse("SA") not in ev.legal
                                                                else Card.parse("S2")]
            self.send_raw(f"{ev.seat.title} plays {bad[0]}\r\n".encode())  # (suit first: accepted too)
        return super().choose_card(ev)


async def test_illegal_call_and_card_get_the_protocols_answer_and_the_table_goes_on(tmp_path):
    async with InProcessTM(tmp_path, boards=3, seed=11) as tm:
        clients = four_clients(tm.port, seed=2, pass_rate=0.4)
        clients[0] = Cheater(tm.port, "NS team", N, seed=2, pass_rate=0.4)
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert "Illegal bid" in clients[0].table_errors and "Illegal card" in clients[0].table_errors
        assert [r.board for r in tm.store.results()] == [1, 2, 3]


async def test_a_second_claim_on_a_taken_seat_is_refused_and_the_table_goes_on(tmp_path):
    async with InProcessTM(tmp_path, boards=2, seed=3) as tm:
        clients = four_clients(tm.port, seed=1)
        tasks = await start_in_order(clients)
        intruder = ScriptedClient(tm.port, "NS team", N, seed=9)
        assert await asyncio.wait_for(intruder.play(), 10) == "refused"
        assert intruder.table_errors == ["Error: Seat North has already been taken"]
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert len(tm.store.results()) == 2


async def test_a_one_mib_line_and_a_flood_are_cut_off_with_a_clear_log_line(tmp_path):
    async with InProcessTM(tmp_path, boards=1, seed=3) as tm:  # (the default: 1000 lines a second)
        with capture_logs() as logs:
            reader, writer = await raw_connection(tm.port)
            writer.write(b"x" * (1 << 20))
            assert await read_all(reader) == b""
            clients = four_clients(tm.port, seed=1)
            tasks = await start_in_order(clients)
            clients[0].send_raw(b"North ready for teams\r\n" * 5000)  # North, seated, floods
            assert await asyncio.wait_for(tasks[0], 10) == "closed"
            tasks[0] = asyncio.create_task(clients[0].rejoin())  # and may come back: the table goes on
            assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        assert closed_because(logs, "line too long")
        assert closed_because(logs, "flood: more than 1000 lines a second")
        assert len(tm.store.results()) == 1


async def test_idle_connections_and_too_many_from_one_address_are_closed(tmp_path):
    async with InProcessTM(tmp_path, boards=1, idle_seconds=0.3, connections_per_address=2) as tm:
        with capture_logs() as logs:
            idle_reader, _w1 = await raw_connection(tm.port)
            other_reader, _w2 = await raw_connection(tm.port)
            third_reader, _w3 = await raw_connection(tm.port)
            assert (await read_all(third_reader)).startswith(b"Error: Too many connections from 127.0.0.1")
            assert await read_all(idle_reader) == b"Error: No Connecting line within 0.3 s\r\n"
        assert closed_because(logs, "idle: no Connecting line within 0.3 s")
        assert [e for e in logs if e["event"] == "tm.refused" and "more than 2 connections" in e["reason"]]


async def test_garbage_first_line_gets_the_expected_form(tmp_path):
    async with InProcessTM(tmp_path, boards=1) as tm:
        reader, writer = await raw_connection(tm.port)
        writer.write(b"hello there\r\n")
        assert (await read_all(reader)).startswith(b"Error: Expected 'Connecting")


async def test_compliance_report_lists_every_deviation_with_its_line(tmp_path):
    async with InProcessTM(tmp_path, boards=1, seed=3, compliance_report=True) as tm:
        tasks = await start_in_order(four_clients(tm.port, seed=1))
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
        await asyncio.wait_for(tm.manager.wait_done(), 5)
        await asyncio.sleep(0.7)  # (the sockets close after the end-of-session pause)
    reports = {r["seat"]: r for r in (json.loads(p.read_text()) for p in (tmp_path / "compliance").glob("*.json"))}
    assert set(reports) == {"N", "E", "S", "W"}
    assert reports["N"]["deviations"] == []  # canonical Blue Chip
    assert any("line ends were not CR LF" in d["issue"] for d in reports["E"]["deviations"])  # BEN's LF
    assert any("10" in d["line"] and "not canonical" in d["issue"] for d in reports["S"]["deviations"]) or \
        any("text after the version" in d["issue"] for d in reports["S"]["deviations"])
    issues = [d["issue"] for d in reports["W"]["deviations"]]
    assert any("ANYPL" in i for i in issues) and any("not canonical" in i for i in issues)  # WBridge5


async def test_two_rooms_same_boards_seats_swapped_and_the_files(tmp_path):
    async with InProcessTM(tmp_path, boards=2, seed=5, rooms=2, event="Test match") as tm:
        open_room = four_clients(tm.port, ("Alpha", "Beta"), seed=1)
        closed_room = four_clients(tm.port, ("Beta", "Alpha"), seed=1)
        tasks = await start_in_order(open_room + closed_room)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 8
        rows = tm.store.results()
        assert [(r.board, r.room) for r in rows] == [(1, "Open"), (1, "Closed"), (2, "Open"), (2, "Closed")]
        assert rows[0].record.deal == rows[1].record.deal
        assert rows[0].record.players[N] == "Alpha" and rows[1].record.players[N] == "Beta"
        summary = write_outputs(tm.store, tmp_path)
    (match,) = summary["matches"].values()
    assert match["teams"] == {"a": "Alpha", "b": "Beta"} and match["played"] == {"Open": 2, "Closed": 2}
    assert match["boards"] == 2 and summary["boards"] == 2 and summary["source"] == "tm"
    assert parse_summary((tmp_path / "summary.json").read_bytes()).to_dict() == summary  # the one schema
    pbn = (tmp_path / "boards.pbn").read_text(encoding="latin-1")
    assert pbn.count('[Room "Open"]') == 2 and pbn.count('[Room "Closed"]') == 2 and "{Time N/S" in pbn
    lin = (tmp_path / "Alpha.lin").read_text()
    assert lin.startswith("vg|Test match,") and "qx|o1|" in lin and "qx|c2|" in lin


async def test_every_line_is_logged_and_reads_back_as_a_transcript(tmp_path):
    with capture_logs() as logs:
        async with InProcessTM(tmp_path, boards=1, seed=3) as tm:
            clients = four_clients(tm.port, seed=1)
            tasks = await start_in_order(clients)
            await asyncio.wait_for(asyncio.gather(*tasks), 30)
    text = [json.dumps({**e, "timestamp": "t"}) for e in logs]
    transcript = read_transcript(text, table="NS team")
    ins = [t.line for t in transcript if t.direction == "in" and t.seat == "N"]
    outs = [t.line for t in transcript if t.direction == "out" and t.seat == "N"]
    assert ins[0] == "North ready for teams" and outs[0] == 'North ("NS team") seated'
    assert len(ins) == clients[0].lines_out - 1  # (the Connecting line comes before the seat is known)
    assert len(outs) == clients[0].lines_in
