"""Rule-based bidding: systems as data (the configuration reads ``config/systems/*.toml`` and hands their text to
``rules.parse_system``), an interpreter that chooses calls and reads what every call shows and denies
(``SeatConstraints`` for the sampler). See ``rules`` for the rule language."""

from .interpreter import AuctionState, BidChoice, Bidder, CallMeaning, Candidate, CallReading
from .rules import CompiledSystem, BiddingSystemError, parse_system

__all__ = [
    "AuctionState", "BidChoice", "Bidder", "CallMeaning", "Candidate", "CallReading", "CompiledSystem",
    "BiddingSystemError", "parse_system",
]
