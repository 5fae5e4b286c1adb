"""Routing of the table manager (``robot.tm.routing``): which match and room a connection goes to, or why not.
No sockets: plain views in, a decision out; where the seat check matters, a real ``TableMachine`` (pure) makes it."""

from __future__ import annotations

from typing import Optional

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from squeeze.engine.cards import Seat
from squeeze.protocol import messages as m
from squeeze.protocol.errors import ProtocolError
from squeeze.protocol.table import PlayerSeated, TableMachine
from squeeze.robot.tm import routing
from squeeze.robot.tm.plan import random_boards
from squeeze.robot.tm.routing import MatchView, Refusal, RoomView, Route, route, route_continuation

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


def _match(name: str, teams: tuple[Optional[str], Optional[str]], *rooms: RoomView) -> MatchView:
    return MatchView(name, teams, rooms or (RoomView(), RoomView()))


def _room(taken=(), held=(), done=False, peers=()) -> RoomView:
    return RoomView(frozenset(taken), frozenset(held), done, tuple(peers))


def _on_demand(matches, team, seat, *, max_matches=64, rooms=2):
    return route(matches, team, seat, fixed=False, max_matches=max_matches, rooms=rooms)


# --- team matching across two rooms ----------------------------------------------------------------------------
@pytest.mark.parametrize("team,seat,room", [
    ("A", N, 0), ("A", S, 0), ("A", E, 1), ("A", W, 1),  # team a: N/S in the open room, E/W in the closed room
    ("B", N, 1), ("B", S, 1), ("B", E, 0), ("B", W, 0),  # team b the other way round
])
def test_the_seat_a_team_asks_for_names_its_room(team, seat, room):
    final = _match("final", ("A", "B"))
    decision = route([final], team, seat, fixed=True, max_matches=64, rooms=2)
    assert decision == Route("final", room, f"team {team!r} plays in match 'final'")
    assert routing.role_of(room, seat) == ("A", "B").index(team)


def test_anypl_goes_to_the_first_room_with_a_free_seat_for_the_team_a_held_seat_last():
    rooms = (_room(taken={N, S}), _room())
    assert route([_match("m", ("A", "B"), *rooms)], "A", None, fixed=True, max_matches=1, rooms=2).room == 1
    # team b's side of the open room is E/W: free there
    assert route([_match("m", ("A", "B"), *rooms)], "B", None, fixed=True, max_matches=1, rooms=2).room == 0
    # a seat nobody holds before one whose player dropped (that player is likely to come back for it)
    rooms = (_room(taken={N}, held={S}), _room())
    assert route([_match("m", ("A", "B"), *rooms)], "A", None, fixed=True, max_matches=1, rooms=2).room == 1
    rooms = (_room(taken={N}, held={S}), _room(taken={E, W}))
    assert route([_match("m", ("A", "B"), *rooms)], "A", None, fixed=True, max_matches=1, rooms=2).room == 0


def test_room_teams_seat_team_a_north_south_in_the_open_room():
    assert routing.room_teams(["A", "B"], 0) == ("A", "B")
    assert routing.room_teams(["A", "B"], 1) == ("B", "A")


# --- matches opened by the teams that connect ------------------------------------------------------------------
def test_the_first_team_opens_a_match_the_second_joins_it_a_third_opens_another():
    first = _on_demand([], "A", E)
    assert first == Route("A", 0, "team 'A' opens match 'A'", opens=True, rooms=2)
    waiting = _match("A", (None, "A"), _room(taken={E}), _room())  # A asked for East: it is team b
    joined = _on_demand([waiting], "B", N)
    assert isinstance(joined, Route) and not joined.opens and joined.match == "A" and joined.room == 0
    assert "joins match 'A'" in joined.why
    full = _match("A", ("B", "A"), _room(taken={N, E}), _room())
    second = _on_demand([full], "C", None)
    assert second == Route("C", 0, "team 'C' opens match 'C'", opens=True, rooms=2)


def test_a_new_match_is_named_after_its_team_and_never_reuses_a_name():
    assert routing.new_match_name("A", []) == "A"
    assert routing.new_match_name("A", ["A", "A-2", "B"]) == "A-3"
    opened = _on_demand([_match("A", ("X", "Y"))], "A", None)
    assert isinstance(opened, Route) and opened.opens and opened.match == "A-2"


def test_a_finished_match_or_one_nobody_sits_in_is_not_joined():
    done = _match("A", ("A", None), _room(done=True), _room(done=True))
    assert _on_demand([done], "B", N).opens
    empty = _match("A", (None, None))  # its opener was refused by the table (a bad version, say)
    assert _on_demand([empty], "B", N).opens


def test_one_room_matches():
    opened = _on_demand([], "A", W, rooms=1)
    assert opened == Route("A", 0, "team 'A' opens match 'A'", opens=True, rooms=1)
    single = _match("A", (None, "A"), _room(taken={W}))
    assert _on_demand([single], "B", S, rooms=1).room == 0


# --- refusals ---------------------------------------------------------------------------------------------------
def test_a_team_not_in_the_match_file_is_refused_naming_the_teams():
    decision = route([_match("final", ("A", "B")), _match("plate", ("C", "D"))], "Z", N, fixed=True,
                     max_matches=64, rooms=2)
    assert decision == Refusal("Team 'Z' does not play here (teams: A, B, C, D)")


def test_no_match_may_open_past_max_matches():
    full = [_match(f"T{i}", (f"T{i}", f"U{i}")) for i in range(3)]
    assert _on_demand(full, "V", N, max_matches=3) == Refusal("No table is free for team 'V' (3 matches are open)")


def test_a_new_team_asking_for_a_seat_taken_in_the_waiting_match_opens_its_own():
    waiting = _match("A", ("A", None), _room(taken={N}), _room())
    # team b of match A sits N/S in the closed room: North there is free, so B joins ...
    assert _on_demand([waiting], "B", N) == Route("A", 1, "team 'B' joins match 'A', which waited for a second team")
    # ... but East of the open room is not where team b sits; if that seat were held, B is not who A waits for
    waiting = _match("A", ("A", None), _room(taken={N, E}), _room())
    decision = _on_demand([waiting], "B", E)
    assert decision.opens and decision.match == "B"


def _machines(teams: tuple[str, str], rooms: int = 2) -> list[TableMachine]:
    boards = random_boards(1, 2, seed=5)
    return [TableMachine(boards, ns_team=ns, ew_team=ew) for ns, ew in
            (routing.room_teams(teams, i) for i in range(rooms))]


def _connect(team: str, seat: Optional[Seat]) -> str:
    return m.Connect(team=team, seat=seat).format()


def test_a_seat_taken_or_a_wrong_team_is_refused_by_the_table_routing_names():
    tables = _machines(("A", "B"))
    tables[0].receive(1, _connect("A", N))
    view = _match("final", ("A", "B"), _room(taken={N}), _room())
    decision = route([view], "A", N, fixed=True, max_matches=1, rooms=2)
    assert decision.room == 0
    with pytest.raises(ProtocolError, match="Seat North has already been taken") as exc:
        tables[decision.room].receive(2, _connect("A", N))
    assert exc.value.fatal
    # a team of the match that asks for the other team's side: routed to the room where that seat is its own...
    decision = route([view], "B", N, fixed=True, max_matches=1, rooms=2)
    assert decision.room == 1
    tables[1].receive(3, _connect("B", N))
    # ...and a line naming another team at a seat of a known side is refused by the table with the team it wants
    with pytest.raises(ProtocolError, match='Team name must be "A"'):
        tables[0].receive(4, _connect("Q", S))


# --- coming back ------------------------------------------------------------------------------------------------
def test_a_dropped_seat_reconnecting_goes_back_to_its_own_room():
    match = _match("final", ("A", "B"), _room(taken={N, E, W}, held={S}), _room(taken=set(Seat)))
    assert route([match], "A", S, fixed=True, max_matches=1, rooms=2).room == 0
    assert route([match], "A", None, fixed=True, max_matches=1, rooms=2).room == 0  # ANYPL: the held seat
    # on demand as well: a team in a match goes back to it, never to a new one
    assert _on_demand([match], "A", S) == Route("final", 0, "team 'A' plays in match 'final'")
    # and the table takes it back on that seat
    table = _machines(("A", "B"))[0]
    table.receive(1, _connect("A", S))
    table.disconnect(1)
    table.receive(2, _connect("A", S))
    assert any(isinstance(e, PlayerSeated) and e.rejoined and e.seat == S for e in table.events())


def test_a_continuation_goes_to_the_one_table_its_seat_and_address_name():
    one = _match("m1", ("A", "B"), _room(taken={N, E, W}, held={S}, peers=[(S, "10.0.0.2")]), _room())
    assert route_continuation([one], S, "10.0.0.2") == Route("m1", 0, "South of match 'm1' continues from 10.0.0.2")
    # from another address, for a seat not held, or a line naming no seat: it must say Connecting
    for seat, peer in ((S, "10.0.0.9"), (N, "10.0.0.2"), (None, "10.0.0.2")):
        assert route_continuation([one], seat, peer) == Refusal(routing.CONNECT_FIRST)
    live = _match("m1", ("A", "B"), _room(taken=set(Seat), peers=[(S, "10.0.0.2")]), _room())
    assert route_continuation([live], S, "10.0.0.2") == Refusal(routing.CONNECT_FIRST)
    # two live tables with South from that address: ambiguous, refused with what to do instead
    two = _match("m2", ("C", "D"), _room(held={S}, peers=[(S, "10.0.0.2")]), _room())
    refusal = route_continuation([one, two], S, "10.0.0.2")
    assert isinstance(refusal, Refusal) and "Cannot tell which table" in refusal.reason
    assert "Connecting \"<team>\" as South" in refusal.reason
    # a finished table does not count
    done = _match("m2", ("C", "D"), _room(held={S}, done=True, peers=[(S, "10.0.0.2")]), _room(done=True))
    assert route_continuation([one, done], S, "10.0.0.2").match == "m1"


# --- properties: a lobby of real tables driven by routing -------------------------------------------------------
class _Lobby:
    """The server's routing without its sockets: matches of real ``TableMachine``s, connections by number."""

    def __init__(self, fixed: Optional[list[tuple[str, str]]], max_matches: int, rooms: int) -> None:
        self.fixed, self.max_matches, self.rooms = fixed is not None, max_matches, rooms
        self.matches: dict[str, tuple[list[Optional[str]], list[TableMachine], list[dict[Seat, int]],
                                      list[set[Seat]]]] = {}
        self.conns: dict[int, tuple[str, int, Seat]] = {}
        self.next_id = 1
        for i, teams in enumerate(fixed or []):
            self._open(f"match{i}", list(teams))

    def _open(self, name: str, teams: list[Optional[str]]) -> None:
        boards = random_boards(1, 1, seed=3)
        machines = [TableMachine(boards, ns_team=ns, ew_team=ew)
                    for ns, ew in (routing.room_teams(teams, i) for i in range(self.rooms))]
        self.matches[name] = (teams, machines, [{} for _ in machines], [set() for _ in machines])

    def views(self) -> list[MatchView]:
        return [MatchView(name, (teams[0], teams[1]), tuple(RoomView(frozenset(c), frozenset(h))
                                                            for c, h in zip(conns, held)))
                for name, (teams, _machines, conns, held) in self.matches.items()]

    def connect(self, team: str, seat: Optional[Seat]) -> Route | Refusal:
        decision = route(self.views(), team, seat, fixed=self.fixed, max_matches=self.max_matches, rooms=self.rooms)
        if isinstance(decision, Refusal):
            return decision
        if decision.opens:
            assert decision.match not in self.matches
            self._open(decision.match, [None, None])
        teams, machines, conns, held = self.matches[decision.match]
        cid, self.next_id = self.next_id, self.next_id + 1
        try:
            machines[decision.room].receive(cid, _connect(team, seat))
        except ProtocolError as exc:
            assert exc.fatal
            return decision
        for ev in machines[decision.room].events():
            if isinstance(ev, PlayerSeated):
                assert ev.seat not in conns[decision.room], "two connections on one seat"
                conns[decision.room][ev.seat] = ev.connection
                held[decision.room].discard(ev.seat)
                role = routing.role_of(decision.room, ev.seat)
                if teams[role] is None:
                    teams[role] = ev.team
                    for i, machine in enumerate(machines):  # as the server does: every room learns the side
                        machine.name_teams(*routing.room_teams(teams, i))
                self.conns[cid] = (decision.match, decision.room, ev.seat)
        return decision

    def drop(self, index: int) -> None:
        if not self.conns:
            return
        cid = sorted(self.conns)[index % len(self.conns)]
        name, room, seat = self.conns.pop(cid)
        _teams, machines, conns, held = self.matches[name]
        machines[room].disconnect(cid)
        del conns[room][seat]
        held[room].add(seat)


_TEAMS = st.sampled_from(["A", "B", "C", "D", "E"])
_SEATS = st.one_of(st.none(), st.sampled_from(list(Seat)))
_STEPS = st.lists(st.one_of(st.tuples(st.just("connect"), _TEAMS, _SEATS),
                            st.tuples(st.just("drop"), st.integers(0, 50))), max_size=40)


@settings(max_examples=150, deadline=None)
# found by this property: team A's fourth ANYPL player went to the closed room, whose sides nobody had named yet,
# and sat N/S there, on the same side as in the open room
@example(steps=[("connect", "A", None), ("connect", "A", None), ("connect", "B", None), ("connect", "A", None)],
         fixed=False, rooms=2, max_matches=1)
@given(steps=_STEPS, fixed=st.booleans(), rooms=st.sampled_from([1, 2]), max_matches=st.integers(1, 4))
def test_routing_never_seats_two_connections_or_a_team_on_both_sides(steps, fixed, rooms, max_matches):
    lobby = _Lobby([("A", "B"), ("C", "D")] if fixed else None, max_matches, rooms)
    for step in steps:
        if step[0] == "drop":
            lobby.drop(step[1])
            continue
        _, team, seat = step
        decision = lobby.connect(team, seat)
        # every decision names a reason
        assert (decision.why if isinstance(decision, Route) else decision.reason).strip()
        if isinstance(decision, Route) and not decision.opens:
            teams = lobby.matches[decision.match][0]
            if seat is not None and team in teams and rooms == 2:  # sent where that seat is on the team's side
                assert routing.role_of(decision.room, seat) == teams.index(team)
    # each connection holds its own seat; each team sits in one match, and on one side of each room
    seats = [(name, room, seat) for name, room, seat in lobby.conns.values()]
    assert len(seats) == len(set(seats))
    where: dict[str, set[str]] = {}
    for name, (teams, machines, conns, _held) in lobby.matches.items():
        assert len(lobby.matches) <= max(max_matches, 2 if fixed else 0)
        for room, machine in enumerate(machines):
            assert machine.teams[0] is None or machine.teams[0] != machine.teams[1]
            for seat in conns[room]:
                team = machine.teams[0 if seat.is_ns else 1]
                assert team == teams[routing.role_of(room, seat)]
                where.setdefault(team, set()).add(name)
    assert all(len(names) == 1 for names in where.values()), where


@settings(max_examples=200, deadline=None)
@given(taken=st.lists(st.frozensets(st.sampled_from(list(Seat))), min_size=1, max_size=2),
       held=st.lists(st.frozensets(st.sampled_from(list(Seat))), min_size=2, max_size=2),
       role=st.sampled_from([0, 1]))
def test_anypl_prefers_a_room_where_the_team_has_a_seat_nobody_holds(taken, held, role):
    rooms = tuple(RoomView(t, h - t) for t, h in zip(taken, held))
    room = routing.room_for(rooms, role, None)
    assert 0 <= room < len(rooms)
    free = [i for i, r in enumerate(rooms)
            if any(s.is_ns == ((role ^ i) == 0) and s not in r.taken and s not in r.held for s in Seat)]
    if free:
        assert room == free[0]
