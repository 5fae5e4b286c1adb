"""``squeeze watch``: the state folded from events (redeliveries, gaps, a watcher joining late, during the play,
or after the session), the page's HTTP server, the terminal view read from tmux while a recorded board is replayed
through a real mosquitto (and before that mosquitto is there), and the web view in headless Chromium while our table
manager (``squeeze tm --mqtt embedded``, a real process) plays a board: dummy's cards and the trick on the table
read from the page during the play, screenshots in bench/out."""

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from rich.console import Console

from squeeze.config.settings import MqttSettings
from squeeze.engine.board import Play
from squeeze.engine.cards import Card, Hand, Seat
from squeeze.robot import watch as watch_module
from squeeze.robot.events import EventPublisher, board_events, table_id
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from squeeze.robot.watch import (FINISHED_LINGER_SECONDS, WatchState, WebServer, _BrokerStatus, contract_text,
                                 outcome_text, render)

from event_tools import Chromium, Mosquitto, Tmux, free_port
from test_events import played_board
from tm_client import four_clients, start_in_order

SQUEEZE = str(Path(sys.executable).with_name("squeeze"))
ARTIFACTS = Path(__file__).resolve().parent.parent / "bench" / "out"


def test_the_state_ignores_redeliveries_counts_gaps_and_follows_a_late_join():
    record = played_board()
    events = [e.model_copy(update={"seq": i + 1}) for i, e in enumerate(board_events("Cup", "m.Open", record))]
    state = WatchState()
    for e in events[:10]:
        assert state.apply(e)
    assert not state.apply(events[5])  # QoS 1 may deliver twice: the second changes nothing
    for e in events[12:]:  # two events lost on the way
        state.apply(e)
    (view,) = state.tables.values()
    assert view.gaps == 2
    d = view.to_dict()
    assert d["contract"] == "4H by E" and d["result"]["tricks"] == record.result
    assert (d["tricks_ns"], d["tricks_ew"]) == (13 - record.result, record.result)
    assert d["hands"]["N"] == dict(zip("SHDC", str(record.deal[0]).split(".")))
    alerted = [c for c in d["calls"] if c["alert"]]
    assert alerted == [{"seat": "W", "call": "2C", "alert": True, "explanation": "Stayman"}]

    late = WatchState()
    calls = [e for e in events if e.kind == "call"]
    for e in calls[3:]:  # joined mid-auction: board number gives dealer and vulnerability, the calls start at 0
        late.apply(e)
    (view,) = late.tables.values()
    assert (view.board, view.dealer, view.vul) == (5, "N", "NS") and view.calls == []

    only = WatchState(table="m.Closed")
    assert not any(only.apply(e) for e in events) and not only.tables
    assert contract_text("3NXS") == "3NTX by S" and contract_text(None) == "Passed out"
    assert [outcome_text("4HE", t) for t in (10, 11, 4)] == ["made", "made +1", "down 6"]


def _numbered(record):
    return [e.model_copy(update={"seq": i + 1}) for i, e in enumerate(board_events("Cup", "m.Open", record))]


def _remaining(hand: Hand, gone) -> dict:
    left = str(hand - Hand.from_cards([Card.parse(c) for c in gone if Card.parse(c) in hand])).split(".")
    return dict(zip("SHDC", left))


def test_a_spectator_sees_dummy_after_the_lead_the_trick_on_the_table_and_played_cards_gone():
    record = played_board()
    events = _numbered(record)
    play = Play(record.deal, record.contract, record.play).public
    dummy, declarer = play.dummy.letter, play.declarer.letter
    state = WatchState()
    first_card = next(i for i, e in enumerate(events) if e.kind == "card")
    for e in events[:first_card]:
        state.apply(e)
    (view,) = state.tables.values()
    d = view.to_dict()
    assert d["stage"] == "bidding" or d["contract"] == "4H by E"  # the auction is over: no card yet
    assert all(h is None for h in d["shown"].values())  # no hand before the opening lead
    for e in events[first_card:first_card + 2]:  # the opening lead, then dummy goes down
        state.apply(e)
    d = view.to_dict()
    assert (d["dummy"], d["declarer"]) == (dummy, declarer)
    assert d["shown"][dummy] == _remaining(record.deal[play.dummy], [])
    assert [s for s, h in d["shown"].items() if h is not None] == [dummy]  # only dummy: the rest stays hidden
    assert d["trick"]["cards"] == [{"seat": play.players[0].letter, "card": str(record.play[0]), "reason": "card 0"}]
    # six more cards: the second trick in progress, dummy's played cards gone from its hand
    upto = next(i for i, e in enumerate(events) if e.kind == "card" and e.index == 6) + 1
    for e in events[first_card + 2:upto]:
        state.apply(e)
    d = view.to_dict()
    played = [str(c) for c in record.play[:7]]
    assert d["shown"][dummy] == _remaining(record.deal[play.dummy], [c for c, s in zip(played, play.players)
                                                                     if s.letter == dummy])
    assert [c["card"] for c in d["trick"]["cards"]] == played[4:7] and not d["trick"]["complete"]
    assert d["trick"]["number"] == 2 and (d["tricks_ns"], d["tricks_ew"]) == view.tricks_won()
    text = _screen(state)
    assert "dummy" in text and "declarer" in text and "Contract: 4♥ by E" in text
    # the board over: all four hands as dealt, the result in a player's words
    for e in events[upto:]:
        state.apply(e)
    d = view.to_dict()
    assert d["shown"] == {s.letter: dict(zip("SHDC", str(record.deal[s]).split("."))) for s in Seat}
    assert d["result"]["outcome"] == outcome_text(str(record.contract), record.result)


def test_a_watcher_who_joins_during_the_play_gets_dummy_and_the_contract_from_the_broker():
    record = played_board()
    events = _numbered(record)
    play = Play(record.deal, record.contract, record.play).public
    mid = next(i for i, e in enumerate(events) if e.kind == "card" and e.index == 21)  # trick 6, second card
    kept = [e for e in events[:mid] if e.kind == "dummy"][-1]  # what the broker kept: dummy after trick 5
    state = WatchState()
    state.apply(kept)  # retained messages come first, then the live ones
    for e in events[mid:mid + 3]:
        state.apply(e)
    (view,) = state.tables.values()
    d = view.to_dict()
    assert d["contract"] == "4H by E" and d["stage"] == "play"
    seen_gone = [str(c) for c, s in zip(record.play[:24], play.players) if s == play.dummy]
    shown_cards = {d["trick"]["cards"][i]["card"] for i in range(len(d["trick"]["cards"]))}
    assert {c["card"] for c in d["trick"]["cards"]} == shown_cards == {str(c) for c in record.play[21:24]}
    # dummy's cards: as dealt, less those played before (the kept event) and since (the cards seen)
    assert d["shown"][play.dummy.letter] == _remaining(record.deal[play.dummy], seen_gone)
    # without dummy's event (an older publisher): the contract is said to be unknown, not "(bidding)"
    bare = WatchState()
    for e in events[mid:mid + 3]:
        bare.apply(e)
    (view,) = bare.tables.values()
    assert view.contract_line() == "not seen (joined during play)" and "(bidding)" not in _screen(bare)
    # a kept dummy of an earlier board is never shown on a later one
    later = WatchState()
    later.apply(kept)
    for e in _numbered(played_board(6, seed=3))[:5]:
        later.apply(e.model_copy(update={"seq": e.seq + 1000}))
    (view,) = later.tables.values()
    assert view.board == 6 and view.dummy is None


def test_finished_sessions_drop_off_and_a_kept_summary_never_blocks_a_new_session():
    record = played_board()
    events = _numbered(record)
    now = events[-1].time
    state = WatchState()
    for e in events:
        state.apply(e)
    assert [v.table for v in state.live(now)] == ["m.Open"] and state.tick(now)
    assert "m.Open · Cup · board 5" in _screen(state, now)
    later = now + FINISHED_LINGER_SECONDS + 1
    assert state.tick(later) and not state.live(later) and not state.tick(later)
    screen = _screen(state, later)
    assert "m.Open · Cup" not in screen and "no table playing now" in screen and "finished: m.Open board 5" in screen
    assert state.to_dict(later)["tables"][0]["live"] is False
    # a session long over: its kept summary alone never puts the table on screen
    old = WatchState()
    old.apply(events[-1].model_copy(update={"time": now - 3 * FINISHED_LINGER_SECONDS}))
    assert not old.live(now)
    # ... nor does its seq hold back a new session's events (a new publisher counts from 1 again)
    for e in _numbered(played_board(6, seed=3))[:6]:
        assert old.apply(e.model_copy(update={"time": now}))
    (view,) = old.tables.values()
    assert view.board == 6 and len(view.calls) == 5 and old.live(now)


def _screen(state: WatchState, now=None) -> str:
    console = Console(width=110, record=True, color_system=None)
    console.print(render(state, now=now))
    return console.export_text()


async def test_no_broker_is_said_within_seconds_and_the_watcher_keeps_trying(monkeypatch):
    monkeypatch.setattr(watch_module, "NO_BROKER_AFTER_SECONDS", 0.05)
    said = []
    state = WatchState()
    status = _BrokerStatus(state, "10.0.0.9", 1883, say=said.append)
    assert state.detail == "connecting to mqtt://10.0.0.9:1883" and not state.connected

    async def nothing() -> None:
        pass

    await status.watchdog(nothing)  # no answer at all (a host that drops the packets)
    assert state.detail == "no broker at 10.0.0.9:1883 (no answer after 0.05 s), retrying"
    status(False, "[Errno 111] Connection refused")
    assert state.detail == "no broker at 10.0.0.9:1883 (Connection refused), retrying"
    status(True, "mqtt://10.0.0.9:1883")
    assert state.connected and said[-1] == "connected to mqtt://10.0.0.9:1883" and len(said) == 3


async def _get(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    return data


async def test_the_page_server_serves_the_page_the_state_and_refuses_the_rest():
    state = WatchState()
    for e in board_events("Cup", "m.Open", played_board()):
        state.apply(e)
    server = WebServer(state)
    port = await server.start()
    try:
        page = await _get(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert page.startswith(b"HTTP/1.1 200 OK") and b"text/html" in page and b"EventSource" in page
        # nothing from the network: no external script, style, font or image (the machine may be offline)
        assert not re.search(rb"""(src|href)\s*=\s*["']?(https?:)?//""", page) and b"@import" not in page
        body = (await _get(port, b"GET /state HTTP/1.1\r\n\r\n")).split(b"\r\n\r\n", 1)[1]
        assert json.loads(body)["tables"][0]["contract"] == "4H by E"
        assert (await _get(port, b"GET /nope HTTP/1.1\r\n\r\n")).startswith(b"HTTP/1.1 404")
        assert (await _get(port, b"POST / HTTP/1.1\r\n\r\n")).startswith(b"HTTP/1.1 405")
        assert (await _get(port, b"garbage\r\n\r\n")).startswith(b"HTTP/1.1 400")
        # the event stream: the whole state at once, then again when it changes
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /events HTTP/1.1\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert b"text/event-stream" in head
        first = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
        assert json.loads(first.removeprefix(b"data: "))["events"] == state.events
        state.set_connection(False, "gone")
        await server.changed()
        second = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
        assert json.loads(second.removeprefix(b"data: "))["detail"] == "gone"
        writer.close()
    finally:
        await server.close()


@pytest.mark.slow
async def test_the_terminal_view_in_tmux_shows_a_replayed_board(tmp_path):
    record = played_board()
    mosquitto = Mosquitto(tmp_path).start()
    try:
        with Tmux([SQUEEZE, "watch", "--mqtt", mosquitto.url, "--table", "m.Open"]) as tmux:
            await tmux.wait_for(lambda s: "connected to" in s)
            publisher = EventPublisher(MqttSettings(enabled=True, port=mosquitto.port))
            await publisher.start()
            other = played_board(seed=9)
            for ev in board_events("Cup", "m.Closed", other) + board_events("Cup", "m.Open", record):
                publisher.publish(ev)
            await publisher.close()
            screen = await tmux.wait_for(lambda s: "Running score: 1 board" in s)  # the summary: the last event
    finally:
        mosquitto.stop()
    (tmp_path / "screen.txt").write_text(screen)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "watch-terminal.txt").write_text(screen)
    assert "m.Open · Cup · board 5 · dealer N · vul NS" in screen
    assert "m.Closed" not in screen  # --table
    north = str(record.deal[0]).split(".")
    assert f"♠ {north[0]}" in screen and f"♣ {north[3]}" in screen and "N robot N" in screen
    assert "W dummy robot W" in screen and "E declarer robot E" in screen
    # the auction in W N E S columns, the alert marked, the notes' numbers in superscript (never glued to the
    # call as 1NT1 or 2C!2 would be), the explanations below
    assert re.search(r"W\s+N\s+E\s+S", screen) and re.search(r"Pass\s+1NT¹\s+Pass", screen)
    assert "2C!²" in screen and "1. 1NT 15-17" in screen and "2. 2C! Stayman" in screen
    ns, ew = 13 - record.result, record.result
    assert f"Contract: 4♥ by E   Tricks: NS {ns}  EW {ew}" in screen
    outcome = outcome_text("4HE", record.result)
    assert f"Result: 4♥ by E, {record.result} tricks ({outcome}), NS {record.score_ns():+d}" in screen
    assert "trick 13:" in screen and "Running score: 1 board, NS" in screen


@pytest.mark.slow
async def test_the_terminal_view_says_there_is_no_broker_and_connects_when_one_comes(tmp_path):
    port = free_port()
    with Tmux([SQUEEZE, "watch", "--mqtt", f"mqtt://127.0.0.1:{port}"]) as tmux:
        screen = await tmux.wait_for(lambda s: "no broker at" in s)
        assert f"no broker at 127.0.0.1:{port} (Connection refused), retrying" in screen
        mosquitto = Mosquitto(tmp_path)
        mosquitto.port = port
        mosquitto.config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        mosquitto.start()
        try:
            screen = await tmux.wait_for(lambda s: "connected to" in s, timeout=30)
        finally:
            mosquitto.stop()
    assert f"connected to mqtt://127.0.0.1:{port}" in screen and "no table playing now" in screen


#: What the page shows during the play, read in one go (the page renders a state whole, between two events).
_PLAY_SNAPSHOT = """(() => {
  const v = last && last.tables[0];
  if (!v || !v.dummy || v.stage !== "play" || v.cards.length < 6 || v.cards.length % 4 === 0) return null;
  const cards = sel => [...document.querySelectorAll(sel)].map(e => e.dataset.card);
  return {dummy: v.dummy, played: v.cards.map(c => c.card), first: v.cards[0].index,
          dummyCards: cards("#" + v.dummy + " [data-card]"),
          trick: [...document.querySelectorAll("#trick [data-card]")].map(e => [e.dataset.seat, e.dataset.card]),
          hidden: "NESW".split("").filter(s => s !== v.dummy).map(s => cards("#" + s + " [data-card]").length),
          roles: [...document.querySelectorAll(".hand .role")].map(e => e.textContent),
          contract: document.getElementById("contract").textContent};
})()"""


@pytest.mark.slow
async def test_the_web_view_in_chromium_follows_a_board_played_at_squeeze_tm(tmp_path):
    # the embedded broker on any free port (0), read from what squeeze tm prints: no race for a port picked here
    env = {**os.environ, "SQUEEZE_LOG__LEVEL": "warning", "SQUEEZE_MQTT__PORT": "0"}
    tm = await asyncio.create_subprocess_exec(
        SQUEEZE, "tm", "--port", "0", "--out", str(tmp_path / "run"), "--boards", "1", "--seed", "4",
        "--event", "Web Cup", "--mqtt", "embedded", stdout=asyncio.subprocess.PIPE, env=env)
    watch = None
    try:
        lines = [(await asyncio.wait_for(tm.stdout.readline(), 20)).decode() for _ in range(2)]
        assert "publishing events to the embedded broker at mqtt://127.0.0.1:" in lines[0], lines
        mqtt_port = int(lines[0].rsplit(":", 1)[1])
        tm_port = int(lines[1].rsplit(":", 1)[1])
        watch = await asyncio.create_subprocess_exec(
            SQUEEZE, "watch", "--web", "0", "--mqtt", f"mqtt://127.0.0.1:{mqtt_port}", stdout=asyncio.subprocess.PIPE,
            env=env)
        url = re.search(r"http://\S+", (await asyncio.wait_for(watch.stdout.readline(), 20)).decode())[0]
        async with Chromium(url, tmp_path) as page:
            async def until(expression: str, timeout: float = 20.0):
                async with asyncio.timeout(timeout):
                    while not (value := await page.evaluate(expression)):
                        await asyncio.sleep(0.02)
                return value

            await until("document.getElementById('status').textContent.startsWith('live')")
            # the seats think a little, so the page is read while the board is being played
            clients = four_clients(tm_port, seed=3, pass_rate=0.5, delay_when=lambda ev, c: 0.08)
            tasks = await start_in_order(clients)
            during = await until(_PLAY_SNAPSHOT, timeout=60)  # a trick in progress, after the second one began
            await page.screenshot(tmp_path / "watch-web-play.png")
            assert await page.text("result") == ""
            assert await asyncio.wait_for(asyncio.gather(*tasks), 60) == ["ended"] * 4
            await until("document.getElementById('result').textContent !== ''")
            await until("document.getElementById('summary').textContent !== ''")  # the summary follows the result
            contract, ns, ew = [await page.text(i) for i in ("contract", "tricks-ns", "tricks-ew")]
            title, result = await page.text("title"), await page.text("result")
            hands = await page.evaluate("'NESW'.split('').map(s => [...document.querySelectorAll('#' + s + "
                                        "' [data-card]')].map(e => e.dataset.card))")
            await page.screenshot(tmp_path / "watch-web.png")
        assert await asyncio.wait_for(tm.wait(), 20) == 0
    finally:
        for proc in (watch, tm):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
    store = ResultsStore(tmp_path / "run" / STORE_FILE, create=False)
    (row,) = store.results()
    store.close()
    record = row.record
    assert record.contract is not None, "this seed's board is played, not passed out"
    play = Play(record.deal, record.contract, record.play).public
    # during the play: dummy's hand as dealt less the cards it had played, the trick on the table in the middle,
    # every other hand hidden; what the page showed is checked against the board as the store keeps it
    letters = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"})
    k = len(during["played"])
    assert during["first"] == 0 and during["played"] == [str(c) for c in record.play[:k]]
    assert during["dummy"] == play.dummy.letter and during["contract"].translate(letters) == contract_text(
        str(record.contract))
    gone = {str(c) for c, s in zip(record.play[:k], play.players) if s == play.dummy}
    assert sorted(during["dummyCards"]) == sorted(str(c) for c in record.deal[play.dummy] if str(c) not in gone)
    assert during["trick"] == [[s.letter, str(c)] for c, s in zip(record.play[k - k % 4:k], play.players[k - k % 4:k])]
    assert during["hidden"] == [0, 0, 0] and sorted(during["roles"]) == ["declarer", "dummy"]
    # the board over: the result and the running score, all four hands as dealt (nothing struck through)
    assert contract.translate(letters) == contract_text(str(record.contract))  # 4♥X by E: the strain as a symbol
    declarer_ns = record.contract.declarer.is_ns
    assert (int(ns), int(ew)) == ((record.result, 13 - record.result) if declarer_ns else
                                  (13 - record.result, record.result))
    assert "Web Cup · Board 1 · Dealer N" in title and table_id("NS team") in title
    assert f"{record.result} tricks" in result and f"NS {record.score_ns():+d}" in result
    assert f"({outcome_text(str(record.contract), record.result)})" in result
    assert [sorted(h) for h in hands] == [sorted(str(c) for c in record.deal[s]) for s in Seat]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in ("watch-web-play.png", "watch-web.png"):
        png = (tmp_path / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
        shutil.copy(tmp_path / name, ARTIFACTS / name)
    print(f"page screenshots: {ARTIFACTS / 'watch-web-play.png'}, {ARTIFACTS / 'watch-web.png'}")


def test_bad_broker_addresses_and_a_taken_port_are_refused_before_anything_starts(tmp_path, monkeypatch):
    import socket

    from typer.testing import CliRunner

    from squeeze.robot.cli import app

    for args, message in [(["watch", "--mqtt", "embedded"], "reads from a broker"),
                          (["watch", "--mqtt", "ftp://h:1"], "mqtt://HOST:PORT or 'embedded'"),
                          (["watch", "--web", "70000"], "--web takes a port")]:
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and message in r.output, (args, r.output)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("SQUEEZE_MQTT__PORT", str(taken.getsockname()[1]))
        r = CliRunner().invoke(app, ["tm", "--port", "0", "--out", str(tmp_path / "run"), "--mqtt", "embedded"])
    assert r.exit_code == 2 and "the embedded MQTT broker cannot listen on 127.0.0.1:" in r.output, r.output
    assert not (tmp_path / "run").exists()  # refused before the results store was made


@pytest.mark.slow
async def test_the_web_view_explains_alerted_calls_on_hover(tmp_path):
    record = played_board()
    mosquitto = Mosquitto(tmp_path).start()
    watch = await asyncio.create_subprocess_exec(SQUEEZE, "watch", "--web", "0", "--mqtt", mosquitto.url,
                                                 "--table", "m.Open", stdout=asyncio.subprocess.PIPE)
    try:
        url = re.search(r"http://\S+", (await asyncio.wait_for(watch.stdout.readline(), 20)).decode())[0]
        async with Chromium(url, tmp_path) as page:
            async with asyncio.timeout(20):
                while not await page.evaluate("document.getElementById('status').textContent.startsWith('live')"):
                    await asyncio.sleep(0.05)
            publisher = EventPublisher(MqttSettings(enabled=True, port=mosquitto.port))
            await publisher.start()
            for ev in board_events("Cup", "m.Open", record):
                publisher.publish(ev)
            await publisher.close()
            async with asyncio.timeout(20):
                while not await page.text("summary"):
                    await asyncio.sleep(0.05)
            titles = await page.evaluate("[...document.querySelectorAll('#auction td[title]')]"
                                         ".map(td => [td.textContent, td.querySelector('sup').textContent,"
                                         " td.title])")
            notes = await page.text("notes")
            await page.screenshot(tmp_path / "watch-web-alerts.png")
    finally:
        watch.kill()
        await watch.wait()
        mosquitto.stop()
    # the note's number a superscript apart from the call; the strain as a symbol
    assert titles == [["1NT1", "1", "15-17"], ["2♣!2", "2", "Alert: Stayman"]]
    assert "2. 2♣ (alert) Stayman" in notes
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / "watch-web-alerts.png", ARTIFACTS / "watch-web-alerts.png")
