"""The statistics of comparing two teams or two configurations: pure functions over lists of numbers.

- ``mean_se``: a mean (a make rate is the mean of 0/1 outcomes) and its standard error; ``interval95`` around it.
- ``clustered_mean_se``: the same when observations come in groups that are not independent (one entrant's swings
  against several opponents on the same deal, in a tournament): the cluster-robust standard error.
- ``weighted_mean_se``: the same for weighted observations (the Borel bidder's worlds, each weighted by how well it
  fits the auction), over ``effective_sample_size`` observations.
- ``paired_differences``: per board (or deal) differences of two configurations that played the same boards.
- ``sign_flip_p``: two-sided permutation test of a paired mean difference (exact up to 16 boards, Monte Carlo
  beyond); ``mcnemar_p``: the exact McNemar test on discordant pairs.
- ``imp_summary``: IMPs per board with standard error, 95% interval and likelihood of superiority (``los``).
- ``victory_points``: the WBF 20-VP continuous scale (2013) for a match's IMP margin.
- ``Sprt``: the sequential test that stops a self-play run once it decides between two IMP-per-board edges.

numpy is the only dependency (the sign-flip test, the weighted figures); the normal distribution comes from
``math.erf`` and the binomial from ``math.comb``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .cards import BridgeError

__all__ = [
    "Z95",
    "mean_se",
    "clustered_mean_se",
    "interval95",
    "effective_sample_size",
    "weighted_mean_se",
    "paired_differences",
    "sign_flip_p",
    "mcnemar_p",
    "normal_cdf",
    "los",
    "ImpSummary",
    "imp_summary",
    "victory_points",
    "Sprt",
    "SprtResult",
]

#: The two-sided 95% point of the standard normal distribution, Phi^-1(0.975).
Z95 = 1.959963984540054

#: Beyond this many non-zero differences the sign-flip test samples sign patterns instead of listing all 2**n.
_EXACT_SIGN_FLIP_LIMIT = 16


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (sample standard deviation over sqrt(n)).

    NaN for the mean of nothing, and for the standard error of fewer than two values (it cannot be estimated)."""
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    if n < 2:
        return m, math.nan
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)


def clustered_mean_se(xs: Sequence[float], clusters: Sequence[object]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error when ``xs[i]`` belongs to the group ``clusters[i]`` and groups are
    independent but observations within a group need not be (a tournament entrant's swings on one deal against
    several opponents share the deal's luck).

    The cluster-robust (sandwich) variance of the mean, with the small-sample factor G/(G-1) for G groups:
    ``G/(G-1) * sum_g (sum_{i in g} (x_i - mean))^2 / n^2``. With one observation per group this is ``mean_se``
    exactly; a group of observations that move together counts for about one observation, not several.
    NaN for the mean of nothing and for the standard error of fewer than two groups.

    Raises ``BridgeError`` when ``xs`` and ``clusters`` differ in length."""
    if len(xs) != len(clusters):
        raise BridgeError(f"one cluster per observation: {len(xs)} observations, {len(clusters)} clusters")
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    sums: dict[object, float] = {}
    for x, g in zip(xs, clusters):
        sums[g] = sums.get(g, 0.0) + (x - m)
    groups = len(sums)
    if groups < 2:
        return m, math.nan
    var = groups / (groups - 1) * sum(s * s for s in sums.values()) / (n * n)
    return m, math.sqrt(var)


def effective_sample_size(weights: np.ndarray) -> float:
    """Kish's effective sample size of weighted observations, ``(sum w)^2 / sum w^2``: as many equally weighted
    observations would give the same variance of the mean. 0 when no observation has any weight."""
    sw, sw2 = float(weights.sum()), float((weights * weights).sum())
    return sw * sw / sw2 if sw2 > 0 else 0.0


def weighted_mean_se(values: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The weighted mean of ``values`` and its standard error over ``effective_sample_size(weights)`` observations
    (the weighted variance, made unbiased by ``n_eff / (n_eff - 1)``; with equal weights this is ``mean_se``).

    A decision rule's convention, not a report's: the standard error is infinite when the effective sample is one
    observation or less (nothing can be told from it, so ``mean - z * se`` beats no margin), and the mean of
    nothing is 0."""
    sw = float(weights.sum())
    if sw <= 0 or len(values) == 0:
        return 0.0, math.inf
    m = float((weights * values).sum() / sw)
    n_eff = effective_sample_size(weights)
    if n_eff <= 1:
        return m, math.inf
    var = float((weights * (values - m) ** 2).sum() / sw) * n_eff / (n_eff - 1)
    return m, math.sqrt(var / n_eff)


def interval95(mean: float, se: float) -> tuple[float, float]:
    """The normal 95% confidence interval ``mean +- 1.96 se``."""
    return mean - Z95 * se, mean + Z95 * se


def paired_differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """``b[i] - a[i]`` for each board (or deal) both played: positive where ``b`` did better.

    Raises ``BridgeError`` when the two did not play the same number of boards (the pairs would be misaligned)."""
    if len(a) != len(b):
        raise BridgeError(f"paired results need the same boards: {len(a)} results against {len(b)}")
    return [y - x for x, y in zip(a, b)]


def sign_flip_p(diffs: Sequence[float], samples: int = 200_000) -> float:
    """Two-sided p of a paired mean difference under "no difference" (each deal's sign is a coin flip).

    Exact over all sign patterns up to 16 non-zero deals, Monte Carlo (fixed seed) beyond. With one game per deal
    the differences are -1, 0, +1 and this is the exact McNemar test; with several games per deal it needs no
    normality assumption."""
    d = np.array([x for x in diffs if x != 0.0])
    if d.size == 0:
        return 1.0
    obs = abs(d.sum()) - 1e-9  # (a pattern as extreme as the one seen counts, despite float rounding)
    if d.size <= _EXACT_SIGN_FLIP_LIMIT:
        signs = ((np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
        return float((np.abs(signs @ d) >= obs).mean())
    rng = np.random.default_rng(12345)
    hits = 0
    for k in range(0, samples, 20_000):  # in blocks: 200,000 x n signs at once would be a large array
        signs = rng.integers(0, 2, size=(min(20_000, samples - k), d.size)) * 2 - 1
        hits += int((np.abs(signs @ d) >= obs).sum())
    return hits / samples


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar test on the discordant pairs: P(a split at least this uneven | no difference)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def normal_cdf(x: float) -> float:
    """Phi(x), the standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def los(mean: float, se: float) -> float:
    """Likelihood of superiority: the probability that the true mean is above zero, Phi(mean / se) (the figure chess
    engine testers report beside Elo). 1 or 0 when the standard error is zero (every board the same), 0.5 for a
    zero mean; NaN when the standard error is unknown."""
    if math.isnan(mean) or math.isnan(se):
        return math.nan
    if se == 0.0:
        return 0.5 if mean == 0.0 else float(mean > 0.0)
    return normal_cdf(mean / se)


@dataclass(frozen=True)
class ImpSummary:
    """A match (or self-play run) in IMPs per board: ``boards`` swings, their mean and standard error, the 95%
    interval ``low``..``high`` and the likelihood that the first team is the better one (``los``)."""

    boards: int
    mean: float
    se: float
    low: float
    high: float
    los: float


def imp_summary(swings: Sequence[float], deals: Optional[Sequence[object]] = None) -> ImpSummary:
    """``swings``: the IMPs one team won on each board (negative where it lost IMPs). ``deals``: the deal of each
    swing, when one team's swings include the same deal more than once (a tournament entrant against several
    opponents): the standard error is then ``clustered_mean_se``'s, by deal."""
    mean, se = mean_se(swings) if deals is None else clustered_mean_se(swings, deals)
    low, high = interval95(mean, se)
    return ImpSummary(len(swings), mean, se, low, high, los(mean, se))


# The WBF 20-VP continuous scale, used by the WBF since 2013. With tau = (sqrt(5) - 1) / 2 (the golden section,
# 0.618034), a match of N boards has its blitz at B = 15 * sqrt(N) IMPs, and the winner of a match won by M IMPs
# scores
#     VP = 10 + 10 * (1 - tau ** (3 * M / B)) / (1 - tau ** 3),   at most 20,
# the loser 20 - VP. So M = 0 gives 10.00-10.00, and the blitz 20.00-0.00 is reached at M = B exactly (60 IMPs for
# 16 boards; 3 * M / B = 3 there, so the fraction is 1). Source: the formula as our design brief states it, checked
# against an independent implementation, Marc Shearer's BridgeScore ("Bridge Calculations.swift": r = tau**3 =
# 0.236068, blitz = 15 * sqrt(boards), VP = 10 * (1 + (1 - r ** (M / blitz)) / (1 - r)), the same function). The
# WBF's printed tables round VP to two decimals and then raise an entry by 0.01 wherever rounding broke the scale's
# concavity (as BridgeScore does too); ``victory_points`` gives the formula's value itself, unrounded.
_TAU = (math.sqrt(5.0) - 1.0) / 2.0
_VP_MAX = 20.0


def victory_points(imp_margin: float, boards: int) -> tuple[float, float]:
    """The WBF 20-VP continuous scale (2013): the VPs of the two teams of a ``boards``-board match that the first
    won by ``imp_margin`` IMPs (negative: lost). The two always add up to 20."""
    if isinstance(boards, bool) or not isinstance(boards, int) or boards < 1:
        raise BridgeError(f"a match has at least one board, got {boards!r}")
    if not math.isfinite(imp_margin):
        raise BridgeError(f"an IMP margin is a finite number, got {imp_margin!r}")
    blitz = 15.0 * math.sqrt(boards)
    winner = min(_VP_MAX, 10.0 + 10.0 * (1.0 - _TAU ** (3.0 * abs(imp_margin) / blitz)) / (1.0 - _TAU ** 3))
    return (winner, _VP_MAX - winner) if imp_margin >= 0 else (_VP_MAX - winner, winner)


# --- the sequential test ---------------------------------------------------------------------------------------
# A run of A against B stops as soon as the evidence decides between H0: "A gains m0 IMPs per board" and H1: "A
# gains m1" (m0 < m1), with error rates alpha (accepting H1 when H0 is true) and beta. IMPs per board are treated as
# normal with the variance estimated from the boards so far (the generalised SPRT that chess tools run on game
# pairs): after n boards of mean x and variance s^2,
#     LLR = n * (m1 - m0) * (x - (m0 + m1) / 2) / s^2,
# the log-likelihood ratio of H1 to H0, and Wald's bounds are ln(beta / (1 - alpha)) below and
# ln((1 - beta) / alpha) above. Early on the variance estimate is poor, so no verdict is given before
# ``min_boards`` boards (a self-play run's first boards decide nothing in practice).
#
# The variance s^2 is the sample's pooled with a prior worth ``prior_boards`` boards of ``prior_variance`` IMP^2:
#     s^2 = ((n - 1) * sample variance + prior_boards * prior_variance) / (n - 1 + prior_boards).
# Without it a handful of equal swings (two flat boards between identical teams) has variance 0 and any drift
# of the mean is "infinitely" significant: an LLR of minus millions after two boards. IMP swings are a spike at 0
# with heavy tails, so a short or mostly flat sample underestimates their spread; the prior (16 IMP^2, lower than
# the 25-40 that robot matches show) keeps the estimate sane until the boards themselves say otherwise, and fades
# as they come (after 200 boards it weighs 5 %). It only makes the test slower to decide, never less safe.


@dataclass(frozen=True)
class SprtResult:
    boards: int
    llr: float
    lower: float
    upper: float
    verdict: str  # "H1" (A gains m1 rather than m0), "H0" (m0 rather than m1), or "continue"


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test on IMPs per board (see above): ``Sprt(0, 0.5).test(swings)``."""

    m0: float
    m1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_boards: int = 30
    prior_variance: float = 16.0  #: IMP^2 a board, pooled with the sample's (see above)
    prior_boards: float = 10.0  #: the prior's weight, in boards

    def __post_init__(self) -> None:
        if not self.m0 < self.m1:
            raise BridgeError(f"the SPRT needs m0 < m1, got {self.m0} and {self.m1}")
        for name in ("alpha", "beta"):
            p = getattr(self, name)
            if not 0.0 < p < 0.5:
                raise BridgeError(f"{name} must be between 0 and 0.5, got {p}")
        if self.min_boards < 2:
            raise BridgeError(f"min_boards must be at least 2, got {self.min_boards}")
        if not (self.prior_variance > 0 and self.prior_boards > 0):
            raise BridgeError(f"the SPRT's prior needs a positive variance and weight, got {self.prior_variance} "
                              f"and {self.prior_boards}")

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def variance_curve(self, swings: Sequence[float]) -> np.ndarray:
        """The variance the test uses after each board: the sample's pooled with the prior (see above)."""
        x = np.asarray(swings, dtype=float)
        n = np.arange(1, len(x) + 1)
        mean = np.cumsum(x) / n
        # sum of squared deviations, by cumulative sums (clipped: rounding can make a zero slightly negative)
        ss = np.maximum(np.cumsum(x * x) - n * mean * mean, 0.0)
        return (ss + self.prior_boards * self.prior_variance) / (n - 1 + self.prior_boards)

    def llr_curve(self, swings: Sequence[float]) -> np.ndarray:
        """The log-likelihood ratio after each board (0 for the first, whose spread says nothing)."""
        x = np.asarray(swings, dtype=float)
        n = np.arange(1, len(x) + 1)
        mean = np.cumsum(x) / n
        out = n * (self.m1 - self.m0) * (mean - (self.m0 + self.m1) / 2) / self.variance_curve(x)
        out[:1] = 0.0
        return out

    def llr(self, swings: Sequence[float]) -> float:
        return float(self.llr_curve(swings)[-1]) if len(swings) else 0.0

    def test(self, swings: Sequence[float]) -> SprtResult:
        """The verdict after all of ``swings`` (the run stops at the first board whose verdict is not "continue")."""
        lower, upper = self.bounds
        llr = self.llr(swings)
        verdict = "continue"
        if len(swings) >= self.min_boards:
            verdict = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
        return SprtResult(len(swings), llr, lower, upper, verdict)

    def first_verdict(self, swings: Sequence[float]) -> SprtResult:
        """Where a run fed ``swings`` board by board would have stopped (or the state after all of them)."""
        lower, upper = self.bounds
        curve = self.llr_curve(swings)
        decided = np.nonzero((curve >= upper) | (curve <= lower))[0]
        decided = decided[decided >= self.min_boards - 1]
        if len(decided) == 0:
            return self.test(swings)
        k = int(decided[0])
        return SprtResult(k + 1, float(curve[k]), lower, upper, "H1" if curve[k] >= upper else "H0")
