"""Domain model: parsing, printing, legality and the exact messages users see for bad input."""

import pickle
import random

import pytest

from squeeze.engine.auction import (Auction, AuctionEndedError, Call, Contract, IllegalCallError, IllegalDoubleError,
                            IllegalRedoubleError, InsufficientBidError, PASS)
from squeeze.engine.board import IllegalCardError, Play, trick_winner
from squeeze.engine.cards import (BridgeError, Card, Deal, Hand, InvalidDealError, ParseError, Rank, Seat, Strain, Suit,
                          Vul, dealer_for_board, vul_for_board)
from squeeze.engine.record import BoardRecord

DEAL = "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763"


def test_deal_parse_print_rotate():
    d = Deal.parse(DEAL)
    assert str(d) == DEAL
    assert d[Seat.SOUTH] == Hand.parse("JT3.KQ973.AQ4.84")
    e = d.to_pbn(Seat.EAST)
    assert e.startswith("E:Q76.AJ5.T862.T92 ")
    assert Deal.parse(e) == d
    assert Deal.parse("n:ak94.t82.k73.qj5 q76.aj5.t862.t92 jt3.kq973.aq4.84 -") == d
    assert Deal.parse(DEAL.replace("T", "10")) == d
    assert pickle.loads(pickle.dumps(d)) == d


def test_hand_queries():
    h = Hand.parse("AK94.T82.K73.QJ5")
    assert h.hcp == 13 and h.shape == (4, 3, 3, 3) and h.is_balanced and len(h) == 13
    assert Card.parse("SA") in h and "C2" not in h
    assert [str(c) for c in h.cards_in(Suit.CLUBS)] == ["CQ", "CJ", "C5"]
    assert str(Hand.parse("...")) == "..." and len(Hand.parse("-")) == 0


@pytest.mark.parametrize("text,cls,message", [
    ("N:AKQJT98765432.A.. - - -", InvalidDealError, "deal has 14 cards in North"),
    ("N:AKQJT9876543.A.. AKQ... - -", InvalidDealError, "card SA appears twice"),
    ("N:AKQJ.T82.K73.QJ5", ParseError, "must list four hands"),
    ("N:AK94.T82.K73 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 -", ParseError, "four suits"),
    ("X:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 -", ParseError, "not a seat: 'X'"),
    ("N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.8Z -", ParseError, "'Z' is not a rank"),
    ("N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK76", InvalidDealError,
     "deal has 12 cards in West"),
])
def test_bad_deals(text, cls, message):
    with pytest.raises(cls, match=message):
        Deal.parse(text)


def test_card_and_call_parsing():
    assert Card.parse("h10") == Card(Suit.HEARTS, Rank.TEN) == Card.parse("TH")
    assert str(Card.parse("dq")) == "DQ"
    with pytest.raises(ParseError, match="not a card: 'S1'"):
        Card.parse("S1")
    assert [str(Call.parse(t)) for t in ("pass", "Dbl", "xx", "1nt", "7s")] == ["P", "X", "XX", "1N", "7S"]
    assert Call.parse("3NT").pbn == "3NT" and PASS.pbn == "Pass"
    with pytest.raises(ParseError, match="not a call: '8C'"):
        Call.parse("8C")
    assert sorted(Call.parse(x) for x in ("1S", "1N", "1C")) == [Call.parse("1C"), Call.parse("1S"), Call.parse("1N")]


@pytest.mark.parametrize("calls,bad,cls,message", [
    ("3D", "3C", InsufficientBidError, "3C is insufficient after 3D"),
    ("1S", "1S", InsufficientBidError, "1S is insufficient after 1S"),
    ("", "X", IllegalDoubleError, "no bid to double"),
    ("1H P", "X", IllegalDoubleError, "own side"),
    ("1H X", "X", IllegalDoubleError, "already doubled"),
    ("1H", "XX", IllegalRedoubleError, "nothing is doubled"),
    ("1H X P", "XX", IllegalRedoubleError, "only the side that bid 1H may redouble"),
    ("1H X", "XX", None, None),
    ("1H X XX", "XX", IllegalRedoubleError, "already redoubled"),
    ("P P P P", "1C", AuctionEndedError, "the auction is over"),
    ("1C P P P", "P", AuctionEndedError, "the auction is over"),
])
def test_auction_legality(calls, bad, cls, message):
    a = Auction.parse(calls, "N")
    if cls is None:
        assert a.is_legal(bad)
        return
    assert not a.is_legal(bad)
    with pytest.raises(cls, match=message):
        a.then(bad)
    assert issubclass(cls, IllegalCallError)


def test_contract_and_declarer():
    a = Auction.parse("1H P 2C P 2H X XX P P P", "E")
    c = a.contract
    assert a.is_complete and c == Contract.parse("2HXXE") and c.declarer == Seat.EAST
    a2 = Auction.parse("P 1S P 2S P 4S P P P", "N")
    assert a2.declarer == Seat.EAST
    assert Auction.parse("P P P P", "W").is_passed_out and Auction.parse("AP", "W").contract is None
    assert Auction.from_string(str(a)) == a
    assert len(Auction(Seat.NORTH).legal_calls()) == 36  # pass + 35 bids


def test_contract_parse_print():
    for t in ("1C", "3N", "4SX", "6HXX", "7NXXS", "3NS", "4SN"):
        assert str(Contract.parse(t)) == t
    assert Contract.parse("3NTXX W") == Contract(3, Strain.NOTRUMP, 2, Seat.WEST)
    assert Contract.parse("3NS").declarer == Seat.SOUTH
    for bad in ("", "8S", "3", "3Q", "3NXXX", "3NQ"):
        with pytest.raises(ParseError):
            Contract.parse(bad)


def test_board_cycle():
    assert [dealer_for_board(b).letter for b in range(1, 9)] == list("NESWNESW")
    assert [vul_for_board(b).pbn for b in range(1, 17)] == [
        "None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW"]
    assert vul_for_board(17) == Vul.NONE and Vul.parse("n-s") == Vul.NS and Vul.parse("Both") == Vul.BOTH
    assert Vul.NS.is_vulnerable(Seat.SOUTH) and not Vul.NS.is_vulnerable(Seat.EAST)
    with pytest.raises(BridgeError, match="board numbers start at 1"):
        dealer_for_board(0)


def test_play_rules_and_messages():
    d = Deal.parse(DEAL)
    p = Play(d, Contract.parse("4HS"))
    assert p.next_seat == Seat.WEST
    with pytest.raises(IllegalCardError, match="SA is not in West's hand"):
        p.then("SA")
    p = p.then("CA")
    with pytest.raises(IllegalCardError, match="S8 is not in North's hand"):
        p.then("S8")
    with pytest.raises(IllegalCardError, match="SA is a revoke: North must follow clubs"):
        p.then("SA")
    p = p.then("C5").then("C9").then("C4")
    assert p.tricks[0][2] == Seat.WEST and p.next_seat == Seat.WEST and p.defender_tricks == 1
    with pytest.raises(IllegalCardError, match="CA has already been played"):
        p.then("CA")


def test_random_playouts_count_tricks():
    rng = random.Random(5)
    for _ in range(50):
        d = Deal.random(rng)
        c = Contract(rng.randint(1, 7), Strain(rng.randrange(5)), 0, Seat(rng.randrange(4)))
        p = Play(d, c)
        while not p.is_complete:
            p = p.then(rng.choice(p.legal_cards()))
        assert len(p.tricks) == 13 and p.declarer_tricks + p.defender_tricks == 13
        # replaying the recorded cards gives the same state
        assert Play(d, c, p.cards) == p
        rec = BoardRecord(board=1, deal=d, contract=c, play=p.cards)
        assert rec.result == p.declarer_tricks


def test_trick_winner():
    cs = [Card.parse(x) for x in ("H2", "HA", "S2", "H3")]
    assert trick_winner(cs, Seat.NORTH, Strain.NOTRUMP) == Seat.EAST
    assert trick_winner(cs, Seat.NORTH, Strain.SPADES) == Seat.SOUTH
