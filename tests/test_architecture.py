"""ARCHITECTURE.md's rules, checked on the source tree, so the document stays true.

- Imports go down the layer order only: engine, then protocol, then config, then robot; inside the engine and the
  protocol, down their own orders (``ENGINE_LEVELS``, ``PLAY_LEVELS``, ``BIDDING_LEVELS``, ``PROTOCOL_LEVELS``).
- Every source file of the four packages is named in ARCHITECTURE.md, and every file it names exists (or is in
  ``PENDING_MODULES``: named before it lands).
- The robot's pure modules do no I/O: no socket, process, event loop, file or environment.

The engine's own purity (no logging, files or environment; no layer above it loaded) is tests/test_engine_purity.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "config", "robot")  # the layer order: each imports only those before it
SOURCE_SUFFIXES = (".py", ".pyx", ".c", ".h", ".html", ".js", ".css")

#: Named in ARCHITECTURE.md, not in the tree yet (none now).
PENDING_MODULES: set[str] = set()

#: The engine's order, lowest first: a module imports only from lower levels or from inside its own package.
ENGINE_LEVELS = [
    {"cards", "deadline", "dds_limits"},
    {"auction"},
    {"board", "scoring", "sampling", "stats"},
    {"record", "view", "dds"},
    {"pbn", "teams"},
    {"lin"},
    {"play"},
    {"bidding"},
    {"player"},
]
PLAY_LEVELS = [{"fronts", "position"}, {"oracle"}, {"pimc", "alphamu", "inference", "relax"}, {"card_player"}]
BIDDING_LEVELS = [{"features", "disclosure"}, {"rules"}, {"interpreter"}, {"requests", "borel"}]
PROTOCOL_LEVELS = [{"errors"}, {"messages"}, {"framing", "events"}, {"client", "table"}, {"loopback"}]

#: Robot modules that are pure logic over values (file formats, the tm's routing and clocks): no I/O of their own.
PURE_ROBOT_MODULES = {"robot/summary.py", "robot/versioned.py", "robot/selfplay/standings.py",
                      "robot/tm/transcript.py", "robot/tm/routing.py", "robot/tm/clocks.py"}
IO_MODULES = ("asyncio", "socket", "selectors", "subprocess", "multiprocessing", "threading", "structlog", "logging",
              "sqlite3", "shutil", "tempfile", "importlib.resources")


# --- the module graph ---------------------------------------------------------------------------------------------
def _module_files() -> dict[str, Path]:
    """``squeeze.<package>.<...>`` -> its file, for every Python module of the four packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found["squeeze." + ".".join(parts)] = path
    return found


def imports_of(name: str, source: str, is_package: bool, known: set[str]) -> list[tuple[str, int]]:
    """Every ``squeeze.`` module that module ``name`` imports (anywhere in it, function bodies too), with its line.
    ``from X import y`` counts as importing ``X.y`` when that is a module, else ``X``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.append((sub if sub in known else module, node.lineno))
    return [(m, line) for m, line in found if m.startswith("squeeze.")]


def _graph() -> list[tuple[str, str, int]]:
    files = _module_files()
    known = set(files)
    return [(name, target, line) for name, path in files.items()
            for target, line in imports_of(name, path.read_text(encoding="utf-8"), path.name == "__init__.py",
                                           known)]


def layer_violations(edges, scope: str, levels: list[set[str]]) -> list[str]:
    """Imports inside ``scope`` (a dotted prefix) that do not go down ``levels``. A module's unit is its first name
    under the scope (``squeeze.engine.play.pimc`` is ``play`` in ``squeeze.engine``); a unit imports only from
    lower levels or from itself. The scope's own ``__init__`` (a package's facade) may import anything under it."""
    rank = {unit: i for i, level in enumerate(levels) for unit in level}
    bad = []
    for source, target, line in edges:
        if not (source.startswith(scope + ".") and target.startswith(scope + ".")):
            continue
        unit, other = source[len(scope) + 1:].split(".")[0], target[len(scope) + 1:].split(".")[0]
        if unit not in rank or other not in rank:
            bad.append(f"{source}:{line} -> {target}: not in the stated order")
        elif unit != other and rank[other] >= rank[unit]:
            bad.append(f"{source}:{line} -> {target}")
    return bad


def package_violations(edges) -> list[str]:
    order = {f"squeeze.{p}": i for i, p in enumerate(PACKAGES)}
    bad = []
    for source, target, line in edges:
        s, t = ".".join(source.split(".")[:2]), ".".join(target.split(".")[:2])
        if t not in order or order[t] > order[s]:
            bad.append(f"{source}:{line} -> {target}")
    return bad


def test_the_scan_sees_the_tree():
    edges = _graph()
    sources = {s for s, _, _ in edges}
    assert len(_module_files()) > 70 and len(edges) > 300
    assert {"squeeze.engine.player", "squeeze.protocol.client", "squeeze.config.settings",
            "squeeze.robot.tm.server"} <= sources
    assert ("squeeze.engine.player", "squeeze.engine.play.card_player") in {(s, t) for s, t, _ in edges}
    assert ("squeeze.engine.play.alphamu", "squeeze.engine.play.fronts") in {(s, t) for s, t, _ in edges}


def test_packages_import_down_the_layer_order():
    """engine imports nothing of protocol, config or robot; protocol only the engine; config the engine and the
    protocol (its settings' defaults come from them); robot anything."""
    assert package_violations(_graph()) == []


def test_engine_modules_import_down_the_engine_order():
    units = {p.stem if p.suffix else p.name for p in (ROOT / "engine").iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert units == set().union(*ENGINE_LEVELS)  # every engine module has its place in the order
    assert layer_violations(_graph(), "squeeze.engine", ENGINE_LEVELS) == []


def test_card_play_modules_import_down_their_order():
    units = {p.stem for p in (ROOT / "engine" / "play").glob("*.py")} - {"__init__"}
    assert units == set().union(*PLAY_LEVELS)
    assert layer_violations(_graph(), "squeeze.engine.play", PLAY_LEVELS) == []


def test_bidding_modules_import_down_their_order():
    units = {p.stem for p in (ROOT / "engine" / "bidding").glob("*.py")} - {"__init__"}
    assert units == set().union(*BIDDING_LEVELS)
    assert layer_violations(_graph(), "squeeze.engine.bidding", BIDDING_LEVELS) == []


def test_protocol_modules_import_down_their_order():
    units = {p.stem for p in (ROOT / "protocol").glob("*.py")} - {"__init__"}
    assert units == set().union(*PROTOCOL_LEVELS)
    assert layer_violations(_graph(), "squeeze.protocol", PROTOCOL_LEVELS) == []


def test_the_order_checks_catch_what_they_forbid():
    """The checks cannot pass by seeing nothing: an import up any order is reported."""
    edges = [("squeeze.engine.cards", "squeeze.engine.auction", 1),            # up the engine's order
             ("squeeze.engine.play.pimc", "squeeze.engine.play.card_player", 2),  # up play's order
             ("squeeze.engine.stats", "squeeze.engine.scoring", 3),           # sideways, same level
             ("squeeze.engine.view", "squeeze.robot.logs", 4),                # engine -> robot
             ("squeeze.protocol.table", "squeeze.config.settings", 5),        # protocol -> config
             ("squeeze.config.bidding", "squeeze.robot.summary", 6)]          # config -> robot
    assert len(layer_violations(edges, "squeeze.engine", ENGINE_LEVELS)) == 2
    assert len(layer_violations(edges, "squeeze.engine.play", PLAY_LEVELS)) == 1
    assert len(package_violations(edges)) == 3
    source = "from ..play import relax\nfrom . import features\nimport squeeze.robot.logs\n"
    known = {"squeeze.engine.play.relax", "squeeze.engine.bidding.features"}
    assert [m for m, _ in imports_of("squeeze.engine.bidding.borel", source, False, known)] == [
        "squeeze.engine.play.relax", "squeeze.engine.bidding.features", "squeeze.robot.logs"]


# --- the document names every module ----------------------------------------------------------------------------
def _named_in_architecture() -> set[str]:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return set(re.findall(r"`((?:engine|protocol|robot|config)/[\w./*-]*)`", text))


def _tree_sources() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for package in PACKAGES for p in (ROOT / package).rglob("*")
            if p.suffix in SOURCE_SUFFIXES and p.name != "__init__.py" and "__pycache__" not in p.parts}


def _tree_packages() -> set[str]:
    return {p.parent.relative_to(ROOT).as_posix() + "/" for package in PACKAGES
            for p in (ROOT / package).rglob("__init__.py")}


def test_every_source_file_and_package_is_named_in_architecture():
    named = _named_in_architecture()
    missing = sorted((_tree_sources() | _tree_packages()) - named)
    assert missing == [], f"not in ARCHITECTURE.md: {missing}"


def test_every_file_architecture_names_exists():
    named = _named_in_architecture()
    assert len(named) > 80
    gone = sorted(n for n in named if n not in PENDING_MODULES
                  and not (any(ROOT.glob(n)) if "*" in n else (ROOT / n).exists()))
    assert gone == [], f"ARCHITECTURE.md names what is not there: {gone}"
    assert PENDING_MODULES <= named


def test_pending_modules_are_still_pending():
    """Once a pending module lands, it leaves ``PENDING_MODULES`` (and its purity is then checked below)."""
    landed = sorted(m for m in PENDING_MODULES if (ROOT / m).exists())
    assert landed == [], f"landed: take them out of PENDING_MODULES: {landed}"


# --- the robot's pure modules -------------------------------------------------------------------------------------
def io_in(source: str, name: str) -> list[str]:
    bad = []
    for node in ast.walk(ast.parse(source, name)):
        where = f"{name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            bad += [f"{where}: import {a.name}" for a in node.names if a.name.startswith(IO_MODULES)]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.startswith(IO_MODULES) or (node.module == "os" and {a.name for a in node.names}
                                                      & {"environ", "getenv", "system", "popen"}):
                bad.append(f"{where}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "open":
                bad.append(f"{where}: open()")
            if isinstance(f, ast.Attribute) and f.attr in ("open", "read_text", "read_bytes", "write_text",
                                                           "write_bytes", "getenv", "unlink", "mkdir"):
                bad.append(f"{where}: .{f.attr}()")
        elif isinstance(node, ast.Attribute) and node.attr == "environ":
            bad.append(f"{where}: .environ")
    return bad


def test_the_robots_pure_modules_do_no_io():
    present = sorted(m for m in PURE_ROBOT_MODULES if (ROOT / m).exists())
    assert set(present) == PURE_ROBOT_MODULES - PENDING_MODULES
    bad = [v for m in present for v in io_in((ROOT / m).read_text(encoding="utf-8"), m)]
    assert bad == []


def test_the_io_scan_catches_what_it_forbids():
    body = ("import asyncio\nimport socket\nfrom subprocess import run\nimport os\nx = os.environ['A']\n"
            "f = open('x')\nfrom pathlib import Path\nPath('x').write_text('')\n")
    found = io_in(body, "probe.py")
    for what in ("import asyncio", "import socket", "from subprocess", ".environ", "open()", ".write_text()"):
        assert any(what in v for v in found), (what, found)


# --- benchmarks -----------------------------------------------------------------------------------------------------
#: Benchmarks that do not take ``--quick`` yet (each is a short run of its own already; the flag is still owed).
_NO_QUICK_YET: set[str] = set()
BENCHMARKS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if "RESULT " in p.read_text(encoding="utf-8"))


def test_the_benchmarks_are_found():
    assert len(BENCHMARKS) > 20 and {"dd.py", "sayc.py", "selfplay.py", "tm.py"} <= set(BENCHMARKS)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason="no --quick option yet")) if n in _NO_QUICK_YET else n for n in BENCHMARKS])
def test_every_benchmark_prints_a_result_line_and_takes_quick(name):
    source = (ROOT / "bench" / name).read_text(encoding="utf-8")
    tree = ast.parse(source)
    prints_result = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("RESULT ")
                        for n in ast.walk(tree)) or re.search(r"""f["']RESULT """, source)
    takes_quick = any(isinstance(n, ast.Constant) and n.value == "--quick" for n in ast.walk(tree))
    assert prints_result and takes_quick
