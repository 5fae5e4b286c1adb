"""``squeeze play-web``: a person's seat in the browser. A real ``squeeze play-web`` process (our table manager, three
``squeeze seat`` robots) and headless Chromium clicking calls and cards on its page until the board is over; the
result read from the page is checked against the table manager's store; an illegal card click is refused with the
reason; a reload mid-board resumes it. The same seat (its HTTP API, what the page calls) at the strict
protocol-18 table manager of ``tests/strict18`` finishes a board. Screenshots of bidding, play and review in
bench/out."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from squeeze.engine.cards import Seat
from squeeze.robot.tm.store import STORE_FILE, ResultsStore

from event_tools import Chromium

SQUEEZE = str(Path(sys.executable).with_name("squeeze"))
ARTIFACTS = Path(__file__).resolve().parent.parent / "bench" / "out"
STRICT = Path(__file__).resolve().parent / "strict18"
_SYMBOLS = str.maketrans({"♠": "S", "♥": "H", "♦": "D", "♣": "C"})
FAST = ["--partner", "fast", "--opponent-robots", "fast", "--seconds-per-call", "0.1", "--seconds-per-card", "0.05"]


async def _start_play_web(tmp: Path, *args: str) -> tuple[asyncio.subprocess.Process, str]:
    env = {**os.environ, "SQUEEZE_LOG__LEVEL": "info"}
    proc = await asyncio.create_subprocess_exec(SQUEEZE, "play-web", "--out", str(tmp / "run"), *args,
                                                stdout=asyncio.subprocess.PIPE, env=env)
    line = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
    found = re.search(r"http://\S+/", line)
    assert found, f"play-web did not start: {line!r}"
    return proc, found[0]


async def _stop(proc: asyncio.subprocess.Process) -> int:
    if proc.returncode is None:
        proc.send_signal(signal.SIGINT)
        try:
            return await asyncio.wait_for(proc.wait(), 30)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
    return proc.returncode


def _stored(folder: Path):
    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        return [row.record for row in store.results()]
    finally:
        store.close()


#: The page's state as it rendered it last (the page keeps it in ``last``), and what its controls offer.
_READ = """(() => {
  if (!last) return null;
  const enabled = [...document.querySelectorAll('#bidding-box button')].filter(b => !b.disabled).map(b => b.dataset.call);
  const all = [...document.querySelectorAll('#bidding-box button')].map(b => b.dataset.call);
  const turnHand = [...document.querySelectorAll('.hand.turn [data-card]')];
  return {status: last.status, holding: last.holding, turn: last.turn, board: last.board, calls: last.calls.length,
          cards: last.tricks.length * 4 + (last.trick.complete ? 0 : last.trick.cards.length),
          legalCalls: last.legal_calls, enabled, all, legalCards: last.legal_cards,
          playable: turnHand.filter(e => e.classList.contains('legal')).map(e => e.dataset.card),
          unplayable: turnHand.filter(e => e.classList.contains('illegal')).map(e => e.dataset.card),
          hands: last.hands, reviews: last.reviews, message: document.getElementById('message').textContent,
          trick: last.trick};
})()"""


async def _fetch(page: Chromium, url_expression: str) -> str:
    """The text the page gets from its server at ``url_expression`` (a script expression)."""
    reply = await page._call("Runtime.evaluate", expression=f"fetch({url_expression}).then(r => r.text())",
                             awaitPromise=True, returnByValue=True)
    return reply["result"]["value"]


@pytest.mark.slow
async def test_a_person_plays_a_board_in_chromium_at_our_table_manager(tmp_path):
    proc, url = await _start_play_web(tmp_path, "--boards", "1", "--seed", "1", *FAST)
    refused = reloaded = explained = None
    shots = {}
    try:
        async with Chromium(url, tmp_path, size=(1280, 1500)) as page:
            async def until(expression: str, timeout: float = 60.0):
                async with asyncio.timeout(timeout):
                    while not (value := await page.evaluate(expression)):
                        await asyncio.sleep(0.05)
                return value

            async with asyncio.timeout(240):
                while True:
                    s = await until(_READ)
                    if s["holding"]:
                        break
                    if s["turn"] and s["turn"]["kind"] == "call":
                        # the bidding box: a button for each call, only the legal ones enabled
                        assert len(s["all"]) == 38 and sorted(s["enabled"]) == sorted(s["legalCalls"])
                        if "bidding" not in shots:
                            shots["bidding"] = await page.screenshot(tmp_path / "play-web-bidding.png")
                            if s["calls"]:  # a robot's call, explained on hover
                                await page.evaluate("document.querySelector('#auction td[data-index=\"0\"]')"
                                                    ".dispatchEvent(new MouseEvent('mouseenter'))")
                                explained = await page.text("explain")
                        await page.evaluate("document.querySelector('#bidding-box button[data-call=\"P\"]').click()")
                        await until(f"!last.turn || last.calls.length > {s['calls']}", 20)
                    elif s["turn"] and s["turn"]["kind"] == "card" and s["playable"]:
                        assert sorted(s["playable"]) == sorted(s["legalCards"])
                        if refused is None and s["unplayable"]:
                            # a card that may not be played: refused with the reason, nothing sent
                            bad = s["unplayable"][0]
                            await page.evaluate(f"document.querySelector('.hand.turn [data-card=\"{bad}\"]').click()")
                            message = await until("document.getElementById('message').textContent", 10)
                            after = await page.evaluate(_READ)
                            refused = (bad, message, after["cards"] == s["cards"], s["legalCards"])
                        if reloaded is None and s["cards"] >= 5:
                            # a reload mid-board: the page comes back to the same board, hands and trick
                            shots["play"] = await page.screenshot(tmp_path / "play-web-play.png")
                            await page._call("Page.reload")
                            await until("typeof last !== 'undefined' && last !== null && !!last.turn", 30)
                            again = await page.evaluate(_READ)
                            reloaded = (s, again)
                            s = again
                        card = s["legalCards"][0]
                        await page.evaluate(f"document.querySelector('.hand.turn [data-card=\"{card}\"]').click()")
                        await until(f"!last.turn || last.turn.kind !== 'card' || "
                                    f"last.tricks.length * 4 + (last.trick.complete ? 0 : last.trick.cards.length)"
                                    f" > {s['cards']}", 20)
                    else:
                        await asyncio.sleep(0.05)
            # the board over: result, running score, every hand; the review comes when the solver has it
            await until("!document.getElementById('review').classList.contains('gone') && "
                        "document.querySelectorAll('#review-play tr').length > 0", 60)
            result = await page.text("result")
            total = await page.text("total")
            hands = await page.evaluate("'NESW'.split('').map(s => [...document.querySelectorAll('#' + s + "
                                        "' [data-card]')].map(e => e.dataset.card))")
            review = json.loads(await _fetch(page, "'review/1'"))
            pbn = await _fetch(page, "document.getElementById('review-pbn').href")
            shots["review"] = await page.screenshot(tmp_path / "play-web-review.png")
            await page.evaluate("document.getElementById('next').click()")
            await until("last.status === 'ended'", 30)
    finally:
        code = await _stop(proc)
    assert code == 0
    (record,) = _stored(tmp_path / "run")
    assert record.contract is not None, "this seed's board is played, not passed out: choose another"
    # what the page said is what the table manager stored
    assert f"Result: {record.contract.text}".translate(_SYMBOLS) in result.translate(_SYMBOLS)
    assert f"{record.result} tricks" in result and f"NS {record.score_ns():+d}" in result
    you = record.score_ns()  # the person sits South
    assert f"you {you:+d}" in result and total == f"{you:+d}"
    assert [sorted(h) for h in hands] == [sorted(str(c) for c in record.deal[s]) for s in Seat]
    assert explained and "N's call" in explained and "no explanation" not in explained
    bad, message, unchanged, legal = refused
    assert unchanged and bad not in legal and ("must follow suit" in message or "not your turn" in message), message
    before, after = reloaded
    assert (after["board"], after["hands"]) == (before["board"], before["hands"])
    assert after["cards"] == before["cards"] and after["trick"] == before["trick"]
    # the review: the stored play card by card, with double dummy's count adding up to the result
    cards = [c for t in review["play"] for c in t["cards"]]
    assert [c["card"] for c in cards] == [str(c) for c in record.play]
    declaring_ns = record.contract.declarer.is_ns
    gave = sum(c["cost"] for c in cards if Seat.parse(c["seat"]).is_ns != declaring_ns)
    lost = sum(c["cost"] for c in cards if Seat.parse(c["seat"]).is_ns == declaring_ns)
    assert review["dd_start"] + gave - lost == record.result == cards[-1]["dd_after"]
    assert review["par"] is not None and review["score_ns"] == record.score_ns()
    assert f'[Deal "{record.deal.to_pbn()}"]' in pbn and '[OptimumScore "NS' in pbn
    assert (tmp_path / "run" / "reviewed.pbn").read_text().count("[Board ") == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in ("bidding", "play", "review"):
        png = shots[name].read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
        shutil.copy(shots[name], ARTIFACTS / shots[name].name)


def _http(url: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.slow
async def test_the_seat_finishes_a_board_at_the_strict_protocol_18_manager(tmp_path):
    procs: list[subprocess.Popen] = []
    play = None
    try:
        tm = subprocess.Popen([sys.executable, str(STRICT / "strict_tm.py"), "--port", "0", "--boards", "1", "--seed",
                               "5", "--out", str(tmp_path / "strict_tm.json"), "--lead-pause", "0.05",
                               "--timeout", "120"], stdout=subprocess.PIPE, text=True,
                              stderr=open(tmp_path / "strict_tm.err", "w"))
        procs.append(tm)
        line = tm.stdout.readline()
        assert "listening on" in line, line
        port = int(line.rsplit(":", 1)[1])
        teams = {"N": "Alpha", "S": "Alpha", "E": "Beta", "W": "Beta"}
        for s in "NEW":
            procs.append(subprocess.Popen([sys.executable, str(STRICT / "strict_robot.py"), "127.0.0.1", str(port), s,
                                           teams[s], "--timeout", "120"], stderr=open(tmp_path / f"{s}.err", "w")))
        play, url = await _start_play_web(tmp_path, "--connect", f"127.0.0.1:{port}", "--team", "Alpha")
        async with asyncio.timeout(120):
            while True:
                _, s = await asyncio.to_thread(_http, url, "state")
                if s["holding"] or s["status"] == "ended":
                    break
                if s["turn"] and s["turn"]["kind"] == "call":
                    assert (await asyncio.to_thread(_http, url, "call", {"call": "P"}))[0] == 200
                elif s["turn"]:
                    assert (await asyncio.to_thread(_http, url, "card", {"card": s["legal_cards"][0]}))[0] == 200
                else:
                    await asyncio.sleep(0.05)
        assert s["holding"], s["detail"]
        assert (await asyncio.to_thread(_http, url, "next", {}))[0] == 200
        assert await asyncio.to_thread(tm.wait, 30) == 0, (tmp_path / "strict_tm.err").read_text()
    finally:
        if play is not None:
            await _stop(play)
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    strict = json.loads((tmp_path / "strict_tm.json").read_text())
    assert strict["ok"], strict.get("error")
    (board,) = strict["boards"]
    assert board["board"] == 1
    # the page showed the board as the strict manager recorded it
    if board["contract"] is None:
        assert s["result"]["contract"] is None
    else:
        assert s["result"]["tricks"] == board["declarer_tricks"]
        assert s["result"]["contract"].replace("NT", "N").split(" by ")[0].rstrip("X") == \
            board["contract"].replace("NT", "N").rstrip("X")
    assert len(s["calls"]) == len(board["auction"])
    assert all(c["source"] != "table" for c in s["calls"])  # a protocol-18 manager relays no explanation


def test_bad_input_is_one_line_before_anything_starts(tmp_path):
    from typer.testing import CliRunner

    from squeeze.robot.cli import app

    for args, message in [(["--seat", "Z"], "--seat takes N, E, S or W"),
                          (["--connect", "nohost"], "--connect takes HOST:PORT"),
                          (["--protocol", "20"], "--protocol takes 18 or 19"),
                          (["--boards", "0"], "--boards takes a count"),
                          (["--partner", "nosuch"], "--partner: team 'nosuch' is neither a preset")]:
        r = CliRunner().invoke(app, ["play-web", "--out", str(tmp_path / "run"), *args])
        assert r.exit_code == 2 and message in r.output, (args, r.output)
    assert not (tmp_path / "run").exists()  # refused before any file was made


async def test_the_page_server_serves_the_page_and_refuses_what_is_not_a_move():
    from squeeze.robot.human_seat import HumanSeat
    from squeeze.robot.play_web import PlayServer, PlayState

    seat = HumanSeat("127.0.0.1", 9, Seat.SOUTH)  # never connected: no board, nothing is the person's turn
    server = PlayServer(PlayState(seat))
    port = await server.start()
    url = f"http://127.0.0.1:{port}/"
    try:
        page = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read())
        # the page and the card display it shares with watch --web, nothing from the network
        assert b"cards.js" in page and b"cards.css" in page and b"EventSource" in page
        assert not re.search(rb"""(src|href)\s*=\s*["']?(https?:)?//""", page)
        js = await asyncio.to_thread(lambda: urllib.request.urlopen(url + "cards.js", timeout=10).read())
        assert b"function fillHand" in js
        status, state = await asyncio.to_thread(_http, url, "state")
        assert status == 200 and state["status"] == "connecting" and state["turn"] is None
        status, doc = await asyncio.to_thread(_http, url, "card", {"card": "SA"})
        assert status == 409 and "not your turn" in doc["error"]
        status, doc = await asyncio.to_thread(_http, url, "call", {"call": "1H"})
        assert status == 409 and "not your turn" in doc["error"]
        assert (await asyncio.to_thread(_http, url, "review/3"))[0] == 404
        req = urllib.request.Request(url + "call", data=b"[1", method="POST")
        with pytest.raises(urllib.error.HTTPError) as bad:
            await asyncio.to_thread(lambda: urllib.request.urlopen(req, timeout=10))
        assert bad.value.code == 400
    finally:
        await server.close()
