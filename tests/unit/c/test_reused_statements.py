"""Printing statements kept across the rule-6 judgements of a pair (fmtcheck.c.reuse): only those
whose compile is the same in every type an undeclared operand may have, and never at the cost of a
verdict that depends on that type. Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

import json

import pytest

from fmtcheck import verify_sources
from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.c.reuse import StatementReuse
from fmtcheck.c.types import S64, U64
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import judged_once

POOL_SHOW = """static int pool_show(struct seq_file *m, void *v)
{
	struct pool *p = v;

	seq_printf(m, "pages: %lu\\n", p->nr_pages);
	seq_printf(m, "free:  %lu\\n", p->free_pages);
	seq_printf(m, "half:  %llu\\n", p->nr_total >> 1);
	return 0;
}
"""

# the value of a type-dependent shift reaches the printing statement through a local
HALF_IN_A_LOCAL = """static int pool_show(struct seq_file *m, void *v)
{
	struct pool *p = v;
	long long half = p->nr_total >> 1;

	seq_printf(m, "pages: %lu\\n", p->nr_pages);
	seq_printf(m, "half:  %lld\\n", half);
	return 0;
}
"""

HALF_IN_A_HELPER = """static long long half_of(struct pool *p)
{
	return p->nr_total >> 1;
}

static int pool_show(struct seq_file *m, void *v)
{
	struct pool *p = v;

	seq_printf(m, "pages: %lu\\n", p->nr_pages);
	seq_printf(m, "half:  %lld\\n", half_of(p));
	return 0;
}
"""

HALF_BY_DIVISION = HALF_IN_A_LOCAL.replace("p->nr_total >> 1", "p->nr_total / 2")

# the helper is compiled by a first call: the printing call's own compile asks no type
HALF_AFTER_A_CALL = HALF_IN_A_HELPER.replace('\tseq_printf(m, "pages:', '\t(void)half_of(p);\n\tseq_printf(m, "pages:')
HALF_UNSIGNED = HALF_IN_A_LOCAL.replace("\tlong long half = p->nr_total >> 1;\n", "").replace(
    ", half);", ", (long long)((unsigned long long)p->nr_total >> 1));")

# a member's array is sized by a fold over a macro the input does not define
SLOTS_SHOW = """struct slots {
	unsigned int n;
	unsigned long long used[NR_SLOTS >> 1];
};

static int slots_show(struct seq_file *m, void *v)
{
	struct slots *s = m->private;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		seq_printf(m, "%llu\\n", s->used[i]);
	return 0;
}
"""

SLOTS_SHOW_PUT = SLOTS_SHOW.replace('\t\tseq_printf(m, "%llu\\n", s->used[i]);',
                                    "\t{\n\t\tseq_put_decimal_ull(m, \"\", s->used[i]);\n\t\tseq_putc(m, '\\n');\n\t}")

COUNTED = """static int stats_show(struct seq_file *p, void *v)
{
	struct stats *s = p->private;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		seq_printf(p, "%u: %8llu %8llu\\n", i, s->rx[i], s->tx[i]);
	return 0;
}
"""

COUNTED_PUT = COUNTED.replace('\t\tseq_printf(p, "%u: %8llu %8llu\\n", i, s->rx[i], s->tx[i]);',
                              '\t{\n\t\tseq_put_decimal_ull(p, "", i);\n\t\tseq_putc(p, \':\');\n'
                              '\t\tseq_put_decimal_ull_width(p, " ", s->rx[i], 8);\n'
                              '\t\tseq_put_decimal_ull_width(p, " ", s->tx[i], 8);\n\t\tseq_putc(p, \'\\n\');\n\t}')

PAIRS = {
    "shift printed signed": (POOL_SHOW, POOL_SHOW.replace("%llu\\n\", p->nr_total", "%lld\\n\", p->nr_total")),
    "shift through a local": (HALF_IN_A_LOCAL, HALF_IN_A_LOCAL.replace("long long half", "unsigned long long half")
                              .replace("%lld", "%llu")),
    "shift in a helper": (HALF_IN_A_HELPER, HALF_BY_DIVISION),
    "helper called before": (HALF_AFTER_A_CALL, HALF_UNSIGNED),
    "member sized by a fold": (SLOTS_SHOW, SLOTS_SHOW_PUT),
    "counted loop": (COUNTED, COUNTED_PUT),
}


def judged_twice(old_src: str, new_src: str):
    """The pair judged with its undeclared operands in u64, then in s64, in the same Programs."""
    old = cfront.parse_unit(old_src.encode(), "old.c")
    new = cfront.parse_unit(new_src.encode(), "new.c")
    hinted = InputSpace()
    collect_hints(old, hinted)
    collect_hints(new, hinted)
    name_old, name_new = next(iter(old.functions.keys().__reversed__())), next(iter(new.functions.keys().__reversed__()))
    programs: dict = {}
    results = [judged_once(old, new, name_old, name_new, Options(max_examples=30), "pair", t, hinted, programs)[0]
               for t in (U64, S64)]
    return results, programs


def kept_texts(program) -> list[str]:
    return [node.text.decode() for node, _, _, _ in program.reuse.kept.values()]


def test_the_printing_statements_that_ask_no_type_are_kept_and_the_one_that_asks_is_compiled_again():
    """`%llu` of `p->nr_total >> 1` is computed in the type assumed for p->nr_total: that
    statement is compiled in each judgement, the two that print declared-by-use fields are not."""
    (first, second), programs = judged_twice(*PAIRS["shift printed signed"])
    assert first.verdict == "equivalent" and second.verdict == "divergent"
    for side in ("old", "new"):
        texts = kept_texts(programs[side])
        assert len(texts) == 2 and not any("nr_total" in t for t in texts), texts
        assert programs[side].reuse.served == 2


@pytest.mark.parametrize("pair", ["shift printed signed", "shift through a local", "shift in a helper",
                                  "helper called before"])
def test_a_verdict_that_depends_on_the_assumed_type_stays_inconclusive(pair):
    """Whether the type reaches the output in the printing statement, through a local declared
    before it (the declaration is compiled again, the statement that prints the local is kept)
    or through a helper (a statement that calls one is never kept), the s64 judgement differs."""
    result = verify_sources(*PAIRS[pair], Options(max_examples=30)).results[0]
    assert result.verdict == "inconclusive"
    assert "p->nr_total" in result.reason and "depends on it" in result.reason and "s64" in result.reason


def test_a_statement_that_calls_a_helper_is_not_kept():
    """Not even one whose compile asks no type because the helper was compiled before it: the
    helper's body is compiled in each judgement, and the kept call would run the first one's."""
    (first, second), programs = judged_twice(*PAIRS["helper called before"])
    assert first.verdict == "equivalent" and second.verdict == "divergent"
    assert not any("half_of" in t for t in kept_texts(programs["old"]))
    assert kept_texts(programs["old"]) == ['seq_printf(m, "pages: %lu\\n", p->nr_pages);']


def test_a_fold_that_asks_the_assumed_type_stops_the_side_reusing():
    """`used[NR_SLOTS >> 1]`: the member's type is folded with NR_SLOTS in the assumed type and
    kept in the Program's tables, where statements that ask no type read it: nothing is kept."""
    (first, second), programs = judged_twice(*PAIRS["member sized by a fold"])
    assert first.verdict == second.verdict == "equivalent"
    for side in ("old", "new"):
        assert programs[side].reuse.unsafe and not programs[side].reuse.kept and programs[side].reuse.served == 0


def json_of(pair: str) -> str:
    report = verify_sources(*PAIRS[pair], Options(max_examples=30, seed=3))
    return json.dumps(report.to_json(), sort_keys=True)


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_the_report_is_the_one_compiled_without_kept_statements(pair, monkeypatch):
    with_kept = json_of(pair)
    monkeypatch.setattr(StatementReuse, "statement", lambda self, prog, node, scope, compile_it: compile_it())
    assert json_of(pair) == with_kept


def test_a_judgement_served_before_its_side_was_found_unsafe_is_compiled_again(monkeypatch):
    """Were a fold that asks the type met only after kept statements served (a later judgement
    compiling a path the first did not), the judgement is compiled anew without them."""
    without = json_of("counted loop")
    original = StatementReuse.statement

    def found_unsafe_after_serving(self, prog, node, scope, compile_it):
        closure = original(self, prog, node, scope, compile_it)
        if self.served:
            self.unsafe = True
        return closure

    monkeypatch.setattr(StatementReuse, "statement", found_unsafe_after_serving)
    (first, second), programs = judged_twice(*PAIRS["counted loop"])
    assert first.verdict == second.verdict == "equivalent"
    assert all(p.reuse.unsafe and p.reuse.served == 0 for p in programs.values())
    assert json_of("counted loop") == without
