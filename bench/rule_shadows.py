"""Rules that never make their call: a rule whose ``when`` holds for hands that reach it, yet some rule tried before it
(higher priority, or earlier in the file) holds for every one of them, is dead where it stands. A priority slip
makes one silently (``rr.after_2n_5major``, five of responder's major after ``1s P 1t P 2N``, sat under the plain
3NT from the first wave on), and no test of the calls that are made notices a call that never is.

The auctions are the ones the rules themselves bid on seeded random deals (``bidding_par``'s deals). At each
distinct decision point the candidates are tried on the hand that was there and on random hands *consistent with
the seat's own earlier calls* (the rules make exactly those calls with it: the hands the rule could meet). For each
rule: how often its ``when`` held, how often it made the call, and which earlier rule took its hands. A rule that
held and never made its call is reported as shadowed; one that made it on under ``--rare`` of the hands where it
held is listed as nearly so. A shadowed rule is not always a bug (a deliberate fallback behind a wider rule on the
hands seen), so the report is for reading, not a test.

    python bench/rule_shadows.py --deals 1500 --seed 11 [--rules FILE] [--hands 40] [--json OUT] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bidding_par import deal_of  # noqa: E402
from rules import load_rules  # noqa: E402

from squeeze.engine.auction import Auction  # noqa: E402
from squeeze.engine.bidding import Bidder  # noqa: E402
from squeeze.engine.bidding.features import features_into  # noqa: E402
from squeeze.engine.bidding.interpreter import _GENERIC_GROUPS, _holds  # noqa: E402

#: attempts at drawing one consistent hand per decision point before giving up on more
_ATTEMPTS = 60


def _behind_by_design(rule) -> bool:
    """Catch-alls, a family's own fallbacks and the generic layers stand behind the rules proper on purpose."""
    return rule.spec.priority < 10 or "fallback" in rule.id or rule.spec.group in _GENERIC_GROUPS or \
        rule.id.startswith("__")


def _random_bits(rng: random.Random) -> int:
    bits = 0
    for i in rng.sample(range(52), 13):
        bits |= 1 << i
    return bits


class Tally:
    def __init__(self) -> None:
        self.hands_at = Counter()  # rule id -> hands tried where it was a candidate
        self.held = Counter()  # rule id -> hands its when held for, where it was a candidate
        self.made = Counter()  # rule id -> hands it made the call for
        self.other = Counter()  # rule id -> hands an earlier rule took with another call
        self.takers: dict[str, Counter] = defaultdict(Counter)  # rule id -> earlier rules that took its hands
        self.example: dict[str, str] = {}  # rule id -> an auction where it was shadowed
        self.points = 0
        self.hands = 0


def survey(bidder: Bidder, boards, hands: int, rng: random.Random) -> Tally:
    t = Tally()
    seen = set()
    for _n, deal, dealer, vul in boards:
        a = Auction(dealer)
        while not a.is_complete:
            calls = tuple(a.calls)
            seat = a.next_seat
            parity = (int(dealer) + len(calls)) & 1
            key = (int(dealer), calls, int(vul))
            real = deal[seat].bits
            if key not in seen:
                seen.add(key)
                _point(bidder, t, dealer, calls, vul, parity, real, hands, rng)
            a = a.then(bidder.choose(deal[seat], a, vul, alternatives=False).call)
    return t


def _point(bidder: Bidder, t: Tally, dealer, calls, vul, parity: int, real: int, hands: int,
           rng: random.Random) -> None:
    test = bidder.call_test(dealer, calls, vul, parity)
    own = [(bidder.call_test(dealer, calls[:j], vul, parity), calls[j]) for j in range(len(calls) % 4, len(calls), 4)]
    sample = [real]
    for _ in range(hands * _ATTEMPTS):
        if len(sample) > hands:
            break
        b = _random_bits(rng)
        if all(ct.first(b) == call for ct, call in own):
            sample.append(b)
    t.points += 1
    cands = bidder.candidates(dealer, calls, vul, parity)
    for bits in sample:
        t.hands += 1
        env = features_into(test.base.copy(), bits)  # the interpreter's own test of a candidate, as in choose
        first = first_call = None
        for c in cands:
            rule = c.rule
            t.hands_at[rule.id] += 1
            holds = rule.trivial_when or _holds(c, env)
            if _behind_by_design(rule):
                if first is None and holds:
                    first, first_call = rule.id, c.call
                continue
            if not holds:
                continue
            t.held[rule.id] += 1
            if first is None:
                first, first_call = rule.id, c.call
                t.made[rule.id] += 1
            elif first != rule.id:
                t.takers[rule.id][first] += 1
                if first_call != c.call:
                    t.other[rule.id] += 1
                    t.example.setdefault(rule.id, " ".join(str(x) for x in calls) or "(opening)")

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--rules", default="sayc", help="rule file (.toml), packaged system name or git:REV")
    ap.add_argument("--hands", type=int, default=40, help="consistent random hands per decision point")
    ap.add_argument("--min-held", type=int, default=5, help="report a rule only when its when held this often")
    ap.add_argument("--rare", type=float, default=0.02, help="also list rules that made the call under this share")
    ap.add_argument("--json", type=Path, help="write every rule's counts here")
    ap.add_argument("--quick", action="store_true", help="100 deals, 20 hands per decision point")
    args = ap.parse_args()
    if args.quick:
        args.deals, args.hands = 100, 20
    system = load_rules(args.rules)
    bidder = Bidder(system)
    boards = [deal_of(args.seed, i) for i in range(args.deals)]
    t0 = time.monotonic()
    t = survey(bidder, boards, args.hands, random.Random(args.seed))
    print(f"{args.deals} deals (seed {args.seed}), {t.points} decision points, {t.hands} hands tried, "
          f"{time.monotonic() - t0:.0f}s; rules {args.rules}")
    ids = [r.id for r in system.rules if not _behind_by_design(r)]
    never = [i for i in ids if t.held[i] == 0]
    # shadowed: never made its call, and earlier rules took its hands with another call (a rule whose hands an
    # earlier rule takes with the same call is redundant, not wrong: listed apart)
    dead = sorted((i for i in ids if t.held[i] >= args.min_held and t.made[i] == 0 and t.other[i]),
                  key=lambda i: -t.other[i])
    same = [i for i in ids if t.held[i] >= args.min_held and t.made[i] == 0 and not t.other[i]]
    rare = sorted((i for i in ids if t.held[i] >= args.min_held and 0 < t.made[i] < args.rare * t.held[i]),
                  key=lambda i: t.made[i] / t.held[i])
    print(f"\nshadowed: held {args.min_held}+ times, never made the call, another call taken instead ({len(dead)})")
    for i in dead:
        top = ", ".join(f"{k} {v}" for k, v in t.takers[i].most_common(3))
        print(f"  {i:40s} held {t.held[i]:5d} (another call {t.other[i]:5d})  taken by {top}   e.g. "
              f"{t.example.get(i, '')}")
    print(f"\nredundant: never made the call, but an earlier rule always made the same call ({len(same)}): "
          + ", ".join(same))
    print(f"\nnearly shadowed: made the call on under {args.rare:.0%} of the hands it held for ({len(rare)})")
    for i in rare:
        top = ", ".join(f"{k} {v}" for k, v in t.takers[i].most_common(2))
        print(f"  {i:40s} made {t.made[i]:4d} of {t.held[i]:5d}  taken by {top}")
    print(f"\nnot met at all on these deals: {len(never)} of {len(ids)} rules (rare auctions; more deals reach more)")
    print(f"RESULT deals={args.deals} seed={args.seed} points={t.points} hands={t.hands} shadowed={len(dead)} "
          f"redundant={len(same)} nearly={len(rare)} unmet={len(never)}")
    if args.json:
        args.json.write_text(json.dumps({i: {"held": t.held[i], "made": t.made[i], "other_call": t.other[i],
                                             "takers": dict(t.takers[i].most_common(5))} for i in ids}, indent=1))


if __name__ == "__main__":
    main()
