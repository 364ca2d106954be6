"""Operands whose type the input does not declare: a verdict must hold for every type they may have.

`bdev_nr_sectors(part) >> 1` with no declaration of `bdev_nr_sectors` in what fmtcheck was given
is computed in an assumed type (`InputSpace.operand_type`: u64). If the call returns a `long long`,
`-1 >> 1` is -1 and `%llu` of it prints 18446744073709551615 where `%lld` prints -1, so a
verdict reached under u64 alone is not one for the code. When the compiled sides assumed a type
for an operand, the pair is judged again with every such operand taken in each other integer
type C computes in (the narrower ones promote to int, whose values include theirs), at the width
a printf conversion demands of it (`InputSpace.printed_width`). "equivalent" stands only when
every type gives it; otherwise the result is inconclusive and names the operand, its line and
the types that disagree. All the assumed operands take one type at a time. A divergence found
with them as u64 stands: it is realizable by code that declares them so (the counterexample's
inputs are that type's values), and the type is one the code does not rule out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace
from fmtcheck.c.nodes import declarator_name
from fmtcheck.c.types import S32, S64, U32, U64
from fmtcheck.common.result import Result
from fmtcheck.engine.compare import display_key
from fmtcheck.engine.sharing import kernel_state

if TYPE_CHECKING:
    from fmtcheck.engine.verdict import Runner

# the types an undeclared operand is judged in, after the u64 of the first judgement
OTHER_TYPES = (S64, U32, S32)


def type_name(t: tuple) -> str:
    return f"{'s' if t[2] else 'u'}{t[1]}"


def judged_in_every_type(first: Result, space: InputSpace, judge_as: Callable[[tuple], tuple[Result, InputSpace]]
                         ) -> Result:
    """FIRST was judged with SPACE's operands of undeclared type in u64; `judge_as(T)` judges the
    pair again with them in T. An equivalence every type gives, or inconclusive naming the first
    operand whose type was assumed."""
    if not space.assumed or first.verdict != "equivalent":
        return first
    judged = {space.assumed_types(U64)}
    for t in OTHER_TYPES:
        if space.assumed_types(t) in judged:
            continue  # the width their printing demands makes this type one already judged
        judged.add(space.assumed_types(t))
        other, _ = judge_as(t)
        if other.verdict != first.verdict:
            text, where = _changed_operand(space, t)
            what = other.verdict + (f" ({other.reason})" if other.verdict == "inconclusive" and other.reason else "")
            reason = (f"{where}: the type of {text} is not declared in the input, and the verdict depends on it: "
                      f"{first.verdict} when it is {type_name(space.assumed_as(text, U64))}, {what} when it "
                      f"is {type_name(space.assumed_as(text, t))} "
                      f"(declare it, or give --tree DIR, to decide)")
            return Result(first.subject, "inconclusive", cases=first.cases + other.cases, reason=reason,
                          notes=first.notes, extra={**first.extra, "decided_by": "construct"})
        first.cases += other.cases
    return first


def _changed_operand(space: InputSpace, t: tuple) -> tuple[str, str]:
    """The first undeclared operand (text, where) whose type differs between the u64 judgement and
    the one in T: the reason names a type change that happened (an operand whose printing demands
    64 bits is u64 in both, and naming it would say "u64 ... when it is u64")."""
    for text, where in space.assumed.items():
        if space.assumed_as(text, U64) != space.assumed_as(text, t):
            return text, where
    return next(iter(space.assumed.items()))


def declared_names(unit: cfront.Unit) -> set[str]:
    """The file-scope variables, parameters and locals the unit declares (a local `int i` printed
    with `%d` here and a 64-bit primitive there has the type it is declared with)."""
    names: set[str] = set()
    for node in unit.tree.root_node.named_children:
        if node.type == "declaration":  # file scope: `static const int foo_level = 3;`
            for d in node.children_by_field_name("declarator"):
                name = declarator_name(d)
                if name:
                    names.add(name)
    for fn in unit.functions.values():
        for node in unit.nodes_of(fn, ("declaration", "parameter_declaration")):
            for d in node.children_by_field_name("declarator"):
                name = declarator_name(d)
                if name:
                    names.add(name)
    return names


def undeclared_width(runner: "Runner", every_path: bool = False) -> str | None:
    """Why equivalence is not established for every type an undeclared input may have. The
    inputs the cases read name the conflicts; after a proof, which covered paths no case ran
    (`if (c->mod == 0 && ...)` false on the one case replayed), so does every path the code
    prints at two widths (EVERY_PATH)."""
    space = runner.old.program.space
    params = {p for p, _ in runner.old.params} | {p for p, _ in runner.new.params}
    params |= kernel_state(runner)  # declared at file scope
    keys = [(key, display_key(key, runner.aliases)) for key in runner.kinds]
    declared_here = declared_names(runner.old.program.unit) | declared_names(runner.new.program.unit)
    if every_path:
        declared = declared_here
        keys += [(text, text) for text in list(space.width_conflicts) + list(space.signs_used) if text not in declared]
    for key, shown in keys:
        # the hints are keyed by the text the code wrote (`f->bar`), the inputs by what they
        # denote (`v->bar` for `struct foo *f = v;`): either may name the conflict
        conflict = None if key in params else space.undeclared_conflict(key, shown)
        signs = None if key in params or key in declared_here else space.undeclared_sign(key, shown)
        if conflict is None and signs is not None:
            return (f"{signs}: the type of {shown} is not declared in the input; it is printed as signed "
                    "on one side and unsigned on the other, and the cases tried do not show every value "
                    "of a type it may have (declare it to decide)")
        if conflict is None:
            continue
        narrow, wide, where = conflict
        return (f"{where}: the type of {shown} is not declared in the input; it is printed as a "
                f"{narrow[1]}-bit value on one side and a {wide[1]}-bit one on the other, so the "
                f"sides agree only if it fits in {narrow[1]} bits (declare it to decide)")
    return None
