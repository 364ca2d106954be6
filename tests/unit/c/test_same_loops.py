"""Loops both sides spell alike, in a proof (issue 15, `fmtcheck.c.sameloops`): fs/proc/stat.c's
`while (gap > 0) { inc = min(gap, 16); seq_write(p, zeros, 2 * inc); gap -= inc; }` carries
state from one iteration to the next, so the induction rule cannot trace it, and testing stops
at the step bound for a large gap (here a u8, so that the look-alikes are tested quickly). The same text run from the same state prints the same bytes:
one event, keyed by the text (locals renamed), the definitions it reaches and the values it reads.
C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.common.options import Options
from fmtcheck.engine.proofs import prove_once
from fmtcheck.engine.verdict import Runner, side_of, verify_sources

GAPS = """static void show_gap(struct seq_file *p, unsigned char gap)
{
	static const char zeros[] = " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

	while (gap > 0) {
		unsigned int inc;

		inc = min_t(unsigned int, gap, ARRAY_SIZE(zeros) / 2);
		seq_write(p, zeros, 2 * inc);
		gap -= inc;
	}
}

static int show_irqs(struct seq_file *p, void *v)
{
	unsigned char i, next = 0;

	seq_printf(p, "intr %llu", (unsigned long long)nr_total_irqs);
	for_each_active_irq(i) {
		show_gap(p, i - next);
		seq_put_decimal_ull(p, " ", kstat_irqs_usr(i));
		next = i + 1;
	}
	show_gap(p, nr_irqs - next);
	seq_putc(p, '\\n');
	return 0;
}
"""

# the locals renamed, the first row split: the loops are spelled alike
RENAMED = (GAPS.replace("inc", "inc_rw").replace("zeros", "zeros_rw").replace("next", "next_rw")
           .replace("unsigned char i,", "unsigned char k,").replace("(i)", "(k)").replace("i - next", "k - next")
           .replace("i + 1", "k + 1")
           .replace('seq_printf(p, "intr %llu", (unsigned long long)nr_total_irqs);',
                    'seq_puts(p, "intr");\n\tseq_put_decimal_ull(p, " ", (unsigned long long)nr_total_irqs);'))


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10, function="show_irqs")).results[0]


def test_loops_spelled_alike_are_proven():
    assert "next_rw" in RENAMED and "(k)" in RENAMED
    result = judge(GAPS, RENAMED)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


def test_a_print_added_in_the_loop_is_not_equivalent():
    other = RENAMED.replace("\t\tgap -= inc_rw;\n", "\t\tgap -= inc_rw;\n\t\tif (gap == 3)\n\t\t\tseq_putc(p, '-');\n")
    assert other != RENAMED
    assert judge(GAPS, other).verdict == "divergent"


def test_another_table_in_the_helper_is_not_equivalent():
    other = RENAMED.replace('0 0 0";', '0 0 1";')
    assert other != RENAMED
    assert judge(GAPS, other).verdict == "divergent"


def test_another_chunk_is_not_equivalent():
    # (chunks of 15 would print the same: gap copies of " 0" either way)
    other = RENAMED.replace("seq_write(p, zeros_rw, 2 * inc_rw);", "seq_write(p, zeros_rw, 2 * inc_rw - 1);")
    assert other != RENAMED
    assert judge(GAPS, other).verdict == "divergent"


def test_another_state_at_the_start_is_not_equivalent():
    for other in (RENAMED.replace("next_rw = k + 1;", "next_rw = k + 2;"),
                  RENAMED.replace("next_rw = 0;", "next_rw = 1;"),
                  RENAMED.replace("show_gap(p, nr_irqs - next_rw);", "show_gap(p, nr_irqs - next_rw - 1);")):
        assert other != RENAMED
        assert judge(GAPS, other).verdict != "equivalent"


def test_a_local_the_loop_assigns_is_not_its_value_before():
    """In the proof's second round (`prove_once(runner, same_loops=True)`), the loop is one
    event; what it leaves in `n` is a value of that event, not `n` before it."""
    old = """static int indent_show(struct seq_file *m, void *v)
{
	unsigned char n = *(unsigned char *)v;
	unsigned char k = n;

	while (n-- > 0)
		seq_puts(m, "   ");
	seq_printf(m, "%u\\n", k);
	return 0;
}
"""
    same = old.replace('seq_printf(m, "%u\\n", k);', 'seq_printf(m, "%u", k);\n\tseq_putc(m, \'\\n\');')
    after = old.replace('seq_printf(m, "%u\\n", k);', 'seq_printf(m, "%u\\n", n);')
    assert same_loops_proof(old, same)
    assert not same_loops_proof(old, after)
    assert not same_loops_proof(old, old.replace('"   "', '"  "'))


def same_loops_proof(old: str, new: str) -> bool:
    units = [cfront.parse_unit(text.encode(), label) for text, label in ((old, "old.c"), (new, "new.c"))]
    space = InputSpace()
    for unit in units:
        collect_hints(unit, space)
    sides = [side_of(unit, space, "indent_show", label) for unit, label in zip(units, ("old", "new"))]
    return prove_once(Runner(*sides), same_loops=True)[0]


def test_a_loop_that_stores_into_the_callers_data_is_no_event():
    """Printing a field read before the loop or after it: the loop may have changed it."""
    old = """struct acc { unsigned int total; unsigned char n; };

static int acc_show(struct seq_file *m, void *v)
{
	struct acc *a = v;
	unsigned char n = a->n;
	unsigned int before = a->total;

	while (n > 0) {
		a->total += n;
		n >>= 1;
	}
	seq_printf(m, "%u\\n", before);
	return 0;
}
"""
    new = old.replace('seq_printf(m, "%u\\n", before);', 'seq_printf(m, "%u\\n", a->total);')
    assert verify_sources(old, new, Options(max_examples=10)).results[0].verdict != "equivalent"
