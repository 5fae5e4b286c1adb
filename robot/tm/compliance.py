"""``squeeze tm --strict``: a compliance report per connection, for robot authors testing their own client.

The table manager accepts every dialect a real peer is known to send (research note 1.13); the report says where a
peer left canonical protocol 18: a line whose text differs from the canonical form of the message it carries
(letter case, spacing, punctuation, ``10C`` for ``TC``, ...), ``ANYPL``, another version or text after it, obsolete
lines, line ends other than CR LF, and every line the table refused (with the table's reason). Each deviation
keeps the line as received.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

from squeeze.protocol import messages as m
from squeeze.protocol.errors import excerpt

__all__ = ["ComplianceReport", "Deviation", "MAX_DEVIATIONS"]

#: Deviations kept per connection: a peer that gets one thing wrong gets it wrong on every line; the first few
#: hundred show every kind, and a flood cannot grow the report without bound.
MAX_DEVIATIONS = 500


@dataclass(frozen=True)
class Deviation:
    line_no: int  #: 1-based number of the line on this connection
    line: str  #: as received (cut to 120 characters)
    issue: str


@dataclass
class ComplianceReport:
    connection: int
    peer: str
    lines: int = 0
    deviations: list[Deviation] = field(default_factory=list)
    dropped: int = 0  #: deviations beyond ``MAX_DEVIATIONS``, counted only
    lf_only: int = 0  #: line ends that were a bare LF (or CR)
    crlf: int = 0
    table: Optional[str] = None
    seat: Optional[str] = None
    opened: float = field(default_factory=time.time)

    def raw(self, data: bytes) -> None:
        """Count line ends in bytes as received (the line splitter hides them)."""
        crlf = data.count(b"\r\n")
        self.crlf += crlf
        self.lf_only += data.count(b"\n") + data.count(b"\r") - 2 * crlf

    def deviation(self, line: str, issue: str, *, count: bool = False) -> None:
        if count:
            self.lines += 1
        if len(self.deviations) >= MAX_DEVIATIONS:
            self.dropped += 1
            return
        text = line if len(line) <= 120 else excerpt(line)
        self.deviations.append(Deviation(self.lines, text, issue))

    def check(self, line: str, msg: m.Message) -> None:
        """A line the parser understood: is it the canonical text of its message?"""
        self.lines += 1
        if isinstance(msg, m.Connect):
            if msg.seat is None:
                self.deviation(line, "ANYPL is not a protocol 18 seat (WBridge5's extension)")
            if msg.version != m.PROTOCOL_VERSION:
                self.deviation(line, f"protocol version {msg.version}, not 18")
            if msg.info:
                self.deviation(line, "text after the version (Bridge Moniteur refuses it)")
            return
        if isinstance(msg, m.ReceivedDummy):
            self.deviation(line, "'received dummy' is obsolete (not in protocol 18)")
            return
        canonical = msg.format().rstrip("\r\n")
        if line != canonical:
            self.deviation(line, f"not canonical; protocol 18 says: {canonical}")

    def close(self, table: Optional[str], seat: Optional[str]) -> None:
        self.table, self.seat = table, seat
        if self.lf_only:
            self.deviations.insert(0, Deviation(0, "", f"{self.lf_only} line ends were not CR LF"))

    def to_dict(self) -> dict:
        return {
            "connection": self.connection, "peer": self.peer, "table": self.table, "seat": self.seat,
            "lines": self.lines, "deviations": [d.__dict__ for d in self.deviations], "not_kept": self.dropped,
        }
