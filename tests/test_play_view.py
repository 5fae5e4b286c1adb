"""The card player decides from what its seat sees, never from the hidden hands, and ``play_from_view`` builds a
``Play`` for a seat at a real table (own hand, dummy, cards played) where nobody knows the whole deal."""

from __future__ import annotations

import random

import pytest

from squeeze.engine.auction import Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat
from squeeze.engine.play.card_player import CardPlayer, PlaySettings, facts_for, play_from_view, public_facts
from squeeze.engine.sampling import SeatConstraints

from test_play_oracle import EndplayOracle

ORACLE = EndplayOracle()
CONTRACTS = ("3NS", "4HS", "2SW", "5DE", "1NN")


def random_play(seed: int) -> Play:
    """A random deal and contract, played some way in by random legal cards."""
    rng = random.Random(seed)
    play = Play(Deal.random(rng), Contract.parse(CONTRACTS[seed % len(CONTRACTS)]))
    for _ in range(rng.choice((0, 1, 3, 5, 8, 13, 22))):
        play = play.then(rng.choice(play.legal_cards()))
    return play


def viewer_of(play: Play) -> Seat:
    """Who decides the next card: declarer also plays dummy's cards."""
    return play.declarer if play.next_seat in (play.declarer, play.dummy) else play.next_seat


def view(play: Play, seed: int) -> Play:
    """The same position as ``viewer_of(play)`` sees it, the hidden cards dealt again from ``seed``."""
    viewer = viewer_of(play)
    return play_from_view(play.contract, viewer, play.deal[viewer], play.cards, dummy=play.deal[play.dummy],
                          seed=seed)


@pytest.mark.parametrize("seed", range(8))
def test_a_stand_in_deal_keeps_everything_the_viewer_knows(seed):
    play = random_play(seed)
    viewer = viewer_of(play)
    other = view(play, seed + 100)
    assert other.cards == play.cards and other.next_seat == play.next_seat  # Play re-checked every card
    assert other.deal[viewer] == play.deal[viewer]
    if play.cards:
        assert other.deal[play.dummy] == play.deal[play.dummy]
    assert facts_for(other, viewer) == facts_for(play, viewer)


def test_the_hidden_hands_really_are_dealt_again():
    play = random_play(3)
    viewer = viewer_of(play)
    hidden = [s for s in Seat if s not in (viewer, play.dummy)]
    stand_ins = {tuple(view(play, k).deal[s].bits for s in hidden) for k in range(10)}
    assert len(stand_ins) > 1


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("inference", [True, False])
def test_decisions_do_not_depend_on_the_hidden_hands(seed, inference):
    """The same view and the same random seed give the same card and the same reason, whatever the hidden hands:
    the robot does not peek (which would also make the αμ against PIMC comparison meaningless)."""
    play = random_play(seed)
    if play.is_complete:
        pytest.skip("nothing to decide")
    settings = PlaySettings(worlds_declarer=6, worlds_defender=6, max_m=2, declarer_budget_s=1e9,
                            inference=inference)
    decisions = []
    for p in (play, view(play, 7), view(play, 8)):
        d = CardPlayer(settings, oracle=ORACLE).choose(p, random.Random(seed))
        decisions.append((d.card, d.reason, d.selector, d.goal, d.m))
    assert decisions[0] == decisions[1] == decisions[2]


def test_decisions_along_a_whole_play_do_not_depend_on_the_hidden_hands():
    """Each seat keeps its own player (its beliefs persist from card to card, as at a table) and sees only a
    stand-in deal; it plays exactly the cards the robots that hold the real deal play."""
    rng = random.Random(11)
    deal = Deal.random(rng)
    contract = Contract.parse("3NS")
    settings = PlaySettings(worlds_declarer=5, worlds_defender=5, max_m=2, declarer_budget_s=1e9)
    real = CardPlayer(settings, oracle=ORACLE)
    seated = {s: CardPlayer(settings, oracle=ORACLE) for s in (Seat.SOUTH, Seat.WEST, Seat.EAST)}
    play = Play(deal, contract)
    for k in range(16):
        viewer = viewer_of(play)
        stand_in = play_from_view(contract, viewer, deal[viewer], play.cards,
                                  dummy=deal[Seat.NORTH] if play.cards else None, seed=k)
        a = real.choose(play, random.Random(k))
        b = seated[viewer].choose(stand_in, random.Random(k))
        assert (a.card, a.reason) == (b.card, b.reason), f"card {k + 1}"
        play = play.then(a.card)


def test_public_facts_name_who_played_and_who_showed_out():
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    cards = [Card.parse(c) for c in ("HJ", "HQ", "S2", "H2", "HA")]  # trick 1 to North's HQ; North leads again
    Play(deal, Contract.parse("7NS"), cards)  # a legal sequence
    played_by, cons = public_facts(Contract.parse("7NS"), cards, {Seat.SOUTH: SeatConstraints(hcp=(15, 17))})
    assert [s for s, _ in played_by] == [Seat.WEST, Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.NORTH]
    hearts = 0x1FFF << 26
    assert cons[Seat.EAST].not_held & hearts == hearts and cons[Seat.WEST].not_held == 0
    assert cons[Seat.SOUTH].hcp == (15, 17)


def test_bad_views_are_refused_clearly():
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    c = Contract.parse("7NS")
    south, north = deal[Seat.SOUTH], deal[Seat.NORTH]
    with pytest.raises(BridgeError, match="dummy's hand is needed"):
        play_from_view(c, Seat.SOUTH, south, ["HJ"])
    with pytest.raises(BridgeError, match="original 13 cards"):
        play_from_view(c, Seat.SOUTH, Hand.parse("A986.432.432.AK"))
    with pytest.raises(BridgeError, match="not in its hand"):
        play_from_view(c, Seat.SOUTH, south, ["HJ", "HQ", "S2", "S5"], dummy=north)
    with pytest.raises(BridgeError, match="not in dummy's hand"):
        play_from_view(c, Seat.SOUTH, south, ["HJ", "H5"], dummy=north)
    with pytest.raises(BridgeError, match="consistent"):  # East played a heart after showing out of hearts
        play_from_view(c, Seat.SOUTH, south, ["HJ", "HQ", "S2", "H2", "HA", "H9"], dummy=north)
    with pytest.raises(BridgeError, match="declarer"):
        play_from_view(Contract.parse("7N"), Seat.SOUTH, south)
