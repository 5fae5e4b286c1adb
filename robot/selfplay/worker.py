"""What a worker process runs: ``run_chunk(job, chunk)``, both rooms of each board of a chunk, and the deal's
double-dummy table.

A worker builds its eight players (four seats of each team) and their solver once, on its first chunk of a job, and
keeps them for the job's later chunks (``threading.local``: a Dask worker with several threads gives each its own,
since a ``Player`` is not thread-safe). The function is the same for the local pool and Dask, and returns plain
data (JSON text of the records), so that nothing but picklable dataclasses crosses a process or a network.

A robot's error on a board (any exception while either room plays it) is returned as that board's ``error``, not
raised: the run voids the board in both rooms and goes on. Only a lost worker loses a chunk.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Optional, Sequence

from squeeze.engine.cards import Deal, Seat
from squeeze.engine.player import Player, PlayerParams
from squeeze.engine.teams import CLOSED, OPEN, TEAM_SEATS

from .table import play_board

__all__ = ["Job", "BoardOutcome", "run_chunk"]



@dataclass(frozen=True)
class Job:
    """What every chunk of a run shares: the two teams' engine parameters, their names, the hard limit per decision
    and an event name for the records. ``key`` names the job (the run's plan digest): a worker rebuilds its players
    when it changes."""

    key: str
    teams: tuple[PlayerParams, PlayerParams]  #: A, B
    names: tuple[str, str]
    limit_seconds: float
    event: str = ""


@dataclass(frozen=True)
class BoardOutcome:
    """One board's result: the two rooms' records as JSON and the deal's double-dummy table ``tricks[strain][seat]``,
    or the robot error that voids the board (then ``room`` says where it happened)."""

    board: int
    open: Optional[str] = None
    closed: Optional[str] = None
    dd: Optional[list] = None
    error: Optional[str] = None
    room: Optional[str] = None
    seconds: float = 0.0


@dataclass
class _Tables:
    key: str
    seats: dict[str, dict[Seat, Player]]  #: room -> seat -> player


_local = threading.local()


def _tables(job: Job) -> _Tables:
    tables = getattr(_local, "tables", None)
    if tables is not None and tables.key == job.key:
        return tables
    from squeeze.config.bidding import load_system
    from squeeze.engine.play.oracle import default_oracle

    oracles: dict[int, object] = {}  # one solver per transposition-table size: the teams share it when they can

    def player(params: PlayerParams) -> Player:
        mib = params.play.solver_tt_mib
        if mib not in oracles:
            oracles[mib] = default_oracle(mib, params.play.solver_core)
        p = Player(params, oracle=oracles[mib], systems=load_system)  # type: ignore[arg-type]
        p.prepare()
        return p

    # one Player per seat and team: a Player keeps the board in progress for its seat (its beliefs), so none is
    # shared between seats; the same player object sits at the same seat in every board of the job
    a = {s: player(job.teams[0]) for s in Seat}
    b = {s: player(job.teams[1]) for s in Seat}
    seats = {room: {s: (a if s in mine else b)[s] for s in Seat} for room, mine in TEAM_SEATS.items()}
    _local.tables = tables = _Tables(job.key, seats)
    return tables


def _describe(exc: BaseException) -> str:
    """The error and where it was raised (the innermost frame of ours), on one line."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip().replace("\n", " ")
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        f = frames[-1]
        text += f" (at {f.filename.rsplit('/', 1)[-1]}:{f.lineno} in {f.name})"
    return text


def players(job: Job, room: str) -> dict[Seat, str]:
    """The names at each seat in ``room``, for the records."""
    mine = TEAM_SEATS[room]
    return {s: job.names[0] if s in mine else job.names[1] for s in Seat}


def run_chunk(job: Job, chunk: Sequence[tuple[int, str]]) -> list[BoardOutcome]:
    """Play each ``(board, deal)`` of ``chunk`` (the deal as a PBN deal string) in both rooms, in order."""
    from squeeze.engine.dds import solve_table

    tables = _tables(job)
    out = []
    for board, deal_text in chunk:
        start = time.perf_counter()
        deal = Deal.parse(deal_text)
        records = {}
        room = OPEN
        try:
            for room in (OPEN, CLOSED):
                record, _ = play_board(board, deal, tables.seats[room], limit_seconds=job.limit_seconds)
                records[room] = dataclasses.replace(record, room=room, players=players(job, room), event=job.event)
        except Exception as exc:  # a robot's error voids this board only (module doc)
            out.append(BoardOutcome(board, error=f"{room} room: {_describe(exc)}", room=room,
                                    seconds=time.perf_counter() - start))
            continue
        tricks = [list(row) for row in solve_table(deal).tricks]
        out.append(BoardOutcome(board, records[OPEN].to_json(), records[CLOSED].to_json(), tricks,
                                seconds=time.perf_counter() - start))
    return out
