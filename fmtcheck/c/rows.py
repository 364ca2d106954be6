"""Branches and loops on inputs in proof mode, traced as rows and loop items.

An `if` whose condition depends on an input runs both arms from the same state, each printing
into its own list (`TraceOutput.begin_arm`), and leaves one ``("if", cond, then, else)`` item; a
`for_each_*` loop whose count is an input runs its body once, on a placeholder iteration, and
leaves one ``("loop", key, body)`` item. `fmtcheck.engine.paths` compares such traces. What cannot
be kept as a row (an arm that returns, jumps or stores into memory) raises `Unstructured`, and the
engine runs the side once per way of that branch instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from fmtcheck.c import folds, symbolic
from fmtcheck.c.arith import as_int, branch
from fmtcheck.c.types import conv, usual
from fmtcheck.common.errors import LimitExceeded
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.values import BREAK, CONTINUE, Frame, Free
def row(f: Frame, c: Sym, then: Callable, alt: Callable | None, site: tuple, where: str) -> Any:
    """An `if` on an input traced as one row: both arms run from the same state, each printing
    into its own list; the variables they assign differently hold a choice afterwards. An arm that
    returns, jumps or stores into memory cannot be a row: the side is then run once per way."""
    ctx = f.ctx
    begin = getattr(ctx.out, "begin_arm", None)
    if begin is None or site in getattr(ctx.inputs, "fork_sites", ()):
        return then(f) if branch(c, f) else (alt(f) if alt is not None else None)
    before = f.vars
    writes = ctx.writes
    arms = []
    for arm in (then, alt):
        f.vars = dict(before)
        saved = begin()
        signal = arm(f) if arm is not None else None
        items = ctx.out.end_arm(saved)
        if signal is not None or ctx.writes != writes:
            raise symbolic.Unstructured(site, f"a branch on an input at {where} returns, jumps or stores")
        arms.append((items, f.vars))
    f.vars = merge(before, arms[0][1], arms[1][1], c, site, where)
    ctx.out.add_item(("if", c.tree, tuple(arms[0][0]), tuple(arms[1][0])))
    return None


def merge(before: dict, a: dict, b: dict, c: Sym, site: tuple, where: str) -> dict:
    merged = {}
    for name in before:
        x, y = a.get(name), b.get(name)
        if symbolic.same_value(x, y):
            merged[name] = x
        elif isinstance(x, symbolic.Poison) or isinstance(y, symbolic.Poison):
            merged[name] = symbolic.Poison()  # a loop's leftover on one way: unreadable after either
        elif (type(x) is int or isinstance(x, Sym)) and (type(y) is int or isinstance(y, Sym)):
            merged[name] = symbolic.choose(c, x, y)
        else:
            raise symbolic.Unstructured(site, f"a branch on an input at {where} leaves {name} different")
    return merged


BREAK_MARK = ("break",)  # in a loop body's trace: the loop ends after what this iteration printed so far


def ends_early(items) -> bool:
    """Whether a loop body's trace holds its own loop's BREAK_MARK (an inner loop's ends that loop)."""
    for item in items:
        if item == BREAK_MARK:
            return True
        if isinstance(item, tuple) and item and item[0] == "if" and (ends_early(item[2]) or ends_early(item[3])):
            return True
    return False


def break_row(f: Frame, c: Sym, token: object, rest: Callable, site: tuple, where: str) -> Any:
    """`if (c) break; REST` among a loop body's own statements, c on an input, in proof mode.
    In the body of the loop the proof traces by induction (`ctx.traced_loop`) it is a row: the
    iteration prints BREAK_MARK (the loop ends there) when c holds and REST when not, so two
    bodies that print equal items, marks included, for the same iteration end their loops after
    the same bytes. In a loop run as C (a counted loop over constants) the side is traced again
    with that loop by induction (its token among the fork sites: `counted_loop`); where that is
    not its shape, the branch is followed both ways, as any branch that jumps."""
    ctx = f.ctx
    if ctx.traced_loop is token:
        return row(f, c, _mark_break, rest, site, where)
    sites = getattr(ctx.inputs, "fork_sites", None)
    if getattr(ctx.out, "begin_arm", None) is not None and sites is not None and token not in sites:
        raise symbolic.Unstructured(token, f"a loop that ends early on an input at {where}")
    return row(f, c, _signal_break, rest, site, where)


def _mark_break(f: Frame) -> None:
    f.ctx.out.add_item(BREAK_MARK)


def _signal_break(f: Frame) -> Any:
    return BREAK


def symbolic_loop(f: Frame, loop_key: str, body: Callable, setter, iterator: str | None,
                   per_cpu: bool, step: Callable, invariant: Callable | None = None,
                   count: tuple | None = None, types: dict | None = None) -> Any:
    """A loop whose count is an input, traced once for a placeholder iteration: the trace is the
    proof's induction step. Variables the body assigns (an inner loop's iterator, a temporary
    declared before the loop) are unreadable in a second run of the body, which shows that no
    iteration reads what the one before left; after the loop they stay unreadable. One integer
    variable the body accumulates (TYPES: the declared types of the variables) holds the loop's
    fold after it (`fmtcheck.c.folds`)."""
    ctx = f.ctx
    if getattr(ctx.out, "begin_arm", None) is None:
        raise NotProvable(f"the number of iterations of {loop_key} is an input")
    before = dict(f.vars)
    items = _one_iteration(f, loop_key, body, setter, per_cpu, step)
    if invariant is not None:
        invariant(f)
    changed = [name for name, value in before.items()
               if name != iterator and not symbolic.same_value(value, f.vars.get(name))]
    def again() -> list:
        printed = _one_iteration(f, loop_key, body, setter, per_cpu, step)
        if invariant is not None:
            invariant(f)
        return printed

    if len(changed) == 1 and types is not None and not ends_early(items) and folds.fold(
            f, changed[0], before[changed[0]], types.get(changed[0]), loop_key, again,
            lambda: [other for other, value in before.items() if other not in (changed[0], iterator)
                     and not symbolic.same_value(value, f.vars.get(other))]):
        pass  # the one variable the body accumulates holds the loop's fold
    elif changed:
        for name in changed:
            f.vars[name] = symbolic.Poison()
        again()
        for name in changed:
            f.vars[name] = symbolic.Poison()
    if iterator is not None:
        f.vars[iterator] = symbolic.Poison()
    ctx.out.add_item(("loop", loop_key, tuple(items)) + ((count,) if count is not None else ()))
    return None


def _one_iteration(f: Frame, loop_key: str, body: Callable, setter, per_cpu: bool, step: Callable) -> list:
    ctx = f.ctx
    writes = ctx.writes
    placeholder = symbolic.loop_placeholder(ctx.loop_depth)
    saved = ctx.out.begin_arm()
    ctx.loop_depth += 1
    outer, ctx.traced_loop = ctx.traced_loop, getattr(body, "loop_token", None)
    step(f)
    if setter is not None:
        setter(f, Sym.input(placeholder, 32, True) if per_cpu else Free(f"{loop_key}[{placeholder}]"))
    signal = body(f)
    ctx.loop_depth -= 1
    ctx.traced_loop = outer
    items = ctx.out.end_arm(saved)
    if signal is not None and signal is not CONTINUE:
        raise NotProvable(f"the body of {loop_key} leaves the loop early")
    if ctx.writes != writes:
        raise NotProvable(f"the body of {loop_key} stores into memory")
    return items


ORDINARY = object()  # counted_loop / chain_loop: not a loop over an input here, run it as C does


def guarded_loop(f: Frame, counter: str, counter_type: tuple, bound, guard: Callable, body: Callable,
                 step: Callable, types: dict | None = None) -> Any:
    """`for (i = A; G && i < E; i++)` by induction (`loopshapes.guarded`): the counted loop up to
    (G ? E : A), A a small constant, so that its count is E - A when G holds and 0 when not; the
    check that the body leaves the bound unchanged re-reads G too."""
    start = f.vars.get(counter)
    if type(start) is not int or not 0 <= start < 128:
        return ORDINARY

    def value(f: Frame) -> Any:
        held = guard(f)
        limit = as_int(bound.fn(f), f, bound.type, bound.text)
        if isinstance(held, Sym):
            return symbolic.choose(held, limit, start)
        return limit if held else start

    return counted_loop(f, counter, counter_type, dataclasses.replace(bound, fn=value), body, step, False, types)


def counted_loop(f: Frame, counter: str, counter_type: tuple, bound, body: Callable, step: Callable,
                 inclusive: bool = False, types: dict | None = None) -> Any:
    """`for (i = A; i < E; i++)` (or `i <= E`) with A or E an input, traced by induction: the
    count follows from A, E, the comparison and the types (the loop is named by all of them, so
    that two loops align only when they iterate equally often for every input), iteration k has
    i = the placeholder (a value of the counter's type the proof knows nothing more of: what holds
    for every value holds for A + k), and the elements it reads are indexed by it (`s->v[#0]`).
    The body may not assign the counter nor change what E reads (checked after each traced
    iteration)."""
    start = f.vars.get(counter)
    if not (type(start) is int or (isinstance(start, Sym) and not isinstance(start, symbolic.Poison))):
        return ORDINARY
    limit = as_int(bound.fn(f), f, bound.type, bound.text)
    if not isinstance(limit, Sym) and not isinstance(start, Sym) and not _ends_early_on_inputs(f, body):
        return ORDINARY
    constant = None if isinstance(limit, Sym) else limit
    if not isinstance(limit, Sym):
        limit = Sym(("k", limit), bound.type[1], bound.type[2])
    compared = usual(counter_type, ("int", limit.bits, limit.signed))
    # the counter's name is not part of the key: renaming it changes nothing the loop prints
    loop_key = _counted_key(start, limit, inclusive, counter_type, compared)
    if f.ctx.inputs.loop_count(loop_key) is not symbolic.SYMBOLIC_LOOP:
        raise NotProvable(f"the number of iterations of {loop_key} is an input")

    def set_counter(f: Frame, placeholder: Sym) -> None:
        f.vars[counter] = Sym.input(placeholder.tree[1], counter_type[1], counter_type[2])

    def unchanged(f: Frame) -> None:
        value = f.vars.get(counter)
        if not (isinstance(value, Sym) and value.tree[0] == "in" and value.tree[1].startswith("#")):
            raise NotProvable(f"the body of {loop_key} assigns its counter {counter}")
        if not symbolic.same_value(as_int(bound.fn(f), f, bound.type, bound.text),
                                   limit if constant is None else constant):
            raise NotProvable(f"the body of {loop_key} changes its bound")

    count = (limit.tree, ("int", limit.bits, limit.signed), counter_type, compared)
    if not (type(start) is int and start == 0 and not inclusive):
        # the start and the operator too: the fast path renders only `for (i = 0; i < E; i++)`
        count += (start.tree if isinstance(start, Sym) else ("k", start), inclusive)
    return symbolic_loop(f, loop_key, body, set_counter, counter, True, step, unchanged, count, types)


def _ends_early_on_inputs(f: Frame, body: Callable) -> bool:
    """A loop over constants whose body met `if (c) break;` on an input (`break_row`): traced by
    induction, with its constant count, instead of once per iteration, each a branch."""
    token = getattr(body, "loop_token", None)
    return token is not None and token in getattr(f.ctx.inputs, "fork_sites", ())


def _counted_key(start: Any, limit: Sym, inclusive: bool, counter_type: tuple, compared: tuple) -> str:
    """A counted loop's name: what its count is a function of. `for (i = 0; i < E; i++)` keeps
    the short name it always had; another start or `<=` adds the start's tree and the operator."""
    types = f"{type_name(counter_type)},{type_name(compared)}"
    if type(start) is int and start == 0 and not inclusive:
        return f"for(< {symbolic.render_tree(limit.tree)})[{types},{limit.tree!r}]"
    first = start.tree if isinstance(start, Sym) else ("k", start)
    op = "<=" if inclusive else "<"
    return (f"for({symbolic.render_tree(first)} {op} {symbolic.render_tree(limit.tree)})"
            f"[{types},{first!r},{limit.tree!r}]")


def chain_loop(f: Frame, cursor: str, member: str, body: Callable, step: Callable,
               types: dict | None = None) -> Any:
    """`for (p = X; p; p = p->next)` over the caller's data, traced by induction: the count is the
    chain's length (an input of its own), iteration k has p = the k-th node (`chain(X->next)[#0]`),
    whose members are its inputs. The body may not assign the cursor."""
    head = f.vars.get(cursor)
    if not isinstance(head, Free):
        return ORDINARY
    loop_key = f"chain({head.key}->{member})"
    if f.ctx.inputs.loop_count(loop_key) is not symbolic.SYMBOLIC_LOOP:
        raise NotProvable(f"the number of iterations of {loop_key} is an input")
    expected = f"{loop_key}[{symbolic.loop_placeholder(f.ctx.loop_depth)}]"

    def set_cursor(f: Frame, node: Free) -> None:
        f.vars[cursor] = node

    def unchanged(f: Frame) -> None:
        value = f.vars.get(cursor)
        if not (isinstance(value, Free) and value.key == expected):
            raise NotProvable(f"the body of {loop_key} assigns its cursor {cursor}")

    return symbolic_loop(f, loop_key, body, set_cursor, cursor, False, step, unchanged, ("chain", head.key, member),
                         types)


def type_name(t: tuple) -> str:
    return f"{'s' if t[2] else 'u'}{t[1]}"


class StepsForeseen(LimitExceeded):
    """A test case ended before its loop ran: the count is past the steps left (see below)."""


def past_the_step_bound(f: Frame, counter: str, counter_type: tuple, bound, where: str) -> None:
    """Testing a counted loop whose body runs every iteration (`loopshapes.runs_to_its_bound`)
    over a bound that only the caller's data sets: each iteration costs a step, so a count past
    the steps left (or one the counter never reaches) ends the case at once, at the step bound
    the run would reach, instead of after a run of 200,000 steps."""
    if type(f.vars.get(counter)) is not int or f.vars[counter] != 0:
        return
    limit = as_int(bound.fn(f), f, bound.type, bound.text)
    if type(limit) is not int:
        return
    compared = usual(counter_type, bound.type)
    n = conv(limit, compared)
    counter_max = (1 << (counter_type[1] - 1)) - 1 if counter_type[2] else (1 << counter_type[1]) - 1
    if n > f.ctx.limit - f.ctx.steps or n - 1 > counter_max:
        raise StepsForeseen(where, f"step limit reached ({f.ctx.limit} steps)")
