"""PBN read/write throughput, against endplay's PBN reader on the same file (reference, same run).

Boards are seeded random deals with a fixed auction and a fully played random legal play (so both readers also
reconstruct 13 tricks per board). Our reader additionally checks every call and card against the deal.

    .venv/bin/python bench/pbn_io.py [--quick] [--boards N]
"""

from __future__ import annotations

import argparse
import random
import time

from squeeze.engine.auction import Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, dealer_for_board
from squeeze.engine.pbn import Annotation, PbnGame, read_pbn, write_pbn
from squeeze.engine.record import BoardRecord


def make_games(n: int, seed: int = 1) -> list[PbnGame]:
    rng = random.Random(seed)
    games = []
    for k in range(n):
        board = k + 1
        deal = Deal.random(rng)
        auction = Auction.parse("1N P 3N P P P", dealer_for_board(board))
        play = Play(deal, auction.contract)
        while not play.is_complete:
            play = play.then(rng.choice(play.legal_cards()))
        rec = BoardRecord(board=board, deal=deal, auction=auction, play=play.cards, event="bench")
        games.append(PbnGame(rec, call_annotations={0: Annotation("15-17")}, tags={"Scoring": "IMP"}))
    return games


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--boards", type=int, default=None)
    args = ap.parse_args()
    n = args.boards or (200 if args.quick else 1000)
    repeat = 3
    games = make_games(n)
    text = write_pbn(games)
    t_write = best_of(lambda: write_pbn(games), repeat)
    t_read = best_of(lambda: read_pbn(text), repeat)
    assert read_pbn(text).games == games
    try:
        from endplay.parsers import pbn as endplay_pbn
    except ImportError:  # the reference is optional
        t_ref = float("nan")
    else:
        t_ref = best_of(lambda: endplay_pbn.loads(text), repeat)
    print(f"boards: {n}, file: {len(text) / 1024:.0f} KiB")
    print(f"write_pbn: {n / t_write:8.0f} boards/s")
    print(f"read_pbn : {n / t_read:8.0f} boards/s (with auction and play checked against the deal)")
    print(f"endplay  : {n / t_ref:8.0f} boards/s (endplay.parsers.pbn.loads, no legality checks)")
    print(f"RESULT boards={n} write_boards_per_s={n / t_write:.0f} read_boards_per_s={n / t_read:.0f} "
          f"endplay_read_boards_per_s={n / t_ref:.0f} read_speed_vs_endplay={t_ref / t_read:.2f}")


if __name__ == "__main__":
    main()
