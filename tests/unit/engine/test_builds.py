"""Every build in which the sides differ is judged (fmtcheck.engine.builds), not only the first
branch of each `#if`: a change in an `#else` branch, or a line moved under a new `#ifdef`, was
"equivalent, proven" when only the default build was judged."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.builds import MAX_OTHER_BUILDS
from fmtcheck.engine.verdict import verify_sources


def show(body: str) -> str:
    return ("static int t_show(struct seq_file *m, void *v)\n{\n"
            "\tunsigned long x = *(unsigned long *)v;\n" + body + "\treturn 0;\n}\n")


def result(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


SMP = '#ifdef CONFIG_SMP\n\tseq_printf(m, "smp: %lu\\n", x);\n#else\n\tseq_printf(m, "up: {}\\n", x);\n#endif\n'


def test_a_change_in_an_else_branch_is_divergent_in_the_build_that_compiles_it():
    got = result(show(SMP.format("%lu")), show(SMP.format("%5lu")))
    assert got.verdict == "divergent"
    assert any("`#else` branch of `#ifdef CONFIG_SMP` (line 4)" in note for note in got.notes)


def test_a_line_moved_under_a_new_ifdef_is_divergent_in_the_build_without_it():
    old = show('\tseq_printf(m, "a: %lu\\n", x);\n\tseq_puts(m, "b\\n");\n')
    new = show('\tseq_printf(m, "a: %lu\\n", x);\n#ifdef CONFIG_B\n\tseq_puts(m, "b\\n");\n#endif\n')
    got = result(old, new)
    assert got.verdict == "divergent"
    assert any("no branch of `#ifdef CONFIG_B`" in note for note in got.notes)


def test_an_equivalent_rewrite_of_an_else_branch_is_proven_in_both_builds():
    new = SMP.replace('\tseq_printf(m, "up: {}\\n", x);\n',
                      '\tseq_puts(m, "up: ");\n\tseq_put_decimal_ull(m, "", x);\n\tseq_putc(m, \'\\n\');\n')
    got = result(show(SMP.format("%lu")), show(new))
    assert (got.verdict, got.method) == ("equivalent", "proven")
    assert any(note.startswith("also equivalent in the build that compiles the `#else` branch") for note in got.notes)


def test_text_under_if_0_is_never_compiled_so_no_build_judges_it():
    dead = '#if 0\n\tseq_puts(m, "{}\\n");\n#endif\n\tseq_printf(m, "%lu\\n", x);\n'
    got = result(show(dead.replace("{}", "old")), show(dead.replace("{}", "new")))
    assert (got.verdict, got.method, got.notes) == ("equivalent", "proven", [])


def test_a_nested_conditional_is_judged_inside_the_branch_that_holds_it():
    nested = ('#ifdef CONFIG_A\n\tseq_puts(m, "a\\n");\n#else\n#ifdef CONFIG_B\n'
              '\tseq_printf(m, "b: {}\\n", x);\n#endif\n#endif\n')
    got = result(show(nested.replace("{}", "%lu")), show(nested.replace("{}", "%-3lu")))
    assert got.verdict == "divergent"
    assert any("`#else` branch of `#ifdef CONFIG_A` (line 4)" in note for note in got.notes)


def test_a_conditional_inside_an_else_branch_is_judged_with_that_branch_compiled():
    nested = ('#ifdef CONFIG_A\n\tseq_puts(m, "a\\n");\n#else\n#ifdef CONFIG_B\n\tseq_puts(m, "b\\n");\n#else\n'
              '\tseq_printf(m, "c: {}\\n", x);\n#endif\n#endif\n')
    got = result(show(nested.replace("{}", "%lu")), show(nested.replace("{}", "%-3lu")))
    assert got.verdict == "divergent"
    assert any("`#else` branch of `#ifdef CONFIG_B` (line 7)" in note for note in got.notes)


def rows(count: int, text: str) -> str:
    return "".join(f'#ifdef CONFIG_{i}\n\tseq_puts(m, "{i}\\n");\n#else\n\tseq_puts(m, {text});\n#endif\n'
                   for i in range(count))


def test_every_differing_build_is_judged_up_to_the_bound():
    got = result(show(rows(MAX_OTHER_BUILDS, '"-\\n"')), show(rows(MAX_OTHER_BUILDS, '"-" "\\n"')))
    assert (got.verdict, got.method) == ("equivalent", "tested")  # not every combination of them
    assert got.notes[-2].count("`#else` branch") == MAX_OTHER_BUILDS
    assert got.notes[-1].startswith("not proven: each differing conditional was judged flipped on its own")


def test_past_the_build_bound_an_equivalent_is_inconclusive_naming_the_conditional():
    got = result(show(rows(MAX_OTHER_BUILDS + 1, '"-\\n"')), show(rows(MAX_OTHER_BUILDS + 1, '"-" "\\n"')))
    assert got.verdict == "inconclusive"
    assert f"`#ifdef CONFIG_{MAX_OTHER_BUILDS}` (line {4 + 5 * MAX_OTHER_BUILDS})" in got.reason
    assert got.location is not None and got.location.line == 4 + 5 * MAX_OTHER_BUILDS


def test_identical_conditionals_cost_no_other_build():
    got = result(show(SMP.format("%lu")), show(SMP.format("%lu").replace('"smp: %lu', '"smp: " "%lu')))
    assert (got.verdict, got.method, got.notes) == ("equivalent", "proven", [])


def helper(body: str, name: str) -> str:
    return f"static void {name}(struct seq_file *m, unsigned long x)\n{{\n{body}}}\n\n"


def test_a_conditional_of_a_helper_the_printer_calls_is_judged():
    printer = "static int t_show(struct seq_file *m, void *v)\n{\n\tt_row(m, *(unsigned long *)v);\n\treturn 0;\n}\n"
    got = result(helper(SMP.format("%lu"), "t_row") + printer, helper(SMP.format("%5lu"), "t_row") + printer)
    assert got.verdict == "divergent"


def test_a_conditional_of_an_unrelated_function_costs_no_build():
    """The file-wide rewrite of a benchmark touches every function: only what can change the
    judged function's output is judged again."""
    other = helper(SMP.format("{}"), "t_other").replace("{}", "%lu")
    changed = helper(SMP.format("{}"), "t_other").replace("{}", "%5lu")
    report = verify_sources(other + show(SMP.format("%lu")), changed + show(SMP.format("%lu")),
                            Options(max_examples=30), function="t_show")
    assert [(r.verdict, r.method, r.notes) for r in report.results] == [("equivalent", "proven", [])]


IFDEF = '#ifdef CONFIG_X\n\tseq_puts(m, "x\\n");\n#else\n\tseq_puts(m, "no x\\n");\n#endif\n'
IFNDEF = '#ifndef CONFIG_X\n\tseq_puts(m, "no x\\n");\n#else\n\tseq_puts(m, "x\\n");\n#endif\n'
TWO_TESTS = '#ifdef CONFIG_X\n\tseq_puts(m, "x\\n");\n#endif\n#ifndef CONFIG_X\n\tseq_puts(m, "no x\\n");\n#endif\n'


def test_a_parse_that_takes_a_macro_both_ways_is_no_build_so_its_difference_is_not_divergent():
    """First branches everywhere take `#ifdef X` and `#ifndef X` both: the sides print the same
    in every real build, so "divergent" would be the wrong way."""
    for old, new in ((IFDEF, IFNDEF), (IFDEF, TWO_TESTS), (TWO_TESTS, IFDEF)):
        got = result(show(old), show(new))
        assert got.verdict == "inconclusive", (old, new, got.verdict, got.notes)
        assert "`CONFIG_X` both ways (true and false)" in got.reason


def test_a_real_difference_beside_an_impossible_parse_is_found_in_a_real_build():
    got = result(show(IFDEF), show(IFNDEF.replace('"no x', '"no x!')))
    assert got.verdict == "divergent"
    assert "`#else` branch of `#ifdef CONFIG_X`" in got.notes[0]


def test_is_enabled_and_its_negation_are_one_test_taken_both_ways_by_first_branches():
    enabled = IFDEF.replace("#ifdef CONFIG_X", "#if IS_ENABLED(CONFIG_X)")
    negated = IFNDEF.replace("#ifndef CONFIG_X", "#if !IS_ENABLED(CONFIG_X)")
    got = result(show(enabled), show(negated))
    assert got.verdict == "inconclusive" and "`IS_ENABLED(CONFIG_X)` both ways (true and false)" in got.reason


def test_a_conditional_that_stands_in_two_places_is_judged_in_each():
    """`#ifdef CONFIG_X` at the top and again inside the `#else` of `#ifdef CONFIG_A`: a change in
    the inner one's `#else` shows only with both branches compiled."""
    inner = ('#ifdef CONFIG_A\n\tseq_puts(m, "a\\n");\n#else\n#ifdef CONFIG_X\n\tseq_puts(m, "x\\n");\n#else\n'
             '\tseq_printf(m, "no x: {}\\n", x);\n#endif\n#endif\n')
    top = '#ifdef CONFIG_X\n\tseq_puts(m, "top x\\n");\n#else\n\tseq_puts(m, "top\\n");\n#endif\n'
    got = result(show(top + inner.replace("{}", "%lu")), show(top + inner.replace("{}", "%-3lu")))
    assert got.verdict == "divergent"
