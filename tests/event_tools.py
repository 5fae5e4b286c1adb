"""What the live-event tests drive: a real mosquitto per test, the embedded broker, a subscriber that collects.

``make test`` installs mosquitto, chromium and tmux from Debian's packages when they are missing
(``tests/install-test-tools.sh``). ``require(program)`` gives a test its program; when it is missing the test fails
in CI (``CI=true``: a missing tool must not pass for a green run) and is skipped elsewhere, naming the program.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

from squeeze.config.settings import MqttSettings
from squeeze.robot.events import EmbeddedBroker, Event, subscribe

#: Debian installs mosquitto under /usr/sbin, which is not on every user's PATH.
_EXTRA_PATH = os.pathsep.join(["/usr/sbin", "/usr/local/sbin", "/usr/bin"])


def require(program: str) -> str:
    """The path of ``program``; a missing one fails the test in CI and skips it elsewhere."""
    path = shutil.which(program) or shutil.which(program, path=_EXTRA_PATH)
    if path is None:
        why = f"{program} is not installed (make test installs it: apt-get install -y {program})"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(why)
        pytest.skip(why)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s") from None
            time.sleep(0.02)


class Mosquitto:
    """A mosquitto of this test's own, on a free loopback port; ``kill()`` it (SIGKILL, mid-whatever) and
    ``start()`` it again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.binary = require("mosquitto")
        self.port = free_port()
        self.config = Path(folder) / "mosquitto.conf"
        # an explicit listener: mosquitto 2 with a config file listens only where told, anonymous only if allowed
        self.config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        self.proc: Optional[subprocess.Popen] = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> "Mosquitto":
        self.proc = subprocess.Popen([self.binary, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_port(self.port)
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()


class Collector:
    """Subscribes to ``topic`` (a real MQTT client, reconnecting like ``squeeze watch``) and keeps every event."""

    def __init__(self, port: int, topic: str = "squeeze/#") -> None:
        self.port = port
        self.topic = topic
        self.events: list[Event] = []
        self.subscribed = asyncio.Event()
        self.connections = 0
        self._task: Optional[asyncio.Task] = None
        self._arrived = asyncio.Event()

    def _on_state(self, connected: bool, _detail: str) -> None:
        if connected:
            self.connections += 1
            self.subscribed.set()

    async def _run(self) -> None:
        settings = MqttSettings(reconnect_seconds=0.2)
        async for ev in subscribe("127.0.0.1", self.port, self.topic, settings=settings, on_state=self._on_state):
            self.events.append(ev)
            self._arrived.set()

    async def __aenter__(self) -> "Collector":
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.subscribed.wait(), 10)
        return self

    async def __aexit__(self, *exc) -> None:
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    async def wait_for(self, predicate, timeout: float = 10.0) -> None:
        """Until ``predicate(events)`` holds (a missing event fails the test after ``timeout``, never hangs it)."""
        async with asyncio.timeout(timeout):
            while not predicate(self.events):
                self._arrived.clear()
                await self._arrived.wait()


class Broker:
    """Either kind of broker for a parametrized test: ``mosquitto`` (its own process) or ``embedded`` (amqtt in
    this loop)."""

    def __init__(self, kind: str, folder: Path) -> None:
        self.kind = kind
        self.folder = folder
        self.port = 0
        self._mosquitto: Optional[Mosquitto] = None
        self._embedded: Optional[EmbeddedBroker] = None

    async def __aenter__(self) -> "Broker":
        if self.kind == "mosquitto":
            self._mosquitto = Mosquitto(self.folder).start()
            self.port = self._mosquitto.port
        else:
            self._embedded = EmbeddedBroker("127.0.0.1", 0)
            self.port = await self._embedded.start()
        return self

    async def __aexit__(self, *exc) -> None:
        if self._mosquitto is not None:
            self._mosquitto.stop()
        if self._embedded is not None:
            await self._embedded.stop()


class Chromium:
    """Headless Chromium on a page, driven over its DevTools protocol (the ``websockets`` client amqtt brings):
    ``await evaluate(js)`` reads the live DOM, ``await screenshot(path)`` writes a PNG."""

    def __init__(self, url: str, folder: Path, size: tuple[int, int] = (1100, 800)) -> None:
        self.binary = require("chromium")
        self.url = url
        self.folder = Path(folder)
        self.size = size
        self.proc: Optional[asyncio.subprocess.Process] = None
        self._ws = None
        self._ids = iter(range(1, 1 << 30))

    async def __aenter__(self) -> "Chromium":
        import json
        import urllib.request

        from websockets.asyncio.client import connect

        self.proc = await asyncio.create_subprocess_exec(
            self.binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            f"--user-data-dir={self.folder / 'chromium-profile'}", f"--window-size={self.size[0]},{self.size[1]}",
            self.url, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(30):
            while True:
                line = (await self.proc.stderr.readline()).decode(errors="replace")
                if not line:
                    raise RuntimeError("chromium exited before its DevTools endpoint was up")
                if line.startswith("DevTools listening on ws://"):
                    port = int(line.split("ws://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
                    break
        asyncio.create_task(self._drain(self.proc.stderr))  # chromium keeps talking: never let its pipe fill up
        listing = await asyncio.to_thread(lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list",
                                                                         timeout=10).read())
        (page,) = [t for t in json.loads(listing) if t["type"] == "page"]
        self._ws = await connect(page["webSocketDebuggerUrl"], max_size=None)
        return self

    @staticmethod
    async def _drain(stream) -> None:
        while await stream.read(65536):
            pass

    async def _call(self, method: str, **params):
        import json

        cid = next(self._ids)
        await self._ws.send(json.dumps({"id": cid, "method": method, "params": params}))
        async with asyncio.timeout(20):
            while True:
                reply = json.loads(await self._ws.recv())
                if reply.get("id") == cid:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]

    async def evaluate(self, expression: str):
        result = await self._call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def text(self, element_id: str) -> Optional[str]:
        return await self.evaluate(f"(document.getElementById({element_id!r}) || {{}}).textContent")

    async def screenshot(self, path: Path) -> Path:
        import base64

        data = (await self._call("Page.captureScreenshot", format="png"))["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    async def __aexit__(self, *exc) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


class Tmux:
    """A program in a detached tmux session of its own, ``screen()`` the text it shows."""

    def __init__(self, command: list[str], size: tuple[int, int] = (110, 60)) -> None:
        self.binary = require("tmux")
        self.command = command
        self.size = size
        self.name = f"squeeze-test-{os.getpid()}-{free_port()}"

    def __enter__(self) -> "Tmux":
        import shlex

        # A detached session started without a terminal hands its panes COLUMNS=80 and LINES=24, which rich (like
        # any curses program) believes over the pane's real size: give the real size.
        w, h = self.size
        subprocess.run([self.binary, "new-session", "-d", "-s", self.name, "-x", str(w), "-y", str(h),
                        "-e", f"COLUMNS={w}", "-e", f"LINES={h}", " ".join(map(shlex.quote, self.command))],
                       check=True, timeout=10)
        return self

    def screen(self) -> str:
        return subprocess.run([self.binary, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True,
                              timeout=10).stdout

    async def wait_for(self, predicate, timeout: float = 15.0) -> str:
        """The screen once ``predicate(screen)`` holds (fails with the last screen after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                size = subprocess.run([self.binary, "display", "-p", "-t", self.name,
                                       "#{window_width}x#{window_height}"], capture_output=True, text=True).stdout
                raise AssertionError(f"the screen ({size.strip()}) never showed what was expected; it shows:\n{text}")
            await asyncio.sleep(0.1)

    def __exit__(self, *exc) -> None:
        subprocess.run([self.binary, "kill-session", "-t", self.name], capture_output=True, timeout=10)
