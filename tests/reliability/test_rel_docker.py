"""``docker/Dockerfile`` and ``docker/compose.yaml`` stay true without a Docker engine: every ``squeeze`` command and
flag they run exists in the CLI (typer's click tree), every ``SQUEEZE_*`` variable is a settings field, the image
builds and installs the wheel with the README's pip commands, its health check passes here, and every compose
variable (base image, broker image, published ports, boards) is documented, defaulted and used as documented.
``tests/docker`` runs all of it on a real Docker daemon."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
import yaml

from squeeze.config.settings import Settings
from squeeze.robot.cli import app
from squeeze.robot.tm.store import STORE_FILE

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()
COMPOSE_TEXT = (ROOT / "docker" / "compose.yaml").read_text()
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
README_DOCKER = (ROOT / "README.md").read_text().split("## Deploy with Docker", 1)[1].split("\n## ", 1)[0]
#: The compose file's variables and their defaults (None: no default, read only by the remote robot when it runs).
VARIABLES = {"PYTHON_IMAGE": "python:3.11-slim-bookworm", "BROKER_IMAGE": "eclipse-mosquitto:2",
             "PUBLISH_ADDRESS": "127.0.0.1", "TM_PUBLISHED_PORT": "2000", "MQTT_PUBLISHED_PORT": "1883",
             "BOARDS": "16", "TM_HOST": "", "TM_PORT": "2000", "SEAT": "N", "TEAM": "Squeeze", "PRESET": "default"}
ROBOTS = [n for n, s in COMPOSE["services"].items() if n not in ("tm", "robot-remote", "mosquitto")]
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
    for _name, service in services.items():
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
    assert COMPOSE["services"]["robot-remote"]["environment"]["SQUEEZE_ROBOT__HOST"] == "${TM_HOST:-}"
    assert "mosquitto" in COMPOSE["services"]


def test_every_variable_has_its_default_and_none_is_required_when_compose_reads_the_file():
    # compose interpolates every service, a profile's too: a ${VAR:?} would stop a plain `up` (the remote robot
    # checks TM_HOST itself, when it runs)
    assert ":?" not in COMPOSE_TEXT and "${TM_HOST:-}" in COMPOSE_TEXT
    used = re.findall(r"\$\{([A-Z_]+)(?::-([^}]*))?\}", COMPOSE_TEXT)
    assert {name for name, _ in used} == set(VARIABLES)
    for name, default in used:
        assert default == VARIABLES[name], f"${{{name}}} defaults to {default!r} here"
        assert name in README_DOCKER, f"README's Docker section does not document {name}"


def test_the_images_are_swappable_by_one_variable_each():
    build = COMPOSE["services"]["tm"]["build"]
    arg = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", DOCKERFILE, re.M)
    assert arg and arg[1] == VARIABLES["PYTHON_IMAGE"]  # the Dockerfile's own default is compose's
    assert build["args"]["PYTHON_IMAGE"] == "${PYTHON_IMAGE:-python:3.11-slim-bookworm}"
    assert [k for k, v in dockerfile_instructions() if k == "FROM"] == ["FROM", "FROM"]
    assert all(v.startswith("${PYTHON_IMAGE}") for k, v in dockerfile_instructions() if k == "FROM")
    broker = COMPOSE["services"]["mosquitto"]
    assert broker["image"] == "${BROKER_IMAGE:-eclipse-mosquitto:2}"
    assert broker["command"][0] == "mosquitto"  # (any image with mosquitto on its PATH, the stand-in's too)
    assert any(v.endswith(":/mosquitto/config/mosquitto.conf:ro") for v in broker["volumes"])
    standin = (ROOT / "docker" / "mosquitto.Dockerfile").read_text()
    assert "COPY mosquitto.conf /mosquitto/config/mosquitto.conf" in standin and "apt-get install" in standin


def test_ports_are_published_on_loopback_by_default_and_only_by_the_manager_and_the_broker():
    published = {n: s["ports"] for n, s in COMPOSE["services"].items() if s.get("ports")}
    assert published == {"tm": ["${PUBLISH_ADDRESS:-127.0.0.1}:${TM_PUBLISHED_PORT:-2000}:2000"],
                         "mosquitto": ["${PUBLISH_ADDRESS:-127.0.0.1}:${MQTT_PUBLISHED_PORT:-1883}:1883"]}
    tm = COMPOSE["services"]["tm"]["command"]
    assert tm[tm.index("--port") + 1] == "2000" and tm[tm.index("--host") + 1] == "0.0.0.0"


def test_one_build_shared_by_every_service():
    services = COMPOSE["services"]
    builders = [n for n, s in services.items() if "build" in s and "profiles" not in s]
    assert builders == ["tm"]
    image = services["tm"]["image"]
    for robot in ROBOTS:
        assert services[robot]["image"] == image and services[robot]["pull_policy"] == "never"
        assert "build" not in services[robot]
    assert services["robot-remote"]["image"] == image


def test_a_second_up_resumes_and_cannot_loop():
    tm = COMPOSE["services"]["tm"]
    script = tm["entrypoint"][2]
    # the store `squeeze tm --out /results` writes; its presence adds --resume to the same command
    assert f"/results/{STORE_FILE}" in script and "--resume" in script and tm["entrypoint"][:2] == ["/bin/sh", "-c"]
    assert tm["command"][tm["command"].index("--out") + 1] == "/results"
    assert tm["environment"]["SQUEEZE_TM__BOARDS"] == "${BOARDS:-16}" and "--random-boards" not in tm["command"]
    # the manager is healthy while it listens on its port (LISTEN, 0A, in /proc/net/tcp)
    test = tm["healthcheck"]["test"]
    assert f":{2000:04X} " in test[3] and " 0A " in test[3] and "/proc/net/tcp" in test
    for robot in ROBOTS:
        service = COMPOSE["services"][robot]
        assert service["depends_on"]["tm"]["condition"] == "service_healthy"
        assert re.fullmatch(r"on-failure:[1-9]", service["restart"]), service["restart"]  # bounded
        assert service.get("init") is True  # SIGTERM reaches the robot: stop and down end it at once


def test_the_image_entrypoint_healthcheck_and_user():
    instructions = dockerfile_instructions()
    kinds = [k for k, _ in instructions]
    assert kinds.count("FROM") == 2 and "HEALTHCHECK" in kinds
    args = dict(instructions[::-1])  # (the last of each kind)
    assert args["USER"] == "squeeze" and args["ENTRYPOINT"] == '["squeeze"]'
    health = args["HEALTHCHECK"]
    argv = yaml.safe_load(health[health.index("CMD") + 3:].strip())
    assert argv[:2] == ["python", "-c"]  # (the venv's python: /opt/squeeze/bin comes first on the PATH)
    assert subprocess.run([sys.executable, "-c", argv[2]], timeout=120).returncode == 0  # it passes with the solver
    timing = dict(re.findall(r"--([a-z-]+)=(\d+)s", health[:health.index("CMD")]))
    # slack for a loaded machine: eight robots thinking on two cores
    assert int(timing["timeout"]) >= 30 and int(timing["interval"]) >= 30 and int(timing["start-period"]) >= 30
    for _kind, value in instructions:
        for var in re.findall(r"\b(SQUEEZE_[A-Z_]+)=", value):
            check_env(var)


def pip_steps(text: str) -> list[tuple[str, frozenset, str]]:
    """Each ``python -m pip wheel|install`` in ``text``: subcommand, options (without values), target's file name."""
    steps = []
    for mt in re.finditer(r"-m pip (wheel|install) ([^&\n]*)", text):
        tokens = shlex.split(mt[2])
        options = frozenset(t for t in tokens if t.startswith("--"))
        targets = [t for i, t in enumerate(tokens) if not t.startswith("--") and tokens[i - 1] not in ("--wheel-dir",)]
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
