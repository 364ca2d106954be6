"""A counted loop guarded by a test of something it does not change, `for (k = 0; G && k < E;
k++)` (the digipeater lists of the amateur-radio protocols' /proc rows: `digi != NULL &&
k < digi->ndigi`), issue 15. It is the counted loop up to (G ? E : 0), traced by induction
(`loopshapes.guarded`, `rows.guarded_loop`); the count was drawn up to the per-case bound and
the search ran out of input paths. C written for these tests in the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

DIGIS = """struct digi { unsigned char ndigi; unsigned int calls[8]; unsigned char rep[8]; };
struct cb { struct digi *digipeat; unsigned int state; };

static int cb_show(struct seq_file *seq, void *v)
{
	struct cb *cb = v;
	int k;

	seq_printf(seq, "%u", cb->state);
	for (k = 0; (cb->digipeat != NULL) && (k < cb->digipeat->ndigi); k++) {
		seq_printf(seq, ",%u%s", cb->digipeat->calls[k],
			   cb->digipeat->rep[k] ? "*" : "");
	}
	seq_putc(seq, '\\n');
	return 0;
}
"""

SPLIT = DIGIS.replace(
    'seq_printf(seq, ",%u%s", cb->digipeat->calls[k],',
    'seq_put_decimal_ull(seq, ",", (unsigned int)cb->digipeat->calls[k]);\n\t\tseq_printf(seq, "%s",')

COND = "(cb->digipeat != NULL) && (k < cb->digipeat->ndigi)"


@pytest.fixture
def small_step_bound(monkeypatch):
    """A per-case step bound of 5,000 (the real one is 200,000): the search of the look-alikes
    runs counts up to the bound, cheaply."""
    import fmtcheck.c.values
    monkeypatch.setattr(fmtcheck.c.values, "MAX_STEPS", 5000)


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_guarded_counted_loop_is_proven():
    assert SPLIT != DIGIS
    result = judge(DIGIS, SPLIT)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


def test_a_guarded_loop_one_past_its_bound_is_divergent(small_step_bound):
    result = judge(DIGIS, SPLIT.replace(COND, "(cb->digipeat != NULL) && (k <= cb->digipeat->ndigi)"))
    assert result.verdict == "divergent"


@pytest.mark.parametrize("cond", [
    "(k < cb->digipeat->ndigi)",                              # the guard dropped
    "(cb->state != 0) && (k < cb->digipeat->ndigi)",          # another guard
    "(k < cb->digipeat->ndigi) && (cb->digipeat != NULL)",    # the bound read before the guard
])
def test_a_loop_guarded_otherwise_is_not_proven_equivalent(cond, small_step_bound):
    changed = SPLIT.replace(COND, cond)
    assert changed != SPLIT
    result = judge(DIGIS, changed)
    assert result.method != "proven"
    assert result.verdict != "equivalent" or result.method == "tested", result.reason


def test_a_guard_the_body_changes_is_not_traced_by_induction(small_step_bound):
    """`ok` cleared inside the body changes the bound (G ? E : 0) after an iteration: the proof
    stops there instead of taking the guard as fixed."""
    counted = """struct cb { unsigned int n; unsigned int calls[8]; };

static int cb_show(struct seq_file *seq, void *v)
{
	struct cb *cb = v;
	int k, ok = 1;

	for (k = 0; ok && k < cb->n; k++) {
		seq_printf(seq, ",%u", cb->calls[k]);
	}
	seq_putc(seq, '\\n');
	return 0;
}
"""
    cleared = counted.replace('seq_printf(seq, ",%u", cb->calls[k]);',
                              'seq_printf(seq, ",%u", cb->calls[k]);\n\t\tif (cb->calls[k] > 5)\n\t\t\tok = 0;')
    split = counted.replace('seq_printf(seq, ",%u", cb->calls[k]);', 'seq_puts(seq, ",");\n\t\tseq_printf(seq, "%u", cb->calls[k]);')
    assert cleared != counted and split != counted
    assert judge(counted, split).method == "proven"
    result = judge(counted, cleared)
    assert result.verdict != "equivalent", result.reason
