"""Where a new connection of the table manager goes: which match, which room - or why it is refused.

Pure logic over plain data (no sockets, no store, no clock): the server describes its matches as ``MatchView``s
(the teams, and in each room the seats held by a live connection and the seats held for a player who dropped),
asks ``route`` (a ``Connecting`` line) or ``route_continuation`` (a held seat's next line on a new socket), and
carries out the answer: seat the connection in the room named by a ``Route`` (opening its match first when
``Route.opens``), or send a ``Refusal``'s reason before closing the socket.

The rules, team *a* and team *b* of a match being ``MatchView.teams[0]`` and ``[1]``:

- In a two-room match team *a* sits N/S in the open room (room 0) and E/W in the closed room (room 1), team *b* the
  other way round, so the seat a team asks for names its room; ``ANYPL`` (no seat) goes to the first room where the
  team has a seat nobody holds, else one whose player dropped (that player is likely to come back and ask for it).
- A team named in a match goes to that match (a player coming back to its held seat is routed like any other).
- With the matches fixed in advance (a match file), any other team is refused.
- Otherwise a new team joins the first unfinished match that waits for its second team, unless the seat it asks for
  is already held there (then it is not the team that match waits for); failing that it opens a match named after
  itself, up to ``max_matches``.

Whether the seat itself may be taken (held by a live connection, the team's name on that side, the protocol
version) is the table's own check (``protocol.TableMachine``): routing only names the room, so that a refusal there
comes with the protocol's own words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from squeeze.engine.cards import Seat

__all__ = ["RoomView", "MatchView", "Route", "Refusal", "route", "route_continuation", "role_of", "room_for",
           "room_teams", "new_match_name"]


@dataclass(frozen=True)
class RoomView:
    """One room of a match as routing sees it."""

    taken: frozenset[Seat] = frozenset()  #: seats with a live connection
    held: frozenset[Seat] = frozenset()  #: seats whose player dropped and may come back
    done: bool = False  #: its session has ended
    peers: tuple[tuple[Seat, str], ...] = ()  #: (seat, address it last connected from)

    def peer(self, seat: Seat) -> Optional[str]:
        return dict(self.peers).get(seat)


@dataclass(frozen=True)
class MatchView:
    """A match as routing sees it: its name, its teams (``None``: not known yet) and its rooms."""

    name: str
    teams: tuple[Optional[str], Optional[str]]
    rooms: tuple[RoomView, ...]

    @property
    def done(self) -> bool:
        return all(r.done for r in self.rooms)


@dataclass(frozen=True)
class Route:
    """Seat the connection in room ``room`` (an index into the match's rooms) of match ``match``; with ``opens``
    the match does not exist yet: open it, with ``rooms`` rooms and no teams, first. ``why`` says why there."""

    match: str
    room: int
    why: str
    opens: bool = False
    rooms: int = 0


@dataclass(frozen=True)
class Refusal:
    """Refuse the connection: ``reason`` is sent to it (as an ``Error`` line) before its socket closes."""

    reason: str


def role_of(room: int, seat: Seat) -> int:
    """0 (team *a*) or 1 (team *b*): who sits at ``seat`` in room ``room``."""
    return (0 if seat.is_ns else 1) ^ room


def room_teams(teams: Sequence[Optional[str]], room: int) -> tuple[Optional[str], Optional[str]]:
    """``(N/S team, E/W team)`` of room ``room``: team *a* is N/S in the open room, E/W in the closed room."""
    return (teams[0], teams[1]) if room == 0 else (teams[1], teams[0])


def room_for(rooms: Sequence[RoomView], role: int, seat: Optional[Seat]) -> int:
    """The room where team ``role`` takes ``seat`` (``None``: the first room with a seat free for it)."""
    if seat is not None:
        return ((0 if seat.is_ns else 1) ^ role) % len(rooms)
    # a seat nobody holds first: a held seat's player (dropped) is likely to come back and ask for it
    for free in (lambda r, s: s not in r.taken and s not in r.held, lambda r, s: s not in r.taken):
        for i, r in enumerate(rooms):
            side_ns = (role ^ i) == 0
            if any(s.is_ns == side_ns and free(r, s) for s in Seat):
                return i
    return 0


def new_match_name(team: str, names: Iterable[str]) -> str:
    """A name for the match ``team`` opens: the team's own, else ``team-2``, ``team-3``, ..."""
    taken = set(names)
    name, n = team, 1
    while name in taken:
        n += 1
        name = f"{team}-{n}"
    return name


def route(matches: Sequence[MatchView], team: str, seat: Optional[Seat], *, fixed: bool, max_matches: int,
          rooms: int) -> Route | Refusal:
    """Where a ``Connecting "<team>" as <seat>`` line goes (``seat`` ``None``: ``ANYPL``).

    Args:
        matches: the matches open now, in the order they were opened.
        fixed: the matches were given in advance (a match file): a team not in them is refused.
        max_matches: the most matches connecting teams may open.
        rooms: the rooms of a match a team opens.
    """
    for match in matches:
        if team in match.teams:
            role = match.teams.index(team)
            return Route(match.name, room_for(match.rooms, role, seat),
                         f"team {team!r} plays in match {match.name!r}")
    if fixed:
        return Refusal(f"Team {team!r} does not play here (teams: "
                       + ", ".join(sorted(t for mt in matches for t in mt.teams if t)) + ")")
    for match in matches:
        if not match.done and None in match.teams and any(match.teams):
            room = room_for(match.rooms, match.teams.index(None), seat)
            # a seat already taken there means this team is not the one that match waits for: open another
            if seat is None or (seat not in match.rooms[room].taken and seat not in match.rooms[room].held):
                return Route(match.name, room, f"team {team!r} joins match {match.name!r}, which waited for a "
                                               "second team")
    if len(matches) >= max_matches:
        return Refusal(f"No table is free for team {team!r} ({max_matches} matches are open)")
    name = new_match_name(team, (mt.name for mt in matches))
    role = 1 if seat is not None and not seat.is_ns else 0
    empty = tuple(RoomView() for _ in range(rooms))
    return Route(name, room_for(empty, role, seat), f"team {team!r} opens match {name!r}", opens=True, rooms=rooms)


#: What a line that cannot continue a held seat is told (it must say ``Connecting``, which names its team).
CONNECT_FIRST = "Expected 'Connecting \"<team>\" as <seat> using protocol version 18'"


def route_continuation(matches: Sequence[MatchView], seat: Optional[Seat], peer: str) -> Route | Refusal:
    """Where a held seat's next line on a new socket goes (JobScheffers-style: no ``Connecting``, so no team).

    Which table it continues is known only by the seat the line names and the address it comes from, so it is taken
    only where that is unambiguous: exactly one live room has this seat played from this address, and the seat is
    held there (not taken by a live connection). With two (robots of several tables on one host), a line that also
    fits the other table would seat the robot at the wrong table and leave its own waiting for ever (the manager
    may not yet have seen its old socket close); the robot is told to say ``Connecting`` instead. The table still
    checks the line itself (a ``Route`` here is only where to try it).
    """
    mine = [(mt, i) for mt in matches for i, r in enumerate(mt.rooms)
            if not r.done and seat is not None and r.peer(seat) == peer]
    if len(mine) > 1:
        return Refusal(f"Cannot tell which table this line continues ({len(mine)} tables have {seat.title} from "
                       f"{peer}): send 'Connecting \"<team>\" as {seat.title} using protocol version 18'")
    if mine:
        match, i = mine[0]
        room = match.rooms[i]
        if seat not in room.taken and seat in room.held:
            return Route(match.name, i, f"{seat.title} of match {match.name!r} continues from {peer}")
    return Refusal(CONNECT_FIRST)
