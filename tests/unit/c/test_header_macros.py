"""With `--tree`, the arithmetic macros of the headers a file includes are expanded (issue 15):
/proc/loadavg prints `LOAD_INT(a)`, `LOAD_FRAC(a)` of include/linux/sched/loadavg.h. Unexpanded,
each was an uninterpreted function keyed by its argument's value, a new input for every value,
and the search ran out of its case budget. Headers and C here are written for these tests in
the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.c.cfront import header_macros
from fmtcheck.common.options import Options

HEADER = """#ifndef _LINUX_LOADISH_H
#define _LINUX_LOADISH_H
#define FSHIFT 11
#define FIXED_1 (1 << FSHIFT)
#define LOAD_INT(x) ((x) >> FSHIFT)
#define LOAD_FRAC(x) LOAD_INT(((x) & (FIXED_1 - 1)) * 100)
#define NODE_OF(p) ((p)->node)
#define TWICE(x) ({ typeof(x) _x = (x); _x + _x; })
#ifdef CONFIG_WIDE
#define SPAN(x) ((x) << 2)
#else
#define SPAN(x) ((x) << 1)
#endif
#define min(a, b) ((a) < (b) ? (a) : (b))
#define OUTER(x) (MIDDLE(x) + 1)
#define MIDDLE(x) (INNER(x) * 2)
#define INNER(x) ((x)->count)
#endif
"""

ROW = """#include <linux/loadish.h>

static int avg_show(struct seq_file *m, void *v)
{
	unsigned long a = avg_of(v);

	seq_printf(m, "%lu.%02lu\\n", LOAD_INT(a), LOAD_FRAC(a));
	return 0;
}
"""

SPLIT = ROW.replace('seq_printf(m, "%lu.%02lu\\n", LOAD_INT(a), LOAD_FRAC(a));',
                    'seq_put_decimal_ull(m, "", LOAD_INT(a));\n\tseq_putc(m, \'.\');\n'
                    '\tseq_printf(m, "%02lu\\n", LOAD_FRAC(a));')


def tree_with_header(tmp_path) -> str:
    (tmp_path / "include/linux").mkdir(parents=True)
    (tmp_path / "include/linux/loadish.h").write_text(HEADER)
    return str(tmp_path)


def test_the_split_row_over_header_macros_is_decided_with_the_tree(tmp_path):
    assert SPLIT != ROW
    report = verify_sources(ROW, SPLIT, Options(tree=tree_with_header(tmp_path), max_examples=30),
                            old_label="kernel/avg.c", new_label="kernel/avg.c")
    result = report.results[0]
    assert result.verdict == "equivalent", result.reason


def test_a_header_macro_means_its_body(tmp_path):
    """`LOAD_INT(a)` against the shift it stands for: equal with the tree; without it the macro
    is a call only one side makes, so the answer cannot be equivalent."""
    shifted = ROW.replace("LOAD_INT(a), LOAD_FRAC(a)", "a >> 11, LOAD_FRAC(a)")
    with_tree = verify_sources(ROW, shifted, Options(tree=tree_with_header(tmp_path), max_examples=30),
                               old_label="kernel/avg.c", new_label="kernel/avg.c").results[0]
    assert with_tree.verdict == "equivalent", with_tree.reason
    wider = shifted.replace("a >> 11", "a >> 10")
    assert verify_sources(ROW, wider, Options(tree=str(tmp_path), max_examples=30), old_label="kernel/avg.c",
                          new_label="kernel/avg.c").results[0].verdict == "divergent"
    alone = verify_sources(ROW, shifted, Options(max_examples=30)).results[0]
    assert alone.verdict == "inconclusive"


def test_only_plain_arithmetic_macros_defined_once_and_unknown_to_the_model_are_taken(tmp_path):
    tree = tree_with_header(tmp_path)
    text = ROW.encode() + b"int x = NODE_OF(p) + TWICE(1) + SPAN(2) + min(1, 2);\n"
    taken = header_macros(text, "kernel/avg.c", tree)
    assert set(taken) == {"LOAD_INT", "LOAD_FRAC"}  # LOAD_FRAC's LOAD_INT followed too
    assert taken["LOAD_INT"].params == ["x"]
    chained = header_macros(ROW.encode() + b"int y = OUTER(p);\n", "kernel/avg.c", tree)
    assert "OUTER" not in chained and "MIDDLE" not in chained  # INNER reads a member: none of the chain


def test_without_the_tree_nothing_is_expanded(tmp_path):
    tree_with_header(tmp_path)
    assert header_macros(ROW.encode(), "kernel/avg.c", str(tmp_path / "nowhere")) == {}


def test_the_modelled_builtins_are_exactly_the_call_compilers():
    """lib.BUILTIN_CALLS (which keeps a header's definition from replacing a modelled call) is
    kept by hand in the kernel layer, below the C compiler it names: it must match the compiler."""
    from fmtcheck.c.calls import CallCompiler
    from fmtcheck.kernel import lib

    builtins = {n[len("_builtin_"):] for n in dir(CallCompiler) if n.startswith("_builtin_")}
    assert builtins == set(lib.BUILTIN_CALLS)
