"""Files written from the results store (never from memory, so a resumed run exports every board exactly once):

- ``boards.pbn``: every finished board of every match and room (PBN 2.1 export: auction with alerts as notes,
  play, result, score, ``Room`` and ``Table`` tags), with each side's thinking time and the board's incidents
  (clock warnings, forced calls and cards) as comments after the ``Result`` tag;
- ``<match>.lin``: a two-room match as a BBO vugraph file (both rooms, the match header), a one-room match as LIN
  (one board a line);
- ``summary.json``: per match the teams, boards finished per room, voided attempts and, for two rooms, the IMPs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

from squeeze.engine.lin import write_lin, write_lin_match
from squeeze.engine.pbn import PbnGame, encode_pbn, write_pbn
from squeeze.engine.scoring import imps

from .store import ResultRow, ResultsStore

__all__ = ["write_outputs", "write_boards", "pbn_game", "match_file_name", "write_file"]


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def pbn_game(row: ResultRow, score_imp: int | None = None, *, timing: bool = True) -> PbnGame:
    """The board's PBN game, with its timing (unless ``timing`` is false) and incidents as comments after
    ``Result``; ``score_imp`` (a two-room match: the IMPs this room's N/S pair won on the board) goes in the
    ``ScoreIMP`` tag."""
    game = PbnGame.from_record(row.record)
    r = row.record
    notes = [f"Time N/S {_clock(r.seconds_ns)}, E/W {_clock(r.seconds_ew)}"] if timing else []
    notes += row.incidents
    tags = game.tags if score_imp is None else {**game.tags, "ScoreIMP": str(score_imp)}
    return dataclasses.replace(game, tags=tags, comments=game.comments + tuple(("Result", n) for n in notes))


def _swings(rows: list[ResultRow]) -> dict[tuple[str, int], int]:
    """(match, board) -> the IMPs the open room's N/S pair won, for boards finished in both rooms."""
    scores: dict[tuple[str, int], dict[str, int]] = {}
    for r in rows:
        scores.setdefault((r.match, r.board), {})[r.room] = r.record.score_ns()
    return {k: imps(s["Open"] - s["Closed"]) for k, s in scores.items() if {"Open", "Closed"} <= set(s)}


def match_file_name(match: str) -> str:
    """A file name for a match name (team names may hold anything but a double quote)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", match).strip("._") or "match"


def write_file(path: Path, data: bytes) -> None:
    """Write via a temporary file and a rename, so a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_boards(store: ResultsStore, folder: Path | str, *, timing: bool = True) -> list[ResultRow]:
    """Write ``boards.pbn`` (every finished board of every match and room; each side's thinking time as a comment
    unless ``timing`` is false: self-play leaves it out so that a seed's file is the same byte for byte) and one LIN
    file per match into ``folder``; returns the rows written."""
    out = Path(folder)
    rows = store.results()
    swings = _swings(rows)

    def score_imp(r: ResultRow) -> int | None:  # the room's N/S pair: team a in the open room, team b closed
        swing = swings.get((r.match, r.board))
        return None if swing is None else swing if r.room == "Open" else -swing

    write_file(out / "boards.pbn", encode_pbn(write_pbn((pbn_game(r, score_imp(r), timing=timing) for r in rows),
                                                        score=True)))
    for mt in store.matches():
        mine = [r for r in rows if r.match == mt.name]
        if mine:
            games = [PbnGame.from_record(r.record) for r in mine]
            event = mine[0].record.event or mt.name
            text = (write_lin_match(games, event=event, teams=(mt.team_a or "", mt.team_b or ""))
                    if mt.rooms == 2 else write_lin(games))
            write_file(out / f"{match_file_name(mt.name)}.lin", text.encode("utf-8"))
    return rows


def write_outputs(store: ResultsStore, folder: Path | str) -> dict:
    """Write ``boards.pbn``, one LIN file per match and ``summary.json`` into ``folder``; returns the summary."""
    out = Path(folder)
    rows = write_boards(store, out)
    voids: dict[str, int] = {}
    incidents: dict[str, list[dict]] = {}
    for match, room, board, kind, detail in store.incidents():
        if kind == "void":
            voids[match] = voids.get(match, 0) + 1
        incidents.setdefault(match, []).append({"room": room, "board": board, "kind": kind, "detail": detail})
    summary: dict = {"boards": len(rows), "matches": {}}
    for mt in store.matches():
        mine = [r for r in rows if r.match == mt.name]
        entry: dict = {"teams": [mt.team_a, mt.team_b], "rooms": mt.rooms, "voided": voids.get(mt.name, 0),
                       "incidents": incidents.get(mt.name, []), "boards": {}}
        for r in mine:
            entry["boards"][r.room or "table"] = entry["boards"].get(r.room or "table", 0) + 1
        if mt.rooms == 2:
            # team a is N/S in the open room: its swing is the open room's N/S score against the closed room's
            mine_swings = [v for (name, _b), v in _swings(mine).items() if name == mt.name]
            entry["compared"] = len(mine_swings)
            entry["imps_a"] = sum(mine_swings)
            if mine_swings:
                entry["imps_per_board"] = sum(mine_swings) / len(mine_swings)
        summary["matches"][mt.name] = entry
    write_file(out / "summary.json", (json.dumps(summary, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    return summary
