"""Blue Chip Bridge table-manager protocol (v18), sans I/O.

- ``protocol.messages``: one pydantic model per message, tolerant ``parse(line)``, canonical ``format(message)``.
- ``protocol.events``: what the machines tell the layer above, both sides in one module.
- ``protocol.client.ClientMachine``: a robot's seat (feed bytes or lines, get events, send what it queues).
- ``protocol.table.TableMachine``: one table of the table manager (``receive(conn, line) -> [Outbound]``).
- ``protocol.framing.LineBuffer``: bytes to lines (CRLF, LF or CR).
- ``protocol.loopback.Loopback``: four clients and a table wired in memory (self-play, tests).

Every bad input from a peer raises ``ProtocolError`` and leaves the machine unchanged.
"""

from . import events
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
    "events",
    "format",
    "parse",
]
