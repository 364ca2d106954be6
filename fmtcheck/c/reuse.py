"""Printing statements compiled once for every rule-6 judgement of a side.

Rule 6 (`fmtcheck.engine.assumed`) judges a pair again with its operands of undeclared type in
each other integer type, and each judgement compiles both sides: for a 256-field line that is
most of the verdict. The only input of a compile that differs between those judgements is the
type `InputSpace.operand_type` gives an undeclared operand, so a statement whose compile asked
it nothing compiles to the same closure in every judgement, and the closure kept from the first
one serves the others, when nothing it reads at compile time can differ either:

- it is a call of a kernel primitive (`seq_printf(m, ...)`) whose other names are all locals
  or parameters (their types are part of what must be equal: `scope`), with no other call (a
  helper's compiled body is per judgement), no statement inside and no choice of format;
- the space's answers it depended on are replayed (`InputSpace.journal`), so the space of a
  later judgement records what it would have recorded;
- no constant folded for a type or an enumerator (array sizes, `Program._const_int`) asked the
  assumed type anywhere in the side: such a fold is kept in the Program's tables and read by
  statements that never ask the type themselves. When that happens the side stops reusing,
  and a judgement that was already served kept closures is compiled again without them
  (`spoiled`).

The Program itself is the same object in every judgement (`Program.judge_in`), so what a kept
closure reaches through it at run time (the types noted per input read, a global's value) is
the current judgement's, never the first one's.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

from fmtcheck.c import cfront
from fmtcheck.kernel.primitives import PRIMITIVES

# named node kinds a kept statement may hold besides identifiers of its scope and its one call
_PLAIN = frozenset({
    "expression_statement", "call_expression", "argument_list", "identifier", "field_identifier",
    "field_expression", "subscript_expression", "pointer_expression", "number_literal",
    "string_literal", "string_content", "escape_sequence", "concatenated_string", "char_literal",
    "character", "binary_expression", "unary_expression", "parenthesized_expression",
    "cast_expression", "type_descriptor", "primitive_type", "sized_type_specifier",
    "type_identifier", "abstract_pointer_declarator", "true", "false", "null", "comment",
})


class StatementReuse:
    """The closures of one side's printing statements, kept across the judgements of a pair."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[Any, dict, Callable, list]] = {}  # node id -> (node, scope, closure, journal)
        self.judgement = 0  # bumped by Program.judge_in
        self.served = 0  # kept closures used in the current judgement
        self.unsafe = False  # a fold of the side asked the assumed type (see the module's docstring)

    def begin(self) -> None:
        self.judgement += 1
        self.served = 0

    @property
    def spoiled(self) -> bool:
        """Whether this judgement used kept closures before the side was found unsafe to reuse."""
        return self.unsafe and self.served > 0

    def statement(self, prog, node, scope: dict, compile_it: Callable[[], Any]) -> Any:
        """The closure of statement NODE: one kept from an earlier judgement when it serves, else
        COMPILE_IT's, kept when it may serve later ones."""
        if self.unsafe or prog.expr_overrides:
            return compile_it()
        hit = self.kept.get(node.id)
        if hit is not None and hit[0] == node and hit[1] == scope:
            self.served += 1
            prog.space.replay(hit[3])
            return hit[2]
        with journal(prog.space) as entries:
            closure = compile_it()
        if (closure is not None and not any(kind == "assumed" for kind, _ in entries)
                and _plain_primitive_call(prog, node, scope)):
            self.kept[node.id] = (node, dict(scope), closure, list(entries))
        return closure

    @contextmanager
    def folding(self, space) -> Iterator[None]:
        """Around a fold whose value the Program keeps: one that asked the assumed type makes
        the side unsafe to reuse."""
        with journal(space) as entries:
            try:
                yield
            finally:  # a fold that fails (an Inconclusive) may have asked before it failed
                if any(kind == "assumed" for kind, _ in entries):
                    self.unsafe = True


@contextmanager
def journal(space) -> Iterator[list]:
    """What SPACE records while the block compiles, also passed on to an enclosing journal."""
    outer = space.journal
    entries: list = []
    space.journal = entries
    try:
        yield entries
    finally:
        space.journal = outer
        if outer is not None:
            outer.extend(entries)


def _plain_primitive_call(prog, node, scope: dict) -> bool:
    """NODE is `primitive(args);` of a primitive the unit does not define, whose names are all
    in SCOPE, with no other call, no statement inside and no format chosen by a condition."""
    if node.type != "expression_statement" or len(node.named_children) != 1:
        return False
    call = node.named_children[0]
    fn = call.child_by_field_name("function") if call.type == "call_expression" else None
    if fn is None or fn.type != "identifier":
        return False
    name = fn.text.decode("latin-1")
    if name not in PRIMITIVES or name in prog.unit.functions:
        return False
    for n in cfront.walk(call):
        if not n.is_named:
            continue
        if n.type not in _PLAIN or (n.type == "call_expression" and n != call):
            return False
        if n.type == "identifier" and n != fn and n.text.decode("latin-1") not in scope:
            return False
    return True
