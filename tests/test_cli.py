"""The `squeeze` command line: foundation commands, their JSON contracts and their errors (run as a real process)."""

import json
import subprocess
import sys

import pytest

from squeeze.engine.cards import Deal

SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]


def run(*args):
    return subprocess.run(SQUEEZE + list(args), capture_output=True, text=True, timeout=60)


def test_deal_is_seeded_and_follows_the_board_cycle():
    a, b = run("deal", "--board", "7", "--seed", "3", "--json"), run("deal", "--board", "7", "--seed", "3", "--json")
    assert a.returncode == 0 and a.stdout == b.stdout
    out = json.loads(a.stdout)
    assert out["dealer"] == "S" and out["vul"] == "All" and out["deal"].startswith("S:")
    assert Deal.parse(out["deal"]).is_complete
    text = run("deal", "--board", "7", "--seed", "3").stdout
    assert "Dealer South" in text and out["deal"] in text


@pytest.mark.parametrize("args,expected", [
    (["4HX", "S", "10", "--vul", "Both", "--json"], 790),
    (["3N", "N", "9", "--json"], 400),
    (["3NS", "8", "--json"], -50),
    (["6SXX", "E", "12", "--vul", "EW", "--json"], 2070),
    (["7N", "W", "0", "--vul", "NS", "--json"], -650),
])
def test_score_json(args, expected):
    r = run("score", *args)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"score": expected}


@pytest.mark.parametrize("args,message", [
    (["9N", "S", "9"], "not a contract: '9N'"),
    (["3N", "Q", "9"], "not a seat: 'Q'"),
    (["3N", "S", "14"], "tricks must be 0..13, got 14"),
    (["3N", "S", "9", "--vul", "Sometimes"], "not a vulnerability"),
    (["3N", "9"], "not a seat: '9'"),
])
def test_score_errors_are_clear(args, message):
    r = run("score", *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_deal_bid_runs_a_legal_explained_auction():
    from squeeze.engine.auction import Auction

    r = run("deal", "--board", "2", "--seed", "11", "--bid", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    auction = Auction.parse(" ".join(c["call"] for c in out["auction"]), out["dealer"])
    assert auction.is_complete
    assert [c["seat"] for c in out["auction"]] == [auction.seat_of(i).letter for i in range(len(auction))]
    assert all(c["explanation"] for c in out["auction"])
    assert out["contract"] == (None if auction.contract is None else str(auction.contract))


def test_deal_play_bids_plays_and_scores_a_whole_board(tmp_path):
    from squeeze.engine.auction import Auction
    from squeeze.engine.board import Play
    from squeeze.engine.cards import Card, vul_for_board
    from squeeze.engine.pbn import read_pbn
    from squeeze.engine.scoring import score

    out_pbn = tmp_path / "board.pbn"
    r = run("deal", "--board", "3", "--seed", "4", "--play", "--worlds", "4", "--budget", "0.2", "--json",
            "--pbn", str(out_pbn))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    auction = Auction.parse(" ".join(c["call"] for c in out["auction"]), out["dealer"])
    contract = auction.contract
    assert contract is not None and out["contract"] == str(contract)
    # 52 legal cards, each from the seat whose turn it was and each with a reason
    play = Play(Deal.parse(out["deal"]), contract)
    for entry in out["play"]:
        assert entry["seat"] == play.next_seat.letter and entry["reason"]
        play = play.then(Card.parse(entry["card"]))
    assert play.is_complete and out["tricks"] == play.declarer_tricks
    points = score(contract, play.declarer_tricks, vul_for_board(3).is_vulnerable(contract.declarer))
    assert out["score_ns"] == (points if contract.declarer.is_ns else -points)
    # the PBN file holds the same board: it reads back without errors, with the auction and the play
    games = read_pbn(out_pbn.read_bytes(), strict=True).games
    assert len(games) == 1
    rec = games[0].record
    assert rec.auction == auction and rec.play == play.cards and rec.result == play.declarer_tricks
    assert rec.score_ns() == out["score_ns"]


def test_deal_pbn_notes_the_alerted_calls_with_their_explanations(tmp_path):
    from squeeze.engine.pbn import read_pbn

    out_pbn = tmp_path / "board.pbn"
    r = run("deal", "--board", "2", "--seed", "8", "--bid", "--json", "--pbn", str(out_pbn))
    assert r.returncode == 0, r.stderr
    alerted = {i: c["explanation"] for i, c in enumerate(json.loads(r.stdout)["auction"]) if c["alert"]}
    assert alerted  # (this board has a Michaels cue bid)
    (game,) = read_pbn(out_pbn.read_bytes(), strict=True).games
    assert {i: a.note for i, a in game.call_annotations.items()} == alerted


def test_deal_play_of_a_passed_out_board_scores_zero():
    r = run("deal", "--board", "1", "--seed", "6", "--play")
    assert r.returncode == 0, r.stderr
    assert "Contract: passed out" in r.stdout and "Score: 0 (passed out)" in r.stdout
    out = json.loads(run("deal", "--board", "1", "--seed", "6", "--play", "--json").stdout)
    assert out["contract"] is None and out["play"] == [] and out["tricks"] is None and out["score_ns"] == 0


@pytest.mark.parametrize("where", ["missing/x.pbn", "."])
def test_deal_pbn_to_an_unwritable_path_fails_before_playing(tmp_path, where):
    # refused up front: no board is played (and no time spent) for a result that could not be saved
    r = run("deal", "--board", "1", "--seed", "1", "--play", "--pbn", str(tmp_path / where))
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_solve_prints_par_beside_the_table():
    from squeeze.engine.cards import Vul
    from squeeze.engine.dds import solve_table
    from squeeze.engine.scoring import par

    deal = "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763"
    table = solve_table(Deal.parse(deal))
    for vul in ("None", "All"):
        score, contract = par(table, Vul.parse(vul))
        out = json.loads(run("solve", "--json", "--vul", vul, deal).stdout)
        assert out["par"] == {"vul": vul, "score_ns": score, "contract": str(contract)}
        text = run("solve", "--vul", vul, deal).stdout
        assert f"Par, vulnerable {vul}: {contract.text}, {score:+d} for NS" in text
    assert "4H by N, +420 for NS" in run("solve", deal).stdout  # (10 tricks in hearts for North, not vulnerable)


def test_contracts_and_vulnerability_read_one_way():
    # the same contract, printed by score, deal and play: "4HX by S"; vulnerability as PBN writes it
    r = run("score", "4HX", "S", "10", "--vul", "Both")
    assert r.stdout.strip() == "4HX by S: 10 tricks (=), vulnerable All: +790 for NS"
    r = run("play", "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763", "-c", "4HN",
            "--preset", "fast")
    assert r.returncode == 0 and "4H by N: " in r.stdout.splitlines()[-1]
