"""Tournaments (robot.selfplay.tournament, `squeeze tournament`) with real components: real engines in real worker
processes, the real results store, a real `squeeze tournament` process killed with SIGKILL and run again, our table
manager on loopback with robots launched as external commands. Engines are small (the `fast` preset with 2 worlds)
to keep the suite quick."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from squeeze.config.settings import TournamentSettings
from squeeze.engine.cards import Seat, Vul
from squeeze.engine.record import BoardRecord
from squeeze.engine.stats import imp_summary, victory_points
from squeeze.engine.teams import compare_rooms, gross_imps
from squeeze.robot.selfplay.run import SelfPlayError
from squeeze.robot.selfplay.standings import StandingsError, parse_standings
from squeeze.robot.selfplay.tournament import (
    TournamentError, load_entrants, pairings_of, parse_entrant, prepare_tournament, run_tournament,
)
from squeeze.robot.summary import parse_summary
from squeeze.robot.tm.store import ResultsStore

SQUEEZE = [sys.executable, "-m", "squeeze.robot.cli"]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")} | {"SQUEEZE_LOG__LEVEL": "warning"}
BOARDS = 3


@pytest.fixture(autouse=True)
def _no_settings_env(monkeypatch):
    for name in [n for n in os.environ if n.startswith("SQUEEZE_")]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two entrants as TOML settings files over the `fast` preset: the same engine with its own seed, and one that
    plays for tricks rather than for the contract."""
    folder = tmp_path_factory.mktemp("entrants")
    seed7, tricks = folder / "seed7.toml", folder / "tricks.toml"
    seed7.write_text("[engine]\nseed = 7\n")
    tricks.write_text('[engine]\nobjective = "tricks"\n')
    return str(seed7), str(tricks)


def command(out, files, *extra):
    return [*SQUEEZE, "tournament", "--preset", "fast", "--worlds", "2", "-e", "fast", "-e", f"seed7={files[0]}",
            "-e", f"tricks={files[1]}", "--boards", str(BOARDS), "--chunk", "1", "-j", "2", "--out", str(out), *extra]


def rows(out):
    """(match, room, board) of every stored result, and the boards voided for good."""
    with sqlite3.connect(out / "results.sqlite") as db:
        return (db.execute("SELECT match, room, board FROM results").fetchall(),
                db.execute("SELECT count(*) FROM incidents WHERE kind = 'error'").fetchone()[0])


def committed(out):
    try:
        return len(rows(out)[0])
    except sqlite3.Error:  # not created yet
        return 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory, files):
    """A round robin of three entrants, undisturbed: what a killed and resumed run of the same seed must give."""
    out = tmp_path_factory.mktemp("reference")
    r = subprocess.run(command(out, files), capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    return out, r


def test_a_round_robin_writes_standings_that_are_what_its_stored_boards_give(reference):
    out, r = reference
    # off a terminal: one running line per round of finished boards, naming the leader, then the tables
    lines = [line for line in r.stdout.splitlines() if "boards |" in line]
    assert lines and "9/9 boards" in lines[-1] and "leader " in lines[-1]
    assert "standings: IMPs/board against the field" in r.stdout and f"results in {out}" in r.stdout
    standings = parse_standings((out / "standings.json").read_bytes())  # every field checked
    assert standings.format == "round-robin" and standings.finished and standings.boards == BOARDS
    assert {p.match for p in standings.pairings} == {"fast v seed7", "fast v tricks", "seed7 v tricks"}
    # recompute everything from the store, with engine.teams and engine.stats
    store = ResultsStore(out / "results.sqlite", create=False)
    try:
        results, dd = store.results(), store.dd_tables()
    finally:
        store.close()
    swings_of = {}
    for p in standings.pairings:
        comparisons = compare_rooms([row.record for row in results if row.match == p.match], dd)
        swings = [c.swing for c in comparisons]
        swings_of[p.match] = (p.a, p.b, {c.board: c.swing for c in comparisons})
        s = imp_summary(swings)
        assert p.boards == len(swings) == BOARDS and p.voided == 0 and p.state == "finished"
        assert (p.imps_per_board, p.stderr, p.los) == pytest.approx((s.mean, s.se, s.los), abs=1e-6)
        assert (p.imps.a, p.imps.b) == gross_imps(swings) and p.flat == swings.count(0)
        vp = victory_points(sum(swings), len(swings))
        assert (p.vp.a, p.vp.b) == pytest.approx(vp, abs=1e-6)
        assert standings.matrix[p.a][p.b].imps_per_board == p.imps_per_board
        assert standings.matrix[p.b][p.a].imps_per_board == pytest.approx(-s.mean, abs=1e-6)
    for e in standings.entrants:
        values, deals, vps = [], [], 0.0
        for a, b, swings in swings_of.values():
            if e.name in (a, b):
                sign = 1 if e.name == a else -1
                values += [sign * s for _, s in sorted(swings.items())]
                deals += sorted(swings)
                vps += victory_points(sign * sum(swings.values()), len(swings))[0]
        s = imp_summary(values, deals=deals)
        assert e.boards == len(values) == 2 * BOARDS and e.pairings == 2 and e.imps == sum(values)
        assert (e.imps_per_board, e.stderr) == pytest.approx((s.mean, s.se), abs=1e-6)
        assert e.vp == pytest.approx(vps, abs=1e-5)
    means = [e.imps_per_board for e in standings.entrants]
    assert means == sorted(means, reverse=True) and sum(e.imps for e in standings.entrants) == 0
    summary = parse_summary((out / "summary.json").read_bytes())
    assert summary.source == "tournament" and set(summary.matches) == {p.match for p in standings.pairings}
    assert (out / "standings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pbn = (out / "boards.pbn").read_text()
    assert pbn.count('[Room "Closed"]') == 3 * BOARDS and "Time N/S" not in pbn


def test_a_tournament_killed_with_sigkill_and_run_again_plays_every_board_of_every_pairing_once(
        tmp_path, files, reference):
    ref, _ = reference
    out = tmp_path / "out"
    # its own process group: SIGKILL to the group takes the workers down with it, as a crash of the machine would
    proc = subprocess.Popen(command(out, files), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while committed(out) < 6 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    first = committed(out)
    assert 6 <= first < 2 * 3 * BOARDS
    r = subprocess.run(command(out, files), capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    results, voided = rows(out)
    assert len(results) == len(set(results)) == 2 * 3 * BOARDS and voided == 0
    # the same seed, the same standings, byte for byte (and the same boards)
    assert (out / "standings.json").read_bytes() == (ref / "standings.json").read_bytes()
    assert (out / "boards.pbn").read_bytes() == (ref / "boards.pbn").read_bytes()
    # done: the same command again plays nothing and rewrites the same standings
    again = subprocess.run(command(out, files), capture_output=True, text=True, env=ENV, timeout=120)
    assert again.returncode == 0 and (out / "standings.json").read_bytes() == (ref / "standings.json").read_bytes()
    assert rows(out)[0] == results


def test_another_configuration_in_the_same_folder_is_refused_naming_the_difference(reference, files):
    out, _ = reference
    base = dict(entrants=["fast", f"seed7={files[0]}", f"tricks={files[1]}"], boards=BOARDS, out=out)

    def entrants(s):
        return load_entrants(s.entrants, seed=s.seed, preset="fast", engine={"worlds": 2})

    s = TournamentSettings(**base, format="gauntlet")
    with pytest.raises(SelfPlayError, match=r"another configuration.*format: 'round-robin' in the stored run, "
                                            r"'gauntlet' now"):
        prepare_tournament(s, entrants(s))
    s = TournamentSettings(**base | {"entrants": base["entrants"][:2]})
    with pytest.raises(SelfPlayError, match=r"Differences: .*entrants\.tricks"):
        prepare_tournament(s, entrants(s))
    s = TournamentSettings(**base)
    with pytest.raises(SelfPlayError, match=r"entrants\.fast\.engine\.play\.worlds: 2 in the stored run, 3 now"):
        prepare_tournament(s, load_entrants(s.entrants, seed=1, preset="fast", engine={"worlds": 3}))


def test_a_standings_file_is_checked_field_by_field(reference):
    out, _ = reference
    good = json.loads((out / "standings.json").read_text())

    def refused(change, message):
        doc = json.loads(json.dumps(good))
        change(doc)
        with pytest.raises(StandingsError, match=message):
            parse_standings(json.dumps(doc))

    refused(lambda d: d.update(schema=2), "schema 2 is not supported")
    refused(lambda d: d["entrants"][0].update(imps=d["entrants"][0]["imps"] + 1), "IMPs do not add up")
    refused(lambda d: d["entrants"][0].update(rank=2), "by rank")
    refused(lambda d: d["pairings"][0].update(state="playing"), "state is 'playing'")
    refused(lambda d: d["pairings"][0].update(color="red"), r"pairings\.0\.color")
    refused(lambda d: d["pairings"][0].update(los=1.5), r"pairings\.0\.los")
    first = good["pairings"][0]
    refused(lambda d: d["matrix"][first["b"]][first["a"]].update(boards=99), "mirror")
    refused(lambda d: d["matrix"][first["a"]].pop(first["b"]), "a cell for each pair")
    refused(lambda d: d.update(finished=False), "finished says otherwise")
    with pytest.raises(StandingsError, match="JSON"):
        parse_standings("{not json")


def test_entrants_pairings_and_bad_input():
    assert parse_entrant("fast") == ("fast", "fast")
    assert parse_entrant("me=bench/x.toml") == ("me", "bench/x.toml")
    assert parse_entrant("bench/selfplay-no-inference.toml") == ("selfplay-no-inference",
                                                                 "bench/selfplay-no-inference.toml")
    assert parse_entrant("ben=cmd:ben --x=1 {host} {port} {seat}") == ("ben", "cmd:ben --x=1 {host} {port} {seat}")
    for bad, message in [("cmd:prog {seat}", "needs a name"), ("two words=fast", "one word"), ("x=", "expected")]:
        with pytest.raises(TournamentError, match=message):
            parse_entrant(bad)
    assert pairings_of("round-robin", "abcd") == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"),
                                                  ("c", "d")]
    assert pairings_of("gauntlet", "abcd") == [("a", "b"), ("a", "c"), ("a", "d")]
    with pytest.raises(TournamentError, match="at least two entrants"):
        load_entrants(["fast"], seed=1)
    with pytest.raises(TournamentError, match="two entrants are named 'fast'"):
        load_entrants(["fast", "fast"], seed=1)
    with pytest.raises(TournamentError, match="neither a preset"):
        load_entrants(["fast", "nonesuch"], seed=1)
    with pytest.raises(TournamentError, match=r"\{seat\}"):
        load_entrants(["fast", "x=cmd:prog"], seed=1)
    # an entrant's own file keeps its seed; the others get the run's
    seeded = load_entrants(["fast", "x=cmd:prog {seat}"], seed=5)[0]
    assert seeded.team.params.seed == 5


@pytest.mark.parametrize("args, message", [
    (["-e", "fast"], "at least two entrants"),
    (["-e", "fast", "-e", "f2=fast", "--sprt", "0,0.5"], "--format gauntlet"),
    (["-e", "fast", "-e", "f2=fast", "--format", "swiss"], "format"),
    (["-e", "fast", "-e", "f2=fast", "--boards-file", "/nonexistent.pbn"], "cannot read boards file"),
])
def test_bad_input_is_refused_clearly(tmp_path, args, message):
    r = subprocess.run([*SQUEEZE, "tournament", "--out", str(tmp_path / "out"), *args], capture_output=True,
                       text=True, env=ENV, timeout=60)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_boards_from_a_file_keep_its_dealer_and_vulnerability(tmp_path):
    from squeeze.engine.pbn import encode_pbn, write_pbn
    from squeeze.robot.selfplay.run import Run
    from squeeze.robot.selfplay.worker import run_chunk
    from squeeze.robot.tm.plan import random_boards

    # board 1 as a file gives it: West deals, both vulnerable (board 1 of the rules: North, none)
    deals = [BoardRecord(board=b.board, deal=b.deal, dealer=Seat.WEST, vul=Vul.BOTH) for b in random_boards(1, 3, 9)]
    path = tmp_path / "deals.pbn"
    path.write_bytes(encode_pbn(write_pbn(deals)))
    s = TournamentSettings(entrants=["fast", "f2=fast"], boards=2, boards_file=path, out=tmp_path / "out")
    prep = prepare_tournament(s, load_entrants(s.entrants, seed=1, engine={"worlds": 2}))
    try:
        stored = prep.store.deals()
        assert [b.board for b in stored] == [1, 2] and [b.deal for b in stored] == [d.deal for d in deals[:2]]
        assert {(b.dealer, b.vul) for b in stored} == {(Seat.WEST, Vul.BOTH)}
        run = Run(prep, strict=False, sprt=None)
        (outcome,) = run_chunk(prep.pairings[0].job, run.items([1]))
        record = BoardRecord.from_json(outcome.open)
        assert (record.dealer, record.vul) == (Seat.WEST, Vul.BOTH) and outcome.dd is not None
    finally:
        prep.store.close()
    with pytest.raises(TournamentError, match="has 3 boards; 5 asked for"):
        prepare_tournament(s.model_copy(update={"boards": 5, "out": tmp_path / "other"}),
                           load_entrants(s.entrants, seed=1))


def test_a_gauntlets_pairings_stop_by_sprt_each_on_its_own(tmp_path):
    # the same engine three times: every board flat, so each pairing accepts "no edge" once flat boards have
    # outweighed the test's prior of the spread (a few boards for an edge of 3 IMPs)
    from squeeze.engine.stats import Sprt

    expected = Sprt(0, 3, min_boards=3).first_verdict([0] * 30).boards
    assert 3 < expected < 15
    s = TournamentSettings(entrants=["fast", "f2=fast", "f3=fast"], format="gauntlet", boards=30, workers=2,
                           chunk_boards=1, sprt="0,3", sprt_min_boards=3, out=tmp_path)
    report = run_tournament(s, load_entrants(s.entrants, seed=1, engine={"worlds": 2}))
    assert report.stopped is None and report.standings.finished
    for p in report.standings.pairings:
        assert p.state == "decided" and p.sprt.verdict == "H0" and p.sprt.boards == expected
        assert expected <= p.boards < 30 and p.flat == p.boards
    assert parse_standings((tmp_path / "standings.json").read_bytes()) == report.standings


@pytest.mark.slow
def test_an_external_robot_plays_its_pairing_through_the_table_manager(tmp_path, files):
    # the external robot is our own seat program, launched per seat as any other program would be
    robot = f"cmd:{sys.executable} -m squeeze.robot.cli seat --host {{host}} --port {{port}} --seat {{seat}} " \
            f"--team {{team}} --preset fast --worlds 2"
    args = [*SQUEEZE, "tournament", "--preset", "fast", "--worlds", "2", "-e", "fast", "-e", f"ext={robot}",
            "-e", f"tricks={files[1]}", "--format", "gauntlet", "--boards", "1", "-j", "2",
            "--out", str(tmp_path)]
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stderr
    standings = parse_standings((tmp_path / "standings.json").read_bytes())
    via = {p.match: (p.via, p.boards + p.voided, p.state) for p in standings.pairings}
    assert via == {"fast v ext": ("table-manager", 1, "finished"), "fast v tricks": ("in-process", 1, "finished")}
    results, _ = rows(tmp_path)
    assert sorted(results) == sorted((m, room, 1) for m in via for room in ("Open", "Closed"))
    # the manager's own store and files beside, its line log in a file rather than over the standings
    assert (tmp_path / "tm" / "fast_v_ext" / "results.sqlite").exists()
    assert (tmp_path / "tm" / "fast_v_ext" / "match.log").read_text().count('"tm.line"') > 50
    assert '"tm.line"' not in r.stderr
    # done: the same command copies nothing twice
    again = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert again.returncode == 0 and rows(tmp_path)[0] == results
