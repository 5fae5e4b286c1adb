"""The double-dummy oracle the selectors call: a small interface, and its default backed by ``engine.dds``.

The selectors need one thing from a double-dummy solver: for a batch of fully known positions, the tricks the side
to move takes (current trick included) after each legal card. Anything with a ``solve_cards_many`` method of that
shape can be injected (tests use an independent reference solver); runtime code uses ``engine.dds``, imported
lazily so that this package imports even before the solver is built.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from ..cards import BridgeError
from .position import SearchPosition

__all__ = ["DDOracle", "EngineDDOracle", "default_oracle", "SolverUnavailable"]


class SolverUnavailable(BridgeError):
    """The double-dummy solver (engine.dds) is not importable (not built yet?)."""


@runtime_checkable
class DDOracle(Protocol):
    """Required: ``solve_cards_many``. Optional (used by αμ below its root when present):
    ``make_cards_many(positions, needs) -> list[set[int]]``, the legal cards with which the side to move takes at
    least ``needs[i]`` tricks in position ``i`` (a target search, cheaper than scoring every card)."""

    def solve_cards_many(self, positions: Sequence[SearchPosition]) -> list[dict[int, int]]:
        """For each position: ``{card index: tricks for the side to move from here}`` over its legal cards."""
        ...


class EngineDDOracle:
    """``engine.dds`` behind the ``DDOracle`` interface, through its batch entry point ``Solver.solve_many``.

    One ``Solver`` is kept for the life of this object: its transposition table stores rank-relative sets valid for
    any deal, so it carries over between the many small, similar searches of PIMC and αμ.
    """

    def __init__(self, tt_mib: int | None = None, threads: int = 1) -> None:
        try:
            from .. import dds
        except ImportError as exc:  # pragma: no cover - depends on the build
            raise SolverUnavailable(
                "the double-dummy solver engine.dds is not built; run "
                "`.venv/bin/python setup.py build_ext --inplace`"
            ) from exc
        self._dds = dds
        self._solver = dds.Solver() if tt_mib is None else dds.Solver(tt_mib)
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        self.threads = threads  # solvers working on one batch, one thread each
        self.calls = 0

    def _batches(self, positions: Sequence[SearchPosition]):
        """(strain, indices, engine.dds positions) for each trump among ``positions`` (one solver call each)."""
        from ..cards import Card, Deal, Hand, Seat, Strain

        by_trump: dict[int, list[int]] = {}
        for i, p in enumerate(positions):
            by_trump.setdefault(p.trump, []).append(i)
        for trump, idx in by_trump.items():
            batch = [
                self._dds.Position(
                    Deal((Hand(h) for h in positions[i].hands), complete=False),
                    Seat(positions[i].leader),
                    tuple(Card.from_index(c) for c in positions[i].trick),
                )
                for i in idx
            ]
            yield Strain(trump), idx, batch

    def solve_cards_many(self, positions: Sequence[SearchPosition]) -> list[dict[int, int]]:
        out: list[dict[int, int]] = [{} for _ in positions]
        for strain, idx, batch in self._batches(positions):
            for i, res in zip(idx, self._solver.solve_many(batch, strain, self.threads)):
                out[i] = {c.index: t for c, t in res.items()}
        self.calls += len(positions)
        return out

    def make_cards_many(self, positions: Sequence[SearchPosition], needs: Sequence[int]) -> list[set[int]]:
        """For each position: the legal cards after which the side to move takes at least ``needs[i]`` tricks
        (target-mode searches: one boolean probe per card)."""
        if len(needs) != len(positions):
            raise ValueError(f"{len(positions)} positions but {len(needs)} trick targets")
        out: list[set[int]] = [set() for _ in positions]
        for strain, idx, batch in self._batches(positions):
            answers = self._solver.make_many(batch, strain, [needs[i] for i in idx], self.threads)
            for i, res in zip(idx, answers):
                out[i] = {c.index for c, ok in res.items() if ok}
        self.calls += len(positions)
        return out


def default_oracle(tt_mib: int | None = None) -> DDOracle:
    """The runtime oracle (engine.dds), with a transposition table of ``tt_mib`` MiB (None: the solver's default).
    Raises ``SolverUnavailable`` with a clear message if it is not built."""
    return EngineDDOracle(tt_mib)
