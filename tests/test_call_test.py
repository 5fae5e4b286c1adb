"""The sampler's exact call test against a plain evaluation of the rules.

``features_of`` works from tables and ``CallTest`` skips candidates on their hulls, takes them on their HCP claims and
stops after the last candidate that makes the call asked about: all of it must give exactly what the straightforward
computation gives. The reference here is that computation, written out: the hand features as they were first
written (one pass over the suits, a closure per suit function) and the candidates evaluated one by one in the
auction's namespace, the first whose ``when`` holds deciding.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squeeze.config.bidding import load_system
from squeeze.engine.auction import ALL_CALLS, Auction
from squeeze.engine.bidding import Bidder
from squeeze.engine.bidding.features import FEATURE_NAMES, FUNCTION_NAMES, features_of
from squeeze.engine.bidding import interpreter
from squeeze.engine.bidding.interpreter import CallMeaning, CallTest
from squeeze.engine.cards import FULL_SUIT, Deal, Hand, Seat, Vul

_A, _K, _Q, _J, _T = 1 << 12, 1 << 11, 1 << 10, 1 << 9, 1 << 8


# --- the reference: hand features computed directly ------------------------------------------------------------------

def _ref_features(hand: Hand) -> dict:
    b = hand.bits
    masks = [(b >> (13 * s)) & FULL_SUIT for s in range(4)]
    lens = [m.bit_count() for m in masks]

    def hcp_of(m):
        return 4 * bool(m & _A) + 3 * bool(m & _K) + 2 * bool(m & _Q) + bool(m & _J)

    def stopper(m):
        n = m.bit_count()
        return bool(m & _A) or (bool(m & _K) and n >= 2) or (bool(m & _Q) and n >= 3) or (bool(m & _J) and n >= 4)

    def honours(m):
        return bool(m & _A) + bool(m & _K) + bool(m & _Q)

    def quality(m):
        return honours(m) + bool(m & _J) + bool(m & _T)

    def quick_tricks(m):
        if m & _A and m & _K:
            return 2.0
        if m & _A and m & _Q:
            return 1.5
        if m & _A:
            return 1.0
        if m & _K and m & _Q:
            return 1.0
        if m & _K and m.bit_count() >= 2:
            return 0.5
        return 0.0

    def losers(m):
        top = min(3, m.bit_count())
        return top - (bool(m & _A) + (bool(m & _K) if top >= 2 else 0) + (bool(m & _Q) if top >= 3 else 0))

    hcp = sum(hcp_of(m) for m in masks)
    srt = sorted(lens, reverse=True)
    shape = tuple(srt)
    lsuit = max(range(4), key=lambda s: (lens[s], s))
    lp = sum(max(0, n - 4) for n in lens)
    f = {
        "hcp": hcp, "lp": lp, "tp": hcp + lp,
        "balanced": shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)),
        "semibalanced": shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2), (5, 4, 2, 2), (6, 3, 2, 2)),
        "clubs": lens[0], "diamonds": lens[1], "hearts": lens[2], "spades": lens[3],
        "longest": srt[0], "shortest": srt[3], "lsuit": lsuit,
        "r20": hcp + srt[0] + srt[1], "r15": hcp + lens[3],
        "qt": sum(quick_tricks(m) for m in masks),
        "losers": sum(losers(m) for m in masks),
        "controls": sum(2 * bool(m & _A) + bool(m & _K) for m in masks),
        "aces": sum(bool(m & _A) for m in masks),
        "kings": sum(bool(m & _K) for m in masks),
        "queens": sum(bool(m & _Q) for m in masks),
        "voids": lens.count(0), "singletons": lens.count(1), "doubletons": lens.count(2),
        "four_card_suits": sum(1 for n in lens if n >= 4),
        "five_card_suits": sum(1 for n in lens if n >= 5),
        "fivecard": srt[0] >= 5,
    }

    def dp(s):
        if lens[s] >= 4:
            tab = (5, 3, 1)
        elif lens[s] == 3:
            tab = (3, 2, 1)
        else:
            return hcp
        return hcp + sum(tab[n] for i, n in enumerate(lens) if i != s and n <= 2)

    f.update({
        "ln": lambda s: lens[s],
        "hcp_in": lambda s: hcp_of(masks[s]),
        "stop": lambda s: stopper(masks[s]),
        "hon": lambda s: honours(masks[s]),
        "qual": lambda s: quality(masks[s]),
        "good": lambda s: honours(masks[s]) >= 2 or quality(masks[s]) >= 3,
        "top2": lambda s: honours(masks[s]) >= 2,
        "solid": lambda s: honours(masks[s]) == 3 or (honours(masks[s]) == 2 and quality(masks[s]) >= 4),
        "dp": dp,
        "sp": lambda s: max(dp(s), hcp + lp),
        "is_longest": lambda s: lsuit == s,
        "keycards": lambda s: f["aces"] + bool(masks[s] & _K),
        "has_ace": lambda s: bool(masks[s] & _A),
        "has_king": lambda s: bool(masks[s] & _K),
        "has_queen": lambda s: bool(masks[s] & _Q),
        "longer": lambda s, t: lens[s] > lens[t] or (lens[s] == lens[t] and s > t),
        "max_len": lambda *suits: max(lens[s] for s in suits) if suits else 0,
    })
    return f


def _same_features(hand: Hand) -> None:
    got, want = features_of(hand), _ref_features(hand)
    assert set(got) == set(want) == set(FEATURE_NAMES) | set(FUNCTION_NAMES)
    for k in FEATURE_NAMES:
        assert got[k] == want[k] and type(got[k]) is type(want[k]), (str(hand), k, got[k], want[k])
    for k in FUNCTION_NAMES:
        if k == "longer":
            args = [(s, t) for s in range(-1, 4) for t in range(-1, 4)]
        elif k == "max_len":
            args = [(), (0,), (2, 3), (0, 1, 2), (3, 2, 1, 0)]
        else:
            args = [(s,) for s in range(-4, 4)]  # -1 is a state value ("no suit"): the rules index with it
        for a in args:
            x, y = got[k](*a), want[k](*a)
            assert x == y and type(x) is type(y), (str(hand), k, a, x, y)


def test_hand_features_match_the_reference_on_20000_hands():
    rng = random.Random(36)
    deck = list(range(52))
    for _ in range(20000):
        rng.shuffle(deck)
        _same_features(Hand(sum(1 << c for c in deck[:13])))


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 51), min_size=13, max_size=13))
def test_hand_features_match_the_reference(cards):
    _same_features(Hand(sum(1 << c for c in cards)))


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 51), max_size=20))
def test_hands_of_any_size_have_the_same_features(cards):
    # the rules are asked about hands of another size too (a mistyped hand, a test's partial hand)
    _same_features(Hand(sum(1 << c for c in cards)))


# --- the reference: the first candidate whose ``when`` holds, evaluated one by one ----------------------------------

def _ref_first_call(b: Bidder, hand: Hand, dealer: Seat, calls: tuple, vul: Vul, parity: int):
    env = _ref_features(hand)
    env.update(b._auction_env(dealer, calls, vul, parity))
    for c in b.candidates(dealer, calls, vul, parity):
        env.update(c.bindings)
        if eval(c.rule.when_code, env):  # noqa: S307 - the system's own compiled expressions
            return c.call
    raise AssertionError("the synthetic pass always holds")


@pytest.fixture(scope="module")
def bidder() -> Bidder:
    return Bidder.of(load_system("sayc"))


def _auctions(bidder: Bidder, rng: random.Random, n: int):
    """Auction prefixes as the rules bid them (the sampler's diet), and random legal ones (anything else)."""
    out = []
    while len(out) < n:
        d = Deal.random(rng)
        vul = Vul(rng.randrange(4))
        a = Auction(Seat(rng.randrange(4)))
        natural = rng.random() < 0.75
        while not a.is_complete and len(a.calls) < 14:
            out.append((a, vul))
            if natural:
                call = bidder.choose(d[a.next_seat], a, vul, alternatives=False).call
            else:
                call = rng.choice([c for c in ALL_CALLS if a.is_legal(c)][:12])  # low bids and passes mostly
            a = a.then(call)
    return out[:n]


def _hands(rng: random.Random, k: int):
    """Uniform hands, and one in three drawn with high cards favoured (strong hands, where the HCP claims and the
    strong rules' hulls decide, are rare among uniform ones)."""
    deck = list(range(52))
    for i in range(k):
        if i % 3:
            rng.shuffle(deck)
            yield Hand(sum(1 << c for c in deck[:13]))
            continue
        bits = 0
        while bits.bit_count() < 13:
            c = rng.choices(deck, weights=[(c % 13 + 1) ** 2 for c in deck])[0]
            bits |= 1 << c
        yield Hand(bits)


def test_call_test_matches_the_plain_evaluation(bidder):
    """On 400 auctions and 50 hands each (20,000 hands): the compiled test's call is the reference's, every
    candidate call's ``makes`` (and the meaning predicate the sampler calls) says yes exactly for that call, and the
    rules' call alone (``choose`` without alternatives: the compiled test) is the one found with them."""
    rng = random.Random(3636)
    checked = 0
    for a, vul in _auctions(bidder, rng, 400):
        calls = tuple(a.calls)
        dealer = a.dealer
        parity = int(a.next_seat) & 1
        test = bidder.call_test(dealer, calls, vul, parity)
        offered = sorted({c.call for c in bidder.candidates(dealer, calls, vul, parity)}, key=lambda c: c.index)
        meanings = [CallMeaning("x", "x", int(dealer), tuple(str(c) for c in calls), int(vul), parity, str(c), "",
                                (), bidder) for c in offered]
        for hand in _hands(rng, 50):
            want = _ref_first_call(bidder, hand, dealer, calls, vul, parity)
            assert test.first(hand.bits) == want, (str(a), str(hand))
            assert bidder.first_call(hand, dealer, calls, vul, parity) == want
            for call, m in zip(offered, meanings):
                assert test.makes(hand.bits, call) == (call == want), (str(a), str(hand), str(call))
                assert m(hand) == (call == want)
            if checked % 5 == 0:  # the call alone (the compiled test) and with its alternatives (every 'when')
                alone, full = bidder.choose(hand, a, vul, alternatives=False), bidder.choose(hand, a, vul)
                assert alone.call == want
                assert (alone.rule_id, alone.explanation, alone.alert, alone.force) == \
                    (full.rule_id, full.explanation, full.alert, full.force)
            checked += 1
    assert checked == 20000


def test_a_remembered_answer_is_the_plain_evaluations_and_the_memory_stays_bounded(bidder, monkeypatch):
    """``makes`` remembers its answers per hand (the sampler asks again as the hidden hands repeat): asked twice,
    before and after the memory is cleared for room (a bound of 7 here), it says what the reference says."""
    monkeypatch.setattr(interpreter, "_MAKES_MEMO", 7)
    rng = random.Random(4040)
    for a, vul in _auctions(bidder, rng, 40):
        calls, dealer, parity = tuple(a.calls), a.dealer, int(a.next_seat) & 1
        test = CallTest(bidder.candidates(dealer, calls, vul, parity), bidder._auction_env(dealer, calls, vul, parity))
        offered = sorted({c.call for c in bidder.candidates(dealer, calls, vul, parity)}, key=lambda c: c.index)
        hands = list(_hands(rng, 6))
        for _ in range(2):
            for hand in hands:
                want = _ref_first_call(bidder, hand, dealer, calls, vul, parity)
                for call in offered:
                    assert test.makes(hand.bits, call) == (call == want), (str(a), str(hand), str(call))
                    assert len(test._memo) <= 7


def test_the_features_and_the_auction_namespace_share_no_name(bidder):
    # the call test fills a copy of the auction's namespace with the features: no name may be in both
    base = bidder._auction_env(Seat.NORTH, (), Vul.NONE, 0)
    assert not set(base) & (set(FEATURE_NAMES) | set(FUNCTION_NAMES))


def test_a_used_meaning_still_pickles(bidder):
    cons = bidder.explain_auction(Auction.parse("1S P 2S P"))
    south = cons[Seat.SOUTH]
    assert south.accepts(Hand.parse("Q94.K82.J732.765"))  # compiles the test
    back = pickle.loads(pickle.dumps(cons))[Seat.SOUTH]
    assert back.accepts(Hand.parse("Q94.K82.J732.765"))
    assert not back.accepts(Hand.parse("Q94.K82.AJ73.K65"))
