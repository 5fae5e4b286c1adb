"""Live events (robot/events.py): the payloads and their checks, the deal held back, the publisher's bounded queue,
and real brokers - a mosquitto of each test's own and the embedded amqtt - fed by our table manager with scripted
clients: every event of every board arrives, in order; a broker killed mid-board neither stops nor slows the table,
the drops are counted, and publishing resumes when the broker is back."""

import asyncio
import json
import random
import time

import pytest
import structlog

from squeeze.config.settings import MqttSettings
from squeeze.engine.auction import Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Seat
from squeeze.engine.record import BoardRecord, CallNote, CardNote
from squeeze.robot.events import (
    EVENT_SCHEMA, RETAINED, EventError, EventPublisher, TableFeed, board_events, call_event, parse_event,
    parse_mqtt_url,
    result_event, summary_event, table_id, topic_segment,
)
from squeeze.robot.tm.store import STORE_FILE, ResultsStore

from event_tools import Broker, Collector, Mosquitto, free_port
from tm_client import InProcessTM, four_clients, start_in_order


def played_board(board: int = 5, seed: int = 1) -> BoardRecord:
    """A complete board: a real auction with an alert and explanations, then random legal cards with reasons."""
    rng = random.Random(seed)
    deal = Deal.random(rng)
    auction = Auction.parse("P 1N P 2C P 2H P 4H P P P", "N")  # board 5: North deals
    notes = [CallNote(alert=str(c) == "2C", explanation={"1N": "15-17", "2C": "Stayman"}.get(str(c), ""), seconds=0.1)
             for c in auction.calls]
    play = Play(deal, auction.contract)
    for _ in range(52):
        play = play.then(rng.choice(play.legal_cards()))
    return BoardRecord.from_play(board, play, auction=auction, call_notes=notes,
                                 card_notes=[CardNote(reason=f"card {i}", seconds=0.01) for i in range(52)],
                                 players={s: f"robot {s.letter}" for s in Seat}, event="Test", table="m", room="Open")


def expected_kinds(record: BoardRecord) -> list[str]:
    """Dummy's hand follows the opening lead and every trick but the last."""
    cards = []
    for t in range(13 if record.play else 0):
        cards += ["card"] + ["dummy"] * (t == 0) + ["card"] * 3 + ["trick"] + ["dummy"] * (t < 12)
    return ["board"] + ["call"] * len(record.auction.calls) + cards + ["deal", "result", "summary"]


def check_board(events, record: BoardRecord) -> None:
    """``events`` (one board's, in arrival order) are exactly the board's: kinds in order, every call with its note,
    every card with its reason, the tricks' winners, the deal, the record."""
    assert [e.kind for e in events] == expected_kinds(record)
    calls = [e for e in events if e.kind == "call"]
    assert [c.call for c in calls] == [str(c) for c in record.auction.calls]
    assert [(c.alert, c.explanation) for c in calls] == [(n.alert, n.explanation) for n in record.call_notes]
    cards = [e for e in events if e.kind == "card"]
    assert [c.card for c in cards] == [str(c) for c in record.play]
    assert [c.reason for c in cards] == [n.reason for n in record.card_notes]
    if record.play:
        play = Play(record.deal, record.contract, record.play)
        assert [(t.leader, t.winner) for t in events if t.kind == "trick"] == [
            (leader.letter, winner.letter) for leader, _cards, winner in play.tricks]
        assert events[-4].tricks_ns + events[-4].tricks_ew == 13
        dummies = [e for e in events if e.kind == "dummy"]
        dummy = play.public.dummy
        assert {(d.seat, d.hand, d.contract, d.declarer) for d in dummies} == {
            (dummy.letter, str(record.deal[dummy]), str(record.contract), play.public.declarer.letter)}
        players = play.public.players
        gone = [[str(c) for c, s in zip(record.play[:n], players) if s == dummy] for n in [1, *range(4, 52, 4)]]
        assert [d.played for d in dummies] == gone  # dummy's cards played so far, each time
    deal, result = events[-3], events[-2]
    assert deal.deal == record.deal.to_pbn()
    assert result.board_record() == record and result.score_ns == record.score_ns()


# --- payloads ----------------------------------------------------------------------------------------------------


def test_a_board_as_events_round_trips_through_json_and_keeps_every_note():
    record = played_board()
    events = board_events("Test", "m.Open", record)
    check_board(events, record)
    for ev in events:
        data = json.loads(ev.to_json())
        assert data["schema"] == EVENT_SCHEMA and data["kind"] == ev.kind
        assert parse_event(ev.to_json()) == ev
    alerted = [e for e in events if e.kind == "call" and e.alert]
    assert [(e.call, e.explanation, e.seat) for e in alerted] == [("2C", "Stayman", "W")]
    assert events[0].players == {s.letter: f"robot {s.letter}" for s in Seat}
    assert "deal" not in events[0].model_dump()  # the board event never carries the hands


def test_bad_payloads_are_refused_with_the_reason():
    good = json.loads(call_event("E", "t", 1, Auction.parse("1N", "N"), CallNote(True, "15-17")).to_json())
    cases = [
        (b"not json", "JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({**good, "schema": 2}), "schema 2 is not supported"),
        (json.dumps({**good, "kind": "claim"}), "unknown event kind 'claim'"),
        (json.dumps({**good, "call": "8N"}), "call: .*not a call"),
        (json.dumps({**good, "seat": "X"}), "seat"),
        (json.dumps({**good, "extra": 1}), "extra"),
        (json.dumps({k: v for k, v in good.items() if k != "board"}), "board"),
        (json.dumps({**good, "board": 0}), "board"),
    ]
    for payload, message in cases:
        with pytest.raises(EventError, match=message):
            parse_event(payload)
    card = json.loads(board_events("E", "t", played_board())[20].to_json())
    assert card["kind"] == "card"
    with pytest.raises(EventError, match="cannot be in trick"):
        parse_event(json.dumps({**card, "trick": card["trick"] + 1}))
    dummy = json.loads(next(e for e in board_events("E", "t", played_board()) if e.kind == "dummy").to_json())
    assert dummy["seat"] == "W" and dummy["declarer"] == "E" and dummy["played"] == []  # after the opening lead
    for bad, message in [({"seat": "N"}, "not declarer E's partner"), ({"declarer": "N"}, "not declared by N"),
                         ({"hand": "AKQ.AKQ.AKQ.AKQ"}, "12 cards"), ({"played": ["SA"]}, "not cards of dummy's"),
                         ({"played": ["S4", "S4"]}, "once each"), ({"contract": "8NE"}, "contract")]:
        with pytest.raises(EventError, match=message):
            parse_event(json.dumps({**dummy, **bad}))
    result = json.loads(result_event("E", "t", played_board()).to_json())
    result["record"]["play"][3] = result["record"]["play"][2]  # a card played twice
    with pytest.raises(EventError, match="bad result event: record"):
        parse_event(json.dumps(result))


def test_topics_qos_retain_and_broker_addresses():
    events = board_events("Spring Cup", table_id("a/b", "Open"), played_board())
    by_kind = {e.kind: e for e in events}
    assert by_kind["result"].topic() == "squeeze/Spring Cup/a_b.Open/result"
    assert by_kind["call"].topic("x") == "x/Spring Cup/a_b.Open/call"
    assert {k: (e.qos, e.retain) for k, e in by_kind.items()} == {
        "board": (0, False), "call": (0, False), "card": (0, False), "trick": (0, False), "deal": (0, False),
        "result": (1, False), "summary": (0, True), "dummy": (0, True)}
    assert topic_segment("") == "-" and topic_segment("a+b#c") == "a_b_c"
    assert parse_mqtt_url("mqtt://localhost:1884") == ("localhost", 1884)
    assert parse_mqtt_url("mqtt://10.0.0.1") == ("10.0.0.1", 1883)
    assert parse_mqtt_url(" Embedded ") == "embedded"
    for bad, message in [("http://h:1", "mqtt://HOST:PORT"), ("mqtts://h", "mqtt://HOST:PORT"),
                         ("mqtt://:1883", "no host"), ("mqtt://h:99999", "bad port"), ("mqtt://h:0", "bad port"),
                         ("mqtt://h:1/topic", "only a host"), ("h:1883", "mqtt://HOST:PORT")]:
        with pytest.raises(EventError, match=message):
            parse_mqtt_url(bad)
    with pytest.raises(ValueError, match="port 0"):
        EventPublisher(MqttSettings(port=0))
    EventPublisher(MqttSettings(port=0, embedded=True))  # the embedded broker: any free port
    with pytest.raises(ValueError, match="wildcards"):
        MqttSettings(topic_prefix="a/#")


def test_summary_counts_imps_against_the_other_room():
    a, b = played_board(5, seed=1), played_board(6, seed=2)
    other = [BoardRecord.from_play(5, Play(a.deal, a.contract, a.play[:0]), auction=a.auction, result=4)]  # 4H-6
    s = summary_event("E", "m.Open", [a, b], other=other)
    assert s.boards == 2 and s.score_ns == a.score_ns() + b.score_ns()
    assert s.results[0].imps is not None and s.results[1].imps is None and s.compared == 1
    assert s.imps == s.results[0].imps
    assert summary_event("E", "m", [a]).imps is None  # one room: no IMPs
    assert summary_event("E", "m.Open", [a], other=[]).imps == 0  # two rooms, nothing compared yet


class Recorder:
    """Takes what a feed publishes, in order (the feed's own logic is under test here, not the transport)."""

    def __init__(self) -> None:
        self.events = []

    def publish(self, event):
        self.events.append(event)
        return event


async def test_the_feed_holds_the_deal_until_the_board_is_over_or_its_delay():
    record = played_board()
    rec = Recorder()
    feed = TableFeed(rec, "E", "m.Open")
    feed.board_started(record)
    auction = Auction(record.dealer)
    for call, note in zip(record.auction.calls, record.call_notes):
        auction = auction.then(call)
        feed.call(auction, note)
    play = Play(record.deal, record.contract)
    for card, note in zip(record.play, record.card_notes):
        play = play.then(card)
        feed.card(play, note)
    assert "deal" not in [e.kind for e in rec.events]  # 52 cards played, the board not yet over
    feed.board_finished(record)
    check_board(rec.events, record)

    delayed = Recorder()
    feed = TableFeed(delayed, "E", "m.Open", deal_delay_seconds=0.05)
    feed.board_started(record)
    await asyncio.sleep(0.02)
    assert [e.kind for e in delayed.events] == ["board"]
    await asyncio.sleep(0.08)
    assert [e.kind for e in delayed.events] == ["board", "deal"]  # the delayed vugraph: hands during the board
    feed.board_finished(record)
    assert [e.kind for e in delayed.events] == ["board", "deal", "result", "summary"]  # not twice


async def test_a_full_queue_drops_and_counts_and_a_result_displaces_a_card(tmp_path):
    nobody = free_port()  # nothing listens there: the publisher keeps trying in the background
    publisher = EventPublisher(MqttSettings(enabled=True, port=nobody, queue_size=5, reconnect_seconds=0.05))
    await publisher.start()
    events = board_events("E", "t", played_board())
    with structlog.testing.capture_logs() as logs:
        queued = [publisher.publish(e) for e in events[:8]]  # board + 7 calls
        assert [q is not None for q in queued] == [True] * 5 + [False] * 3
        assert [q.seq for q in queued[:5]] == [1, 2, 3, 4, 5]
        assert publisher.publish(events[-2]) is not None  # the result: the oldest call makes room
        await asyncio.sleep(0.2)  # reconnection attempts meanwhile: refused, the queue kept
        stats = await publisher.close(flush_seconds=0.1)
    assert stats.published == 0 and stats.connections == 0
    assert stats.dropped == 3 + 1 + 5  # three refused, one displaced, five never sent
    drops = [line for line in logs if line["event"] == "events.dropped"]
    assert drops and drops[0]["dropped"] == 1 and drops[0]["queue_size"] == 5
    assert any(line["event"] == "events.broker_unreachable" for line in logs)


# --- real brokers -----------------------------------------------------------------------------------------------


def stored(folder) -> list[BoardRecord]:
    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        return [r.record for r in store.results()]
    finally:
        store.close()


def by_board(events, table: str) -> dict[int, list]:
    out: dict[int, list] = {}
    for e in events:
        if e.table == table:
            out.setdefault(e.board, []).append(e)
    return out


@pytest.mark.parametrize("kind", ["mosquitto", "embedded"])
async def test_every_event_of_every_board_arrives_in_order(tmp_path, kind):
    async with Broker(kind, tmp_path) as broker:
        async with Collector(broker.port) as seen:
            publisher = EventPublisher(MqttSettings(enabled=True, port=broker.port))
            await publisher.start()
            async with InProcessTM(tmp_path / "run", boards=3, seed=2, event="Cup", publisher=publisher) as tm:
                tasks = await start_in_order(four_clients(tm.port, seed=4))
                assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["ended"] * 4
            await seen.wait_for(lambda evs: sum(e.kind == "summary" for e in evs) == 3)
            stats = await publisher.close()
        # a watcher that comes later gets the table's latest summary and dummy, kept by the broker
        async with Collector(broker.port) as late:
            await late.wait_for(lambda evs: len(evs) >= 2)
            await asyncio.sleep(0.1)
            # (amqtt 0.12 sends a retained message a second time to a new client, at QoS 0, for every topic filter
            # any client ever subscribed to: the same seq twice, which watchers ignore)
            last_dummy = [e for e in seen.events if e.kind == "dummy"][-1]
            assert {(e.kind, e.board, e.seq) for e in late.events} == {("summary", 3, seen.events[-1].seq),
                                                                       ("dummy", 3, last_dummy.seq)}
            assert len(late.events) == (2 if kind == "mosquitto" else 4)
    records = stored(tmp_path / "run")
    assert [r.board for r in records] == [1, 2, 3]
    table = table_id("NS team")
    assert {(e.event, e.table) for e in seen.events} == {("Cup", table)}
    assert [e.seq for e in seen.events] == list(range(1, len(seen.events) + 1))  # none lost, none twice, in order
    boards = by_board(seen.events, table)
    for record in records:
        check_board(boards[record.board], record)
    assert seen.events[-1].boards == 3 and seen.events[-1].score_ns == sum(r.score_ns() for r in records)
    assert stats.dropped == 0 and stats.published == len(seen.events)


BOARDS = 6
THINK = 0.004  # seconds each scripted seat thinks per call and card: play time is then mostly this, not noise


async def play_session(folder, publisher=None, on_event=None) -> float:
    """``BOARDS`` boards at an in-process manager with four scripted seats; the seconds from the first line to the
    end of the session. ``on_event(ev, client)`` sees what North's client sees."""
    async with InProcessTM(folder, boards=BOARDS, seed=5, publisher=publisher) as tm:
        clients = four_clients(tm.port, seed=6, delay_when=lambda ev, c: THINK)
        if on_event is not None:
            clients[0].kill_when = lambda ev, c: on_event(ev, c) and False
        start = time.monotonic()
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 60) == ["ended"] * 4
        return time.monotonic() - start


@pytest.mark.slow
async def test_a_broker_killed_mid_board_neither_stops_nor_slows_the_table_and_publishing_resumes(tmp_path):
    from squeeze.protocol.client import CallReceived

    mosquitto = Mosquitto(tmp_path).start()
    try:
        async with Collector(mosquitto.port) as seen:
            settings = MqttSettings(enabled=True, port=mosquitto.port, queue_size=40, reconnect_seconds=0.2,
                                    timeout_seconds=1.0)
            publisher = EventPublisher(settings)
            await publisher.start()
            restarted: list[asyncio.Task] = []

            def broker_trouble(ev, client) -> None:
                if not isinstance(ev, CallReceived):
                    return
                if client.machine.board == 2 and mosquitto.proc.poll() is None and not restarted:
                    mosquitto.kill()  # mid-auction of board 2
                elif client.machine.board == 4 and not restarted:
                    # back for board 4 (started in a thread: waiting for its port must not hold the table up)
                    restarted.append(asyncio.create_task(asyncio.to_thread(mosquitto.start)))

            with structlog.testing.capture_logs() as logs:
                troubled = await play_session(tmp_path / "troubled", publisher, broker_trouble)
                await restarted[0]
                await seen.wait_for(lambda evs: any(e.kind == "summary" and e.boards == BOARDS for e in evs), 15)
                stats = await publisher.close()
        baseline = min([await play_session(tmp_path / f"quiet{i}") for i in range(2)])
    finally:
        mosquitto.stop()

    # The table did not wait for the broker. A table held up by it loses `timeout_seconds` (1 s) at every event
    # published while the broker is down (dozens: boards 2 to 4), many seconds in all; the bound leaves room for
    # a loaded machine instead, where the same boards with no events at all vary by a third from run to run (seen:
    # 3.30 s against 2.34 s with two long benchmarks beside the suite on 2 cores, no wait in the log).
    assert troubled <= 1.5 * baseline + 1.0, (troubled, baseline)
    records = stored(tmp_path / "troubled")
    assert [r.board for r in records] == list(range(1, BOARDS + 1))
    # the drops are counted and reported, the reconnection happened
    assert stats.dropped > 0 and stats.connections == 2, stats
    assert any(line["event"] == "events.dropped" for line in logs)
    assert any(line["event"] == "events.broker_unreachable" for line in logs)
    assert [line["dropped"] for line in logs if line["event"] == "events.closed"] == [stats.dropped]
    # what was published arrived in order, with a gap where the broker was gone; the last board is whole (the
    # kinds the broker keeps come first on a new subscription, one per topic, in the broker's order, not seq's)
    seqs = [e.seq for e in seen.events if e.kind not in RETAINED]
    assert seqs == sorted(set(seqs)) and len(seqs) < seqs[-1]
    boards = by_board(seen.events, table_id("NS team"))
    check_board(boards[BOARDS], records[-1])
    assert seen.connections == 2  # the watcher's side reconnected too


async def test_a_resumed_run_summarises_the_boards_stored_before_it(tmp_path):
    from squeeze.protocol.client import BoardComplete

    from tm_client import rejoin_in_order

    folder = tmp_path / "run"
    async with InProcessTM(folder, boards=2, seed=7) as tm:  # board 1 played, then every seat is gone
        clients = four_clients(tm.port, seed=8, kill_when=lambda ev, c: isinstance(ev, BoardComplete))
        tasks = await start_in_order(clients)
        assert await asyncio.wait_for(asyncio.gather(*tasks), 30) == ["killed"] * 4
    async with Broker("embedded", tmp_path) as broker, Collector(broker.port) as seen:
        publisher = EventPublisher(MqttSettings(enabled=True, port=broker.port))
        await publisher.start()
        async with InProcessTM(folder, boards=2, seed=7, resume=True, publisher=publisher) as tm:
            for c in clients:
                c.port = tm.port
            assert await asyncio.wait_for(asyncio.gather(*await rejoin_in_order(clients)), 30) == ["ended"] * 4
        await seen.wait_for(lambda evs: any(e.kind == "summary" for e in evs))
        await publisher.close()
    records = stored(folder)
    (summary,) = [e for e in seen.events if e.kind == "summary"]
    assert [e.board for e in seen.events if e.kind == "board"] == [2]
    assert summary.boards == 2 and [r.board for r in summary.results] == [1, 2]
    assert summary.score_ns == sum(r.score_ns() for r in records)
