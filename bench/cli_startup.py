"""What a ``squeeze`` command costs before it does anything: CPU seconds to start, this tree's CLI against a
reference commit's, interleaved.

The reference is the reference commit's ``robot/cli.py`` (``git show REF:robot/cli.py``), run as a script with this
tree's installed package beside it: the command line as it was, on the same engine, settings and libraries. Each
repetition runs every command once with each CLI, alternately (ours, reference, ours, ...), so load on the machine
falls on both alike; the CPU time of each run is its own (user + system, ``resource.getrusage`` of the finished
child). Reports the median per command and CLI, and the ratio reference / ours (how many times cheaper a start is
now). On a quiet machine ``squeeze score --help`` should take under 0.4 s of CPU.

    .venv/bin/python bench/cli_startup.py [--quick] [--reps 15] [--ref 9701cef]

Ends with ``RESULT reps=.. score_help_ours=.. score_help_ref=.. score_help_ratio=.. help_ratio=.. score_ratio=..
deal_help_ratio=..``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "score_help": ["score", "--help"],
    "help": ["--help"],
    "score": ["score", "4HX", "S", "10", "--vul", "All"],
    "deal_help": ["deal", "--help"],
}


def cpu_of(argv: list[str]) -> float:
    """CPU seconds (user + system) of one run of ``argv`` to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env={**{k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")},
                            "COLUMNS": "120"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 repetitions")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--ref", default="9701cef", help="the reference commit (default: main before the lazy CLI)")
    args = ap.parse_args()
    reps = 5 if args.quick else args.reps
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.ref}:robot/cli.py"], capture_output=True,
                            text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        ref_cli = Path(tmp) / "cli_reference.py"
        ref_cli.write_text(source)
        clis = {"ours": [sys.executable, "-m", "squeeze.robot.cli"], "ref": [sys.executable, str(ref_cli)]}
        times: dict[tuple[str, str], list[float]] = {(c, k): [] for c in COMMANDS for k in clis}
        for i in range(reps):
            for command, tail in COMMANDS.items():
                order = ("ours", "ref") if i % 2 == 0 else ("ref", "ours")
                for kind in order:
                    times[(command, kind)].append(cpu_of(clis[kind] + tail))
    med = {key: statistics.median(v) for key, v in times.items()}
    print(f"CPU seconds to run each command, median of {reps} interleaved runs (reference: {args.ref}):")
    print(f"  {'command':<28} {'ours':>7} {'ref':>7} {'ref/ours':>9}")
    for command, tail in COMMANDS.items():
        ours, ref = med[(command, "ours")], med[(command, "ref")]
        print(f"  squeeze {' '.join(tail):<20} {ours:7.3f} {ref:7.3f} {ref / ours:9.2f}")
    fields = [f"reps={reps}", f"score_help_ours={med[('score_help', 'ours')]:.3f}",
              f"score_help_ref={med[('score_help', 'ref')]:.3f}"]
    fields += [f"{c}_ratio={med[(c, 'ref')] / med[(c, 'ours')]:.2f}" for c in COMMANDS]
    print("RESULT " + " ".join(fields))


if __name__ == "__main__":
    main()
