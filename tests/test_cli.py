"""The `squeeze` command line: foundation commands, their JSON contracts and their errors (run as a real process)."""

import json
import subprocess
import sys

import pytest

from engine.cards import Deal, Seat

SQUEEZE = [sys.executable, "-m", "robot.cli"]


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
    from engine.auction import Auction

    r = run("deal", "--board", "2", "--seed", "11", "--bid", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    auction = Auction.parse(" ".join(c["call"] for c in out["auction"]), out["dealer"])
    assert auction.is_complete
    assert [c["seat"] for c in out["auction"]] == [auction.seat_of(i).letter for i in range(len(auction))]
    assert all(c["explanation"] for c in out["auction"])
    assert out["contract"] == (None if auction.contract is None else str(auction.contract))
