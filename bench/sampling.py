"""Constrained world sampling speed: engine.sampling against a shuffle-and-check rejection sampler, same run.

redeal (the reference the task names) has no installable release for this machine (`pip download --no-deps redeal`
and `pip index versions redeal` find no distribution). Its dealer is a rejection sampler: shuffle the undealt cards,
deal them out, build the hands, call the accept function, repeat. The reference here is that algorithm written as
fast as plain Python allows (integer card masks instead of redeal's tuple-of-frozenset hands), checking exactly the
same ``SeatConstraints``. As a stronger, non-redeal reference, a numpy-vectorised shuffle-and-check (thousands of
shuffles per call) is timed too.

Worlds per second are counted as complete worlds as masks (the form the PIMC selector uses).

    .venv/bin/python bench/sampling.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from squeeze.engine.cards import Deal, Hand, Seat, Suit  # noqa: E402
from squeeze.engine.sampling import SeatConstraints, WorldSampler, hcp_of_masks, known_cards  # noqa: E402


class Balanced:
    """4333, 4432, 5332 (picklable predicate; shape-only, so it declares ``on_shape`` and the sampler folds it into
    the shape table; the rejection references call it on every hand that reaches it)."""

    def __call__(self, hand: Hand) -> bool:
        return hand.is_balanced

    def on_shape(self, shape) -> bool:
        return tuple(sorted(shape, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))

    def describe(self) -> str:
        return "balanced"


class OpaqueBalanced:
    """The same test without ``on_shape``: the sampler must deal the hand and reject it (like the bidding module's
    exact ``CallMeaning`` predicates, which it cannot look inside)."""

    def __call__(self, hand: Hand) -> bool:
        return hand.is_balanced

    def describe(self) -> str:
        return "balanced (opaque)"


def _case_1nt(rng: random.Random, pred):
    while True:
        own = Deal.random(rng)[Seat.SOUTH]
        if own.hcp <= 12:
            break
    nt = SeatConstraints(hcp=(15, 17), lengths=((2, 5), (2, 5), (2, 4), (2, 4)), predicates=(pred,))
    return [0, 0, own.bits, 0], [None, nt, None, None]


def case_1nt(rng: random.Random):
    """South to act, East opened 1NT: 15-17, balanced, no 6-card suit, no 5-card major."""
    return _case_1nt(rng, Balanced())


def case_1nt_opaque(rng: random.Random):
    """The same 1NT opener, with "balanced" as a predicate the sampler cannot see inside."""
    return _case_1nt(rng, OpaqueBalanced())


def case_weak_two(rng: random.Random):
    """South to act, West opened a weak 2H: exactly six hearts, 5-10 HCP, at most three spades."""
    own = Deal.random(rng)[Seat.SOUTH]
    wk = SeatConstraints(hcp=(5, 10), lengths=((0, 13), (0, 13), (6, 6), (0, 3)))
    return [0, 0, own.bits, 0], [None, None, None, wk]


def case_preempt_void(rng: random.Random):
    """South declares, dummy (North) is down; West opened 3S (seven spades, 5-10 HCP), led a spade to trick 1 and
    showed out of hearts at trick 2 (discarding a club)."""
    pre = SeatConstraints(hcp=(5, 10), lengths=((1, 13), (0, 13), (0, 0), (7, 7)))
    deal = WorldSampler(None, [None, SeatConstraints(lengths=((0, 13), (0, 13), (1, 13), (1, 13))), None, pre]).sample(
        1, rng
    ).deal(0)
    w_spade = next(iter(deal[Seat.WEST].cards_in(Suit.SPADES)))
    e_spade = next(iter(deal[Seat.EAST].cards_in(Suit.SPADES)))
    w_club = deal[Seat.WEST].cards_in(Suit.CLUBS)[-1]
    e_heart = deal[Seat.EAST].cards_in(Suit.HEARTS)[-1]
    known = list(known_cards(played=[(Seat.WEST, w_spade), (Seat.EAST, e_spade), (Seat.WEST, w_club),
                                     (Seat.EAST, e_heart)]))
    known[Seat.NORTH] = deal[Seat.NORTH].bits
    known[Seat.SOUTH] = deal[Seat.SOUTH].bits
    w = SeatConstraints(hcp=(5, 10), lengths=((0, 13), (0, 13), (0, 13), (7, 7))).shown_out(Suit.HEARTS)
    return known, [None, None, None, w]


CASES = {"1nt": case_1nt, "1nt_opaque": case_1nt_opaque, "weak2": case_weak_two, "preempt_void": case_preempt_void}


def rejection_python(known, cons, n, rng: random.Random, budget_s: float):
    """redeal's algorithm in plain Python: shuffle the unseen cards, deal, check every seat; until n or time out."""
    seen = 0
    for m in known:
        seen |= m
    unseen = [i for i in range(52) if not seen >> i & 1]
    need = [13 - m.bit_count() for m in known]
    checks = [(s, c) for s, c in enumerate(cons) if c is not None]
    got = cands = 0
    t0 = time.perf_counter()
    while got < n:
        rng.shuffle(unseen)
        pos = 0
        hands = list(known)
        for s in range(4):
            k = need[s]
            for c in unseen[pos : pos + k]:
                hands[s] |= 1 << c
            pos += k
        cands += 1
        if all(c.accepts(Hand(hands[s])) for s, c in checks):
            got += 1
        if cands % 256 == 0 and time.perf_counter() - t0 > budget_s:
            break
    return got, cands, time.perf_counter() - t0


def rejection_numpy(known, cons, n, gen: np.random.Generator, budget_s: float, batch: int = 4096):
    """Vectorised shuffle-and-check: shuffles thousands of decks per call, checks lengths/HCP in numpy and the
    remaining predicates in Python on the survivors. Much faster than redeal; still a pure rejection sampler."""
    seen = 0
    for m in known:
        seen |= m
    unseen = np.array([i for i in range(52) if not seen >> i & 1], dtype=np.uint64)
    need = [13 - m.bit_count() for m in known]
    got = cands = 0
    t0 = time.perf_counter()
    bits = np.uint64(1) << unseen
    while got < n and time.perf_counter() - t0 < budget_s:
        order = np.argsort(gen.random((batch, unseen.size)), axis=1)
        pc = bits[order]
        hands = np.zeros((batch, 4), dtype=np.uint64)
        pos = 0
        for s in range(4):
            hands[:, s] = np.uint64(known[s]) | pc[:, pos : pos + need[s]].sum(axis=1, dtype=np.uint64)
            pos += need[s]
        ok = np.ones(batch, dtype=bool)
        for s, c in enumerate(cons):
            if c is None:
                continue
            h = hcp_of_masks(hands[:, s])
            ok &= (h >= c.hcp[0]) & (h <= c.hcp[1])
            for suit in range(4):
                ln = _popcount13((hands[:, s] >> np.uint64(13 * suit)) & np.uint64(0x1FFF))
                ok &= (ln >= c.lengths[suit][0]) & (ln <= c.lengths[suit][1])
            ok &= (hands[:, s] & np.uint64(c.not_held)) == 0
            ok &= (hands[:, s] & np.uint64(c.held)) == np.uint64(c.held)
        for i in np.flatnonzero(ok):
            if all(c is None or c.accepts(Hand(int(hands[i, s]))) for s, c in enumerate(cons)):
                got += 1
                if got >= n:
                    # Count only the candidates up to this acceptance.
                    cands += int(i) + 1
                    return got, cands, time.perf_counter() - t0
        cands += batch
    return got, cands, time.perf_counter() - t0


_POP13 = np.array([bin(i).count("1") for i in range(1 << 13)], dtype=np.int64)


def _popcount13(a: np.ndarray) -> np.ndarray:
    return _POP13[a.astype(np.intp)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer worlds and shorter reference budgets")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    n_ours = 2000 if args.quick else 10000
    budget = 4.0 if args.quick else 20.0
    scenarios = 2 if args.quick else 4
    print("reference: redeal is NOT installable here (no distribution on PyPI for this machine); 'rejection' is "
          "redeal's algorithm (shuffle, deal, check) in plain Python over the same SeatConstraints; "
          "'np-rejection' is a vectorised shuffle-and-check (stronger than redeal).")
    print(f"{'case':<14}{'ours w/s':>12}{'accept%':>9}{'rejection w/s':>15}{'np-rejection w/s':>18}"
          f"{'x rejection':>13}{'x np-rej':>10}")
    result = {}
    for name, make in CASES.items():
        r = random.Random(args.seed)
        ours_t = ours_n = ref_t = ref_n = ref_c = np_t = np_n = 0.0
        ours_c = 0
        for _i in range(scenarios):
            known, cons = make(r)
            t0 = time.perf_counter()
            ws = WorldSampler(known, cons)
            w = ws.sample(n_ours, r)
            ours_t += time.perf_counter() - t0
            ours_n += len(w)
            ours_c += w.candidates
            got, cands, dt = rejection_python(known, cons, n_ours, random.Random(r.random()), budget / scenarios)
            ref_t += dt
            ref_n += got
            ref_c += cands
            got, cands, dt = rejection_numpy(known, cons, n_ours, np.random.default_rng(r.getrandbits(64)),
                                             budget / scenarios)
            np_t += dt
            np_n += got
        ours = ours_n / ours_t
        # A reference that found nothing in its budget is credited with one world (a lower bound on the speedup).
        ref = max(ref_n, 1) / ref_t
        npr = max(np_n, 1) / np_t
        flag = "" if ref_n else " (reference found none: speedup is a lower bound)"
        print(f"{name:<14}{ours:>12.0f}{100 * ours_n / ours_c:>8.1f}%{ref:>15.1f}{npr:>18.1f}"
              f"{ours / ref:>13.1f}{ours / npr:>10.1f}{flag}   [reference accepted {int(ref_n)} of {int(ref_c)}]")
        result[f"speedup_vs_rejection_{name}"] = ours / ref
        result[f"speedup_vs_np_rejection_{name}"] = ours / npr
        result[f"worlds_per_s_{name}"] = ours
    print("RESULT redeal=unavailable reference=python_shuffle_and_check "
          + " ".join(f"{k}={v:.1f}" if "per_s" not in k else f"{k}={v:.0f}" for k, v in result.items()))


if __name__ == "__main__":
    main()
