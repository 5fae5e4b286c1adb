"""The small HTTP/1.1 server behind the browser pages (``squeeze watch --web``, ``squeeze play-web``).

One page and its state: ``GET /`` the page, ``GET /<asset>`` the card display the pages share (``CARD_ASSETS``),
``GET /state`` the state as JSON, ``GET /events`` the state again at each change (server-sent events, a comment every
15 s to keep proxies from closing it). A page with actions takes ``POST`` (a JSON object, ``MAX_BODY`` bytes at
most) in a subclass's ``post``, and more ``GET`` routes in its ``get``. The state object has a ``version`` (bumped
at each change) and ``to_dict()``. Standard library only: a page on loopback for a person, not a web service.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from typing import Any, Callable, Optional

__all__ = ["CARD_ASSETS", "card_asset", "package_page", "PageServer"]

#: The card display shared by the web pages (package data): served at ``/<name>`` with its content type.
CARD_ASSETS = {"cards.css": "text/css; charset=utf-8", "cards.js": "text/javascript; charset=utf-8"}

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
            411: "Length Required", 413: "Payload Too Large", 431: "Request Header Fields Too Large"}


def card_asset(name: str) -> bytes:
    """One of ``CARD_ASSETS``' files."""
    return resources.files("squeeze.robot").joinpath(name).read_bytes()


def package_page(name: str) -> bytes:
    """A page of the package (``robot/<name>``: HTML, CSS and script in one file)."""
    return resources.files("squeeze.robot").joinpath(name).read_bytes()


class PageServer:
    """Serves one page and its state (module doc). ``await start()`` (returns the port), ``await notify()`` after
    the state changed, ``await close()``."""

    MAX_REQUEST = 8192  # a request line and headers longer than this is not a browser's: refused
    MAX_BODY = 4096
    METHODS: tuple[str, ...] = ("GET",)

    def __init__(self, state: Any, page: Callable[[], bytes], host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.page = page
        self.host, self.port = host, port
        self._changed = asyncio.Condition()
        self._server: Optional[asyncio.base_events.Server] = None
        self._clients: set[asyncio.Task] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def notify(self) -> None:
        """Wake the event streams: the state moved."""
        async with self._changed:
            self._changed.notify_all()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in list(self._clients):
            t.cancel()
        if self._server is not None:
            await self._server.wait_closed()

    # --- routes a page adds ---------------------------------------------------------------------------------------
    async def get(self, writer: asyncio.StreamWriter, target: str) -> bool:
        """Answer a ``GET`` of a route of the page's own; False: not one (404)."""
        return False

    async def post(self, writer: asyncio.StreamWriter, target: str, body: bytes) -> None:
        await self.reply(writer, 404, b"not found\n", "text/plain")

    # --- the protocol ---------------------------------------------------------------------------------------------
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
                return await self.reply(writer, 431, b"request too large\n", "text/plain")
            lines = head.decode("latin-1").split("\r\n")
            parts = lines[0].split()
            if len(parts) != 3 or not parts[2].startswith("HTTP/"):
                return await self.reply(writer, 400, b"bad request\n", "text/plain")
            method, target = parts[0], parts[1].split("?", 1)[0]
            if method not in self.METHODS:
                return await self.reply(writer, 405, f"only {' and '.join(self.METHODS)}\n".encode(), "text/plain",
                                        extra=f"Allow: {', '.join(self.METHODS)}\r\n")
            if method == "GET":
                return await self._get(writer, target)
            headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:] if h)}
            try:
                length = int(headers.get("content-length", "0"))
            except ValueError:
                return await self.reply(writer, 411, b"bad content length\n", "text/plain")
            if length > self.MAX_BODY:
                return await self.reply(writer, 413, b"body too large\n", "text/plain")
            body = await asyncio.wait_for(reader.readexactly(length), 10) if length else b""
            await self.post(writer, target, body)
        except (ConnectionError, asyncio.CancelledError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass
        finally:
            if task is not None:
                self._clients.discard(task)
            writer.close()

    async def _get(self, writer: asyncio.StreamWriter, target: str) -> None:
        name = target.lstrip("/")
        if target == "/":
            await self.reply(writer, 200, self.page(), "text/html; charset=utf-8")
        elif name in CARD_ASSETS:
            await self.reply(writer, 200, card_asset(name), CARD_ASSETS[name])
        elif target == "/state":
            await self.json(writer, 200, self.state.to_dict())
        elif target == "/events":
            await self._stream(writer)
        elif not await self.get(writer, target):
            await self.reply(writer, 404, b"not found\n", "text/plain")

    async def json(self, writer: asyncio.StreamWriter, status: int, doc: Any) -> None:
        await self.reply(writer, status, json.dumps(doc).encode(), "application/json")

    @staticmethod
    async def reply(writer: asyncio.StreamWriter, status: int, body: bytes, ctype: str, extra: str = "") -> None:
        writer.write(f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}"
                     f"\r\nCache-Control: no-store\r\nConnection: close\r\n{extra}\r\n".encode("latin-1") + body)
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
