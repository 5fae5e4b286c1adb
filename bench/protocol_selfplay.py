"""Cost of the Blue Chip protocol layer in self-play: a TableMachine and four ClientMachines (protocol.loopback)
play random boards with random legal calls and cards, every line parsed, checked and formatted.

Reference, same run, same boards and decisions: rebuilding each board with the domain model alone
(``Auction`` + ``Play`` + ``BoardRecord``, every call and card checked once) - the work no protocol can avoid.
The ratio says how many times that the whole protocol round trip costs. CPU time (``time.process_time``), since
the box is shared.

    .venv/bin/python bench/protocol_selfplay.py [--quick] [--boards N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from squeeze.engine.auction import ALL_CALLS, PASS, Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Seat, dealer_for_board, vul_for_board
from squeeze.engine.record import BoardRecord
from squeeze.protocol.client import ClientMachine
from squeeze.protocol.loopback import Loopback
from squeeze.protocol.table import TableMachine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 boards")
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    n = 200 if args.quick else args.boards
    rng = random.Random(args.seed)
    boards = [
        BoardRecord(board=b, deal=Deal.random(rng), dealer=dealer_for_board(b), vul=vul_for_board(b))
        for b in range(1, n + 1)
    ]
    decide = random.Random(args.seed + 1)

    def call(client, ev):
        if decide.random() < 0.55:
            return PASS
        c = decide.choice(ALL_CALLS)
        return c if ev.auction.is_legal(c) else PASS

    def card(client, ev):
        return decide.choice(ev.legal)

    table = TableMachine(boards)
    clients = {s: ClientMachine("NS" if s.is_ns else "EW", s) for s in Seat}
    lb = Loopback(table, clients, call, card, rng=random.Random(args.seed + 2))
    t0 = time.process_time()
    results = lb.run()
    protocol_s = time.process_time() - t0
    assert len(results) == n and not lb.errors

    t0 = time.process_time()
    for r in results:
        auction = Auction(r.dealer, r.auction.calls)
        if auction.contract is not None:
            Play(r.deal, auction.contract, r.play)
        BoardRecord(board=r.board, deal=r.deal, dealer=r.dealer, vul=r.vul, auction=auction, play=r.play)
    domain_s = time.process_time() - t0

    lines = lb.steps
    print(f"boards                    {n}")
    print(f"lines delivered           {lines} ({lines / n:.0f} per board)")
    print(f"protocol self-play        {protocol_s:.2f} s CPU = {n / protocol_s:.0f} boards/s, {lines / protocol_s:.0f} lines/s")
    print(f"domain model only         {domain_s:.2f} s CPU = {n / domain_s:.0f} boards/s")
    print(f"protocol / domain         {protocol_s / domain_s:.1f}x")
    print(
        f"RESULT boards={n} boards_per_s={n / protocol_s:.0f} lines_per_s={lines / protocol_s:.0f} "
        f"domain_boards_per_s={n / domain_s:.0f} protocol_over_domain={protocol_s / domain_s:.1f}"
    )


if __name__ == "__main__":
    main()
