"""Card play: weighted PIMC and αμ selectors over sampled worlds, and the ``CardPlayer`` that picks between them."""

from .alphamu import AlphaMu, AlphaMuOptions, AlphaMuResult, alphamu_choose
from .oracle import DDOracle, EngineDDOracle, SolverUnavailable, default_oracle
from .pimc import CardScore, PimcResult, pimc_choose
from .card_player import CardPlayer, PlayDecision, PlaySettings, play_out
from .position import SearchPosition, Root

__all__ = [
    "AlphaMu",
    "AlphaMuOptions",
    "AlphaMuResult",
    "alphamu_choose",
    "DDOracle",
    "EngineDDOracle",
    "SolverUnavailable",
    "default_oracle",
    "CardScore",
    "PimcResult",
    "pimc_choose",
    "CardPlayer",
    "PlayDecision",
    "PlaySettings",
    "play_out",
    "SearchPosition",
    "Root",
]
