"""A TableMachine and four ClientMachines wired together play 1,000 random boards; every result equals what was
played."""

from __future__ import annotations

import random
import time
from collections import defaultdict

from squeeze.engine.auction import ALL_CALLS, PASS, Auction
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Seat, dealer_for_board, vul_for_board
from squeeze.engine.record import BoardRecord
from squeeze.protocol.client import BoardComplete, ClientMachine
from squeeze.protocol.loopback import Loopback
from squeeze.protocol.table import TableMachine

EXPLANATIONS = ["", "Asking for aces.", "12 to 14 total points, 5+ cards in hearts.", "Forcing for one round."]


def make_boards(n, rng):
    # board numbers are arbitrary in real events; use a mix including repeats
    return [
        BoardRecord(board=b, deal=Deal.random(rng), dealer=dealer_for_board(b), vul=vul_for_board(b))
        for b in (rng.randint(1, 64) for _ in range(n))
    ]


class Recorder:
    """Random legal decisions, remembered per board (the table's results must equal them)."""

    def __init__(self, rng):
        self.rng = rng
        self.calls = defaultdict(list)  # board index -> calls in order
        self.cards = defaultdict(list)
        self.ends = defaultdict(dict)  # board index -> seat -> BoardComplete
        self.board_index = {s: -1 for s in Seat}

    def on_event(self, seat, ev):
        if isinstance(ev, BoardComplete):
            self.ends[self.board_index[seat]][seat] = ev
        elif type(ev).__name__ == "HandReceived":
            self.board_index[seat] += 1

    def call(self, client, ev):
        rng = self.rng
        if rng.random() < 0.55:
            c = PASS
        else:
            c = rng.choice(ALL_CALLS[: min(38, 3 + 5 * rng.randint(1, 7))])
            if not ev.auction.is_legal(c):
                c = PASS
        self.calls[self.board_index[client.seat]].append(c)
        if c.is_bid and rng.random() < 0.2:
            return c, True, rng.choice(EXPLANATIONS)
        return c

    def card(self, client, ev):
        c = self.rng.choice(ev.legal)
        self.cards[self.board_index[client.seat]].append(c)
        return c


def check_results(boards, results, rec):
    assert len(results) == len(boards)
    for i, (board, record) in enumerate(zip(boards, results)):
        assert record.board == board.board and record.deal == board.deal
        assert record.dealer == board.dealer and record.vul == board.vul
        assert list(record.auction.calls) == rec.calls[i]
        assert record.auction == Auction(board.dealer, rec.calls[i])
        assert list(record.play) == rec.cards[i]
        if record.contract is None:
            assert record.auction.is_passed_out and record.result is None and record.play == ()
        else:
            play = Play(board.deal, record.contract, rec.cards[i])
            assert play.is_complete and record.result == play.declarer_tricks
        assert record.players == {s: ("NS" if s.is_ns else "EW") for s in Seat}
        for seat in Seat:
            ev = rec.ends[i][seat]
            assert ev.board == board.board and ev.auction == record.auction and list(ev.cards) == rec.cards[i]
            assert ev.contract == record.contract and ev.declarer_tricks == record.result
            assert ev.deal == (board.deal if record.contract is not None else None)


def test_thousand_random_boards():
    rng = random.Random(20261122)
    boards = make_boards(1000, rng)
    table = TableMachine(boards)
    clients = {s: ClientMachine("NS" if s.is_ns else "EW", s) for s in Seat}
    rec = Recorder(random.Random(7))
    lb = Loopback(table, clients, rec.call, rec.card, rng=random.Random(8), on_event=rec.on_event)
    t0 = time.process_time()
    results = lb.run()
    elapsed = time.process_time() - t0
    assert lb.errors == []  # no ProtocolError anywhere, on either side
    check_results(boards, results, rec)
    assert sum(r.contract is None for r in results) > 20  # passed-out boards are in the mix
    assert all(c.phase.value == "session_ended" for c in clients.values())
    assert table.phase.value == "ended"
    # well under a minute even on a loaded 2-core box (measured: ~10 s of CPU for the 1,000 boards)
    assert elapsed < 45, f"1,000 boards took {elapsed:.1f} s of CPU"
