"""Where a proof stopped is named with its line (issue 15: every inconclusive names a construct
and a real line, and a search that ran out of cases gave only its budget). C written for these
tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

FILLED = """static int vals_show(struct seq_file *m, void *v)
{
	unsigned long vals[2];

	get_vals(vals, 0);
	seq_printf(m, "%lu %lu\\n", vals[0], vals[1]);
	return 0;
}
"""


def test_the_construct_that_stopped_the_proof_is_named_with_its_line():
    new = FILLED.replace('seq_printf(m, "%lu %lu\\n", vals[0], vals[1]);',
                         'seq_put_decimal_ull(m, "", vals[0]);\n\tseq_printf(m, " %lu\\n", vals[1]);')
    assert new != FILLED
    result = verify_sources(FILLED, new, Options(max_examples=20), old_label="k/vals.c",
                            new_label="k/vals.c").results[0]
    assert result.method != "proven"
    assert "not proven: the numbers get_vals writes are inputs at k/vals.c:5" in result.notes, result.notes


# -- a search ended by a bound names what kept it going, with its line (session 9) ---------------

HISTORY = """struct hist { unsigned int n; unsigned int v[64]; unsigned long hits, misses; };

static int hist_show(struct seq_file *m, void *v)
{
	struct hist *h = m->private;
	int i;

	for (i = 0; i < 64; i++)
		seq_printf(m, " %u", h->v[i]);
	if (h->hits > 73512)
		seq_puts(m, " hot");
	seq_printf(m, " %lu\\n", h->misses);
	return 0;
}
"""

HISTORY_SPLIT = HISTORY.replace('seq_printf(m, " %u", h->v[i]);', 'seq_put_decimal_ull(m, " ", h->v[i]);')


def _budget_ended(old: str, new: str, cases: int):
    from fmtcheck.common.options import Bounds

    return verify_sources(old, new, Options(max_examples=5, proof=False, bounds=Bounds(cases=cases)),
                          old_label="k/hist.c", new_label="k/hist.c").results[0]


def test_a_search_ended_by_its_budget_names_the_condition_it_left_open():
    assert HISTORY_SPLIT != HISTORY
    result = _budget_ended(HISTORY, HISTORY_SPLIT, 3)
    assert result.verdict == "inconclusive"
    assert "case budget (3 cases)" in result.reason
    assert "the condition 'h->hits > 73512' at k/hist.c:10:" in result.reason, result.reason


def test_a_search_ended_by_its_budget_with_nothing_open_names_where_its_steps_went():
    """No condition over the inputs: the loop the cases ran is named (its condition's line)."""
    plain = HISTORY.replace("\tif (h->hits > 73512)\n\t\tseq_puts(m, \" hot\");\n", "")
    split = HISTORY_SPLIT.replace("\tif (h->hits > 73512)\n\t\tseq_puts(m, \" hot\");\n", "")
    assert plain != HISTORY and split != HISTORY_SPLIT
    result = _budget_ended(plain, split, 3)
    assert result.verdict == "inconclusive"
    assert "the cases spent their steps in 'i < 64' at k/hist.c:8:" in result.reason, result.reason


def test_a_case_over_an_input_bound_names_the_line_it_was_reached_at(monkeypatch):
    """The input limit names the path it was reached at; the reason adds the construct's line."""
    import fmtcheck.engine.inputs

    monkeypatch.setattr(fmtcheck.engine.inputs, "MAX_INPUT_BYTES", 2048)
    result = verify_sources(HISTORY, HISTORY_SPLIT, Options(max_examples=5, proof=False),
                            old_label="k/hist.c", new_label="k/hist.c").results[0]
    assert result.verdict == "inconclusive"
    assert "input limit reached" in result.reason
    assert "at k/hist.c:9 (m->private->v[" in result.reason, result.reason
    assert (result.location.file, result.location.line) == ("k/hist.c", 9)


def test_a_search_that_reads_too_many_distinct_paths_ends_on_its_input_budget():
    """Every distinct input path read is kept for the verdict: a bound in paths, like the bounds
    in cases and steps, ends the search at the same point on every run, naming where it went."""
    from fmtcheck.common.options import Bounds

    options = Options(max_examples=5, proof=False, bounds=Bounds(keys=100))
    result = verify_sources(HISTORY, HISTORY_SPLIT, options, old_label="k/hist.c", new_label="k/hist.c").results[0]
    assert result.verdict == "inconclusive"
    assert "input budget (100 distinct input paths read)" in result.reason, result.reason
    assert "at k/hist.c:" in result.reason
    again = verify_sources(HISTORY, HISTORY_SPLIT, options, old_label="k/hist.c", new_label="k/hist.c").results[0]
    assert again.reason == result.reason and again.cases == result.cases
