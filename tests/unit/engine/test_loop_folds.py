"""A value a loop over an input accumulates (`idle += cpu_idle_ticks(cpu)`, /proc/uptime's idle
time; `any_count |= ...`, /proc/interrupts) is the loop's fold after it (fmtcheck.c.folds): equal
on both sides only when the loop, the start and the step are; and what the fast path cannot render
(a fold, a counted loop from another start) is left to the interpreter."""

from __future__ import annotations

import pytest

from fmtcheck.common.options import Options
from fmtcheck.engine.fastpath import compile_trace
from fmtcheck.engine.verdict import verify_sources

from tests.unit.engine.test_loop_induction import proof


def idle_show(decl: str, loop: str, show: str) -> str:
    return ("static int idle_show(struct seq_file *m, void *v)\n{\n" + decl + "\tint cpu;\n\n"
            "\tfor_each_possible_cpu(cpu)\n" + loop + "\n" + show + "\treturn 0;\n}\n")


SUM = "\t\tidle += cpu_idle_ticks(cpu);\n"
DECL = "\tunsigned long long idle = 0;\n"
PRINTF = '\tseq_printf(m, "idle %llu ticks\\n", idle);\n'
SPLIT = '\tseq_puts(m, "idle ");\n\tseq_put_decimal_ull(m, "", idle);\n\tseq_puts(m, " ticks\\n");\n'


def test_a_sum_over_cpus_printed_after_the_loop_is_proven():
    old = idle_show(DECL, SUM, PRINTF)
    new = ("static int idle_show(struct seq_file *m, void *v)\n{\n\tunsigned long long total = 0;\n\tint c;\n\n"
           "\tfor_each_possible_cpu(c)\n\t\ttotal += cpu_idle_ticks(c);\n\n"
           + SPLIT.replace("idle)", "total)") + "\treturn 0;\n}\n")
    assert proof(old, new) == (True, None)
    result = verify_sources(old, new, Options(max_examples=20)).results[0]
    assert (result.verdict, result.method) == ("equivalent", "proven"), result.reason


def test_a_maximum_kept_by_a_branch_is_proven():
    step = "\t\tif (cpu_idle_ticks(cpu) > idle)\n\t\t\tidle = cpu_idle_ticks(cpu);\n"
    assert proof(idle_show(DECL, step, PRINTF), idle_show(DECL, step, SPLIT)) == (True, None)


NOT_PROVEN = {
    "another step": idle_show(DECL, SUM.replace("+=", "|="), SPLIT),
    "another start": idle_show(DECL.replace("= 0", "= 1"), SUM, SPLIT),
    "another type": idle_show(DECL.replace("long long", "int"), SUM, SPLIT),
    "the running sum printed": idle_show(DECL, "\t{\n" + SUM + '\t\tseq_printf(m, "%llu ", idle);\n\t}\n', SPLIT),
    "two accumulators": idle_show(DECL + "\tunsigned long long busy = 0;\n",
                                  "\t{\n" + SUM + "\t\tbusy += idle;\n\t}\n", SPLIT),
}


@pytest.mark.parametrize("name", list(NOT_PROVEN))
def test_a_fold_computed_otherwise_is_not_proven(name):
    assert proof(idle_show(DECL, SUM, PRINTF), NOT_PROVEN[name])[0] is False


def test_another_step_is_found_divergent_by_the_interpreter():
    result = verify_sources(idle_show(DECL, SUM, PRINTF), NOT_PROVEN["another step"],
                            Options(max_examples=20)).results[0]
    assert result.verdict == "divergent"


def test_an_iterator_left_by_a_loop_in_one_arm_is_only_unreadable():
    """/proc/interrupts: a header loop under `if (i == 0)` leaves its cpu iterator behind on one
    way of the branch; a later loop over the same iterator is still traced."""
    def show(body: str) -> str:
        return ("static int irq_show(struct seq_file *p, void *v)\n{\n\tint i = *(loff_t *) v, j;\n\n"
                "\tif (i == 0) {\n\t\tfor_each_online_cpu(j)\n\t\t\tseq_printf(p, \"CPU%-8d\", j);\n\t}\n"
                "\tfor_each_online_cpu(j)\n" + body + "\treturn 0;\n}\n")
    old = show('\t\tseq_printf(p, "%10u ", irq_count(i, j));\n')
    new = show('\t\tseq_put_decimal_ull_width(p, "", irq_count(i, j), 10);\n\tseq_putc(p, \' \');\n')
    new = new.replace("irq_count(i, j), 10);\n\tseq_putc", "irq_count(i, j), 10);\n\t\tseq_putc")
    new = new.replace("\tfor_each_online_cpu(j)\n\t\tseq_put", "\tfor_each_online_cpu(j) {\n\t\tseq_put")
    new = new.replace("' ');\n\treturn", "' ');\n\t}\n\treturn")
    assert proof(old, new) == (True, None)


@pytest.mark.parametrize("trace", [
    [b"x", ("int", "u", 0, None, None, ("in", "fold=0123456789abcdef", 64, False))],
    [("loop", "k", (b"y",), (("in", "n", 32, False), ("int", 32, False), ("int", 32, True), ("int", 32, True),
                             ("in", "a", 32, False), True))],
], ids=["fold", "counted from another start"])
def test_the_fast_path_leaves_folds_and_other_starts_to_the_interpreter(trace):
    assert compile_trace(trace) is None


# -- a `*` width over the inputs (/proc/interrupts' `%*d: `) ---------------------------------------


def irq_row(body: str) -> str:
    return f"static int irq_row(struct seq_file *p, int i, int prec)\n{{\n{body}\treturn 0;\n}}\n"


STAR = '\tseq_printf(p, "%*d: %*s|\\n", prec, i, prec, "");\n'
STAR_SPLIT = ('\tseq_printf(p, "%*d", prec, i);\n\tseq_puts(p, ": ");\n\tseq_printf(p, "%*s", prec, "");\n'
              '\tseq_puts(p, "|\\n");\n')


def test_a_star_width_over_an_input_is_proven_for_every_width():
    assert proof(irq_row(STAR), irq_row(STAR_SPLIT)) == (True, None)


@pytest.mark.parametrize("other", [
    STAR_SPLIT.replace('"%*d"', '"%-*d"'),  # left-justified
    STAR_SPLIT.replace('"%*d", prec', '"%*d", prec + 1'),  # another width
    STAR_SPLIT.replace('"%*s", prec, ""', '"%*s", prec, "-"'),  # another string at the width
], ids=["left", "wider", "string"])
def test_a_star_width_printed_otherwise_is_not_proven(other):
    assert proof(irq_row(STAR), irq_row(other))[0] is False


def test_the_fast_path_leaves_a_star_width_to_the_interpreter():
    assert compile_trace([("int*", "d", 0, ("in", "prec", 32, True), None, ("in", "i", 32, True))]) is None
    assert compile_trace([("str*", ("lit", b""), None, 0, ("in", "prec", 32, True))]) is None
