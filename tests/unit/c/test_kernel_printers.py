"""More kernel printers decided against their mechanical rewrite (issue 15, coverage): the
constructs the corpus of real printers showed undecided, each modelled or left uninterpreted but
shared by both sides. Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

import json

from fmtcheck import verify_sources
from fmtcheck.common.options import Options
from fmtcheck.engine.inputs import NUMBER_VIEW, VectorInputs


def show(body: str, before: str = "", params: str = "struct seq_file *m, struct foo_driver *drv") -> str:
    return f"{before}static void foo_show_range({params})\n{{\n{body}}}\n"


def run(old: str, new: str, **options):
    report = verify_sources(old, new, Options(max_examples=30, function="foo_show_range", **options))
    assert len(report.results) == 1
    return report


def verdict_of(old: str, new: str, **options) -> tuple[str, str | None]:
    result = run(old, new, **options).results[0]
    return result.verdict, result.reason


# -- a pointer tested for NULL and printed: two inputs, never one shared slot ------------------

NAMED = show('\tseq_printf(m, "%-20s ", drv->driver_name ? drv->driver_name : "unknown");\n'
             '\tseq_printf(m, "%3d\\n", drv->major);\n')
NAMED_SPLIT = show('\tseq_printf(m, "%-20s", drv->driver_name ? drv->driver_name : "unknown");\n'
                   '\tseq_putc(m, \' \');\n\tseq_printf(m, "%3d", drv->major);\n\tseq_putc(m, \'\\n\');\n')
NAMED_CUT = show('\tseq_printf(m, "%-20.3s ", drv->driver_name ? drv->driver_name : "unknown");\n'
                 '\tseq_printf(m, "%3d\\n", drv->major);\n')


def test_a_name_tested_for_null_and_printed_is_decided_and_the_same_on_every_run():
    # the number (NULL or not) and the contents used to share one slot that each read overwrote,
    # so the two sides of one case saw different values: "did not replay identically"
    first = run(NAMED, NAMED_SPLIT)
    assert first.results[0].verdict == "equivalent", first.results[0].reason
    again = run(NAMED, NAMED_SPLIT)
    assert json.dumps([r.to_json() for r in again.results]) == json.dumps([r.to_json() for r in first.results])


def test_the_contents_of_a_name_tested_for_null_are_still_searched():
    assert verdict_of(NAMED, NAMED_CUT)[0] == "divergent"


def test_both_views_of_one_key_keep_their_values_in_either_order():
    inputs = VectorInputs({"p->name": b"tty", "p->name" + NUMBER_VIEW: 7}, zero=True)
    assert inputs.int_input("p->name", ("int", 64, False)) == 7
    assert inputs.str_input("p->name", "text") == b"tty"
    assert inputs.int_input("p->name", ("int", 64, False)) == 7
    assert inputs.assignment() == {"p->name" + NUMBER_VIEW: 7, "p->name": b"tty"}
    again = VectorInputs(inputs.assignment(), zero=True)
    assert again.str_input("p->name", "text") == b"tty"
    assert again.int_input("p->name", ("int", 64, False)) == 7
