"""Normal forms of a field a proof's trace holds (`fmtcheck.c.outputs.TraceOutput`): two sides are
equal where they print the same literal bytes and the same normal fields, so each form keeps
exactly what changes the bytes (conversion, flags that matter, width, precision, the value's tree)
and drops what cannot (a `-` drops `0`, `u`/`x` ignore `+`, a width of 1 pads nothing).
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c.symbolic import Sym
from fmtcheck.c.symbolic import wrap as sym_wrap
from fmtcheck.c.types import conv
from fmtcheck.kernel import vsprintf


def star_tree(value: Any) -> tuple | None:
    """A `*` width or precision as vsprintf reads it (an int), as a tree."""
    if value is None:
        return None
    return sym_wrap(value, 32, True).tree if isinstance(value, Sym) else ("k", conv(value, ("int", 32, True)))


def starred_int_field(conversion: str, flags: int, width: Any, precision: Any, value: Any, bits: int, signed: bool):
    """`%*d` with a width (or precision) over the inputs (`seq_printf(p, "%*d: ", prec, i)`): the
    field keeps the width's tree, and only the normalisations that hold for every width (a `-`
    drops `0`, `u`/`x` ignore `+` and space). Two such fields are equal when they are the same
    conversion of the same value at the same width: the same bytes for every input."""
    if conversion in "uoxX":
        flags &= ~(vsprintf.PLUS | vsprintf.SPACE)
    if flags & vsprintf.LEFT:
        flags &= ~vsprintf.ZEROPAD
    tree = sym_wrap(value, bits, signed).tree if isinstance(value, Sym) else ("k", conv(value, ("int", bits, signed)))
    return ("int*", "d" if conversion in "di" else conversion, flags, star_tree(width), star_tree(precision), tree)


def norm_int_field(conversion: str, flags: int, width: Any, precision: Any, value: Any, bits: int, signed: bool):
    if isinstance(width, Sym) or isinstance(precision, Sym):
        return starred_int_field(conversion, flags, width, precision, value, bits, signed)
    if width is not None and width < 0:
        flags |= vsprintf.LEFT
        width = -width
    if conversion in "uoxX":
        flags &= ~(vsprintf.PLUS | vsprintf.SPACE)
    if flags & vsprintf.LEFT:
        flags &= ~vsprintf.ZEROPAD
    if width is None or width <= 1:
        width = None
        flags &= ~(vsprintf.ZEROPAD | vsprintf.LEFT)
    if precision is not None and precision <= 1:
        precision = None
    conv = "d" if conversion in "di" else conversion
    return ("int", conv, flags, width, precision, sym_wrap(value, bits, signed).tree)


def unsigned_width(field: tuple, width: Any) -> tuple:
    """A primitive's width that is an input is an `unsigned int`: a negative int overflows the
    record instead of left-justifying as `%*llu` does, so it never equals a `*` width (testing
    decides over the width's stated range)."""
    if not isinstance(width, Sym):
        return field
    return field[:3] + (("unsigned", sym_wrap(width, 32, False).tree),) + field[4:]
