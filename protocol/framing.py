"""Splitting a byte stream into protocol lines, sans I/O (edge cases 1-3 of the research note).

The spec terminates every message with CR LF, but peers send LF alone (Linux builds of .NET hosts), and a lone
CR must not hang us either. Several lines may arrive in one TCP segment and one line may arrive in many; a reader
must hand out *every* complete buffered line before it waits for the socket again (JobScheffers' host does not,
which delays a second line until more bytes come).
"""

from __future__ import annotations

from .errors import RemoteProtocolError
from .messages import MAX_LINE_LENGTH

__all__ = ["LineBuffer", "MAX_BUFFER"]

#: Bytes we hold without finding a line end. A line may be ``MAX_LINE_LENGTH`` characters plus CR LF; anything
#: longer cannot become a valid line, so buffering more would only let a broken peer grow our memory.
MAX_BUFFER = MAX_LINE_LENGTH + 2


class LineBuffer:
    """Feed bytes with ``feed``; get complete lines (``str``, line end removed, empty lines dropped) back.

    A line ends at LF, CR LF or a lone CR. Bytes are decoded as latin-1 so that no byte sequence can fail to
    decode (explanations may carry non-ASCII text). ``feed`` raises ``RemoteProtocolError`` if more than
    ``max_buffer`` bytes (default ``MAX_BUFFER``; a table manager may set a lower limit) accumulate without a line
    end; the buffer is then cleared up to the next line end, so the connection can continue with the following line.
    """

    __slots__ = ("_buf", "_discarding", "_pending_cr", "max_buffer")

    def __init__(self, max_buffer: int = MAX_BUFFER) -> None:
        if not 2 < max_buffer <= MAX_BUFFER:
            raise ValueError(f"max_buffer must be 3..{MAX_BUFFER} bytes, got {max_buffer}")
        self.max_buffer = max_buffer
        self._buf = bytearray()
        self._discarding = False  # inside an over-long line: drop bytes up to its end
        self._pending_cr = False  # last byte seen was CR: a following LF belongs to it

    def feed(self, data: bytes) -> list[str]:
        """Add ``data``; return every line completed by it, in order.

        Raises:
            RemoteProtocolError: an over-long line was found (reported once, at the moment it passes the limit).
                Lines completed before it in the same ``data`` are lost with the exception, so callers that must
                keep them feed smaller pieces; the protocol is lock-step, so in practice there are none.
        """
        lines: list[str] = []
        start = 0
        n = len(data)
        if self._pending_cr and n and data[0] == 0x0A:
            start = 1
        self._pending_cr = False
        i = start
        while i < n:
            b = data[i]
            if b == 0x0A or b == 0x0D:
                chunk = data[start:i]
                if self._discarding:
                    self._discarding = False
                    self._buf.clear()
                else:
                    self._buf += chunk
                    text = self._buf.decode("latin-1").strip()
                    self._buf.clear()
                    if text:
                        lines.append(text)
                if b == 0x0D:
                    if i + 1 < n:
                        if data[i + 1] == 0x0A:
                            i += 1
                    else:
                        self._pending_cr = True
                start = i + 1
            i += 1
        if start < n and not self._discarding:
            self._buf += data[start:]
            if len(self._buf) > self.max_buffer:
                size = len(self._buf)
                self._buf.clear()
                self._discarding = True
                raise RemoteProtocolError(
                    f"line longer than {self.max_buffer} bytes without a line end ({size} buffered)")
        return lines

    @property
    def pending(self) -> int:
        """Bytes buffered of a line not yet complete."""
        return len(self._buf)
