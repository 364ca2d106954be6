"""Kernel constructs the corpus of real printers showed undecided (issue 15, coverage): each is
modelled or left uninterpreted but shared by both sides. Every snippet is C written for these
tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.c.coverage import RECENT_READS, reads_before
from fmtcheck.common.options import Options


def show(body: str, before: str = "", params: str = "struct seq_file *m, void *v") -> str:
    return f"{before}static int t_show({params})\n{{\n{body}\treturn 0;\n}}\n"


def run(old: str, new: str, **options):
    report = verify_sources(old, new, Options(max_examples=30, **options))
    assert len(report.results) == 1
    return report.results[0]


def verdict_of(old: str, new: str, **options) -> tuple[str, str | None]:
    result = run(old, new, **options)
    return result.verdict, result.reason


# -- a pointer from an unknown call that receives the seq_file -------------------------------

FROM_SEQ = show('\tstruct foo_group *grp = foo_group_from_seq(m);\n\n'
                '\tseq_printf(m, "%d\\n", READ_ONCE(grp->limit));\n')
FROM_SEQ_SPLIT = show('\tstruct foo_group *g = foo_group_from_seq(m);\n\n'
                      '\tseq_put_decimal_ll(m, "", READ_ONCE(g->limit));\n'
                      '\tseq_putc(m, \'\\n\');\n')
FROM_SEQ_WIDE = show('\tstruct foo_group *g = foo_group_from_seq(m);\n\n'
                     '\tseq_printf(m, "%4d\\n", READ_ONCE(g->limit));\n')


def test_a_struct_pointer_returned_by_a_call_on_the_seq_file_is_a_value_of_that_call():
    assert verdict_of(FROM_SEQ, FROM_SEQ_SPLIT)[0] == "equivalent"


def test_the_returned_pointer_still_tells_a_real_difference():
    assert verdict_of(FROM_SEQ, FROM_SEQ_WIDE)[0] == "divergent"


def test_the_reads_before_a_comparison_are_a_bounded_window():
    reads = [f"k{i}" for i in range(3 * RECENT_READS)]
    assert reads_before(reads, 2 * RECENT_READS) == reads[RECENT_READS:2 * RECENT_READS]
    assert reads_before(reads, 5) == reads[:5]
    assert reads_before(None, 5) is None
