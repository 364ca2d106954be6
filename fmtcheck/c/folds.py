"""A value a loop over an input accumulates (`sum += x[i]`, `any |= f(cpu)`), named by what it is a
function of, for the proof.

A loop traced by induction (`fmtcheck.c.rows.symbolic_loop`) runs its body once on a placeholder
iteration. A variable the body changes used to be unreadable after the loop (its value is the last
iteration's). When exactly one integer variable changes, its value after the loop is a function of
three things only: the loop (its count and its iterations' inputs, which the loop's key names),
the variable's value before the loop, and the step, what one iteration makes of the previous value
(the body run once more with the previous value as a symbol of the variable's declared type). Two
sides whose loops, starting values and steps are equal trees compute equal values, whatever the
count: so the value after the loop is an input named by those three (an uninterpreted fold), the
same symbol on both sides exactly when the computations are the same. Nothing is assumed about the
value; a side that folds differently (another step, another start, another type) gets another
symbol and the proof fails, and the engine tests instead.

The body may not print or branch away on the previous value (it then depends on the iteration
before: not an induction), and no other variable may change.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import symbolic
from fmtcheck.c.symbolic import Sym
from fmtcheck.c.values import Frame, short_digest
from fmtcheck.common.lazyre import lazy_compile

_PLACEHOLDER = lazy_compile(r"#(\d+)")
FOLD = "fold="  # engine/fastpath.py refuses traces that hold one (it is no input of a concrete run)


def previous_value(depth: int) -> str:
    """The name of the previous iteration's value in the step (a per-iteration key: `#...`)."""
    return f"#prev{depth}"


def fold(f: Frame, name: str, before: Any, declared: tuple | None, loop_key: str, again: Callable[[], list],
         others: Callable[[], list[str]]) -> bool:
    """Sets NAME to the fold of the loop (see the module), after running the body once more
    (`again`, which returns what that iteration printed) with NAME the previous value; False
    when the fold cannot be named soundly (the caller then makes NAME unreadable, as before).
    `others()` names the variables the second run changed besides NAME."""
    depth = f.ctx.loop_depth
    if declared is None or declared[0] != "int" or not _plain(before) or _mentions_iteration(before):
        return False
    prev = previous_value(depth)
    f.vars[name] = Sym.input(prev, declared[1], declared[2])
    printed = again()
    step = f.vars.get(name)
    if _prints_with(printed, repr(prev)) or others() or not _plain(step):
        return False
    step_tree = _tree(step)
    if any(int(d) < depth for d in _PLACEHOLDER.findall(repr(step_tree))):
        return False  # a step over an outer loop's iteration
    what = repr((loop_key, _tree(before), step_tree, declared[1], declared[2]))
    digest = short_digest(what.encode("utf-8", "surrogateescape"))
    f.vars[name] = Sym.input(f"{FOLD}{digest}", declared[1], declared[2])
    return True


def _prints_with(items: list, prev: str) -> bool:
    """Whether what an iteration printed depends on the previous value (a row on it whose arms
    print nothing, as `if (x > max) max = x;` leaves, prints nothing either way)."""
    for item in items:
        if isinstance(item, tuple) and item and item[0] == "if" and not item[2] and not item[3]:
            continue
        if prev in repr(item):
            return True
    return False


def _plain(value: Any) -> bool:
    return type(value) is int or (isinstance(value, Sym) and not isinstance(value, symbolic.Poison))


def _tree(value: Any) -> tuple:
    return value.tree if isinstance(value, Sym) else ("k", value)


def _mentions_iteration(value: Any) -> bool:
    return isinstance(value, Sym) and "#" in repr(value.tree)
