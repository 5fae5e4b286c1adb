"""``CardPlayer``: chooses a card for whoever is to play, with a selector and a budget picked by role.

- The declaring side (declarer's own cards and dummy's, both chosen by declarer from declarer's view) uses αμ with
  iterative deepening under a time budget (or PIMC when configured); defenders use weighted PIMC.
- Worlds come from ``engine.sampling.WorldSampler``: cards the viewer sees (own hand, dummy once it is down, every
  card played and by whom) are fixed, show-outs become ``shown_out`` constraints, and the auction's constraints
  (``constraints``, per seat, on original hands) are applied exactly.
- Weights come from ``engine.inference.WorldPosterior``: every card played from a hidden hand is soft evidence
  under a double-dummy player model; the posterior is kept between decisions of one deal and re-dealt from the
  sampler when its effective sample size falls (``inference=False`` gives uniform worlds, the αμ paper's setting).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Iterator, Literal, Mapping

import numpy as np
import structlog

from ..board import Play, legal_mask
from ..cards import ALL_CARDS, BridgeError, Card, Seat
from ..dds_limits import DEFAULT_TT_MIB, MAX_TT_MIB
from ..sampling import SamplingError, SeatConstraints, WorldSampler
from ..view import SeatView
from .inference import CardModel, DoubleDummyPlayer, PlayContext, WorldPosterior
from .alphamu import AlphaMuOptions, alphamu_choose
from .oracle import DDOracle, default_oracle
from .pimc import pimc_choose
from .position import Root, equivalence_reps

__all__ = ["PlaySettings", "PlayDecision", "CardPlayer", "play_out"]

Selector = Literal["alphamu", "pimc"]
_log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class PlaySettings:
    """The card player's parameters. Their defaults are Squeeze's engine defaults: the configuration layer
    (``squeeze.config.settings``) takes its own defaults from these fields, so each is written here only."""

    declarer_selector: Selector = "alphamu"
    worlds: int = 20  # worlds sampled per decision, for both roles unless the role's own number below is given
    worlds_declarer: int | None = None  # None: ``worlds``
    worlds_defender: int | None = None  # None: ``worlds``
    max_m: int = 3
    declarer_budget_s: float = 2.0  # per card, for αμ iterations beyond the first (M = 1 always completes)
    objective: Literal["make", "tricks"] = "make"
    inference: bool = True
    ess_threshold: float = 0.5  # re-deal when the effective sample size falls below this share of the worlds
    # αμ speed-ups (on by default; switchable to measure what each buys, as in the paper's Table 2).
    tt: bool = True
    root_cut: bool = True
    early_cut: bool = True  # also switches our extra in-loop Min cut (pitfall 6), the same kind of α cut
    solver_tt_mib: int = DEFAULT_TT_MIB  # the double-dummy solver's transposition table, when the player builds one

    def __post_init__(self) -> None:
        if self.declarer_selector not in ("alphamu", "pimc"):
            raise BridgeError(f"unknown declarer selector {self.declarer_selector!r} (use 'alphamu' or 'pimc')")
        if min(self.worlds_for(True), self.worlds_for(False)) < 1:
            raise BridgeError("the number of worlds must be >= 1")
        if not 1 <= self.solver_tt_mib <= MAX_TT_MIB:
            raise BridgeError(f"solver_tt_mib must be 1..{MAX_TT_MIB}, got {self.solver_tt_mib}")
        if self.max_m < 1:
            raise BridgeError(f"max_m must be >= 1, got {self.max_m}")
        if self.objective not in ("make", "tricks"):
            raise BridgeError(f"unknown objective {self.objective!r} (use 'make' or 'tricks')")

    def worlds_for(self, declaring: bool) -> int:
        """Worlds sampled for a decision of the declaring side (``declaring``) or of a defender."""
        own = self.worlds_declarer if declaring else self.worlds_defender
        return self.worlds if own is None else own


@dataclass(frozen=True)
class PlayDecision:
    card: Card
    reason: str
    seat: Seat  # the seat whose card this is (dummy's card is chosen by declarer)
    selector: str  # "forced", "pimc" or "alphamu"
    worlds: int = 0
    goal: float | None = None  # probability of the mover's side reaching its goal (make / defeat)
    m: int = 0
    pimc_card: Card | None = None  # what M = 1 would have played (αμ only)
    seconds: float = 0.0


@dataclass
class _Belief:
    key: tuple
    cards: tuple[Card, ...]
    posterior: object  # engine.inference.WorldPosterior


class CardPlayer:
    """Picks a card for the player to move in a ``Play`` (see module doc). One instance may serve all four seats."""

    def __init__(
        self,
        settings: PlaySettings = PlaySettings(),
        *,
        oracle: DDOracle | None = None,
        constraints: Mapping[Seat, SeatConstraints] | None = None,
        card_model: CardModel | None = None,
    ) -> None:
        self.settings = settings
        self.oracle = oracle if oracle is not None else default_oracle(settings.solver_tt_mib)
        self.constraints = dict(constraints or {})
        self._card_model = card_model
        self._beliefs: dict[Seat, _Belief] = {}

    # -- worlds and weights ----------------------------------------------------------------------------------------
    def _sampler(self, view: SeatView) -> WorldSampler:
        known, cons = view.known_cards(), view.constraints(self.constraints)
        try:
            return WorldSampler(known, cons)
        except SamplingError as exc:
            # The auction's constraints are soft knowledge (a player may misbid, a sampler may be too strict):
            # keep the hard facts (cards seen, show-outs) and drop the rest rather than fail to play a card.
            _log.warning("play.sampling_relaxed", viewer=view.seat.letter, cards=len(view.cards), error=str(exc))
            hard = [SeatConstraints(not_held=c.not_held) for c in cons]
            return WorldSampler(known, hard)

    def _sample(self, view: SeatView, n: int, rng: random.Random) -> np.ndarray:
        return self._sampler(view).sample(n, rng.getrandbits(63)).masks

    def _model(self) -> CardModel:
        if self._card_model is None:
            self._card_model = DoubleDummyPlayer(oracle=self.oracle)
        return self._card_model

    def worlds_and_weights(self, view: SeatView, n: int, rng: random.Random):
        """Original-hand masks ``(k, 4)`` and normalised weights for the seat of ``view`` now."""
        if not self.settings.inference:
            masks = self._sample(view, n, rng)
            return masks, np.full(len(masks), 1.0 / max(1, len(masks)))
        viewer, play = view.seat, view.play
        assert play is not None  # choose() checked
        key = (view.hand.bits, play.contract.pbn, int(play.declarer))
        belief = self._beliefs.get(viewer)
        if belief is None or belief.key != key or play.cards[: len(belief.cards)] != belief.cards:
            belief = _Belief(key, (), WorldPosterior.uniform(self._sample(view, n, rng)))
            seen = 0
        else:
            seen = len(belief.cards)
        post = belief.posterior
        # Replay the cards played since the last decision: hidden hands' cards are evidence about the layout.
        prefix = play.prefix(seen)
        for k, card in enumerate(play.cards[seen:], start=seen):
            seat = prefix.next_seat
            # Evidence: a card from a hand the viewer cannot see, after the opening lead (an opening lead is made
            # without seeing dummy, so a double-dummy model of it would mislead).
            if prefix.cards and seat != viewer and seat != play.dummy:
                try:
                    post = post.observe_card(seat, card, PlayContext.from_play(prefix), self._model())
                except BridgeError:
                    # No sampled world explains the card: re-deal from the new hard facts.
                    post = WorldPosterior.uniform(self._sample(view.prefix(k + 1), n, rng))
            prefix = prefix.then(card)
        if post.ess < self.settings.ess_threshold * len(post):
            try:
                post = post.redeal(self._sampler(view), n, rng.getrandbits(63))
            except BridgeError:
                post = WorldPosterior.uniform(self._sample(view, n, rng))
        self._beliefs[viewer] = _Belief(key, play.cards, post)
        return post.masks, post.weights

    # -- the decision ----------------------------------------------------------------------------------------------
    def choose(self, view: SeatView | Play, rng: random.Random | int | None = None) -> PlayDecision:
        """The next card, chosen from what the deciding seat knows. ``view`` is that seat's ``SeatView``; a whole
        ``Play`` (self-play, a play problem) is read through the decider's view of it, so the hidden hands are
        never seen. Raises ``BridgeError`` when the play is over or ``view``'s seat does not decide the card."""
        t0 = time.monotonic()
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        if isinstance(view, Play):
            if view.is_complete:
                raise BridgeError("the play is over: no card to choose")
            mover = view.next_seat
            view = SeatView.from_play(view, view.declarer if mover in (view.declarer, view.dummy) else mover)
        play = view.play
        if play is None:
            raise BridgeError("no contract: the auction is not over or was passed out")
        if play.is_complete:
            raise BridgeError("the play is over: no card to choose")
        mover, decider = play.next_seat, view.decider
        if view.seat != decider:
            raise BridgeError(f"{decider.name.title()} chooses {mover.name.title()}'s card now, not "
                              f"{view.seat.name.title()}")
        if play.cards and view.dummy is None and view.seat != play.dummy:
            raise BridgeError("the opening lead has been made: dummy's hand is needed")
        declaring = mover in (play.declarer, play.dummy)
        # Forced, or every legal card equivalent: no search (public information suffices).
        hand = view.remaining(mover).bits  # the mover's hand is known to the decider (own, or dummy's)
        trick = play.trick_indices
        alive = ALL_CARDS & ~play.played  # public: every card not yet played, the current trick's put back below
        for c in trick:
            alive |= 1 << c
        legal = legal_mask(hand, trick)
        reps = equivalence_reps(legal, hand, alive, top=not trick)
        if reps.bit_count() == 1:
            card = Card.from_index(reps.bit_length() - 1)
            why = "forced" if legal.bit_count() == 1 else "equal cards"
            return PlayDecision(card, why, mover, "forced", seconds=time.monotonic() - t0)
        n = self.settings.worlds_for(declaring)
        masks, weights = self.worlds_and_weights(view, n, rng)
        keep = [i for i, w in enumerate(weights) if w > 0]  # zero weight: contradicted by a card seen since
        masks, weights = masks[keep], weights[keep]
        played = play.played
        worlds = tuple(tuple(int(b) & ~played for b in row) for row in masks)
        need = play.contract.tricks_needed - play.declarer_tricks
        tricks_left = 13 - len(play.tricks)
        target = max(0, min(need, tricks_left + 1))
        root = Root(int(play.trump), int(play.leader), trick, worlds, tuple(float(w) for w in weights),  # type: ignore[arg-type]
                    int(play.declarer), target)
        if declaring and self.settings.declarer_selector == "alphamu":
            st = self.settings
            opts = AlphaMuOptions(max_m=st.max_m, budget_s=st.declarer_budget_s, tt=st.tt, root_cut=st.root_cut,
                                  early_cut=st.early_cut, min_cut=st.early_cut)
            r = alphamu_choose(root, self.oracle, opts)
            reason = f"αμ M={r.m}, {r.worlds} worlds: {r.mu:.0%} to make"
            return PlayDecision(r.card, reason, mover, "alphamu", r.worlds, r.mu, r.m, r.pimc_card,
                                time.monotonic() - t0)
        r = pimc_choose(root, self.oracle, self.settings.objective)
        goal = "make" if declaring else "defeat"
        b = r.best
        reason = f"PIMC, {r.worlds} worlds: {b.goal:.0%} to {goal}, {b.tricks:.1f} tricks" if b else "forced"
        return PlayDecision(r.card, reason, mover, "pimc", r.worlds, b.goal if b else None, 1, r.card,
                            time.monotonic() - t0)


def play_out(play: Play, player: CardPlayer,
             rng: random.Random | int | None = None) -> Iterator[tuple[Play, PlayDecision]]:
    """Play ``play`` to its last card, ``player`` choosing every card from the mover's own view (one CardPlayer
    serves all four seats: it keeps a separate belief per viewer). Yields the play after each card with the decision
    that chose it, so a caller can show or record the cards as they come."""
    rng = rng if isinstance(rng, random.Random) else random.Random(rng)
    while not play.is_complete:
        decision = player.choose(play, rng)
        play = play.then(decision.card)
        yield play, decision
