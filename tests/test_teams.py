"""``engine.teams``: the team match's scoring - the room swing (computed there and nowhere else), the pairing of
the two rooms, and each board's comparison (bidding/play split, par-adjusted swing)."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from squeeze.engine.auction import Contract
from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.engine.record import BoardRecord
from squeeze.engine.scoring import imps
from squeeze.engine.teams import (CLOSED, OPEN, TEAM_SEATS, compare_board, compare_rooms, gross_imps, paired_rooms,
                                  room_swing, side_of)

ROOT = Path(__file__).resolve().parents[1]


# --- the figures of a board -----------------------------------------------------------------------------------
DEAL = Deal.parse("N:A52.97632.Q95.KT KJT6.AK.J84.A863 Q7.Q4.AKT632.Q95 9843.JT85.7.J742")


def record(contract, tricks):
    return BoardRecord(board=1, deal=DEAL, vul=Vul.NONE, contract=Contract.parse(contract), result=tricks)


def tricks_table(ns_spades):
    """A double-dummy table where N/S take ``ns_spades`` tricks in spades, E/W nothing anywhere (par: N/S's best
    spade contract), everyone else 6 (no other contract makes)."""
    table = [[6, 6, 6, 6] for _ in range(5)]
    for strain in range(5):
        table[strain][1] = table[strain][3] = 0
    spades = 3  # Strain.SPADES
    table[spades][0] = table[spades][2] = ns_spades
    return table


def test_a_play_swing_is_split_from_the_bidding_by_the_contracts_dd_values():
    # both rooms in 4S by North, worth 10 tricks double dummy: the open room made it, the closed room went down
    c = compare_board(record("4SN", 10), record("4SN", 9), tricks_table(10))
    assert (c.swing, c.bidding, c.play) == (10, 0, 10)  # 420 against -50: 470 points
    # par is 4S making (420): the open room is at par, the closed room 470 below it, from A's side (E/W there)
    assert c.par_swing == 10 and c.contracts == ("4SN", "4SN")


def test_a_bidding_swing_is_split_from_the_play():
    # the open room bid the game (420), the closed room stopped in 2S and made its ten tricks (170)
    c = compare_board(record("4SN", 10), record("2SN", 10), tricks_table(10))
    assert (c.swing, c.bidding, c.play) == (6, 6, 0)
    # against par both are reckoned alone: the open room 0, the closed room (A is E/W) +250 for A: 6 IMPs
    assert c.par_swing == 6
    # a passed-out room scores 0 and is worth 0 double dummy
    passed = BoardRecord(board=1, deal=DEAL, vul=Vul.NONE)
    c = compare_board(passed, record("4SN", 9), tricks_table(10))
    assert (c.swing, c.bidding, c.play, c.contracts) == (2, -9, 11, ("passed", "4SN"))  # 50; 420 is 9 IMPs


def test_without_a_double_dummy_table_only_the_swing_is_known():
    c = compare_board(record("4SN", 10), record("2SN", 10))
    assert (c.swing, c.bidding, c.play, c.par_swing) == (6, None, None, None)


# --- the room swing and the rooms --------------------------------------------------------------------------------
@given(st.integers(-7600, 7600), st.integers(-7600, 7600))
def test_the_room_swing_is_the_imps_of_the_difference_and_the_other_room_sees_its_opposite(here, there):
    assert room_swing(here, there) == imps(here - there) == -room_swing(there, here)


def test_team_a_sits_north_south_in_the_open_room_and_east_west_in_the_closed_room():
    for room, seats in TEAM_SEATS.items():
        for seat in Seat:
            assert side_of(room, seat) == ("a" if seat in seats else "b")
    assert side_of("", Seat.NORTH) == "a"  # a single table: as the open room


def test_rooms_pair_by_board_and_only_when_both_finished():
    def at(board, room, contract="3NS", tricks=9):
        return BoardRecord(board=board, deal=DEAL, contract=Contract.parse(contract), result=tricks, room=room)

    records = [at(2, CLOSED), at(1, OPEN), at(3, OPEN), at(1, CLOSED, "3NS", 8), at(2, OPEN, "4SS", 10)]
    pairs = paired_rooms(records)
    assert list(pairs) == [1, 2] and [r.room for r in pairs[1]] == [OPEN, CLOSED]  # board 3: the open room only
    comps = compare_rooms(records)
    assert [c.board for c in comps] == [1, 2]
    assert comps[0].swing == room_swing(pairs[1][0].score_ns(), pairs[1][1].score_ns()) and comps[0].swing > 0
    assert gross_imps([3, 0, -5, 2, -1]) == (5, 6) and gross_imps([]) == (0, 0)


# --- one home ----------------------------------------------------------------------------------------------------
#: The modules that turn point differences into IMPs: the swing and par (``engine.teams``), the Borel bidder's
#: gain of a call in one world and PIMC's cost of a card in one world against its best card (``imps`` objective;
#: one table, no second room). Every other IMP figure of a match, in any layer, is a room swing, and comes from
#: ``engine.teams``.
_IMPS_ALLOWED = {"engine/scoring.py", "engine/teams.py", "engine/bidding/borel.py", "engine/play/pimc.py"}


def test_the_room_swing_is_computed_in_one_place():
    offenders = []
    for folder in ("engine", "protocol", "robot"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name in _IMPS_ALLOWED:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                imported = isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.endswith("scoring") and any(a.name == "imps" for a in node.names)
                called = isinstance(node, ast.Call) and (
                    (isinstance(node.func, ast.Name) and node.func.id == "imps")
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == "imps"))
                if imported or called:
                    offenders.append(f"{name}:{node.lineno}")
    assert offenders == [], f"IMPs computed outside engine.teams: {offenders}"
