"""The planned search passes over vectors that are their base case again (issue 15, the case
budget): a vector of `alone` or `sweep` that moves only inputs the zero or default case never
read runs as that case, so it is neither run nor counted. /proc/consoles printed `MAJOR(dev)`,
an uninterpreted call keyed by the value of `dev`: every value the search gave `dev` revealed
two new inputs, and each later round of `alone` and `sweep` moved them where the bases never
read them, until the 25,000-case budget was spent. C written for these tests in the kernel's
style."""

from __future__ import annotations

from fmtcheck.common.options import Bounds, Options
from fmtcheck.engine.bases import CaseBases
from fmtcheck.engine.inputs import VectorInputs
from fmtcheck.engine.verdict import verify_sources

REC_SHOW = """struct rec { unsigned short base, off; const char *name; int index; };

static int rec_show(struct seq_file *m, void *v)
{
	struct rec *r = v;
	unsigned int dev = r->base + r->off;

	seq_setwidth(m, 20);
	seq_printf(m, "%s%d", r->name, r->index);
	seq_pad(m, ' ');
	if (dev)
		seq_printf(m, " %4u:%u", dev_major(dev), dev_minor(dev));
	seq_putc(m, '\\n');
	return 0;
}
"""

SPLIT = REC_SHOW.replace('seq_printf(m, "%s%d", r->name, r->index);',
                         'seq_puts(m, r->name);\n\tseq_printf(m, "%d", r->index);').replace(
    'seq_printf(m, " %4u:%u", dev_major(dev), dev_minor(dev));',
    '{\n\t\tseq_printf(m, " %4u", dev_major(dev));\n\t\tseq_printf(m, ":%u", dev_minor(dev));\n\t}')


def judge(old: str, new: str, cases: int):
    options = Options(max_examples=10, bounds=Bounds(cases=cases))
    return verify_sources(old, new, options).results[0]


def test_inputs_a_value_keyed_call_reveals_later_do_not_spend_the_budget() -> None:
    """The proof stops at seq_pad; the search over a budget of 6,000 cases completes (it spent
    all of them, and more, on vectors equal to their base before)."""
    assert SPLIT != REC_SHOW
    result = judge(REC_SHOW, SPLIT, 6000)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "tested"
    assert result.cases < 6000


def test_a_slip_only_a_later_revealed_input_shows_is_still_found() -> None:
    """The width of `dev_major(dev)` changed: the input is read only when dev is not 0 (never by
    the zero case): its sweep where it was revealed still shows it."""
    slipped = SPLIT.replace('" %4u", dev_major', '" %3u", dev_major')
    result = judge(REC_SHOW, slipped, 6000)
    assert result.verdict == "divergent"


def test_a_search_that_still_needs_more_cases_stays_inconclusive_by_its_budget() -> None:
    result = judge(REC_SHOW, SPLIT, 800)
    assert result.verdict == "inconclusive"
    assert "case budget (800 cases)" in result.reason


def _base(fixed_reads: dict, zero: bool = True) -> CaseBases:
    """A base case that read the inputs of FIXED_READS (name -> value) and printed the same."""
    inputs = VectorInputs(zero=zero)
    for name, value in fixed_reads.items():
        if isinstance(value, bytes):
            inputs.str_input(name, "text")
        else:
            inputs.int_input(name, ("int", 32, False))
    bases = CaseBases()
    bases.record(inputs, True)
    return bases


def test_a_vector_is_its_base_only_where_it_moves_what_the_base_never_read() -> None:
    bases = _base({"r->base": 0, "r->off": 0})
    assert bases.is_base_again({"dev_major(7)": 5}, zero=True)
    assert bases.is_base_again({"r->base": 0}, zero=True)  # the base's own value
    assert not bases.is_base_again({"r->base": 1}, zero=True)
    assert not bases.is_base_again({"dev_major(7)": 5}, zero=False)  # no default base yet


def test_another_view_of_an_input_the_base_read_is_never_taken_for_unread() -> None:
    """`KEY (as a number)` names the number view of an input read as a string: the base read
    KEY, so a vector moving either view runs."""
    bases = _base({"r->name": b""})
    assert not bases.is_base_again({"r->name (as a number)": 1}, zero=True)
    assert not bases.is_base_again({"r->name": 0}, zero=True)  # a number where it read a string
    assert not bases.is_base_again({"r->name": b"a"}, zero=True)


def test_only_a_plain_case_that_printed_the_same_is_a_base() -> None:
    bases = CaseBases()
    differing = VectorInputs(zero=True)
    bases.record(differing, False)
    named = VectorInputs({"x": 1}, zero=True)
    bases.record(named, True)
    assert bases.zero_reads() is None
    assert not bases.is_base_again({"y": 1}, zero=True)
