"""Duplicate scoring: contract scores, the IMP table, matchpoints, Butler and cross-IMPs, the par score.

All scores are from the declaring side's point of view unless a function says otherwise (``score`` is negative when
the contract goes down). Rules: the Laws of Duplicate Bridge, scoring table (2017), as summarised in
``shared/research/ecosystem.md`` section 2.
"""

from __future__ import annotations

from bisect import bisect_right
from statistics import mean
from typing import Sequence

from .auction import Contract
from .cards import BridgeError, Seat, Strain, Vul

__all__ = ["score", "imps", "IMP_BOUNDARIES", "GAME_LEVEL", "matchpoints", "matchpoint_percentages", "butler_imps",
           "cross_imps", "par"]

#: The lowest level of each strain whose undoubled contract scores game (100 trick points).
GAME_LEVEL = {Strain.CLUBS: 5, Strain.DIAMONDS: 5, Strain.HEARTS: 4, Strain.SPADES: 4, Strain.NOTRUMP: 3}


def _trick_value(strain: Strain, odd_tricks: int) -> int:
    """Undoubled trick score for ``odd_tricks`` bid and made (notrump: 40 for the first, 30 after)."""
    if strain == Strain.NOTRUMP:
        return 40 + 30 * (odd_tricks - 1) if odd_tricks > 0 else 0
    return (20 if strain in (Strain.CLUBS, Strain.DIAMONDS) else 30) * odd_tricks


def _undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    if doubled == 0:
        return down * (100 if vulnerable else 50)
    if vulnerable:
        pen = 200 + 300 * (down - 1)
    else:
        # 100, 300, 500, then 300 for every further undertrick (the 1987 rule; not PBN's OldMP).
        pen = {1: 100, 2: 300, 3: 500}.get(down, 500 + 300 * (down - 3))
    return pen * (2 if doubled == 2 else 1)


def score(contract: Contract, tricks: int, vulnerable: bool) -> int:
    """Duplicate score of the declaring side for ``contract`` taking ``tricks`` tricks (0..13)."""
    if not 0 <= tricks <= 13:
        raise BridgeError(f"tricks must be 0..13, got {tricks}")
    needed = contract.level + 6
    if tricks < needed:
        return -_undertrick_penalty(needed - tricks, contract.doubled, vulnerable)
    mult = (1, 2, 4)[contract.doubled]
    contract_points = _trick_value(contract.strain, contract.level) * mult
    total = contract_points
    total += (500 if vulnerable else 300) if contract_points >= 100 else 50
    if contract.level == 6:
        total += 750 if vulnerable else 500
    elif contract.level == 7:
        total += 1500 if vulnerable else 1000
    total += (0, 50, 100)[contract.doubled]  # "insult" for making a doubled/redoubled contract
    over = tricks - needed
    if over:
        if contract.doubled == 0:
            total += over * (20 if contract.strain in (Strain.CLUBS, Strain.DIAMONDS) else 30)
        else:
            total += over * (100 if vulnerable else 50) * (2 * contract.doubled)
    return total


#: Lower bounds of each IMP step (WBF table since 1962): a difference of at least IMP_BOUNDARIES[k-1] is worth k.
IMP_BOUNDARIES: tuple[int, ...] = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500,
    3000, 3500, 4000,
)


def imps(difference: float) -> int:
    """IMPs for a point difference (sign kept). Differences between table steps (averages) round down in size."""
    k = bisect_right(IMP_BOUNDARIES, abs(difference))  # how many step boundaries the difference reaches
    return k if difference >= 0 else -k


def matchpoints(scores: Sequence[float], *, top_per_comparison: int = 2) -> list[float]:
    """Matchpoints of each score against all the others in the same direction.

    ``top_per_comparison=2``: 2 per score beaten, 1 per tie (PBN ``MP1``); ``=1``: 1 and 1/2 (ACBL ``MP2``).
    """
    if top_per_comparison not in (1, 2):
        raise BridgeError("top_per_comparison must be 1 or 2")
    out = []
    for i, s in enumerate(scores):
        mp = 0.0
        for j, t in enumerate(scores):
            if i != j:
                mp += 2 if s > t else 1 if s == t else 0
        out.append(mp * top_per_comparison / 2)
    return out


def matchpoint_percentages(scores: Sequence[float]) -> list[float]:
    n = len(scores)
    if n < 2:
        return [50.0] * n
    top = 2 * (n - 1)
    return [100.0 * mp / top for mp in matchpoints(scores)]


def butler_imps(scores: Sequence[float], *, drop_extremes: bool = True) -> list[int]:
    """IMPs of each score against a datum: the mean, after dropping the top and bottom when there are 5+ scores.

    The datum is rounded to the nearest 10 as the PBN ``Butler`` scoring does.
    """
    if not scores:
        return []
    pool = sorted(scores)
    if drop_extremes and len(pool) >= 5:
        pool = pool[1:-1]
    datum = 10 * round(mean(pool) / 10)
    return [imps(s - datum) for s in scores]


def cross_imps(scores: Sequence[float]) -> list[float]:
    """Average IMPs of each score against every other score (PBN ``Cross2``)."""
    n = len(scores)
    if n < 2:
        return [0.0] * n
    return [sum(imps(s - t) for j, t in enumerate(scores) if j != i) / (n - 1) for i, s in enumerate(scores)]


def par(tricks, vul: Vul) -> tuple[int, Contract | None]:
    """The par of a deal: ``(score for North-South, par contract with its declarer)``, ``(0, None)`` when no side
    can score (passed out).

    ``tricks[strain][seat]`` is the double-dummy table (a ``dds.DDTable`` or nested sequences). Both sides bid the
    contracts in ascending order, each with its better declarer in the strain; a side takes a contract when that
    scores more for it than the standing one: made contracts undoubled, failing ones doubled (a sacrifice). The
    last contract taken is par: nobody gains by bidding on. Scores count the double-dummy overtricks.
    """
    standing, best = 0, None
    for level in range(1, 8):
        for strain in Strain:
            for side in (0, 1):  # 0: North-South, 1: East-West
                seats = (Seat(side), Seat(side + 2))
                decl = max(seats, key=lambda s: tricks[strain][s])
                t = tricks[strain][decl]
                makes = t >= level + 6
                c = Contract(level, strain, 0 if makes else 1, decl)
                v = score(c, t, vul.is_vulnerable(decl))
                mine = standing if side == 0 else -standing
                if v > mine:
                    standing, best = (v if side == 0 else -v), c
    return standing, best
