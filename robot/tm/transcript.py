"""Reading a table manager's log back as a transcript of the lines each table exchanged.

``squeeze tm`` logs every line in and out (structlog, JSON lines on standard error when not on a terminal) as a
``tm.line`` event with the match, room, connection, seat, direction and text. ``read_transcript`` picks those events
out of a log (other events and lines that are not JSON are skipped) and ``format_transcript`` prints them the way
JobScheffers' ``events.log`` does: time, table, seat, direction, line - enough to replay an interop failure in a
test (research note, edge case 30).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Optional

__all__ = ["TranscriptLine", "read_transcript", "format_transcript"]


@dataclass(frozen=True)
class TranscriptLine:
    time: str
    match: str
    room: str
    conn: int
    seat: Optional[str]
    direction: str  #: "in" (to the table manager) or "out"
    line: str

    @property
    def table(self) -> str:
        return self.match if self.room in ("", "-") else f"{self.match}/{self.room}"


def read_transcript(lines: Iterable[str], table: Optional[str] = None) -> list[TranscriptLine]:
    """The ``tm.line`` events of a JSON log, in order; ``table`` keeps one table (``match`` or ``match/room``)."""
    out = []
    for raw in lines:
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(ev, dict) or ev.get("event") != "tm.line":
            continue
        entry = TranscriptLine(str(ev.get("timestamp", "")), str(ev.get("match", "")), str(ev.get("room", "-")),
                               int(ev.get("conn", 0)), ev.get("seat"), str(ev.get("dir", "")), str(ev.get("line", "")))
        if table is None or table in (entry.match, entry.table):
            out.append(entry)
    return out


def format_transcript(entries: Iterable[TranscriptLine]) -> str:
    rows = []
    for e in entries:
        arrow = "->TM" if e.direction == "in" else "TM->"
        rows.append(f"{e.time}  {e.table}  {e.seat or '?'}#{e.conn}  {arrow}  {e.line}")
    return "".join(r + "\n" for r in rows)
