"""The boards of a stored BEN run that the rule changes after its commit can reach at one of our calls: the
``--only`` list of the rerun that patches a replay to the final code (``ben_match.py --report-only --patch``).

Each change since the replay's commit (980820e) is listed with the auctions it can change, read from the run's
ledger by the call our robot made and its explanation:

- 4d32e7b (``ovc.over_1n``): our call after their 1x, our pass and their 1NT response;
- 815318e (``adv.pre.*``): our side's three-level preemptive overcall, advanced by us;
- 2198a69 (``negreb.raised.*``, ``negr.*``): their raise right after our negative double;
- 562e5b9 (the ninth trump): our invitation opposite our 1NT opening after a transfer or Stayman.

A board is listed when either room reached one of them: its two rooms are played again. (A simulated call's
projections bid later calls with the rules too; a projection can only reach these sequences where the auction
itself already has, so the list covers them.)

    .venv/bin/python bench/replay_reach.py bench/ben/final2.jsonl [--quick] [--boards 300] [--seed 1]

``--since RULES`` (``git:REV``, a rule file or a packaged name, as ``bidding_par.py --rules``) lists instead every
board where the rules as they are now would make another call than those rules at one of our turns, the auction as it was played (rules alone, as a projection bids: a simulated call
draws from the rules' candidates, so a turn the rules answer alike is one it is least likely to change).
``--off FEATURE,...`` bids that side with interpreter features added since switched off (``bidding_par.py
--ablate``'s names), so that side is REV's interpreter too:

    .venv/bin/python bench/replay_reach.py bench/ben/fresh.jsonl --since git:1383f31 --off bounded_hulls,denied_hcp

reads the ledger the way ``ben_match.py`` carries a run over (``seed_from_ledger`` into a scratch store, so a bad
line is refused, never half-read; ``--boards``/``--seed`` are the run's, needed for a ledger of the earlier form),
takes our seats from each board's ``players`` and ends with ``RESULT boards=N only=3,11,...``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ben_match import BEN_TM, seed_from_ledger  # noqa: E402

SEATS = "NESW"


def table_boards(ledger: Path, boards: int, seed: int):
    """(our seat indices, record as a dict) for every finished table board of a BEN run's ledger."""
    from squeeze.config.settings import TableManagerSettings
    from squeeze.robot.tm.store import STORE_FILE, ResultsStore, StoreError

    with tempfile.TemporaryDirectory(prefix="replay-reach-") as tmp:
        settings = TableManagerSettings(**{**BEN_TM, "port": 0, "results_dir": tmp, "boards": boards, "seed": seed,
                                           "rooms": 2})
        try:
            seed_from_ledger(Path(tmp), ledger, settings)
        except StoreError as exc:
            raise SystemExit(f"error: {exc}") from None
        store = ResultsStore(Path(tmp) / STORE_FILE, create=False)
        try:
            rows = store.results()
        finally:
            store.close()
    for row in rows:
        r = row.record.to_dict()
        yield our_seats(r), r


def our_seats(r: dict, ours: str = "Squeeze") -> frozenset[int]:
    """The seats our robot held at that table, by the record's ``players``."""
    players = r.get("players") or {}
    seats = frozenset(SEATS.index(s) for s, name in players.items() if name == ours)
    if not seats:
        raise SystemExit(f"error: board {r.get('board')} names no seat played by {ours!r} (players: {players})")
    return seats


def reached(ours: frozenset[int], r: dict) -> list[str]:
    calls = r["auction"]
    dealer = SEATS.index(r["dealer"][0]) if isinstance(r["dealer"], str) else int(r["dealer"])
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


def rules_differ(rules: str, off: list[str]):
    """``differ(ours, record)``: our turns of the played auction where the rules now and ``rules`` (bid with the
    features ``off`` switched off) choose different calls, as "call i: X now, Y with RULES"."""
    from bidding_par import _guards, features_off
    from rules import load_rules

    from squeeze.engine.auction import Auction, Call
    from squeeze.engine.bidding import Bidder
    from squeeze.engine.bidding.rules import parse_system
    from squeeze.engine.cards import Deal, Seat, Vul

    guards = _guards()
    unknown = [f for f in off if f not in guards]
    if unknown:
        raise SystemExit(f"error: unknown feature(s) {', '.join(unknown)} (known: {', '.join(sorted(guards))})")
    now = Bidder.of(load_rules("sayc"))
    then_system = load_rules(rules)
    if then_system is now.system:  # the loader's cached object: a copy of its own, so memos never mix
        then_system = parse_system(then_system.source, then_system.name, then_system.path)
    then = Bidder(then_system)

    def differ(ours: frozenset[int], r: dict) -> list[str]:
        deal = Deal.parse(r["deal"])
        dealer = Seat(SEATS.index(r["dealer"][0]) if isinstance(r["dealer"], str) else int(r["dealer"]))
        vul = Vul.parse(r["vul"])
        calls = [Call.parse(c) for c in r["auction"]]
        out = []
        for i in range(len(calls)):
            seat = dealer.next(i)
            if int(seat) not in ours:
                continue
            a = Auction(dealer, calls[:i])
            x = now.choose(deal[seat], a, vul, alternatives=False).call
            with features_off(off):
                y = then.choose(deal[seat], a, vul, alternatives=False).call
            if x != y:
                out.append(f"call {i + 1}: {x} now, {y} with {rules}")
        return out

    return differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ledger", type=Path)
    ap.add_argument("--boards", type=int, default=300, help="the run's board count (a ledger of the earlier form)")
    ap.add_argument("--seed", type=int, default=1, help="the run's seed (a ledger of the earlier form)")
    ap.add_argument("--quick", action="store_true", help="only boards 1-24")
    ap.add_argument("--since", metavar="RULES", help="every board where today's rules call otherwise than these "
                    "(git:REV, a rule file or a packaged name)")
    ap.add_argument("--off", default="", help="with --since: interpreter features REV did not have (comma-separated)")
    args = ap.parse_args()
    if not args.ledger.is_file():
        raise SystemExit(f"error: no ledger at {args.ledger}")
    differ = rules_differ(args.since, [f for f in args.off.split(",") if f]) if args.since else None
    boards: dict[int, set[str]] = {}
    for ours, r in table_boards(args.ledger, args.boards, args.seed):
        if args.quick and int(r["board"]) > 24:
            continue
        room = "NS" if 0 in ours else "EW"
        for why in (differ(ours, r) if differ else reached(ours, r)):
            boards.setdefault(int(r["board"]), set()).add(f"ours {room}: {why}")
    for b in sorted(boards):
        print(b, "; ".join(sorted(boards[b])))
    print(f"RESULT boards={len(boards)} only={','.join(map(str, sorted(boards)))}")


if __name__ == "__main__":
    main()
