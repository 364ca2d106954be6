"""`seq_printf(m, fmt, ...)` with a format the model cannot read as literals where it is compiled:
a format the caller's data holds (`r->format_str`), a global of another file
(`linux_proc_banner`), a local a helper of the file sets through a pointer
(`get_vma_name(vma, &path, &name, &name_fmt); ... seq_printf(m, name_fmt, name)`).

Such a call is an opaque output event, as a call the input does not define that receives the
seq_file is (`fmtcheck.c.calls`): keyed by the format's value and every argument's value, so both
sides print the same bytes there exactly when they pass the same format and the same arguments.
The format is named by what it denotes (the bytes of a literal, the path of a pointer the caller's
data holds, the contents of a local buffer), never by the name that reaches it. A variadic
argument is received as the type it has after the default promotions, and the format may read it
as any conversion: each argument is named by its value *and* that type, so `x` and `(u64)x` are
different arguments. Two sides that differ there are inconclusive (the bytes are not rendered),
never divergent and never equivalent.
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c.arith import as_int
from fmtcheck.c.types import conv
from fmtcheck.c.values import Expr, Frame, value_key


def compile_opaque_printf(prog, args: list, node, scope: dict) -> Callable[[Frame], None]:
    """The body of a `seq_printf` whose format (args[1]) is not a literal or a choice of
    literals: an opaque event at the offset where the call prints."""
    fmt = prog.expr(args[1], scope)
    exprs = [prog.expr(a, scope) for a in args[2:]]
    where = prog.where(node)

    def opaque_printf(f: Frame) -> None:
        keys = [value_key(fmt.fn(f), f, fmt.type, fmt.text, where)] + [_variadic_key(e, f, where) for e in exprs]
        f.ctx.out.opaque(f"seq_printf({', '.join(keys)})", where)

    return opaque_printf


def _variadic_key(e: Expr, f: Frame, where: str) -> str:
    """An argument by its value (`value_key`) and the type the callee receives it as; an
    integer by its value converted to that type (a field read directly and through an `int`
    local is one argument)."""
    v = e.fn(f)
    promoted = promoted_type(e.type)
    if promoted is not None:
        v = conv(as_int(v, f, e.type, e.text), promoted)
        return f"{value_key(v, f, promoted, e.text, where)}:{'s' if promoted[2] else 'u'}{promoted[1]}"
    tag = "ptr" if e.type[0] in ("ptr", "array") else _plain(e.type)
    return f"{value_key(v, f, e.type, e.text, where)}:{tag}"


def promoted_type(t: tuple) -> tuple | None:
    """The type of an integer variadic argument after the default argument promotions (C11
    6.5.2.2: narrower than int becomes int); None for any other type. A type the model does not
    know is named as it is (the same expression on both sides has the same type)."""
    if t[0] != "int":
        return None
    return ("int", 32, True) if t[1] < 32 else ("int", t[1], t[2])


def _plain(t: Any) -> str:
    return repr(t).replace(" ", "")
