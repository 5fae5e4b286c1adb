"""Front arithmetic from the αμ paper's worked examples (our notes §1.13), with vectors written left = world 0."""

from __future__ import annotations

from squeeze.engine.play.fronts import Scorer, dominates, front_leq, front_max, front_min, lift, pareto_insert


def v(text: str) -> int:
    """'1 1 0' -> bitset with world 0 = first digit."""
    bits = text.split()
    return sum(1 << i for i, b in enumerate(bits) if b == "1")


def fs(*texts: str) -> set[int]:
    return {v(t) for t in texts}


def test_pareto_insertion_section_3_2():
    f = [v("1 0 0"), v("0 1 1")]
    assert set(pareto_insert(list(f), v("0 0 1"))) == fs("1 0 0", "0 1 1")  # dominated: unchanged
    assert set(pareto_insert(list(f), v("1 1 0"))) == fs("1 1 0", "0 1 1")  # removes [1 0 0]


def test_fig2_max_and_min_nodes():
    b = front_max([], [v("0 1 1"), v("1 1 0")])
    c = front_max([], [v("1 1 0"), v("1 0 1"), v("1 0 0")])
    assert set(b) == fs("0 1 1", "1 1 0")
    assert set(c) == fs("1 1 0", "1 0 1")
    # Min root: the product {[0 1 0],[0 0 1],[1 1 0],[1 0 0]} reduces to {[0 0 1],[1 1 0]}.
    a = front_min(front_min([v("1 1 1")], b), c)
    assert set(a) == fs("0 0 1", "1 1 0")


def test_fig1_non_locality():
    d = front_max([], [v("1 0 0"), v("0 1 1")])
    e = front_max([], [v("0 0 0"), v("1 0 0")])
    assert set(d) == fs("1 0 0", "0 1 1") and set(e) == fs("1 0 0")
    b = front_min(front_min([v("1 1 1")], d), e)
    assert set(b) == fs("1 0 0")
    assert abs(Scorer([1, 1, 1]).front_mu(b, 0b111) - 1 / 3) < 1e-12
    # Averaging "vector minimax" keeps only d's best-mean vector [0 1 1]: min with e gives [0 0 0], i.e. 0.
    assert v("0 1 1") & v("1 0 0") == 0


def test_fig3_early_cut_condition():
    parent = [v("1 1 0"), v("0 1 1")]
    assert front_leq([v("1 1 0")], parent)  # child c would be cut
    assert not front_leq([v("1 1 1")], parent)
    assert front_leq([], parent)  # vacuous: why the early cut requires a TT entry


def test_four_lines_combining_chances():
    # L1 [1 1 0 0], L2 [0 0 1 1], L3 = a later Max choice between L1 and L2, L4 [1 1 1 1].
    s = Scorer([1, 1, 1, 1])
    all4 = 0b1111
    l3 = front_max([], [v("1 1 0 0"), v("0 0 1 1")])
    assert s.front_mu(l3, all4) == 0.5  # αμ: one branch for all worlds
    pimc_l3 = sum(1 for w in range(4) if any(x >> w & 1 for x in l3)) / 4  # PIMC: best branch per world
    assert pimc_l3 == 1.0 and s.front_mu([v("1 1 1 1")], all4) == 1.0


def test_lift_and_weighted_mu():
    # A child over worlds {0, 1} lifted to {0, 1, 2}: world 2 (move illegal there) must not constrain.
    assert lift([v("1 0 0")], 0b011, 0b111) == [v("1 0 1")]
    s = Scorer([0.5, 0.25, 0.25, 0.0])
    assert abs(s.mu(v("1 0 0 0"), 0b1111) - 0.5) < 1e-12
    assert abs(s.mu(v("0 1 0 1"), 0b0110) - 0.5) < 1e-12
    assert dominates(v("1 1 0"), v("1 0 0")) and not dominates(v("1 0 0"), v("0 1 0"))


def test_scorer_many_worlds_multiword():
    # 100 worlds: bitsets spanning two 64-bit words behave the same.
    n = 100
    s = Scorer([1.0] * n)
    full = (1 << n) - 1
    vec = sum(1 << i for i in range(0, n, 3))
    assert abs(s.mu(vec, full) - 34 / 100) < 1e-12
    f = front_max([], [vec, vec >> 1, (vec >> 1) & vec])
    assert set(f) == {vec, vec >> 1}
