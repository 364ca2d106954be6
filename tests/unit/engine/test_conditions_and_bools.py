"""Conditions the compiled traces decide are still seen by the coverage, and a `bool` member is
0 or 1 on every path (issue 15: blk-iocost's qos row, `ioc->enabled` printed with `%d` and
`ioc->user_qos_params ? "user" : "auto"`, was "a counterexample did not replay identically").
Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

QOS_ROW = """struct qos_ctl {
	spinlock_t lock;
	bool enabled;
	bool user_params;
	u32 rpct;
};

static u64 qos_fill(struct seq_file *sf, struct qos_ctl *q)
{
	const char *name = ctl_name(q);

	if (!name)
		return 0;
	%(lock)sseq_printf(sf, "%%s enable=%%d ctrl=%%s rpct=%%u.%%02u\\n", name, %(enabled)s,
		   q->user_params ? "user" : "auto", q->rpct / 10000, q->rpct %% 10000 / 100);
	return 0;
}
"""


def qos(lock: str = "", enabled: str = "q->enabled") -> str:
    return QOS_ROW % {"lock": lock, "enabled": enabled}


def result_of(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def test_a_lock_taken_around_a_row_with_bool_members_is_equivalent():
    result = result_of(qos(), qos(lock="spin_lock(&q->lock);\n\t"))
    assert result.verdict == "equivalent", result.reason


def test_a_bool_printed_with_d_equals_its_truth_printed_as_one_or_zero():
    """A bool holds 0 or 1: `%d` of it and `b ? 1 : 0` print the same bytes (a drawn 5 printed
    as 5 on one side and 1 on the other was a model error)."""
    result = result_of(qos(), qos(enabled="q->enabled ? 1 : 0"))
    assert result.verdict == "equivalent", result.reason


def test_a_bool_member_that_loses_its_width_is_still_divergent():
    wider = qos().replace("enable=%d", "enable=%2d")
    result = result_of(qos(), wider)
    assert result.verdict == "divergent"


def test_a_member_tested_by_a_ternary_is_seen_false_by_the_aimed_cases():
    """`p->x ? p->x : 0` against `p->x`: the compiled traces print both ways silently, so the
    aimed case (`p->x` = 0) runs through the interpreter, which tells the coverage (was
    "no case made the condition 'p->x' false")."""
    old = """static int show(struct seq_file *m, struct foo *p)
{
	seq_printf(m, "x=%u\\n", p->x);
	return 0;
}
"""
    result = result_of(old, old.replace(", p->x);", ", p->x ? p->x : 0);"))
    assert result.verdict == "equivalent", result.reason
    assert any("1 condition(s) over the inputs each true, false" in c for c in result.classes)
