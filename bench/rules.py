"""The rule file a bench bids with: a packaged system name (``sayc``), a ``.toml`` path, or ``git:REV``, the packaged
``config/systems/sayc.toml`` as it was at revision ``REV`` of this repository (old rule bases stay in git, not in
copies: ``git:494ee73`` is SAYC's first wave, the baseline of ``bench/bidding_par.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from squeeze.config.bidding import load_system  # noqa: E402
from squeeze.engine.bidding import BiddingSystemError, CompiledSystem, parse_system  # noqa: E402

#: SAYC's first wave (the commit that brought the rule database): what later rule bases are compared with.
FIRST_WAVE = "git:494ee73"
PACKAGED = "config/systems/sayc.toml"


def load_rules(spec: str) -> CompiledSystem:
    """The compiled system ``spec`` names (see the module doc); ``BiddingSystemError`` if it cannot be had."""
    if not spec.startswith("git:"):
        return load_system(spec)
    rev = spec[4:]
    try:
        text = subprocess.run(["git", "show", f"{rev}:{PACKAGED}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        err = getattr(exc, "stderr", "") or str(exc)
        raise BiddingSystemError(f"{spec}: cannot read {PACKAGED} at {rev} from git ({err.strip()})") from None
    return parse_system(text, "sayc", spec)
