"""What a self-play run reports beside its ``summary.json`` (``robot.summary``, built from the store by
``robot.tm.export.store_summary``; each board's comparison is ``engine.teams.compare_board``):

- ``sprt_state``: the SPRT over the boards done without a gap from board 1, in board order;
- ``plot_running``: ``imps.png``, the running IMPs per board with its 95 % interval and the par-adjusted mean;
- ``plot_standings``: a tournament's ``standings.png``, each entrant's running IMPs per board against the field with
  its 95 % interval.

The pictures need matplotlib, the optional extra ``plot``: without it they are skipped with a log line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np
import structlog

from squeeze.engine.stats import Z95, ImpSummary, Sprt, SprtResult
from squeeze.engine.teams import BoardComparison

__all__ = ["plot_running", "plot_standings", "sprt_state"]

_log = structlog.get_logger("squeeze.selfplay")


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


def _pyplot(path: Path) -> Optional[Any]:
    """``matplotlib.pyplot`` drawing to files only, or None (and a log line naming ``path``) without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed, none opened
        import matplotlib.pyplot as plt
    except ImportError:
        _log.info("selfplay.no_plot", reason="matplotlib is not installed (pip install 'squeeze-bridge[plot]')",
                  skipped=str(path))
        return None
    return plt


def plot_running(comparisons: Sequence[BoardComparison], path: Path) -> bool:
    """Draw ``imps.png``: the running IMPs per board (board order) with its 95 % interval, and the par-adjusted
    running mean. False (and a log line) when matplotlib, an optional extra, is not installed."""
    plt = _pyplot(path)
    if plt is None:
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
    fig, ax = _axes(plt)
    ax.fill_between(xs, lows, highs, alpha=0.25, label="95 % interval")
    ax.plot(xs, means, label="IMPs/board (A - B)")
    ax.plot(xs, adjusted, linestyle="--", label="par-adjusted")
    _save(plt, fig, ax, path, "boards", "IMPs per board, running mean")
    return True


def _axes(plt: Any) -> tuple[Any, Any]:
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    return fig, ax


def _save(plt: Any, fig: Any, ax: Any, path: Path, xlabel: str, ylabel: str) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # (boards: whole numbers)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_standings(running: Mapping[str, Sequence[tuple[int, ImpSummary]]], path: Path) -> bool:
    """Draw ``standings.png``: for each entrant, its IMPs per board against the field after the first k boards of
    the plan (``running[name]``: ``(k, the figures then)``), a line with its 95 % interval as a band. False (and a
    log line) without matplotlib."""
    plt = _pyplot(path)
    if plt is None:
        return False
    fig, ax = _axes(plt)
    for name, series in running.items():
        if not series:
            continue
        xs = np.array([k for k, _ in series], dtype=float)
        means = np.array([s.mean for _, s in series], dtype=float)
        lows = np.array([s.low for _, s in series], dtype=float)  # (NaN while the spread is unknown: no band)
        highs = np.array([s.high for _, s in series], dtype=float)
        line, = ax.plot(xs, means, label=name)
        ax.fill_between(xs, lows, highs, alpha=0.15, color=line.get_color())
    ax.set_title("running standings, 95 % intervals")
    _save(plt, fig, ax, path, "boards of each pairing", "IMPs per board against the field")
    return True
