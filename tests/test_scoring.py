"""Scoring: every contract and result against endplay's scorer; IMP boundaries; matchpoints, Butler, cross-IMPs."""

import pytest
from endplay.types import Contract as EPContract, Denom, Penalty, Player, Vul as EPVul

from squeeze.engine.auction import Contract
from squeeze.engine.cards import BridgeError, Strain
from squeeze.engine.scoring import butler_imps, cross_imps, imps, matchpoint_percentages, matchpoints, score

_EP_DENOM = {Strain.CLUBS: Denom.clubs, Strain.DIAMONDS: Denom.diamonds, Strain.HEARTS: Denom.hearts,
             Strain.SPADES: Denom.spades, Strain.NOTRUMP: Denom.nt}
_EP_PEN = {0: Penalty.passed, 1: Penalty.doubled, 2: Penalty.redoubled}


def test_every_contract_and_result_matches_endplay():
    differences = []
    checked = 0
    for level in range(1, 8):
        for strain in Strain:
            for doubled in (0, 1, 2):
                for vulnerable in (False, True):
                    for tricks in range(14):
                        ours = score(Contract(level, strain, doubled), tricks, vulnerable)
                        ep = EPContract(level=level, denom=_EP_DENOM[strain], declarer=Player.north,
                                        penalty=_EP_PEN[doubled], result=tricks - level - 6)
                        theirs = ep.score(EPVul.both if vulnerable else EPVul.none)
                        checked += 1
                        if ours != theirs:
                            differences.append((level, strain, doubled, vulnerable, tricks, ours, theirs))
    assert checked == 35 * 3 * 2 * 14
    assert differences == []


@pytest.mark.parametrize("text,tricks,vul,expected", [
    ("1N", 7, False, 90), ("3N", 9, True, 600), ("4S", 10, False, 420), ("6S", 12, False, 980),
    ("6S", 12, True, 1430), ("7C", 13, False, 1440), ("7N", 13, True, 2220), ("2HX", 8, False, 470),
    ("1SX", 8, False, 260), ("1CXX", 9, True, 1030), ("5DXX", 11, False, 800), ("4HX", 10, True, 790),
    ("4SX", 7, False, -500), ("4SX", 7, True, -800), ("4SX", 6, False, -800), ("1CXX", 6, False, -200),
    ("7NXX", 0, True, -7600), ("3N", 8, False, -50), ("2C", 8, False, 90),
])
def test_known_scores(text, tricks, vul, expected):
    assert score(Contract.parse(text), tricks, vul) == expected


def test_tricks_out_of_range():
    with pytest.raises(BridgeError, match="tricks must be 0..13, got 14"):
        score(Contract.parse("3N"), 14, False)


@pytest.mark.parametrize("diff,expected", [
    (0, 0), (10, 0), (20, 1), (40, 1), (50, 2), (80, 2), (90, 3), (120, 3), (130, 4), (160, 4), (170, 5),
    (210, 5), (220, 6), (260, 6), (270, 7), (310, 7), (320, 8), (360, 8), (370, 9), (420, 9), (430, 10),
    (490, 10), (500, 11), (590, 11), (600, 12), (740, 12), (750, 13), (890, 13), (900, 14), (1090, 14),
    (1100, 15), (1290, 15), (1300, 16), (1490, 16), (1500, 17), (1740, 17), (1750, 18), (1990, 18),
    (2000, 19), (2240, 19), (2250, 20), (2490, 20), (2500, 21), (2990, 21), (3000, 22), (3490, 22),
    (3500, 23), (3990, 23), (4000, 24), (7600, 24),
])
def test_imp_table_boundaries(diff, expected):
    assert imps(diff) == expected
    assert imps(-diff) == -expected


def test_matchpoints_and_percentages():
    assert matchpoints([420, 420, 450, -50]) == [3, 3, 6, 0]
    assert matchpoints([420, 420, 450, -50], top_per_comparison=1) == [1.5, 1.5, 3, 0]
    assert matchpoint_percentages([100, 50]) == [100.0, 0.0]
    assert matchpoint_percentages([7]) == [50.0]


def test_butler_and_cross_imps():
    scores = [620, 620, 170, 650, -100]
    # datum: drop -100 and 650 -> mean(170, 620, 620) = 470
    assert butler_imps(scores) == [imps(150), imps(150), imps(-300), imps(180), imps(-570)]
    assert cross_imps([620, 170]) == [10.0, -10.0]


# --- par -----------------------------------------------------------------------------------------------------------

def _table(rows):
    """rows: {seat letter: (NT, S, H, D, C)} -> tricks[strain][seat]."""
    from squeeze.engine.cards import Seat, Strain
    t = [[0] * 4 for _ in range(5)]
    for letter, vals in rows.items():
        for strain, n in zip((Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS), vals):
            t[strain][Seat.parse(letter)] = n
    return t


def test_par_plain_part_score_and_game():
    from squeeze.engine.cards import Vul
    from squeeze.engine.scoring import par
    t = _table({"N": (6, 4, 7, 3, 8), "E": (6, 9, 5, 9, 5), "S": (3, 3, 6, 3, 7), "W": (6, 9, 6, 10, 5)})
    ns, c = par(t, Vul.NONE)
    assert (ns, str(c)) == (-140, "3SE")   # 3S+0 beats 4D=130 for East-West; North-South cannot outbid cheaply
    t = _table({"N": (9, 10, 5, 3, 4), "S": (9, 10, 5, 3, 4), "E": (3, 3, 7, 8, 8), "W": (3, 3, 7, 8, 8)})
    ns, c = par(t, Vul.BOTH)
    assert (ns, str(c)) == (620, "4SN")   # a 5D save would cost 800


def test_par_sacrifice_and_passed_out():
    from squeeze.engine.cards import Vul
    from squeeze.engine.scoring import par
    # North-South make 5C vulnerable (600); East-West save in 5S non-vulnerable, three down doubled (500)
    t = _table({"N": (8, 5, 9, 8, 11), "E": (4, 8, 4, 5, 2), "S": (8, 5, 9, 8, 11), "W": (4, 8, 4, 5, 2)})
    ns, c = par(t, Vul.NS)
    assert (ns, str(c)) == (500, "5SXE")
    # nobody takes seven tricks anywhere: passed out
    flat = _table({s: (6, 6, 6, 6, 6) for s in "NESW"})
    assert par(flat, Vul.NONE) == (0, None)
