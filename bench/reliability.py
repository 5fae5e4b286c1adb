"""Reliability of ``squeeze tm``: load, faults, hostile clients and fuzzing, with an audit of every board.

Phases (the harness is ``tests/reliability/harness.py``, the fuzz targets ``tests/reliability/fuzzing.py``):

1. load: 50 tables (25 two-room matches; ``--quick``: 10) of random-legal scripted clients (``tests/tm_client``,
   four dialects; cheaper than engine robots, so the manager is what is loaded) on one ``squeeze tm`` process;
   the manager's resident memory a second in and at the end;
2. faults, at random points: connections dropped after every kind of protocol event (then resumed on a new
   socket, rejoined, or back after the hold so the board is voided and replayed), the manager SIGKILLed and
   restarted with ``--resume``, its disk filling (RLIMIT_FSIZE: it must stop with a clear error, then resume),
   scripted robot processes SIGKILLed and started again;
   the MQTT broker the manager publishes its live events to (a mosquitto of the run's own) SIGKILLed and started
   again, with a watcher that must see events flow again after each restart (skipped, and said, when mosquitto
   is not installed: ``bash tests/install-test-tools.sh``);
3. hostile clients beside tables that must finish: garbage, a 1 MiB line, a flood, slowloris, a second claim on
   a taken seat, a silent connection;
4. fuzzing: mutated real inputs through the protocol parser, both protocol machines, the PBN and LIN readers and
   the deal, contract, auction and record parsers.

``lost``: boards of the plan not stored, or stored otherwise than their seats saw them; ``duplicated``: boards
finished twice at a table (as its seats saw it) or refused by the store as duplicates.

    .venv/bin/python bench/reliability.py [--quick] [--tables 50] [--boards 8] [--fuzz 5000] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "reliability")]  # the harness lives with the tests

import fuzzing  # noqa: E402
from harness import FaultPlan, hostile_clients, run_tables  # noqa: E402


def _show(name: str, r) -> None:
    print(f"{name}: {r.tables} tables, {r.stored}/{r.planned} boards stored in {r.seconds:.1f} s; lost {r.lost}, "
          f"duplicated {r.duplicated}, mismatched {r.mismatched}, stuck tables {r.stuck}, voided attempts "
          f"{r.voided}; manager RSS {r.rss_start_mib:.1f} -> {r.rss_end_mib:.1f} MiB", flush=True)
    if r.events:
        print(f"  live events: {r.events} reached the run's watcher over MQTT", flush=True)
    if r.faults:
        print("  faults: " + ", ".join(f"{k} {v}" for k, v in sorted(r.faults.items())), flush=True)
    for p in r.problems:
        print(f"  PROBLEM: {p}", flush=True)


async def _phases(args, folder: Path) -> list:
    tables = 10 if args.quick else args.tables
    boards = 4 if args.quick else args.boards
    load = await run_tables(folder / "load", matches=tables // 2, boards=boards, seed=args.seed, timeout=600)
    _show("load", load)
    broker = shutil.which("mosquitto", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))
    if broker is None:
        print("faults: mosquitto is not installed (bash tests/install-test-tools.sh): no broker restarts", flush=True)
    plan = FaultPlan(max_drops=40 if args.quick else 120, tm_kills=1 if args.quick else 3, disk_full=1,
                     process_kills=2 if args.quick else 4, broker_restarts=(1 if args.quick else 3) if broker else 0)
    faults = await run_tables(folder / "faults", matches=tables // 2, boards=boards + 2, seed=args.seed + 1,
                              faults=plan, timeout=600)
    _show("faults", faults)
    hostile = await run_tables(folder / "hostile", matches=max(2, tables // 4), boards=boards, seed=args.seed + 2,
                               hostile=hostile_clients, timeout=600)
    _show("hostile", hostile)
    return [load, faults, hostile]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 tables of 4 boards, 500 fuzzed inputs a target")
    ap.add_argument("--tables", type=int, default=50, help="tables in the load phase (two per match)")
    ap.add_argument("--boards", type=int, default=8, help="boards a table")
    ap.add_argument("--fuzz", type=int, default=5000, help="fuzzed inputs a target")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-reliability-"))
    t0 = time.perf_counter()
    reports = asyncio.run(_phases(args, folder))
    runs = 500 if args.quick else args.fuzz
    fuzzed, failures = 0, []
    for name in sorted(fuzzing.TARGETS):
        t = time.perf_counter()
        accepted, rejected, bad = fuzzing.fuzz(name, runs, seed=args.seed)
        fuzzed += accepted + rejected
        failures += bad
        print(f"fuzz {name}: {accepted + rejected} inputs ({accepted} accepted, {rejected} rejected), "
              f"{len(bad)} failures, {time.perf_counter() - t:.1f} s", flush=True)
    for f in failures[:20]:
        print(f"  FAILURE: {f}")
    load, faults, hostile = reports
    kinds = Counter()
    for r in reports:
        kinds.update({k: v for k, v in r.faults.items() if not k.startswith(("recovered:", "refused_on"))})
    injected = sum(kinds.values()) + 6  # (+ the six hostile clients)
    lost = sum(r.lost + r.mismatched for r in reports)
    duplicated = sum(r.duplicated for r in reports)
    problems = sum(len(r.problems) + r.stuck for r in reports) + len(failures)
    print(f"all phases in {time.perf_counter() - t0:.1f} s; folder {folder}")
    print(f"RESULT tables={load.tables} boards={sum(r.stored for r in reports)} faults={injected} fuzzed={fuzzed} "
          f"lost={lost} duplicated={duplicated} rss_growth_mib={load.rss_growth_mib:.1f} problems={problems}")
    return 0 if lost == duplicated == problems == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
