"""Worlds consistent with what is known: per-seat hand constraints and (later in this module) the sampler.

``SeatConstraints`` is the common currency: the bidding rules say what a call shows as one, the play observes voids
and cards as one, and the sampler deals the unseen cards to satisfy them. Ranges are what the shape-first generator
can use directly; ``predicates`` are exact checks that ranges cannot express (e.g. "not balanced", the denial of a
higher-priority call), applied after the cards are dealt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from .cards import ALL_CARDS, BridgeError, Card, Hand, Suit

__all__ = ["HandPredicate", "SeatConstraints", "UNCONSTRAINED"]


class HandPredicate(Protocol):
    """An exact test on a hand. Must be picklable (module-level) so worlds can be sampled in worker processes."""

    def __call__(self, hand: Hand) -> bool: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class SeatConstraints:
    """What is known about one seat's (full, 13-card) hand.

    ``hcp`` and ``lengths`` are inclusive ranges; ``lengths`` is indexed by ``Suit`` (clubs first).
    ``held``/``not_held`` are 52-bit card masks (``engine.cards`` layout).
    """

    hcp: tuple[int, int] = (0, 37)
    lengths: tuple[tuple[int, int], ...] = ((0, 13), (0, 13), (0, 13), (0, 13))
    held: int = 0
    not_held: int = 0
    predicates: tuple[HandPredicate, ...] = field(default=())

    def __post_init__(self) -> None:
        if len(self.lengths) != 4:
            raise BridgeError(f"lengths must give four (min, max) ranges, got {len(self.lengths)}")
        if self.held & self.not_held:
            c = Card.from_index((self.held & self.not_held).bit_length() - 1)
            raise BridgeError(f"constraints say {c} is both held and not held")
        if (self.held | self.not_held) & ~ALL_CARDS:
            raise BridgeError("card masks out of range")

    def intersect(self, other: "SeatConstraints") -> "SeatConstraints":
        """Both sets of facts at once (ranges narrowed, masks and predicates combined)."""
        return SeatConstraints(
            hcp=(max(self.hcp[0], other.hcp[0]), min(self.hcp[1], other.hcp[1])),
            lengths=tuple(
                (max(a[0], b[0]), min(a[1], b[1])) for a, b in zip(self.lengths, other.lengths)
            ),
            held=self.held | other.held,
            not_held=self.not_held | other.not_held,
            predicates=self.predicates + tuple(p for p in other.predicates if p not in self.predicates),
        )

    __and__ = intersect

    def with_length(self, suit: Suit, lo: int, hi: int) -> "SeatConstraints":
        ls = list(self.lengths)
        a = ls[suit]
        ls[suit] = (max(a[0], lo), min(a[1], hi))
        return SeatConstraints(self.hcp, tuple(ls), self.held, self.not_held, self.predicates)

    def void_in(self, suit: Suit) -> "SeatConstraints":
        """The seat has shown out of ``suit`` (during play: no more cards of it among those still unplayed)."""
        return self.with_length(suit, 0, 0)

    @property
    def is_empty_range(self) -> bool:
        """True when the ranges alone already contradict each other (no hand can satisfy them)."""
        if self.hcp[0] > self.hcp[1]:
            return True
        if any(lo > hi for lo, hi in self.lengths):
            return True
        return sum(lo for lo, _ in self.lengths) > 13 or sum(hi for _, hi in self.lengths) < 13

    def accepts(self, hand: Hand) -> bool:
        """Exact check of a full hand against every constraint."""
        if not self.hcp[0] <= hand.hcp <= self.hcp[1]:
            return False
        for s in Suit:
            lo, hi = self.lengths[s]
            if not lo <= hand.length(s) <= hi:
                return False
        b = hand.bits
        if b & self.held != self.held or b & self.not_held:
            return False
        return all(p(hand) for p in self.predicates)

    def describe(self) -> str:
        parts = []
        if self.hcp != (0, 37):
            parts.append(f"{self.hcp[0]}-{self.hcp[1]} HCP")
        for s in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS):
            lo, hi = self.lengths[s]
            if (lo, hi) != (0, 13):
                parts.append(f"{lo}-{hi} {s.name.lower()}" if lo != hi else f"{lo} {s.name.lower()}")
        if self.held:
            parts.append("holds " + " ".join(str(c) for c in Hand(self.held)))
        if self.not_held:
            parts.append("lacks " + " ".join(str(c) for c in Hand(self.not_held)))
        parts.extend(p.describe() for p in self.predicates)
        return ", ".join(parts) or "no constraint"


UNCONSTRAINED = SeatConstraints()
