"""Values of the inputs named by their expression in a proof (issue 15), where the proof used to
stop: the same expression on both sides is the same value, so the split rewrite is proven, and a
different expression only makes the proof fail (the search then decides), never a wrong
"equivalent". C written for these tests in the kernel's style.

- a %p extension of a pointer computed from the inputs: a walk over a record's saved return
  addresses, `seq_printf(m, " %ps", (void *)bt)` for each until a zero (fs/proc's latency
  printer); another element, another extension or a narrowed pointer is never equivalent;
- the address of a local that holds a value of the inputs, given to an uninterpreted call:
  `lock_task(task, &flags)` writes `flags` and `unlock_task(task, &flags)` then receives it (fs/proc's
  limits, status and stat printers); a local holding another value names another call.
"""

from __future__ import annotations

import pytest

from _templates import assert_proven, judge


RECORDS = """struct lat_rec {
	int count;
	long total;
	unsigned long trace[3];
};

struct lat_task {
	struct lat_rec rec[2];
};

static int lat_show(struct seq_file *m, void *v)
{
	struct lat_task *t = m->private;
	unsigned int i;

	seq_puts(m, "Latency v1\\n");
	for (i = 0; i < 2; i++) {
		struct lat_rec *r = &t->rec[i];
		int d;

		if (!r->trace[0])
			continue;
		PRINT_HEAD;
		for (d = 0; d < 3; d++) {
			unsigned long bt = r->trace[d];

			if (!bt)
				break;
			PRINT_FRAME;
		}
		seq_putc(m, '\\n');
	}
	return 0;
}
"""

HEAD = 'seq_printf(m, "%i %li", r->count, r->total)'
SPLIT_HEAD = 'seq_printf(m, "%i", r->count); seq_putc(m, \' \'); seq_printf(m, "%li", r->total)'


OLD_FRAME = 'seq_printf(m, " %ps", (void *)bt)'


def judge_frame(new_frame: str):
    return judge(RECORDS, {"PRINT_HEAD": HEAD, "PRINT_FRAME": OLD_FRAME},
                 {"PRINT_HEAD": SPLIT_HEAD, "PRINT_FRAME": new_frame})


def test_the_same_pointer_of_the_inputs_split_from_its_separator_is_proven() -> None:
    assert_proven(judge_frame('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)bt); }'))


@pytest.mark.parametrize("new_frame, why", [
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)r->trace[d ? d - 1 : 0]); }', "another element"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%pS", (void *)bt); }', "another extension (offset shown)"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)(unsigned int)bt); }', "the pointer narrowed"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)(bt + 1)); }', "another address"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%20ps", (void *)bt); }', "a width"),
])
def test_another_pointer_or_extension_is_never_equivalent(new_frame: str, why: str) -> None:
    assert judge_frame(new_frame).verdict != "equivalent", why


LIMITS = """struct lim {
	unsigned long cur;
	unsigned long max;
};

struct tsk {
	struct lim lim[4];
};

static int lim_show(struct seq_file *m, void *v)
{
	struct tsk *task = v;
	unsigned long flags;
	unsigned int n;

	if (!lock_task(task, &flags))
		return 0;
	ADJUST;
	n = pending_of(task, &flags);
	unlock_task(task, &flags);
	PRINT;
	return 0;
}
"""

OLD_PRINT = 'seq_printf(m, "%lu %lu %u\\n", task->lim[0].cur, task->lim[0].max, n)'
NEW_PRINT = ('seq_put_decimal_ull(m, "", task->lim[0].cur); seq_put_decimal_ull(m, " ", task->lim[0].max); '
             'seq_put_decimal_ull(m, " ", n); seq_putc(m, \'\\n\')')


def judge_flags(new_adjust: str, old_adjust: str = "(void)0"):
    return judge(LIMITS, {"ADJUST": old_adjust, "PRINT": OLD_PRINT}, {"ADJUST": new_adjust, "PRINT": NEW_PRINT})


def test_a_call_given_the_address_of_a_value_of_an_earlier_call_is_proven() -> None:
    assert_proven(judge_flags("(void)0"))


def test_the_same_expression_held_on_both_sides_is_proven() -> None:
    assert_proven(judge_flags("flags = flags | 1", old_adjust="flags = flags | 1"))


@pytest.mark.parametrize("new_adjust, why", [
    ("flags = flags + 1", "the local holds another value when the call reads it"),
    ("flags = task->lim[1].cur", "the local holds a field of the caller's data"),
    ("flags = 0", "the local holds zero: an out-parameter, not the first call's value"),
])
def test_a_local_holding_another_value_names_another_call(new_adjust: str, why: str) -> None:
    assert judge_flags(new_adjust).verdict != "equivalent", why
