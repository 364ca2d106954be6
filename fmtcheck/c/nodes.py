"""Small questions asked of tree-sitter nodes (names, callees, snippets) and declaration closures.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import cfront
from fmtcheck.c.types import BASE_TYPES
from fmtcheck.c.values import Frame
from fmtcheck.kernel.primitives import PRIMITIVES


def typedef_cast(fnode) -> tuple | None:
    """`(u64)(x)` parses as a call of `(u64)`: with a known type name inside, it is a cast."""
    if fnode.type != "parenthesized_expression" or len(fnode.named_children) != 1:
        return None
    inner = fnode.named_children[0]
    if inner.type == "identifier":
        return BASE_TYPES.get(inner.text.decode("latin-1"))
    return None


def seq_file_names(unit: cfront.Unit) -> set[str]:
    """Identifiers passed as the seq_file to a primitive: in a fragment they are not declared."""
    names: set[str] = set()
    for fn in unit.functions.values():
        for node in unit.nodes_of(fn, ("call_expression",)):
            if callee(node) in PRIMITIVES:
                args = node.child_by_field_name("arguments").named_children
                if args and args[0].type == "identifier":
                    names.add(args[0].text.decode("latin-1"))
    return names


def declare(name: str, make: Callable[[Frame], Any]) -> Callable[[Frame], None]:
    def declare(f: Frame) -> None:
        f.vars[name] = make(f)

    return declare


def declarator_name(d) -> str | None:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        d = d.child_by_field_name("declarator")
    return d.text.decode("latin-1") if d is not None else None


def object_is_const(decl, declarator) -> bool:
    """Whether the declared object itself is const (`const int x`, `const struct s t[]`,
    `char *const p`), not only what it points to (`const char *names[]`)."""
    d = declarator
    while d is not None and d.type == "array_declarator":
        d = d.child_by_field_name("declarator")
    holder = d if d is not None and d.type == "pointer_declarator" else decl
    return any(c.type == "type_qualifier" and c.text == b"const" for c in holder.children)


def callee(call) -> str | None:
    fnode = call.child_by_field_name("function")
    return fnode.text.decode("latin-1") if fnode is not None and fnode.type == "identifier" else None


def snip(node) -> str:
    return node.text[:40].decode("latin-1", "replace").replace("\n", " ")
