"""A local integer array initialised with the caller's values (memcg_stat_show's shape): the proof
cannot store a symbolic value as bytes, so it stops there and testing decides; it used to end in
an internal AttributeError. C written for this test in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

DEFS = "struct foo_stat { unsigned long nr_a; unsigned long nr_b; };\n"
OLD = DEFS + """static int foo_show(struct seq_file *m, void *v)
{
	struct foo_stat *st = v;
	unsigned long vals[2] = { st->nr_a, st->nr_b };
	int i;

	for (i = 0; i < 2; i++)
		seq_printf(m, "%lu\\n", vals[i]);
	return 0;
}
"""


def judge(new: str):
    report = verify_sources(OLD, new, Options(max_examples=30))
    return report.results[0]


def test_an_array_of_the_callers_values_is_tested_not_an_internal_error():
    new = OLD.replace('seq_printf(m, "%lu\\n", vals[i]);',
                      '{\n\t\tseq_put_decimal_ull(m, "", vals[i]);\n\t\tseq_putc(m, \'\\n\');\n\t}')
    result = judge(new)
    assert result.verdict == "equivalent"
    assert any("local integer array initialised with values of the inputs" in n for n in result.notes)


def test_the_array_read_in_another_order_is_divergent():
    result = judge(OLD.replace("vals[i]", "vals[1 - i]"))
    assert result.verdict == "divergent"
