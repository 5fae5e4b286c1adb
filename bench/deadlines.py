"""How far past its deadline a decision returns: ``Player.play`` (αμ declarer, PIMC defender), the rules' bidder and
the default player's simulated (Borel) call.

    .venv/bin/python bench/deadlines.py [--reps 10] [--budgets 0.05,0.2,2] [--load]

Positions that no budget here lets a search finish: 3NT by West after the opening lead (and dummy's card), 300
worlds, αμ up to M = 3 with no budget of its own; a rule base whose 600 rules take milliseconds each; a close
call the default player simulates (a weak preference or a long suit of one's own, ``1S P 1N P 2D P``). ``--load``
runs the test suite beside the measurement (what the tests' ``MARGIN`` must survive on a 2-core machine). Prints
one line per budget and ``RESULT worst_over_ms=... p99_over_ms=...`` (elapsed minus budget; negative is early).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.engine.bidding import Bidder  # noqa: E402
from squeeze.engine.board import Play  # noqa: E402
from squeeze.engine.cards import Deal, Hand, Seat, Vul  # noqa: E402
from squeeze.engine.play.card_player import PlaySettings  # noqa: E402
from squeeze.engine.play.oracle import EngineDDOracle  # noqa: E402
from squeeze.engine.player import Player, PlayerParams, SeatView  # noqa: E402

DEAL = Deal.parse("N:8432.QJ.AT4.Q954 K9765.AT862..KJ6 AJT.754.Q9532.82 Q.K93.KJ876.AT73")
AUCTION = Auction.parse("P 1S P 2D P 2H P 3N P P P", "N")
# A call the rules find close (3C of one's own against preference for partner's spades): the default player deals,
# projects and solves worlds for it, by rounds, until its deadline.
CLOSE_CALL = SeatView(Seat.SOUTH, Hand.parse("64.A75.A3.J96543"), Auction.parse("P P 1S P 1N P 2D P", "S"), Vul.NONE)
MANY = PlaySettings(worlds_declarer=300, worlds_defender=300, max_m=3, declarer_budget_s=60.0)


def views() -> dict[str, SeatView]:
    play = Play(DEAL, AUCTION.contract).then("S2")  # North leads: West (declarer) plays from dummy
    out = {"alphamu": SeatView.from_play(play, Seat.WEST, auction=AUCTION)}
    play = play.then("S5")  # dummy's card: South, a defender, is next
    out["pimc"] = SeatView.from_play(play, Seat.SOUTH, auction=AUCTION)
    return out


def slow_bidder(folder: Path) -> Bidder:
    rule = 'when = "sum(1 for x in range(250000 + hcp)) < 0"\nexplain = "never"\n'
    path = folder / "slow.toml"
    path.write_text('[system]\nname = "slow"\n' + "".join(
        f'[[rule]]\nid = "slow.{i}"\ncontext = ""\ncall = "1C"\n{rule}' for i in range(600)))
    return Bidder.of(load_system(path))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--budgets", default="0.05,0.2,2")
    ap.add_argument("--load", action="store_true", help="run the test suite beside the measurement")
    ap.add_argument("--quick", action="store_true", help="3 repetitions of each budget")
    a = ap.parse_args(argv)
    if a.quick:
        a.reps = 3
    budgets = [float(x) for x in a.budgets.split(",")]
    oracle = EngineDDOracle()
    Player(oracle=oracle, systems=load_system).prepare()
    positions = views()
    suite = None
    if a.load:
        suite = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                                 cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2.0)  # let it get going
    overs: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bidder = slow_bidder(Path(tmp))
            hand = Hand.parse("AK94.T82.K73.AQ5")
            for budget in budgets:
                line = []
                for name in ("alphamu", "pimc", "bidder", "borel"):
                    worst = -budget
                    for rep in range(a.reps):
                        t = time.monotonic()
                        if name == "bidder":
                            bidder.choose(hand, Auction(Seat.NORTH), alternatives=False, deadline=t + budget)
                        elif name == "borel":
                            # a fresh player: its first simulated call also builds the solver, inside the budget
                            player = Player(PlayerParams(seed=rep, seconds_per_call=budget), oracle=oracle,
                                            systems=load_system)
                            player.bid(CLOSE_CALL, deadline=t + budget)
                        else:
                            player = Player(PlayerParams(play=MANY, seed=rep), oracle=oracle, systems=load_system)
                            player.play(positions[name], deadline=t + budget)
                        over = time.monotonic() - t - budget
                        overs.append(over)
                        worst = max(worst, over)
                    line.append(f"{name} worst {1000 * worst:+6.1f} ms")
                print(f"budget {budget:5.2f} s: " + "   ".join(line), flush=True)
    finally:
        if suite is not None:
            suite.terminate()
            suite.wait()
    overs.sort()
    p99 = overs[min(len(overs) - 1, int(0.99 * len(overs)))]
    print(f"RESULT worst_over_ms={1000 * overs[-1]:.1f} p99_over_ms={1000 * p99:.1f} decisions={len(overs)} "
          f"load={'suite' if a.load else 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
