"""A local a hunk assigns but does not declare is an input of unknown type: the verdict must hold
for every integer type it may have, or be inconclusive naming it (`fmtcheck.patch.untyped`)."""

from __future__ import annotations

from fmtcheck.common.result import Result
from fmtcheck.patch.plan import check_patches
from fmtcheck.patch.untyped import INTEGER_TYPES, declare_locals, judge_for_every_type, undeclared_local
from fmtcheck.common.options import Options

HEADER = b"""diff --git a/fs/demo/x.c b/fs/demo/x.c
--- a/fs/demo/x.c
+++ b/fs/demo/x.c
"""


def patch_of(body: bytes) -> bytes:
    """A hunk of demo_show (its declarations above it, not shown) with BODY's lines."""
    lines = b" \tstruct demo *d = v;\n \n" + body + b" \treturn 0;\n }\n"
    rows = lines.splitlines()
    old = sum(1 for row in rows if not row.startswith(b"+"))
    new = sum(1 for row in rows if not row.startswith(b"-"))
    head = b"@@ -40,%d +40,%d @@ static int demo_show(struct seq_file *m, void *v)\n" % (old, new)
    return HEADER + head + lines


def judged(tmp_path, body: bytes) -> Result:
    path = tmp_path / "p.patch"
    path.write_bytes(patch_of(body))
    report = check_patches([str(path)], Options(max_examples=20))
    [result] = report.results
    return result


def test_a_text_change_after_an_undeclared_local_is_divergent_for_every_type(tmp_path):
    result = judged(tmp_path, b' \tn = d->count;\n-\tseq_printf(m, "count %d\\n", n);\n+\tseq_printf(m, "count: %d\\n", n);\n')
    assert result.verdict == "divergent"
    assert any("'n', which the patch assigns but does not declare" in note for note in result.notes)


def test_a_store_whose_truncation_depends_on_the_type_is_inconclusive_naming_the_local(tmp_path):
    result = judged(tmp_path, b' \tn = d->count;\n-\tseq_printf(m, "count %lu\\n", n);\n+\tseq_printf(m, "count %lu\\n", d->count);\n')
    assert result.verdict == "inconclusive"
    assert "the patch assigns 'n' but does not declare it" in result.reason
    assert "depends on the declared type" in result.reason


def test_the_local_starts_from_a_shared_input_not_from_zero(tmp_path):
    # n is set in the gap before the hunk, to the same value on both sides
    result = judged(tmp_path, b'-\tn = n;\n \tseq_printf(m, "%d\\n", n);\n')
    assert result.verdict == "equivalent"
    result = judged(tmp_path, b'-\tseq_printf(m, "%d\\n", n);\n+\tn++;\n+\tseq_printf(m, "%d\\n", n);\n')
    assert result.verdict == "divergent"  # n and n + 1 differ for every type, wrapping included


def test_declarations_keep_every_line_number():
    src = b"int x;\nstatic int f(struct seq_file *m)\n{\n\tn = 1;\n}\n"
    text = src[src.index(b"static"):]
    declared = declare_locals(src, text, [("n", "unsigned char")])
    assert declared.count(b"\n") == src.count(b"\n")
    assert b"{ unsigned char n = __fmtcheck_entry_n;\n" in declared
    assert declare_locals(src, b"static int g(void)\n{", [("n", "int")]) is None


def test_every_type_is_tried_and_the_first_disagreement_decides():
    tried = []

    def judge(old: bytes, new: bytes) -> Result:
        declared = old.split(b"{ ", 1)[1].split(b" n =", 1)[0].decode()
        tried.append(declared)
        return Result("f", "equivalent" if declared != "unsigned short" else "divergent")

    first = Result("f", "inconclusive", reason="x.c:4: assignment to 'n', which the code does not declare")
    assert undeclared_local(first) == "n"
    src = b"static int f(void)\n{\n\tn = 1;\n}\n"
    result = judge_for_every_type(first, (src, src), (src, src), judge)
    assert result.verdict == "inconclusive" and "n as unsigned short" in result.reason
    assert tried == list(INTEGER_TYPES[: INTEGER_TYPES.index("unsigned short") + 1])
