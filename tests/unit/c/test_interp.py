"""The interpreter (fmtcheck.c.program) through verify_sources: C integer semantics, control flow and
the step bound, sizeof, local arrays, struct member paths, uninterpreted calls (shared inputs, and
output events when they receive the seq_file), and undefined behaviour.

Semantics checks are written as a pair: the reference computes a value in C and prints it, the
rewrite prints the number C gives as a literal. `equivalent` means the interpreter computed what a C
compiler for x86_64 Linux (LP64, the kernel's -fno-strict-overflow) computes.
"""

from __future__ import annotations

import pytest

from fmtcheck.cli import main
from fmtcheck.engine.verdict import verify_sources
from fmtcheck.common.options import Options


def show(body: str, before: str = "") -> str:
    return f"{before}static int t_show(struct seq_file *m, void *v)\n{{\n{body}\treturn 0;\n}}\n"


def run(old: str, new: str, max_examples: int = 30):
    report = verify_sources(old, new, Options(max_examples=max_examples))
    assert len(report.results) == 1
    return report.results[0]


def computes(body: str, fmt: str, expr: str, expected: str) -> None:
    """`body` then seq_printf(m, fmt "\\n", expr) must print exactly `expected`."""
    old = show(f'{body}\tseq_printf(m, "{fmt}\\n", {expr});\n')
    new = show(f'\tseq_puts(m, "{expected}\\n");\n')
    result = run(old, new)
    detail = (result.reason, [(d.expected, d.actual) for d in result.divergences])
    assert result.verdict == "equivalent", detail


# -- integer semantics ------------------------------------------------------------------------

SEMANTICS = [
    # name, declarations, format, expression, what C prints
    ("u8 wraps", "\tu8 x = 250;\n\n\tx += 10;\n", "%u", "x", "4"),
    ("s8 cast", "", "%d", "(s8)200", "-56"),
    ("unsigned char to int", "\tunsigned char c = 255;\n", "%d", "c + 1", "256"),
    ("char is signed", "\tchar c = 0xff;\n", "%d", "c", "-1"),
    ("u16 wraps", "\tu16 x = 65535;\n\n\tx++;\n", "%u", "x", "0"),
    ("short promotes", "\tshort a = 30000, b = 30000;\n", "%d", "a + b", "60000"),
    ("u32 wraps", "\tu32 x = 0;\n\n\tx--;\n", "%u", "x", "4294967295"),
    ("u32 sum wraps before widening", "\tunsigned int a = 4000000000u;\n\tunsigned long b = a + a;\n", "%lu", "b", "3705032704"),
    ("u32 widened by a long", "\tunsigned int a = 4000000000u;\n\tlong b = a + 1L;\n", "%ld", "b", "4000000001"),
    ("u64 wraps", "\tu64 x = 0;\n\n\tx -= 1;\n", "%llu", "x", "18446744073709551615"),
    ("int * int overflows into a long only after the multiply", "\tint a = 65536;\n\tlong b = a * a;\n", "%ld", "b", "0"),
    ("u8 * u8 promotes to int", "\tu8 a = 200, b = 2;\n", "%d", "a * b", "400"),
    ("int < unsigned int compares unsigned", "\tint a = -1;\n\tunsigned int b = 1;\n", "%d", "a < b", "0"),
    ("long < unsigned int compares signed", "\tlong a = -1;\n\tunsigned int b = 1;\n", "%d", "a < b", "1"),
    ("-1 == 0xffffffff", "", "%d", "0xffffffff == -1", "1"),
    ("INT_MIN literal", "", "%d", "-2147483648", "-2147483648"),
    ("unsigned int from -1", "\tunsigned int u = -1;\n", "%u", "u / 2", "2147483647"),
    ("u32 shift to the top bit", "\tu32 x = 1;\n", "%u", "x << 31", "2147483648"),
    ("1UL << 40", "", "%lu", "1UL << 40", "1099511627776"),
    ("arithmetic right shift of a negative int", "\tint x = -8;\n", "%d", "x >> 1", "-4"),
    ("logical right shift of an unsigned", "\tunsigned int x = 0x80000000u;\n", "%u", "x >> 31", "1"),
    ("compound assignments", "\tunsigned long x = 3;\n\n\tx <<= 4;\n\tx |= 1;\n\tx ^= 2;\n\tx &= ~4UL;\n\tx %= 50;\n\tx *= 3;\n\tx /= 2;\n", "%lu", "x", "1"),
    ("division truncates toward zero", "\tint a = -7;\n", "%d", "a / 2", "-3"),
    ("remainder has the sign of the dividend", "\tint a = -7;\n", "%d", "a % 2", "-1"),
    ("signed overflow wraps (-fno-strict-overflow)", "\tint x = 2147483647;\n\n\tx = x + 1;\n", "%d", "x", "-2147483648"),
    ("ternary picks a string", "\tint a = 5;\n", "%s", 'a > 3 ? "big" : "small"', "big"),
    ("ternary of int and unsigned int is unsigned int", "\tint a = 1;\n\tunsigned int u = 0;\n", "%lld", "(long long)(a ? -1 : u)", "4294967295"),
    ("0u is an unsigned int", "\tint a = 1;\n", "%lld", "(long long)(a ? -1 : 0u)", "4294967295"),
    ("~0u is UINT_MAX", "", "%llu", "(unsigned long long)~0u", "4294967295"),
    ("10u + -11 wraps in 32 bits", "", "%llu", "(u64)(10u + -11)", "4294967295"),
    ("logical not", "", "%d %d", "!0, !5", "1 0"),
    ("short-circuit skips the division by zero", "\tint a = 0;\n\tint r = a && 1 / a;\n", "%d", "r", "0"),
    ("comma operator", "\tint a, b;\n\n\ta = (b = 2, b + 1);\n", "%d", "a", "3"),
    ("min and max", "", "%d %d", "min(3, 4), max(3, 4)", "3 4"),
    ("pre and post increment", "\tint i = 5;\n\tint a = i++;\n\tint b = ++i;\n", "%d %d %d", "a, b, i", "5 7 7"),
    ("bool conversion gives 0 or 1", "\tbool b = 5;\n", "%d", "b", "1"),
    ("bool from a mask", "\tunsigned int flags = 4;\n\tbool on = flags & 4;\n", "%d", "on", "1"),
]


@pytest.mark.parametrize("name,decls,fmt,expr,expected", SEMANTICS, ids=[s[0] for s in SEMANTICS])
def test_integer_semantics(name, decls, fmt, expr, expected):
    computes(decls, fmt, expr, expected)


# -- sizeof ---------------------------------------------------------------------------------

SIZEOF = [
    ("a string literal counts its NUL", "", 'sizeof("abc")', "4"),
    ("a concatenated literal counts one NUL", "", 'sizeof(" kB" "\\n")', "5"),
    ("an empty literal is one byte", "", 'sizeof("")', "1"),
    ("basic types", "", "sizeof(char), sizeof(short), sizeof(int), sizeof(long), sizeof(long long)", "1 2 4 8 8"),
    ("kernel typedefs", "", "sizeof(u8), sizeof(u16), sizeof(u32), sizeof(u64)", "1 2 4 8"),
    ("a pointer type", "", "sizeof(char *), sizeof(unsigned long *)", "8 8"),
    ("a local char array", "\tchar buf[32];\n", "sizeof(buf)", "32"),
    ("a local u32 array and ARRAY_SIZE", "\tu32 a[4];\n", "sizeof(a), ARRAY_SIZE(a)", "16 4"),
    ("an array sized by its initializer", '\tchar s[] = "hello";\n', "sizeof(s)", "6"),
    ("a variable", "\tlong x = 0;\n", "sizeof(x)", "8"),
]


@pytest.mark.parametrize("name,decls,expr,expected", SIZEOF, ids=[s[0] for s in SIZEOF])
def test_sizeof(name, decls, expr, expected):
    fmt = " ".join(["%zu"] * len(expected.split()))
    computes(decls, fmt, expr, expected)


def test_seq_write_of_sizeof_a_literal_writes_the_nul():
    old = show('\tseq_write(m, "ab\\n", 3);\n')
    new = show('\tseq_write(m, "ab\\n", sizeof("ab\\n"));\n')
    result = run(old, new)
    assert result.verdict == "divergent"
    d = result.divergences[0]
    assert (d.kind, d.severity, d.actual) == ("nul-byte", "breaking", b"\x00")


# -- control flow ---------------------------------------------------------------------------


def test_for_while_do_break_continue():
    old = show("\tint i, s = 0;\n\n\tfor (i = 0; i < 10; i++)\n\t\ts += i;\n"
               "\tseq_printf(m, \"%d \", s);\n\ti = 3;\n\twhile (i--)\n\t\tseq_putc(m, 'w');\n"
               "\ti = 0;\n\tdo {\n\t\tseq_putc(m, '0' + i);\n\t} while (++i < 3);\n"
               "\tfor (i = 0; i < 10; i++) {\n\t\tif (i == 2)\n\t\t\tcontinue;\n\t\tif (i == 5)\n\t\t\tbreak;\n"
               "\t\tseq_putc(m, 'a' + i);\n\t}\n")
    assert run(old, show('\tseq_puts(m, "45 www012abde");\n')).verdict == "equivalent"


def test_early_return_from_a_helper():
    helper = ("static void put(struct seq_file *m, int n)\n{\n\tif (n < 0)\n\t\treturn;\n"
              "\tseq_put_decimal_ull(m, \" \", n);\n}\n\n")
    old = show("\tput(m, 1);\n\tput(m, -1);\n\tput(m, 2);\n", before=helper)
    assert run(old, show('\tseq_puts(m, " 1 2");\n')).verdict == "equivalent"


def test_switch_with_fallthrough_and_default():
    old = show('\tint i = 2;\n\n\tswitch (i) {\n\tcase 1:\n\t\tseq_puts(m, "one");\n\t\tbreak;\n'
               '\tcase 2:\n\t\tseq_puts(m, "two");\n\tcase 3:\n\t\tseq_puts(m, "three");\n\t\tbreak;\n'
               '\tdefault:\n\t\tseq_puts(m, "d");\n\t}\n')
    result = run(old, show('\tseq_puts(m, "twothree");\n'))
    assert result.verdict == "equivalent", result.reason


def test_switch_on_an_input_against_a_table():
    # st is declared unsigned: were it signed, `-1 % 3` would index before the table (rule 6)
    st = 'struct t { unsigned int st; };\n'
    table = st + 'static const char * const state_names[] = {"running", "sleeping", "stopped"};\n\n'
    old = show('\tstruct t *t = v;\n\n\tseq_printf(m, "%s\\n", state_names[t->st % 3]);\n', before=table)
    new = show('\tstruct t *t = v;\n\n\tswitch (t->st % 3) {\n\tcase 0:\n\t\tseq_puts(m, "running\\n");\n\t\tbreak;\n'
               '\tcase 1:\n\t\tseq_puts(m, "sleeping\\n");\n\t\tbreak;\n\tdefault:\n\t\tseq_puts(m, "stopped\\n");\n\t}\n', before=st)
    result = run(old, new)
    assert result.verdict == "equivalent", (result.reason, result.divergences[:1])


def test_a_table_of_strings_is_data_not_an_input():
    """A file-scope array of string literals holds known text. Engine bug: its elements become
    free string inputs, so an exact rewrite is reported divergent with an impossible
    counterexample (state_names[1] = "a")."""
    table = 'static const char * const state_names[] = {"running", "sleeping", "stopped"};\n\n'
    result = run(show('\tseq_printf(m, "%s\\n", state_names[1]);\n', before=table), show('\tseq_puts(m, "sleeping\\n");\n'))
    assert result.verdict != "divergent", [(d.expected, d.actual, d.counterexample) for d in result.divergences]
    assert result.verdict == "equivalent", result.reason


def test_ternary_and_if_else_rewrites():
    old = show('\tstruct t *t = v;\n\n\tseq_puts(m, t->on ? "on" : "off");\n')
    new = show('\tstruct t *t = v;\n\n\tif (t->on)\n\t\tseq_puts(m, "on");\n\telse\n\t\tseq_puts(m, "off");\n')
    assert run(old, new).verdict == "equivalent"


@pytest.mark.parametrize("loop", [
    "\tunsigned long i;\n\n\tfor (i = 0; i < 100000000UL; i++)\n\t\t;\n",
    "\twhile (1)\n\t\t;\n",
    "\tfor (;;)\n\t\tseq_putc(m, 'x');\n",
])
def test_the_step_bound_makes_a_long_loop_inconclusive(loop):
    result = run(show(loop + '\tseq_puts(m, "x");\n'), show('\tseq_puts(m, "x");\n'))
    assert result.verdict == "inconclusive" and "step limit" in result.reason, result.reason


def test_step_limit_exits_3_on_the_command_line(tmp_path, capsys):
    (tmp_path / "a.c").write_text(show("\twhile (1)\n\t\t;\n"))
    (tmp_path / "b.c").write_text(show('\tseq_puts(m, "x");\n'))
    assert main(["verify", str(tmp_path / "a.c"), str(tmp_path / "b.c")]) == 3
    out = capsys.readouterr().out
    assert "step limit" in out and "a.c:3" in out  # the while statement


# -- arrays and buffers ---------------------------------------------------------------------


def test_local_arrays():
    computes("\tint a[3] = {1, 2, 3};\n\n\ta[1] = 7;\n", "%d %d %d", "a[0], a[1], a[2]", "1 7 3")
    computes('\tchar s[8] = "ab";\n\n\ts[2] = \'c\';\n', "%s", "s", "abc")
    computes('\tstatic const char hex[] = "0123456789abcdef";\n', "%c%c", "hex[10], hex[15]", "af")


def test_num_to_str_into_a_local_buffer():
    old = show("\tchar buf[32];\n\tint len = num_to_str(buf, sizeof(buf), 12345);\n\n\tseq_write(m, buf, len);\n")
    assert run(old, show('\tseq_puts(m, "12345");\n')).verdict == "equivalent"


def test_a_store_past_a_local_array_is_inconclusive():
    result = run(show("\tchar b[2];\n\n\tb[2] = 'x';\n\tseq_putc(m, b[0]);\n"), show("\tseq_putc(m, 0);\n"))
    assert result.verdict == "inconclusive" and "outside" in result.reason


# -- inputs: member paths, casts, the seq_file's private pointer -------------------------------


def test_struct_member_paths_are_inputs():
    old = show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu %lu %lu\\n", a->b.c, a->b.d[2], a->e->f);\n')
    new = show('\tstruct a *a = v;\n\n\tseq_put_decimal_ull(m, "", a->b.c);\n\tseq_put_decimal_ull(m, " ", a->b.d[2]);\n'
               '\tseq_put_decimal_ull(m, " ", a->e->f);\n\tseq_putc(m, \'\\n\');\n')
    result = run(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven")


def test_different_member_paths_are_different_inputs():
    result = run(show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", a->b.c);\n'),
                 show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", a->b.d);\n'))
    # each path is read by one side only: the fields may hold equal values, so the difference
    # is inconclusive naming them (issue 15's soundness rule), never divergent
    assert result.verdict == "inconclusive"
    assert "a->b.c" in result.reason and "a->b.d" in result.reason


def test_a_local_struct_filled_by_unknown_code():
    old = show("\tstruct stats st;\n\n\tget_stats(v, &st);\n\tseq_printf(m, \"%llu\\n\", st.rx);\n")
    new = show("\tstruct stats st;\n\n\tget_stats(v, &st);\n\tseq_put_decimal_ull(m, \"\", st.rx);\n\tseq_putc(m, '\\n');\n")
    assert run(old, new).verdict == "equivalent"


def test_seq_file_private_pointer_is_an_input():
    """`m->private` is how most show functions reach their data (single_open passes it). It is a
    pointer the caller set, so its members are inputs like any other. Engine bug: inconclusive,
    "direct access to seq_file member 'private' is not modelled"."""
    declared = "struct s { unsigned int a; };\n"  # undeclared, %u against a u64 is not proven
    old = declared + show('\tstruct s *st = m->private;\n\n\tseq_printf(m, "%u\\n", st->a);\n')
    new = declared + show('\tstruct s *st = m->private;\n\n\tseq_put_decimal_ull(m, "", st->a);\n\tseq_putc(m, \'\\n\');\n')
    result = run(old, new)
    assert result.verdict == "equivalent", result.reason


def test_cast_to_a_pointer_type_keeps_a_pointer():
    """`*(int *)v` and `(unsigned long *)v` are pointer casts. Engine bug: the abstract pointer
    declarator is ignored, the cast is taken as one to `int`, and the dereference is inconclusive."""
    old = show('\tint i = *(int *)v;\n\tunsigned long *p = (unsigned long *)v;\n\n\tseq_printf(m, "%d %lu\\n", i, p[1]);\n')
    new = show('\tint i = *(int *)v;\n\tunsigned long *p = (unsigned long *)v;\n\n\tseq_put_decimal_ll(m, "", i);\n'
               '\tseq_put_decimal_ull(m, " ", p[1]);\n\tseq_putc(m, \'\\n\');\n')
    result = run(old, new)
    assert result.verdict == "equivalent", result.reason


def test_a_value_read_by_two_directive_types_gives_the_same_verdict_both_ways():
    """Equivalence is symmetric. When the two sides print one field with different directive
    types ('%u' against seq_put_decimal_ull), the verdict must not depend on which file is OLD.
    Engine bug: the input's type comes from the first side that uses it, so verify(A, B) is
    "equivalent, proven" while verify(B, A) is divergent at 9999999999."""
    a = show('\tstruct s *st = v;\n\n\tseq_printf(m, "%u\\n", st->pages);\n')
    b = show('\tstruct s *st = v;\n\n\tseq_put_decimal_ull(m, "", st->pages);\n\tseq_putc(m, \'\\n\');\n')
    assert run(a, b).verdict == run(b, a).verdict


# -- uninterpreted calls ----------------------------------------------------------------------


def test_uninterpreted_call_is_shared_by_both_sides():
    old = show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", get_count(a, 3));\n')
    new = show('\tstruct a *a = v;\n\tunsigned long c = get_count(a, 3);\n\n\tseq_put_decimal_ull(m, "", c);\n\tseq_putc(m, \'\\n\');\n')
    result = run(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven")


def test_uninterpreted_calls_with_different_arguments_are_different_inputs():
    result = run(show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", get_count(a, 3));\n'),
                 show('\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", get_count(a, 4));\n'))
    assert result.verdict == "inconclusive"  # two inputs, one per side: they may be equal
    assert "get_count(v, 3)" in result.reason and "get_count(v, 4)" in result.reason


def test_call_receiving_the_seq_file_in_the_same_place_is_equivalent():
    old = show('\tseq_puts(m, "a ");\n\tshow_extra(m, v);\n\tseq_puts(m, "b\\n");\n')
    new = show("\tseq_putc(m, 'a');\n\tseq_putc(m, ' ');\n\tshow_extra(m, v);\n\tseq_puts(m, \"b\\n\");\n")
    result = run(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven")


@pytest.mark.parametrize("new_body", [
    '\tseq_puts(m, "a ");\n\tseq_puts(m, "b\\n");\n\tshow_extra(m, v);\n',  # moved
    '\tseq_puts(m, "a ");\n\tseq_puts(m, "b\\n");\n',  # dropped
    '\tseq_puts(m, "a ");\n\tshow_extra(m, NULL);\n\tseq_puts(m, "b\\n");\n',  # other argument
])
def test_a_difference_only_an_unknown_printing_call_could_make_is_inconclusive(new_body):
    """show_extra(m, ...) may print or not: when it moved, is missing on one side or takes other
    arguments, the outputs differ only if it prints, which the model cannot know (issue 15, 6)."""
    old = show('\tseq_puts(m, "a ");\n\tshow_extra(m, v);\n\tseq_puts(m, "b\\n");\n')
    result = run(old, show(new_body))
    assert result.verdict == "inconclusive"
    assert "show_extra(m, " in result.reason and result.reason.startswith("old:4:")


def test_a_difference_before_the_unknown_calls_part_is_still_divergent():
    old = show('\tseq_puts(m, "a ");\n\tshow_extra(m, v);\n\tseq_puts(m, "b\\n");\n')
    result = run(old, show('\tseq_puts(m, "x ");\n\tseq_puts(m, "b\\n");\n'))
    assert result.verdict == "divergent"
    assert result.divergences[0].expected != result.divergences[0].actual


# -- undefined behaviour ----------------------------------------------------------------------


def test_shift_by_an_input_at_or_over_the_width_is_reported():
    body = '\tstruct a *a = v;\n\tu32 x = 1;\n\n\tseq_printf(m, "%u\\n", x << a->sh);\n'
    result = run(show(body), show(body))
    assert result.verdict == "equivalent"
    assert any("shift by" in n and "32-bit" in n and "line 6" in n for n in result.notes), result.notes


def test_shift_that_is_always_undefined_is_not_a_proof_of_anything():
    """Every input shifts a 32-bit value by 32: no case can be compared, so "equivalent" (which
    the engine says, after skipping every case) is not a verdict it can give. Expected:
    inconclusive, naming the undefined shift."""
    result = run(show('\tu32 x = 1;\n\tint s = 32;\n\n\tseq_printf(m, "%u\\n", x << s);\n'), show('\tseq_puts(m, "1\\n");\n'))
    assert result.verdict == "inconclusive", (result.verdict, result.method, result.cases, result.notes)
    assert "shift by 32" in (result.reason or "")


def test_undefined_behaviour_notes_are_not_repeated():
    result = run(show('\tu64 x = 1;\n\tint s = 64;\n\n\tseq_printf(m, "%llu\\n", x >> s);\n'), show('\tseq_puts(m, "1\\n");\n'))
    assert result.notes and len(result.notes) == len(set(result.notes)), result.notes


def test_signed_overflow_is_noted_and_wraps():
    result = run(show("\tint x = 2147483647;\n\n\tx = x + 1;\n\tseq_printf(m, \"%d\\n\", x);\n"), show('\tseq_puts(m, "-2147483648\\n");\n'))
    assert result.verdict == "equivalent"
    assert any("signed overflow" in n for n in result.notes)


def test_division_by_an_input_zero_is_skipped_and_noted():
    body = '\tstruct a *a = v;\n\n\tseq_printf(m, "%lu\\n", a->x / a->y);\n'
    result = run(show(body), show(body))
    assert result.verdict == "equivalent"
    assert any("division by zero" in n for n in result.notes)


# -- what a divergence names ------------------------------------------------------------------


def test_field_is_the_callers_input_when_the_value_goes_through_a_helper():
    """The field at the column is the input the reader can act on (`pm->free`), not the helper's
    parameter name (`num`), which appears nowhere in the counterexample."""
    helper = ("static void show_kb(struct seq_file *m, const char *s, unsigned long num)\n{\n"
              "\tseq_put_decimal_ull_width(m, s, num, WIDTH);\n\tseq_write(m, \" kB\\n\", 4);\n}\n\n")
    body = '\tstruct pool *pm = v;\n\n\tshow_kb(m, "PoolFree:       ", pm->free);\n'
    result = run(show(body, before=helper.replace("WIDTH", "8")), show(body, before=helper.replace("WIDTH", "7")))
    d = result.divergences[0]
    assert (d.line, d.column, d.kind) == (1, 23, "width")
    assert d.field is not None and "pm->free" in d.field, d.field


def test_field_name_keeps_a_local_alias_whole():
    """`struct vma_usage *vu = v;` makes `vu` an alias of `v`. Engine bug: the alias is applied as
    a plain prefix replacement, so the field `vu->rss` is shown as `vuu->rss`."""
    old = show('\tstruct vma_usage *vu = v;\n\n\tseq_printf(m, "Rss: %8lu kB\\n", vu->rss);\n')
    new = show('\tstruct vma_usage *vu = v;\n\n\tseq_printf(m, "Rss: %7lu kB\\n", vu->rss);\n')
    d = run(old, new).divergences[0]
    assert d.field == "vu->rss" and set(d.counterexample) == {"vu->rss"}, (d.field, d.counterexample)


@pytest.mark.parametrize("new_body", [
    "\tseq_puts(m, \"ab\");\n\tseq_putc(m, '!');\n",
    '\tseq_puts(m, "ab");\n\tseq_write(m, "!", sizeof("!") - 1);\n',
])
def test_constant_text_is_not_a_field(new_body):
    """A char constant or a literal's length is not an input: the field at a column holding
    literal text is null. Engine bug: the field is reported as "'!'" / 'sizeof("!") - 1'."""
    d = run(show('\tseq_puts(m, "ab\\n");\n'), show(new_body)).divergences[0]
    assert (d.line, d.column) == (1, 3)
    assert d.field is None, d.field


def test_delimiter_text_is_not_the_field():
    """seq_put_decimal_ull's delimiter is literal text: a column inside it belongs to no field.
    Engine bug: the whole call's span, delimiter included, is attributed to the value."""
    old = show('\tstruct t *t = v;\n\n\tseq_put_decimal_ull(m, "Threads:\\t", t->n);\n\tseq_put_decimal_ull(m, "\\nSigQ:\\t", t->q);\n\tseq_putc(m, \'\\n\');\n')
    new = show('\tstruct t *t = v;\n\n\tseq_put_decimal_ull(m, "Threads:\\t", t->n);\n\tseq_put_decimal_ull(m, "\\nSigq:\\t", t->q);\n\tseq_putc(m, \'\\n\');\n')
    d = run(old, new).divergences[0]
    assert (d.line, d.column) == (2, 4)
    assert d.field is None, d.field


def test_shrinking_survives_inputs_whose_keys_depend_on_other_inputs():
    """The key of an uninterpreted call holds its argument values (`cnt(1)`), so changing `r->irq`
    while shrinking changes which keys exist. Engine bug: KeyError 'cnt(1)' in Runner.shrink
    (exit 2, "internal")."""
    old = show('\tstruct r *r = v;\n\tint i = r->irq;\n\n\tseq_printf(m, "a: %8lu\\n", cnt(i));\n'
               '\tif (r->mode == 9)\n\t\tseq_printf(m, "b: %8lu\\n", cnt(i));\n')
    result = run(old, old.replace("%8lu", "%7lu"))
    assert result.verdict == "divergent"
    assert [d.line for d in result.divergences] == [1, 2]


def test_pointer_of_a_local_object_is_inconclusive():
    """%p of a stack buffer prints an address no model knows (found by the fuzz campaign, where
    it used to be an internal TypeError)."""
    from fmtcheck.engine.verdict import verify_sources

    text = "void f(struct seq_file *m)\n{\n\tchar buf[8];\n\tseq_printf(m, \"%pK\\n\", buf);\n}\n"
    result = verify_sources(text, text).results[0]
    assert result.verdict == "inconclusive"
    assert "address of a local object" in result.reason and result.reason.endswith(":4")


def test_pointer_the_code_did_not_make_is_proven():
    from fmtcheck.engine.verdict import verify_sources

    text = "void f(struct seq_file *m)\n{\n\tseq_printf(m, \"%p %pK\\n\", dev, dev->priv);\n}\n"
    result = verify_sources(text, text).results[0]
    assert (result.verdict, result.method) == ("equivalent", "proven")


# -- tables read past their end -----------------------------------------------------------------

STATES = 'static const char * const names[] = { "R", "S", "D" };\n'


def test_a_table_read_past_its_end_on_both_sides_is_no_input_and_a_difference_elsewhere_stays():
    """`names[state(p)]` with a state of 3 or more is undefined behaviour on both sides: such
    cases are skipped, and the new line the rewrite prints is still found (task_state's Kthread)."""
    body = '\tstruct task *p = v;\n\n\tseq_printf(m, "State: %s\\n", names[p->state]);\n'
    result = run(show(body, STATES), show(body + '\tseq_puts(m, "Kthread: 0\\n");\n', STATES))
    assert result.verdict == "divergent", (result.verdict, result.reason)
    assert any("outside the table names" in n for n in result.notes), result.notes


def test_a_table_read_past_its_end_on_both_sides_is_equivalent_when_nothing_else_changes():
    body = '\tstruct task *p = v;\n\n\tseq_printf(m, "State: %s\\n", names[p->state]);\n'
    new = '\tstruct task *p = v;\n\n\tseq_puts(m, "State: ");\n\tseq_puts(m, names[p->state]);\n\tseq_putc(m, \'\\n\');\n'
    result = run(show(body, STATES), show(new, STATES))
    assert result.verdict == "equivalent", (result.verdict, result.reason)


def test_a_table_read_past_its_end_on_one_side_only_is_not_equivalent():
    """The new table lost its last entry: an index of 2 reads past it, though the old side prints
    "D" there. Skipping that case would make the two look the same."""
    body = '\tstruct task *p = v;\n\n\tseq_printf(m, "State: %s\\n", names[p->state]);\n'
    shorter = 'static const char * const names[] = { "R", "S" };\n'
    result = run(show(body, STATES), show(body, shorter))
    assert result.verdict == "inconclusive", (result.verdict, result.reason)
    assert "one side only" in result.reason and "outside the table names" in result.reason


def test_a_table_sized_by_an_unknown_macro_read_past_its_shown_entries_is_inconclusive():
    """`names[NR_STATES]` with two entries shown: the table may be longer, so an index of 2 is
    unknown data, not undefined behaviour; the result names the size."""
    sized = 'static const char * const names[NR_STATES] = { "R", "S" };\n'
    body = '\tstruct task *p = v;\n\n\tseq_printf(m, "State: %s\\n", names[p->state]);\n'
    result = run(show(body, sized), show(body, sized))
    assert result.verdict == "inconclusive", (result.verdict, result.reason)
    assert "NR_STATES" in result.reason


# -- cases over the per-case bound ------------------------------------------------------------

# a while loop: the `for (i = 0; i < g->n; i++)` form is proven by induction, and never tested
LONG_LOOP = '\tstruct g *g = v;\n\tint i = 0;\n\n\twhile (i < g->n) {\n\t\tseq_putc(m, \'.\');\n\t\ti++;\n\t}\n'


@pytest.fixture
def small_step_bound(monkeypatch):
    """A per-case step bound of 5,000 (the real one is 200,000): the same rule, cheaply."""
    import fmtcheck.c.values
    monkeypatch.setattr(fmtcheck.c.values, "MAX_STEPS", 5000)


def test_a_case_over_the_step_bound_leaves_a_difference_the_other_cases_show(small_step_bound):
    """`g->n` near INT_MAX runs past the step bound; that case is left out, and the line only the
    new side prints, which every other case shows, still makes the rewrite divergent."""
    result = run(show(LONG_LOOP), show(LONG_LOOP + '\tseq_puts(m, "Kthread: 0\\n");\n'), max_examples=5)
    assert result.verdict == "divergent", (result.verdict, result.reason)


def test_a_case_over_the_step_bound_is_no_proof_of_equivalence(small_step_bound):
    # the loop spelled differently on the new side (two spelled alike are one event: c/sameloops)
    result = run(show(LONG_LOOP), show(LONG_LOOP.replace("seq_putc(m, '.');", 'seq_puts(m, ".");')), max_examples=5)
    assert result.verdict == "inconclusive", (result.verdict, result.reason)
    assert "per-case bound" in result.reason and "step limit" in result.reason


# -- a member read through a null pointer, strings the build defines ------------------------------

TO_OBJ = ("struct obj { int pd; struct ctl *ctl; };\n"
          "static struct obj *to_obj(struct pd *pd)\n{\n\treturn pd ? container_of(pd, struct obj, pd) : NULL;\n}\n")


def test_a_member_read_through_a_null_pointer_on_both_sides_is_no_input():
    """`to_obj(pd)->ctl` with pd NULL oopses on both sides (ioc_qos_prfill's pd_to_iocg): such
    cases are skipped; the branch that leads there counts as covered on both sides, so a lock
    added around the print is equivalent, not "no case made the condition false"."""
    body = '\tstruct ctl *ctl = to_obj(pd)->ctl;\n\n\tseq_printf(m, "%d\\n", ctl->enabled);\n'
    locked = '\tstruct ctl *ctl = to_obj(pd)->ctl;\n\n\tspin_lock(&ctl->lock);\n\tseq_printf(m, "%d\\n", ctl->enabled);\n\tspin_unlock(&ctl->lock);\n'

    def fn(text: str) -> str:
        return TO_OBJ + f"static int t_show(struct seq_file *m, struct pd *pd)\n{{\n{text}\treturn 0;\n}}\n"

    result = run(fn(body), fn(locked))
    assert result.verdict == "equivalent", (result.verdict, result.reason)
    assert any("read through a null pointer" in n for n in result.notes), result.notes
    result = run(fn(body), fn(body.replace('"%d\\n"', '"%d \\n"')))
    assert result.verdict == "divergent", (result.verdict, result.reason)


def test_strings_the_build_defines_are_one_shared_input():
    """KBUILD_MODNAME (in pr_fmt) and __FILE__ are not in the source but are the same string on
    both sides: inputs, not "string macro ... is not defined"."""
    before = ('#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt\n'
              'static const char *trim(const char *path)\n{\n\tint skip = strlen(__FILE__) - strlen("x.c");\n\n'
              '\treturn path + (skip > 0 ? 0 : 0);\n}\n')
    body = '\tseq_printf(m, "%s %s\\n", trim(pr_fmt("a")), __FILE__);\n'
    result = run(show(body, before), show(body.replace(" %s\\n", ":%s\\n"), before))
    assert result.verdict == "divergent", (result.verdict, result.reason)
    result = run(show(body, before), show(body.replace('seq_printf(m, "%s %s\\n"', 'seq_printf(m, "%s" " %s\\n"'), before))
    assert result.verdict == "equivalent", (result.verdict, result.reason)


FLAGS = ("static struct { unsigned flag; char opt_char; } opts[] = { { 1, 'p' }, { 2, 'm' } };\n"
         "struct flagsbuf { char buf[ARRAY_SIZE(opts) + 1]; };\n"
         "static char *describe(unsigned int flags, struct flagsbuf *fb)\n{\n\tchar *p = fb->buf;\n\tint i;\n\n"
         "\tfor (i = 0; i < ARRAY_SIZE(opts); ++i)\n\t\tif (flags & opts[i].flag)\n\t\t\t*p++ = opts[i].opt_char;\n"
         "\tif (p == fb->buf)\n\t\t*p++ = '_';\n\t*p = '\\0';\n\treturn fb->buf;\n}\n")


def test_an_array_member_of_a_local_struct_is_the_codes_own_storage():
    """`struct flagsbuf flags;` then `describe(x, &flags)` writes into flags.buf (ddebug_proc_show):
    the member is memory the code owns, sized by its definition, not the caller's data."""
    body = '\tstruct flagsbuf flags;\n\n\tseq_printf(m, "=%s\\"\\n", describe(*(unsigned int *)v, &flags));\n'
    new = body.replace('\\"\\n", describe', '\\"\\n" , describe')
    result = run(show(body, FLAGS), show(new, FLAGS))
    assert result.verdict == "equivalent", (result.verdict, result.reason)
    result = run(show(body, FLAGS), show(body.replace("'_'", "'-'"), FLAGS.replace("'_'", "'-'")))
    assert result.verdict == "divergent", (result.verdict, result.reason)


def test_the_gnu_elvis_operator_is_its_condition_when_true():
    body = '\tconst char *proto = v;\n\n\tseq_printf(m, ",proto=%s\\n", proto ?: "auto");\n'
    new = '\tconst char *proto = v;\n\n\tseq_printf(m, ",proto=%s\\n", proto ? proto : "auto");\n'
    assert run(show(body), show(new)).verdict == "equivalent"
    assert run(show(body), show(new.replace('"auto"', '"none"'))).verdict == "divergent"
    count = '\tunsigned int n = *(unsigned int *)v;\n\n\tseq_printf(m, "%u\\n", n ?: 1);\n'
    assert run(show(count), show(count.replace("n ?: 1", "n ? n : 1"))).verdict == "equivalent"


DEMO_STATS = "struct demo_stats { int a; unsigned char b; unsigned long events[3]; };\n"


@pytest.mark.parametrize("init, printed, verdict", [
    ("{ .a = 5 }", "x.a", ("5", "0")),  # a designated field holds its value, not zero
    ("{ 1, 300 }", "x.b", ("44", "300")),  # converted to the field's type
    ("{ }", "x.a", ("0", "1")),
    ("{0}", "x.events[2]", ("0", "1")),  # array members are zeroed storage of the struct's own
])
def test_a_local_struct_initializer_sets_its_fields_and_zeroes_the_rest(init, printed, verdict):
    """`struct nfs_iostats totals = { };` then `totals.events[i] += ...` (nfs_show_stats): the
    members are the local's own zeroed storage; named fields take the initializer's values."""
    same, other = verdict
    body = f'\tstruct demo_stats x = {init};\n\n\tseq_printf(m, "%lu\\n", (unsigned long){printed});\n'
    assert run(show(body, DEMO_STATS), show(f'\tseq_puts(m, "{same}\\n");\n')).verdict == "equivalent"
    assert run(show(body, DEMO_STATS), show(f'\tseq_puts(m, "{other}\\n");\n')).verdict == "divergent"


def test_a_struct_initializer_without_the_structs_definition_is_inconclusive():
    body = '\tstruct unseen x = { .a = 5 };\n\n\tseq_printf(m, "%d\\n", x.a);\n'
    result = run(show(body), show('\tseq_puts(m, "0\\n");\n'))
    assert result.verdict == "inconclusive" and "struct unseen" in result.reason
