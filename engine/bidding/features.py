"""Hand features the rule language can name, computed once per hand.

Every feature is a pure function of the 13 cards, so a rule's ``when`` expression (hand features + auction state)
decides the same way for the bidder and for the sampler's exact check. Suit arguments are ``Suit`` values
(clubs = 0 ... spades = 3), matching the rule language's ``C D H S`` constants and pattern variables.
"""

from __future__ import annotations

from ..cards import FULL_SUIT, Hand

__all__ = ["HandFeatures", "FEATURE_NAMES", "FUNCTION_NAMES", "features_of", "features_of_bits", "features_into",
           "hcp_and_lengths"]

_A, _K, _Q, _J, _T = 1 << 12, 1 << 11, 1 << 10, 1 << 9, 1 << 8


def _hcp(m: int) -> int:
    return 4 * bool(m & _A) + 3 * bool(m & _K) + 2 * bool(m & _Q) + bool(m & _J)


def _stopper(m: int) -> bool:
    """A, Kx, Qxx, Jxxx or better: the usual notrump stopper test."""
    n = m.bit_count()
    return bool(m & _A) or (bool(m & _K) and n >= 2) or (bool(m & _Q) and n >= 3) or (bool(m & _J) and n >= 4)


def _quick_tricks(m: int) -> float:
    n = m.bit_count()
    if m & _A and m & _K:
        return 2.0
    if m & _A and m & _Q:
        return 1.5
    if m & _A:
        return 1.0
    if m & _K and m & _Q:
        return 1.0
    if m & _K and n >= 2:
        return 0.5
    return 0.0


def _losers(m: int) -> int:
    """Losing-trick count of one suit: missing A/K/Q among the top min(3, length) cards."""
    n = m.bit_count()
    top = min(3, n)
    held = bool(m & _A) + (bool(m & _K) if top >= 2 else 0) + (bool(m & _Q) if top >= 3 else 0)
    return top - held


_TABLE = [
    (
        _hcp(m),
        _stopper(m),
        bool(m & _A) + bool(m & _K) + bool(m & _Q),  # top honours
        bool(m & _A) + bool(m & _K) + bool(m & _Q) + bool(m & _J) + bool(m & _T),  # quality
        _quick_tricks(m),
        _losers(m),
        2 * bool(m & _A) + bool(m & _K),  # controls
    )
    for m in range(FULL_SUIT + 1)
]

#: Scalar features (names usable in ``when`` expressions).
FEATURE_NAMES = (
    "hcp", "tp", "lp", "balanced", "semibalanced", "clubs", "diamonds", "hearts", "spades", "longest", "shortest",
    "lsuit", "r20", "r15", "qt", "losers", "controls", "aces", "kings", "voids", "singletons", "doubletons",
    "fivecard", "four_card_suits", "five_card_suits", "queens",
)
#: Functions of a suit (or suits) usable in ``when`` expressions.
FUNCTION_NAMES = (
    "ln", "hcp_in", "stop", "hon", "qual", "sp", "dp", "is_longest", "good", "keycards", "has_ace", "has_king",
    "has_queen", "top2", "solid", "longer", "max_len",
)


class HandFeatures(dict):
    """``name -> value`` for every feature and suit function of one hand (a dict: it is the ``eval`` namespace)."""


# --- what a hand's shape alone decides ------------------------------------------------------------------------------
#
# The sampler's exact call checks work out the features of tens of thousands of hands per decision, so the work is
# done in tables: everything that depends on the four suit lengths alone (560 shapes) once at import, the suits'
# contents by one lookup per suit (their sums packed into one integer), and the suit functions as the bound
# ``__getitem__`` of a four-tuple wherever the answer is one value per suit.

_BALANCED = frozenset({(4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2)})
_SEMIBALANCED = frozenset({(4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2), (5, 4, 2, 2), (6, 3, 2, 2)})


def _shape_entry(lens: tuple[int, int, int, int]):
    srt = sorted(lens, reverse=True)
    shape = tuple(srt)
    longest = srt[0]
    # Highest-ranking among the longest suits: "bid the longer, the higher of two five-card suits".
    lsuit = max(range(4), key=lambda s: (lens[s], s))
    lp = sum(max(0, n - 4) for n in lens)

    def is_longest(s):
        return lsuit == s

    def longer(s, t):
        """``s`` is the suit to bid first of the two: longer, or the higher-ranking of equal length."""
        return lens[s] > lens[t] or (lens[s] == lens[t] and s > t)

    def max_len(*suits):
        return max(lens[s] for s in suits) if suits else 0

    fixed = {
        "lp": lp,
        "balanced": shape in _BALANCED,
        "semibalanced": shape in _SEMIBALANCED,
        "clubs": lens[0], "diamonds": lens[1], "hearts": lens[2], "spades": lens[3],
        "longest": longest,
        "shortest": srt[3],
        "lsuit": lsuit,
        "voids": lens.count(0),
        "singletons": lens.count(1),
        "doubletons": lens.count(2),
        "four_card_suits": sum(1 for n in lens if n >= 4),
        "five_card_suits": sum(1 for n in lens if n >= 5),
        "fivecard": longest >= 5,
        "ln": lens.__getitem__,
        "is_longest": is_longest,
        "longer": longer,
        "max_len": max_len,
    }
    # dummy points for raising suit s, less the HCP: shortness 5/3/1 with four trumps, 3/2/1 with three, else none
    short = []
    for s in range(4):
        if lens[s] >= 4:
            tab = (5, 3, 1)
        elif lens[s] == 3:
            tab = (3, 2, 1)
        else:
            short.append(0)
            continue
        short.append(sum(tab[n] for i, n in enumerate(lens) if i != s and n <= 2))
    return fixed, srt[0] + srt[1], lens[3], lp, tuple(short)


#: every 13-card shape (a hand of another size, which the rules may be asked about too, is worked out each time)
_SHAPES = {lens: _shape_entry(lens) for lens in
           ((c, d, h, 13 - c - d - h) for c in range(14) for d in range(14 - c) for h in range(14 - c - d))}

# --- what one suit's cards decide -----------------------------------------------------------------------------------

_SHIFTS = (0, 8, 16, 24, 32, 40, 48)  # hcp, 2 x quick tricks, losers, controls, aces, kings, queens (each < 256)
_PACKED = [
    sum(v << sh for v, sh in zip((r[0], int(2 * r[4]), r[5], r[6], bool(m & _A), bool(m & _K), bool(m & _Q)), _SHIFTS))
    for m, r in enumerate(_TABLE)
]
_GOOD = [r[2] >= 2 or r[3] >= 3 for r in _TABLE]  # two of the top three honours (or three of the top five)
_TOP2 = [r[2] >= 2 for r in _TABLE]
_SOLID = [r[2] == 3 or (r[2] == 2 and r[3] >= 4) for r in _TABLE]
_HAS_A = [bool(m & _A) for m in range(FULL_SUIT + 1)]
_HAS_K = [bool(m & _K) for m in range(FULL_SUIT + 1)]
_HAS_Q = [bool(m & _Q) for m in range(FULL_SUIT + 1)]


def features_of(hand: Hand) -> HandFeatures:
    return features_of_bits(hand.bits)


def features_of_bits(b: int) -> HandFeatures:
    """``features_of`` of the hand whose 52-bit mask is ``b`` (no ``Hand`` built)."""
    return features_into(HandFeatures(), b)


def features_into(f: dict, b: int) -> dict:
    """Adds the features of the hand whose 52-bit mask is ``b`` to ``f`` (an ``eval`` namespace being built: the
    sampler's exact call checks fill a copy of the auction's namespace directly) and returns it."""
    m0, m1, m2, m3 = b & FULL_SUIT, (b >> 13) & FULL_SUIT, (b >> 26) & FULL_SUIT, (b >> 39) & FULL_SUIT
    lens = (m0.bit_count(), m1.bit_count(), m2.bit_count(), m3.bit_count())
    entry = _SHAPES.get(lens)
    fixed, top_two, spades, lp, short = entry if entry is not None else _shape_entry(lens)  # (not 13 cards)
    t0, t1, t2, t3 = _TABLE[m0], _TABLE[m1], _TABLE[m2], _TABLE[m3]
    p = _PACKED[m0] + _PACKED[m1] + _PACKED[m2] + _PACKED[m3]
    hcp = p & 0xFF
    aces = (p >> 32) & 0xFF
    tp = hcp + lp
    dps = (hcp + short[0], hcp + short[1], hcp + short[2], hcp + short[3])
    f.update(fixed)
    f.update(
        hcp=hcp,
        tp=tp,  # opener's total points: HCP plus one per card past four in a suit
        r20=hcp + top_two,
        r15=hcp + spades,
        qt=((p >> 8) & 0xFF) / 2,
        losers=(p >> 16) & 0xFF,
        controls=(p >> 24) & 0xFF,
        aces=aces,
        kings=(p >> 40) & 0xFF,
        queens=(p >> 48) & 0xFF,
        hcp_in=(t0[0], t1[0], t2[0], t3[0]).__getitem__,
        stop=(t0[1], t1[1], t2[1], t3[1]).__getitem__,
        hon=(t0[2], t1[2], t2[2], t3[2]).__getitem__,
        qual=(t0[3], t1[3], t2[3], t3[3]).__getitem__,
        good=(_GOOD[m0], _GOOD[m1], _GOOD[m2], _GOOD[m3]).__getitem__,
        top2=(_TOP2[m0], _TOP2[m1], _TOP2[m2], _TOP2[m3]).__getitem__,
        solid=(_SOLID[m0], _SOLID[m1], _SOLID[m2], _SOLID[m3]).__getitem__,
        # dummy points for raising s: HCP + shortness; support points: the larger of those and total points
        dp=dps.__getitem__,
        sp=(max(dps[0], tp), max(dps[1], tp), max(dps[2], tp), max(dps[3], tp)).__getitem__,
        keycards=(aces + _HAS_K[m0], aces + _HAS_K[m1], aces + _HAS_K[m2], aces + _HAS_K[m3]).__getitem__,
        has_ace=(_HAS_A[m0], _HAS_A[m1], _HAS_A[m2], _HAS_A[m3]).__getitem__,
        has_king=(_HAS_K[m0], _HAS_K[m1], _HAS_K[m2], _HAS_K[m3]).__getitem__,
        has_queen=(_HAS_Q[m0], _HAS_Q[m1], _HAS_Q[m2], _HAS_Q[m3]).__getitem__,
    )
    return f


def hcp_and_lengths(b: int) -> tuple[int, int, int, int, int]:
    """(HCP, clubs, diamonds, hearts, spades) of the hand whose 52-bit mask is ``b``: the cheap bounds first."""
    m0, m1, m2, m3 = b & FULL_SUIT, (b >> 13) & FULL_SUIT, (b >> 26) & FULL_SUIT, (b >> 39) & FULL_SUIT
    return ((_PACKED[m0] + _PACKED[m1] + _PACKED[m2] + _PACKED[m3]) & 0xFF,
            m0.bit_count(), m1.bit_count(), m2.bit_count(), m3.bit_count())
