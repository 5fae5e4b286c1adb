"""The image and the compose match, built and run on a real Docker daemon (``make test-docker``; part of ``make test``).

``docker-host.sh`` installs Docker from Debian's packages and starts a daemon when none answers (and puts the host
back at the end); the base images come from the registry, or are built from Debian's packages with
``docker/local-images.sh`` where it cannot be reached; then, as a user would: ``docker compose build`` (one build),
the image's ``--help``, a solve and its health check; the README's ``up --build`` for a 4-board match in two rooms,
stopped once a board is stored, and ``up`` again, which continues the run to its end (health watched under that
load, every container exiting 0, every board stored once in the volume); a second ``up`` on the finished volume
(the manager stops at once, no robot starts); the remote robot without TM_HOST. Everything made is removed at the
end, but the images (the cache of the next run).

Turned off only on purpose: ``SQUEEZE_DOCKER_TESTS=0``. ``SQUEEZE_DOCKER_PULL=0`` does not try the registry (the base
images are built locally); ``PYTHON_IMAGE``/``BROKER_IMAGE`` in the environment name the base images to use.
The steps' times go to ``out/docker-test-timings.json``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker" / "compose.yaml"
HOST_SCRIPT = Path(__file__).with_name("docker-host.sh")
PROJECT = "squeeze-test"
IMAGE = "squeeze:latest"
DEFAULT_IMAGES = {"PYTHON_IMAGE": "python:3.11-slim-bookworm", "BROKER_IMAGE": "eclipse-mosquitto:2"}
DEAL = "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763"
ROBOTS = [f"{team}-{seat}" for team in "ab" for seat in ("north", "east", "south", "west")]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("SQUEEZE_DOCKER_TESTS") == "0",
                       reason="the Docker tests are turned off (SQUEEZE_DOCKER_TESTS=0)"),
]

TIMINGS: dict[str, float] = {}


def run(*argv: str, timeout: float, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=ROOT)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-3000:]}\n"
                             f"{done.stderr[-3000:]}")
    return done


@contextlib.contextmanager
def timed(step: str):
    t0 = time.monotonic()
    yield
    TIMINGS[step] = round(time.monotonic() - t0, 1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dangling_images() -> set[str]:
    return set(run("docker", "images", "--filter", "dangling=true", "--quiet", "--no-trunc", timeout=60).stdout.split())


def containers() -> dict[str, dict]:
    """The project's containers by service name: ``docker inspect`` of each."""
    ids = run("docker", "ps", "--all", "--quiet", "--filter", f"label=com.docker.compose.project={PROJECT}",
              timeout=60).stdout.split()
    if not ids:
        return {}
    return {c["Config"]["Labels"]["com.docker.compose.service"]: c
            for c in json.loads(run("docker", "inspect", *ids, timeout=60).stdout)}


@pytest.fixture(scope="module")
def docker_host(tmp_path_factory):
    """A Docker daemon (started here if none answers) and compose v2; afterwards everything this module made is
    removed (its containers, network, volume, the images it left dangling) and the host restored."""
    lock = open("/tmp/squeeze-docker-tests.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # one run of these tests at a time on a machine (one daemon, one project)
    state = tmp_path_factory.mktemp("docker-host")
    before: set[str] | None = None
    network = host_network()
    t0 = time.monotonic()
    try:
        with timed("host: Docker packages, compose v2, daemon"):
            run("bash", HOST_SCRIPT, "start", state, timeout=900)
        started = (state / "dockerd.pid").exists()
        before = dangling_images()
        yield state
    finally:
        try:
            if before is not None:
                run("docker", "compose", "-f", COMPOSE_FILE, "-p", PROJECT, "--profile", "remote", "down",
                    "--volumes", "--remove-orphans", "--timeout", "10", timeout=180, check=False)
                run("docker", "rm", "--force", "--volumes", f"{PROJECT}-health", timeout=60, check=False)
                made = dangling_images() - before
                if made:
                    run("docker", "image", "rm", *made, timeout=120, check=False)
                label = f"label=com.docker.compose.project={PROJECT}"
                left = {"containers": run("docker", "ps", "--all", "--quiet", "--filter", label, timeout=60),
                        "volumes": run("docker", "volume", "ls", "--quiet", "--filter", label, timeout=60),
                        "networks": run("docker", "network", "ls", "--quiet", "--filter", label, timeout=60)}
                left = {kind: done.stdout.split() for kind, done in left.items() if done.stdout.split()}
                assert not left, f"left behind: {left}"
        finally:
            try:
                run("bash", HOST_SCRIPT, "stop", state, timeout=180)
                if before is not None and started:  # the daemon we started changed them: they are back
                    assert host_network() == network, f"host network settings not restored: {network}"
            finally:
                TIMINGS["total (docker part)"] = round(time.monotonic() - t0, 1)
                out = ROOT / "out"
                out.mkdir(exist_ok=True)
                (out / "docker-test-timings.json").write_text(json.dumps(TIMINGS, indent=1) + "\n")
                lock.close()


def host_network() -> dict:
    """What dockerd changes on the host: ip_forward, the docker0 bridge, the FORWARD policy and Docker's chains."""
    iptables = shutil.which("iptables") or shutil.which("iptables", path="/usr/sbin:/sbin")
    rules = run(iptables, "-S", timeout=60).stdout if iptables else ""
    policy = re.search(r"^-P FORWARD (\w+)", rules, re.M)
    return {"ip_forward": Path("/proc/sys/net/ipv4/ip_forward").read_text().strip(),
            "docker0": Path("/sys/class/net/docker0").exists(),
            "FORWARD": policy[1] if policy else "ACCEPT",
            "DOCKER chains": sorted(set(re.findall(r"^-N (DOCKER\S*)", rules, re.M)))}


@pytest.fixture(scope="module")
def base_images(docker_host) -> dict[str, str]:
    """PYTHON_IMAGE and BROKER_IMAGE: given, already here, pulled, or built from Debian's packages."""
    given = {k: os.environ[k] for k in DEFAULT_IMAGES if os.environ.get(k)}
    if len(given) == 2:
        return given
    present = all(run("docker", "image", "inspect", i, timeout=60, check=False).returncode == 0
                  for i in DEFAULT_IMAGES.values())
    if present:
        return dict(DEFAULT_IMAGES)
    if os.environ.get("SQUEEZE_DOCKER_PULL") != "0":
        with timed("base images: pull"):
            try:
                pulled = all(run("docker", "pull", "--quiet", i, timeout=300, check=False).returncode == 0
                             for i in DEFAULT_IMAGES.values())
            except subprocess.TimeoutExpired:
                pulled = False
        if pulled:
            return dict(DEFAULT_IMAGES)
    with timed("base images: docker/local-images.sh (debootstrap, or its cache)"):
        done = run("bash", ROOT / "docker" / "local-images.sh", timeout=1200)
    return dict(line.split("=", 1) for line in done.stdout.split() if "=" in line)


@pytest.fixture(scope="module")
def env(base_images) -> dict[str, str]:
    """The compose variables of the test: the base images, 4 boards, ports published on free loopback ports."""
    e = {k: v for k, v in os.environ.items() if k not in ("TM_HOST", "TM_PORT", "SEAT", "TEAM", "PRESET")}
    e.update(base_images)
    e.update(BOARDS="4", PUBLISH_ADDRESS="127.0.0.1", TM_PUBLISHED_PORT=str(free_port()),
             MQTT_PUBLISHED_PORT=str(free_port()))
    return e


def compose(env: dict, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    return run("docker", "compose", "--ansi", "never", "-f", COMPOSE_FILE, "-p", PROJECT, *args, timeout=timeout,
               env=env, check=check)


@pytest.fixture(scope="module")
def ca_bundle():
    """The host's CA bundle in docker/ca/ for the module's builds (when none is there), as the README says to do
    behind a TLS-inspecting proxy; harmless without one."""
    ca = ROOT / "docker" / "ca" / "ca.pem"
    bundle = Path(os.environ.get("SSL_CERT_FILE") or "/etc/ssl/certs/ca-certificates.crt")
    copied = not ca.exists() and bundle.is_file()
    if copied:
        shutil.copyfile(bundle, ca)
    yield
    if copied:
        ca.unlink()


@pytest.fixture(scope="module")
def image(env, ca_bundle) -> str:
    """The project's image, built once by ``docker compose build``: by the tm service alone."""
    with timed("image: docker compose build"):
        done = compose(env, "build", timeout=1500)
    built = {m for m in re.findall(r"^#\d+ \[([^\s\]]+)", done.stdout + done.stderr, re.M) if m != "internal"}
    assert built <= {"tm"}, f"services built: {built} (one build, by tm, is shared by every service)"
    return IMAGE


def test_the_image_answers_help_and_solves_a_deal(image):
    with timed("image: --help and a solve"):
        help_ = run("docker", "run", "--rm", image, "--help", timeout=120)
        solve = run("docker", "run", "--rm", image, "solve", DEAL, "--json", timeout=120)
    assert "Usage: squeeze" in help_.stdout and "seat" in help_.stdout and "tm" in help_.stdout
    tricks = json.loads(solve.stdout)["tricks"]
    assert tricks["H"]["N"] == 10 and tricks["NT"]["E"] == 3


def test_the_image_health_check_passes(image):
    """The image's own check (its command, timeout and retries), probed every 2 s instead of every minute."""
    name = f"{PROJECT}-health"
    config = json.loads(run("docker", "image", "inspect", image, timeout=60).stdout)[0]["Config"]["Healthcheck"]
    assert config["Test"][:2] == ["CMD", "python"] and config["Timeout"] >= 30e9 and config["Interval"] >= 30e9
    with timed("image: health check"):
        run("docker", "run", "--detach", "--name", name, "--health-interval", "2s", "--health-start-period", "0s",
            image, "tm", "--host", "127.0.0.1", "--port", "2000", "--out", "/tmp/results", timeout=120)
        try:
            status = None
            for _ in range(90):
                state = json.loads(run("docker", "inspect", name, timeout=60).stdout)[0]["State"]
                assert state["Running"], f"the container stopped: {state}"
                status = state["Health"]["Status"]
                if status != "starting":
                    break
                time.sleep(2)
            assert status == "healthy", state["Health"]
            assert all(probe["ExitCode"] == 0 for probe in state["Health"]["Log"]), state["Health"]["Log"]
        finally:
            run("docker", "rm", "--force", "--volumes", name, timeout=60, check=False)


def up_watching_health(env: dict, *args: str, timeout: float = 900) -> tuple[int, str, dict[str, set[str]]]:
    """``docker compose up ARGS`` to its end, watching every running container's health meanwhile: (exit code,
    output, the health states seen per service while it ran)."""
    seen: dict[str, set[str]] = {}
    log = ROOT / "out" / "docker-test-up.log"
    log.parent.mkdir(exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen(["docker", "compose", "--ansi", "never", "-f", str(COMPOSE_FILE), "-p", PROJECT, "up",
                                 *args], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        deadline = time.monotonic() + timeout
        try:
            while proc.poll() is None:
                assert time.monotonic() < deadline, f"docker compose up still running after {timeout} s"
                for service, c in containers().items():
                    health = c["State"].get("Health")
                    if c["State"]["Running"] and health:
                        seen.setdefault(service, set()).add(health["Status"])
                time.sleep(3)
        finally:
            if proc.poll() is None:
                proc.kill()
    return proc.returncode, ANSI.sub("", log.read_text()), seen


def read_results(env: dict) -> tuple[dict, list[tuple[str, str]]]:
    """summary.json and the (room, board) of every game of boards.pbn, read from the results volume."""
    def cat(name: str) -> str:
        return run("docker", "run", "--rm", "--volume", f"{PROJECT}_results:/results:ro", "--entrypoint", "cat",
                   IMAGE, f"/results/{name}", timeout=120).stdout
    summary = json.loads(cat("summary.json"))
    pbn = cat("boards.pbn")
    games = [(re.search(r'\[Room "(\w+)"\]', g)[1], re.search(r'\[Board "(\d+)"\]', g)[1])
             for g in re.split(r"\n\s*\n(?=\[)", pbn) if "[Board " in g]
    return summary, games


def assert_every_board_once(env: dict, boards: int) -> None:
    summary, games = read_results(env)
    match = summary["matches"]["compose"]
    # (summary.json's schema: ``boards`` scored in both rooms, ``played`` per room)
    assert summary["boards"] == boards and match["boards"] == boards, summary
    assert match["played"] == {"Open": boards, "Closed": boards}, summary
    assert match["teams"] == {"a": "Squeeze", "b": "Opponents"}, summary
    assert sorted(games) == sorted((room, str(b)) for room in ("Open", "Closed") for b in range(1, boards + 1))


def up_until_a_board_is_stored_then_stop(env: dict, *args: str, timeout: float = 600) -> tuple[str, int]:
    """``docker compose up ARGS``, then ``docker compose stop`` as soon as the manager has stored a board: (output,
    boards stored)."""
    log = ROOT / "out" / "docker-test-stopped.log"
    log.parent.mkdir(exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen(["docker", "compose", "--ansi", "never", "-f", str(COMPOSE_FILE), "-p", PROJECT, "up",
                                 *args], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        try:
            deadline = time.monotonic() + timeout
            while '"event": "tm.board_finished"' not in log.read_text():
                assert proc.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, f"no board stored in {timeout} s"
                time.sleep(1)
            compose(env, "stop", "--timeout", "20", timeout=120)
            proc.wait(120)
        finally:
            if proc.poll() is None:
                proc.kill()
    output = ANSI.sub("", log.read_text())
    return output, output.count('"event": "tm.board_finished"')


def test_the_compose_match_stopped_and_continued_plays_every_board_once_and_every_container_exits_0(env, image):
    """The README's ``up --build``, stopped once the manager has stored a board, then ``up`` again: the run goes on
    where it stopped, to the end of the match (4 boards, two rooms), under the health checks."""
    before = dangling_images()
    with timed("compose: up --build, stopped after the first board stored"):
        output, stored_before = up_until_a_board_is_stored_then_stop(env, "--build")
    built = {m for m in re.findall(r"^#\d+ \[([^\s\]]+)", output, re.M) if m != "internal"}
    assert built <= {"tm"}, f"up --build built {built}"
    assert dangling_images() == before  # (an unchanged image is not built again; nothing left dangling)
    state = containers()
    assert state["tm"]["State"]["ExitCode"] == 1  # stopped by the signal: what finished is stored
    # (init: true: SIGTERM reaches each robot, which stops at once rather than being killed 10 s later)
    assert all(state[r]["State"]["ExitCode"] != 137 for r in ROBOTS), {r: state[r]["State"]["ExitCode"] for r in ROBOTS}

    with timed("compose: up again, the match continued to its end"):
        code, output, seen = up_watching_health(env)
    assert code == 0, output[-3000:]
    # the boards stored before the stop are not played again
    assert stored_before >= 1 and stored_before + output.count('"event": "tm.board_finished"') == 8, (
        stored_before, output[-3000:])
    state = containers()
    assert set(state) == {"mosquitto", "tm", *ROBOTS}, set(state)
    for service in ("tm", *ROBOTS):
        s = state[service]["State"]
        assert not s["Running"] and s["ExitCode"] == 0, f"{service}: {s}"
        assert state[service]["RestartCount"] == 0, service
    # the health checks under the match's load: never unhealthy while running; tm healthy (the robots wait for it)
    # and every robot that lived past its first probe (a minute) seen healthy
    assert all("unhealthy" not in states for states in seen.values()), seen
    assert "healthy" in seen.get("tm", set()), seen
    for robot in ROBOTS:
        s = state[robot]["State"]
        lived = _seconds(s["FinishedAt"]) - _seconds(s["StartedAt"])
        if lived > 90:
            assert "healthy" in seen.get(robot, set()), (robot, lived, seen)
    # published on loopback only, and only the manager and the broker
    for service in ("tm", "mosquitto"):
        bindings = state[service]["HostConfig"]["PortBindings"]
        assert bindings and all(b["HostIp"] == "127.0.0.1" for bs in bindings.values() for b in bs), bindings
    assert not any(state[r]["HostConfig"]["PortBindings"] for r in ROBOTS)
    # every log line of a robot (its decision worker's included) is JSON
    for robot in ROBOTS:
        logs = run("docker", "logs", state[robot]["Id"], timeout=60)
        lines = [l for l in (logs.stdout + logs.stderr).splitlines() if l.strip()]
        events = [json.loads(l) for l in lines]
        assert any(e["event"] == "worker.ready" for e in events), robot  # (again after each worker restart)
    with timed("compose: read the results volume"):
        assert_every_board_once(env, 4)


def test_a_second_up_on_the_finished_volume_stops_at_once_without_starting_a_robot(env, image):
    started = {r: containers()[r]["State"]["StartedAt"] for r in ROBOTS}
    with timed("compose: second up on the same volume"):
        done = compose(env, "up", timeout=300, check=False)
    output = ANSI.sub("", done.stdout + done.stderr)
    assert done.returncode != 0 and "dependency failed to start" in output, output[-2000:]
    assert "squeeze tm: 8 boards finished, results in /results" in output, output[-2000:]
    state = containers()
    assert state["tm"]["State"]["ExitCode"] == 0
    for robot in ROBOTS:  # not started again, nor restarting
        assert state[robot]["State"]["StartedAt"] == started[robot] and not state[robot]["State"]["Restarting"]
    assert_every_board_once(env, 4)


def test_the_remote_robot_needs_tm_host_only_when_it_runs(env, image):
    done = compose(env, "--profile", "remote", "run", "--rm", "robot-remote", timeout=120, check=False)
    assert done.returncode == 2 and "set TM_HOST" in done.stderr, (done.returncode, done.stdout, done.stderr)


def _seconds(stamp: str) -> float:
    """Seconds since the epoch of Docker's RFC 3339 time stamp (nanoseconds cut to microseconds)."""
    from datetime import datetime
    mt = re.match(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z", stamp)
    return datetime.fromisoformat(mt[1] + "+00:00").timestamp() + float("0." + (mt[2] or "0"))
