"""Compiling C primary expressions (literals, names, members, subscripts, sizeof, casts, unary and
pointer operators) to closures.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from fmtcheck.c import cfront, symbolic
from fmtcheck.c.arith import as_int, truth, truth_value
from fmtcheck.c.coverage import input_reads, observe_table_index
from fmtcheck.c.literals import parse_number, unescape
from fmtcheck.c.nodes import snip, stepped_name
from fmtcheck.c.symbolic import Sym
from fmtcheck.c.types import (
    BASE_TYPES,
    CHAR,
    FREE,
    S32,
    U64,
    VOID,
    conv,
    int_type,
    promote,
    struct_sized,
    type_size,
)
from fmtcheck.c.values import (
    CSeqFile,
    Expr,
    Frame,
    Free,
    free_path,
    LocalStruct,
    Mem,
    OpaqueGlobal,
    Ptr,
    SymbolicCells,
    SeqHandle,
    UndefinedBehaviour,
    Unreadable,
    address_of,
    element,
    symbolic_element,
    member_of,
    outside_sized_array,
    table_entry,
    TablePtr,
)
from fmtcheck.common.errors import Inconclusive, InputError
from fmtcheck.kernel import constants, lib


def counted_elements(node, base_type: tuple, star_max: int) -> int | None:
    """The elements an array of the caller's data whose size the code does not give is taken to
    hold when a loop counter indexes it (`v->digi->calls[k]` in `for (k = 0; k < v->digi->n; k++)`):
    STAR_MAX (--star-max), as a macro sizing an array ranges up to it. Unbounded, the loop's count
    (an input drawn up to its type's maximum) named a new input per iteration until each such case
    went over a per-case bound, and the verdict was inconclusive; a count past the array's elements
    reads past its end, undefined behaviour, so such a case is skipped and the verdict says so.
    None where the rule does not apply: an array of known size, an index that is not the counter of
    an enclosing `for` whose bound is data (a member, a variable), not a constant or a macro."""
    if base_type[0] == "array" and base_type[2] is not None:
        return None
    index = node.child_by_field_name("index")
    while index is not None and index.type == "parenthesized_expression" and index.named_child_count == 1:
        index = index.named_children[0]
    if index is None or index.type != "identifier":
        return None
    name = index.text
    loop = node.parent
    while loop is not None and loop.type != "function_definition":
        if loop.type == "for_statement" and _counts_with(loop, name):
            return star_max
        loop = loop.parent
    return None


def _counts_with(loop, name: bytes) -> bool:
    """Whether the `for` LOOP steps NAME (`name++`, `--name`, `name += k`) up to a bound that is
    the caller's data: a member access or a lowercase name (not a number, a macro or a sizeof)."""
    update, cond = loop.child_by_field_name("update"), loop.child_by_field_name("condition")
    if update is None or cond is None:
        return False
    if not any(stepped_name(n) == name for n in cfront.walk(update)):
        return False
    return any(_bound_by_data(c, name) for c in _conjuncts(cond))


def _conjuncts(cond):
    """The terms of a `&&` chain (a loop runs only while each holds), through parentheses."""
    while cond.type == "parenthesized_expression" and cond.named_child_count == 1:
        cond = cond.named_children[0]
    if cond.type == "binary_expression" and cond.child_by_field_name("operator").type == "&&":
        yield from _conjuncts(cond.child_by_field_name("left"))
        yield from _conjuncts(cond.child_by_field_name("right"))
    else:
        yield cond


_ORDER = ("<", "<=", ">", ">=")


def _bound_by_data(cond, name: bytes) -> bool:
    """`name < B` (or `B > name`, ...) where B reads the caller's data: a member access or a
    lowercase name (not a number, a macro or a sizeof)."""
    if cond.type != "binary_expression" or cond.child_by_field_name("operator").type not in _ORDER:
        return False
    sides = [cond.child_by_field_name("left"), cond.child_by_field_name("right")]
    counters = [s for s in sides if s.type == "identifier" and s.text == name]
    if len(counters) != 1:
        return False
    bound = sides[1] if sides[0] is counters[0] else sides[0]
    return any(n.type == "field_expression" or (n.type == "identifier" and n.text != name and not n.text.isupper())
               for n in cfront.walk(bound))


def past_unknown_size(i: int, held: int, line: int, text: str) -> UndefinedBehaviour:
    return UndefinedBehaviour(line, f"index {i} is past the end of {text}, an array of unknown size taken to "
                                    f"hold {held} elements (--star-max)")


class ExpressionCompiler:
    """Expression compilers of `Program`: one `_expr_<kind>` method per tree-sitter expression kind."""

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node, scope: dict[str, tuple]) -> Expr:
        if node is None:
            raise InputError(self.unit.where, "missing expression")
        node = self.overridden(node)
        handler = getattr(self, "_expr_" + node.type, None)
        if handler is None:
            if node.type == "ERROR":
                raise InputError(self.where(node), f"C syntax error near '{snip(node)}'")
            raise self.unsupported(node, f"unsupported expression '{node.type}'")
        return handler(node, scope)

    def _expr_parenthesized_expression(self, node, scope):
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            raise self.unsupported(node, "unsupported parenthesised expression")
        return self.expr(inner[0], scope)

    def _expr_number_literal(self, node, scope):
        text = node.text.decode("latin-1")
        try:
            value, t = parse_number(text)
        except ValueError:
            raise InputError(self.where(node), f"malformed number literal '{text[:40]}'") from None
        if value is None:
            raise self.unsupported(node, f"floating-point literal {text}")
        return Expr(lambda f: value, t, text, node, value)

    def _expr_char_literal(self, node, scope):
        data = unescape(node.text[1:-1])
        value = data[0] if data else 0
        value = value - 256 if value > 127 else value
        return Expr(lambda f: value, S32, node.text.decode("latin-1"), node, value)

    def _expr_true(self, node, scope):
        return Expr(lambda f: 1, S32, "true", node, 1)

    def _expr_false(self, node, scope):
        return Expr(lambda f: 0, S32, "false", node, 0)

    def _expr_null(self, node, scope):
        return Expr(lambda f: 0, ("ptr", VOID), "NULL", node, 0)

    def string_bytes(self, node) -> bytes:
        if node.type == "string_literal":
            content = b"".join(
                c.text if c.type in ("string_content", "escape_sequence") else b""
                for c in node.children
            )
            prefix = node.text[:1]
            if prefix in (b"L", b"u", b"U"):
                raise self.unsupported(node, "wide string literals are not modelled")
            return unescape(content)
        if node.type == "concatenated_string":
            parts = []
            for c in node.named_children:
                if c.type == "string_literal":
                    parts.append(self.string_bytes(c))
                elif c.type == "identifier":
                    parts.append(self._string_constant(c))
                else:
                    raise self.unsupported(c, "unsupported piece of a concatenated string")
            return b"".join(parts)
        if node.type == "parenthesized_expression" and node.named_children:
            return self.string_bytes(node.named_children[0])
        raise self.unsupported(node, "expected a string literal")

    def _string_constant(self, node) -> bytes:
        name = node.text.decode("latin-1")
        value = constants.STRING_MACROS.get(name)
        if value is None:
            value = self.header_string(name)
        if value is None:
            raise self.unsupported(node, f"string macro {name} is not defined in the input")
        return value

    def _expr_string_literal(self, node, scope):
        if node.type == "concatenated_string" and built_string(node):
            # `KBUILD_MODNAME ": " "text"` (pr_fmt): a string the build makes, the same on both
            # sides: an input string keyed by its spelling
            key = node.text.decode("latin-1")
            return Expr(lambda f: Free(key), ("ptr", CHAR), key, node)
        data = self.string_bytes(node)
        mem = Mem(bytearray(data + b"\x00"), readonly=True)
        return Expr(lambda f: Ptr(mem), ("array", CHAR, len(data) + 1), node.text.decode("latin-1"), node, data)

    def _expr_identifier(self, node, scope):
        name = node.text.decode("latin-1")
        if name in scope:
            return Expr(lambda f: f.vars[name], scope[name], name, node)
        if name in self.unmodelled:
            raise self.unmodelled[name]
        if name in self.enums:
            value = self.enums[name]
            return Expr(lambda f: value, S32, name, node, value)
        if name in self.globals:
            make, t = self.globals[name]
            # one value per run for every reading of the global (`p < tbl + N` compares two)
            cache: list[Any] = self.global_values.setdefault(name, [])

            def read_global(f: Frame) -> Any:
                # made once per run: an initializer may read inputs (or symbols, in a proof),
                # so a value made for one case must not be seen by the next
                if not cache or cache[0] is not f.ctx:
                    cache[:] = [f.ctx, make(f)]
                return cache[1]

            return Expr(read_global, t, name, node)
        if name in ("NULL",):
            return Expr(lambda f: 0, ("ptr", VOID), name, node, 0)
        if name in ("true", "false"):
            v = int(name == "true")
            return Expr(lambda f: v, S32, name, node, v)
        if name in constants.INT_CONSTANTS:
            value, t = constants.INT_CONSTANTS[name]
            return Expr(lambda f: value, t, name, node, value)
        if name in self.unit.functions:
            return Expr(lambda f: Free(name), FREE, name, node)
        if name in lib.TABLES:
            table = Mem(bytearray(lib.TABLES[name]), readonly=True)
            return Expr(lambda f: table, ("array", CHAR, len(table.data)), name, node)
        if name in constants.BUILD_STRING_MACROS and name not in constants.STRING_MACROS:
            # the module name or file path the build defines: one string, the same on both sides
            return Expr(lambda f: Free(name), ("ptr", CHAR), name, node)
        if name.isupper() or re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            text = self.header_string(name)
            if text is not None:  # `#define NFS_IOSTAT_VERS "1.1"` in a header of the tree
                return string_expr(text, name, node)
            known = self.header_constant(name)
            if known is not None:
                value, t = known
                return Expr(lambda f: value, t, name, node, value)
            key = name
            hint = self.space.hint(name)
            if hint is None:
                self.space.untyped_macros.add(name)  # its type is assumed where it is computed with
                hint = U64
            if hint[0] != "int":
                raise self.unsupported(node, f"macro {name} is not defined in the input")
            return Expr(lambda f: f.ctx.inputs.int_input(key, hint), hint, name, node)
        if name in self.seq_names:
            # a fragment's undeclared seq_file (`m` in a bare statement list)
            return Expr(lambda f: f.ctx.seq, ("ptr", ("struct", "seq_file")), name, node)
        # a free variable: the caller's data
        return Expr(lambda f: Free(name), FREE, name, node)

    def _expr_field_expression(self, node, scope, addressed: bool = False):
        """`a->f`, `a.f`; ADDRESSED for the operand of `&`, which reads nothing (an `Unreadable`
        field is then its own value, for `&` to name by its path)."""
        base = self.expr(node.child_by_field_name("argument"), scope)
        op = node.child_by_field_name("operator").text.decode()
        arrow = op == "->"
        fname = node.child_by_field_name("field").text.decode("latin-1")
        bfn = base.fn
        text = node.text.decode("latin-1")
        where = self.where(node)
        line = self.line(node)
        note_struct = typed_reads(self.read_types, struct_label(base.type, op), where)

        def member(f: Frame) -> Any:
            obj = bfn(f)
            if type(obj) is Free and arrow and obj.key[:1] != "&":
                return free_path(f, f"{obj.key}->{fname}", where, note_struct)  # (member_of's key, unparsed)
            if isinstance(obj, (list, TablePtr)) and op == "->":
                obj = table_entry(obj, 0, self.line(node), base.text, where)
            if isinstance(obj, Free):
                return free_path(f, member_of(obj, op, fname).key, where, note_struct)
            if isinstance(obj, LocalStruct):
                if fname in obj.fields:
                    value = obj.fields[fname]
                    if isinstance(value, Unreadable) and not addressed:
                        raise value.error
                    return value
                if obj.zeroed:
                    return 0
                if obj.view is not None:
                    return free_path(f, member_of(obj.view, ".", fname).key, where, note_struct)
                return free_path(f, f"{obj.key}.{fname}", where)
            if isinstance(obj, OpaqueGlobal):
                raise obj.error
            if isinstance(obj, CSeqFile):
                if fname in obj.fields:
                    return obj.fields[fname]
                raise Inconclusive(where, f"seq_file member '{fname}' is not modelled")
            if isinstance(obj, SeqHandle):
                if fname not in lib.SEQ_BUFFER_MEMBERS:
                    # file, private, index, poll_event, op...: the caller's data, an input like any other
                    return Free(f"m->{fname}")
                raise Inconclusive(where, f"direct access to seq_file member '{fname}' is not modelled")
            if obj is None or (type(obj) is int and obj == 0):
                # `(p ? container_of(p, ...) : NULL)->f` with p NULL: the kernel would oops
                raise UndefinedBehaviour(line, f"member '{fname}' read through a null pointer ({base.text})")
            raise Inconclusive(where, f"member '{fname}' of a non-struct value")

        declared = self.member_type(base.type, op, fname)
        if declared:
            self.space.declare_path(text)
        return Expr(member, declared or self.space.hint(text) or FREE, text, node)

    def _expr_subscript_expression(self, node, scope):
        base, index = (self.expr(node.child_by_field_name(name), scope) for name in ("argument", "index"))
        bfn, ifn = base.fn, index.fn
        elem = base.type[1] if base.type[0] in ("array", "ptr") else FREE
        text, where, site = node.text.decode("latin-1"), self.where(node), self.site(node)
        note_elem = typed_reads(self.read_types, read_label(elem), where)
        held = counted_elements(node, base.type, self.space.star_max)

        def subscript(f: Frame) -> Any:
            obj = bfn(f)  # (the log of the index's reads is looked at for a table's entry only)
            reads = input_reads(f.ctx.inputs) if f.ctx.coverage is not None and isinstance(obj, (list, TablePtr)) else None
            start = len(reads) if reads is not None else 0
            i = i if type(i := ifn(f)) is int else as_int(i, f, index.type, index.text)  # (as_int keeps an int)
            if type(obj) is Free and type(i) is int and obj.key[:1] != "&":
                if held is not None and not 0 <= i < held:
                    raise past_unknown_size(i, held, self.line(node), base.text)
                return free_path(f, f"{obj.key}[{i}]", where, note_elem)  # (element()'s key, unparsed)
            if isinstance(i, Sym):
                return symbolic_element(obj, i, elem, where, note_elem)
            if isinstance(obj, Free):
                return free_path(f, element(obj, i).key, where, note_elem)
            if isinstance(obj, (list, TablePtr)):
                if reads is not None and len(reads) > start and type(i) is int and isinstance(obj, list):
                    observe_table_index(f.ctx.coverage, site, index.text, base.text, i, len(obj), reads, start)
                return table_entry(obj, i, self.line(node), base.text, where)
            if isinstance(obj, Mem):
                obj = Ptr(obj)
            if isinstance(obj, Ptr):
                et = obj.mem.elem if elem == FREE else elem
                size = type_size(et) if et[0] == "int" else 1
                off = obj.off + i * size
                if i < 0 and obj.off + i * size < 0 or off + size > len(obj.mem.data) or off < 0:
                    if obj.mem.sized_by is not None:
                        raise outside_sized_array(obj.mem, i, self.line(node), base.text)
                    raise Inconclusive(where, f"index {i} is outside the array")
                if isinstance(obj.mem.data, SymbolicCells) and et[0] == "int":
                    return obj.mem.data.load(off, size, et)
                raw = int.from_bytes(obj.mem.data[off:off + size], "little")
                return conv(raw, et) if et[0] == "int" else raw
            raise Inconclusive(where, "subscript of a value that is not an array")

        return Expr(subscript, elem if elem != FREE else (self.space.hint(text) or FREE), text, node)

    def _expr_call_expression(self, node, scope):
        return self.call(node, scope)

    def _expr_sizeof_expression(self, node, scope):
        tnode = node.child_by_field_name("type")
        vnode = node.child_by_field_name("value")
        text = node.text.decode("latin-1")
        if tnode is not None:
            t = self._declared_type(tnode, tnode.child_by_field_name("declarator"))
            if struct_sized(t):
                return opaque_size(t, text, node)
            size = type_size(t)
        else:
            inner = vnode
            while inner.type == "parenthesized_expression" and inner.named_children:
                inner = inner.named_children[0]
            if inner.type in ("string_literal", "concatenated_string"):
                size = len(self.string_bytes(inner)) + 1
            elif inner.type == "identifier" and inner.text.decode("latin-1") in BASE_TYPES and inner.text.decode("latin-1") not in scope:
                size = type_size(BASE_TYPES[inner.text.decode("latin-1")])
            elif inner.type == "identifier" and inner.text.decode("latin-1") not in scope \
                    and (self.typedef(inner.text.decode("latin-1")) or FREE)[0] == "int":
                size = type_size(self.typedef(inner.text.decode("latin-1")))
            else:
                e = self.expr(inner, scope)
                if e.type[0] == "array" and e.type[2] is None and e.text in self.unknown_size:
                    return self._macro_sized(e.type, self.unknown_size[e.text], text, node)
                if e.type[0] == "array" and e.type[2] is not None:
                    size = type_size(e.type)
                elif e.type[0] in ("int", "ptr"):
                    size = type_size(e.type)
                elif struct_sized(e.type):
                    return opaque_size(e.type, text, node)
                else:
                    raise self.unsupported(node, f"sizeof of '{e.text}' whose type is not known")
        return Expr(lambda f: size, U64, text, node, size)

    def _macro_sized(self, t: tuple, size_text: str, text: str, node) -> Expr:
        """sizeof a local array sized by a macro the input does not define (`char
        buf[FOO_NAMELEN]`): that macro's value (the same input its other uses read; GNU C allows 0)
        times the element size; any other size expression is not folded."""
        name = size_text.strip()
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or t[1][0] not in ("int", "ptr"):
            raise self.unsupported(node, f"sizeof of '{text}', an array of size {name}")
        hint = self.space.hint(name) or U64
        if hint[0] != "int":
            raise self.unsupported(node, f"sizeof of '{text}', an array of size {name}")
        esize = type_size(t[1])

        def size(f: Frame) -> Any:
            n = f.ctx.inputs.int_input(name, hint)
            return n * esize if esize != 1 else n

        return Expr(size, U64, text, node)

    def _expr_cast_expression(self, node, scope):
        tnode = node.child_by_field_name("type")
        t = self._declared_type(tnode, tnode.child_by_field_name("declarator"))
        value = self.expr(node.child_by_field_name("value"), scope)
        return self._cast_to(t, value, node, node.text.decode("latin-1"))

    def _cast_to(self, t: tuple, value: Expr, node, text: str) -> Expr:
        vfn = value.fn
        if t[0] == "int":
            src_t = value.type if value.type[0] == "int" else (self.space.hint(value.text) or U64)

            def cast(f: Frame) -> Any:
                return conv(as_int(vfn(f), f, src_t, value.text), t)

            const = conv(value.const, t) if isinstance(value.const, int) else None
            return Expr(cast, t, text, node, const)
        return Expr(vfn, t if t[0] != "void" else value.type, text, node)

    def _expr_unary_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        arg = self.expr(node.child_by_field_name("argument"), scope)
        afn = arg.fn
        t = promote(self.space.operand_type(arg.text, self.where(node), arg.type) if op in ("-", "~")
                    else int_type(arg.type) if arg.type[0] == "int" else self.space.hint(arg.text) or U64)
        text = node.text.decode("latin-1")
        src = arg.type if arg.type[0] == "int" else t
        if op == "!":
            def lnot(f: Frame) -> Any:
                v = truth_value(afn(f), f, src, arg.text)
                if isinstance(v, Sym):
                    return symbolic.compare("==", v, 0)
                return int(not v)
            return Expr(lnot, S32, text, node, (int(not arg.const) if isinstance(arg.const, int) else None))
        if op == "-":
            def neg(f: Frame) -> Any:
                return conv(-as_int(afn(f), f, src, arg.text), t)
            return Expr(neg, t, text, node, conv(-arg.const, t) if isinstance(arg.const, int) else None)
        if op == "+":
            return Expr(lambda f: conv(as_int(afn(f), f, src, arg.text), t), t, text, node, arg.const)
        if op == "~":
            def inv(f: Frame) -> Any:
                return conv(~as_int(afn(f), f, src, arg.text), t)
            return Expr(inv, t, text, node, conv(~arg.const, t) if isinstance(arg.const, int) else None)
        raise self.unsupported(node, f"unary operator {op}")

    def _expr_pointer_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        argnode = node.child_by_field_name("argument")
        if op == "&" and argnode.type == "identifier":
            opaque = self._opaque_global(argnode, scope)
            if opaque is not None:
                return Expr(lambda f: opaque, ("ptr", FREE), node.text.decode("latin-1"), node)
        if op == "&" and self.overridden(argnode).type == "field_expression":
            arg = self._expr_field_expression(self.overridden(argnode), scope, addressed=True)
        else:
            arg = self.expr(argnode, scope)
        afn = arg.fn
        text = node.text.decode("latin-1")
        if op == "&":
            named = self._address_name(argnode, scope)

            def address(f: Frame) -> Any:
                v = afn(f)
                if isinstance(v, Free):
                    return address_of(v)
                if isinstance(v, LocalStruct):
                    return v
                if isinstance(v, (Mem, Ptr)):
                    return v if isinstance(v, Ptr) else Ptr(v)
                return named(f)
            return Expr(address, ("ptr", arg.type), text, node)

        elem = arg.type[1] if arg.type[0] in ("ptr", "array") else FREE
        note_elem = typed_reads(self.read_types, read_label(elem), self.where(node))

        def deref(f: Frame) -> Any:
            v = afn(f)
            if isinstance(v, Free):
                key = element(v, 0)
                if note_elem is not None:
                    note_elem(key.key)
                return key
            if isinstance(v, Mem):
                v = Ptr(v)  # an array of the code's, as a helper's pointer parameter receives it
            if isinstance(v, Ptr):
                et = v.mem.elem
                size = type_size(et)
                raw = int.from_bytes(v.read(size), "little")
                return conv(raw, et)
            if isinstance(v, LocalStruct):
                return v
            if isinstance(v, OpaqueGlobal):
                raise v.error
            if isinstance(v, (list, TablePtr)):
                return table_entry(v, 0, self.line(node), arg.text, self.where(node))
            raise Inconclusive(self.where(node), "dereference of a value that is not a pointer")

        return Expr(deref, elem, text, node)

    _expr_concatenated_string = _expr_string_literal


def built_string(node) -> bool:
    """Whether a concatenated string holds a string the build defines (`BUILD_STRING_MACROS`)."""
    return any(c.type == "identifier" and c.text.decode("latin-1") in constants.BUILD_STRING_MACROS
               and c.text.decode("latin-1") not in constants.STRING_MACROS for c in node.named_children)


def string_expr(text: bytes, name: str, node) -> Expr:
    """A string constant: a pointer to its bytes and a NUL, read-only."""
    mem = Mem(bytearray(text + b"\x00"), readonly=True)
    return Expr(lambda f: Ptr(mem), ("array", CHAR, len(text) + 1), name, node, text)


def opaque_size(t: tuple, text: str, node) -> Expr:
    """sizeof a struct the input does not define: a positive size shared by both sides,
    named by the struct (an input, so no verdict depends on a made-up layout)."""
    count = 1
    while t[0] == "array":
        count *= t[2]
        t = t[1]
    key = f"sizeof(struct {t[1]})"

    def size(f: Frame) -> Any:
        n = f.ctx.inputs.int_input(key, ("int", 32, False))
        if type(n) is int:
            n = max(n, 1)  # a struct has a positive size
        return n * count if count != 1 else n

    return Expr(size, U64, text, node)


def struct_label(base: tuple, op: str) -> str | None:
    """'struct T' for the struct `base->f` (`base.f`) reads a member of, when the code's type says."""
    struct = base[1] if op == "->" and base[0] == "ptr" else base if op == "." else None
    return read_label(struct) if struct is not None and struct[0] == "struct" else None


def read_label(t: tuple) -> str | None:
    """What reading the caller's memory as type T reads: a struct by its tag, an integer by its
    width (its signedness only changes how the same bytes convert, which the model does)."""
    if t[0] == "struct" and isinstance(t[1], str):
        return f"struct {t[1]}"
    if t[0] == "int" and t != FREE:
        return f"a {t[1]}-bit integer"
    return None


def typed_reads(seen: dict[str, dict[str, str]], label: str | None, where: str) -> Callable[[str], None] | None:
    """A recorder of the input keys an expression reads as the type LABEL names (None when the
    code's type does not say): the model names the caller's data by paths (`v->u`, `v[1]`), not
    by offsets, so two sides that read one path through two types (two structs, or elements of
    two widths) read different bytes under one name, and the engine must know it."""
    if label is None:
        return None

    def note(key: str) -> None:
        types = seen.get(key)
        if types is None:
            seen[key] = {label: where}
        elif label not in types:
            types[label] = where

    return note
