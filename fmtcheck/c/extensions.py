"""The argument of a %p extension the model prints as an opaque event (`%pa`, `%pM`, `%pUb`,
`%pI4`...): the kernel reads the object it points to at the moment of the call, so an object the
code holds is named by what it holds then (see `fmtcheck.c.outputs.opaque_pointer_key`).
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c.nodes import unparenthesized
from fmtcheck.c.values import Frame, ScalarRef


def local_scalar_address(prog, node, scope: dict) -> Callable[[Frame], Any] | None:
    """`&end` of a local integer (`%pa` of a `phys_addr_t` the code computed): the value the
    local holds when the extension reads it, with its declared type (a `u32` and a `u64` of the
    same value are different bytes). None for any other operand. The local's address itself is
    never known (plain %p of it stays inconclusive): only an extension, which prints the object,
    takes this."""
    node = unparenthesized(node)
    if node.type != "pointer_expression" or node.child_by_field_name("operator").text != b"&":
        return None
    arg = unparenthesized(node.child_by_field_name("argument"))
    if arg.type != "identifier":
        return None
    name = arg.text.decode("latin-1")
    t = scope.get(name)
    if t is None or t[0] != "int":
        return None
    fn = prog.expr(arg, scope).fn

    def snapshot(f: Frame) -> ScalarRef:
        return ScalarRef(fn(f), t)

    return snapshot
