"""What the planned search must reach before a tested rewrite is called equivalent, and what a
difference must not hang on before it is called divergent (session 10's red team): every `case`
label of a switch, every byte value of a string, and the values of a helper only one side calls.
Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

REC = "struct rec { unsigned int v[8]; int n; int kind; const char *name; };\n"


def judged(old_body: str, new_body: str):
    sources = [f"{REC}static int rec_show(struct seq_file *m, struct rec *r)\n{{\n\tint i;\n\n{body}\treturn 0;\n}}\n"
               for body in (old_body, new_body)]
    report = verify_sources(sources[0], sources[1], Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


# -- every case label is an obligation -------------------------------------------------------------

# the loop keeps the proof from deciding, so the search alone must tell the switches apart
SWITCH = """\tswitch (r->kind >> 2) {
\tcase 9:
\tcase 10:
\t\tfor (i = 0; i < r->n && i < 8; i++)
\t\t\tseq_printf(m, " %u", r->v[i]);
\t\tbreak;
\tdefault:
\t\tseq_puts(m, "other");
\t}
\tseq_putc(m, '\\n');
"""


@pytest.mark.parametrize("change, why", [
    (("case 9:", "case 11:"), "a label changed"),
    (("case 9:\n", ""), "a label dropped: 36..39 now print the default"),
    (("r->kind >> 2", "r->kind >> 3"), "another shift selects other kinds"),
])
def test_a_switch_with_other_labels_is_divergent(change: tuple[str, str], why: str) -> None:
    """Two switches that differ in one label print alike for every other value; no digit-length
    boundary of `kind` selects 9 << 2, so the labels were never reached and the pair was
    'equivalent, tested'. Each label is now a comparison the search aims at."""
    result = judged(SWITCH, SWITCH.replace(*change))
    assert result.verdict == "divergent", why
    assert result.divergences[0].counterexample  # a kind that selects the label


def test_the_same_switch_with_its_text_split_stays_equivalent() -> None:
    new = SWITCH.replace('seq_puts(m, "other");', 'seq_puts(m, "oth");\n\t\tseq_puts(m, "er");')
    assert judged(SWITCH, new).verdict == "equivalent"


def test_a_label_the_search_cannot_select_is_never_equivalent() -> None:
    """A label behind a hash the aimed cases cannot invert stays open: inconclusive, naming it."""
    old = SWITCH.replace("r->kind >> 2", "(r->kind * 2654435761u) >> 28")
    result = judged(old, old.replace("case 9:", "case 11:"))
    assert result.verdict != "equivalent"
    if result.verdict == "inconclusive":
        assert "== 9" in result.reason or "== 11" in result.reason


# -- every byte value of a string -----------------------------------------------------------------


@pytest.mark.parametrize("new", [
    'seq_escape(m, r->name, " \\t\\n");',
    'seq_escape(m, r->name, " \\t\\n\\\\\\x7f");',
    'seq_printf(m, "%s", r->name);',
])
def test_another_escape_set_is_divergent_on_one_byte(new: str) -> None:
    """Letters print alike under every escaping: the search tries every byte value, and the
    counterexample shrinks to the one byte the escapings treat differently."""
    result = judged('\tseq_escape(m, r->name, " \\t\\n\\\\");\n', f"\t{new}\n")
    assert result.verdict == "divergent"
    (value,) = result.divergences[0].counterexample.values()
    assert len(value) <= 3  # one byte, as the report shows it (a backslash is shown escaped)


def test_the_same_escape_set_is_equivalent() -> None:
    body = '\tseq_escape(m, r->name, " \\t\\n\\\\");\n'
    assert judged(body, body.replace(";\n", ";\n\tseq_puts(m, \"\");\n")).verdict == "equivalent"


# -- a helper one side calls and the other inlines -------------------------------------------------

PENDING = """\tunsigned long flags = 0;
\tunsigned long n;

\tn = pending_of(r, &flags);
\tseq_printf(m, "%lu %lu\\n", n, flags);
"""


def test_a_helper_inlined_on_one_side_is_inconclusive_never_divergent() -> None:
    """The old side prints what an unknown helper returns and writes, the new side computes it:
    the helper may be `*flags = 0; return 1;`, so a difference that needs both of its values at
    once is no fact. Moving the helper's values one at a time never made the outputs equal, and
    the pair was divergent."""
    result = judged(PENDING, PENDING.replace("n = pending_of(r, &flags);", "n = flags + 1;"))
    assert result.verdict == "inconclusive"
    assert "pending_of" in result.reason


@pytest.mark.parametrize("new, why", [
    (PENDING.replace("n, flags)", "n, flags + 1)"), "the same helper, another value printed"),
    (PENDING.replace("n = pending_of(r, &flags);", "n = flags + 1;") + '\tseq_puts(m, "end\\n");\n',
     "a line the old side never prints, whatever the helper does"),
])
def test_a_difference_the_helper_cannot_explain_stays_divergent(new: str, why: str) -> None:
    assert judged(PENDING, new).verdict == "divergent", why
