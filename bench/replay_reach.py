"""The boards of a stored BEN run that the rule changes after its commit can reach at one of our calls: the
``--only`` list of the rerun that patches a replay to the final code (``ben_match.py --report-only --patch``).

Each change since the replay's commit (980820e) is listed with the auctions it can change, read from the run's
ledger (either form: the store's, or one table board a line) by the call our robot made and its explanation:

- 4d32e7b (``ovc.over_1n``): our call after their 1x, our pass and their 1NT response;
- 815318e (``adv.pre.*``): our side's three-level preemptive overcall, advanced by us;
- 2198a69 (``negreb.raised.*``, ``negr.*``): their raise right after our negative double;
- 562e5b9 (the ninth trump): our invitation opposite our 1NT opening after a transfer or Stayman.

A board is listed when either room reached one of them: its two rooms are played again. (A simulated call's
projections bid later calls with the rules too; a projection can only reach these sequences where the auction
itself already has, so the list covers them.)

    .venv/bin/python bench/replay_reach.py bench/ben/final2.jsonl

ends with ``RESULT boards=N only=3,11,...``.
"""

from __future__ import annotations

import json
import sys

SEATS = "NESW"


def table_boards(path: str):
    """(room, record as a dict) for every finished table board of a ledger, of either form."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            if "record" in d:
                yield d["room"], d["record"]
            elif d.get("table") == "results":
                yield d["row"]["room"], json.loads(d["row"]["record"])


def reached(room: str, r: dict) -> list[str]:
    calls = r["auction"]
    dealer = SEATS.index(r["dealer"][0]) if isinstance(r["dealer"], str) else int(r["dealer"])
    ours = {0, 2} if room == "Open" else {1, 3}  # (our robot sits North-South in the open room)
    notes = r.get("call_notes", [])
    why = []
    o = next((i for i, c in enumerate(calls) if c != "P"), None)
    if (o is not None and (dealer + o) % 4 not in ours and calls[o][0] == "1" and calls[o][1] in "CDHS"
            and len(calls) > o + 3 and calls[o + 1] == "P" and calls[o + 2] == "1N"):
        why.append("4d32e7b: after their 1NT response")
    for i, n in enumerate(notes):
        if (dealer + i) % 4 not in ours:
            continue
        text = n.get("explanation") or ""
        if text.startswith("Preemptive overcall"):
            why.append("815318e: our preemptive overcall")
        if (text.startswith("Negative double") and len(calls) > i + 1 and calls[i + 1] not in ("P", "X", "XX")
                and calls[i + 1][1:] == calls[i - 1][1:]):
            why.append("2198a69: their raise after our negative double")
        if text.startswith(("Four-card", "Six or more", "Exactly five")) and "invitational" in text \
                and "1N" in calls[:i]:
            why.append("562e5b9: our invitation opposite 1NT")
    return why


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: replay_reach.py LEDGER")
    boards: dict[int, set[str]] = {}
    for room, r in table_boards(sys.argv[1]):
        for why in reached(room, r):
            boards.setdefault(int(r["board"]), set()).add(f"{room}: {why}")
    for b in sorted(boards):
        print(b, "; ".join(sorted(boards[b])))
    print(f"RESULT boards={len(boards)} only={','.join(map(str, sorted(boards)))}")


if __name__ == "__main__":
    main()
