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
