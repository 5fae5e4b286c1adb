"""What ``squeeze match`` shows while it runs (a rich live panel on a terminal, a line per finished board
elsewhere) and the verdict it prints at the end."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Iterator, Optional

from rich.console import Console
from rich.live import Live
from rich.table import Table

from squeeze.engine.teams import compare_rooms, gross_imps

__all__ = ["MatchView"]


class MatchView:
    def __init__(self, boards: int, teams: tuple[str, str], console: Optional[Console] = None) -> None:
        self.boards = boards
        self.teams = teams
        self.console = console or Console()
        self._live: Optional[Live] = None
        self._reported = 0
        self._score_at: tuple[int, str] = (-1, "no board compared yet")  # (boards finished, score line) cached

    @contextlib.contextmanager
    def live(self) -> Iterator["MatchView"]:
        if not self.console.is_terminal:
            yield self
            return
        with Live(self._render(None, {"boards": 0, "total": self.boards, "rooms": {}}), console=self.console,
                  refresh_per_second=4, transient=False) as live:
            self._live = live
            yield self
        self._live = None

    def update(self, manager, progress: dict) -> None:
        """Called by ``run_match`` a few times a second with the table manager and the boards done (``boards``:
        finished in both rooms, of ``total``; ``rooms``: each room's count)."""
        if self._live is not None:
            self._live.update(self._render(manager, progress))
        elif progress["boards"] > self._reported:
            self._reported = progress["boards"]
            print(f"squeeze match: {progress['boards']}/{progress['total']} boards finished "
                  f"({self._score(manager, progress['boards'])})", file=sys.stderr, flush=True)

    def _score(self, manager, finished: int = 0) -> str:
        """The running score, read from the store only when another board has finished (the view is redrawn
        several times a second)."""
        if manager is None or finished == self._score_at[0]:
            return self._score_at[1]
        compared = compare_rooms(row.record for row in manager.store.results())
        a, b = gross_imps(c.swing for c in compared)
        self._score_at = (finished, f"{self.teams[0]} {a} - {b} {self.teams[1]} IMPs after {len(compared)} boards")
        return self._score_at[1]

    def _render(self, manager, progress: dict) -> Table:
        rooms = progress.get("rooms") or {}
        each = ", ".join(f"{room.lower()} {n}" for room, n in rooms.items())
        t = Table(title=f"{self.teams[0]} v {self.teams[1]}: {progress['boards']} of {progress['total']} boards "
                        f"finished{f' ({each})' if each else ''} — {self._score(manager, progress['boards'])}")
        t.add_column("room")
        t.add_column("board", justify="right")
        t.add_column("contract")
        t.add_column("tricks", justify="right")
        for match in (manager.matches.values() if manager is not None else ()):
            for table in match.tables:
                m = table.machine
                board = "-" if m.board is None else str(m.board.board)
                contract = "bidding" if m.auction is not None and not m.auction.is_complete else \
                    m.auction.contract.text if m.auction is not None and m.auction.contract else \
                    "passed out" if m.auction is not None else "-"
                tricks = "" if m.play is None else f"{m.play.declarer_tricks}/{len(m.play.tricks)}"
                t.add_row(table.room, board, contract, tricks)
        return t

    def print_summary(self, summary: dict, out: Path) -> None:
        """The verdict from the match's ``summary.json`` object (``robot.summary``)."""
        a, b = self.teams
        per = summary["imps_per_board"]
        imps = summary["imps"] or {"a": 0, "b": 0}
        lines = [f"{a} {imps['a']} - {imps['b']} {b} IMPs over {summary['boards']} boards"]
        if per is not None:
            se = summary["stderr"]
            low, high = summary["interval95"]
            lines.append(f"{a}: {per:+.2f} IMPs/board" + (f" ± {se:.2f} (95% {low:+.2f} .. {high:+.2f})"
                                                          if se is not None else ""))
            lines.append(f"VPs: {a} {summary['vp']['a']:.2f} - {summary['vp']['b']:.2f} {b}")
        for side, team in (("a", a), ("b", b)):
            t = (summary["think_seconds"] or {}).get(side)
            if t and t["decisions"]:
                lines.append(f"{team} thinking per decision: mean {t['mean']:.3f} s, p95 {t['p95']:.3f} s, "
                             f"max {t['max']:.3f} s ({t['decisions']} decisions)")
        if summary["robot_restarts"]:
            lines.append(f"robot processes restarted: {summary['robot_restarts']}")
        replayed = (summary["incidents"] or {}).get("void", 0)
        if replayed:
            lines.append(f"boards voided and replayed: {replayed}")
        for p in summary["problems"] or []:
            lines.append(f"problem: {p}")
        lines.append(f"boards: {out / 'boards.pbn'}   summary: {out / 'summary.json'}")
        self.console.print("\n".join(lines), highlight=False)
