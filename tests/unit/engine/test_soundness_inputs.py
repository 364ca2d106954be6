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


IO_SHOW = """#define EACCES 13

struct foo_acct {
	u64 rchar;
	u64 syscr;
	u64 cancelled;
};

static int foo_io_show(struct task_struct *task, struct seq_file *m)
{
	struct foo_acct acct = task->ioac;
	int result;

	result = down_read_killable(&task->signal->lock);
	if (result)
		return result;
	if (!may_access(task, MAY_READ)) {
		result = -EACCES;
		goto out_unlock;
	}
	seq_printf(m, "rchar: %llu\\nsyscr: %llu\\ncancelled: %llu\\n",
		   (unsigned long long)acct.rchar, (unsigned long long)acct.syscr,
		   (unsigned long long)acct.cancelled);
	result = 0;
out_unlock:
	up_read(&task->signal->lock);
	return result;
}
"""


def test_fields_printed_behind_a_call_that_must_fail_and_one_that_must_succeed_are_swept():
    """do_io_accounting's shape: the row is reached only when one call returns 0 and another
    non-zero, never at the zeros nor at the small defaults; `%lld` for `%llu` of any field is
    divergent (was "equivalent, tested" for some of them)."""
    for field in ("syscr", "cancelled"):
        new = IO_SHOW.replace(f"{field}: %llu", f"{field}: %lld")
        result = result_of(IO_SHOW, new)
        assert result.verdict == "divergent", field
        assert result.divergences[0].counterexample[f"acct.{field}"] >= 1 << 63


def part_show(fmt: str, value: str = "part_sectors(part) >> 1", before: str = "") -> str:
    return (f"{before}static int part_show(struct seq_file *m, void *v)\n{{\n\tstruct part *part = v;\n\n"
            f'\tseq_printf(m, "{fmt}\\n", {value});\n\treturn 0;\n}}\n')


def test_a_shift_of_a_call_of_undeclared_type_is_not_equivalent_under_another_signedness():
    """Rule 6: `%llu` against `%lld` of `part_sectors(part) >> 1` agree only if the call returns
    an unsigned type (-1 >> 1 is -1 for a long long); with nothing declaring it the verdict names
    the call (was "equivalent, tested" under an assumed u64)."""
    result = result_of(part_show("%10llu"), part_show("%10lld"))
    assert result.verdict == "inconclusive"
    assert "part_sectors(part)" in result.reason and "s64" in result.reason and ":5:" in result.reason
    declared = "unsigned long long part_sectors(struct part *part);\n"
    assert result_of(part_show("%10llu", before=declared), part_show("%10lld", before=declared)).verdict \
        == "equivalent"
    signed = "long long part_sectors(struct part *part);\n"
    assert result_of(part_show("%10llu", before=signed), part_show("%10lld", before=signed)).verdict \
        == "divergent"


def test_a_quotient_of_an_undeclared_member_is_judged_for_every_type():
    """`get_val(p) / 2` and `p->nr % 10` behave differently signed and unsigned, and `+ 1`
    wraps at another place in 32 bits: each is judged in s64, u32 and s32 too."""
    for value in ("p->nr / 2", "p->nr % 10"):
        src = part_show("%llu", value).replace("part *part = v", "part *p = v")
        assert result_of(src, src.replace("%llu", "%lld")).verdict == "inconclusive", value
    faithful = part_show("%u", "p->nr + 1").replace("part *part = v", "part *p = v")
    rewrite = faithful.replace('seq_printf(m, "%u\\n", p->nr + 1);',
                               'seq_put_decimal_ull(m, "", p->nr + 1);\n\tseq_putc(m, \'\\n\');')
    result = result_of(faithful, rewrite)
    assert result.verdict == "inconclusive" and "p->nr" in result.reason


def test_the_width_a_conversion_reads_bounds_the_types_an_undeclared_operand_is_judged_in():
    """`%lu` of `pc->total << 2` reads a long, and `<<` keeps pc->total's type: it is 64 bits
    wide, so a 32-bit type that would wrap the shift is not one it may have; a rewrite that
    converts it to an unsigned long first is equivalent."""
    old = part_show("%8lu kB", "pc->total << 2").replace("part *part = v", "pool *pc = v")
    new = old.replace('seq_printf(m, "%8lu kB\\n", pc->total << 2);',
                      'seq_put_decimal_ull_width(m, "", pc->total << 2, 8);\n\tseq_puts(m, " kB\\n");')
    assert result_of(old, new).verdict == "equivalent"
    cast = part_show("%lu", "(unsigned long)(pc->total << 2)").replace("part *part = v", "pool *pc = v")
    result = result_of(cast, cast.replace("(unsigned long)(pc->total << 2)", "(unsigned long)pc->total << 2"))
    assert result.verdict == "inconclusive" and "u32" in result.reason  # a cast reads any width
