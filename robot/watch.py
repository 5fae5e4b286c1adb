"""``squeeze watch``: follow live tables from their events (``robot.events``), in a terminal or a browser.

``WatchState`` folds the event stream into one ``TableView`` per table: the board, the auction with its alerts and
explanations, the cards and tricks, the hands once published, the result and the table's summary. Redelivered
events (a ``seq`` already seen) are ignored and gaps (dropped events) counted; a watcher that joins mid-board starts
from what it sees. Both views read the same state:

- the terminal (``render``): a rich ``Live`` view of one or all tables - diagram, auction, tricks, score;
- the browser (``WebServer``): one page (``watch.html``, package data: no build step, nothing fetched from the
  network) that shows one table and follows it by server-sent events; each message is the whole state as JSON
  (``WatchState.to_dict``), so a page that reconnects is complete at once. Standard library HTTP only.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Optional

import structlog
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.cards import BridgeError, Deal, Seat, Suit, dealer_for_board, vul_for_board

from squeeze.config.settings import MqttSettings

from .events import (
    BoardEvent, CallEvent, CardEvent, DealEvent, Event, IncidentEvent, ResultEvent, SummaryEvent, TrickEvent,
    subscribe,
)

__all__ = ["TableView", "WatchState", "render", "render_table", "contract_text", "WebServer", "page_html",
           "watch_events", "run_watch"]

_log = structlog.get_logger("squeeze.watch")

_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_ORDER = "WNES"  # auction columns, as printed in bridge columns


def contract_text(contract: Optional[str]) -> str:
    """``3NXS`` (the events' form) as ``3NTX by S``; ``None`` (no contract) as ``Passed out``."""
    if contract is None:
        return "Passed out"
    c = Contract.parse(contract)
    return f"{c.pbn} by {c.declarer.letter}" if c.declarer is not None else c.pbn


@dataclass
class TableView:
    """What a watcher knows of one table."""

    event: str
    table: str
    board: int = 0
    dealer: str = "N"
    vul: str = "None"
    players: dict[str, str] = field(default_factory=dict)
    room: str = ""
    calls: list[CallEvent] = field(default_factory=list)
    cards: list[CardEvent] = field(default_factory=list)
    tricks: list[TrickEvent] = field(default_factory=list)
    deal: Optional[str] = None
    result: Optional[ResultEvent] = None
    summary: Optional[SummaryEvent] = None
    incidents: list[IncidentEvent] = field(default_factory=list)  #: the director's: clock overruns, forced lines
    last_seq: int = 0
    gaps: int = 0  #: events never seen (dropped by the publisher, or lost at QoS 0)
    updated: float = 0.0  #: monotonic time of the last change

    def _new_board(self, board: int, dealer: str, vul: str) -> None:
        self.board, self.dealer, self.vul = board, dealer, vul
        self.calls, self.cards, self.tricks = [], [], []
        self.deal, self.result = None, None

    def apply(self, ev: Event) -> bool:
        """Fold ``ev`` in; ``False`` when it changes nothing (a redelivery)."""
        if ev.seq and ev.seq <= self.last_seq and not (isinstance(ev, BoardEvent) and ev.seq == 1):
            return False  # seen already (QoS 1 may deliver twice); seq 1 again is a publisher that restarted
        if ev.seq and self.last_seq and ev.seq > self.last_seq + 1 and not isinstance(ev, SummaryEvent):
            self.gaps += ev.seq - self.last_seq - 1
        if ev.seq:
            self.last_seq = ev.seq
        if isinstance(ev, IncidentEvent):  # (of a board that may be over: it never starts one)
            self.incidents = (self.incidents + [ev])[-20:]
            self.updated = time.monotonic()
            return True
        if isinstance(ev, SummaryEvent):  # retained: it may be older than the board in progress
            self.summary = ev
            self.updated = time.monotonic()
            return True
        if isinstance(ev, BoardEvent):
            self._new_board(ev.board, ev.dealer, ev.vul)
            self.players, self.room = dict(ev.players), ev.room
        elif ev.board != self.board:  # joined mid-board: the number tells dealer and vulnerability
            self._new_board(ev.board, dealer_for_board(ev.board).letter, vul_for_board(ev.board).pbn)
        if isinstance(ev, CallEvent):
            if ev.index != len(self.calls):
                return False  # a call out of sequence is a duplicate or from before we joined
            self.calls.append(ev)
        elif isinstance(ev, CardEvent):
            if ev.index != len(self.cards):
                return False
            self.cards.append(ev)
        elif isinstance(ev, TrickEvent):
            if ev.trick != len(self.tricks) + 1:
                return False
            self.tricks.append(ev)
        elif isinstance(ev, DealEvent):
            self.deal = ev.deal
        elif isinstance(ev, ResultEvent):
            self.result = ev
        self.updated = time.monotonic()
        return True

    # --- derived facts ---------------------------------------------------------------------------------------
    def auction(self) -> Optional[Auction]:
        try:
            return Auction(Seat.parse(self.dealer), [Call.parse(c.call) for c in self.calls])
        except BridgeError:  # calls seen from the middle of an auction: no legal auction to show
            return None

    def contract(self) -> Optional[str]:
        """The contract once the auction is over, as people write it (``3NTX by S``, ``Passed out``), else
        ``None``."""
        if self.result is not None:
            return contract_text(self.result.contract)
        a = self.auction()
        if a is None or not a.is_complete:
            return None
        return contract_text(None if a.contract is None else str(a.contract))

    def tricks_won(self) -> tuple[int, int]:
        return (self.tricks[-1].tricks_ns, self.tricks[-1].tricks_ew) if self.tricks else (0, 0)

    def hands(self) -> Optional[dict[str, dict[str, str]]]:
        if self.deal is None:
            return None
        d = Deal.parse(self.deal)
        out = {}
        for seat in Seat:
            parts = str(d[seat]).split(".")
            out[seat.letter] = {s.letter: parts[i] for i, s in enumerate(_SUITS)}
        return out

    def current_trick(self) -> list[CardEvent]:
        n = len(self.cards) % 4
        return self.cards[len(self.cards) - n:] if n else []

    def to_dict(self) -> dict[str, Any]:
        ns, ew = self.tricks_won()
        return {
            "key": f"{self.event}/{self.table}", "event": self.event, "table": self.table, "board": self.board,
            "dealer": self.dealer, "vul": self.vul, "players": self.players, "room": self.room,
            "calls": [{"seat": c.seat, "call": c.call, "alert": c.alert, "explanation": c.explanation}
                      for c in self.calls],
            "cards": [{"seat": c.seat, "card": c.card, "trick": c.trick, "reason": c.reason} for c in self.cards],
            "tricks": [{"trick": t.trick, "leader": t.leader, "cards": t.cards, "winner": t.winner}
                       for t in self.tricks],
            "tricks_ns": ns, "tricks_ew": ew, "contract": self.contract(), "hands": self.hands(),
            "result": None if self.result is None else {"contract": self.result.contract, "tricks": self.result.tricks,
                                                        "score_ns": self.result.score_ns},
            "summary": None if self.summary is None else {"boards": self.summary.boards,
                                                          "score_ns": self.summary.score_ns,
                                                          "imps": self.summary.imps,
                                                          "compared": self.summary.compared},
            "gaps": self.gaps,
        }


class WatchState:
    """Every table seen, by (event, table), and the broker's state. With ``table`` / ``event``, only those: the
    topic filter already says so, but amqtt 0.12 also hands a new client the retained messages of every filter
    any client subscribed to."""

    def __init__(self, *, table: Optional[str] = None, event: Optional[str] = None) -> None:
        self.only = (table, event)
        self.tables: dict[tuple[str, str], TableView] = {}
        self.events = 0
        self.connected = False
        self.detail = "connecting"
        self.version = 0  #: bumped at each change (the web view sends a new state when it moves)

    def apply(self, ev: Event) -> bool:
        table, event = self.only
        if (table is not None and ev.table != table) or (event is not None and ev.event != event):
            return False
        key = (ev.event, ev.table)
        view = self.tables.get(key)
        if view is None:
            view = self.tables[key] = TableView(ev.event, ev.table)
        self.events += 1
        changed = view.apply(ev)
        if changed:
            self.version += 1
        return changed

    def set_connection(self, connected: bool, detail: str) -> None:
        self.connected, self.detail = connected, detail
        self.version += 1

    def to_dict(self) -> dict[str, Any]:
        views = sorted(self.tables.values(), key=lambda v: -v.updated)  # the liveliest first
        return {"connected": self.connected, "detail": self.detail, "events": self.events,
                "tables": [v.to_dict() for v in views]}


# --- the terminal ---------------------------------------------------------------------------------------------


def _hand_text(hand: Optional[dict[str, str]], name: str, seat: str) -> Text:
    t = Text(f"{seat} {name}\n" if name else f"{seat}\n", style="bold")
    if hand is None:
        return t
    for s in "SHDC":
        t.append(f"{_SYMBOL[s]} ", style="red" if s in "HD" else "")
        t.append((hand[s] or "-") + "\n")
    return t


def _diagram(v: TableView) -> Table:
    hands = v.hands()
    grid = Table.grid(padding=(0, 2))
    for _ in range(3):
        grid.add_column(min_width=14)

    def h(seat: str) -> Text:
        return _hand_text(None if hands is None else hands[seat], v.players.get(seat, ""), seat)

    trick = v.current_trick() or (v.cards[-4:] if len(v.cards) >= 4 and not v.result else [])
    middle = Text()
    if hands is None:
        middle.append("hands after the board\n", style="dim")
    for c in trick:
        middle.append(f"{c.seat}: {_SYMBOL[c.card[0]]}{c.card[1:]}  ")
    grid.add_row(Text(), h("N"), Text())
    grid.add_row(h("W"), middle, h("E"))
    grid.add_row(Text(), h("S"), Text())
    return grid


def _auction(v: TableView) -> tuple[Table, list[str]]:
    grid = Table(box=None, padding=(0, 2), show_edge=False)
    for s in _ORDER:
        grid.add_column(s, justify="left")
    cells: list[Text] = [Text("") for _ in range(_ORDER.index(v.dealer))]
    notes = []
    for c in v.calls:
        text = c.call.replace("N", "NT") if len(c.call) == 2 and c.call[0].isdigit() and c.call[1] == "N" else c.call
        if c.alert or c.explanation:
            notes.append(f"{len(notes) + 1}. {text}{'!' if c.alert else ''} {c.explanation}".rstrip())
            text += f"{'!' if c.alert else ''}{len(notes)}"
        cells.append(Text(text, style="bold red" if c.alert else ""))
    for i in range(0, len(cells), 4):
        row = cells[i:i + 4]
        grid.add_row(*(row + [Text("")] * (4 - len(row))))
    return grid, notes


def render_table(v: TableView) -> Panel:
    """One table: diagram, auction (alerts marked ``!`` and numbered, explanations below), tricks, result."""
    auction, notes = _auction(v)
    ns, ew = v.tricks_won()
    lines = Text()
    contract = v.contract()
    lines.append(f"Contract: {contract or '(bidding)'}", style="bold")
    lines.append(f"   Tricks: NS {ns}  EW {ew}\n")
    if v.result is not None:
        r = v.result
        lines.append(f"Result: {contract_text(r.contract)}"
                     + (f", {r.tricks} tricks" if r.tricks is not None else "")
                     + f", NS {r.score_ns:+d}\n", style="green")
    for t in v.tricks[-3:]:
        lines.append(f"trick {t.trick}: {t.leader} " + " ".join(_SYMBOL[c[0]] + c[1:] for c in t.cards)
                     + f"  → {t.winner}\n", style="dim")
    if v.summary is not None:
        s = v.summary
        lines.append(f"Table: {s.boards} boards, NS {s.score_ns:+d}"
                     + (f", IMPs {s.imps:+d} over {s.compared}" if s.imps is not None else "") + "\n")
    for inc in v.incidents[-3:]:
        lines.append(f"board {inc.board}, {inc.incident}: {inc.detail}\n", style="red")
    if v.gaps:
        lines.append(f"{v.gaps} events missed\n", style="yellow")
    parts: list[RenderableType] = [_diagram(v), auction]
    if notes:
        parts.append(Text("\n".join(notes), style="italic"))
    parts.append(lines)
    title = f"{v.table} · {v.event or '-'} · board {v.board or '?'} · dealer {v.dealer} · vul {v.vul}"
    return Panel(Group(*parts), title=title, title_align="left")


def render(state: WatchState, table: Optional[str] = None) -> RenderableType:
    """Every table (or only ``table``), the liveliest first, under a line saying how the broker is."""
    status = Text(("connected to " if state.connected else "waiting for the broker: ") + state.detail
                  + f" · {state.events} events", style="green" if state.connected else "yellow")
    views = [v for v in sorted(state.tables.values(), key=lambda v: -v.updated) if table in (None, v.table)]
    if not views:
        return Group(status, Text("no table yet", style="dim"))
    return Group(status, *(render_table(v) for v in views))


# --- the browser ----------------------------------------------------------------------------------------------


def page_html() -> bytes:
    """The page (package data ``watch.html``): HTML, CSS and script in one file."""
    return resources.files("squeeze.robot").joinpath("watch.html").read_bytes()


class WebServer:
    """A small HTTP/1.1 server for one page: ``GET /`` the page, ``GET /state`` the state as JSON, ``GET /events``
    the state again at each change (server-sent events, a comment every 15 s to keep proxies from closing it)."""

    MAX_REQUEST = 8192  # a request line and headers longer than this is not a browser's: refused

    def __init__(self, state: WatchState, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.host = host
        self.port = port
        self._changed = asyncio.Condition()
        self._server: Optional[asyncio.base_events.Server] = None
        self._clients: set[asyncio.Task] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def changed(self) -> None:
        """Tell the event streams the state moved."""
        async with self._changed:
            self._changed.notify_all()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._clients):
            t.cancel()
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._clients.add(task)
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
                return
            if len(head) > self.MAX_REQUEST:
                await self._reply(writer, 431, b"request too large\n", "text/plain")
                return
            parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            if len(parts) != 3 or not parts[2].startswith("HTTP/"):
                await self._reply(writer, 400, b"bad request\n", "text/plain")
                return
            method, target = parts[0], parts[1].split("?", 1)[0]
            if method != "GET":
                await self._reply(writer, 405, b"only GET\n", "text/plain", extra="Allow: GET\r\n")
            elif target == "/":
                await self._reply(writer, 200, page_html(), "text/html; charset=utf-8")
            elif target == "/state":
                await self._reply(writer, 200, json.dumps(self.state.to_dict()).encode(), "application/json")
            elif target == "/events":
                await self._stream(writer)
            else:
                await self._reply(writer, 404, b"not found\n", "text/plain")
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            if task is not None:
                self._clients.discard(task)
            writer.close()

    @staticmethod
    async def _reply(writer: asyncio.StreamWriter, status: int, body: bytes, ctype: str, extra: str = "") -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                  431: "Request Header Fields Too Large"}[status]
        writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                     f"Cache-Control: no-store\r\nConnection: close\r\n{extra}\r\n".encode("latin-1") + body)
        await writer.drain()

    async def _stream(self, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                     b"Connection: close\r\n\r\n")
        sent = -1
        while True:
            if self.state.version != sent:
                sent = self.state.version  # only the latest state goes out: a slow page skips, never queues
                writer.write(b"data: " + json.dumps(self.state.to_dict()).encode() + b"\n\n")
            else:
                writer.write(b": keep-alive\n\n")
            await writer.drain()
            async with self._changed:
                try:
                    await asyncio.wait_for(self._changed.wait(), 15)
                except asyncio.TimeoutError:
                    pass


async def watch_events(state: WatchState, source, on_change) -> None:
    """Fold every event of ``source`` (an async iterator of events) into ``state``; ``await on_change()`` after
    each one that changed something."""
    async for ev in source:
        if state.apply(ev):
            await on_change()


async def run_watch(settings: MqttSettings, topic_filter: str, *, table: Optional[str] = None,
                    event: Optional[str] = None, web: Optional[int] = None, web_host: str = "127.0.0.1",
                    console: Optional[Console] = None) -> None:
    """``squeeze watch``: subscribe to ``topic_filter`` on the broker of ``settings`` and show the tables (only
    ``table`` / ``event`` if given) - in the terminal (rich ``Live``, full screen), or with ``web`` (a port) as a
    page served on ``web_host``; for ever."""
    state = WatchState(table=table, event=event)
    state.detail = f"mqtt://{settings.host}:{settings.port}"
    if web is not None:
        server = WebServer(state, web_host, web)
        port = await server.start()
        print(f"squeeze watch: http://{web_host}:{port}/ (events from mqtt://{settings.host}:{settings.port}, "
              f"{topic_filter})", flush=True)
        loop = asyncio.get_running_loop()

        def on_state(connected: bool, detail: str) -> None:
            state.set_connection(connected, detail)
            loop.create_task(server.changed())

        try:
            await watch_events(state, subscribe(settings.host, settings.port, topic_filter, settings=settings,
                                                on_state=on_state), server.changed)
        finally:
            await server.close()
        return
    with Live(render(state, table), console=console, screen=True, refresh_per_second=8) as live:
        def on_state_terminal(connected: bool, detail: str) -> None:
            state.set_connection(connected, detail)
            live.update(render(state, table))

        async def on_change() -> None:
            live.update(render(state, table))

        await watch_events(state, subscribe(settings.host, settings.port, topic_filter, settings=settings,
                                            on_state=on_state_terminal), on_change)
