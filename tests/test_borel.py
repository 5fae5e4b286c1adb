"""Borel simulation on top of the rules: it bids game where the rules stop short and the worlds say
game; it never overrules a forcing call; out of time it answers with the rules' call; settings reach it."""

import dataclasses
import random
import time

import pytest

from squeeze.config.settings import engine_params, load_settings
from squeeze.config.bidding import load_system
from squeeze.engine.bidding import Bidder
from squeeze.engine.auction import PASS, Auction, Call
from squeeze.engine.bidding.borel import BorelBidder, BorelSettings
from squeeze.engine.cards import Hand, Seat, Vul
from squeeze.engine.player import Player, PlayerParams
from squeeze.engine.view import SeatView
from squeeze.robot.logs import engine_events


def _view(hand: str, calls: str, vul: Vul = Vul.BOTH, dealer: Seat = Seat.NORTH) -> SeatView:
    a = Auction(dealer, calls.split())
    return SeatView(a.next_seat, Hand.parse(hand), a, vul)


@pytest.fixture(scope="module")
def borel() -> BorelBidder:
    return BorelBidder(Bidder.of(load_system("sayc")), BorelSettings(enabled=True, worlds=24, min_worlds=12))


def test_simulation_bids_the_game_the_rules_stop_short_of(borel):
    # Partner's limit raise (an invitation with a fit) and opener's 13 HCP with a six-card suit and a singleton:
    # the rules count points and pass; the worlds say the vulnerable game is worth bidding.
    view = _view("AQ9543.K5.QJ54.3", "1S P 3S P")
    rules = Bidder.of(load_system("sayc")).choose(view.hand, view.auction, view.vul, alternatives=False)
    assert rules.call == PASS
    choice = borel.choose(view, random.Random(1), None, seconds=120)
    report = borel.last
    assert report.simulated and not report.cut_short
    assert choice.call == Call.parse("4S"), report
    mean, se = report.gains["4S"]
    assert mean - se > 0.5
    # this fixed decision's statistics (weighted mean and standard error, engine.stats) as the bidder has always
    # computed them; the sampler's, the solver's or the scoring's changes may move them (a world where 4S fails by
    # two is scored doubled since double_failing), the statistics' must not
    assert report.gains == {"4S": (2.5, 1.733)} and report.worlds == 24 and report.distrusted == 1
    # the explanation says what it overrode and why, in words
    assert "instead of the rules' P" in choice.explanation and rules.rule_id in choice.explanation
    assert choice.rule_id == f"borel:{rules.rule_id}"
    assert choice.alternatives[0][0] == PASS
    # the override comes back with its evidence (the engine logs nothing): the robot logs it as it always did
    o = choice.override
    assert (o.seat, o.auction, o.rule, o.rules_call, o.call) == ("N", "1S P 3S P", rules.rule_id, "P", "4S")
    assert o.gains == report.gains and o.worlds == report.worlds and o.better + o.worse <= o.worlds
    (level, event, fields), = [e for e in engine_events(choice) if e[1] == "bidding.borel_override"]
    assert level == "info" and fields["call"] == "4S" and fields["hand"] == str(view.hand)
    assert set(fields) == {"seat", "board", "auction", "hand", "rule", "rules_call", "call", "gains", "worlds",
                           "distrusted", "relaxed", "better", "worse"}


def test_a_forcing_rule_is_never_overruled(borel):
    # A new suit by responder is forcing: whatever the worlds might say, the call is the rules' and nothing is dealt.
    view = _view("AQT94.KQ5.A52.32", "1S P 2S P")
    rules = Bidder.of(load_system("sayc")).choose(view.hand, view.auction, view.vul, alternatives=False)
    assert rules.force in ("forcing", "game_forcing")
    choice = borel.choose(view, random.Random(1), None, seconds=120)
    assert choice.call == rules.call and not borel.last.simulated
    assert "forcing" in borel.last.why_not
    # an invitation is left to partner (who knows his hand): not overruled either
    invite = _view("QJ32.J652.AJ7.T2", "1N P 2C P 2H P", Vul.NONE)
    rules = Bidder.of(load_system("sayc")).choose(invite.hand, invite.auction, invite.vul, alternatives=False)
    assert rules.force == "invitational"
    assert borel.choose(invite, random.Random(1), None, seconds=120).call == rules.call
    assert not borel.last.simulated and "invitation" in borel.last.why_not
    # forced by partner's new suit: pass is never one of the calls weighed
    forced = _view("AKJ95.K54.A52.32", "1S P 2H P")
    got = Bidder.of(load_system("sayc")).choose(forced.hand, forced.auction, forced.vul)
    cands, _why = borel.options(forced, got)
    assert PASS not in cands


def test_openings_follow_the_rules_without_simulating(borel):
    view = _view("AKJ954.K54.A5.32", "")
    choice = borel.choose(view, random.Random(1), None, seconds=120)
    assert choice.call == Call.parse("1S") and not borel.last.simulated
    assert choice.override is None and engine_events(choice) == ()


def test_out_of_time_the_rules_call(borel):
    view = _view("AQ9543.K5.QJ54.3", "1S P 3S P")
    t0 = time.monotonic()
    # a budget no machine deals 24 worlds in (50 ms was once enough for the whole simulation on a quiet box)
    choice = borel.choose(view, random.Random(1), None, seconds=0.002)
    assert time.monotonic() - t0 < 1.0
    assert choice.call == PASS  # the rules' call
    assert borel.last.simulated and borel.last.cut_short and "out of time" in borel.last.why_not


def test_settings_reach_the_player():
    params = engine_params(load_settings(engine={"borel": True, "borel_worlds": 20, "borel_z": 1.5,
                                                 "borel_scoring": "matchpoints"}))
    assert params.borel.enabled and params.borel.worlds == 20 and params.borel.z == 1.5
    assert params.borel.scoring == "matchpoints"
    assert PlayerParams().borel.enabled  # on by default
    assert not engine_params(load_settings(engine={"borel": False})).borel.enabled
    player = Player(params, systems=load_system)
    assert player.borel.settings == params.borel
    view = _view("AKJ954.K54.A5.32", "")
    assert player.bid(view).call == Call.parse("1S")
    assert player.borel.counts["decisions"] == 1


def test_running_from_a_doubled_contract_is_scored_as_real_defenders_would_double_it(borel):
    # A board of the BEN replay: P P 1S 1N X, our North with no high card. The rules pass; the simulation bid 3NT,
    # because the rules finishing its worlds never doubled it: 3NT down five undoubled looked cheaper than 1NT
    # doubled. BEN doubled (-800). Defenders who can count two undertricks double them, and the worlds say so.
    view = _view("64.T8752.854.T97", "P P 1S 1N X", vul=Vul.NS, dealer=Seat.WEST)
    choice = borel.choose(view, random.Random(1), None, seconds=120)
    assert choice.call == PASS, borel.last
    assert BorelSettings().double_failing == 2
    never = BorelBidder(borel.ours, dataclasses.replace(borel.settings, double_failing=0))
    assert never.choose(view, random.Random(1), None, seconds=120).call != PASS, never.last  # the board's fault
