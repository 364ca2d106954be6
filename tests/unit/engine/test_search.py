"""The search: its order, its work budgets, honest coverage and minimal counterexamples (issue #12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.branchy import branchy_pair
from fmtcheck.common.options import Bounds, Options
from fmtcheck.engine.verdict import verify_sources

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "fixtures" / "example"


def judge(old: str, new: str, **options):
    return verify_sources(old, new, Options(**options)).results[0]


ONE_ROW = """
static int t_show(struct seq_file *m, void *v)
{
	struct t_stats *s = m->private;

	if (s->hits > THRESHOLD)
		seq_printf(m, "hits: %llu busy\\n", s->hits);
	else
		seq_printf(m, "hits: %llu\\n", s->hits);
	return 0;
}
"""


def threshold_pair(old_cond: str, new_cond: str) -> tuple[str, str]:
    return ONE_ROW.replace("s->hits > THRESHOLD", old_cond), ONE_ROW.replace("s->hits > THRESHOLD", new_cond)


def test_a_slip_at_a_threshold_only_is_found() -> None:
    """`>` for `>=` differs at one value out of 2^64: the aimed cases reach it."""
    result = judge(*threshold_pair("s->hits > 73512", "s->hits >= 73512"))
    assert result.verdict == "divergent"
    assert result.divergences[0].counterexample == {"s->hits": 73512}


def test_a_threshold_moved_by_one_is_found() -> None:
    result = judge(*threshold_pair("s->hits + s->misses > 90000", "s->hits + s->misses > 90001"))
    assert result.verdict == "divergent"


def test_an_equal_rewrite_with_a_condition_is_proven_row_by_row() -> None:
    """The same condition written the other way round is the same row (fmtcheck.engine.paths)."""
    result = judge(*threshold_pair("s->hits > 73512", "73512 < s->hits"))
    assert (result.verdict, result.method) == ("equivalent", "proven")
    assert result.to_json()["decided_by"] == "proof"


def test_an_equal_rewrite_with_a_condition_is_tested_with_every_condition_covered() -> None:
    """The search alone (no proof) covers the condition both ways and at its boundary."""
    result = judge(*threshold_pair("s->hits > 73512", "73512 < s->hits"), proof=False)
    assert (result.verdict, result.method) == ("equivalent", "tested")
    assert any("true, false and at its boundary" in c for c in result.classes)
    assert result.to_json()["decided_by"] == "search"


def test_a_condition_no_case_can_cover_is_inconclusive_not_equivalent() -> None:
    """`x > x` is never true: nothing behind it was tested, so no verdict of equivalence."""
    result = judge(*threshold_pair("s->hits > s->hits", "s->hits > s->hits"), proof=False)
    assert result.verdict == "inconclusive"
    assert "'s->hits > s->hits'" in result.reason and "true" in result.reason
    assert result.to_json()["decided_by"] == "coverage"


def test_a_search_ended_by_its_case_budget_is_inconclusive_and_says_so() -> None:
    old, new = branchy_pair(16, 7, slip=False)[:2]
    result = judge(old, new, bounds=Bounds(cases=40), proof=False)
    assert result.verdict == "inconclusive"
    assert "case budget (40 cases)" in result.reason
    assert result.to_json()["decided_by"] == "bound"


LOOP = """
static int rows_show(struct seq_file *m, void *v)
{
	struct t_stats *s = m->private;
	int i;

	for (i = 0; i < s->n && i < 50; i++)
		seq_printf(m, "%d\\n", i);
	return 0;
}
"""


def test_a_search_ended_by_its_step_budget_is_inconclusive() -> None:
    """Interpreter steps (loop iterations, calls) over all cases are a budget too."""
    result = judge(LOOP, LOOP, bounds=Bounds(steps=2000), proof=False)
    assert result.verdict == "inconclusive" and "step budget" in result.reason


def test_the_all_zero_vector_comes_first_and_is_the_counterexample() -> None:
    """Seed 003's kind of slip (a width that shows at every value) is shown by all inputs 0."""
    result = verify_sources((EXAMPLE / "old.c").read_bytes(), (EXAMPLE / "new-divergent.c").read_bytes(),
                            Options()).results[0]
    assert result.verdict == "divergent"
    assert result.to_json()["decided_by"] == "zero"
    ce = result.divergences[0].counterexample
    assert [k for k, v in ce.items() if v not in (0, b"")] == ["dev->name"]  # an ifname is never empty


def test_counterexamples_keep_only_the_inputs_that_matter() -> None:
    """A slip that needs one input large: every other input is 0 in the report."""
    old = ONE_ROW.replace("s->hits > THRESHOLD", "s->hits > 999")
    new = old.replace('"hits: %llu busy\\n"', '"hits: %llu  busy\\n"')
    result = judge(old, new)
    ce = result.divergences[0].counterexample
    assert {k: v for k, v in ce.items() if v != 0} == {"s->hits": 1000}


WALK = """
struct item { struct item *next; unsigned long val; const char *name; };
static int chain_show(struct seq_file *m, struct item *p)
{
	for (; p; p = p->next)
		seq_printf(m, "%s FMT\\n", p->name, p->val);
	return 0;
}
"""

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources
result = verify_sources(sys.argv[1], sys.argv[2], Options()).results[0]
# VmHWM is this program's own peak: ru_maxrss would also count the forking parent's pages,
# which Linux carries across exec (a long serial pytest run is several hundred MB).
with open("/proc/self/status") as status:
    peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"verdict": result.verdict, "reason": result.reason, "peak_kb": peak_kb}))
"""


@pytest.mark.parametrize("new_format", ["%lu", "%5lu"], ids=["equal", "slipped"])
def test_a_pointer_chain_walk_over_free_data_is_bounded(new_format: str) -> None:
    """`for (; p; p = p->next)` over a pointer the code does not define used to grow until the
    OOM killer ended it; the chain now ends after a bounded number of links (1 GiB cap here)."""
    old, new = WALK.replace("FMT", "%lu"), WALK.replace("FMT", new_format)
    proc = subprocess.run([sys.executable, "-c", _CHILD, old, new], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout)
    wanted = {"%lu": ("equivalent", "inconclusive"), "%5lu": ("divergent", "inconclusive")}[new_format]
    assert got["verdict"] in wanted, got
    assert got["peak_kb"] < 200 * 1024, got


def test_an_input_path_that_keeps_growing_is_inconclusive_with_its_line() -> None:
    code = """
struct item { struct item *next; unsigned long val; };
static int walk_show(struct seq_file *m, struct item *p)
{
	int i;

	for (i = 0; i < 100000; i++)
		p = p->next;
	seq_printf(m, "%lu\\n", p->val);
	return 0;
}
"""
    result = judge(code, code)
    assert result.verdict == "inconclusive"
    assert "input path grew past" in result.reason and ":8" in result.reason


def test_a_case_over_a_per_case_bound_keeps_its_message_not_its_frames() -> None:
    """The runner keeps each case a bound ended (its message goes in the verdict); with its
    traceback it kept every value the case made alive (show_tty_driver: eight cases at the step
    bound held 2.8 GB). `bare` drops the frames and the chained errors, not the message."""
    import gc
    import weakref

    from fmtcheck.common.errors import LimitExceeded, bare

    class Rows(list):
        pass

    def run_case() -> weakref.ref:
        rows = Rows(range(1000))
        ref = weakref.ref(rows)
        try:
            try:
                raise KeyError("inner")
            except KeyError:
                raise LimitExceeded("f.c:9", "step limit reached (200000 steps)")
        except LimitExceeded as over:
            kept.append(bare(over))
        return ref

    kept: list = []
    ref = run_case()
    gc.collect()
    assert ref() is None
    assert kept[0].__traceback__ is None and kept[0].__context__ is None
    assert "step limit" in kept[0].what and kept[0].where == "f.c:9"


def _shrink_by_restarts(inputs, kinds, still_fails, out_of_budget):
    """The greedy shrinking as first written: after each success, the trials again from the
    first (what `search.shrink` does in one pass must give the same trials and the same case)."""
    from fmtcheck.engine.inputs import zero_value
    from fmtcheck.engine.search import shrink_trials

    best, best_outcome = dict(inputs), None
    zero = {k: zero_value(kinds[k]) for k in best if k in kinds}
    if zero != best:
        outcome = still_fails(zero)
        if outcome is not None:
            return zero, outcome
    done: set = set()
    progress = True
    while progress and not out_of_budget():
        progress = False
        for key, value in shrink_trials(best, kinds, zero):
            if out_of_budget():
                break
            if (key, repr(value)) in done or best.get(key) == value:
                continue
            done.add((key, repr(value)))
            trial = dict(best)
            trial[key] = value
            outcome = still_fails(trial)
            if outcome is not None:
                best, best_outcome = trial, outcome
                progress = True
                break
    return best, best_outcome


@pytest.mark.parametrize("seed", range(40))
def test_shrinking_in_one_pass_tries_what_restarting_tried_and_ends_on_the_same_case(seed) -> None:
    """Random cases (numbers of either sign, strings, inputs of unknown kind) and random failure
    rules, monotonic or not (a difference that needs two inputs equal), and a budget of trials."""
    import random

    from fmtcheck.engine.search import shrink

    rng = random.Random(seed)
    kinds, inputs = {}, {}
    for i in range(rng.randrange(1, 12)):
        key = f"k{i}"
        if rng.random() < 0.2:
            inputs[key] = bytes(rng.randrange(97, 123) for _ in range(rng.randrange(0, 6)))
            kinds[key] = ("str", "text")
        else:
            inputs[key] = rng.choice([0, 1, 7, 15, 99, 1234, 10 ** 7 + 3, -5, -100]) * rng.choice([1, 1, 3])
            if rng.random() < 0.9:
                kinds[key] = ("int", 64, True)
    keys = list(inputs)
    needed = set(rng.sample(keys, rng.randrange(0, len(keys) + 1)))
    pair = rng.sample(keys, 2) if len(keys) > 1 and rng.random() < 0.5 else None
    limit = rng.choice([None, 3, 10])

    def run(algorithm):
        tried = []

        def still_fails(trial):
            tried.append(dict(trial))
            fails = all(trial.get(k, 0) not in (0, b"") for k in needed)  # (the zero trial names known kinds)
            if pair is not None:
                fails = fails and (trial.get(pair[0]) == trial.get(pair[1]) or trial.get(pair[0]) != 0)
            if any(isinstance(v, int) and abs(v) >= 10 ** 6 for v in trial.values()) and seed % 3 == 0:
                fails = not fails
            return ("outcome", len(tried)) if fails else None

        result = algorithm(dict(inputs), kinds, still_fails, lambda: limit is not None and len(tried) >= limit)
        return result, tried

    assert run(shrink) == run(_shrink_by_restarts)
