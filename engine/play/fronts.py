"""Outcome vectors and Pareto fronts for αμ, as bitsets over worlds.

An outcome vector is the set of worlds in which the contract makes, stored as an ``int`` bitset (bit ``i`` =
world ``i``). Python ints are arbitrary precision, so up to 64 worlds take one machine word and more worlds simply
take more words. Every vector of a front is over the same valid world set, which the caller holds (the node's
``W``), so the "same valid mask" half of the paper's dominance test is implicit.

Operators follow the paper with the fixes in our notes (seed-alphamu-gib-aaai.md §1.3, §1.11):
- the Min product starts from ``{W}`` (all ones), the identity of the pointwise min, not from ∅;
- children of a Min node evaluated on a subset ``W1`` are lifted to ``W`` with ones outside ``W1``;
- ∅ means "this child adds nothing to its Max parent" (an early cut), never a real result.

Weights enter only through μ (``Scorer``); dominance and the fronts themselves do not depend on them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

__all__ = ["dominates", "pareto_insert", "front_max", "front_min", "front_leq", "lift", "Scorer"]

Front = list  # list[int]: pairwise non-dominated outcome vectors


def dominates(a: int, b: int) -> bool:
    """``a >= b`` pointwise (``a`` wins in every world ``b`` wins)."""
    return not (b & ~a)


def pareto_insert(front: list[int], v: int) -> list[int]:
    """Insert ``v`` in place unless some vector dominates it; drop the vectors ``v`` dominates. Returns ``front``."""
    for u in front:
        if not (v & ~u):
            return front
    front[:] = [u for u in front if u & ~v]
    front.append(v)
    return front


def front_max(front: list[int], other: Iterable[int]) -> list[int]:
    """Max node: the union of the options, reduced (in place on ``front``)."""
    for v in other:
        pareto_insert(front, v)
    return front


def front_min(front: Sequence[int], other: Sequence[int]) -> list[int]:
    """Min node (the paper's Algorithm 4): every pairing, pointwise min (``&``), reduced.

    A Max plan at a Min node is one vector per Min move; Min then takes the worst move world by world. Folding the
    moves one at a time and reducing after each fold keeps the product small.
    """
    out: list[int] = []
    for a in front:
        for b in other:
            pareto_insert(out, a & b)
    return out


def front_leq(f: Sequence[int], g: Sequence[int]) -> bool:
    """``F <= G`` (Algorithm 5): every vector of ``F`` is dominated by some vector of ``G``.

    Callers must not treat ``front_leq([], G)`` (vacuously true) as a reason to cut: see the early cut.
    """
    for v in f:
        for u in g:
            if not (v & ~u):
                break
        else:
            return False
    return True


def lift(front: Iterable[int], valid: int, node: int) -> list[int]:
    """Extend vectors over ``valid`` (a child's worlds) to ``node`` ⊇ ``valid`` with ones in ``node - valid``.

    In those worlds the Min move that led to the child is not available, so the child must not constrain the min.
    Lifting keeps the vectors pairwise non-dominated, so no reduction is needed.
    """
    extra = node & ~valid
    return [v | extra for v in front]


class Scorer:
    """μ: the weighted share of the valid worlds in which a vector wins.

    Weight sums over a bitset use one 256-entry table per byte of the bitset, so scoring a vector costs about
    n/8 table look-ups instead of n bit tests.
    """

    __slots__ = ("weights", "_tables", "n")

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = tuple(float(w) for w in weights)
        self.n = len(self.weights)
        tables = []
        for base in range(0, self.n, 8):
            chunk = self.weights[base:base + 8]
            t = [0.0] * 256
            for b in range(1, 256):
                low = b & -b
                i = low.bit_length() - 1
                t[b] = t[b ^ low] + (chunk[i] if i < len(chunk) else 0.0)
            tables.append(t)
        self._tables = tables

    def total(self, mask: int) -> float:
        s = 0.0
        for t in self._tables:
            if mask & 0xFF:
                s += t[mask & 0xFF]
            mask >>= 8
            if not mask:
                break
        return s

    def mu(self, v: int, valid: int) -> float:
        d = self.total(valid)
        return self.total(v & valid) / d if d > 0 else 0.0

    def front_mu(self, front: Sequence[int], valid: int) -> float:
        """μ(F): the best score of any vector in the front; -1 for ∅ (a cut child, worse than any real value)."""
        if not front:
            return -1.0
        d = self.total(valid)
        if d <= 0:
            return 0.0
        return max(self.total(v & valid) for v in front) / d
