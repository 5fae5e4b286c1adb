"""Blue Chip protocol 18 as its text writes it, for the strict peers of the tests (``strict_tm.py``,
``strict_robot.py``): the exact line forms, a hand's format, the legality of calls and cards, the winner of a trick.

Written from the specification (version 18, 1 August 2005; reproduced in ``bluechip-protocol.md`` of the research
notes), on purpose without anything of Squeeze (no codec, no engine): the peers built on it are independent of the
code they test. Standard library only.

The forms are case-sensitive and exact, as the spec prints them ("North bids 3NT", one space where a space is
defined, nothing after a pass, double or redouble; a bid may carry `` Alert.`` and its explanation, section
"Alerting (implementation)"). A peer reading a line it does not match fails: it does not guess.

Three places where the spec's text reads two ways, or the managers in use depart from it by one full stop; both
forms are accepted (nothing else is):

- dummy's card: the declarer's and defenders' ready line is ``[Hand] ready for [Player]'s card to trick [n]``
  (Playing, item 4), and item 9 calls the same line "ready for [dummy's] card", which some managers and robots take
  literally (``East ready for dummy's card to trick 1``);
- the Teams line: the spec prints ``Teams : N/S : "[N/S team name]". E/W : "[E/W team name]"``; the managers whose
  lines we have (JobScheffers', RoboBridge's, bridge_env's) send it without the full stop after the N/S name, the
  only form BEN's client parses (and BEN plays at Bridge Moniteur);
- the Board line: the spec defines its elements "separated by a full-stop and a space" and says nothing of a full
  stop after the last one; those managers end it with one (``... E/W vulnerable.``).

Of the Teams and Board lines, ``squeeze tm`` sends the second form (for BEN's and bridge_env's clients), the strict
manager of these tests the first.
"""

from __future__ import annotations

import re
from typing import Optional

SEATS = ("North", "East", "South", "West")
SEAT_ALT = "|".join(SEATS)
#: Ranks as the spec lists them: A K Q J T 9 ... 2, ten as T so that each card is one character.
RANKS = "AKQJT98765432"
#: Suits of a hand line, in the spec's preferred order.
HAND_SUITS = "SHDC"
#: Denominations of a bid, lowest first.
STRAINS = ("C", "D", "H", "S", "NT")
VUL_WORDS = ("Neither", "N/S", "E/W", "Both")

#: The 16-board cycle of vulnerability (index 0 is board 1): None, N/S, E/W, Both as 0..3.
_VUL_CYCLE = (0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2)


class Illegal(Exception):
    """A line the protocol does not allow here, or an illegal call or card."""


# --- seats ---------------------------------------------------------------------------------------------------------

def seat_of(text: str) -> str:
    """``N``/``North`` (any case) -> ``North``."""
    for s in SEATS:
        if text.lower() in (s.lower(), s[0].lower()):
            return s
    raise ValueError(f"not a seat: {text!r} (use N, E, S, W or North, East, South, West)")


def left_of(seat: str, steps: int = 1) -> str:
    return SEATS[(SEATS.index(seat) + steps) % 4]


def partner_of(seat: str) -> str:
    return left_of(seat, 2)


def side_of(seat: str) -> str:
    return "N/S" if seat in ("North", "South") else "E/W"


def dealer_of(board: int) -> str:
    return SEATS[(board - 1) % 4]


def vulnerability_of(board: int) -> str:
    return VUL_WORDS[_VUL_CYCLE[(board - 1) % 16]]


# --- cards and hands -----------------------------------------------------------------------------------------------

def rank_value(card: str) -> int:
    """2..14 for a card ``"TS"`` (rank then suit, the spec's order)."""
    return 14 - RANKS.index(card[0])


def full_deck() -> list[str]:
    return [r + s for s in HAND_SUITS for r in RANKS]


def hand_text(cards: list[str]) -> str:
    """``S A K 4. H -. D Q J 9 8 7 2. C 5 3 2.``: each suit's letter and a space, its ranks in descending order one
    space apart, a full stop after the last; a void is a dash."""
    parts = []
    for suit in HAND_SUITS:
        ranks = sorted((c[0] for c in cards if c[1] == suit), key=RANKS.index)
        parts.append(f"{suit} {' '.join(ranks) if ranks else '-'}.")
    return " ".join(parts)


_SUIT_RE = r"(?:[AKQJT98765432](?: [AKQJT98765432])*|-)"
HAND_RE = rf"S ({_SUIT_RE})\. H ({_SUIT_RE})\. D ({_SUIT_RE})\. C ({_SUIT_RE})\."


def parse_hand(text: str) -> list[str]:
    """The 13 cards of a hand line in the spec's format (descending ranks, S H D C); ``Illegal`` otherwise."""
    mt = re.fullmatch(HAND_RE, text)
    if not mt:
        raise Illegal(f"not a hand in the spec's format: {text!r}")
    cards: list[str] = []
    for suit, ranks in zip(HAND_SUITS, mt.groups()):
        if ranks == "-":
            continue
        letters = ranks.split(" ")
        if letters != sorted(set(letters), key=RANKS.index):
            raise Illegal(f"the {suit} ranks of {text!r} are not distinct and in descending order")
        cards += [r + suit for r in letters]
    if len(cards) != 13:
        raise Illegal(f"a hand holds 13 cards, {text!r} holds {len(cards)}")
    return cards


def legal_cards(hand: list[str], trick: list[str]) -> list[str]:
    """The cards of ``hand`` that may go to ``trick`` (the cards played to it so far): follow suit if able."""
    if trick:
        led = [c for c in hand if c[1] == trick[0][1]]
        if led:
            return led
    return list(hand)


def lowest(cards: list[str]) -> str:
    """The lowest card by rank; among equal ranks, clubs before diamonds before hearts before spades."""
    return min(cards, key=lambda c: (rank_value(c), "CDHS".index(c[1])))


def trick_winner(leader: str, cards: list[str], trumps: Optional[str]) -> str:
    """The seat that wins four ``cards`` played in order from ``leader``; ``trumps`` a suit letter or None."""
    best = 0
    for i, c in enumerate(cards[1:], 1):
        b = cards[best]
        if c[1] == b[1]:
            if rank_value(c) > rank_value(b):
                best = i
        elif trumps is not None and c[1] == trumps:
            best = i
    return left_of(leader, best)


# --- the auction ---------------------------------------------------------------------------------------------------

CALL_WORDS = {"P": "passes", "X": "doubles", "XX": "redoubles"}


def call_text(seat: str, call: str) -> str:
    """``North passes`` / ``North doubles`` / ``North redoubles`` / ``North bids 1NT``."""
    return f"{seat} {CALL_WORDS[call]}" if call in CALL_WORDS else f"{seat} bids {call}"


def call_re(seat: str) -> str:
    """A call from ``seat`` as a line: the four forms of the spec, a bid optionally followed by `` Alert.`` and its
    information (nothing may follow a pass, double or redouble). Groups: the call word (passes, doubles, redoubles,
    or None for a bid), the bid, the alert part."""
    return rf"{seat} (?:(passes|doubles|redoubles)|bids ([1-7](?:C|D|H|S|NT))( Alert\.(?: [ -~]+)?)?)"


def call_of(mt: re.Match) -> str:
    """The call token (``P``, ``X``, ``XX``, ``1C`` .. ``7NT``) of a ``call_re`` match."""
    word, bid = mt.group(1), mt.group(2)
    return bid if bid else {"passes": "P", "doubles": "X", "redoubles": "XX"}[word]


def bid_rank(bid: str) -> int:
    return (int(bid[0]) - 1) * 5 + STRAINS.index(bid[1:])


class Auction:
    """The calls of one board with the laws' checks: a bid outranks the last bid, a double doubles an opponent's
    undoubled bid, a redouble an opponent's double."""

    def __init__(self, dealer: str) -> None:
        self.dealer = dealer
        self.calls: list[tuple[str, str]] = []

    @property
    def next_seat(self) -> str:
        return left_of(self.dealer, len(self.calls))

    @property
    def complete(self) -> bool:
        n = len(self.calls)
        if n == 4 and all(c == "P" for _, c in self.calls):
            return True
        return n >= 4 and any(c != "P" for _, c in self.calls) and all(c == "P" for _, c in self.calls[-3:])

    def _last_bid(self) -> Optional[tuple[int, str, str]]:
        for i in range(len(self.calls) - 1, -1, -1):
            seat, call = self.calls[i]
            if call not in CALL_WORDS:
                return i, seat, call
        return None

    def _state(self) -> str:
        """``""``, ``"X"`` or ``"XX"``: the last bid as it stands."""
        last = self._last_bid()
        if last is None:
            return ""
        state = ""
        for _, call in self.calls[last[0] + 1:]:
            if call in ("X", "XX"):
                state = call
        return state

    def why_illegal(self, seat: str, call: str) -> Optional[str]:
        if self.complete:
            return "the auction is over"
        if seat != self.next_seat:
            return f"it is {self.next_seat}'s turn, not {seat}'s"
        last = self._last_bid()
        if call == "P":
            return None
        if call == "X":
            if last is None or side_of(last[1]) == side_of(seat) or self._state():
                return "a double needs an opponent's undoubled bid"
            return None
        if call == "XX":
            if last is None or side_of(last[1]) != side_of(seat) or self._state() != "X":
                return "a redouble needs an opponent's double of our bid"
            return None
        if last is not None and bid_rank(call) <= bid_rank(last[2]):
            return f"{call} is insufficient after {last[2]}"
        return None

    def add(self, seat: str, call: str) -> None:
        why = self.why_illegal(seat, call)
        if why:
            raise Illegal(f"illegal call {call_text(seat, call)!r}: {why}")
        self.calls.append((seat, call))

    def contract(self) -> Optional[dict]:
        """``{"bid": "4H", "doubled": "", "declarer": "South"}``, or None when passed out (or not over)."""
        last = self._last_bid()
        if last is None or not self.complete:
            return None
        _, seat, bid = last
        strain = bid[1:]
        declarer = next(s for s, c in self.calls if c not in CALL_WORDS and c[1:] == strain
                        and side_of(s) == side_of(seat))
        return {"bid": bid, "doubled": self._state(), "declarer": declarer}

    def tokens(self) -> list[str]:
        return [c for _, c in self.calls]


# --- fixed lines ---------------------------------------------------------------------------------------------------

def timing_text(ns_board: float, ns_total: float, ew_board: float, ew_total: float) -> str:
    """The spec's Timing line, double spaces and all, no final full stop."""
    def board(s: float) -> str:
        s = int(s)
        return f"{s // 60:02d}:{s % 60:02d}"

    def total(s: float) -> str:
        s = int(s)
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return (f"Timing - N/S : this board  {board(ns_board)},  total  {total(ns_total)}.  "
            f"E/W : this board  {board(ew_board)},  total  {total(ew_total)}")


TIMING_RE = (r"Timing - N/S : this board  \d{2,}:\d{2},  total  \d+:\d{2}:\d{2}\.  "
             r"E/W : this board  \d{2,}:\d{2},  total  \d+:\d{2}:\d{2}")
#: The Teams line, with or without the full stop after the N/S name (see the module's doc).
TEAMS_RE = r'Teams : N/S : "([^"]+)"\.? E/W : "([^"]+)"'
#: The Board line, with or without a final full stop (see the module's doc).
BOARD_RE = rf"Board number (\d{{1,6}})\. Dealer ({SEAT_ALT})\. (Neither|N/S|E/W|Both) vulnerable\.?"
CONNECT_RE = rf'Connecting "([^"]+)" as ({SEAT_ALT}) using protocol version (\d+)'
