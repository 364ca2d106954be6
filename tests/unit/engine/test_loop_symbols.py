"""Values a loop body computes from its iteration, in the proof: a table read at the counter
(`foo_names[i]`) and an uninterpreted call of an expression of it (`foo_name(i + 1)`) are one
symbol per iteration on both sides (named with a trailing `#`, fmtcheck.c.values.symbolic_name),
so counted loops over such reads are proven by induction instead of tested up to a per-case bound
(kernel/cgroup/misc.c's `for (i = 0; i < MISC_CG_RES_TYPES; i++)` over misc_res_name[i]). Each
rule has a pair that looks the same and differs, or whose branch on such a value may not fork,
checked with the prover alone (testing such loops is the engine's, and slow)."""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import Runner, side_of, verify_sources

NAMES = ('static const char * const foo_res_name[] = {\n\t"sev",\n\t"sev_es",\n\t"tdx",\n};\n\n'
         'static const char * const foo_res_other[] = {\n\t"sev",\n\t"sev-es",\n\t"tdx",\n};\n\n')


def show(body: str) -> str:
    return (NAMES + "static int foo_res_show(struct seq_file *sf, void *v)\n{\n"
            "\tstruct foo_cg *cg = css_foo(seq_css(sf));\n\tunsigned long usage;\n\tint i;\n\n"
            "\tfor (i = 0; i < FOO_RES_TYPES; i++) {\n"
            "\t\tusage = atomic_long_read(&cg->res[i].usage);\n"
            f"{body}\t}}\n\n\treturn 0;\n}}\n")


def one_printf(name: str = "foo_res_name[i]") -> str:
    return f'\t\tif (READ_ONCE(foo_res_capacity[i]) || usage)\n\t\t\tseq_printf(sf, "%s %lu\\n", {name}, usage);\n'


def split(name: str = "foo_res_name[i]") -> str:
    return ("\t\tif (READ_ONCE(foo_res_capacity[i]) || usage) {\n"
            f"\t\t\tseq_puts(sf, {name});\n\t\t\tseq_put_decimal_ull(sf, \" \", usage);\n"
            "\t\t\tseq_putc(sf, '\\n');\n\t\t}\n")


def proof(old: str, new: str) -> tuple[bool, str | None]:
    """The prover's answer alone (no testing)."""
    units = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace(16)
    for unit in units:
        collect_hints(unit, space)
    sides = [side_of(unit, space, "foo_res_show", label) for unit, label in zip(units, ("old", "new"))]
    return Runner(*sides).prove()


DIFFERENT = "the two sides print different sequences of literal text and fields"


def verdict(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=20)).results[0]


def test_a_string_table_read_at_the_counter_is_proven_for_every_count():
    assert proof(show(one_printf()), show(split())) == (True, None)
    result = verdict(show(one_printf()), show(split()))
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_a_table_of_other_contents_at_the_counter_is_never_proven():
    assert proof(show(one_printf()), show(split("foo_res_other[i]"))) == (False, DIFFERENT)


def test_the_next_entry_of_the_same_table_is_another_symbol():
    old, new = show(one_printf()), show(split("foo_res_name[(i + 1) % 3]"))
    assert proof(old, new) == (False, DIFFERENT)


def test_a_call_of_an_expression_of_the_counter_is_one_value_on_both_sides():
    old, new = show(one_printf("foo_res_label(i + 1)")), show(split("foo_res_label(1 + i)"))
    assert proof(old, new) == (True, None)


def test_a_call_of_another_expression_of_the_counter_is_not_the_same_value():
    old, new = show(one_printf("foo_res_label(i + 1)")), show(split("foo_res_label(i + 2)"))
    assert proof(old, new) == (False, DIFFERENT)


def test_a_branch_on_a_table_read_at_the_counter_that_leaves_the_loop_is_no_path_fact():
    """`if (!foo_res_limit[i]) break;` holds in some iterations only: the prover may not fork on it
    as if it had one value for the whole loop (its name carries the iteration's `#`). It is a row
    of the iteration that ends the loop (fmtcheck.c.rows.break_row), which the side without the
    break has not."""
    limits = "static const unsigned int foo_res_limit[] = { 4, 0, 2 };\n\n"
    old = limits + show("\t\tif (!foo_res_limit[i])\n\t\t\tbreak;\n" + one_printf())
    new = limits + show(split())
    assert proof(old, new) == (False, DIFFERENT)


def test_the_callers_elements_read_in_reverse_are_divergent_not_a_replay_disagreement():
    """`s->v[s->n - 1 - i]` names another iteration's element of the caller's data: the proof
    refuses it (as before the rule for tables and calls), and testing finds the swap; named as a
    per-iteration symbol it gave "a counterexample did not replay identically"."""
    defs = "struct foo_stats {\n\tunsigned int n;\n\tunsigned long long v[64];\n};\n\n"
    body = ("static int t_show(struct seq_file *m, void *v)\n{\n\tstruct foo_stats *s = m->private;\n"
            "\tint i;\n\n\tfor (i = 0; i < s->n; i++)\n\t\tseq_printf(m, \" %llu\", s->v[INDEX]);\n"
            "\treturn 0;\n}\n")
    old = defs + body.replace("INDEX", "i")
    new = defs + body.replace("INDEX", "s->n - 1 - i")
    report = verify_sources(old, new, Options(max_examples=30))
    assert report.results[0].verdict == "divergent"
