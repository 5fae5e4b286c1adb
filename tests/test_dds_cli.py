"""`squeeze solve`: the DD table (text and --json per ARCHITECTURE.md) and opening-lead scores."""

import json

from typer.testing import CliRunner

from squeeze.robot.cli import app

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
runner = CliRunner()


def test_solve_json_table():
    r = runner.invoke(app, ["solve", "--json", DEAL])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["deal"] == DEAL
    # verified with DDS: North makes 7 in spades and diamonds, 5 elsewhere; East the mirror image
    assert data["tricks"]["S"] == {"N": 7, "E": 5, "S": 7, "W": 5}
    assert data["tricks"]["NT"] == {"N": 5, "E": 5, "S": 5, "W": 5}
    assert data["tricks"]["C"]["E"] == 7


def test_solve_text_and_leads():
    r = runner.invoke(app, ["solve", DEAL])
    assert r.exit_code == 0 and "NT   S   H   D   C" in r.output
    r = runner.invoke(app, ["solve", DEAL, "--leader", "W", "--trump", "H", "--json"])
    assert r.exit_code == 0, r.output
    scores = json.loads(r.output)["scores"]
    assert len(scores) == 13 and scores["HA"] == 8


def test_solve_bad_input():
    r = runner.invoke(app, ["solve", DEAL[:-1]])
    assert r.exit_code == 2 and "12 cards" in r.output
    r = runner.invoke(app, ["solve", DEAL, "--leader", "W"])
    assert r.exit_code == 2 and "go together" in r.output
    r = runner.invoke(app, ["solve", DEAL, "--leader", "X", "--trump", "H"])
    assert r.exit_code == 2 and "not a seat" in r.output
