"""A `static` local the function changes (/proc/interrupts' `static int prec;`, set when the first
row prints and read by every later row) holds, at entry, what earlier calls left: an input shared
by both sides, named by its place among the function's statics (a renamed local is the same state),
never its initializer."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources


def irq_row(body: str, name: str = "prec") -> str:
    return (f"static int irq_row(struct seq_file *p, int i)\n{{\n\tstatic int {name};\n\n"
            f"\tif (i == 0)\n\t\t{name} = irq_width();\n{body}\treturn 0;\n}}\n")


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=20)).results[0]


ROW = '\tseq_printf(p, "%*d: |\\n", prec, i);\n'


def test_a_static_the_function_sets_is_not_its_initializer():
    """With prec 0 at entry, `%*d` and `%-*d` print the same; a later row reads the width the
    first row set."""
    result = judge(irq_row(ROW), irq_row(ROW.replace("%*d", "%-*d")))
    assert result.verdict == "divergent", result.reason


def test_a_renamed_static_is_the_same_state():
    new = irq_row('\tseq_printf(p, "%*d: ", width, i);\n\tseq_puts(p, "|\\n");\n', name="width")
    result = judge(irq_row(ROW), new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), result.reason


def test_a_static_the_function_only_reads_holds_its_initializer():
    def show(call: str) -> str:
        return ("static int t_show(struct seq_file *m, void *v)\n{\n\tstatic int width = 4;\n\n"
                f"\t{call};\n\treturn 0;\n}}\n")
    assert judge(show('seq_printf(m, "%*d", width, 7)'), show('seq_printf(m, "%4d", 7)')).verdict == "equivalent"


def test_a_helper_that_assigns_file_state_is_run_and_later_reads_see_the_value():
    """mm/memcontrol.c: the printer's helper sets a file-scope `static u64 flush_next_time;`
    (no longer "assignment to a variable the code does not declare"); what is read after the
    assignment is the assigned value, not the input it was before."""
    def src(fmt: str) -> str:
        return ("static u64 next_flush;\n\nstatic void flush_stats(void)\n{\n\tnext_flush = jiffies_64 + 4;\n}\n\n"
                "static int t_show(struct seq_file *m, void *v)\n{\n\tflush_stats();\n"
                f"\tseq_printf(m, \"{fmt}\\n\", next_flush);\n\treturn 0;\n}}\n")
    result = judge(src("%llu"), src("%lld"))
    assert result.verdict == "divergent", result.reason  # jiffies_64 + 4 may pass 2^63
    result = judge(src("%llu"), src("%llu").replace("jiffies_64 + 4", "jiffies_64 + 5"))
    assert result.verdict == "divergent", result.reason
    result = judge(src("%llu"), src("%llu").replace('"%llu\\n", next_flush', '"%llu\\n", (u64)next_flush'))
    assert (result.verdict, result.method) == ("equivalent", "proven"), result.reason


def test_a_recursion_down_a_parent_pointer_ends_where_testing_ends_chains():
    """kernel/irq/debugfs.c irq_debug_show_data: `if (!data->parent_data) return;` then a call
    on data->parent_data. The parent's nullness is an input; past the chain bound testing takes
    it as NULL (whatever integer type the test assumed), so the recursion ends there."""
    def src(print_irq: str, step: int = 4) -> str:
        return ("struct irq_data {\n\tunsigned int irq;\n\tstruct irq_data *parent_data;\n};\n\n"
                "static void show_data(struct seq_file *m, struct irq_data *data, int ind)\n{\n" + print_irq
                + "\tif (!data->parent_data)\n\t\treturn;\n\tseq_printf(m, \"%*sPARENT:\\n\", ind + 1, \"\");\n"
                f"\tshow_data(m, data->parent_data, ind + {step});\n}}\n")
    old = src('\tseq_printf(m, "%*sirq: %u\\n", ind, "", data->irq);\n')
    new = src('\tseq_printf(m, "%*sirq:", ind, "");\n\tseq_put_decimal_ull(m, " ", data->irq);\n'
              "\tseq_putc(m, '\\n');\n")
    assert judge(old, new).verdict == "equivalent"
    assert judge(old, src('\tseq_printf(m, "%*sirq: %u\\n", ind, "", data->irq);\n', step=3)).verdict == "divergent"
