"""Self-play throughput, and long A-against-B verdicts.

Throughput (the default): boards per minute of ``squeeze selfplay`` with the ``fast`` preset against itself on the
local process pool, with 1 worker and with 2 (each run in a fresh folder; the time includes starting the workers,
as a user's run does). Each board is played in both rooms, plus its double-dummy table.

    .venv/bin/python bench/selfplay.py [--boards 40] [--quick]

ends with ``RESULT boards=.. boards_per_min_1w=.. boards_per_min_2w=.. scaling=..`` (``scaling``: the 2-worker
rate over the 1-worker rate).

Verdict: ``--verdict A B --boards N [--out DIR] [--workers W]`` plays configuration A against B (preset names or TOML
settings files) for N boards into ``DIR`` (default ``bench/out/verdict-A-B``); it runs for hours, and the same
command resumes it after a stop. Its store's ledger goes to ``bench/ledgers/<DIR's name>.jsonl`` (``--ledger``) every
five minutes and at the end; a folder without a store is restored from that ledger first (``bench/ledger.py``: only
at the commit that played it, or with ``--any-commit``), so the run goes on in another session. Ends with ``RESULT boards=.. imps_per_board=.. stderr=.. low=.. high=.. los=..
par_imps_per_board=.. par_stderr=..``.

``--sprt M0,M1`` (with ``--boards`` the most it plays) stops the verdict once a sequential test decides between A
gaining M0 and M1 IMPs per board (``alpha``/``beta`` 0.05, no verdict before 30 boards); the RESULT line then adds
``sprt=H0|H1|continue sprt_boards=.. llr=.. lower=.. upper=..`` (H1: A gains M1 rather than M0). This is how
the weights and alpha-mu verdicts run (``bench/selfplay-no-inference.toml``, ``bench/selfplay-pimc.toml``): up to
3,000 boards, stopped when decided.
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ledger import LedgerKeeper, carry_over, ledger_path  # noqa: E402

from squeeze.config.settings import SelfPlaySettings
from squeeze.robot.logs import configure_logging
from squeeze.robot.selfplay.run import load_team, run_selfplay


def throughput(boards: int, workers: int, seed: int) -> float:
    """Boards per minute for ``boards`` boards of fast against fast on ``workers`` local workers."""
    folder = Path(tempfile.mkdtemp(prefix="bench-selfplay-"))
    try:
        settings = SelfPlaySettings(a="fast", b="fast", boards=boards, seed=seed, workers=workers, chunk_boards=2,
                                    out=folder)
        teams = (load_team("fast", seed=seed), load_team("fast", seed=seed))
        start = time.perf_counter()
        report = run_selfplay(settings, teams)
        elapsed = time.perf_counter() - start
        if report.summary["boards"] + report.summary["voided"]["count"] != boards:
            raise SystemExit(f"only {report.summary['boards']} of {boards} boards finished")
        return boards / elapsed * 60.0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def verdict(a: str, b: str, boards: int, out: Path, workers: int | None, seed: int,
            decision_seconds: float | None = None, ledger: Path | None = None, any_commit: bool = False,
            sprt: str | None = None) -> None:
    keeper = None
    if ledger is not None:
        carry_over(out, ledger, any_commit=any_commit)
        keeper = LedgerKeeper(out, ledger)
    extra: dict = {} if decision_seconds is None else {"decision_seconds": decision_seconds}
    if sprt is not None:
        extra["sprt"] = sprt
    settings = SelfPlaySettings(a=a, b=b, boards=boards, seed=seed, workers=workers, out=out, **extra)
    teams = (load_team(a, seed=seed), load_team(b, seed=seed))
    last = [0.0]

    def progress(p) -> None:
        if keeper is not None:
            keeper.maybe()
        now = time.monotonic()
        if now - last[0] >= 60:  # one line a minute in the log of a run of hours
            last[0] = now
            s = p.summary
            figure = "no interval yet" if s.boards < 2 else f"{s.mean:+.3f} ± {s.high - s.mean:.3f} IMPs/board"
            print(f"{p.done}/{p.planned} boards, {figure}", flush=True)

    try:
        report = run_selfplay(settings, teams, progress=progress)
    finally:
        if keeper is not None:
            print(f"ledger: {keeper.final()} table boards in {keeper.ledger}", flush=True)
    s = report.summary
    par = s["par_adjusted"]
    lo, hi = s["interval95"]
    print(f"RESULT boards={s['boards']} imps_per_board={s['imps_per_board']} stderr={s['stderr']} low={lo} "
          f"high={hi} los={s['los']} flat={s['flat']} voided={s['voided']['count']} "
          f"par_imps_per_board={par['imps_per_board']} par_stderr={par['stderr']}"
          + ("" if s.get("sprt") is None else
             f" sprt={s['sprt']['verdict']} sprt_boards={s['sprt']['boards']} llr={s['sprt']['llr']} "
             f"lower={s['sprt']['bounds'][0]} upper={s['sprt']['bounds'][1]}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=None, help="boards per run (throughput: 40; verdict: 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="throughput on 8 boards")
    parser.add_argument("--verdict", nargs=2, metavar=("A", "B"), help="a long A-against-B run instead")
    parser.add_argument("--out", type=Path, default=None, help="verdict folder (default bench/out/verdict-A-B)")
    parser.add_argument("--workers", type=int, default=None, help="verdict: workers (default one per core)")
    parser.add_argument("--decision-seconds", type=float, default=None,
                        help="verdict: hard limit per decision (the settings' 60 s unless given): at low priority on "
                             "a loaded machine a decision waits for the CPU far longer than it thinks, and a decision "
                             "the limit cuts short voids its board")
    parser.add_argument("--ledger", default=None, help="verdict: the run's ledger (default bench/ledgers/<out's "
                        "name>.jsonl): written as it goes, restored from when the folder has no store")
    parser.add_argument("--any-commit", action="store_true", help="verdict: restore a ledger played at another "
                        "commit (for a change known not to touch play)")
    parser.add_argument("--sprt", default=None, metavar="M0,M1",
                        help="verdict: stop once a sequential test decides between A gaining M0 and M1 IMPs per "
                             "board (--boards is then the most it plays)")
    args = parser.parse_args()
    configure_logging("warning", "auto")
    # SIGTERM (nohup'd runs are stopped with kill) stops a verdict as Ctrl-C does: the pool is shut down and the
    # files are written from the store, instead of an abrupt exit
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.verdict:
        a, b = args.verdict
        name = "-".join(re.sub(r"[^A-Za-z0-9_]+", "_", Path(x).stem) for x in (a, b))
        out = args.out or Path(__file__).resolve().parent / "out" / f"verdict-{name}"
        verdict(a, b, args.boards or 1000, out, args.workers, args.seed, args.decision_seconds,
                ledger_path(out, args.ledger), args.any_commit, args.sprt)
        return
    boards = args.boards or (8 if args.quick else 40)
    one = throughput(boards, 1, args.seed)
    print(f"1 worker:  {one:.1f} boards/min", flush=True)
    two = throughput(boards, 2, args.seed)
    print(f"2 workers: {two:.1f} boards/min", flush=True)
    print(f"RESULT boards={boards} boards_per_min_1w={one:.1f} boards_per_min_2w={two:.1f} scaling={two / one:.2f}")


if __name__ == "__main__":
    main()
