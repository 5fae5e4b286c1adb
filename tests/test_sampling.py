"""The constrained world sampler: exact uniformity (chi-square against exact combinatorial counts), constraint
handling, clear errors on impossible sets, determinism."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from squeeze.engine.cards import ALL_CARDS, Card, Deal, Hand, Seat, Suit
from squeeze.engine.sampling import (
    SamplingError,
    SamplingTimeout,
    SeatConstraints,
    WorldSampler,
    deals_to_masks,
    hcp_of_masks,
    known_cards,
    masks_to_deals,
    sample_worlds,
)

# ---------------------------------------------------------------------------------------------------------------
# chi-square without scipy (regularized upper incomplete gamma, Numerical Recipes' series / continued fraction)


def _gammainc_lower_reg(a: float, x: float) -> float:
    term = total = 1.0 / a
    n = a
    for _ in range(100_000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi2_sf(stat: float, dof: int) -> float:
    a, x = dof / 2, stat / 2
    if x <= 0:
        return 1.0
    if x < a + 1:
        return 1.0 - _gammainc_lower_reg(a, x)
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_p(observed, expected_probs) -> float:
    n = sum(observed)
    stat, dof = 0.0, -1
    for o, p in zip(observed, expected_probs):
        if p == 0:
            assert o == 0, "a layout of probability zero was drawn"
            continue
        stat += (o - n * p) ** 2 / (n * p)
        dof += 1
    return chi2_sf(stat, max(dof, 1))


def test_chi2_sf_matches_tables():
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(124.342, 100) == pytest.approx(0.05, abs=2e-4)


# The p-value threshold: every uniformity test below would fail on a sampler off by a few percent in any bin.
P_MIN = 1e-4

# ---------------------------------------------------------------------------------------------------------------
NORTH = Hand.parse("AK94.T82.K73.QJ5")
SOUTH = Hand.parse("QJ82.AK7.QJ2.A32")  # 8 spades between the hands, 5 missing


def _split_probs(unseen_by_suit, need_w, suit, west_ok=lambda shape: True):
    """Exact P(West gets w unseen cards of ``suit``) when West draws ``need_w`` of the unseen cards, restricted to
    West shapes accepted by ``west_ok``: counts are products of binomials (independent of the sampler's code)."""
    counts = Counter()
    for shape in itertools.product(*(range(u + 1) for u in unseen_by_suit)):
        if sum(shape) != need_w or not west_ok(shape):
            continue
        east = tuple(u - x for u, x in zip(unseen_by_suit, shape))
        if any(e < 0 for e in east):
            continue
        counts[shape[suit]] += math.prod(math.comb(u, x) for u, x in zip(unseen_by_suit, shape))
    tot = sum(counts.values())
    return {k: Fraction(v, tot) for k, v in counts.items()}


def _unseen_by_suit(mask):
    return [((mask >> (13 * s)) & 0x1FFF).bit_count() for s in range(4)]


def test_missing_trump_split_unconstrained_is_the_textbook_table():
    ws = WorldSampler([NORTH, 0, SOUTH, 0])
    w = ws.sample(20000, 11)
    west = (w.masks[:, Seat.WEST] >> np.uint64(39)) & np.uint64(0x1FFF)
    lens = np.array([int(x).bit_count() for x in west])
    obs = np.bincount(lens, minlength=6)
    # Five cards missing: 3-2 either way 67.83%, 4-1 28.26%, 5-0 3.91% (the classic a priori odds).
    probs = [math.comb(5, k) * math.comb(21, 13 - k) / math.comb(26, 13) for k in range(6)]
    assert probs[2] + probs[3] == pytest.approx(0.6783, abs=1e-4)
    assert chi_square_p(obs, probs) > P_MIN
    assert w.rejected == 0 and w.candidates == 20000


def test_trump_split_under_length_constraints_matches_exact_counts():
    # West bid: at most 2 spades, 4-6 hearts; East: at least 2 clubs.
    w_c = SeatConstraints(lengths=((0, 13), (0, 13), (4, 6), (0, 2)))
    e_c = SeatConstraints(lengths=((2, 13), (0, 13), (0, 13), (0, 13)))
    ws = WorldSampler([NORTH, 0, SOUTH, 0], [None, e_c, None, w_c])
    w = ws.sample(20000, 5)
    unseen = ALL_CARDS & ~(NORTH.bits | SOUTH.bits)
    u = _unseen_by_suit(unseen)

    def ok(shape):  # shape = West's unseen counts by Suit
        east_clubs = u[0] - shape[0]
        return shape[3] <= 2 and 4 <= shape[2] <= 6 and east_clubs >= 2

    exact = _split_probs(u, 13, Suit.SPADES, ok)
    lens = [Hand(int(m)).length(Suit.SPADES) for m in w.masks[:, Seat.WEST]]
    obs = [lens.count(k) for k in range(6)]
    assert chi_square_p(obs, [float(exact.get(k, 0)) for k in range(6)]) > P_MIN
    # And every world satisfies every constraint.
    for m in w.masks[:200]:
        assert w_c.accepts(Hand(int(m[3]))) and e_c.accepts(Hand(int(m[1])))


def test_honour_location_given_lengths_is_exact_and_matches_exact_marginals():
    # West has shown 6 hearts (a weak two): where is the missing diamond ace?
    w_c = SeatConstraints(lengths=((0, 13), (0, 13), (6, 6), (0, 13)))
    ws = WorldSampler([NORTH, 0, SOUTH, 0], [None, None, None, w_c])
    unseen = ALL_CARDS & ~(NORTH.bits | SOUTH.bits)
    u = _unseen_by_suit(unseen)
    # P(West holds DA) = E[West's diamonds / unseen diamonds] over West's admissible shapes.
    num = den = 0
    for shape in itertools.product(*(range(x + 1) for x in u)):
        if sum(shape) != 13 or shape[2] != 6:
            continue
        c = math.prod(math.comb(a, b) for a, b in zip(u, shape))
        den += c
        num += c * Fraction(shape[1], u[1])
    p_exact = num / den
    marg = ws.exact_marginals()
    assert marg[Seat.WEST][Card.parse("DA").index] == p_exact
    assert marg[Seat.EAST][Card.parse("DA").index] == 1 - p_exact
    w = ws.sample(20000, 9)
    hits = int(((w.masks[:, Seat.WEST] & np.uint64(Card.parse("DA").mask)) != 0).sum())
    assert chi_square_p([hits, 20000 - hits], [float(p_exact), 1 - float(p_exact)]) > P_MIN


def _small_setup(seed, unseen_per_seat):
    """A random deal where the seats miss only a few cards each: exact enumeration of layouts is cheap."""
    deal = Deal.random(seed)
    rng = random.Random(seed)
    known = []
    for seat in Seat:
        cards = list(deal[seat])
        rng.shuffle(cards)
        hidden = unseen_per_seat[seat]
        known.append(Hand.from_cards(cards[hidden:]).bits)
    return deal, known


def _enumerate_layouts(known, constraints):
    unseen = ALL_CARDS & ~(known[0] | known[1] | known[2] | known[3])
    cards = [i for i in range(52) if unseen >> i & 1]
    need = [13 - m.bit_count() for m in known]
    out = []
    seats = [s for s in Seat for _ in range(need[s])]
    for perm in set(itertools.permutations(seats)):
        hands = list(known)
        for c, s in zip(cards, perm):
            hands[s] |= 1 << c
        if all(constraints[s].accepts(Hand(hands[s])) for s in Seat):
            out.append(tuple(hands))
    return out


class _NotFourSpades:
    def __call__(self, hand):
        return hand.length(Suit.SPADES) != 4

    def describe(self):
        return "not exactly four spades"


class _NotFourSpadesByShape(_NotFourSpades):
    """The same test, declared shape-only: the sampler folds it into the shape table."""

    def on_shape(self, shape):
        return shape[0] != 4


@pytest.mark.parametrize("seed, pred", [(3, _NotFourSpades), (8, _NotFourSpades), (3, _NotFourSpadesByShape),
                                        (11, _NotFourSpadesByShape)])
def test_every_admissible_layout_equally_likely_three_seats_with_all_constraint_kinds(seed, pred):
    deal, known = _small_setup(seed, (0, 3, 3, 3))
    # Constraints built from the true deal so that they are satisfiable but bind.
    e, s, w = deal[Seat.EAST], deal[Seat.SOUTH], deal[Seat.WEST]
    unseen = ALL_CARDS & ~(known[0] | known[1] | known[2] | known[3])
    some_unseen_not_in_w = next(i for i in range(52) if unseen >> i & 1 and not w.bits >> i & 1)
    cons = [
        SeatConstraints(),
        SeatConstraints(hcp=(max(0, e.hcp - 2), e.hcp + 1)),
        SeatConstraints(
            lengths=tuple((max(0, s.length(x) - 1), s.length(x) + 1) for x in Suit),
            hcp=(max(0, s.hcp - 3), s.hcp + 2),
        ),
        SeatConstraints(not_held=1 << some_unseen_not_in_w, predicates=(pred(),))
        if w.length(Suit.SPADES) != 4
        else SeatConstraints(not_held=1 << some_unseen_not_in_w),
    ]
    layouts = _enumerate_layouts(known, cons)
    assert tuple(h.bits for h in deal.hands) in layouts
    ws = WorldSampler(known, cons)
    n = 40 * len(layouts)
    got = ws.sample(n, seed)
    assert len(got) == n
    if pred is _NotFourSpadesByShape:
        assert not ws._pred_checks  # applied to the shape table, never by rejection
    index = {lay: i for i, lay in enumerate(layouts)}
    obs = [0] * len(layouts)
    for row in got.masks:
        obs[index[tuple(int(x) for x in row)]] += 1  # KeyError = an inadmissible world
    assert chi_square_p(obs, [1 / len(layouts)] * len(layouts)) > P_MIN


def test_every_admissible_layout_equally_likely_two_seats_partial_exclusions():
    deal, known = _small_setup(21, (0, 5, 0, 5))
    unseen = ALL_CARDS & ~(known[0] | known[1] | known[2] | known[3])
    cards = [i for i in range(52) if unseen >> i & 1]
    # East cannot hold two of the cards West really has; West's HCP bound from the real deal.
    w_cards = [c for c in cards if deal[Seat.WEST].bits >> c & 1]
    cons = [
        SeatConstraints(),
        SeatConstraints(not_held=(1 << w_cards[0]) | (1 << w_cards[1])),
        SeatConstraints(),
        SeatConstraints(hcp=(max(0, deal[Seat.WEST].hcp - 4), deal[Seat.WEST].hcp + 1)),
    ]
    layouts = _enumerate_layouts(known, cons)
    ws = WorldSampler(known, cons)
    n = 60 * len(layouts)
    got = ws.sample(n, 4)
    index = {lay: i for i, lay in enumerate(layouts)}
    obs = [0] * len(layouts)
    for row in got.masks:
        obs[index[tuple(int(x) for x in row)]] += 1
    assert chi_square_p(obs, [1 / len(layouts)] * len(layouts)) > P_MIN


def test_four_unseen_seats_pool_uniform_over_full_deals():
    # No cards known at all, North constrained: the pooled seats must still be exactly uniform. Check the
    # distribution of East's spade length against the exact conditional count.
    n_c = SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (5, 5)))
    ws = WorldSampler(None, [n_c, None, None, None])
    w = ws.sample(20000, 2)
    lens = [Hand(int(m)).length(Suit.SPADES) for m in w.masks[:, Seat.EAST]]
    # Given North has 5 spades, East's 13 come from 39 cards holding 8 spades: hypergeometric.
    probs = [math.comb(8, k) * math.comb(31, 13 - k) / math.comb(39, 13) for k in range(9)]
    assert chi_square_p([lens.count(k) for k in range(9)], probs) > P_MIN
    assert all(Hand(int(m)).length(Suit.SPADES) == 5 for m in w.masks[:, Seat.NORTH])


def test_designated_hcp_seat_exact_distribution():
    # 1NT opener (15-17) on East: the HCP distribution must be the exact conditional one. Exact counts: East's
    # hand from the 39 unseen cards, by HCP, via a generating function over the unseen honours.
    own = NORTH
    nt = SeatConstraints(hcp=(15, 17))
    ws = WorldSampler([own, 0, 0, 0], [None, nt, None, None])
    unseen = ALL_CARDS & ~own.bits
    honours = [max(0, (i % 13) - 8) for i in range(52) if unseen >> i & 1 and i % 13 >= 9]
    spots = unseen.bit_count() - len(honours)
    by_hcp = Counter()
    for r in range(len(honours) + 1):
        for combo in itertools.combinations(honours, r):
            if 13 - r <= spots:
                by_hcp[sum(combo)] += math.comb(spots, 13 - r)
    probs = [by_hcp[h] for h in (15, 16, 17)]
    probs = [p / sum(probs) for p in probs]
    w = ws.sample(20000, 3)
    h = hcp_of_masks(w.masks[:, Seat.EAST])
    obs = [int((h == x).sum()) for x in (15, 16, 17)]
    assert sum(obs) == 20000
    assert chi_square_p(obs, probs) > P_MIN
    assert w.rejected == 0  # the designated seat's range costs no rejections


def test_vacant_places_after_show_out_exact():
    # Declarer's view: East showed out of spades on the first round (West followed). Afterwards West has 12 unknown
    # cards, East 12 ... P(West holds a given missing heart) is West's vacant places over the total, exactly.
    unseen0 = ALL_CARDS & ~(NORTH.bits | SOUTH.bits)
    w_spade = Card.parse("S7")
    e_disc = Card.parse("C8")
    assert unseen0 & w_spade.mask and unseen0 & e_disc.mask
    known = known_cards(played=[(Seat.WEST, w_spade), (Seat.EAST, e_disc)])
    known = (NORTH.bits, known[1], SOUTH.bits, known[3])
    e_c = SeatConstraints().shown_out(Suit.SPADES, played=0)
    ws = WorldSampler(known, [None, e_c, None, None])
    m = ws.exact_marginals()
    # West holds all 4 other missing spades: 12 - 4 = 8 vacant places; East has 12 vacant places.
    for c in ("HQ", "DA", "C9"):
        card = Card.parse(c)
        if unseen0 & card.mask and card != e_disc:
            assert m[Seat.WEST][card.index] == Fraction(8, 20)
            assert m[Seat.EAST][card.index] == Fraction(12, 20)
    for c in Hand(unseen0 & (0x1FFF << 39)):
        if c != w_spade:
            assert m[Seat.WEST][c.index] == 1


def test_deterministic_and_seeded_by_random_instance():
    ws = WorldSampler([NORTH, 0, 0, 0], [None, SeatConstraints(hcp=(11, 21)), None, None])
    a = ws.sample(50, random.Random(7)).masks
    b = ws.sample(50, random.Random(7)).masks
    c = ws.sample(50, 8).masks
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_worlds_roundtrip_and_known_cards_kept():
    ws = WorldSampler([NORTH, 0, SOUTH, 0])
    w = ws.sample(30, 1)
    deals = w.deals()
    assert all(d[Seat.NORTH] == NORTH and d[Seat.SOUTH] == SOUTH for d in deals)
    assert np.array_equal(deals_to_masks(deals), w.masks)
    assert masks_to_deals(w.masks)[0] == deals[0]
    played = Card.parse("SA").mask | Card.parse("HK").mask
    rem = w.remaining(played)
    assert all(int(r[0]) == NORTH.bits & ~played for r in rem)


def test_rejection_counts_reported():
    class Balanced:
        def __call__(self, h):
            return h.is_balanced

        def describe(self):
            return "balanced"

    c = SeatConstraints(hcp=(15, 17), predicates=(Balanced(),))
    ws = WorldSampler([NORTH, 0, 0, 0], [None, None, None, c])
    w = ws.sample(300, 4)
    assert w.rejected == w.candidates - 300
    assert set(w.rejections) <= {"W: balanced"} and w.rejected == sum(w.rejections.values())
    assert all(Hand(int(m)).is_balanced and 15 <= Hand(int(m)).hcp <= 17 for m in w.masks[:, 3])


# --- impossible constraint sets fail fast with the culprit named ---------------------------------------------
def test_too_many_trumps_demanded():
    c = SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (6, 13)))
    with pytest.raises(SamplingError, match="West cannot have 6-13 spades") as ei:
        WorldSampler([NORTH, 0, SOUTH, 0], [None, None, None, c])
    assert ei.value.seat == Seat.WEST


def test_two_seats_demand_more_than_exist():
    c = SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (3, 13)))
    with pytest.raises(SamplingError, match="not enough spades"):
        WorldSampler([NORTH, 0, SOUTH, 0], [None, c, None, c])


def test_unreachable_hcp():
    c = SeatConstraints(hcp=(20, 37))
    # North and South hold 29 HCP: only 11 are left.
    with pytest.raises(SamplingError, match="East cannot have 20-37 HCP"):
        WorldSampler([NORTH, 0, SOUTH, 0], [None, c, None, None])


def test_contradictions_with_known_cards():
    with pytest.raises(SamplingError, match="known to be elsewhere"):
        WorldSampler([NORTH, 0, 0, 0], [None, SeatConstraints(held=Card.parse("SA").mask), None, None])
    with pytest.raises(SamplingError, match="is said not to"):
        WorldSampler([NORTH, 0, 0, 0], [SeatConstraints(not_held=Card.parse("SA").mask), None, None, None])
    with pytest.raises(SamplingError, match="two hands"):
        WorldSampler([NORTH, NORTH, 0, 0])


def test_gives_up_on_a_predicate_nothing_meets():
    class Never:
        def __call__(self, h):
            return False

        def describe(self):
            return "a hand nobody has"

    with pytest.raises(SamplingError, match="W: a hand nobody has") as ei:
        WorldSampler([NORTH, 0, 0, 0], [None, None, None, SeatConstraints(predicates=(Never(),))]).sample(
            5, 1, max_candidates=5000
        )
    assert ei.value.seat == Seat.WEST


def test_exact_check_budget_bounds_the_predicate_calls_and_replays_from_the_seed():
    """``max_checks`` caps the costly part (the exact predicates, called per candidate) by count: the sampler gives
    up after that many calls with a clear error, and within the budget it deals the same worlds as without one."""
    class Rare:
        calls = 0

        def __call__(self, h):
            Rare.calls += 1
            return h.length(Suit.SPADES) >= 7

        def describe(self):
            return "seven or more spades"

    west = SeatConstraints(predicates=(Rare(),))
    with pytest.raises(SamplingTimeout, match=r"spent its 300 exact checks .*W: seven or more spades") as ei:
        WorldSampler([NORTH, 0, 0, 0], [None, None, None, west]).sample(50, 3, max_checks=300)
    assert Rare.calls == 300 and 0 < len(ei.value.worlds) < 50  # the worlds it found come with it
    free = WorldSampler([NORTH, 0, 0, 0], [None, None, None, west]).sample(3, 4)
    capped = WorldSampler([NORTH, 0, 0, 0], [None, None, None, west]).sample(3, 4, max_checks=100_000)
    assert (free.masks == capped.masks).all() and free.candidates == capped.candidates
    few = WorldSampler([NORTH, 0, 0, 0], [None, None, None, west]).sample(50, 3, max_checks=300, allow_fewer=True)
    assert (few.masks == ei.value.worlds.masks).all()


def test_held_cards_are_placed_and_shown_out_suits_respected():
    held = Card.parse("HA").mask | Card.parse("CK").mask
    c_w = SeatConstraints(held=held).shown_out(Suit.DIAMONDS)
    w = sample_worlds(200, [NORTH, 0, 0, 0], [None, None, None, c_w], 12)
    for m in w.masks[:, 3]:
        h = Hand(int(m))
        assert int(m) & held == held and h.length(Suit.DIAMONDS) == 0


def test_shape_only_predicate_never_rejects_and_matches_plain_predicate():
    class Bal:
        def __call__(self, h):
            return h.is_balanced

        def describe(self):
            return "balanced"

    class BalShape(Bal):
        def on_shape(self, shape):
            return tuple(sorted(shape, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))

    def shapes(pred, seed):
        c = SeatConstraints(hcp=(15, 17), predicates=(pred(),))
        w = WorldSampler([NORTH, 0, 0, 0], [None, c, None, None]).sample(6000, seed)
        return w, Counter(Hand(int(m)).shape for m in w.masks[:, 1])

    w1, a = shapes(Bal, 1)
    w2, b = shapes(BalShape, 2)
    assert w2.rejected == 0 and w1.rejected > 0
    keys = sorted(set(a) | set(b))
    # Two-sample chi-square: the same distribution of shapes either way.
    stat = sum((a[k] - b[k]) ** 2 / (a[k] + b[k]) for k in keys)
    assert chi2_sf(stat, len(keys) - 1) > P_MIN
    with pytest.raises(SamplingError, match="no shape allowed"):
        WorldSampler([NORTH, 0, 0, 0], [None, SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (7, 13)),
                                                                predicates=(BalShape(),)), None, None])


def test_big_integer_path_fifty_two_unseen_cards_three_shape_seats():
    # Nothing known, North and East constrained, South and West pooled: the layout counts exceed 2**62, so shape
    # choice runs on exact Python integers. Check card marginals against the sampler's exact ones.
    n_c = SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (5, 6)))
    e_c = SeatConstraints(lengths=((0, 13), (0, 13), (4, 4), (0, 13)))
    ws = WorldSampler(None, [n_c, e_c, None, None])
    assert not ws._exact64
    exact = ws.exact_marginals()
    w = ws.sample(4000, 6)
    for name, seat in (("SA", Seat.NORTH), ("HK", Seat.EAST), ("HK", Seat.NORTH), ("C2", Seat.WEST)):
        c = Card.parse(name)
        p = float(exact[seat][c.index])
        hits = int(((w.masks[:, seat] & np.uint64(c.mask)) != 0).sum())
        assert chi_square_p([hits, len(w) - hits], [p, 1 - p]) > P_MIN
    assert all(Hand(int(m)).length(Suit.HEARTS) == 4 for m in w.masks[:, Seat.EAST])
    # North's 5-6 spades: 5 more likely than 6 in exactly the ratio of the layout counts.
    assert sum(exact[Seat.NORTH][i] for i in range(39, 52)) == pytest.approx(
        sum(Hand(int(m)).length(Suit.SPADES) for m in w.masks[:, 0]) / len(w), abs=0.05)


def test_fully_known_deal_and_zero_worlds():
    d = Deal.random(1)
    ws = WorldSampler([h.bits for h in d.hands])
    assert ws.sample(3, 1).deal(2) == d and ws.shape_count == 1
    assert len(ws.sample(0, 1)) == 0
    with pytest.raises(SamplingError, match="does not satisfy"):
        WorldSampler([h.bits for h in d.hands], [SeatConstraints(hcp=(d[0].hcp + 1, 37)), None, None, None])


def test_hcp_lower_bound_uses_the_cheapest_honours():
    """South (11 HCP seen) gets two of SA SK SQ: 16-18 is reachable, so 15-17 must not be refused up front."""
    from squeeze.engine.cards import Hand
    from squeeze.engine.sampling import SeatConstraints, WorldSampler

    known = [Hand.parse(x) for x in ("T2.K5.AQ42.KQJ53", "J985.JT42.653.98", "7.AQ86.J8.AT72", "643.973.KT97.64")]
    sampler = WorldSampler(known, [SeatConstraints(), SeatConstraints(), SeatConstraints(hcp=(15, 17)), SeatConstraints()])
    worlds = sampler.sample(200, 3)
    south_hcp = {Hand(int(m)).hcp for m in worlds.masks[:, 2]}
    assert south_hcp == {16, 17}  # SK+SQ (16) and SA+SQ (17); SA+SK (18) is outside the range
