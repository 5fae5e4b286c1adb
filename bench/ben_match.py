"""A team match against BEN: our robot against the open-source robot with neural bidding and PIMC play.

BEN (github lorserker/ben, GPL-3.0) runs beside the project, never inside it: ``../shared/tools/ben/`` sets it up
(a snapshot of its repository, a Python 3.12 venv, its stock ONNX configuration with its threads set to this
machine's cores) and writes the launcher ``ben-seat HOST PORT SEAT TEAM``. This bench plays ``squeeze match``
(our table manager in-process, two rooms, the same boards with the seats swapped): team A is our robot (``--a``,
the ``default`` preset), team B is four BEN processes launched through ``--b-cmd``. BEN thinks for minutes on a
board, so the clocks are loosened (``[tm]`` below: no overrun is forced, each is recorded) and the run is made to
last: every finished board is in the match's store as it ends, and the same command resumes where it stopped
(also after a crash or a reboot; a board is counted only once both rooms have finished it).

    .venv/bin/python bench/ben_match.py --boards 300 --out bench/out/ben-match      # (hours; resumes)
    .venv/bin/python bench/ben_match.py --out bench/out/ben-match --report-only     # the report (store or ledger)

``--only 3,6,17-20`` plays only those boards of the seed's set (the same deals, numbers, dealers and vulnerability):
an A/B test of a setting on the boards where it can matter. Example: the boards where a simulated call overrode the
rules in one run, replayed with Borel simulation off (``--a bench/no-borel.toml``); every other board would be bid
the same, so the paired difference over them (``--baseline``) is what the simulation won or lost in the whole run.

``--report-only --patch PART INTO`` reports a run with some of its boards played again: ``PART`` is an ``--only`` run
(the same seed) at a later commit, on the boards a later change can reach; its boards, finished in both rooms,
replace the run's in a copy written to ``INTO`` (``ResultsStore.replace_boards``: the same deals, or it refuses),
and the report (with ``--baseline``) is of that copy. So a replay of hours stands for the final code when a later
change touches only a few of its boards, and says which.

``--repeatable`` runs BEN with its PIMC search ended by its playout count rather than by the clock (``REPEATABLE``,
written as ``config/repeat.conf`` beside its stock configuration and recorded in the run's ``ben_match.json``): BEN
then plays the same cards on the same deal, so a replay against a baseline pairs the play as well as the bidding.
Both runs of a pair need it; the report against a baseline says how far they repeat (whose call or card first
differs). A folder is never resumed with another BEN configuration than the one it started with.

``--fresh-ben`` plays each board in a match of its own (``OUT/boards/NNN``, then merged into the run's store, both
rooms at once): BEN's clients, and ours, start afresh for every board. With ``--repeatable`` BEN plays a board the
same when started the same way (two runs of boards 8 and 20 a quarter of an hour apart, card for card), but what it
plays on a board also depends on the boards its processes played before: the final code's run and a fresh run of
the same code parted at BEN's card on all four of those table boards. So a run against a baseline pairs the play only
if both play every board from fresh processes. ``--a-cmd`` starts our robots through a command (``{host}``,
``{port}``, ``{seat}``, ``{team}``), another checkout's seat for a baseline run through this driver:

    --a-cmd "W/.venv/bin/python -m squeeze.robot.cli seat --host {host} --port {port} --seat {seat} --team {team} \
             --explanations --preset default"

Every finished board is also written to a ledger, ``bench/ben/<out's name>.jsonl`` (the store's ledger,
``ResultsStore.write_ledger``: JSON lines, committed): a session that finds no store in ``--out`` restores one from
the ledger and plays only the boards not in it, so an hours-long run carries over from one session (or machine) to
the next. Ledgers written before 1175eff (one table board a line) are read too.

The report (``report.md``, ``report.json``, ``imps.png`` in ``--out``; ``robot.analysis``) gives IMPs per board for
our robot with its standard error, 95 % interval and likelihood of superiority, each swing split into bidding and
play, think time per decision and per board for each team, incidents, where the IMPs go by category for both robots,
and the 20 worst boards with both rooms' auctions, explanations and play.

BEN's directory: ``--ben DIR``, else ``$BEN_DIR``, else ``${TMPDIR:-/tmp}/ben``. Missing: exit code 2 with how to
set it up. Ends with ``RESULT boards=.. imps_per_board=.. stderr=.. low95=.. high95=.. los=..
think_ratio=..``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ledger import export  # noqa: E402

#: Clocks loose enough for BEN (1.5-3 minutes per board per side when it simulates, on 2 shared cores): an
#: overrun is recorded as an incident, never forced, so both robots play every card they choose.
BEN_TM = {
    "seconds_per_call": 900.0, "seconds_per_card": 900.0, "board_seconds": 7200.0, "ready_seconds": 900.0,
    "time_fate": "warn", "hold_seconds": 180.0,
}
#: A match with no board finished this long is stopped (and resumed by the next attempt of this bench).
STALL_SECONDS = 3600.0
ATTEMPTS = 5
#: Where each run's finished boards are kept as text (``--ledger``): committed, so a later session (or another
#: machine) resumes the run from them when its store is gone.
LEDGERS = Path(__file__).resolve().parent / "ben"


def ben_dir(given: str | None) -> Path:
    return Path(given or os.environ.get("BEN_DIR") or Path(os.environ.get("TMPDIR", "/tmp")) / "ben")


def missing_ben(folder: Path) -> str:
    return (f"BEN is not set up in {folder} (no executable ben-seat there).\n"
            "Set it up beside the project (about 10 minutes, 1.5 GB), then run this again:\n"
            "  1. fetch its source: the search tool's `fetch github:lorserker/ben` (prints a git directory)\n"
            f"  2. BEN_GIT=<that git directory> bash ../shared/tools/ben/setup.sh {folder}\n"
            "or point --ben (or BEN_DIR) at a directory set up that way.")


#: BEN's card play repeats on the same deal only if its PIMC search ends by its playout count, not by the clock: its
#: stock configuration runs that search (the BGADLL library) on two threads cut at 3 s of wall time, so how many
#: playouts it finishes, and so its card, depends on the load (RESULTS, "How much a replay pairs"). One thread and a
#: wait no decision reaches make the search end at ``pimc_max_playouts`` every time; on 6 table boards played twice
#: at once under a load of 8, BEN's play was the same card for card (our own play differed once).
REPEATABLE = {"pimc_max_threads": "1", "pimc_wait": "600"}
REPEATABLE_CONFIG = "config/repeat.conf"


def repeatable_config(folder: Path) -> str:
    """Write BEN's repeatable configuration beside its stock one (``config/local.conf`` of the setup with
    ``REPEATABLE``'s values, nothing else changed) and return its name for ``BEN_CONFIG``. Exits with a message when
    the stock file or one of its keys is missing."""
    src = folder / "ben" / "src"
    stock = src / "config" / "local.conf"
    if not stock.is_file():
        sys.exit(f"error: {stock} is missing: set BEN up again (../shared/tools/ben/setup.sh)")
    with open(stock, encoding="utf-8", newline="") as f:  # (its line ends as they are: the stock file has CRLF)
        lines = f.read().splitlines(keepends=True)
    found = set()
    for i, line in enumerate(lines):
        key = line.split("=", 1)[0].strip()
        if "=" in line and not line.lstrip().startswith("#") and key in REPEATABLE:
            ending = line[len(line.rstrip("\r\n")):]
            lines[i] = f"{key} = {REPEATABLE[key]}{ending}"
            found.add(key)
    if found != set(REPEATABLE):
        sys.exit(f"error: {stock} has no {', '.join(sorted(set(REPEATABLE) - found))}: not the BEN configuration "
                 "this bench knows")
    target = src / REPEATABLE_CONFIG
    text = "".join(lines)
    if not target.is_file() or target.read_bytes() != text.encode("utf-8"):
        with open(target, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return REPEATABLE_CONFIG


def ben_command(folder: Path, nice: int) -> str:
    """The ``--b-cmd`` template that starts one BEN client (``ben-seat HOST PORT SEAT TEAM``) at ``nice`` below us.

    BEN has no clock of its own to meet while ours cuts a decision short at its budget: on a shared machine BEN runs
    at a lower priority than our robots, so other load costs it wall time, not us strength. Each client runs in a
    session of its own, and with the kernel's autogroup scheduling on, the CPU is shared between sessions first and
    a nice value counts only inside one: so the nice goes to the client's session too (``/proc/self/autogroup``;
    where the kernel has no autogroup the write fails quietly and the process's nice alone counts)."""
    return (f"sh -c 'echo {nice} > /proc/self/autogroup 2>/dev/null; exec nice -n {nice} \"$0\" \"$@\"' "
            f"{folder / 'ben-seat'} {{host}} {{port}} {{seat}} {{team}}")


def ben_commit(folder: Path) -> str:
    """The BEN snapshot's commit, as far as the tree says (its git metadata is not exported: the setup log)."""
    marker = folder / "ben" / ".ben-commit"
    return marker.read_text().strip() if marker.is_file() else "unknown"


def export_ledger(out: Path, ledger: Path) -> int:
    """The store in ``out`` written to ``ledger`` (``bench/ledger.py``'s ``export``: every row as a JSON line, with
    the commit and command that played it): the text form of the run that a later session resumes from. Returns the
    number of finished table boards (0 when there is no store)."""
    return export(out, ledger)


def seed_from_ledger(out: Path, ledger: Path, settings) -> int:
    """A new store in ``out`` holding the boards of ``ledger`` (a run carried over from another machine or session):
    the match then resumes with only the boards not in it. A store's ledger is restored whole; a ledger of the
    earlier form (one finished table board a line, written by checkouts before 1175eff: ``baseline.jsonl`` and the
    other replays under ``bench/ben/``) is replayed into a store prepared from ``settings``, each record checked."""
    from squeeze.engine.record import BoardRecord
    from squeeze.robot.match import MATCH_NAME
    from squeeze.robot.tm.run import prepare_run
    from squeeze.robot.tm.store import STORE_FILE, LEDGER_KIND, restore_ledger

    lines = [line for line in ledger.read_text(encoding="utf-8").splitlines() if line.strip()]
    if lines and json.loads(lines[0]).get("kind") == LEDGER_KIND:
        out.mkdir(parents=True, exist_ok=True)
        store, _ = restore_ledger(ledger, out / STORE_FILE)
        try:
            return len(store.results())
        finally:
            store.close()
    # Every line is read and checked before the store is made: a damaged ledger makes nothing and names its line.
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            rows.append((row["match"], row["room"], BoardRecord.from_dict(row["record"]), row["incidents"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"error: {ledger}: line {number} is not a finished table board ({exc})") from None
    store, _ = prepare_run(settings, resume=False)
    try:
        store.add_match(MATCH_NAME, 2, "Squeeze", "BEN")
        for match, room, record, incidents in rows:
            store.commit_board(match, room, record, incidents)
    finally:
        store.close()
    return len(rows)


def parse_only(text: str) -> list[int]:
    """``"3,6,17-20"`` -> ``[3, 6, 17, 18, 19, 20]`` (sorted, each once); a clear error for anything else."""
    from squeeze.robot.tm.plan import PlanError, parse_board_range

    out: set[int] = set()
    for part in text.split(","):
        try:
            first, last = parse_board_range(part)
        except PlanError:
            raise SystemExit(f"error: --only takes board numbers and ranges like 3,6,17-20; got {part.strip()!r}") from None
        out.update(range(first, last + 1))
    return sorted(out)


def write_only_boards(out: Path, only: list[int], boards: int, seed: int) -> Path:
    """The PBN file of the chosen boards of the seed's set (``--only``), written into the match's folder."""
    from squeeze.engine.pbn import encode_pbn, write_pbn
    from squeeze.robot.tm.plan import random_boards

    if only[-1] > boards:
        raise SystemExit(f"error: --only names board {only[-1]}, beyond the match's {boards} boards")
    path = out / "only-boards.pbn"
    chosen = set(only)
    path.write_bytes(encode_pbn(write_pbn(b for b in random_boards(1, boards, seed) if b.board in chosen)))
    return path


def carry_over(out: Path, ledger: Path, args: argparse.Namespace, tm: dict) -> None:
    """Seed the store in ``out`` from ``ledger`` when there is none (another session's run)."""
    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.tm.store import STORE_FILE

    if not (out / STORE_FILE).is_file() and ledger.is_file():
        settings = TableManagerSettings(**{**tm, "port": 0, "results_dir": out, "boards": args.boards,
                                           "seed": args.seed, "rooms": 2})
        print(f"ben_match: {seed_from_ledger(out, ledger, settings)} table boards carried over from {ledger}",
              flush=True)


def patch_run(out: Path, part: Path, into: Path) -> list[int]:
    """A copy of the run in ``out`` written to ``into`` with the boards ``part`` finished in both rooms in place of
    its own (``--patch``); returns their numbers. ``into`` must hold no run."""
    import shutil
    import sqlite3

    from squeeze.robot.match import MATCH_NAME
    from squeeze.robot.tm.store import STORE_FILE, ResultsStore, StoreError

    for folder in (out, part):
        if not (folder / STORE_FILE).is_file():
            raise SystemExit(f"error: {folder} holds no run (no {STORE_FILE})")
    if (into / STORE_FILE).exists():
        raise SystemExit(f"error: {into} already holds a run: --patch writes a new folder")
    into.mkdir(parents=True, exist_ok=True)
    source, copy = sqlite3.connect(out / STORE_FILE), sqlite3.connect(into / STORE_FILE)
    try:
        source.backup(copy)  # (a consistent copy of a store another process may still be writing)
    finally:
        source.close()
        copy.close()
    if (out / "analysis-dd.json").is_file():  # the report's cache of double-dummy tables, by deal
        shutil.copy(out / "analysis-dd.json", into / "analysis-dd.json")
    store, other = ResultsStore(into / STORE_FILE, create=False), ResultsStore(part / STORE_FILE, create=False)
    try:
        return store.replace_boards(MATCH_NAME, other)
    except StoreError as exc:
        raise SystemExit(f"error: --patch {part}: {exc}") from None
    finally:
        store.close()
        other.close()


def run(args: argparse.Namespace, folder: Path) -> None:
    from squeeze.robot.logs import configure_logging
    from squeeze.robot.match import TeamSpec, run_match
    from squeeze.robot.tm.store import STORE_FILE

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = parse_only(args.only) if args.only else None
    if args.repeatable:  # (BEN's launcher reads BEN_CONFIG from the environment its seats inherit)
        os.environ["BEN_CONFIG"] = repeatable_config(folder)
    config = {"boards": args.boards, "seed": args.seed, "a": args.a, "a_cmd": args.a_cmd, "fresh_ben": args.fresh_ben,
              "only": only, "ben": str(folder),
              "ben_nice": args.ben_nice,
              "ben_commit": ben_commit(folder), "ben_config": os.environ.get("BEN_CONFIG", "config/local.conf"),
              "tm": BEN_TM, "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])}
    info = out / "ben_match.json"
    if info.is_file():
        before = json.loads(info.read_text())
        # (a BEN configuration is compared only where the folder recorded one: early runs did not)
        # (and a command for our robots and fresh processes per board likewise: recorded since they exist)
        differ = [k for k in ("boards", "seed", "a", "only", "ben_config", "a_cmd", "fresh_ben")
                  if before.get(k) != config[k] and (k in before or k in ("boards", "seed", "a", "only"))]
        if differ:
            sys.exit(f"error: {out} holds a BEN match with other {', '.join(differ)} "
                     f"({', '.join(f'{k}={before.get(k)!r}' for k in differ)}): give the same, or another --out")
    info.write_text(json.dumps(config, indent=1) + "\n")
    ledger = Path(args.ledger) if args.ledger else LEDGERS / f"{out.name}.jsonl"
    tm = dict(BEN_TM)
    if only:
        tm["boards_file"] = write_only_boards(out, only, args.boards, args.seed)
    carry_over(out, ledger, args, tm)
    log = open(out / "match.log", "a", encoding="utf-8")
    configure_logging("info", "json", stream=log)
    command = ben_command(folder, args.ben_nice)
    # Our robots wait for BEN as long as the manager's clocks let it think: with the seat's default silence
    # timeout (300 s) a loaded machine made them give up mid-board while BEN simulated, and each restart of a seat
    # restarts the board for all four (the robots inherit this process's environment; BEN ignores it).
    os.environ["SQUEEZE_ROBOT__SILENCE_TIMEOUT_SECONDS"] = str(BEN_TM["board_seconds"])
    team_a = TeamSpec("Squeeze", args.a, command=args.a_cmd)
    if args.fresh_ben:
        play_fresh(args, out, ledger, tm, team_a, TeamSpec("BEN", None, command=command), only)
        return
    for attempt in range(1, ATTEMPTS + 1):
        resume = (out / STORE_FILE).is_file()
        t0 = time.monotonic()
        print(f"ben_match: attempt {attempt}, {'resuming' if resume else 'starting'} in {out}", flush=True)
        result = asyncio.run(run_match(args.boards, team_a, TeamSpec("BEN", None, command=command),
                                       out, seed=args.seed, resume=resume, tm_settings=dict(tm),
                                       max_restarts=20, stall_seconds=STALL_SECONDS,
                                       on_progress=_progress(out, ledger)))
        export_ledger(out, ledger)
        print(f"ben_match: {result.summary.get('boards')} boards compared after {time.monotonic() - t0:.0f} s; "
              f"finished={result.finished} problems={result.problems}", flush=True)
        if result.finished:
            break


def play_fresh(args: argparse.Namespace, out: Path, ledger: Path, tm: dict, team_a, team_b, only) -> None:
    """``--fresh-ben``: every board not yet finished in both rooms of the run's store is played in a match of its own
    in ``out/boards/NNN`` (its robots and BEN's clients started for it alone), and its two rooms go into the run's
    store in one transaction. A board stopped part-way resumes in its own folder (a room it finished stands; the
    other starts again, with fresh processes again)."""
    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.match import MATCH_NAME, run_match
    from squeeze.robot.tm.run import prepare_run
    from squeeze.robot.tm.store import STORE_FILE, ResultsStore

    settings = TableManagerSettings(**{**tm, "port": 0, "results_dir": out, "boards": args.boards, "seed": args.seed,
                                       "rooms": 2})
    store, _ = prepare_run(settings)
    try:
        if MATCH_NAME not in {m.name for m in store.matches()}:
            store.add_match(MATCH_NAME, 2, team_a.name, team_b.name)
        done: dict[int, set[str]] = {}
        for row in store.results():
            done.setdefault(row.board, set()).add(row.room)
        boards = only or list(range(1, args.boards + 1))

        def progress() -> None:
            n = sum(1 for b in boards if done.get(b) == {"Open", "Closed"})
            print(f"ben_match: {2 * n}/{2 * len(boards)} table boards finished", flush=True)

        todo = [b for b in boards if done.get(b) != {"Open", "Closed"}]
        progress()
        for board in todo:
            part = out / "boards" / f"{board:03d}"
            part.mkdir(parents=True, exist_ok=True)
            part_tm = {**tm, "boards_file": write_only_boards(part, [board], args.boards, args.seed)}
            for _attempt in range(ATTEMPTS):
                result = asyncio.run(run_match(args.boards, team_a, team_b, part, seed=args.seed,
                                               resume=(part / STORE_FILE).is_file(), tm_settings=dict(part_tm),
                                               max_restarts=20, stall_seconds=STALL_SECONDS))
                if result.finished:
                    break
            else:
                sys.exit(f"error: board {board} did not finish in {ATTEMPTS} attempts ({part})")
            part_store = ResultsStore(part / STORE_FILE, create=False)
            try:
                rows = [(r.room, r.record, r.incidents) for r in part_store.results() if r.board == board]
            finally:
                part_store.close()
            # the rooms this store lacks (a run stopped between the two commits never leaves one room alone: one
            # transaction), so a board is never counted twice
            store.commit_boards(MATCH_NAME, [r for r in rows if r[0] not in done.get(board, set())])
            done[board] = {r[0] for r in rows}
            progress()
            export_ledger(out, ledger)
    finally:
        store.close()


def _progress(out: Path, ledger: Path):
    last = {"n": -1}

    def show(manager, progress) -> None:
        # table boards finished; a checkout from before the per-room count (the baseline's) gives the sum only
        n = sum(progress["rooms"].values()) if "rooms" in progress else progress["finished"]
        if n != last["n"]:
            last["n"] = n
            print(f"ben_match: {n}/{2 * progress['total']} table boards finished", flush=True)
            export_ledger(out, ledger)

    return show


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300, help="boards, each played in both rooms")
    ap.add_argument("--out", default="bench/out/ben-match", help="the match's folder (the same command resumes)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals (the same seed replays the same boards)")
    ap.add_argument("--a", default="default", help="our robot: a preset or a TOML settings file")
    ap.add_argument("--ben", default=None, help="BEN's directory (from ../shared/tools/ben/setup.sh)")
    ap.add_argument("--ben-nice", type=int, default=5, help="BEN's priority below ours (nice increment)")
    ap.add_argument("--report-only", action="store_true", help="write the report from the store, play nothing")
    ap.add_argument("--ledger", default=None, help="the run's finished boards as JSON lines (default "
                                                   "bench/ben/<out's name>.jsonl): written as boards finish, read "
                                                   "to resume when --out has no store")
    ap.add_argument("--export-ledger", action="store_true", help="only write the ledger from the store")
    ap.add_argument("--baseline", default=None, help="another run's folder on the same boards: paired difference")
    ap.add_argument("--only", default=None, help="play only these boards of the seed's set, e.g. 3,6,17-20 (an A/B "
                                                 "test on the boards where a setting matters)")
    ap.add_argument("--patch", nargs=2, metavar=("PART", "INTO"), default=None,
                    help="with --report-only: PART's boards (an --only run) replace this run's in a copy written to "
                         "INTO, and the report is of that copy")
    ap.add_argument("--repeatable", action="store_true",
                    help="BEN with its PIMC search on one thread and never cut by the clock, so that it plays the "
                         "same cards on the same deal (a replay then pairs the play too); written beside its stock "
                         "configuration as " + REPEATABLE_CONFIG)
    ap.add_argument("--fresh-ben", action="store_true",
                    help="each board in a match of its own, BEN's clients (and ours) started afresh for it: what "
                         "BEN plays then depends on the board alone, not on the boards its processes played before")
    ap.add_argument("--a-cmd", default=None, metavar="COMMAND",
                    help="our robots started through this command ({host} {port} {seat} {team}), e.g. another "
                         "checkout's seat for a baseline run")
    ap.add_argument("--quick", action="store_true", help="2 boards")
    args = ap.parse_args()
    if args.patch and not args.report_only:
        ap.error("--patch goes with --report-only")
    # SIGTERM stops the run as Ctrl-C does: the match stops its robots and BEN's clients (each in a session of its
    # own, so nothing else would), and the store keeps every finished board for the same command to resume
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if args.quick:
        args.boards = 2
    folder = ben_dir(args.ben)
    if args.export_ledger:
        ledger = Path(args.ledger) if args.ledger else LEDGERS / f"{Path(args.out).name}.jsonl"
        print(f"ben_match: {export_ledger(Path(args.out), ledger)} table boards written to {ledger}")
        return
    if not args.report_only:
        if not (folder / "ben-seat").is_file() or not os.access(folder / "ben-seat", os.X_OK):
            print(missing_ben(folder), file=sys.stderr)
            sys.exit(2)
        try:
            run(args, folder)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: every finished board is in the store and the ledger
            out = Path(args.out)
            ledger = Path(args.ledger) if args.ledger else LEDGERS / f"{out.name}.jsonl"
            print(f"ben_match: stopped; {export_ledger(out, ledger)} table boards kept in {out} and {ledger}; the "
                  "same command resumes", flush=True)
            sys.exit(1)
    else:  # the report of a run whose store is on another machine: from its committed ledger
        carry_over(Path(args.out), Path(args.ledger) if args.ledger else LEDGERS / f"{Path(args.out).name}.jsonl",
                   args, dict(BEN_TM))
    if args.patch:
        part, into = (Path(x) for x in args.patch)
        boards = patch_run(Path(args.out), part, into)
        print(f"ben_match: {len(boards)} boards of {part} in place of the run's ({', '.join(map(str, boards))}), "
              f"in {into}", flush=True)
        args.out = str(into)
    from squeeze.robot.analysis import write_report

    report = write_report(Path(args.out), ours="Squeeze", baseline=None if args.baseline is None else Path(args.baseline))
    v = report["verdict"]
    print(f"RESULT boards={v['boards']} imps_per_board={v['imps_per_board']} stderr={v['stderr']} "
          f"low95={v['interval95'][0]} high95={v['interval95'][1]} los={v['los']} "
          f"think_ratio={report['think']['ratio']}")


if __name__ == "__main__":
    main()
