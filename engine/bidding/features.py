"""Hand features the rule language can name, computed once per hand.

Every feature is a pure function of the 13 cards, so a rule's ``when`` expression (hand features + auction state)
decides the same way for the bidder and for the sampler's exact check. Suit arguments are ``Suit`` values
(clubs = 0 ... spades = 3), matching the rule language's ``C D H S`` constants and pattern variables.
"""

from __future__ import annotations

from ..cards import FULL_SUIT, Hand

__all__ = ["HandFeatures", "FEATURE_NAMES", "FUNCTION_NAMES", "features_of"]

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


def features_of(hand: Hand) -> HandFeatures:
    b = hand.bits
    masks = [(b >> (13 * s)) & FULL_SUIT for s in range(4)]
    rows = [_TABLE[m] for m in masks]
    lens = [m.bit_count() for m in masks]
    hcp = sum(r[0] for r in rows)
    srt = sorted(lens, reverse=True)
    shape = tuple(srt)
    longest = srt[0]
    # Highest-ranking among the longest suits: "bid the longer, the higher of two five-card suits".
    lsuit = max(range(4), key=lambda s: (lens[s], s))
    lp = sum(max(0, n - 4) for n in lens)
    f = HandFeatures()
    f["hcp"] = hcp
    f["lp"] = lp
    f["tp"] = hcp + lp  # opener's total points: HCP plus one per card past four in a suit
    f["balanced"] = shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))
    f["semibalanced"] = shape in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2), (5, 4, 2, 2), (6, 3, 2, 2))
    f["clubs"], f["diamonds"], f["hearts"], f["spades"] = lens
    f["longest"] = longest
    f["shortest"] = srt[3]
    f["lsuit"] = lsuit
    f["r20"] = hcp + srt[0] + srt[1]
    f["r15"] = hcp + lens[3]
    f["qt"] = sum(r[4] for r in rows)
    f["losers"] = sum(r[5] for r in rows)
    f["controls"] = sum(r[6] for r in rows)
    f["aces"] = sum(bool(m & _A) for m in masks)
    f["kings"] = sum(bool(m & _K) for m in masks)
    f["queens"] = sum(bool(m & _Q) for m in masks)
    f["voids"] = lens.count(0)
    f["singletons"] = lens.count(1)
    f["doubletons"] = lens.count(2)
    f["four_card_suits"] = sum(1 for n in lens if n >= 4)
    f["five_card_suits"] = sum(1 for n in lens if n >= 5)
    f["fivecard"] = longest >= 5

    def ln(s):
        return lens[s]

    def hcp_in(s):
        return rows[s][0]

    def stop(s):
        return rows[s][1]

    def hon(s):
        return rows[s][2]

    def qual(s):
        return rows[s][3]

    def good(s):
        """A good suit: two of the top three honours (or three of the top five)."""
        return rows[s][2] >= 2 or rows[s][3] >= 3

    def top2(s):
        return rows[s][2] >= 2

    def solid(s):
        return rows[s][2] == 3 or (rows[s][2] == 2 and rows[s][3] >= 4)

    def dp(s):
        """Dummy points for raising ``s``: HCP + shortness (5/3/1 with four trumps, 3/2/1 with three)."""
        if lens[s] >= 4:
            tab = (5, 3, 1)
        elif lens[s] == 3:
            tab = (3, 2, 1)
        else:
            return hcp
        return hcp + sum(tab[n] for i, n in enumerate(lens) if i != s and n <= 2)

    def sp(s):
        """Support points: the larger of dummy points and total points (a long-trump hand counts length)."""
        return max(dp(s), hcp + lp)

    def is_longest(s):
        return lsuit == s

    def keycards(s):
        return f["aces"] + bool(masks[s] & _K)

    def has_ace(s):
        return bool(masks[s] & _A)

    def has_king(s):
        return bool(masks[s] & _K)

    def has_queen(s):
        return bool(masks[s] & _Q)

    def longer(s, t):
        """``s`` is the suit to bid first of the two: longer, or the higher-ranking of equal length."""
        return lens[s] > lens[t] or (lens[s] == lens[t] and s > t)

    def max_len(*suits):
        return max(lens[s] for s in suits) if suits else 0

    for fn in (ln, hcp_in, stop, hon, qual, sp, dp, is_longest, good, keycards, has_ace, has_king, has_queen,
               top2, solid, longer, max_len):
        f[fn.__name__] = fn
    return f
