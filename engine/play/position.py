"""Card-play positions over bitmasks, and the searching side's view of one decision.

A ``SearchPosition`` is one fully known (double-dummy) state: the four hands still held, the cards already played to
the current trick, who led it and the trump. It is what the double-dummy oracle solves; the selectors build one per
world. Cards are ``engine.cards`` indices (``13*suit + rank - 2``), sets of cards are 52-bit ``int`` masks.

A ``Root`` is the decision seen by the side to move: the common public state plus one set of four hands per sampled
world (``worlds``), each world's weight, the declarer and how many of the remaining tricks the declaring side
still needs (``target``). Test positions need not have 13 tricks left: every count is relative to the position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..board import SUIT_MASKS, legal_mask, trick_winner_index
from ..cards import BridgeError, Card, Seat, Strain

__all__ = [
    "SearchPosition",
    "Root",
    "iter_bits",
    "equivalence_reps",
    "equivalent_cards",
]

NOTRUMP = int(Strain.NOTRUMP)


def iter_bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def equivalence_reps(legal: int, own: int, alive: int, *, top: bool = False) -> int:
    """One card per class of equivalent cards among ``legal``.

    Two cards of one hand are equivalent when every card ranking between them is in the same hand or already gone
    (played in an earlier trick): the hand can play either with the same effect against any layout. ``alive`` is
    every card still in a hand *or on the table in the current trick* (a card in the trick separates the cards
    above it from those below it). The representative is the lowest card of each run, or the highest with ``top``.
    """
    reps = 0
    for s in range(4):
        cards = legal & SUIT_MASKS[s]
        if not cards:
            continue
        others = alive & SUIT_MASKS[s] & ~own
        run_rep = -1
        # Walk the suit's alive cards upward; a card of another hand (or on the table) closes the current run.
        for idx in iter_bits((alive | cards) & SUIT_MASKS[s]):
            bit = 1 << idx
            if others & bit:
                if run_rep >= 0:
                    reps |= 1 << run_rep
                run_rep = -1
            elif cards & bit and (top or run_rep < 0):
                run_rep = idx
        if run_rep >= 0:
            reps |= 1 << run_rep
    return reps


def equivalent_cards(card: int, hand: int, alive: int) -> int:
    """Cards of ``hand`` equivalent to ``card`` (``card`` included): same suit, no alive card of another hand ranking
    between them (see ``equivalence_reps``)."""
    s = card // 13
    others = alive & SUIT_MASKS[s] & ~hand
    cls = 1 << card
    for step in (1, -1):
        i = card + step
        while 13 * s <= i < 13 * s + 13:
            if others >> i & 1:
                break
            if hand >> i & 1:
                cls |= 1 << i
            i += step
    return cls


@dataclass(frozen=True, slots=True)
class SearchPosition:
    """A double-dummy state: ``hands[seat]`` still held, ``trick`` played so far (in order), ``leader`` of it."""

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    trump: int

    def __post_init__(self) -> None:
        if len(self.hands) != 4:
            raise BridgeError(f"a position has four hands, got {len(self.hands)}")
        if len(self.trick) > 3:
            raise BridgeError(f"a current trick holds at most 3 cards, got {len(self.trick)}")
        counts = [h.bit_count() for h in self.hands]
        # Seats that already played to the current trick hold one card fewer.
        expect = [counts[(self.leader + i) % 4] + (1 if i < len(self.trick) else 0) for i in range(4)]
        if len(set(expect)) != 1:
            raise BridgeError(f"hand sizes {counts} do not fit a trick of {len(self.trick)} cards led by "
                              f"{Seat(self.leader).title}")

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 4

    @property
    def tricks_left(self) -> int:
        """Tricks not yet complete, the current one included."""
        return (sum(h.bit_count() for h in self.hands) + len(self.trick)) // 4

    @property
    def alive(self) -> int:
        """Cards in hands or on the table in the current trick."""
        m = self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
        for c in self.trick:
            m |= 1 << c
        return m

    def legal(self) -> int:
        return legal_mask(self.hands[self.to_move], self.trick)

    def play(self, card: int) -> tuple["SearchPosition", int | None]:
        """The position after ``card``; the second value is the trick's winner when this card completed it."""
        seat = self.to_move
        bit = 1 << card
        if not self.legal() & bit:
            raise BridgeError(f"{Card.from_index(card)} is not a legal card for {Seat(seat).title}")
        hands = list(self.hands)
        hands[seat] &= ~bit
        trick = self.trick + (card,)
        if len(trick) == 4:
            w = trick_winner_index(trick, self.leader, self.trump)
            return SearchPosition(tuple(hands), (), w, self.trump), w  # type: ignore[arg-type]
        return SearchPosition(tuple(hands), trick, self.leader, self.trump), None  # type: ignore[arg-type]


@dataclass(frozen=True)
class Root:
    """One decision for the side to move, over sampled worlds.

    ``worlds[i]`` is the four hands still held in world ``i`` (the mover's own hand, and dummy's once visible, are
    the same in every world). ``target`` is how many of the remaining tricks (current one included) the declaring
    side still needs; the defence defeats the contract by taking more than ``tricks_left - target``.
    """

    trump: int
    leader: int
    trick: tuple[int, ...]
    worlds: tuple[tuple[int, int, int, int], ...]
    weights: tuple[float, ...]
    declarer: int
    target: int

    def __post_init__(self) -> None:
        if not self.worlds:
            raise BridgeError("a decision needs at least one world")
        if len(self.weights) != len(self.worlds):
            raise BridgeError(f"{len(self.weights)} weights for {len(self.worlds)} worlds")
        if any(w < 0 for w in self.weights) or not any(w > 0 for w in self.weights):
            raise BridgeError("world weights must be >= 0 and not all zero")
        mover = self.to_move
        hand = self.worlds[0][mover]
        alive = self.position(0).alive
        for i, w in enumerate(self.worlds):
            if w[mover] != hand:
                raise BridgeError(f"world {i} gives {Seat(mover).title} (the player to move) other cards")
            if self.position(i).alive != alive:
                raise BridgeError(f"world {i} does not hold the same unplayed cards as world 0")
        if not 0 <= self.target <= self.tricks_left + 1:
            raise BridgeError(f"target {self.target} out of range for {self.tricks_left} tricks left")

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 4

    @property
    def tricks_left(self) -> int:
        return (sum(h.bit_count() for h in self.worlds[0]) + len(self.trick)) // 4

    @property
    def mover_is_declarer_side(self) -> bool:
        return (self.to_move - self.declarer) % 2 == 0

    def position(self, i: int) -> SearchPosition:
        return SearchPosition(self.worlds[i], self.trick, self.leader, self.trump)

    def legal(self) -> int:
        return legal_mask(self.worlds[0][self.to_move], self.trick)

    def candidates(self, *, top: bool | None = None) -> int:
        """Legal cards with one card kept per class of equivalent cards (public information for the mover)."""
        mover = self.to_move
        if top is None:
            top = not self.trick  # lead the top of a sequence, follow with the bottom (conventional)
        return equivalence_reps(self.legal(), self.worlds[0][mover], self.position(0).alive, top=top)
