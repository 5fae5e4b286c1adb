"""`squeeze protocol-lines`: parse a log of protocol lines the way our machines do."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from squeeze.robot.cli import app

runner = CliRunner()


def test_protocol_lines_text_and_exit_code(tmp_path):
    log = tmp_path / "session.log"
    log.write_bytes(b"EAST plays 9s\r\nNORTH (\"NS\") seated\n\nHello table\rSouth bids 1n Alert.\r\n")
    result = runner.invoke(app, ["protocol-lines", str(log)])
    assert result.exit_code == 1
    out = result.output.splitlines()
    assert out[0].split() == ["1:", "CardPlayed", "East", "plays", "9S"]
    assert 'North ("NS") seated' in out[1]
    assert out[2].startswith("4: REJECTED unrecognised line: 'Hello table'")
    assert out[3].endswith("South bids 1NT Alert.")


def test_protocol_lines_json_from_stdin():
    result = runner.invoke(app, ["protocol-lines", "--json"], input="Start of Board\nDummy to lead\n")
    assert result.exit_code == 0
    rows = [json.loads(l) for l in result.output.splitlines()]
    assert [r["type"] for r in rows] == ["StartOfBoard", "ToLead"]
    assert rows[0]["canonical"] == "Start of board"


def test_protocol_lines_missing_file():
    result = runner.invoke(app, ["protocol-lines", "/no/such/file"])
    assert result.exit_code == 2 and "cannot read /no/such/file" in result.output
