"""The papers' suit problems as full positions: strategy fusion (KJ107 / A986) and non-locality (J876 / AT32).

Expected values come from our notes (seed-alphamu-gib-aaai.md §3.1-3.2, seed-frank-basin.md), which computed them
with an independent exact solver; the double-dummy oracle here is endplay's DDS (test-only).
"""

from __future__ import annotations

import itertools

import pytest

from squeeze.engine.cards import Card, Hand, Strain
from squeeze.engine.play.alphamu import AlphaMuOptions, alphamu_choose
from squeeze.engine.play.pimc import pimc_choose
from squeeze.engine.play.position import Root

from test_play_oracle import EndplayTargetOracle

ORACLE = EndplayTargetOracle()


def mask(cards: str) -> int:
    m = 0
    for c in cards.split():
        m |= Card.parse(c).mask
    return m


def split_worlds(north: int, south: int, spades: list[str], others: list[str], west_size: int, east_size: int):
    """Every split of the defenders' ``spades``; the other defender cards fill each hand in a fixed order."""
    worlds, east_spades = [], []
    for k in range(len(spades) + 1):
        for west in itertools.combinations(spades, k):
            east = [c for c in spades if c not in west]
            nw = west_size - k
            w = mask(" ".join(west)) | mask(" ".join(others[:nw]))
            e = mask(" ".join(east)) | mask(" ".join(others[nw:nw + east_size - len(east)]))
            worlds.append((north, e, south, w))
            east_spades.append("".join(c[1] for c in east))
    return worlds, east_spades


# --- KJ107 opposite A986, 7NT by South, South on lead: strategy fusion ------------------------------------------

def kj107_root() -> Root:
    n, s = Hand.parse("KJT7.AKQ.AKQ.432").bits, Hand.parse("A986.432.432.AKQ").bits
    others = [su + r for r in "JT98765" for su in "HDC"]
    worlds, _ = split_worlds(n, s, ["SQ", "S5", "S4", "S3", "S2"], others, 13, 13)
    assert len(worlds) == 32
    return Root(int(Strain.NOTRUMP), 2, (), tuple(worlds), (1.0,) * 32, 2, 13)


def test_kj107_pimc_is_fooled_by_strategy_fusion():
    root = kj107_root()
    r = pimc_choose(root, ORACLE)
    goal = {str(s.card): s.goal for s in r.scores}
    # Double-dummy "knows" where the queen is: every spot card looks 100%; the ace only 21/32.
    assert goal["S6"] == 1.0 and goal["S9"] == 1.0
    assert goal["SA"] == pytest.approx(21 / 32)
    # ... so PIMC cannot tell starting spades from cashing a side suit (the "defer the guess" tie).
    assert goal["CA"] == goal["S6"] == r.best.goal


def test_kj107_alphamu_sees_the_guess_and_defers_it():
    root = kj107_root()
    full = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=2, root_cut=False, early_cut=False, min_cut=False))
    mu = {str(v.card): v.mu for v in full.values}
    # With the second Max move tied across worlds, a spot-card lead is only as good as rising with the king.
    assert mu["S6"] == pytest.approx(21 / 32) and mu["S9"] == pytest.approx(21 / 32)
    assert mu["CA"] == 1.0 and mu["H4"] == 1.0
    assert full.card.suit != 3 and full.mu == 1.0
    # TT and cuts return the same move as the unoptimised search (paper §6), at M = 2 and 3.
    for m in (2, 3):
        fast = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=m))
        assert fast.card.suit != 3 and fast.mu == 1.0 and fast.m == m


# --- J876 opposite AT32 after 6-K-A-4: non-locality ---------------------------------------------------------------
# North J87 + HA HQ CA, South T32 + HK HJ CK, the defenders' Q95 plus low clubs; South (who won the ace) to lead.
# Hearts give entries both ways, the club stoppers make any defender exit harmless: a suit combination in a deal.

def j876_root(drop_k_from_k5: bool) -> tuple[Root, list[str]]:
    n, s = mask("SJ S8 S7 HA HQ CA"), mask("ST S3 S2 HK HJ CK")
    worlds, east = split_worlds(n, s, ["SQ", "S9", "S5"], ["C" + r for r in "QJT987654"], 6, 6)
    # A best defender holding KQ5 or K5 plays the 5 at trick one; weight those worlds 0 once East has shown the K.
    weights = tuple(0.0 if drop_k_from_k5 and e in ("Q5", "5") else 1.0 for e in east)
    return Root(int(Strain.NOTRUMP), 2, (), tuple(worlds), weights, 2, 5), east


def test_j876_fresh_search_cannot_separate_the_finesses():
    root, _ = j876_root(False)
    assert pimc_choose(root, ORACLE).best.goal == 1.0  # PIMC: every finesse "works"
    deep = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=6))
    assert deep.mu == pytest.approx(7 / 8)  # notes §3.2: every lead 7/8
    assert all(v.mu <= 7 / 8 + 1e-9 for v in deep.values)


def test_j876_weighted_worlds_find_the_seven_finesse():
    root, _ = j876_root(True)
    pimc = pimc_choose(root, ORACLE)
    assert {str(s.card): s.goal for s in pimc.scores}["S3"] == 1.0  # the J finesse looks perfect to PIMC
    shallow = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=3, root_cut=False, early_cut=False, min_cut=False))
    mu = {str(v.card): v.mu for v in shallow.values}
    assert mu["S3"] == pytest.approx(5 / 6) and mu["ST"] == pytest.approx(5 / 6)  # J / T finesse from South
    deep = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=6))
    # Cross to North with a heart, then run the 7: 6/6 once the K5 / KQ5 worlds are discounted.
    assert deep.card in (Card.parse("HJ"), Card.parse("HK")) and deep.mu == 1.0
