"""`if (c) continue;` at the top of a loop body is the rest of the body under !c (issue 15): the
same run in C, and in a proof one row over the iteration. net/can/bcm.c's rx_op rows skip the
inactive entries this way (`if (!frames_abs) continue;`); the proof called it a branch that leaves
a loop body early, and a loop over an input count was tested. C written for these tests in the
kernel's style."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

OPS_SHOW = """struct op { struct list_head list; unsigned int can_id; unsigned long frames_abs, frames_filtered; };
struct ops_sock { struct list_head rx_ops; };

static int ops_show(struct seq_file *m, void *v)
{
	struct ops_sock *bo = m->private;
	struct op *op;

	list_for_each_entry(op, &bo->rx_ops, list) {
		unsigned long abs_frames = op->frames_abs;

		/* print only active entries */
		if (!abs_frames)
			continue;

		seq_printf(m, "rx_op: %03X recv %lu (%lu)\\n", op->can_id,
			   op->frames_filtered, abs_frames);
	}
	return 0;
}
"""

SPLIT = OPS_SHOW.replace("abs_frames", "n").replace(
    '\t\tseq_printf(m, "rx_op: %03X recv %lu (%lu)\\n", op->can_id,\n\t\t\t   op->frames_filtered, n);\n',
    '\t\tseq_printf(m, "rx_op: %03X", op->can_id);\n\t\tseq_puts(m, " recv ");\n'
    '\t\tseq_put_decimal_ull(m, "", op->frames_filtered);\n\t\tseq_printf(m, " (%lu)\\n", n);\n')

NESTED = """struct op { struct list_head list; unsigned int can_id; unsigned long frames_abs, frames_filtered; };
struct ops_sock { struct list_head rx_ops; };

static int ops_show(struct seq_file *m, void *v)
{
	struct ops_sock *bo = m->private;
	struct op *op;

	list_for_each_entry(op, &bo->rx_ops, list) {
		if (op->can_id) {
			if (!op->frames_abs)
				continue;
			seq_printf(m, "rx_op: %03X", op->can_id);
		}
		seq_printf(m, " recv %lu\\n", op->frames_filtered);
	}
	return 0;
}
"""


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_loop_that_skips_entries_with_continue_is_proven():
    assert SPLIT != OPS_SHOW
    result = judge(OPS_SHOW, SPLIT)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


def test_a_rewrite_that_skips_on_another_field_is_divergent():
    other = SPLIT.replace("if (!n)", "if (!op->frames_filtered)")
    assert other != SPLIT
    assert judge(OPS_SHOW, other).verdict == "divergent"


def test_a_continue_moved_after_a_print_is_divergent():
    moved = SPLIT.replace('\t\tif (!n)\n\t\t\tcontinue;\n\n\t\tseq_printf(m, "rx_op: %03X", op->can_id);\n',
                          '\t\tseq_printf(m, "rx_op: %03X", op->can_id);\n\t\tif (!n)\n\t\t\tcontinue;\n')
    assert moved != SPLIT
    assert judge(OPS_SHOW, moved).verdict == "divergent"


def test_a_continue_in_an_inner_block_still_skips_what_follows_that_block():
    """Only the body's own statements are a continue's rest: inside `if (op->can_id) {...}` it
    also skips the row after the block, which a rewrite printing that row anyway does not."""
    printed = NESTED.replace("\t\t\tif (!op->frames_abs)\n\t\t\t\tcontinue;\n\t\t\tseq_printf",
                             "\t\t\tif (op->frames_abs)\n\t\t\t\tseq_printf")
    assert printed != NESTED
    assert judge(NESTED, printed).verdict == "divergent"
    assert judge(NESTED, NESTED).verdict == "equivalent"
