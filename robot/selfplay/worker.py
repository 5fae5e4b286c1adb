"""What a worker process runs: ``run_chunk(job, chunk)``, both rooms of each board of a chunk, and the deal's
double-dummy table.

A worker builds a job's eight players (four seats of each team) once, on its first chunk of that job, and keeps them
for the job's later chunks (``threading.local``: a Dask worker with several threads gives each its own, since a
``Player`` is not thread-safe). A tournament has a job per pairing and sends their chunks in turn: an entrant's
players serve all its pairings (by its engine parameters and team slot), and every player of the worker shares one
solver per table size. The function is the same for the local pool and Dask, and returns plain
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

from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.engine.player import Player, PlayerParams
from squeeze.engine.teams import CLOSED, OPEN, TEAM_SEATS

from .table import play_board

__all__ = ["Job", "BoardOutcome", "ChunkItem", "run_chunk"]

#: Players a worker thread keeps (four per entrant and team slot); past it they are built afresh.
MAX_PLAYERS = 64


@dataclass(frozen=True)
class Job:
    """What every chunk of a match shares: the two teams' engine parameters, their names, the hard limit per
    decision and an event name for the records."""

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


_local = threading.local()


def _oracle(mib: int, core: str) -> object:
    """The worker's solver of ``mib`` MiB (its search built as ``core``), shared by all its players (one decision
    at a time per thread)."""
    from squeeze.engine.play.oracle import default_oracle

    oracles = _local.__dict__.setdefault("oracles", {})
    if (mib, core) not in oracles:
        oracles[mib, core] = default_oracle(mib, core)
    return oracles[mib, core]


def _player(params: PlayerParams, slot: str, seat: Seat) -> Player:
    """The thread's player for ``params`` at ``seat`` as team ``slot`` (``a`` or ``b``), built once and kept: a
    tournament's entrant uses the same four players in all its pairings."""
    players: dict[tuple, Player] = _local.__dict__.setdefault("players", {})
    key = (params, slot, seat)
    if key not in players:
        from squeeze.config.bidding import load_system

        if len(players) >= MAX_PLAYERS:
            players.clear()
        oracle = _oracle(params.play.solver_tt_mib, params.play.solver_core)
        p = players[key] = Player(params, oracle=oracle, systems=load_system)  # type: ignore[arg-type]
        p.prepare()
    return players[key]


def _tables(job: Job) -> dict[str, dict[Seat, Player]]:
    """Room -> seat -> player for ``job``. A Player keeps the board in progress for its seat (its beliefs), so none
    is shared between seats or between the two teams; the same player sits at the same seat in every board of a job,
    and in every job where its entrant is the same team (``run_chunk`` makes it forget a board between rooms)."""
    a = {s: _player(job.teams[0], "a", s) for s in Seat}
    b = {s: _player(job.teams[1], "b", s) for s in Seat}
    return {room: {s: (a if s in mine else b)[s] for s in Seat} for room, mine in TEAM_SEATS.items()}


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


#: One board of a chunk: its number, the deal as a PBN deal string, the dealer and vulnerability (``int`` of
#: ``Seat`` and ``Vul``), and whether the deal's double-dummy table is wanted (a tournament's other pairings may
#: have stored it already).
ChunkItem = tuple[int, str, int, int, bool]


def run_chunk(job: Job, chunk: Sequence[ChunkItem]) -> list[BoardOutcome]:
    """Play each board of ``chunk`` in both rooms, in order."""
    from squeeze.engine.dds import solve_table

    tables = _tables(job)
    out = []
    for board, deal_text, dealer, vul, want_dd in chunk:
        start = time.perf_counter()
        deal = Deal.parse(deal_text)
        records = {}
        room = OPEN
        try:
            for room in (OPEN, CLOSED):
                for p in tables[room].values():
                    p.end_board()
                record, _ = play_board(board, deal, tables[room], limit_seconds=job.limit_seconds,
                                       dealer=Seat(dealer), vul=Vul(vul))
                records[room] = dataclasses.replace(record, room=room, players=players(job, room), event=job.event)
        except Exception as exc:  # a robot's error voids this board only (module doc)
            out.append(BoardOutcome(board, error=f"{room} room: {_describe(exc)}", room=room,
                                    seconds=time.perf_counter() - start))
            continue
        tricks = [list(row) for row in solve_table(deal).tricks] if want_dd else None
        out.append(BoardOutcome(board, records[OPEN].to_json(), records[CLOSED].to_json(), tricks,
                                seconds=time.perf_counter() - start))
    return out
