"""bench/rule_shadows.py finds a rule that never makes its call because an earlier rule takes every hand it holds
for, and does not accuse a rule that makes its call some of the time."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from squeeze.engine.bidding import Bidder, parse_system

_spec = importlib.util.spec_from_file_location("bench_rule_shadows",
                                               Path(__file__).parent.parent / "bench" / "rule_shadows.py")
rule_shadows = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rule_shadows)

# "wide" (14+, a spade suit) is tried first and takes every hand "narrow" (16+ and five spades) holds for: narrow is
# dead. "again" asks a passed dealer for an opening hand, which his pass denied: the hands tried at his second turn
# are consistent with his pass, so it never holds at all. "clubs" holds for some hands wide does not take (13 HCP and long clubs), so it makes its call sometimes.
SYSTEM = """
[[rule]]
id = "wide"
context = ""
call = "1S"
when = "hcp >= 14 and spades >= 4"
priority = 90
explain = "wide"

[[rule]]
id = "narrow"
context = ""
call = "2S"
when = "hcp >= 16 and spades >= 5"
priority = 80
explain = "narrow"

[[rule]]
id = "clubs"
context = ""
call = "1C"
when = "hcp >= 13"
priority = 70
explain = "clubs"

[[rule]]
id = "again"
context = "P 1C P P"
call = "1D"
when = "hcp >= 13"
priority = 60
explain = "again"

[[rule]]
id = "all_pass"
context = "*"
call = "P"
when = "True"
priority = 0
explain = "pass"
"""


def test_a_rule_behind_a_wider_one_is_found_and_a_live_one_is_not():
    bidder = Bidder(parse_system(SYSTEM, "tiny", "tiny.toml"))
    boards = [rule_shadows.deal_of(5, i) for i in range(200)]
    t = rule_shadows.survey(bidder, boards, hands=40, rng=random.Random(5))
    assert t.held["narrow"] > 0 and t.made["narrow"] == 0 and t.other["narrow"] == t.held["narrow"]
    assert set(t.takers["narrow"]) == {"wide"}
    assert t.made["clubs"] > 0 and t.made["wide"] > 0
    # the seat's own earlier calls bound the hands tried (random hands would hold 13+ a fifth of the time)
    assert t.hands_at["again"] >= 40 and t.held["again"] == 0
