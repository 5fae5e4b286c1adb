"""``squeeze watch``: the state folded from events (redeliveries, gaps, a watcher joining late), the page's HTTP
server, the terminal view read from tmux while a recorded board is replayed through a real mosquitto, and the web
view in headless Chromium while our table manager (``squeeze tm --mqtt embedded``, a real process) plays a board."""

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from squeeze.config.settings import MqttSettings
from squeeze.robot.events import EventPublisher, board_events, table_id
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from squeeze.robot.watch import WatchState, WebServer, contract_text

from event_tools import Chromium, Mosquitto, Tmux
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
            screen = await tmux.wait_for(lambda s: "Table: 1 boards" in s)  # the summary: the last event
    finally:
        mosquitto.stop()
    (tmp_path / "screen.txt").write_text(screen)
    assert "m.Open · Cup · board 5 · dealer N · vul NS" in screen
    assert "m.Closed" not in screen  # --table
    north = str(record.deal[0]).split(".")
    assert f"♠ {north[0]}" in screen and f"♣ {north[3]}" in screen and "N robot N" in screen
    # the auction in W N E S columns, the alert marked and numbered, the explanations below
    assert re.search(r"W\s+N\s+E\s+S", screen) and re.search(r"P\s+1NT1\s+P", screen)
    assert "2C!2" in screen and "1. 1NT 15-17" in screen and "2. 2C! Stayman" in screen
    ns, ew = 13 - record.result, record.result
    assert f"Contract: 4H by E   Tricks: NS {ns}  EW {ew}" in screen
    assert f"Result: 4H by E, {record.result} tricks, NS {record.score_ns():+d}" in screen
    assert "trick 13:" in screen and "Table: 1 boards" in screen


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
                        await asyncio.sleep(0.05)
                return value

            await until("document.getElementById('status').textContent.startsWith('live')")
            # the seats think a little, so the page is read while the board is being played
            clients = four_clients(tm_port, seed=3, pass_rate=0.5, delay_when=lambda ev, c: 0.01)
            tasks = await start_in_order(clients)
            await until("document.querySelectorAll('#tricks-list div').length >= 3")
            mid = await page.evaluate("document.getElementById('N').textContent")
            assert "hands after the board" in mid  # no hands while the board is played
            assert await page.text("result") == ""
            assert await asyncio.wait_for(asyncio.gather(*tasks), 60) == ["ended"] * 4
            await until("document.getElementById('result').textContent !== ''")
            await asyncio.sleep(0.2)  # the summary, which follows the result
            contract, ns, ew = [await page.text(i) for i in ("contract", "tricks-ns", "tricks-ew")]
            title, result = await page.text("title"), await page.text("result")
            hand = await page.text("S")
            shot = await page.screenshot(tmp_path / "watch-web.png")
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
    assert contract == contract_text(str(record.contract))
    declarer_ns = record.contract.declarer.is_ns
    assert (int(ns), int(ew)) == ((record.result, 13 - record.result) if declarer_ns else
                                  (13 - record.result, record.result))
    assert "Web Cup · Board 1 · Dealer N" in title and table_id("NS team") in title
    assert f"{record.result} tricks" in result and f"NS {record.score_ns():+d}" in result
    assert "♠" in hand and "hands after the board" not in hand  # the hands, once the board is over
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, ARTIFACTS / "watch-web.png")
    print(f"page screenshot: {ARTIFACTS / 'watch-web.png'}")


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
                                         ".map(td => [td.textContent, td.title])")
            notes = await page.text("notes")
            await page.screenshot(tmp_path / "watch-web-alerts.png")
    finally:
        watch.kill()
        await watch.wait()
        mosquitto.stop()
    assert titles == [["1NT 1", "15-17"], ["2C 2", "Alert: Stayman"]]
    assert "2. 2C (alert) Stayman" in notes
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / "watch-web-alerts.png", ARTIFACTS / "watch-web-alerts.png")
