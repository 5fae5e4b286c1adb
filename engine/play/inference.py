"""Bayesian card-location inference: a posterior over sampled worlds.

The sampler (``engine.sampling``) deals worlds uniformly among those consistent with the *hard* facts (cards seen,
cards played, voids shown, what the auction's constraints allow). What the opponents chose to do is *soft*
evidence: a card that throws a trick double dummy is unlikely from a good player. ``WorldPosterior`` keeps one
log-weight per world and multiplies in the likelihood of every observed card (or call) under a player model:

    w_d  <-  w_d * P(card | world d)

The default card model, ``DoubleDummyPlayer``, scores the player's legal cards double dummy in each world and gives
each card a probability that falls exponentially with the tricks it throws away (``sharpness``), mixed with a little
uniform noise (a good player still errs). Cards of equal double-dummy value share the probability equally, which is
what produces restricted choice: from QJ doubleton the queen is played half the time, from a singleton queen always.
A world in which the player does not hold the card, or would revoke by playing it, gets weight zero.

The weights feed ``weighted_average`` (``sum_d w_d * score_d``), which the PIMC card selector calls, and
``marginals`` (``P(seat holds card)``), which explanations and tests use. When the effective sample size falls below
a threshold, ``refresh`` re-deals fresh worlds from a sampler built with the current hard facts and replays the
history of soft evidence on them (or, without a sampler, resamples the existing worlds systematically).

The double-dummy oracle is injected: anything with ``solve_cards_many(positions) -> [{card index: tricks}]`` (the
``engine.play.oracle.DDOracle`` protocol). The default is ``engine.play.oracle.default_oracle()`` (``engine.dds``),
imported lazily so this module imports before the solver is built.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol, Sequence

import numpy as np

from ..board import PublicPlay, legal_mask
from ..cards import BridgeError, Card, Hand, Seat
from ..sampling import SeatConstraints, WorldSampler, Worlds, numpy_rng
from .position import SearchPosition, equivalent_cards, iter_bits

__all__ = [
    "InferenceError",
    "PlayContext",
    "CardModel",
    "DoubleDummyPlayer",
    "RandomPlayer",
    "CallModel",
    "Observation",
    "WorldPosterior",
    "weighted_average",
    "effective_sample_size",
    "evidence",
    "ConstraintCallModel",
]

_BITS52 = np.arange(52, dtype=np.uint64)


class InferenceError(BridgeError):
    """Evidence that no world explains (every weight would be zero), or bad input to the posterior."""


# ---------------------------------------------------------------------------------------------------------------------
# The public state just before an observed card


@dataclass(frozen=True)
class PlayContext:
    """What everyone knows just before a card is played.

    ``trump``: ``Strain`` value (4 = notrump). ``leader``: seat that led the current trick. ``trick``: card indices
    already played to it, in order. ``played``: mask of every card played before this one (earlier tricks and the
    current trick).
    """

    trump: int
    leader: int
    trick: tuple[int, ...] = ()
    played: int = 0

    def __post_init__(self) -> None:
        if len(self.trick) > 3:
            raise InferenceError(f"a trick in progress has at most 3 cards, got {len(self.trick)}")
        for c in self.trick:
            if not self.played >> c & 1:
                raise InferenceError(f"{Card.from_index(c)} is on the table but not in the played mask")

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 4

    @classmethod
    def from_play(cls, play) -> "PlayContext":
        """The context of the next card of an ``engine.board.Play`` (only its public parts are read)."""
        played = 0
        for c in play.cards:
            played |= c.mask
        return cls(int(play.trump), int(play.leader), tuple(c.index for c in play.current_trick), played)


def evidence(play: PublicPlay, start: int = 0) -> Iterator[tuple[Seat, Card, PlayContext]]:
    """Each card of ``play`` from its ``start``-th on, with who played it and the context it was played in: the
    observations a posterior takes (``WorldPosterior.observe_card``)."""
    prefix = play.prefix(start)
    for card in play.cards[start:]:
        yield prefix.next_seat, card, PlayContext.from_play(prefix)
        prefix = prefix.then(card)


# ---------------------------------------------------------------------------------------------------------------------
# Player models


class CardModel(Protocol):
    """Likelihood of ``seat`` playing ``card`` (index) in each world (rows of four original-hand masks)."""

    def likelihoods(self, masks: np.ndarray, seat: int, card: int, ctx: PlayContext) -> np.ndarray: ...


def _world_hands(row: np.ndarray, played: int) -> tuple[int, int, int, int]:
    return tuple(int(x) & ~played for x in row)  # type: ignore[return-value]


@dataclass(frozen=True)
class RandomPlayer:
    """Any legal card with equal probability: only the hard facts (held, no revoke) and counting carry information."""

    def likelihoods(self, masks: np.ndarray, seat: int, card: int, ctx: PlayContext) -> np.ndarray:
        out = np.zeros(len(masks))
        for i, row in enumerate(masks):
            hand = int(row[seat]) & ~ctx.played
            legal = legal_mask(hand, ctx.trick)
            if legal >> card & 1:
                out[i] = 1.0 / legal.bit_count()
        return out


@dataclass
class DoubleDummyPlayer:
    """A good player: ``P(card) ∝ exp(-sharpness * tricks it loses double dummy)``, mixed with ``noise`` uniform.

    ``oracle``: anything with ``solve_cards_many(positions)`` (see module doc); ``None`` = ``engine.dds``, created on
    first use. Cards of equal double-dummy value share their probability. Positions where the player's legal cards
    are all equivalent need no solving (each has probability ``1/len``).
    """

    oracle: object | None = None
    # Defaults: a one-trick mistake is e^-1 (about 1/3) as likely as the best card, and one card in ten is a random
    # legal card (real opponents are good, not double-dummy perfect). Softer than the self-play truth on purpose:
    # with a few dozen solved worlds, sharper weights collapse onto one or two worlds and their sampling noise costs
    # more than the extra evidence gains (bench/inference.py: sharpness 3 scored worse than 1, 48-deal sweep).
    sharpness: float = 1.0
    noise: float = 0.1
    solves: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.sharpness < 0:
            raise InferenceError(f"sharpness must be >= 0, got {self.sharpness}")
        if not 0 <= self.noise <= 1:
            raise InferenceError(f"noise must be in [0, 1], got {self.noise}")

    def _oracle(self):
        if self.oracle is None:
            from .oracle import default_oracle  # lazily: engine.dds may not be built yet

            self.oracle = default_oracle()
        return self.oracle

    def card_probabilities(self, scores: dict[int, int], legal: int, hand: int, alive: int) -> dict[int, float]:
        """Probability of each legal card from its double-dummy score (tricks for the mover's side)."""
        full: dict[int, int] = {}
        for c in iter_bits(legal):
            if c in scores:
                full[c] = scores[c]
            else:  # an oracle may report one card per class of equivalent cards
                eq = equivalent_cards(c, hand, alive)
                rep = next((x for x in iter_bits(eq) if x in scores), None)
                if rep is None:
                    raise InferenceError(f"the oracle gave no score for {Card.from_index(c)} or its equivalents")
                full[c] = scores[rep]
        best = max(full.values())
        raw = {c: math.exp(-self.sharpness * (best - t)) for c, t in full.items()}
        z = sum(raw.values())
        n = len(raw)
        return {c: (1 - self.noise) * v / z + self.noise / n for c, v in raw.items()}

    def likelihoods(self, masks: np.ndarray, seat: int, card: int, ctx: PlayContext) -> np.ndarray:
        n = len(masks)
        out = np.zeros(n)
        pending: list[int] = []
        positions = []
        for i, row in enumerate(masks):
            hands = _world_hands(row, ctx.played)
            hand = hands[seat]
            legal = legal_mask(hand, ctx.trick)
            if not legal >> card & 1:
                continue  # not held in this world, or a revoke: impossible
            nl = legal.bit_count()
            alive = hands[0] | hands[1] | hands[2] | hands[3]
            for c in ctx.trick:
                alive |= 1 << c
            if nl == 1 or equivalent_cards(card, hand, alive) & legal == legal:
                out[i] = 1.0 / nl  # forced, or every legal card equivalent: no choice to learn from
                continue
            pending.append(i)
            positions.append(SearchPosition(hands, ctx.trick, ctx.leader, ctx.trump))
        if positions:
            results = self._oracle().solve_cards_many(positions)
            self.solves += len(positions)
            for i, pos, scores in zip(pending, positions, results):
                hand = pos.hands[seat]
                probs = self.card_probabilities(scores, legal_mask(hand, ctx.trick), hand, pos.alive)
                out[i] = probs[card]
        return out


class CallModel(Protocol):
    """Probability that a player holding ``hand`` makes ``call`` after ``auction`` (from the bidding rules)."""

    def __call__(self, hand: Hand, auction, call) -> float: ...


class ConstraintCallModel:
    """Call likelihood from what the call shows: ``1 - miss`` when the hand fits the call's ``SeatConstraints``,
    ``miss`` when it does not (players misbid; a soft version of the sampler's hard auction constraints).

    ``meaning(auction, call)`` returns those constraints, e.g. from the bidding interpreter:
    ``lambda a, c: bidder.meaning_of(a.then(c), len(a.calls))``. Computed once per (auction, call). Only ratios
    between worlds matter for one observed call, so the values need not sum to one over the calls.
    """

    def __init__(self, meaning: Callable[[object, object], SeatConstraints], miss: float = 0.02) -> None:
        if not 0 <= miss <= 1:
            raise InferenceError(f"miss must be in [0, 1], got {miss}")
        self.meaning = meaning
        self.miss = miss
        self._cache: dict = {}

    def __call__(self, hand: Hand, auction, call) -> float:
        key = (getattr(auction, "dealer", None), tuple(str(c) for c in getattr(auction, "calls", ())), str(call))
        cons = self._cache.get(key)
        if cons is None:
            cons = self._cache[key] = self.meaning(auction, call)
        return 1.0 - self.miss if cons.accepts(hand) else self.miss


# ---------------------------------------------------------------------------------------------------------------------
# The posterior


@dataclass(frozen=True)
class Observation:
    """One piece of soft evidence, replayable on any set of worlds (for re-dealing)."""

    description: str
    likelihoods: Callable[[np.ndarray], np.ndarray]


def effective_sample_size(weights: np.ndarray) -> float:
    """Kish's ESS: ``(sum w)^2 / sum w^2`` (equals n for equal weights, 1 when one world has all the weight)."""
    w = np.asarray(weights, dtype=float)
    s = w.sum()
    return float(s * s / (w * w).sum()) if s > 0 else 0.0


def weighted_average(weights: Sequence[float] | np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``sum_d w_d * score[d, m] / sum_d w_d`` for each move ``m`` (``scores``: worlds x moves, or one column).

    NaN scores (a move not scored in a world) are left out of that move's average, renormalising its weights.
    """
    w = np.asarray(weights, dtype=float)
    sc = np.asarray(scores, dtype=float)
    one = sc.ndim == 1
    if one:
        sc = sc[:, None]
    if sc.shape[0] != w.shape[0]:
        raise InferenceError(f"{w.shape[0]} weights for {sc.shape[0]} worlds of scores")
    if (w < 0).any():
        raise InferenceError("weights must be non-negative")
    ok = ~np.isnan(sc)
    num = np.where(ok, sc, 0.0).T @ w
    den = ok.T.astype(float) @ w
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return out[0] if one else out


@dataclass(frozen=True, eq=False)
class WorldPosterior:
    """Worlds (``masks``: n x 4 uint64 original hands) with log-weights and the soft evidence seen so far.

    Immutable: every update returns a new posterior.
    """

    masks: np.ndarray
    log_weights: np.ndarray
    history: tuple[Observation, ...] = ()

    def __post_init__(self) -> None:
        if self.masks.ndim != 2 or self.masks.shape[1] != 4:
            raise InferenceError(f"worlds must be an (n, 4) mask array, got shape {self.masks.shape}")
        if self.log_weights.shape != (self.masks.shape[0],):
            raise InferenceError(f"{self.log_weights.shape} log-weights for {self.masks.shape[0]} worlds")

    # --- construction --------------------------------------------------------------------------------------------
    @classmethod
    def uniform(cls, worlds: Worlds | np.ndarray) -> "WorldPosterior":
        masks = worlds.masks if isinstance(worlds, Worlds) else np.asarray(worlds, dtype=np.uint64)
        if masks.shape[0] == 0:
            raise InferenceError("a posterior needs at least one world")
        return cls(masks, np.zeros(masks.shape[0]))

    # --- queries -------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.masks.shape[0])

    @property
    def weights(self) -> np.ndarray:
        """Normalised weights (sum 1)."""
        lw = self.log_weights
        m = lw.max()
        w = np.exp(lw - m)
        return w / w.sum()

    @property
    def ess(self) -> float:
        return effective_sample_size(self.weights)

    def marginals(self, prior: np.ndarray | None = None) -> np.ndarray:
        """``(4, 52)``: posterior probability that each seat holds (or held: played cards count) each card.

        ``prior``: the same marginals under the unweighted (uniform) distribution, known exactly
        (``WorldSampler.exact_marginals``) or from a large sample (dealing is cheap, double-dummy solving is not).
        It is then used as a control variate: ``prior + (weighted - unweighted)`` over these worlds, which cancels
        most of the sampling noise the few solved worlds carry while keeping the evidence's shift.
        """
        bits = ((self.masks[:, :, None] >> _BITS52) & np.uint64(1)).astype(float)
        weighted = np.einsum("n,nsc->sc", self.weights, bits)
        if prior is None:
            return weighted
        prior = np.asarray(prior, dtype=float)
        if prior.shape != (4, 52):
            raise InferenceError(f"prior marginals must be a (4, 52) array, got {prior.shape}")
        return np.clip(prior + weighted - bits.mean(axis=0), 0.0, 1.0)

    def prob(self, seat: Seat | int, card: Card | str) -> float:
        c = Card.parse(card) if isinstance(card, str) else card
        hit = (self.masks[:, int(seat)] & np.uint64(c.mask)) != 0
        return float(self.weights[hit].sum())

    def weighted_average(self, scores: np.ndarray) -> np.ndarray:
        return weighted_average(self.weights, scores)

    def remaining_hands(self, played: int) -> tuple[tuple[int, int, int, int], ...]:
        """Each world's four hands less the ``played`` cards (``engine.play.position.Root.worlds`` form)."""
        rem = self.masks & ~np.uint64(played)
        return tuple(tuple(int(x) for x in row) for row in rem)  # type: ignore[return-value]

    # --- evidence ------------------------------------------------------------------------------------------------
    def observe(self, obs: Observation) -> "WorldPosterior":
        """Multiply in one observation's likelihoods. Raises ``InferenceError`` if no world explains it."""
        lik = np.asarray(obs.likelihoods(self.masks), dtype=float)
        if lik.shape != (len(self),):
            raise InferenceError(f"{obs.description}: {lik.shape} likelihoods for {len(self)} worlds")
        if (lik < 0).any():
            raise InferenceError(f"{obs.description}: negative likelihood")
        with np.errstate(divide="ignore"):
            lw = self.log_weights + np.log(lik)
        if not np.isfinite(lw).any():
            raise InferenceError(f"no sampled world is consistent with {obs.description}: re-deal with the new facts")
        return WorldPosterior(self.masks, lw, self.history + (obs,))

    def observe_card(self, seat: Seat | int, card: Card | str, ctx: PlayContext, model: CardModel) -> "WorldPosterior":
        """``seat`` played ``card`` in context ``ctx`` (the state just before it)."""
        c = Card.parse(card) if isinstance(card, str) else card
        s = int(seat)
        if ctx.to_move != s:
            raise InferenceError(f"{Seat(s).title} is not the player to move ({Seat(ctx.to_move).title} is)")
        if ctx.played >> c.index & 1:
            raise InferenceError(f"{c} has already been played")
        idx = c.index
        return self.observe(
            Observation(f"{Seat(s).letter} playing {c}", lambda masks: model.likelihoods(masks, s, idx, ctx))
        )

    def observe_call(self, seat: Seat | int, call, auction, model: CallModel) -> "WorldPosterior":
        """``seat`` made ``call`` after ``auction``: weight each world by ``model(hand, auction, call)``."""
        s = int(seat)

        def lik(masks: np.ndarray) -> np.ndarray:
            return np.array([model(Hand(int(m)), auction, call) for m in masks[:, s]], dtype=float)

        return self.observe(Observation(f"{Seat(s).letter} calling {call}", lik))

    # --- keeping the sample healthy ------------------------------------------------------------------------------
    def resample(self, rng: "random.Random | np.random.Generator | int") -> "WorldPosterior":
        """Systematic resampling to equal weights (duplicates the heavy worlds, drops the light ones)."""
        gen = numpy_rng(rng)
        n = len(self)
        cum = np.cumsum(self.weights)
        cum[-1] = 1.0
        u = (gen.random() + np.arange(n)) / n
        idx = np.searchsorted(cum, u, side="right")
        return WorldPosterior(self.masks[idx], np.zeros(n), self.history)

    def redeal(
        self, sampler: WorldSampler, n: int, rng: "random.Random | np.random.Generator | int"
    ) -> "WorldPosterior":
        """Fresh worlds from ``sampler`` (built with the current hard facts), weighted by replaying all the soft
        evidence seen so far on them."""
        worlds = sampler.sample(n, rng)
        post = WorldPosterior.uniform(worlds)
        lw = np.zeros(len(post))
        for obs in self.history:
            with np.errstate(divide="ignore"):
                lw = lw + np.log(np.asarray(obs.likelihoods(post.masks), dtype=float))
        if not np.isfinite(lw).any():
            raise InferenceError("none of the re-dealt worlds is consistent with the evidence")
        return WorldPosterior(post.masks, lw, self.history)

    def refresh(
        self,
        rng: "random.Random | np.random.Generator | int",
        *,
        threshold: float = 0.5,
        sampler: WorldSampler | None = None,
        n: int | None = None,
    ) -> "WorldPosterior":
        """When the ESS is below ``threshold * n``: re-deal from ``sampler`` if given, else resample; else self."""
        if self.ess >= threshold * len(self):
            return self
        if sampler is not None:
            return self.redeal(sampler, n or len(self), rng)
        return self.resample(rng)
