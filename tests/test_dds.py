"""Double-dummy solver (engine.dds): differential tests against DDS (endplay, a test-only oracle) and facade tests.

Positions come from seeded random deals and seeded random legal play, so every run checks the same cases."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

import pytest

from squeeze.engine.auction import Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import Card, Deal, Hand, InvalidDealError, Rank, Seat, Strain, Suit
from squeeze.engine.dds import DDTable, Position, PositionError, Solver, make_cards, solve_cards, solve_many, solve_table
from squeeze.engine.dds import _solver

ep_types = pytest.importorskip("endplay.types")
ep_dds = pytest.importorskip("endplay.dds")

# DDS's answers on 60 seeded deals (the first 60 of the shared dd_truth_200.json: tests/data/README.md)
TRUTH = Path(__file__).parent / "data" / "dd_truth_60.json"

_DENOM = {Strain.CLUBS: "clubs", Strain.DIAMONDS: "diamonds", Strain.HEARTS: "hearts", Strain.SPADES: "spades",
          Strain.NOTRUMP: "nt"}
_SUIT_OF_DENOM = {"clubs": Suit.CLUBS, "diamonds": Suit.DIAMONDS, "hearts": Suit.HEARTS, "spades": Suit.SPADES}


# ----------------------------------------------------------------------------------------------- DDS oracle

def dds_cards(position: Position, trump: Strain) -> dict[Card, int]:
    full = list(position.hands.hands)
    for k, c in enumerate(position.trick):
        seat = position.leader.next(k)
        full[seat] = full[seat].add(c)
    d = ep_types.Deal(Deal(full, complete=False).to_pbn(position.leader))
    d.first = ep_types.Player.find(position.leader.letter)
    d.trump = getattr(ep_types.Denom, _DENOM[trump])
    for c in position.trick:
        d.play(str(c))
    out = {}
    for card, score in ep_dds.solve_board(d):
        suit = _SUIT_OF_DENOM[card.suit.name]
        rank = int(card.rank.value).bit_length() - 1
        out[Card(suit, Rank(rank))] = score
    return out


def dds_table(deal: Deal) -> list[list[int]]:
    """[strain][declarer] tricks. DDS's own table call assumes 13-card hands, so endings go through SolveBoard:
    declarer's tricks = cards per hand - best score of his left-hand opponent's opening lead."""
    if deal.is_complete:
        t = ep_dds.calc_dd_table(ep_types.Deal(deal.to_pbn()))
        return [[t[getattr(ep_types.Denom, _DENOM[st]), ep_types.Player.find(seat.letter)] for seat in Seat]
                for st in Strain]
    n = len(deal[Seat.NORTH])
    return [[n - max(dds_cards(Position.from_deal(deal, seat.lho), st).values()) for seat in Seat] for st in Strain]


# ----------------------------------------------------------------------------------------------- positions

def random_ending(rng: random.Random, n: int) -> Deal:
    """n random cards of each hand of a random deal (so every suit split stays possible)."""
    hands = []
    for h in Deal.random(rng).hands:
        cards = list(h)
        rng.shuffle(cards)
        hands.append(Hand.from_cards(cards[:n]))
    return Deal(hands, complete=False)


def random_position(rng: random.Random, tricks_played: int, extra: int) -> tuple[Position, Strain]:
    deal = Deal.random(rng)
    strain = Strain(rng.randrange(5))
    declarer = Seat(rng.randrange(4))
    play = Play(deal, Contract(1, strain, 0, declarer))
    for _ in range(4 * tricks_played + extra):
        play = play.then(rng.choice(play.legal_cards()))
    return Position.from_play(play), strain


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(tt_mib=16)


# ----------------------------------------------------------------------------------------------- differential

@pytest.mark.parametrize("tricks_played", range(3, 13))
def test_every_trick_and_mid_trick_matches_dds(solver, tricks_played):
    """Positions after 3..12 tricks, with 0..3 cards of the next trick played: every legal card's score."""
    rng = random.Random(1000 + tricks_played)
    for i in range(40):
        pos, strain = random_position(rng, tricks_played, i % 4)
        if pos.tricks_left == 0:
            continue
        assert solver.solve_cards(pos, strain) == dds_cards(pos, strain), (pos, strain)


@pytest.mark.parametrize("tricks_played", [0, 1, 2])
def test_early_positions_match_dds(solver, tricks_played):
    """Trick 1 (opening lead) to trick 3, fewer cases: full-size searches are the slow ones."""
    rng = random.Random(77 + tricks_played)
    for i in range(3):
        pos, strain = random_position(rng, tricks_played, (i * 3) % 4 if tricks_played else 0)
        assert solver.solve_cards(pos, strain) == dds_cards(pos, strain), (pos, strain)


@pytest.mark.parametrize("tricks_played", [2, 5, 8, 11])
def test_target_mode_matches_dds_scores(solver, tricks_played):
    """make_cards(position, trump, n): a card is marked exactly when DDS scores it n or more, for every n."""
    rng = random.Random(500 + tricks_played)
    for i in range(8):
        pos, strain = random_position(rng, tricks_played, i % 4)
        scores = dds_cards(pos, strain)
        for target in range(0, pos.tricks_left + 2):
            got = solver.make_cards(pos, strain, target)
            assert got == {c: v >= target for c, v in scores.items()}, (pos, strain, target)


def test_target_mode_module_function_and_errors():
    deal = Deal.parse("N:AK... QJ... T9... 87...", complete=False)
    pos = Position.from_deal(deal, Seat.NORTH)
    assert make_cards(pos, Strain.NOTRUMP, 2) == {Card.parse("SA"): True, Card.parse("SK"): True}
    assert make_cards(pos, Strain.NOTRUMP, 3) == {Card.parse("SA"): False, Card.parse("SK"): False}
    with pytest.raises(TypeError):
        Solver(tt_mib=1).make_cards("N:AK... QJ... T9... 87...", Strain.NOTRUMP, 1)  # type: ignore[arg-type]


def test_tables_of_endings_match_dds(solver):
    """Full 5x4 tables of 7-card endings (every hand 7 cards; DDS tables accept partial deals)."""
    rng = random.Random(4242)
    for _ in range(6):
        ending = random_ending(rng, 7)
        ours = solver.solve_table(ending)
        assert [list(r) for r in ours.tricks] == dds_table(ending), ending


# Positions where a sure-trick bound once went wrong: a third-hand bound (its side needs one trick and surely wins
# this one) left out of its set the rank of partner's lead that beat second hand's card, so the table stored a result
# for positions where that lead loses (bench/dd_fuzz.py found them: 11 wrong answers in 72,000 checks).
_BOUND_REGRESSIONS = [
    ("N:T9.Q6.. .8.Q3.A K.K75.. 2.AT3..7", Seat.NORTH, "C9 C5 CK", Strain.HEARTS),
    ("N:KT6.Q..AKT5 83.AJ.92.J72 4.K984.AT7.3 J92.53..Q64", Seat.WEST, "C9 C8", Strain.NOTRUMP),
    ("N:QJ53.95.972. K.T42.6.AQJ6 97.QJ7.8.542 AT8642.A.4.73", Seat.NORTH, "D3 DK DJ", Strain.DIAMONDS),
    ("N:432..JT932.K4 QJ87.J.AK8.AJ T.KT983..Q873 A.Q52.7.T9652", Seat.SOUTH, "", Strain.CLUBS),
]
_BOUND_REGRESSION_ENDINGS = [
    "N:T.T.A54. A7..9.82 9..7.974 .A6.KJ3.",
    "N:Q4.5.9.A5 K7.J.Q.K7 853.T8..T .63.A.Q62",
    "N:K.K85.62.63 A8.J3.97.T2 975.74.T.A7 .QT.J5.J985",
    "N:9.J.732.A72 A.98.AQ65.Q 832.3.KJ8.9 7.KT5..KT85",
    "N:.JT3.63.A87 Q9.K4.AK.96 A64.86.T8.K J752..5.542",
    "N:9.T8.96.K4 KJ.J74..T9 73.AQ.JT5. .93.Q3.Q63",
    "N:A6.9.T3.J65 JT73.76.9.A .A8.Q8765.Q 954.KT.J42.",
]


def test_positions_where_a_sure_trick_bound_went_wrong():
    """Each on a fresh solver and then all on one (the wrong answers came from a stored set)."""
    shared = Solver(tt_mib=4)
    for pbn, leader, trick, strain in _BOUND_REGRESSIONS:
        pos = Position(Deal.parse(pbn, complete=False), leader, tuple(Card.parse(c) for c in trick.split()))
        want = dds_cards(pos, strain)
        assert Solver(tt_mib=4).solve_cards(pos, strain) == want, (pbn, strain)
        assert shared.solve_cards(pos, strain) == want, (pbn, strain)
    for pbn in _BOUND_REGRESSION_ENDINGS:
        ending = Deal.parse(pbn, complete=False)
        want = dds_table(ending)
        assert [list(r) for r in Solver(tt_mib=4).solve_table(ending).tricks] == want, pbn
        assert [list(r) for r in shared.solve_table(ending).tricks] == want, pbn


def test_a_side_needing_every_trick_may_still_lead_into_a_top_card_its_partner_ruffs(solver):
    """When the side on lead needs every trick, its leads into a suit whose top card an opponent holds are not searched
    (they lose the trick), except where partner can ruff that card: small endings in the trump strains, where that
    exception decides, against DDS."""
    # clubs trump, East to lead: the heart ace takes all three (a version without the exception scored it 2)
    pos = Position.from_deal(Deal.parse("N:.4.A.9 .A.6.J 65..7. J3...2", complete=False), Seat.EAST)
    assert solver.solve_cards(pos, Strain.CLUBS) == dds_cards(pos, Strain.CLUBS)
    rng = random.Random(2511)
    for _ in range(300):
        n = rng.randrange(2, 5)
        cards = rng.sample([Card(s, Rank(r)) for s in Suit for r in range(2, 15)], 4 * n)
        deal = Deal([Hand.from_cards(cards[i * n:(i + 1) * n]) for i in range(4)], complete=False)
        pos = Position.from_deal(deal, Seat(rng.randrange(4)))
        strain = Strain(rng.randrange(4))
        assert Solver(tt_mib=4).solve_cards(pos, strain) == dds_cards(pos, strain), (str(deal), strain, pos.to_move)


def test_notrump_stoppers_squeeze_proof_trick_matches_dds():
    """The defenders' squeeze-proof trick in notrump (a stopper each, counted against the declaring side's lengths):
    random notrump endings with long suits, every leader, against DDS."""
    solver = Solver(tt_mib=4)
    # East-West take all four: North's stopper in hearts is short (a version without the length condition said 3)
    pos = Position.from_deal(Deal.parse("N:.T.3.74 5.32..T 9.6.J6. 7.A.Q.3", complete=False), Seat.EAST)
    assert solver.solve_cards(pos, Strain.NOTRUMP) == dds_cards(pos, Strain.NOTRUMP)
    assert max(solver.solve_cards(pos, Strain.NOTRUMP).values()) == 4
    assert Solver(tt_mib=4).solve_leader(pos.hands, Seat.EAST, Strain.NOTRUMP) == 4
    rng = random.Random(2512)
    for _ in range(250):
        n = rng.randrange(3, 8)
        # two suits get most of the cards, so that holdings are long and guards are kept by length
        deck = [Card(s, Rank(r)) for s in Suit for r in range(2, 15)]
        rng.shuffle(deck)
        long_suits = rng.sample(list(Suit), 2)
        deck.sort(key=lambda c: (c.suit not in long_suits, rng.random()))
        cards = deck[:4 * n]
        rng.shuffle(cards)
        deal = Deal([Hand.from_cards(cards[i * n:(i + 1) * n]) for i in range(4)], complete=False)
        for seat in Seat:
            pos = Position.from_deal(deal, seat)
            assert solver.solve_cards(pos, Strain.NOTRUMP) == dds_cards(pos, Strain.NOTRUMP), (str(deal), seat)


# The freak deal of bench/RESULTS.md (the root probe's section): in notrump West's opening leads each need a new
# proof of 53,000+ card nodes, except the club jack, which transposes into North's proof (the four cards of North's
# club ace).
_FREAK_DEAL = "N:A9532.K.85.AKQ94 K.93.JT943.T8753 QJ764.AT642.A.62 T8.QJ875.KQ762.J"


def test_a_tables_later_leaders_try_each_card_of_the_opening_trick_on_a_small_budget_first():
    """dd_solve_table gives the first two cards of each later leader's opening trick a budgeted search before the
    full one: same answers (and DDS's), and on the freak deal a quarter fewer card nodes (578,623 -> 439,056)."""
    deal = Deal.parse(_FREAK_DEAL)
    on = Solver(tt_mib=16)
    off = Solver(tt_mib=16, options=_solver.OPT_DEFAULT & ~_solver.OPT_ROOT_PROBE)
    table_on, table_off = on.solve_table(deal), off.solve_table(deal)
    assert [list(r) for r in table_on.tricks] == [list(r) for r in table_off.tricks] == dds_table(deal)
    assert on.stats()["nodes"] < 0.9 * off.stats()["nodes"]


def test_a_node_limit_running_out_inside_the_budgeted_first_pass_stops_the_table():
    """The first pass stops at its own budget and goes on, but a limit of the caller's that runs out inside it stops
    the table: each entry is exact or -1 (never a guess from a search cut short), and no search runs on past it."""
    rng = random.Random(2601)
    core = _solver.CoreSolver(4 << 20)
    for _ in range(3):
        ending = random_ending(rng, 8)
        bits = [h.bits for h in ending.hands]
        core.set_node_limit(0)
        core.reset()
        core.clear_stats()
        truth = core.solve_table(bits)
        assert truth == [list(r) for r in Solver().solve_table(ending).tricks]
        total = core.stats()["nodes"]
        stopped = 0
        for limit in range(1, total, 3):
            core.reset()
            core.clear_stats()
            core.set_node_limit(limit)
            got = core.solve_table(bits)
            assert core.stats()["nodes"] <= limit + 25, (str(ending), limit)
            for row_got, row_true in zip(got, truth):
                for g, t in zip(row_got, row_true):
                    assert g in (-1, t), (str(ending), limit)
            stopped += any(-1 in row for row in got)
        assert stopped > 0
    core.set_node_limit(0)


def test_suits_only_one_side_holds(solver):
    """Sure tricks in a suit the opponents are void in: the longer hand runs it when its top card beats the other
    hand's lowest (the other hand unblocks), else the suit is blocked."""
    # N to lead, notrump: four heart tricks (South unblocks the queen under the king)
    deal = Deal.parse("N:.K742.. AKQJ... 2.Q83.. ..AKQ.2", complete=False)
    assert max(solver.solve_cards(Position.from_deal(deal, Seat.NORTH), Strain.NOTRUMP).values()) == 4
    # blocked: South's AKQ beat all of North's 5432: three tricks whoever starts
    blocked = Deal.parse("N:.5432.. AKQJ... 2.AKQ.. ..AKQJ.", complete=False)
    assert max(solver.solve_cards(Position.from_deal(blocked, Seat.NORTH), Strain.NOTRUMP).values()) == 3
    assert max(solver.solve_cards(Position.from_deal(blocked, Seat.SOUTH), Strain.NOTRUMP).values()) == 3
    # random endings with one suit dealt to North-South only, every strain and leader, against DDS
    rng = random.Random(9090)
    for _ in range(25):
        n = rng.randrange(4, 9)
        free = Suit(rng.randrange(4))
        ns_cards = rng.sample([Card(free, Rank(r)) for r in range(2, 15)], rng.randrange(3, 2 * n - 1))
        k = rng.randrange(max(1, len(ns_cards) - n), min(n, len(ns_cards) - 1) + 1)
        rest = [Card(su, Rank(r)) for su in Suit for r in range(2, 15) if su != free]
        rng.shuffle(rest)
        north = ns_cards[:k] + rest[: n - k]
        rest = rest[n - k:]
        south = ns_cards[k:] + rest[: n - (len(ns_cards) - k)]
        rest = rest[n - (len(ns_cards) - k):]
        east, west = rest[:n], rest[n: 2 * n]
        deal = Deal([Hand.from_cards(h) for h in (north, east, south, west)], complete=False)
        strain = Strain(rng.randrange(5))
        for leader in Seat:
            pos = Position.from_deal(deal, leader)
            assert solver.solve_cards(pos, strain) == dds_cards(pos, strain), (deal, strain, leader)


@pytest.mark.slow
def test_full_table_matches_ground_truth(solver):
    """Full 13-card tables against the DDS ground truth file (the first five deals; bench/dd.py runs many more)."""
    for rec in json.loads(TRUTH.read_text())["deals"][:5]:
        table = solver.solve_table(Deal.parse(rec["pbn"]))
        for seat in Seat:
            for name, st in (("NT", Strain.NOTRUMP), ("S", Strain.SPADES), ("H", Strain.HEARTS),
                             ("D", Strain.DIAMONDS), ("C", Strain.CLUBS)):
                assert table[st][seat] == rec["dd_table"][seat.letter][name], (rec["id"], seat, name)


def test_trick1_ground_truth(solver):
    """Every opening lead scored, on the first 25 deals of the DDS ground truth (strains and leaders rotate)."""
    for rec in json.loads(TRUTH.read_text())["deals"][:25]:
        t1 = rec["trick1"]
        pos = Position.from_deal(Deal.parse(rec["pbn"]), Seat.parse(t1["leader"]))
        got = solver.solve_cards(pos, Strain.parse(t1["strain"]))
        assert {str(c): v for c, v in got.items()} == t1["scores"], rec["id"]


def test_tiny_table_clears_and_recycles_and_stays_exact():
    """A 1 MiB table fills within one opening-lead search and is cleared mid-search; a long search fills some
    distribution's list, which recycles its oldest chunk. Answers must not change."""
    deals = json.loads(TRUTH.read_text())["deals"]
    tiny, small = Solver(tt_mib=1), Solver(tt_mib=16)
    for s, recs in ((tiny, deals[20:25]), (small, deals[28:29])):
        for rec in recs:
            t1 = rec["trick1"]
            pos = Position.from_deal(Deal.parse(rec["pbn"]), Seat.parse(t1["leader"]))
            got = s.solve_cards(pos, Strain.parse(t1["strain"]))
            assert {str(c): v for c, v in got.items()} == t1["scores"], rec["id"]
    assert tiny.stats()["tt_clears"] > 0        # the pool filled up and was cleared mid-search
    assert small.stats()["tt_recycled"] > 0     # a distribution's list reached its cap and recycled a chunk


def test_midplay_ground_truth(solver):
    for rec in json.loads(TRUTH.read_text())["deals"][:60]:
        mp = rec["midplay"]
        pos = Position(Deal.parse(mp["remaining_pbn"], complete=False), Seat.parse(mp["first"]),
                       tuple(Card.parse(c) for c in mp["current_trick"]))
        got = solver.solve_cards(pos, Strain.parse(mp["strain"]))
        assert {str(c): v for c, v in got.items()} == mp["scores"], rec["id"]


def test_solve_many_pimc_batch_matches_single_solves():
    """Worlds that share North-South's hands: batch answers equal one-by-one answers of a fresh solver, and DDS."""
    rng = random.Random(9)
    base = Deal.random(rng)
    ns = base[Seat.NORTH].bits | base[Seat.SOUTH].bits
    rest = [Card.from_index(i) for i in range(52) if not (ns >> i) & 1]
    worlds = []
    for _ in range(6):
        rng.shuffle(rest)
        e, w = Hand.from_cards(rest[:13]), Hand.from_cards(rest[13:])
        d = Deal([base[Seat.NORTH], e, base[Seat.SOUTH], w])
        # positions in trick 3 keep the test fast: the first two tricks are played at random
        play = Play(d, Contract(3, Strain.NOTRUMP, 0, Seat.SOUTH))
        for _ in range(9):
            play = play.then(rng.choice(play.legal_cards()))
        worlds.append(Position.from_play(play))
    batch = Solver(tt_mib=16).solve_many(worlds, Strain.NOTRUMP)
    for pos, got in zip(worlds, batch):
        assert got == Solver(tt_mib=16).solve_cards(pos, Strain.NOTRUMP)
        assert got == dds_cards(pos, Strain.NOTRUMP)


def test_threaded_batches_equal_single_thread():
    """solve_many / make_many with two solvers in two threads: the same answers, in the same order; a bad item
    raises in the caller's thread."""
    rng = random.Random(31)
    positions = []
    for i in range(24):
        pos, _ = random_position(rng, 6 + i % 4, i % 4)
        positions.append(pos)
    one = Solver(tt_mib=8)
    two = Solver(tt_mib=8)
    assert two.solve_many(positions, Strain.HEARTS, threads=2) == one.solve_many(positions, Strain.HEARTS)
    targets = [p.tricks_left // 2 for p in positions]
    assert two.make_many(positions, Strain.SPADES, targets, threads=2) == \
        one.make_many(positions, Strain.SPADES, targets)
    with pytest.raises(TypeError):
        two.solve_many([*positions[:5], "not a position", *positions[5:]], Strain.NOTRUMP, threads=2)
    with pytest.raises(ValueError):
        two.solve_many(positions, Strain.NOTRUMP, threads=0)


# ----------------------------------------------------------------------------------------------- facade

def test_position_from_play_and_validation():
    deal = Deal.random(3)
    play = Play(deal, Contract.parse("4HS"))
    pos = Position.from_play(play)
    assert pos.leader == Seat.WEST and pos.to_move == Seat.WEST and pos.tricks_left == 13 and pos.trick == ()
    play = play.then(play.legal_cards()[0])
    pos = Position.from_play(play)
    assert pos.to_move == Seat.NORTH and len(pos.trick) == 1 and pos.tricks_left == 13
    with pytest.raises(PositionError, match="should hold"):
        Position(play.remaining_deal(), Seat.NORTH, ())        # West's card is gone but no trick is shown
    with pytest.raises(PositionError, match="still held"):
        Position(deal, Seat.WEST, (next(iter(deal[Seat.WEST])),))
    with pytest.raises(PositionError, match="at most 3"):
        Position(deal, Seat.WEST, tuple(Card.parse(c) for c in ("S2", "S3", "S4", "S5")))


def test_revoke_is_rejected():
    north, south, west = Hand.parse("K..."), Hand.parse("T9..."), Hand.parse("87...")
    east_ok = Hand.parse("J...")
    pos = Position(Deal([north, east_ok, south, west], complete=False), Seat.NORTH,
                   (Card.parse("SA"), Card.parse("SQ")))
    assert pos.to_move == Seat.SOUTH and pos.legal_cards() == [Card.parse("ST"), Card.parse("S9")]
    assert solve_cards(pos, Strain.NOTRUMP) == dds_cards(pos, Strain.NOTRUMP)
    with pytest.raises(PositionError, match="revoke"):
        Position(Deal([north, Hand.parse("Q..."), south, west], complete=False), Seat.NORTH,
                 (Card.parse("SA"), Card.parse("H2")))


def test_table_type_and_module_functions():
    deal = Deal.parse("N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765")
    t = solve_table(deal)
    assert isinstance(t, DDTable)
    assert t[Strain.SPADES][Seat.NORTH] == t[Strain.SPADES, Seat.NORTH]
    assert [list(r) for r in t.tricks] == dds_table(deal)
    d = t.to_dict()
    assert set(d) == {"NT", "S", "H", "D", "C"} and set(d["NT"]) == {"N", "E", "S", "W"}
    with pytest.raises(AttributeError):
        t.tricks = ()  # type: ignore[misc]
    pos = Position.from_deal(deal, Seat.WEST)
    assert solve_cards(pos, Strain.HEARTS) == dds_cards(pos, Strain.HEARTS)
    assert solve_many([pos], Strain.HEARTS) == [solve_cards(pos, Strain.HEARTS)]


def test_unequal_hands_rejected_by_table():
    deal = Deal.parse("N:AK... Q... T9... 87...", complete=False)
    with pytest.raises(InvalidDealError, match="same number"):
        solve_table(deal)


def test_two_threads_solve_in_parallel():
    rng = random.Random(31)
    cases = [random_position(rng, 5, k % 4) for k in range(8)]
    expected = [Solver(tt_mib=8).solve_cards(p, s) for p, s in cases]
    results: dict[int, list] = {}

    def work(t):
        sv = Solver(tt_mib=8)
        results[t] = [sv.solve_cards(p, s) for p, s in cases]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results[0] == expected and results[1] == expected


def test_memory_is_bounded_and_configurable():
    assert Solver(tt_mib=8).tt_bytes <= 8 << 20
    assert Solver().tt_bytes <= 256 << 20
    with pytest.raises(ValueError):
        Solver(tt_mib=0)


# ----------------------------------------------------------------------------------------------- builds

def test_portable_and_fast_builds_give_the_same_answers():
    """The search is compiled twice (portable x86-64, and x86-64-v3 picked at run time where the CPU has it): forced
    onto the portable path, the same positions give the same answers, node for node, as on the fast path; and the
    [engine] solver_core setting selects the build in a fresh process (the C code reads no environment)."""
    import os
    import subprocess
    import sys

    before = _solver.core_variant()
    rng = random.Random(4242)
    cases = [random_position(rng, t, rng.randrange(4)) for t in (0, 0, 2, 5, 8)]
    deals = [Deal.random(rng) for _ in range(2)]
    runs = {}
    try:
        for variant in ("portable", "fast"):
            got = _solver.set_core_variant(variant)
            assert got == variant or (variant == "fast" and not _solver.fast_core_available())
            s = Solver(tt_mib=16)
            cards = [s.solve_cards(pos, st) for pos, st in cases]
            tables = [s.solve_table(d).tricks for d in deals]
            runs[got] = (cards, tables, s.stats()["nodes"])
    finally:
        _solver.set_core_variant(before)
    if len(runs) == 2:
        assert runs["portable"] == runs["fast"]
    cards, _tables, _nodes = runs["portable"]
    for (pos, st), got in zip(cases[:2], cards[:2]):
        assert got == dds_cards(pos, st)
    fresh = ("from squeeze.config.bidding import load_system\n"
             "from squeeze.config.settings import engine_params, load_settings\n"
             "from squeeze.engine.dds import _solver\n"
             "from squeeze.engine.player import Player\n"
             "Player(engine_params(load_settings()), systems=load_system).prepare()\n"
             "print(_solver.core_variant())\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}

    def core_in_a_fresh_process(**extra: str) -> str:
        return subprocess.run([sys.executable, "-c", fresh], env=env | extra, capture_output=True, text=True,
                              check=True).stdout.strip()

    assert core_in_a_fresh_process(SQUEEZE_ENGINE__SOLVER_CORE="portable") == "portable"
    fast = "fast" if _solver.fast_core_available() else "portable"
    assert core_in_a_fresh_process(SQUEEZE_ENGINE__SOLVER_CORE="auto") == fast
    assert core_in_a_fresh_process(SQUEEZE_DD_PORTABLE="1") == fast  # the old variable is not read any more
