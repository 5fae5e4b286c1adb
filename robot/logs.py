"""Logging set-up for every Squeeze process: one ``configure_logging(level, format)`` for structlog.

Logs always go to standard error, never into a command's standard output. ``format`` is ``json`` (one JSON object
a line: ``event``, ``level``, ``timestamp`` and the event's fields), ``pretty`` (structlog's console renderer, in
colour on a terminal) or ``auto``: pretty when standard error is a terminal, JSON lines otherwise (services, pipes,
files). Events below ``level`` are dropped. The processes that run the engine (the CLI, the robot, self-play
workers) call this once at start-up with ``[log]`` settings.

A process started with ``spawn`` (a seat's decision worker) imports structlog afresh, unconfigured: structlog's own
default is the console format on standard output. Such a child calls ``configure_logging(*current_logging())``
with what its parent returned, so that its events come out like the parent's (JSON lines in a service).

The engine logs nothing itself: its decisions say what happened on the way (a Borel override, the rungs of the
relaxation ladder given up), and ``engine_events`` turns that into log events, which ``log_events`` (or
``log_decision``, both at once) emits where the decision is received.
"""

from __future__ import annotations

import logging
import sys
import weakref
from typing import Any, Literal, TextIO

import structlog

__all__ = ["configure_logging", "current_logging", "LEVELS", "EngineEvent", "engine_events", "log_events",
           "log_decision"]

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class _Tolerant:
    """The log stream, minus its failures: a log line that cannot be written (stderr redirected to a full disk, a
    closed pipe) is dropped rather than raised into the code that logged it - a table manager must not lose a
    board, or stop in the middle of stopping, because its log cannot be written."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        try:
            self.stream.write(text)
        except (OSError, ValueError):  # (ValueError: the stream was closed)
            pass

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            pass


_WRAPPED: "weakref.WeakKeyDictionary[TextIO, _Tolerant]" = weakref.WeakKeyDictionary()


def _tolerant(stream: TextIO) -> _Tolerant:
    """One wrapper a stream (structlog keeps a write lock per file object: the same object, the same lock)."""
    try:
        return _WRAPPED.setdefault(stream, _Tolerant(stream))
    except TypeError:  # a stream that takes no weak reference
        return _Tolerant(stream)


#: What this process's ``configure_logging`` last set: (level, "json" or "pretty"), ``auto`` resolved.
_CURRENT: tuple[str, str] | None = None


def current_logging() -> tuple[str, str]:
    """``(level, format)`` as this process logs now, for a child process to log the same way (``auto`` is given
    resolved: the child's standard error is its parent's). Before any ``configure_logging``: the defaults."""
    if _CURRENT is None:
        return "info", "json" if not sys.stderr.isatty() else "pretty"
    return _CURRENT


def configure_logging(level: str = "info", format: Literal["auto", "json", "pretty"] = "auto",
                      stream: TextIO | None = None) -> None:
    """Send structlog's events at ``level`` and above to ``stream`` (default: ``sys.stderr``) as ``format``."""
    if level not in LEVELS:
        raise ValueError(f"unknown log level {level!r} (use {', '.join(LEVELS)})")
    if format not in ("auto", "json", "pretty"):
        raise ValueError(f"unknown log format {format!r} (use auto, json or pretty)")
    tty = (stream if stream is not None else sys.stderr).isatty()
    as_json = format == "json" or (format == "auto" and not tty)
    global _CURRENT
    _CURRENT = (level, "json" if as_json else "pretty")
    processors: list = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    if as_json:
        processors += [structlog.processors.dict_tracebacks, structlog.processors.JSONRenderer()]
    else:
        processors.append(structlog.dev.ConsoleRenderer(colors=tty))
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS[level]),
        # sys.stderr looked up at each event, not now: a test runner (or a daemon) may swap the stream later
        logger_factory=lambda *_: structlog.PrintLogger(_tolerant(stream if stream is not None else sys.stderr)),
        cache_logger_on_first_use=False,
    )


#: A log event as data: (level, event name, fields); it crosses a pipe from a worker process.
EngineEvent = tuple[str, str, dict]

_engine_log = structlog.get_logger("squeeze.engine")


def engine_events(decision: Any) -> tuple[EngineEvent, ...]:
    """The log events of an engine decision (a ``BidChoice`` or a ``PlayDecision``): a warning
    ``play.sampling_relaxed`` per rung of the relaxation ladder given up, then ``bidding.borel_override`` when a
    simulation overrode the rules' call."""
    out: list[EngineEvent] = []
    for r in getattr(decision, "relaxations", ()):
        out.append(("warning", "play.sampling_relaxed",
                    {"viewer": r.viewer.letter, "cards": r.cards, "dropped": r.dropped, "error": r.error}))
    o = getattr(decision, "override", None)
    if o is not None:
        out.append(("info", "bidding.borel_override",
                    {"seat": o.seat, "board": o.board, "auction": o.auction, "hand": o.hand, "rule": o.rule,
                     "rules_call": o.rules_call, "call": o.call, "gains": o.gains, "worlds": o.worlds,
                     "distrusted": o.distrusted, "relaxed": o.relaxed, "better": o.better, "worse": o.worse,
                     "confirmed": o.confirmed}))
    return tuple(out)


def log_events(events: tuple[EngineEvent, ...]) -> None:
    for level, event, fields in events:
        getattr(_engine_log, level)(event, **fields)


def log_decision(decision: Any) -> Any:
    """Log what ``decision`` says happened (``engine_events``); returns it, so a call can be wrapped."""
    log_events(engine_events(decision))
    return decision
