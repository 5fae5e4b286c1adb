"""The reference double-dummy oracle for the play tests (endplay's DDS, a test-only dependency), and checks that the
runtime oracle (engine.dds) agrees with it on positions of every kind (trick start and mid-trick, NT and trumps).

Other tests/test_play*.py files import ``EndplayOracle`` from here.
"""

from __future__ import annotations

import random

import pytest

from squeeze.engine.cards import Deal, Seat
from squeeze.engine.board import legal_mask
from squeeze.engine.play.position import SearchPosition, iter_bits

endplay_dds = pytest.importorskip("endplay.dds")
from endplay.types import Card as EPCard  # noqa: E402
from endplay.types import Deal as EPDeal  # noqa: E402
from endplay.types import Denom, Player  # noqa: E402

RANKS = "23456789TJQKA"


def _hand_pbn(mask: int) -> str:
    parts = []
    for s in (3, 2, 1, 0):
        parts.append("".join(RANKS[r] for r in range(12, -1, -1) if mask >> (13 * s + r) & 1))
    return ".".join(parts)


def to_endplay(p: SearchPosition) -> EPDeal:
    hands = list(p.hands)
    for i, c in enumerate(p.trick):
        hands[(p.leader + i) % 4] |= 1 << c
    d = EPDeal("N:" + " ".join(_hand_pbn(h) for h in hands))
    d.first = Player(p.leader)
    d.trump = Denom(4 if p.trump == 4 else 3 - p.trump)
    for c in p.trick:
        s, r = divmod(c, 13)
        d.play(EPCard("SHDC"[3 - s] + RANKS[r]))
    return d


class EndplayOracle:
    """``DDOracle`` backed by endplay's DDS (reference only; runtime code never imports endplay)."""

    def __init__(self) -> None:
        self.calls = 0

    def solve_cards_many(self, positions):
        out = []
        for p in positions:
            res = {}
            for card, score in endplay_dds.solve_board(to_endplay(p)):
                suit = 3 - int(card.suit)
                rank = int(card.rank).bit_length() - 1
                res[13 * suit + rank - 2] = score
            out.append(res)
        self.calls += len(positions)
        return out


class EndplayTargetOracle(EndplayOracle):
    """Adds the optional target query (DDS "TargetAll": the cards reaching a trick target)."""

    def make_cards_many(self, positions, needs):
        from endplay.dds.solve import SolveMode

        out = []
        for p, need in zip(positions, needs):
            legal = legal_mask(p.hands[p.to_move], p.trick)
            if need <= 0:
                out.append(set(iter_bits(legal)))
                continue
            if need > p.tricks_left:
                out.append(set())
                continue
            res = set()
            for card, score in endplay_dds.solve_board(to_endplay(p), SolveMode.TargetAll, need):
                if score >= need:
                    res.add(13 * (3 - int(card.suit)) + int(card.rank).bit_length() - 3)
            out.append(res)
        self.calls += len(positions)
        return out


def random_position(rng: random.Random, cards_each: int, trick_len: int, trump: int) -> SearchPosition:
    d = Deal.random(rng)
    hands = [0, 0, 0, 0]
    for seat in range(4):
        cards = list(iter_bits(d[Seat(seat)].bits))
        rng.shuffle(cards)
        for c in cards[:cards_each]:
            hands[seat] |= 1 << c
    leader = rng.randrange(4)
    p = SearchPosition(tuple(hands), (), leader, trump)
    for _ in range(trick_len):
        legal = list(iter_bits(p.legal()))
        p, _ = p.play(rng.choice(legal))
    return p


def test_endplay_oracle_sanity():
    # AKQ of spades opposite small: a trivial 3-card ending with a known answer.
    n = 0
    for r in (12, 11, 10):
        n |= 1 << (39 + r)
    e = (1 << 0) | (1 << 1) | (1 << 2)  # C2 C3 C4
    s = (1 << 13) | (1 << 14) | (1 << 15)  # D2 D3 D4
    w = (1 << 39) | (1 << 40) | (1 << 41)  # S2 S3 S4
    res = EndplayOracle().solve_cards_many([SearchPosition((n, e, s, w), (), 0, 4)])[0]
    assert res == {51: 3, 50: 3, 49: 3}


def test_engine_oracle_agrees_with_endplay():
    oracle = pytest.importorskip("squeeze.engine.play.oracle")
    try:
        eng = oracle.EngineDDOracle()
    except oracle.SolverUnavailable:
        pytest.skip("engine.dds not built")
    ref = EndplayOracle()
    rng = random.Random(7)
    positions = [random_position(rng, rng.randint(3, 8), rng.randint(0, 3), rng.randrange(5)) for _ in range(60)]
    assert eng.solve_cards_many(positions) == ref.solve_cards_many(positions)
    for p in positions:  # both report exactly the legal cards
        assert set(eng.solve_cards_many([p])[0]) == set(iter_bits(legal_mask(p.hands[p.to_move], p.trick)))


def test_target_query_matches_scores():
    o = EndplayTargetOracle()
    rng = random.Random(9)
    positions = [random_position(rng, rng.randint(2, 7), rng.randint(0, 3), rng.randrange(5)) for _ in range(30)]
    needs = [rng.randint(0, p.tricks_left + 1) for p in positions]
    scores = o.solve_cards_many(positions)
    assert o.make_cards_many(positions, needs) == [
        {c for c, t in sc.items() if t >= need} for sc, need in zip(scores, needs)
    ]
