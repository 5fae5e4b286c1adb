"""The CLI's settings reach the engine (file < environment < flags, presets below the file), its engine flags hold no
defaults of their own, and logs go to stderr, never into a command's stdout."""

import io
import itertools
import json
import os
import random
import re
import subprocess
import sys

import pytest
import structlog
import typer
from typer.testing import CliRunner

from squeeze.engine.cards import Deal
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.sampling import WorldSampler
from squeeze.robot.cli import _ENGINE_FLAGS, app
from squeeze.robot.logs import configure_logging

DEAL = Deal.random(random.Random(5)).to_pbn()


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    """No SQUEEZE_* variable of the developer's, and structlog as it was after each test."""
    for name in [n for n in os.environ if n.startswith("SQUEEZE_")]:
        monkeypatch.delenv(name)
    yield
    structlog.reset_defaults()


@pytest.fixture
def sampled(monkeypatch):
    """The number of worlds the card player asks the sampler for, decision after decision."""
    asked: list[int] = []
    real = WorldSampler.sample

    def sample(self, n, *args, **kwargs):
        asked.append(n)
        return real(self, n, *args, **kwargs)

    monkeypatch.setattr(WorldSampler, "sample", sample)
    return asked


def _play(*flags: str, env: dict[str, str] | None = None) -> str:
    r = CliRunner().invoke(app, ["play", DEAL, "-c", "3NS", "--selector", "pimc", "--no-inference", "--json", *flags],
                           env=env)
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.parametrize("in_file,in_env,on_cli", list(itertools.product((False, True), repeat=3)))
def test_worlds_sampled_follow_the_highest_layer_given(tmp_path, sampled, in_file, in_env, on_cli):
    f = tmp_path / "squeeze.toml"
    f.write_text("[engine]\nworlds = 3\n" if in_file else "")
    env = {"SQUEEZE_ENGINE__WORLDS": "4"} if in_env else {}
    out = _play("--config", str(f), *(["--worlds", "5"] if on_cli else []), env=env)
    assert len(json.loads(out)["cards"]) == 52
    expected = 5 if on_cli else 4 if in_env else 3 if in_file else PlaySettings().worlds
    assert sampled and set(sampled) == {expected}


def test_presets_sit_under_the_file_and_the_flags(tmp_path, sampled):
    _play("--preset", "fast")
    assert set(sampled) == {8}
    sampled.clear()
    f = tmp_path / "squeeze.toml"
    f.write_text("[engine]\nworlds = 6\n")
    _play("--preset", "fast", "--config", str(f))
    assert set(sampled) == {6}
    sampled.clear()
    _play("--preset", "fast", "--config", str(f), "--worlds", "2")
    assert set(sampled) == {2}


def test_engine_flags_default_to_the_settings():
    """No engine flag of any command holds a default: None means "from settings" (one source of defaults)."""
    seen = set()
    for name, command in typer.main.get_command(app).commands.items():
        for param in command.params:
            if param.name in _ENGINE_FLAGS or param.name in ("config", "preset"):
                seen.add(param.name)
                assert param.default is None, f"squeeze {name} {param.opts[0]} has default {param.default!r}"
    assert seen == set(_ENGINE_FLAGS) | {"config", "preset"}


@pytest.mark.parametrize("args,message", [
    (["--worlds", "0"], "engine.worlds = 0: Input should be greater than or equal to 1"),
    (["--selector", "magic"], "engine.declarer_selector = 'magic': Input should be 'pimc' or 'alphamu'"),
    (["--preset", "turbo"], "unknown preset 'turbo'"),
    (["--config", "/nonexistent/s.toml"], "config file not found"),
])
def test_bad_settings_are_clear_errors(args, message):
    r = CliRunner().invoke(app, ["play", DEAL, "-c", "3NS", *args])
    assert r.exit_code == 2 and message in r.stderr and r.stdout == ""


@pytest.mark.parametrize("text,message", [
    # a typo: the key, the value, and the nearest key there is
    (b"[engine]\nwrolds = 40\n", "error: engine.wrolds: no such key; did you mean engine.worlds?"),
    # no near key: every key of the section is listed
    (b"[log]\ncolour = true\n", "error: log.colour: no such key (the keys of [log]: format, level)"),
    (b"[engin]\nworlds = 4\n", "error: engin: no such section; did you mean engine?"),
    # a key renamed since: where it went
    (b"[tm]\nstrict = true\n", "error: tm.strict: no such key; it is now tm.compliance_report"),
    # a value out of range or not among those allowed: the value and what is allowed
    (b"[robot]\nport = 70000\n", "error: robot.port = 70000: Input should be less than or equal to 65535"),
    (b'[log]\nlevel = "loud"\n', "error: log.level = 'loud': Input should be 'debug', 'info', 'warning' or 'error'"),
    # not UTF-8 (a Latin-1 file): one line, not a UnicodeDecodeError
    (b"[engine]\n# caf\xe9\nworlds = 4\n", "is not UTF-8 text (byte 0xe9 on line 2); TOML files are UTF-8"),
])
def test_a_settings_file_error_names_the_key_the_value_and_what_is_allowed(tmp_path, text, message):
    f = tmp_path / "s.toml"
    f.write_bytes(text)
    r = subprocess.run([sys.executable, "-m", "squeeze.robot.cli", "play", DEAL, "-c", "3NS", "--config", str(f)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_an_environment_variable_error_names_its_key(monkeypatch):
    r = CliRunner().invoke(app, ["play", DEAL, "-c", "3NS"], env={"SQUEEZE_ENGINE__WROLDS": "40"})
    assert r.exit_code == 2 and "engine.wrolds: no such key; did you mean engine.worlds?" in r.stderr


_WARNING_RUN = """
import sys
from squeeze.engine.play import relax
from squeeze.engine.sampling import SamplingError, WorldSampler

class Contradicted(WorldSampler):  # the auction's constraints contradict the cards once: the engine warns, goes on
    made = 0
    def __init__(self, *args, **kwargs):
        Contradicted.made += 1
        if Contradicted.made == 1:
            raise SamplingError("no layout fits the auction (test)")
        super().__init__(*args, **kwargs)

relax.WorldSampler = Contradicted
from squeeze.robot.cli import app
app(sys.argv[1:])
"""


@pytest.mark.parametrize("level", ["info", "error"])
def test_engine_warnings_go_to_stderr_as_json(level):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")} | {"SQUEEZE_LOG__LEVEL": level}
    # a whole board by four robots: the auction's constraints are what the engine relaxes, with a warning
    r = subprocess.run([sys.executable, "-c", _WARNING_RUN, "deal", "--board", "1", "--seed", "1", "--play",
                        "--worlds", "3", "--json"], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["play"]) == 52  # stdout: the command's output and nothing else
    events = [json.loads(line) for line in r.stderr.splitlines()]
    if level == "error":
        assert events == []  # [log] level from the settings: a warning is below it
        return
    # every line is one JSON event at the settings' level or above; the board's own decisions may add more (a
    # simulated call that overrides the rules is logged at info), but the relaxation the test forced is among them
    assert all(e["level"] in ("info", "warning") and "timestamp" in e for e in events), events
    forced = [e for e in events if e["event"] == "play.sampling_relaxed" and "(test)" in e["error"]]
    assert len(forced) == 1 and forced[0]["level"] == "warning" and forced[0]["viewer"] in "NESW", events


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream_cls,fmt,as_json", [
    (io.StringIO, "auto", True), (_Terminal, "auto", False), (_Terminal, "json", True), (io.StringIO, "pretty", False),
])
def test_configure_logging_formats(stream_cls, fmt, as_json):
    stream = stream_cls()
    configure_logging("info", fmt, stream=stream)
    structlog.get_logger("t").debug("hidden")
    structlog.get_logger("t").warning("shown", x=1)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and "hidden" not in stream.getvalue()
    if as_json:
        assert json.loads(lines[0])["event"] == "shown"
    else:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", lines[0])  # colours only on a terminal
        assert "shown" in plain and "x=1" in plain and not plain.startswith("{")
        assert (plain != lines[0]) == stream.isatty()
