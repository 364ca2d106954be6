"""Compiling C operators (binary, logical, conditional, comma, assignment, increment) and lvalues.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c.arith import as_int, binary, observed_truth, truth, truth_value
from fmtcheck.c import cfront
from fmtcheck.c.symbolic import NotProvable, Sym, compare
from fmtcheck.c.types import CHAR, FREE, S32, S64, U64, conv, type_size, usual
from fmtcheck.c.stores import store, value_name
from fmtcheck.c.values import (CSeqFile, Expr, Frame, Free, LocalStruct, Mem, Ptr, SymbolicCells, TablePtr, advance,
                               element, member_of, outside_sized_array, pointer_parts)
from fmtcheck.common.errors import Inconclusive


COMPARISONS = frozenset(("==", "!=", "<", ">", "<=", ">="))


def reads_only(node) -> bool:
    """Whether evaluating an expression does nothing but read: no call, assignment, increment
    or comma (a `sizeof` reads nothing either)."""
    if node is None:
        return False
    for n in cfront.walk(node):
        if n.type in ("call_expression", "assignment_expression", "update_expression", "comma_expression"):
            return False
    return True


def store_symbolic(mem: Mem, off: int, size: int, et: tuple, v: Any, f: Frame) -> None:
    """An element store into a local array that holds (or now takes) a value of the inputs, in a
    proof: kept by cell (`SymbolicCells`), at the element's type."""
    if et[0] != "int":
        raise NotProvable("a value of the inputs stored into an array that is not of integers")
    if not isinstance(mem.data, SymbolicCells):
        mem.data = SymbolicCells(mem.data)
    mem.data.store(off, size, et, conv(as_int(v, f, et, ""), et))


def symbolic_truth(v: Sym) -> Sym:
    """A symbol's truth as a 0/1 symbol (`v != 0`; a comparison is one already)."""
    tree = v.tree
    if isinstance(tree, tuple) and tree and tree[0] in COMPARISONS:
        return v
    return compare("!=", v, 0)


def _only_reads(node) -> bool:
    """A name or a member of one (`zone`, `pgdat->node_zones`): evaluating it has no effect."""
    while node is not None and node.type == "field_expression":
        node = node.child_by_field_name("argument")
    return node is not None and node.type == "identifier"


class OperatorCompiler:
    """Operator and assignment compilers of `Program`."""

    def _expr_binary_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        left = self.expr(node.child_by_field_name("left"), scope)
        right = self.expr(node.child_by_field_name("right"), scope)
        text = node.text.decode("latin-1")
        if op in ("&&", "||"):
            return self._logical(op, left, right, node, text)
        if left.type[0] in ("ptr", "array") and op in ("+", "-") and right.type[0] == "int":
            return self._pointer_arith(op, left, right, node, text)
        where = self.where(node)
        lt = self.space.operand_type(left.text, where, left.type)
        rt = self.space.operand_type(right.text, where, right.type)
        site = self.site(node) if op in COMPARISONS else None
        fn, t = binary(op, left, right, lt, rt, self.line(node), self.where(node), site)
        if left.type == FREE and op in ("+", "-"):
            # a member of unknown type may hold a pointer (m->buf + m->count)
            return self._maybe_pointer_arith(op, left, right, fn, t, node, text)
        if (op == "-" and left.type[0] in ("ptr", "array") and right.type[0] in ("ptr", "array")
                and _only_reads(left.node) and _only_reads(right.node)):
            return self._pointer_difference(left, right, fn, node, text)
        const = None
        if isinstance(left.const, int) and isinstance(right.const, int) and not isinstance(left.const, bool):
            try:
                const = fn(None)
            except Exception:  # noqa: BLE001 - e.g. division by zero: leave it to run time
                const = None
        if const is not None:
            return Expr(lambda f: const, t, text, node, const)
        return Expr(fn, t, text, node)

    def _maybe_pointer_arith(self, op, left, right, int_fn, t, node, text):
        """`a + b` where a's type is unknown: pointer arithmetic when a holds a pointer at run
        time (m->buf + m->count), integer arithmetic otherwise."""
        lfn, rfn = left.fn, right.fn
        where = self.where(node)
        sign = 1 if op == "+" else -1

        def arith(f: Frame) -> Any:
            value = lfn(f)
            if isinstance(value, (Ptr, Mem, list, TablePtr)):
                n = as_int(rfn(f), f, right.type, right.text)
                return advance(value, sign * n, op, where)
            return int_fn(f)

        return Expr(arith, FREE, text, node)

    def _pointer_difference(self, left, right, int_fn, node, text):
        """`zone - node_zones`: two pointers into one array of the caller's data (`&a[j]` and
        `&a[k]`, moved from the same start) are j - k elements apart, as C defines it; any other
        two are read as numbers, as before (the addresses are then inputs; the operands only read,
        so evaluating them again for that costs nothing and changes nothing)."""
        lfn, rfn = left.fn, right.fn

        def difference(f: Frame) -> Any:
            a, b = lfn(f), rfn(f)
            if type(a) is Free and type(b) is Free:
                (abase, j), (bbase, k) = pointer_parts(a.key), pointer_parts(b.key)
                if abase == bbase:
                    return j - k
            return int_fn(f)

        return Expr(difference, S64, text, node)

    def _pointer_arith(self, op, left, right, node, text):
        lfn, rfn = left.fn, right.fn
        elem = left.type[1]
        sign = 1 if op == "+" else -1
        where = self.where(node)

        def padd(f: Frame) -> Any:
            n = as_int(rfn(f), f, right.type, right.text)
            return advance(lfn(f), sign * n, op, where)

        return Expr(padd, ("ptr", elem), text, node)

    def _logical(self, op, left, right, node, text):
        lt, rt = left.type, right.type
        ltruth = self.operand_truth(left)
        rtruth = self.operand_truth(right)

        if op == "&&":
            def land(f: Frame) -> Any:
                return int(ltruth(f) and rtruth(f))
            return Expr(land, S32, text, node, logical=(op, left, right))

        def lor(f: Frame) -> Any:
            return int(ltruth(f) or rtruth(f))

        return Expr(lor, S32, text, node, logical=(op, left, right))

    def _row_logical(self, e: Expr) -> Callable[[Frame], Any]:
        """`if (name[i] == '%' || name[i] < 32)` as a row: the truth of `a || b` (`a && b`) as one
        symbol over the inputs when the first operand's is one, so a proof need not fork on it (a
        loop body cannot fork on its iteration). C evaluates the second operand only when the
        first does not decide; evaluating it anyway is the same only for operands that do nothing
        but read (no call, assignment or increment): any other forks on the first, as before."""
        op, left, right = e.logical
        ltruth, rtruth = self.operand_truth(left, rows=True), self.operand_truth(right, rows=True)
        pure = reads_only(right.node)
        decided = op == "||"  # the first operand's truth that decides the whole

        def row_logical(f: Frame) -> Any:
            a = ltruth(f)
            if isinstance(a, Sym) and not pure:
                a = truth(a, f, S32, left.text)  # the path picks the way, as an `if` on it would
            if not isinstance(a, Sym):
                return decided if bool(a) == decided else rtruth(f)
            b = rtruth(f)
            if not isinstance(b, Sym):
                return decided if bool(b) == decided else symbolic_truth(a)
            return symbolic_truth(a) | symbolic_truth(b) if decided else symbolic_truth(a) & symbolic_truth(b)

        return row_logical

    def site(self, node) -> str:
        """A condition's name in the coverage of a search: file, line and column (shown), and
        its byte offset (so that two conditions never share a name)."""
        return f"{self.where(node)}:{node.start_point[1] + 1}#{node.start_byte}"

    def operand_truth(self, e: Expr, rows: bool = False) -> Callable[[Frame], Any]:
        """The truth of a condition or of an operand of `&&`/`||`, observed by the coverage
        unless it is a comparison or a logical operator (those observe themselves) or a constant.
        With `rows`, a symbol when it depends on the inputs (an `if` that may be traced as a row)."""
        test = truth_value if rows else truth
        node = e.node
        while node is not None and node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        fn, t, text = e.fn, e.type, e.text
        if rows and e.logical is not None and e.const is None:
            return self._row_logical(e)
        if e.const is not None or node is None or (
                node.type == "binary_expression"
                and node.child_by_field_name("operator").text.decode() in COMPARISONS | {"&&", "||"}):
            def plain(f: Frame) -> Any:
                v = fn(f)
                return v != 0 if type(v) is int else test(v, f, t, text)
            return plain
        return observed_truth(fn, t, text, self.site(node), test)

    def _expr_conditional_expression(self, node, scope):
        if node.child_by_field_name("consequence") is None:
            return self._elvis(node, scope)
        cond = self._cond(node.child_by_field_name("condition"), scope)
        a = self.expr(node.child_by_field_name("consequence"), scope)
        b = self.expr(node.child_by_field_name("alternative"), scope)
        afn, bfn = a.fn, b.fn
        if a.type[0] == "int" or b.type[0] == "int":
            at = self.space.operand_type(a.text, self.where(node), a.type)
            bt = self.space.operand_type(b.text, self.where(node), b.type)
            t = usual(at, bt)

            def tern_int(f: Frame) -> Any:
                if cond(f):
                    return conv(as_int(afn(f), f, at, a.text), t)
                return conv(as_int(bfn(f), f, bt, b.text), t)

            return Expr(tern_int, t, node.text.decode("latin-1"), node)

        def tern(f: Frame) -> Any:
            return afn(f) if cond(f) else bfn(f)

        return Expr(tern, a.type, node.text.decode("latin-1"), node)

    def _elvis(self, node, scope):
        """GNU `a ?: b`: a when it is true (evaluated once), else b (`proto ?: "auto"`)."""
        a = self.expr(node.child_by_field_name("condition"), scope)
        b = self.expr(node.child_by_field_name("alternative"), scope)
        afn, bfn, at, text = a.fn, b.fn, a.type, a.text
        both_int = a.type[0] == "int" and b.type[0] == "int"
        t = usual(a.type, b.type) if both_int else a.type

        def elvis(f: Frame) -> Any:
            v = afn(f)
            chosen = v if truth(v, f, at, text) else bfn(f)
            return conv(as_int(chosen, f, t, text), t) if both_int else chosen

        return Expr(elvis, t, node.text.decode("latin-1"), node)

    def _expr_comma_expression(self, node, scope):
        left = self.expr(node.child_by_field_name("left"), scope)
        right = self.expr(node.child_by_field_name("right"), scope)
        lfn, rfn = left.fn, right.fn

        def comma(f: Frame) -> Any:
            lfn(f)
            return rfn(f)

        return Expr(comma, right.type, node.text.decode("latin-1"), node)

    def lvalue(self, node, scope) -> tuple[tuple, Callable[[Frame, Any], None]]:
        """(type, setter) for an assignable expression."""
        while node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        if node.type == "identifier":
            name = node.text.decode("latin-1")
            if name not in scope and name in self.globals:
                return self.global_setter(name)
            if name not in scope:
                raise self.unsupported(node, f"assignment to '{name}', which the code does not declare")
            t = scope[name]

            def set_var(f: Frame, v: Any) -> None:
                f.vars[name] = v

            return t, set_var
        if node.type == "field_expression":
            base = self.expr(node.child_by_field_name("argument"), scope)
            fname = node.child_by_field_name("field").text.decode("latin-1")
            fop = node.child_by_field_name("operator").text.decode()
            bfn = base.fn
            where = self.where(node)

            def set_field(f: Frame, v: Any) -> None:
                obj = bfn(f)
                if isinstance(obj, (LocalStruct, CSeqFile)):
                    f.ctx.writes += 1
                    obj.fields[fname] = v
                    return
                if isinstance(obj, Free):
                    path = member_of(obj, fop, fname).key
                    store(f.ctx, path, f"{path} = {value_name(v, where)}", where)
                    return
                raise Inconclusive(where, f"assignment to member '{fname}' of data the code does not own")

            return FREE, set_field
        if node.type in ("subscript_expression", "pointer_expression"):
            if node.type == "subscript_expression":
                base = self.expr(node.child_by_field_name("argument"), scope)
                index = self.expr(node.child_by_field_name("index"), scope)
            else:
                base = self.expr(node.child_by_field_name("argument"), scope)
                index = Expr(lambda f: 0, S32, "0", None, 0)
            bfn, ifn = base.fn, index.fn
            elem = base.type[1] if base.type[0] in ("array", "ptr") else CHAR
            where = self.where(node)
            line = self.line(node)

            def set_elem(f: Frame, v: Any) -> None:
                obj = bfn(f)
                if isinstance(obj, Mem):
                    obj = Ptr(obj)
                if isinstance(obj, Free):
                    i = as_int(ifn(f), f, index.type, index.text)
                    if isinstance(i, Sym):
                        raise NotProvable("a store at an index computed from the inputs")
                    path = element(obj, i).key
                    store(f.ctx, path, f"{path} = {value_name(v, where)}", where)
                    return
                if not isinstance(obj, Ptr):
                    raise Inconclusive(where, "store through a pointer the code does not own")
                i = as_int(ifn(f), f, index.type, index.text)
                if isinstance(i, Sym):
                    raise NotProvable("a store at an index computed from the inputs")
                et = obj.mem.elem
                size = type_size(et) if et[0] == "int" else 1
                off = obj.off + i * size
                if obj.mem.readonly:
                    raise Inconclusive(where, "store into a string literal")
                if off < 0 or off + size > len(obj.mem.data):
                    if obj.mem.sized_by is not None:
                        raise outside_sized_array(obj.mem, i, line, base.text)
                    raise Inconclusive(where, f"store at index {i} outside the array")
                f.ctx.writes += 1
                if isinstance(v, Sym) or isinstance(obj.mem.data, SymbolicCells):
                    store_symbolic(obj.mem, off, size, et, v, f)
                    return
                val = as_int(v, f, et, "") & ((1 << (8 * size)) - 1)
                obj.mem.data[off:off + size] = val.to_bytes(size, "little")

            return elem, set_elem
        raise self.unsupported(node, f"assignment to {node.type}")

    def _expr_assignment_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        lnode = node.child_by_field_name("left")
        right = self.expr(node.child_by_field_name("right"), scope)
        t, setter = self.lvalue(lnode, scope)
        rfn = right.fn
        text = node.text.decode("latin-1")
        if op == "=":
            if t[0] == "int":
                rt = right.type if right.type[0] == "int" else (self.space.hint(right.text) or U64)

                def assign_int(f: Frame) -> Any:
                    v = conv(as_int(rfn(f), f, rt, right.text), t)
                    setter(f, v)
                    return v

                return Expr(assign_int, t, text, node)

            def assign(f: Frame) -> Any:
                v = rfn(f)
                setter(f, v)
                return v

            return Expr(assign, t, text, node)
        binop = op[:-1]
        current = self.expr(lnode, scope)
        lt = t if t[0] == "int" else U64
        if current.type[0] in ("ptr", "array") and binop in ("+", "-"):
            combined = self._pointer_arith(binop, current, right, node, text)
            cfn = combined.fn
        else:
            # `x += y` keeps the low bits whatever y's type; a quotient does not
            rt = (self.space.operand_type(right.text, self.where(node), right.type) if binop in ("/", "%")
                  else right.type if right.type[0] == "int" else self.space.hint(right.text) or U64)
            cfn, _ = binary(binop, current, right, lt, rt, self.line(node), self.where(node))

        def compound(f: Frame) -> Any:
            v = cfn(f)
            if t[0] == "int":
                v = conv(v, t)
            setter(f, v)
            return v

        return Expr(compound, t, text, node)

    def _expr_update_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        arg_node = node.child_by_field_name("argument")
        current = self.expr(arg_node, scope)
        t, setter = self.lvalue(arg_node, scope)
        cfn = current.fn
        prefix = node.children[0].type in ("++", "--")
        delta = 1 if op == "++" else -1
        it = t if t[0] == "int" else None

        def update(f: Frame) -> Any:
            old = cfn(f)
            if isinstance(old, Mem) and t[0] == "ptr":
                old = Ptr(old)  # a pointer set to an array (`char *p = fb->buf`) points at its start
            if isinstance(old, Ptr):
                new: Any = Ptr(old.mem, old.off + delta * (type_size(old.mem.elem) if old.mem.elem[0] == "int" else 1))
            elif isinstance(old, (list, TablePtr)) or (isinstance(old, Free) and t[0] == "ptr"):
                new = advance(old, delta, "+" if delta > 0 else "-", current.text)  # ++k over the caller's array
            else:
                new = conv(as_int(old, f, it or U64, current.text) + delta, it or U64)
            setter(f, new)
            return new if prefix else old

        return Expr(update, t, node.text.decode("latin-1"), node)

    def _expr_initializer_list(self, node, scope):
        raise self.unsupported(node, "initializer list outside a declaration")

    def _expr_compound_literal_expression(self, node, scope):
        raise self.unsupported(node, "compound literal")

    def _expr_gnu_asm_expression(self, node, scope):
        raise self.unsupported(node, "inline assembly")
