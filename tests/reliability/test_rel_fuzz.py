"""Fuzzing with Hypothesis: mutated real inputs through every parser and protocol machine (``fuzzing.TARGETS``);
only the documented error types, and a rejected line changes no machine. Each target also runs a seeded batch, so
that every run covers a fixed set of inputs besides Hypothesis' own."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

CORPORA = fuzzing.corpora()


@pytest.mark.parametrize("name", sorted(fuzzing.TARGETS))
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_inputs_raise_only_documented_errors(name, data):
    corpus = CORPORA[name]
    seed_input = data.draw(st.sampled_from(corpus))
    rng = data.draw(st.randoms(use_true_random=False))
    text = fuzzing.mutate(seed_input, rng, corpus)
    fuzzing.TARGETS[name](text, data.draw(st.integers(0, 1 << 16)))


@pytest.mark.parametrize("name", sorted(fuzzing.TARGETS))
def test_a_seeded_batch_finds_no_failure_and_exercises_both_outcomes(name):
    accepted, rejected, failures = fuzzing.fuzz(name, 200, seed=1)
    assert failures == []
    assert rejected > 0 and accepted + rejected == 200  # (the mutations reach the error paths)


def test_the_corpus_is_accepted_as_it_is():
    # unmutated, every seed input is valid: the fuzzing starts from inputs that reach deep into each parser
    for name, corpus in CORPORA.items():
        for i, text in enumerate(corpus):
            assert fuzzing.TARGETS[name](text, i) or name in ("client", "table"), (name, text)


def test_mutate_changes_the_input():
    rng = random.Random(3)
    assert sum(fuzzing.mutate("North bids 1NT", rng, ["x"]) != "North bids 1NT" for _ in range(100)) > 80
