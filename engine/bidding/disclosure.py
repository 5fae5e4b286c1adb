"""An opponent's explanation of a call, read for the ranges it states: HCP and suit lengths.

Robots at a Blue Chip table explain their alerted calls in text, and the robots that come from BBO's world (GIB,
BEN) write the hand they show as ranges, one item per ``;``: ``4+!H`` (four or more hearts), ``3-!S`` (at most
three), ``3-5!C``, ``3=!H`` (exactly three), ``11-13 HCP``, ``19+ HCP``, ``11- HCP``; a suit may also be a symbol
(``5+♠``) or a letter without the ``!``; a bare count (``3!S``) names a call as often as a length and is not read,
while a bare HCP figure is exact (``15 HCP``). Everything else (a convention's name, "Artificial", "Forcing") is
left.
Their explanation is their system, which ours may not know: the sampler takes its ranges for that call
(``Bidder.explain_auction``), instead of reading the call by our rules as if it were natural.

``read_disclosure`` gives ``None`` when the text states no range, or ranges no hand can have (a garbled text tells
nothing rather than refuting every world).
"""

from __future__ import annotations

import re
from typing import Optional

from ..cards import Suit
from ..sampling import SeatConstraints

__all__ = ["read_disclosure"]

_SUIT = {"C": Suit.CLUBS, "D": Suit.DIAMONDS, "H": Suit.HEARTS, "S": Suit.SPADES,
         "♣": Suit.CLUBS, "♦": Suit.DIAMONDS, "♥": Suit.HEARTS, "♠": Suit.SPADES}
# a count and how it bounds: "4+", "3-", "3-5" or "3=" (exactly). A bare count is not read: "3!S" or "3S" names a
# call ("raise to 3!S") as often as it shows a length.
_COUNT = r"(?<![\d/-])(?P<lo>\d{1,2})\s*(?:(?P<plus>\+)|(?P<eq>=)|-\s*(?P<hi>\d{1,2})|(?P<minus>-))"
_LENGTH = re.compile(_COUNT + r"\s*!?(?P<suit>[CDHS♣♦♥♠])(?![A-Za-z])")
_HCP = re.compile(_COUNT + r"?\s*(?:HCP|hcp)\b")


def _bounds(m: re.Match, top: int) -> tuple[int, int]:
    lo = int(m["lo"])
    if m["plus"]:
        return lo, top
    if m["minus"]:
        return 0, lo
    if m["hi"] is not None:
        return lo, int(m["hi"])
    return lo, lo  # "3=" (or an HCP figure alone): exactly


def read_disclosure(text: str) -> Optional[SeatConstraints]:
    """The ranges ``text`` states of the caller's hand (module doc), or ``None``."""
    hcp = [0, 37]
    lengths = [[0, 13] for _ in range(4)]
    found = False
    for item in re.split(r"[;,]", text or ""):
        item = item.strip()
        for m in _LENGTH.finditer(item):
            lo, hi = _bounds(m, 13)
            s = lengths[_SUIT[m["suit"]]]
            s[0], s[1] = max(s[0], lo), min(s[1], hi)
            found = True
        for m in _HCP.finditer(item):
            lo, hi = _bounds(m, 37)
            hcp[0], hcp[1] = max(hcp[0], lo), min(hcp[1], hi)
            found = True
    if not found:
        return None
    told = SeatConstraints(hcp=(hcp[0], hcp[1]), lengths=tuple((lo, hi) for lo, hi in lengths))
    return None if told.is_empty_range else told
