"""The address of a local that holds a value of the inputs, given to an uninterpreted call, in a
proof (issue 15): `lock_task_sighand(task, &flags)` writes `flags`, and `unlock_task_sighand(task,
&flags)` then receives a value of the first call (fs/proc's limits, status and stat printers).
The call is named by the value the local holds, by its expression (as any argument of the inputs
is), so both sides name one call and the split rewrite is proven; a local holding another value
names another call, whose result is never taken for the first one's. C written for these tests
in the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

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


def printer(adjust: str, print_: str) -> str:
    return LIMITS.replace("ADJUST", adjust).replace("PRINT", print_)


def judge(new_adjust: str, old_adjust: str = "(void)0"):
    report = verify_sources(printer(old_adjust, OLD_PRINT), printer(new_adjust, NEW_PRINT), Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def test_a_call_given_the_address_of_a_value_of_an_earlier_call_is_proven() -> None:
    result = judge("(void)0")
    assert result.verdict == "equivalent", result.reason
    assert result.extra.get("decided_by") == "proof"


def test_the_same_expression_held_on_both_sides_is_proven() -> None:
    result = judge("flags = flags | 1", old_adjust="flags = flags | 1")
    assert result.verdict == "equivalent", result.reason
    assert result.extra.get("decided_by") == "proof"


@pytest.mark.parametrize("new_adjust, why", [
    ("flags = flags + 1", "the local holds another value when the call reads it"),
    ("flags = task->lim[1].cur", "the local holds a field of the caller's data"),
    ("flags = 0", "the local holds zero: an out-parameter, not the first call's value"),
])
def test_a_local_holding_another_value_names_another_call(new_adjust: str, why: str) -> None:
    result = judge(new_adjust)
    assert result.verdict != "equivalent", why
