"""The figures of a self-play run, from the two rooms of each board and the deal's double-dummy table.

Per board (``compare_board``), from team A's side (A sits N/S in the open room, E/W in the closed room):

- ``swing``: IMPs of the open room's N/S score against the closed room's;
- ``bidding``: the same for what each room's contract is worth double dummy (its score with the tricks its declarer
  takes double dummy), i.e. the swing the contracts alone would give; ``play`` is the rest, ``swing - bidding``
  (the two add up to the swing exactly);
- ``par_swing``: each room's score against the deal's double-dummy par, in IMPs, added up for A (the variance
  reduction the issue asks for: luck of the deal that par already prices in is left out of each room's figure).

``summarize`` gives the run's figures: IMPs per board with standard error, 95 % interval and likelihood of
superiority (``engine.stats.imp_summary``), flat boards, the bidding/play split, the same on the par-adjusted
swings, the voided boards and the SPRT's state. ``plot_running`` draws ``imps.png``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import structlog

from squeeze.engine.cards import Strain
from squeeze.engine.record import BoardRecord
from squeeze.engine.scoring import imps, par, score
from squeeze.engine.stats import Z95, ImpSummary, Sprt, SprtResult, imp_summary, mean_se

__all__ = ["BoardComparison", "compare_board", "dd_score_ns", "summarize", "plot_running", "sprt_state"]

_log = structlog.get_logger("squeeze.selfplay")


@dataclass(frozen=True)
class BoardComparison:
    board: int
    swing: int  #: IMPs to team A
    bidding: int  #: of which the contracts' double-dummy values
    play: int  #: swing - bidding
    par_swing: int  #: A's IMPs against par, open room plus closed room
    contracts: tuple[str, str]  #: open, closed ("passed" when passed out)


def dd_score_ns(record: BoardRecord, tricks: Sequence[Sequence[int]]) -> int:
    """N/S's score for the record's contract made with its double-dummy number of tricks (0 when passed out)."""
    c = record.contract
    if c is None or c.declarer is None:
        return 0
    t = tricks[int(Strain(c.strain))][int(c.declarer)]
    s = score(c, t, record.vul.is_vulnerable(c.declarer))  # type: ignore[union-attr]
    return s if c.declarer.is_ns else -s


def compare_board(open_room: BoardRecord, closed_room: BoardRecord,
                  tricks: Sequence[Sequence[int]]) -> BoardComparison:
    """The board's figures (module doc); ``tricks[strain][seat]``: the deal's double-dummy table."""
    o, c = open_room.score_ns(), closed_room.score_ns()
    swing = imps(o - c)
    bidding = imps(dd_score_ns(open_room, tricks) - dd_score_ns(closed_room, tricks))
    par_ns, _ = par(tricks, open_room.vul)
    par_swing = imps(o - par_ns) + imps(par_ns - c)  # A is N/S in the open room and E/W in the closed room
    names = tuple(str(r.contract) if r.contract is not None else "passed" for r in (open_room, closed_room))
    return BoardComparison(open_room.board, swing, bidding, swing - bidding, par_swing, names)  # type: ignore[arg-type]


def _number(x: float) -> Optional[float]:
    """JSON has no NaN: an unknown figure (one board has no standard error) is null."""
    return None if x is None or math.isnan(x) else round(x, 6)


def _figures(s: ImpSummary) -> dict:
    return {"imps_per_board": _number(s.mean), "stderr": _number(s.se),
            "interval95": [_number(s.low), _number(s.high)], "los": _number(s.los)}


def sprt_state(sprt: Sprt, comparisons: Sequence[BoardComparison], done: set[int],
               boards: Sequence[int]) -> SprtResult:
    """The SPRT over the boards done without a gap from the first of ``boards``, in board order (voided boards
    count as done and add no swing): the verdict then depends on the seed, not on which worker finished first."""
    by_board = {c.board: c.swing for c in comparisons}
    prefix = []
    for b in boards:
        if b not in done:
            break
        if b in by_board:
            prefix.append(by_board[b])
    return sprt.first_verdict(prefix)


def summarize(comparisons: Sequence[BoardComparison], *, planned: int, voided: dict[int, str],
              teams: tuple[str, str], seed: int, sprt: Optional[tuple[Sprt, SprtResult]] = None) -> dict:
    """``summary.json`` (ARCHITECTURE.md's contract: at least ``boards``, ``imps_per_board``, ``stderr``)."""
    raw = imp_summary([c.swing for c in comparisons])
    adjusted = imp_summary([c.par_swing for c in comparisons])
    flat = sum(c.swing == 0 for c in comparisons)
    out: dict = {
        "boards": len(comparisons),
        "planned": planned,
        "teams": {"a": teams[0], "b": teams[1]},
        "seed": seed,
        **_figures(raw),
        "imps_a": sum(c.swing for c in comparisons),
        "flat": flat,
        "flat_fraction": _number(flat / len(comparisons)) if comparisons else None,
        "par_adjusted": _figures(adjusted),
        "voided": {"count": len(voided), "boards": [{"board": b, "error": e} for b, e in sorted(voided.items())]},
        "sprt": None,
    }
    for part in ("bidding", "play"):
        mean, se = mean_se([getattr(c, part) for c in comparisons])
        out[part] = {"imps_per_board": _number(mean), "stderr": _number(se)}
    if sprt is not None:
        test, state = sprt
        out["sprt"] = {"m0": test.m0, "m1": test.m1, "alpha": test.alpha, "beta": test.beta,
                       "verdict": state.verdict, "boards": state.boards, "llr": _number(state.llr),
                       "bounds": [_number(state.lower), _number(state.upper)]}
    return out


def plot_running(comparisons: Sequence[BoardComparison], path: Path) -> bool:
    """Draw ``imps.png``: the running IMPs per board (board order) with its 95 % interval, and the par-adjusted
    running mean. False (and a log line) when matplotlib, an optional extra, is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed, none opened
        import matplotlib.pyplot as plt
    except ImportError:
        _log.info("selfplay.no_plot", reason="matplotlib is not installed (pip install 'squeeze-bridge[plot]')",
                  skipped=str(path))
        return False
    # running figures by cumulative sums (a prefix-by-prefix imp_summary would be quadratic in the boards)
    x = np.array([c.swing for c in comparisons], dtype=float)
    n = np.arange(1, len(x) + 1)
    means = np.cumsum(x) / n
    var = (np.cumsum(x * x) - n * means * means) / np.maximum(n - 1, 1)
    half = Z95 * np.sqrt(np.maximum(var, 0.0) / n)
    half[:1] = np.nan  # one board: no interval
    adjusted = np.cumsum([c.par_swing for c in comparisons]) / n
    xs, lows, highs = n, means - half, means + half
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.fill_between(xs, lows, highs, alpha=0.25, label="95 % interval")
    ax.plot(xs, means, label="IMPs/board (A - B)")
    ax.plot(xs, adjusted, linestyle="--", label="par-adjusted")
    ax.set_xlabel("boards")
    ax.set_ylabel("IMPs per board, running mean")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True
