"""The one exception of the protocol layer.

Like h11's ``ProtocolError``: whatever a peer sends that cannot be understood or is not allowed now raises
``ProtocolError`` (never a bare ``ValueError``/``IndexError``), and the machine that raised it is left exactly as it
was, unless its ``state`` became an explicit ERROR state because continuing is impossible (documented where it
happens). ``LocalProtocolError`` is raised instead when *our own* side asks for something impossible (the agent
tries to send a call out of turn, the server passes an unknown connection), i.e. a bug in the caller, not the peer.
"""

from __future__ import annotations

from typing import Hashable

__all__ = ["ProtocolError", "RemoteProtocolError", "LocalProtocolError", "excerpt", "ERROR_EXCERPT_CHARS"]

#: How much of an offending line an error message quotes. Lines may be up to 1 MiB of junk (a hostile or broken
#: peer); quoting all of it would flood the log, and 120 characters always show the message's keywords.
ERROR_EXCERPT_CHARS = 120


def excerpt(line: object) -> str:
    """``repr`` of ``line`` cut to ``ERROR_EXCERPT_CHARS`` characters, for error messages."""
    text = line if isinstance(line, str) else (line.decode("latin-1") if isinstance(line, (bytes, bytearray)) else str(line))
    if len(text) > ERROR_EXCERPT_CHARS:
        return repr(text[:ERROR_EXCERPT_CHARS]) + f"... ({len(text)} characters)"
    return repr(text)


class ProtocolError(Exception):
    """A line that cannot be parsed or is not acceptable in the current state.

    Attributes:
        line: the offending line as received (``None`` if the error is not about one line).
        reply: for the table manager, the line (CRLF-terminated) that should be sent back to the offender, e.g.
            ``"Illegal bid\\r\\n"``; ``None`` when the spec says to ignore the message silently.
        sender: the connection id or seat the line came from (table manager only).
        fatal: ``True`` when the connection cannot continue (refused connection, session over): the I/O layer
            should send ``reply`` (if any) and close.
    """

    def __init__(
        self,
        message: str,
        *,
        line: str | bytes | None = None,
        reply: str | None = None,
        sender: Hashable | None = None,
        fatal: bool = False,
    ) -> None:
        super().__init__(message)
        self.line = line
        self.reply = reply
        self.sender = sender
        self.fatal = fatal


class RemoteProtocolError(ProtocolError):
    """The peer sent something wrong (bad syntax, out of order, illegal call or card)."""


class LocalProtocolError(ProtocolError):
    """Our own caller asked for something impossible (sending out of turn, an illegal call/card, unknown seat)."""
