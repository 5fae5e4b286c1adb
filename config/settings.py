"""Settings for every Squeeze process, and the one place that turns them into engine parameters.

Layers, lowest precedence first (each layer overrides only the keys it sets, section by section):

1. defaults: the engine's own for ``[engine]`` (``engine.play.card_player.PlaySettings``, ``engine.player.PlayerParams``:
   the fields below take their defaults from those dataclasses, never from literals of their own), the models below
   for the other sections;
2. a preset: ``load_settings(preset=NAME)``, else ``SQUEEZE_PRESET``; the packaged ``config/presets/<NAME>.toml``
   (``available_presets()``: ``fast``, ``default``, ``strong``);
3. the TOML file: ``load_settings(config_file)`` (the CLI's ``--config FILE``), else ``SQUEEZE_CONFIG``, else the
   packaged ``config/squeeze.toml``, which documents every key with its default and sets none;
4. the environment: ``SQUEEZE_<SECTION>__<FIELD>`` (e.g. ``SQUEEZE_ENGINE__WORLDS=64``);
5. overrides, the CLI's flags: ``load_settings(engine={"worlds": 80})``.

The TOML tables are the sections below: ``[engine]``, ``[robot]``, ``[tm]``, ``[match]``, ``[selfplay]``, ``[tournament]``, ``[mqtt]``,
``[log]``.
``engine_params(settings)`` builds the engine's ``PlayerParams`` (its ``PlaySettings`` included) from ``[engine]``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from squeeze.engine.dds_limits import MAX_TT_MIB
from squeeze.engine.play.card_player import PlaySettings
from squeeze.engine.player import PlayerParams
from squeeze.protocol.messages import MAX_LINE_LENGTH

__all__ = [
    "Settings", "EngineSettings", "RobotSettings", "TableManagerSettings", "MatchSettings", "PoolRunSettings",
    "SelfPlaySettings", "TournamentSettings", "TOURNAMENT_SEEDED_BOARDS",
    "MqttSettings", "LogSettings", "SettingsError", "load_settings", "engine_params", "available_presets", "preset_file",
    "config_file_default", "describe_errors",
]

_PLAY = PlaySettings()  # the engine's defaults, read once: the [engine] fields below take theirs from these
_PLAYER = PlayerParams()
_BOREL = _PLAYER.borel


class SettingsError(ValueError):
    """Settings that cannot be used: an unknown preset, a TOML file that does not parse or is not UTF-8, a key that
    does not exist or a value it does not allow (the message names the key, the value and what is allowed)."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EngineSettings(_Section):
    system: str = Field(_PLAYER.system, description="Our bidding system (a file in config/systems/, or a path).")
    opponents_system: Optional[str] = Field(_PLAYER.opponents_system,
                                            description="How we read the opponents' calls (unset: as our system).")
    declarer_selector: Literal["pimc", "alphamu"] = Field(
        _PLAY.declarer_selector, description="The declaring side's card selector (defenders always use PIMC).")
    worlds: int = Field(_PLAY.worlds, ge=1, le=10000, description="Worlds sampled per card decision (both roles).")
    worlds_declarer: Optional[int] = Field(_PLAY.worlds_declarer, ge=1, le=10000,
                                           description="Worlds for the declaring side (unset: worlds).")
    worlds_defender: Optional[int] = Field(_PLAY.worlds_defender, ge=1, le=10000,
                                           description="Worlds for a defender (unset: worlds).")
    alphamu_depth: int = Field(_PLAY.max_m, ge=1, le=13, description="Deepest alpha-mu iteration M (declarer).")
    seconds_per_card: float = Field(_PLAY.declarer_budget_s, ge=0,
                                    description="Time budget per declarer card for alpha-mu beyond M=1.")
    seconds_per_call: float = Field(_PLAYER.seconds_per_call, gt=0, description="Time budget per call.")
    seconds_per_lead: float = Field(_PLAYER.seconds_per_lead, gt=0,
                                    description="Time budget for an opening lead at a table (at most a quarter of "
                                                "the defender's share of the board's time).")
    inference: bool = Field(_PLAY.inference, description="Weight the worlds by the cards seen (else uniform).")
    objective: Literal["make", "tricks", "imps"] = Field(
        _PLAY.objective, description="PIMC's ranking: make/defeat the contract, then tricks; tricks first; or the "
                                     "IMPs each card costs against the best card of each world.")
    solver_memory_mib: int = Field(_PLAY.solver_tt_mib, ge=1, le=MAX_TT_MIB,
                                   description="Transposition-table memory of the card player's solver, MiB.")
    solver_core: Literal["auto", "portable"] = Field(
        _PLAY.solver_core, description="Build of the double-dummy search: auto (x86-64-v3 where the CPU has it) or "
                                       "portable (any x86-64; the same answers).")
    seed: Optional[int] = Field(None, description="Seed of every random choice (unset: a fresh deal each run, "
                                                  "and the engine's own seed for a given deal).")
    borel: bool = Field(_BOREL.enabled, description="Borel simulation at close calls: deal worlds that fit the "
                                                    "auction, finish it with the rules, score double dummy; the "
                                                    "rules' call unless another is clearly better.")
    borel_worlds: int = Field(_BOREL.worlds, ge=1, le=1000, description="Worlds dealt per simulated call.")
    borel_scoring: Literal["imps", "matchpoints"] = Field(
        _BOREL.scoring, description="Simulation's scoring: IMPs against the rules' call (teams) or total points "
                                    "(matchpoints).")
    borel_margin_imps: float = Field(_BOREL.margin_imps, ge=0, description="Teams: the mean gain, less borel_z "
                                                                            "standard errors, must exceed this "
                                                                            "(IMPs a deal) to overrule the rules.")
    borel_margin_points: float = Field(_BOREL.margin_points, ge=0, description="Matchpoints: likewise, in points.")
    borel_z: float = Field(_BOREL.z, ge=0, le=10, description="Standard errors taken off the mean gain.")
    borel_gap_imps: int = Field(_BOREL.gap_imps, ge=1, le=24, description="A world where the deviation beats "
                                                                          "par by this many IMPs is a database "
                                                                          "gap: no gain there.")
    borel_double_failing: int = Field(_BOREL.double_failing, ge=0, le=13, description="An undoubled final "
                                                                                   "contract this many tricks "
                                                                                   "short double dummy is "
                                                                                   "scored doubled (0: never).")
    borel_max_candidates: int = Field(_BOREL.max_candidates, ge=2, le=10, description="Calls weighed at one "
                                                                                      "decision, the rules' "
                                                                                      "call included.")
    borel_threads: int = Field(_BOREL.threads, ge=1, le=64, description="Solver threads for the simulation's "
                                                                        "final contracts.")
    borel_confirm: bool = Field(_BOREL.confirm, description="Bid a call that beat the rules' only if it beats them "
                                                            "again on freshly dealt worlds (the first worlds chose it "
                                                            "among several and overrate it).")


class RobotSettings(_Section):
    """``squeeze seat``: where to connect and how to speak to that table manager (its dialect and quirks)."""

    host: str = Field("127.0.0.1", description="Table manager to connect to.")
    port: int = Field(2000, ge=1, le=65535, description="Table manager's port.")
    seat: Literal["N", "E", "S", "W", "ANY"] = Field("N", description="Our seat; ANY connects as ANYPL.")
    team: str = Field("Squeeze", description="Our team name (sent in the Connecting line).")
    name: str = "Squeeze"
    protocol_version: Literal[18, 19] = Field(18, description="Protocol version announced when connecting.")
    dummy_card_style: Literal["dummy", "seat"] = Field(
        "dummy", description="Ready line for dummy's card: 'dummy's card' (most managers) or dummy's seat name.")
    alerts: bool = Field(True, description="Mark our alerted calls 'Alert.'.")
    explanations: Literal["auto", "on", "off"] = Field(
        "auto", description="The text explaining our calls: auto (canonical protocol 18, ' Alert. text' after an "
                            "alerted bid only, until the manager shows it speaks protocol 19), on (every call's "
                            "explanation, 'Infos.' for unalerted ones), off (none). The logs always carry them.")

    @field_validator("explanations", mode="before")
    @classmethod
    def _explanations_from_bool(cls, value: Any) -> Any:
        # true/false (the flag --explanations/--no-explanations, and TOML files of earlier versions) mean on/off
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value
    pacing_ms: float = Field(0.0, ge=0, le=5000, description="Wait before each line we send, ms (30 cured one "
                                                             "manager's barrier race).")
    connect_timeout_seconds: float = Field(30.0, ge=0, description="Keep retrying the first connection this long.")
    reconnect_seconds: float = Field(2.0, ge=0, description="Longest wait between reconnection attempts, seconds.")
    max_reconnects: int = Field(30, ge=0, description="Dropped connections reopened before giving up.")
    silence_timeout_seconds: float = Field(300.0, gt=0, description="A manager silent this long while we wait "
                                                                    "for it ends the run with an error.")
    board_seconds: float = Field(120.0, gt=0, description="The pair's thinking allowance per board (WCBC: 120).")
    safety_margin_seconds: float = Field(0.25, ge=0, le=10, description="How long past a decision's budget we "
                                                                       "wait before a safe fallback.")


class TableManagerSettings(_Section):
    """``squeeze tm``: where the table manager listens, what it plays, its clocks and the limits that keep a broken
    or hostile client from hurting anyone else."""

    host: str = Field("127.0.0.1", description="Address the table manager listens on (127.0.0.1: this machine only).")
    port: int = Field(2000, ge=0, le=65535, description="Port to listen on (0: any free port, printed at start).")
    boards_file: Optional[Path] = Field(None, description="PBN file of the boards to play (unset: random deals).")
    boards: int = Field(8, ge=1, le=10000, description="Random deals played when no boards file is given.")
    board_range: Optional[str] = Field(None, description="Board numbers to play, first-last (unset: every board of "
                                                         "the file, or 1..boards).")
    seed: int = Field(1, description="Seed of the random deals.")
    rooms: Literal[1, 2] = Field(1, description="1: one table per match; 2: open and closed room, the same boards "
                                                "with the seats swapped.")
    match_file: Optional[Path] = Field(None, description="TOML file naming the matches and their teams (unset: a "
                                                         "match is named by the first team that connects).")
    event: str = Field("", description="Event name written in the results.")
    results_dir: Path = Field(Path("results"), description="Folder of the results store, PBN and LIN files.")
    seconds_per_call: float = Field(60.0, gt=0, description="A seat thinking longer than this over one call meets "
                                                            "its time fate.")
    seconds_per_card: float = Field(60.0, gt=0, description="A seat thinking longer than this over one card meets "
                                                            "its time fate.")
    board_seconds: float = Field(120.0, gt=0, description="Thinking time per side per board (WCBC: 120; 60 in 2016).")
    time_fate: Literal["warn", "force", "void"] = Field(
        "force", description="A seat over a limit: warn (log and record only); force (after grace_seconds, a pass "
                             "or its lowest legal card); void (after grace_seconds, the board is voided and "
                             "replayed once, forced the second time). Every overrun is an incident: the log, the "
                             "PBN, summary.json and the live events.")
    grace_seconds: float = Field(10.0, ge=0, description="Between the overrun and its fate.")
    warn_at_table: bool = Field(False, description="Also tell the seat: an 'Error' line for a clock overrun or a "
                                                   "line the table refused. Off: robots get protocol lines only "
                                                   "(strict ones drop the table on anything else).")
    scoring: Literal["IMP", "MP"] = Field("IMP", description="Match type told to protocol-19 seats on the Teams "
                                                             "line ('. Playing IMP'); protocol-18 seats get none.")
    ready_seconds: float = Field(60.0, gt=0, description="A seat that owes a ready line this long meets its time "
                                                         "fate (force: the table says it for the seat).")
    hold_seconds: float = Field(60.0, ge=0, description="A seat that disconnects is held this long for it to come "
                                                        "back; then the board is voided and replayed on its return.")
    send_timing: bool = Field(True, description="Send the Timing line after each board (one client crashes on it).")
    max_line_bytes: int = Field(MAX_LINE_LENGTH, ge=64, le=MAX_LINE_LENGTH,
                                description="Longest line accepted; a longer one closes the connection.")
    lines_per_second: float = Field(1000.0, gt=0, description="A connection sending more (over one second) is cut "
                                                             "off as a flood.")
    connections_per_address: int = Field(32, ge=1, description="Open connections allowed from one address.")
    idle_seconds: float = Field(30.0, gt=0, description="A connection that says nothing this long after opening "
                                                        "is closed.")
    max_matches: int = Field(64, ge=1, description="Matches that connecting teams may open (no match file).")
    compliance_report: bool = Field(False, description="Write a compliance report per connection "
                                                       "(DIR/compliance/): every line that is not canonical "
                                                       "protocol 18.")
    end_pause_seconds: float = Field(0.5, ge=0, description="Pause after End of session before closing a socket.")


class MatchSettings(_Section):
    """``squeeze match``: a two-room team match between two robot configurations, on our table manager."""

    boards: int = Field(16, ge=1, le=10000, description="Boards in the match (each played in both rooms).")
    a: str = Field("fast", description="Team A's configuration: a preset name or a TOML settings file.")
    b: str = Field("default", description="Team B's configuration: a preset name or a TOML settings file.")
    seed: int = Field(1, description="Seed of the random deals.")
    out: Path = Field(Path("match-out"), description="Folder of the results store, boards.pbn, LIN and summary.json.")
    max_restarts: int = Field(3, ge=0, description="Times a robot process that dies is started again.")
    stall_seconds: float = Field(600.0, gt=0, description="A match with no board finished for this long is "
                                                          "stopped (what is finished is kept).")


class PoolRunSettings(_Section):
    """What self-play and tournaments share: seeded robots, a pool of workers, a hard limit per decision, the
    SPRT."""

    seed: int = Field(1, description="Seed of the deals and of every robot's random choices.")
    workers: Optional[int] = Field(None, ge=1, le=4096, description="Engines playing at once (unset: one per core "
                                                                    "for the local pool, every worker thread of a "
                                                                    "Dask cluster).")
    executor: str = Field("process", pattern=r"^(process|dask-local|dask://[^\s:/]+:\d{1,5})$",
                          description="process (a local process pool), dask-local (a Dask LocalCluster on this "
                                      "machine) or dask://HOST:PORT (a running Dask scheduler).")
    chunk_boards: int = Field(4, ge=1, le=10000, description="Boards per task sent to a worker.")
    decision_seconds: float = Field(60.0, gt=0, description="Hard limit per call or card: a decision cut short by it "
                                                            "voids the board (it would not replay the same).")
    strict: bool = Field(False, description="Stop at the first robot error instead of voiding its board.")
    sprt: Optional[str] = Field(None, pattern=r"^\s*-?\d+(\.\d*)?\s*,\s*-?\d+(\.\d*)?\s*$",
                                description="Stop once a sequential test decides between A gaining M0 and M1 "
                                            "IMPs per board: \"M0,M1\", e.g. \"0,0.5\" (unset: play every board).")
    alpha: float = Field(0.05, gt=0, lt=0.5, description="SPRT: chance of deciding M1 when M0 is true.")
    beta: float = Field(0.05, gt=0, lt=0.5, description="SPRT: chance of deciding M0 when M1 is true.")
    sprt_min_boards: int = Field(30, ge=2, description="SPRT: no verdict before this many boards (the spread of "
                                                       "the first few is a poor estimate).")


class SelfPlaySettings(PoolRunSettings):
    """``squeeze selfplay``: two configurations, A and B, play the same boards in two rooms (A sits N/S in the open
    room and E/W in the closed room), in-process, on a pool of workers; results in a resumable store under ``out``."""

    a: str = Field("default", description="Team A: a preset name (fast, default, strong) or a TOML settings file.")
    b: str = Field("fast", description="Team B: a preset name or a TOML settings file.")
    boards: int = Field(100, ge=1, le=1_000_000, description="Boards 1..N, each dealt from the seed and its number.")
    out: Path = Field(Path("selfplay-out"), description="Folder of the results store, boards.pbn, summary.json and "
                                                        "imps.png; a run there is resumed by the same command.")


#: Boards per pairing of a tournament of seeded deals when ``[tournament] boards`` is unset.
TOURNAMENT_SEEDED_BOARDS = 100


class TournamentSettings(PoolRunSettings):
    """``squeeze tournament``: N entrants, every pairing of a round robin (or of the first entrant against each
    other, a gauntlet) playing the same boards in two rooms; standings with intervals; resumable under ``out``.
    ``sprt`` stops a gauntlet's pairing once decided (A: the first entrant)."""

    entrants: list[str] = Field([], description="Each \"NAME=SPEC\" (or a bare SPEC, named after it): SPEC is a "
                                                "preset, a TOML settings file, or cmd:COMMAND (an external robot, "
                                                "launched per seat: \"prog {host} {port} {seat}\").")
    format: Literal["round-robin", "gauntlet"] = Field(
        "round-robin", description="round-robin: every entrant against every other; gauntlet: the first entrant "
                                   "against each of the others.")
    boards: Optional[int] = Field(None, ge=1, le=1_000_000, description="Boards per pairing: 1..N dealt from the "
                                                                        "seed, or the first N of boards_file "
                                                                        "(unset: 100 dealt, or the whole file).")
    boards_file: Optional[Path] = Field(None, description="PBN file of the boards (deal, and dealer and "
                                                          "vulnerability where given; unset: seeded deals).")
    out: Path = Field(Path("tournament-out"), description="Folder of the results store, standings.json, "
                                                          "standings.png, boards.pbn and summary.json; a run there "
                                                          "is resumed by the same command.")


class MqttSettings(_Section):
    """Live events (``robot.events``): where ``squeeze tm`` publishes them and ``squeeze watch`` reads them."""

    enabled: bool = Field(False, description="Publish live events (the CLI's --mqtt turns this on).")
    embedded: bool = Field(False, description="Start an MQTT broker (amqtt) inside the process, listening on host "
                                              "and port (the CLI's --mqtt embedded).")
    host: str = Field("127.0.0.1", description="The broker's host (embedded: the address it listens on).")
    port: int = Field(1883, ge=0, le=65535, description="The broker's port (0, embedded only: any free port, "
                                                        "printed at start).")
    topic_prefix: str = Field("squeeze", description="First topic level: <prefix>/<event>/<table>/<kind>.")
    queue_size: int = Field(10000, ge=1, le=1_000_000, description="Events held while the broker is slow or "
                                                                   "gone; past that they are dropped, counted and "
                                                                   "logged.")
    reconnect_seconds: float = Field(2.0, gt=0, le=300, description="Longest wait between attempts to reach the "
                                                                    "broker again.")
    timeout_seconds: float = Field(5.0, gt=0, le=300, description="Longest wait for the broker to accept a "
                                                                  "connection or acknowledge a result.")
    deal_delay_seconds: Optional[float] = Field(
        None, ge=0, description="Unset: a board's hands are published when the board ends. A number: that many "
                                "seconds after it starts, or at its end if sooner (a delayed vugraph: only safe "
                                "when longer than any board lasts).")

    @model_validator(mode="after")
    def _topic_prefix_is_a_topic(self) -> "MqttSettings":
        # (port 0 is refused where a broker is dialled, not here: a layer may set it before --mqtt embedded)
        if not self.topic_prefix or any(ch in self.topic_prefix for ch in "+#\0"):
            raise ValueError(f"topic_prefix must be a topic without wildcards, got {self.topic_prefix!r}")
        return self


class LogSettings(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["auto", "json", "pretty"] = Field(
        "auto", description="auto: pretty on a terminal, JSON lines otherwise (logs always go to stderr).")


class Settings(BaseSettings):
    """All sections. ``Settings()`` alone reads defaults, the environment and its arguments; ``load_settings``
    adds the preset and TOML file layers (see the module doc)."""

    model_config = SettingsConfigDict(env_prefix="SQUEEZE_", env_nested_delimiter="__", extra="forbid", frozen=True)

    engine: EngineSettings = EngineSettings()
    robot: RobotSettings = RobotSettings()
    tm: TableManagerSettings = TableManagerSettings()
    match: MatchSettings = MatchSettings()
    selfplay: SelfPlaySettings = SelfPlaySettings()
    tournament: TournamentSettings = TournamentSettings()
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
        return (init_settings, env_settings)


def config_file_default() -> Traversable:
    """The packaged ``config/squeeze.toml``: every key with its default, commented out."""
    return resources.files("squeeze.config").joinpath("squeeze.toml")


def preset_file(name: str) -> Traversable:
    """The packaged preset ``name`` (``config/presets/<name>.toml``), read through ``importlib.resources``."""
    return resources.files("squeeze.config").joinpath("presets", f"{name}.toml")


def available_presets() -> list[str]:
    """The names of the packaged presets."""
    folder = resources.files("squeeze.config").joinpath("presets")
    return sorted(f.name.removesuffix(".toml") for f in folder.iterdir() if f.name.endswith(".toml"))


def _read_toml(source: Traversable | Path, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(source.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{what} {source}: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        line = source.read_bytes()[:exc.start].count(b"\n") + 1
        raise SettingsError(f"{what} {source} is not UTF-8 text (byte {exc.object[exc.start]:#04x} on line "
                            f"{line}); TOML files are UTF-8") from None


#: Keys renamed since an earlier version: the error for the old name gives the new one.
_RENAMED = {"tm.strict": "tm.compliance_report"}


def _value_text(value: Any) -> str:
    text = repr(value) if not isinstance(value, (bool, dict)) else (str(value).lower() if isinstance(value, bool)
                                                                    else "a table")
    return text if len(text) <= 60 else text[:57] + "..."


def _model_at(model: type[BaseModel], loc: tuple) -> Optional[type[BaseModel]]:
    """The settings model reached by ``loc`` from ``model`` (a section's model for ``("engine",)``), if any."""
    for name in loc:
        field = model.model_fields.get(str(name))
        if field is None or not (isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)):
            return None
        model = field.annotation
    return model


def describe_errors(exc: ValidationError, model: type[BaseModel], prefix: str = "") -> str:
    """A validation error of ``model`` as a user reads it: for each problem the key (``engine.worlds``), the value
    given and what is allowed; an unknown key gets the nearest known one (``engine.wrolds``: did you mean
    ``engine.worlds``?). ``prefix`` names where ``model`` sits (``"mqtt"`` for a ``MqttSettings``)."""
    problems = []
    for e in exc.errors():
        loc = tuple(str(x) for x in e["loc"])
        key = ".".join(x for x in (prefix, *loc) if x)
        if e["type"] == "extra_forbidden":
            parent = _model_at(model, loc[:-1])
            known = sorted(parent.model_fields) if parent is not None else []
            is_section = parent is model and not prefix and len(loc) == 1
            text = f"{key}: no such {'section' if is_section else 'key'}"
            renamed = _RENAMED.get(key)
            near = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
            if renamed:
                text += f"; it is now {renamed}"
            else:
                if near:
                    text += f"; did you mean {'.'.join(x for x in (prefix, *loc[:-1], near[0]) if x)}? (every key, " \
                            "with its default: config/squeeze.toml)"
                if known and not near:
                    where = "sections" if is_section else f"keys of [{'.'.join(x for x in (prefix, *loc[:-1]) if x)}]"
                    text += f" (the {where}: {', '.join(known)})"
            problems.append(text)
            continue
        msg = e["msg"].removeprefix("Value error, ")
        if "input" in e and not (isinstance(e["input"], dict) and e["type"] not in ("model_type", "dict_type")):
            problems.append(f"{key or 'settings'} = {_value_text(e['input'])}: {msg}")
        else:
            problems.append(f"{key or 'settings'}: {msg}")
    return "; ".join(problems)


def load_settings(config_file: Path | str | None = None, preset: str | None = None, **overrides: Any) -> Settings:
    """Settings from every layer of the module doc: defaults < ``preset`` < ``config_file`` < environment <
    ``overrides`` (nested dicts by section, e.g. ``engine={"worlds": 80}``; give only what a flag really set).

    Raises ``FileNotFoundError`` for a missing config file, ``SettingsError`` for an unknown preset, a file that is
    not TOML, or a bad or unknown key (``describe_errors``: the key, the value and what is allowed).
    """
    source = "argument"
    if config_file is None and os.environ.get("SQUEEZE_CONFIG"):
        config_file, source = os.environ["SQUEEZE_CONFIG"], "SQUEEZE_CONFIG"
    toml_file = Path(config_file) if config_file is not None else config_file_default()
    if not toml_file.is_file():
        raise FileNotFoundError(f"config file not found ({source}): {toml_file}")
    file_layer = _read_toml(toml_file, "config file")
    preset = preset if preset is not None else os.environ.get("SQUEEZE_PRESET") or None
    preset_layer: dict[str, Any] = {}
    if preset is not None:
        if preset not in available_presets():
            raise SettingsError(f"unknown preset {preset!r} (known: {', '.join(available_presets())})")
        preset_layer = _read_toml(preset_file(preset), "preset")

    class _Layered(Settings):
        @classmethod
        def settings_customise_sources(cls, settings_cls, init_settings, env_settings, **_):
            return (init_settings, env_settings, InitSettingsSource(settings_cls, file_layer),
                    InitSettingsSource(settings_cls, preset_layer))

    # Only what a layer set is passed on, so each section's ``model_fields_set`` says which keys were set (a command
    # that cannot honour a key refuses it instead of ignoring it: ``squeeze match`` and ``[tm] rooms``).
    try:
        return Settings.model_validate(_Layered(**overrides).model_dump(exclude_unset=True))
    except ValidationError as exc:
        raise SettingsError(describe_errors(exc, Settings)) from None


def engine_params(settings: Settings | EngineSettings) -> PlayerParams:
    """The engine's parameters for ``settings`` (its ``[engine]`` section): a ``Player``'s ``PlayerParams``, whose
    ``play`` is the ``CardPlayer``'s ``PlaySettings``. Unset values keep the engine's defaults."""
    e = settings.engine if isinstance(settings, Settings) else settings
    play = PlaySettings(declarer_selector=e.declarer_selector, worlds=e.worlds, worlds_declarer=e.worlds_declarer,
                        worlds_defender=e.worlds_defender, max_m=e.alphamu_depth,
                        declarer_budget_s=e.seconds_per_card, objective=e.objective, inference=e.inference,
                        solver_tt_mib=e.solver_memory_mib, solver_core=e.solver_core)
    seed = {} if e.seed is None else {"seed": e.seed}
    borel = dataclasses.replace(_BOREL, enabled=e.borel, worlds=e.borel_worlds,
                                min_worlds=min(_BOREL.min_worlds, e.borel_worlds), scoring=e.borel_scoring,
                                margin_imps=e.borel_margin_imps, margin_points=e.borel_margin_points, z=e.borel_z,
                                gap_imps=e.borel_gap_imps, double_failing=e.borel_double_failing,
                                max_candidates=e.borel_max_candidates,
                                threads=e.borel_threads, confirm=e.borel_confirm)
    return PlayerParams(system=e.system, opponents_system=e.opponents_system, play=play,
                        seconds_per_call=e.seconds_per_call, seconds_per_lead=e.seconds_per_lead, borel=borel,
                        **seed)
