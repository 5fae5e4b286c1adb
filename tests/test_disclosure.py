"""Reading the ranges of an opponent's explanation (engine/bidding/disclosure.py): real texts from BEN's seats,
round trips of generated ones, and any text at all never raising."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from squeeze.engine.bidding.disclosure import read_disclosure
from squeeze.engine.sampling import SeatConstraints

FULL = (0, 13)


def test_texts_from_ben():
    got = read_disclosure("Inverted minors -- 6-!C; 4+!D; 3-!H; 3-!S; 10-29 HCP; Artificial; Forcing")
    assert got == SeatConstraints(hcp=(10, 29), lengths=((0, 6), (4, 13), (0, 3), (0, 3)))
    got = read_disclosure("Cue bid -- 6+!C; 6-!D; 3=!H; 3-!S; 11-14 HCP; Artificial")
    assert got == SeatConstraints(hcp=(11, 14), lengths=((6, 13), (0, 6), (3, 3), (0, 3)))
    assert read_disclosure("; 11- HCP; Artificial; Forcing") == SeatConstraints(hcp=(0, 11))
    assert read_disclosure("Jacoby 2NT -- 4-!H; 4+!S; 11+ HCP; Artificial; GF") == \
        SeatConstraints(hcp=(11, 37), lengths=(FULL, FULL, (0, 4), (4, 13)))
    # BBO's symbols, and a range given twice narrows
    assert read_disclosure("5+♠, 11-16 HCP; 6-♠") == SeatConstraints(hcp=(11, 16), lengths=(FULL, FULL, FULL, (5, 6)))


def test_texts_without_ranges_tell_nothing():
    for text in ("", "Stayman", "Blackwood 0314, for !S", "A=2/5 or 5/5, Q(S)=0", "raise to 3!S", "over 2S",
                 "Four or more hearts, 6+ points (forcing)", "Artificial; Forcing"):
        assert read_disclosure(text) is None, text
    # ranges no hand can have: a garbled text refutes nothing
    assert read_disclosure("5+!S; 5+!H; 5+!D") is None
    assert read_disclosure("12-10 HCP") is None


def _bound(draw, top):
    kind = draw(st.sampled_from(["plus", "minus", "range", "eq"]))
    lo = draw(st.integers(0, top))
    if kind == "plus":
        return f"{lo}+", (lo, top)
    if kind == "minus":
        return f"{lo}-", (0, lo)
    if kind == "eq":
        return f"{lo}=", (lo, lo)
    hi = draw(st.integers(lo, top))
    return f"{lo}-{hi}", (lo, hi)


@st.composite
def disclosures(draw):
    items, lengths = [], [FULL] * 4
    for suit, name in enumerate("CDHS"):
        if draw(st.booleans()):
            text, rng = _bound(draw, 13)
            items.append(f"{text}{draw(st.sampled_from(['!', '']))}{name}")
            lengths[suit] = rng
    hcp = (0, 37)
    if draw(st.booleans()) or not items:
        text, hcp = _bound(draw, 37)
        items.append(f"{text} HCP")
    items += draw(st.lists(st.sampled_from(["Artificial", "Forcing", "GF", "Cue bid"]), max_size=2))
    order = draw(st.permutations(items))
    return "; ".join(order), SeatConstraints(hcp=hcp, lengths=tuple(lengths))


@given(disclosures())
@settings(max_examples=300, deadline=None)
def test_generated_texts_read_back(case):
    text, want = case
    possible = (sum(lo for lo, _ in want.lengths) <= 13 <= sum(hi for _, hi in want.lengths))
    assert read_disclosure(text) == (want if possible else None)


@given(st.text(alphabet=st.sampled_from(list("0123456789+-=!;, CDHSNT♠♥♦♣HCPhcpx")), max_size=40))
@settings(max_examples=500, deadline=None)
def test_any_text_reads_to_ranges_some_hand_has_or_nothing(text):
    got = read_disclosure(text)
    if got is not None:
        assert got.hcp[0] <= got.hcp[1]
        assert all(lo <= hi for lo, hi in got.lengths)
        assert sum(lo for lo, _ in got.lengths) <= 13 <= sum(hi for _, hi in got.lengths)
