"""Scripted random-legal clients for table-manager tests and ``bench/tm.py``: raw TCP sockets, four dialects.

A ``ScriptedClient`` plays one seat over a real socket. ``protocol.ClientMachine`` tells it which line comes next;
the client answers every call and card request with a random legal call or card, chosen from a seed, the board and
the number of calls or cards so far, so a board replayed from the start (or continued after a drop) gets the very
same calls and cards: the result of an interrupted board can be compared with an uninterrupted one.

Dialects (research note 1.13), applied to every line the client sends:

- ``bluechip``: canonical protocol 18, CR LF;
- ``wbridge5``: ``ANYPL`` at connect, upper-case seat names, lower-case cards, ``ready for  X's`` (two spaces);
- ``ben``: LF line ends, and ``dummy's card`` for dummy;
- ``js``: ``10C`` for the ten, the seat's name for dummy's card, version ``18`` followed by system information.

``kill_when(event, client) -> bool`` aborts the socket (a TCP reset, like a killed process) right after the event
it accepts; ``resume()`` continues on a new socket with the lines the table had not answered (JobScheffers-style)
and ``rejoin()`` starts again with ``Connecting`` on a fresh machine (the table restarts the board).
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
from typing import Callable, Optional

from squeeze.engine.cards import Seat
from squeeze.protocol.client import (
    BoardComplete, CallRequested, CardRequested, ClientEvent, ClientMachine, SeatAssigned, SessionEnded, TableError,
)
from squeeze.protocol.errors import ProtocolError
from squeeze.protocol.framing import LineBuffer

#: In seat order N, E, S, W for ``four_clients``: WBridge5 connects as ANYPL, so it takes the seat left over (West).
DIALECTS = ("bluechip", "ben", "js", "wbridge5")

_CARD = re.compile(r"(plays )([2-9TJQKA])([SHDC])")


def dialect_line(line: str, dialect: str) -> bytes:
    """``line`` (canonical, CR LF) as a peer of ``dialect`` would send it."""
    text = line.rstrip("\r\n")
    end = "\r\n"
    if dialect == "wbridge5":
        first, _, rest = text.partition(" ")
        if first.lower() in ("north", "east", "south", "west"):
            text = first.upper() + " " + rest.replace("ready for ", "ready for  ")
        text = _CARD.sub(lambda mt: mt[1] + (mt[2] + mt[3]).lower(), text)
    elif dialect == "ben":
        end = "\n"
    elif dialect == "js":
        text = _CARD.sub(lambda mt: mt[1] + ("10" if mt[2] == "T" else mt[2]) + mt[3], text)
        if text.startswith("Connecting"):
            text += " JS test robot"
    elif dialect != "bluechip":
        raise ValueError(f"unknown dialect {dialect!r}")
    return (text + end).encode("latin-1")


class ScriptedClient:
    """One seat over TCP. ``results`` collects ``(board, contract, declarer's tricks, calls, cards)`` per board."""

    def __init__(self, port: int, team: str, seat: Optional[Seat], *, dialect: str = "bluechip", seed: int = 0,
                 host: str = "127.0.0.1", pass_rate: float = 0.7,
                 kill_when: Optional[Callable[[ClientEvent, "ScriptedClient"], bool]] = None,
                 mute_when: Optional[Callable[[ClientEvent, "ScriptedClient"], bool]] = None,
                 delay_when: Optional[Callable[[ClientEvent, "ScriptedClient"], float]] = None) -> None:
        self.port, self.team, self.host, self.dialect, self.seed = port, team, host, dialect, seed
        self.requested = None if dialect == "wbridge5" else seat
        self.pass_rate = pass_rate
        self.kill_when = kill_when
        self.mute_when = mute_when  # from the event it accepts on, the client reads but never sends again
        self.delay_when = delay_when  # seconds to think before answering the request it is given
        self.muted = False
        self.machine = self._new_machine()
        self.results: list[tuple] = []
        self.table_errors: list[str] = []  # Illegal bid/card and Error lines received
        self.errors: list[str] = []  # lines our machine rejected
        self.lines_in = 0
        self.lines_out = 0
        self._writer: Optional[asyncio.StreamWriter] = None
        self.seated = asyncio.Event()

    def _new_machine(self) -> ClientMachine:
        style = "seat" if self.dialect == "js" else "dummy"
        return ClientMachine(self.team, self.requested, dummy_card_style=style, explanations="off")

    @property
    def seat(self) -> Optional[Seat]:
        return self.machine.seat

    # --- decisions ----------------------------------------------------------------------------------------------
    def _rng(self, kind: str, step: int) -> random.Random:
        return random.Random(f"{self.seed}:{self.machine.board}:{kind}:{self.machine.seat}:{step}")

    def choose_call(self, ev: CallRequested):
        rng = self._rng("call", len(ev.auction.calls))
        legal = ev.auction.legal_calls()
        return legal[0] if rng.random() < self.pass_rate else rng.choice(legal)

    def choose_card(self, ev: CardRequested):
        return self._rng("card", len(self.machine.cards)).choice(sorted(ev.legal))

    # --- the socket ---------------------------------------------------------------------------------------------
    async def _open(self) -> asyncio.StreamReader:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._writer = writer
        return reader

    def _send(self, lines: list[str]) -> None:
        if lines and self._writer is not None and not self.muted:
            self.lines_out += len(lines)
            self._writer.write(b"".join(dialect_line(l, self.dialect) for l in lines))

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are (tests of bad input)."""
        self._writer.write(data)

    def kill(self) -> None:
        """Drop the connection abruptly (RST), as a killed process would."""
        if self._writer is not None:
            sock = self._writer.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self._writer.transport.abort()
            self._writer = None

    async def play(self) -> str:
        """Connect, say ``Connecting`` and play until the session ends: ``"ended"``, ``"refused"``, ``"killed"`` or
        ``"closed"`` (the table manager closed the socket)."""
        reader = await self._open()
        self.machine.connect()
        self._send(self.machine.lines_to_send())
        return await self._loop(reader)

    async def resume(self) -> str:
        """Continue on a new socket where the old one broke: resend what the table has not answered (with nothing
        to resend the table would not know who we are: say ``Connecting`` again, see ``rejoin``)."""
        if not self.machine.unanswered_lines():
            return await self.rejoin()
        reader = await self._open()
        self._send(self.machine.unanswered_lines())
        return await self._loop(reader)

    async def rejoin(self) -> str:
        """A restarted robot: a fresh machine says ``Connecting`` for the seat it had."""
        self.machine = self._new_machine()
        return await self.play()

    async def _loop(self, reader: asyncio.StreamReader) -> str:
        buf = LineBuffer()
        while True:
            try:
                data = await reader.read(65536)
            except ConnectionError:  # reset: the table manager closed with our lines unread
                return "closed"
            if not data:
                return "closed"
            for line in buf.feed(data):
                self.lines_in += 1
                try:
                    events = self.machine.receive_line(line)
                except ProtocolError as exc:
                    if exc.fatal:
                        self.table_errors.append(line.rstrip("\r\n"))
                        return "refused"
                    self.errors.append(f"{line!r}: {exc}")
                    continue
                outcome = await self._handle(events)
                if outcome is not None:
                    return outcome

    async def _handle(self, events: list[ClientEvent]) -> Optional[str]:
        while events:
            ev = events.pop(0)
            if self.mute_when is not None and self.mute_when(ev, self):
                self.mute_when, self.muted = None, True
            if self.muted and isinstance(ev, (CallRequested, CardRequested)):
                continue
            if self.delay_when is not None and isinstance(ev, (CallRequested, CardRequested)):
                await asyncio.sleep(self.delay_when(ev, self))
            if isinstance(ev, CallRequested):
                self.machine.send_call(self.choose_call(ev))
                events += self.machine.take_events()
            elif isinstance(ev, CardRequested):
                self.machine.send_card(self.choose_card(ev))
                events += self.machine.take_events()
            elif isinstance(ev, BoardComplete):
                self.results.append((ev.board, None if ev.contract is None else str(ev.contract), ev.declarer_tricks,
                                     tuple(str(c) for c in ev.auction.calls), tuple(str(c) for c in ev.cards)))
            elif isinstance(ev, SeatAssigned):
                self.seated.set()
            elif isinstance(ev, TableError):
                self.table_errors.append(ev.message.format().rstrip("\r\n"))
            self._send(self.machine.lines_to_send())
            if isinstance(ev, SessionEnded):
                return "ended"
            if self.kill_when is not None and self.kill_when(ev, self):
                self.kill_when = None
                self.kill()
                return "killed"
        return None


def four_clients(port: int, teams=("NS team", "EW team"), *, dialects=DIALECTS, seed: int = 0, **kw) -> list[ScriptedClient]:
    """North, East, South, West (teams[0] N/S), one dialect each in that order."""
    return [ScriptedClient(port, teams[0] if s.is_ns else teams[1], s, dialect=d, seed=seed, **kw)
            for s, d in zip(Seat, dialects)]


async def start_in_order(clients: list[ScriptedClient], timeout: float = 10.0) -> list[asyncio.Task]:
    """Start each client's ``play()`` once the one before it is seated (an ``ANYPL`` client then gets the seat
    left for it, whatever the timing); returns the tasks."""
    tasks = []
    for c in clients:
        tasks.append(asyncio.create_task(c.play()))
        await asyncio.wait_for(c.seated.wait(), timeout)
    return tasks


class InProcessTM:
    """A ``TableManager`` in this process on a free loopback port, with its store under ``folder``; use as
    ``async with InProcessTM(folder, boards=2) as tm: ...`` (keyword arguments are ``[tm]`` settings;
    ``publisher``, ``deal_delay_seconds``: its live events, see ``TableManager``)."""

    def __init__(self, folder, *, resume: bool = False, publisher=None, deal_delay_seconds=None, **settings) -> None:
        from squeeze.config.settings import TableManagerSettings

        self.settings = TableManagerSettings(port=0, results_dir=folder, **settings)
        self.resume = resume
        self.publisher = publisher
        self.deal_delay_seconds = deal_delay_seconds

    async def __aenter__(self):
        from squeeze.robot.tm.run import prepare_run
        from squeeze.robot.tm.server import TableManager

        self.store, matches = prepare_run(self.settings, resume=self.resume)
        self.manager = TableManager(self.settings, self.store, matches, publisher=self.publisher,
                                    deal_delay_seconds=self.deal_delay_seconds)
        self.port = await self.manager.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.manager.close()
        self.store.close()


async def rejoin_in_order(clients: list[ScriptedClient], timeout: float = 10.0) -> list[asyncio.Task]:
    """Like ``start_in_order`` for robots that restart: each says ``Connecting`` again on a fresh machine."""
    tasks = []
    for c in clients:
        c.seated = asyncio.Event()
        tasks.append(asyncio.create_task(c.rejoin()))
        await asyncio.wait_for(c.seated.wait(), timeout)
    return tasks
