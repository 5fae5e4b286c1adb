"""The seat's decision latency against its budget: four ``squeeze seat`` agents at our table manager on loopback.

Each decision's latency is what the agent measured from asking its worker process to having the answer (the
engine's thinking, the pipe both ways and the agent's own bookkeeping): the time the table waits for us beyond
the line's transit. The per-card and per-call budgets are set to ``--budget`` (0.2 s by default, the issue's
figure); a decision counts as ``late`` when it took longer than the budget plus 50 ms. Engine: the ``default``
preset's card play (αμ declaring, PIMC defending, 20 worlds, inference on) so that decisions do meet the budget.

    .venv/bin/python bench/seat.py [--boards 8] [--budget 0.2] [--quick]

Ends with ``RESULT decisions=.. budget_s=.. p50_s=.. p99_s=.. max_s=.. late=.. fallbacks=.. cut_short=..``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time

from squeeze.config.settings import TableManagerSettings, engine_params, load_settings
from squeeze.engine.cards import Seat
from squeeze.robot.agent import EXIT_OK, AgentOptions, SeatAgent
from squeeze.robot.logs import configure_logging
from squeeze.robot.tm.run import prepare_run
from squeeze.robot.tm.server import TableManager

LATE_MARGIN = 0.05


async def session(boards: int, budget: float, seed: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        tm_settings = TableManagerSettings(port=0, results_dir=folder, boards=boards, seed=seed,
                                           board_seconds=600, seconds_per_call=60, seconds_per_card=60)
        store, matches = prepare_run(tm_settings, resume=False)
        manager = TableManager(tm_settings, store, matches)
        port = await manager.start()
        params = engine_params(load_settings(preset="default", engine={"seed": seed}))
        teams = {Seat.NORTH: "Squeeze", Seat.SOUTH: "Squeeze", Seat.EAST: "Rivals", Seat.WEST: "Rivals"}
        agents = [SeatAgent(AgentOptions(port=port, seat=s, team=teams[s], seconds_per_call=budget,
                                         seconds_per_card=budget, board_seconds=600, safety_margin_s=1.0), params)
                  for s in Seat]
        try:
            codes = []
            for a in agents:  # seat them one by one: the first team to connect opens the match
                codes.append(asyncio.create_task(a.run()))
                await asyncio.sleep(0.3)
            results = await asyncio.wait_for(asyncio.gather(*codes), timeout=3600)
        finally:
            await manager.close()
            store.close()
        if any(r != EXIT_OK for r in results):
            raise SystemExit(f"an agent ended with exit codes {results}")
        return [d for a in agents for d in a.decisions]


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=8)
    ap.add_argument("--budget", type=float, default=0.2, help="seconds per call and per card")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="2 boards")
    args = ap.parse_args()
    configure_logging("error", "json")
    boards = 2 if args.quick else args.boards
    t0 = time.monotonic()
    decisions = asyncio.run(session(boards, args.budget, args.seed))
    secs = [d["seconds"] for d in decisions]
    cards = [d["seconds"] for d in decisions if d["kind"] == "card"]
    late = sum(1 for d in decisions if d["seconds"] > d["budget_s"] + LATE_MARGIN)
    fallbacks = sum(1 for d in decisions if d.get("fallback"))
    cut = sum(1 for d in decisions if d.get("cut_short"))
    print(f"{boards} boards, {len(decisions)} decisions ({len(cards)} cards) in {time.monotonic() - t0:.0f} s; "
          f"budget {args.budget} s; latency p50 {quantile(secs, 0.5):.3f} s, p99 {quantile(secs, 0.99):.3f} s, "
          f"max {max(secs):.3f} s; late (> budget + {LATE_MARGIN} s): {late}; fallbacks {fallbacks}; "
          f"cut short {cut}")
    print(f"RESULT decisions={len(decisions)} budget_s={args.budget} p50_s={quantile(secs, 0.5):.4f} "
          f"p99_s={quantile(secs, 0.99):.4f} max_s={max(secs):.4f} late={late} fallbacks={fallbacks} cut_short={cut}")


if __name__ == "__main__":
    main()
