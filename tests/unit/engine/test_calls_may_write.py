"""An unknown call that receives a pointer into the caller's data may write through it (issue 15,
soundness): a read moved across such a call reads another value, so the pair is never proven
equivalent (these pairs were "equivalent, proven" before the rule). The same calls in the same
order, and the kernel's lock calls, keep the verdict. C written for these tests."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

STATS = "struct foo_stats { spinlock_t lock; unsigned long x; unsigned long y; };\n"


def show(body: str, before: str = STATS) -> str:
    return f"{before}static int t_show(struct seq_file *m, void *v)\n{{\n\tstruct foo_stats *s = m->private;\n\n{body}\treturn 0;\n}}\n"


def verdict(old: str, new: str) -> tuple[str, str, str]:
    result = verify_sources(show(old), show(new), Options(max_examples=30)).results[0]
    return result.verdict, result.method or "", result.reason or ""


PRINT = '\tseq_printf(m, "%lu %lu\\n", s->x, s->y);\n'


def test_a_print_moved_before_a_call_that_receives_the_data_is_not_equivalent():
    got, _, reason = verdict("\tfoo_refresh(s);\n" + PRINT, PRINT + "\tfoo_refresh(s);\n")
    assert got == "inconclusive"
    assert "s->x" in reason


def test_the_same_call_before_the_same_reads_stays_proven():
    new = ('\tfoo_refresh(s);\n\tseq_put_decimal_ull(m, "", s->x);\n'
           '\tseq_put_decimal_ull(m, " ", s->y);\n\tseq_putc(m, \'\\n\');\n')
    assert verdict("\tfoo_refresh(s);\n" + PRINT, new)[:2] == ("equivalent", "proven")


def test_a_call_given_a_member_can_reach_the_whole_object():
    """container_of: `update(&s->lock)` could write s->x, so a read of s->x moved across it is not
    the same read."""
    old = '\tunsigned long x = s->x;\n\n\tfoo_update(&s->y);\n\tseq_printf(m, "%lu\\n", x);\n'
    new = '\tfoo_update(&s->y);\n\tseq_printf(m, "%lu\\n", s->x);\n'
    assert verdict(old, new)[0] == "inconclusive"


def test_a_read_moved_before_a_call_in_a_loop_body_is_not_equivalent():
    old = ('\tint i;\n\n\tfor (i = 0; i < 4; i++) {\n\t\tfoo_refresh(s);\n'
           '\t\tseq_printf(m, " %lu", s->x);\n\t}\n')
    new = ('\tint i;\n\n\tfor (i = 0; i < 4; i++) {\n\t\tunsigned long x = s->x;\n\n'
           '\t\tfoo_refresh(s);\n\t\tseq_put_decimal_ull(m, " ", x);\n\t}\n')
    assert verdict(old, new)[0] == "inconclusive"


def test_the_kernels_lock_calls_write_only_their_lock():
    old = '\tunsigned long x;\n\n\tspin_lock(&s->lock);\n\tx = s->x;\n\tspin_unlock(&s->lock);\n\tseq_printf(m, "%lu\\n", x);\n'
    new = '\tspin_lock(&s->lock);\n\tseq_put_decimal_ull(m, "", s->x);\n\tspin_unlock(&s->lock);\n\tseq_putc(m, \'\\n\');\n'
    assert verdict(old, new)[:2] == ("equivalent", "proven")


def test_a_call_given_only_numbers_writes_nothing_of_the_callers():
    old = '\tunsigned long x = s->x;\n\n\tseq_printf(m, "%lu %lu\\n", foo_scale(s->y), x);\n'
    new = '\tseq_printf(m, "%lu %lu\\n", foo_scale(s->y), s->x);\n'
    assert verdict(old, new)[:2] == ("equivalent", "proven")


def test_a_call_whose_name_says_it_changes_what_it_gets_writes_even_when_its_value_is_used():
    old = '\tunsigned long x = s->x;\n\n\tseq_printf(m, "%d %lu\\n", atomic_inc_return(&s->y), x);\n'
    new = '\tseq_printf(m, "%d %lu\\n", atomic_inc_return(&s->y), s->x);\n'
    assert verdict(old, new)[0] == "inconclusive"


def test_the_kernels_read_only_accessors_write_nothing():
    old = '\tunsigned long x = s->x;\n\n\tseq_printf(m, "%d %lu\\n", atomic_read(&s->y), x);\n'
    new = '\tseq_printf(m, "%d %lu\\n", atomic_read(&s->y), s->x);\n'
    assert verdict(old, new)[:2] == ("equivalent", "proven")


def test_a_difference_that_needs_no_write_is_divergent_with_a_case_where_the_call_wrote_nothing():
    """The moved print also lost its separator: divergent, and the reported case reads s->x equal
    before and after the call (a callee that writes nothing), so it is realizable."""
    old = PRINT + "\tfoo_refresh(s);\n"
    new = '\tfoo_refresh(s);\n\tseq_printf(m, "%lu%lu\\n", s->x, s->y);\n'
    result = verify_sources(show(old), show(new), Options(max_examples=30)).results[0]
    assert result.verdict == "divergent"
    case = result.divergences[0].counterexample
    assert set(case) == {"s->x", "s->y"}, case  # each read once: the call wrote nothing
    assert result.divergences[0].actual == b"00"
