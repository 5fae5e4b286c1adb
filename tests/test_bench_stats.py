"""The statistics of the αμ bench (bench/alphamu.py): the figures it prints are only as good as these."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("bench_alphamu", Path(__file__).parent.parent / "bench" / "alphamu.py")
alphamu = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(alphamu)


def test_rate_and_standard_error():
    rate, se = alphamu.rate_se([1.0, 0.0, 1.0, 0.0])
    assert rate == 0.5
    assert se == pytest.approx(math.sqrt((4 * 0.25 / 3) / 4))
    assert math.isnan(alphamu.rate_se([1.0])[1])


@pytest.mark.parametrize("b,c", [(0, 0), (4, 6), (1, 9), (0, 7), (12, 3)])
def test_sign_flip_on_single_games_is_the_exact_mcnemar_test(b, c):
    diffs = [1.0] * b + [-1.0] * c + [0.0] * 20  # ties carry no information either way
    assert alphamu.sign_flip_p(diffs) == pytest.approx(alphamu.mcnemar_p(b, c), abs=1e-12)


def test_mcnemar_known_values():
    assert alphamu.mcnemar_p(0, 7) == pytest.approx(2 / 2 ** 7)
    assert alphamu.mcnemar_p(5, 5) == 1.0


def test_sign_flip_monte_carlo_agrees_with_the_binomial_tail():
    # 30 deals, 20 better and 10 worse by one game: Monte Carlo beyond 16 deals must match the exact tail.
    diffs = [1.0] * 20 + [-1.0] * 10
    assert alphamu.sign_flip_p(diffs) == pytest.approx(alphamu.mcnemar_p(20, 10), abs=0.005)


def test_sign_flip_weighs_the_size_of_each_deals_difference():
    # Several games per deal: sizes count, not just signs. Of the 8 sign patterns of (1, 1, -0.1), only
    # (1, 1, +-0.1) and its mirror reach |sum| >= 1.9; counting signs alone (2 better, 1 worse) would give p = 1.
    assert alphamu.sign_flip_p([1.0, 1.0, -0.1]) == pytest.approx(4 / 8)
    assert alphamu.mcnemar_p(2, 1) == 1.0
    assert alphamu.sign_flip_p([0.5] * 6) == pytest.approx(2 / 64)


def test_game_seeds_are_shared_by_configurations_and_distinct_across_games():
    seeds = {alphamu.play_seed(2024, i, r) for i in range(0, 100_000, 997) for r in range(5)}
    assert len(seeds) == len(range(0, 100_000, 997)) * 5
    assert alphamu.play_seed(2024, 7, 0) == 2024 * 31337 + 7  # game 0 keeps the seeds of the records already made


def test_report_pairs_m3_with_m1_at_every_world_count(tmp_path, capsys):
    # A synthetic record file: 4 kept deals; at 20 worlds M3 makes one deal more than M1, at 40 worlds two more
    # and one fewer. --report-only must pair each world count with itself and print the _w40 keys.
    settings = {"seed": 2024, "filter_runs": 10, "def_worlds": 20, "budget": None, "solver": "engine"}
    made = {"M1W20": [1, 0, 0, 1], "M3W20": [1, 1, 0, 1], "M1W40": [1, 0, 0, 1], "M3W40": [0, 1, 1, 1]}
    lines = [{"type": "filter", "i": i, "kept": True, "settings": settings} for i in range(4)]
    for name, row in made.items():
        for i, m in enumerate(row):
            lines.append({"type": "play", "i": i, "config": name, "tricks": 9 if m else 8, "made": bool(m),
                          "decl_moves": 26, "searched_moves": 20, "decl_seconds": 2.0 if "M3" in name else 1.0,
                          "discrepancies": 0, "departures": [], "settings": settings})
    out = tmp_path / "records.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert alphamu.main(["--out", str(out), "--solver", "engine", "--report-only", "--deals", "4",
                         "--configs", "1:20,3:20,1:40,3:40"]) == 0
    result = dict(kv.split("=") for kv in capsys.readouterr().out.split("RESULT ")[1].split())
    assert result["deals"] == "4"
    assert (result["make_m1"], result["make_m3"], result["gain_m3_points"]) == ("50.0", "75.0", "25.0")
    assert (result["make_m1_w40"], result["make_m3_w40"], result["gain_m3_points_w40"]) == ("50.0", "75.0", "25.0")
    assert float(result["mcnemar_p_m3"]) == pytest.approx(alphamu.mcnemar_p(1, 0), abs=1e-3)
    assert float(result["mcnemar_p_m3_w40"]) == pytest.approx(alphamu.mcnemar_p(2, 1), abs=1e-3)
    assert float(result["sec_per_move_m3_w40"]) == pytest.approx(0.1)
