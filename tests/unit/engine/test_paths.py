"""Proof beyond straight lines: rows guarded by conditions, loops by induction, paths by forks.

Every "proven" here is checked against the opposite case: the same shape with one slip must not be
proven, and the engine then finds the divergence by testing.
"""

from __future__ import annotations

import pytest

from benchmarks.loops import cpu_row, flag_rows, list_walk, nested
from fmtcheck.common.options import Options
from fmtcheck.engine import paths
from fmtcheck.engine.verdict import verify_sources


def show(body: str) -> str:
    return f"static int t_show(struct seq_file *m, void *v)\n{{\n{body}\treturn 0;\n}}\n"


def judge(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=50))
    assert len(report.results) == 1
    return report.results[0]


def assert_proven(old: str, new: str) -> None:
    result = judge(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.verdict, result.notes, result.reason)


def assert_not_proven(old: str, new: str):
    result = judge(old, new)
    assert result.method != "proven", result.notes
    return result


# -- the per-CPU rewrite -----------------------------------------------------------------------


def test_per_cpu_rewrite_with_the_prefix_adjusted_is_proven_for_every_cpu_count():
    """"%10u " per CPU -> seq_put_decimal_ull_width(p, " ", v, 10), the row's "N: " prefix shortened
    to "N:" and one space put back after the loop: (y x)^n y = y (x y)^n."""
    assert_proven(*cpu_row(0))
    assert_proven(*cpu_row(8))


def test_per_cpu_rewrite_that_loses_the_last_separator_is_divergent_at_zero_cpus():
    result = judge(*cpu_row(0, lose_separator=True))
    assert result.verdict == "divergent"
    div = result.divergences[0]
    # the row's `%*d` width is an input in 0..--star-max: the smallest counterexample may pad less
    assert div.expected.endswith(b"0: ") and div.actual == div.expected[:-1], (div.expected, div.actual)
    assert div.counterexample["for_each_online_cpu"] == 0, div.counterexample


def test_loop_body_that_carries_state_is_not_proven():
    """A running total makes every iteration depend on the ones before: no induction step."""
    body = ("\tint cpu;\n\tunsigned long sum = 0;\n\n\tfor_each_online_cpu(cpu) {\n"
            "\t\tsum += hits(cpu);\n\t\tseq_put_decimal_ull(m, \" \", sum);\n\t}\n\tseq_putc(m, '\\n');\n")
    other = body.replace("seq_put_decimal_ull(m, \" \", sum)", "seq_printf(m, \" %lu\", sum)")
    result = assert_not_proven(show(body), show(other))
    assert result.verdict == "equivalent"
    assert any("not proven" in n and "loop" in n for n in result.notes), result.notes


def test_iterator_read_after_the_loop_is_not_proven():
    body = "\tint cpu;\n\n\tfor_each_online_cpu(cpu)\n\t\tseq_putc(m, 'x');\n\tseq_printf(m, \"%d\\n\", cpu);\n"
    # the loops spelled differently (two spelled alike leave the same iterator: c/sameloops)
    other = body.replace('"%d\\n", cpu', '"%i\\n", cpu').replace("seq_putc(m, 'x');", 'seq_puts(m, "x");')
    assert_not_proven(show(body), show(other))


def test_loops_over_different_counts_are_not_aligned():
    old = show("\tint cpu;\n\n\tfor_each_online_cpu(cpu)\n\t\tseq_putc(m, 'x');\n")
    new = show("\tint cpu;\n\n\tfor_each_possible_cpu(cpu)\n\t\tseq_putc(m, 'x');\n")
    result = judge(old, new)
    assert result.verdict == "inconclusive"  # the counts are inputs of one side each: never equal by proof
    assert "one side reads" in result.reason


def test_list_walk_and_nested_loops_are_proven_and_their_slips_found():
    assert_proven(*list_walk(6))
    assert_proven(*nested(0))
    assert judge(*list_walk(6, slip=True)).verdict == "divergent"
    assert judge(*nested(0, lose_separator=True)).verdict == "divergent"


# -- rows --------------------------------------------------------------------------------------


def test_64_independent_rows_are_64_small_proofs():
    old, new = flag_rows(64)
    assert_proven(old, new)
    proof = paths.TraceProof()
    assert proof.max_steps < 2 ** 20  # far below the 2^64 paths a path-by-path search would need


def test_64_rows_with_one_width_slip_are_divergent_on_that_row():
    result = judge(*flag_rows(64, slip_row=40))
    assert result.verdict == "divergent"
    assert all("v40" in (d.field or "") for d in result.divergences), [d.field for d in result.divergences]


def test_a_negated_condition_with_swapped_arms_is_the_same_row():
    old = show("\tstruct s *s = v;\n\n\tif (s->on)\n\t\tseq_puts(m, \"on\\n\");\n\telse\n\t\tseq_puts(m, \"off\\n\");\n")
    new = show("\tstruct s *s = v;\n\n\tif (!s->on)\n\t\tseq_puts(m, \"off\\n\");\n\telse\n\t\tseq_printf(m, \"%s\\n\", \"on\");\n")
    assert_proven(old, new)


def test_equivalent_comparisons_written_differently_align():
    old = show("\tstruct s *s = v;\n\n\tif (s->n > 5)\n\t\tseq_puts(m, \"big\\n\");\n")
    new = show("\tstruct s *s = v;\n\n\tif (s->n >= 6)\n\t\tseq_puts(m, \"big\\n\");\n")
    assert_proven(old, new)
    off_by_one = show("\tstruct s *s = v;\n\n\tif (s->n >= 5)\n\t\tseq_puts(m, \"big\\n\");\n")
    assert judge(old, off_by_one).verdict == "divergent"


def test_a_separator_moved_into_both_arms_is_proven():
    old = show("\tstruct s *s = v;\n\n\tseq_puts(m, \"state:\");\n\tif (s->up)\n\t\tseq_puts(m, \" up\");\n"
               "\telse\n\t\tseq_puts(m, \" down\");\n\tseq_putc(m, '\\n');\n")
    new = show("\tstruct s *s = v;\n\n\tif (s->up)\n\t\tseq_puts(m, \"state: up\\n\");\n"
               "\telse\n\t\tseq_puts(m, \"state: down\\n\");\n")
    assert_proven(old, new)
    lost = new.replace("state: down", "state:down")
    assert judge(old, lost).verdict == "divergent"


def test_a_variable_set_in_a_branch_is_a_choice_afterwards():
    old = show("\tstruct s *s = v;\n\tint w = 4;\n\n\tif (s->wide)\n\t\tw = 8;\n\tseq_printf(m, \"%*lu\\n\", w, s->n);\n")
    new = show("\tstruct s *s = v;\n\n\tif (s->wide)\n\t\tseq_printf(m, \"%8lu\\n\", s->n);\n\telse\n\t\tseq_printf(m, \"%4lu\\n\", s->n);\n")
    # the width is a choice over the branch: not a row the prover can split; tested, never wrongly proven
    result = judge(old, new)
    assert result.verdict == "equivalent"


# -- paths -------------------------------------------------------------------------------------


def test_an_early_return_on_an_input_is_followed_both_ways():
    old = show("\tstruct s *s = v;\n\n\tif (!s->valid)\n\t\treturn 0;\n\tseq_printf(m, \"%u\\n\", s->n);\n")
    new = show("\tstruct s *s = v;\n\n\tif (s->valid)\n\t\tseq_put_decimal_ull(m, \"\", (unsigned int)s->n);\n"
               "\tif (s->valid)\n\t\tseq_putc(m, '\\n');\n")
    assert_proven(old, new)
    wrong = new.replace("if (s->valid)\n\t\tseq_putc", "seq_putc")
    assert judge(old, wrong).verdict == "divergent"


def test_conditions_refuted_by_intervals():
    conditions = paths.Conditions()
    x = ("in", "x", 32, False)
    big = paths.literal((">", x, ("k", 5)), True)
    small = paths.literal(("<", x, ("k", 3)), True)
    assert not conditions.feasible(frozenset({big, small}))
    assert conditions.feasible(frozenset({big}))
    flag = paths.literal(("&", x, ("k", 4)), True)
    assert not conditions.feasible(frozenset({flag, paths.literal(("==", x, ("k", 0)), True),
                                              paths.literal(("==", ("&", x, ("k", 4)), ("k", 0)), True)}))
    assert conditions.solver_calls == 0


def test_conditions_relating_two_inputs_go_to_z3():
    pytest.importorskip("z3")
    conditions = paths.Conditions()
    x, y = ("in", "x", 32, False), ("in", "y", 32, False)
    total = ("+", x, y)
    lits = frozenset({paths.literal((">", total, ("k", 10)), True), paths.literal(("<", x, ("k", 3)), True),
                      paths.literal(("<", y, ("k", 3)), True)})
    assert not conditions.feasible(lits)
    assert conditions.solver_calls == 1


def test_conditions_relating_two_inputs_that_simple_values_satisfy_need_no_solver():
    """`f9 >= f35` with `f35 == 0` (0 and 0), or with `f35 != 0` (both at the top of the type):
    satisfiable, shown by evaluating the literals, so z3 is neither asked nor imported."""
    x, y = ("in", "x", 64, False), ("in", "y", 64, False)
    for flag in (True, False):
        conditions = paths.Conditions()
        assert conditions.feasible(frozenset({paths.literal((">=", x, y), True), paths.literal(y, flag)}))
        assert conditions.solver_calls == 0


@pytest.mark.parametrize("tree,expected", [
    ((">=", ("in", "x", 32, False), ("k", 6)), ((">", ("in", "x", 32, False), ("k", 5)), True)),
    (("<", ("k", 5), ("in", "x", 32, False)), ((">", ("in", "x", 32, False), ("k", 5)), True)),
    (("==", (">", ("in", "x", 32, False), ("k", 5)), ("k", 0)), ((">", ("in", "x", 32, False), ("k", 5)), False)),
    (("!=", ("in", "x", 32, False), ("k", 0)), (("in", "x", 32, False), True)),
])
def test_literal_canonical_forms(tree, expected):
    assert paths.literal(tree, True) == expected


def test_rotation_needs_the_same_bytes_after_the_loop():
    loop = ("loop", "n", (b" ", ("field",)))
    assert paths.TraceProof().traces_equal([loop, b" \n"], [b" ", ("loop", "n", (("field",), b" ")), b"\n"])
    assert not paths.TraceProof().traces_equal([loop, b"\n"], [b" ", ("loop", "n", (("field",), b" ")), b"\n"])


# -- the branchy generator of the determinism issue (benchmarks/branchy.py) ---------------------


@pytest.mark.parametrize("rows", [8, 64])
def test_branchy_rewrites_are_proven(rows):
    from benchmarks.branchy import branchy_pair

    old, new, _ = branchy_pair(rows, 7, slip=False)
    assert_proven(old, new)


def test_a_branchy_rewrite_with_a_slip_is_not_proven_and_found():
    from benchmarks.branchy import branchy_pair

    old, new, where = branchy_pair(8, 7, slip=True)
    result = judge(old, new)
    assert result.verdict == "divergent", where


def test_the_proof_can_be_left_out_for_the_search_alone():
    old, new = flag_rows(4)
    result = verify_sources(old, new, Options(max_examples=20, proof=False)).results[0]
    assert result.method == "tested" and any("the proof was not run" in n for n in result.notes)


def test_a_loop_body_branching_on_an_or_of_its_element_is_proven_by_induction():
    """dump_name_escaped's shape: `if (name[i] == '%' || name[i] < 32)` in a loop over an input
    length. Each operand forked the proof, which a loop body cannot do on its iteration, so the
    loop was tested over huge lengths until the CPU limit; the whole `||` is one condition of a
    row (an operand that calls something is not evaluated where C would not: the proof forks on
    the first, as before). The length is masked to 0..7 so that testing the slip stays cheap."""
    def body(cond: str, escaped: str) -> str:
        return ("\tunsigned char *name = v;\n\tsize_t i;\n\n\tfor (i = 0; i < (name_len(v) & 7); i++) {\n"
                f"\t\tif ({cond})\n\t\t\t{escaped}\n\t\telse\n\t\t\tseq_putc(m, name[i]);\n\t}}\n")
    cond = "name[i] == '%' || name[i] < 32 && name[i] != 9"
    old = show(body(cond, 'seq_printf(m, "%%%02x", name[i]);'))
    new = show(body(cond, '{ seq_putc(m, \'%\'); seq_printf(m, "%02x", name[i]); }'))
    assert_proven(old, new)
    assert judge(old, show(body(cond.replace("< 32", "< 31"), 'seq_printf(m, "%%%02x", name[i]);'))).verdict == "divergent"
