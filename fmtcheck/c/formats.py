"""Formats that are not a literal where `seq_printf` receives them, resolved to the literals they
can only be: a choice between literals (`sizeof(void *) == 4 ? "%-8s%s" : "%-16s%s"`), or a name
the code defines once as a literal and never changes (`static const char fmt64[] = "%30s %12llu\\n";`
at file scope or in the function), or a local initialised with a choice of literals right
before the call (`char *fmt = eff ? "%08x" : "%03x"; seq_printf(m, fmt, ...)`). Each literal is compiled as a format of its own and the choice
is made where the call runs, so the verdict is the one for the literal the kernel prints.

Anything else (a format read from the caller's data, a local assigned elsewhere, a table of
formats) stays unresolved: the call is inconclusive, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from fmtcheck.c import cfront

MAX_CHOICES = 8  # literals one format may resolve to (nested choices)


@dataclass(frozen=True)
class Choice:
    """`condition ? then : other` over formats."""

    condition: Any  # the condition's node
    then: "bytes | Choice"
    other: "bytes | Choice"


def resolve(node, literal: Callable[[Any], bytes | None]) -> "bytes | Choice | None":
    """The literal or choice of literals a format node denotes, or None."""
    found = _resolve(node, literal, 0)
    return found if found is not None and len(literals_of(found)) <= MAX_CHOICES else None


def literals_of(fmt: "bytes | Choice") -> list[bytes]:
    """Every literal a resolved format may be."""
    if isinstance(fmt, Choice):
        return literals_of(fmt.then) + literals_of(fmt.other)
    return [fmt]


def _resolve(node, literal, depth: int):
    if node is None or depth > 8:
        return None
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    data = literal(node)
    if data is not None:
        return data
    if node.type == "conditional_expression":
        then = _resolve(node.child_by_field_name("consequence"), literal, depth + 1)
        other = _resolve(node.child_by_field_name("alternative"), literal, depth + 1)
        if then is None or other is None:
            return None
        return Choice(node.child_by_field_name("condition"), then, other)
    if node.type == "identifier":
        init = _constant_initializer(node)
        if init is not None and init.type == "conditional_expression" and _declared_just_before(node, init):
            return _resolve(init, literal, depth + 1)
        return literal(init) if init is not None else None
    return None


def _declared_just_before(use, init) -> bool:
    """Whether the declaration whose initializer is INIT is the statement right before the one
    that uses the name (`char *fmt = eff ? "%08x" : "%03x"; seq_printf(m, fmt, ...);`): the
    choice's condition is then read where it was, nothing having run in between."""
    declaration = _enclosing(init, "declaration")
    statement = use
    while statement is not None and statement.parent is not None and statement.parent.type != "compound_statement":
        statement = statement.parent
    if declaration is None or statement is None:
        return False
    before = statement.prev_named_sibling
    while before is not None and before.type == "comment":
        before = before.prev_named_sibling
    return before is not None and before.id == declaration.id


def _constant_initializer(ident):
    """The literal initializer of the one declaration `ident` names (in its function, else at
    file scope), when nothing in that scope assigns the name, moves it or takes its address."""
    name = ident.text
    function = _enclosing(ident, "function_definition")
    root = _root(ident)
    if function is not None and any(_declares(p, name) for p in cfront.walk(function)
                                    if p.type == "parameter_declaration"):
        return None  # the caller's
    for scope in (function, root):
        if scope is None:
            continue
        inits = [d for d in _declarations(scope, name, top_only=scope is root)]
        if len(inits) > 1:
            return None
        if inits:
            region = root if scope is root else function
            return inits[0] if not _changed(region, name) else None
    return None


def _declarations(scope, name: bytes, top_only: bool) -> list:
    """Initializers of declarations of `name` that are char arrays or char pointers."""
    out = []
    nodes = scope.named_children if top_only else cfront.walk(scope)
    for node in nodes:
        if node.type != "declaration" or b"char" not in (node.child_by_field_name("type") or node).text:
            continue
        for decl in node.children_by_field_name("declarator"):
            if decl.type != "init_declarator":
                continue
            inner = decl.child_by_field_name("declarator")
            while inner is not None and inner.type in ("pointer_declarator", "array_declarator"):
                inner = inner.child_by_field_name("declarator")
            if inner is not None and inner.type == "identifier" and inner.text == name:
                out.append(decl.child_by_field_name("value"))
    return out


def _declares(param, name: bytes) -> bool:
    return any(n.type == "identifier" and n.text == name for n in cfront.walk(param))


def _changed(region, name: bytes) -> bool:
    """Whether anything in `region` assigns `name`, steps it or takes its address."""
    for node in cfront.walk(region):
        target = None
        if node.type == "assignment_expression":
            target = node.child_by_field_name("left")
        elif node.type == "update_expression":
            target = node.child_by_field_name("argument")
        elif node.type == "pointer_expression" and node.child_by_field_name("operator").text == b"&":
            target = node.child_by_field_name("argument")
        if target is not None and target.type == "identifier" and target.text == name:
            return True
    return False


def _enclosing(node, kind: str):
    while node is not None and node.type != kind:
        node = node.parent
    return node


def _root(node):
    while node.parent is not None:
        node = node.parent
    return node
