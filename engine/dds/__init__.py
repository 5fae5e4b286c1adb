"""Double-dummy solver: a C search core (``csrc/ddcore.c``) behind a thin Cython wrapper (``_solver.pyx``).

Facade::

    solve_table(deal)                 -> DDTable: tricks for each declarer in each strain (table[Strain][Seat])
    solve_cards(position, trump)      -> {Card: tricks}: the score of every legal card of the player to move
    solve_many(positions, trump)      -> [{Card: tricks}, ...]: the PIMC batch, one solver and table for all
    make_cards(position, trump, n)    -> {Card: bool}: does the side to move take at least n tricks after each card
                                         (target mode: one boolean search per card, cheaper than scores)

A ``Position`` is the remaining cards (a partial ``Deal``, the current trick's cards removed), the seat that led the
current trick and the cards already played to it.  Scores count the tricks that the side to move takes from the
remaining tricks, the current trick included (DDS's convention).

Each thread gets its own ``Solver`` (transposition table and ordering memory) for the module-level functions; the
core runs with the GIL released, so two threads solve in parallel.  The transposition table stores *sets* of
positions described by relative ranks (see ``csrc/ddcore.c``); such an entry is true for any deal, so a solver keeps
it from one call to the next (across declarers, strains and the worlds of a PIMC batch), which is sound.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..cards import BridgeError, Card, Deal, InvalidDealError, Seat, Strain, Suit
from ..dds_limits import DEFAULT_TT_MIB, MAX_TT_MIB
from ..deadline import DeadlineReached

from ._solver import CoreSolver

__all__ = [
    "DDTable",
    "Position",
    "Solver",
    "PositionError",
    "solve_table",
    "solve_cards",
    "solve_many",
    "make_cards",
    "DEFAULT_TT_MIB",
    "MAX_TT_MIB",
]


class PositionError(BridgeError):
    """A position that cannot arise in play (hand lengths that do not fit the trick, a revoke, a card twice)."""


@dataclass(frozen=True)
class DDTable:
    """Double-dummy table: ``table[Strain.HEARTS][Seat.SOUTH]`` (or ``table[strain, seat]``) is the number of
    tricks South takes as declarer in hearts."""

    tricks: tuple[tuple[int, int, int, int], ...]   # indexed [Strain][Seat]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            strain, seat = key
            return self.tricks[Strain(strain)][Seat(seat)]
        return self.tricks[Strain(key)]

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{"NT"|"S"|"H"|"D"|"C": {"N": n, "E": n, "S": n, "W": n}}`` (ARCHITECTURE.md's JSON contract)."""
        out = {}
        for strain in (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS):
            name = "NT" if strain == Strain.NOTRUMP else strain.letter
            out[name] = {seat.letter: self.tricks[strain][seat] for seat in Seat}
        return out

    def __str__(self) -> str:
        lines = ["      NT   S   H   D   C"]
        for seat in Seat:
            row = "".join(f"{self.tricks[st][seat]:4d}" for st in
                          (Strain.NOTRUMP, Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS))
            lines.append(f"  {seat.letter} {row}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Position:
    """A moment of the play: ``hands`` holds the cards not yet played (cards of the current trick removed),
    ``leader`` led the current trick (or is to lead if ``trick`` is empty), ``trick`` the cards played to it."""

    hands: Deal
    leader: Seat
    trick: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "leader", Seat(self.leader))
        trick = tuple(c if isinstance(c, Card) else Card.parse(c) for c in self.trick)
        object.__setattr__(self, "trick", trick)
        if len(trick) > 3:
            raise PositionError(f"a trick in progress holds at most 3 cards, got {len(trick)}")
        held = 0
        for h in self.hands.hands:
            held |= h.bits
        seen = 0
        for c in trick:
            if c.mask & held:
                raise PositionError(f"card {c} was played to the trick but is still held by {self.hands.holder(c)}")
            if c.mask & seen:
                raise PositionError(f"card {c} appears twice in the trick")
            seen |= c.mask
        n = len(self.hands[self.to_move])
        for k in range(4):
            seat = self.leader.next(k)
            want = n - 1 if k < len(trick) else n
            if len(self.hands[seat]) != want:
                raise PositionError(
                    f"{seat.title} holds {len(self.hands[seat])} cards; with {len(trick)} card(s) on the "
                    f"trick led by {self.leader.title} it should hold {want}")
        if n == 0 and trick:
            raise PositionError("no cards left to complete the trick")
        for k in range(1, len(trick)):
            if trick[k].suit != trick[0].suit and self.hands[self.leader.next(k)].length(trick[0].suit):
                raise PositionError(
                    f"{self.leader.next(k).title} discarded {trick[k]} but still holds "
                    f"{Suit(trick[0].suit).name.lower()}: a revoke")

    @classmethod
    def from_deal(cls, deal: Deal, leader: Seat) -> "Position":
        """The start of a trick: ``leader`` to lead from the hands of ``deal``."""
        return cls(deal, leader, ())

    @classmethod
    def from_play(cls, play) -> "Position":
        """The position of an ``engine.board.Play`` (its remaining cards, leader and current trick)."""
        return cls(play.remaining_deal(), play.leader, tuple(play.current_trick))

    @property
    def to_move(self) -> Seat:
        return self.leader.next(len(self.trick))

    @property
    def tricks_left(self) -> int:
        """Tricks still to be completed, the current one included."""
        return len(self.hands[self.to_move])

    def legal_cards(self) -> list[Card]:
        hand = self.hands[self.to_move]
        if self.trick:
            follow = hand.cards_in(self.trick[0].suit)
            if follow:
                return list(follow)
        return list(hand)


def _card(suit: int, rank: int) -> Card:
    """The Card for the core's (suit, rank 2..14), from the shared table of 52 (no enum construction per call)."""
    return Card.from_index(13 * suit + rank - 2)


def _bits(deal: Deal) -> tuple[int, int, int, int]:
    return tuple(h.bits for h in deal.hands)  # type: ignore[return-value]


class Solver:
    """One double-dummy solver: its own transposition table (``tt_mib`` MiB, default ``DEFAULT_TT_MIB``) and ordering memory.

    Not for sharing between threads; make one per thread (the module-level functions do that for you)."""

    def __init__(self, tt_mib: int = DEFAULT_TT_MIB, options: int | None = None) -> None:
        if not 1 <= tt_mib <= MAX_TT_MIB:
            raise ValueError(f"tt_mib must be 1..{MAX_TT_MIB}, got {tt_mib}")
        self._core = CoreSolver(tt_mib << 20)
        self._tt_mib, self._options = tt_mib, options
        self._helpers: list[Solver] = []  # extra solvers for threaded batches, created on first use
        if options is not None:  # feature switches (engine.dds._solver.OPT_*), for measurements
            self._core.set_options(options)

    @property
    def tt_bytes(self) -> int:
        return self._core.tt_bytes

    def reset(self) -> None:
        """Forget everything learnt (only needed to time cold solves: what is kept is valid for any deal)."""
        self._core.reset()
        for h in self._helpers:
            h.reset()

    def stats(self) -> dict[str, int]:
        return self._core.stats()

    def solve_table(self, deal: Deal) -> DDTable:
        if not isinstance(deal, Deal):
            raise TypeError(f"solve_table needs a Deal, got {type(deal).__name__}")
        lengths = {len(h) for h in deal.hands}
        if len(lengths) != 1:
            raise InvalidDealError("every hand must hold the same number of cards to solve a table, got "
                                   + ", ".join(f"{s.letter} {len(deal[s])}" for s in Seat))
        t = self._core.solve_table(_bits(deal))
        return DDTable(tuple(tuple(row) for row in t))

    def solve_leader(self, deal: Deal, leader: Seat, trump: Strain) -> int:
        """Tricks the side of ``leader`` takes with ``leader`` to lead in ``trump``."""
        Position(deal, leader)  # validates lengths
        return self._core.solve_leader(_bits(deal), int(Strain(trump)), int(Seat(leader)))

    def solve_cards(self, position: Position, trump: Strain, deadline: float | None = None) -> dict[Card, int]:
        """{card: tricks the side to move takes from here (current trick included)} for every legal card,
        highest-scoring first, then by suit and rank. ``deadline`` (``time.monotonic()``): the search stops there
        and raises ``DeadlineReached``."""
        return self._per_card(self._core.solve_cards, "solve_cards", position, trump, deadline=deadline)

    def make_cards(self, position: Position, trump: Strain, target: int,
                   deadline: float | None = None) -> dict[Card, bool]:
        """{card: the side to move takes at least ``target`` tricks from here (current trick included)} for every
        legal card: one boolean search per card instead of exact scores (what making or defeating needs)."""
        return self._per_card(self._core.make_cards, "make_cards", position, trump, int(target), deadline=deadline)

    def _per_card(self, core_call, name: str, position: Position, trump: Strain, *extra,
                  deadline: float | None = None) -> dict:
        """One root call of the core (scores or target mode): best answers first, then by suit and rank."""
        if not isinstance(position, Position):
            raise TypeError(f"{name} needs a Position, got {type(position).__name__}")
        if position.tricks_left == 0:
            return {}
        args = (_bits(position.hands), int(Strain(trump)), int(position.leader),
                [(int(c.suit), int(c.rank)) for c in position.trick], *extra)
        if deadline is None:
            res = core_call(*args)
        else:
            # The core reads its own monotonic clock: hand it the time left rather than a point on ours.
            self._core.set_time_limit(deadline - time.monotonic())
            try:
                res = core_call(*args)
            except TimeoutError:
                raise DeadlineReached(f"{name} stopped at the deadline") from None
            finally:
                self._core.clear_time_limit()
        res.sort(key=lambda x: (-x[2], -x[0], -x[1]))
        return {_card(s, r): v for s, r, v in res}

    def make_many(self, positions: Iterable[Position], trump: Strain, targets: Iterable[int],
                  threads: int = 1, deadline: float | None = None) -> list[dict[Card, bool]]:
        """``make_cards`` for many positions (one target each), sharing this solver's table; ``threads`` and
        ``deadline`` as in ``solve_many``."""
        jobs = list(zip(positions, targets, strict=True))
        return self._batch(lambda solver, job: solver.make_cards(job[0], trump, job[1], deadline), jobs, threads,
                           deadline)

    def solve_many(self, positions: Iterable[Position], trump: Strain, threads: int = 1,
                   deadline: float | None = None) -> list[dict[Card, int]]:
        """Score every legal card in each position (e.g. the worlds of a PIMC decision). One solver, so the
        transposition table carries over from world to world (the ordering memory is per deal: another world's
        cut-off cards are mostly wrong guesses).

        ``threads`` > 1 spreads the positions over that many solvers in as many threads (the core releases the
        GIL): this solver and ``threads - 1`` helpers kept for later calls, each with a table of the same size.
        ``deadline`` (``time.monotonic()``): every search stops there; ``DeadlineReached`` is raised with
        ``partial``, the results list with ``None`` for each position left unsolved."""
        return self._batch(lambda solver, p: solver.solve_cards(p, trump, deadline), list(positions), threads,
                           deadline)

    def solve_leaders(self, jobs: Iterable[tuple[Deal, Seat, Strain]], threads: int = 1,
                      deadline: float | None = None) -> list[int]:
        """``solve_leader`` for many full deals ``(deal, leader, trump)``: the tricks of each leader's side (a final
        contract's result is 13 minus the opening leader's). ``threads`` and ``deadline`` as in ``solve_many``."""
        def one(solver: "Solver", job) -> int:
            deal, leader, trump = job
            if deadline is None:
                return solver.solve_leader(deal, leader, trump)
            solver._core.set_time_limit(deadline - time.monotonic())
            try:
                return solver.solve_leader(deal, leader, trump)
            except TimeoutError:
                raise DeadlineReached("solve_leader stopped at the deadline") from None
            finally:
                solver._core.clear_time_limit()

        return self._batch(one, list(jobs), threads, deadline)

    def solve_tables(self, deals: Iterable[Deal], threads: int = 1, deadline: float | None = None) -> list[DDTable]:
        """``solve_table`` for many deals; ``threads`` and ``deadline`` as in ``solve_many`` (a table stops at the
        deadline too: ``DeadlineReached`` with ``partial``, ``None`` for each table not finished)."""
        def one(solver: "Solver", deal: Deal) -> DDTable:
            if deadline is None:
                return solver.solve_table(deal)
            solver._core.set_time_limit(deadline - time.monotonic())
            try:
                table = solver.solve_table(deal)
            finally:
                solver._core.clear_time_limit()
            if any(v < 0 for row in table.tricks for v in row):  # the core marks what the time limit cut off
                raise DeadlineReached("solve_table stopped at the deadline")
            return table

        return self._batch(one, list(deals), threads, deadline)

    def _batch(self, one, jobs: list, threads: int, deadline: float | None = None) -> list:
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        threads = min(threads, len(jobs))
        out: list = [None] * len(jobs)
        if threads <= 1:
            for i, job in enumerate(jobs):
                if deadline is not None and time.monotonic() >= deadline:
                    raise DeadlineReached("solving stopped at the deadline", partial=out)
                try:
                    out[i] = one(self, job)
                except DeadlineReached:
                    raise DeadlineReached("solving stopped at the deadline", partial=out) from None
            return out
        while len(self._helpers) < threads - 1:
            self._helpers.append(Solver(tt_mib=self._tt_mib, options=self._options))
        solvers = [self, *self._helpers[: threads - 1]]
        errors: list[BaseException] = []
        timed_out: list[bool] = []
        lock = threading.Lock()
        next_job = iter(range(len(jobs)))

        def work(solver: "Solver") -> None:
            while True:
                with lock:
                    if errors or timed_out:
                        return
                    i = next(next_job, None)
                if i is None:
                    return
                try:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise DeadlineReached()
                    out[i] = one(solver, jobs[i])
                except DeadlineReached:
                    with lock:
                        timed_out.append(True)
                    return
                except BaseException as exc:  # re-raised in the caller's thread below
                    with lock:
                        errors.append(exc)
                    return

        workers = [threading.Thread(target=work, args=(s,), daemon=True) for s in solvers[1:]]
        for w in workers:
            w.start()
        work(solvers[0])
        for w in workers:
            w.join()
        if errors:
            raise errors[0]
        if timed_out:
            raise DeadlineReached("solving stopped at the deadline", partial=out)
        return out


_local = threading.local()


def _default() -> Solver:
    s = getattr(_local, "solver", None)
    if s is None:
        s = _local.solver = Solver()
    return s


def solve_table(deal: Deal) -> DDTable:
    """Double-dummy table of ``deal``: ``table[strain][declarer]`` = tricks declarer takes."""
    return _default().solve_table(deal)


def solve_cards(position: Position, trump: Strain) -> dict[Card, int]:
    """Score of every legal card of the player to move (tricks for his side, current trick included)."""
    return _default().solve_cards(position, trump)


def solve_many(positions: Sequence[Position], trump: Strain, threads: int = 1) -> list[dict[Card, int]]:
    """Scores of every legal card in many positions (PIMC worlds), sharing one solver's table (``threads``
    solvers in as many threads when asked)."""
    return _default().solve_many(positions, trump, threads)


def make_cards(position: Position, trump: Strain, target: int) -> dict[Card, bool]:
    """For every legal card of the player to move: does his side take at least ``target`` tricks after it?"""
    return _default().make_cards(position, trump, target)
