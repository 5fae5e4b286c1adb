"""Bayesian card-location inference: scripted scenarios with decisive evidence, checked against exact answers.

The worlds of each small ending are *all* layouts of the unseen cards (so the prior is exactly uniform and every
posterior below is exact, not a Monte Carlo estimate); double-dummy scores come from a small exact solver written
here, independent of engine.dds."""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pytest

from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.board import Play, PublicPlay
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat, Strain, Suit
from squeeze.engine.play.inference import (
    ConstraintCallModel,
    DoubleDummyPlayer,
    evidence,
    InferenceError,
    Observation,
    PlayContext,
    RandomPlayer,
    WorldPosterior,
    effective_sample_size,
    weighted_average,
)
from squeeze.engine.sampling import SeatConstraints, WorldSampler
from squeeze.engine.view import SeatView

NT = int(Strain.NOTRUMP)


# --- a tiny exact double-dummy solver (memoised minimax), the DDOracle protocol --------------------------------------
def _legal(hand, trick):
    if trick:
        f = hand & (0x1FFF << (13 * (trick[0] // 13)))
        if f:
            return f
    return hand


def _winner(trick, leader, trump):
    best = 0
    bs, br = divmod(trick[0], 13)
    for i in range(1, 4):
        s, r = divmod(trick[i], 13)
        if (s == bs and r > br) or (s == trump and bs != trump):
            best, bs, br = i, s, r
    return (leader + best) % 4


@lru_cache(maxsize=None)
def _value(hands, trick, leader, trump):
    """Tricks the side to move takes from here (current trick included)."""
    return max(_card_values(hands, trick, leader, trump).values())


@lru_cache(maxsize=None)
def _card_values(hands, trick, leader, trump):
    mover = (leader + len(trick)) % 4
    left = (sum(h.bit_count() for h in hands) + len(trick)) // 4
    out = {}
    legal = _legal(hands[mover], trick)
    for c in range(52):
        if not legal >> c & 1:
            continue
        hs = list(hands)
        hs[mover] &= ~(1 << c)
        hs = tuple(hs)
        t = trick + (c,)
        if len(t) == 4:
            w = _winner(t, leader, trump)
            mine = 1 if (w - mover) % 2 == 0 else 0
            if left == 1:
                out[c] = mine
                continue
            v = _value(hs, (), w, trump)
            out[c] = mine + (v if (w - mover) % 2 == 0 else left - 1 - v)
        else:
            out[c] = left - _value(hs, t, leader, trump)
    return out


class TinySolver:
    def __init__(self):
        self.calls = 0

    def solve_cards_many(self, positions):
        self.calls += len(positions)
        return [dict(_card_values(tuple(p.hands), tuple(p.trick), p.leader, p.trump)) for p in positions]


def test_tiny_solver_sanity():
    # N: SA SK, E: S2 S3, S: H2 H3, W: D2 D3; North on lead in notrump takes both tricks.
    m = lambda s: Hand.parse(s).bits  # noqa: E731
    hands = (m("AK..."), m("32..."), m(".32.."), m("..32."))
    assert _card_values(hands, (), 0, NT) == {Card.parse("SK").index: 2, Card.parse("SA").index: 2}


# --- helpers -------------------------------------------------------------------------------------------------------
def all_layouts(known: dict[Seat, str], unseen: str, counts: dict[Seat, int]) -> np.ndarray:
    """Every way to give the unseen cards to the seats in ``counts`` (rows of four masks)."""
    base = [0, 0, 0, 0]
    for seat, text in known.items():
        base[seat] = Hand.parse(text).bits
    cards = [c.index for c in Hand.parse(unseen)]
    seats = list(counts)
    rows = []
    first = seats[0]
    for combo in itertools.combinations(cards, counts[first]):
        rest = [c for c in cards if c not in combo]
        hands = list(base)
        for c in combo:
            hands[first] |= 1 << c
        if len(seats) == 2:
            for c in rest:
                hands[seats[1]] |= 1 << c
        rows.append(hands)
    return np.array(rows, dtype=np.uint64)


def ctx(trump, leader, trick=(), earlier=""):
    played = Hand.parse(earlier).bits if earlier else 0
    idx = tuple(Card.parse(c).index for c in trick)
    for i in idx:
        played |= 1 << i
    return PlayContext(trump, int(leader), idx, played)


# --- scenarios -----------------------------------------------------------------------------------------------------
def test_vacant_places_after_show_out_is_exact():
    # Six-card ending, notrump. West leads S8, dummy plays S2, East discards CA: East had no spade.
    # Unseen: QJT98 of spades, QJT of hearts and diamonds, CA. After the show-out West holds all five spades and one
    # red card; East the CA and five red cards: P(West holds HQ) = 1/6 (West's one vacant place of six).
    worlds = all_layouts({Seat.NORTH: "AK2.32.2.", Seat.SOUTH: "43.AK.AK."}, "QJT98.QJT.QJT.A",
                         {Seat.WEST: 6, Seat.EAST: 6})
    assert len(worlds) == 924
    post = WorldPosterior.uniform(worlds)
    assert post.prob(Seat.WEST, "HQ") == pytest.approx(0.5)
    model = RandomPlayer()
    post = post.observe_card(Seat.WEST, "S8", ctx(NT, Seat.WEST), model)
    post = post.observe_card(Seat.EAST, "CA", ctx(NT, Seat.WEST, ("S8", "S2")), model)
    for c in ("HQ", "HJ", "DT"):
        assert post.prob(Seat.WEST, c) == pytest.approx(1 / 6, abs=1e-12)
        assert post.prob(Seat.EAST, c) == pytest.approx(5 / 6, abs=1e-12)
    for c in ("SQ", "SJ", "ST", "S9"):
        assert post.prob(Seat.WEST, c) == pytest.approx(1.0)
    m = post.marginals()
    assert m[Seat.WEST, Card.parse("HQ").index] == pytest.approx(1 / 6)
    assert m[Seat.EAST, Card.parse("CA").index] == pytest.approx(1.0)


def test_second_hand_who_ducks_does_not_hold_the_king():
    # Two-card ending, notrump. South leads H2 towards dummy's HQ. West follows H3. Holding HK, West must rise:
    # ducking loses both tricks double dummy. So after the duck, the king is almost surely with East.
    worlds = all_layouts({Seat.NORTH: ".Q..", Seat.SOUTH: ".2.A."}, ".K43..2", {Seat.WEST: 2, Seat.EAST: 2})
    # North: HQ + one more card; give North SA so that hands are equal length.
    worlds[:, Seat.NORTH] |= np.uint64(Card.parse("SA").mask)
    worlds[:, Seat.SOUTH] |= np.uint64(0)
    solver = TinySolver()
    model = DoubleDummyPlayer(oracle=solver, sharpness=2.0, noise=0.02)
    post = WorldPosterior.uniform(worlds)
    prior = post.prob(Seat.WEST, "HK")
    assert prior == pytest.approx(0.5)
    post = post.observe_card(Seat.WEST, "H3", ctx(NT, Seat.SOUTH, ("H2",)), model)
    # Exact posterior: of the layouts where West has H3, one has HK (duck costs 2 tricks), one H4 (H3/H4 equal:
    # probability 1/2), one C2 (H3 forced: probability 1).
    loss = 2
    p_duck = (1 - 0.02) * math.exp(-2.0 * loss) / (1 + math.exp(-2.0 * loss)) + 0.02 / 2
    expected = p_duck / (p_duck + 0.5 + 1.0)
    assert post.prob(Seat.WEST, "HK") == pytest.approx(expected, rel=1e-9)
    assert post.prob(Seat.EAST, "HK") > 0.95
    assert solver.calls >= 1  # the decisive world really went through the double-dummy oracle
    # A sharper model (a better player) makes the inference stronger still.
    sharp = WorldPosterior.uniform(worlds).observe_card(
        Seat.WEST, "H3", ctx(NT, Seat.SOUTH, ("H2",)), DoubleDummyPlayer(oracle=solver, sharpness=4.0, noise=0.0)
    )
    assert sharp.prob(Seat.WEST, "HK") < post.prob(Seat.WEST, "HK")


@pytest.mark.parametrize("missing, dropped, other", [("QJ", "SQ", "SJ"), ("QT", "SQ", "ST")])
def test_restricted_choice(missing, dropped, other):
    # Three-card ending, notrump. North cashes SA; East drops an honour. With two equal honours East would drop either
    # half the time; with a singleton he must. So the other honour is with West 2:1 more often than the a priori
    # layouts say: P = 6 / (6 + 4/2) = 3/4 (6 layouts with a singleton, 4 with the doubleton).
    north = "AK" + ("9" if missing == "QJ" else "J") + "..."
    worlds = all_layouts({Seat.NORTH: north, Seat.SOUTH: ".AKQ.."}, missing + "...5432",
                         {Seat.WEST: 3, Seat.EAST: 3})
    assert len(worlds) == 20
    post = WorldPosterior.uniform(worlds)
    post = post.observe_card(Seat.EAST, dropped, ctx(NT, Seat.NORTH, ("SA",)), DoubleDummyPlayer(TinySolver()))
    assert post.prob(Seat.WEST, other) == pytest.approx(0.75, abs=1e-9)
    # Under a model where any legal card is as likely, the same answer (the cards are equal here).
    post2 = WorldPosterior.uniform(worlds).observe_card(
        Seat.EAST, dropped, ctx(NT, Seat.NORTH, ("SA",)), RandomPlayer()
    )
    assert post2.prob(Seat.WEST, other) == pytest.approx(0.75, abs=1e-9)


def test_gib_bayes_factor():
    # GIB (Ginsberg 2001): West fails to play the K, which a holder would do 80% of the time. A strict likelihood
    # gives 0.2 (holds K) against 1 (does not): a Bayes factor of 5, i.e. 5:1 against at even prior odds.
    worlds = all_layouts({}, "K2...", {Seat.WEST: 1, Seat.EAST: 1})
    post = WorldPosterior.uniform(worlds)
    k = Card.parse("SK").mask

    def lik(masks):
        return np.where((masks[:, Seat.WEST] & np.uint64(k)) != 0, 0.2, 1.0)

    post = post.observe(Observation("West did not play the king", lik))
    assert post.prob(Seat.WEST, "SK") == pytest.approx(1 / 6)


def test_call_evidence_moves_hcp():
    own = Hand.parse("AK94.T82.K73.QJ5")
    worlds = WorldSampler([0, 0, own, 0]).sample(3000, 5)

    def one_notrump(hand, auction, call):
        return 1.0 if 15 <= hand.hcp <= 17 and hand.is_balanced else 0.0

    post = WorldPosterior.uniform(worlds).observe_call(Seat.WEST, Call.parse("1N"), Auction(Seat.WEST), one_notrump)
    hcp_w = np.array([Hand(int(m)).hcp for m in post.masks[:, Seat.WEST]])
    assert np.sum(post.weights * hcp_w) == pytest.approx(16, abs=0.5)
    assert post.ess < 0.2 * len(post)  # most worlds ruled out


def test_impossible_evidence_raises_and_names_it():
    worlds = all_layouts({}, "K2...", {Seat.WEST: 1, Seat.EAST: 1})
    post = WorldPosterior.uniform(worlds)
    with pytest.raises(InferenceError, match="W playing HA"):
        post.observe_card(Seat.WEST, "HA", ctx(NT, Seat.WEST), RandomPlayer())
    with pytest.raises(InferenceError, match="not the player to move"):
        post.observe_card(Seat.EAST, "SK", ctx(NT, Seat.WEST), RandomPlayer())


def test_redeal_replays_history_and_resample_keeps_marginals():
    # Full deal, declarer's view: West leads a spade and East shows out. Re-dealt worlds (with the show-out as a hard
    # fact) weighted by the replayed evidence give the same West share of the hearts as the posterior.
    north = Hand.parse("AK94.T82.K73.QJ5")
    south = Hand.parse("QJ82.AK7.QJ2.A32")
    prior = WorldSampler([north, 0, south, 0]).sample(4000, 1)
    post = WorldPosterior.uniform(prior)
    model = RandomPlayer()
    post = post.observe_card(Seat.WEST, "S7", ctx(NT, Seat.WEST), model)
    post = post.observe_card(Seat.NORTH, "S4", ctx(NT, Seat.WEST, ("S7",)), model)
    post = post.observe_card(Seat.EAST, "C8", ctx(NT, Seat.WEST, ("S7", "S4")), model)
    assert post.ess < 0.2 * len(post)
    known = [north.bits, Card.parse("C8").mask, south.bits, Card.parse("S7").mask]
    sampler = WorldSampler(known, [None, SeatConstraints().shown_out(Suit.SPADES), None, None])
    fresh = post.refresh(7, threshold=0.5, sampler=sampler, n=4000)
    assert fresh.ess > 0.9 * len(fresh)  # RandomPlayer likelihoods are nearly flat on consistent worlds
    exact = sampler.exact_marginals()
    for c in ("HQ", "DA", "C9"):
        i = Card.parse(c).index
        # Likelihood 1/13 for every lead and discard in these worlds: the posterior is the uniform one.
        assert fresh.marginals()[Seat.WEST, i] == pytest.approx(float(exact[Seat.WEST][i]), abs=0.03)
        assert post.marginals()[Seat.WEST, i] == pytest.approx(float(exact[Seat.WEST][i]), abs=0.1)
    rs = post.resample(3)
    assert rs.ess == pytest.approx(len(rs))
    assert rs.prob(Seat.WEST, "HQ") == pytest.approx(post.prob(Seat.WEST, "HQ"), abs=0.12)
    # Without a sampler, refresh resamples; with a healthy ESS it returns the same posterior.
    assert fresh.refresh(1, threshold=0.5) is fresh
    assert post.refresh(1, threshold=0.5).ess == pytest.approx(len(post))


def test_weighted_average_and_ess():
    w = np.array([1.0, 3.0])
    scores = np.array([[10.0, 0.0], [2.0, np.nan]])
    out = weighted_average(w, scores)
    assert out[0] == pytest.approx((10 + 6) / 4)
    assert out[1] == pytest.approx(0.0)  # NaN left out: only world 0 scores the second move
    assert weighted_average(w, np.array([1.0, 2.0])) == pytest.approx(1.75)
    assert effective_sample_size(np.ones(10)) == pytest.approx(10)
    assert effective_sample_size(np.array([1.0, 0, 0])) == pytest.approx(1)
    with pytest.raises(InferenceError):
        weighted_average(w, np.zeros((3, 1)))


def test_play_context_from_a_play_and_its_public_part():
    deal = Deal.parse("N:AK94.T82.K73.QJ5 T765.QJ9.A98.K74 QJ82.AK7.QJ2.A32 3.6543.T654.T986")
    play = Play(deal, Contract.parse("3NS"), ["H6", "H2"])
    c = PlayContext.from_play(play)
    assert c == PlayContext.from_play(play.public)
    assert c.to_move == Seat.EAST and c.trick == (Card.parse("H6").index, Card.parse("H2").index)
    nxt = PlayContext.from_play(play.then("HQ").then("HA").public)
    assert nxt.trick == () and nxt.leader == Seat.SOUTH
    assert nxt.played == Hand.parse(".AQ62..").bits
    with pytest.raises(InferenceError):
        PlayContext(NT, 0, (5,), 0)


def test_default_oracle_is_engine_dds_and_agrees_with_the_tiny_solver():
    pytest.importorskip("squeeze.engine.dds._solver")
    worlds = all_layouts({Seat.NORTH: ".Q..", Seat.SOUTH: ".2.A."}, ".K43..2", {Seat.WEST: 2, Seat.EAST: 2})
    worlds[:, Seat.NORTH] |= np.uint64(Card.parse("SA").mask)
    c = ctx(NT, Seat.SOUTH, ("H2",))
    default = DoubleDummyPlayer(sharpness=2.0, noise=0.02)  # oracle=None: engine.dds, created on first use
    a = WorldPosterior.uniform(worlds).observe_card(Seat.WEST, "H3", c, default)
    b = WorldPosterior.uniform(worlds).observe_card(Seat.WEST, "H3", c,
                                                    DoubleDummyPlayer(TinySolver(), sharpness=2.0, noise=0.02))
    assert default.oracle is not None and default.solves >= 1
    assert np.allclose(a.weights, b.weights)


def test_a_seats_view_of_a_real_play_feeds_sampler_and_posterior():
    deal = Deal.parse("N:AK94.T82.K73.QJ5 T765.QJ9.A98.K74 QJ82.AK7.QJ2.A32 3.6543.T654.T986")
    # 4S by South... West leads S3, North SA, East S5, South S2; North leads H2, East HQ, South HA, West H3;
    # South leads SQ, West discards C6 (shows out of spades).
    cards = "S3 SA S5 S2 H2 HQ HA H3 SQ C6".split()
    play = Play(deal, Contract.parse("4SS"), cards)
    view = SeatView.from_play(play, Seat.SOUTH)
    assert play.public.shown_out(Seat.WEST) == 1 << Suit.SPADES
    context = PlayContext.from_play(play.public)
    assert context.to_move == Seat.NORTH and len(context.trick) == 2
    plays = list(evidence(play.public))
    assert [p[0] for p in plays] == [3, 0, 1, 2, 0, 1, 2, 3, 2, 3]
    sampler = WorldSampler(view.known_cards(), view.constraints())
    worlds = sampler.sample(200, 3)
    for row in worlds.masks:
        assert Hand(int(row[Seat.WEST])).length(Suit.SPADES) == 1  # only the S3 it led
        assert int(row[Seat.EAST]) & Card.parse("HQ").mask
    post = WorldPosterior.uniform(worlds)
    for seat, c, cx in plays:
        if seat in (Seat.EAST, Seat.WEST):
            post = post.observe_card(seat, c, cx, RandomPlayer())
    assert post.prob(Seat.EAST, "ST") == pytest.approx(1.0)  # every other spade is with East
    hands = post.remaining_hands(context.played)
    assert len(hands) == 200 and all(h[Seat.SOUTH] == deal[Seat.SOUTH].bits & ~context.played for h in hands)
    with pytest.raises(BridgeError, match="already been played"):
        PublicPlay(Contract.parse("4SS"), cards[:4] + cards[:1])


def test_marginals_with_a_prior_control_variate():
    north = Hand.parse("AK94.T82.K73.QJ5")
    south = Hand.parse("QJ82.AK7.QJ2.A32")
    sampler = WorldSampler([north, 0, south, 0])
    exact = np.array([[float(x) for x in row] for row in sampler.exact_marginals()])
    post = WorldPosterior.uniform(sampler.sample(40, 2))
    # Equal weights: the correction vanishes and the exact prior comes back unchanged.
    assert np.allclose(post.marginals(exact), exact)
    # Evidence moves the estimate by exactly the weighted-minus-unweighted shift of the solved worlds.
    hq = Card.parse("HQ").mask
    post2 = post.observe(Observation("West likes the HQ",
                                     lambda m: np.where((m[:, Seat.WEST] & np.uint64(hq)) != 0, 3.0, 1.0)))
    i = Card.parse("HQ").index
    shift = post2.marginals()[Seat.WEST, i] - post.marginals()[Seat.WEST, i]
    assert post2.marginals(exact)[Seat.WEST, i] == pytest.approx(exact[Seat.WEST, i] + shift)
    assert shift > 0
    with pytest.raises(InferenceError, match="prior marginals"):
        post.marginals(np.zeros(52))


def test_constraint_call_model_soft_auction_evidence():
    own = Hand.parse("AK94.T82.K73.QJ5")
    worlds = WorldSampler([0, 0, own, 0]).sample(3000, 8)
    calls_seen = []

    def meaning(auction, call):
        calls_seen.append(str(call))
        return SeatConstraints(hcp=(15, 17), lengths=((2, 5), (2, 5), (2, 5), (2, 5)))

    model = ConstraintCallModel(meaning, miss=0.05)
    post = WorldPosterior.uniform(worlds).observe_call(Seat.WEST, Call.parse("1N"), Auction(Seat.WEST), model)
    assert calls_seen == ["1N"]  # the meaning is computed once, not once per world
    fits = np.array([15 <= Hand(int(m)).hcp <= 17 and all(2 <= Hand(int(m)).length(s) <= 5 for s in Suit)
                     for m in post.masks[:, Seat.WEST]])
    # Posterior mass on fitting hands: prior odds times (0.95 / 0.05).
    prior_fit = fits.mean()
    expected = prior_fit * 0.95 / (prior_fit * 0.95 + (1 - prior_fit) * 0.05)
    assert post.weights[fits].sum() == pytest.approx(expected)
