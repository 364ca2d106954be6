"""Valid kernel C the front end once called a "C syntax error" (issue 15), each reduced to a
case written here in the kernel's style: an object-like macro of several words, a macro used
between its `#define` and its `#undef`, `BUILD_BUG_ON_ZERO` as an initializer's item,
`offsetof` of a member designator, `DECLARE_FLEX_ARRAY` in a struct, `__net_init`, and (with
`--tree`) a header's macro used as the head of a statement (`ifdebug(CACHE) seq_printf(...)`)."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.c import cfront
from fmtcheck.common.options import Options


def verdict(old: str, new: str, tree: str | None = None, label: str = "net/core/rec.c") -> tuple[str, str]:
    result = verify_sources(old, new, Options(max_examples=40, tree=tree), old_label=label,
                            new_label=label).results[0]
    return result.verdict, result.reason or ""


def errors_of(text: str, tree: str | None = None) -> list[int]:
    unit = cfront.parse_unit(text, "net/core/rec.c", tree=tree)
    return [n.start_point[0] + 1 for n in cfront.walk(unit.tree.root_node) if n.type == "ERROR" or n.is_missing]


SIZED = """#define REC_PTR_SIZE sizeof(struct rec *)
#define REC_MASK ((unsigned char)~0)

static int rec_show(struct seq_file *m, void *v)
{
	seq_printf(m, "ptr %zu mask %u\\n", REC_PTR_SIZE, REC_MASK);
	return 0;
}
"""


def test_an_object_like_macro_keeps_its_words_apart():
    """`(unsigned char)~0` from an object-like macro was pasted as `(unsignedchar)~0`, a cast to
    a type nobody declares (and `sizeof(struct rec *)` as `sizeof(structrec*)`)."""
    assert errors_of(SIZED) == []
    text = cfront.preprocess(SIZED.encode(), "net/core/rec.c").text
    assert b"unsignedchar" not in text and b"structrec" not in text
    spelled = SIZED.replace('seq_printf(m, "ptr %zu mask %u\\n", REC_PTR_SIZE, REC_MASK);',
                            'seq_puts(m, "ptr ");\n\tseq_put_decimal_ull(m, "", 8);\n\tseq_puts(m, " mask 255\\n");')
    assert verdict(SIZED, spelled)[0] == "equivalent"
    assert verdict(SIZED, spelled.replace("mask 255", "mask 256"))[0] == "divergent"


STATES = """enum rec_state { REC_UP, REC_DOWN, REC_GONE };

static const char *rec_state_name(int s)
{
#define N(val) case REC_##val: return #val;
	switch (s) {
	N(UP) N(DOWN) N(GONE)
	}
#undef N
	return "UNKNOWN";
}

#define WIDTH 4
static void rec_narrow(struct seq_file *m, int x)
{
	seq_printf(m, "%*d|", WIDTH, x);
}
#undef WIDTH
#define WIDTH 8

static int rec_show(struct seq_file *m, void *v)
{
	struct rec *r = v;

	seq_printf(m, "%s ", rec_state_name(r->state));
	rec_narrow(m, r->a);
	seq_printf(m, "%*d\\n", WIDTH, r->b);
	return 0;
}
"""


def test_a_macro_means_at_each_line_the_definition_in_force_there():
    """`N(...)` is used before its `#undef` (it expanded to nothing: the whole switch was an
    error); WIDTH is 4 in the first printer and 8 after it is defined again (the last definition
    stood for every use)."""
    assert errors_of(STATES) == []
    spelled = STATES.replace('seq_printf(m, "%*d|", WIDTH, x);', 'seq_printf(m, "%4d|", x);').replace(
        'seq_printf(m, "%*d\\n", WIDTH, r->b);', 'seq_printf(m, "%8d\\n", r->b);')
    assert verdict(STATES, spelled, label="net/core/rec.c")[0] == "equivalent"
    swapped = spelled.replace('"%4d|"', '"%8d|"')
    assert verdict(STATES, swapped)[0] == "divergent"


CHECKED = """struct rec {
	unsigned int key;
	unsigned int val;
};

static int rec_checks[] __attribute__((__unused__)) = {
	BUILD_BUG_ON_ZERO(offsetof(struct rec, val) % 4),
	BUILD_BUG_ON_ZERO(offsetof(struct rec, key) % 4)
};

static int __net_init rec_net_init(struct net *net)
{
	return 0;
}

static int rec_show(struct seq_file *m, void *v)
{
	struct rec *r = v;

	seq_printf(m, "%u %u\\n", r->key + BUILD_BUG_ON_ZERO(sizeof(int) - 4), r->val);
	return 0;
}
"""


def test_build_bug_on_zero_is_zero_in_an_initializer_and_a_term():
    assert errors_of(CHECKED) == []
    split = CHECKED.replace('seq_printf(m, "%u %u\\n", r->key + BUILD_BUG_ON_ZERO(sizeof(int) - 4), r->val);',
                            'seq_put_decimal_ull(m, "", r->key);\n\tseq_put_decimal_ull(m, " ", r->val);\n'
                            '\tseq_putc(m, \'\\n\');')
    assert verdict(CHECKED, split)[0] == "equivalent"
    assert verdict(CHECKED, split.replace('" ", r->val', '" ", r->key'))[0] != "equivalent"


OFFSETS = """struct rec_vec {
	unsigned int key;
	union {
		struct hlist_head leaf;
		DECLARE_FLEX_ARRAY(struct rec_vec *, slot);
	};
};

struct rec_node {
	unsigned long flags;
	struct rec_vec kv[1];
};

#define REC_NODE_SIZE(n) offsetof(struct rec_node, kv[0].slot[n])

static int rec_show(struct seq_file *m, void *v)
{
	struct rec_addr *a = v;

	seq_printf(m, "node %zd leaf %zd\\n", REC_NODE_SIZE(0), REC_NODE_SIZE(1));
	seq_printf(m, "%d\\n", a->len - (int)offsetof(struct rec_addr, path));
	return 0;
}
"""


def test_offsetof_of_a_member_designator_is_one_input_per_designator():
    """`offsetof(struct rec_node, kv[0].slot[n])` parses, and is the kernel's layout: an input
    named by the designator, the same on both sides; another designator is another value."""
    assert errors_of(OFFSETS) == []
    split = OFFSETS.replace('seq_printf(m, "node %zd leaf %zd\\n", REC_NODE_SIZE(0), REC_NODE_SIZE(1));',
                            'seq_printf(m, "node %zd", REC_NODE_SIZE(0));\n\tseq_printf(m, " leaf %zd\\n", '
                            'REC_NODE_SIZE(1));')
    assert verdict(OFFSETS, split)[0] == "equivalent"
    other = split.replace('" leaf %zd\\n", REC_NODE_SIZE(1)', '" leaf %zd\\n", REC_NODE_SIZE(0)')
    assert verdict(OFFSETS, other)[0] != "equivalent"
    moved = OFFSETS.replace("offsetof(struct rec_addr, path)", "offsetof(struct rec_addr, name)")
    assert verdict(OFFSETS, moved)[0] != "equivalent"


HEADER = """#ifndef _LINUX_RECDEBUG_H
#define _LINUX_RECDEBUG_H
#ifdef CONFIG_REC_DEBUG
# define ifrecdebug(fac)	if (unlikely(rec_debug & RECDBG_##fac))
#else
# define ifrecdebug(fac)	if (0)
#endif
#define rec_need(len)	if ((rec_pos + (len)) > rec_len) rec_dump()
#define rec_queue_walk(queue, r) \\
		for (r = (queue)->next; r != (struct rec *)(queue); r = r->next)
#ifdef CONFIG_REC_DEBUG
#define rec_maybe(x)	if (x)
#else
#define rec_maybe(x)	do { } while (0)
#endif
#endif
"""

HEADED = """#include <linux/recdebug.h>

static int rec_show(struct seq_file *m, void *v)
{
	struct rec_queue *q = v;
	struct rec *r;

	ifrecdebug(CACHE)
		seq_printf(m, "# flags=%lx\\n", q->flags);
	rec_queue_walk(q, r) {
		seq_printf(m, "%u\\n", r->len);
	}
	return 0;
}
"""


def tree_with(tmp_path) -> str:
    (tmp_path / "include/linux").mkdir(parents=True)
    (tmp_path / "include/linux/recdebug.h").write_text(HEADER)
    (tmp_path / "net/core").mkdir(parents=True)
    return str(tmp_path)


def test_a_header_macro_that_heads_a_statement_is_an_if_or_a_loop(tmp_path):
    """Every definition of `ifrecdebug` is an `if (...)` head: an if on an unknown condition,
    whichever build; `rec_queue_walk` is a loop head: an iterator loop. Without the tree they are
    unknown and the text does not parse."""
    tree = tree_with(tmp_path)
    assert errors_of(HEADED, tree) == []
    assert errors_of(HEADED) != []
    split = HEADED.replace('seq_printf(m, "# flags=%lx\\n", q->flags);',
                           '{\n\t\tseq_puts(m, "# flags=");\n\t\tseq_printf(m, "%lx\\n", q->flags); }').replace(
        'seq_printf(m, "%u\\n", r->len);', 'seq_put_decimal_ull(m, "", r->len);\n\t\tseq_putc(m, \'\\n\');')
    assert verdict(HEADED, split, tree)[0] == "equivalent"
    always = split.replace("ifrecdebug(CACHE)", "")
    assert verdict(HEADED, always, tree)[0] != "equivalent"


def test_a_macro_whose_definitions_differ_in_kind_is_left_as_written(tmp_path):
    """`rec_maybe` is an `if` head in one build and a statement in another: neither reading is
    certain, so the front end does not choose one."""
    tree = tree_with(tmp_path)
    text = HEADED.replace("ifrecdebug(CACHE)", "rec_maybe(q->on)")
    assert b"if (rec_maybe" not in cfront.preprocess(text.encode(), "net/core/rec.c", tree=tree).text
    assert b"if (ifrecdebug" in cfront.preprocess(HEADED.encode(), "net/core/rec.c", tree=tree).text
    needing = HEADED.replace("ifrecdebug(CACHE)", "rec_need(8)")
    assert b"if (rec_need" not in cfront.preprocess(needing.encode(), "net/core/rec.c", tree=tree).text


CHOSEN = """static void rec_print(struct seq_file *m, struct rec *r)
{
	char *fmt = (r->id & REC_EXT_FLAG) ?
		"   %-5s  %08x\\n" :
		"   %-5s     %03x\\n";

	seq_printf(m, fmt, r->name, r->id);
}
"""


def test_a_format_chosen_between_literals_right_before_the_call_is_that_choice():
    spelled = CHOSEN.replace("""	char *fmt = (r->id & REC_EXT_FLAG) ?
		"   %-5s  %08x\\n" :
		"   %-5s     %03x\\n";

	seq_printf(m, fmt, r->name, r->id);""", """	if (r->id & REC_EXT_FLAG)
		seq_printf(m, "   %-5s  %08x\\n", r->name, r->id);
	else
		seq_printf(m, "   %-5s     %03x\\n", r->name, r->id);""")
    assert spelled != CHOSEN
    assert verdict(CHOSEN, spelled)[0] == "equivalent"
    assert verdict(CHOSEN, spelled.replace("%08x", "%07x"))[0] == "divergent"


def test_a_format_chosen_earlier_with_code_in_between_is_not_resolved():
    """The condition could read another value at the call: the format is not that choice made
    at the call, only the literal the local holds, an opaque event (`fmtcheck.c.opaqueformats`)."""
    later = CHOSEN.replace("\n\tseq_printf(m, fmt", "\n\tr->id = rec_next(r);\n\tseq_printf(m, fmt")
    assert verdict(later, later)[0] == "equivalent"
    chosen_at_the_call = later.replace("seq_printf(m, fmt, r->name, r->id);", """if (r->id & REC_EXT_FLAG)
		seq_printf(m, "   %-5s  %08x\\n", r->name, r->id);
	else
		seq_printf(m, "   %-5s     %03x\\n", r->name, r->id);""")
    assert chosen_at_the_call != later
    result, reason = verdict(later, chosen_at_the_call)
    assert result == "inconclusive", reason
