"""``engine.Player``: four seats, each told only what it may know, bid and play a whole board."""

from __future__ import annotations

import random

import pytest

from squeeze.config.bidding import load_system
from squeeze.engine.auction import Auction
from squeeze.engine.cards import BridgeError, Deal, Hand, Seat
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.player import Player, PlayerParams, SeatView
from squeeze.robot.selfplay import play_board

from test_play_oracle import EndplayOracle

ORACLE = EndplayOracle()
SETTINGS = PlaySettings(worlds_declarer=5, worlds_defender=5, max_m=2, declarer_budget_s=1e9)


def test_four_players_bid_and_play_a_whole_board_the_same_way_twice():
    """A table of four Players (robot.selfplay.play_board: each seat gets only its SeatView) plays a whole board;
    a re-run with the same seeds is the same board, call for call and card for card."""
    deal = Deal.random(random.Random(2))
    # no clock in the decisions (a card's budget and a call's are past reach): the Borel simulation on by default
    # deals, projects and solves its worlds by count, not by the time left, so the same seed is the same board
    params = PlayerParams(play=SETTINGS, seed=5, seconds_per_call=1e9)
    runs = [play_board(1, deal, {s: Player(params, oracle=ORACLE, systems=load_system) for s in Seat})
            for _ in (0, 1)]
    (a, play_a), (b, _) = runs
    assert a.auction is not None and a.auction.is_complete and a.contract is not None
    assert play_a is not None and play_a.is_complete and a.play == play_a.cards and len(a.card_notes) == 52
    assert a.result == play_a.declarer_tricks
    assert len(a.call_notes) == len(a.auction.calls) and all(n.explanation for n in a.call_notes)
    assert all(n.reason for n in a.card_notes)
    # every decision was timed, and each side's time is the sum of its own decisions
    seats = [a.auction.seat_of(i) for i in range(len(a.auction.calls))]
    seats += [play_a.declarer if s == play_a.dummy else s
              for leader, _t, _w in play_a.tricks for s in (leader.next(k) for k in range(4))]
    notes = a.call_notes + a.card_notes
    assert all(n.seconds is not None and n.seconds >= 0 for n in notes)
    assert a.seconds_ns == pytest.approx(sum(n.seconds for s, n in zip(seats, notes) if s.is_ns))
    assert a.seconds_ew == pytest.approx(sum(n.seconds for s, n in zip(seats, notes) if not s.is_ns))

    def untimed(rec):
        return ([(n.alert, n.explanation) for n in rec.call_notes], [n.reason for n in rec.card_notes], rec.play)

    assert untimed(a) == untimed(b)


def test_a_passed_out_board_has_no_play():
    deal = Deal.random(random.Random(6))  # four passes in SAYC on board 1
    # no oracle needed: nobody plays a card
    record, play = play_board(1, deal, {s: Player(systems=load_system) for s in Seat})
    assert record.auction is not None and record.auction.is_passed_out
    assert play is None and record.card_notes == () and len(record.call_notes) == 4
    assert record.result is None and record.score_ns() == 0


def test_bidding_only_stops_after_the_auction():
    deal = Deal.random(random.Random(2))
    record, play = play_board(1, deal, {s: Player(systems=load_system) for s in Seat}, play=False)
    assert record.contract is not None and play is None and record.play == () and record.card_notes == ()
    assert len(record.call_notes) == len(record.auction.calls)


def test_bid_is_the_rule_database_call_and_refuses_out_of_turn():
    deal = Deal.random(random.Random(1))
    p = Player(systems=load_system)
    auction = Auction(Seat.EAST)
    choice = p.bid(SeatView(Seat.EAST, deal[Seat.EAST], auction))
    assert choice.explanation and choice.call in auction.legal_calls()
    with pytest.raises(BridgeError, match="East is to call, not South"):
        p.bid(SeatView(Seat.SOUTH, deal[Seat.SOUTH], auction))
    over = Auction.parse("P P P P", "E")
    with pytest.raises(BridgeError, match="auction is over"):
        p.bid(SeatView(Seat.EAST, deal[Seat.EAST], over))


def test_play_refuses_what_a_seat_cannot_do():
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    auction = Auction.parse("1N P 7N P P P", "S")  # 7NT by South: West leads, North is dummy
    p = Player(PlayerParams(play=SETTINGS), oracle=ORACLE, systems=load_system)
    with pytest.raises(BridgeError, match="West chooses West's card now, not South"):
        p.play(SeatView(Seat.SOUTH, deal[Seat.SOUTH], auction))
    lead = p.play(SeatView(Seat.WEST, deal[Seat.WEST], auction))
    assert lead.seat == Seat.WEST
    # after the lead North (dummy) is to play: declarer chooses, dummy never does
    with pytest.raises(BridgeError, match="South chooses North's card now, not North"):
        p.play(SeatView(Seat.NORTH, deal[Seat.NORTH], auction, cards=(lead.card,)))
    d = p.play(SeatView(Seat.SOUTH, deal[Seat.SOUTH], auction, cards=(lead.card,), dummy=deal[Seat.NORTH]))
    assert d.seat == Seat.NORTH and d.card in deal[Seat.NORTH]
    with pytest.raises(BridgeError, match="dummy's hand is needed"):
        p.play(SeatView(Seat.SOUTH, deal[Seat.SOUTH], auction, cards=(lead.card,)))
    with pytest.raises(BridgeError, match="passed out"):
        p.play(SeatView(Seat.SOUTH, deal[Seat.SOUTH], Auction.parse("P P P P", "S")))
    with pytest.raises(BridgeError, match="13 cards"):
        SeatView(Seat.SOUTH, Hand.parse("A986.432.432.AK"), auction)
    with pytest.raises(BridgeError, match="before the auction ended"):
        SeatView(Seat.SOUTH, deal[Seat.SOUTH], Auction.parse("1N P", "S"), cards=("HJ",))


def test_the_auction_shapes_the_worlds_a_player_imagines():
    # South opened 1NT (15-17 balanced) and North raised to 3NT: West, on lead, imagines only such South hands.
    deal = Deal.parse("N:T2.K5.AQ42.KQJ53 J985.JT42.653.98 AQ7.AQ86.J8.AT72 K643.973.KT97.64")
    auction = Auction.parse("1N P 3N P P P", "S")
    p = Player(PlayerParams(play=PlaySettings(worlds_defender=40, inference=False)), oracle=ORACLE,
               systems=load_system)
    view = SeatView(Seat.WEST, deal[Seat.WEST], auction)
    p.play(view)
    cp = p._card_player(view)  # the board's card player, kept for the seat's next cards
    masks, _ = cp.worlds_and_weights(view, 40, random.Random(1))
    for row in masks:
        south = Hand(int(row[Seat.SOUTH]))
        assert 15 <= south.hcp <= 17 and max(south.shape) <= 5 and min(south.shape) >= 2
