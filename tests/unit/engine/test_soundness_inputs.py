"""Never a wrong "equivalent" (issue 15): inputs the code reads only under a condition a later
case made true are swept where they were revealed; an input whose type fmtcheck was not given is
judged for every integer type its uses allow. Every snippet is C written for these tests in the
kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

POOL_REPORT = """struct seq_file;

void pool_report(struct seq_file *m)
{
	struct pool *p;
	unsigned long total = 0;

	for_each_pool(p) {
		total += p->nr_pages;
		if (p == &default_pool)
			seq_printf(m, "Pool_Total: %5lu\\nPool_Free:  %5lu\\n", p->nr_pages, p->free_pages);
	}
	seq_printf(m, "Pools:      %8lu kB\\n", total);
}
"""


def result_of(old: str, new: str, **options):
    report = verify_sources(old, new, Options(max_examples=30, **options))
    assert len(report.results) == 1
    return report.results[0]


def test_a_field_printed_only_when_the_iterator_is_the_default_element_is_swept_at_its_extremes():
    """hugetlb_report_meminfo's shape: the element equal to `&default_pool` prints its row. The
    row's fields are first read by the case that made the pointers equal; at the zeros or the small
    distinct defaults they are never read, so only a sweep from that case finds `%ld` for `%lu`
    (was "equivalent, tested")."""
    new = POOL_REPORT.replace("Pool_Free:  %5lu", "Pool_Free:  %5ld")
    result = result_of(POOL_REPORT, new)
    assert result.verdict == "divergent"
    assert result.divergences[0].counterexample["for_each_pool[0]->free_pages"] >= 1 << 63
    assert result_of(POOL_REPORT, POOL_REPORT).verdict == "equivalent"
