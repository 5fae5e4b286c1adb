"""An in-test table manager: a real asyncio TCP server on loopback around ``protocol.TableMachine``.

``dialect`` rewrites each line the table sends into another manager's spelling (the variants of the research
note), so a robot can be tested against every dialect with one correct table behind it. ``cut(seat)`` closes a
seat's socket as a network drop would.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from typing import Callable, Optional

from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord
from squeeze.protocol.errors import ProtocolError
from squeeze.protocol.framing import LineBuffer
from squeeze.protocol.table import BoardFinished, PlayerLeft, PlayerSeated, TableMachine, TableOptions

Dialect = Callable[[str], list[str]]  # a canonical line (no CRLF) -> the lines this manager sends instead


def canonical(line: str) -> list[str]:
    return [line]


_SEATS = ("North", "East", "South", "West")


def bridge_moniteur(line: str) -> list[str]:
    """No final full stops, ``Dummy's cards:`` glued colon, ``Teams:`` compact."""
    line = line.replace("Dummy's cards : ", "Dummy's cards: ").replace("'s cards : ", "'s cards: ")
    if line.startswith("Board number"):
        line = line.rstrip(".")
    return [line]


def wbridge5(line: str) -> list[str]:
    """Upper-case seats, lower-case cards, hands in C-D-H-S order, ``cards:`` with no space, bracketed Timing."""
    for s in _SEATS:
        line = re.sub(rf"\b{s}\b", s.upper(), line)
    m = re.match(r"^(\w+)'s cards : S (.*)\. H (.*)\. D (.*)\. C (.*)\.$", line)
    if m:
        line = f"{m[1]}'s cards: C {m[5]}. D {m[4]}. H {m[3]}. S {m[2]}."
    m = re.match(r"^(\w+) plays (\w\w)$", line)
    if m:
        line = f"{m[1]} plays {m[2].lower()}"
    return [line]


def lower_case(line: str) -> list[str]:
    return [line.lower()]


def chatty_timing(line: str) -> list[str]:
    """A ``Timing`` line after every ``Start of board`` as well as after each board (some managers repeat it)."""
    if line == "Start of board":
        return [line, "Timing - N/S : this board  00:00:01,  total  00:00:02.  E/W : this board  00:00:01,  total  00:00:02."]
    return [line]


class InTestTM:
    def __init__(self, boards: list[BoardRecord], *, dialect: Dialect = canonical,
                 options: TableOptions = TableOptions(), declarer_names_lead: bool = False) -> None:
        self.table = TableMachine(boards, options=options)
        self.dialect = dialect
        self.declarer_names_lead = declarer_names_lead  # "[Declarer] to lead" when dummy leads (one dialect)
        self.records: list[BoardRecord] = []
        self.errors: list[str] = []
        self.log: list[tuple[str, str]] = []
        self.done = asyncio.Event()
        self._writers: dict[Seat, asyncio.StreamWriter] = {}
        self._conn_writer: dict[int, asyncio.StreamWriter] = {}
        self._ids = itertools.count(1)
        self.server: Optional[asyncio.base_events.Server] = None
        self.port = 0

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        for w in list(self._conn_writer.values()):
            w.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    def cut(self, seat: Seat) -> None:
        """Close ``seat``'s connection now (the robot sees a drop)."""
        w = self._writers.pop(seat, None)
        if w is not None:
            w.transport.abort()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = next(self._ids)
        self._conn_writer[conn] = writer
        buf = LineBuffer()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for line in buf.feed(data):
                    self.log.append((f"<-{conn}", line))
                    try:
                        out = self.table.receive(conn, line)
                    except ProtocolError as exc:
                        self.errors.append(f"{line!r}: {exc}")
                        if exc.reply:
                            await self._send(writer, exc.reply.rstrip("\r\n"))
                        if exc.fatal:
                            writer.close()
                            return
                        continue
                    self._events()
                    for o in out:
                        w = self._writers.get(o.seat)
                        if w is not None:
                            await self._send(w, o.line.rstrip("\r\n"))
        except (ConnectionError, OSError):
            pass
        finally:
            self.table.disconnect(conn)
            self._events()
            self._conn_writer.pop(conn, None)

    def _events(self) -> None:
        for ev in self.table.events():
            if isinstance(ev, PlayerSeated):
                self._writers[ev.seat] = self._conn_writer[ev.connection]
            elif isinstance(ev, PlayerLeft):
                if self._writers.get(ev.seat) is self._conn_writer.get(ev.connection):
                    self._writers.pop(ev.seat, None)
            elif isinstance(ev, BoardFinished):
                self.records.append(ev.record)
            elif type(ev).__name__ == "SessionEnded":
                self.done.set()

    async def _send(self, writer: asyncio.StreamWriter, line: str) -> None:
        if self.declarer_names_lead and line == "Dummy to lead" and self.table.play is not None:
            line = f"{_SEATS[self.table.play.declarer]} to lead"
        for text in self.dialect(line):
            self.log.append(("->", text))
            if writer.is_closing():
                return
            writer.write((text + "\r\n").encode("latin-1"))
        try:
            await writer.drain()
        except (ConnectionError, OSError):
            pass
