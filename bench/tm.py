"""``squeeze tm`` under load: 20 tables of fast random-legal clients on loopback.

The table manager runs as its own process (``squeeze tm`` with a match file naming one match per table, logs at
warning level, so the figure is the manager's work rather than its transcript's); the clients (``tests/tm_client``:
real sockets, the four dialects) run in worker processes, a share of the tables each. Reported: boards per second
and protocol lines per second through the manager, the manager's own CPU per board (from ``os.wait4``), and from its
results store the boards lost (never finished) and duplicated (finished twice: the store refuses it, so 0 means
the refusal was never needed).

    .venv/bin/python bench/tm.py [--quick] [--tables 20] [--boards 16] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted clients live with the tests

from squeeze.robot.tm.store import STORE_FILE, ResultsStore  # noqa: E402
from tm_client import four_clients, start_in_order  # noqa: E402


def _teams(i: int) -> tuple[str, str]:
    return f"T{i:02d}a", f"T{i:02d}b"


async def _play_tables(port: int, tables: list[int], seed: int) -> tuple[int, int, list[str]]:
    async def one(i: int):
        clients = four_clients(port, _teams(i), seed=seed + i)
        tasks = await start_in_order(clients, timeout=60)
        outcomes = await asyncio.gather(*tasks)
        return sum(c.lines_in + c.lines_out for c in clients), outcomes

    done = await asyncio.gather(*(one(i) for i in tables))
    return sum(d[0] for d in done), len(tables), [o for d in done for o in d[1]]


def _worker(args: tuple[int, list[int], int]) -> tuple[int, int, list[str]]:
    return asyncio.run(_play_tables(*args))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 boards a table")
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--boards", type=int, default=16, help="boards a table")
    ap.add_argument("--workers", type=int, default=2, help="client processes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    boards = 4 if args.quick else args.boards
    folder = Path(tempfile.mkdtemp(prefix="bench-tm-"))
    match_file = folder / "matches.toml"
    match_file.write_text("".join(f'[[match]]\nname = "table {i}"\nteams = ["{a}", "{b}"]\n\n'
                                  for i in range(args.tables) for a, b in [_teams(i)]))
    env = {**os.environ, "SQUEEZE_LOG__LEVEL": "warning",
           "SQUEEZE_TM__CONNECTIONS_PER_ADDRESS": str(4 * args.tables + 8)}  # every client comes from 127.0.0.1
    cmd = [str(Path(sys.executable).with_name("squeeze")), "tm", "--port", "0", "--out", str(folder / "out"),
           "--boards", str(boards), "--seed", str(args.seed), "--match", str(match_file)]
    tm = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    port = int(tm.stdout.readline().rsplit(":", 1)[1])
    shares = [list(range(args.tables))[w::args.workers] for w in range(args.workers)]
    t0 = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        played = pool.map(_worker, [(port, share, args.seed) for share in shares if share])
    wall = time.perf_counter() - t0
    _pid, status, usage = os.wait4(tm.pid, 0)
    tm.returncode = os.waitstatus_to_exitcode(status)
    lines = sum(p[0] for p in played)
    outcomes = [o for p in played for o in p[2]]
    store = ResultsStore(folder / "out" / STORE_FILE, create=False)
    rows = store.results()
    store.close()
    keys = [(r.match, r.room, r.board) for r in rows]
    finished = len(set(keys))
    expected = args.tables * boards
    cpu = usage.ru_utime + usage.ru_stime
    print(f"tables {args.tables}, boards a table {boards}, client processes {args.workers}, manager exit "
          f"{tm.returncode}, client outcomes {sorted(set(outcomes))}")
    print(f"{finished} boards in {wall:.2f} s: {finished / wall:.2f} boards/s, {lines / wall:.0f} lines/s through "
          f"the manager; manager CPU {cpu:.2f} s = {1000 * cpu / max(1, finished):.1f} ms a board")
    print(f"RESULT tables={args.tables} boards={finished} boards_per_s={finished / wall:.2f} "
          f"lines_per_s={lines / wall:.0f} manager_cpu_ms_per_board={1000 * cpu / max(1, finished):.1f} "
          f"lost={expected - finished} duplicated={len(keys) - finished}")


if __name__ == "__main__":
    main()
