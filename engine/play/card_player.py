"""``CardPlayer``: chooses a card for whoever is to play, with a selector and a budget picked by role.

- The declaring side (declarer's own cards and dummy's, both chosen by declarer from declarer's view) uses αμ with
  iterative deepening under a time budget (or PIMC when configured); defenders use weighted PIMC.
- Worlds come from ``engine.sampling.WorldSampler``: cards the viewer sees (own hand, dummy once it is down, every
  card played and by whom) are fixed, show-outs become ``shown_out`` constraints, and the auction's constraints
  (``constraints``, per seat, on original hands) are applied exactly, or relaxed when no deal meets them
  (``engine.play.relax``: opponents' calls first, then partner's; the hard facts never).
- Weights come from ``engine.inference.WorldPosterior``: every card played from a hidden hand is soft evidence
  under a double-dummy player model; the posterior is kept between decisions of one deal and re-dealt from the
  sampler when its effective sample size falls (``inference=False`` gives uniform worlds, the αμ paper's setting).
- A decision may be given a deadline (absolute ``time.monotonic()``). The stages share the time left: sampling may
  use ``SAMPLING_SHARE`` of it, the evidence of the cards played ``EVIDENCE_SHARE`` of what is then left (past it,
  a card only rules out the worlds where it could not be played), and the search the rest, solving worlds until the
  deadline. The card is the best found by then (``PlayDecision.cut_short``); with no world solved, a simple legal
  card (``fallback_card``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Iterator, Literal, Mapping

import numpy as np

from ..board import SUIT_MASKS, Play, legal_mask
from ..cards import ALL_CARDS, BridgeError, Card, Seat
from ..dds_limits import DEFAULT_TT_MIB, MAX_TT_MIB
from ..deadline import DeadlineReached, expired, slice_of
from ..sampling import SeatConstraints
from ..scoring import score
from ..view import SeatView
from .alphamu import AlphaMuOptions, alphamu_choose
from .inference import CardModel, DoubleDummyPlayer, PlayContext, RandomPlayer, WorldPosterior
from .oracle import DDOracle, default_oracle, until
from .pimc import pimc_choose
from .position import Root, equivalence_reps
from .relax import Relaxation, RelaxingSampler

__all__ = ["PlaySettings", "PlayDecision", "CardPlayer", "play_out", "fallback_card", "forced_reason", "search_reason",
           "SAMPLING_SHARE", "EVIDENCE_SHARE"]

Selector = Literal["alphamu", "pimc"]

#: Under a deadline: the share of the time left that dealing worlds may use (relaxation included) ...
SAMPLING_SHARE = 0.4
#: ... and the share of what is then left for weighing the cards played with the double-dummy player model.
EVIDENCE_SHARE = 0.3
#: The search stops this long before the deadline, to build the decision and return it in time.
_RESERVE_S = 0.002


@dataclass(frozen=True)
class PlaySettings:
    """The card player's parameters. Their defaults are Squeeze's engine defaults: the configuration layer
    (``squeeze.config.settings``) takes its own defaults from these fields, so each is written here only."""

    # PIMC: self-play found no gain from αμ at declarer (-0.03 IMP/board, se 0.11, a sequential test decided at 311
    # boards, bench/RESULTS.md) for 2-7 times the time per searched move; the strong preset keeps αμ.
    declarer_selector: Selector = "pimc"
    worlds: int = 20  # worlds sampled per decision, for both roles unless the role's own number below is given
    worlds_declarer: int | None = None  # None: ``worlds``
    worlds_defender: int | None = None  # None: ``worlds``
    max_m: int = 3
    declarer_budget_s: float = 2.0  # per card, for αμ iterations beyond the first (M = 1 completes unless the
    # decision's deadline, which bounds this budget too, stops it)
    # PIMC's ranking (the defenders', and declarer's with the "pimc" selector): "make" (the chance to reach the
    # side's goal, then tricks), "tricks" (the other way round), "imps" (the IMPs each card costs against each
    # world's best card, by the contract's score: ``pimc`` module doc)
    objective: Literal["make", "tricks", "imps"] = "imps"  # bench/RESULTS.md, leads and card replays
    # Uniform worlds: the Bayesian card-location weights (``inference``) gained +0.05 IMP/board (se 0.08) in
    # self-play and a sequential test decided against a 0.25 gain at 1,717 boards, while they cost 18 % more think
    # time per card (355 ms against 300; bench/RESULTS.md): the default does not pay for them.
    inference: bool = False
    ess_threshold: float = 0.5  # re-deal when the effective sample size falls below this share of the worlds
    # αμ speed-ups (on by default; switchable to measure what each buys, as in the paper's Table 2).
    tt: bool = True
    root_cut: bool = True
    early_cut: bool = True  # also switches our extra in-loop Min cut (pitfall 6), the same kind of α cut
    solver_tt_mib: int = DEFAULT_TT_MIB  # the double-dummy solver's transposition table, when the player builds one
    # Which build of the double-dummy search the process runs ("auto": the x86-64-v3 one where the CPU has it,
    # "portable": the build for any x86-64), set when the player builds a solver. Both give the same answers.
    solver_core: Literal["auto", "portable"] = "auto"

    def __post_init__(self) -> None:
        if self.declarer_selector not in ("alphamu", "pimc"):
            raise BridgeError(f"unknown declarer selector {self.declarer_selector!r} (use 'alphamu' or 'pimc')")
        if min(self.worlds_for(True), self.worlds_for(False)) < 1:
            raise BridgeError("the number of worlds must be >= 1")
        if not 1 <= self.solver_tt_mib <= MAX_TT_MIB:
            raise BridgeError(f"solver_tt_mib must be 1..{MAX_TT_MIB}, got {self.solver_tt_mib}")
        if self.max_m < 1:
            raise BridgeError(f"max_m must be >= 1, got {self.max_m}")
        if self.objective not in ("make", "tricks", "imps"):
            raise BridgeError(f"unknown objective {self.objective!r} (use 'make', 'tricks' or 'imps')")
        if self.solver_core not in ("auto", "portable"):
            raise BridgeError(f"unknown solver core {self.solver_core!r} (use 'auto' or 'portable')")

    def worlds_for(self, declaring: bool) -> int:
        """Worlds sampled for a decision of the declaring side (``declaring``) or of a defender."""
        own = self.worlds_declarer if declaring else self.worlds_defender
        return self.worlds if own is None else own


@dataclass(frozen=True)
class PlayDecision:
    card: Card
    reason: str
    seat: Seat  # the seat whose card this is (dummy's card is chosen by declarer)
    selector: str  # "forced", "pimc", "alphamu" or "fallback" (no time for a search: ``fallback_card``)
    worlds: int = 0
    goal: float | None = None  # probability of the mover's side reaching its goal (make / defeat)
    m: int = 0
    pimc_card: Card | None = None  # what M = 1 would have played (αμ only)
    seconds: float = 0.0
    cut_short: bool = False  # the deadline stopped a stage before it finished (the reason says so)
    relaxations: tuple[Relaxation, ...] = ()  # the rungs of the relaxation ladder given up for this decision
    tricks: float | None = None  # the mover's side's mean tricks from here (current trick included), by the search


@dataclass
class _Belief:
    key: tuple
    cards: tuple[Card, ...]
    posterior: object  # engine.inference.WorldPosterior
    relaxed: str = ""  # what the relaxation ladder dropped to deal its worlds


@dataclass
class _Worlds:
    """One decision's worlds and weights, and how they were come by (for the decision's reason)."""

    masks: np.ndarray
    weights: np.ndarray
    relaxed: str = ""
    cut_short: bool = False
    relaxations: list[Relaxation] = field(default_factory=list)  # rungs given up while dealing them


def fallback_card(hand: int, trick: tuple[int, ...]) -> tuple[Card, str]:
    """A legal card chosen without search, for when there is no time for one: the lowest card of the suit led when
    following, else the lowest card of the longest suit (gives away the least at once, keeps the short suits'
    honours); ties go to the lower suit."""
    legal = legal_mask(hand, trick)
    if trick and legal & SUIT_MASKS[trick[0] // 13]:
        low = legal & -legal
        return Card.from_index(low.bit_length() - 1), "No time left to think: the lowest card of the suit led"
    longest = max((legal & m for m in SUIT_MASKS), key=int.bit_count)
    low = longest & -longest
    return Card.from_index(low.bit_length() - 1), "No time left to think: the lowest card of the longest suit"


# --- reasons, in a bridge player's words ---------------------------------------------------------------------------
# One wording per kind of decision; the figures stay in the text and in ``PlayDecision``'s fields (worlds, goal, m,
# tricks) for logs. A sampled world is a "layout" (of the unseen cards); αμ's M, the declaring side's cards it plans
# as one line in every layout at once, is how many "of our cards" it looks ahead.


def forced_reason(card: Card, legal: int, trick: tuple[int, ...], trump: int) -> str:
    """A card played without a search: the only legal card, or one of legal cards that are all equal."""
    if legal.bit_count() == 1:
        return "Only card"
    if not trick:
        return "Cards of equal value: leads the top one"
    if card.suit == trick[0] // 13:
        return "Cards of equal value: follows suit with the lowest"
    if int(card.suit) == trump:
        return "Cards of equal value: ruffs with the lowest"
    return "Cards of equal value: discards the lowest"


def search_reason(*, declaring: bool, objective: str, worlds: int, goal: float | None, tricks: float | None,
                  tricks_left: int, ahead: int = 1, opening_lead: bool = False, imps: float | None = None) -> str:
    """A card chosen by looking at ``worlds`` layouts: the chance that the mover's side reaches its goal
    (``goal``: make, or beat, the contract), its mean ``tricks`` of the ``tricks_left``, for the declaring
    side's deeper search how many of its cards it looked ``ahead``, and with the ``imps`` objective what the card
    costs in IMPs against the best card of each layout."""
    aim = "make the contract" if declaring else "beat the contract"
    layouts = f"{worlds} layout{'' if worlds == 1 else 's'} looked at"
    on_average = "" if tricks is None else f"{tricks:.1f} of the {tricks_left} tricks left on average"
    if objective == "imps" and imps is not None:
        head = "Costs the fewest IMPs"
        text = (f"{-imps:.2f} IMPs on average against the best card of each of {layouts}"
                + (f"; {_percent(goal)} to {aim}" if goal is not None else "")
                + (f", {on_average}" if on_average else ""))
    elif goal is None or objective == "tricks":
        head = "Most tricks on average"
        text = f"{tricks or 0:.1f} of the {tricks_left} left in {layouts}"
        if goal is not None:
            text += f"; {_percent(goal)} to {aim}"
    elif goal >= 0.9995:  # every card this good is tied on the goal: the tricks chose
        every = "the one layout looked at" if worlds == 1 else f"all {layouts}"
        head = f"{'Makes' if declaring else 'Beats'} the contract in {every}"
        text = "the most tricks then" + (f", {on_average}" if on_average else "")
    elif goal <= 0.0005:
        some = "the one layout looked at" if worlds == 1 else f"any of the {layouts}"
        head = f"No card {'makes' if declaring else 'beats'} the contract in {some}"
        text = "the most tricks instead" + (f", {on_average}" if on_average else "")
    else:
        head = f"Best chance to {aim}"
        text = f"{'makes' if declaring else 'beats it'} in {_percent(goal)} of {layouts}"
    if ahead > 1:
        text += f" (looking {ahead} of our cards ahead)"
    return (f"Opening lead - {head[0].lower()}{head[1:]}" if opening_lead else head) + ": " + text


def _percent(p: float) -> str:
    return f"{round(100 * p)} %"


def _notes(cut_short: bool, relaxed: str) -> str:
    """What a reason adds when the deadline cut the decision short or the auction's constraints were relaxed
    (``relax.Rung.dropped``: what the layouts had to leave out)."""
    aside = _SET_ASIDE.get(relaxed, relaxed)
    return ((" (cut short: the time ran out)" if cut_short else "")
            + (f" (layouts found only with {aside} set aside)" if relaxed else ""))


_SET_ASIDE = {"exact call tests": "the finer points of the bidding", "opponents' bidding": "the opponents' bidding",
              "opponents' and partner's bidding": "the opponents' and partner's bidding"}


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
        self.oracle = oracle if oracle is not None else default_oracle(settings.solver_tt_mib, settings.solver_core)
        self.constraints = dict(constraints or {})
        self._card_model = card_model
        self._beliefs: dict[Seat, _Belief] = {}
        self._start: dict[Seat, tuple[tuple, int]] = {}  # per viewer: (board key, first rung not refuted)

    # -- worlds and weights ----------------------------------------------------------------------------------------
    def _source(self, view: SeatView, deadline: float | None) -> RelaxingSampler:
        """The relaxation ladder for ``view``, starting past the rungs already refuted on this board; its
        sampling stage may use ``SAMPLING_SHARE`` of the time left."""
        key, start = self._start.get(view.seat, (None, 0))
        board = self._board_key(view)
        return RelaxingSampler(view, self.constraints, deadline=slice_of(deadline, SAMPLING_SHARE),
                               start=start if key == board else 0)

    def _sample(self, view: SeatView, n: int, rng: random.Random, deadline: float | None,
                got: _Worlds) -> np.ndarray:
        source = self._source(view, deadline)
        try:
            masks = source.sample(n, rng.getrandbits(63)).masks
        finally:
            got.relaxations.extend(source.relaxations)
        self._note(view, source, got)
        return masks

    def _note(self, view: SeatView, source: RelaxingSampler, got: _Worlds) -> None:
        self._start[view.seat] = (self._board_key(view), source.start)
        got.relaxed = source.relaxed
        got.cut_short |= source.short

    @staticmethod
    def _board_key(view: SeatView) -> tuple:
        play = view.play
        assert play is not None  # choose() checked
        return (view.hand.bits, play.contract.pbn, int(play.declarer))

    def _model(self) -> CardModel:
        if self._card_model is None:
            self._card_model = DoubleDummyPlayer(oracle=self.oracle)
        return self._card_model

    def _observe(self, post: WorldPosterior, seat: Seat, card: Card, ctx: PlayContext,
                 deadline: float | None, got: _Worlds) -> WorldPosterior:
        """``post`` after ``seat`` played ``card``: weighed by the player model while ``deadline`` allows, else
        (``got.cut_short``) only the worlds where the card could not be played are ruled out."""
        if not expired(deadline):
            try:
                with until(self.oracle, deadline):
                    return post.observe_card(seat, card, ctx, self._model())
            except DeadlineReached:
                pass
        got.cut_short = True
        return post.observe_card(seat, card, ctx, RandomPlayer())

    def worlds_and_weights(self, view: SeatView, n: int, rng: random.Random, deadline: float | None = None):
        """Original-hand masks ``(k, 4)`` and normalised weights for the seat of ``view`` now (see ``choose`` for
        ``deadline``)."""
        got = self._worlds(view, n, rng, deadline, _new_worlds())
        return got.masks, got.weights

    def _worlds(self, view: SeatView, n: int, rng: random.Random, deadline: float | None, got: _Worlds) -> _Worlds:
        if not self.settings.inference:
            got.masks = self._sample(view, n, rng, deadline, got)
            got.weights = np.full(len(got.masks), 1.0 / max(1, len(got.masks)))
            return got
        viewer, play = view.seat, view.play
        assert play is not None  # choose() checked
        key = self._board_key(view)
        belief = self._beliefs.get(viewer)
        if belief is None or belief.key != key or play.cards[: len(belief.cards)] != belief.cards:
            belief = _Belief(key, (), WorldPosterior.uniform(self._sample(view, n, rng, deadline, got)), got.relaxed)
            seen = 0
        else:
            seen = len(belief.cards)
        got.relaxed = belief.relaxed
        post = belief.posterior
        weigh_by = slice_of(deadline, EVIDENCE_SHARE)
        # Replay the cards played since the last decision: hidden hands' cards are evidence about the layout.
        prefix = play.prefix(seen)
        for k, card in enumerate(play.cards[seen:], start=seen):
            seat = prefix.next_seat
            # Evidence: a card from a hand the viewer cannot see, after the opening lead (an opening lead is made
            # without seeing dummy, so a double-dummy model of it would mislead).
            if prefix.cards and seat != viewer and seat != play.dummy:
                try:
                    post = self._observe(post, seat, card, PlayContext.from_play(prefix), weigh_by, got)
                except BridgeError:
                    # No sampled world explains the card: re-deal from the new hard facts.
                    post = WorldPosterior.uniform(self._sample(view.prefix(k + 1), n, rng, deadline, got))
            prefix = prefix.then(card)
        if post.ess < self.settings.ess_threshold * len(post):
            try:
                source = self._source(view, deadline)
                try:
                    with until(self.oracle, weigh_by):
                        post = post.redeal(source, n, rng.getrandbits(63))
                finally:
                    got.relaxations.extend(source.relaxations)
                self._note(view, source, got)
            except DeadlineReached:
                got.cut_short = True  # no time to re-deal and replay the evidence: keep the worlds we have
            except BridgeError:
                post = WorldPosterior.uniform(self._sample(view, n, rng, deadline, got))
        self._beliefs[viewer] = _Belief(key, play.cards, post, got.relaxed)
        got.masks, got.weights = post.masks, post.weights
        return got

    # -- the decision ----------------------------------------------------------------------------------------------
    def choose(self, view: SeatView | Play, rng: random.Random | int | None = None,
               deadline: float | None = None) -> PlayDecision:
        """The next card, chosen from what the deciding seat knows. ``view`` is that seat's ``SeatView``; a whole
        ``Play`` (self-play, a play problem) is read through the decider's view of it, so the hidden hands are
        never seen. Raises ``BridgeError`` when the play is over or ``view``'s seat does not decide the card.

        ``deadline`` (absolute, ``time.monotonic()``): every stage stops by it (see module doc) and the card is the
        best found by then, ``cut_short`` saying so; ``None``: no limit beyond the settings' αμ budget."""
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
            raise BridgeError(f"{decider.title} chooses {mover.title}'s card now, not "
                              f"{view.seat.title}")
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
            return PlayDecision(card, forced_reason(card, legal, trick, int(play.trump)), mover, "forced",
                                seconds=time.monotonic() - t0)

        got = _new_worlds()

        def fallback(relaxed: str = "") -> PlayDecision:
            card, why = fallback_card(hand, trick)
            return PlayDecision(card, why + _notes(True, relaxed), mover, "fallback", seconds=time.monotonic() - t0,
                                cut_short=True, relaxations=tuple(got.relaxations))

        if expired(deadline):
            return fallback()
        n = self.settings.worlds_for(declaring)
        try:
            self._worlds(view, n, rng, deadline, got)
        except DeadlineReached:
            return fallback()
        keep = [i for i, w in enumerate(got.weights) if w > 0]  # zero weight: contradicted by a card seen since
        masks, weights = got.masks[keep], got.weights[keep]
        played = play.played
        worlds = tuple(tuple(int(b) & ~played for b in row) for row in masks)
        need = play.contract.tricks_needed - play.declarer_tricks
        tricks_left = 13 - len(play.tricks)
        words = dict(declaring=declaring, tricks_left=tricks_left, opening_lead=not play.cards)
        target = max(0, min(need, tricks_left + 1))
        root = Root(int(play.trump), int(play.leader), trick, worlds, tuple(float(w) for w in weights),  # type: ignore[arg-type]
                    int(play.declarer), target)
        search_by = None if deadline is None else deadline - _RESERVE_S
        try:
            if declaring and self.settings.declarer_selector == "alphamu":
                st = self.settings
                opts = AlphaMuOptions(max_m=st.max_m, budget_s=st.declarer_budget_s, tt=st.tt, root_cut=st.root_cut,
                                      early_cut=st.early_cut, min_cut=st.early_cut)
                r = alphamu_choose(root, self.oracle, opts, search_by)
                cut = got.cut_short or r.cut_short
                tricks = next((v.tricks for v in r.values if v.card == r.card), None)
                reason = search_reason(objective="make", worlds=r.worlds, goal=r.mu, tricks=tricks, ahead=r.m,
                                       **words) + _notes(cut, got.relaxed)
                return PlayDecision(r.card, reason, mover, "alphamu", r.worlds, r.mu, r.m, r.pimc_card,
                                    time.monotonic() - t0, cut, tuple(got.relaxations), tricks)
            scores = None
            if self.settings.objective == "imps":  # the declaring side's score by its tricks from here
                vulnerable = view.vul.is_vulnerable(play.declarer)
                scores = [score(play.contract, play.declarer_tricks + k, vulnerable) for k in range(tricks_left + 1)]
            p = pimc_choose(root, self.oracle, self.settings.objective, search_by, scores)
        except DeadlineReached:
            return fallback(got.relaxed)
        b = p.best
        cut = got.cut_short or p.cut_short
        if b is None:  # one class of cards after all: nothing was scored
            reason = forced_reason(p.card, legal, trick, int(play.trump))
        else:
            reason = search_reason(objective=self.settings.objective, worlds=p.worlds, goal=b.goal, tricks=b.tricks,
                                   imps=b.imps, **words)
        return PlayDecision(p.card, reason + _notes(cut, got.relaxed), mover, "pimc", p.worlds,
                            b.goal if b else None, 1, p.card, time.monotonic() - t0, cut, tuple(got.relaxations),
                            b.tricks if b else None)


def _new_worlds() -> _Worlds:
    return _Worlds(np.zeros((0, 4), dtype=np.uint64), np.zeros(0))


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
