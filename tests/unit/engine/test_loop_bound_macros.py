"""A macro the input does not define that bounds a counted loop (`order < MAX_ORDER`, chosen by
the build's configuration) is one value both sides share, drawn from 0..star_max: drawn over its
whole type, every case at its extremes went over the per-case bound and the verdict was
inconclusive (mm/vmstat.c's unusable_show_print ran out of its 60 s). Every snippet is C written
for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

ORDERS = """struct zone { unsigned long nr_free[64]; };

static void order_show(struct seq_file *m, struct zone *zone)
{
	unsigned int order;

	for (order = 0; order < MAX_ORDER; ++order) {
		unsigned long blocks = zone->nr_free[order];

		PRINT
	}
	seq_putc(m, '\\n');
}
"""
OLD = 'seq_printf(m, "%6lu ", blocks);'


def searched(new: str, old: str = OLD):
    """The search alone (the proof decides these loops; the bound's range is the search's)."""
    report = verify_sources(ORDERS.replace("PRINT", old), ORDERS.replace("PRINT", new),
                            Options(max_examples=30, proof=False))
    (result,) = report.results
    return result


def test_a_loop_to_a_config_macro_is_tested_over_a_stated_range() -> None:
    result = searched('seq_put_decimal_ull_width(m, "", blocks, 6);\n\t\tseq_putc(m, \' \');')
    assert result.verdict == "equivalent"
    assert any("MAX_ORDER bounding a loop range over 0..16" in note for note in result.notes)


def test_a_separator_lost_after_the_first_order_is_divergent() -> None:
    result = searched('seq_put_decimal_ull_width(m, order ? " " : "", blocks, 6);')
    assert result.verdict == "divergent"


def test_a_defined_bound_is_not_an_input() -> None:
    """The hint is for a macro the input does not define: a defined one keeps its value."""
    old = "#define MAX_ORDER 11\n" + ORDERS.replace("PRINT", OLD)
    new = old.replace(OLD, 'seq_put_decimal_ull_width(m, "", blocks, 6);\n\t\tseq_putc(m, \' \');')
    (result,) = verify_sources(old, new, Options(max_examples=30, proof=False)).results
    assert result.verdict == "equivalent"
    assert not any("bounding a loop" in note for note in result.notes)
