"""Rule-based bidding: systems as data (``config/systems/*.toml``), an interpreter that chooses calls and reads
what every call shows and denies (``SeatConstraints`` for the sampler). See ``rules`` for the rule language."""

from .interpreter import (
    DEFAULT_SYSTEM, AuctionState, BidChoice, Bidder, CallMeaning, Candidate, CallReading, get_bidder,
)
from .rules import CompiledSystem, BiddingSystemError, load_system

__all__ = [
    "AuctionState", "BidChoice", "Bidder", "CallMeaning", "Candidate", "CallReading", "CompiledSystem",
    "BiddingSystemError", "get_bidder", "load_system", "DEFAULT_SYSTEM",
]
