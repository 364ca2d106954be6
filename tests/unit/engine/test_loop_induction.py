"""Counted loops (`for (i = 0; i < s->n; i++)`) and pointer-chain walks (`for (p = h; p; p =
p->next)`) proven by induction (fmtcheck.c.loopshapes, fmtcheck.c.rows), and the bodies no rule
may prove: each soundness case is a pair that differs, or whose proof would need what the rule
ignores, checked with the prover alone (testing such loops is the engine's, and slow)."""

from __future__ import annotations

import pytest

from benchmarks.loops import chain, counted, flag_rows, grid, list_walk
from fmtcheck.c import cfront, loopshapes
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import Runner, side_of, verify_sources


def show(body: str) -> str:
    return ("static int t_show(struct seq_file *m, void *v)\n{\n\tstruct stats *s = m->private;\n"
            f"\tstruct item *p;\n\tint i;\n{body}\treturn 0;\n}}\n")


def proof(old: str, new: str) -> tuple[bool, str | None]:
    """The prover's answer alone (no testing)."""
    units = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace(16)
    for unit in units:
        collect_hints(unit, space)
    sides = [side_of(unit, space, next(iter(unit.functions)), label) for unit, label in zip(units, ("old", "new"))]
    return Runner(*sides).prove()


def verdict(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=20)).results[0]


COUNTED = "\tfor (i = 0; i < s->n; i++)\n"
CHAIN = "\tfor (p = head_of(m); p; p = p->next)\n"


def test_the_issue_counted_loop_is_proven_for_every_count():
    old = show(COUNTED + '\t\tseq_printf(m, " %8llu", s->v[i]);\n\tseq_putc(m, \'\\n\');\n')
    new = show(COUNTED + '\t\tseq_put_decimal_ull_width(m, " ", s->v[i], 8);\n\tseq_putc(m, \'\\n\');\n')
    result = verdict(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_the_issue_pointer_chain_walk_is_proven_with_either_test_of_the_cursor():
    old = show(CHAIN + '\t\tseq_printf(m, "%s %lu\\n", p->name, p->count);\n')
    new = show(CHAIN.replace("; p;", "; p != NULL;") + '\t{\n\t\tseq_puts(m, p->name);\n'
               '\t\tseq_put_decimal_ull(m, " ", p->count);\n\t\tseq_putc(m, \'\\n\');\n\t}\n')
    result = verdict(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


@pytest.mark.parametrize("pair", [counted(8), chain(8), grid()], ids=["counted", "chain", "grid"])
def test_generated_loops_are_proven(pair):
    assert proof(*pair) == (True, None)


@pytest.mark.parametrize("pair", [counted(8, True), chain(8, True), grid(True)], ids=["counted", "chain", "grid"])
def test_generated_slips_are_not_proven(pair):
    assert proof(*pair)[0] is False


def body_pair(old_body: str, new_body: str, loop: str = COUNTED) -> tuple[str, str]:
    return show(loop + old_body), show(loop + new_body)


PRINT = '\t\tseq_printf(m, " %llu", s->v[i]);\n'
NOT_PROVEN = {
    # the body assigns the counter: iterations are skipped
    "assigns the counter": body_pair("\t{\n" + PRINT + "\t\ti++;\n\t}\n", PRINT),
    # the bound changes inside the body
    "changes the bound": (show("\tint n = s->n;\n\n\tfor (i = 0; i < n; i++) {\n" + PRINT + "\t\tn--;\n\t}\n"),
                          show("\tint n = s->n;\n\n\tfor (i = 0; i < n; i++)\n" + PRINT)),
    "breaks": body_pair("\t{\n\t\tif (!s->v[i])\n\t\t\tbreak;\n" + PRINT + "\t}\n", PRINT),
    "continues": body_pair("\t{\n\t\tif (!s->v[i])\n\t\t\tcontinue;\n" + PRINT + "\t}\n", PRINT),
    "returns": body_pair("\t{\n\t\tif (!s->v[i])\n\t\t\treturn 0;\n" + PRINT + "\t}\n", PRINT),
    "an index other than the counter": body_pair(PRINT.replace("v[i]", "v[i + 1]"), PRINT),
    "a constant index": body_pair(PRINT.replace("v[i]", "v[0]"), PRINT),
    "state carried between iterations": (
        show("\tunsigned long sum = 0;\n\n" + COUNTED + '\t{\n\t\tsum += s->v[i];\n\t\tseq_printf(m, " %lu", sum);\n\t}\n'),
        show("\tunsigned long sum = 0;\n\n" + COUNTED + '\t{\n\t\tsum += s->v[i];\n\t\tseq_put_decimal_ull(m, " ", sum);\n\t}\n')),
    "another bound": (show(COUNTED + PRINT), show(COUNTED.replace("s->n", "s->k") + PRINT)),
    # (the loops spelled differently: two loops spelled alike leave the same counter, c/sameloops)
    "the counter read after the loop": (show(COUNTED + PRINT + '\tseq_printf(m, "%d", i);\n'),
                                        show(COUNTED + PRINT.replace('" %llu"', '"%c%llu", \' \'')
                                             + '\tseq_printf(m, "%i", i);\n')),
    "the cursor assigned in the body": (show(CHAIN + '\t{\n\t\tseq_puts(m, p->name);\n\t\tp = p->next;\n\t}\n'),
                                        show(CHAIN + '\t\tseq_puts(m, p->name);\n')),
    "a chain over another member": (show(CHAIN + '\t\tseq_puts(m, p->name);\n'),
                                    show(CHAIN.replace("p->next", "p->prev") + '\t\tseq_puts(m, p->name);\n')),
    "a chain from another head": (show(CHAIN + '\t\tseq_puts(m, p->name);\n'),
                                  show(CHAIN.replace("head_of(m)", "head_of(m)->next") + '\t\tseq_puts(m, p->name);\n')),
}


@pytest.mark.parametrize("name", list(NOT_PROVEN))
def test_what_the_induction_rule_ignores_is_never_proven(name):
    assert proof(*NOT_PROVEN[name])[0] is False


FROM = "\tfor (i = s->first; i <= s->last; i++)\n"


def test_a_loop_from_an_input_start_to_an_inclusive_bound_is_proven():
    """`for (g = ns->level; g <= pid->level; g++)` (/proc/PID/status NSpid): the count follows
    from the start and the bound; a renamed counter and a split print still align."""
    old = show(FROM + PRINT)
    new = show("\tint k;\n\n" + "\tfor (k = s->first; k <= s->last; k++)\n"
               + '\t\tseq_put_decimal_ull(m, " ", s->v[k]);\n')
    assert proof(old, new) == (True, None)


@pytest.mark.parametrize("other", [
    FROM.replace("s->first;", "s->first + 1;"),  # another start
    FROM.replace("<=", "<"),  # one iteration fewer
    FROM.replace("s->last", "s->n"),  # another bound
    "\tfor (i = 0; i <= s->last; i++)\n",  # a start of 0 is still another start
], ids=["start", "exclusive", "bound", "zero start"])
def test_a_loop_from_another_start_or_to_another_bound_does_not_align(other):
    assert proof(show(FROM + PRINT), show(other + PRINT))[0] is False


def test_a_counter_of_another_type_does_not_align():
    """`unsigned j < s->n` and `int i < s->n` iterate differently for a negative n."""
    old = show(COUNTED + PRINT)
    new = show("\tunsigned int j;\n\n\tfor (j = 0; j < s->n; j++)\n" + PRINT.replace("[i]", "[j]"))
    assert proof(old, new)[0] is False


def test_a_loop_whose_bound_is_a_constant_runs_as_before():
    old = show("\tfor (i = 0; i < 3; i++)\n" + PRINT)
    new = show('\tseq_printf(m, " %llu %llu %llu", s->v[0], s->v[1], s->v[2]);\n')
    assert proof(old, new) == (True, None)


def test_a_renamed_counter_still_aligns():
    """The corpus's mechanical rewrite renames locals: a loop is the same loop whatever its
    counter is called."""
    old = show(COUNTED + PRINT)
    new = show("\tint k;\n\n\tfor (k = 0; k < s->n; k++)\n" + PRINT.replace("[i]", "[k]"))
    assert proof(old, new) == (True, None)


def test_swapped_nested_counters_do_not_align():
    """Renaming is not reordering: `for i { for j }` against `for j { for i }` prints the
    elements in another order."""
    inner = '\t\t\tseq_printf(m, " %llu", s->v[i] + s->w[j]);\n'
    old = show("\tint j;\n\n\tfor (i = 0; i < s->n; i++)\n\t\tfor (j = 0; j < s->n; j++)\n" + inner)
    new = show("\tint j;\n\n\tfor (j = 0; j < s->n; j++)\n\t\tfor (i = 0; i < s->n; i++)\n" + inner)
    assert proof(old, new)[0] is False


# -- testing what the rule cannot prove ----------------------------------------------------------


WHILE = "\tp = head_of(m);\n\twhile (p) {\n"
WHILE_PRINT = '\t\tseq_printf(m, "%s %lu\\n", p->name, p->count);\n'
WHILE_NEW = '\t\tseq_puts(m, p->name);\n\t\tseq_put_decimal_ull(m, " ", p->count);\n\t\tseq_putc(m, \'\\n\');\n'


def test_a_while_walk_is_proven_by_the_rule_of_the_for_walk():
    old = show(CHAIN + WHILE_PRINT)
    new = show(WHILE.replace("(p)", "(p != NULL)") + WHILE_NEW + "\t\tp = p->next;\n\t}\n")
    assert proof(old, new) == (True, None)
    result = verdict(show(WHILE + WHILE_PRINT + "\t\tp = p->next;\n\t}\n"), new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


WHILE_NOT_PROVEN = {
    # a `continue` in a while skips the advance (the for's update still runs): not the same loop
    "continues": "\t\tif (!p->count)\n\t\t\tcontinue;\n" + WHILE_PRINT + "\t\tp = p->next;\n\t}\n",
    "advances first": "\t\tp = p->next;\n" + WHILE_PRINT + "\t}\n",
    "advances twice": WHILE_PRINT + "\t\tp = p->next;\n\t\tp = p->next;\n\t}\n",
    "advances another cursor": "\t\tstruct item *p = v;\n" + WHILE_PRINT + "\t\tp = p->next;\n\t}\n",
    "advances by another member": WHILE_PRINT + "\t\tp = p->prev;\n\t}\n",
    "breaks": "\t\tif (!p->count)\n\t\t\tbreak;\n" + WHILE_PRINT + "\t\tp = p->next;\n\t}\n",
}


def while_shape(source: str):
    """What `loopshapes.while_chain` makes of the one while loop of a show function."""
    unit = cfront.parse_unit(source.encode(), "new")
    node = next(n for n in cfront.walk(unit.functions["t_show"]) if n.type == "while_statement")
    return loopshapes.while_chain(node.child_by_field_name("condition"), node.child_by_field_name("body"))


@pytest.mark.parametrize("name", list(WHILE_NOT_PROVEN))
def test_a_while_walk_the_for_rule_does_not_cover_is_never_proven(name):
    new = show(WHILE + WHILE_NOT_PROVEN[name])
    if name in ("continues", "advances another cursor"):
        # not the for's walk at all (the prover then runs the loop to its step bound: slow)
        assert while_shape(new) is None
    else:
        assert proof(show(CHAIN + WHILE_PRINT), new)[0] is False


def test_a_while_walk_is_recognised_with_either_test_and_a_body_before_the_advance():
    for test in ("p", "p != NULL", "NULL != p"):
        shape = while_shape(show(WHILE.replace("(p)", f"({test})") + WHILE_PRINT + "\t\tp = p->next;\n\t}\n"))
        assert shape is not None and (shape[0].cursor, shape[0].member, len(shape[1])) == ("p", "next", 1), test


def test_a_while_walk_that_loses_a_separator_is_divergent_on_one_node():
    old = show(CHAIN.replace("head_of(m)", "s->first") + WHILE_PRINT)
    new = show(WHILE.replace("head_of(m)", "s->first") + WHILE_NEW.replace('" "', '""') + "\t\tp = p->next;\n\t}\n")
    result = verdict(old, new)
    assert result.verdict == "divergent"
    div = result.divergences[0]
    assert div.counterexample["s->first"] == 1 and div.counterexample["s->first->next"] == 0, div.counterexample
    assert (div.expected, div.actual) == (b" 0", b"0")


def test_a_counted_loop_with_a_width_slip_is_divergent_on_one_element():
    result = verdict(*counted(1, slip=True))
    assert result.verdict == "divergent"
    div = result.divergences[0]
    assert div.counterexample == {"s->n": 1, "s->v0[0]": 0}, div.counterexample
    assert (div.expected, div.actual) == (b"0:        0", b"0:       0")


def test_a_chain_walk_that_loses_a_separator_is_divergent_on_one_node():
    result = verdict(*chain(1, lose_separator=True))
    assert result.verdict == "divergent"
    div = result.divergences[0]
    assert div.counterexample["t->first"] == 1 and div.counterexample["t->first->next"] == 0
    assert (div.expected, div.actual) == (b" 0", b"0")


def runner_of(old: str, new: str) -> Runner:
    units = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace(16)
    for unit in units:
        collect_hints(unit, space)
    return Runner(*[side_of(unit, space, next(iter(unit.functions)), label)
                    for unit, label in zip(units, ("old", "new"))])


def test_a_count_past_the_step_bound_ends_the_case_before_the_loop_runs():
    from fmtcheck.c.rows import StepsForeseen
    from fmtcheck.engine.inputs import VectorInputs

    each = show(COUNTED + '\t\tseq_printf(m, " %d", i);\n')
    runner = runner_of(each, each)
    with pytest.raises(StepsForeseen):
        runner.run_slow(VectorInputs({"m->private->n": 10 ** 9}, zero=True))
    # a walk over s->v0[], an array of unknown size, ends sooner: past its assumed 16 elements,
    # undefined behaviour (fmtcheck.c.expressions.counted_elements), and the case is skipped
    runner = runner_of(*counted(2, slip=True))
    assert runner.run_slow(VectorInputs({"m->private->n": 10 ** 9}, zero=True)) is None
    # a body that may leave early runs as C does (here: to its first iteration's break)
    body = '\t{\n\t\tseq_printf(m, " %llu", s->v[i]);\n\t\tif (s->v[i])\n\t\t\tbreak;\n\t}\n'
    runner = runner_of(show(COUNTED + body), show(COUNTED + body))
    outcome = runner.run_slow(VectorInputs({"m->private->n": 10 ** 9, "m->private->v[0]": 7}, zero=True))
    assert outcome.old.data == b" 7"


@pytest.mark.parametrize("n", [0, 1, 3, 16])
def test_a_compiled_counted_loop_prints_what_the_interpreter_prints(n):
    """The fast path's count (the bound in the comparison's type) and its elements past those
    discovered (0 in a zero case) against the interpreter, case by case (up to 16 elements, as
    many as the interpreter takes s->v0[], an array of unknown size, to hold)."""
    from fmtcheck.engine.fastpath import ZeroDefaults, compile_trace
    from fmtcheck.engine.inputs import VectorInputs

    old, new = counted(2, slip=True)
    runner = runner_of(old, new)
    assert runner.prove()[0] is False
    values = {"m->private->n": n, "m->private->v0[1]": 123456789, "m->private->v1[2]": 5}
    slow = runner.run_slow(VectorInputs(dict(values), zero=True))
    env = ZeroDefaults({"m->private->n": 0})
    env.update(values)
    for trace, side in zip(runner.traces, (slow.old, slow.new)):
        assert compile_trace(trace).render(env)[0] == side.data


def test_a_count_the_fast_path_cannot_run_goes_to_the_interpreter():
    """`s->n` is read as an unsigned long here: -1 is 2^64 - 1 iterations, past the step bound."""
    from fmtcheck.engine.fastpath import Fallback, ZeroDefaults, compile_trace

    runner = runner_of(*counted(2, slip=True))
    runner.prove()
    with pytest.raises(Fallback):
        compile_trace(runner.traces[0]).render(ZeroDefaults({"m->private->n": -1}))


@pytest.mark.parametrize("pair", [counted(3, slip=True), chain(3, True), list_walk(3, True), flag_rows(4, 1)],
                         ids=["counted", "chain", "list", "rows"])
def test_a_case_taken_as_the_zero_case_prints_what_the_zero_case_prints(pair):
    """`fastpath.ZeroReads` lets the search count, unrendered, a zero-based case that changes only
    inputs the zero case does not read: the interpreter must print the zero case's bytes for it,
    and a case that changes an input the zero case reads (a count, a flag) is never taken."""
    from fmtcheck.engine.fastpath import ZeroReads
    from fmtcheck.engine.inputs import VectorInputs, alone, zero_value

    runner = runner_of(*pair)
    runner.prove()
    discovery = VectorInputs()
    runner.run_case(discovery)
    runner.kinds = dict(discovery.kinds)
    runner.enable_fast_path()
    assert runner.fast is not None
    zero = runner.run_slow(VectorInputs(zero=True))
    reads = ZeroReads(runner.fast, {k: zero_value(kind) for k, kind in runner.kinds.items()})
    taken = 0
    for vector in list(alone(runner.kinds))[::5]:
        if reads.renders_as_zero(vector):
            taken += 1
            again = runner.run_slow(VectorInputs(vector, zero=True))
            assert (again.old.data, again.new.data) == (zero.old.data, zero.new.data), vector
        else:
            assert any(k in reads.keys and v != zero_value(runner.kinds[k]) for k, v in vector.items()), vector
    assert taken


@pytest.mark.parametrize("rows, cols", [(0, 0), (1, 0), (300, 0), (3, 2), (1, 3)])
def test_a_body_that_prints_the_same_in_every_iteration_renders_as_the_interpreter_prints(rows, cols):
    """`fastpath.same_every_iteration`: a grid's row prints only its newline while the column
    count is 0 (rendered once, for every row); with columns it reads the row, row by row."""
    from fmtcheck.engine.fastpath import ZeroDefaults, compile_trace, same_every_iteration
    from fmtcheck.engine.inputs import VectorInputs

    runner = runner_of(*grid(True))
    assert runner.prove()[0] is False
    values = {"m->private->rows": rows, "m->private->cols": cols, "m->private->v[0][1]": 7,
              "m->private->v[1][0]": 42, "m->private->v[2][1]": 123456}
    slow = runner.run_slow(VectorInputs(dict(values), zero=True))
    assert slow.old.data.count(b"\n") == rows and slow.old.data.count(b" ") >= rows * cols
    for trace, side in zip(runner.traces, (slow.old, slow.new)):
        env = ZeroDefaults({"m->private->rows": 0, "m->private->cols": 0})
        env.update(values)
        assert compile_trace(trace).render(env)[0] == side.data
        outer = next(item for item in trace if isinstance(item, tuple) and item[0] == "loop")
        repeats = same_every_iteration(list(outer[2]), "#0")
        assert repeats is not None and repeats(ZeroDefaults(env)) == (cols == 0)
    numbered = runner_of(*counted(2))
    assert numbered.prove()[0] is True
    loop = next(item for item in numbered.traces[0] if isinstance(item, tuple) and item[0] == "loop")
    assert same_every_iteration(list(loop[2]), "#0") is None  # each row prints its number


# -- `while ((p = p->next) != NULL)`: the test advances (/proc/interrupts' action list) ----------


def actions(walk: str, split: bool = False) -> str:
    first = '\t\tseq_puts(m, "  ");\n\t\tseq_puts(m, p->name);\n' if split else '\t\tseq_printf(m, "  %s", p->name);\n'
    each = ('\t\t{\n\t\t\tseq_puts(m, ", ");\n\t\t\tseq_puts(m, p->name);\n\t\t}\n' if split
            else '\t\t\tseq_printf(m, ", %s", p->name);\n')
    return show("\tp = head_of(m);\n\tif (p) {\n" + first + walk + each + "\t}\n\tseq_putc(m, '\\n');\n")


ADVANCING = "\t\twhile ((p = p->next) != NULL)\n"


def test_a_walk_advanced_by_its_test_is_proven():
    assert proof(actions(ADVANCING), actions("\t\twhile ((p = p->next))\n", split=True)) == (True, None)


@pytest.mark.parametrize("walk", [
    "\t\twhile ((p = p->prev) != NULL)\n",  # another member
    "\t\twhile ((p = p->next->next) != NULL)\n",  # two steps
], ids=["prev", "two steps"])
def test_a_walk_advanced_otherwise_is_not_proven(walk):
    assert proof(actions(ADVANCING), actions(walk))[0] is False


@pytest.mark.parametrize("pair, counts", [
    (counted(3, slip=True), [{"m->private->n": n} for n in (1, 2, 5, 9, 10)]),
    (counted(1, slip=True), [{"m->private->n": n} for n in (0, 4, 7, 16)]),
], ids=["3 fields", "1 field"])
def test_a_default_case_past_the_kept_inputs_renders_as_the_interpreter_prints(pair, counts, monkeypatch):
    """Once the search keeps no more inputs (MAX_INPUT_KEYS, 6 here), a default-based case whose
    loops read elements past the discovered ones renders on the fast path (`verdict.default_env`):
    each such element gets the interpreter's default, in the order the interpreter meets it, so the
    bytes are the interpreter's where it reads the discovered inputs first (as here); an element
    no discovered one types still falls back."""
    from fmtcheck.engine import verdict
    from fmtcheck.engine.fastpath import Fallback, InOrderDefaults
    from fmtcheck.engine.inputs import VectorInputs

    monkeypatch.setattr(verdict, "MAX_INPUT_KEYS", 6)
    runner = runner_of(*pair)
    assert runner.prove()[0] is False
    discovery = VectorInputs()
    runner.run_case(discovery)
    runner.kinds = dict(discovery.kinds)
    runner.enable_fast_path()
    assert runner.fast is not None
    runner.try_case(VectorInputs({key: 9 for key in counts[0]}), "sweep")  # learns up to the limit
    assert len(runner.kinds) == 6
    for vector in counts:
        env = verdict.default_env(runner)
        assert type(env) is InOrderDefaults
        env.update(vector)
        slow = runner.run_slow(VectorInputs(dict(vector)))
        rendered = [renderer.render(env)[0] for renderer in runner.fast]
        assert rendered == [slow.old.data, slow.new.data], vector
    env = InOrderDefaults(verdict.default_env(runner), {}, 6)  # no discovered element types them
    env.update(counts[-1])
    with pytest.raises(Fallback):
        runner.fast[0].render(env)
