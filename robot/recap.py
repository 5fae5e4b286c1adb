"""The board-by-board recap a player reads after a team match or a self-play run (``squeeze match``, ``squeeze
selfplay``, ``--recap FILE``): for every board, each room's contract with its declarer and result, each room's
N/S score, the swing in IMPs to team A, and the deal's double-dummy par where it is known.

Team A sits North-South in the open room and East-West in the closed room (``engine.teams``), so the swing is the
open room's N/S score against the closed room's. Contracts are written as everywhere Squeeze prints them for people
(``Contract.text``: ``4HX by S``), results as overtricks and undertricks (``=``, ``+1``, ``-2``). Pure functions
over records, plus ``recap_from_store`` that reads a run's results store and, where the store has no double-dummy
tables (a match), solves them within a time budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence

from squeeze.engine.auction import Contract
from squeeze.engine.record import BoardRecord
from squeeze.engine.scoring import par
from squeeze.engine.teams import CLOSED, OPEN, gross_imps, room_swing

__all__ = ["RecapRow", "recap_rows", "result_text", "format_recap", "recap_from_store"]


@dataclass(frozen=True)
class RecapRow:
    board: int
    open: Optional[BoardRecord]  #: None: the open room has not finished the board
    closed: Optional[BoardRecord]
    swing: Optional[int]  #: IMPs to team A (None until both rooms finished)
    par: Optional[tuple[int, Optional[Contract]]]  #: (N/S score, contract) double dummy; None when not known
    voided: Optional[str] = None  #: why the board was voided for good (self-play: a robot's error)


def result_text(record: Optional[BoardRecord]) -> str:
    """``4H by N =``, ``3NT by W -1``, ``passed out``; ``-`` for a board not played."""
    if record is None:
        return "-"
    c = record.contract
    if c is None:
        return "passed out"
    over = (record.result or 0) - c.tricks_needed
    return f"{c.text} {'=' if over == 0 else f'{over:+d}'}"


def recap_rows(records: Iterable[BoardRecord], dd: Optional[dict[int, Sequence[Sequence[int]]]] = None,
               voided: Optional[dict[int, str]] = None) -> list[RecapRow]:
    """A row per board some room finished (or voided), in board order; ``dd``: the deals' double-dummy tables by
    board (``tricks[strain][seat]``), for par."""
    rooms: dict[int, dict[str, BoardRecord]] = {}
    for r in records:
        rooms.setdefault(r.board, {})[r.room] = r
    dd, voided = dd or {}, voided or {}
    rows = []
    for board in sorted(rooms.keys() | voided.keys()):
        o, c = rooms.get(board, {}).get(OPEN), rooms.get(board, {}).get(CLOSED)
        swing = None if o is None or c is None else room_swing(o.score_ns(), c.score_ns())
        any_room = o or c
        par_of = None if board not in dd or any_room is None else par(dd[board], any_room.vul)
        rows.append(RecapRow(board, o, c, swing, par_of, voided.get(board)))
    return rows


def format_recap(rows: Sequence[RecapRow], teams: tuple[str, str]) -> str:
    """The recap as a text table (a line per board, then the totals), for a terminal or a file."""
    a, b = teams
    width = max([len(result_text(r.open)) for r in rows] + [len(result_text(r.closed)) for r in rows] + [10])
    with_par = any(r.par is not None for r in rows)
    head = (f"{'Board':>5}  {'Open room':<{width}}  {'N/S':>5}  {'Closed room':<{width}}  {'N/S':>5}  "
            f"{'IMPs':>4}" + ("  Par" if with_par else ""))
    lines = [f"Board by board: {a} (N/S in the open room, E/W in the closed room) v {b}; IMPs to {a}", head]
    for r in rows:
        if r.voided is not None:
            lines.append(f"{r.board:>5}  voided: {r.voided}")
            continue
        scores = [f"{rec.score_ns():>5}" if rec is not None else f"{'-':>5}" for rec in (r.open, r.closed)]
        swing = "-" if r.swing is None else f"{r.swing:+d}" if r.swing else "0"
        line = (f"{r.board:>5}  {result_text(r.open):<{width}}  {scores[0]}  {result_text(r.closed):<{width}}  "
                f"{scores[1]}  {swing:>4}")
        if r.par is not None:
            score, contract = r.par
            line += "  passed out" if contract is None else f"  {contract.text} {score:+d}"
        lines.append(line.rstrip())
    swings = [r.swing for r in rows if r.swing is not None]
    imps_a, imps_b = gross_imps(swings)
    lines.append(f"{len(swings)} boards compared: {a} {imps_a} - {imps_b} {b} IMPs")
    return "\n".join(lines) + "\n"


def recap_from_store(folder: Path | str, match: str, *, solve_seconds: float = 10.0,
                     threads: int = 1) -> tuple[list[RecapRow], tuple[str, str]]:
    """The recap of ``match`` in the results store under ``folder``, and its two teams' names. Par comes from the
    store's double-dummy tables (self-play keeps one per deal); for the deals without one, the solver is given
    ``solve_seconds`` (0: none), and a deal not solved by then gets no par."""
    from squeeze.robot.tm.store import STORE_FILE, ResultsStore

    store = ResultsStore(Path(folder) / STORE_FILE, create=False)
    try:
        records = [row.record for row in store.results() if row.match == match]
        dd: dict[int, Sequence[Sequence[int]]] = dict(store.dd_tables())
        voided = store.errors(match)
        teams = next(((m.team_a or "A", m.team_b or "B") for m in store.matches() if m.name == match), ("A", "B"))
    finally:
        store.close()
    missing = sorted({r.board: r.deal for r in records if r.board not in dd}.items())
    if missing and solve_seconds > 0:
        from squeeze.engine.deadline import DeadlineReached
        from squeeze.engine.dds import Solver

        try:
            tables = Solver().solve_tables([deal for _, deal in missing], threads=threads,
                                           deadline=time.monotonic() + solve_seconds)
        except DeadlineReached as exc:
            tables = list(getattr(exc, "partial", None) or [None] * len(missing))
        dd.update({board: t.tricks for (board, _), t in zip(missing, tables) if t is not None})
    return recap_rows(records, dd, voided), teams
