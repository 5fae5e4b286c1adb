"""Deadlines: the absolute ``time.monotonic()`` value by which a decision must be made, and how stages share it.

A decision (``engine.Player.bid`` / ``play``) is given one deadline; each stage (sampling, inference, the search)
takes a slice of the time left and stops by the end of its slice with the best it has. ``None`` everywhere means
"no deadline": the stage runs as it always did (same work, same random numbers).
"""

from __future__ import annotations

import math
import time
from typing import Any

__all__ = ["DeadlineReached", "time_left", "expired", "slice_of", "earliest"]


class DeadlineReached(Exception):
    """A stage stopped at its deadline before finishing. ``partial`` holds what it had done (stage-specific).

    Deliberately not a ``BridgeError``: code that recovers from bridge errors (e.g. by re-dealing worlds) must not
    mistake running out of time for a contradiction and spend more time.
    """

    def __init__(self, message: str = "the deadline was reached", partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial


def time_left(deadline: float | None) -> float:
    """Seconds until ``deadline`` (``inf`` without one; negative once it has passed)."""
    return math.inf if deadline is None else deadline - time.monotonic()


def expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def slice_of(deadline: float | None, share: float) -> float | None:
    """The deadline of a stage that may use ``share`` of the time left before ``deadline``."""
    if deadline is None:
        return None
    now = time.monotonic()
    return now + share * max(0.0, deadline - now)


def earliest(*deadlines: float | None) -> float | None:
    """The soonest of the given deadlines (``None`` entries ignored; ``None`` if all are)."""
    given = [d for d in deadlines if d is not None]
    return min(given) if given else None
