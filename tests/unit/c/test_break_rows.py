"""`if (c) break;` among a loop body's own statements, c on an input (issue 15): in a proof a row
whose arm ends the loop (`rows.break_row`, `rows.BREAK_MARK`), so two loops that print the same
bytes and end at the same point of their output for every iteration are proven. A loop over
constants with such a break (fs/proc/base.c's backtrace walk, `if (!bt) break;` inside
`for (q = 0; q < 12; q++)`) is traced by induction instead of one branch per iteration. C
written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

RECS_SHOW = """struct rec { struct list_head list; unsigned long count, bt; };
struct ts { struct list_head recs; };

static int recs_show(struct seq_file *m, void *v)
{
	struct ts *t = m->private;
	struct rec *r;

	seq_puts(m, "Version : v0.1\\n");
	list_for_each_entry(r, &t->recs, list) {
		seq_printf(m, "%lu", r->count);
		if (!r->bt)
			break;
		seq_printf(m, " %lx\\n", r->bt);
	}
	seq_putc(m, '\\n');
	return 0;
}
"""

SPLIT = RECS_SHOW.replace('seq_printf(m, " %lx\\n", r->bt);',
                          'seq_puts(m, " ");\n\t\tseq_printf(m, "%lx", r->bt);\n\t\tseq_putc(m, \'\\n\');')

BACKTRACES = """#define DEPTH 12
struct rec { unsigned long count; unsigned long backtrace[DEPTH]; };
struct ts { struct rec latency_record[3]; };

static int recs_show(struct seq_file *m, void *v)
{
	struct ts *task = m->private;
	int i;

	seq_puts(m, "Version : v0.1\\n");
	for (i = 0; i < 3; i++) {
		struct rec *lr = &task->latency_record[i];
		if (lr->backtrace[0]) {
			int q;
			seq_printf(m, "%lu", lr->count);
			for (q = 0; q < DEPTH; q++) {
				unsigned long bt = lr->backtrace[q];

				if (!bt)
					break;
				seq_printf(m, " %lx", bt);
			}
			seq_putc(m, '\\n');
		}
	}
	return 0;
}
"""

BACKTRACES_SPLIT = BACKTRACES.replace('seq_printf(m, " %lx", bt);', 'seq_putc(m, \' \');\n\t\t\t\tseq_printf(m, "%lx", bt);')


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_list_walk_that_breaks_on_an_entry_is_proven():
    assert SPLIT != RECS_SHOW
    result = judge(RECS_SHOW, SPLIT)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


def test_a_break_moved_before_a_print_is_divergent():
    moved = SPLIT.replace('\t\tseq_printf(m, "%lu", r->count);\n\t\tif (!r->bt)\n\t\t\tbreak;\n',
                          '\t\tif (!r->bt)\n\t\t\tbreak;\n\t\tseq_printf(m, "%lu", r->count);\n')
    assert moved != SPLIT
    assert judge(RECS_SHOW, moved).verdict == "divergent"


def test_a_break_on_another_field_or_a_continue_is_divergent():
    other = SPLIT.replace("if (!r->bt)", "if (!r->count)")
    skipped = SPLIT.replace("\t\t\tbreak;\n", "\t\t\tcontinue;\n")
    assert other != SPLIT and skipped != SPLIT
    assert judge(RECS_SHOW, other).verdict == "divergent"
    assert judge(RECS_SHOW, skipped).verdict == "divergent"


def test_text_after_a_loop_that_can_end_early_is_not_rotated_into_it():
    """(y x)^n y = y (x y)^n only when every iteration runs whole: with a break, the y after the
    loop follows a partial iteration."""
    before = RECS_SHOW.replace('\t\tseq_printf(m, "%lu", r->count);\n\t\tif (!r->bt)\n\t\t\tbreak;\n'
                               '\t\tseq_printf(m, " %lx\\n", r->bt);\n\t}\n\tseq_putc(m, \'\\n\');',
                               '\t\tseq_puts(m, " ");\n\t\tif (!r->bt)\n\t\t\tbreak;\n'
                               '\t\tseq_printf(m, "%lu", r->count);\n\t}\n\tseq_puts(m, " ");')
    rotated = before.replace('\tlist_for_each_entry(r, &t->recs, list) {\n\t\tseq_puts(m, " ");\n',
                             '\tseq_puts(m, " ");\n\tlist_for_each_entry(r, &t->recs, list) {\n').replace(
        '\t\tseq_printf(m, "%lu", r->count);\n\t}\n\tseq_puts(m, " ");',
        '\t\tseq_printf(m, "%lu", r->count);\n\t\tseq_puts(m, " ");\n\t}')
    assert before != RECS_SHOW and rotated != before
    assert judge(before, rotated).verdict == "divergent"


def test_a_sum_over_a_loop_that_breaks_is_not_folded():
    summed = RECS_SHOW.replace("\tstruct rec *r;\n", "\tstruct rec *r;\n\tunsigned long n = 0;\n").replace(
        '\t\tif (!r->bt)', '\t\tn += r->count;\n\t\tif (!r->bt)').replace(
        "seq_putc(m, '\\n');", 'seq_printf(m, "%lu\\n", n);')
    whole = summed.replace('\t\tif (!r->bt)\n\t\t\tbreak;\n\t\tseq_printf(m, " %lx\\n", r->bt);\n',
                           '\t\tif (r->bt)\n\t\t\tseq_printf(m, " %lx\\n", r->bt);\n')
    assert summed.count("n += ") == 1 and whole != summed
    assert judge(summed, whole).verdict == "divergent"
    assert judge(summed, summed).method != "proven"


def test_a_constant_loop_that_breaks_on_an_input_is_proven_by_induction():
    assert BACKTRACES_SPLIT != BACKTRACES
    result = judge(BACKTRACES, BACKTRACES_SPLIT)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


def test_a_constant_loop_whose_break_moved_after_the_print_is_divergent():
    two = BACKTRACES_SPLIT.replace("latency_record[3]", "latency_record[2]").replace("i < 3", "i < 2")
    assert two != BACKTRACES_SPLIT
    moved = two.replace(
        "\t\t\t\tif (!bt)\n\t\t\t\t\tbreak;\n\t\t\t\tseq_putc(m, ' ');\n\t\t\t\tseq_printf(m, \"%lx\", bt);\n",
        "\t\t\t\tseq_putc(m, ' ');\n\t\t\t\tseq_printf(m, \"%lx\", bt);\n\t\t\t\tif (!bt)\n\t\t\t\t\tbreak;\n")
    assert moved != two
    assert judge(two, moved).verdict == "divergent"
