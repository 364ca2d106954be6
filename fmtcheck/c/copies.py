"""`memcpy` of an object of the caller's into a local, whole (`memcpy(&apicd, irqd->chip_data,
sizeof(apicd))`, `memcpy(rlim, task->signal->rlim, sizeof(struct rlimit) * RLIM_NLIMITS)`): the
local then holds what the source holds, so the model reads the local as the source itself, by the
same input paths. The caller's data is the same all through a run (the model writes none of it),
so reading the copy later reads what the copy holds. A copy of part of the local is not this: its
other bytes keep what the local held before.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c.arith import as_int
from fmtcheck.c.types import U64, type_size
from fmtcheck.c.nodes import unparenthesized
from fmtcheck.c.values import Frame, Free, LocalStruct, Mem, element


def _sizeof_operand(node) -> str | None:
    """The operand of `sizeof(x)` / `sizeof x` / `sizeof(struct T)` as written, spaces folded."""
    node = unparenthesized(node)
    if node.type != "sizeof_expression":
        return None
    operand = node.child_by_field_name("value") or node.child_by_field_name("type")
    if operand is None:
        return None
    return " ".join(unparenthesized(operand).text.decode("latin-1").split())


def _type_text(t: tuple) -> str | None:
    return f"struct {t[1]}" if t[0] == "struct" else None


def whole_copy(prog, dst_node, count_node, scope: dict) -> Callable[[Frame, Any], Any] | None:
    """For `memcpy(dst, src, count)` whose dst is a local struct (`&s`) or a local array (`a`) and
    whose count is the whole of it (`sizeof(s)`, `sizeof(struct T)` of a `struct T s`, `sizeof(a)`,
    `sizeof(struct T) * N` of a `struct T a[N]` with N's value the array's length): a closure
    (frame, source) that makes the local the source's view and returns True, or False when the
    run shows it is not that (a source the code owns, a length that differs). None when the
    statement is not of that shape."""
    dst_node = unparenthesized(dst_node)
    addressed = dst_node.type == "pointer_expression" and dst_node.child_by_field_name("operator").text == b"&"
    target = unparenthesized(dst_node.child_by_field_name("argument")) if addressed else dst_node
    if target.type != "identifier":
        return None
    name = target.text.decode("latin-1")
    t = scope.get(name)
    if t is None or (addressed and t[0] != "struct") or (not addressed and t[0] != "array"):
        return None
    whole = {name, _type_text(t)} if addressed else {name}
    if _sizeof_operand(count_node) in whole:
        length = None
    elif not addressed and t[1][0] == "struct":
        length = _element_count(prog, count_node, _type_text(t[1]), scope)
        if length is None:
            return None
    else:
        return None

    if not addressed and not _only_indexed(target, name):
        return None  # the array's own memory reached another way (a pointer kept into it)

    def view(f: Frame, src: Any) -> bool:
        if not isinstance(src, Free):
            return False
        local = f.vars.get(name)
        if addressed:
            if not isinstance(local, LocalStruct) or local.file_scope is not None:
                return False
            # in place: a pointer the code took to the local sees the copy too
            local.fields.clear()
            local.view = _pointee(src)
            local.key, local.zeroed, local.indeterminate = f"copy of {local.view.key}", False, False
        else:
            if not isinstance(local, Mem) or local.file_scope is not None:
                return False
            if length is not None:
                n = as_int(length.fn(f), f, length.type if length.type[0] == "int" else U64, length.text)
                esize = type_size(t[1]) if t[1][0] == "int" else 8
                if type(n) is not int or n * esize != len(local.data):
                    return False
            f.vars[name] = src
        f.ctx.writes += 1
        return True

    return view


def _only_indexed(target, name: str) -> bool:
    """Is every use of the local array `name` in its function a subscript (`a[i]...`), a
    `sizeof`, or this memcpy's destination? Then rebinding the name to the source misses no
    pointer into the array's old memory."""
    function = target
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    stack = [function]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "identifier" or node.text.decode("latin-1") != name or node == target:
            continue
        parent = node.parent
        if parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node:
            continue
        if parent.type in ("sizeof_expression", "array_declarator"):
            continue
        return False
    return True


def _element_count(prog, count_node, elem_text: str | None, scope: dict):
    """N of a count `sizeof(struct T) * N` or `N * sizeof(struct T)`, compiled; None otherwise."""
    count_node = unparenthesized(count_node)
    if elem_text is None or count_node.type != "binary_expression" or count_node.child_by_field_name("operator").text != b"*":
        return None
    left, right = count_node.child_by_field_name("left"), count_node.child_by_field_name("right")
    for size, n in ((left, right), (right, left)):
        if _sizeof_operand(size) == elem_text:
            return prog.expr(n, scope)
    return None


def _pointee(src: Free) -> Free:
    """The object a pointer of the caller's points at, named as a read through it names it
    (`&x->y` is `x->y`, `&a[2]` is `a[2]`, `p` is `p[0]`, which a member read names `p->f`)."""
    if src.key.startswith("&"):
        return Free(src.key[1:])
    return element(src, 0)
