"""Tournaments: a long gauntlet of `default` against other engines, and what each way of playing a pairing costs.

Gauntlet (the default): ``default`` against ``fast``, ``strong`` and ``noinf`` (``bench/selfplay-no-inference.toml``:
the default engine with the Bayesian card weights off), 300 boards per pairing, the same boards in every pairing,
in-process on the local pool, into ``bench/out/tournament-gauntlet`` (``--out``). It runs for hours on a shared
machine; the same command resumes it (every finished board is in the folder's store), and in another session its
ledger does (``bench/ledgers/<DIR's name>.jsonl``, ``--ledger``; written every five minutes and at the end, restored
from when the folder has no store, only at the commit that played it unless ``--any-commit``: ``bench/ledger.py``).

    nice -n 15 .venv/bin/python bench/tournament.py [--boards 300] [--workers W] [--out DIR] [--quick]

The hard limit per decision is 300 s here (``--decision-seconds``; the settings' default is 60): at low priority
on a loaded machine a decision waits for the CPU far longer than it thinks, and a decision the limit cuts short
voids its board.

prints the standings once a minute and ends with ``RESULT boards=.. planned=.. leader=.. vs_<opponent>=<IMPs/board
for default> se_<opponent>=.. n_<opponent>=.. ...`` (``--quick``: 2 boards per pairing in a fresh folder).

Cost (``--cost``): the same boards of ``fast`` against ``fast`` played in-process (one worker) and through our table
manager (``squeeze match``'s way, which a pairing with an external robot takes: eight robot processes on loopback,
the second team launched as a command, ``squeeze seat``), one after the other in this run; wall seconds and CPU
seconds (this process and its children) per board, and their ratios. Ends with ``RESULT boards=..
inprocess_wall_s=.. inprocess_cpu_s=.. tm_wall_s=.. tm_cpu_s=.. wall_ratio=.. cpu_ratio=..``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ledger import LedgerKeeper, carry_over, ledger_path  # noqa: E402

from squeeze.config.settings import TournamentSettings
from squeeze.robot.logs import configure_logging
from squeeze.robot.selfplay.tournament import load_entrants, run_tournament

HERE = Path(__file__).resolve().parent
GAUNTLET = ["default", "fast", "strong", f"noinf={HERE / 'selfplay-no-inference.toml'}"]


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def gauntlet(boards: int, out: Path, workers: int | None, seed: int, decision_seconds: float,
             ledger: Path | None = None, any_commit: bool = False) -> None:
    keeper = None
    if ledger is not None:
        carry_over(out, ledger, any_commit=any_commit)
        keeper = LedgerKeeper(out, ledger)
    settings = TournamentSettings(entrants=GAUNTLET, format="gauntlet", boards=boards, seed=seed, workers=workers,
                                  decision_seconds=decision_seconds, out=out)
    entrants = load_entrants(settings.entrants, seed=seed)
    last = [0.0, -1]

    def progress(p) -> None:
        if keeper is not None:
            keeper.maybe()
        now = time.monotonic()
        if p.done != last[1] and (now - last[0] >= 60 or p.done == p.planned):  # a line a minute: a run of hours
            last[0], last[1] = now, p.done
            parts = []
            for pr in p.standings.pairings:
                figure = "-" if pr.imps_per_board is None else f"{pr.imps_per_board:+.3f}" + (
                    "" if pr.stderr is None else f" ± {1.96 * pr.stderr:.3f}")
                parts.append(f"{pr.match} {pr.boards + pr.voided}/{pr.planned} {figure}")
            print(f"{time.strftime('%H:%M:%S')} {p.done}/{p.planned} boards | " + " | ".join(parts), flush=True)

    try:
        report = run_tournament(settings, entrants, progress=progress)
    finally:
        if keeper is not None:
            print(f"ledger: {keeper.final()} table boards in {keeper.ledger}", flush=True)
    s = report.standings
    fields = [f"boards={sum(p.boards + p.voided for p in s.pairings)}", f"planned={boards * len(s.pairings)}",
              f"leader={s.entrants[0].name}", f"finished={int(s.finished)}"]
    for p in s.pairings:
        fields += [f"vs_{p.b}={p.imps_per_board}", f"se_{p.b}={p.stderr}", f"los_{p.b}={p.los}",
                   f"n_{p.b}={p.boards}", f"voided_{p.b}={p.voided}"]
    for e in s.entrants:
        print(f"{e.rank}. {e.name}: {e.imps_per_board} IMPs/board against the field, se {e.stderr}, "
              f"{e.boards} boards, VP {e.vp}")
    print("RESULT " + " ".join(fields))


def cost(boards: int, seed: int) -> None:
    """In-process against the table manager, fast against fast, the same boards (module doc)."""
    robot = (f"cmd:{sys.executable} -m squeeze.robot.cli seat --host {{host}} --port {{port}} --seat {{seat}} "
             "--team {team} --preset fast")
    figures = {}
    for way, second in (("inprocess", "f2=fast"), ("tm", f"ext={robot}")):
        folder = Path(tempfile.mkdtemp(prefix=f"bench-tournament-{way}-"))
        try:
            settings = TournamentSettings(entrants=["fast", second], boards=boards, seed=seed, workers=1,
                                          chunk_boards=2, out=folder)
            entrants = load_entrants(settings.entrants, seed=seed)
            wall, cpu = time.perf_counter(), _cpu()
            report = run_tournament(settings, entrants)
            wall, cpu = time.perf_counter() - wall, _cpu() - cpu
            done = sum(p.boards + p.voided for p in report.standings.pairings)
            if done != boards:
                raise SystemExit(f"{way}: only {done} of {boards} boards finished ({report.problems})")
            figures[way] = (wall / boards, cpu / boards)
            print(f"{way}: {wall / boards:.2f} s wall, {cpu / boards:.2f} s CPU per board (both rooms)", flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    (iw, ic), (tw, tc) = figures["inprocess"], figures["tm"]
    print(f"RESULT boards={boards} inprocess_wall_s={iw:.2f} inprocess_cpu_s={ic:.2f} tm_wall_s={tw:.2f} "
          f"tm_cpu_s={tc:.2f} wall_ratio={tw / iw:.2f} cpu_ratio={tc / ic:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=None, help="boards per pairing (gauntlet: 300; cost: 8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None, help="gauntlet: workers (default one per core)")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "tournament-gauntlet")
    parser.add_argument("--quick", action="store_true", help="2 boards per pairing (cost: 2 boards), fresh folder")
    parser.add_argument("--cost", action="store_true", help="in-process against the table manager instead")
    parser.add_argument("--decision-seconds", type=float, default=300.0,
                        help="gauntlet: the hard limit per decision (a long run at low priority on a shared "
                             "machine waits for the CPU far more than it thinks)")
    parser.add_argument("--ledger", default=None, help="gauntlet: the run's ledger (default bench/ledgers/<out's "
                        "name>.jsonl): written as it goes, restored from when the folder has no store")
    parser.add_argument("--any-commit", action="store_true", help="gauntlet: restore a ledger played at another "
                        "commit (for a change known not to touch play)")
    args = parser.parse_args()
    configure_logging("warning", "auto")
    if args.cost:
        cost(args.boards or (2 if args.quick else 8), args.seed)
        return
    if args.quick:
        folder = Path(tempfile.mkdtemp(prefix="bench-tournament-quick-"))
        try:
            gauntlet(args.boards or 2, folder, args.workers, args.seed, args.decision_seconds)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    gauntlet(args.boards or 300, args.out, args.workers, args.seed, args.decision_seconds,
             ledger_path(args.out, args.ledger), args.any_commit)


if __name__ == "__main__":
    main()
