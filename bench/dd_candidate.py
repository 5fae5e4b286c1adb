"""engine.dds driven through the candidate protocol of the shared harness ``tools/dd_vs_dds.py`` (in the shared
folder beside the project, see ``bench/shared.py``).

``python SHARED/tools/dd_vs_dds.py --candidate bench/dd_candidate.py:Candidate`` (see bench/dd.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from squeeze.engine.cards import Card, Deal, Seat, Strain  # noqa: E402
from squeeze.engine.dds import Position, Solver  # noqa: E402

# the harness numbers strains S,H,D,C,NT = 0..4 (DDS order); engine.cards numbers C,D,H,S,NT = 0..4
_STRAIN = {0: Strain.SPADES, 1: Strain.HEARTS, 2: Strain.DIAMONDS, 3: Strain.CLUBS, 4: Strain.NOTRUMP}
_HARNESS_ORDER = (Strain.SPADES, Strain.HEARTS, Strain.DIAMONDS, Strain.CLUBS, Strain.NOTRUMP)


class Candidate:
    name = "squeeze engine.dds"

    def __init__(self, tt_mib: int = 64, options: int | None = None) -> None:
        self.solver = Solver(tt_mib=tt_mib, options=options)

    def set_threads(self, n: int) -> None:  # one solver = one thread; nothing to do
        pass

    def reset(self) -> None:
        self.solver.reset()

    def calc_table(self, pbn: str) -> list[list[int]]:
        t = self.solver.solve_table(Deal.parse(pbn))
        return [[t[st][seat] for seat in Seat] for st in _HARNESS_ORDER]

    def solve_board(self, pbn: str, strain: int, first: int, current_trick: list[str]) -> dict[str, int]:
        pos = Position(Deal.parse(pbn, complete=False), Seat(first), tuple(Card.parse(c) for c in current_trick))
        return {str(c): v for c, v in self.solver.solve_cards(pos, _STRAIN[strain]).items()}

    def solve_many(self, pbns: list[str], strain: int, first: int) -> list[dict[str, int]]:
        """PIMC batch: many worlds at a trick start, one solver (table and ordering memory shared)."""
        positions = [Position(Deal.parse(p, complete=False), Seat(first)) for p in pbns]
        return [{str(c): v for c, v in r.items()} for r in self.solver.solve_many(positions, _STRAIN[strain])]
