"""Settings for every Squeeze process, from (highest precedence first): CLI flags, environment, TOML file, defaults.

Environment variables are ``SQUEEZE_<SECTION>__<FIELD>`` (e.g. ``SQUEEZE_ENGINE__WORLDS=64``). The TOML file is the
embedded ``config/squeeze.toml`` unless ``--config FILE`` or ``SQUEEZE_CONFIG=FILE`` names another; its tables are the
sections below (``[engine]``, ``[robot]``, ``[tm]``, ``[selfplay]``, ``[mqtt]``, ``[log]``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

DEFAULT_TOML = Path(__file__).with_name("squeeze.toml")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EngineSettings(_Section):
    solver_memory_mib: int = Field(256, ge=8, le=65536, description="Transposition-table budget per solver.")
    worlds: int = Field(40, ge=1, le=10000, description="Worlds sampled per card-play decision.")
    play_selector: Literal["pimc", "alphamu"] = "alphamu"
    alphamu_depth: int = Field(3, ge=1, le=13, description="alpha-mu search depth M (declarer moves).")
    seconds_per_card: float = Field(2.0, gt=0, description="Time budget per card decision.")
    seconds_per_call: float = Field(2.0, gt=0, description="Time budget per call decision.")
    system: str = Field("sayc", description="Our bidding system (a file in config/systems/).")
    opponents_system: Optional[str] = Field(None, description="How we read the opponents' calls (None = ours).")
    seed: Optional[int] = Field(None, description="Seed for every random choice (None = fresh each run).")


class RobotSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(2000, ge=1, le=65535)
    seat: Literal["N", "E", "S", "W"] = "N"
    team: str = "Squeeze"
    name: str = "Squeeze"
    reconnect_seconds: float = Field(2.0, ge=0)
    max_reconnects: int = Field(30, ge=0)


class TableManagerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(2000, ge=1, le=65535)
    boards: int = Field(8, ge=1)
    first_board: int = Field(1, ge=1)
    results_dir: Path = Path("results")
    seconds_per_call: float = Field(60.0, gt=0, description="A seat silent longer than this forfeits the call.")
    seconds_per_card: float = Field(60.0, gt=0)


class SelfPlaySettings(_Section):
    boards: int = Field(16, ge=1)
    workers: int = Field(2, ge=1)
    seed: int = 1
    out: Path = Path("selfplay-out")
    executor: Literal["process", "dask"] = "process"


class MqttSettings(_Section):
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    topic_prefix: str = "squeeze"


class LogSettings(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "json", "pretty"] = "auto"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SQUEEZE_", env_nested_delimiter="__", extra="forbid", frozen=True, toml_file=DEFAULT_TOML
    )

    engine: EngineSettings = EngineSettings()
    robot: RobotSettings = RobotSettings()
    tm: TableManagerSettings = TableManagerSettings()
    selfplay: SelfPlaySettings = SelfPlaySettings()
    mqtt: MqttSettings = MqttSettings()
    log: LogSettings = LogSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Settings from ``config_file`` (or the default TOML), the environment, then ``overrides`` (CLI flags).

    ``overrides`` are nested dicts by section: ``load_settings(engine={"worlds": 80})``. A missing or invalid file
    raises ``FileNotFoundError`` / ``pydantic.ValidationError`` naming the bad field.
    """
    source = "argument"
    if config_file is None and os.environ.get("SQUEEZE_CONFIG"):
        config_file, source = os.environ["SQUEEZE_CONFIG"], "SQUEEZE_CONFIG"
    toml_file = Path(config_file) if config_file is not None else DEFAULT_TOML
    if not toml_file.is_file():
        raise FileNotFoundError(f"config file not found ({source}): {toml_file}")

    class _FromFile(Settings):  # the TOML source reads the file named in the class's model_config
        model_config = SettingsConfigDict(**{**Settings.model_config, "toml_file": toml_file})

    return _FromFile(**overrides)
