"""Never stall or fail on an impossible picture of the hidden hands (``engine.play.relax``, the sampler's bounds).

The reproduction is from a table manager whose robots bid nothing like our system: South opens 1C, East balances
with 1NT, and our reading of the calls (North: fewer than 6 points; South: an opening with three or more clubs;
East and West as shown) fits no deal once East sees five clubs in its hand and five in dummy's. Before the ladder,
the sampler dealt its 2,000,000 candidates (50-110 s) and raised ``SamplingError`` out of ``Player.play``.
"""

from __future__ import annotations

import random
import time

import pytest

from squeeze.engine.auction import PASS, Auction
from squeeze.config.bidding import load_system
from squeeze.engine.bidding import Bidder
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Hand, Seat, Suit
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.play.oracle import EngineDDOracle
from squeeze.engine.play.relax import RelaxingSampler, rungs
from squeeze.engine.player import Player, PlayerParams, SeatView
from squeeze.engine.sampling import SamplingError, SamplingTimeout, SeatConstraints, WorldSampler
from squeeze.robot.logs import engine_events

from test_deadlines import MARGIN, timed

STALL_AUCTION = Auction.parse("1C P P 1N P P P", "S")  # 1NT by East: South leads, West is dummy
# East and dummy hold ten clubs between them, so South cannot hold the three its 1C promises in our system.
STALL_DEAL = Deal.parse("N:T942.T984.9876.5 A3.K32.432.KJ987 KQJ.AQJ.AKQJT.A6 8765.765.5.QT432")


def stall_view() -> SeatView:
    return SeatView(Seat.EAST, STALL_DEAL[Seat.EAST], STALL_AUCTION, cards=("6C", "2C", "5C"),
                    dummy=STALL_DEAL[Seat.WEST])


@pytest.fixture(scope="module")
def oracle() -> EngineDDOracle:
    oracle = EngineDDOracle()
    Player(oracle=oracle, systems=load_system).prepare()
    return oracle


def test_the_stall_gets_a_legal_card_within_its_budget_and_says_what_it_relaxed(oracle):
    view = stall_view()
    assert view.decider == Seat.EAST and STALL_AUCTION.contract.declarer == Seat.EAST
    cons = Bidder.of(load_system("sayc")).explain_auction(STALL_AUCTION, viewpoint=Seat.EAST)
    WorldSampler(view.known_cards(), view.constraints(cons))  # no cheap bound refutes it: only dealing can tell
    player = Player(oracle=oracle, systems=load_system)
    d, _elapsed, late = timed(lambda deadline: player.play(view, deadline=deadline), 1.0)
    assert late <= MARGIN
    assert d.card in view.legal_cards() and d.selector == PlaySettings().declarer_selector
    # South's 1C cannot be the 1C our rules bid (its exact test fails on every deal), but its ranges (an opening
    # hand) can hold: the worlds keep them
    assert "(layouts found only with the finer points of the bidding set aside)" in d.reason
    assert d.relaxations and d.relaxations[0].dropped == "exact call tests" and d.relaxations[0].viewer == Seat.EAST
    # the decision says what was relaxed (the engine logs nothing): the robot logs it as it always did
    level, event, fields = engine_events(d)[0]
    assert (level, event) == ("warning", "play.sampling_relaxed")
    assert fields["viewer"] == "E" and fields["cards"] == 3 and fields["dropped"] == "exact call tests"
    assert fields["error"] == d.relaxations[0].error


async def test_a_seat_logs_what_its_engine_relaxed():
    """A seat's decision worker runs the engine in a child process; the events the decision carries back are
    logged by the seat's own process (where logging is set up), under the names and fields they always had."""
    from structlog.testing import capture_logs

    from squeeze.robot.worker import DecisionWorker

    worker = DecisionWorker(PlayerParams())
    await worker.start()
    try:
        with capture_logs() as logs:
            d = await worker.decide("card", stall_view(), 1.0, time.monotonic() + 60)
    finally:
        worker.close()
    assert d.kind == "card" and "set aside)" in d.explanation
    relaxed = [e for e in logs if e["event"] == "play.sampling_relaxed"]
    assert relaxed and relaxed[0]["log_level"] == "warning" and relaxed[0]["viewer"] == "E"
    assert relaxed[0]["dropped"] == "exact call tests" and relaxed[0]["cards"] == 3 and relaxed[0]["error"]


# --- the ladder -----------------------------------------------------------------------------------------------------

def test_the_ladder_drops_the_opponents_then_partner_and_never_a_seen_hand():
    deal = STALL_DEAL
    cons = Bidder.of(load_system("sayc")).explain_auction(STALL_AUCTION, viewpoint=Seat.NORTH)
    # South's opening lead: North (partner) and both opponents are hidden
    lead = SeatView(Seat.SOUTH, deal[Seat.SOUTH], STALL_AUCTION)
    ladder = rungs(lead, cons)
    assert [r.dropped for r in ladder] == ["", "exact call tests", "opponents' bidding",
                                           "opponents' and partner's bidding"]
    assert set(ladder[0].base) == {Seat.NORTH, Seat.EAST, Seat.WEST}  # not South's own: its hand is seen
    # the ranges rung: every call's HCP and length hulls, no hand-by-hand test
    assert set(ladder[1].base) == set(ladder[0].base)
    for seat, c in ladder[1].base.items():
        full = ladder[0].base[seat]
        assert (c.hcp, c.lengths) == (full.hcp, full.lengths) and full.predicates
        assert not any(not callable(getattr(p, "on_shape", None)) for p in c.predicates)
    assert set(ladder[2].base) == {Seat.NORTH} and ladder[3].base == {}
    # declarer after the lead: partner is dummy, seen; only the opponents' calls are left to drop
    east = stall_view()
    ladder = rungs(east, Bidder.of(load_system("sayc")).explain_auction(STALL_AUCTION, viewpoint=Seat.EAST))
    assert [r.dropped for r in ladder] == ["", "exact call tests", "opponents' bidding"]
    assert set(ladder[0].base) == {Seat.NORTH, Seat.SOUTH} and ladder[2].base == {}


def test_relaxing_keeps_partners_calls_and_the_hard_facts():
    """West is on lead; North (an opponent) is said to hold 30+ HCP with a 1NT partner: impossible. The ladder
    drops the opponents' constraints but still honours East's (partner), and every world keeps the facts."""
    deal = Deal.random(random.Random(4))
    view = SeatView(Seat.WEST, deal[Seat.WEST], Auction.parse("1N P P P", "S"))
    cons = {Seat.NORTH: SeatConstraints(hcp=(30, 37)), Seat.SOUTH: SeatConstraints(hcp=(20, 37)),
            Seat.EAST: SeatConstraints(lengths=((0, 13), (0, 13), (5, 13), (0, 13)))}  # East: 5+ hearts
    source = RelaxingSampler(view, cons)
    worlds = source.sample(30, 7)
    assert source.relaxed == "opponents' bidding" and source.start == 1 and not source.short
    assert [r.dropped for r in source.relaxations] == ["opponents' bidding"]
    for row in worlds.masks:
        assert int(row[Seat.WEST]) == deal[Seat.WEST].bits
        assert Hand(int(row[Seat.EAST])).length(Suit.HEARTS) >= 5


def test_a_rung_that_runs_out_of_time_keeps_enough_worlds_or_relaxes():
    view = SeatView(Seat.WEST, Deal.random(random.Random(4))[Seat.WEST], Auction.parse("1N P P P", "S"))
    rare = {Seat.NORTH: SeatConstraints(predicates=(_never,))}  # no cheap bound can see through a predicate
    source = RelaxingSampler(view, rare, deadline=time.monotonic() + 0.05)
    worlds = source.sample(10, 1)
    assert source.relaxed == "exact call tests" and len(worlds) == 10
    assert source.start == 0  # out of time is not refuted: the next sample tries every call's constraints again
    with pytest.raises(SamplingTimeout) as stop:
        WorldSampler(view.known_cards(), view.constraints(rare)).sample(10, 1, deadline=time.monotonic() + 0.02)
    assert len(stop.value.worlds) == 0


def _never(hand: Hand) -> bool:
    return False


# --- cheap infeasibility bounds -------------------------------------------------------------------------------------

def _no_dealing(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("the sampler dealt a candidate")

    monkeypatch.setattr(WorldSampler, "_deal_batch", refuse)


@pytest.mark.parametrize("cons, message", [
    # each seat's range is reachable on its own; together they need more points than the deck holds
    ({Seat.NORTH: SeatConstraints(hcp=(16, 37)), Seat.EAST: SeatConstraints(hcp=(16, 37)),
      Seat.SOUTH: SeatConstraints(hcp=(16, 37))}, "HCP between them"),
    # ... or fewer than the unseen cards hold
    ({s: SeatConstraints(hcp=(0, 5)) for s in (Seat.NORTH, Seat.EAST, Seat.SOUTH)}, "at most 15"),
    # seven spades each for North and East, with five spades in West's own hand
    ({Seat.NORTH: SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (7, 13))),
      Seat.EAST: SeatConstraints(lengths=((0, 13), (0, 13), (0, 13), (7, 13)))}, "not enough spades"),
])
def test_an_impossible_constraint_set_is_refuted_in_milliseconds_without_dealing(monkeypatch, cons, message):
    west = Hand.parse("AKQJ2.32.32.5432")  # 10 HCP, five spades
    _no_dealing(monkeypatch)
    t = time.monotonic()
    with pytest.raises(SamplingError, match=message):
        WorldSampler({Seat.WEST: west}, cons)
    assert time.monotonic() - t < 0.01


def test_the_bounds_do_not_refuse_a_tight_but_possible_set():
    west = Hand.parse("AKQJ2.32.32.5432")  # 10 HCP seen: 30 for the other three
    cons = {Seat.NORTH: SeatConstraints(hcp=(10, 10)), Seat.EAST: SeatConstraints(hcp=(10, 10)),
            Seat.SOUTH: SeatConstraints(hcp=(10, 10))}
    worlds = WorldSampler({Seat.WEST: west}, cons).sample(5, 1)
    assert all(Hand(int(row[s])).hcp == 10 for row in worlds.masks for s in (0, 1, 2))


def test_a_deadline_far_away_deals_the_same_worlds_as_none():
    """Batches shrink only when time is short, so a generous deadline leaves the random draws alone."""
    cons = {Seat.NORTH: SeatConstraints(hcp=(15, 17)), Seat.SOUTH: SeatConstraints(hcp=(8, 37))}
    sampler = WorldSampler({Seat.WEST: Hand.parse("AKQJ2.32.32.5432")}, cons)
    a = sampler.sample(40, 3)
    b = sampler.sample(40, 3, deadline=time.monotonic() + 60)
    assert (a.masks == b.masks).all() and a.candidates == b.candidates


# --- random auctions by robots that follow no system ----------------------------------------------------------------

def _random_board(seed: int) -> tuple[Play, Auction] | None:
    """Random legal calls (three in five a pass, so auctions end), then a random number of random legal cards;
    ``None`` for a passed-out board."""
    rng = random.Random(seed)
    deal = Deal.random(rng)
    auction = Auction(Seat(rng.randrange(4)))
    while not auction.is_complete:
        auction = auction.then(PASS if rng.random() < 0.6 else rng.choice(auction.legal_calls()))
    if auction.contract is None:
        return None
    play = Play(deal, auction.contract)
    for _ in range(rng.randrange(52)):
        play = play.then(rng.choice(play.legal_cards()))
    return play, auction


@pytest.mark.slow
def test_random_auctions_by_systemless_robots_always_get_a_legal_card_in_time(oracle):
    """200 boards: the deciding seat's ``Player.play`` with a 1 s deadline returns a legal card inside it, never
    an exception. Few worlds and PIMC for declarer too, to keep the test some 20-30 s."""
    settings = PlaySettings(declarer_selector="pimc", worlds_declarer=4, worlds_defender=4)
    boards, seed, relaxed, worst = 0, 0, 0, 0.0
    while boards < 200:
        seed += 1
        board = _random_board(seed)
        if board is None:
            continue
        boards += 1
        play, auction = board
        mover = play.next_seat
        view = SeatView.from_play(play, play.declarer if mover == play.dummy else mover, auction=auction,
                                  board=seed)
        player = Player(PlayerParams(play=settings, seed=seed), oracle=oracle, systems=load_system)
        d, _elapsed, late = timed(lambda deadline, player=player, view=view: player.play(view, deadline=deadline), 1.0)
        worst = max(worst, late)
        assert d.card in play.legal_cards(), (seed, str(auction), d)
        relaxed += "set aside)" in d.reason
    assert worst <= MARGIN  # CPU time past the deadline (see test_deadlines)
    assert relaxed >= 10  # the ladder was exercised: systemless bidding often fits no deal in our reading


def test_a_rung_too_unlikely_to_deal_relaxes_after_a_candidate_count_even_without_a_deadline(monkeypatch):
    """No deadline (self-play): a picture of the hands that almost no deal fits is given up after a fixed number
    of candidates (reproducible: a count, not a time), and the next rung deals the worlds."""
    from squeeze.engine.play import relax

    monkeypatch.setattr(relax, "RUNG_CANDIDATES", 2_000)
    view = SeatView(Seat.WEST, Deal.random(random.Random(4))[Seat.WEST], Auction.parse("1N P P P", "S"))
    rare = {Seat.NORTH: SeatConstraints(predicates=(_never,))}
    t0 = time.monotonic()
    source = RelaxingSampler(view, rare)
    worlds = source.sample(10, 1)
    assert time.monotonic() - t0 < 5
    assert source.relaxed == "exact call tests" and len(worlds) == 10 and source.start == 1
    assert len(source.relaxations) == 1 and "2000" in source.relaxations[0].error


def test_a_rung_whose_exact_tests_are_too_costly_keeps_enough_worlds_or_falls_to_the_ranges(monkeypatch):
    """No deadline (self-play): the exact tests are bounded by a count of calls (``RUNG_CHECKS``). Spent with a
    quarter of the worlds found, the rung keeps them; with fewer, the ranges rung deals the rest of the sample, and
    later samples of the board start there (the same work would be spent again)."""
    from squeeze.engine.play import relax

    calls = {"n": 0}

    def rare(hand: Hand) -> bool:
        calls["n"] += 1
        return hand.length(Suit.SPADES) >= 5  # about one hand in five of North's: 10 worlds need ~50 calls

    view = SeatView(Seat.WEST, Deal.random(random.Random(4))[Seat.WEST], Auction.parse("1N P P P", "S"))
    cons = {Seat.NORTH: SeatConstraints(hcp=(12, 37), predicates=(rare,))}
    monkeypatch.setattr(relax, "RUNG_CHECKS", 40)
    source = RelaxingSampler(view, cons)
    worlds = source.sample(10, 1)
    assert calls["n"] <= 40 and source.relaxations == [] and source.relaxed == "" and not source.short  # replays
    assert 3 <= len(worlds) < 10 and all(Hand(int(r[Seat.NORTH])).length(Suit.SPADES) >= 5 for r in worlds.masks)
    monkeypatch.setattr(relax, "RUNG_CHECKS", 5)
    source = RelaxingSampler(view, cons)
    worlds = source.sample(10, 1)
    assert source.relaxed == "exact call tests" and len(worlds) == 10 and source.start == 1
    assert "spent its 5 exact checks" in source.relaxations[0].error
    assert all(Hand(int(r[Seat.NORTH])).hcp >= 12 for r in worlds.masks)  # the ranges still hold
