"""What a table manager run plays: the boards (a PBN file or seeded random deals, optionally a range of board
numbers) and the matches (from a match file, or named by the teams that connect).

A match file is TOML, one ``[[match]]`` table per match::

    [[match]]
    name = "final"            # optional; default "<team a> v <team b>"
    teams = ["Squeeze", "Other"]   # team a sits N/S in the open room and E/W in the closed room
    rooms = 2                 # optional; default: the run's rooms setting

Every problem is a ``PlanError`` that names the file and what is wrong.
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from squeeze.engine.cards import Deal, dealer_for_board, vul_for_board
from squeeze.engine.pbn import read_pbn
from squeeze.engine.record import BoardRecord
from squeeze.engine.teams import CLOSED, OPEN
from squeeze.protocol import messages as m
from squeeze.protocol.errors import ProtocolError

__all__ = ["PlanError", "MatchSpec", "parse_board_range", "load_boards", "random_boards", "load_match_file",
           "ROOMS"]

#: Room names by number of rooms: a single table has no room name (its Board line and records carry none).
ROOMS = {1: ("",), 2: (OPEN, CLOSED)}


class PlanError(ValueError):
    """Boards or matches that cannot be played: a bad range, a PBN file without complete deals, a bad match file."""


@dataclass(frozen=True)
class MatchSpec:
    name: str
    teams: tuple[Optional[str], Optional[str]]  #: (a, b): a is N/S in the open room, E/W in the closed room
    rooms: int


def parse_board_range(text: str) -> tuple[int, int]:
    """``"1-16"`` -> ``(1, 16)``; ``"5"`` -> ``(5, 5)``."""
    mt = re.fullmatch(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?", text or "")
    if not mt:
        raise PlanError(f"board range must look like 1-16, got {text!r}")
    first, last = int(mt[1]), int(mt[2] or mt[1])
    if not 1 <= first <= last:
        raise PlanError(f"board range {text!r} is empty or starts below 1")
    return first, last


def random_boards(first: int, last: int, seed: int) -> list[BoardRecord]:
    """Boards ``first..last`` dealt at random from ``seed`` (board ``n``'s deal depends only on ``seed`` and ``n``,
    so a range of the same seed deals the same boards), with the dealer and vulnerability of the board number."""
    return [BoardRecord(board=n, deal=Deal.random(random.Random(f"{seed}:{n}")), dealer=dealer_for_board(n),
                        vul=vul_for_board(n)) for n in range(first, last + 1)]


def load_boards(path: Path | str, board_range: Optional[tuple[int, int]] = None, event: str = "") -> list[BoardRecord]:
    """The boards of a PBN file (deal, dealer and vulnerability as the file gives them), optionally only those
    numbered within ``board_range``.

    Raises:
        PlanError: the file cannot be read, has a bad game, no board in the range, a board without a complete deal,
            or the same board number twice.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PlanError(f"cannot read boards file {path}: {exc.strerror}") from None
    result = read_pbn(data)
    if result.errors:
        raise PlanError(f"boards file {path}: {result.errors[0]}" +
                        (f" (and {len(result.errors) - 1} more errors)" if len(result.errors) > 1 else ""))
    boards: dict[int, BoardRecord] = {}
    for game in result.games:
        r = game.record
        if board_range is not None and not board_range[0] <= r.board <= board_range[1]:
            continue
        if not r.deal.is_complete:
            raise PlanError(f"boards file {path}: board {r.board} has no complete deal")
        if r.board in boards:
            raise PlanError(f"boards file {path}: board {r.board} appears twice")
        boards[r.board] = BoardRecord(board=r.board, deal=r.deal, dealer=r.dealer, vul=r.vul, event=event or r.event)
    if not boards:
        where = "" if board_range is None else f" numbered {board_range[0]}-{board_range[1]}"
        raise PlanError(f"boards file {path} has no boards{where}")
    return [boards[n] for n in sorted(boards)]


def load_match_file(path: Path | str, default_rooms: int) -> list[MatchSpec]:
    """The matches of a match file (module doc).

    Raises:
        PlanError: unreadable, not TOML, unknown keys, bad team names, a team in two matches, duplicate names.
    """
    try:
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlanError(f"cannot read match file {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PlanError(f"match file {path}: {exc}") from None
    unknown = set(doc) - {"match"}
    if unknown or not isinstance(doc.get("match"), list) or not doc["match"]:
        raise PlanError(f"match file {path}: expected one or more [[match]] tables and nothing else")
    specs: list[MatchSpec] = []
    seen_teams: set[str] = set()
    for i, entry in enumerate(doc["match"], 1):
        where = f"match file {path}, match {i}"
        if not isinstance(entry, dict) or set(entry) - {"name", "teams", "rooms"}:
            raise PlanError(f"{where}: keys are name, teams, rooms")
        teams = entry.get("teams")
        if not (isinstance(teams, list) and len(teams) == 2 and all(isinstance(t, str) for t in teams)):
            raise PlanError(f"{where}: teams must be two team names")
        try:
            a, b = (m.validate_team_name(t) for t in teams)
        except (ProtocolError, ValueError) as exc:
            raise PlanError(f"{where}: {exc}") from None
        if a == b:
            raise PlanError(f"{where}: the two teams need different names")
        for t in (a, b):
            if t in seen_teams:
                raise PlanError(f"{where}: team {t!r} is already in another match")
            seen_teams.add(t)
        rooms = entry.get("rooms", default_rooms)
        if rooms not in ROOMS:
            raise PlanError(f"{where}: rooms must be 1 or 2")
        name = entry.get("name", f"{a} v {b}")
        if not isinstance(name, str) or not name.strip():
            raise PlanError(f"{where}: name must be text")
        if any(s.name == name for s in specs):
            raise PlanError(f"{where}: two matches are named {name!r}")
        specs.append(MatchSpec(name=name, teams=(a, b), rooms=rooms))
    return specs

