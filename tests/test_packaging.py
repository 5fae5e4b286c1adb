"""The wheel installs one import namespace, ``squeeze``, and works from outside the repository.

A real install: the wheel is built from this checkout (with the build tools of the test venv, so nothing is
compiled twice from the network), installed into a fresh venv with its dependencies from the package index, and
run from a temporary directory where the repository's folders cannot be imported by accident.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USER_FOLDERS = ("engine", "protocol", "robot", "config")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(ROOT)], check=True, timeout=600)
    (path,) = out.glob("squeeze_bridge-*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_holds_only_the_squeeze_namespace_with_its_data_and_the_c_core(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"squeeze"}, top
    for folder in USER_FOLDERS:
        assert any(n.startswith(f"squeeze/{folder}/") for n in names)
    assert "squeeze/config/systems/sayc.toml" in names and "squeeze/config/squeeze.toml" in names
    assert any(n.startswith("squeeze/engine/dds/_solver.") and n.endswith(".so") for n in names)


@pytest.mark.slow
def test_an_installed_squeeze_bids_solves_and_plays_outside_the_repository(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], check=True, timeout=900)
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for folder in USER_FOLDERS:
        assert not (Path(site) / folder).exists(), f"a top-level {folder!r} package was installed"
    work = tmp_path / "elsewhere"
    work.mkdir()
    squeeze = str(env_dir / "bin" / "squeeze")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([squeeze, *args], cwd=work, capture_output=True, text=True, timeout=300)

    bid = run("bid", "AK94.T82.K73.QJ5", "1N P", "--dealer", "S")
    assert bid.returncode == 0 and bid.stdout.split()[0] == "2C", bid.stdout + bid.stderr  # Stayman, from the data
    solved = run("solve", "--json", "N:AK94.T82.K73.QJ5 Q76.AJ5.T862.T92 JT3.KQ973.AQ4.84 852.64.J95.AK763")
    assert solved.returncode == 0, solved.stderr
    assert set(json.loads(solved.stdout)["tricks"]) == {"NT", "S", "H", "D", "C"}
    board = run("deal", "--board", "1", "--seed", "1", "--play")
    # the whole board is played and scored (which contract the robots reach is the bidding tests' business)
    assert board.returncode == 0, board.stdout[-500:] + board.stderr
    assert re.search(r"^(\S+ by [NESW]: \d+ tricks \(.+\), [+-]\d+ for (NS|EW)|Score: 0 \(passed out\))$", board.stdout, re.M), \
        board.stdout[-500:]
