"""Transcript tests: the research note's board (every socket), a passed-out board, declarer playing dummy's cards
throughout, and a claim-free full board - all run through real ClientMachines and a real TableMachine."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from squeeze.engine.auction import Auction, Call
from squeeze.engine.record import BoardRecord
from squeeze.engine.cards import Card, Deal, Seat, Vul
from squeeze.protocol import messages as m
from squeeze.protocol.client import BoardComplete, CallRequested, CardRequested, ClientMachine
from squeeze.protocol.loopback import Loopback
from squeeze.protocol.table import TableMachine

# Research note section 2a: the whole session on South's socket (copied verbatim from bluechip-protocol.md).
TRANSCRIPT_2A = """
S -> TM: Connecting "RoboA" as South using protocol version 18
TM -> S: South ("RoboA") seated
S -> TM: South ready for teams
TM -> S: Teams : N/S : "RoboA" E/W : "RoboB"
S -> TM: South ready to start
TM -> S: Start of board
S -> TM: South ready for deal
TM -> S: Board number 3. Dealer South. E/W vulnerable.
S -> TM: South ready for cards
TM -> S: South's cards : S A Q 4. H K Q 9 2. D A J 5. C J 6 4.
S -> TM: South bids 1NT
S -> TM: South ready for West's bid
TM -> S: West passes
S -> TM: South ready for North's bid
TM -> S: North bids 2C
S -> TM: South ready for East's bid
TM -> S: East doubles
S -> TM: South bids 2H
S -> TM: South ready for West's bid
TM -> S: West passes
S -> TM: South ready for North's bid
TM -> S: North bids 4H
S -> TM: South ready for East's bid
TM -> S: East passes
S -> TM: South passes
S -> TM: South ready for West's bid
TM -> S: West passes
S -> TM: South ready for West's card to trick 1
TM -> S: West plays 3C
S -> TM: South ready for dummy
TM -> S: Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.
S -> TM: North plays 5C
S -> TM: South ready for East's card to trick 1
TM -> S: East plays 7C
S -> TM: South plays JC
TM -> S: South to lead
S -> TM: South plays KH
S -> TM: South ready for West's card to trick 2
TM -> S: West plays 4H
S -> TM: North plays 3H
S -> TM: South ready for East's card to trick 2
TM -> S: East plays 5H
TM -> S: South to lead
S -> TM: South plays QH
S -> TM: South ready for West's card to trick 3
TM -> S: West plays 7H
S -> TM: North plays 6H
S -> TM: South ready for East's card to trick 3
TM -> S: East plays 8H
TM -> S: South to lead
S -> TM: South plays 9H
S -> TM: South ready for West's card to trick 4
TM -> S: West plays TH
S -> TM: North plays JH
S -> TM: South ready for East's card to trick 4
TM -> S: East plays 3D
TM -> S: Dummy to lead
S -> TM: North plays KS
S -> TM: South ready for East's card to trick 5
TM -> S: East plays 7S
S -> TM: South plays 4S
S -> TM: South ready for West's card to trick 5
TM -> S: West plays 3S
TM -> S: Dummy to lead
S -> TM: North plays 8S
S -> TM: South ready for East's card to trick 6
TM -> S: East plays 9S
S -> TM: South plays QS
S -> TM: South ready for West's card to trick 6
TM -> S: West plays 6S
TM -> S: South to lead
S -> TM: South plays AD
S -> TM: South ready for West's card to trick 7
TM -> S: West plays 2D
S -> TM: North plays 4D
S -> TM: South ready for East's card to trick 7
TM -> S: East plays 6D
TM -> S: South to lead
S -> TM: South plays JD
S -> TM: South ready for West's card to trick 8
TM -> S: West plays QD
S -> TM: North plays 7D
S -> TM: South ready for East's card to trick 8
TM -> S: East plays KD
S -> TM: South ready for East's card to trick 9
TM -> S: East plays AC
S -> TM: South plays 4C
S -> TM: South ready for West's card to trick 9
TM -> S: West plays 2C
S -> TM: North plays 9C
S -> TM: South ready for East's card to trick 10
TM -> S: East plays KC
S -> TM: South plays 6C
S -> TM: South ready for West's card to trick 10
TM -> S: West plays 8D
S -> TM: North plays QC
S -> TM: South ready for East's card to trick 11
TM -> S: East plays TC
S -> TM: South plays 2H
S -> TM: South ready for West's card to trick 11
TM -> S: West plays 9D
S -> TM: North plays 2S
TM -> S: South to lead
S -> TM: South plays AS
S -> TM: South ready for West's card to trick 12
TM -> S: West plays TS
S -> TM: North plays 5S
S -> TM: South ready for East's card to trick 12
TM -> S: East plays JS
TM -> S: South to lead
S -> TM: South plays 5D
S -> TM: South ready for West's card to trick 13
TM -> S: West plays TD
S -> TM: North plays AH
S -> TM: South ready for East's card to trick 13
TM -> S: East plays 8C
TM -> S: Timing - N/S : this board  01:52,  total  0:05:40.  E/W : this board  01:37,  total  0:05:02.
TM -> S: End of session
"""

# Section 2b: the alerted call on all four sockets (alert hidden from the bidder's partner).
TRANSCRIPT_2B = """
E -> TM: East ready for North's bid
S -> TM: South ready for North's bid
W -> TM: West ready for North's bid
N -> TM: North bids 2C Alert. Asking for a major suit.
TM -> E: North bids 2C Alert. Asking for a major suit.
TM -> S: North bids 2C
TM -> W: North bids 2C Alert. Asking for a major suit.
N -> TM: North ready for East's bid
"""

# Section 2c: end of auction, opening lead, dummy, rest of trick 1.
TRANSCRIPT_2C = """
S -> TM: South ready for West's bid
W -> TM: West passes
TM -> N: West passes
TM -> E: West passes
TM -> S: West passes
TM -> W: West to lead
N -> TM: North ready for West's card to trick 1
E -> TM: East ready for West's card to trick 1
S -> TM: South ready for West's card to trick 1
W -> TM: West plays 3C
TM -> N: West plays 3C
TM -> E: West plays 3C
TM -> S: West plays 3C
E -> TM: East ready for dummy
S -> TM: South ready for dummy
W -> TM: West ready for dummy
TM -> E: Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.
TM -> S: Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.
TM -> W: Dummy's cards : S K 8 5 2. H A J 6 3. D 7 4. C Q 9 5.
N -> TM: North ready for dummy's card to trick 1
E -> TM: East ready for North's card to trick 1
W -> TM: West ready for North's card to trick 1
S -> TM: North plays 5C
TM -> N: North plays 5C
TM -> E: North plays 5C
TM -> W: North plays 5C
N -> TM: North ready for East's card to trick 1
S -> TM: South ready for East's card to trick 1
W -> TM: West ready for East's card to trick 1
E -> TM: East plays 7C
TM -> N: East plays 7C
TM -> S: East plays 7C
TM -> W: East plays 7C
N -> TM: North ready for South's card to trick 1
E -> TM: East ready for South's card to trick 1
W -> TM: West ready for South's card to trick 1
S -> TM: South plays JC
TM -> N: South plays JC
TM -> E: South plays JC
TM -> W: South plays JC
TM -> S: South to lead
N -> TM: North ready for South's card to trick 2
E -> TM: East ready for South's card to trick 2
W -> TM: West ready for South's card to trick 2
S -> TM: South plays KH
TM -> N: South plays KH
TM -> E: South plays KH
TM -> W: South plays KH
N -> TM: North ready for West's card to trick 2
"""

# Section 2d: dummy wins a trick and leads.
TRANSCRIPT_2D = """
E -> TM: East plays 3D
TM -> N: East plays 3D
TM -> S: East plays 3D
TM -> W: East plays 3D
TM -> S: Dummy to lead
N -> TM: North ready for dummy's card to trick 5
E -> TM: East ready for North's card to trick 5
W -> TM: West ready for North's card to trick 5
S -> TM: North plays KS
TM -> N: North plays KS
TM -> E: North plays KS
TM -> W: North plays KS
"""

NOTE_DEAL = Deal.parse("N:K852.AJ63.74.Q95 J97.85.K63.AKT87 AQ4.KQ92.AJ5.J64 T63.T74.QT982.32")
NOTE_CALLS = ["1N", "P", "2C", "X", "2H", "P", "4H", "P", "P", "P"]  # dealer South
NOTE_ALERTS = {2: (True, "Asking for a major suit.")}  # North's 2C
NOTE_CARDS = (
    "C3 C5 C7 CJ  HK H4 H3 H5  HQ H7 H6 H8  H9 HT HJ D3  SK S7 S4 S3  S8 S9 SQ S6  DA D2 D4 D6  DJ DQ D7 DK "
    "CA C4 C2 C9  CK C6 D8 CQ  CT H2 D9 S2  SA ST S5 SJ  D5 DT HA C8"
).split()
SEAT_BY_LETTER = {"N": Seat.NORTH, "E": Seat.EAST, "S": Seat.SOUTH, "W": Seat.WEST}


def parse_transcript(text):
    """[(seat, '->TM' | 'TM->', line)] from 'S -> TM: ...' / 'TM -> S: ...' lines."""
    out = []
    for raw in text.strip().splitlines():
        head, _, line = raw.partition(": ")
        src, _, dst = head.partition(" -> ")
        if src == "TM":
            out.append((SEAT_BY_LETTER[dst], "TM->", line))
        else:
            out.append((SEAT_BY_LETTER[src], "->TM", line))
    return out


def scripted(calls, cards, alerts=None):
    """Deciders that replay a fixed auction and play (with alerts by call index)."""
    alerts = alerts or {}

    def decide_call(client, ev: CallRequested):
        i = len(ev.auction.calls)
        alert, text = alerts.get(i, (False, ""))
        return Call.parse(calls[i]), alert, text

    def decide_card(client, ev: CardRequested):
        return Card.parse(cards[len(client.cards)])

    return decide_call, decide_card


def note_table(rng=None, client_kw=None):
    client_kw = client_kw or {}
    board = BoardRecord(board=3, deal=NOTE_DEAL, dealer=Seat.SOUTH, vul=Vul.EW)
    table = TableMachine([board])
    clients = {s: ClientMachine("RoboA" if s.is_ns else "RoboB", s, **client_kw.get(s, {})) for s in Seat}
    call, card = scripted(NOTE_CALLS, NOTE_CARDS, NOTE_ALERTS)
    # connect in seat order so the N/S team is named first, as in the note
    lb = Loopback(table, clients, call, card, rng=rng, record=True)
    return lb


def socket_log(lb, seat):
    return [(d, line) for s, d, line in lb.log if s == seat]


def test_note_board_souths_socket_is_the_transcript():
    lb = note_table()
    results = lb.run()
    assert lb.errors == []
    expected = [(d, line) for _, d, line in parse_transcript(TRANSCRIPT_2A)]
    got = socket_log(lb, Seat.SOUTH)
    assert len(got) == len(expected)
    for (gd, gl), (ed, el) in zip(got, expected):
        if el.startswith("Timing"):
            assert gd == ed and isinstance(m.parse(gl), m.Timing)  # the times are the clock's
            continue
        assert (gd, gl) == (ed, el)
    (record,) = results
    assert record.contract == Auction(Seat.SOUTH, NOTE_CALLS).contract
    assert [str(c) for c in record.play] == [str(Card.parse(c)) for c in NOTE_CARDS]
    assert record.result == 10  # 4H made: the note's play gives declarer ten tricks


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_note_board_other_sockets_match_2b_2c_2d(seed):
    """Only the order within one socket is fixed; with any delivery order each socket shows the note's lines."""
    style = {"dummy_card_style": "seat"}  # the note's defenders name dummy's seat
    lb = note_table(rng=None if seed is None else random.Random(seed), client_kw={Seat.EAST: style, Seat.WEST: style})
    lb.run()
    assert lb.errors == []
    for text in (TRANSCRIPT_2B, TRANSCRIPT_2C, TRANSCRIPT_2D):
        per_seat = defaultdict(list)
        for seat, d, line in parse_transcript(text):
            per_seat[seat].append((d, line))
        for seat, expected in per_seat.items():
            got = socket_log(lb, seat)
            starts = [i for i in range(len(got)) if got[i : i + len(expected)] == expected]
            assert starts, f"{seat.name}: {expected} not found in its socket"


def test_alert_goes_to_opponents_only():
    lb = note_table()
    lb.run()
    relayed = {s: [l for d, l in socket_log(lb, s) if d == "TM->" and l.startswith("North bids 2C")] for s in Seat}
    assert relayed[Seat.EAST] == relayed[Seat.WEST] == ["North bids 2C Alert. Asking for a major suit."]
    assert relayed[Seat.SOUTH] == ["North bids 2C"]
    assert relayed[Seat.NORTH] == []  # no echo to the bidder


def _run_one(deal, calls, cards, dealer=Seat.NORTH, rng=None):
    board = BoardRecord(board=1, deal=deal, dealer=dealer, vul=Vul.NONE)
    table = TableMachine([board])
    clients = {s: ClientMachine("NS" if s.is_ns else "EW", s) for s in Seat}
    ends = {}

    def on_event(seat, ev):
        if isinstance(ev, BoardComplete):
            ends[seat] = ev

    call, card = scripted(calls, cards)
    lb = Loopback(table, clients, call, card, rng=rng, record=True, on_event=on_event)
    results = lb.run()
    assert lb.errors == []
    return lb, results, ends


def test_passed_out_board():
    deal = Deal.random(7)
    lb, (record,), ends = _run_one(deal, ["P", "P", "P", "P"], [], dealer=Seat.EAST)
    assert record.is_passed_out and record.contract is None and record.result is None and record.play == ()
    for seat in Seat:
        log = socket_log(lb, seat)
        lines = [l for _, l in log]
        # nobody is asked to lead, nobody sees dummy; the board ends with Timing and End of session
        assert not any("to lead" in l or "Dummy's cards" in l or "plays" in l for l in lines)
        assert isinstance(m.parse(lines[-2]), m.Timing) and lines[-1] == "End of session"
        assert ends[seat].contract is None and ends[seat].cards == ()
        assert lb.clients[seat].phase.value == "session_ended"
    # each seat called exactly once, in turn from the dealer, with readies in between
    east = [l for d, l in socket_log(lb, Seat.EAST)]
    i = east.index("East's cards : " + m.format(m.DummyCards(hand=deal[Seat.EAST])).split(" : ", 1)[1].rstrip())
    assert east[i + 1 : i + 3] == ["East passes", "East ready for South's bid"]


def _random_play(deal, contract_calls, dealer, seed):
    """A legal random play of the whole deal for the auction (no claims: 52 cards)."""
    from squeeze.engine.board import Play

    rng = random.Random(seed)
    auction = Auction(dealer, contract_calls)
    play = Play(deal, auction.contract)
    while not play.is_complete:
        play = play.then(rng.choice(play.legal_cards()))
    return [str(c) for c in play.cards]


def test_declarer_plays_dummys_cards_throughout():
    deal = Deal.random(11)
    calls = ["1S", "P", "P", "P"]  # North declares 1S, South is dummy
    cards = _random_play(deal, calls, Seat.NORTH, 5)
    lb, (record,), ends = _run_one(deal, calls, cards, rng=random.Random(9))
    dummy_cards = set(str(c) for c in deal[Seat.SOUTH])
    north = socket_log(lb, Seat.NORTH)
    south = socket_log(lb, Seat.SOUTH)
    sent_for_dummy = [l for d, l in north if d == "->TM" and l.startswith("South plays")]
    assert len(sent_for_dummy) == 13  # declarer sends all 13 of dummy's cards, under dummy's seat name
    assert {str(m.parse(l).card) for l in sent_for_dummy} == dummy_cards
    assert not any(l.startswith("South plays") for d, l in north if d == "TM->")  # and gets no echo of them
    assert not any(d == "->TM" and " plays " in l for d, l in south)  # dummy never plays
    assert sum(1 for d, l in south if d == "TM->" and l.startswith("South plays")) == 13  # but sees its cards
    assert "South ready for dummy" not in [l for _, l in south]  # and never asks for dummy
    assert sum(1 for d, l in south if l.startswith("South ready for dummy's card to trick")) == 13
    for d, l in north:
        if l == "Dummy to lead":
            assert d == "TM->"
    assert not any(l == "Dummy to lead" for s in (Seat.EAST, Seat.SOUTH, Seat.WEST) for _, l in socket_log(lb, s))
    assert record.result == ends[Seat.NORTH].declarer_tricks


def test_claim_free_full_board_every_card_played_and_results_agree():
    deal = Deal.random(21)
    calls = ["P", "1N", "P", "3N", "P", "P", "P"]  # East opens 1NT after North's pass; West raises
    cards = _random_play(deal, calls, Seat.NORTH, 3)
    lb, (record,), ends = _run_one(deal, calls, cards, rng=random.Random(4))
    assert len(record.play) == 52 and [str(c) for c in record.play] == cards
    assert record.contract.declarer == Seat.EAST
    for seat in Seat:
        ev = ends[seat]
        assert [str(c) for c in ev.cards] == cards
        assert ev.declarer_tricks == record.result
        assert ev.deal == deal  # the play reveals every hand
        # the 13th trick is played card by card too: every seat sees or sends 13 cards of trick 13
    last_trick = [l for _, d, l in lb.log if d == "->TM" and l.endswith("to trick 13")]
    assert len(last_trick) == 12  # three readies for each of the four cards of the last trick


def test_longest_possible_auction_and_its_play():
    """319 calls: three passes, then every bid doubled and redoubled; then the whole play of 7NT redoubled."""
    calls = ["P", "P", "P"]
    for level in range(1, 8):
        for strain in "CDHSN":
            calls += [f"{level}{strain}", "P", "P", "X", "P", "P", "XX", "P", "P"]
    calls.append("P")
    assert len(calls) == 319
    deal = Deal.random(319)
    auction = Auction(Seat.NORTH, calls)
    assert str(auction.contract) == "7NXXW"
    cards = _random_play(deal, calls, Seat.NORTH, 1)
    lb, (record,), ends = _run_one(deal, calls, cards, rng=random.Random(2))
    assert record.auction == auction and len(record.play) == 52
    assert all(ev.declarer_tricks == record.result for ev in ends.values())
    redoubles = [l for s, d, l in lb.log if d == "TM->" and l.endswith(" redoubles")]
    assert len(redoubles) == 35 * 3  # every redouble relayed to the three others
