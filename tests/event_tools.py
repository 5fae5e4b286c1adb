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
