"""Formatting into a buffer of the code's own: sprintf, snprintf, scnprintf (lib/vsprintf.c).

A mixin of `fmtcheck.c.program.Program`, beside the call compiler that dispatches to it.
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c.arith import as_int
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.types import CHAR, S8, S32, U8, U64
from fmtcheck.c.values import Expr, Frame, Mem, Ptr, value_key
from fmtcheck.kernel.vsprintf import Directive, parse_format


class FormattingCompiler:
    """sprintf-family builtins of `Program`."""

    def _builtin_sprintf(self, args, node, scope, text):
        return self._formatting_call("sprintf", args, node, scope, text)

    def _builtin_snprintf(self, args, node, scope, text):
        return self._formatting_call("snprintf", args, node, scope, text)

    def _builtin_scnprintf(self, args, node, scope, text):
        return self._formatting_call("scnprintf", args, node, scope, text)

    def _formatting_call(self, name, args, node, scope, text) -> Expr:
        """`off = scnprintf(buf, sizeof(buf) - 1, "%pI4", addr)` into a buffer of the code's own:
        the string written is a value of the call (of its size, format and arguments, the same
        on both sides), cut to the size the call is given and to the buffer; what it returns is
        what lib/vsprintf.c returns for that string: the bytes written (scnprintf, sprintf) or
        the whole string's length (snprintf), never a free number (an index `buf[off]` past the
        buffer). A buffer the code does not own, or a format that may write a NUL (`%c`, not a
        literal), leaves it an uninterpreted call."""
        unknown = self._call_unknown(name, args, node, scope, text)
        sized = name != "sprintf"
        from fmtcheck.c.outputs import literal_bytes

        at = 2 if sized else 1  # the format
        fmt = literal_bytes(args[at]) if len(args) > at else None
        if fmt is None or any(isinstance(it, Directive) and it.conversion == "c" for it in parse_format(fmt)):
            return unknown
        buf = self.expr(args[0], scope)
        size = self.expr(args[1], scope) if sized else None
        rest = [self.expr(a, scope) for a in args[1:]]
        where = self.where(node)

        def formatting_call(f: Frame) -> Any:
            p = buf.fn(f)
            p = Ptr(p) if isinstance(p, Mem) else p
            if not isinstance(p, Ptr) or p.mem.readonly or p.mem.elem not in (CHAR, U8, S8):
                return unknown.fn(f)
            keys = [value_key(e.fn(f), f, e.type, e.text, where) for e in rest]
            whole = f.ctx.inputs.str_input(f"{name}({', '.join(keys)})", "text")
            if not isinstance(whole, (bytes, bytearray)):
                raise NotProvable(f"the string {name} writes is an input")
            limit = len(p.mem.data) - p.off
            if sized:
                n = as_int(size.fn(f), f, U64, size.text)
                if isinstance(n, Sym):
                    raise NotProvable(f"the size given to {name} is an input")
                limit = min(limit, n)
            if limit <= 0:
                return len(whole) if name == "snprintf" else 0
            data = bytes(whole)[:limit - 1]
            f.ctx.writes += 1
            p.mem.data[p.off:p.off + len(data) + 1] = data + b"\x00"
            return len(whole) if name == "snprintf" else len(data)

        return Expr(formatting_call, S32, text, node)
