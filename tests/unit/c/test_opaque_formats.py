"""`seq_printf` with a format the code does not spell (issue 15): a format held by the caller's
data (`seq_printf(s, r->format_str, dom->id, width, val)`, as arch/x86 resctrl's schemata rows),
or a pointer a local holds (`fmt`, set by branches). The call is an opaque event keyed by the
format and by every argument's value and promoted type: two sides passing the same things print
the same bytes; anything else is inconclusive, never divergent (the bytes are not rendered).
C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

DOMS_SHOW = """struct rdt_res { const char *format_str; struct list_head domains; };
struct dom { struct list_head list; int id; u32 val; };

static int doms_show(struct seq_file *s, void *v)
{
	struct rdt_res *r = s->private;
	struct dom *d;
	bool sep = false;

	seq_puts(s, "L3:");
	list_for_each_entry(d, &r->domains, list) {
		if (sep)
			seq_puts(s, ";");
		seq_printf(s, r->format_str, d->id, 8, d->val);
		sep = true;
	}
	seq_puts(s, "\\n");
	return 0;
}
"""

# the same rows, the flag inverted and renamed, the literal split
REWRITTEN = (DOMS_SHOW.replace("bool sep = false;", "bool first = true;").replace("if (sep)", "if (!first)")
             .replace("sep = true;", "first = false;").replace('seq_puts(s, "L3:");', "seq_puts(s, \"L3\");\n\tseq_putc(s, ':');"))

BANNER_SHOW = """struct banner { const char *fmt; const char *sysname, *release; unsigned short build; };

static int banner_show(struct seq_file *m, void *v)
{
	struct banner *b = m->private;

	seq_printf(m, b->fmt, b->sysname, b->release, b->build);
	return 0;
}
"""

BANNER_LOCAL = """struct banner { const char *fmt; const char *sysname, *release; unsigned short build; };

static int banner_show(struct seq_file *m, void *v)
{
	struct banner *b = m->private;
	int build = b->build;

	seq_printf(m, b->fmt, b->sysname, b->release, build);
	return 0;
}
"""


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_format_held_by_the_callers_data_is_decided():
    assert REWRITTEN != DOMS_SHOW
    result = judge(DOMS_SHOW, REWRITTEN)
    assert result.verdict == "equivalent", result.reason


def test_arguments_through_locals_and_promotions_are_the_same_arguments():
    # `unsigned short` and `int` are both received as int after the promotions
    result = judge(BANNER_SHOW, BANNER_LOCAL)
    assert result.verdict == "equivalent", result.reason
    same_type = judge(BANNER_SHOW, BANNER_LOCAL.replace("int build", "unsigned short build"))
    assert same_type.verdict == "equivalent", same_type.reason
    assert same_type.method == "proven"


def test_another_width_argument_is_not_equivalent():
    other = REWRITTEN.replace("d->id, 8, d->val", "d->id, 9, d->val")
    result = judge(DOMS_SHOW, other)
    assert result.verdict == "inconclusive", result.reason


def test_a_wider_argument_is_not_equivalent():
    # `%u` of a u32 and of a u64 read different bytes of the va_list
    other = REWRITTEN.replace("d->id, 8, d->val", "d->id, 8, (u64)d->val")
    assert judge(DOMS_SHOW, other).verdict == "inconclusive"


def test_swapped_arguments_are_not_equivalent():
    other = BANNER_LOCAL.replace("b->sysname, b->release, build", "b->release, b->sysname, build")
    assert judge(BANNER_SHOW, other).verdict == "inconclusive"


def test_another_format_is_not_equivalent():
    other = BANNER_LOCAL.replace("struct banner { const char *fmt;", "struct banner { const char *fmt, *fmt2;") \
        .replace("seq_printf(m, b->fmt,", "seq_printf(m, b->fmt2,")
    old = BANNER_SHOW.replace("struct banner { const char *fmt;", "struct banner { const char *fmt, *fmt2;")
    assert judge(old, other).verdict == "inconclusive"


def test_the_call_moved_after_literal_text_is_not_equivalent():
    # "v E" and "E v" are equal only when E prints nothing or spaces
    old = BANNER_SHOW.replace("\tseq_printf(m, b->fmt,", "\tseq_puts(m, \"v \");\n\tseq_printf(m, b->fmt,")
    new = BANNER_LOCAL.replace("b->sysname, b->release, build);", "b->sysname, b->release, build);\n\tseq_puts(m, \"v \");")
    assert judge(old, new).verdict == "inconclusive"


def test_a_format_a_local_points_to_is_keyed_by_its_bytes():
    old = """struct ent { int hex; int v; };

static int ent_show(struct seq_file *m, void *v)
{
	struct ent *e = v;
	const char *fmt = "%d\\n";

	if (e->hex)
		fmt = "%x\\n";
	seq_printf(m, fmt, e->v);
	return 0;
}
"""
    same = old.replace("fmt", "f")
    assert judge(old, same).verdict == "equivalent"
    other = old.replace('"%x\\n"', '"%X\\n"')
    assert judge(old, other).verdict == "inconclusive"
