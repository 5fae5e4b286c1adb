"""The team match's scoring: two rooms play the same boards, and each board scores IMPs on the difference.

Team A sits North-South in the open room and East-West in the closed room, team B the other way round
(``TEAM_SEATS``, ``side_of``). So on each board the open room's N/S score against the closed room's is what team A
wins, and ``room_swing`` is the one place that swing is computed: the table manager's files, ``squeeze match``, its
live view, live events and self-play all ask it.

``compare_board`` goes further where the deal's double-dummy table is known (self-play stores it), from team A's side:

- ``swing``: the room swing;
- ``bidding``: the same for what each room's contract is worth double dummy (its score with the tricks its declarer
  takes double dummy), i.e. the swing the contracts alone would give; ``play`` is the rest, ``swing - bidding``
  (the two add up to the swing exactly);
- ``par_swing``: each room's score against the deal's double-dummy par, in IMPs, added up for A (luck of the deal
  that par already prices in is left out of each room's figure: a smaller variance for the same mean edge).

Pure functions over engine types; the figures of a whole match (means, intervals, VPs) are ``stats``' business and
the summary file's (``robot.summary``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Optional, Sequence

from .cards import Seat, Strain
from .record import BoardRecord
from .scoring import imps, par, score

__all__ = ["OPEN", "CLOSED", "TEAM_SEATS", "Side", "side_of", "room_swing", "paired_rooms", "gross_imps",
           "dd_score_ns", "BoardComparison", "compare_board", "compare_rooms"]

OPEN, CLOSED = "Open", "Closed"  #: the two rooms' names, as the protocol's ``Board`` line and the records carry them
#: The seats of team A in each room (team B has the others).
TEAM_SEATS = {OPEN: (Seat.NORTH, Seat.SOUTH), CLOSED: (Seat.EAST, Seat.WEST)}

Side = Literal["a", "b"]


def side_of(room: str, seat: Seat) -> Side:
    """The team (``"a"`` or ``"b"``) holding ``seat`` in ``room`` (a single table, room ``""``, counts as open)."""
    return "a" if seat.is_ns == (room != CLOSED) else "b"


def room_swing(ns_score: int, other_ns_score: int) -> int:
    """The IMPs a table's N/S pair wins on a board against the other room's N/S pair (the other team, seats
    swapped): negative when it loses. From the open room, the IMPs team A wins."""
    return imps(ns_score - other_ns_score)


def paired_rooms(records: Iterable[BoardRecord]) -> dict[int, tuple[BoardRecord, BoardRecord]]:
    """``board -> (open room, closed room)`` for the boards both rooms finished, in board order (records of one
    match; a board's later record in a room replaces an earlier one)."""
    rooms: dict[int, dict[str, BoardRecord]] = {}
    for r in records:
        rooms.setdefault(r.board, {})[r.room] = r
    return {b: (got[OPEN], got[CLOSED]) for b, got in sorted(rooms.items()) if OPEN in got and CLOSED in got}


def gross_imps(swings: Iterable[int]) -> tuple[int, int]:
    """The IMPs each team won over ``swings`` (team A's swings): ``(a, b)``, both at least 0."""
    a = b = 0
    for s in swings:
        if s > 0:
            a += s
        else:
            b -= s
    return a, b


def dd_score_ns(record: BoardRecord, tricks: Sequence[Sequence[int]]) -> int:
    """N/S's score for the record's contract made with its double-dummy number of tricks (0 when passed out);
    ``tricks[strain][seat]``: the deal's double-dummy table."""
    c = record.contract
    if c is None or c.declarer is None:
        return 0
    t = tricks[int(Strain(c.strain))][int(c.declarer)]
    s = score(c, t, record.vul.is_vulnerable(c.declarer))  # type: ignore[union-attr]
    return s if c.declarer.is_ns else -s


@dataclass(frozen=True)
class BoardComparison:
    """One board of both rooms from team A's side (module doc); the double-dummy parts are ``None`` when the
    deal's table is not known."""

    board: int
    swing: int  #: IMPs to team A
    bidding: Optional[int]  #: of which the contracts' double-dummy values
    play: Optional[int]  #: swing - bidding
    par_swing: Optional[int]  #: A's IMPs against par, open room plus closed room
    contracts: tuple[str, str]  #: open, closed ("passed" when passed out)


def compare_board(open_room: BoardRecord, closed_room: BoardRecord,
                  tricks: Optional[Sequence[Sequence[int]]] = None) -> BoardComparison:
    """The board's figures (module doc); ``tricks[strain][seat]``: the deal's double-dummy table, if known."""
    o, c = open_room.score_ns(), closed_room.score_ns()
    swing = room_swing(o, c)
    names = tuple(str(r.contract) if r.contract is not None else "passed" for r in (open_room, closed_room))
    if tricks is None:
        return BoardComparison(open_room.board, swing, None, None, None, names)  # type: ignore[arg-type]
    bidding = room_swing(dd_score_ns(open_room, tricks), dd_score_ns(closed_room, tricks))
    par_ns, _ = par(tricks, open_room.vul)
    par_swing = imps(o - par_ns) + imps(par_ns - c)  # A is N/S in the open room, E/W in the closed room
    return BoardComparison(open_room.board, swing, bidding, swing - bidding, par_swing, names)  # type: ignore[arg-type]


def compare_rooms(records: Iterable[BoardRecord],
                  dd: Optional[dict[int, Sequence[Sequence[int]]]] = None) -> list[BoardComparison]:
    """Every board both rooms finished, in board order, each with the deal's double-dummy table from ``dd`` (by
    board) where it is there."""
    dd = dd or {}
    return [compare_board(o, c, dd.get(b)) for b, (o, c) in paired_rooms(records).items()]
