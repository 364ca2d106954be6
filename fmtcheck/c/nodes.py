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


def static_state_key(decl, declarator) -> str | None:
    """For a `static` local whose value the function changes (it assigns it, increments it or
    takes its address; `static int prec;` in show_interrupts, set when the first row prints):
    the name of its value at entry, the state earlier calls left, an input shared by both sides.
    It is named by the function and its place among the function's static locals, not by its
    name (a renamed local is the same state). None for any other declaration: an automatic or
    const object, or a static the function only reads, which holds its initializer."""
    if not any(c.type == "storage_class_specifier" and c.text == b"static" for c in decl.children):
        return None
    name = declarator_name(declarator)
    if name is None or object_is_const(decl, declarator) or declarator.type == "array_declarator":
        return None
    function = decl.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None or not _changed_in(function, name):
        return None
    statics = [declarator_name(d) for n in cfront.walk(function) if n.type == "declaration"
               and any(c.type == "storage_class_specifier" and c.text == b"static" for c in n.children)
               for d in n.children_by_field_name("declarator")]
    fname = declarator_name(function.child_by_field_name("declarator"))
    return f"{fname}:static{statics.index(name)}" if name in statics else None


def _changed_in(function, name: str) -> bool:
    for n in cfront.walk(function):
        target = (n.child_by_field_name("left") if n.type == "assignment_expression"
                  else n.child_by_field_name("argument") if n.type == "update_expression"
                  or (n.type == "pointer_expression" and n.child_by_field_name("operator").type == "&") else None)
        if target is not None and target.type == "identifier" and target.text.decode("latin-1") == name:
            return True
    return False


def callee(call) -> str | None:
    fnode = call.child_by_field_name("function")
    return fnode.text.decode("latin-1") if fnode is not None and fnode.type == "identifier" else None


def snip(node) -> str:
    return node.text[:40].decode("latin-1", "replace").replace("\n", " ")


def stepped_name(node) -> bytes | None:
    """The name an update expression (`k++`, `--k`, `k += 2`) steps, if any."""
    if node.type == "update_expression":
        target = node.child_by_field_name("argument")
    elif node.type == "assignment_expression":
        target = node.child_by_field_name("left")
    else:
        return None
    return target.text if target is not None and target.type == "identifier" else None


def unparenthesized(node):
    """The expression inside any parentheses around it (`((x))` is `x`)."""
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node
