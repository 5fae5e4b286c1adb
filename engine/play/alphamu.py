"""αμ search (Cazenave & Ventos) for the declaring side, with our notes' fixes.

Max is the declaring side (declarer and dummy, one agent seeing 26 cards); Min is the defence, modelled as one
player that knows the world and may choose differently in each. Each node returns a Pareto front of outcome
vectors (bitsets over the worlds still possible there, see ``fronts``). Max must play the same card in every world
that shares a public state, which removes strategy fusion; fronts instead of single numbers remove non-locality.

- Leaves come right after the M-th Max move. A Max node with one Max move left asks the oracle once per world for
  all its cards (``solve_cards``), so a leaf costs no extra solver call and M = 1 *is* our PIMC (same solve, same
  tie-break), as the paper states.
- Transposition table across iterative-deepening iterations (key: who played which card, current trick, leader,
  tricks won, world set): fronts seed the early cut and move ordering; an entry completed in the current iteration
  is exact and returned at once (notes §1.11 pitfall 4).
- Early cut (Min child of a Max node whose stored front is ≤ the parent's front so far, only when an entry
  exists), the extra in-loop Min cut (pitfall 6; partial fronts never stored), and the root cut.
- Equivalent cards: Max plays one card per class (public knowledge). Min cards are merged only when they are legal
  in exactly the same worlds and equivalent in each (``min_equivalence``), which is exact. Merging world by world
  would be unsound: it removes the card common to many worlds that lets Min hide the layout (we measured it turning
  the J876 position's 7/8 into a false 8/8).
- Weights enter only through μ. Iterative deepening on M under a time budget; iteration 1 always completes, so a
  move is always ready, and a cut-off iteration falls back to the last complete one.
- A decision's ``deadline`` (absolute, ``time.monotonic()``) is harder than the budget: the deeper iterations stop
  at the sooner of the two, and even iteration 1 stops there, the move then being PIMC's over the worlds solved
  (``DeadlineReached`` if not one was).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..cards import BridgeError, Card
from ..deadline import DeadlineReached, earliest
from .fronts import Scorer, front_leq, front_max, front_min, lift
from .oracle import DDOracle, solve_cards_by, until
from ..board import legal_mask, trick_winner_index
from .position import SearchPosition, Root, equivalence_reps, iter_bits

__all__ = ["AlphaMuOptions", "AlphaMuResult", "MoveValue", "AlphaMu", "alphamu_choose"]

EPS = 1e-9


@dataclass(frozen=True)
class AlphaMuOptions:
    max_m: int = 3
    budget_s: float | None = None  # wall-clock budget for iterations after the first (None: no limit)
    tt: bool = True
    early_cut: bool = True
    root_cut: bool = True
    min_cut: bool = True  # extra cut inside Min nodes (notes §1.11 pitfall 6)
    min_equivalence: bool = True

    def __post_init__(self) -> None:
        if self.max_m < 1:
            raise BridgeError(f"αμ needs max_m >= 1, got {self.max_m}")
        if self.budget_s is not None and self.budget_s < 0:
            raise BridgeError(f"time budget must be >= 0 s, got {self.budget_s}")


@dataclass(frozen=True)
class MoveValue:
    card: Card
    mu: float  # weighted probability of making at the deepest depth searched (an upper bound if a cut skipped it)
    tricks: float  # double-dummy mean tricks (tie-break), from the first iteration


@dataclass(frozen=True)
class AlphaMuResult:
    card: Card
    mu: float
    m: int  # deepest completed iteration
    worlds: int
    forced: bool
    pimc_card: Card  # the M = 1 (PIMC) choice, to count discrepancies
    values: tuple[MoveValue, ...] = ()
    dd_positions: int = 0
    nodes: int = 0
    seconds: float = 0.0
    timed_out: bool = False  # an iteration was stopped (by the budget or the deadline)
    cut_short: bool = False  # the decision's deadline, not the budget, stopped it (iteration 1 maybe included)


class _Timeout(Exception):
    pass


@dataclass
class _Entry:
    front: list[int]
    best: int | None
    iteration: int
    exact: bool = True


@dataclass(slots=True)
class _Node:
    played: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    dt: int
    ft: int


class AlphaMu:
    """One αμ decision. ``run()`` performs the iterative deepening and returns an ``AlphaMuResult``."""

    def __init__(self, root: Root, oracle: DDOracle, options: AlphaMuOptions = AlphaMuOptions()) -> None:
        if not root.mover_is_declarer_side:
            raise BridgeError("αμ searches for the declaring side; the defence uses PIMC")
        self.root = root
        self.oracle = oracle
        self.opt = options
        partner = (root.to_move + 2) % 4
        if any(w[partner] != root.worlds[0][partner] for w in root.worlds):
            raise BridgeError("αμ needs the same cards for both declaring hands in every world (dummy is seen)")
        live = [i for i, w in enumerate(root.weights) if w > 0]
        self.worlds = [root.worlds[i] for i in live]
        self.scorer = Scorer([root.weights[i] for i in live])
        self.n = len(self.worlds)
        self.all = (1 << self.n) - 1
        self.trump = root.trump
        self.decl = root.declarer
        self.dummy = (root.declarer + 2) % 4
        self.target = root.target
        self.slack = root.tricks_left - root.target  # the defence sets the contract by taking more than this
        w0 = root.worlds[0]
        self.root_alive = w0[0] | w0[1] | w0[2] | w0[3]
        self.tt: dict[tuple, _Entry] = {}
        self.iteration = 0
        self.deadline: float | None = None
        self.dd_positions = 0
        self.nodes = 0
        self.horizon_hit = False
        self.root_node = _Node((0, 0, 0, 0), root.trick, root.leader, 0, 0)

    # -- state helpers -------------------------------------------------------------------------------------------
    def _is_max(self, seat: int) -> bool:
        return seat == self.decl or seat == self.dummy

    def _alive(self, node: _Node) -> int:
        gone = node.played[0] | node.played[1] | node.played[2] | node.played[3]
        m = self.root_alive & ~gone
        for c in node.trick:
            m |= 1 << c
        return m

    def _play(self, node: _Node, card: int) -> _Node:
        seat = (node.leader + len(node.trick)) % 4
        played = list(node.played)
        played[seat] |= 1 << card
        trick = node.trick + (card,)
        if len(trick) == 4:
            w = trick_winner_index(trick, node.leader, self.trump)
            if self._is_max(w):
                return _Node(tuple(played), (), w, node.dt + 1, node.ft)  # type: ignore[arg-type]
            return _Node(tuple(played), (), w, node.dt, node.ft + 1)  # type: ignore[arg-type]
        return _Node(tuple(played), trick, node.leader, node.dt, node.ft)  # type: ignore[arg-type]

    def _key(self, node: _Node, W: int) -> tuple:
        return (node.played, node.trick, node.leader, node.dt, W)

    def _hands(self, node: _Node, w: int) -> tuple[int, int, int, int]:
        h = self.worlds[w]
        p = node.played
        return (h[0] & ~p[0], h[1] & ~p[1], h[2] & ~p[2], h[3] & ~p[3])

    def _max_moves(self, node: _Node, seat: int) -> list[int]:
        hand = self.worlds[0][seat] & ~node.played[seat]
        legal = legal_mask(hand, node.trick)
        return list(iter_bits(equivalence_reps(legal, hand, self._alive(node), top=not node.trick)))

    def _min_moves(self, node: _Node, seat: int, W: int) -> dict[int, int]:
        """Defender cards at ``node``, each with the worlds (bitset) in which it is legal.

        With ``min_equivalence``, cards legal in exactly the same worlds and equivalent in every one of them are
        merged (the lowest is kept): their subtrees are then identical, so this is exact. Merging cards that are
        equivalent only world by world would be cheaper but unsound: it takes from Min the "hiding" card common to
        many worlds and so leaks the layout to Max.
        """
        groups: dict[int, int] = {}
        played = node.played[seat]
        trick = node.trick
        hands = {}
        for w in iter_bits(W):
            hand = self.worlds[w][seat] & ~played
            hands[w] = hand
            bit = 1 << w
            for c in iter_bits(legal_mask(hand, trick)):
                groups[c] = groups.get(c, 0) | bit
        if not self.opt.min_equivalence or len(groups) < 2:
            return groups
        alive = self._alive(node)
        merged: dict[int, int] = {}
        prev = -1
        for c in sorted(groups):
            if prev >= 0 and prev // 13 == c // 13 and groups[prev] == groups[c]:
                between = alive & ((1 << c) - (1 << (prev + 1)))
                if all(not (between & ~hands[w]) for w in iter_bits(groups[c])):
                    continue  # equivalent to the kept card ``rep`` below it in every world where either is legal
            merged[c] = groups[c]
            prev = c
        return merged

    # -- leaves --------------------------------------------------------------------------------------------------
    def _leaf_batch(self, node: _Node, W: int, moves: list[int], *, tricks_needed: bool = True,
                    deadline: float | None = None) -> tuple[dict[int, int], dict[int, float], int]:
        """Outcome vector (over ``W``) of every Max move at ``node``, one solver call per world; mean tricks; and
        the worlds solved (``W`` itself, unless ``deadline`` stopped the scoring solves first).

        Below the root only make/fail matters; an oracle with the optional ``make_cards_many(positions, needs)``
        (the cards reaching a trick target: a cheaper "target" search) is then used instead of full scores.
        """
        ws = list(iter_bits(W))
        positions = [SearchPosition(self._hands(node, w), node.trick, node.leader, self.trump) for w in ws]
        need = self.target - node.dt
        self.dd_positions += len(positions)
        target_mode = getattr(self.oracle, "make_cards_many", None)
        if not tricks_needed and target_mode is not None:
            makes = target_mode(positions, [need] * len(positions))
            vecs = {m: 0 for m in moves}
            for w, ok in zip(ws, makes):
                bit = 1 << w
                for m in moves:
                    if m in ok:
                        vecs[m] |= bit
            return vecs, {}, W
        results = solve_cards_by(self.oracle, positions, deadline)
        ws = ws[: len(results)]
        W = sum(1 << w for w in ws)
        vecs = {m: 0 for m in moves}
        tricks = {m: 0.0 for m in moves}
        wts = self.scorer.weights
        for w, res in zip(ws, results):
            bit = 1 << w
            for m in moves:
                t = res.get(m)
                if t is None:
                    raise BridgeError(f"the solver gave no value for {Card.from_index(m)}")
                if t >= need:
                    vecs[m] |= bit
                tricks[m] += wts[w] * t
        tot = self.scorer.total(W) or 1.0
        return vecs, {m: node.dt + tricks[m] / tot for m in moves}, W

    # -- search --------------------------------------------------------------------------------------------------
    def _search(self, node: _Node, M: int, W: int, alpha: list[int] | None) -> list[int]:
        self.nodes += 1
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Timeout
        if node.dt >= self.target:
            return [W]
        if node.ft > self.slack:
            return [0]
        seat = (node.leader + len(node.trick)) % 4
        key = self._key(node, W)
        entry = self.tt.get(key) if self.opt.tt else None
        if entry is not None and entry.iteration == self.iteration and entry.exact:
            return entry.front  # solved earlier in this iteration (a transposition): exact
        if self._is_max(seat):
            moves = self._max_moves(node, seat)
            if entry is not None and entry.best in moves:
                moves.remove(entry.best)
                moves.insert(0, entry.best)
            if M <= 1:
                try:
                    return self._max_leaf(node, key, W, moves)[0]
                except DeadlineReached:
                    raise _Timeout from None  # the oracle stopped at the decision's deadline (``until`` below)
            front: list[int] = []
            best, best_mu = None, -2.0
            for m in moves:
                f = self._search(self._play(node, m), M - 1, W, front if self.opt.early_cut else None)
                front_max(front, f)
                mu = self.scorer.front_mu(f, W)
                if mu > best_mu + EPS:
                    best, best_mu = m, mu
            if self.opt.tt:
                self.tt[key] = _Entry(list(front), best, self.iteration)
            return front
        # Min to play.
        if alpha is not None and entry is not None and front_leq(entry.front, alpha):
            return []  # EARLY CUT: even the shallower (optimistic) front adds nothing to the Max parent
        groups = self._min_moves(node, seat, W)
        order = list(groups)
        if entry is not None and entry.best in groups:
            order.remove(entry.best)
            order.insert(0, entry.best)
        mini = [W]
        worst, worst_mu = None, 2.0
        for m in order:
            W1 = groups[m]
            f = self._search(self._play(node, m), M, W1, None)
            mu = self.scorer.front_mu(f, W1)
            if mu < worst_mu - EPS:
                worst, worst_mu = m, mu
            mini = front_min(mini, lift(f, W1, W))
            if self.opt.min_cut and alpha is not None and front_leq(mini, alpha):
                return []  # the product only shrinks: this child cannot add an option (partial front not stored)
        if self.opt.tt:
            self.tt[key] = _Entry(list(mini), worst, self.iteration)
        return mini

    def _max_leaf(self, node: _Node, key: tuple, W: int, moves: list[int], *, tricks_needed: bool = False,
                  deadline: float | None = None):
        self.horizon_hit = True
        vecs, tricks, solved = self._leaf_batch(node, W, moves, tricks_needed=tricks_needed, deadline=deadline)
        if solved != W:
            return [], vecs, tricks, solved  # stopped by the deadline: the table holds exact fronts only
        front: list[int] = []
        best, best_mu = None, -2.0
        for m in moves:
            front_max(front, [vecs[m]])
            mu = self.scorer.mu(vecs[m], W)
            if mu > best_mu + EPS:
                best, best_mu = m, mu
            if self.opt.tt:
                # Seed the next iteration's early cuts with the leaf value of each child.
                self.tt[self._key(self._play(node, m), W)] = _Entry([vecs[m]], None, self.iteration)
        if self.opt.tt:
            self.tt[key] = _Entry(list(front), best, self.iteration)
        return front, vecs, tricks, W

    # -- driver --------------------------------------------------------------------------------------------------
    def run(self, deadline: float | None = None) -> AlphaMuResult:
        """``deadline``: the decision's (see module doc); ``None``: only the options' budget limits the search."""
        t0 = time.monotonic()
        root = self.root
        moves = list(iter_bits(root.candidates()))
        if not moves:
            raise BridgeError("no legal card to play")
        if len(moves) == 1:
            c = Card.from_index(moves[0])
            return AlphaMuResult(c, 1.0, 0, self.n, True, c)
        node = self.root_node
        W = self.all
        # Iteration 1 (= PIMC): interrupted only by the decision's deadline, so a move is always ready.
        self.iteration = 1
        key = self._key(node, W)
        _, vecs, tricks, solved = self._max_leaf(node, key, W, moves, tricks_needed=True, deadline=deadline)
        if not solved:
            raise DeadlineReached("αμ: no world solved before the deadline")
        mu = {m: self.scorer.mu(vecs[m], solved) for m in moves}

        def pick(scores: dict[int, float], order: list[int]) -> int:
            return max(order, key=lambda m: (round(scores[m], 9), round(tricks[m], 9), -order.index(m)))

        best = pick(mu, moves)
        pimc = best
        # Later iterations try moves in the order of the last iteration's values (best first).
        order = sorted(moves, key=lambda m: (round(mu[m], 9), round(tricks[m], 9), -moves.index(m)), reverse=True)
        done_m, timed_out = 1, solved != W
        budget = None if self.opt.budget_s is None else t0 + self.opt.budget_s
        self.deadline = earliest(budget, deadline)
        prev_best_mu = mu[best]
        for M in range(2, self.opt.max_m + 1):
            if timed_out or not self.horizon_hit or prev_best_mu <= EPS:
                break  # deeper search cannot change anything: no leaf was cut short, or nothing can score above 0
            self.horizon_hit = False
            self.iteration = M
            scores: dict[int, float] = {}
            cut: set[int] = set()
            front: list[int] = []
            try:
                with until(self.oracle, deadline):  # leaf solves stop at the decision's deadline (the budget is softer)
                    for m in order:
                        f = self._search(self._play(node, m), M - 1, W, front if self.opt.early_cut else None)
                        if f:
                            scores[m] = self.scorer.front_mu(f, W)
                        else:
                            # Cut: provably adds nothing to the moves already searched; an upper bound for display.
                            cut.add(m)
                            scores[m] = min(mu[m], self.scorer.front_mu(front, W))
                        front_max(front, f)
                        if self.opt.root_cut and m not in cut and scores[m] >= prev_best_mu - EPS:
                            break  # ROOT CUT: a deeper search never scores higher, so this move is best
            except _Timeout:
                timed_out = True
                # Pitfall 7: a move already searched at this depth that reached the previous best is provably best.
                hit = [m for m in scores if m not in cut and scores[m] >= prev_best_mu - EPS]
                if hit:
                    best = hit[0]
                    mu.update(scores)
                    done_m = M
                break
            searched = [m for m in order if m in scores and m not in cut]
            best = pick(scores, searched)
            mu.update(scores)
            for m in order:
                if m not in scores:
                    mu[m] = min(mu[m], prev_best_mu)  # not searched: bounded by the previous best
            prev_best_mu = scores[best]
            order = sorted(order, key=lambda m: (round(mu[m], 9), round(tricks[m], 9), -order.index(m)),
                           reverse=True)
            done_m = M
        values = tuple(
            MoveValue(Card.from_index(m), mu[m], tricks[m])
            for m in sorted(moves, key=lambda m: (round(mu[m], 9), round(tricks[m], 9)), reverse=True)
        )
        cut_short = solved != W or (timed_out and deadline is not None and self.deadline == deadline)
        return AlphaMuResult(
            Card.from_index(best), mu[best], done_m, solved.bit_count(), False, Card.from_index(pimc), values,
            self.dd_positions, self.nodes, time.monotonic() - t0, timed_out, cut_short,
        )


def alphamu_choose(root: Root, oracle: DDOracle, options: AlphaMuOptions = AlphaMuOptions(),
                   deadline: float | None = None) -> AlphaMuResult:
    """Best card for the declaring side by αμ over ``root``'s worlds (M up to ``options.max_m``), by ``deadline``
    if given (see module doc)."""
    return AlphaMu(root, oracle, options).run(deadline)
