"""The table manager's clock policy (``robot.tm.clocks``): given the time and what a table waits for, what happens.
No sockets, no event loop: the time is a number passed in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squeeze.config.settings import TableManagerSettings
from squeeze.engine.cards import Seat
from squeeze.robot.tm import clocks
from squeeze.robot.tm.clocks import CatchUp, Force, HoldExpired, TableClock, Void, Wait, Warn

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
ALL = frozenset(Seat)


def _rules(**kw) -> TableManagerSettings:
    base = dict(seconds_per_call=10, seconds_per_card=5, board_seconds=100, ready_seconds=20, grace_seconds=3,
                hold_seconds=30)
    return TableManagerSettings(**{**base, **kw})


def _bid(acting=N, *, calls=0, seated=ALL, used=0.0, board=1) -> Wait:
    return Wait("bid", (), acting, frozenset(seated), side_used=used, board=board, calls=calls)


def _run(clock: TableClock, rules, wait: Wait, times) -> list:
    return [clock.decide(rules, wait, t) for t in times]


def test_a_new_wait_only_starts_the_clock():
    clock = TableClock()
    rules = _rules()
    assert clock.decide(rules, _bid(), 100.0) is None
    assert clock.decide(rules, _bid(), 109.0) is None  # 9 s of 10: in time
    assert clock.decide(rules, _bid(calls=1, acting=E), 200.0) is None  # a call came: E's clock starts at 200
    assert clock.decide(rules, _bid(calls=1, acting=E), 209.5) is None


def test_a_slow_call_is_warned_then_forced_after_the_grace():
    clock, rules = TableClock(), _rules()
    actions = _run(clock, rules, _bid(), [0.0, 10.5, 12.0, 13.0, 13.6])
    assert actions[:2] == [None, Warn(N, "10.5 s on one call (limit 10 s)")]
    assert actions[1].detail == "North: 10.5 s on one call (limit 10 s)" and actions[1].kind == "clock"
    assert actions[2:4] == [None, None]  # the grace: 3 s from the warning
    force = actions[4]
    assert force == Force(N, "call", "13.6 s on one call (limit 10 s)")  # (the time when the table acts)
    assert force.reason == "forced by the table manager: North over the time limit (13.6 s on one call (limit 10 s))"
    assert force.detail == "North: the table made its call (13.6 s on one call (limit 10 s))"


def test_a_slow_card_and_a_missing_ready_line():
    clock, rules = TableClock(), _rules()
    card = Wait("card", (), W, ALL, board=1, calls=4, cards=0)
    assert _run(clock, rules, card, [0.0, 5.2])[1] == Warn(W, "5.2 s on one card (limit 5 s)")
    assert _run(clock, rules, card, [8.3])[0] == Force(W, "card", "8.3 s on one card (limit 5 s)")
    clock = TableClock()
    ready = Wait("card", (E, S), None, ALL, board=1, calls=4, cards=1)
    actions = _run(clock, rules, ready, [0.0, 19.0, 20.5, 24.0])
    assert actions[:2] == [None, None]
    assert actions[2] == Warn(E, "no ready line for 20.5 s (waiting for 'card', limit 20 s)")
    assert actions[3].what == "ready line" and actions[3].seat == E


def test_the_time_a_side_has_used_on_the_board_counts():
    clock, rules = TableClock(), _rules()
    # 95 s used before this call: 6 s more passes the board's 100 s though the call's own 10 s are not up
    actions = _run(clock, rules, _bid(used=95.0), [0.0, 4.0, 6.0])
    assert actions == [None, None, Warn(N, "its side used 101.0 s on the board (limit 100 s)")]


def test_a_seat_nobody_plays_has_no_clock():
    clock, rules = TableClock(), _rules()
    gone = _bid(acting=N, seated=ALL - {N})  # North dropped: the hold, not the clock, deals with it
    assert _run(clock, rules, gone, [0.0, 50.0, 60.0]) == [None, None, None]
    ready = Wait("bid", (N, E), None, ALL - {N}, board=1)
    assert _run(TableClock(), rules, ready, [0.0, 21.0])[1].seat == E  # the first owing seat that is seated


def test_fate_warn_records_and_never_acts():
    clock, rules = TableClock(), _rules(time_fate="warn", warn_at_table=True)
    actions = _run(clock, rules, _bid(), [0.0, 11.0, 20.0, 100.0, 1000.0])
    assert actions == [None, Warn(N, "11.0 s on one call (limit 10 s)"), None, None, None]
    assert actions[1].notice is None  # with warn, the table never acts, so the seat is not told it will


def test_fate_void_voids_a_board_once_then_forces():
    clock, rules = TableClock(), _rules(time_fate="void")
    actions = _run(clock, rules, _bid(board=7), [0.0, 11.0, 14.0])
    assert actions[2] == Void(N, 7, "14.0 s on one call (limit 10 s)")
    assert actions[2].detail == "board 7: North over the time limit (14.0 s on one call (limit 10 s)); replayed now"
    clock.new_board()  # the board starts again
    actions = _run(clock, rules, _bid(board=7), [20.0, 31.0, 34.0])
    assert isinstance(actions[1], Warn) and actions[2] == Force(N, "call", "14.0 s on one call (limit 10 s)")
    clock.new_board()  # the next board may be voided once too
    assert _run(clock, rules, _bid(board=8), [40.0, 51.0, 54.0])[2] == Void(N, 8, "14.0 s on one call (limit 10 s)")


@pytest.mark.parametrize("fate", ["warn", "force", "void"])
def test_by_default_no_seat_is_told_of_its_clock(fate):
    """A protocol-18 robot may drop the table on a line it does not know (BEN's client does): the clocks are the
    director's. Off by default, ``warn_at_table`` alone decides; the seat's protocol version does not enter."""
    assert TableManagerSettings().warn_at_table is False
    warn = _run(TableClock(), _rules(time_fate=fate), _bid(), [0.0, 11.0])[1]
    assert isinstance(warn, Warn) and warn.notice is None


def test_with_warn_at_table_the_seat_is_told_when_the_table_will_act():
    warn = _run(TableClock(), _rules(warn_at_table=True), _bid(acting=S), [0.0, 11.0])[1]
    assert warn.notice == "Time limit: South, 11.0 s on one call (limit 10 s); the table acts in 3 s"


def test_a_forced_seat_is_caught_up_at_once_until_the_next_board():
    clock, rules = TableClock(), _rules()
    _run(clock, rules, _bid(), [0.0, 11.0])
    assert isinstance(clock.decide(rules, _bid(), 14.0), Force)
    clock.forced_line(N)
    # North owes its next line (a ready line, then its next call): made at the first tick of that wait's clock
    ready = Wait("bid", (N,), None, ALL, board=1, calls=1)
    assert clock.decide(rules, ready, 14.1) is None
    assert clock.decide(rules, ready, 14.2) == CatchUp(N)
    assert CatchUp(N).reason == "forced by the table manager: North is out of step after a forced line"
    assert clock.decide(rules, ready, 14.3, catch_up=False) is None  # (none made: the plain clock goes on)
    later = _bid(acting=N, calls=4)
    assert clock.decide(rules, later, 15.0) is None and clock.decide(rules, later, 15.1) == CatchUp(N)
    assert clock.decide(rules, _bid(acting=E, calls=5), 16.0) is None  # another seat: its own clock
    assert clock.decide(rules, _bid(acting=E, calls=5), 16.1) is None
    clock.new_board()
    assert clock.forced == set()
    nxt = _bid(acting=N, board=2)
    assert clock.decide(rules, nxt, 20.0) is None and clock.decide(rules, nxt, 20.1) is None


def test_held_seats_past_their_hold_void_the_board_in_progress():
    rules = _rules(hold_seconds=30)
    held = {N: 100.0, E: 125.0, S: None}  # South's hold has already expired
    assert clocks.expired_holds(rules, held, 130.0, 5) == []
    assert clocks.expired_holds(rules, held, 130.5, 5) == [HoldExpired(N, 5, 30)]
    assert clocks.expired_holds(rules, held, 160.0, None) == [HoldExpired(N, None, 30), HoldExpired(E, None, 30)]
    assert HoldExpired(N, 5, 30).detail == "board 5: North disconnected for more than 30 s; replayed on its return"


def test_the_tick_is_a_quarter_of_the_shortest_limit_within_bounds():
    assert clocks.tick_seconds(TableManagerSettings()) == 0.25
    assert clocks.tick_seconds(_rules(seconds_per_card=0.4)) == pytest.approx(0.1)
    assert clocks.tick_seconds(_rules(seconds_per_call=0.01)) == 0.02
    assert clocks.tick_seconds(_rules(grace_seconds=0, hold_seconds=0)) == 0.25


# --- properties ------------------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(fate=st.sampled_from(["warn", "force", "void"]), warn_at_table=st.booleans(),
       grace=st.floats(0, 5), steps=st.lists(st.floats(0.01, 4), min_size=1, max_size=30),
       acting=st.sampled_from(list(Seat)), used=st.floats(0, 150))
def test_a_clock_warns_once_before_it_acts_and_acts_only_after_the_grace(fate, warn_at_table, grace, steps, acting,
                                                                         used):
    rules = _rules(time_fate=fate, warn_at_table=warn_at_table, grace_seconds=grace)
    clock, wait, now = TableClock(), _bid(acting=acting, used=used), 0.0
    assert clock.decide(rules, wait, now) is None
    warned_at = None
    for step in steps:
        now += step
        action = clock.decide(rules, wait, now)
        if action is None:
            continue
        assert action.seat == acting and action.why  # every action names its seat and why
        if isinstance(action, Warn):
            assert warned_at is None, "warned twice for one wait"
            warned_at = now
            assert (action.notice is not None) == (warn_at_table and fate != "warn")
            assert now > rules.seconds_per_call or used + now > rules.board_seconds
        else:
            assert fate != "warn" and warned_at is not None and now - warned_at >= grace
            assert isinstance(action, Void if fate == "void" else Force)
            break  # the table acts: this wait is over
