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
