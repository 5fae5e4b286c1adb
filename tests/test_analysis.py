"""Where the IMPs go: the card-by-card account against double dummy, the auction categories and the report."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squeeze.engine.auction import Auction, Contract
from squeeze.engine.board import Play
from squeeze.engine.cards import Deal, Seat, Vul
from squeeze.engine.dds import Position, Solver
from squeeze.engine.record import BoardRecord
from squeeze.robot.tm.store import STORE_FILE, ResultsStore
from squeeze.robot.analysis import analyse_match, level_class, paired_by_override, paired_difference, play_against_dd

SOLVER = Solver()
ROOT = Path(__file__).resolve().parents[1]


def random_play(deal: Deal, contract: Contract, rng: random.Random) -> Play:
    play = Play(deal, contract)
    while not play.is_complete:
        play = play.then(rng.choice(play.legal_cards()))
    return play


def record(board: int, deal: Deal, calls: str, dealer: Seat, rng: random.Random, room: str,
           players: dict[Seat, str]) -> BoardRecord:
    auction = Auction(dealer, calls.split())
    contract = auction.contract
    common = dict(dealer=dealer, vul=Vul.NONE, auction=auction, room=room, players=players)
    if contract is None:
        return BoardRecord(board=board, deal=deal, contract=None, **common)
    return BoardRecord.from_play(board, random_play(deal, contract, rng), **common)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), strain=st.sampled_from("CDHSN"), declarer=st.sampled_from(list(Seat)))
def test_every_trick_of_difference_from_double_dummy_is_some_cards(seed, strain, declarer):
    rng = random.Random(seed)
    deal = Deal.random(rng)
    contract = Contract.parse(f"3{strain}{declarer.letter}")
    play = random_play(deal, contract, rng)
    rec = BoardRecord.from_play(1, play, dealer=Seat.NORTH, vul=Vul.NONE)
    rp = play_against_dd(rec, SOLVER)
    # RoomPlay checks result = dd + lead + defence - declarer itself; here: each loss is what the solver says
    assert rp.result == play.declarer_tricks
    assert rp.dd_tricks == SOLVER.solve_table(deal)[contract.strain, declarer]
    replay = Play(deal, contract)
    for i, card in enumerate(play.cards):
        values = SOLVER.solve_cards(Position.from_play(replay), contract.strain)
        lost = max(values.values()) - values[card]
        found = [x for x in rp.losses if x.index == i]
        assert (found[0].lost if found else 0) == lost
        if found:
            assert values[found[0].best] == max(values.values()) and found[0].seat == replay.public.next_seat
        replay = replay.then(card)


def test_level_classes():
    assert [level_class(None)] + [level_class(Contract.parse(c)) for c in ("2HS", "4HS", "3NN", "5CE", "4CE", "6SW",
                                                                            "7NN")] == \
        ["passed", "part-score", "game", "game", "game", "part-score", "small slam", "grand slam"]


def test_a_missed_game_a_failed_game_and_the_swing_split():
    rng = random.Random(5)
    # North-South hold everything: 7NT makes; one room stops in 2S, the other bids 4S
    deal = Deal.parse("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")
    a = {Seat.NORTH: "A", Seat.SOUTH: "A", Seat.EAST: "B", Seat.WEST: "B"}
    b = {Seat.NORTH: "B", Seat.SOUTH: "B", Seat.EAST: "A", Seat.WEST: "A"}
    open_room = record(1, deal, "2S P P P", Seat.NORTH, rng, "Open", a)
    closed_room = record(1, deal, "4S P P P", Seat.NORTH, rng, "Closed", b)
    analyses, figures = analyse_match([open_room, closed_room], ("A", "B"), solver=SOLVER)
    [an] = analyses
    assert an.swing == an.bidding + an.play
    cats = figures["categories"]
    assert cats["A"]["level"]["games missed"] == 1 and cats["B"]["level"]["games bid"] == 1
    assert cats["B"]["level"]["slams missed"] == 1  # 6 and 7 make double dummy too
    assert cats["A"]["bidding_imps"]["level"] == an.bidding and an.bidding < 0
    assert figures["verdict"]["boards"] == 1 and figures["swings"] == {"1": an.swing}


def test_paired_difference_is_board_by_board():
    p = paired_difference({1: 5, 2: -3, 3: 0, 4: 2}, {1: 2, 2: -3, 3: -1, 5: 12})
    assert p["boards"] == 3 and p["mean"] == pytest.approx((3 + 0 + 1) / 3, abs=1e-4)


def test_the_paired_difference_is_split_by_the_boards_a_simulated_call_decided():
    """A board where our robot's explanation says a simulation overrode the rules (as ``BorelBidder`` words it)
    counts with the overridden ones, whichever room it was in; the others apart."""
    import dataclasses

    from squeeze.engine.bidding.borel import OVERRIDE_MARK, is_override
    from squeeze.engine.record import CallNote

    rng = random.Random(3)
    players = {s: ("A" if s in (Seat.NORTH, Seat.SOUTH) else "B") for s in Seat}
    recs = []
    for board in (1, 2, 3):
        r = record(board, Deal.random(rng), "1N P P P", Seat.NORTH, rng, "Open", players)
        text = "15-17 balanced" + (f" {OVERRIDE_MARK}16 deals: 1N instead of the rules' 1D, ...)" if board == 2 else "")
        recs.append(dataclasses.replace(r, call_notes=(CallNote(explanation=text), CallNote(), CallNote(), CallNote())))
    assert [is_override(r.call_notes[0].explanation) for r in recs] == [False, True, False]
    split = paired_by_override(recs, {1: 5, 2: -6, 3: 1}, {1: 2, 2: 4, 3: 1})
    assert split["overridden"]["boards"] == 1 and split["overridden"]["mean"] == pytest.approx(-10)
    assert split["not_overridden"]["boards"] == 2 and split["not_overridden"]["mean"] == pytest.approx(1.5)


def test_the_ben_bench_without_ben_says_how_to_set_it_up_and_exits_2(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "ben_match.py"), "--ben", str(tmp_path / "nowhere"),
                        "--out", str(tmp_path / "out"), "--quick"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "BEN is not set up" in r.stderr and "fetch github:lorserker/ben" in r.stderr and "setup.sh" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_stopped_ben_match_says_what_it_kept_and_how_to_go_on(tmp_path):
    """SIGTERM to the BEN bench while the match runs (here BEN's launcher only waits: no BEN on the test machine):
    the match stops its robots, the store and the ledger are kept, and the bench says so in a line, exit code 1."""
    ben = tmp_path / "ben"
    ben.mkdir()
    (ben / "ben-seat").write_text("#!/bin/sh\nexec sleep 600\n")
    (ben / "ben-seat").chmod(0o755)
    ledger = tmp_path / "ledger.jsonl"
    proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "ben_match.py"), "--ben", str(ben), "--out",
                             str(tmp_path / "out"), "--quick", "--ledger", str(ledger)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "out" / STORE_FILE).is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err[-2000:]
    assert "ben_match: stopped; 0 table boards kept" in out and "the same command resumes" in out
    assert "Traceback" not in err
    assert ledger.is_file() and (tmp_path / "out" / STORE_FILE).is_file()


def test_a_ben_run_carries_over_through_its_ledger(tmp_path):
    """The ledger written from a store seeds an identical store (a later session resumes from it)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match

    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.match import MATCH_NAME
    from squeeze.robot.tm.run import prepare_run

    settings = TableManagerSettings(port=0, results_dir=tmp_path / "a", boards=3, seed=4, rooms=2)
    store, _ = prepare_run(settings, resume=False)
    store.add_match(MATCH_NAME, 2, "Squeeze", "BEN")
    rng = random.Random(2)
    for deal in store.deals()[:2]:
        for room, players in (("Open", "Squeeze BEN"), ("Closed", "BEN Squeeze")):
            ns, ew = players.split()
            rec = record(deal.board, deal.deal, "1N P P P", deal.dealer, rng, room,
                         {Seat.NORTH: ns, Seat.SOUTH: ns, Seat.EAST: ew, Seat.WEST: ew})
            store.commit_board(MATCH_NAME, room, rec, ["clock: North: 3 s"] if room == "Open" else [])
    store.close()
    ledger = tmp_path / "ledger.jsonl"
    assert ben_match.export_ledger(tmp_path / "a", ledger) == 4
    again = TableManagerSettings(port=0, results_dir=tmp_path / "b", boards=3, seed=4, rooms=2)
    assert ben_match.seed_from_ledger(tmp_path / "b", ledger, again) == 4
    assert ben_match.export_ledger(tmp_path / "b", tmp_path / "again.jsonl") == 4
    assert (tmp_path / "again.jsonl").read_text() == ledger.read_text()
    # the seeded store resumes as the same run: the plan matches, the finished boards are there once
    store, _ = prepare_run(again, resume=True)
    assert store.finished(MATCH_NAME, "Open") == {1, 2} and store.finished(MATCH_NAME, "Closed") == {1, 2}
    store.close()
    # a ledger of the earlier form (one table board a line: the committed runs before 1175eff) seeds it too
    store = ResultsStore(tmp_path / "a" / STORE_FILE, create=False)
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("".join(json.dumps({"match": r.match, "room": r.room, "incidents": list(r.incidents),
                                          "record": r.record.to_dict()}) + "\n" for r in store.results()))
    before = [(r.match, r.room, r.board, r.record, r.incidents) for r in store.results()]
    store.close()
    third = TableManagerSettings(port=0, results_dir=tmp_path / "c", boards=3, seed=4, rooms=2)
    assert ben_match.seed_from_ledger(tmp_path / "c", legacy, third) == 4
    store = ResultsStore(tmp_path / "c" / STORE_FILE, create=False)
    assert [(r.match, r.room, r.board, r.record, r.incidents) for r in store.results()] == before
    store.close()


def _ben_run(folder: Path, boards: dict[int, str], seed: int = 4, total: int = 3) -> None:
    """A stored BEN match in ``folder``: each of ``boards`` (number -> auction, or "open auction | closed
    auction") finished in both rooms."""
    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.match import MATCH_NAME
    from squeeze.robot.tm.run import prepare_run

    settings = TableManagerSettings(port=0, results_dir=folder, boards=total, seed=seed, rooms=2)
    store, _ = prepare_run(settings, resume=False)
    store.add_match(MATCH_NAME, 2, "Squeeze", "BEN")
    rng = random.Random(2)
    for deal in store.deals():
        if deal.board in boards:
            parts = [x.strip() for x in boards[deal.board].split("|")]
            auctions = parts if len(parts) == 2 else parts * 2
            for (room, players), auction in zip((("Open", "Squeeze BEN"), ("Closed", "BEN Squeeze")), auctions):
                ns, ew = players.split()
                store.commit_board(MATCH_NAME, room, record(deal.board, deal.deal, auction, deal.dealer, rng,
                                   room, {Seat.NORTH: ns, Seat.SOUTH: ns, Seat.EAST: ew, Seat.WEST: ew}),
                                   [f"clock: board {deal.board}, {boards[deal.board]}"])
            store.add_incident(MATCH_NAME, "Open", deal.board, "warning", boards[deal.board])
    store.close()


def test_a_run_patched_with_boards_played_again_takes_them_and_keeps_the_rest(tmp_path):
    """``--patch PART INTO``: the boards PART finished replace the run's in a copy (records and incidents), the
    run itself is untouched, the report is of the copy; boards of another seed, or a board the run has not
    finished, are refused with nothing written."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match

    _ben_run(tmp_path / "run", {1: "1N P P P", 2: "1N P P P", 3: "1N P P P"})
    _ben_run(tmp_path / "part", {2: "1S P P P"})
    before = [(r.room, r.board, r.record) for r in _rows(tmp_path / "run")]
    assert ben_match.patch_run(tmp_path / "run", tmp_path / "part", tmp_path / "into") == [2]
    after = {(r.room, r.board): r for r in _rows(tmp_path / "into")}
    assert len(after) == 6 and [(r.room, r.board, r.record) for r in _rows(tmp_path / "run")] == before
    for (_room, board), r in after.items():
        assert [str(c) for c in r.record.auction.calls] == (["1S", "P", "P", "P"] if board == 2 else
                                                            ["1N", "P", "P", "P"])
        assert r.incidents == (f"clock: board {board}, {'1S' if board == 2 else '1N'} P P P",)
    store = ResultsStore(tmp_path / "into" / STORE_FILE, create=False)
    assert sorted((x[2], x[4]) for x in store.incidents()) == [(1, "1N P P P"), (2, "1S P P P"), (3, "1N P P P")]
    store.close()
    with pytest.raises(SystemExit, match="already holds a run"):
        ben_match.patch_run(tmp_path / "run", tmp_path / "part", tmp_path / "into")

    _ben_run(tmp_path / "other-seed", {2: "1S P P P"}, seed=5)
    with pytest.raises(SystemExit, match="is not the deal of board 2 here"):
        ben_match.patch_run(tmp_path / "run", tmp_path / "other-seed", tmp_path / "into2")
    _ben_run(tmp_path / "short", {1: "1N P P P"})
    _ben_run(tmp_path / "more", {3: "1S P P P"})
    with pytest.raises(SystemExit, match="finished board 3 in Closed, Open; this run finished it in no room"):
        ben_match.patch_run(tmp_path / "short", tmp_path / "more", tmp_path / "into3")
    assert [r.board for r in _rows(tmp_path / "into3")] == [1, 1]  # (the copy keeps the run as it was)

    r = subprocess.run([sys.executable, str(ROOT / "bench" / "ben_match.py"), "--ben", str(tmp_path), "--out",
                        str(tmp_path / "run"), "--report-only", "--patch", str(tmp_path / "part"),
                        str(tmp_path / "into4")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "1 boards of" in r.stdout and "RESULT boards=3 " in r.stdout
    assert (tmp_path / "into4" / "report.json").is_file() and not (tmp_path / "run" / "report.json").exists()
    bad = subprocess.run([sys.executable, str(ROOT / "bench" / "ben_match.py"), "--ben", str(tmp_path), "--out",
                          str(tmp_path / "run"), "--patch", str(tmp_path / "part"), str(tmp_path / "into5")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--patch goes with --report-only" in bad.stderr


def _rows(folder: Path) -> list:
    store = ResultsStore(folder / STORE_FILE, create=False)
    try:
        return store.results()
    finally:
        store.close()


def test_a_ben_run_on_chosen_boards_deals_them_as_the_whole_set_does(tmp_path):
    """``--only``: the chosen boards of the seed's set, the same deals, dealers and vulnerability as in the full
    run (an A/B test's paired difference is by board number); a bad list is a clear error."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match

    from squeeze.robot.tm.plan import load_boards, random_boards

    assert ben_match.parse_only("17-19, 3,6,3") == [3, 6, 17, 18, 19]
    for bad in ("3,x", "0", "9-4", "", "5-"):
        with pytest.raises(SystemExit, match="--only takes board numbers"):
            ben_match.parse_only(bad)
    path = ben_match.write_only_boards(tmp_path, [2, 7, 12], 12, 5)
    full = {b.board: b for b in random_boards(1, 12, 5)}
    got = load_boards(path)
    assert [b.board for b in got] == [2, 7, 12]
    for b in got:
        assert (b.deal, b.dealer, b.vul) == (full[b.board].deal, full[b.board].dealer, full[b.board].vul)
    with pytest.raises(SystemExit, match="beyond the match's 12 boards"):
        ben_match.write_only_boards(tmp_path, [13], 12, 5)


def test_the_replay_reach_lists_the_boards_a_later_rule_change_can_reach():
    """``bench/replay_reach.py``: a board is listed by the call our robot made (its seats from the record's
    ``players``) and that call's explanation; the same auction with BEN in those seats is not."""
    sys.path.insert(0, str(ROOT / "bench"))
    import replay_reach

    ns, ew = frozenset({0, 2}), frozenset({1, 3})

    def rec(calls, notes, dealer="N"):
        return {"auction": calls.split(), "dealer": dealer, "call_notes": [{"explanation": n} for n in notes]}

    negx = rec("1C 1H X 2H 2S P P P", ["", "", "Negative double: values and the unbid major(s)", "", "", "", "", ""])
    assert replay_reach.reached(ns, negx) == ["2198a69: their raise after our negative double"]
    assert replay_reach.reached(ew, negx) == []  # (the double was BEN's)
    passed = rec("1C 1H X P 2S P P P", ["", "", "Negative double: values and the unbid major(s)", "", "", "", "", ""])
    assert replay_reach.reached(ns, passed) == []
    inv = rec("1N P 2D P 2H P 2N P 3H P P P", ["", "", "", "", "", "", "Exactly five hearts, invitational", ""] + [""] * 4)
    assert replay_reach.reached(ns, inv) == ["562e5b9: our invitation opposite 1NT"]
    over = rec("1D P 1N P 2D P P P", [""] * 8, dealer="E")  # East opens: theirs when we sit N/S
    assert replay_reach.reached(ns, over) == ["4d32e7b: after their 1NT response"]
    assert replay_reach.reached(ew, over) == []
    pre = rec("1D 3S P 3N P P P", ["", "Preemptive overcall: seven or more spades", "", "", "", "", ""], dealer="W")
    assert replay_reach.reached(ns, pre) == ["815318e: our preemptive overcall"]
    assert replay_reach.our_seats({"players": {"N": "BEN", "E": "Squeeze", "S": "BEN", "W": "Squeeze"}}) == ew
    with pytest.raises(SystemExit, match="names no seat played by 'Squeeze'"):
        replay_reach.our_seats({"board": 4, "players": {"N": "A", "E": "B", "S": "A", "W": "B"}})


def test_the_replay_reach_since_a_rule_set_lists_the_turns_where_our_rules_now_call_otherwise():
    """``--since RULES --off FEATURE``: our turns of the played auction re-bid by today's rules and by those rules
    with the named interpreter feature off; a board is listed where they differ (board 12 of the fresh BEN run: the
    competitive raise's trumps, counted since ``bounded_hulls``, turn 3NT into 4S), never at BEN's turns."""
    sys.path.insert(0, str(ROOT / "bench"))
    import replay_reach

    board12 = {"deal": "N:QJ94.J8.AKJ8.984 A73.963.762.Q632 KT862.AQ52.954.A 5.KT74.QT3.KJT75", "dealer": "W",
               "vul": "NS", "auction": "P 1D P 1S 1N 2S 3C 3N P P P".split()}
    differ = replay_reach.rules_differ("sayc", ["bounded_hulls"])
    assert differ(frozenset({0, 2}), board12) == ["call 8: 4S now, 3N with sayc"]
    assert differ(frozenset({1, 3}), board12) == []
    assert replay_reach.rules_differ("sayc", [])(frozenset({0, 2}), board12) == []  # the same rules: nothing
    with pytest.raises(SystemExit, match="unknown feature"):
        replay_reach.rules_differ("sayc", ["no_such_feature"])


def test_the_replay_reach_reads_a_stored_run_of_either_ledger_form_the_way_a_match_carries_it_over(tmp_path):
    """The whole script on the committed ledgers: the earlier form (one table board a line) and a store's ledger
    list the same boards for the same run, and a damaged line is refused with its line number, never skipped."""
    script = ROOT / "bench" / "replay_reach.py"
    ledger = ROOT / "bench" / "ben" / "final2.jsonl"
    run = subprocess.run([sys.executable, str(script), str(ledger), "--quick"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    result = run.stdout.strip().splitlines()[-1]
    assert result.startswith("RESULT boards=")
    only = [int(b) for b in result.split("only=")[1].split(",") if b]
    assert only and max(only) <= 24
    listed = {int(line.split()[0]) for line in run.stdout.splitlines()[:-1]}
    assert listed == set(only)

    # The same run as a store's ledger (what a run since 1175eff writes): the same list.
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match
    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.tm.store import STORE_FILE, ResultsStore

    settings = TableManagerSettings(**{**ben_match.BEN_TM, "port": 0, "results_dir": tmp_path / "run", "boards": 300,
                                       "seed": 1, "rooms": 2})
    assert ben_match.seed_from_ledger(tmp_path / "run", ledger, settings) == 600
    store = ResultsStore(tmp_path / "run" / STORE_FILE, create=False)
    store.write_ledger(tmp_path / "store.jsonl")
    store.close()
    again = subprocess.run([sys.executable, str(script), str(tmp_path / "store.jsonl"), "--quick"],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert again.stdout == run.stdout

    # A damaged line in either form: refused with its line number.
    for name, source in (("old", ledger), ("store", tmp_path / "store.jsonl")):
        lines = source.read_text(encoding="utf-8").splitlines()
        lines[5] = lines[5][: len(lines[5]) // 2]
        bad = tmp_path / f"bad-{name}.jsonl"
        bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
        broken = subprocess.run([sys.executable, str(script), str(bad)], capture_output=True, text=True,
                                timeout=300, cwd=ROOT)
        assert broken.returncode != 0 and "line 6" in broken.stderr, (name, broken.stderr)
        assert "Traceback" not in broken.stderr


def test_the_par_bench_scores_a_changed_call_for_the_side_that_made_it():
    """``bench/bidding_par.py``'s team-match figure: the swing between the two files' results on a deal is credited
    to the side whose call first differs, as IMPs of its own score; a deal bid the same gains nobody anything."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bidding_par
    from squeeze.engine.auction import Call
    from squeeze.engine.cards import Seat

    calls = [Call.parse(c) for c in "1N P 2N P 3N P P P".split()]
    base = [Call.parse(c) for c in "1N P 2N P P P".split()]
    # North deals: the first difference is call 4, North's: North-South made 3NT vulnerable (+600) against +150
    assert bidding_par.changer_gain(Seat.NORTH, calls, base, 600, 150) == 10
    assert bidding_par.changer_gain(Seat.NORTH, calls, base, -100, 120) == -6
    # East deals: the same call is East's, so East-West's score counts (North-South's sign turned)
    assert bidding_par.changer_gain(Seat.EAST, calls, base, -600, -150) == 10
    assert bidding_par.changer_gain(Seat.EAST, calls, calls, -600, -600) == 0


def test_the_paired_difference_against_a_baseline_splits_into_bidding_and_play(tmp_path):
    """A report against a baseline run splits the paired difference into its bidding part and its play part,
    board by board, and the two add up to the whole; a board bid the same in both runs pairs no bidding IMPs."""
    from squeeze.robot.analysis import write_report

    _ben_run(tmp_path / "base", {1: "1N P P P", 2: "1N P P P", 3: "1N P P P"})
    _ben_run(tmp_path / "run", {1: "1N P P P", 2: "4S P P P | 1S P P P", 3: "1N P P P"})
    figures = write_report(tmp_path / "run", ours="Squeeze", baseline=tmp_path / "base")
    p = figures["baseline"]
    assert p["boards"] == p["bidding"]["boards"] == p["play"]["boards"] == 3
    assert p["bidding"]["mean"] != 0  # (board 2: 4S against 1S in the run, 1NT in both rooms of the baseline)
    assert p["mean"] == pytest.approx(p["bidding"]["mean"] + p["play"]["mean"], abs=1e-3)
    assert "Split: bidding" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    same = write_report(tmp_path / "base", ours="Squeeze", baseline=tmp_path / "base")["baseline"]
    assert same["bidding"]["mean"] == same["play"]["mean"] == same["mean"] == 0


def test_a_replay_says_whose_call_or_card_first_differs_from_its_baseline(tmp_path):
    """``replay_pairing``: table boards with another auction are counted by the player of the first call to differ
    (board 2: the opening, East's as its dealer, BEN's in the open room and Squeeze's in the closed), the others by
    whether the play repeated and, where not, by the holder of the first card to differ; a run against itself
    repeats all."""
    from squeeze.robot.analysis import _records, replay_pairing, write_report

    _ben_run(tmp_path / "base", {1: "1N P P P", 2: "1N P P P", 3: "1N P P P"})
    _ben_run(tmp_path / "run", {1: "1N P P P", 2: "4S P P P | 1S P P P", 3: "1N P P P"})
    q = replay_pairing(_records(tmp_path / "run"), _records(tmp_path / "base"))
    assert q["table_boards"] == 6 and q["same_auction"] == 4
    assert q["first_call"] == {"Squeeze": 1, "BEN": 1}
    # board 1 draws the same random play in both runs (the same generator state); board 3's draws come after
    # board 2's, which differ
    assert q["same_play"] >= 2 and q["same_play"] + sum(q["first_card"].values()) == 4
    assert replay_pairing(_records(tmp_path / "base"), _records(tmp_path / "base")) == {
        "table_boards": 6, "same_auction": 6, "same_play": 6, "first_call": {}, "first_card": {}}
    write_report(tmp_path / "run", ours="Squeeze", baseline=tmp_path / "base")
    assert "How far the run repeats the baseline: of 6 table boards" in (tmp_path / "run" / "report.md").read_text(
        encoding="utf-8")


def test_the_par_bench_on_changed_deals_alone_gives_the_full_runs_paired_figures(tmp_path, monkeypatch, capsys):
    """``bench/bidding_par.py --changed-only`` solves only the deals the two rule files bid differently; a deal bid
    alike adds nothing to a paired figure, so its paired difference and team-match score are the full run's."""
    sys.path.insert(0, str(ROOT / "bench"))
    import bidding_par

    rules = tmp_path / "weak_nt.toml"  # a change that moves many auctions: 1NT 14-16 instead of 15-17
    text = (ROOT / "config" / "systems" / "sayc.toml").read_text(encoding="utf-8")
    assert 'when = "15 <= hcp <= 17 and nt_shape"' in text
    rules.write_text(text.replace('when = "15 <= hcp <= 17 and nt_shape"', 'when = "14 <= hcp <= 16 and nt_shape"'),
                     encoding="utf-8")
    monkeypatch.setattr(bidding_par, "CACHE", tmp_path / "dd_tables.jsonl")

    def results(*extra: str, judged: str = str(rules)) -> list[dict[str, str]]:
        argv = ["bidding_par.py", "--deals", "24", "--seed", "5", "--rules", judged, "--baseline", "sayc",
                "--worst", "0", *extra]
        monkeypatch.setattr(sys, "argv", argv)
        bidding_par.main()
        return [dict(kv.split("=", 1) for kv in x.split()[1:])
                for x in capsys.readouterr().out.splitlines() if x.startswith("RESULT")]

    def result(*extra: str) -> dict[str, str]:
        return results(*extra)[0]

    fast = result("--changed-only")
    solved_fast = len((tmp_path / "dd_tables.jsonl").read_text().splitlines())
    full = result()
    assert 0 < int(fast["changed"]) == int(full["changed"]) == solved_fast < 24
    assert float(fast["delta_imps"]) == pytest.approx(float(full["delta_imps"]), abs=6e-4)
    assert float(fast["changer_imps"]) == pytest.approx(float(full["changer_imps"]), abs=6e-5)

    # Several candidates in one run: each file's RESULT is the one its own run prints; the baseline itself changes
    # nothing.
    both = results("--changed-only", judged=f"{rules},sayc")
    assert [b["rules"] for b in both] == [str(rules), "sayc"]
    assert {k: v for k, v in both[0].items() if k != "rules"} == fast
    assert both[1]["changed"] == "0" and float(both[1]["delta_imps"]) == 0


def test_bens_repeatable_configuration_changes_its_pimc_clock_and_nothing_else(tmp_path):
    """``ben_match.repeatable_config``: BEN's stock file with its PIMC search on one thread and a wait no decision
    reaches, every other byte kept (its CRLF line ends too, and a commented-out key stays commented); written once;
    a stock file without one of the keys is refused."""
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match

    conf = tmp_path / "ben" / "ben" / "src" / "config"
    conf.mkdir(parents=True)
    stock = ("[pimc]\r\n# pimc_wait = 9\r\npimc_wait = 3\r\npimc_max_playouts = 200\r\n"
             "pimc_max_threads = 2\r\n[sampling]\r\nsample_hands_play = 200\r\n")
    (conf / "local.conf").write_bytes(stock.encode())
    assert ben_match.repeatable_config(tmp_path / "ben") == "config/repeat.conf"
    written = (conf / "repeat.conf").read_bytes().decode()
    assert written == stock.replace("pimc_wait = 3\r", "pimc_wait = 600\r").replace("pimc_max_threads = 2\r",
                                                                                     "pimc_max_threads = 1\r")
    (conf / "local.conf").write_bytes(stock.replace("pimc_max_threads = 2\r\n", "").encode())
    with pytest.raises(SystemExit, match="pimc_max_threads"):
        ben_match.repeatable_config(tmp_path / "ben")


def test_bens_clients_start_below_us_in_their_own_session_too(tmp_path):
    """``ben_match.ben_command``: the client gets its four arguments, the nice value asked for and, where the kernel
    shares the CPU by session (autogroup), the same nice for its session, which is what makes the priority count
    there. A stand-in ``ben-seat`` reports what it got, started as the match starts a robot (a session of its own)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import shlex
    import ben_match

    seat = tmp_path / "ben-seat"
    seat.write_text('#!/bin/sh\necho "$@"\nnice\ncat /proc/self/autogroup 2>/dev/null || echo none\n')
    seat.chmod(0o755)
    argv = shlex.split(ben_match.ben_command(tmp_path, 7).format(host="127.0.0.1", port=2000, seat="N", team="BEN"))
    out = subprocess.run(argv, capture_output=True, text=True, timeout=30, start_new_session=True)
    assert out.returncode == 0, out.stderr
    args, nice, group = out.stdout.splitlines()
    assert args == "127.0.0.1 2000 N BEN" and int(nice) == min(19, os.nice(0) + 7)  # (nice adds to ours)
    assert group == "none" or group.endswith(" nice 7"), group


def test_a_fresh_ben_run_plays_each_board_in_a_match_of_its_own_and_resumes_without_playing_twice(tmp_path):
    """``--fresh-ben``: real boards on loopback, the BEN seats a stand-in (our ``fast`` robot through BEN's launcher
    name) and ours started through ``--a-cmd``. Each board gets its own folder and processes; both rooms land in
    the run's store and its ledger; the same command again plays nothing, and another ``--a-cmd`` is refused."""
    ben = tmp_path / "ben"
    ben.mkdir()
    (ben / "ben-seat").write_text(f"#!/bin/sh\nexec {sys.executable} -m squeeze.robot.cli seat --host $1 --port $2 "
                                  "--seat $3 --team $4 --preset fast\n")
    (ben / "ben-seat").chmod(0o755)
    ours = (f"{sys.executable} -m squeeze.robot.cli seat --host {{host}} --port {{port}} --seat {{seat}} "
            "--team {team} --explanations --preset fast")
    ledger = tmp_path / "ledger.jsonl"
    cmd = [sys.executable, str(ROOT / "bench" / "ben_match.py"), "--ben", str(ben), "--out", str(tmp_path / "out"),
           "--quick", "--fresh-ben", "--a-cmd", ours, "--ledger", str(ledger)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ben_match: 4/4 table boards finished" in r.stdout and "RESULT boards=2" in r.stdout
    assert sorted(p.name for p in (tmp_path / "out" / "boards").iterdir()) == ["001", "002"]
    sys.path.insert(0, str(ROOT / "bench"))
    import ben_match
    def finished():
        store = ResultsStore(tmp_path / "out" / STORE_FILE, create=False)
        try:
            return {(row.board, row.room): (row.finished, row.record.players[Seat.NORTH]) for row in store.results()}
        finally:
            store.close()

    first = finished()
    assert sorted(first) == [(1, "Closed"), (1, "Open"), (2, "Closed"), (2, "Open")]
    assert {who for _, who in first.values()} == {"Squeeze", "BEN"}
    assert ben_match.export_ledger(tmp_path / "out", tmp_path / "again.jsonl") == 4
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "ben_match: 4/4 table boards finished" in again.stdout, again.stderr[-2000:]
    assert finished() == first  # nothing played again, nothing counted twice
    other = subprocess.run(cmd[:-4] + ["--a-cmd", ours.replace("fast", "default"), "--ledger", str(ledger)],
                           capture_output=True, text=True, timeout=120)
    assert other.returncode != 0 and "a_cmd" in other.stderr


def test_the_report_says_where_the_two_rooms_auctions_first_part_and_whose_call_did_more(tmp_path):
    """``auction_divergence``: a board whose rooms part at a call is counted once, by the auction's stage there and
    by our call against the other robot's in the same seat; a board bid alike is not counted; IMPs are ours."""
    from squeeze.robot.analysis import _records, analyse_match, auction_divergence, write_report

    # board 1 (North deals): the same auction in both rooms. Board 2 (East deals): East opens 1S in both rooms;
    # South (Squeeze in the open room, BEN in the closed) passes in the open room and overcalls 2H in the closed.
    _ben_run(tmp_path / "run", {1: "1N P P P", 2: "1S P P P | 1S 2H P P P"})
    analyses, _ = analyse_match(_records(tmp_path / "run"), ("Squeeze", "BEN"))
    rows = auction_divergence(analyses, "Squeeze")
    assert [(r["stage"], r["calls"], r["boards"]) for r in rows] == [("their auction", "we passed, they bid", 1)]
    board2 = next(a for a in analyses if a.board == 2)
    assert rows[0]["bidding_imps"] == board2.bidding  # Squeeze is N-S in the open room: the first team's IMPs
    # seen from BEN's side, the same board is "we bid, they passed", with the opposite IMPs
    theirs = auction_divergence(analyses, "BEN")
    assert [(r["calls"], r["bidding_imps"]) for r in theirs] == [("we bid, they passed", -board2.bidding)]
    write_report(tmp_path / "run", ours="Squeeze")
    assert "| their auction | we passed, they bid | 1 |" in (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
