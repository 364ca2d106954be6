"""Branches and loops on inputs in proof mode, traced as rows and loop items.

An `if` whose condition depends on an input runs both arms from the same state, each printing
into its own list (`TraceOutput.begin_arm`), and leaves one ``("if", cond, then, else)`` item; a
`for_each_*` loop whose count is an input runs its body once, on a placeholder iteration, and
leaves one ``("loop", key, body)`` item. `fmtcheck.engine.paths` compares such traces. What cannot
be kept as a row (an arm that returns, jumps or stores into memory) raises `Unstructured`, and the
engine runs the side once per way of that branch instead.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import symbolic
from fmtcheck.c.arith import branch
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.values import CONTINUE, Frame, Free
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
        elif (type(x) is int or isinstance(x, Sym)) and (type(y) is int or isinstance(y, Sym)):
            merged[name] = symbolic.choose(c, x, y)
        else:
            raise symbolic.Unstructured(site, f"a branch on an input at {where} leaves {name} different")
    return merged


def symbolic_loop(f: Frame, loop_key: str, body: Callable, setter, iterator: str | None,
                   per_cpu: bool, step: Callable) -> Any:
    """A loop whose count is an input, traced once for a placeholder iteration: the trace is the
    proof's induction step. Variables the body assigns (an inner loop's iterator, a temporary
    declared before the loop) are unreadable in a second run of the body, which shows that no
    iteration reads what the one before left; after the loop they stay unreadable."""
    ctx = f.ctx
    if getattr(ctx.out, "begin_arm", None) is None:
        raise NotProvable(f"the number of iterations of {loop_key} is an input")
    before = dict(f.vars)
    items = _one_iteration(f, loop_key, body, setter, per_cpu, step)
    changed = [name for name, value in before.items()
               if name != iterator and not symbolic.same_value(value, f.vars.get(name))]
    if changed:
        for name in changed:
            f.vars[name] = symbolic.Poison()
        _one_iteration(f, loop_key, body, setter, per_cpu, step)
        for name in changed:
            f.vars[name] = symbolic.Poison()
    if iterator is not None:
        f.vars[iterator] = symbolic.Poison()
    ctx.out.add_item(("loop", loop_key, tuple(items)))
    return None


def _one_iteration(f: Frame, loop_key: str, body: Callable, setter, per_cpu: bool, step: Callable) -> list:
    ctx = f.ctx
    writes = ctx.writes
    placeholder = symbolic.loop_placeholder(ctx.loop_depth)
    saved = ctx.out.begin_arm()
    ctx.loop_depth += 1
    step(f)
    if setter is not None:
        setter(f, Sym.input(placeholder, 32, True) if per_cpu else Free(f"{loop_key}[{placeholder}]"))
    signal = body(f)
    ctx.loop_depth -= 1
    items = ctx.out.end_arm(saved)
    if signal is not None and signal is not CONTINUE:
        raise NotProvable(f"the body of {loop_key} leaves the loop early")
    if ctx.writes != writes:
        raise NotProvable(f"the body of {loop_key} stores into memory")
    return items
