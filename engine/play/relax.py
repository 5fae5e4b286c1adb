"""The relaxation ladder: worlds for a seat's view even when the auction's picture of the hidden hands is wrong.

What the auction showed is soft knowledge: players misbid, robots at other tables follow other systems (or none),
and our reading of a call may be too strict. The hard facts of the view (cards seen, cards played and by whom,
show-outs: ``SeatView.known_cards`` and the show-out part of ``SeatView.constraints``) are never dropped. When the
constraints cannot be met — the sampler's cheap bounds refute them at once, or it cannot deal enough worlds within
its share of the time — the least trusted inferences go first, one rung at a time:

  0. every call's constraints;
  1. every call's ranges (HCP, suit lengths) without its exact test: the exact tests are checked hand by hand, and
     a rung may make only ``RUNG_CHECKS`` of them;
  2. without the opponents' calls (the side we know least about: another system, or none);
  3. without partner's calls either: the hard facts alone, which the real deal always meets.

A rung that would drop nothing is skipped. Constraints on a hand the viewer sees (its own, dummy's once it is down)
are left out from the start: they say nothing about a hidden card, and a misbid there would only make the sampler
refuse.

Every rung given up is kept as a ``Relaxation`` (``RelaxingSampler.relaxations``); decisions carry them out of the
engine, and whoever runs the engine logs them (``play.sampling_relaxed``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

from ..cards import Seat
from ..deadline import DeadlineReached, slice_of
from ..sampling import (UNCONSTRAINED, SamplingError, SamplingTimeout, SeatConstraints, WorldSampler, Worlds,
                        is_shape_predicate)
from ..view import SeatView

__all__ = ["Rung", "Relaxation", "rungs", "RelaxingSampler", "ENOUGH_WORLDS", "RUNG_SHARE", "RUNG_CANDIDATES",
           "RUNG_CHECKS"]

#: A rung that runs out of time keeps the worlds it dealt when they are at least this share of those asked for
#: (fewer worlds that honour the auction beat more that ignore part of it); with fewer, the next rung is tried.
ENOUGH_WORLDS = 0.25
#: Share of the sampling time left that a rung may use when a later rung could still be tried (the last rung,
#: which has no fallback, gets all that is left).
RUNG_SHARE = 0.5
#: Candidate deals a rung may draw when a later rung could still be tried. A rung that needs more than this to deal
#: its worlds asks for a picture of the hands so unlikely that the auction was probably not bid our way; and the cap
#: is a count, not a time, so a run without a deadline (self-play, which must replay the same from its seed) stops
#: as surely as one with: a self-play opening lead once spent 24 s dealing 20 worlds under the sampler's
#: 2,000,000-candidate default. The last rung (the hard facts) keeps that default.
RUNG_CANDIDATES = 200_000
#: Calls of the exact call predicates a rung may make when a later rung could still be tried: spent, the rung ends
#: as at its deadline (its worlds kept when they are ENOUGH_WORLDS of those asked for). The candidate cap alone let a
#: rung make ~200,000 of them (~60 us each: a self-play opening lead spent 12 s there, and overran the 60 s hard
#: limit on a starved machine); 50,000 was about three seconds of one core, and is under one since the tests are
#: compiled (~15 us each). A count, for the same reason as the cap (and kept: it decides which rung deals the worlds).
RUNG_CHECKS = 50_000


@dataclass(frozen=True)
class Relaxation:
    """One rung given up while dealing worlds for ``viewer`` after ``cards`` cards: the sampler's ``error``, and
    what the next rung ``dropped``."""

    viewer: Seat
    cards: int
    dropped: str
    error: str


@dataclass(frozen=True)
class Rung:
    dropped: str  # what this rung gave up, for logs and reasons ('' on the first rung)
    base: Mapping[Seat, SeatConstraints]  # the auction's constraints kept (per hidden seat)


def rungs(view: SeatView, constraints: Mapping[Seat, SeatConstraints]) -> list[Rung]:
    """The ladder for ``view``: the auction's ``constraints`` (per seat, on original hands), then less of them."""
    soft = {s: c for s, c in constraints.items() if view.original_hand(s) is None and c != UNCONSTRAINED}
    opponents = {s for s in soft if not s.same_side(view.seat)}
    out = [Rung("", soft)]
    # Next, every call's ranges (HCP and suit lengths, tested in bulk) without its exact test (evaluated hand by
    # hand in Python, the costly part): an auction so unlikely that the exact tests run out of their budget still
    # deals worlds with the strength and shape it showed (slam values opposite, a long suit), not worlds ignoring it.
    hulls = {s: _ranges_only(c) for s, c in soft.items()}
    if hulls != soft:
        out.append(Rung("exact call tests", hulls))
    if opponents:
        out.append(Rung("opponents' bidding", {s: c for s, c in soft.items() if s not in opponents}))
    if len(soft) > len(opponents):  # partner's calls constrain a hidden hand too
        out.append(Rung("opponents' and partner's bidding" if opponents else "partner's bidding", {}))
    return out


def _ranges_only(c: SeatConstraints) -> SeatConstraints:
    """``c`` without the predicates that are tested hand by hand (those on the shape alone cost nothing: kept)."""
    return replace(c, predicates=tuple(p for p in c.predicates if is_shape_predicate(p)))


class RelaxingSampler:
    """Worlds for ``view`` down the ladder, starting at rung ``start``. ``sample(n, seed)`` has
    ``WorldSampler.sample``'s shape, so a posterior can re-deal from it; after a sample, ``rung`` is the rung used,
    ``relaxed`` what it dropped ('' for nothing), ``short`` whether the deadline left it with fewer worlds than
    asked for, and ``start`` the first rung not refuted (the constraints of a refuted rung only grow as the play
    goes on, so later samples of the board may start there; a rung that merely ran out of time is tried again).
    ``relaxations`` lists every rung given up so far, in order.

    ``deadline``: the sampling stage's (absolute, ``time.monotonic()``). Without one, a rung fails only when its
    constraints are refuted or the sampler's candidate budget runs out, and rung 0 samples exactly as a plain
    ``WorldSampler`` would. If even the last rung deals no world in time, ``DeadlineReached`` is raised.
    """

    def __init__(self, view: SeatView, constraints: Mapping[Seat, SeatConstraints], *,
                 deadline: float | None = None, start: int = 0) -> None:
        self.view = view
        self.ladder = rungs(view, constraints)
        self.deadline = deadline
        self.start = self.rung = min(start, len(self.ladder) - 1)
        self.short = False
        self.relaxations: list[Relaxation] = []
        # rung -> its sampler: building one enumerates the shapes, and a later sample of the same view (Borel
        # simulation deals its worlds in rounds) reuses it
        self._samplers: dict[int, WorldSampler] = {}

    @property
    def relaxed(self) -> str:
        return self.ladder[self.rung].dropped

    def sample(self, n: int, rng) -> Worlds:
        view = self.view
        known = view.known_cards()
        for i in range(self.start, len(self.ladder)):
            last = i == len(self.ladder) - 1
            cut = self.deadline if last else slice_of(self.deadline, RUNG_SHARE)
            try:
                sampler = self._samplers.get(i)
                if sampler is None:
                    sampler = self._samplers[i] = WorldSampler(known, view.constraints(self.ladder[i].base))
                cap = {} if last else {"max_candidates": RUNG_CANDIDATES, "max_checks": RUNG_CHECKS}  # past: relax
                worlds = sampler.sample(n, rng, deadline=cut, **cap)
                short = False
            except SamplingTimeout as exc:
                worlds, short = exc.worlds, not exc.budget_spent  # a spent count replays: not cut short
                if len(worlds) < (1 if last else max(1, math.ceil(ENOUGH_WORLDS * n))):
                    if last:
                        raise DeadlineReached("no world could be dealt before the deadline") from None
                    if exc.budget_spent:
                        self.start = i + 1  # a count, not the clock: the next sample of the board would spend it too
                    self._relax(i, exc)
                    continue
            except SamplingError as exc:
                if last:
                    raise  # the hard facts alone cannot be met: the view contradicts itself
                self.start = i + 1
                self._relax(i, exc)
                continue
            self.rung, self.short = i, short
            return worlds
        raise AssertionError("unreachable: the last rung returns or raises")  # pragma: no cover

    def _relax(self, i: int, exc: SamplingError) -> None:
        self.relaxations.append(Relaxation(self.view.seat, len(self.view.cards), self.ladder[i + 1].dropped,
                                           str(exc)))
