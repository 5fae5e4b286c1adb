"""``PublicPlay``: the one walk through the tricks, checked against a plain statement of the laws."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squeeze.engine.auction import Contract
from squeeze.engine.board import IllegalCardError, Play, PublicPlay
from squeeze.engine.cards import Card, Deal, Seat, Strain

from strategies import contracts, deals, plays


def naive_tricks(contract: Contract, cards):
    """Leader, cards, winner of each complete trick, by the book: highest trump, else highest of the suit led."""
    out, leader = [], contract.declarer.lho
    for i in range(0, len(cards) - len(cards) % 4, 4):
        trick = cards[i:i + 4]
        trumps = [c for c in trick if contract.strain != Strain.NOTRUMP and c.suit == contract.strain]
        best = max(trumps or [c for c in trick if c.suit == trick[0].suit], key=lambda c: c.rank)
        winner = Seat((leader + trick.index(best)) % 4)
        out.append((leader, tuple(trick), winner))
        leader = winner
    return out, leader


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_tricks_leaders_winners_and_show_outs_follow_the_laws(data):
    deal = data.draw(deals())
    contract = data.draw(contracts(declarer=True))
    play = data.draw(plays(deal, contract))
    public = PublicPlay(contract, play.cards)
    tricks, leader = naive_tricks(contract, list(play.cards))
    assert list(public.tricks) == tricks and public.leader == leader
    assert public.declarer_tricks == sum(w.same_side(contract.declarer) for _, _, w in tricks)
    assert public.players == tuple(public.prefix(k).next_seat for k in range(len(play.cards)))
    for seat in Seat:
        assert public.played_by(seat) == sum(c.mask for c, s in zip(play.cards, public.players) if s == seat)
        voids = 0
        for lead_seat, trick, _ in list(tricks) + ([(public.leader, public.current_trick, None)]
                                                    if public.current_trick else []):
            for j, c in enumerate(trick):
                if Seat((lead_seat + j) % 4) == seat and c.suit != trick[0].suit:
                    voids |= 1 << trick[0].suit
        assert public.shown_out(seat) == voids, seat
    assert pickle.loads(pickle.dumps(public)) == public and play.public == public


def test_what_the_table_can_see_is_refused_without_a_hand():
    p = PublicPlay(Contract.parse("4SS"), ["HK", "H2", "C3"])  # East shows out of hearts
    with pytest.raises(IllegalCardError, match="already been played"):
        p.then("HK")
    p = p.then("H4").then("SA")  # West's HK wins trick 1; West leads SA, North is next
    with pytest.raises(IllegalCardError, match="East has shown out of hearts"):
        PublicPlay(Contract.parse("4SS"), ["HK", "H2", "C3", "H4", "HA", "H3", "H5"])
    with pytest.raises(IllegalCardError, match="revoke"):
        p.then("D2", hand=Card.parse("S2").mask | Card.parse("D2").mask)
    with pytest.raises(IllegalCardError, match="not in North's hand"):
        p.then("S3", hand=Card.parse("S2").mask)
    full = Play(Deal.parse("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"),
                Contract.parse("7NN"))
    while not full.is_complete:
        full = full.then(full.legal_cards()[0])
    with pytest.raises(IllegalCardError, match="play is over"):
        full.public.then("SA", trusted=True)
