"""Worlds consistent with what is known: per-seat hand constraints and the exactly uniform constrained sampler.

``SeatConstraints`` is the common currency: the bidding rules say what a call shows as one, the play observes voids
and cards as one, and the sampler deals the unseen cards to satisfy them. Ranges are what the shape-first generator
can use directly; ``predicates`` are exact checks that ranges cannot express (e.g. "not balanced", the denial of a
higher-priority call), applied after the cards are dealt.
"""

from __future__ import annotations

import bisect
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Mapping, Protocol, Sequence

import numpy as np

from .cards import ALL_CARDS, FULL_SUIT, BridgeError, Card, Deal, Hand, Seat, Suit

__all__ = [
    "HandPredicate",
    "SeatConstraints",
    "UNCONSTRAINED",
    "SamplingError",
    "SamplingTimeout",
    "Worlds",
    "WorldSampler",
    "sample_worlds",
    "known_cards",
    "masks_to_deals",
    "deals_to_masks",
    "hcp_of_masks",
    "numpy_rng",
]


class HandPredicate(Protocol):
    """An exact test on a hand. Must be picklable (module-level) so worlds can be sampled in worker processes.

    A predicate that depends on the hand's shape alone (e.g. "balanced") may also define
    ``on_shape(shape) -> bool`` taking ``Hand.shape`` (lengths S, H, D, C); the sampler then applies it to the shape
    table instead of rejecting dealt hands, so it costs nothing. It must agree with ``__call__``.
    """

    def __call__(self, hand: Hand) -> bool: ...

    def describe(self) -> str: ...


def is_shape_predicate(p) -> bool:
    return callable(getattr(p, "on_shape", None))


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

    def shown_out(self, suit: Suit, played: int = 0) -> "SeatConstraints":
        """The seat showed out of ``suit`` (a discard or a ruff) after playing the cards in mask ``played``.

        Unlike ``void_in`` (which bounds the length of the *original* hand), this only says that none of the
        suit's cards *other than those already played* are in the hand, which is what a show-out proves.
        """
        rest = (FULL_SUIT << (13 * int(suit))) & ~played
        return SeatConstraints(self.hcp, self.lengths, self.held, self.not_held | rest, self.predicates)

    def void_in(self, suit: Suit) -> "SeatConstraints":
        """The seat's original hand has no card of ``suit`` (lengths refer to the full 13 cards).

        For a show-out during play, after the seat may already have played cards of the suit, use ``shown_out``.
        """
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


# =====================================================================================================================
# The constrained world sampler
#
# A "world" is one complete original deal consistent with what a player knows. The sampler deals only the *unseen*
# cards (not in the player's hand, not in dummy, not already played, not otherwise known) to the seats that still
# lack cards, and draws every layout that satisfies the constraints with exactly the same probability:
#
#   1. shapes first: every matrix x[seat][suit] of unseen-card counts that respects the length ranges (after
#      subtracting each seat's known cards) is enumerated once, with weight = the exact number of card layouts
#      having that matrix (a product over suits of multinomials, or of a small DP count when some cards are
#      excluded from some seats); a matrix is drawn with probability weight/total using exact integer arithmetic;
#   2. then cards: each suit's unseen cards are split uniformly among the layouts with those counts (shuffle and cut,
#      or a sequential exact draw from the DP counts when some seats may not hold some cards);
#   3. then an exact check of what shapes cannot express (HCP ranges, predicates); a failing candidate is thrown
#      away whole and a fresh one drawn from step 1, which keeps the accepted worlds exactly uniform.
#
# Seats whose lengths are unconstrained and that may hold any unseen card are "pooled": they act as one seat during
# steps 1-2 and the pool's cards are then split uniformly among them, which is exact (every split of the pool is
# equally likely whatever the shape) and keeps the shape table small when only one or two seats are constrained.
# =====================================================================================================================

_HCP_LUT = np.array(
    [4 * ((m >> 12) & 1) + 3 * ((m >> 11) & 1) + 2 * ((m >> 10) & 1) + ((m >> 9) & 1) for m in range(1 << 13)],
    dtype=np.int16,
)
_SUIT_MASKS = tuple(FULL_SUIT << (13 * s) for s in range(4))
_U64_1 = np.uint64(1)
#: Default budget of candidate deals before the sampler gives up on a constraint set that (almost) nothing meets.
DEFAULT_MAX_CANDIDATES = 2_000_000
#: With a deadline, before a batch has been timed: a bound on the seconds one candidate costs (the exact checks of
#: the auction's predicates took up to some 50 µs, some 15 µs since they are compiled, so the bound is generous; it
#: is kept as it is: it sizes the first batch under a deadline, and so which worlds are drawn).
_CANDIDATE_COST_BOUND_S = 1e-4
#: Above this many shape matrices the enumeration would cost more than sampling could ever save.
_MAX_SHAPE_MATRICES = 5_000_000


class SamplingError(BridgeError):
    """The constraints cannot be met (or are met so rarely that the sampler gave up); says which and why."""

    def __init__(self, message: str, *, seat: Seat | None = None, constraint: str | None = None) -> None:
        super().__init__(message)
        self.seat = seat
        self.constraint = constraint


class SamplingTimeout(SamplingError):
    """The sampler reached its deadline, or spent its budget of exact checks (``max_checks``: a deadline counted in
    work, so it replays from a seed), with fewer worlds than asked for; ``worlds`` holds those it found."""

    def __init__(self, message: str, worlds: "Worlds", *, budget_spent: bool = False) -> None:
        super().__init__(message)
        self.worlds = worlds
        self.budget_spent = budget_spent  # ended by ``max_checks``, not the clock: the same work ends the same way


def numpy_rng(rng: "random.Random | np.random.Generator | int") -> np.random.Generator:
    """A numpy Generator from a seed, a ``random.Random`` (consumes 128 bits of it) or a Generator (returned as is)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, random.Random):
        return np.random.default_rng(rng.getrandbits(128))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(f"need a seed (int), random.Random or numpy Generator, got {rng!r}")


def hcp_of_masks(masks: np.ndarray) -> np.ndarray:
    """High-card points of each 52-bit mask in an integer array (any shape)."""
    m = np.asarray(masks, dtype=np.uint64)
    total = np.zeros(m.shape, dtype=np.int32)
    for s in range(4):
        total += _HCP_LUT[((m >> np.uint64(13 * s)) & np.uint64(FULL_SUIT)).astype(np.intp)]
    return total


def masks_to_deals(masks: np.ndarray, *, complete: bool = True) -> list[Deal]:
    """Rows of four 52-bit masks (N, E, S, W) as ``Deal`` objects."""
    return [Deal((Hand(int(b)) for b in row), complete=complete) for row in np.asarray(masks)]


def deals_to_masks(deals: Iterable[Deal]) -> np.ndarray:
    """The inverse of ``masks_to_deals``: an ``(n, 4)`` uint64 array."""
    return np.array([[h.bits for h in d.hands] for d in deals], dtype=np.uint64).reshape(-1, 4)


def known_cards(
    own: tuple[Seat, Hand | int] | None = None,
    dummy: tuple[Seat, Hand | int] | None = None,
    played: Iterable[tuple[Seat, Card]] = (),
) -> tuple[int, int, int, int]:
    """Per-seat masks of cards known to be in each seat's *original* hand: a hand seen, a dummy, cards played."""
    known = [0, 0, 0, 0]
    for entry in (own, dummy):
        if entry is not None:
            seat, hand = entry
            known[seat] |= hand.bits if isinstance(hand, Hand) else int(hand)
    for seat, card in played:
        known[seat] |= card.mask
    return tuple(known)  # type: ignore[return-value]


@dataclass(frozen=True, eq=False)
class Worlds:
    """Sampled worlds: ``masks[i, seat]`` is that seat's full original 13-card hand in world ``i`` (uint64).

    ``candidates`` deals were drawn to get them, ``rejected`` of which failed an exact check; ``rejections`` says
    which check rejected how many (keys like ``"W: 15-17 HCP"``).
    """

    masks: np.ndarray
    candidates: int = 0
    rejected: int = 0
    rejections: Mapping[str, int] = field(default_factory=dict)
    shapes: int = 0

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    def deal(self, i: int) -> Deal:
        return Deal(Hand(int(b)) for b in self.masks[i])

    def deals(self) -> list[Deal]:
        return masks_to_deals(self.masks)

    def remaining(self, played: int) -> np.ndarray:
        """Each world's hands less the cards in mask ``played`` (the positions to hand to the DD solver)."""
        return self.masks & ~np.uint64(played)

    def holders(self, card: Card) -> np.ndarray:
        """Seat (0..3) holding ``card`` in each world."""
        hit = (self.masks & np.uint64(card.mask)) != 0
        return np.argmax(hit, axis=1)

    def marginals(self) -> np.ndarray:
        """Unweighted ``(4, 52)`` array: fraction of worlds in which each seat holds each card."""
        bits = (self.masks[:, :, None] >> np.arange(52, dtype=np.uint64)) & _U64_1
        return bits.mean(axis=0)

    def concat(self, other: "Worlds") -> "Worlds":
        rej = dict(self.rejections)
        for k, v in other.rejections.items():
            rej[k] = rej.get(k, 0) + v
        return Worlds(
            np.concatenate([self.masks, other.masks]),
            self.candidates + other.candidates,
            self.rejected + other.rejected,
            rej,
            max(self.shapes, other.shapes),
        )


def _as_four(values, default, what: str) -> list:
    if values is None:
        return [default] * 4
    if isinstance(values, Mapping):
        out = [default] * 4
        for k, v in values.items():
            out[Seat(k) if not isinstance(k, str) else Seat.parse(k)] = default if v is None else v
        return out
    vals = list(values)
    if len(vals) != 4:
        raise BridgeError(f"{what} must give four entries (N, E, S, W), got {len(vals)}")
    return [default if v is None else v for v in vals]


def _suit_name(s: int) -> str:
    return Suit(s).name.lower()


@dataclass(frozen=True)
class _SuperSeat:
    seats: tuple[int, ...]  # real seats (more than one = a pool)
    need: int
    lo: tuple[int, int, int, int]
    hi: tuple[int, int, int, int]
    allowed: tuple[int, int, int, int]  # per suit: unseen cards this super-seat may receive


class WorldSampler:
    """Exactly uniform sampler of the worlds consistent with known cards and per-seat constraints.

    ``known``: four masks (or ``Hand``s, or a ``{Seat: ...}`` mapping) of cards known to be in each seat's original
    hand (own hand, dummy, cards played). ``constraints``: four ``SeatConstraints`` (or a mapping; missing = none) on
    the *original* 13-card hands: played cards count towards lengths and HCP. The constructor does the shape
    enumeration once; ``sample`` may then be called many times. Raises ``SamplingError`` naming the seat and the
    constraint when the constraints cannot be met at all.
    """

    def __init__(
        self,
        known: Sequence[Hand | int] | Mapping[Seat, Hand | int] | None = None,
        constraints: Sequence[SeatConstraints | None] | Mapping[Seat, SeatConstraints | None] | None = None,
    ) -> None:
        kn = [h.bits if isinstance(h, Hand) else int(h) for h in _as_four(known, 0, "known")]
        cons: list[SeatConstraints] = _as_four(constraints, UNCONSTRAINED, "constraints")
        for seat, c in zip(Seat, cons):
            if not isinstance(c, SeatConstraints):
                raise TypeError(f"constraints for {seat.title} must be SeatConstraints, got {type(c).__name__}")
        seen = 0
        for seat, m in zip(Seat, kn):
            if m & ~ALL_CARDS or m < 0:
                raise BridgeError(f"known cards of {seat.title}: mask out of range")
            if m & seen:
                c = Card.from_index((m & seen).bit_length() - 1)
                raise SamplingError(f"card {c} is known to be in two hands", seat=seat)
            seen |= m
        # Cards a constraint says are held are as good as known (every admissible layout has them there).
        for seat, c in zip(Seat, cons):
            if c.is_empty_range:
                raise SamplingError(
                    f"{seat.title}: the ranges contradict each other ({c.describe()})",
                    seat=seat, constraint=c.describe(),
                )
            elsewhere = c.held & seen & ~kn[seat]
            if elsewhere:
                card = Card.from_index(elsewhere.bit_length() - 1)
                raise SamplingError(
                    f"{seat.title} is said to hold {card}, but {card} is known to be elsewhere",
                    seat=seat, constraint=f"holds {card}",
                )
            clash = c.not_held & kn[seat]
            if clash:
                card = Card.from_index(clash.bit_length() - 1)
                raise SamplingError(
                    f"{seat.title} is known to hold {card}, but is said not to",
                    seat=seat, constraint=f"lacks {card}",
                )
        for seat, c in zip(Seat, cons):
            for other, c2 in zip(Seat, cons):
                if other != seat and c.held & c2.held:
                    card = Card.from_index((c.held & c2.held).bit_length() - 1)
                    raise SamplingError(
                        f"both {seat.title} and {other.title} are said to hold {card}",
                        seat=other, constraint=f"holds {card}",
                    )
            kn[seat] |= c.held
            seen |= c.held
        self.known: tuple[int, int, int, int] = tuple(kn)  # type: ignore[assignment]
        self.constraints: tuple[SeatConstraints, ...] = tuple(cons)
        need = [13 - m.bit_count() for m in kn]
        for seat, k in zip(Seat, need):
            if k < 0:
                raise SamplingError(f"{seat.title} has {13 - k} known cards (at most 13)", seat=seat)
        self.need: tuple[int, int, int, int] = tuple(need)  # type: ignore[assignment]
        unseen = ALL_CARDS & ~seen
        self.unseen = unseen
        u = [(unseen & _SUIT_MASKS[s]).bit_count() for s in range(4)]
        self.unseen_by_suit: tuple[int, int, int, int] = tuple(u)  # type: ignore[assignment]

        # Seats with a fully known hand only need checking once.
        for seat in Seat:
            if need[seat] == 0 and not cons[seat].accepts(Hand(kn[seat])):
                raise SamplingError(
                    f"{seat.title}'s known hand {Hand(kn[seat])} does not satisfy: {cons[seat].describe()}",
                    seat=seat, constraint=cons[seat].describe(),
                )

        # Per live seat and suit: bounds on the number of unseen cards it receives, and which it may receive.
        live = [s for s in Seat if need[s] > 0]
        lo_b: dict[int, list[int]] = {}
        hi_b: dict[int, list[int]] = {}
        allowed: dict[int, list[int]] = {}
        hcp_range: dict[int, tuple[int, int]] = {}  # per live seat: the HCP it can reach and is allowed
        for seat in live:
            c = cons[seat]
            lo_b[seat], hi_b[seat], allowed[seat] = [], [], []
            for s in range(4):
                kl = (kn[seat] & _SUIT_MASKS[s]).bit_count()
                al = unseen & _SUIT_MASKS[s] & ~c.not_held
                lo_r, hi_r = c.lengths[s]
                lo = max(0, lo_r - kl)
                hi = min(hi_r - kl, al.bit_count(), need[seat])
                if hi < lo:
                    rng_txt = f"{lo_r}-{hi_r}" if lo_r != hi_r else f"{lo_r}"
                    if hi_r < kl:
                        why = f"{kl} {_suit_name(s)} are already known in the hand"
                    elif lo - need[seat] > 0 and lo <= al.bit_count():
                        why = f"only {need[seat]} cards of the hand are still unknown"
                    else:
                        why = f"{kl} known and only {al.bit_count()} unseen {_suit_name(s)} it could hold"
                    raise SamplingError(
                        f"{seat.title} cannot have {rng_txt} {_suit_name(s)}: {why}",
                        seat=seat, constraint=f"{rng_txt} {_suit_name(s)}",
                    )
                lo_b[seat].append(lo)
                hi_b[seat].append(hi)
                allowed[seat].append(al)
            if sum(lo_b[seat]) > need[seat] or sum(hi_b[seat]) < need[seat]:
                raise SamplingError(
                    f"{seat.title}: the suit lengths ({cons[seat].describe()}) cannot make a 13-card hand "
                    f"with the {13 - need[seat]} known cards {Hand(kn[seat])}",
                    seat=seat, constraint=cons[seat].describe(),
                )
            hcp_range[seat] = self._check_hcp_feasible(seat, allowed[seat], hi_b[seat])
        # Together: the hidden hands share the unseen cards, so their ranges must add up to what is unseen.
        self._check_suit_totals([((seat,), lo_b[seat], hi_b[seat]) for seat in live])
        self._check_hcp_total(hcp_range)

        # Pool the seats that shapes need not know about.
        def poolable(seat: int) -> bool:
            if any(is_shape_predicate(p) for p in cons[seat].predicates):
                return False  # its shape predicates filter the shape table, which needs the seat on its own
            return all(
                lo_b[seat][s] == 0 and hi_b[seat][s] >= min(u[s], need[seat]) and allowed[seat][s] == unseen & _SUIT_MASKS[s]
                for s in range(4)
            )

        hcp_bound = [seat for seat in live if cons[seat].hcp[0] > 0 or cons[seat].hcp[1] < 37]
        # One HCP-constrained seat (the narrowest range) is dealt with its HCP built into the proposal, so its range
        # costs no rejections; any other HCP range is checked after the deal. It is never pooled.
        dseat = min(hcp_bound, key=lambda x: cons[x].hcp[1] - cons[x].hcp[0]) if hcp_bound else None
        pool = [s for s in live if poolable(s) and s != dseat]
        supers: list[_SuperSeat] = []
        for seat in live:
            if len(pool) >= 2 and seat in pool:
                continue
            supers.append(_SuperSeat((seat,), need[seat], tuple(lo_b[seat]), tuple(hi_b[seat]), tuple(allowed[seat])))
        if len(pool) >= 2:
            pn = sum(need[s] for s in pool)
            supers.append(
                _SuperSeat(
                    tuple(pool), pn, (0, 0, 0, 0), tuple(min(u[s], pn) for s in range(4)),
                    tuple(unseen & _SUIT_MASKS[s] for s in range(4)),
                )
            )
        self._supers = supers
        self._d = next((j for j, sp in enumerate(supers) if sp.seats == (dseat,)), -1)
        self._enumerate_shapes()
        self._build_suit_tables()
        self._build_weights()
        # What shapes cannot express, checked exactly after the cards are dealt.
        self._hcp_checks = [(seat, cons[seat].hcp) for seat in hcp_bound if seat != dseat]
        self._pred_checks = [
            (seat, p) for seat in live for p in cons[seat].predicates if not is_shape_predicate(p)
        ]
        # The predicates are tried most-rejecting first (fail first): a candidate passes only if all hold, so the
        # order changes which worlds are found in no way, only how many calls a rejected candidate costs.
        # (calls, rejections) per predicate, kept across batches; the order is a function of them, so it replays.
        self._pred_stats = [[0, 0] for _ in self._pred_checks]
        self._pred_order = list(range(len(self._pred_checks)))

    # --- set-up -----------------------------------------------------------------------------------------------
    def _check_hcp_feasible(self, seat: int, allowed: list[int], hi: list[int]) -> tuple[int, int]:
        """Cheap bounds so that an HCP range no layout can reach fails at once rather than after the budget.
        Returns the seat's possible HCP: its range narrowed to what the cards it may receive can reach."""
        c = self.constraints[seat]
        base = Hand(self.known[seat]).hcp
        # Most points: the best honours it may receive, at most hi[s] per suit and need in all.
        honours = []      # for the upper bound: the best honours it may take, at most hi[s] per suit
        all_honours = []  # for the lower bound: every honour it may take (per-suit caps ignored: still a bound)
        for s in range(4):
            hs = sorted((_HCP_LUT[1 << r] for r in range(9, 13) if allowed[s] >> (13 * s + r) & 1), reverse=True)
            honours.extend(hs[: hi[s]])
            all_honours.extend(hs)
        most = base + sum(sorted(honours, reverse=True)[: self.need[seat]])
        spots = sum(
            min(hi[s], sum(1 for r in range(0, 9) if allowed[s] >> (13 * s + r) & 1)) for s in range(4)
        )
        forced = max(0, self.need[seat] - spots)
        # The cheapest honours first: using the capped list here would pick the *top* honours of a suit (the bug
        # that refused 16-18 for South holding two of SA SK SQ).
        least = base + sum(sorted(all_honours)[:forced]) if forced else base
        if most < c.hcp[0] or least > c.hcp[1]:
            raise SamplingError(
                f"{Seat(seat).title} cannot have {c.hcp[0]}-{c.hcp[1]} HCP: "
                f"{base} known and {least}-{most} reachable with the unseen cards",
                seat=Seat(seat), constraint=f"{c.hcp[0]}-{c.hcp[1]} HCP",
            )
        return max(least, c.hcp[0]), min(most, c.hcp[1])

    def _check_hcp_total(self, ranges: Mapping[int, tuple[int, int]]) -> None:
        """The hidden hands hold every unseen honour between them: their HCP ranges must be able to add up to the
        points they already hold plus the unseen ones."""
        if not ranges:
            return
        total = Hand(self.unseen).hcp + sum(Hand(self.known[seat]).hcp for seat in ranges)
        lo = sum(a for a, _ in ranges.values())
        hi = sum(b for _, b in ranges.values())
        if lo <= total <= hi:
            return
        who = ", ".join(f"{Seat(seat).title} {a}-{b}" for seat, (a, b) in ranges.items())
        raise SamplingError(
            f"the hidden hands hold {total} HCP between them, but their ranges ({who}) allow "
            f"{'at least ' + str(lo) if lo > total else 'at most ' + str(hi)}",
            constraint="HCP total",
        )

    def _enumerate_shapes(self) -> None:
        u = self.unseen_by_suit
        sup = self._supers
        k = len(sup)
        if k == 0:
            self._X = np.zeros((1, 0, 4), dtype=np.int64)
            return
        rows = [self._shape_filter(sp, self._rows(sp)) for sp in sup]
        # The last super-seat's row is implied by the others; make it the one with the most rows.
        order = sorted(range(k), key=lambda j: len(rows[j]))
        lo_sum_after = [np.sum([sup[j].lo for j in order[i + 1 :]], axis=0) if i + 1 < k else np.zeros(4)
                        for i in range(k)]
        hi_sum_after = [np.sum([sup[j].hi for j in order[i + 1 :]], axis=0) if i + 1 < k else np.zeros(4)
                        for i in range(k)]
        uu = np.array(u)
        partial = np.zeros((1, 4), dtype=np.int64)
        picks = np.zeros((1, 0), dtype=np.int64)
        for i, j in enumerate(order[:-1]):
            r = rows[j]
            if partial.shape[0] * r.shape[0] > _MAX_SHAPE_MATRICES:
                raise SamplingError("the constraints leave too many suit-length layouts to enumerate")
            tot = (partial[:, None, :] + r[None, :, :]).reshape(-1, 4)
            pi = np.repeat(np.arange(partial.shape[0]), r.shape[0])
            ri = np.tile(np.arange(r.shape[0]), partial.shape[0])
            resid = uu[None, :] - tot
            ok = np.all((resid >= lo_sum_after[i]) & (resid <= hi_sum_after[i]), axis=1)
            partial = tot[ok]
            picks = np.concatenate([picks[pi[ok]], ri[ok, None]], axis=1)
        last = sup[order[-1]]
        resid = uu[None, :] - partial
        ok = np.all((resid >= np.array(last.lo)) & (resid <= np.array(last.hi)), axis=1)
        X = np.zeros((int(ok.sum()), k, 4), dtype=np.int64)
        for i, j in enumerate(order[:-1]):
            X[:, j, :] = rows[j][picks[ok, i]]
        X[:, order[-1], :] = resid[ok]
        if X.shape[0] == 0:
            self._explain_no_shape()
        self._X = X

    def _shape_filter(self, sp: _SuperSeat, rows: np.ndarray) -> np.ndarray:
        """Drop the rows whose full-hand shape a shape-only predicate of the seat rejects."""
        if len(sp.seats) != 1:
            return rows
        seat = sp.seats[0]
        preds = [p for p in self.constraints[seat].predicates if is_shape_predicate(p)]
        if not preds:
            return rows
        kl = [(self.known[seat] & _SUIT_MASKS[s]).bit_count() for s in range(4)]
        keep = []
        for r in rows:
            shape = (kl[3] + int(r[3]), kl[2] + int(r[2]), kl[1] + int(r[1]), kl[0] + int(r[0]))
            keep.append(all(p.on_shape(shape) for p in preds))
        out = rows[np.array(keep, dtype=bool)] if len(rows) else rows
        if len(out) == 0:
            names = ", ".join(_describe(p) for p in preds)
            raise SamplingError(
                f"{Seat(seat).title}: no shape allowed by the suit lengths is {names}",
                seat=Seat(seat), constraint=names,
            )
        return out

    @staticmethod
    def _rows(sp: _SuperSeat) -> np.ndarray:
        out = []
        lo, hi, n = sp.lo, sp.hi, sp.need
        for a in range(lo[0], hi[0] + 1):
            for b in range(lo[1], hi[1] + 1):
                for c in range(lo[2], hi[2] + 1):
                    d = n - a - b - c
                    if lo[3] <= d <= hi[3]:
                        out.append((a, b, c, d))
        return np.array(out, dtype=np.int64).reshape(-1, 4)

    def _check_suit_totals(self, entries: Sequence[tuple[tuple[int, ...], Sequence[int], Sequence[int]]]) -> None:
        """Per suit, the (seats, minimum, maximum) unseen cards of each entry must be able to add up to the unseen
        cards of the suit."""
        u = self.unseen_by_suit
        for s in range(4):
            los = [(seats, lo[s]) for seats, lo, _ in entries if lo[s]]
            if sum(x for _, x in los) > u[s]:
                who = ", ".join(
                    f"{Seat(seats[0]).title} at least {x + (self.known[seats[0]] & _SUIT_MASKS[s]).bit_count()}"
                    for seats, x in los
                )
                raise SamplingError(
                    f"not enough {_suit_name(s)}: {who}, but only {u[s]} {_suit_name(s)} are unseen",
                    constraint=f"{_suit_name(s)} lengths",
                )
            most = sum(hi[s] for _, _, hi in entries)
            if most < u[s]:
                raise SamplingError(
                    f"too many {_suit_name(s)}: {u[s]} are unseen but the seats' maximums place only {most}",
                    constraint=f"{_suit_name(s)} lengths",
                )

    def _explain_no_shape(self) -> None:
        self._check_suit_totals([(sp.seats, sp.lo, sp.hi) for sp in self._supers])
        desc = "; ".join(f"{Seat(s).title}: {self.constraints[s].describe()}" for s in Seat if self.need[s])
        raise SamplingError(f"no layout of the unseen cards satisfies the suit lengths together ({desc})")

    def _build_suit_tables(self) -> None:
        """Per suit, suffix tables ``S[m][c_0, .., c_{k-1}, h]`` = ways to place the suit's unseen cards ``m..`` so
        that super-seat ``j`` gets ``c_j`` of them and the designated seat (if any) gets ``h`` HCP from them."""
        k = len(self._supers)
        d = self._d
        H = 11 if d >= 0 else 1
        self._H = H
        self._cards: list[np.ndarray] = []
        self._hv: list[np.ndarray] = []
        self._allowed: list[np.ndarray] = []  # (u_s, k) bool
        self._sequential: list[bool] = []
        self._suffix: list[list[np.ndarray]] = []
        for s in range(4):
            us = self.unseen_by_suit[s]
            cards = [i for i in range(13 * s, 13 * s + 13) if self.unseen >> i & 1]
            hv = [max(0, i - 13 * s - 8) for i in cards]
            self._cards.append(np.array(cards, dtype=np.uint64))
            self._hv.append(np.array(hv, dtype=np.int64))
            al = np.array([[bool(sp.allowed[s] >> c & 1) for sp in self._supers] for c in cards], dtype=bool)
            al = al.reshape(us, k)
            self._allowed.append(al)
            # Shuffle-and-cut is exact when every seat may hold every card and no HCP is being tracked.
            self._sequential.append(bool(k and (not al.all() or (d >= 0 and any(hv)))))
            self._suffix.append(self._suffix_tables(s, skip=None))

    def _suffix_tables(self, s: int, skip: int | None) -> list[np.ndarray]:
        us = self.unseen_by_suit[s]
        k = len(self._supers)
        H = self._H
        al = self._allowed[s]
        hv = self._hv[s]
        shape = (us + 1,) * k + (H,)
        S = [np.zeros(shape, dtype=np.int64) for _ in range(us + 1)]
        S[us][(0,) * (k + 1)] = 1
        for m in range(us - 1, -1, -1):
            if m == skip:
                S[m] = S[m + 1]
                continue
            acc = np.zeros(shape, dtype=np.int64)
            for j in range(k):
                if al[m, j]:
                    v = int(hv[m]) if j == self._d else 0
                    src = [slice(None)] * (k + 1)
                    dst = [slice(None)] * (k + 1)
                    src[j] = slice(0, us)
                    dst[j] = slice(1, us + 1)
                    src[k] = slice(0, H - v)
                    dst[k] = slice(v, H)
                    acc[tuple(dst)] += S[m + 1][tuple(src)]
            S[m] = acc
        return S

    def _build_weights(self) -> None:
        X = self._X
        M = X.shape[0]
        k = X.shape[1]
        factors = []  # per suit: (M, H) counts
        for s in range(4):
            T = self._suffix[s][0]
            factors.append(T[tuple(X[:, j, s] for j in range(k))] if k else np.ones((M, 1), dtype=np.int64))
        bound = 1
        for f in factors:
            bound *= int(f.sum(axis=1).max()) if f.size else 1
        self._exact64 = bound < (1 << 62)
        dt = np.int64 if self._exact64 else object
        if self._d < 0:
            w = np.ones(M, dtype=dt)
            for f in factors:
                w = w * f[:, 0].astype(dt)
            self._hsuffix = None
        else:
            # Convolve the suits' HCP distributions for the designated seat; keep the suffix convolutions to split
            # a drawn HCP total among the suits later.
            suff = [None] * 5
            suff[4] = np.ones((M, 1), dtype=dt)
            for s in range(3, -1, -1):
                a, b = factors[s].astype(dt), suff[s + 1]
                out = np.zeros((M, a.shape[1] + b.shape[1] - 1), dtype=dt)
                for i in range(a.shape[1]):
                    out[:, i : i + b.shape[1]] += a[:, i : i + 1] * b
                suff[s] = out
            seat = self._supers[self._d].seats[0]
            base = Hand(self.known[seat]).hcp
            lo, hi = self.constraints[seat].hcp
            lo, hi = max(0, lo - base), min(suff[0].shape[1] - 1, hi - base)
            self._hrange = (lo, hi)
            w = suff[0][:, lo : hi + 1].sum(axis=1) if hi >= lo else np.zeros(M, dtype=dt)
            self._hsuffix = suff
        keep = w > 0
        self._X = X[keep]
        self._factors = [f[keep] for f in factors]
        if self._hsuffix is not None:
            self._hsuffix = [x[keep] for x in self._hsuffix]
        w = w[keep]
        if self._X.shape[0] == 0:
            if self._d >= 0:
                seat = self._supers[self._d].seats[0]
                lo, hi = self.constraints[seat].hcp
                raise SamplingError(
                    f"{Seat(seat).title} cannot have {lo}-{hi} HCP with the suit lengths and unseen cards allowed",
                    seat=Seat(seat), constraint=f"{lo}-{hi} HCP",
                )
            self._explain_no_shape()
        self._weights = w
        self._cum = np.cumsum(w)
        self.total_layouts_by_shape = int(self._cum[-1])

    # --- queries ----------------------------------------------------------------------------------------------
    @property
    def shape_count(self) -> int:
        """Number of distinct unseen-card count matrices that the constraints allow."""
        return int(self._X.shape[0])

    @property
    def exact_checks(self) -> bool:
        """True when some constraint (HCP, predicate) is checked after dealing, i.e. rejection can happen."""
        return bool(self._hcp_checks or self._pred_checks)

    def exact_marginals(self) -> list[list[Fraction]]:
        """Exact ``P(seat holds card)`` (4 x 52 Fractions) under the uniform distribution on admissible layouts.

        Only for constraint sets without after-the-deal checks (HCP ranges, predicates): those have no closed form.
        """
        if self.exact_checks or self._d >= 0:
            raise SamplingError("exact marginals need constraints that shapes and card masks express alone")
        total = int(self.total_layouts_by_shape)
        out = [[Fraction(0)] * 52 for _ in range(4)]
        for seat in Seat:
            for i in range(52):
                if self.known[seat] >> i & 1:
                    out[seat][i] = Fraction(1)
        X = self._X
        k = X.shape[1]
        f_obj = [f[:, 0].astype(object) for f in self._factors]
        for s in range(4):
            us = self.unseen_by_suit[s]
            if us == 0:
                continue
            others = np.ones(X.shape[0], dtype=object)
            for s2 in range(4):
                if s2 != s:
                    others = others * f_obj[s2]
            cards = self._cards[s]
            al = self._allowed[s]
            for m in range(us):
                T = self._suffix_tables(s, skip=m)[0][..., 0]
                for j, sp in enumerate(self._supers):
                    if not al[m, j]:
                        continue
                    cols = X[:, :, s].copy()
                    has = cols[:, j] >= 1
                    cols[:, j] -= 1
                    cols = np.maximum(cols, 0)
                    cnt = T[tuple(cols[:, jj] for jj in range(k))].astype(object) * has
                    num = int(np.sum(others * cnt))
                    p = Fraction(num, total)
                    for seat in sp.seats:
                        out[seat][int(cards[m])] = p * Fraction(self.need[seat], sp.need)
        return out

    # --- dealing ----------------------------------------------------------------------------------------------
    def _pick_shapes(self, B: int, gen: np.random.Generator) -> np.ndarray:
        total = self.total_layouts_by_shape
        if self._exact64:
            r = gen.integers(0, total, size=B, dtype=np.int64)
            return np.searchsorted(self._cum, r, side="right")
        # Exact big-integer draw (more than 39 unseen cards), then bisect.
        cum = [int(x) for x in self._cum]
        out = np.empty(B, dtype=np.int64)
        for i in range(B):
            out[i] = bisect.bisect_right(cum, _randbelow(gen, total))
        return out

    def _deal_batch(self, B: int, gen: np.random.Generator) -> np.ndarray:
        """``B`` candidate worlds from the shape-weighted proposal (before the exact checks): (B, 4) uint64."""
        k = len(self._supers)
        full = np.tile(np.array(self.known, dtype=np.uint64), (B, 1))
        if k == 0:
            return full
        idx = self._pick_shapes(B, gen)
        X = self._X[idx]  # (B, k, 4)
        d = self._d
        H = self._H
        ar = np.arange(B)
        hs = np.zeros((B, 4), dtype=np.int64)
        if d >= 0:
            # The designated seat's HCP: first its total (within its range), then how it splits among the suits,
            # each with probability proportional to the number of layouts that have it.
            suff = [x[idx] for x in self._hsuffix]
            lo, hi = self._hrange
            hrem = lo + _draw_rows(suff[0][:, lo : hi + 1], gen)
            a = np.arange(H)
            for s in range(4):
                f = self._factors[s][idx]
                nxt = suff[s + 1]
                jj = hrem[:, None] - a[None, :]
                valid = (jj >= 0) & (jj < nxt.shape[1])
                tail = np.take_along_axis(nxt, np.clip(jj, 0, nxt.shape[1] - 1), axis=1)
                w = np.where(valid, f.astype(tail.dtype) * tail, 0)
                pick = _draw_rows(w, gen)
                hs[:, s] = pick
                hrem = hrem - pick
        dealt = np.zeros((B, k), dtype=np.uint64)
        for s in range(4):
            us = self.unseen_by_suit[s]
            if us == 0:
                continue
            bits = _U64_1 << self._cards[s]
            counts = X[:, :, s]
            if not self._sequential[s]:
                # Shuffle the suit's unseen cards and cut them by the counts: uniform over splits with those counts.
                order = np.argsort(gen.random((B, us)), axis=1)
                pc = bits[order]
                cum = np.cumsum(counts, axis=1)
                who = (np.arange(us)[None, :, None] >= cum[:, None, :]).sum(axis=2)
                for j in range(k):
                    dealt[:, j] |= np.where(who == j, pc, np.uint64(0)).sum(axis=1, dtype=np.uint64)
                continue
            # Place the cards one by one, each seat chosen with probability proportional to the number of admissible
            # completions (exact, from the DP tables): handles cards some seats may not hold and the HCP target.
            S = self._suffix[s]
            al = self._allowed[s]
            hv = self._hv[s]
            rem = counts.copy()
            hr = hs[:, s].copy()
            strides = np.array([(us + 1) ** (k - 1 - j) * H for j in range(k)], dtype=np.int64)
            for m in range(us):
                flat = S[m + 1].reshape(-1)
                base = rem @ strides + hr
                w = np.zeros((B, k), dtype=np.int64)
                for j in range(k):
                    if al[m, j]:
                        v = int(hv[m]) if j == d else 0
                        ok = (rem[:, j] > 0) & (hr >= v)
                        w[ok, j] = flat[base[ok] - strides[j] - v]
                pick = _draw_rows(w, gen)
                rem[ar, pick] -= 1
                if d >= 0 and hv[m]:
                    hr -= np.where(pick == d, hv[m], 0)
                dealt[ar, pick] |= bits[m]
        for j, sp in enumerate(self._supers):
            if len(sp.seats) == 1:
                full[:, sp.seats[0]] |= dealt[:, j]
                continue
            # A pool: its cards are split uniformly among its seats.
            has = ((dealt[:, j : j + 1] >> np.arange(52, dtype=np.uint64)) & _U64_1).astype(bool)
            keys = gen.random((B, 52))
            keys[~has] = 2.0
            order = np.argsort(keys, axis=1)[:, : sp.need].astype(np.uint64)
            a0 = 0
            for seat in sp.seats:
                b0 = a0 + self.need[seat]
                full[:, seat] |= (_U64_1 << order[:, a0:b0]).sum(axis=1, dtype=np.uint64)
                a0 = b0
        return full

    def _check(self, full: np.ndarray, budget: int | None = None,
               deadline: float | None = None) -> tuple[np.ndarray, int, int]:
        """Per candidate: -1 when it passes every exact check, else the index of the first check that failed;
        with the number of candidates looked at and of predicate calls made.

        The HCP checks are vectorised; the predicates (an auction's exact call tests, compiled: ~15 us each in Python) are
        called row by row, and once ``budget`` calls are made, or ``deadline`` has passed, the rows after the
        current one are left unchecked (not looked at: the caller drops them). A batch is sized to end by the
        deadline from what the last one cost in wall time; on a loaded machine the process gets less CPU than that
        and the batch would run on past the deadline (70 ms past a 0.2 s card decision was measured), so the clock
        is read between rows too."""
        why = np.full(full.shape[0], -1, dtype=np.int64)
        for i, (seat, (lo, hi)) in enumerate(self._hcp_checks):
            h = hcp_of_masks(full[:, seat])
            why[(why < 0) & ((h < lo) | (h > hi))] = i
        looked, calls = full.shape[0], 0
        if self._pred_checks:
            off = len(self._hcp_checks)
            checks, stats = self._pred_checks, self._pred_stats
            for r in np.flatnonzero(why < 0):
                if (budget is not None and calls >= budget) or (deadline is not None and time.monotonic() >= deadline):
                    looked = int(r)
                    break
                for i in self._pred_order:
                    seat, p = checks[i]
                    calls += 1
                    stats[i][0] += 1
                    if not p(Hand(int(full[r, seat]))):
                        stats[i][1] += 1
                        why[r] = off + i
                        break
            self._pred_order.sort(key=lambda i: (-(stats[i][1] + 1) / (stats[i][0] + 2), i))
        return why, looked, calls

    def _check_name(self, i: int) -> str:
        if i < len(self._hcp_checks):
            seat, (lo, hi) = self._hcp_checks[i]
            return f"{Seat(seat).letter}: {lo}-{hi} HCP"
        seat, p = self._pred_checks[i - len(self._hcp_checks)]
        return f"{Seat(seat).letter}: {_describe(p)}"

    def sample(
        self,
        n: int,
        rng: "random.Random | np.random.Generator | int",
        *,
        max_candidates: int = DEFAULT_MAX_CANDIDATES,
        max_checks: int | None = None,
        allow_fewer: bool = False,
        deadline: float | None = None,
    ) -> Worlds:
        """``n`` independent, exactly uniform worlds. Raises ``SamplingError`` naming the constraint that rejected
        most candidates when fewer than ``n`` were found within ``max_candidates`` candidate deals, unless
        ``allow_fewer``. ``max_checks`` bounds the calls of the exact predicates (the costly part) the way a deadline
        bounds time, yet replays the same from a seed: spent, it ends the sampling like a deadline does.

        ``deadline`` (``time.monotonic()``): no candidate is dealt after it (batches are sized from the measured
        cost of a candidate so that one does not run far past it); the worlds found by then are returned if
        ``allow_fewer``, else ``SamplingTimeout`` carries them. Without a deadline the batches, and so the worlds
        drawn, are exactly as they always were."""
        if n < 0:
            raise BridgeError(f"number of worlds must be >= 0, got {n}")
        gen = numpy_rng(rng)
        got: list[np.ndarray] = []
        have = 0
        cands = 0
        checks = 0
        counts = np.zeros(len(self._hcp_checks) + len(self._pred_checks), dtype=np.int64)
        rate = 1.0
        per_candidate = 0.0  # seconds a candidate costs, measured on the last batch (with a deadline only)

        def found() -> Worlds:
            masks = np.concatenate(got) if got else np.zeros((0, 4), dtype=np.uint64)
            return Worlds(masks, cands, cands - have, self._rejections(counts), self.shape_count)

        while have < n:
            if cands >= max_candidates or (max_checks is not None and checks >= max_checks):
                if allow_fewer:
                    break
                rejections = self._rejections(counts)
                worst = max(rejections.items(), key=lambda kv: kv[1]) if rejections else ("?", 0)
                seat = Seat.parse(worst[0][0]) if worst[0] != "?" else None
                why = f"with {have} of {n} worlds found: the constraint '{worst[0]}' rejected {worst[1]} of them"
                if cands < max_candidates:
                    raise SamplingTimeout(f"spent its {checks} exact checks on {cands} candidate deals {why}",
                                          found(), budget_spent=True)
                raise SamplingError(f"gave up after {cands} candidate deals {why}", seat=seat, constraint=worst[0])
            want = n - have
            B = int(min(max(64, want / rate * 1.2 + 16), 65536, max_candidates - cands))
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    if allow_fewer:
                        break
                    raise SamplingTimeout(
                        f"stopped at the deadline after {cands} candidate deals with {have} of {n} worlds found",
                        found(),
                    )
                # Shrink the batch to what the time left allows (a generous deadline changes nothing, so the worlds
                # are the same as without one); until a batch has been timed, a candidate's cost is bounded.
                B = max(1, min(B, int(left / (per_candidate or _CANDIDATE_COST_BOUND_S))))
                started = time.monotonic()
            full = self._deal_batch(B, gen)
            used = B
            if self.exact_checks:
                why, looked, calls = self._check(full, None if max_checks is None else max_checks - checks, deadline)
                checks += calls
                why, used = why[:looked], looked
                acc = np.flatnonzero(why < 0)
                if acc.size >= want:
                    used = int(acc[want - 1]) + 1
                counts += np.bincount(why[:used][why[:used] >= 0], minlength=counts.size)
                full = full[acc[:want]]
            else:
                full = full[:want]
                used = full.shape[0]
            if deadline is not None:
                per_candidate = (time.monotonic() - started) / B
            got.append(full)
            have += full.shape[0]
            cands += used
            if cands:  # (none looked at when the deadline or the check budget came before the first row)
                rate = max(have / cands, 0.5 / cands)
        return found()

    def _rejections(self, counts: np.ndarray) -> dict[str, int]:
        return {self._check_name(i): int(c) for i, c in enumerate(counts) if c}


def _randbelow(gen: np.random.Generator, total: int) -> int:
    """Exact uniform integer in [0, total) for any Python int (rejection on random bits)."""
    nbits = total.bit_length()
    nbytes = (nbits + 7) // 8
    while True:
        r = int.from_bytes(gen.bytes(nbytes), "little") >> (8 * nbytes - nbits)
        if r < total:
            return r


def _draw_rows(w: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Per row of non-negative integer weights (each row with a positive sum), an index drawn with probability
    proportional to its weight, exactly (integer arithmetic)."""
    cw = np.cumsum(w, axis=1)
    if cw.dtype == object:
        r = np.array([_randbelow(gen, int(t)) for t in cw[:, -1]], dtype=object)
    else:
        r = gen.integers(0, cw[:, -1])
    return (r[:, None] >= cw).sum(axis=1).astype(np.int64)


def _describe(p) -> str:
    d = getattr(p, "describe", None)
    return d() if callable(d) else getattr(p, "__name__", repr(p))


def sample_worlds(
    n: int,
    known: Sequence[Hand | int] | Mapping[Seat, Hand | int] | None,
    constraints: Sequence[SeatConstraints | None] | Mapping[Seat, SeatConstraints | None] | None,
    rng: "random.Random | np.random.Generator | int",
    *,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
) -> Worlds:
    """One-shot form of ``WorldSampler(known, constraints).sample(n, rng)``."""
    return WorldSampler(known, constraints).sample(n, rng, max_candidates=max_candidates)
