"""ClientMachine and TableMachine: robustness (Hypothesis), seating and flow details."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squeeze.engine.auction import Call
from squeeze.engine.cards import Card, Deal, Seat, Vul
from squeeze.protocol import messages as m
from squeeze.protocol.client import ClientMachine, ClientPhase
from squeeze.protocol.errors import LocalProtocolError, ProtocolError
from squeeze.protocol.loopback import Loopback
from squeeze.protocol.table import BoardFinished, PlayerSeated, TableMachine, TablePhase
from test_protocol_messages import _mutations, messages
from test_protocol_support import TEAM, board, client_at, drain, machine_state, name, table_at


def _collect_states():
    """Copies of all five machines at many points of a real session (seating, auction, play, board ends); the
    table's connections are its seats."""
    rng = random.Random(5)
    boards = [board(i, Deal.random(rng), Seat((i - 1) % 4), Vul(i % 4)) for i in range(1, 4)]
    table = TableMachine(boards)
    clients = {s: ClientMachine(TEAM[s], s) for s in Seat}

    def call(client, ev):
        legal = ev.auction.legal_calls()
        return legal[0] if rng.random() < 0.6 else rng.choice(legal)

    lb = Loopback(table, clients, call, lambda c, ev: rng.choice(ev.legal), rng=random.Random(6))
    lb.start()
    table_states, client_states = [], []
    while lb.step():
        if lb.steps % 23 == 1:
            table_states.append(copy.deepcopy(table))
            for c in clients.values():
                client_states.append(copy.deepcopy(c))
    return table_states, client_states


TABLE_STATES, CLIENT_STATES = _collect_states()
def _line(data):
    kind = data.draw(st.sampled_from(["message", "mutated", "text", "bytes", "huge"]))
    if kind == "message":
        return m.format(data.draw(messages))
    if kind == "mutated":
        return _mutations(m.format(data.draw(messages)), data)
    if kind == "text":
        return data.draw(st.text(max_size=120))
    if kind == "bytes":
        return data.draw(st.binary(max_size=120))
    return "North bids 1C Alert. " + "x" * (1 << 20)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_client_random_lines_only_protocol_error_and_no_state_change(data):
    c = copy.deepcopy(data.draw(st.sampled_from(CLIENT_STATES)))
    phase = c.phase
    line = _line(data)
    before = machine_state(c)
    try:
        c.receive_line(line)
    except ProtocolError:
        if phase == ClientPhase.CONNECTING:
            assert c.phase == ClientPhase.ERROR  # the one documented exception: a refused connection
        else:
            assert machine_state(c) == before


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_table_random_lines_only_protocol_error_and_no_state_change(data):
    t = copy.deepcopy(data.draw(st.sampled_from(TABLE_STATES)))
    seated = [s for s in Seat if t.seat_of(s) is not None]
    conn = data.draw(st.sampled_from(seated + ["stranger"]))
    line = _line(data)
    before = machine_state(t)
    try:
        t.receive(conn, line)
    except ProtocolError as exc:
        assert machine_state(t) == before
        assert exc.reply is None or exc.reply.endswith("\r\n")


def test_states_cover_the_session():
    assert {c.phase.value for c in CLIENT_STATES} >= {"auction", "play", "board_done", "await_cards"}
    assert {t.waiting_for[0] for t in TABLE_STATES if t.waiting_for} >= {"bid", "card", "dummy", "deal", "cards"}


# --- client details -------------------------------------------------------------------------------------------


def test_client_connect_lines_and_options():
    c = ClientMachine("Squeeze", Seat.WEST, info="squeeze 0.1")
    c.connect()
    assert c.bytes_to_send() == b'Connecting "Squeeze" as West using protocol version 18 squeeze 0.1\r\n'
    with pytest.raises(ValueError):
        ClientMachine('bad "name"', Seat.WEST)
    with pytest.raises(ValueError):
        ClientMachine("x", Seat.WEST, dummy_card_style="north")


def test_client_rejects_impossible_calls_and_cards_from_the_table():
    c = client_at("auction", seat=Seat.EAST)  # South deals
    drain(c)
    for bad in ("West passes", "South bids 8C", "South doubles", "South redoubles", "North plays 5C"):
        before = machine_state(c)
        with pytest.raises(ProtocolError):
            c.receive_line(bad)
        assert machine_state(c) == before
    c.receive_line("South bids 1NT")
    with pytest.raises(ProtocolError):
        c.receive_line("West bids 1C")  # insufficient


def test_client_sees_revokes_it_can_prove():
    w = client_at("auction", seat=Seat.WEST)
    calls = ["South bids 1NT", None, "North bids 2C", "East doubles", "South bids 2H", None, "North bids 4H",
             "East passes", "South passes", None]
    for line in calls:
        if line is None:
            w.send_call(Call.parse("P"))
        else:
            w.receive_line(line)
    w.receive_line("West to lead")
    w.send_card(Card.parse("D2"))
    w.receive_line("Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.")
    with pytest.raises(ProtocolError):
        w.receive_line("North plays 5C")  # dummy holds diamonds: a revoke we can see
    w.receive_line("North plays 4D")
    with pytest.raises(ProtocolError):
        w.receive_line("East plays 7D")  # 7D is in dummy's hand
    with pytest.raises(ProtocolError):
        w.receive_line("East plays 2D")  # already played (our lead)
    w.receive_line("East plays 7S")  # East shows out of diamonds (as far as West can tell)
    w.receive_line("South plays AD")
    assert w.tricks[-1][2] == Seat.SOUTH
    assert drain(w)[-1] == "West ready for South's card to trick 2"
    w.receive_line("South plays 4C")
    w.send_card(Card.parse("C2"))
    w.receive_line("North plays 9C")
    with pytest.raises(ProtocolError):
        w.receive_line("East plays 3D")  # East showed out of diamonds in trick 1


def test_client_table_errors_are_events_only():
    c = client_at("auction")
    drain(c)
    before = machine_state(c)
    for line in ("Illegal bid", "Illegal card", "ERROR: Unexpected message received."):
        (ev,) = c.receive_line(line)
        assert type(ev).__name__ == "TableError"
    assert machine_state(c) == before


def test_client_ignores_a_resent_line():
    c = client_at("auction", seat=Seat.EAST)
    c.receive_line("South bids 1NT")
    before = machine_state(c)
    assert c.receive_line("South bids 1NT") == [] and machine_state(c) == before


# --- table details --------------------------------------------------------------------------------------------


def test_table_seating_events_and_required_team_names():
    t = TableMachine([board()], ns_team="RoboA", ew_team="RoboB")
    t.receive("a", 'Connecting "RoboA" as North using protocol version 18')
    (ev,) = t.events()
    assert ev == PlayerSeated(connection="a", seat=Seat.NORTH, team="RoboA", rejoined=False)
    with pytest.raises(ProtocolError) as info:
        t.receive("b", 'Connecting "RoboC" as East using protocol version 18')
    assert 'Team name must be "RoboB"' in str(info.value)
    with pytest.raises(ValueError):
        TableMachine([], ns_team="Same", ew_team="Same")


def test_table_teams_wait_for_all_four():
    t, _ = table_at("seated")
    out = []
    for s in list(Seat)[:3]:
        out += t.receive(s, f"{name(s)} ready for teams")
    assert out == []
    out = t.receive(Seat.WEST, "West ready for teams")
    assert [o.line for o in out] == ['Teams : N/S : "RoboA" E/W : "RoboB"\r\n'] * 4
    assert t.phase == TablePhase.READY_TO_START


def test_table_session_end_and_record():
    t = TableMachine([board()])
    clients = {s: ClientMachine(TEAM[s], s) for s in Seat}
    lb = Loopback(t, clients, lambda c, ev: ev.auction.legal_calls()[0] if ev.auction.calls else Call.parse("3N"),
                  lambda c, ev: ev.legal[-1], record=True)
    (record,) = lb.run()
    finished = [e for e in lb.table_events if isinstance(e, BoardFinished)]
    assert finished[0].record == record and record.contract.declarer == Seat.SOUTH
    assert record.players == TEAM
    last = [l for s, d, l in lb.log if d == "TM->" and s == Seat.NORTH][-2:]
    assert last == ["Timing - N/S : this board  00:00,  total  0:00:00.  E/W : this board  00:00,  total  0:00:00",
                    "End of session"]
    assert t.phase == TablePhase.ENDED
    with pytest.raises(ProtocolError):
        t.receive(Seat.NORTH, "North ready for deal")
    with pytest.raises(LocalProtocolError):
        t.add_boards([board()])
    with pytest.raises(LocalProtocolError):
        t.restart_board()


def test_reconnect_mid_board_restarts_the_board_and_the_session_completes():
    rng = random.Random(12)
    boards = [board(1, Deal.random(rng), Seat.NORTH, Vul.NONE), board(2, Deal.random(rng), Seat.EAST, Vul.NS)]
    table = TableMachine(boards)
    clients = {s: ClientMachine(TEAM[s], s) for s in Seat}
    lb = Loopback(table, clients, lambda c, ev: ev.auction.legal_calls()[0] if ev.auction.calls else Call.parse("2N"),
                  lambda c, ev: rng.choice(ev.legal), rng=random.Random(3), record=True)
    lb.start()
    while not (table.play is not None and len(table.play.cards) == 9):
        lb.step()
    lb.reconnect(Seat.EAST)
    results = lb.run()
    assert [r.board for r in results] == [1, 2] and all(len(r.play) == 52 for r in results)
    restarted = [e for e in lb.table_events if type(e).__name__ == "BoardStarted" and e.restarted]
    assert len(restarted) == 1
    # lines the other seats had in flight for the abandoned board were answered with errors, nothing worse
    assert all(kind == "table" and seat != Seat.EAST for kind, seat, _, _ in lb.errors) or not lb.errors


def test_each_clients_seat_view_is_what_that_seat_sees_of_the_tables_play():
    """``ClientMachine.seat_view()`` (what the agent hands the engine) equals the seat's view of the table's own
    ``Play`` at every step: the same tricks, show-outs and hands, from one record (engine.view.SeatView)."""
    from squeeze.engine.view import SeatView

    table = TableMachine([board()])
    clients = {s: ClientMachine(TEAM[s], s) for s in Seat}
    rng = random.Random(5)
    lb = Loopback(table, clients, lambda c, ev: rng.choice(ev.auction.legal_calls()[:3]),
                  lambda c, ev: rng.choice(ev.legal), rng=random.Random(6))
    lb.start()
    checked = 0
    while lb.step():
        p = table.play
        if p is None or not p.cards or len(p.cards) == 52:
            continue
        for seat, c in clients.items():
            if c.phase != ClientPhase.PLAY or len(c.cards) != len(p.cards) or c.dummy_hand is None and seat != p.dummy:
                continue
            view = c.seat_view()
            assert view == SeatView.from_play(p, seat, auction=c.auction, vul=c.vul, board=c.board)
            assert view.play.tricks == p.tricks and view.known_cards() == SeatView.from_play(p, seat).known_cards()
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("alerts,explanations,line", [
    (True, "on", "South bids 1NT Alert. 15-17"),
    (True, "off", "South bids 1NT Alert."),
    (False, "on", "South bids 1NT Infos. 15-17"),
    (False, "off", "South bids 1NT"),
    (True, "auto", "South bids 1NT Alert. 15-17"),  # protocol 18 defines the alert text after a bid
    (False, "auto", "South bids 1NT"),  # ... but not Infos.
])
def test_alerts_and_explanations_are_separate_switches(alerts, explanations, line):
    c = client_at("auction", seat=Seat.SOUTH, send_alerts=alerts, explanations=explanations)
    drain(c)
    c.send_call(Call.parse("1N"), alert=True, explanation="15-17")
    assert drain(c)[0] == line
    assert c.explanations == explanations


# What each mode sends for a call with an explanation, at a protocol-18 manager and at one that has shown protocol
# 19 on its Teams line: (call, alert) -> line at 18, line at 19.
_AUTO_LINES = [
    ("1N", True, "South bids 1NT Alert. 15-17", "South bids 1NT Alert. 15-17"),
    ("1N", False, "South bids 1NT", "South bids 1NT Infos. 15-17"),
    ("P", False, "South passes", "South passes Infos. 15-17"),
    ("P", True, "South passes", "South passes Alert. 15-17"),
]


@pytest.mark.parametrize("call,alert,at18,at19", _AUTO_LINES)
def test_auto_explanations_follow_the_managers_protocol(call, alert, at18, at19):
    for tail, expected in (("", at18), (". Playing IMP", at19)):
        c = client_at("auction", seat=Seat.SOUTH, teams_tail=tail)  # the default mode is auto
        assert c.explanations == "auto"
        drain(c)
        c.send_call(Call.parse(call), alert=alert, explanation="15-17")
        assert drain(c)[0] == expected


def test_a_room_on_the_board_line_shows_protocol_19_too():
    c = client_at("board", seat=Seat.SOUTH)
    assert c.peer_version == 18
    c2 = ClientMachine(TEAM[Seat.SOUTH], Seat.SOUTH)
    c2.connect()
    c2.receive_line('South ("RoboA") seated')
    c2.receive_line('Teams : N/S : "RoboA" E/W : "RoboB"')
    c2.receive_line("Start of board")
    c2.receive_line("Board number 3. Dealer South. E/W vulnerable. Open room.")
    assert c2.peer_version == 19


def test_an_unknown_explanations_mode_is_refused():
    with pytest.raises(ValueError, match="explanations must be one of auto, on, off"):
        ClientMachine("RoboA", Seat.NORTH, explanations="sometimes")


def test_name_teams_fills_unnamed_sides_and_refuses_a_contradiction():
    t = TableMachine(ns_team="A")
    t.name_teams("A", "B")  # N/S again the same team, E/W newly named
    assert t.teams == ["A", "B"]
    t.name_teams(None, None)
    assert t.teams == ["A", "B"]
    with pytest.raises(LocalProtocolError, match="not 'C'"):
        t.name_teams("C", None)
    with pytest.raises(LocalProtocolError, match="different names"):
        TableMachine().name_teams("A", "A")
    assert t.teams == ["A", "B"]  # a refused call changes nothing


def test_the_seat_view_carries_which_calls_came_alerted():
    # The engine reads an opponent's alerted bid as their convention (Bidder.unread): the client keeps, per board,
    # which calls the table relayed with an alert.
    c = client_at("auction", seat=Seat.NORTH)  # dealer South
    c.receive_line("South bids 1C")
    c.receive_line("West bids 1S Alert. limit raise in hearts")
    assert c.seat_view().alerted == {1}
    c.send_call(Call.parse("P"))
    c.receive_line("East passes")
    assert c.seat_view().alerted == {1}
    assert c.seat_view().auction.calls[1] == Call.parse("1S")
    # and what the table said of it, whose ranges the sampler takes (bidding.disclosure)
    assert dict(c.seat_view().explanations) == {1: "limit raise in hearts"}
