"""The table manager's durable results store: ``ResultsStore``, one SQLite file per run (``DIR/results.sqlite``).

Why SQLite: a finished board must be on disk before its table moves on, and a board must never count twice, even
when the manager is killed between any two instructions. SQLite in WAL mode with ``synchronous=FULL`` makes each
commit durable (the WAL is fsync'd) before ``commit_board`` returns, a ``PRIMARY KEY (match, room, board)`` makes a
second result for the same table and board impossible (``DuplicateBoardError``), and a crash mid-write leaves the
last committed state (SQLite rolls a torn transaction back). A JSONL journal (``robot.runlog``) gives durability too,
but its exactly-once rule would live in our code; here the database enforces it. The standard library's ``sqlite3``
is enough: one writer (the manager's event loop), a handful of small rows per board.

Tables:

- ``meta``: key/value; ``schema`` and ``plan`` (the boards and rooms of the run, so that ``--resume`` refuses a
  different match);
- ``deals``: the boards to play, each a ``BoardRecord`` JSON (deal, dealer, vulnerability, event): stored once, so a
  resumed run plays exactly the same deals whatever the random seed or file does later;
- ``matches``: the matches (tables or open/closed pairs of rooms) by name with their two teams: team ``a`` sits N/S
  in the open room and E/W in the closed room;
- ``results``: one row per finished board per room: the board's ``BoardRecord`` JSON and the incidents of the attempt
  that finished it (clock warnings, forced calls or cards), as JSON;
- ``incidents``: everything that happened to boards, finished or not (voided attempts, restarts, drops, clocks),
  for the director; a self-play board voided for good by a robot's error is an incident of kind ``error`` in each
  room (``void_board``), so that a resumed run does not play it again;
- ``dd``: a deal's double-dummy table, when the run computed one (self-play does, to split swings into bidding and
  play and to score each room against par); added after schema 1 shipped, created on opening like the others,
  so older stores simply have none.

A store also has a text form, its **ledger** (``write_ledger``, ``restore_ledger``): one JSON line per row of every
table, after a header line naming the format and the schema. A run of hours keeps its ledger in the repository, so a
session on another machine (or after the folder is lost) restores the store from it and plays only what is missing.
Why JSON lines and not ``sqlite3``'s own ``iterdump``: a dump restores anything it is given (SQL run blind), where
each ledger line is read as data, checked against the table's columns and refused with its line number; and a new
row is a new line, so the committed file grows by diffs.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from squeeze.engine.record import BoardRecord

__all__ = ["ResultsStore", "StoreError", "StoreWriteError", "DuplicateBoardError", "MatchRow", "ResultRow", "STORE_SCHEMA",
           "STORE_FILE", "plan_differences", "LedgerError", "LEDGER_KIND", "restore_ledger", "read_ledger_header"]

#: Bumped when the tables change; a store of another schema is refused, never misread.
STORE_SCHEMA = 1
#: The store's file name under the results folder.
STORE_FILE = "results.sqlite"

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deals (board INTEGER PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    name TEXT PRIMARY KEY, team_a TEXT, team_b TEXT, rooms INTEGER NOT NULL CHECK (rooms IN (1, 2)),
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    match TEXT NOT NULL REFERENCES matches(name), room TEXT NOT NULL, board INTEGER NOT NULL REFERENCES deals(board),
    record TEXT NOT NULL, incidents TEXT NOT NULL, finished REAL NOT NULL,
    PRIMARY KEY (match, room, board)
);
CREATE TABLE IF NOT EXISTS dd (board INTEGER PRIMARY KEY REFERENCES deals(board), tricks TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY, match TEXT NOT NULL, room TEXT NOT NULL, board INTEGER, kind TEXT NOT NULL,
    detail TEXT NOT NULL, at REAL NOT NULL
);
"""

#: The first line of every ledger names it; a file without it is refused rather than guessed at.
LEDGER_KIND = "squeeze-results-ledger"
#: The tables a ledger holds, in an order that restores without breaking a foreign key (deals before results...).
_LEDGER_TABLES = ("meta", "deals", "matches", "results", "dd", "incidents")


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): data}


def _shown(value: Any) -> str:
    """A plan value as a user reads it: a run of board numbers as ``1-16``, a checksum cut short."""
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        runs, start = [], value[0]
        for prev, cur in zip(value, value[1:] + [None]):
            if cur != prev + 1 if cur is not None else True:
                runs.append(str(start) if start == prev else f"{start}-{prev}")
                start = cur
        return "boards " + ", ".join(runs)
    if isinstance(value, str) and len(value) > 24:
        return repr(value[:12] + "...")
    return "(unset)" if value is None else repr(value)


def plan_differences(stored: dict, wanted: dict) -> list[str]:
    """What differs between a stored run's plan and the plan of the command given now, key by key (nested keys
    dotted): ``["rooms: 1 in the stored run, 2 now", ...]``."""
    a, b = _flat(stored), _flat(wanted)
    return [f"{_PLAN_KEYS.get(k, k)}: {_shown(a.get(k))} in the stored run, {_shown(b.get(k))} now"
            for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]


_PLAN_KEYS = {"digest": "the deals (checksum)"}


class StoreError(RuntimeError):
    """The store cannot be used as asked: another schema, another plan, a fresh run over an existing store."""


class StoreWriteError(StoreError):
    """The store could not write (disk full, read-only folder, I/O error): nothing of that write is stored, and the
    table manager stops rather than let a table move on past a board it could not record (``--resume`` replays it
    once the folder is writable again)."""


class LedgerError(StoreError):
    """A ledger that cannot be restored (not a ledger, another schema, a malformed or unknown line): nothing made."""


class DuplicateBoardError(StoreError):
    """A second result for a board already finished in that match and room (refused: nothing is counted twice)."""


@dataclass(frozen=True)
class MatchRow:
    name: str
    team_a: Optional[str]  #: N/S in the open room, E/W in the closed room
    team_b: Optional[str]
    rooms: int


@dataclass(frozen=True)
class ResultRow:
    match: str
    room: str
    board: int
    record: BoardRecord
    incidents: tuple[str, ...]
    finished: float


class ResultsStore:
    """The store at ``path``. ``create=True`` starts a run (refused if the file already holds one); ``False``
    opens an existing run to resume or export it (refused if there is none)."""

    def __init__(self, path: str | Path, *, create: bool) -> None:
        self.path = Path(path)
        exists = self.path.exists() and self.path.stat().st_size > 0
        if create and exists:
            raise StoreError(f"{self.path} already holds a run: continue it (the same command) or choose another "
                             "folder")
        if not create and not exists:
            raise StoreError(f"{self.path}: no run to resume here")
        try:
            # isolation_level=None: we open every transaction ourselves (BEGIN IMMEDIATE), so nothing is left pending.
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # WAL fsync'd at every commit: a result survives a power cut
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_TABLES)  # (autocommit: each CREATE is its own transaction, and idempotent)
        except sqlite3.OperationalError as exc:  # a read-only folder or file, a full disk
            raise StoreWriteError(f"cannot open {self.path} for writing: {exc} (is the folder read-only or the "
                                  "disk full?)") from None
        schema = self._meta("schema")
        if schema is None:
            self._set_meta("schema", str(STORE_SCHEMA))
        elif schema != str(STORE_SCHEMA):
            raise StoreError(f"{self.path} has store schema {schema}; this version reads schema {STORE_SCHEMA}")

    # --- transactions -------------------------------------------------------------------------------------------
    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, kind, value, tb) -> None:
            if kind is None:
                try:
                    self.db.execute("COMMIT")
                    return
                except sqlite3.Error:
                    # SQLite may leave the transaction open after a failed COMMIT (disk full, I/O error); roll it
                    # back so that the connection is not stuck inside it, then report the failure.
                    self._rollback()
                    raise
            self._rollback()

        def _rollback(self) -> None:
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error:  # (SQLite already rolled it back itself)
                    pass

    def _tx(self) -> "ResultsStore._Tx":
        return ResultsStore._Tx(self._db)

    def _write_failed(self, what: str, exc: sqlite3.Error) -> StoreWriteError:
        return StoreWriteError(f"cannot write {what} to {self.path}: {exc} (is the disk full or the folder read-only?)")

    def close(self) -> None:
        self._db.close()

    # --- meta and plan ------------------------------------------------------------------------------------------
    def _meta(self, key: str) -> Optional[str]:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _set_meta(self, key: str, value: str) -> None:
        try:
            with self._tx() as db:
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"setting {key!r}", exc) from None

    def set_plan(self, boards: Iterable[BoardRecord], plan: dict) -> None:
        """Store the boards of a new run and ``plan`` (what else defines the run: rooms, ...), in one transaction.

        Raises:
            StoreError: a plan is already stored.
        """
        if self._meta("plan") is not None:
            raise StoreError(f"{self.path} already has a plan")
        try:
            with self._tx() as db:
                db.executemany("INSERT INTO deals (board, record) VALUES (?, ?)",
                               [(b.board, b.to_json()) for b in boards])
                db.execute("INSERT INTO meta (key, value) VALUES ('plan', ?)", (json.dumps(plan, sort_keys=True),))
        except sqlite3.OperationalError as exc:
            raise self._write_failed("the plan", exc) from None

    def plan(self) -> Optional[dict]:
        text = self._meta("plan")
        return None if text is None else json.loads(text)

    def set_settings(self, settings: dict) -> None:
        """Record the settings the table manager runs with (those of the latest start: a resumed run may loosen
        its clocks), so a result can always be read beside the rules it was played under."""
        self._set_meta("settings", json.dumps(settings, sort_keys=True))

    def settings(self) -> Optional[dict]:
        text = self._meta("settings")
        return None if text is None else json.loads(text)

    def deals(self) -> list[BoardRecord]:
        """The boards of the run, in board order."""
        return [BoardRecord.from_json(r[0]) for r in self._db.execute("SELECT record FROM deals ORDER BY board")]

    # --- matches ------------------------------------------------------------------------------------------------
    def add_match(self, name: str, rooms: int, team_a: Optional[str] = None, team_b: Optional[str] = None) -> None:
        try:
            with self._tx() as db:
                db.execute("INSERT INTO matches (name, team_a, team_b, rooms, created) VALUES (?, ?, ?, ?, ?)",
                           (name, team_a, team_b, rooms, time.time()))
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"match {name!r}", exc) from None

    def set_teams(self, name: str, team_a: Optional[str], team_b: Optional[str]) -> None:
        try:
            with self._tx() as db:
                db.execute("UPDATE matches SET team_a = ?, team_b = ? WHERE name = ?", (team_a, team_b, name))
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"the teams of {name!r}", exc) from None

    def matches(self) -> list[MatchRow]:
        rows = self._db.execute("SELECT name, team_a, team_b, rooms FROM matches ORDER BY created, name")
        return [MatchRow(*r) for r in rows]

    # --- results ------------------------------------------------------------------------------------------------
    def commit_board(self, match: str, room: str, record: BoardRecord, incidents: Iterable[str] = ()) -> None:
        """Record a finished board; on disk when this returns.

        Raises:
            DuplicateBoardError: that board is already finished in that match and room (the store is unchanged).
            StoreWriteError: the write failed (disk full, read-only, I/O error): the board is not stored.
            StoreError: the board is not one of the run's deals, or the match is unknown.
        """
        self.commit_boards(match, [(room, record, incidents)])

    def commit_boards(self, match: str, rooms: Sequence[tuple[str, BoardRecord, Iterable[str]]],
                      dd: Optional[tuple[int, list]] = None) -> None:
        """Record several rooms' results (``(room, record, incidents)``) and optionally a deal's double-dummy table
        ``(board, tricks)`` in one transaction: all of them are on disk when this returns, or none (self-play
        commits both rooms of a board at once, so a crash never leaves one room of it).

        Raises: as ``commit_board``, for any of them (the store is then unchanged).
        """
        try:
            with self._tx() as db:
                db.executemany(
                    "INSERT INTO results (match, room, board, record, incidents, finished) VALUES (?, ?, ?, ?, ?, ?)",
                    [(match, room, record.board, record.to_json(), json.dumps(list(incidents)), time.time())
                     for room, record, incidents in rooms])
                if dd is not None:
                    db.execute("INSERT OR REPLACE INTO dd (board, tricks) VALUES (?, ?)", (dd[0], json.dumps(dd[1])))
        except sqlite3.IntegrityError as exc:
            boards = ", ".join(f"board {r.board} ({room or 'the only room'})" for room, r, _ in rooms)
            if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                raise DuplicateBoardError(f"{match}: {boards}: already finished") from None
            raise StoreError(f"{match}: {boards}: {exc}") from None
        except sqlite3.OperationalError as exc:
            boards = ", ".join(f"board {r.board} ({room or 'the only room'})" for room, r, _ in rooms)
            raise self._write_failed(f"{boards} of {match}", exc) from None

    def void_board(self, match: str, rooms: Iterable[str], board: int, detail: str) -> None:
        """Void ``board`` for good in each of ``rooms`` (an ``error`` incident each, in one transaction): it is not
        played again; ``errors`` lists it."""
        now = time.time()
        try:
            with self._tx() as db:
                db.executemany("INSERT INTO incidents (match, room, board, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
                               [(match, room, board, "error", detail, now) for room in rooms])
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"the void of board {board} of {match}", exc) from None

    def errors(self, match: str) -> dict[int, str]:
        """The boards of ``match`` voided for good (``void_board``), each with its error."""
        rows = self._db.execute("SELECT board, detail FROM incidents WHERE match = ? AND kind = 'error' ORDER BY id",
                                (match,))
        return {board: detail for board, detail in rows}

    def dd_tables(self) -> dict[int, list]:
        """The double-dummy tables stored, by board: ``tricks[strain][seat]`` as ``engine.dds.DDTable`` holds them."""
        return {board: json.loads(tricks) for board, tricks in self._db.execute("SELECT board, tricks FROM dd")}

    def finished(self, match: str, room: str) -> set[int]:
        rows = self._db.execute("SELECT board FROM results WHERE match = ? AND room = ?", (match, room))
        return {r[0] for r in rows}

    def results(self) -> list[ResultRow]:
        """Every finished board, by match, board and room (open before closed)."""
        rows = self._db.execute(
            "SELECT match, room, board, record, incidents, finished FROM results "
            "ORDER BY match, board, CASE room WHEN 'Closed' THEN 1 ELSE 0 END")
        return [ResultRow(r[0], r[1], r[2], BoardRecord.from_json(r[3]), tuple(json.loads(r[4])), r[5]) for r in rows]

    def replace_boards(self, match: str, other: "ResultsStore") -> list[int]:
        """The boards ``other`` finished in every room this store finished them in replace this store's results of
        those boards (records and incidents), in one transaction; returns their numbers. For a run replayed in
        part at a later commit (``bench/ben_match.py --only``): the boards a later change can reach, played again,
        take the place of the first run's, and the rest stand.

        Raises:
            StoreError: ``other`` deals one of those boards differently, or finished a board this store has not
                (or in other rooms), or has no such match: nothing is changed.
        """
        def rooms(store: "ResultsStore") -> dict[int, set[str]]:
            by: dict[int, set[str]] = {}
            for room, board in store._db.execute("SELECT room, board FROM results WHERE match = ?", (match,)):
                by.setdefault(board, set()).add(room)
            return by

        ours, theirs = rooms(self), rooms(other)
        if not theirs:
            raise StoreError(f"{other.path} has no finished board of {match}")
        deals = {d.board: d for d in self.deals()}
        for d in other.deals():
            if d.board in theirs and (d.board not in deals or
                                      (d.deal, d.dealer, d.vul) != (deals[d.board].deal, deals[d.board].dealer,
                                                                    deals[d.board].vul)):
                raise StoreError(f"board {d.board} of {other.path} is not the deal of board {d.board} here: "
                                 "not the same run's boards")
        for board, got in sorted(theirs.items()):
            if ours.get(board) != got:
                raise StoreError(f"{other.path} finished board {board} in {', '.join(sorted(got))}; this run "
                                 f"finished it in {', '.join(sorted(ours.get(board, ()))) or 'no room'}")
        boards = sorted(theirs)
        rows = list(other._db.execute("SELECT room, board, record, incidents, finished FROM results WHERE match = ?",
                                      (match,)))
        events = list(other._db.execute("SELECT room, board, kind, detail, at FROM incidents WHERE match = ? AND "
                                        "board IS NOT NULL ORDER BY id", (match,)))
        marks = ", ".join("?" * len(boards))
        try:
            with self._tx() as db:
                db.execute(f"DELETE FROM results WHERE match = ? AND board IN ({marks})", (match, *boards))
                db.execute(f"DELETE FROM incidents WHERE match = ? AND board IN ({marks})", (match, *boards))
                db.executemany("INSERT INTO results (match, room, board, record, incidents, finished) "
                               "VALUES (?, ?, ?, ?, ?, ?)", [(match, *r) for r in rows])
                db.executemany("INSERT INTO incidents (match, room, board, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
                               [(match, *e) for e in events if e[1] in theirs])
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"boards {', '.join(map(str, boards))} of {match}", exc) from None
        return boards

    # --- the text form: the ledger ---------------------------------------------------------------------------------
    def write_ledger(self, path: str | Path, source: Optional[dict] = None) -> int:
        """Write the whole store to ``path`` as a ledger (module doc): a header line (``LEDGER_KIND``, the schema and
        ``source``, e.g. the commit and command that played the run), then each table's rows in order. The rows are
        read in one transaction, so a run writing meanwhile (another process) is caught between two boards; the
        file is written whole, synced, then renamed over the old one. Returns the number of finished table boards.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        results = 0
        with tmp.open("w", encoding="utf-8") as f:
            f.write(json.dumps({"kind": LEDGER_KIND, "schema": STORE_SCHEMA, "source": source or {}},
                               sort_keys=True) + "\n")
            self._db.execute("BEGIN")  # a read snapshot (WAL): every table as of one moment
            try:
                for table in _LEDGER_TABLES:
                    cursor = self._db.execute(f"SELECT * FROM {table} ORDER BY rowid")
                    columns = [d[0] for d in cursor.description]
                    for row in cursor:
                        f.write(json.dumps({"table": table, "row": dict(zip(columns, row))}, sort_keys=True) + "\n")
                        results += table == "results"
            finally:
                self._db.execute("COMMIT")
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
        return results

    # --- incidents ----------------------------------------------------------------------------------------------
    def add_incident(self, match: str, room: str, board: Optional[int], kind: str, detail: str) -> None:
        try:
            with self._tx() as db:
                db.execute("INSERT INTO incidents (match, room, board, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
                           (match, room, board, kind, detail, time.time()))
        except sqlite3.OperationalError as exc:
            raise self._write_failed(f"an incident of {match}", exc) from None

    def incidents(self) -> list[tuple[str, str, Optional[int], str, str]]:
        """``(match, room, board, kind, detail)`` in the order they happened."""
        return list(self._db.execute("SELECT match, room, board, kind, detail FROM incidents ORDER BY id"))


def _ledger_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise LedgerError(f"{path}: no such ledger") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"{path}: cannot read it as a ledger: {exc}") from None


def _ledger_header(path: Path, lines: list[str]) -> dict:
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("kind") != LEDGER_KIND:
        raise LedgerError(f"{path}: line 1 is not a results ledger's header (kind {LEDGER_KIND!r})")
    if header.get("schema") != STORE_SCHEMA:
        raise LedgerError(f"{path} holds store schema {header.get('schema')}; this version reads schema "
                          f"{STORE_SCHEMA}")
    if not isinstance(header.get("source", {}), dict):
        raise LedgerError(f"{path}: line 1: its source is not an object")
    return header


def read_ledger_header(path: str | Path) -> dict:
    """A ledger's header (``kind``, ``schema``, ``source``), checked. Raises ``LedgerError``."""
    path = Path(path)
    return _ledger_header(path, _ledger_lines(path))


def restore_ledger(ledger: str | Path, store_path: str | Path) -> tuple[ResultsStore, dict]:
    """A new store at ``store_path`` holding exactly what ``ledger`` holds, and the ledger's header. Every line is
    checked (JSON, a known table, that table's columns) before the store is made, and all rows go in one
    transaction: a bad ledger makes nothing, and names its line.

    Raises:
        LedgerError: the ledger is unreadable or malformed (nothing is made).
        StoreError: ``store_path`` already holds a run, or the rows break the store's keys (nothing is left).
    """
    ledger, store_path = Path(ledger), Path(store_path)
    lines = _ledger_lines(ledger)
    header = _ledger_header(ledger, lines)
    probe = sqlite3.connect(":memory:")  # each table's columns, from the one schema text
    probe.executescript(_TABLES)
    columns = {t: {r[1] for r in probe.execute(f"PRAGMA table_info({t})")} for t in _LEDGER_TABLES}
    probe.close()
    rows: dict[str, list[dict]] = {t: [] for t in _LEDGER_TABLES}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LedgerError(f"{ledger}: line {number}: not JSON ({exc.msg})") from None
        table = item.get("table") if isinstance(item, dict) else None
        row = item.get("row") if isinstance(item, dict) else None
        if table not in columns or not isinstance(row, dict):
            raise LedgerError(f"{ledger}: line {number}: not a row of a store table ({', '.join(_LEDGER_TABLES)})")
        if set(row) != columns[table]:
            raise LedgerError(f"{ledger}: line {number}: a {table} row has columns {sorted(row)}; the table has "
                              f"{sorted(columns[table])}")
        rows[table].append(row)
    store = ResultsStore(store_path, create=True)
    try:
        with store._tx() as db:
            db.execute("DELETE FROM meta")  # (the new store wrote its schema; the ledger's meta says the same)
            for table in _LEDGER_TABLES:
                for row in rows[table]:
                    names = sorted(row)
                    db.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                               [row[n] for n in names])
    except sqlite3.Error as exc:
        store.close()
        for leftover in (store_path, store_path.with_name(store_path.name + "-wal"),
                         store_path.with_name(store_path.name + "-shm")):
            leftover.unlink(missing_ok=True)
        raise StoreError(f"{ledger}: its rows do not make a store ({exc}); nothing was written to {store_path}") \
            from None
    return store, header
