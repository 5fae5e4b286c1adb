"""A seat's decision worker (a spawned process) logs as its parent was told to: the format and level of the
``[log]`` settings (``SQUEEZE_LOG__FORMAT=json`` in a service), on standard error, never on standard output.

Each case runs in a process of its own, as ``squeeze seat`` does: its root callback configures logging from the
settings, then the seat starts its ``DecisionWorker``, whose first event (``worker.ready``) is logged in the child.
"""

import json
import os
import subprocess
import sys

import pytest

SCRIPT = """
import asyncio, os
from squeeze.config.settings import load_settings
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.player import PlayerParams
from squeeze.robot.logs import configure_logging
from squeeze.robot.worker import DecisionWorker

log = load_settings().log  # as the CLI's root callback does
configure_logging(log.level, log.format)
print("parent", os.getpid(), flush=True)

async def main():
    worker = DecisionWorker(PlayerParams(play=PlaySettings(declarer_selector="pimc", worlds=4, inference=False)))
    await worker.start()
    print("worker", worker.pid, flush=True)
    worker.close()

asyncio.run(main())
"""


def run(**env: str) -> tuple[dict[str, int], list[str]]:
    """(pids printed on stdout by role, stderr lines) of the script under ``env``."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")} | env
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=full, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pids = {}
    for line in done.stdout.splitlines():  # only the script's own lines: no log event may land on stdout
        role, pid = line.split()
        pids[role] = int(pid)
    assert set(pids) == {"parent", "worker"}, done.stdout
    return pids, [l for l in done.stderr.splitlines() if l.strip()]


def test_the_worker_logs_json_lines_when_the_settings_ask_for_json():
    pids, lines = run(SQUEEZE_LOG__FORMAT="json")
    events = [json.loads(l) for l in lines]  # every line is JSON (a console-format line would not parse)
    ready = [e for e in events if e["event"] == "worker.ready"]
    assert len(ready) == 1 and ready[0]["pid"] == pids["worker"] != pids["parent"]
    assert ready[0]["level"] == "info" and "timestamp" in ready[0]


def test_the_worker_keeps_the_level_of_the_settings():
    _pids, lines = run(SQUEEZE_LOG__FORMAT="json", SQUEEZE_LOG__LEVEL="warning")
    assert not any(json.loads(l)["event"] == "worker.ready" for l in lines)


@pytest.mark.parametrize("fmt", ["pretty", "auto"])
def test_the_worker_follows_the_other_formats_too(fmt):
    # pretty: the console format, in the worker as in the parent; auto on a pipe (not a terminal): JSON
    _pids, lines = run(SQUEEZE_LOG__FORMAT=fmt)
    ready = [l for l in lines if "worker.ready" in l]
    assert len(ready) == 1
    if fmt == "auto":
        assert json.loads(ready[0])["event"] == "worker.ready"
    else:
        with pytest.raises(ValueError):
            json.loads(ready[0])
        assert "[info" in ready[0]  # structlog's console line: timestamp [info     ] worker.ready pid=...
