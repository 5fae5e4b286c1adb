"""Plain-data requests for the bidder (the ``squeeze bid --batch`` contract), kept free of I/O."""

from __future__ import annotations

from typing import Any, Callable

from ..auction import Auction, IllegalCallError
from ..cards import BridgeError, Hand, Seat, Vul

from .interpreter import BidChoice, Bidder

__all__ = ["parse_request", "answer_record"]


def parse_request(hand: str, auction: list[str] | str, dealer: str = "N", vul: str | None = "None"
                  ) -> tuple[Hand, Auction, Vul]:
    """Hand ``S.H.D.C``, auction as a list (or blank-separated string) of calls from ``dealer``, vul text.

    Raises ``BridgeError`` with a message naming the bad field.
    """
    try:
        h = Hand.parse(hand)
    except BridgeError as e:
        raise BridgeError(f"hand: {e}") from None
    if len(h) != 13:
        raise BridgeError(f"hand: {hand!r} has {len(h)} cards, expected 13")
    try:
        d = Seat.parse(dealer or "N")
    except BridgeError as e:
        raise BridgeError(f"dealer: {e}") from None
    try:
        v = Vul.parse(vul if vul is not None else "None")
    except BridgeError as e:
        raise BridgeError(f"vul: {e}") from None
    calls = auction.split() if isinstance(auction, str) else list(auction)
    try:
        a = Auction(d, calls)
    except (IllegalCallError, BridgeError) as e:
        raise BridgeError(f"auction: {e}") from None
    if a.is_complete:
        raise BridgeError("auction: it is already over, there is no call to make")
    return h, a, v


def answer_record(bidder: Bidder, rec: dict[str, Any], bid: Callable[[Any], BidChoice] | None = None
                  ) -> dict[str, Any]:
    """One batch line in, one out: ``{"id", "call", "explanation"}`` (plus ``alert`` and ``rule``). ``bid`` (a
    seat's own bid for a ``SeatView``, e.g. ``Player.bid`` with Borel simulation on) answers instead of the bare
    rules."""
    if not isinstance(rec, dict):
        raise BridgeError("each line must be a JSON object")
    for k in ("hand", "auction"):
        if k not in rec:
            raise BridgeError(f"missing field {k!r}")
    hand, auction, vul = parse_request(rec["hand"], rec["auction"], rec.get("dealer", "N"), rec.get("vul", "None"))
    if bid is not None:
        from ..view import SeatView

        ch: BidChoice = bid(SeatView(auction.next_seat, hand, auction, vul))
    else:
        ch = bidder.choose(hand, auction, vul, alternatives=False)
    return {"id": rec.get("id"), "call": str(ch.call), "explanation": ch.describe(), "alert": ch.alert,
            "rule": ch.rule_id}
