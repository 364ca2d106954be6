"""With `--tree`, what the headers a file includes define about types is a fact the verdict uses
when it is certain (issue 15): a struct defined once (its members' types; its members' positions
when no `#if` sits in its body), a braced-initializer macro (`SNMP_MIB_ITEM(...)`,
`SNMP_MIB_SENTINEL`), a typedef of an integer type. Two definitions (a `#ifdef` choosing
between them) are a set of possibilities, not a choice: the model then knows nothing of that
name. A global struct or table the file never writes, passed to an unknown call, is named by
its declaration. Headers and C here are written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

LABEL = "net/rec/proc.c"

HEADER = """#ifndef _NET_RECMIB_H
#define _NET_RECMIB_H
struct rec_mib {
	const char *name;
	int entry;
};

#define REC_MIB_ITEM(_name, _entry) {	\\
	.name = _name,			\\
	.entry = _entry,		\\
}

#define REC_MIB_SENTINEL {	\\
	.name = NULL,		\\
	.entry = 0,		\\
}

enum { REC_MIB_NUM = 0, REC_MIB_IN, REC_MIB_OUT, __REC_MIB_MAX };

#ifdef CONFIG_REC_WIDE
struct rec_pair { const char *name; long value; };
#else
struct rec_pair { const char *name; int value; };
#endif

struct rec_slot {
	const char *name;
#ifdef CONFIG_REC_ID
	int id;
#endif
	int entry;
};

struct rec_region {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long flags[4];
	unsigned int low:3;
};

typedef unsigned int rec_key_t;
#ifdef CONFIG_REC_WIDE
typedef unsigned long rec_count_t;
#else
typedef unsigned int rec_count_t;
#endif
#endif
"""

TABLE = """#include <net/recmib.h>

static const struct rec_mib rec_list[] = {
	REC_MIB_ITEM("InPkts", REC_MIB_IN),
	REC_MIB_ITEM("OutPkts", REC_MIB_OUT),
	REC_MIB_SENTINEL
};

static int rec_seq_show(struct seq_file *seq, void *v)
{
	struct net *net = seq->private;
	int i;

	seq_puts(seq, "Rec:");
	for (i = 0; rec_list[i].name; i++)
		seq_printf(seq, " %s", rec_list[i].name);
	seq_puts(seq, "\\nRec:");
	for (i = 0; rec_list[i].name; i++)
		seq_printf(seq, " %lu", rec_fold(net->rec, rec_list[i].entry));
	seq_putc(seq, '\\n');
	return 0;
}
"""


def tree_with(tmp_path) -> str:
    (tmp_path / "include/net").mkdir(parents=True)
    (tmp_path / "include/net/recmib.h").write_text(HEADER)
    (tmp_path / "net/rec").mkdir(parents=True)
    return str(tmp_path)


def verdict(old: str, new: str, tree: str | None) -> tuple[str, str]:
    result = verify_sources(old, new, Options(max_examples=40, tree=tree), old_label=LABEL, new_label=LABEL).results[0]
    return result.verdict, result.reason or ""


def test_a_table_of_a_header_struct_built_by_header_macros_is_the_kernel_table(tmp_path):
    tree = tree_with(tmp_path)
    spelled = TABLE.replace('seq_puts(seq, "Rec:");\n\tfor (i = 0; rec_list[i].name; i++)\n'
                            '\t\tseq_printf(seq, " %s", rec_list[i].name);', 'seq_puts(seq, "Rec: InPkts OutPkts");')
    assert spelled != TABLE
    assert verdict(TABLE, spelled, tree)[0] == "equivalent"
    assert verdict(TABLE, spelled.replace("OutPkts", "OutPkt"), tree)[0] == "divergent"
    assert verdict(TABLE, spelled, None)[0] == "inconclusive"


def test_a_struct_two_branches_define_differently_is_not_known(tmp_path):
    """`struct rec_pair` has an `int` member in one build and a `long` in the other: neither."""
    tree = tree_with(tmp_path)
    table = TABLE.replace("struct rec_mib rec_list", "struct rec_pair rec_list").replace(
        'REC_MIB_ITEM("InPkts", REC_MIB_IN),\n\tREC_MIB_ITEM("OutPkts", REC_MIB_OUT),\n\tREC_MIB_SENTINEL',
        '{ "InPkts", REC_MIB_IN }, { "OutPkts", REC_MIB_OUT }, { NULL, 0 }').replace(".entry", ".value")
    result, reason = verdict(table, table.replace('" %s"', '"%s"'), tree)
    assert result == "inconclusive" and "struct rec_pair" in reason, reason


def test_positions_of_a_struct_with_a_build_dependent_member_are_not_used(tmp_path):
    """`struct rec_slot` has an `id` member in some builds: a positional initializer's second
    value is `id` or `entry` by build; a designated one is the member it names."""
    tree = tree_with(tmp_path)
    positional = TABLE.replace("struct rec_mib rec_list", "struct rec_slot rec_list").replace(
        'REC_MIB_ITEM("InPkts", REC_MIB_IN),\n\tREC_MIB_ITEM("OutPkts", REC_MIB_OUT),\n\tREC_MIB_SENTINEL',
        '{ "InPkts", REC_MIB_IN }, { "OutPkts", REC_MIB_OUT }, { NULL, 0 }')
    result, reason = verdict(positional, positional.replace('" %s"', '"%s"'), tree)
    assert result == "inconclusive" and "depend on the build" in reason, reason
    designated = TABLE.replace("struct rec_mib rec_list", "struct rec_slot rec_list")
    spelled = designated.replace('seq_puts(seq, "Rec:");\n\tfor (i = 0; rec_list[i].name; i++)\n'
                                 '\t\tseq_printf(seq, " %s", rec_list[i].name);', 'seq_puts(seq, "Rec: InPkts OutPkts");')
    assert verdict(designated, spelled, tree)[0] == "equivalent"


REGION = """#include <net/recmib.h>

static int rec_region_show(struct seq_file *m, void *v)
{
	struct rec_region *region = v;
	rec_key_t key = rec_key_of(v);
	unsigned long size = region->vm_end - region->vm_start;

	seq_printf(m, "Size:%8lu kB %u %zu\\n", size >> 10, key, ARRAY_SIZE(region->flags));
	return 0;
}
"""


def test_member_types_array_sizes_and_typedefs_of_the_headers_are_facts(tmp_path):
    """`region->vm_end` is unsigned long, `region->flags` has 4 elements, `rec_key_t` is an
    unsigned int: with the tree, `%8lu` against a 64-bit primitive is proven; without it the
    member's type is not declared (the verdict must hold for every type), and ARRAY_SIZE of it
    has no value."""
    tree = tree_with(tmp_path)
    split = REGION.replace('seq_printf(m, "Size:%8lu kB %u %zu\\n", size >> 10, key, ARRAY_SIZE(region->flags));',
                           'seq_put_decimal_ull_width(m, "Size:", size >> 10, 8);\n\tseq_puts(m, " kB ");\n'
                           '\tseq_put_decimal_ull(m, "", key);\n\tseq_puts(m, " 4\\n");')
    assert verdict(REGION, split, tree)[0] == "equivalent"
    assert verdict(REGION, split, None)[0] != "equivalent"
    assert verdict(REGION, split.replace('" 4\\n"', '" 5\\n"'), tree)[0] == "divergent"


def test_a_typedef_two_branches_define_differently_is_not_a_type(tmp_path):
    """`rec_count_t` is 32 bits in one build and 64 in the other: `%u` of one against a 64-bit
    primitive is not proven."""
    tree = tree_with(tmp_path)
    text = REGION.replace("rec_key_t key", "rec_count_t key")
    split = text.replace('seq_printf(m, "Size:%8lu kB %u %zu\\n", size >> 10, key, ARRAY_SIZE(region->flags));',
                         'seq_put_decimal_ull_width(m, "Size:", size >> 10, 8);\n\tseq_puts(m, " kB ");\n'
                         '\tseq_put_decimal_ull(m, "", key);\n\tseq_puts(m, " 4\\n");')
    assert verdict(text, split, tree)[0] != "equivalent"


POLICY = """#include <net/recmib.h>

struct rec_file {
	const char *name;
	int (*show)(struct seq_file *m, void *v);
};

static struct rec_file rec_files[] = {
	{ .name = "weight", .show = rec_weight_show },
	{ }
};

static struct rec_policy rec_policy = {
	.files = rec_files,
	.name = "rec",
};

static int rec_weight_show(struct seq_file *m, void *v)
{
	struct rec_group *g = rec_group_of(seq_css(m), &rec_policy);

	seq_printf(m, "default %u\\n", g->weight);
	return 0;
}
"""


def test_a_global_the_file_never_writes_is_named_by_its_declaration(tmp_path):
    """`&rec_policy` holds a table: an unknown call that receives it names it by the global and
    its declaration, the same on both sides; a side that declares it otherwise, or a file that
    writes it (itself, or through a helper that receives its address), gives no such name."""
    tree = tree_with(tmp_path)
    split = POLICY.replace('seq_printf(m, "default %u\\n", g->weight);',
                           'seq_puts(m, "default ");\n\tseq_printf(m, "%u\\n", g->weight);')
    assert verdict(POLICY, split, tree)[0] == "equivalent"
    renamed = split.replace('.name = "rec"', '.name = "cer"')
    assert verdict(POLICY, renamed, tree)[0] != "equivalent"
    written = POLICY.replace("\treturn 0;\n}\n", "\trec_policy.name = \"x\";\n\treturn 0;\n}\n")
    assert verdict(written, written, tree)[0] == "inconclusive"
    helper = "static void rec_reset(struct rec_policy *p)\n{\n\tp->name = \"x\";\n}\n\n"
    reset = POLICY.replace("static int rec_weight_show", helper + "static int rec_weight_show").replace(
        "\tstruct rec_group *g", "\tstruct rec_group *g;\n\n\trec_reset(&rec_policy);\n\tg").replace(
        "g = rec_group_of", "g = rec_group_of")
    assert "rec_reset(&rec_policy)" in reset
    assert verdict(reset, reset, tree)[0] == "inconclusive"


ARGS_HEADER = """#define REC_NAME(n) rec_type_name((n).type), le64_to_cpu((n).num)
"""

ARGS = """#include <net/recargs.h>

static int rec_map_show(struct seq_file *s, void *p)
{
	struct rec_inst *inst = s->private;

	seq_printf(s, "\\t%s%lld\\t%s\\n", REC_NAME(inst->name), rec_pr_addr(&inst->addr));
	return 0;
}
"""


def test_a_header_macro_that_is_several_arguments_is_expanded(tmp_path):
    """`REC_NAME(inst->name)` is two arguments of the printf: with the tree it is expanded
    (whatever it calls), and the format's three conversions meet three arguments."""
    tree = tree_with(tmp_path)
    (tmp_path / "include/net/recargs.h").write_text(ARGS_HEADER)
    split = ARGS.replace('seq_printf(s, "\\t%s%lld\\t%s\\n", REC_NAME(inst->name), rec_pr_addr(&inst->addr));',
                         'seq_printf(s, "\\t%s%lld", REC_NAME(inst->name));\n'
                         '\tseq_printf(s, "\\t%s\\n", rec_pr_addr(&inst->addr));')
    assert verdict(ARGS, split, tree)[0] == "equivalent"
    assert verdict(ARGS, split, None)[0] == "inconclusive"
    swapped = split.replace('"\\t%s%lld", REC_NAME', '"\\t%s %lld", REC_NAME')
    assert verdict(ARGS, swapped, tree)[0] == "divergent"


PER_CPU = """DEFINE_PER_CPU_SHARED_ALIGNED(rec_cpustat_t, rec_stat);

static int rec_show_interrupts(struct seq_file *p, void *v)
{
	int j;

	seq_printf(p, "%*s: ", 3, "NMI");
	for_each_online_cpu(j)
		seq_printf(p, "%10u ", per_cpu(rec_stat, j).nmi_count);
	seq_puts(p, "  Non-maskable interrupts\\n");
	return 0;
}
"""


def test_a_global_of_an_undefined_type_without_initializer_is_the_kernels_data():
    """`rec_stat`, of a type the input does not define and with no initializer, is the kernel's
    per-CPU data, the same on both sides (it was each side's own uninitialised value)."""
    split = PER_CPU.replace('seq_printf(p, "%10u ", per_cpu(rec_stat, j).nmi_count);',
                            '{\n\t\tseq_printf(p, "%10u", per_cpu(rec_stat, j).nmi_count);\n\t\tseq_putc(p, \' \');\n\t}')
    assert verdict(PER_CPU, split, None)[0] == "equivalent"
    assert verdict(PER_CPU, split.replace("seq_putc(p, ' ')", "seq_putc(p, '|')"), None)[0] == "divergent"


COUNTS_HEADER = """struct rec_cnt_entry {
	char *label;
	atomic_t *counter;
};
#define REC_CNT_ENTRY(name) \\
{.label= #name, .counter= &rec_cnt_## name}
"""

COUNTS = """#include <net/reccnt.h>

static struct rec_cnt_entry rec_cnts[] = {
	REC_CNT_ENTRY(sock),
	REC_CNT_ENTRY(ep),
};

static int rec_cnt_show(struct seq_file *seq, void *v)
{
	seq_printf(seq, "%s: %d\\n", rec_cnts[1].label, atomic_read(rec_cnts[1].counter));
	return 0;
}
"""


def test_an_initializer_macro_may_name_and_paste(tmp_path):
    """`#name` and `&rec_cnt_## name` in a header's initializer macro: the entry's label is the
    name, its counter the address of the pasted global."""
    tree = tree_with(tmp_path)
    (tmp_path / "include/net/reccnt.h").write_text(COUNTS_HEADER)
    spelled = COUNTS.replace('seq_printf(seq, "%s: %d\\n", rec_cnts[1].label, atomic_read(rec_cnts[1].counter));',
                             'seq_printf(seq, "ep: %d\\n", atomic_read(&rec_cnt_ep));')
    assert verdict(COUNTS, spelled, tree)[0] == "equivalent"
    assert verdict(COUNTS, spelled.replace('"ep: ', '"sock: '), tree)[0] == "divergent"
    assert verdict(COUNTS, spelled.replace("&rec_cnt_ep", "&rec_cnt_sock"), tree)[0] != "equivalent"


def test_a_bitfield_member_of_a_header_struct_is_not_its_declared_type(tmp_path):
    """`unsigned int low:3` promotes to int: `low - 1` is -1 at 0, so `%lu` of it and of
    `(unsigned int)low - 1` differ in the kernel; as an unsigned int the two would look equal."""
    tree = tree_with(tmp_path)
    old = REGION.replace('seq_printf(m, "Size:%8lu kB %u %zu\\n", size >> 10, key, ARRAY_SIZE(region->flags));',
                         'seq_printf(m, "%lu\\n", region->low - 1);')
    new = old.replace("region->low - 1", "(unsigned int)region->low - 1")
    assert verdict(old, new, tree)[0] != "equivalent"


ITEMS = TABLE.replace("static int rec_seq_show", """static void rec_show_items(struct seq_file *seq, const struct rec_mib *itemlist)
{
	seq_printf(seq, " %lu\\n", rec_fold_batch(seq->private, itemlist));
}

static int rec_seq_show""").replace("\tseq_putc(seq, '\\n');", "\trec_show_items(seq, rec_list);")


def test_a_table_a_helper_passes_on_to_an_unknown_call_is_named_by_its_declaration(tmp_path):
    """`itemlist`, the helper's parameter, points at the file's `rec_list`: the unknown call that
    receives it names the table by its declaration; another table is another value."""
    tree = tree_with(tmp_path)
    assert "rec_show_items(seq, rec_list);" in ITEMS
    split = ITEMS.replace('seq_printf(seq, " %lu\\n", rec_fold_batch(seq->private, itemlist));',
                          'seq_printf(seq, " %lu", rec_fold_batch(seq->private, itemlist));\n\tseq_putc(seq, \'\\n\');')
    assert verdict(ITEMS, split, tree)[0] == "equivalent"
    other = split.replace("rec_show_items(seq, rec_list);", "rec_show_items(seq, rec_list + 1);")
    assert verdict(ITEMS, other, tree)[0] != "equivalent"
