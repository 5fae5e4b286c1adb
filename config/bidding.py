"""Bidding systems as files: the configuration finds and reads them, the engine compiles their text.

A system is named by a packaged file, ``config/systems/<name>.toml`` (package data of ``squeeze.config``, read
through ``importlib.resources`` so it works from a wheel, not only from a checkout), or given as a path ending in
``.toml``. ``load_system`` reads it and hands the text to ``engine.bidding.parse_system``; an ``engine.Player`` is
given ``load_system`` as its loader and asks it for the systems its ``PlayerParams`` name.

A process compiles each system text once (about a second for SAYC): ``load_system`` keeps the last few compiled
systems by their text (a file edited since is read and compiled again), and compiles one at a time, so threads
that start together (a Dask worker's) share one compiled system and never parse at once.
"""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from squeeze.engine.bidding.rules import BiddingSystemError, CompiledSystem, parse_system

__all__ = ["load_system", "system_file", "system_digest", "BiddingSystemError"]

_LOAD_LOCK = threading.Lock()


def system_file(name: str) -> Traversable:
    """The packaged system ``name``: ``config/systems/<name>.toml``."""
    return resources.files("squeeze.config").joinpath("systems", f"{name}.toml")


def _source(name_or_path: str | Path) -> Path | Traversable:
    p: Path | Traversable = Path(name_or_path)
    if p.suffix != ".toml":
        p = system_file(str(name_or_path))
    if not p.is_file():
        raise BiddingSystemError(f"no bidding system file {p}")
    return p


def _read(name_or_path: str | Path) -> tuple[bytes, Path | Traversable]:
    p = _source(name_or_path)
    try:
        return p.read_bytes(), p
    except OSError as exc:
        raise BiddingSystemError(f"cannot read the bidding system file {p}: {exc.strerror or exc}") from None


def system_digest(name_or_path: str | Path) -> str:
    """SHA-256 of a system file's bytes (the first 16 hex digits; ``CompiledSystem.digest`` of what it compiles
    to): what a stored run records of the rules it bid with, so that a resume after the file changed is refused.
    Raises ``BiddingSystemError`` for a missing file."""
    data, _p = _read(name_or_path)
    return hashlib.sha256(data).hexdigest()[:16]


def load_system(name_or_path: str | Path) -> CompiledSystem:
    """The packaged system ``name`` (see ``system_file``) or the system file at a ``.toml`` path, compiled. Raises
    ``BiddingSystemError`` naming the file and the problem (missing, unreadable, not UTF-8, bad TOML, a bad rule).
    Safe to call from many threads at once."""
    data, p = _read(name_or_path)
    try:
        text = data.decode("utf-8")  # bytes as they are (no newline translation): the digest is the file's
    except UnicodeDecodeError as exc:
        raise BiddingSystemError(f"{p}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    with _LOAD_LOCK:
        return _compiled(text, Path(p.name).stem, str(p))


@lru_cache(maxsize=8)  # a process bids with one or two systems; tests and benches load a few more
def _compiled(text: str, name: str, origin: str) -> CompiledSystem:
    return parse_system(text, name, origin)
