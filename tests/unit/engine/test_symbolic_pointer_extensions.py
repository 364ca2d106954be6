"""A %p extension of a value computed from the inputs, in a proof (issue 15): a walk over a
record's saved return addresses, `seq_printf(m, " %ps", (void *)bt)` for each until a zero, as
fs/proc's latency and stack printers do. The pointer is named by its expression (as a `*` width
computed from the inputs is): the same expression on both sides prints the same symbol, so the
split rewrite is proven; another element, another extension or a narrowed pointer is never
equivalent. C written for these tests in the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

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


def printer(head: str, frame: str) -> str:
    return RECORDS.replace("PRINT_HEAD", head).replace("PRINT_FRAME", frame)


def judge(new_frame: str, old_frame: str = 'seq_printf(m, " %ps", (void *)bt)'):
    report = verify_sources(printer(HEAD, old_frame), printer(SPLIT_HEAD, new_frame), Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def test_the_same_pointer_of_the_inputs_split_from_its_separator_is_proven() -> None:
    result = judge('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)bt); }')
    assert result.verdict == "equivalent", result.reason
    assert result.extra.get("decided_by") == "proof"


@pytest.mark.parametrize("new_frame, why", [
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)r->trace[d ? d - 1 : 0]); }', "another element"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%pS", (void *)bt); }', "another extension (offset shown)"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)(unsigned int)bt); }', "the pointer narrowed"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%ps", (void *)(bt + 1)); }', "another address"),
    ('{ seq_putc(m, \' \'); seq_printf(m, "%20ps", (void *)bt); }', "a width"),
])
def test_another_pointer_or_extension_is_never_equivalent(new_frame: str, why: str) -> None:
    result = judge(new_frame)
    assert result.verdict != "equivalent", why
