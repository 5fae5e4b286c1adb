"""``robot.summary``: one schema for every ``summary.json`` (the table manager's export, ``squeeze match``,
self-play). Each writer's file is read back through ``parse_summary``, which checks every field; the figures are
the engine's (``engine.teams``, ``engine.stats``). The real writers' files are also parsed where they run
(test_tm_limits, test_tm_process, test_match, test_selfplay)."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from squeeze.engine.auction import Auction, Contract
from squeeze.engine.cards import Seat
from squeeze.engine.record import BoardRecord, CallNote
from squeeze.engine.stats import Sprt, imp_summary, mean_se, victory_points
from squeeze.engine.teams import CLOSED, OPEN, compare_rooms
from squeeze.robot.summary import (SUMMARY_SCHEMA, MatchSummary, SummaryError, match_figures, parse_summary,
                                   sprt_figures, think_seconds)
from squeeze.robot.tm.export import store_summary, write_outputs
from squeeze.robot.tm.plan import random_boards
from squeeze.robot.tm.store import ResultsStore

BOARDS = random_boards(1, 9, seed=11)
#: (open room, closed room) contract and declarer's tricks per board: slams, games, part scores, a pass-out
PLAYED = {1: (("3NS", 9), ("3NS", 9)), 2: (("6NS", 12), ("3NS", 12)), 3: (("4SN", 9), ("4SN", 10)),
          4: (("2HE", 8), ("3NS", 9)), 5: (("1NN", 7), ("1NN", 7)), 6: ((None, None), ("2SN", 8)),
          7: (("3NS", 10), ("3NS", 10)), 8: (("4HE", 10), ("4HE", 9))}


def rec(board: int, room: str, contract, tricks) -> BoardRecord:
    base = BOARDS[board - 1]
    return dataclasses.replace(base, room=room, contract=None if contract is None else Contract.parse(contract),
                               result=tricks)


def both_rooms(boards=PLAYED):
    return [rec(b, room, *played) for b, pair in boards.items() for room, played in zip((OPEN, CLOSED), pair)]


def dd_tables(boards=PLAYED):
    """A double-dummy table per board: every declarer takes 9 tricks in every strain."""
    return {b: [[9] * 4 for _ in range(5)] for b in boards}


# --- the figures -------------------------------------------------------------------------------------------------
def test_a_matchs_figures_are_the_engines():
    records = both_rooms()
    comps = compare_rooms(records, dd_tables())
    swings = [c.swing for c in comps]
    f = match_figures(records, teams=("A", "B"), rooms=2, dd=dd_tables(), voided={9: "Open room: boom"},
                      incidents=[("Open", 9, "error", "boom"), ("Closed", 9, "error", "boom")])
    s = imp_summary(swings)
    assert f.boards == 8 and f.swings == {str(c.board): c.swing for c in comps}
    assert (f.imps_per_board, f.stderr, f.los) == (round(s.mean, 6), round(s.se, 6), round(s.los, 6))
    assert f.interval95 == (round(s.low, 6), round(s.high, 6))
    a, b = sum(x for x in swings if x > 0), -sum(x for x in swings if x < 0)
    assert (f.imps.a, f.imps.b, f.imps_a) == (a, b, sum(swings)) and a > 0 and b > 0
    assert (f.vp.a, f.vp.b) == tuple(round(v, 6) for v in victory_points(a - b, 8))
    assert f.flat == swings.count(0) == 3 and f.flat_fraction == 0.375
    assert f.bidding.imps_per_board == round(mean_se([c.bidding for c in comps])[0], 6)
    assert f.bidding.imps_per_board + f.play.imps_per_board == pytest.approx(f.imps_per_board, abs=1e-5)
    assert f.par_adjusted.imps_per_board == round(imp_summary([c.par_swing for c in comps]).mean, 6)
    assert f.voided.count == 1 and f.voided.boards[0].board == 9 and f.incidents == {"error": 2}
    assert [(i.room, i.board, i.kind, i.detail) for i in f.incident_log] == [("Open", 9, "error", "boom"),
                                                                            ("Closed", 9, "error", "boom")]
    assert f.played == {OPEN: 8, CLOSED: 8} and f.teams.a == "A" and f.rooms == 2
    # without double-dummy tables (a match at the table manager): no split, no par
    plain = match_figures(records, teams=("A", "B"), rooms=2)
    assert plain.bidding is plain.play is plain.par_adjusted is None and plain.swings == f.swings


def test_what_cannot_be_known_is_null():
    one = match_figures(both_rooms({1: PLAYED[1]}), teams=("A", "B"), rooms=2, dd=dd_tables())
    assert one.boards == 1 and one.stderr is None and one.interval95 == (None, None) and one.los is None
    assert one.bidding.stderr is None and one.par_adjusted.los is None
    none = match_figures([rec(1, OPEN, "3NS", 9)], teams=("A", None), rooms=2, dd={})
    assert none.boards == 0 and none.imps_per_board is None and none.vp is None and none.flat_fraction is None
    assert none.bidding.imps_per_board is None and none.teams.b is None and none.played == {OPEN: 1}
    single = match_figures([dataclasses.replace(r, room="") for r in both_rooms()[:3:2]], teams=("A", "B"), rooms=1)
    assert single.boards == 2 and single.played == {"table": 2} and single.imps is None and single.swings == {}
    # and the file says null for each (JSON has no NaN)
    text = MatchSummary.of("selfplay", {"selfplay": one}).to_json()
    assert "NaN" not in text and json.loads(text)["stderr"] is None


def test_thinking_time_is_counted_per_team_by_room_and_seat():
    auction = Auction(Seat.NORTH, "1N P P P".split())
    notes = tuple(CallNote(seconds=s) for s in (1.0, 2.0, 3.0, 4.0))
    records = [dataclasses.replace(BOARDS[0], auction=auction, call_notes=notes, result=7, room=room)
               for room in (OPEN, CLOSED)]
    t = think_seconds(records)
    # open room: N (1 s) and S (3 s) are team A's; closed room: E (2 s) and W (4 s) are
    assert (t.a.decisions, t.a.mean, t.a.max) == (4, 2.5, 4.0) and (t.b.decisions, t.b.mean) == (4, 2.5)
    assert think_seconds([]).a.mean is None


# --- the writers, read back --------------------------------------------------------------------------------------
@pytest.fixture
def store(tmp_path):
    store = ResultsStore(tmp_path / "results.sqlite", create=True)
    store.set_plan(BOARDS, {"boards": [b.board for b in BOARDS]})
    yield store
    store.close()


def test_the_table_managers_file_with_several_matches(store, tmp_path):
    store.add_match("final", 2, "A", "B")
    store.add_match("practice", 1, "C", "D")
    for r in both_rooms():
        store.commit_board("final", r.room, r)
    store.commit_board("practice", "", rec(1, "", "3NS", 9))
    store.add_incident("final", OPEN, 3, "void", "board 3: North disconnected")
    store.add_incident("final", OPEN, 3, "clock", "North: 40 s on one card")
    summary = write_outputs(store, tmp_path, seed=11)
    parsed = parse_summary((tmp_path / "summary.json").read_text())
    assert parsed.to_dict() == summary and parsed.schema_version == SUMMARY_SCHEMA and parsed.source == "tm"
    # two matches: the top level names none and adds up their boards; each is under matches
    assert parsed.match is None and parsed.boards == 8 + 1 and parsed.imps_per_board is None and parsed.teams is None
    final, practice = parsed.matches["final"], parsed.matches["practice"]
    assert final.incidents == {"void": 1, "clock": 1} and final.boards == 8 and final.voided.count == 0
    assert practice.rooms == 1 and practice.boards == 1 and practice.imps is None
    assert parsed.planned == 9 and parsed.seed == 11 and parsed.sprt is None and parsed.think_seconds is None


def test_the_matchs_file_and_self_plays(store, tmp_path):
    store.add_match("selfplay", 2, "fast", "fast")  # the same configuration on both sides: the same name
    for b, pair in PLAYED.items():
        store.commit_boards("selfplay", [(room, rec(b, room, *played), ()) for room, played in
                                         zip((OPEN, CLOSED), pair)], dd=(b, dd_tables()[b]))
    store.void_board("selfplay", (OPEN, CLOSED), 9, "Open room: boom")
    test = Sprt(0, 0.5, min_boards=2)
    state = test.first_verdict([c.swing for c in compare_rooms(both_rooms())])
    summary = store_summary(store, "selfplay", double_dummy=True, seed=3, sprt=sprt_figures(test, state))
    parsed = parse_summary(summary.to_json())
    assert parsed == summary and parsed.match == "selfplay" and parsed.teams.a == parsed.teams.b == "fast"
    assert parsed.voided.boards[0].error == "Open room: boom" and parsed.incidents == {"error": 2}
    assert parsed.sprt.verdict == state.verdict and parsed.sprt.boards == state.boards and parsed.bidding is not None
    # the match's file: the same figures, with what only a match knows
    records = [r.record for r in store.results()]
    match = store_summary(store, "match", seed=3, think_seconds=think_seconds(records), finished=False,
                          robot_restarts=1, problems=["a robot kept failing"])
    parsed = parse_summary(match.to_json())
    assert parsed.source == "match" and parsed.robot_restarts == 1 and parsed.think_seconds.a.decisions == 0
    assert parsed.imps_per_board == summary.imps_per_board and parsed.bidding is None  # (no double dummy asked)


# --- every field checked -----------------------------------------------------------------------------------------
def valid() -> dict:
    f = match_figures(both_rooms(), teams=("A", "B"), rooms=2, dd=dd_tables())
    return MatchSummary.of("selfplay", {"selfplay": f}, planned=9, seed=1).to_dict()


def test_a_bad_file_is_refused_naming_what_is_wrong():
    text = json.dumps(valid())
    assert parse_summary(text).to_dict() == json.loads(text)
    with pytest.raises(SummaryError, match="is JSON"):
        parse_summary(text[:-1])
    with pytest.raises(SummaryError, match="JSON object"):
        parse_summary("[1]")
    for schema in (None, 2, "1"):
        with pytest.raises(SummaryError, match=f"summary schema {schema!r} is not supported"):
            parse_summary(json.dumps({**valid(), "schema": schema}))
    with pytest.raises(SummaryError, match="colour: Extra inputs are not permitted"):
        parse_summary(json.dumps({**valid(), "colour": "red"}))
    with pytest.raises(SummaryError, match="boards: Field required"):
        parse_summary(json.dumps({k: v for k, v in valid().items() if k != "boards"}))


@pytest.mark.parametrize("field", [k for k in valid() if k != "schema"])
def test_every_top_level_field_is_checked(field):
    data = valid()
    data[field] = {"not": ["a", "value", "of", "this", "field"]} if isinstance(data[field], str) else "wrong"
    with pytest.raises(SummaryError) as err:
        parse_summary(json.dumps(data))
    assert field in str(err.value)


@pytest.mark.parametrize("path,value,message", [
    (("matches", "selfplay", "imps_a"), "3", "matches.selfplay.imps_a: Input should be a valid integer"),
    (("matches", "selfplay", "teams", "a"), 7, "matches.selfplay.teams.a: Input should be a valid string"),
    (("matches", "selfplay", "played", "Lounge"), 3, "unknown room 'Lounge'"),
    (("matches", "selfplay", "swings", "01"), 3, "keyed by its board number, got '01'"),
    (("matches", "selfplay", "los"), 1.5, "los: Input should be less than or equal to 1"),
    (("matches", "selfplay", "stderr"), -0.1, "stderr: Input should be greater than or equal to 0"),
    (("matches", "selfplay", "voided", "count"), 2, "count is 2 but 0 boards are listed"),
    (("par_adjusted", "interval95"), [1.0, -1.0], "interval95 runs from 1.0 down to -1.0"),
    (("sprt",), {"m0": 0, "m1": 1, "alpha": 0.05, "beta": 0.05, "verdict": "maybe", "boards": 1, "llr": 0,
                 "bounds": [-3, 3]}, "sprt.verdict: Input should be 'H0', 'H1' or 'continue'"),
    (("think_seconds",), {"a": {"decisions": 1, "mean": 1, "p95": 1, "max": 1}}, "think_seconds.b: Field required"),
])
def test_nested_fields_are_checked(path, value, message):
    data = valid()
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    with pytest.raises(SummaryError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_summary(json.dumps(data))


def test_the_figures_must_agree_with_each_other_and_with_the_match():
    data = valid()
    data["matches"]["selfplay"]["imps_a"] += 1
    with pytest.raises(SummaryError, match="the swings add up to"):
        parse_summary(json.dumps(data))
    data = valid()
    data["imps_per_board"] = data["imps_per_board"] + 1
    with pytest.raises(SummaryError, match="imps_per_board at the top level differs from match 'selfplay'"):
        parse_summary(json.dumps(data))
    data = valid()
    data["match"] = "final"
    with pytest.raises(SummaryError, match="match 'final' is not among the matches"):
        parse_summary(json.dumps(data))
    data = valid()
    data["matches"]["selfplay"]["flat"] = 0
    with pytest.raises(SummaryError, match="flat is 0 but 3 swings are 0"):
        parse_summary(json.dumps(data))
    assert not math.isnan(parse_summary(json.dumps(valid())).imps_per_board)
