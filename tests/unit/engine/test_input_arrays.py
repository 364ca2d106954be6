"""A local array of integers filled with values of the inputs, in a proof (meminfo_proc_show's
`pages[NR_LRU_LISTS]`): an element read back whole is the value stored; any other use of the
array's bytes ends the proof and testing decides. Every snippet is C written for these tests in
the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

LRU = """static int lru_show(struct seq_file *m, void *v)
{
	unsigned long pages[NR_LRU_LISTS];
	int lru;

	for (lru = LRU_BASE; lru < NR_LRU_LISTS; lru++)
		pages[lru] = global_node_page_state(NR_LRU_BASE + lru);
BODY	return 0;
}
"""
OLD = ('\tseq_printf(m, "Active:   %8lu kB\\n", pages[LRU_ACTIVE_ANON] + pages[LRU_ACTIVE_FILE]);\n'
       '\tseq_printf(m, "Inactive: %8lu kB\\n", pages[LRU_INACTIVE_ANON] + pages[LRU_INACTIVE_FILE]);\n')
SPLIT = ('\tseq_puts(m, "Active:   ");\n'
         '\tseq_put_decimal_ull_width(m, "", pages[LRU_ACTIVE_ANON] + pages[LRU_ACTIVE_FILE], 8);\n'
         '\tseq_puts(m, " kB\\n");\n'
         '\tseq_printf(m, "Inactive: %8lu kB\\n", pages[LRU_INACTIVE_ANON] + pages[LRU_INACTIVE_FILE]);\n')


def judged(old: str, new: str):
    report = verify_sources(LRU.replace("BODY", old), LRU.replace("BODY", new), Options(max_examples=30))
    (result,) = report.results
    return result


def test_an_array_of_inputs_read_back_whole_is_proven() -> None:
    result = judged(OLD, SPLIT)
    assert result.verdict == "equivalent"
    assert result.extra.get("decided_by") == "proof"


def test_another_element_printed_is_divergent() -> None:
    result = judged(OLD, SPLIT.replace("pages[LRU_INACTIVE_FILE]", "pages[LRU_ACTIVE_FILE]"))
    assert result.verdict == "divergent"


def test_an_element_stored_again_with_a_constant_is_that_constant() -> None:
    again = "\tpages[LRU_ACTIVE_FILE] = 0;\n"
    result = judged(again + OLD, again + SPLIT)
    assert result.verdict == "equivalent" and result.extra.get("decided_by") == "proof"
    assert judged(OLD, again + SPLIT).verdict == "divergent"


PAIR = """struct two { unsigned int a, b; };

static int pair_show(struct seq_file *m, struct two *t)
{
	unsigned int pair[2];

	pair[0] = t->a;
	pair[1] = t->b;
BODY	return 0;
}
"""


@pytest.mark.parametrize("read", [
    '\tseq_printf(m, "%u\\n", ((unsigned short *)pair)[1]);\n',
    '\tseq_write(m, pair, 8);\n',
])
def test_the_bytes_of_an_array_of_inputs_are_not_proven(read: str) -> None:
    """Half an element, or the array's bytes written out: the proof stops (it keeps whole
    elements only); testing decides, and never from bytes the proof did not have."""
    old = PAIR.replace("BODY", '\tseq_printf(m, "%u %u\\n", pair[0], pair[1]);\n' + read)
    new = PAIR.replace("BODY", '\tseq_put_decimal_ull(m, "", pair[0]);\n\tseq_put_decimal_ull(m, " ", pair[1]);\n'
                       '\tseq_putc(m, \'\\n\');\n' + read)
    (result,) = verify_sources(old, new, Options(max_examples=30)).results
    assert result.verdict == "equivalent"
    assert result.extra.get("decided_by") != "proof"
