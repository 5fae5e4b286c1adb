"""Weighted Perfect-Information Monte Carlo (PIMC) card selection.

Every sampled world is solved double-dummy once (one ``solve_cards`` per world gives the value of every legal
card), and each candidate card is scored over the worlds with their weights: the weighted probability that the
mover's side reaches its goal (the declaring side makes, the defence defeats) and the weighted mean of its tricks.
``objective`` chooses which of the two ranks first; the other breaks ties. Equivalent cards are collapsed before
scoring and a forced card (one legal class) is returned without solving anything.

``imps`` ranks first by the IMPs a card is expected to cost against the double-dummy best card of each world: the
contract's score after each card's tricks (``scores``: the declaring side's score by the tricks it takes from
here) against the best card's, in IMPs, averaged over the worlds. It weighs what ``make`` and ``tricks`` each
leave out: an overtrick in a part score against the undertrick that beats a game, as a team match scores them.

With a ``deadline`` the worlds are solved heaviest first and solving stops there: the card is chosen over the
worlds solved by then (``cut_short``), or ``DeadlineReached`` is raised if not even one was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, Sequence

from ..cards import BridgeError, Card
from ..scoring import imps as imps_of
from ..deadline import DeadlineReached
from .oracle import DDOracle, solve_cards_by
from .position import Root, iter_bits

__all__ = ["CardScore", "PimcResult", "pimc_choose", "Objective", "dd_table"]

Objective = Literal["make", "tricks", "imps"]


@dataclass(frozen=True)
class CardScore:
    card: Card
    goal: float  # weighted probability that the mover's side reaches its goal (make / defeat)
    tricks: float  # weighted mean of the mover's side's tricks from here (current trick included)
    imps: float | None = None  # weighted mean IMPs against each world's best card (objective "imps"), <= 0


@dataclass(frozen=True)
class PimcResult:
    card: Card
    scores: tuple[CardScore, ...]  # one per candidate class, best first
    worlds: int  # the worlds scored (fewer than given when the deadline stopped the solving)
    forced: bool
    cut_short: bool = False  # the deadline stopped the solving before every world was solved

    @property
    def best(self) -> CardScore | None:
        return self.scores[0] if self.scores else None


def dd_table(root: Root, oracle: DDOracle, worlds: list[int] | None = None,
             deadline: float | None = None) -> list[dict[int, int]]:
    """Double-dummy tricks for every legal card of the mover, in each listed world (all worlds by default); with a
    ``deadline``, for the worlds solved by then (the first ones listed)."""
    idx = range(len(root.worlds)) if worlds is None else worlds
    return solve_cards_by(oracle, [root.position(i) for i in idx], deadline)


def goal_reached(root: Root, tricks: int) -> bool:
    """Does the mover's side reach its goal when it takes ``tricks`` of the remaining tricks?"""
    if root.mover_is_declarer_side:
        return tricks >= root.target
    return tricks > root.tricks_left - root.target


def score_cards(root: Root, table: list[dict[int, int]], cards: list[int],
                scores: Sequence[int] | None = None) -> list[CardScore]:
    """Each card over the solved worlds (``table[i]``: the mover's side's tricks by card in world ``i``); with
    ``scores`` also its IMPs against each world's best card (module doc)."""
    total = sum(root.weights)
    out = []
    for c in cards:
        goal = tr = 0.0
        for w, res in zip(root.weights, table):
            if w <= 0:
                continue
            try:
                t = res[c]
            except KeyError:
                raise BridgeError(f"the solver gave no value for {Card.from_index(c)}") from None
            tr += w * t
            if goal_reached(root, t):
                goal += w
        out.append(CardScore(Card.from_index(c), goal / total, tr / total))
    if scores is None:
        return out
    left = root.tricks_left
    if len(scores) != left + 1:
        raise BridgeError(f"{len(scores)} scores for {left} tricks left (one per count of tricks, 0 included)")
    sign = 1 if root.mover_is_declarer_side else -1
    loss = [0.0] * len(cards)
    for w, res in zip(root.weights, table):
        if w <= 0:
            continue
        # the mover's side's score after each card (the declaring side takes the mover's tricks or the rest)
        got = [sign * scores[res[c] if sign > 0 else left - res[c]] for c in cards]
        best = max(got)
        for j, v in enumerate(got):
            loss[j] += w * imps_of(v - best)
    return [replace(s, imps=x / total) for s, x in zip(out, loss)]


def rank_key(score: CardScore, objective: Objective) -> tuple[float, ...]:
    # Round so that float noise from different summation orders cannot split true ties.
    g, t = round(score.goal, 12), round(score.tricks, 12)
    if objective == "imps":
        return (round(score.imps or 0.0, 12), g, t)
    return (g, t) if objective == "make" else (t, g)


def pimc_choose(root: Root, oracle: DDOracle, objective: Objective = "make",
                deadline: float | None = None, scores: Sequence[int] | None = None) -> PimcResult:
    """Best card by PIMC over ``root``'s worlds and weights (over those solved by ``deadline``, if given).
    ``scores`` (objective ``imps``, which needs them): the declaring side's score by the number of the remaining
    tricks it takes, 0 to all of them."""
    if objective not in ("make", "tricks", "imps"):
        raise BridgeError(f"unknown PIMC objective {objective!r} (use 'make', 'tricks' or 'imps')")
    if objective == "imps" and scores is None:
        raise BridgeError("the 'imps' objective needs the contract's scores by tricks")
    cands = list(iter_bits(root.candidates()))
    if not cands:
        raise BridgeError("no legal card to play")
    if len(cands) == 1:
        return PimcResult(Card.from_index(cands[0]), (), len(root.worlds), True)
    live = [i for i, w in enumerate(root.weights) if w > 0]
    if deadline is not None:
        # Heaviest first (a stable sort: equal weights keep their order), so the worlds a deadline leaves unsolved
        # are the ones that would have counted least.
        live.sort(key=lambda i: -root.weights[i])
    table = dd_table(root, oracle, live, deadline)
    if live and not table:
        raise DeadlineReached("PIMC: no world solved before the deadline")
    cut_short = len(table) < len(live)
    live = live[: len(table)]
    sub = Root(root.trump, root.leader, root.trick, tuple(root.worlds[i] for i in live),
               tuple(root.weights[i] for i in live), root.declarer, root.target)
    ranked = score_cards(sub, table, cands, scores if objective == "imps" else None)
    # Stable sort: among exact ties the candidate order (low cards first) decides, so the choice is deterministic.
    ranked.sort(key=lambda s: rank_key(s, objective), reverse=True)
    return PimcResult(ranked[0].card, tuple(ranked), len(live), False, cut_short)
