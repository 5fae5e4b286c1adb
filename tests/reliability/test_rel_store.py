"""The results folder going bad: a read-only folder is refused before anything listens; a disk that fills mid-run
stops the manager with a clear error before any table moves on past a board it could not store, and ``--resume``
then finishes every board once (``harness.FaultPlan.disk_full``, which checks the exit code and the message)."""

import asyncio
import os
import stat
import subprocess

from harness import SQUEEZE, FaultPlan, TMProcess, run_tables


async def test_a_disk_that_fills_mid_run_stops_the_manager_then_resume_loses_nothing(tmp_path):
    report = await run_tables(tmp_path, matches=2, boards=5, seed=11, faults=FaultPlan(max_drops=0, disk_full=1),
                              timeout=120)
    assert report.problems == [] and report.faults["disk_full"] == 1
    assert (report.lost, report.duplicated, report.mismatched, report.stored) == (0, 0, 0, report.planned)
    first = (tmp_path / "tm-0.err").read_text()
    assert "squeeze tm: stopped, the results store cannot write: cannot write board" in first
    assert '"tm.store_failed"' in first


def test_a_read_only_results_folder_is_refused_before_anything_listens(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    # Root writes anywhere whatever the mode bits say: for root the folder is made immutable (chattr +i), which
    # stops root too; anyone else gets a folder without write permission.
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], check=True)
    else:
        os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, out, err = asyncio.run(_run([SQUEEZE, "tm", "--port", "0", "--out", str(folder), "--boards", "2"]))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        os.chmod(folder, stat.S_IRWXU)
    assert code == 2, (code, err)
    assert f"error: cannot open {folder}/results.sqlite for writing" in err and "read-only" in err
    assert "listening" not in out
    assert list(folder.iterdir()) == []


async def _run(argv):
    proc = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode, out.decode(), err.decode()


async def test_a_resumed_run_whose_boards_are_all_stored_ends_at_once(tmp_path):
    # The manager killed just after sending a table's End of session: its robots are gone for good, so the resumed
    # manager must not wait for them (it did, forever, before: found by the fault run).
    tm = TMProcess(tmp_path, matches=1, boards=1)
    report = await run_tables(tmp_path / "first", matches=1, boards=1, timeout=60)
    assert report.stored == 2
    tm.out = tmp_path / "first" / "out"
    tm.match_file = tmp_path / "first" / "matches.toml"
    await tm.start(resume=True)
    assert await tm.wait(20) == 0


async def test_files_that_cannot_be_written_at_the_end_stop_with_a_clear_error_and_resume_writes_them(tmp_path):
    # Every board stored, then the disk is full as the files are written (found by the fault run: a traceback and
    # exit 1). Here ``boards.pbn`` cannot be opened for writing (a folder of that name stands in for a full disk).
    report = await run_tables(tmp_path / "first", matches=1, boards=1, timeout=60)
    assert report.stored == 2
    out = tmp_path / "first" / "out"
    (out / "boards.pbn").unlink()
    (out / "boards.pbn").mkdir()
    tm = TMProcess(tmp_path / "again", matches=1, boards=1)
    tm.out, tm.match_file = out, tmp_path / "first" / "matches.toml"
    await tm.start(resume=True)
    assert await tm.wait(20) == 3
    err = tm.stderr()
    assert "squeeze tm: stopped, the results files cannot be written to" in err and "same command" in err
    assert "Traceback" not in err
    (out / "boards.pbn").rmdir()
    await tm.start(resume=True)
    assert await tm.wait(20) == 0
    assert (out / "boards.pbn").read_text().count("[Board ") == 2
