"""Carrying a long run across sessions and machines: its store's ledger, committed under ``bench/ledgers/``.

A verdict of a thousand boards takes longer than a session, and a session's folders do not outlive its machine. So
a long bench (``selfplay.py --verdict``, ``tournament.py``) writes its store's ledger (``ResultsStore.write_ledger``:
the whole store as JSON lines) every few minutes and at the end, to ``bench/ledgers/<the out folder's name>.jsonl``
(``--ledger`` to choose). A run that finds no store in its folder but a ledger restores the store from it
(``restore_ledger``) and plays only the boards missing.

The ledger records the commit that played it. What a run measures is that code, so a ledger is restored only into
a checkout at the same commit (``git worktree add DIR COMMIT``; the refusal names it); ``--any-commit`` overrides,
for a change known not to touch play (the boards then mix two commits, and the ledger says which came last).
"""

from __future__ import annotations

import functools
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

from squeeze.robot.tm.store import STORE_FILE, ResultsStore, read_ledger_header, restore_ledger

ROOT = Path(__file__).resolve().parents[1]
LEDGERS = ROOT / "bench" / "ledgers"
#: How often a running bench rewrites its ledger: a crash loses at most this much of the text form (never the
#: store's boards), and a commit of the ledger is never more than this far behind.
EVERY_SECONDS = 300.0


@functools.lru_cache(maxsize=None)  # once a process: a bench writes its ledger after every board
def checkout_commit() -> str:
    """This checkout's commit, with ``+dirty`` when tracked files under the project's code differ from it, or
    ``unknown`` outside git."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "engine", "robot", "config", "protocol")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def ledger_path(out: Path, given: Optional[str]) -> Path:
    return Path(given) if given else LEDGERS / f"{Path(out).name}.jsonl"


def carry_over(out: Path, ledger: Path, *, any_commit: bool) -> int:
    """Restore the store in ``out`` from ``ledger`` when ``out`` has none (module doc): the number of finished table
    boards carried over, 0 when there was nothing to restore. Exits with a clear message for a ledger played at
    another commit (unless ``any_commit``) or a ledger that cannot be restored."""
    if (out / STORE_FILE).is_file() or not ledger.is_file():
        return 0
    try:
        played = read_ledger_header(ledger)["source"].get("commit", "unknown")
        here = checkout_commit()
        if played != here and not any_commit:
            raise SystemExit(f"error: {ledger} was played at commit {played}; this checkout is at {here}. Resume it "
                             f"from a checkout of that commit (git worktree add DIR {played.split('+')[0]}), or pass "
                             "--any-commit for a change known not to touch play")
        out.mkdir(parents=True, exist_ok=True)
        store, _ = restore_ledger(ledger, out / STORE_FILE)
    except SystemExit:
        raise
    except Exception as exc:  # LedgerError, StoreError: said, nothing made
        raise SystemExit(f"error: {exc}") from None
    boards = len(store.results())
    store.close()
    print(f"{Path(sys.argv[0]).name}: {boards} table boards carried over from {ledger}", flush=True)
    return boards


def export(out: Path, ledger: Path) -> int:
    """The store in ``out`` written to ``ledger`` with this checkout's commit and the command in its header: the
    number of finished table boards (0 when ``out`` has no store)."""
    if not (out / STORE_FILE).is_file():
        return 0
    store = ResultsStore(out / STORE_FILE, create=False)
    try:
        return store.write_ledger(ledger, {"commit": checkout_commit(), "command": " ".join(sys.argv)})
    finally:
        store.close()


class LedgerKeeper:
    """Rewrites the ledger of the store in ``out`` (``export``) at most every ``every`` seconds (``maybe``) and on
    ``final``."""

    def __init__(self, out: Path, ledger: Path, every: float = EVERY_SECONDS) -> None:
        self.out, self.ledger, self.every = out, ledger, every
        self.last = time.monotonic()

    def maybe(self) -> None:
        if time.monotonic() - self.last >= self.every:
            self.final()

    def final(self) -> int:
        self.last = time.monotonic()
        return export(self.out, self.ledger)
