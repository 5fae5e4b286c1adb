"""Settings: one source for every default, the layers' precedence, presets, and the map to engine parameters."""

import re
import tomllib
from pathlib import Path

import pytest

from squeeze.config.settings import (
    EngineSettings, Settings, SettingsError, available_presets, config_file_default, engine_params, load_settings,
    preset_file,
)
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.player import PlayerParams


@pytest.fixture(autouse=True)
def _no_settings_env(monkeypatch):
    """The developer's own SQUEEZE_* variables must not leak into these tests."""
    import os

    for name in [n for n in os.environ if n.startswith("SQUEEZE_")]:
        monkeypatch.delenv(name)


def test_the_defaults_are_the_engines():
    # nothing set anywhere: the engine gets exactly its own defaults, and the packaged TOML file sets nothing
    assert engine_params(load_settings()) == PlayerParams()
    assert load_settings() == Settings()
    assert tomllib.loads(config_file_default().read_text()) == {s: {} for s in Settings.model_fields}


def _documented() -> dict[str, dict[str, str]]:
    """``{section: {key: value text}}`` of the commented-out ``# key = value`` lines of config/squeeze.toml."""
    out: dict[str, dict[str, str]] = {}
    section = None
    for line in config_file_default().read_text().splitlines():
        if m := re.fullmatch(r"\[(\w+)\]", line):
            section = out.setdefault(m[1], {})
        elif (m := re.fullmatch(r"# (\w+) =(.*)", line)) and section is not None:
            assert m[1] not in section, f"{m[1]} documented twice"
            section[m[1]] = m[2].strip()
    return out


def test_squeeze_toml_documents_every_key_with_its_true_default():
    documented = _documented()
    assert set(documented) == set(Settings.model_fields)
    for name, field in Settings.model_fields.items():
        model = field.annotation
        assert set(documented[name]) == set(model.model_fields), name
        for key, f in model.model_fields.items():
            text = documented[name][key]
            value = None if text == "" else tomllib.loads(f"v = {text}")["v"]
            default = str(f.default) if isinstance(f.default, Path) else f.default
            assert value == default and type(value) is type(default), f"[{name}] {key} = {text!r}, model: {default!r}"


def test_precedence_defaults_preset_file_env_flags(tmp_path, monkeypatch):
    f = tmp_path / "my.toml"
    f.write_text('[engine]\nworlds = 10\nalphamu_depth = 2\n[robot]\nport = 3000\n')
    s = load_settings(f)
    assert (s.engine.worlds, s.engine.alphamu_depth, s.robot.port) == (10, 2, 3000)
    # the preset sits under the file: "fast" sets worlds 8 (the file's 10 wins) and pimc (the file says nothing)
    s = load_settings(f, preset="fast")
    assert (s.engine.worlds, s.engine.declarer_selector, s.engine.alphamu_depth) == (10, "pimc", 2)
    monkeypatch.setenv("SQUEEZE_ENGINE__WORLDS", "20")
    s = load_settings(f, preset="fast")
    assert (s.engine.worlds, s.engine.alphamu_depth, s.engine.declarer_selector) == (20, 2, "pimc")
    s = load_settings(f, preset="fast", engine={"worlds": 30})
    assert (s.engine.worlds, s.engine.alphamu_depth, s.engine.declarer_selector) == (30, 2, "pimc")
    monkeypatch.setenv("SQUEEZE_PRESET", "strong")  # the environment names a preset; an argument overrides it
    assert load_settings().engine.seconds_per_card == 5.0
    assert load_settings(preset="default").engine.seconds_per_card == PlaySettings().declarer_budget_s


def test_config_file_from_the_environment(tmp_path, monkeypatch):
    f = tmp_path / "env.toml"
    f.write_text("[engine]\nworlds = 11\n")
    monkeypatch.setenv("SQUEEZE_CONFIG", str(f))
    assert load_settings().engine.worlds == 11
    monkeypatch.setenv("SQUEEZE_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(FileNotFoundError, match="SQUEEZE_CONFIG"):
        load_settings()


def test_bad_values_and_layers_are_named(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[engine]\nworlds = 0\n')
    with pytest.raises(SettingsError, match=r"engine.worlds = 0: Input should be greater than or equal to 1"):
        load_settings(f)
    f.write_text('[engine]\nwordls = 3\n')
    with pytest.raises(SettingsError, match=r"engine.wordls: no such key; did you mean engine.worlds\?"):
        load_settings(f)
    f.write_text('[engine\nworlds = 3\n')
    with pytest.raises(SettingsError, match="bad.toml"):
        load_settings(f)
    with pytest.raises(FileNotFoundError, match="config file not found"):
        load_settings(tmp_path / "missing.toml")
    with pytest.raises(SettingsError, match="unknown preset 'turbo' .*fast"):
        load_settings(preset="turbo")


# Every [engine] setting, a value other than its default, and where engine_params must put it.
REACHES = {
    "system": ("sayc", "x.toml", lambda p: p.system),
    "opponents_system": (None, "sayc", lambda p: p.opponents_system),
    "declarer_selector": ("pimc", "alphamu", lambda p: p.play.declarer_selector),
    "worlds": (20, 7, lambda p: (p.play.worlds_for(True), p.play.worlds_for(False))),
    "worlds_declarer": (None, 9, lambda p: p.play.worlds_for(True)),
    "worlds_defender": (None, 5, lambda p: p.play.worlds_for(False)),
    "alphamu_depth": (3, 2, lambda p: p.play.max_m),
    "seconds_per_card": (2.0, 0.25, lambda p: p.play.declarer_budget_s),
    "seconds_per_call": (2.0, 0.5, lambda p: p.seconds_per_call),
    "seconds_per_lead": (8.0, 3.0, lambda p: p.seconds_per_lead),
    "inference": (False, True, lambda p: p.play.inference),
    "objective": ("imps", "tricks", lambda p: p.play.objective),
    "solver_memory_mib": (64, 16, lambda p: p.play.solver_tt_mib),
    "solver_core": ("auto", "portable", lambda p: p.play.solver_core),
    "seed": (None, 42, lambda p: p.seed),
    "borel": (True, False, lambda p: p.borel.enabled),
    "borel_worlds": (16, 20, lambda p: p.borel.worlds),
    "borel_scoring": ("imps", "matchpoints", lambda p: p.borel.scoring),
    "borel_margin_imps": (0.3, 1.5, lambda p: p.borel.margin_imps),
    "borel_margin_points": (20.0, 50.0, lambda p: p.borel.margin_points),
    "borel_z": (0.5, 2.0, lambda p: p.borel.z),
    "borel_gap_imps": (5, 8, lambda p: p.borel.gap_imps),
    "borel_double_failing": (2, 0, lambda p: p.borel.double_failing),
    "borel_max_candidates": (4, 3, lambda p: p.borel.max_candidates),
    "borel_threads": (2, 1, lambda p: p.borel.threads),
    "borel_confirm": (True, False, lambda p: p.borel.confirm),
}


def test_every_engine_setting_reaches_the_engine():
    assert set(REACHES) == set(EngineSettings.model_fields)  # a new setting needs a row (and a place in the engine)
    base = engine_params(EngineSettings())
    for name, (default, value, where) in REACHES.items():
        assert EngineSettings.model_fields[name].default == default, name
        got = where(engine_params(EngineSettings(**{name: value})))
        assert got != where(base), name
        assert got == ((value, value) if name == "worlds" else value), name


def test_the_engine_defaults_have_one_source():
    """The [engine] defaults are read from the engine's dataclasses, not copied: change them there (here, in a fresh
    process, before squeeze.config is imported) and the settings follow."""
    import subprocess
    import sys

    code = """
import dataclasses as dc
import squeeze.engine.play.card_player as cp, squeeze.engine.player as pl
cp.PlaySettings = dc.make_dataclass("PlaySettings", [("worlds", int, 33), ("max_m", int, 5), ("inference", bool, True),
    ("declarer_budget_s", float, 7.5), ("solver_tt_mib", int, 32)], bases=(cp.PlaySettings,), frozen=True)
pl.PlayerParams = dc.make_dataclass("PlayerParams", [("system", str, "acol"), ("seconds_per_call", float, 9.0)],
    bases=(pl.PlayerParams,), frozen=True)
from squeeze.config.settings import load_settings
e = load_settings().engine
print(e.worlds, e.alphamu_depth, e.inference, e.seconds_per_card, e.solver_memory_mib, e.system, e.seconds_per_call)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["33", "5", "True", "7.5", "32", "acol", "9.0"]


def test_presets_are_engine_data():
    assert {"fast", "default", "strong"} <= set(available_presets())
    for name in available_presets():
        data = tomllib.loads(preset_file(name).read_text())
        assert set(data) <= {"engine"}, f"preset {name} sets more than [engine]"
        load_settings(preset=name)  # valid
    assert load_settings(preset="default") == load_settings()
    fast = engine_params(load_settings(preset="fast")).play
    strong = engine_params(load_settings(preset="strong")).play
    default = PlaySettings()
    assert fast.declarer_selector == "pimc" and not fast.inference and fast.worlds < default.worlds
    assert fast.declarer_budget_s < default.declarer_budget_s
    assert strong.declarer_selector == "alphamu" and strong.max_m == 3 and strong.worlds > default.worlds
    assert engine_params(load_settings()).borel.enabled  # Borel simulation: on but in the fast preset
    assert engine_params(load_settings(preset="strong")).borel.enabled
    assert not engine_params(load_settings(preset="fast")).borel.enabled
