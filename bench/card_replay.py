"""Our cards in a stored match, chosen again from the very same positions, against double dummy.

A match against another robot (``bench/ben_match.py``) says where the tricks went at the table (``robot.analysis``:
tricks lost against double dummy by the lead, the defence and declarer), but a configuration can only be tried
there by playing hundreds of boards again. This bench takes the positions instead: for every card one team's
robots chose at the table (``--team``, by default ``Squeeze``) in the roles asked for (``--role lead``, ``defence``,
``declarer``; all by default), the seat's view at that moment (its hand, the auction with the alerts and
explanations the table relayed to it, dummy, the cards played so far) goes to our engine under configuration A and
under B, and each card is scored by the solver against the best card of the position: the tricks it gives away.
The table's own card is scored beside them. A board's decisions are taken in the order they were made, so the card
player's beliefs follow the cards seen as they did at the table; nothing has a deadline.

Per configuration and role: decisions, tricks lost per board, decisions that cost a trick, CPU seconds per
decision; then B - A in tricks lost per board with its standard error (by board; positive: B loses fewer).

    .venv/bin/python bench/card_replay.py --from-match BEN_RUN... [--b objective=make] [--role defence] [--boards N]
    .venv/bin/python bench/card_replay.py --from-match BEN_RUN --quick     # 3 table boards

A configuration is ``KEY=VALUE[,KEY=VALUE]`` over ``PlaySettings``' fields (``engine/play/card_player.py``), on top
of the engine's defaults. Ends with ``RESULT boards=.. decisions=.. lost_a=.. lost_b=.. lost_table=.. delta=..
delta_se=.. cpu_a=.. cpu_b=..`` (tricks lost per board, over the roles asked for).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from leads import parse_config, told_to  # noqa: E402

from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.board import Play  # noqa: E402
from squeeze.engine.dds import Position, Solver  # noqa: E402
from squeeze.engine.player import Player, PlayerParams  # noqa: E402
from squeeze.engine.view import SeatView  # noqa: E402
from squeeze.robot.analysis import _records, _teams_of  # noqa: E402
from squeeze.robot.tm.store import STORE_FILE  # noqa: E402

ROLES = ("lead", "defence", "declarer")


def role_of(play: Play, i: int) -> str:
    mover = play.next_seat
    if mover in (play.contract.declarer, play.contract.declarer.partner):
        return "declarer"
    return "lead" if i == 0 else "defence"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from-match", nargs="+", metavar="DIR", required=True, help="stored matches' folders")
    ap.add_argument("--team", default="Squeeze", help="whose cards are replayed (a team's name in the store)")
    ap.add_argument("--role", choices=ROLES, action="append", help="roles replayed (repeat; default: all)")
    ap.add_argument("--a", default="", help="configuration A (default: the engine's defaults)")
    ap.add_argument("--b", default="objective=make", help="configuration B")
    ap.add_argument("--boards", type=int, default=0, help="at most this many table boards (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="3 table boards")
    args = ap.parse_args()
    if args.quick:
        args.boards = 3
    roles = set(args.role or ROLES)
    configs = {"a": parse_config(args.a), "b": parse_config(args.b)}
    players = {k: Player(PlayerParams(play=s, seed=args.seed), systems=load_system) for k, s in configs.items()}
    for p in players.values():
        p.prepare()
    solver = Solver()
    records = []
    for folder in args.from_match:
        if not (Path(folder) / STORE_FILE).is_file():
            sys.exit(f"error: {folder} holds no match store ({STORE_FILE})")
        records += [r for r in _records(Path(folder)) if r.contract is not None and len(r.play) == 52]
    if args.boards:
        records = records[:args.boards]
    # per (role, who): decisions, tricks lost, costly decisions; per table board: tricks lost by who
    count = defaultdict(lambda: [0, 0, 0])
    per_board: dict[str, list[int]] = {k: [] for k in ("a", "b", "table")}
    cpu = {"a": 0.0, "b": 0.0}
    t_start = time.monotonic()
    boards = 0
    for n, rec in enumerate(records, 1):
        teams = _teams_of(rec, "A", "B")
        play = Play(rec.deal, rec.contract)
        for p in players.values():
            p.end_board()
        lost = {k: 0 for k in per_board}
        seen = False
        for i, card in enumerate(rec.play):
            mover = play.next_seat
            role = role_of(play, i)
            decider = rec.contract.declarer if role == "declarer" else mover
            ours = teams["NS" if decider.is_ns else "EW"] == args.team
            if ours and role in roles and len(play.legal_cards()) > 1:
                view = replace(SeatView.from_play(play, decider, auction=rec.auction, vul=rec.vul, board=rec.board),
                               **told_to(rec, decider))
                values = solver.solve_cards(Position.from_play(play), rec.contract.strain)
                best = max(values.values())
                chosen = {"table": card}
                for k, player in players.items():
                    t0 = time.process_time()
                    chosen[k] = player.play(view).card
                    cpu[k] += time.process_time() - t0
                for k, c in chosen.items():
                    x = best - values[c]
                    tally = count[(role, k)]
                    tally[0] += 1
                    tally[1] += x
                    tally[2] += x > 0
                    lost[k] += x
                seen = True
            play = play.then(card)
        if seen:
            boards += 1
            for k in per_board:
                per_board[k].append(lost[k])
        if n % 20 == 0:
            print(f"card_replay: {n}/{len(records)} table boards, {time.monotonic() - t_start:.0f} s", flush=True)
    if not boards:
        sys.exit(f"error: no decision of {args.team} in the roles asked for")
    print(f"{boards} table boards with decisions of {args.team} ({', '.join(sorted(roles))}); "
          f"A = {args.a or 'defaults'}, B = {args.b or 'defaults'}")
    print("| role | who | decisions | tricks lost per board | decisions that cost a trick |\n|---|---|---:|---:|---:|")
    for role in ROLES:
        for k in ("table", "a", "b"):
            d, x, c = count.get((role, k), (0, 0, 0))
            if d:
                print(f"| {role} | {k} | {d} | {x / boards:.4f} | {c / d:.1%} |")
    diffs = [a - b for a, b in zip(per_board["a"], per_board["b"])]
    mean = sum(diffs) / boards
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (boards - 1) / boards) if boards > 1 else float("nan")
    decisions = sum(v[0] for (r, k), v in count.items() if k == "a")
    print(f"B - A: {mean:+.4f} tricks per board fewer lost by B (se {se:.4f}); CPU s per decision: "
          f"A {cpu['a'] / decisions:.3f}, B {cpu['b'] / decisions:.3f}")
    lost_of = {k: sum(v) / boards for k, v in per_board.items()}
    print(f"RESULT boards={boards} decisions={decisions} lost_a={lost_of['a']:.4f} lost_b={lost_of['b']:.4f} "
          f"lost_table={lost_of['table']:.4f} delta={mean:+.4f} delta_se={se:.4f} "
          f"cpu_a={cpu['a'] / decisions:.3f} cpu_b={cpu['b'] / decisions:.3f}")


if __name__ == "__main__":
    main()
