"""Sides that are the same C tokens are equivalent without running the engine
(`fmtcheck.patch.tokens`); anything else goes to the engine."""

from __future__ import annotations

import pytest

from fmtcheck.patch.tokens import c_tokens, same_program

SHOW = b'static int t_show(struct seq_file *m, void *v)\n{\n\tseq_printf(m, "%d %s\\n",\n\t\t   a, b);\n\treturn 0;\n}\n'


@pytest.mark.parametrize(
    "new",
    [
        SHOW.replace(b"static int", b"int"),  # linkage at file scope
        SHOW.replace(b"\t\t   a, b", b"\t\t\t\ta, b"),  # re-aligned arguments
        SHOW.replace(b"\treturn 0;", b"\t/* done */\n\treturn 0; // ok"),
        SHOW.replace(b"static int", b"static inline int"),
    ],
)
def test_changes_that_do_not_change_the_program_are_the_same_program(new):
    assert same_program(SHOW, new)


@pytest.mark.parametrize(
    "new",
    [
        SHOW.replace(b'"%d %s', b'"%d  %s'),  # a space inside a literal is output
        SHOW.replace(b"a, b", b"b, a"),
        SHOW.replace(b"\treturn 0;", b"\tstatic int n;\n\treturn 0;"),  # a static local persists
        SHOW.replace(b"a, b", b"a+ +b, b"),
    ],
)
def test_changes_of_the_program_are_not_the_same_program(new):
    assert not same_program(SHOW, new)


def test_operators_are_read_by_maximal_munch_and_directives_end_at_their_line():
    assert c_tokens(b"a+ +b") != c_tokens(b"a++b")
    assert c_tokens(b"#define X a\nb") != c_tokens(b"#define X a b")
    assert c_tokens(b"#define X a \\\n b") == c_tokens(b"#define X a b")
    assert c_tokens(b'x = "unterminated') is None
    assert c_tokens(b"x = 1; /* unterminated") is None
    assert c_tokens(b"x = a / b;") == [b"x", b"=", b"a", b"/", b"b", b";"]


def test_a_line_moved_across_a_hunk_gap_is_not_the_same_program():
    from fmtcheck.patch.hunks import GAP_MARKER

    old = b"void f(void)\n{\n\tg();\n" + GAP_MARKER + b"\n}\n"
    new = b"void f(void)\n{\n" + GAP_MARKER + b"\n\tg();\n}\n"
    assert not same_program(old, new)
