"""bench/alphamu.py's own logic: paired game seeds, and the report it makes from its run log (the statistics and
the log themselves are squeeze.engine.stats and squeeze.robot.runlog, tested in test_stats and test_runlog)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from squeeze.engine.stats import mcnemar_p

_spec = importlib.util.spec_from_file_location("bench_alphamu", Path(__file__).parent.parent / "bench" / "alphamu.py")
alphamu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(alphamu)


def test_game_seeds_are_shared_by_configurations_and_distinct_across_games():
    seeds = {alphamu.play_seed(2024, i, r) for i in range(0, 100_000, 997) for r in range(5)}
    assert len(seeds) == len(range(0, 100_000, 997)) * 5
    assert alphamu.play_seed(2024, 7, 0) == 2024 * 31337 + 7  # game 0 keeps the seeds of the records already made


@pytest.mark.parametrize("torn", ["", '{"type": "play", "i": 3, "con'])
def test_report_pairs_m3_with_m1_at_every_world_count(tmp_path, capsys, torn):
    # A synthetic record file: 4 kept deals; at 20 worlds M3 makes one deal more than M1, at 40 worlds two more
    # and one fewer. --report-only must pair each world count with itself and print the _w40 keys. A torn last
    # line (a run killed mid-write) is reported and changes nothing.
    settings = {"seed": 2024, "filter_runs": 10, "def_worlds": 20, "budget": None, "solver": "engine"}
    made = {"M1W20": [1, 0, 0, 1], "M3W20": [1, 1, 0, 1], "M1W40": [1, 0, 0, 1], "M3W40": [0, 1, 1, 1]}
    lines = [{"type": "filter", "i": i, "kept": True, "settings": settings} for i in range(4)]
    for name, row in made.items():
        for i, m in enumerate(row):
            lines.append({"type": "play", "i": i, "config": name, "tricks": 9 if m else 8, "made": bool(m),
                          "decl_moves": 26, "searched_moves": 20, "decl_seconds": 2.0 if "M3" in name else 1.0,
                          "discrepancies": 0, "departures": [], "settings": settings})
    out = tmp_path / "records.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines) + torn)
    assert alphamu.main(["--out", str(out), "--solver", "engine", "--report-only", "--deals", "4",
                         "--configs", "1:20,3:20,1:40,3:40"]) == 0
    captured = capsys.readouterr()
    assert ("unreadable record skipped" in captured.err) == bool(torn)
    result = dict(kv.split("=") for kv in captured.out.split("RESULT ")[1].split())
    assert result["deals"] == "4"
    assert (result["make_m1"], result["make_m3"], result["gain_m3_points"]) == ("50.0", "75.0", "25.0")
    assert (result["make_m1_w40"], result["make_m3_w40"], result["gain_m3_points_w40"]) == ("50.0", "75.0", "25.0")
    assert float(result["mcnemar_p_m3"]) == pytest.approx(mcnemar_p(1, 0), abs=1e-3)
    assert float(result["mcnemar_p_m3_w40"]) == pytest.approx(mcnemar_p(2, 1), abs=1e-3)
    assert float(result["sec_per_move_m3_w40"]) == pytest.approx(0.1)
