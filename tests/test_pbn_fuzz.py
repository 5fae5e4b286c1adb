"""Robustness: corrupted PBN never crashes the reader (every problem is a PbnError naming game and line), and
whatever it accepts exports and re-imports to the same games."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squeeze.engine.pbn import PbnError, read_pbn, write_pbn

from strategies import pbn_games

_NOISE = st.text(st.sampled_from('[]{}";%*-+=$!?^# \n\t:.SHDCAKQJT98765432NEWXPas1234567'), max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(pbn_games(), st.data())
def test_corrupted_files_give_errors_not_crashes(game, data):
    text = write_pbn([game, game])
    start = data.draw(st.integers(0, len(text)))
    length = data.draw(st.integers(0, 30))
    noise = data.draw(_NOISE)
    bad = text[:start] + noise + text[start + length :]
    r = read_pbn(bad)
    assert all(isinstance(e, PbnError) and e.line >= 1 for e in r.errors + r.warnings)
    assert all(str(e).startswith(f"game {e.game}, line {e.line}: ") for e in r.errors if e.game)
    # whatever was accepted is a consistent game: it exports and reads back the same
    again = read_pbn(write_pbn(r.games))
    assert again.errors == []
    assert again.games == r.games
