"""Sides that differ only in statements printing literals are judged stretch by stretch
(`fmtcheck.patch.literal`): the tree-wide seq_printf -> seq_puts/seq_putc cleanups."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.patch.literal import literal_output, literal_stretches
from fmtcheck.patch.plan import judge, Candidate
from fmtcheck.patch.ctext import Definition

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
