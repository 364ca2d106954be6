"""The argument of a %p extension the model prints as an opaque event (`%pa`, `%pM`, `%pUb`,
`%pI4`...): the kernel reads the object it points to at the moment of the call, so an object the
code holds is named by what it holds then (see `fmtcheck.c.outputs.opaque_pointer_key`).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from fmtcheck.c.nodes import unparenthesized
from fmtcheck.c.values import Frame, ScalarRef
from fmtcheck.kernel import vsprintf


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


def token_lengths(key: str) -> tuple[str, Callable[[int], int], range] | None:
    """An opaque %p event's key (`opaque_pointer_key`: `%-39pI6c(<argument>)`, `%*pM[20](...)`)
    read back as (what it prints: the extension and its argument, the same text on both sides
    when equal; the bytes it takes as a function of that text's length; every length the text
    can have), for an extension whose text the kernel bounds (`vsprintf.extension_text_lengths`).
    None for any other key, or a width or precision the key does not give as a number."""
    m = re.match(r"%[^p]*p([A-Za-z0-9]*)", key)
    if m is None:
        return None
    items = vsprintf.parse_format(m.group(0).encode("latin-1"))
    texts = vsprintf.extension_text_lengths(m.group(1).encode("latin-1"))
    if len(items) != 1 or not isinstance(items[0], vsprintf.Directive) or texts is None:
        return None
    d, rest = items[0], key[m.end():]
    stars: list[int] = []
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0 or not all(re.fullmatch(r"-?\d+", s) for s in rest[1:close].split(",")):
            return None
        stars, rest = [int(s) for s in rest[1:close].split(",")], rest[close + 1:]
    if not (rest.startswith("(") and rest.endswith(")")) or len(stars) != int(d.width_star) + int(d.precision_star):
        return None
    width = stars[0] if d.width_star else d.width
    precision = stars[-1] if d.precision_star else d.precision
    if (width is not None and abs(width) > vsprintf.MAX_FIELD) or (precision is not None and precision < 0):
        return None  # a clamped width, a negative precision: not read here
    return m.group(1) + rest, lambda n: vsprintf.padded_length(n, width, precision), texts
