"""The card player decides from what its seat sees (``SeatView``), never from the hidden hands: plays that differ
only in the cards a seat cannot see give that seat the same view and the same decisions."""

from __future__ import annotations

import random

import pytest

from squeeze.engine.auction import Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import BridgeError, Card, Deal, Hand, Seat
from squeeze.engine.play.card_player import CardPlayer, PlaySettings
from squeeze.engine.sampling import SeatConstraints, WorldSampler
from squeeze.engine.view import SeatView

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


def stand_in(seat_view: SeatView, seed: int) -> Play:
    """A whole play that ``seat_view``'s seat cannot tell from the real one: the hidden cards dealt again from
    ``seed``, consistently with who played what and every show-out."""
    world = WorldSampler(seat_view.known_cards(), seat_view.constraints()).sample(1, seed).deal(0)
    return Play(world, seat_view.contract, seat_view.cards)


def view(play: Play, seed: int) -> Play:
    """The same position as ``viewer_of(play)`` sees it, the hidden cards dealt again from ``seed``."""
    return stand_in(SeatView.from_play(play, viewer_of(play)), seed)


@pytest.mark.parametrize("seed", range(8))
def test_a_view_holds_exactly_what_the_seat_knows(seed):
    play = random_play(seed)
    viewer = viewer_of(play)
    other = view(play, seed + 100)
    assert other.cards == play.cards and other.next_seat == play.next_seat  # Play re-checked every card
    a, b = SeatView.from_play(play, viewer), SeatView.from_play(other, viewer)
    assert a == b and a.known_cards() == b.known_cards() and a.constraints() == b.constraints()
    assert a.legal_cards() == play.legal_cards()
    hidden = [s for s in Seat if s not in (viewer, play.dummy)]
    stand_ins = {tuple(view(play, k).deal[s].bits for s in hidden) for k in range(10)}
    assert play.is_complete or len(play.cards) > 40 or len(stand_ins) > 1  # the hidden hands really differ


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
        other = view(play, k)
        a = real.choose(play, random.Random(k))
        b = seated[viewer].choose(SeatView.from_play(other, viewer), random.Random(k))
        assert (a.card, a.reason) == (b.card, b.reason), f"card {k + 1}"
        play = play.then(a.card)


def test_the_public_play_names_who_played_and_who_showed_out():
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    cards = [Card.parse(c) for c in ("HJ", "HQ", "S2", "H2", "HA")]  # trick 1 to North's HQ; North leads again
    play = Play(deal, Contract.parse("7NS"), cards)
    assert play.public.players == (Seat.WEST, Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.NORTH)
    cons = SeatView.from_play(play, Seat.SOUTH).constraints({Seat.SOUTH: SeatConstraints(hcp=(15, 17))})
    hearts = 0x1FFF << 26
    assert cons[Seat.EAST].not_held & hearts == hearts and cons[Seat.WEST].not_held == 0
    assert cons[Seat.SOUTH].hcp == (15, 17)


def test_bad_views_are_refused_clearly():
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    c = Contract.parse("7NS")
    south, north = deal[Seat.SOUTH], deal[Seat.NORTH]

    def seat_view(hand, cards=(), dummy=None, contract=c):
        return SeatView(Seat.SOUTH, hand, None, cards=cards, dummy=dummy, contract=contract)

    with pytest.raises(BridgeError, match="dummy's hand is needed"):
        CardPlayer(oracle=ORACLE).choose(seat_view(south, ["HJ"]))
    with pytest.raises(BridgeError, match="13 cards"):
        seat_view(Hand.parse("A986.432.432.AK"))
    with pytest.raises(BridgeError, match="not in South's hand"):
        seat_view(south, ["HJ", "HQ", "S2", "S5"], dummy=north)
    with pytest.raises(BridgeError, match="not in North's hand"):
        seat_view(south, ["HJ", "H5"], dummy=north)
    with pytest.raises(BridgeError, match="shown out of hearts"):  # East played a heart after showing out
        seat_view(south, ["HJ", "HQ", "S2", "H2", "HA", "H9"], dummy=north)
    with pytest.raises(BridgeError, match="in South's hand, not East's"):
        seat_view(south, ["HJ", "HQ", "H2"], dummy=north)
    with pytest.raises(BridgeError, match="declarer"):
        seat_view(south, contract=Contract.parse("7N"))
    with pytest.raises(BridgeError, match="without a contract"):
        seat_view(south, ["HJ"], contract=None)
