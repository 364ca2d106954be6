"""Sides that differ only in statements printing literals, or values they only read, are judged
stretch by stretch (`fmtcheck.patch.literal`, `fmtcheck.patch.stretches`): the tree-wide cleanups."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.patch.literal import literal_output, literal_stretches
from fmtcheck.patch.plan import judge, Candidate
from fmtcheck.patch.ctext import Definition
from fmtcheck.patch.stretches import stretch_programs, value_output, value_stretches

OLD = b'static int s(struct seq_file *m, void *v)\n{\n\tseq_printf(m, "a:");\n\tseq_printf(m, " %d\\n", x);\n\tseq_puts(m, "\\n");\n\treturn 0;\n}\n'
NEW = OLD.replace(b'seq_printf(m, "a:")', b'seq_puts(m, "a:")').replace(b'seq_puts(m, "\\n")', b"seq_putc(m, '\\n')")


def test_only_statements_that_print_literals_make_stretches():
    stretches = literal_stretches(OLD, NEW)
    assert stretches is not None and len(stretches) == 2
    assert {seq for seq, _, _ in stretches} == {b"m"}
    assert literal_output((b"seq_printf", b"(", b"m", b",", b'" %d"', b",", b"x", b")", b";")) is None
    assert literal_stretches(OLD, OLD.replace(b"%d", b"%u")) is None  # a value: the engine decides
    assert literal_stretches(OLD, NEW.replace(b"return 0;", b"return 1;")) is None


def judged(old: bytes, new: bytes):
    candidate = Candidate("x.c", "s", Definition("s", "function", old, "x.c", 1),
                          Definition("s", "function", new, "x.c", 1))
    return judge(candidate, old, new, "x.c:s", Options(max_examples=20))


def test_cleanups_that_print_the_same_are_equivalent_and_others_go_to_the_engine():
    result = judged(OLD, NEW)
    assert (result.verdict, result.method) == ("equivalent", "proven")
    assert result.extra.get("decided_by") == "literal-stretches"
    result = judged(OLD, NEW.replace(b'seq_puts(m, "a:")', b'seq_puts(m, "a;")'))
    assert result.verdict == "divergent" and result.divergences


# -- values (`fmtcheck.patch.stretches`): `seq_printf(m, "%s", s)` -> `seq_puts(m, s)` and the like

VOLD = (b"static int s(struct seq_file *m, void *v)\n{\n\tconst char *name = v;\n\tunsigned long long n = 3;\n\n"
       b"\tn += strlen(name);\n\tseq_printf(m, \"%s\", name);\n\tseq_printf(m, \" %llu\\n\", n);\n\treturn 0;\n}\n")
VNEW = VOLD.replace(b'seq_printf(m, "%s", name)', b"seq_puts(m, name)").replace(
    b'seq_printf(m, " %llu\\n", n)', b"seq_put_decimal_ull(m, \" \", n);\n\tseq_putc(m, '\\n')")


def test_read_only_output_statements_make_stretches():
    stretches = value_stretches(VOLD, VNEW)
    assert stretches is not None and len(stretches) == 1
    assert stretches[0].names == {b"name", b"n"}
    assert value_output((b"seq_printf", b"(", b"m", b",", b'"%d"', b",", b"f", b"(", b"x", b")", b")", b";")) is None
    assert value_output((b"seq_printf", b"(", b"m", b",", b'"%d"', b",", b"x", b"++", b")", b";")) is None
    assert value_output((b"seq_printf", b"(", b"m", b",", b'"%d"', b",", b"p", b"->", b"x", b")", b";")) == (b"m", {b"p"})
    assert value_stretches(VOLD, VNEW.replace(b"n += strlen", b"n -= strlen")) is None


def test_a_value_cleanup_is_proven_for_every_value_and_a_difference_goes_to_the_engine():
    result = judged(VOLD, VNEW)
    assert (result.verdict, result.method, result.extra.get("decided_by")) == ("equivalent", "proven", "value-stretches")
    wrong = VNEW.replace(b'seq_put_decimal_ull(m, " ", n)', b'seq_put_decimal_ull(m, "  ", n)')
    result = judged(VOLD, wrong)
    assert result.verdict == "divergent" and result.extra.get("decided_by") != "value-stretches"


def test_a_stretch_reading_a_block_local_goes_to_the_engine():
    """`x` of an inner block may not be the `x` the stretch reads: no stretch is made."""
    old = VOLD.replace(b"\treturn 0;", b"\tif (n) {\n\t\tint name = 1;\n\t\t(void)name;\n\t}\n\treturn 0;")
    new = VNEW.replace(b"\treturn 0;", b"\tif (n) {\n\t\tint name = 1;\n\t\t(void)name;\n\t}\n\treturn 0;")
    result = judged(old, new)
    assert result.extra.get("decided_by") != "value-stretches"


def test_a_stretch_reading_a_macro_that_changes_state_or_the_seq_file_goes_to_the_engine():
    """`NEXT_ID` is `next_id++`: printing it once or twice changes what the code after prints;
    `m->count` is the seq_file's state, which a stretch judged alone starts afresh."""
    head = b"#define NEXT_ID next_id++\n#define SHIFT (1 << 3)\n"
    for name, expected in ((b"NEXT_ID", False), (b"SHIFT", True), (b"m->count", False)):
        old = head + VOLD.replace(b'"%s", name', b'"%d", ' + name)
        new = head + VNEW.replace(b"seq_puts(m, name)", b'seq_put_decimal_ll(m, "", ' + name + b")")
        [stretch] = value_stretches(old, new)
        assert (stretch_programs(old, new, VOLD, stretch) is not None) == expected, name


BRACELESS = (b"static int s(struct seq_file *m, void *v)\n{\n\tswitch (*(int *)v) {\n\tcase 1:\n"
             b"\t\tseq_printf(m, \"one\");\n\t\tbreak;\n\tdefault:\n\t\tif (v)\n\t\t\tseq_printf(m, \"ab\");\n"
             b"\t\telse\n\t\t\tseq_printf(m, \"none\");\n\t}\n\treturn 0;\n}\n")


def test_a_statement_under_a_braceless_head_or_a_label_is_a_stretch_of_its_own():
    """`if (v) seq_printf(m, "ab");` -> `if (v) seq_puts(m, "ab");` is one statement for one;
    the same `if` over two statements (`seq_puts(m, "a"); seq_puts(m, "b");`) governs only the
    first, so the stretches are "ab" against "a" and nothing against "b": not equivalent."""
    new = BRACELESS.replace(b'seq_printf(m, "one")', b'seq_puts(m, "one")').replace(
        b'seq_printf(m, "ab")', b'seq_puts(m, "ab")').replace(b'seq_printf(m, "none")', b'seq_puts(m, "none")')
    stretches = literal_stretches(BRACELESS, new)
    assert stretches is not None and len(stretches) == 3
    assert judged(BRACELESS, new).extra.get("decided_by") == "literal-stretches"
    split = BRACELESS.replace(b'seq_printf(m, "ab");', b'seq_puts(m, "a"); seq_puts(m, "b");')
    # the `if` governs the first only: "ab" against "a", then "" against "b"
    assert [(o, n) for _, o, n in literal_stretches(BRACELESS, split)] == [
        (b'seq_printf ( m , "ab" ) ;', b'seq_puts ( m , "a" ) ;'), (b"", b'seq_puts ( m , "b" ) ;')]
    assert judged(BRACELESS, split).verdict != "equivalent"
