"""``robot.runlog``: the fsync'd JSON-lines run log that long runs append to and resume from."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from squeeze.robot.runlog import RunLog, RunLogContents, RunLogError, TornLine


def test_records_come_back_in_order_one_line_each(tmp_path):
    log = RunLog(tmp_path / "run.jsonl")
    assert log.read() == RunLogContents(())  # no file yet: nothing done
    records = [{"i": i, "deal": "N:AK94.T82.K73.QJ5 - - -", "made": i % 2 == 0, "café": None} for i in range(5)]
    for r in records:
        log.append(r)
    assert log.read() == RunLogContents(tuple(records))
    text = (tmp_path / "run.jsonl").read_text(encoding="utf-8")
    assert text.endswith("\n") and [json.loads(x) for x in text.splitlines()] == records
    assert RunLog(tmp_path / "run.jsonl").read().records == tuple(records)  # another reader, the same records


def test_resume_keys(tmp_path):
    log = RunLog(tmp_path / "run.jsonl")
    for r in ({"type": "filter", "i": 1}, {"type": "play", "i": 1, "config": "M1"},
              {"type": "play", "i": 2, "config": "M3"}):
        log.append(r)
    done = log.done(lambda r: (r["i"], r["config"]) if r["type"] == "play" else None)
    assert done == {(1, "M1"), (2, "M3")}


def test_a_torn_last_line_is_reported_and_cut_by_the_next_append(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"i": 0}\n{"i": 1}\n{"i": 2, "dea')  # a crash in the middle of the third append
    log = RunLog(path)
    assert log.read() == RunLogContents(({"i": 0}, {"i": 1}), TornLine(3, '{"i": 2, "dea'))
    log.append({"i": 2})
    assert path.read_bytes() == b'{"i": 0}\n{"i": 1}\n{"i": 2}\n'
    assert log.read() == RunLogContents(({"i": 0}, {"i": 1}, {"i": 2}))


def test_a_torn_multibyte_character_is_a_torn_line_too(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"i": 0}\n' + '{"name": "Zoë"}\n'.encode()[:13])  # cut inside the two bytes of ë
    contents = RunLog(path).read()
    assert contents.records == ({"i": 0},) and contents.torn is not None and contents.torn.line == 2


def test_a_last_object_without_its_line_end_is_kept(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"i": 0}\n{"i": 1}')  # only the line end was lost
    log = RunLog(path)
    assert log.read() == RunLogContents(({"i": 0}, {"i": 1}))
    log.append({"i": 2})
    assert path.read_bytes() == b'{"i": 0}\n{"i": 1}\n{"i": 2}\n'


@pytest.mark.parametrize("middle", [b"garbage", b'{"i": 1', b"[1, 2]", b'"text"', b'{"name": "\xff"}'])
def test_a_bad_line_before_the_last_is_an_error_naming_it(tmp_path, middle):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"i": 0}\n' + middle + b'\n{"i": 2}\n')
    with pytest.raises(RunLogError, match=r"run\.jsonl:2: not a JSON object"):
        RunLog(path).read()


def test_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"i": 0}\n\n  \n{"i": 1}\n')
    assert RunLog(path).read() == RunLogContents(({"i": 0}, {"i": 1}))


@pytest.mark.parametrize("record, message", [
    ([1, 2], "is a JSON object, got list"),
    ({"when": {1, 2}}, "JSON-able"),
])
def test_append_refuses_what_is_not_a_json_object(tmp_path, record, message):
    log = RunLog(tmp_path / "run.jsonl")
    with pytest.raises(RunLogError, match=message):
        log.append(record)
    assert not (tmp_path / "run.jsonl").exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="names an fsync'd descriptor through /proc")
def test_append_returns_only_after_fsync_of_the_file_and_of_a_new_files_folder(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    synced: list[tuple[str, int]] = []
    real_fsync = os.fsync

    def fsync(fd):
        # what is on disk at each fsync: the folder (a directory handle) or the log's bytes so far
        target = os.readlink(f"/proc/self/fd/{fd}")
        synced.append((target, path.stat().st_size if target == str(path) else -1))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    log = RunLog(path)
    log.append({"i": 0})
    assert synced == [(str(path), 9), (str(tmp_path), -1)]  # the record, then the new file's name
    log.append({"i": 1})
    assert synced[2:] == [(str(path), 18)]


CHILD = textwrap.dedent("""
    import sys
    from squeeze.robot.runlog import RunLog

    log = RunLog(sys.argv[1])
    i = 0
    while True:
        log.append({"i": i, "pad": "x" * 50_000})  # large records: more of each one's time is spent writing
        print(i, flush=True)  # acknowledged: append returned, so the record is on disk
        i += 1
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_writer_killed_mid_run_loses_no_acknowledged_record(tmp_path):
    path = tmp_path / "run.jsonl"
    for run in range(3):  # each run resumes the log the killed one left
        start = len(RunLog(path).read().records)
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True)
        acknowledged = []
        for line in child.stdout:
            acknowledged.append(int(line))
            if len(acknowledged) == 20 + 7 * run:
                break
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        contents = RunLog(path).read()  # a torn last line, if the kill came mid-write, is reported, not a record
        numbers = [r["i"] for r in contents.records]
        # every acknowledged record is there, in order, each whole; at most the one being written beyond them
        assert numbers[start:start + len(acknowledged)] == acknowledged
        assert len(numbers) - start - len(acknowledged) in (0, 1)
        assert all(r["pad"] == "x" * 50_000 for r in contents.records)
    RunLog(path).append({"i": "last"})
    after = RunLog(path).read()
    assert after.torn is None and after.records[-1] == {"i": "last"}
