"""The double-dummy oracle the selectors call: a small interface, and its default backed by ``engine.dds``.

The selectors need one thing from a double-dummy solver: for a batch of fully known positions, the tricks the side
to move takes (current trick included) after each legal card. Anything with a ``solve_cards_many`` method of that
shape can be injected (tests use an independent reference solver); runtime code uses ``engine.dds``, imported
lazily so that this package imports even before the solver is built.

Deadlines: ``until(oracle, deadline)`` makes every solve inside the ``with`` block stop at the deadline and raise
``DeadlineReached`` (its ``partial``: the results of the positions solved first, in order). ``EngineDDOracle``
interrupts a search in the middle; an oracle without an ``until`` method of its own is only checked between
positions by ``solve_cards_by``, the one call the selectors make for a batch they can cut short.
"""

from __future__ import annotations

import itertools
import time
from contextlib import contextmanager, nullcontext
from typing import ContextManager, Iterator, Protocol, Sequence, runtime_checkable

from ..cards import BridgeError
from ..deadline import DeadlineReached, earliest
from .position import SearchPosition

__all__ = ["DDOracle", "EngineDDOracle", "default_oracle", "SolverUnavailable", "until", "solve_cards_by"]


class SolverUnavailable(BridgeError):
    """The double-dummy solver (engine.dds) is not importable (not built yet?)."""


@runtime_checkable
class DDOracle(Protocol):
    """Required: ``solve_cards_many``. Optional (used by αμ below its root when present):
    ``make_cards_many(positions, needs) -> list[set[int]]``, the legal cards with which the side to move takes at
    least ``needs[i]`` tricks in position ``i`` (a target search, cheaper than scoring every card); and
    ``until(deadline)``, a context manager within which every solve stops at ``deadline`` (see module doc)."""

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
        self._deadline: float | None = None  # set by ``until``

    @contextmanager
    def until(self, deadline: float | None) -> Iterator[None]:
        """Within the block, every solve stops at ``deadline`` (nested blocks keep the earlier deadline)."""
        outer = self._deadline
        self._deadline = earliest(outer, deadline)
        try:
            yield
        finally:
            self._deadline = outer

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

    def _solve(self, positions: Sequence[SearchPosition], call, convert) -> list:
        """``call(strain, batch, indices)`` for each trump's batch, answers ``convert``ed, in the order of
        ``positions``. At the deadline: ``DeadlineReached`` with the answers of the positions solved first."""
        out: list = [None] * len(positions)
        for strain, idx, batch in self._batches(positions):
            try:
                answers = call(strain, batch, idx)
            except DeadlineReached as stop:
                for i, res in zip(idx, stop.partial):
                    out[i] = res
                self.calls += sum(r is not None for r in out)
                done = itertools.takewhile(lambda r: r is not None, out)
                raise DeadlineReached(str(stop), partial=[convert(r) for r in done]) from None
            for i, res in zip(idx, answers):
                out[i] = res
        self.calls += len(positions)
        return [convert(r) for r in out]

    def solve_cards_many(self, positions: Sequence[SearchPosition]) -> list[dict[int, int]]:
        return self._solve(positions,
                           lambda strain, batch, _: self._solver.solve_many(batch, strain, self.threads,
                                                                            self._deadline),
                           lambda res: {c.index: t for c, t in res.items()})

    def make_cards_many(self, positions: Sequence[SearchPosition], needs: Sequence[int]) -> list[set[int]]:
        """For each position: the legal cards after which the side to move takes at least ``needs[i]`` tricks
        (target-mode searches: one boolean probe per card)."""
        if len(needs) != len(positions):
            raise ValueError(f"{len(positions)} positions but {len(needs)} trick targets")
        return self._solve(positions,
                           lambda strain, batch, idx: self._solver.make_many(batch, strain, [needs[i] for i in idx],
                                                                             self.threads, self._deadline),
                           lambda res: {c.index for c, ok in res.items() if ok})


def default_oracle(tt_mib: int | None = None, core: str | None = None) -> DDOracle:
    """The runtime oracle (engine.dds), with a transposition table of ``tt_mib`` MiB (None: the solver's default).
    ``core`` ("auto" or "portable", ``PlaySettings.solver_core``) chooses the build of the search that every solver
    of the process runs (``dds._solver.set_core_variant``); None leaves it as it is. Raises ``SolverUnavailable``
    with a clear message if the solver is not built."""
    oracle = EngineDDOracle(tt_mib)
    if core is not None:
        set_solver_core(core)
    return oracle


def set_solver_core(core: str) -> str:
    """Which build of the double-dummy search the process runs: "auto" or "portable" (see ``PlaySettings``);
    returns the build now in use. Raises ``SolverUnavailable`` if the solver is not built."""
    try:
        from ..dds import _solver
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise SolverUnavailable("the double-dummy solver engine.dds is not built") from exc
    return _solver.set_core_variant(core)


def until(oracle: DDOracle, deadline: float | None) -> ContextManager:
    """``oracle.until(deadline)`` when the oracle can stop a solve at a deadline, else a block that changes nothing."""
    scope = getattr(oracle, "until", None)
    return nullcontext() if deadline is None or scope is None else scope(deadline)


def solve_cards_by(oracle: DDOracle, positions: Sequence[SearchPosition],
                   deadline: float | None) -> list[dict[int, int]]:
    """``oracle.solve_cards_many(positions)`` stopped at ``deadline``: the results of the positions solved by then,
    in order (a prefix of the batch; all of it without a deadline)."""
    if deadline is None:
        return oracle.solve_cards_many(positions)
    if getattr(oracle, "until", None) is not None:
        try:
            with oracle.until(deadline):  # type: ignore[attr-defined]
                return oracle.solve_cards_many(positions)
        except DeadlineReached as stop:
            return list(stop.partial)
    done: list[dict[int, int]] = []
    for p in positions:  # an oracle that cannot stop a solve: one position at a time, the clock read between
        if time.monotonic() >= deadline:
            break
        done.extend(oracle.solve_cards_many([p]))
    return done
