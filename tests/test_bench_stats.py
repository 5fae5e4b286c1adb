"""The statistics of the αμ bench (bench/alphamu.py): the figures it prints are only as good as these."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("bench_alphamu", Path(__file__).parent.parent / "bench" / "alphamu.py")
alphamu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(alphamu)


def test_rate_and_standard_error():
    rate, se = alphamu.rate_se([1.0, 0.0, 1.0, 0.0])
    assert rate == 0.5
    assert se == pytest.approx(math.sqrt((4 * 0.25 / 3) / 4))
    assert math.isnan(alphamu.rate_se([1.0])[1])


@pytest.mark.parametrize("b,c", [(0, 0), (4, 6), (1, 9), (0, 7), (12, 3)])
def test_sign_flip_on_single_games_is_the_exact_mcnemar_test(b, c):
    diffs = [1.0] * b + [-1.0] * c + [0.0] * 20  # ties carry no information either way
    assert alphamu.sign_flip_p(diffs) == pytest.approx(alphamu.mcnemar_p(b, c), abs=1e-12)


def test_mcnemar_known_values():
    assert alphamu.mcnemar_p(0, 7) == pytest.approx(2 / 2 ** 7)
    assert alphamu.mcnemar_p(5, 5) == 1.0


def test_sign_flip_monte_carlo_agrees_with_the_binomial_tail():
    # 30 deals, 20 better and 10 worse by one game: Monte Carlo beyond 16 deals must match the exact tail.
    diffs = [1.0] * 20 + [-1.0] * 10
    assert alphamu.sign_flip_p(diffs) == pytest.approx(alphamu.mcnemar_p(20, 10), abs=0.005)


def test_sign_flip_weighs_the_size_of_each_deals_difference():
    # Several games per deal: sizes count, not just signs. Of the 8 sign patterns of (1, 1, -0.1), only
    # (1, 1, +-0.1) and its mirror reach |sum| >= 1.9; counting signs alone (2 better, 1 worse) would give p = 1.
    assert alphamu.sign_flip_p([1.0, 1.0, -0.1]) == pytest.approx(4 / 8)
    assert alphamu.mcnemar_p(2, 1) == 1.0
    assert alphamu.sign_flip_p([0.5] * 6) == pytest.approx(2 / 64)


def test_game_seeds_are_shared_by_configurations_and_distinct_across_games():
    seeds = {alphamu.play_seed(2024, i, r) for i in range(0, 100_000, 997) for r in range(5)}
    assert len(seeds) == len(range(0, 100_000, 997)) * 5
    assert alphamu.play_seed(2024, 7, 0) == 2024 * 31337 + 7  # game 0 keeps the seeds of the records already made
