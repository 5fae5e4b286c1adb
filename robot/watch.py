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
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import structlog
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat, Suit, dealer_for_board, vul_for_board

from squeeze.config.settings import MqttSettings

from .pages import PageServer, package_page
from .events import (
    RETAINED, BoardEvent, CallEvent, CardEvent, DealEvent, DummyEvent, Event, IncidentEvent, ResultEvent,
    SummaryEvent, TrickEvent, subscribe,
)

__all__ = ["TableView", "WatchState", "render", "render_table", "contract_text", "call_text", "WebServer",
           "page_html", "watch_events", "run_watch", "FINISHED_LINGER_SECONDS", "IDLE_LINGER_SECONDS"]

_log = structlog.get_logger("squeeze.watch")

_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_ORDER = "WNES"  # auction columns, as printed in bridge columns


def outcome_text(contract: Optional[str], tricks: Optional[int]) -> str:
    """Declarer's tricks against the contract as players say it: ``made``, ``made +1``, ``down 2`` (``""`` for a
    passed-out board or unknown tricks)."""
    if contract is None or tricks is None:
        return ""
    c = Contract.parse(contract)
    over = tricks - c.tricks_needed
    return "made" if over == 0 else f"made +{over}" if over > 0 else f"down {-over}"


def contract_text(contract: Optional[str]) -> str:
    """``3NXS`` (the events' form) as ``3NTX by S``; ``None`` (no contract) as ``Passed out``."""
    if contract is None:
        return "Passed out"
    c = Contract.parse(contract)
    return f"{c.pbn} by {c.declarer.letter}" if c.declarer is not None else c.pbn


#: How long a table stays on view after its last event once its board is over (a finished session drops off), and
#: how long a board in progress stays without any event (a table manager that died mid-board).
FINISHED_LINGER_SECONDS = 120.0
IDLE_LINGER_SECONDS = 900.0
_FORGET_SECONDS = 3600.0  # a table not heard of for this long is forgotten altogether

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


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
    cards: list[CardEvent] = field(default_factory=list)  #: contiguous, from ``cards[0].index`` (0 unless joined late)
    tricks: list[TrickEvent] = field(default_factory=list)  #: contiguous, from ``tricks[0].trick``
    dummy: Optional[DummyEvent] = None  #: dummy's hand once down (the latest of the board)
    deal: Optional[str] = None
    result: Optional[ResultEvent] = None
    summary: Optional[SummaryEvent] = None
    incidents: list[IncidentEvent] = field(default_factory=list)  #: the director's: clock overruns, forced lines
    last_seq: int = 0
    gaps: int = 0  #: events never seen (dropped by the publisher, or lost at QoS 0)
    updated: float = 0.0  #: monotonic time of the last change
    heard: float = 0.0  #: the publisher's time (Unix seconds) of the newest event: how fresh the table is
    _held: Optional[DummyEvent] = field(default=None, repr=False)  #: a kept dummy of a board not (yet) on view

    def _new_board(self, board: int, dealer: str, vul: str) -> None:
        self.board, self.dealer, self.vul = board, dealer, vul
        self.calls, self.cards, self.tricks = [], [], []
        self.deal, self.result, self.dummy = None, None, None

    def apply(self, ev: Event) -> bool:
        """Fold ``ev`` in; ``False`` when it changes nothing (a redelivery)."""
        if ev.kind in RETAINED:
            return self._apply_kept(ev)
        if ev.seq and ev.seq <= self.last_seq and not (isinstance(ev, BoardEvent) and ev.seq == 1):
            return False  # seen already (QoS 1 may deliver twice); seq 1 again is a publisher that restarted
        if ev.seq and self.last_seq and ev.seq > self.last_seq + 1:
            self.gaps += ev.seq - self.last_seq - 1
        if ev.seq:
            self.last_seq = ev.seq
        self.heard = max(self.heard, ev.time)
        if isinstance(ev, IncidentEvent):  # (of a board that may be over: it never starts one)
            self.incidents = (self.incidents + [ev])[-20:]
            self.updated = time.monotonic()
            return True
        if isinstance(ev, BoardEvent):
            self._new_board(ev.board, ev.dealer, ev.vul)
            self.players, self.room = dict(ev.players), ev.room
            self._held = None  # a board (re)starts: an earlier attempt's dummy is void
        elif ev.board != self.board:  # joined mid-board: the number tells dealer and vulnerability
            self._new_board(ev.board, dealer_for_board(ev.board).letter, vul_for_board(ev.board).pbn)
        if isinstance(ev, CallEvent):
            if ev.index != len(self.calls):
                return False  # a call out of sequence is a duplicate or from before we joined
            self.calls.append(ev)
        elif isinstance(ev, CardEvent):
            # joined during the play: the cards start where we came in (the trick in progress may be partial)
            if self.cards and ev.index != self.cards[-1].index + 1:
                return False
            self.cards.append(ev)
        elif isinstance(ev, TrickEvent):
            if self.tricks and ev.trick != self.tricks[-1].trick + 1:
                return False
            self.tricks.append(ev)
        elif isinstance(ev, DealEvent):
            self.deal = ev.deal
        elif isinstance(ev, ResultEvent):
            self.result = ev
        if self._held is not None and self._held.board == self.board and self.cards:
            self.dummy, self._held = self._held, None  # dummy kept by the broker, for the board we now follow
        self.updated = time.monotonic()
        return True

    def _apply_kept(self, ev: Event) -> bool:
        """A kind the broker keeps (summary, dummy): it may be a copy of one seen, or older than what is on view,
        so it is applied by what it says, never by its ``seq`` (which only moves on when it is the next one)."""
        if ev.seq and ev.seq == self.last_seq + 1:
            self.last_seq = ev.seq  # the live one, in order: no gap
        if isinstance(ev, SummaryEvent):
            if self.summary is not None and (ev == self.summary or ev.time < self.summary.time):
                return False
            self.summary = ev
        elif isinstance(ev, DummyEvent):
            if ev.board != self.board or not self.cards or self.result is not None:
                self._held = ev  # not the board in play here (yet): used if its cards follow
                return False
            if self.dummy is not None and (ev == self.dummy or ev.time < self.dummy.time):
                return False
            self.dummy = ev
        self.heard = max(self.heard, ev.time)
        self.updated = time.monotonic()
        return True

    # --- derived facts ---------------------------------------------------------------------------------------
    def auction(self) -> Optional[Auction]:
        try:
            return Auction(Seat.parse(self.dealer), [Call.parse(c.call) for c in self.calls])
        except BridgeError:  # calls seen from the middle of an auction: no legal auction to show
            return None

    def contract_code(self) -> Optional[str]:
        """The contract in the events' form (``4HXE``) once known: from the result, the finished auction, or
        dummy's event (a watcher who joined during the play); ``None`` also for a passed-out board."""
        if self.result is not None:
            return self.result.contract
        a = self.auction()
        if a is not None and a.is_complete:
            return None if a.contract is None else str(a.contract)
        return self.dummy.contract if self.dummy is not None else None

    def contract(self) -> Optional[str]:
        """The contract once the auction is over, as people write it (``3NTX by S``, ``Passed out``), else
        ``None``."""
        if self.result is not None:
            return contract_text(self.result.contract)
        a = self.auction()
        if a is not None and a.is_complete:
            return contract_text(None if a.contract is None else str(a.contract))
        return contract_text(self.dummy.contract) if self.dummy is not None else None

    def stage(self) -> str:
        """``bidding``, ``play``, ``over`` (the result is in), or ``waiting`` (no board seen yet)."""
        if self.result is not None:
            return "over"
        if self.cards or self.tricks or self.dummy is not None:
            return "play"
        return "bidding" if self.board else "waiting"

    def contract_line(self) -> str:
        """What the contract line says: the contract, or why it is not known."""
        c = self.contract()
        if c is not None:
            return c
        if self.stage() == "play":
            return "not seen (joined during play)"
        return "(bidding)" if self.calls or self.board else "-"

    def declarer(self) -> Optional[Seat]:
        code = self.contract_code()
        c = None if code is None else Contract.parse(code)
        return None if c is None else c.declarer

    def tricks_won(self) -> tuple[int, int]:
        return (self.tricks[-1].tricks_ns, self.tricks[-1].tricks_ew) if self.tricks else (0, 0)

    def hands(self) -> Optional[dict[str, dict[str, str]]]:
        """The four hands as dealt, once the deal is out (``None`` before)."""
        if self.deal is None:
            return None
        return {seat.letter: _suits(hand) for seat, hand in zip(Seat, Deal.parse(self.deal))}

    def shown_hands(self) -> dict[str, Optional[dict[str, str]]]:
        """What a spectator may see of each hand now: the cards still held, played ones gone (dummy's once down,
        all four once the deal is out during the play), and all four as dealt once the board is over; ``None`` for
        a hand not shown."""
        out: dict[str, Optional[dict[str, str]]] = {s.letter: None for s in Seat}
        if self.deal is not None:
            deal = Deal.parse(self.deal)
            if self.result is not None:
                return {seat.letter: _suits(hand) for seat, hand in zip(Seat, deal)}
            gone = {Card.parse(c.card) for c in self.cards} | {Card.parse(x) for t in self.tricks for x in t.cards}
            for seat, hand in zip(Seat, deal):
                out[seat.letter] = _suits(hand - Hand.from_cards(gone & set(hand)))
            return out
        if self.dummy is not None:
            seen = [c.card for c in self.cards if c.seat == self.dummy.seat]
            out[self.dummy.seat] = _suits(self.dummy.remaining(seen))
        return out

    def current_trick(self) -> list[CardEvent]:
        """The cards of the trick being played (those seen of it), or of the last trick until the next card."""
        if not self.cards:
            return []
        last = self.cards[-1].index
        start = last - last % 4 if (last + 1) % 4 else last - 3
        return [c for c in self.cards if c.index >= start]

    def trick_winner(self) -> Optional[str]:
        """Who won the trick ``current_trick`` shows, when it is complete."""
        trick = self.current_trick()
        if len(trick) == 4 and self.tricks and self.tricks[-1].trick == trick[0].trick:
            return self.tricks[-1].winner
        return None

    def to_dict(self) -> dict[str, Any]:
        ns, ew = self.tricks_won()
        declarer = self.declarer()
        trick = self.current_trick()
        return {
            "key": f"{self.event}/{self.table}", "event": self.event, "table": self.table, "board": self.board,
            "dealer": self.dealer, "vul": self.vul, "players": self.players, "room": self.room,
            "stage": self.stage(),
            "calls": [{"seat": c.seat, "call": c.call, "alert": c.alert, "explanation": c.explanation}
                      for c in self.calls],
            "cards": [{"index": c.index, "seat": c.seat, "card": c.card, "trick": c.trick, "reason": c.reason}
                      for c in self.cards],
            "tricks": [{"trick": t.trick, "leader": t.leader, "cards": t.cards, "winner": t.winner}
                       for t in self.tricks],
            "trick": {"number": trick[0].trick if trick else None, "complete": len(trick) == 4,
                      "winner": self.trick_winner(),
                      "cards": [{"seat": c.seat, "card": c.card, "reason": c.reason} for c in trick]},
            "tricks_ns": ns, "tricks_ew": ew, "contract": self.contract(), "contract_line": self.contract_line(),
            "contract_code": self.contract_code(),
            "declarer": None if declarer is None else declarer.letter,
            "dummy": None if declarer is None else declarer.partner.letter,
            "hands": self.hands(), "shown": self.shown_hands(),
            "result": None if self.result is None else {"contract": self.result.contract, "tricks": self.result.tricks,
                                                        "score_ns": self.result.score_ns,
                                                        "outcome": outcome_text(self.result.contract,
                                                                                self.result.tricks)},
            "summary": None if self.summary is None else {"boards": self.summary.boards,
                                                          "score_ns": self.summary.score_ns,
                                                          "imps": self.summary.imps,
                                                          "compared": self.summary.compared},
            "gaps": self.gaps,
        }

    def is_live(self, now: float) -> bool:
        """Worth a place on screen at wall-clock ``now``: a board in progress heard of in the last
        ``IDLE_LINGER_SECONDS``, or a table whose board is over heard of in the last ``FINISHED_LINGER_SECONDS``."""
        linger = IDLE_LINGER_SECONDS if self.stage() in ("bidding", "play") else FINISHED_LINGER_SECONDS
        return now - self.heard <= linger


def _suits(hand: Hand) -> dict[str, str]:
    parts = str(hand).split(".")
    return {s.letter: parts[i] for i, s in enumerate(_SUITS)}


class WatchState:
    """Every table seen, by (event, table), and the broker's state. With ``table`` / ``event``, only those: the
    topic filter already says so, but amqtt 0.12 also hands a new client the retained messages of every filter
    any client subscribed to.

    A table is *live* (``TableView.is_live``) while it plays, and for a while after its last board: the views show
    the live ones; a table not heard of for an hour is forgotten."""

    def __init__(self, *, table: Optional[str] = None, event: Optional[str] = None) -> None:
        self.only = (table, event)
        self.tables: dict[tuple[str, str], TableView] = {}
        self.events = 0
        self.connected = False
        self.detail = "connecting"
        self.version = 0  #: bumped at each change (the web view sends a new state when it moves)
        self._live: frozenset = frozenset()

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

    def live(self, now: Optional[float] = None) -> list[TableView]:
        """The live tables, the liveliest first."""
        now = time.time() if now is None else now
        return [v for v in self._by_liveliness() if v.is_live(now)]

    def finished(self, now: Optional[float] = None) -> list[TableView]:
        """The tables no longer live (kept for an hour), the latest first."""
        now = time.time() if now is None else now
        return [v for v in self._by_liveliness() if not v.is_live(now)]

    def tick(self, now: Optional[float] = None) -> bool:
        """Move tables between live and finished as time passes (and forget the long gone); ``True`` when the
        views must be redrawn."""
        now = time.time() if now is None else now
        for key, v in list(self.tables.items()):
            if now - v.heard > _FORGET_SECONDS:
                del self.tables[key]
        live = frozenset((v.event, v.table) for v in self.live(now))
        if live != self._live:
            self._live = live
            self.version += 1
            return True
        return False

    def _by_liveliness(self) -> list[TableView]:
        return sorted(self.tables.values(), key=lambda v: -v.updated)

    def to_dict(self, now: Optional[float] = None) -> dict[str, Any]:
        now = time.time() if now is None else now
        tables = [{**v.to_dict(), "live": True} for v in self.live(now)]
        tables += [{**v.to_dict(), "live": False} for v in self.finished(now)]
        return {"connected": self.connected, "detail": self.detail, "events": self.events, "tables": tables}


# --- the terminal ---------------------------------------------------------------------------------------------


def _card_text(card: str) -> Text:
    """``HT`` as ``♥T``, the red suits in red."""
    return Text(_SYMBOL[card[0]] + card[1:], style="red" if card[0] in "HD" else "")


def _contract_rich(text: str) -> Text:
    """``4HX by E`` with the strain's symbol: ``4♥X by E``."""
    out = Text()
    for i, ch in enumerate(text):
        if ch in _SYMBOL and i > 0 and text[i - 1].isdigit():
            out.append(_SYMBOL[ch], style="red" if ch in "HD" else "")
        else:
            out.append(ch)
    return out


def _hand_text(hand: Optional[dict[str, str]], name: str, seat: str, role: str = "") -> Text:
    t = Text(seat, style="bold")
    if role:
        t.append(f" {role}", style="italic")
    t.append(f" {name}\n" if name else "\n", style="dim")
    if hand is None:
        return t
    for s in "SHDC":
        t.append(f"{_SYMBOL[s]} ", style="red" if s in "HD" else "")
        t.append((hand[s] or "—") + "\n")
    return t


def _trick_grid(v: TableView) -> RenderableType:
    """The trick in progress in the middle of the table, each card at its player's side of the compass."""
    trick = {c.seat: c.card for c in v.current_trick()}
    winner = v.trick_winner()

    def cell(seat: str) -> Text:
        if seat not in trick:
            return Text("")
        t = _card_text(trick[seat])
        if seat == winner:
            t.stylize("bold underline")
        return t

    grid = Table.grid(padding=(0, 1))
    for _ in range(3):
        grid.add_column(justify="center", min_width=4)
    grid.add_row(Text(""), cell("N"), Text(""))
    grid.add_row(cell("W"), Text(""), cell("E"))
    grid.add_row(Text(""), cell("S"), Text(""))
    return grid


def _diagram(v: TableView) -> Table:
    shown = v.shown_hands()
    declarer = v.declarer()
    roles = {} if declarer is None else {declarer.letter: "declarer", declarer.partner.letter: "dummy"}
    grid = Table.grid(padding=(0, 2))
    for column in range(3):  # the trick in the middle column, level with West's and East's hands
        grid.add_column(min_width=15, vertical="middle" if column == 1 else "top")

    def h(seat: str) -> Text:
        return _hand_text(shown[seat], v.players.get(seat, ""), seat, roles.get(seat, ""))

    if any(x is not None for x in shown.values()) or v.stage() == "play":
        middle: RenderableType = _trick_grid(v)
    else:
        middle = Text("hands after the board", style="dim")
    grid.add_row(Text(), h("N"), Text())
    grid.add_row(h("W"), middle, h("E"))
    grid.add_row(Text(), h("S"), Text())
    return grid


def call_text(call: str) -> str:
    """A call as people write it in an auction (the page writes it so too): ``1N`` as ``1NT``, ``P`` as
    ``Pass``."""
    if call == "P":
        return "Pass"
    return call.replace("N", "NT") if len(call) == 2 and call[0].isdigit() and call[1] == "N" else call


def _auction(v: TableView) -> tuple[Table, list[str]]:
    grid = Table(box=None, padding=(0, 2), show_edge=False)
    for s in _ORDER:
        grid.add_column(s, justify="left")
    cells: list[Text] = [Text("") for _ in range(_ORDER.index(v.dealer))]
    notes = []
    for c in v.calls:
        text = call_text(c.call)
        mark = "!" if c.alert else ""
        if c.alert or c.explanation:
            notes.append(f"{len(notes) + 1}. {text}{mark} {c.explanation}".rstrip())
            # the note's number as a superscript: never read as part of the call (1NT¹, 2C!²)
            text += mark + str(len(notes)).translate(_SUPERSCRIPT)
        cells.append(Text(text, style="bold red" if c.alert else ""))
    for i in range(0, len(cells), 4):
        row = cells[i:i + 4]
        grid.add_row(*(row + [Text("")] * (4 - len(row))))
    return grid, notes


def render_table(v: TableView) -> Panel:
    """One table: diagram, auction (alerts marked ``!``, notes numbered in superscript and explained below),
    tricks, result, the table's running score."""
    auction, notes = _auction(v)
    ns, ew = v.tricks_won()
    lines = Text()
    lines.append("Contract: ", style="bold")
    lines.append_text(_contract_rich(v.contract_line()))
    lines.append(f"   Tricks: NS {ns}  EW {ew}\n")
    if v.result is not None:
        r = v.result
        lines.append("Result: ", style="green")
        lines.append_text(_contract_rich(contract_text(r.contract)))
        outcome = outcome_text(r.contract, r.tricks)
        lines.append((f", {r.tricks} tricks" if r.tricks is not None else "") + (f" ({outcome})" if outcome else "")
                     + f", NS {r.score_ns:+d}\n", style="green")
    for t in v.tricks[-3:]:
        lines.append(f"trick {t.trick}: {t.leader} ", style="dim")
        for c in t.cards:
            lines.append_text(_card_text(c))
            lines.append(" ")
        lines.append(f" → {t.winner}\n", style="dim")
    if v.summary is not None:
        s = v.summary
        lines.append(f"Running score: {s.boards} board{'' if s.boards == 1 else 's'}, NS {s.score_ns:+d}"
                     + (f", IMPs {s.imps:+d} over {s.compared}" if s.imps is not None else "") + "\n")
    for inc in v.incidents[-3:]:
        lines.append(f"board {inc.board}, {inc.incident}: {inc.detail}\n", style="red")
    if v.gaps:
        lines.append(f"{v.gaps} events missed\n", style="yellow")
    parts: list[RenderableType] = [_diagram(v), auction]
    if not v.calls and v.stage() == "play":
        parts.append(Text("(the auction was before we joined)", style="dim"))
    if notes:
        parts.append(Text("\n".join(notes), style="italic"))
    parts.append(lines)
    title = f"{v.table} · {v.event or '-'} · board {v.board or '?'} · dealer {v.dealer} · vul {v.vul}"
    return Panel(Group(*parts), title=title, title_align="left", expand=False)


def render(state: WatchState, table: Optional[str] = None, now: Optional[float] = None) -> RenderableType:
    """Every live table (or only ``table``), the liveliest first, under a line saying how the broker is; tables
    whose session is over drop off after a while, named on one line."""
    status = Text(("connected to " if state.connected else "") + state.detail + f" · {state.events} events",
                  style="green" if state.connected else "yellow")
    views = [v for v in state.live(now) if table in (None, v.table)]
    done = [v for v in state.finished(now) if table in (None, v.table)]
    parts: list[RenderableType] = [status]
    if not views:
        parts.append(Text("no table playing now", style="dim"))
    if views:
        parts.append(Columns([render_table(v) for v in views]))  # side by side when the terminal is wide enough
    if done:
        parts.append(Text("finished: " + " · ".join(
            f"{v.table} board {v.board}" + (f" NS {v.summary.score_ns:+d}" if v.summary is not None else "")
            for v in done[:8]), style="dim"))
    return Group(*parts)


# --- the browser ----------------------------------------------------------------------------------------------


def page_html() -> bytes:
    """The page (package data ``watch.html``): HTML, CSS and script in one file, with the card display it shares
    with ``squeeze play-web`` (``pages.CARD_ASSETS``) served beside it."""
    return package_page("watch.html")


class WebServer(PageServer):
    """``squeeze watch --web``: the page and the watch's state (``robot.pages``; ``GET`` only)."""

    def __init__(self, state: WatchState, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(state, page_html, host, port)

    async def changed(self) -> None:
        """Tell the event streams the state moved."""
        await self.notify()


async def watch_events(state: WatchState, source, on_change) -> None:
    """Fold every event of ``source`` (an async iterator of events) into ``state``; ``await on_change()`` after
    each one that changed something."""
    async for ev in source:
        if state.apply(ev):
            await on_change()


#: Seconds without a broker before the views say there is none (a connection refused says so at once).
NO_BROKER_AFTER_SECONDS = 3.0


def _why(detail: str) -> str:
    """An MQTT client's error without its errno prefix: ``[Errno 111] Connection refused`` as ``Connection
    refused``."""
    text = detail.strip()
    if text.startswith("[Errno") and "]" in text:
        text = text.split("]", 1)[1].strip()
    return text or "no answer"


class _BrokerStatus:
    """The broker's state for the views: ``connected to mqtt://HOST:PORT``, or ``no broker at HOST:PORT (why),
    retrying`` - at once when a connection fails, after ``NO_BROKER_AFTER_SECONDS`` when it hangs. ``say`` is told
    each change (the web mode prints it: its terminal shows nothing else)."""

    def __init__(self, state: WatchState, host: str, port: int, say=None) -> None:
        self.state, self.address, self.say = state, f"{host}:{port}", say
        state.set_connection(False, f"connecting to mqtt://{self.address}")
        self._last = ""

    def __call__(self, connected: bool, detail: str) -> None:
        if connected:
            self._set(True, f"mqtt://{self.address}")
        else:
            self._set(False, f"no broker at {self.address} ({_why(detail)}), retrying")

    async def watchdog(self, on_change) -> None:
        await asyncio.sleep(NO_BROKER_AFTER_SECONDS)
        if not self.state.connected and self.state.detail.startswith("connecting"):
            self._set(False, f"no broker at {self.address} (no answer after {NO_BROKER_AFTER_SECONDS:g} s), "
                             "retrying")
            await on_change()

    def _set(self, connected: bool, detail: str) -> None:
        self.state.set_connection(connected, detail)
        line = ("connected to " if connected else "") + detail
        if self.say is not None and line != self._last:
            self.say(line)
        self._last = line


async def _every_second(state: WatchState, on_change) -> None:
    """Redraw when time alone changes the views (a finished table dropping off)."""
    while True:
        await asyncio.sleep(1.0)
        if state.tick():
            await on_change()


async def run_watch(settings: MqttSettings, topic_filter: str, *, table: Optional[str] = None,
                    event: Optional[str] = None, web: Optional[int] = None, web_host: str = "127.0.0.1",
                    console: Optional[Console] = None) -> None:
    """``squeeze watch``: subscribe to ``topic_filter`` on the broker of ``settings`` and show the tables (only
    ``table`` / ``event`` if given) - in the terminal (rich ``Live``, full screen), or with ``web`` (a port) as a
    page served on ``web_host``; for ever. A missing broker is said (``no broker at HOST:PORT, retrying``) and
    tried again until it answers."""
    state = WatchState(table=table, event=event)
    if web is not None:
        server = WebServer(state, web_host, web)
        port = await server.start()
        print(f"squeeze watch: http://{web_host}:{port}/ (events from mqtt://{settings.host}:{settings.port}, "
              f"{topic_filter})", flush=True)
        loop = asyncio.get_running_loop()
        status = _BrokerStatus(state, settings.host, settings.port,
                               say=lambda line: print(f"squeeze watch: {line}", file=sys.stderr, flush=True))

        def on_state(connected: bool, detail: str) -> None:
            status(connected, detail)
            loop.create_task(server.changed())

        helpers = [asyncio.create_task(status.watchdog(server.changed)),
                   asyncio.create_task(_every_second(state, server.changed))]
        try:
            await watch_events(state, subscribe(settings.host, settings.port, topic_filter, settings=settings,
                                                on_state=on_state), server.changed)
        finally:
            for t in helpers:
                t.cancel()
            await server.close()
        return
    status = _BrokerStatus(state, settings.host, settings.port)
    with Live(render(state, table), console=console, screen=True, refresh_per_second=8) as live:
        async def on_change() -> None:
            live.update(render(state, table))

        def on_state_terminal(connected: bool, detail: str) -> None:
            status(connected, detail)
            live.update(render(state, table))

        helpers = [asyncio.create_task(status.watchdog(on_change)),
                   asyncio.create_task(_every_second(state, on_change))]
        try:
            await watch_events(state, subscribe(settings.host, settings.port, topic_filter, settings=settings,
                                                on_state=on_state_terminal), on_change)
        finally:
            for t in helpers:
                t.cancel()
