"""include/linux/math64.h's divisions have their meaning (issue 15): `div_u64_rem(n, d, &rem)`
gives the quotient and stores the remainder in the local. As an uninterpreted call keyed by its
argument values, every new dividend was a new input, and /proc/uptime's idle sum ran the search
out of its case budget. Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

UPTIME = """static int up_show(struct seq_file *m, void *v)
{
	u64 idle_ns = 0;
	u32 rem;
	u64 secs;
	int cpu;

	for_each_possible_cpu(cpu)
		idle_ns += idle_time_of(cpu);
	secs = div_u64_rem(idle_ns, NSEC_PER_SEC, &rem);
	seq_printf(m, "%llu.%02u\\n", secs, rem / (NSEC_PER_SEC / 100));
	return 0;
}
"""

SPLIT = UPTIME.replace(
    'seq_printf(m, "%llu.%02u\\n", secs, rem / (NSEC_PER_SEC / 100));',
    'seq_put_decimal_ull(m, "", secs);\n\tseq_putc(m, \'.\');\n'
    '\tseq_printf(m, "%02u\\n", rem / (NSEC_PER_SEC / 100));')

DEFINES = "#define NSEC_PER_SEC 1000000000L\n"


def result_of(old: str, new: str):
    report = verify_sources(DEFINES + old, DEFINES + new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def test_the_split_uptime_row_is_equivalent():
    assert SPLIT != UPTIME
    result = result_of(UPTIME, SPLIT)
    assert result.verdict == "equivalent", result.reason


def test_the_remainder_printed_with_a_narrower_pad_is_divergent():
    result = result_of(UPTIME, UPTIME.replace("%llu.%02u", "%llu.%u"))
    assert result.verdict == "divergent"


def test_quotient_and_remainder_against_the_c_operators():
    """div_u64_rem(n, 1000, &r) prints what n / 1000 and n % 1000 print."""
    old = """static void t_show(struct seq_file *m, u64 n)
{
	u32 r;
	u64 q = div_u64_rem(n, 1000, &r);

	seq_printf(m, "%llu %u\\n", q, r);
}
"""
    new = old.replace("u64 q = div_u64_rem(n, 1000, &r);", "u64 q = n / 1000;\n\tr = n % 1000;")
    assert result_of(old, new).verdict == "equivalent"
    assert result_of(old, new.replace("n % 1000", "n % 100")).verdict == "divergent"


def test_div_u64s_divisor_is_a_u32():
    """div_u64(n, d) divides by (u32)d: a 64-bit divisor above 2^32 is not what it divides by."""
    old = """static void t_show(struct seq_file *m, u64 n, u64 d)
{
	if (d == 0 || (u32)d == 0)
		return;
	seq_printf(m, "%llu\\n", div_u64(n, d));
}
"""
    new = old.replace("div_u64(n, d)", "n / d")
    assert result_of(old, new).verdict == "divergent"
    assert result_of(old, old.replace("div_u64(n, d)", "n / (u32)d")).verdict == "equivalent"


def test_do_div_leaves_the_quotient_in_its_local_and_gives_the_remainder():
    old = """static void t_show(struct seq_file *m, u64 n)
{
	u32 r = do_div(n, 1000);

	seq_printf(m, "%llu.%03u\\n", n, r);
}
"""
    new = old.replace("u32 r = do_div(n, 1000);", "u32 r = n % 1000;\n\tn = n / 1000;")
    assert result_of(old, new).verdict == "equivalent"
    assert result_of(old, new.replace("%03u", "%u")).verdict == "divergent"
