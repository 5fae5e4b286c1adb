"""Blue Chip Bridge table-manager protocol (v18), sans I/O.

- ``protocol.messages``: one pydantic model per message, tolerant ``parse(line)``, canonical ``format(message)``.
- ``protocol.client.ClientMachine``: a robot's seat (feed lines, get events, send what it queues).
- ``protocol.table.TableMachine``: one table of the table manager (``receive(conn, line) -> [Outbound]``).
- ``protocol.framing.LineBuffer``: bytes to lines (CRLF, LF or CR).
- ``protocol.loopback.Loopback``: four clients and a table wired in memory (self-play, tests).

Every bad input from a peer raises ``ProtocolError`` and leaves the machine unchanged.
"""

from .client import ClientMachine, ClientPhase
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import LineBuffer
from .messages import FormatOptions, format, parse
from .table import Outbound, TableMachine, TableOptions, TablePhase

__all__ = [
    "ClientMachine",
    "ClientPhase",
    "FormatOptions",
    "LineBuffer",
    "LocalProtocolError",
    "Outbound",
    "ProtocolError",
    "RemoteProtocolError",
    "TableMachine",
    "TableOptions",
    "TablePhase",
    "format",
    "parse",
]
