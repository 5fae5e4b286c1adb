"""Settings precedence: CLI overrides > environment > TOML file > defaults; bad values are named."""

import pytest
from pydantic import ValidationError

from squeeze.config.settings import load_settings


def test_defaults_come_from_embedded_toml():
    s = load_settings()
    assert s.engine.worlds == 40 and s.robot.port == 2000 and s.mqtt.enabled is False


def test_precedence(tmp_path, monkeypatch):
    f = tmp_path / "my.toml"
    f.write_text('[engine]\nworlds = 10\nalphamu_depth = 2\n[robot]\nport = 3000\n')
    s = load_settings(f)
    assert (s.engine.worlds, s.engine.alphamu_depth, s.robot.port) == (10, 2, 3000)
    monkeypatch.setenv("SQUEEZE_ENGINE__WORLDS", "20")
    s = load_settings(f)
    assert (s.engine.worlds, s.engine.alphamu_depth) == (20, 2)
    s = load_settings(f, engine={"worlds": 30})
    assert s.engine.worlds == 30


def test_bad_values_are_named(tmp_path, monkeypatch):
    f = tmp_path / "bad.toml"
    f.write_text('[engine]\nworlds = 0\n')
    with pytest.raises(ValidationError, match="worlds"):
        load_settings(f)
    f.write_text('[engine]\nwordls = 3\n')
    with pytest.raises(ValidationError, match="wordls"):
        load_settings(f)
    with pytest.raises(FileNotFoundError, match="config file not found"):
        load_settings(tmp_path / "missing.toml")
