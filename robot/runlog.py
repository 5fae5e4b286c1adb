"""An append-only run log: one JSON object a line, each on disk before ``append`` returns.

Long runs (matches, self-play, benchmarks) append every finished unit of work and, when restarted, read the log to
skip what is done. ``append`` writes the whole line, flushes and ``os.fsync``s it (and, for a new file, its
folder), so a record it returned from survives a crash or a power cut. A crash in the middle of an append can leave
the last line incomplete: ``read`` ignores it and reports it (``RunLogContents.torn``), and the next ``append``
cuts it off before writing, so that it never ends up in the middle of the log. A bad line anywhere else is damage
that no crash of ours can cause, and ``read`` raises ``RunLogError`` naming its line.

One writer at a time: two processes appending to the same log could interleave a torn tail with a new line.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable, Mapping

__all__ = ["RunLog", "RunLogContents", "TornLine", "RunLogError"]


class RunLogError(ValueError):
    """A run log that cannot be read: a line that is not a JSON object, other than a torn last line."""


@dataclass(frozen=True)
class TornLine:
    """The incomplete last line a crash mid-append left: its 1-based line number and its text."""

    line: int
    text: str


@dataclass(frozen=True)
class RunLogContents:
    """Every complete record of a log, in order, and the torn last line if there is one (not a record)."""

    records: tuple[dict, ...]
    torn: TornLine | None = None


def _object(raw: bytes) -> dict | None:
    """The JSON object the UTF-8 line ``raw`` holds, or ``None`` if it holds anything else or is not JSON."""
    try:
        value = json.loads(raw)
    except ValueError:  # (json.JSONDecodeError and UnicodeDecodeError are ValueErrors)
        return None
    return value if isinstance(value, dict) else None


class RunLog:
    """The log at ``path`` (created by the first ``append``; its folder must exist)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._tail_checked = False  # the torn tail of an earlier run is cut before this run's first append

    def read(self) -> RunLogContents:
        """The complete records (none if the file does not exist yet) and the torn last line, if any.

        A last line without its line end is a record if it holds a whole JSON object (only the line end was lost)
        and torn otherwise. Blank lines are skipped.

        Raises:
            RunLogError: a line other than the last is not a JSON object in UTF-8.
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return RunLogContents(())
        lines = data.split(b"\n")
        last = lines.pop()  # b"" when the file ends with a line end
        records = []
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            record = _object(raw)
            if record is None:
                text = raw.decode("utf-8", "replace")
                raise RunLogError(f"{self.path}:{number}: not a JSON object: {text[:80]!r}")
            records.append(record)
        torn = None
        if last.strip():
            record = _object(last)
            if record is None:
                torn = TornLine(len(lines) + 1, last.decode("utf-8", "replace"))
            else:
                records.append(record)
        return RunLogContents(tuple(records), torn)

    def done(self, key: Callable[[dict], Hashable | None]) -> set:
        """The keys of the work already logged, for a resumed run to skip: ``key(record)`` of every record, those
        for which it is ``None`` (records of another kind) left out."""
        return {k for k in map(key, self.read().records) if k is not None}

    def append(self, record: Mapping[str, Any]) -> None:
        """Write ``record`` as one line and return once it is on disk (flushed and fsync'd).

        Raises:
            RunLogError: ``record`` is not a mapping, or not JSON-able.
        """
        if not isinstance(record, Mapping):
            raise RunLogError(f"a run log record is a JSON object, got {type(record).__name__}")
        try:
            line = json.dumps(dict(record)) + "\n"
        except (TypeError, ValueError) as exc:
            raise RunLogError(f"a run log record must be JSON-able: {exc}") from None
        if not self._tail_checked:
            self._cut_torn_tail()
            self._tail_checked = True
        created = not self.path.exists()
        with self.path.open("ab") as f:  # (O_APPEND: every write goes to the end, whatever else has the file open)
            f.write(line.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        if created:
            _fsync_folder(self.path.parent)

    def _cut_torn_tail(self) -> None:
        """End the log on a line end: drop a torn last line (its append never returned), or give a whole last
        object the line end it lost."""
        try:
            with self.path.open("rb+") as f:
                data = f.read()
                if not data or data.endswith(b"\n"):
                    return
                start = data.rfind(b"\n") + 1
                if _object(data[start:]) is not None:
                    f.write(b"\n")
                else:
                    f.truncate(start)
                f.flush()
                os.fsync(f.fileno())
        except FileNotFoundError:
            return


def _fsync_folder(folder: Path) -> None:
    """Make a new file's name durable too (POSIX: the folder entry is data of the folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # (a platform without folder handles, such as Windows: nothing to sync)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
