"""The one-sided rule's re-runs (fmtcheck.engine.sharing): an alternative value that takes a case
over a per-case bound shows nothing either way and must not end the verdict."""

from __future__ import annotations

from types import SimpleNamespace

from fmtcheck.common.errors import LimitExceeded
from fmtcheck.engine.sharing import hangs_on

BOUND = "m->private->n"  # read by one side only: the loop bound of the old side


class Rerunner:
    """A runner whose cases run a loop BOUND times: a huge count goes over the input limit, a
    count of 0 prints the same on both sides (when `zero_is_same`)."""

    kinds: dict = {}

    def __init__(self, zero_is_same: bool) -> None:
        self.zero_is_same = zero_is_same
        self.runs = 0

    def run_slow(self, inputs):
        self.runs += 1
        count = inputs.values.get(BOUND, 0)
        if count >= 1 << 20:
            raise LimitExceeded(f"m->private->v[{count - 1}]", "input limit reached")
        return printed(same=self.zero_is_same and count == 0)


def printed(same: bool) -> SimpleNamespace:
    """An outcome's two outputs: the old side's loop prints one `x` per iteration, the new side none."""
    return SimpleNamespace(same=same, old=SimpleNamespace(data=b"" if same else b"x"), new=SimpleNamespace(data=b""))


def outcome(count: int) -> SimpleNamespace:
    return SimpleNamespace(inputs={BOUND: count}, reads=([BOUND], []), old=SimpleNamespace(data=b"x"),
                           new=SimpleNamespace(data=b""))


def test_a_rerun_over_a_per_case_bound_does_not_end_the_rule():
    runner = Rerunner(zero_is_same=True)
    assert hangs_on(runner, outcome(1), {BOUND}) == [BOUND]
    assert runner.runs > 1


def test_reruns_that_all_show_a_difference_or_nothing_leave_it_realizable():
    assert hangs_on(Rerunner(zero_is_same=False), outcome(1), {BOUND}) == []


class CountedRerunner(Rerunner):
    """A Rerunner whose every run takes STEPS interpreter steps, with the verdict's allowance."""

    STEPS = 40_000

    def __init__(self, zero_is_same: bool, allowance: int) -> None:
        super().__init__(zero_is_same)
        self.steps_spent = 0
        self.rerun_steps = [allowance]

    def run_slow(self, inputs):
        self.steps_spent += self.STEPS
        return super().run_slow(inputs)


def test_the_reruns_stop_when_the_verdicts_steps_are_spent():
    runner = CountedRerunner(zero_is_same=False, allowance=3 * CountedRerunner.STEPS)
    # stopped before every value was tried: the difference is not shown realizable
    assert hangs_on(runner, outcome(1), {BOUND}) == [BOUND]
    assert runner.runs == 3
    assert runner.rerun_steps[0] <= 0


def test_reruns_that_finish_within_the_allowance_leave_the_difference_realizable():
    runner = CountedRerunner(zero_is_same=False, allowance=10 ** 9)
    assert hangs_on(runner, outcome(1), {BOUND}) == []
    assert runner.rerun_steps[0] > 0


def test_no_steps_left_runs_nothing_and_claims_nothing():
    runner = CountedRerunner(zero_is_same=False, allowance=0)
    assert hangs_on(runner, outcome(1), {BOUND}) == [BOUND]
    assert runner.runs == 0
