"""A team match at the default budget: how fast boards go, and how the robots' thinking compares with the budget.

Plays ``squeeze match`` (our table manager, eight ``squeeze seat`` processes on loopback) between two teams of
the same configuration (``--config``, default the ``default`` preset), then reads every decision the robots logged
(their JSON logs under ``OUT/logs``): thinking time per decision (mean, p95, max) against the per-card budget,
and the share of decisions the clock cut short (the engine stopped at its deadline with its best answer so far).

    .venv/bin/python bench/match.py [--boards 16] [--config default] [--quick]

Ends with ``RESULT boards=.. boards_per_min=.. think_mean_s=.. think_p95_s=.. think_max_s=.. budget_s=..
cut_short=.. fallbacks=..``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from squeeze.config.settings import load_settings
from squeeze.robot.logs import configure_logging
from squeeze.robot.match import TeamSpec, run_match


def decisions(folder: Path) -> list[dict]:
    out = []
    for log in sorted((folder / "logs").glob("*.log")):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "seat.decision":
                out.append(event)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=16)
    ap.add_argument("--config", default="default", help="both teams' preset or TOML file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="4 boards")
    args = ap.parse_args()
    boards = 4 if args.quick else args.boards
    settings = load_settings(args.config) if args.config.endswith(".toml") else load_settings(preset=args.config)
    budget = settings.engine.seconds_per_card
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "match"
        folder.mkdir()
        log = open(folder / "match.log", "w", encoding="utf-8")
        configure_logging("warning", "json", stream=log)
        t0 = time.monotonic()
        result = asyncio.run(run_match(boards, TeamSpec("Home", args.config), TeamSpec("Away", args.config),
                                       folder, seed=args.seed))
        elapsed = time.monotonic() - t0
        ds = decisions(folder)
    if not result.finished:
        raise SystemExit(f"the match did not finish: {result.problems}")
    secs = sorted(d["seconds"] for d in ds)
    cut = sum(1 for d in ds if d.get("cut_short"))
    fallbacks = sum(1 for d in ds if d.get("fallback"))
    mean = sum(secs) / len(secs)
    p95 = secs[min(len(secs) - 1, int(0.95 * len(secs)))]
    s = result.summary
    print(f"{boards} boards x 2 rooms in {elapsed:.0f} s ({60 * boards / elapsed:.2f} boards/min, both rooms "
          f"at once); {len(ds)} decisions: think mean {mean:.3f} s, p95 {p95:.3f} s, max {secs[-1]:.3f} s against "
          f"{budget} s per card; cut short {cut / len(ds):.1%}, fallbacks {fallbacks}; "
          f"IMPs/board {s['imps_per_board']:+.2f} ± {s['stderr'] or 0:.2f} (same configuration both sides)")
    print(f"RESULT boards={boards} boards_per_min={60 * boards / elapsed:.3f} think_mean_s={mean:.4f} "
          f"think_p95_s={p95:.4f} think_max_s={secs[-1]:.4f} budget_s={budget} cut_short={cut / len(ds):.4f} "
          f"fallbacks={fallbacks}")


if __name__ == "__main__":
    main()
