"""Where a bench finds the reference material kept beside the project (``shared/``: research data, the double-dummy
harness, bridge-solver's source), without a machine's absolute path: ``$SQUEEZE_SHARED`` when set, else the nearest
folder named ``shared`` beside this checkout or one of its parents."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared folder (see the module doc); ``FileNotFoundError`` saying how to give it when there is none."""
    env = os.environ.get("SQUEEZE_SHARED")
    if env:
        return Path(env)
    for parent in ROOT.parents:
        if (parent / "shared").is_dir():
            return parent / "shared"
    raise FileNotFoundError("no shared/ folder beside this checkout or its parents: set SQUEEZE_SHARED to it")


def shared_path(relative: str) -> Path:
    """``relative`` (e.g. ``research/bidding/sayc_dev.jsonl``) inside the shared folder, or a path that does not
    exist (``shared/<relative>``) when there is no shared folder: the bench then says which file it needs."""
    try:
        return shared_dir() / relative
    except FileNotFoundError:
        return Path("shared") / relative
