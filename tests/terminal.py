"""What a terminal gives the foreground job that a Ctrl-C test stands in for."""

from __future__ import annotations

import contextlib
import signal


@contextlib.contextmanager
def foreground_sigint():
    """SIGINT at its default in the processes started inside the block. A shell leaves SIGINT ignored in its
    background jobs (a test run started with ``&`` or from a script), a child inherits "ignored", and a command that
    inherits it rightly ignores Ctrl-C: the test's signal would never be seen. A terminal's foreground job starts
    with the default disposition, which is what these tests stand in for (a handler set here is reset to the
    default across exec)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
