"""Forced and equivalent cards, αμ(M=1) = PIMC, anytime behaviour, and the CardPlayer on a real deal."""

from __future__ import annotations

import random
import re

import pytest
from typer.testing import CliRunner

from squeeze.engine.auction import Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import BridgeError, Card, Deal, Seat
from squeeze.engine.play.alphamu import AlphaMuOptions, alphamu_choose
from squeeze.engine.play.pimc import pimc_choose
from squeeze.engine.play.card_player import CardPlayer, PlaySettings
from squeeze.engine.view import SeatView
from squeeze.engine.play.position import SearchPosition, Root, equivalence_reps, iter_bits

from test_play_oracle import EndplayOracle, EndplayTargetOracle, random_position

ORACLE = EndplayOracle()


class NoSolver:
    def solve_cards_many(self, positions):
        raise AssertionError("the solver must not be called")


def m(cards: str) -> int:
    out = 0
    for c in cards.split():
        out |= Card.parse(c).mask
    return out


def names(mask: int) -> set[str]:
    return {str(Card.from_index(i)) for i in iter_bits(mask)}


def test_equivalence_reps():
    alive = m("SA SK SQ SJ ST S9 S2")
    # K Q J in one hand: one class (lowest kept when following, highest when leading).
    assert names(equivalence_reps(m("SK SQ SJ"), m("SK SQ SJ"), alive)) == {"SJ"}
    assert names(equivalence_reps(m("SK SQ SJ"), m("SK SQ SJ"), alive, top=True)) == {"SK"}
    # Q and T are separated by the J while the J is alive (in another hand or on the table) ...
    assert names(equivalence_reps(m("SQ ST"), m("SQ ST"), m("SQ SJ ST S2"))) == {"SQ", "ST"}
    # ... and equivalent once the J is gone (played in an earlier trick).
    assert names(equivalence_reps(m("SQ ST"), m("SQ ST"), m("SQ ST S2"))) == {"ST"}
    # Different suits never merge.
    assert names(equivalence_reps(m("SQ HQ"), m("SQ HQ"), m("SQ HQ"))) == {"SQ", "HQ"}


def test_forced_card_plays_at_once():
    # West led the SQ; North must follow with his only spade: no solver call, flagged as forced.
    pos = SearchPosition((m("S2 H3"), m("SA HA"), m("SK HK"), m("HQ")), (Card.parse("SQ").index,), 3, 4)
    root = Root(4, 3, pos.trick, (pos.hands,), (1.0,), 2, 1)
    r = pimc_choose(root, NoSolver())
    assert r.forced and r.card == Card.parse("S2")
    a = alphamu_choose(root, NoSolver())
    assert a.forced and a.card == Card.parse("S2")


def test_all_equivalent_cards_need_no_search():
    # South holds K Q J of the led suit and nothing between them is outstanding: one class.
    pos = SearchPosition((m("S2 S3 S4 H2"), m("S5 S6 S7"), m("SK SQ SJ H4"), m("S9 S8 ST H3")), (Card.parse("SA").index,), 1, 4)
    root = Root(4, 1, pos.trick, (pos.hands,), (1.0,), 2, 0)
    r = pimc_choose(root, NoSolver())
    assert r.forced and r.card == Card.parse("SJ")  # the lowest of the equals when following


def sampled_root(rng: random.Random, nworlds: int) -> Root:
    """A random position for the declaring side, with worlds that re-deal the two hidden hands."""
    while True:
        p = random_position(rng, rng.randint(4, 7), rng.randint(0, 3), rng.randrange(5))
        mover = p.to_move
        declarer = mover if rng.random() < 0.5 else (mover + 2) % 4
        hidden = [(mover + 1) % 4, (mover + 3) % 4]
        pool = [c for s in hidden for c in iter_bits(p.hands[s])]
        sizes = [p.hands[s].bit_count() for s in hidden]
        worlds = []
        for _ in range(nworlds):
            rng.shuffle(pool)
            h = list(p.hands)
            h[hidden[0]] = sum(1 << c for c in pool[: sizes[0]])
            h[hidden[1]] = sum(1 << c for c in pool[sizes[0]:])
            worlds.append(tuple(h))
        weights = tuple(rng.choice((0.5, 1.0, 2.0)) for _ in worlds)
        tl = p.tricks_left
        root = Root(p.trump, p.leader, p.trick, tuple(worlds), weights, declarer, rng.randint(1, tl))
        if root.candidates().bit_count() > 1:
            return root


def test_alphamu_m1_is_pimc():
    rng = random.Random(11)
    for _ in range(12):
        root = sampled_root(rng, 8)
        p = pimc_choose(root, ORACLE)
        a = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=1))
        assert a.card == p.card and a.pimc_card == p.card
        assert a.mu == pytest.approx(p.best.goal)


def test_deeper_alphamu_never_scores_above_pimc_and_cuts_keep_the_move():
    rng = random.Random(5)
    for _ in range(6):
        root = sampled_root(rng, 6)
        p = pimc_choose(root, ORACLE)
        plain = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=2, tt=False, early_cut=False, root_cut=False,
                                                            min_cut=False))
        fast = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=2))
        assert plain.mu <= p.best.goal + 1e-9  # strategy fusion only ever adds constraints for Max
        assert fast.mu == pytest.approx(plain.mu)
        assert fast.card == plain.card


def test_alphamu_target_queries_change_nothing():
    rng = random.Random(21)
    for _ in range(5):
        root = sampled_root(rng, 6)
        a = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=3))
        b = alphamu_choose(root, EndplayTargetOracle(), AlphaMuOptions(max_m=3))
        assert (a.card, a.m) == (b.card, b.m) and a.mu == pytest.approx(b.mu)


def test_alphamu_anytime_with_zero_budget():
    root = sampled_root(random.Random(3), 8)
    r = alphamu_choose(root, ORACLE, AlphaMuOptions(max_m=3, budget_s=0.0))
    assert r.m >= 1 and r.card == r.pimc_card  # iteration 1 always completes; deeper ones were cut off
    assert r.card.index in set(iter_bits(root.legal()))


def test_alphamu_refuses_the_defence():
    root = sampled_root(random.Random(1), 3)
    defence = Root(root.trump, root.leader, root.trick, root.worlds, root.weights, (root.to_move + 1) % 4,
                   root.target)
    with pytest.raises(BridgeError, match="declaring side"):
        alphamu_choose(defence, ORACLE)


GRAND = "N:KJT7.AKQ.AKQ.432 32.765.8765.8765 A986.432.432.AKQ Q54.JT98.JT9.JT9"


def test_card_player_plays_legal_cards_with_reasons():
    deal = Deal.parse(GRAND)
    play = Play(deal, Contract.parse("7NS"))
    player = CardPlayer(PlaySettings(declarer_selector="alphamu", worlds_declarer=6, worlds_defender=6, max_m=2,
                                     declarer_budget_s=5.0),
                        oracle=ORACLE)
    rng = random.Random(1)
    seen = set()
    for _ in range(12):
        d = player.choose(play, rng)
        assert d.card in play.legal_cards() and d.seat == play.next_seat
        if d.selector == "alphamu":
            assert re.search("[Mm]akes? the contract", d.reason) and f"{d.worlds} layout" in d.reason
            assert d.tricks is not None and f"{d.tricks:.1f} of the" in d.reason
        elif d.selector == "pimc":
            assert d.seat in (Seat.EAST, Seat.WEST) and re.search("[Bb]eats? (it|the contract)", d.reason)
        assert not re.search(r"PIMC|αμ|M=|worlds", d.reason), d.reason  # a bridge player's words
        seen.add((d.seat, d.selector))
        play = play.then(d.card)
    # Dummy's cards are chosen by declarer's αμ; defenders use PIMC.
    assert (Seat.NORTH, "alphamu") in seen or (Seat.NORTH, "forced") in seen
    assert any(sel == "pimc" for _, sel in seen)


def test_every_kind_of_card_reason_reads_in_bridge_words():
    from squeeze.engine.play.card_player import _notes, fallback_card, forced_reason, search_reason

    c = Card.parse
    bits = lambda *cards: sum(1 << c(x).index for x in cards)  # noqa: E731
    spades = 3
    reasons = {
        "only": forced_reason(c("S2"), bits("S2"), (c("S9").index,), spades),
        "follow": forced_reason(c("H2"), bits("H2", "H3"), (c("H9").index,), spades),
        "ruff": forced_reason(c("S2"), bits("S2", "S3"), (c("H9").index,), spades),
        "discard": forced_reason(c("D2"), bits("D2", "D3"), (c("H9").index,), spades),
        "lead": forced_reason(c("DK"), bits("DK", "DQ"), (), spades),
        "make": search_reason(declaring=True, objective="make", worlds=20, goal=0.65, tricks=9.24, tricks_left=13,
                              ahead=3),
        "beat": search_reason(declaring=False, objective="make", worlds=13, goal=0.4, tricks=3.81, tricks_left=4),
        "tricks": search_reason(declaring=False, objective="tricks", worlds=13, goal=0.4, tricks=3.81, tricks_left=4),
        "sure": search_reason(declaring=True, objective="make", worlds=20, goal=1.0, tricks=10.5, tricks_left=13),
        "hopeless": search_reason(declaring=True, objective="make", worlds=20, goal=0.0, tricks=7.5, tricks_left=13),
        "lead_search": search_reason(declaring=False, objective="make", worlds=20, goal=0.3, tricks=3.1,
                                     tricks_left=13, opening_lead=True),
        "no_time": fallback_card(bits("H2", "H5", "SA"), (c("H9").index,))[1],
        "notes": _notes(True, "exact call tests") + _notes(False, "opponents' bidding"),
    }
    assert reasons["only"] == "Only card"
    assert reasons["follow"] == "Cards of equal value: follows suit with the lowest"
    assert reasons["ruff"].endswith("ruffs with the lowest") and reasons["discard"].endswith("discards the lowest")
    assert reasons["lead"] == "Cards of equal value: leads the top one"
    assert reasons["make"] == ("Best chance to make the contract: makes in 65 % of 20 layouts looked at "
                               "(looking 3 of our cards ahead)")
    assert reasons["beat"] == "Best chance to beat the contract: beats it in 40 % of 13 layouts looked at"
    assert reasons["tricks"].startswith("Most tricks on average: 3.8 of the 4 left in 13 layouts looked at")
    assert reasons["sure"] == ("Makes the contract in all 20 layouts looked at: the most tricks then, 10.5 of the "
                               "13 tricks left on average")
    assert reasons["hopeless"].startswith("No card makes the contract in any of the 20 layouts looked at")
    assert reasons["lead_search"].startswith("Opening lead - best chance to beat the contract: beats it in 30 %")
    assert reasons["no_time"] == "No time left to think: the lowest card of the suit led"
    assert reasons["notes"] == (" (cut short: the time ran out) (layouts found only with the finer points of the "
                                "bidding set aside) (layouts found only with the opponents' bidding set aside)")
    for kind, text in reasons.items():
        assert not re.search(r"PIMC|αμ|alpha|M=|worlds?\b|DD\b|double.dummy", text), (kind, text)


def test_card_player_uniform_worlds_setting():
    deal = Deal.parse(GRAND)
    play = Play(deal, Contract.parse("7NS")).then(Card.parse("HJ"))
    player = CardPlayer(PlaySettings(declarer_selector="pimc", worlds_declarer=5, inference=False), oracle=ORACLE)
    d = player.choose(play, 3)
    assert d.selector in ("pimc", "forced") and d.card in play.legal_cards()


def test_settings_reject_bad_values():
    with pytest.raises(BridgeError, match="selector"):
        PlaySettings(declarer_selector="magic")  # type: ignore[arg-type]
    with pytest.raises(BridgeError, match="objective"):
        PlaySettings(objective="win")  # type: ignore[arg-type]


def test_cli_play_rejects_bad_input():
    from squeeze.robot.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["play", GRAND, "--contract", "7N"])
    assert r.exit_code == 2 and "no declarer" in r.output
    r = runner.invoke(app, ["play", GRAND, "--contract", "7NS", "--lead", "SA"])
    assert r.exit_code == 2 and "opening lead" in r.output


def test_worlds_respect_what_the_viewer_saw():
    # West leads a heart, North (dummy) plays low, East discards a spade: East has shown out of hearts.
    deal = Deal.parse("N:KJT7.AKQ.AKQ.432 Q5432..8765.8765 A986.432.432.AKQ .JT98765.JT9.JT9")
    play = Play(deal, Contract.parse("7NS"))
    for c in ("HJ", "HQ", "S2"):
        play = play.then(Card.parse(c))
    player = CardPlayer(PlaySettings(inference=False), oracle=NoSolver())
    masks, weights = player.worlds_and_weights(SeatView.from_play(play, Seat.SOUTH), 30, random.Random(4))
    hearts = 0x1FFF << 26
    assert len(masks) == 30 and abs(sum(weights) - 1) < 1e-9
    for row in masks:
        assert int(row[Seat.SOUTH]) == deal[Seat.SOUTH].bits and int(row[Seat.NORTH]) == deal[Seat.NORTH].bits
        assert int(row[Seat.EAST]) & hearts == 0  # the show-out
        assert int(row[Seat.WEST]) & Card.parse("HJ").mask and int(row[Seat.EAST]) & Card.parse("S2").mask
    # Not every world is the real one: the hidden cards really are re-dealt.
    assert len({int(r[Seat.WEST]) for r in masks}) > 1


def test_sampling_falls_back_to_hard_facts_when_the_constraints_fail():
    # East to play at trick 12 of a 1NT-3NT deal (from the αμ bench): the sampler rejects South's 15-17 HCP
    # constraint although South's real hand meets it; the player must still sample worlds from the hard facts.
    from squeeze.engine.cards import Hand, Suit
    from squeeze.engine.sampling import SeatConstraints

    class Balanced:
        def on_shape(self, shape):
            return tuple(sorted(shape, reverse=True)) in ((4, 3, 3, 3), (4, 4, 3, 2), (5, 3, 3, 2))

        def __call__(self, hand: Hand) -> bool:
            return self.on_shape(hand.shape)

        def describe(self) -> str:
            return "balanced"

    lengths = [(0, 13)] * 4
    lengths[Suit.HEARTS] = lengths[Suit.SPADES] = (0, 3)
    cons = {Seat.SOUTH: SeatConstraints(hcp=(15, 17), predicates=(Balanced(),)),
            Seat.NORTH: SeatConstraints(hcp=(10, 15), lengths=tuple(lengths))}
    deal = Deal.parse("N:T2.K5.AQ42.KQJ53 J985.JT42.653.98 AQ7.AQ86.J8.AT72 K643.973.KT97.64")
    cards = ("H9 HK H2 H6 C3 C8 CT C4 C2 C6 CJ C9 C5 D3 CA H3 C7 H7 CQ D5 CK D6 D8 D7 H5 H4 HQ S3 HA S4 S2 HT "
             "DJ DK DA S5 DQ S8 H8 D9 D4 HJ S7 DT S6 ST").split()
    play = Play(deal, Contract.parse("3NS"), [Card.parse(c) for c in cards])
    player = CardPlayer(PlaySettings(inference=False), oracle=NoSolver(), constraints=cons)
    masks, _ = player.worlds_and_weights(SeatView.from_play(play, play.next_seat), 10, random.Random(0))
    assert len(masks) == 10
    for row in masks:
        assert int(row[Seat.EAST]) == deal[Seat.EAST].bits  # the viewer's own hand


def test_imps_objective_trades_the_undertrick_against_overtricks():
    """2S by South, the defence (West) on lead, four worlds. Card Y beats 2S in one world and gives two overtricks
    in the three others; card X lets it make exactly everywhere. "make" plays Y (a 25 % chance to beat it); at
    IMPs X costs 4 in one world (110 against -50), Y 2 in each of the others (170 against 110): "imps" plays X."""
    from squeeze.engine.play.pimc import rank_key, score_cards
    from squeeze.engine.scoring import score

    deal = Deal.parse(GRAND)
    root = Root(int(Contract.parse("2SS").strain), int(Seat.WEST), (), (tuple(deal[s].bits for s in Seat),) * 4, (1.0,) * 4,
                int(Seat.SOUTH), 8)
    x, y = Card.parse("SA").index, Card.parse("S2").index  # two cards: only the table below gives them values
    # the defence's tricks after each card in each world
    table = [{x: 5, y: 6}, {x: 5, y: 3}, {x: 5, y: 3}, {x: 5, y: 3}]
    scores = [score(Contract.parse("2SS"), k, False) for k in range(14)]
    by = {s.card.index: s for s in score_cards(root, table, [x, y], scores)}
    assert by[y].goal == 0.25 and by[x].goal == 0.0
    assert by[x].imps == pytest.approx(-4 / 4) and by[y].imps == pytest.approx(-6 / 4)
    best = {obj: max(by.values(), key=lambda s: rank_key(s, obj)).card.index for obj in ("make", "tricks", "imps")}
    assert best == {"make": y, "tricks": x, "imps": x}
    with pytest.raises(BridgeError, match="scores"):
        score_cards(root, table, [x, y], scores[:5])
    with pytest.raises(BridgeError, match="needs the contract's scores"):
        pimc_choose(root, ORACLE, "imps")


@pytest.mark.parametrize("seed", range(6))
def test_imps_objective_in_one_world_plays_a_double_dummy_best_card(seed):
    """With one world the best card of that world costs nothing, so "imps" must play a card the solver rates best:
    the real solver against the IMP arithmetic, on random positions."""
    from squeeze.engine.scoring import score

    rng = random.Random(seed)
    pos = random_position(rng, rng.randint(3, 7), rng.randrange(4), rng.randrange(5))
    declarer = rng.randrange(4)
    root = Root(pos.trump, pos.leader, pos.trick, (pos.hands,), (1.0,), declarer, 0)
    left = root.tricks_left
    need = rng.randint(0, left)
    root = Root(pos.trump, pos.leader, pos.trick, (pos.hands,), (1.0,), declarer, need)
    contract = Contract.parse(f"{rng.randint(1, 7)}{'CDHSN'[pos.trump]}")
    scores = [score(contract, max(0, min(13, contract.level + 6 - need + k)), bool(seed % 2)) for k in range(left + 1)]
    r = pimc_choose(root, ORACLE, "imps", scores=scores)
    values = ORACLE.solve_cards_many([root.position(0)])[0]
    assert values[r.card.index] == max(values.values())
    assert r.forced or (r.best is not None and r.best.imps == 0)


def test_card_player_explains_an_imps_defence():
    deal = Deal.parse(GRAND)
    play = Play(deal, Contract.parse("7NS"))
    player = CardPlayer(PlaySettings(worlds_defender=6, objective="imps"), oracle=ORACLE)
    d = player.choose(play, 2)
    assert d.selector == "pimc" and d.reason.startswith("Opening lead - costs the fewest IMPs"), d.reason
    assert d.card in play.legal_cards()
