"""The engine is pure computation (ARCHITECTURE.md): it logs nothing, reads no file and no environment variable, and
importing or running it loads none of the layers above it (configuration, protocol, robot) nor asyncio or structlog.

Whoever runs the engine does those things: the configuration reads the bidding systems and hands the engine their
text (``squeeze.config.bidding``), decisions say what happened on the way and the robot logs it
(``squeeze.robot.logs.engine_events``), and the solver's build is a setting (``[engine] solver_core``)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import squeeze.engine
from squeeze.config.bidding import system_file

ENGINE = Path(squeeze.engine.__file__).resolve().parent
FORBIDDEN_MODULES = ("structlog", "asyncio", "squeeze.config", "squeeze.robot", "squeeze.protocol")

_RUN = """
import json, random, sys
from pathlib import Path

import squeeze.engine.player as player_module

after_import = sorted(m for m in sys.modules if m.split(".")[0] in ("structlog", "asyncio")
                      or m.startswith(("squeeze.config", "squeeze.robot", "squeeze.protocol")))

from squeeze.engine.auction import Auction
from squeeze.engine.bidding import parse_system
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Seat
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.player import Player, PlayerParams, SeatView

sayc = parse_system(Path(sys.argv[1]).read_text(encoding="utf-8"), "sayc", sys.argv[1])
params = PlayerParams(play=PlaySettings(declarer_selector="pimc", worlds=3, inference=False), seed=1)
players = {s: Player(params, systems=lambda name: sayc) for s in Seat}
rng = random.Random(3)
while True:  # a board that is not passed out: four robots bid it, then the opening lead
    deal = Deal.random(rng)
    auction = Auction(Seat.NORTH)
    while not auction.is_complete:
        seat = auction.next_seat
        auction = auction.then(players[seat].bid(SeatView(seat, deal[seat], auction)).call)
    if auction.contract is not None:
        break
leader = auction.contract.declarer.lho
lead = players[leader].play(SeatView.from_play(Play(deal, auction.contract), leader, auction=auction))
after_use = sorted(m for m in sys.modules if m.split(".")[0] in ("structlog", "asyncio")
                   or m.startswith(("squeeze.config", "squeeze.robot", "squeeze.protocol")))
print(json.dumps({"after_import": after_import, "after_use": after_use, "lead": str(lead.card)}))
"""


def test_importing_and_running_the_player_loads_no_layer_above_the_engine():
    """In a fresh interpreter: import ``squeeze.engine.player``, bid a board with four players and make the opening
    lead; none of structlog, asyncio, the configuration, the protocol or the robot is ever loaded."""
    out = subprocess.run([sys.executable, "-c", _RUN, str(system_file("sayc"))], capture_output=True, text=True,
                         timeout=300, cwd=ENGINE.parent)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.splitlines()[-1])
    assert got["after_import"] == [] and got["after_use"] == [], got
    assert len(got["lead"]) == 2  # it did play a card


def _engine_modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py"))


def _violations(source: str, name: str) -> list[str]:
    """What in a module's ``source`` does I/O or logging: an import of a logging or resource module, a call of
    ``open`` (or of a path's reading and writing methods), a read of the environment."""
    tree = ast.parse(source, name)
    bad: list[str] = []
    banned = ("structlog", "logging", "importlib.resources", "importlib.abc", "io")
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(banned) or alias.name == "importlib":
                    bad.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module.startswith(banned) or (node.module == "importlib" and names & {"resources", "abc"}):
                bad.append(f"{where}: from {node.module} import ...")
            if node.module == "os" and names & {"environ", "getenv", "putenv", "environb", "getenvb"}:
                bad.append(f"{where}: from os import {sorted(names)}")
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "open":
                bad.append(f"{where}: open()")
            if isinstance(f, ast.Attribute) and f.attr in ("open", "read_text", "read_bytes", "write_text",
                                                           "write_bytes", "getenv", "putenv"):
                bad.append(f"{where}: .{f.attr}()")
        elif isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "resources"):
            bad.append(f"{where}: .{node.attr}")
    return bad


def test_no_engine_module_logs_opens_a_file_or_reads_the_environment():
    modules = _engine_modules()
    assert len(modules) > 20 and ENGINE / "player.py" in modules  # the scan sees the engine
    bad = [v for p in modules for v in _violations(p.read_text(encoding="utf-8"), str(p.relative_to(ENGINE)))]
    assert bad == []


def test_the_scan_catches_what_it_forbids():
    """The scan above cannot pass by seeing nothing: each forbidden thing in a module is reported."""
    body = ("import structlog\nimport logging\nfrom importlib import resources\nimport importlib.resources\n"
            "import os\nfrom os import environ\nx = os.environ.get('A')\ny = os.getenv('B')\nz = open('f')\n"
            "w = importlib.resources.files('p')\nfrom pathlib import Path\nv = Path('f').read_text()\n")
    found = _violations(body, "probe.py")
    for what in ("import structlog", "import logging", "from importlib import", "import importlib.resources",
                 "from os import", ".environ", ".getenv()", "open()", ".resources", ".read_text()"):
        assert any(what in v for v in found), (what, found)


@pytest.mark.parametrize("pattern", [r"\b(secure_)?getenv\s*\(", r"\bfopen\s*\(", r"\benviron\b",
                                     r"\bos\.environ\b"])
def test_the_solver_core_reads_no_environment_and_no_file(pattern):
    """The C and Cython sources of the solver: the portable/fast switch is ``set_core_variant``, set from the
    settings (``[engine] solver_core``), not an environment variable read in C."""
    sources = [p for p in (ENGINE / "dds").rglob("*") if p.suffix in (".c", ".h", ".pyx", ".pxd")]
    assert any(p.name == "dispatch.h" for p in sources)
    hits = [f"{p.name}:{i}: {line.strip()}" for p in sources
            for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(pattern, line)]
    assert hits == []
