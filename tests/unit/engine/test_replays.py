"""A reported case replayed once (issue 16): the interpreter's run of a zero-based candidate is
its own replay when nothing smaller was found (`divergences.ran_as_replayed`), and only then."""

from __future__ import annotations

import random

import pytest

from benchmarks import loops
from fmtcheck.common.errors import LimitExceeded
from fmtcheck.common.options import Options
from fmtcheck.engine import divergences
from fmtcheck.engine.divergences import ran_as_replayed
from fmtcheck.engine.inputs import NUMBER_VIEW, VectorInputs, zero_value
from fmtcheck.engine.verdict import verify_sources
from tests._runners import traced_runner

PAIRS = {
    "counted slip": loops.counted(3, True),
    "chain lost separator": loops.chain(3, True),
    "list slip": loops.list_walk(3, True),
    "cpu lost separator": loops.cpu_row(3, True),
    "rows slip": loops.flag_rows(4, 2),
}


def _random_vector(rng: random.Random, kinds: dict) -> dict:
    vector = {}
    for key, kind in kinds.items():
        if rng.random() < 0.5:
            continue
        if kind[0] == "str":
            vector[key] = rng.choice([b"", b"a", b"eth0", b"xyz%d"])
        elif kind[0] == "loop":
            vector[key] = rng.randrange(0, 5)
        else:
            vector[key] = rng.choice([0, 1, 2, 9, 10, 255, -1, 1 << 33])
    return vector


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_a_zero_based_run_is_what_its_replay_runs(name):
    """Oracle: wherever ran_as_replayed says so, the replay (its inputs named, the rest zero)
    prints the same bytes, reads the same keys and lists the same inputs, over random vectors."""
    old, new = PAIRS[name]
    runner = traced_runner(old.encode(), new.encode())
    rng = random.Random(name)
    checked = 0
    for _ in range(25):
        source = VectorInputs(_random_vector(rng, runner.kinds), zero=True)
        try:
            outcome = runner.run_slow(source)
        except LimitExceeded:
            continue  # a count past the step bound
        if outcome is None:
            continue
        assert ran_as_replayed(source, outcome)
        again = runner.run_slow(VectorInputs(outcome.inputs, zero=True))
        assert (again.old.data, again.new.data) == (outcome.old.data, outcome.new.data)
        assert again.inputs == outcome.inputs and again.reads == outcome.reads
        checked += 1
    assert checked > 10


def test_only_a_zero_based_vector_without_loop_counts_or_number_views_is_its_own_replay():
    old, new = loops.counted(2, True)
    runner = traced_runner(old.encode(), new.encode())
    count = next(k for k, kind in runner.kinds.items() if kind[0] == "int")
    defaults = VectorInputs({count: 2})
    assert not ran_as_replayed(defaults, runner.run_slow(defaults))  # unnamed inputs got small values
    looped = VectorInputs({}, loops={count: 2}, zero=True)
    assert not ran_as_replayed(looped, runner.run_slow(looped))
    viewed = VectorInputs({count + NUMBER_VIEW: 2}, zero=True)
    assert not ran_as_replayed(viewed, runner.run_slow(viewed))
    plain = VectorInputs({count: 2}, zero=True)
    outcome = runner.run_slow(plain)
    assert ran_as_replayed(plain, outcome)
    assert not ran_as_replayed(VectorInputs({count: 3}, zero=True), outcome)  # not its run


def test_a_zero_is_in_its_types_range():
    """The premise for an input the source does not name: the replay reads its recorded zero
    back through the read's type unchanged."""
    from fmtcheck.c.types import conv
    for kind in [("int", 8, False), ("int", 32, True), ("int", 64, False), ("int", 8, False, "bool"),
                 ("int", 32, True, "width", 16), ("int", 32, False, "size", 16)]:
        assert conv(zero_value(kind), kind) == zero_value(kind)


def test_a_minimal_candidate_runs_through_the_interpreter_once(monkeypatch):
    """A counted-loop slip: every reported line's smallest case is already minimal, so the report
    runs the interpreter once per such case (its confirmation), not again as its replay."""
    old, new = loops.counted(4, True)
    baseline = verify_sources(old, new, Options()).results[0]
    replays = []
    real = divergences.replay
    monkeypatch.setattr(divergences, "replay", lambda run_slow, outcome: replays.append(outcome) or real(run_slow, outcome))
    result = verify_sources(old, new, Options()).results[0]
    assert result.verdict == baseline.verdict == "divergent" and result.divergences
    assert [d.counterexample for d in result.divergences] == [d.counterexample for d in baseline.divergences]
    assert replays == []
