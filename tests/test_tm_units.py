"""The table manager's parts without sockets: results store, plan (boards, ranges, match files), the table
machine's additions (act_for, notes and seconds, a rejoin's handshake), and the CLI's [tm] flags."""

import os
import random

import json
import sqlite3

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.engine.pbn import encode_pbn, write_pbn
from squeeze.engine.record import BoardRecord
from squeeze.protocol.errors import LocalProtocolError
from squeeze.protocol.table import TableMachine
from squeeze.robot.cli import _TM_FLAGS, app
from squeeze.robot.tm.plan import PlanError, load_boards, load_match_file, parse_board_range, random_boards
from squeeze.robot.tm.store import (DuplicateBoardError, LedgerError, ResultsStore, StoreError, read_ledger_header,
                                    restore_ledger)
from test_protocol_support import TEAM, board, connect_all, name

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST


@pytest.fixture(autouse=True)
def _no_settings_env(monkeypatch):
    for var in [v for v in os.environ if v.startswith("SQUEEZE_")]:
        monkeypatch.delenv(var)


# --- store ------------------------------------------------------------------------------------------------------

def test_store_commits_a_board_once_and_survives_reopening(tmp_path):
    path = tmp_path / "r.sqlite"
    boards = random_boards(1, 2, seed=4)
    store = ResultsStore(path, create=True)
    store.set_plan(boards, {"x": 1})
    store.add_match("m", 2, "A", "B")
    rec = BoardRecord(board=1, deal=boards[0].deal, room="Open")
    store.commit_board("m", "Open", rec, ["clock: North"])
    with pytest.raises(DuplicateBoardError):
        store.commit_board("m", "Open", rec)
    store.commit_board("m", "Closed", BoardRecord(board=1, deal=boards[0].deal, room="Closed"))
    with pytest.raises(StoreError, match="board 7"):  # not one of the run's deals
        store.commit_board("m", "Open", BoardRecord(board=7, deal=boards[0].deal))
    store.close()
    with pytest.raises(StoreError, match="already holds a run"):
        ResultsStore(path, create=True)
    store = ResultsStore(path, create=False)
    assert store.plan() == {"x": 1} and [b.deal for b in store.deals()] == [b.deal for b in boards]
    assert [(r.board, r.room, r.incidents) for r in store.results()] == [(1, "Open", ("clock: North",)),
                                                                          (1, "Closed", ())]
    assert store.finished("m", "Open") == {1} and store.finished("m", "Closed") == {1}
    store.close()
    with pytest.raises(StoreError, match="no run to resume"):
        ResultsStore(tmp_path / "none.sqlite", create=False)


def _tables(path) -> dict:
    """Every row of every table of the store at ``path``, as stored (the ledger's promise is all of them)."""
    db = sqlite3.connect(path)
    try:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: db.execute(f"SELECT * FROM {n} ORDER BY rowid").fetchall() for n in names}
    finally:
        db.close()


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plays=st.lists(st.tuples(st.sampled_from(["m1", "m2"]), st.sampled_from(["Open", "Closed"]),
                                st.integers(1, 3), st.lists(_TEXT, max_size=2)), max_size=8),
       voids=st.lists(st.tuples(st.sampled_from(["m1", "m2"]), st.integers(1, 3), _TEXT), max_size=2),
       dd=st.dictionaries(st.integers(1, 3), st.lists(st.lists(st.integers(0, 13), min_size=4, max_size=4),
                                                      min_size=5, max_size=5), max_size=3),
       settings_doc=st.dictionaries(_TEXT, st.one_of(st.integers(), st.floats(allow_nan=False), _TEXT), max_size=3))
def test_a_store_and_its_ledger_hold_the_same_rows(tmp_path_factory, plays, voids, dd, settings_doc):
    folder = tmp_path_factory.mktemp("ledger")
    boards = random_boards(1, 3, seed=8)
    store = ResultsStore(folder / "a.sqlite", create=True)
    store.set_plan(boards, {"kind": "selfplay", "note": "ü ✓ \n"})
    store.set_settings(settings_doc)
    store.add_match("m1", 2, "A", "B")
    store.add_match("m2", 2, None, "C")
    for match, room, number, incidents in plays:
        try:
            store.commit_board(match, room, BoardRecord(board=number, deal=boards[number - 1].deal, room=room),
                               incidents)
        except DuplicateBoardError:
            pass
    for match, number, detail in voids:
        store.void_board(match, ("Open", "Closed"), number, detail)
    for number, tricks in dd.items():
        store.commit_boards("m1", [], (number, tricks))
    finished = len(store.results())
    assert store.write_ledger(folder / "a.jsonl", {"commit": "abc"}) == finished
    store.close()
    copy, header = restore_ledger(folder / "a.jsonl", folder / "b.sqlite")
    copy.close()
    assert header["source"] == {"commit": "abc"} and read_ledger_header(folder / "a.jsonl") == header
    assert _tables(folder / "b.sqlite") == _tables(folder / "a.sqlite")
    # and the copy's ledger is the same text: nothing is lost or reordered on the way round
    copy = ResultsStore(folder / "b.sqlite", create=False)
    copy.write_ledger(folder / "b.jsonl", {"commit": "abc"})
    copy.close()
    assert (folder / "b.jsonl").read_text(encoding="utf-8") == (folder / "a.jsonl").read_text(encoding="utf-8")


def _a_ledger(tmp_path):
    boards = random_boards(1, 2, seed=4)
    store = ResultsStore(tmp_path / "a.sqlite", create=True)
    store.set_plan(boards, {"x": 1})
    store.add_match("m", 2, "A", "B")
    store.commit_board("m", "Open", BoardRecord(board=1, deal=boards[0].deal, room="Open"))
    store.write_ledger(tmp_path / "a.jsonl")
    store.close()
    return (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("damage, error", [
    (lambda lines: [], "line 1 is not a results ledger"),
    (lambda lines: ['{"kind": "something else"}'] + lines[1:], "line 1 is not a results ledger"),
    (lambda lines: [lines[0].replace('"schema": 1', '"schema": 9')] + lines[1:], "schema 9"),
    (lambda lines: lines[:-1] + [lines[-1][:40]], r"line \d+: not JSON"),
    (lambda lines: lines + ['{"table": "users", "row": {}}'], r"line \d+: not a row of a store table"),
    (lambda lines: lines + ['{"table": "dd", "row": {"board": 1}}'], r"line \d+: a dd row has columns"),
])
def test_a_damaged_ledger_is_refused_naming_its_line_and_makes_nothing(tmp_path, damage, error):
    (tmp_path / "bad.jsonl").write_text("\n".join(damage(_a_ledger(tmp_path))) + "\n", encoding="utf-8")
    with pytest.raises(LedgerError, match=error):
        restore_ledger(tmp_path / "bad.jsonl", tmp_path / "b.sqlite")
    assert not list(tmp_path.glob("b.sqlite*"))


def test_a_ledger_whose_rows_break_the_stores_keys_leaves_nothing(tmp_path):
    lines = _a_ledger(tmp_path)
    result = next(line for line in lines if json.loads(line).get("table") == "results")
    (tmp_path / "twice.jsonl").write_text("\n".join(lines + [result]) + "\n", encoding="utf-8")
    with pytest.raises(StoreError, match="do not make a store"):
        restore_ledger(tmp_path / "twice.jsonl", tmp_path / "b.sqlite")
    assert not list(tmp_path.glob("b.sqlite*"))


def test_a_ledger_is_never_restored_over_a_run(tmp_path):
    _a_ledger(tmp_path)
    before = _tables(tmp_path / "a.sqlite")
    with pytest.raises(StoreError, match="already holds a run"):
        restore_ledger(tmp_path / "a.jsonl", tmp_path / "a.sqlite")
    assert _tables(tmp_path / "a.sqlite") == before
    with pytest.raises(LedgerError, match="no such ledger"):
        restore_ledger(tmp_path / "none.jsonl", tmp_path / "c.sqlite")

# --- plan -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [("1-16", (1, 16)), (" 5 ", (5, 5)), ("3 - 4", (3, 4))])
def test_board_range(text, expected):
    assert parse_board_range(text) == expected


@pytest.mark.parametrize("text", ["", "0-3", "5-2", "a-b", "1-2-3"])
def test_bad_board_range(text):
    with pytest.raises(PlanError):
        parse_board_range(text)


def test_random_boards_depend_on_seed_and_number_only():
    assert random_boards(3, 4, 9) == random_boards(1, 4, 9)[2:]
    assert random_boards(1, 1, 9)[0].deal != random_boards(1, 1, 10)[0].deal


def test_boards_from_a_pbn_file_keep_its_dealer_and_vulnerability(tmp_path):
    rng = random.Random(2)
    games = [BoardRecord(board=n, deal=Deal.random(rng), dealer=Seat.WEST, vul=Vul.BOTH) for n in (4, 5, 6)]
    f = tmp_path / "b.pbn"
    f.write_bytes(encode_pbn(write_pbn(games)))
    loaded = load_boards(f, (5, 9))
    assert [(b.board, b.dealer, b.vul, b.deal) for b in loaded] == [(g.board, W, Vul.BOTH, g.deal) for g in games[1:]]
    with pytest.raises(PlanError, match="no boards numbered 7-9"):
        load_boards(f, (7, 9))
    f.write_bytes(encode_pbn(write_pbn(games + games[:1])))
    with pytest.raises(PlanError, match="board 4 appears twice"):
        load_boards(f)
    with pytest.raises(PlanError, match="cannot read"):
        load_boards(tmp_path / "missing.pbn")


@pytest.mark.parametrize("text,error", [
    ('[[match]]\nteams = ["A"]\n', "two team names"),
    ('[[match]]\nteams = ["A", "A"]\n', "different names"),
    ('[[match]]\nteams = ["A", "B"]\n[[match]]\nteams = ["B", "C"]\n', "already in another match"),
    ('[[match]]\nteams = ["A", "B"]\nrooms = 3\n', "rooms must be 1 or 2"),
    ('[[match]]\nteams = ["A", "B"]\ncolour = 1\n', "keys are"),
    ('[other]\n', "one or more"),
    ('[[match]\n', "match file"),
])
def test_bad_match_files(tmp_path, text, error):
    with pytest.raises(PlanError, match=error):
        load_match_file(_written(tmp_path / "m.toml", text), 1)


def _written(path, text):
    path.write_text(text)
    return path


def test_match_file(tmp_path):
    text = '[[match]]\nteams = ["A", "B"]\n[[match]]\nname = "final"\nteams = ["C", "D"]\nrooms = 1\n'
    specs = load_match_file(_written(tmp_path / "m.toml", text), 2)
    assert [(s.name, s.teams, s.rooms) for s in specs] == [("A v B", ("A", "B"), 2), ("final", ("C", "D"), 1)]


# --- the table machine's additions ------------------------------------------------------------------------------

def _auction_started():
    t = TableMachine([board()])
    connect_all(t)
    for kind in ("ready for teams", "ready to start", "ready for deal", "ready for cards"):
        for s in Seat:
            t.receive(s, f"{name(s)} {kind}")
    return t


def test_act_for_makes_the_owed_ready_line_or_a_pass_and_notes_why():
    t = _auction_started()  # board 3: South deals
    for s in (N, E, W):
        t.receive(s, f"{name(s)} ready for South's bid")
    with pytest.raises(LocalProtocolError):
        t.act_for(N, "nothing owed")  # North is ready: only South's call is awaited
    out = t.act_for(S, "forced: slow", now=4.0)  # South's call: a pass
    assert [o.line for o in out if o.seat == W] == ["South passes\r\n"]
    assert t.waiting_for == ("bid", [N, E, S], W)
    assert t.act_for(S, "forced: ready", now=4.0) == []  # now South owes "ready for West's bid"
    assert t.act_for(N, "forced: ready", now=4.0) == [] and t.waiting_for == ("bid", [E], W)
    t.receive(E, "East ready for West's bid", now=4.0)
    t.receive(W, "West passes Alert. 2+ clubs", now=5.5)  # (an alerted pass: a passed-out board keeps the test short)
    for caller in (N, E):
        for s in Seat:
            if s != caller:
                t.receive(s, f"{name(s)} ready for {name(caller)}'s bid", now=5.5)
        t.receive(caller, f"{name(caller)} passes", now=5.5)
    (rec,) = t.results
    assert [(n.alert, n.explanation) for n in rec.call_notes[:2]] == [(False, "forced: slow"), (True, "2+ clubs")]
    assert rec.call_notes[0].seconds == 4.0 and rec.call_notes[1].seconds == 1.5
    assert rec.seconds_ns == 4.0 and rec.seconds_ew == 1.5


def test_a_seat_that_rejoins_before_the_first_board_gets_the_teams_line_again():
    t = TableMachine([board()])
    connect_all(t)
    for s in Seat:
        t.receive(s, f"{name(s)} ready for teams")  # Teams sent to all four; the North socket drops before reading it
    t.disconnect(N)
    t.receive("new", f'Connecting "{TEAM[N]}" as North using protocol version 18')
    out = t.receive("new", "North ready for teams")  # the same words as its old connection's: still answered
    assert [o.line for o in out] == ['Teams : N/S : "RoboA" E/W : "RoboB"\r\n']
    for s in (E, S, W):
        t.receive(s, f"{name(s)} ready to start")
    out = t.receive("new", "North ready to start")
    assert {o.line for o in out} == {"Start of board\r\n"}


# --- the CLI ----------------------------------------------------------------------------------------------------

def test_tm_flags_default_to_the_settings_and_reach_them(monkeypatch, tmp_path):
    (command,) = [c for n, c in typer.main.get_command(app).commands.items() if n == "tm"]
    names = {p.name for p in command.params}
    assert set(_TM_FLAGS) <= names
    assert all(p.default is None for p in command.params if p.name in _TM_FLAGS)
    seen = {}
    monkeypatch.setattr("squeeze.robot.tm.run.run_tm",
                        lambda tm, resume, mqtt: seen.update(tm=tm, resume=resume, mqtt=mqtt) or 0)
    r = CliRunner().invoke(app, ["tm", "--port", "0", "--out", str(tmp_path), "--board-range", "3-4", "--no-timing",
                                 "--rooms", "2", "--time-fate", "void", "--resume"])
    assert r.exit_code == 0, r.output
    tm = seen["tm"]
    assert (tm.port, tm.results_dir, tm.board_range, tm.send_timing, tm.rooms, tm.time_fate, seen["resume"]) == (
        0, tmp_path, "3-4", False, 2, "void", True)
    assert tm.board_seconds == 120.0 and tm.host == "127.0.0.1"  # not given: the model's defaults
    assert not seen["mqtt"].enabled  # live events are off by default
    r = CliRunner().invoke(app, ["tm", "--time-fate", "never"])
    assert r.exit_code == 2 and "time_fate" in r.output


def test_tm_mqtt_flag_reaches_the_mqtt_settings(monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr("squeeze.robot.tm.run.run_tm", lambda tm, resume, mqtt: seen.update(mqtt=mqtt) or 0)
    monkeypatch.setenv("SQUEEZE_MQTT__QUEUE_SIZE", "77")  # the flag overrides only what it names
    r = CliRunner().invoke(app, ["tm", "--out", str(tmp_path), "--mqtt", "mqtt://broker.local:1884"])
    assert r.exit_code == 0, r.output
    m = seen["mqtt"]
    assert (m.enabled, m.embedded, m.host, m.port, m.queue_size) == (True, False, "broker.local", 1884, 77)
    r = CliRunner().invoke(app, ["tm", "--out", str(tmp_path), "--mqtt", "embedded"])
    assert r.exit_code == 0 and seen["mqtt"].embedded and seen["mqtt"].port == 1883
    for bad, message in [("http://x:1", "mqtt://HOST:PORT or 'embedded'"), ("mqtt://x:70000", "bad port")]:
        r = CliRunner().invoke(app, ["tm", "--out", str(tmp_path), "--mqtt", bad])
        assert r.exit_code == 2 and message in r.output, r.output
