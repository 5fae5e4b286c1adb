"""Every domain value prints and parses back to itself (hypothesis), and the strategies really produce legal values."""

from __future__ import annotations

import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squeeze.engine.auction import Auction, Call, Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import Card, Deal, Hand, Seat, Vul

from strategies import auctions, calls, cards, contracts, deals, hands, plays, seats, vuls

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(cards())
def test_card_round_trip(card):
    assert Card.parse(str(card)) == card
    assert Card.from_index(card.index) == card


@FAST
@given(hands())
def test_hand_round_trip(hand):
    assert Hand.parse(str(hand)) == hand
    assert Hand.from_cards(list(hand)) == hand


@FAST
@given(deals(), seats())
def test_deal_round_trip_from_any_seat(deal, first):
    assert Deal.parse(deal.to_pbn(first)) == deal
    assert Deal.parse(str(deal)) == deal
    assert pickle.loads(pickle.dumps(deal)) == deal
    assert all(len(h) == 13 for h in deal.hands)


@FAST
@given(seats(), vuls())
def test_seat_and_vul_round_trip(seat, vul):
    assert Seat.parse(seat.letter) == seat
    assert Seat.parse(seat.name.lower()) == seat
    assert Vul.parse(vul.pbn) == vul


@FAST
@given(calls())
def test_call_round_trip(call):
    assert Call.parse(str(call)) == call
    assert Call.parse(call.pbn) == call
    assert Call(call.index) is call


@FAST
@given(auctions())
def test_auction_round_trip_and_legality(auction):
    assert Auction.from_string(str(auction)) == auction
    assert Auction(auction.dealer, [str(c) for c in auction.calls]) == auction
    assert pickle.loads(pickle.dumps(auction)) == auction
    if auction.is_complete and not auction.is_passed_out:
        c = auction.contract
        assert c is not None and c.declarer is not None
        assert c.call in auction.calls


@FAST
@given(auctions(complete=True))
def test_complete_auctions_end_with_three_passes(auction):
    assert auction.is_complete
    assert [str(c) for c in auction.calls[-3:]] == ["P", "P", "P"]


@FAST
@given(contracts())
def test_contract_round_trip(contract):
    assert Contract.parse(str(contract)) == contract
    assert Contract.parse(contract.pbn) == Contract(contract.level, contract.strain, contract.doubled)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_play_round_trip(data):
    deal = data.draw(deals())
    contract = data.draw(contracts(declarer=True))
    play = data.draw(plays(deal, contract))
    again = Play(deal, contract, [str(c) for c in play.cards])
    assert again == play
    assert again.declarer_tricks == play.declarer_tricks
    assert pickle.loads(pickle.dumps(play)) == play
    # the cards come from the right hands and nobody played a card twice
    assert len(set(play.cards)) == len(play.cards)
    if play.is_complete:
        assert len(play.tricks) == 13
        assert play.declarer_tricks + play.defender_tricks == 13
