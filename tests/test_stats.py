"""``engine.stats``: the statistics of a comparison (matches, self-play, the αμ bench, the Borel bidder's worlds).
The figures they print, and the bidder's decisions, are only as good as these."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from squeeze.engine.cards import BridgeError
from squeeze.engine import stats
from squeeze.engine.stats import Sprt


def test_rate_and_standard_error():
    rate, se = stats.mean_se([1.0, 0.0, 1.0, 0.0])
    assert rate == 0.5
    assert se == pytest.approx(math.sqrt((4 * 0.25 / 3) / 4))
    assert math.isnan(stats.mean_se([1.0])[1])
    assert all(math.isnan(x) for x in stats.mean_se([]))


@pytest.mark.parametrize("b,c", [(0, 0), (4, 6), (1, 9), (0, 7), (12, 3)])
def test_sign_flip_on_single_games_is_the_exact_mcnemar_test(b, c):
    diffs = [1.0] * b + [-1.0] * c + [0.0] * 20  # ties carry no information either way
    assert stats.sign_flip_p(diffs) == pytest.approx(stats.mcnemar_p(b, c), abs=1e-12)


def test_mcnemar_known_values():
    assert stats.mcnemar_p(0, 7) == pytest.approx(2 / 2 ** 7)
    assert stats.mcnemar_p(5, 5) == 1.0


def test_sign_flip_monte_carlo_agrees_with_the_binomial_tail():
    # 30 deals, 20 better and 10 worse by one game: Monte Carlo beyond 16 deals must match the exact tail.
    diffs = [1.0] * 20 + [-1.0] * 10
    assert stats.sign_flip_p(diffs) == pytest.approx(stats.mcnemar_p(20, 10), abs=0.005)


def test_sign_flip_weighs_the_size_of_each_deals_difference():
    # Several games per deal: sizes count, not just signs. Of the 8 sign patterns of (1, 1, -0.1), only
    # (1, 1, +-0.1) and its mirror reach |sum| >= 1.9; counting signs alone (2 better, 1 worse) would give p = 1.
    assert stats.sign_flip_p([1.0, 1.0, -0.1]) == pytest.approx(4 / 8)
    assert stats.mcnemar_p(2, 1) == 1.0
    assert stats.sign_flip_p([0.5] * 6) == pytest.approx(2 / 64)


def test_paired_differences_and_interval():
    assert stats.paired_differences([1, 0, 3], [2, 0, 1]) == [1, 0, -2]
    with pytest.raises(BridgeError, match="same boards: 2 results against 3"):
        stats.paired_differences([1, 2], [1, 2, 3])
    assert stats.interval95(1.0, 0.5) == pytest.approx((1.0 - 0.979982, 1.0 + 0.979982))
    assert stats.normal_cdf(stats.Z95) == pytest.approx(0.975, abs=1e-12)


def test_normal_cdf_known_values():
    assert stats.normal_cdf(0.0) == 0.5
    assert stats.normal_cdf(1.0) == pytest.approx(0.8413447460685429, abs=1e-12)
    assert stats.normal_cdf(-2.0) == pytest.approx(0.022750131948179195, abs=1e-12)


def test_los_is_the_normal_probability_of_a_positive_mean():
    assert stats.los(0.0, 1.0) == 0.5
    assert stats.los(1.0, 1.0) == pytest.approx(0.8413447460685429)
    assert stats.los(-1.0, 1.0) == pytest.approx(1 - 0.8413447460685429)
    assert (stats.los(2.0, 0.0), stats.los(-2.0, 0.0), stats.los(0.0, 0.0)) == (1.0, 0.0, 0.5)
    assert math.isnan(stats.los(1.0, math.nan))


def test_weighted_figures_are_the_borel_bidders_numbers_to_the_last_bit():
    # The Borel bidder weighs each world by how well it fits the auction; these are the figures its own private
    # function gave for this input before it used engine.stats (a change here changes its decisions).
    values = np.array([3, -1, 0, 6, -6, 2, 10, -3, 1, 0, 4, -2], dtype=float)
    weights = np.array([1, .1, 1, .01, 1, 1, .1, 1, 1, .01, 1, 1])
    assert stats.weighted_mean_se(values, weights) == (-0.004866180048661804, 1.2106994517036094)
    assert stats.weighted_mean_se(values, np.ones(12)) == (1.1666666666666667, 1.2298887196109503)
    # equal weights: the plain mean and standard error
    assert stats.weighted_mean_se(values, np.ones(12)) == pytest.approx(stats.mean_se(list(values)))
    assert stats.effective_sample_size(np.ones(12)) == 12.0
    assert stats.effective_sample_size(weights) == pytest.approx(weights.sum() ** 2 / (weights ** 2).sum())
    # one effective world, or none: nothing can be told, the spread is infinite (no margin is ever beaten)
    assert stats.weighted_mean_se(values[:1], weights[:1]) == (3.0, math.inf)
    assert stats.weighted_mean_se(values[:2], np.array([1.0, 0.0])) == (3.0, math.inf)
    assert stats.weighted_mean_se(values[:0], weights[:0]) == (0.0, math.inf)
    assert stats.effective_sample_size(np.zeros(3)) == 0.0


def test_imp_summary_of_a_match():
    swings = [3, -1, 0, 0, 12, -6, 1, 0]
    s = stats.imp_summary(swings)
    mean, se = stats.mean_se(swings)
    assert (s.boards, s.mean, s.se) == (8, mean, se) and mean == pytest.approx(9 / 8)
    assert (s.low, s.high) == pytest.approx((mean - 1.959963984540054 * se, mean + 1.959963984540054 * se))
    assert s.los == pytest.approx(stats.normal_cdf(mean / se))
    empty = stats.imp_summary([])
    assert empty.boards == 0 and math.isnan(empty.mean) and math.isnan(empty.los)


def test_imp_interval_covers_the_true_mean_about_95_percent_of_the_time():
    # 400 simulated 64-board matches with a true edge of 0.5 IMP/board and sigma 6: the interval is honest.
    rng = random.Random(7)
    covered = 0
    for _ in range(400):
        s = stats.imp_summary([rng.gauss(0.5, 6.0) for _ in range(64)])
        covered += s.low <= 0.5 <= s.high
    assert 0.91 <= covered / 400 <= 0.98


@given(st.lists(st.integers(-24, 24), min_size=2, max_size=40))
def test_clustered_standard_error_with_one_observation_per_cluster_is_the_plain_one(swings):
    mean, se = stats.mean_se(swings)
    c_mean, c_se = stats.clustered_mean_se(swings, list(range(len(swings))))
    assert c_mean == pytest.approx(mean) and c_se == pytest.approx(se)
    s = stats.imp_summary(swings, deals=list(range(len(swings))))
    assert (s.mean, s.se) == pytest.approx((mean, se))


def test_clustered_standard_error_counts_a_group_that_moves_together_about_once():
    # one entrant's swings on a deal against three opponents: the same luck three times over. Plain figures take
    # them as 3n independent boards; by deal they are n.
    per_deal = [5, -3, 0, 12, -7, 1, 4, -2]
    swings = [x for x in per_deal for _ in range(3)]
    deals = [d for d in range(len(per_deal)) for _ in range(3)]
    mean, se = stats.clustered_mean_se(swings, deals)
    assert mean == pytest.approx(stats.mean_se(per_deal)[0]) and se == pytest.approx(stats.mean_se(per_deal)[1])
    assert se > stats.mean_se(swings)[1] * 1.5  # the plain figure would claim sqrt(3) times the precision
    # a deal whose swings cancel out adds nothing to the spread; one group alone leaves it unknown
    assert stats.clustered_mean_se([3, -3, 2, -2], [1, 1, 2, 2]) == (0.0, 0.0)
    assert math.isnan(stats.clustered_mean_se([1, 5], ["d", "d"])[1])
    with pytest.raises(BridgeError, match="one cluster per observation"):
        stats.clustered_mean_se([1, 2], [1])


def test_clustered_interval_covers_the_true_mean_about_95_percent_of_the_time():
    # 300 simulated tournaments: 64 deals, each played against 3 opponents, with a deal effect shared by the three
    # (sigma 5) and a table effect of each (sigma 3), true edge 0.5: the clustered interval stays honest
    rng = random.Random(11)
    covered = 0
    for _ in range(300):
        swings, deals = [], []
        for d in range(64):
            luck = rng.gauss(0.0, 5.0)
            for _ in range(3):
                swings.append(0.5 + luck + rng.gauss(0.0, 3.0))
                deals.append(d)
        s = stats.imp_summary(swings, deals=deals)
        covered += s.low <= 0.5 <= s.high
    assert 0.90 <= covered / 300 <= 0.98


@pytest.mark.parametrize("boards, margin, vp", [
    (16, 0, 10.0),     # a tie: 10.00-10.00 (every WBF table)
    (16, 60, 20.0),    # the blitz: 15 * sqrt(16) = 60 IMPs
    (16, 75, 20.0),    # beyond it, still 20
    (16, 1, 10.31),    # the formula's own values, to two decimals (anchors against a change of formula)
    (16, 10, 12.80),
    (16, 30, 16.73),
    (16, 59, 19.92),   # one IMP short of the blitz
    (24, 73, 19.97),   # 15 * sqrt(24) = 73.48: 73 is short of it, 74 beyond
    (24, 74, 20.0),
    (12, 52, 20.0),    # 15 * sqrt(12) = 51.96
])
def test_wbf_victory_points_at_known_margins(boards, margin, vp):
    winner, loser = stats.victory_points(margin, boards)
    assert round(winner, 2) == vp and winner + loser == pytest.approx(20.0)


def test_wbf_victory_points_reach_twenty_exactly_at_the_blitz():
    assert stats.victory_points(15 * math.sqrt(10), 10)[0] == pytest.approx(20.0, abs=1e-12)
    assert stats.victory_points(15 * math.sqrt(10) - 0.01, 10)[0] < 20.0


@given(st.integers(1, 128), st.floats(0, 200))
def test_wbf_victory_points_are_symmetric_increasing_and_concave(boards, margin):
    won, lost = stats.victory_points(margin, boards)
    assert stats.victory_points(-margin, boards) == pytest.approx((lost, won))
    assert 10.0 <= won <= 20.0 and won + lost == pytest.approx(20.0)
    more, _ = stats.victory_points(margin + 1, boards)
    assert more >= won
    # concave: the next IMP is worth no more than this one was
    if margin >= 1:
        assert more - won <= won - stats.victory_points(margin - 1, boards)[0] + 1e-12


@pytest.mark.parametrize("margin, boards, message", [
    (3, 0, "at least one board"),
    (3, 2.5, "at least one board"),
    (math.nan, 16, "finite"),
])
def test_victory_points_refuse_what_is_not_a_match(margin, boards, message):
    with pytest.raises(BridgeError, match=message):
        stats.victory_points(margin, boards)


# --- SPRT on synthetic IMP streams -----------------------------------------------------------------------------

def _imp_stream(rng: np.random.Generator, edge: float, boards: int) -> np.ndarray:
    """IMP-like swings: mostly small, a few large, rounded to whole IMPs, with a true mean of ``edge``."""
    raw = rng.standard_t(4, size=boards) * 4.2  # heavy tails, sd about 6 IMPs as in robot matches
    return np.round(raw) + edge


def test_sprt_accepts_h1_at_a_large_edge_and_h0_at_none():
    rng = np.random.default_rng(7)
    test = Sprt(0.0, 1.0)
    assert test.first_verdict(_imp_stream(rng, 3.0, 5000)).verdict == "H1"
    assert test.first_verdict(_imp_stream(rng, -1.0, 5000)).verdict == "H0"
    early = test.test(_imp_stream(rng, 3.0, 10))
    assert early.verdict == "continue" and early.boards == 10  # never before min_boards


@pytest.mark.parametrize("edge,wrong", [(0.0, "H1"), (1.0, "H0")])
def test_sprt_error_rates_are_near_the_requested_ones(edge, wrong):
    """Over many simulated runs, the wrong verdict comes about as often as alpha (or beta) allows, not more."""
    rng = np.random.default_rng(11 if edge == 0 else 12)
    test = Sprt(0.0, 1.0, alpha=0.05, beta=0.05)
    verdicts = [test.first_verdict(_imp_stream(rng, edge, 4000)).verdict for _ in range(600)]
    rate = verdicts.count(wrong) / len(verdicts)
    assert verdicts.count("continue") < 30
    assert rate < 0.085, rate  # requested 0.05; sampling noise at 600 runs is about 0.009


@pytest.mark.parametrize("swing", [0, 3, -5])
def test_sprt_does_not_decide_on_degenerate_data(swing):
    """Equal swings have a sample variance of 0: the prior keeps the estimate sane, so two boards decide nothing
    and the LLR stays a small number (it was minus millions), and a long run of them decides only slowly."""
    test = Sprt(0.0, 0.5, min_boards=2)
    two = test.test([swing, swing])
    assert two.verdict == "continue" and abs(two.llr) < 1.0
    assert np.all(np.isfinite(test.llr_curve([swing] * 1000)))
    assert test.variance_curve([swing] * 3)[-1] == pytest.approx(10 * 16.0 / 12)
    # the same mean with a real spread: the sample's variance takes over as boards come
    rng = np.random.default_rng(3)
    spread = _imp_stream(rng, 0.0, 2000)
    assert test.variance_curve(spread)[-1] == pytest.approx(np.var(spread, ddof=1), rel=0.02)


def test_identical_teams_decide_for_no_edge_only_after_many_flat_boards():
    flat = Sprt(0.0, 0.5, min_boards=2).first_verdict([0] * 200)
    assert flat.verdict == "H0" and 40 <= flat.boards <= 80


def test_sprt_refuses_nonsense_bounds():
    with pytest.raises(BridgeError):
        Sprt(0.5, 0.0)
    with pytest.raises(BridgeError):
        Sprt(0.0, 0.5, alpha=0.7)
