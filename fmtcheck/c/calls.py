"""Compiling calls: functions the input defines, the seq_file primitives, the kernel's library
(`fmtcheck.kernel.lib`) and uninterpreted calls.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c.arith import as_int, c_divide
from fmtcheck.c.copies import whole_copy
from fmtcheck.c.stores import call_may_write, call_result, store, value_name
from fmtcheck.c.nodes import typedef_cast
from fmtcheck.c import symbolic
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.types import CHAR, FREE, S8, S32, U8, U64, VOID, conv, type_size, usual
from fmtcheck.c.values import (
    Expr,
    Frame,
    Free,
    LocalStruct,
    Mem,
    Ptr,
    SeqHandle,
    SymbolicText,
    UndefinedBehaviour,
    Unset,
    refill,
    value_key,
)
from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.kernel import lib
from fmtcheck.kernel.macros import IDENTITY_CALLS
from fmtcheck.kernel.primitives import PRIMITIVES
from fmtcheck.kernel.seq_file import num_to_str


# A pointer to bytes handed to an unknown call is taken as written by it (struct pointers are not yet).
BYTE_POINTERS = frozenset({("ptr", U8), ("ptr", S8)})
# argument types through which a callee can reach the caller's data (FREE: a type not declared)
MAY_POINT = frozenset({"ptr", "array", "free"})


class CallCompiler:
    """Call compilers of `Program`."""

    # -- calls ----------------------------------------------------------------------------
    def call(self, node, scope) -> Expr:
        fnode = node.child_by_field_name("function")
        args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
        name = fnode.text.decode("latin-1") if fnode.type == "identifier" else None
        text = node.text.decode("latin-1")
        cast_to = typedef_cast(fnode)
        if cast_to is not None and len(args) == 1:
            return self._cast_to(cast_to, self.expr(args[0], scope), node, text)
        if name is None:
            return self._call_through_pointer(fnode, args, node, scope, text)
        if name in self.unit.functions:
            return self._call_defined(name, args, node, scope, text)
        if name in PRIMITIVES:
            from fmtcheck.c.outputs import compile_primitive

            return compile_primitive(self, name, args, node, scope, text)
        if name in lib.PURE and len(args) == 1:
            return self._pure_call(name, args[0], node, scope, text)
        if name in lib.DIVISIONS:
            division = self._division(name, args, node, scope, text)
            if division is not None:
                return division
        builtin = getattr(self, "_builtin_" + name, None)
        if builtin is not None:
            return builtin(args, node, scope, text)
        if name in IDENTITY_CALLS:
            if not args:
                raise self.unsupported(node, f"{name}() without an argument")
            return self.expr(args[0], scope)
        if name == "__fc_each":
            raise self.unsupported(node, f"{self.string_bytes(args[0]).decode('latin-1')} outside a loop head")
        return self._call_unknown(name, args, node, scope, text)

    def _call_defined(self, name, args, node, scope, text) -> Expr:
        arg_exprs = [self.expr(a, scope) for a in args]
        if name not in self.compiled:
            self.function(name)
        target = self.compiled[name]
        params = self.signatures.get(name, [])
        fns = [a.fn for a in arg_exprs]
        fnode = self.unit.functions[name]
        ret = self._declared_type(fnode, fnode.child_by_field_name("declarator"))
        where = self.where(node)
        arg_types = [a.type if a.type[0] == "int" else (self.space.hint(a.text) or U64) for a in arg_exprs]
        texts = [a.text for a in arg_exprs]
        binding = {p[0]: t for p, t in zip(params, texts)}

        def call_defined(f: Frame) -> Any:
            values = []
            for k, fn in enumerate(fns):
                v = fn(f)
                if k < len(params) and params[k][1][0] == "int":
                    v = as_int(v, f, arg_types[k], texts[k])
                values.append(v)
            f.ctx.steps += 1
            if f.ctx.steps > f.ctx.limit:
                raise LimitExceeded(where, f"step limit reached ({f.ctx.limit} steps)")
            f.ctx.bindings.append(binding)
            try:
                return target(f.ctx, values)
            finally:
                f.ctx.bindings.pop()

        return Expr(call_defined, ret, text, node)

    def _call_unknown(self, name, args, node, scope, text, callee: Callable[[Frame], str] | None = None) -> Expr:
        """A call the input does not define: a pure function of its callee and argument values,
        shared by both sides. If it receives the seq_file it is an output event (it may print),
        unless it is one of the kernel's accessors that only read from the seq_file. A local
        whose address it receives (`&len`) may be written: afterwards it holds a value that is a
        function of the call, not of the local's name."""
        outs = [self._out_param(a, scope) for a in args]
        arg_exprs = [self.expr(a, scope) for a in args]
        fns = [a.fn for a in arg_exprs]
        types = [a.type for a in arg_exprs]
        texts = [a.text for a in arg_exprs]
        declared = self.return_type(name) if callee is None else None
        if declared is not None and declared[0] == "int":
            self.space.declare_path(text)  # a prototype (the file's, or a header's) gives its type
        hint = declared if declared is not None and declared[0] == "int" else self.space.hint(text)
        where = self.where(node)
        accessor = name in lib.SEQ_ACCESSORS
        writes_through = not accessor and lib.may_write_through(name, _discarded(node))
        has_outs = any(o is not None for o in outs)

        def call_unknown(f: Frame) -> Any:
            values = [None if outs[k] is not None else fn(f) for k, fn in enumerate(fns)]
            keys = [(_out_key(f, outs[k]) if outs[k] is not None else value_key(v, f, types[k], texts[k], where))
                    for k, v in enumerate(values)]
            key = f"{callee(f) if callee else name}({', '.join(keys)})"
            if has_outs:
                _write_outs(f, key, outs, values)
            if all(type(v) is int for v in values):  # (numbers only: nothing to fill, print to or write through)
                if hint is not None and hint[0] == "int":
                    return f.ctx.inputs.int_input(key, hint)
                return Free(call_result(f.ctx, key))
            for k, v in enumerate(values):
                if type(v) is LocalStruct:
                    # the call may have filled it: its fields are now functions of the call
                    refill(f.ctx, v.key, f"{key}->out{k}")
                    v.key, v.zeroed, v.indeterminate, v.view = f"{key}->out{k}", False, False, None
                    v.fields.clear()
            for k, v in enumerate(values):
                if isinstance(v, (Mem, Ptr)):
                    _fill_buffer(f, v, f"{key}->out{k}", where, name or text)
            for v, t in zip(values, types):
                if isinstance(v, Free) and t in BYTE_POINTERS:
                    # The callee may fill the buffer: what is printed from it afterwards depends
                    # on this call too (memory_stat_format(memcg, buf, PAGE_SIZE); seq_puts(m, buf)).
                    v.key = f"{v.key} after {key}"
            if not accessor and any(isinstance(v, SeqHandle) for v in values):
                # it may print: an output event; what it returns is still a function of the call
                # (`memcg = mem_cgroup_from_seq(m); ... memcg->oom_group`), not a fixed 0
                f.ctx.out.opaque(key, where)
                result = Free(key) if hint is None or hint[0] != "int" else 0
            elif hint is not None and hint[0] == "int":
                result = f.ctx.inputs.int_input(key, hint)
            else:
                result = Free(call_result(f.ctx, key))
            if writes_through and any(isinstance(v, Free) and t[0] in MAY_POINT for v, t in zip(values, types)):
                call_may_write(f.ctx, key, where)
            return result

        return Expr(call_unknown, hint or FREE, text, node)

    def _out_param(self, arg, scope) -> tuple[str, tuple] | None:
        """(local name, its type) when an argument is the address of a scalar local."""
        if arg.type != "pointer_expression" or arg.child_by_field_name("operator").text != b"&":
            return None
        inner = arg.child_by_field_name("argument")
        if inner.type != "identifier":
            return None
        name = inner.text.decode("latin-1")
        t = scope.get(name)
        if t is None or t[0] in ("array", "struct"):
            return None
        return name, t

    def _call_through_pointer(self, fnode, args, node, scope, text) -> Expr:
        """`ops->show(m, v)`, `chip->irq_print_chip(d, p)`: an uninterpreted call keyed by the
        callee's value (a path of the caller's data), or the input's own function it names."""
        callee = self.expr(fnode, scope)
        cfn = callee.fn
        where = self.where(node)

        def callee_key(f: Frame) -> str:
            v = cfn(f)
            if isinstance(v, Free):
                return "(" + v.key + ")"
            raise Inconclusive(where, f"call through '{callee.text}', which is not a function the code can name")

        return self._call_unknown(None, args, node, scope, text, callee_key)

    # builtins the kernel provides and whose meaning is fixed
    def _builtin_num_to_str(self, args, node, scope, text):
        """num_to_str(buf, size, n[, width]) as lib/vsprintf.c has it (an input's own C body for
        num_to_str is found first, in `call`)."""

        if len(args) not in (3, 4):
            raise self.unsupported(node, "num_to_str takes 3 or 4 arguments")
        buf, size, n = (self.expr(a, scope) for a in args[:3])
        width = self.expr(args[3], scope) if len(args) == 4 else None
        where = self.where(node)

        def call_num_to_str(f: Frame) -> Any:
            p = buf.fn(f)
            sz = as_int(size.fn(f), f, S32, size.text)
            v = conv(as_int(n.fn(f), f, U64, n.text), U64)
            w = conv(as_int(width.fn(f), f, S32, width.text), S32) if width is not None else 0
            if isinstance(v, Sym) or isinstance(w, Sym) or isinstance(sz, Sym):
                raise NotProvable("num_to_str of an input")
            data = num_to_str(sz, v, w)
            if isinstance(p, Mem):
                p = Ptr(p)
            if not isinstance(p, Ptr) or p.mem.readonly:
                raise Inconclusive(where, "num_to_str into memory the code does not own")
            if p.off + len(data) > len(p.mem.data):
                raise Inconclusive(where, "num_to_str writes past the end of its buffer")
            f.ctx.writes += 1
            p.mem.data[p.off:p.off + len(data)] = data
            return len(data)

        return Expr(call_num_to_str, S32, text, node)

    def _division(self, name, args, node, scope, text) -> Expr | None:
        """div_u64(n, d), div_u64_rem(n, d, &rem) and the rest of math64.h: the quotient in the
        dividend's type, the remainder stored in the local whose address is the third argument.
        None (an uninterpreted call, as before) when the remainder goes anywhere else."""
        dividend_t, divisor_t, rem_t = lib.DIVISIONS[name]
        if len(args) != (3 if rem_t else 2):
            return None
        out = self._out_param(args[2], scope) if rem_t else None
        if rem_t and (out is None or out[1][0] != "int"):
            return None
        operands = _division_operands(self.expr(args[0], scope), self.expr(args[1], scope), dividend_t, divisor_t)
        line = self.line(node)

        def divide(f: Frame) -> Any:
            a, b = operands(f)
            if out is not None:
                f.vars[out[0]] = conv(conv(c_divide("%", a, b, dividend_t, line), rem_t), out[1])
            return c_divide("/", a, b, dividend_t, line)

        return Expr(divide, dividend_t, text, node)

    def _builtin_do_div(self, args, node, scope, text):
        """asm-generic/div64.h `do_div(n, base)`: n (a u64 local) becomes n / (u32)base, and the
        value is the remainder, a u32."""
        name = args[0].text.decode("latin-1") if len(args) == 2 and args[0].type == "identifier" else None
        if name is None or scope.get(name, ("?",))[0] != "int":
            raise self.unsupported(node, "do_div of something other than a local integer")
        local_t = scope[name]
        u64, u32, _ = lib.DIVISIONS["div_u64_rem"]
        operands = _division_operands(self.expr(args[0], scope), self.expr(args[1], scope), u64, u32)
        line = self.line(node)

        def do_div(f: Frame) -> Any:
            a, b = operands(f)
            rem = conv(c_divide("%", a, b, u64, line), u32)
            f.vars[name] = conv(c_divide("/", a, b, u64, line), local_t)
            return rem

        return Expr(do_div, u32, text, node)

    def _builtin_ARRAY_SIZE(self, args, node, scope, text):
        e = self.expr(args[0], scope)
        if e.type[0] != "array" and args[0].type == "field_expression":
            e = Expr(e.fn, self.member_array(args[0], scope) or e.type, e.text, e.node)
        if e.type[0] != "array" or e.type[2] is None:
            raise self.unsupported(node, f"ARRAY_SIZE of '{e.text}' whose size is not known")
        n = e.type[2]
        return Expr(lambda f: n, U64, text, node, n)

    def _builtin_strlen(self, args, node, scope, text):
        e = self.expr(args[0], scope)
        fn = e.fn

        def strlen(f: Frame) -> Any:
            v = fn(f)
            if isinstance(v, Mem):
                v = Ptr(v)
            if isinstance(v, Ptr):
                return len(v.bytes_until_nul())
            if isinstance(v, Free):
                data = f.ctx.inputs.str_input(v.key, self.space.str_domain(e.text))
                if not isinstance(data, (bytes, bytearray)):
                    raise NotProvable("strlen of an input string")  # proof mode: a symbolic string
                return len(data)
            raise Inconclusive(self.where(node), "strlen of a value that is not a string")

        return Expr(strlen, U64, text, node)

    def _builtin_memset(self, args, node, scope, text):
        target = self.expr(args[0], scope)
        value = self.expr(args[1], scope)
        count = self.expr(args[2], scope)

        def memset(f: Frame) -> Any:
            p = target.fn(f)
            if isinstance(p, LocalStruct):
                if as_int(value.fn(f), f, S32, value.text) != 0:
                    raise Inconclusive(self.where(node), "memset of a struct to a byte other than 0")
                zero_struct(f, p)
                return p
            if isinstance(p, Mem):
                p = Ptr(p)
            if isinstance(p, Ptr):
                n = as_int(count.fn(f), f, U64, count.text)
                b = as_int(value.fn(f), f, S32, value.text) & 0xFF
                if p.off + n > len(p.mem.data):
                    raise Inconclusive(self.where(node), "memset past the end of an array")
                f.ctx.writes += 1
                p.mem.data[p.off:p.off + n] = bytes([b]) * n
                return p
            if isinstance(p, Free):
                where = self.where(node)
                b = as_int(value.fn(f), f, S32, value.text)
                n = as_int(count.fn(f), f, U64, count.text)
                store(f.ctx, p.key, f"memset({p.key}, {value_name(b, where)}, {value_name(n, where)})", where)
                return p
            raise Inconclusive(self.where(node), "memset of memory the code does not own")

        return Expr(memset, ("ptr", VOID), text, node)

    def _builtin_memcpy(self, args, node, scope, text):
        dst, src, count = (self.expr(a, scope) for a in args[:3])
        where = self.where(node)
        view = whole_copy(self, args[0], args[2], scope) if len(args) >= 3 else None

        def memcpy(f: Frame) -> Any:
            d, s = dst.fn(f), src.fn(f)
            if view is not None and view(f, s):
                return d
            n = as_int(count.fn(f), f, U64, count.text)
            d = Ptr(d) if isinstance(d, Mem) else d
            s = Ptr(s) if isinstance(s, Mem) else s
            if isinstance(n, Sym):
                raise NotProvable("memcpy length depends on an input")
            if not isinstance(d, Ptr) or not isinstance(s, Ptr) or d.mem.readonly:
                raise Inconclusive(where, "memcpy between memory the code does not own")
            data = s.read(n)
            if d.off + n > len(d.mem.data):
                raise Inconclusive(where, "memcpy past the end of its destination")
            f.ctx.writes += 1
            d.mem.data[d.off:d.off + n] = data
            return d

        return Expr(memcpy, ("ptr", VOID), text, node)

    def _minmax(self, args, node, scope, text, pick):
        exprs = [self.expr(a, scope) for a in args[-2:]]
        types = [self.space.operand_type(e.text, self.where(node), e.type) for e in exprs]
        t = usual(types[0], types[1])
        fns = [e.fn for e in exprs]

        def minmax(f: Frame) -> Any:
            a = conv(as_int(fns[0](f), f, types[0], exprs[0].text), t)
            b = conv(as_int(fns[1](f), f, types[1], exprs[1].text), t)
            return pick(a, b)

        return Expr(minmax, t, text, node)

    def _builtin_min(self, args, node, scope, text):
        return self._minmax(args, node, scope, text, lambda a, b: pick_value("<", a, b))

    def _builtin_max(self, args, node, scope, text):
        return self._minmax(args, node, scope, text, lambda a, b: pick_value(">", a, b))

    _builtin_min_t = _builtin_min
    _builtin_max_t = _builtin_max

    def _builtin_clamp(self, args, node, scope, text):
        if len(args) != 3:
            raise self.unsupported(node, "clamp takes 3 arguments")
        exprs = [self.expr(a, scope) for a in args]
        types = [self.space.operand_type(e.text, self.where(node), e.type) for e in exprs]
        t = usual(usual(types[0], types[1]), types[2])
        fns = [e.fn for e in exprs]

        def clamp(f: Frame) -> Any:
            v, lo, hi = (conv(as_int(fn(f), f, types[k], exprs[k].text), t) for k, fn in enumerate(fns))
            if isinstance(v, Sym) or isinstance(lo, Sym) or isinstance(hi, Sym):
                return pick_value("<", pick_value(">", v, lo), hi)  # min(max(v, lo), hi)
            return lib.clamp(v, lo, hi)

        return Expr(clamp, t, text, node)

    def _pure_call(self, name, arg, node, scope, text) -> Expr:
        """A kernel library function of one integer (bit operations, hex digits): its value."""
        bits, (rbits, rsigned), fn = lib.PURE[name]
        e = self.expr(arg, scope)
        at = ("int", bits, False)
        rt = ("int", rbits, rsigned)
        where = self.where(node)

        def pure(f: Frame) -> Any:
            v = as_int(e.fn(f), f, at, e.text)
            if isinstance(v, Sym):
                raise NotProvable(f"{name} of an input")
            r = fn(conv(v, at))
            if r is None:
                raise UndefinedBehaviour(self.line(node), f"{name}({v}) is undefined") if name.startswith(
                    "__builtin") else Inconclusive(where, f"{name}({v}) is undefined")
            return conv(r, rt)

        if isinstance(e.const, int) and fn(conv(e.const, at)) is not None:
            # of a constant (`ilog2(VM_READ)` in a designator): a constant itself
            value = conv(fn(conv(e.const, at)), rt)
            return Expr(lambda f: value, rt, text, node, value)
        return Expr(pure, rt, text, node)

    def _builtin_hex_byte_pack(self, args, node, scope, text, upper: bool = False):
        """hex_byte_pack(buf, byte): two hex digits at buf, returns buf + 2."""
        if len(args) != 2:
            raise self.unsupported(node, "hex_byte_pack takes 2 arguments")
        dst, val = self.expr(args[0], scope), self.expr(args[1], scope)
        where = self.where(node)

        def pack(f: Frame) -> Any:
            p = dst.fn(f)
            p = Ptr(p) if isinstance(p, Mem) else p
            v = as_int(val.fn(f), f, U8, val.text)
            if isinstance(v, Sym):
                raise NotProvable("hex_byte_pack of an input")
            if not isinstance(p, Ptr) or p.mem.readonly or p.off + 2 > len(p.mem.data) or p.off < 0:
                raise Inconclusive(where, "hex_byte_pack into memory the code does not own")
            p.mem.data[p.off:p.off + 2] = lib.hex_byte(v, upper)
            return Ptr(p.mem, p.off + 2)

        return Expr(pack, ("ptr", CHAR), text, node)

    def _builtin_hex_byte_pack_upper(self, args, node, scope, text):
        return self._builtin_hex_byte_pack(args, node, scope, text, upper=True)


def _division_operands(n: Expr, d: Expr, dividend_t: tuple, divisor_t: tuple) -> Callable[[Frame], tuple[Any, Any]]:
    """A math64.h division's operands as it receives them: the dividend in its parameter's type,
    the divisor in its own (div_u64's u32) and then widened to the dividend's, where C divides."""

    def operands(f: Frame) -> tuple[Any, Any]:
        a = conv(as_int(n.fn(f), f, n.type if n.type[0] == "int" else dividend_t, n.text), dividend_t)
        b = conv(as_int(d.fn(f), f, d.type if d.type[0] == "int" else divisor_t, d.text), divisor_t)
        return a, conv(b, dividend_t)

    return operands


def _discarded(node: Any) -> bool:
    """Is the call's value thrown away (`fill_stats(s);`, `(void)update(p);`)? Such a call is made
    for what it does, not for what it returns."""
    parent = node.parent
    while parent is not None and parent.type in ("cast_expression", "parenthesized_expression"):
        parent = parent.parent
    return parent is not None and parent.type in ("expression_statement", "comma_expression")


def _fill_buffer(f: Frame, v: Any, out_key: str, where: str, callee: str) -> None:
    """A buffer of the code's own handed to an unknown call may be written by it (`snprintf(buf,
    ...)`, `get_name(x, buf)`): a char buffer then holds a string that is a value of the call (the
    same on both sides for the same call with equal arguments); an integer array (`unsigned long
    avnrun[3]; get_avenrun(avnrun, ...)`) holds one such value per element, from where it points
    to the array's end. A string literal or a const table is read-only: the call cannot write it."""
    p = v if isinstance(v, Ptr) else Ptr(v)
    if p.mem.readonly:
        return
    if p.mem.elem not in (CHAR, U8, S8):
        _fill_numbers(f, p, out_key, where, callee)
        return
    room = len(p.mem.data) - p.off
    if room <= 0:
        return
    text = f.ctx.inputs.str_input(out_key, "text")
    if not isinstance(text, (bytes, bytearray)):
        if p.off != 0:
            raise NotProvable(f"the string {callee} writes is an input")
        # proof mode: the buffer holds the call's string, named with the length it is cut to
        f.ctx.writes += 1
        p.mem.data = SymbolicText(len(p.mem.data), f.ctx.inputs.str_input(f"{out_key}[:{room - 1}]", "text"))
        return
    data = bytes(text)[:room - 1] + b"\x00"
    f.ctx.writes += 1
    p.mem.data[p.off:p.off + len(data)] = data


def zero_struct(f: Frame, s: LocalStruct) -> None:
    """`memset(s, 0, sizeof(*s))`: every field reads zero. An array member is the struct's own
    storage and stays so, zeroed in place: the code then adds to its elements (`stat->ios[g] +=
    ...`, part_stat_read_all) and a pointer into it reads the zeros."""
    arrays = {name: v for name, v in s.fields.items() if isinstance(v, Mem)}
    s.fields.clear()
    for name, mem in arrays.items():
        if isinstance(mem.data, bytearray):
            mem.data[:] = bytes(len(mem.data))
        else:  # a proof's cells: fresh zeroed storage of the same size
            mem = Mem(bytearray(len(mem.data)), elem=mem.elem)
        s.fields[name] = mem
    f.ctx.writes += 1
    s.zeroed = True
    s.key, s.indeterminate, s.view = "", False, None


MAX_FILLED_ELEMENTS = 64  # elements of an integer array an unknown call may fill, each an input


def _fill_numbers(f: Frame, p: Ptr, out_key: str, where: str, callee: str) -> None:
    elem = p.mem.elem
    size = type_size(elem) if elem[0] == "int" else 0
    count = (len(p.mem.data) - p.off) // size if size else 0
    if not size or count > MAX_FILLED_ELEMENTS:
        raise Inconclusive(where, f"an array of {elem[1]}-bit values passed to {callee}, which may "
                                  "write it, is not modelled")
    values = [f.ctx.inputs.int_input(f"{out_key}[{k}]", elem) for k in range(count)]
    if any(isinstance(value, Sym) for value in values):
        raise NotProvable(f"the numbers {callee} writes are inputs")
    f.ctx.writes += 1
    mask = (1 << (8 * size)) - 1
    for k, value in enumerate(values):
        at = p.off + k * size
        p.mem.data[at:at + size] = (value & mask).to_bytes(size, "little")


def _out_key(f: Frame, out: tuple[str, tuple]) -> str:
    """`&len` in an uninterpreted call's key: by the value the local holds (the callee may read
    it), `&_` while it holds zero, never by the local's name."""
    value = f.vars.get(out[0], 0)
    if (type(value) is int and value == 0) or type(value) is Unset:
        return "&_"  # nothing set yet (`char *secctx; get(&secctx)`): an out-parameter
    # in a proof, a value of the inputs is named by its expression (`value_key`): the same
    # expression on both sides, the same value, so `unlock(task, &flags)` after `lock(task,
    # &flags)` names one call on both sides
    return "&(" + value_key(value, f, out[1], out[0]) + ")"


def _write_outs(f: Frame, key: str, outs: list, values: list) -> None:
    """After an unknown call: each local it got the address of holds a value of the call."""
    for k, out in enumerate(outs):
        if out is None:
            continue
        name, t = out
        out_key = f"{key}->out{k}"
        f.vars[name] = f.ctx.inputs.int_input(out_key, t) if t[0] == "int" else Free(out_key)


def pick_value(op: str, a: Any, b: Any) -> Any:
    """`a OP b ? a : b` of two values already in their common type (max: OP '>', min: '<'): on an
    input, the choice over the comparison (`symbolic.choose`), a value the proof compares as a
    tree, where a Python comparison of it would stop the proof."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return symbolic.choose(symbolic.compare(op, a, b), a, b)
    return a if (a > b if op == ">" else a < b) else b
