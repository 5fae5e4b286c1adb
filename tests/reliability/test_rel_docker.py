"""``docker/Dockerfile`` and ``docker/compose.yaml`` stay true without a Docker engine: every ``squeeze`` command and
flag they run exists in the CLI (typer's click tree), every ``SQUEEZE_*`` variable is a settings field, and the
image builds and installs the wheel with the README's pip commands. (No ``--mqtt`` flag is used: mosquitto is
wired, and only ``SQUEEZE_MQTT__HOST``, an existing ``[mqtt]`` field, points at it.)"""

import re
import shlex
from pathlib import Path

import pytest
import typer.main
import yaml

from squeeze.config.settings import Settings
from squeeze.robot.cli import app

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
CLI = typer.main.get_command(app)  # the click group behind the typer app
#: Variables read outside the sections (settings.load_settings).
TOP_LEVEL_VARS = {"SQUEEZE_PRESET", "SQUEEZE_CONFIG"}


def dockerfile_instructions() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", "\n".join(l for l in DOCKERFILE.splitlines() if not l.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in text.splitlines() if line.strip()]


def check_command(argv: list[str]) -> None:
    """``argv`` (after ``squeeze``) names a command and only its options; ``${VAR...}`` values are placeholders."""
    name, *rest = argv
    if name == "--help":
        return
    assert name in CLI.commands, f"squeeze has no command {name!r}"
    options = {opt for p in CLI.commands[name].params for opt in (*p.opts, *p.secondary_opts)}
    for token in rest:
        if token.startswith("--"):
            assert token.split("=", 1)[0] in options, f"squeeze {name} has no option {token}"


def check_env(name: str) -> None:
    if name in TOP_LEVEL_VARS:
        return
    mt = re.fullmatch(r"SQUEEZE_([A-Z]+)__([A-Z_]+)", name)
    assert mt, f"{name} is not SQUEEZE_<SECTION>__<FIELD>"
    section, field = mt[1].lower(), mt[2].lower()
    assert section in Settings.model_fields, f"{name}: no settings section [{section}]"
    assert field in Settings.model_fields[section].annotation.model_fields, f"{name}: no field {field} in [{section}]"


def squeeze_services() -> dict[str, dict]:
    return {n: s for n, s in COMPOSE["services"].items() if s.get("image", "").startswith("squeeze")}


def test_every_compose_command_flag_and_variable_exists():
    services = squeeze_services()
    assert {"tm", "robot-remote"} <= set(services) and sum(s["command"][0] == "seat" for s in services.values()) == 9
    for name, service in services.items():
        check_command(service["command"])
        for var in service.get("environment", {}):
            check_env(var)


def test_the_match_is_eight_robots_in_two_rooms_at_our_table_manager():
    tm = COMPOSE["services"]["tm"]["command"]
    assert tm[tm.index("--rooms") + 1] == "2" and tm[tm.index("--out") + 1] == "/results"
    assert "results:/results" in COMPOSE["services"]["tm"]["volumes"]
    match_file = (ROOT / "docker" / "match.toml").read_text()
    teams = re.search(r"teams = \[(.*)\]", match_file)[1].replace('"', "").split(", ")
    robots = [s["command"] for n, s in squeeze_services().items() if n not in ("tm", "robot-remote")]
    seats = sorted((c[c.index("--team") + 1], c[c.index("--seat") + 1]) for c in robots)
    assert seats == sorted((t, s) for t in teams for s in "NESW")  # each team's N and S in one room, E and W in the other
    assert all(s["environment"]["SQUEEZE_ROBOT__HOST"] == "tm" for n, s in squeeze_services().items()
               if n not in ("tm", "robot-remote"))
    assert COMPOSE["services"]["robot-remote"]["profiles"] == ["remote"]
    assert "${TM_HOST" in " ".join(COMPOSE["services"]["robot-remote"]["command"])
    assert "mosquitto" in COMPOSE["services"]


def test_the_image_entrypoint_healthcheck_and_user():
    instructions = dockerfile_instructions()
    kinds = [k for k, _ in instructions]
    assert kinds.count("FROM") == 2 and "HEALTHCHECK" in kinds
    args = dict(instructions[::-1])  # (the last of each kind)
    assert args["USER"] == "squeeze" and args["ENTRYPOINT"] == '["squeeze"]'
    health = args["HEALTHCHECK"]
    argv = yaml.safe_load(health[health.index("CMD") + 3:].strip())
    assert argv[0] == "squeeze"
    check_command(argv[1:])
    for _kind, value in instructions:
        for var in re.findall(r"\b(SQUEEZE_[A-Z_]+)=", value):
            check_env(var)


def pip_steps(text: str) -> list[tuple[str, frozenset, str]]:
    """Each ``python -m pip wheel|install`` in ``text``: subcommand, options (without values), target's file name."""
    steps = []
    for mt in re.finditer(r"-m pip (wheel|install) ([^&\n]*)", text):
        tokens = shlex.split(mt[2])
        options = frozenset(t for t in tokens if t.startswith("--"))
        targets = [t for i, t in enumerate(tokens) if not t.startswith("--") and not tokens[i - 1] in
                   ("--wheel-dir",)]
        steps.append((mt[1], options, targets[-1].rsplit("/", 1)[-1]))
    return steps


def test_the_image_builds_and_installs_the_wheel_as_the_readme_says():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("### Install from a wheel", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    image = "\n".join(v for k, v in dockerfile_instructions() if k == "RUN")
    ours, theirs = pip_steps(block), pip_steps(image)
    assert [s[0] for s in ours] == ["wheel", "install"]
    # the same route: pip wheel of the project (.) with the same options, then pip install of the *.whl it made
    assert ours[0] == theirs[0] == ("wheel", frozenset({"--no-deps", "--wheel-dir"}), ".")
    assert ours[1][0] == theirs[1][0] == "install" and ours[1][2] == theirs[1][2] == "*.whl"
    assert theirs[1][1] <= {"--no-cache-dir"}  # (only pip's cache is skipped in the image)


@pytest.mark.parametrize("bad", [["tm", "--no-such-flag"], ["sit", "--seat", "N"]])
def test_the_checker_catches_a_wrong_command_or_flag(bad):
    with pytest.raises(AssertionError):
        check_command(bad)


def test_the_checker_catches_a_wrong_variable():
    with pytest.raises(AssertionError):
        check_env("SQUEEZE_TM__NO_SUCH_FIELD")
    with pytest.raises(AssertionError):
        check_env("SQUEEZE_NOSECTION__HOST")
