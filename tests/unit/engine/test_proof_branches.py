"""Branches on the inputs a proof used to stop at (issue 15): a value of the inputs made a `bool`
(`bool on = IS_ENABLED(...)`, `bool x = t->on;`: C's `!= 0`), a `switch` on an input (fs/proc's
tty driver rows, the seccomp mode), and `seq_escape_str` of a string the code got from an unknown
call (fs/proc's task name). Each is now traced: the bool as the comparison with 0, each `case` as
a branch the path source keeps as a path fact (as an `if` outside a row), the escaped string as
one field named by the string and the escaping. A look-alike that prints other bytes for some
input is never equivalent. C written for these tests in the kernel's style."""

from __future__ import annotations

import pytest

from _templates import assert_proven, judge

THP = """struct thp {
	unsigned long flags;
	unsigned int on;
};

static int thp_show(struct seq_file *m, void *v)
{
	struct thp *t = v;
	bool enabled = t->on;

	if (enabled)
		enabled = !(t->flags & 1);
	PRINT;
	return 0;
}
"""

DRIVER = """struct drv {
	int type;
	int sub;
};

static int drv_show(struct seq_file *m, void *v)
{
	struct drv *d = v;

	switch (d->type) {
	case 1:
		seq_puts(m, "system");
		if (d->sub == 2)
			seq_puts(m, ":tty");
		break;
	case 2:
		seq_puts(m, "console");
		break;
	CASES
	default:
		DEFAULT;
	}
	seq_putc(m, '\\n');
	return 0;
}
"""

NAME = """struct tsk {
	unsigned int flags;
};

static void name_show(struct seq_file *m, struct tsk *p, bool escape)
{
	char comm[16];

	get_task_comm_of(comm, sizeof(comm), p);
	if (escape)
		ESCAPE;
	else
		seq_printf(m, "%.16s", comm);
}

static int status_show(struct seq_file *m, void *v)
{
	struct tsk *p = v;

	HEAD;
	name_show(m, p, true);
	seq_putc(m, '\\n');
	return 0;
}
"""


OLD_THP = 'seq_printf(m, "THP:\\t%d\\n", enabled)'
OLD_CASES = "case 3:\n\tcase 4:\n\t\tseq_puts(m, \"pty\");\n\t\tbreak;"
OLD_DEFAULT = 'seq_printf(m, "type:%d.%d", d->type, d->sub)'
SPLIT_DEFAULT = ('seq_puts(m, "type:"); seq_printf(m, "%d", d->type); seq_putc(m, \'.\'); '
                 'seq_printf(m, "%d", d->sub)')
OLD_ESCAPE = 'seq_escape_str(m, comm, ESCAPE_SPACE | ESCAPE_SPECIAL, "\\n\\\\")'


def test_a_bool_of_an_input_is_proven() -> None:
    new = 'seq_puts(m, "THP:\\t"); seq_printf(m, "%d", enabled); seq_putc(m, \'\\n\')'
    assert_proven(judge(THP, {"PRINT": OLD_THP}, {"PRINT": new}))


@pytest.mark.parametrize("new, why", [
    ('seq_printf(m, "THP:\\t%d\\n", t->on && !(t->flags & 1) ? t->on : 0)', "the input itself, not made a bool"),
    ('seq_printf(m, "THP:\\t%d\\n", (int)(unsigned char)t->on)', "the input cut to 8 bits is not its bool"),
])
def test_a_value_that_is_not_the_bool_is_never_equivalent(new: str, why: str) -> None:
    assert judge(THP, {"PRINT": OLD_THP}, {"PRINT": new}).verdict != "equivalent", why


def test_a_switch_on_an_input_is_proven() -> None:
    old = {"CASES": OLD_CASES, "DEFAULT": OLD_DEFAULT}
    assert_proven(judge(DRIVER, old, {"CASES": OLD_CASES, "DEFAULT": SPLIT_DEFAULT}))


@pytest.mark.parametrize("cases, why", [
    ("case 3:\n\t\tseq_puts(m, \"pty\");\n\t\tbreak;", "case 4 now falls to the default"),
    ("case 4:\n\tcase 3:\n\t\tseq_puts(m, \"pty\");", "no break: the default's text follows"),
    ("case 3:\n\tcase 5:\n\t\tseq_puts(m, \"pty\");\n\t\tbreak;", "another label"),
])
def test_another_case_list_is_never_equivalent(cases: str, why: str) -> None:
    old = {"CASES": OLD_CASES, "DEFAULT": OLD_DEFAULT}
    assert judge(DRIVER, old, {"CASES": cases, "DEFAULT": SPLIT_DEFAULT}).verdict != "equivalent", why


def test_the_same_escaping_of_a_string_of_a_call_is_proven() -> None:
    old = {"HEAD": 'seq_printf(m, "Name:\\t")', "ESCAPE": OLD_ESCAPE}
    new = {"HEAD": 'seq_puts(m, "Name:"); seq_putc(m, \'\\t\')', "ESCAPE": OLD_ESCAPE}
    assert_proven(judge(NAME, old, new))


@pytest.mark.parametrize("escape, why", [
    ('seq_escape_str(m, comm, ESCAPE_SPACE | ESCAPE_SPECIAL, "\\n")', "a backslash no longer escaped"),
    ('seq_escape_str(m, comm, ESCAPE_SPACE, "\\n\\\\")', "other flags"),
    ("seq_puts(m, comm)", "the string printed as it is"),
    ('seq_escape(m, comm, "\\n\\\\")', "octal escapes instead"),
])
def test_another_escaping_is_never_equivalent(escape: str, why: str) -> None:
    head = 'seq_printf(m, "Name:\\t")'
    result = judge(NAME, {"HEAD": head, "ESCAPE": OLD_ESCAPE}, {"HEAD": head, "ESCAPE": escape})
    assert result.verdict != "equivalent", why


NARROW = """struct thp {
	unsigned long flags;
	unsigned int on;
};

static int thp_show(struct seq_file *m, void *v)
{
	struct thp *t = v;
	BODY
	return 0;
}
"""


@pytest.mark.parametrize("old, new, verdict", [
    ("bool e = t->on;\n\tseq_printf(m, \"%d\\n\", e);", "seq_printf(m, \"%u\\n\", t->on);", "divergent"),
    ("bool e = t->on;\n\tseq_printf(m, \"%d\\n\", e);", "seq_printf(m, \"%d\\n\", t->on != 0);", "equivalent"),
    ("unsigned char c = t->on;\n\tseq_printf(m, \"%u\\n\", c);", "seq_printf(m, \"%u\\n\", t->on);", "divergent"),
    ("unsigned char c = t->on;\n\tseq_printf(m, \"%u\\n\", c);", "seq_printf(m, \"%u\\n\", t->on & 0xff);", "equivalent"),
])
def test_a_local_initialised_from_a_declared_member_reads_it_at_its_own_type(old: str, new: str, verdict: str) -> None:
    """`bool e = t->on;` of an `unsigned int on` reads the member as the u32 it is and converts:
    the member was read as a bool (0 or 1), so printing it elsewhere with %u was 'equivalent'."""
    assert judge(NARROW, {"BODY": old}, {"BODY": new}).verdict == verdict
