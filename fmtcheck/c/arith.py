"""C arithmetic on interpreter values: truth, integer views, binary operators with wraparound.

The operators work on concrete ints and on `fmtcheck.c.symbolic.Sym` alike, so the same compiled
closures serve testing and proof.
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c.symbolic import Sym
from fmtcheck.c.types import S32, U64, conv, promote, usual
from fmtcheck.c.values import (
    Expr,
    Frame,
    Free,
    LocalStruct,
    Mem,
    Ptr,
    SeqHandle,
    UndefinedBehaviour,
)
from fmtcheck.common.errors import Inconclusive


def as_int(v: Any, f: Frame, t: tuple, text: str) -> Any:
    """An integer from any value: a free path becomes an input of the hinted type."""
    if type(v) is int or isinstance(v, Sym):
        return v
    if isinstance(v, Free):
        return f.ctx.inputs.int_input(v.key, t if t[0] == "int" else U64)
    if isinstance(v, Ptr):
        return 0x1000_0000 + id(v.mem) % 0x1000_0000 * 16 + v.off
    if isinstance(v, (LocalStruct, SeqHandle, Mem)):
        return 0x2000_0000 + id(v) % 0x1000_0000 * 16
    if v is None:
        return 0
    raise Inconclusive(text or "expression", f"value of type {type(v).__name__} used as an integer")


def truth(v: Any, f: Frame, t: tuple, text: str) -> Any:
    if type(v) is int:
        return v != 0
    if isinstance(v, Sym):
        return bool(v)  # raises NotProvable
    if isinstance(v, Free):
        # a value the code did not make, tested for truth: an input (a pointer may be NULL too)
        return f.ctx.inputs.int_input(v.key, t if t[0] == "int" else U64) != 0
    if isinstance(v, (Ptr, Mem, LocalStruct, SeqHandle)):
        return True
    return bool(v)


def binary(op: str, left: Expr, right: Expr, lt: tuple, rt: tuple, line: int, where: str):
    lfn, rfn = left.fn, right.fn
    ltext, rtext = left.text, right.text
    if op in ("<<", ">>"):
        t = promote(lt)
        bits = t[1]
        rtp = promote(rt)

        if op == "<<":
            def shl(f: Frame) -> Any:
                a = conv(as_int(lfn(f), f, lt, ltext), t)
                b = conv(as_int(rfn(f), f, rt, rtext), rtp)
                if type(b) is int and (b < 0 or b >= bits):
                    raise UndefinedBehaviour(line, f"shift by {b} of a {bits}-bit value")
                if t[2] and type(a) is int and a < 0:
                    raise UndefinedBehaviour(line, "left shift of a negative value")
                return conv(a << b, t)
            return shl, t

        def shr(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), rtp)
            if type(b) is int and (b < 0 or b >= bits):
                raise UndefinedBehaviour(line, f"shift by {b} of a {bits}-bit value")
            return a >> b
        return shr, t

    t = usual(lt, rt)
    if op in ("==", "!=", "<", ">", "<=", ">="):
        cmp = _COMPARE[op]

        def compare(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), t)
            return int(cmp(a, b))
        return compare, S32

    arith = _ARITH.get(op)
    if arith is None:
        raise Inconclusive(where, f"unsupported operator {op}")
    signed = t[2]
    lo, hi = (-(1 << (t[1] - 1)), (1 << (t[1] - 1)) - 1) if signed else (0, (1 << t[1]) - 1)

    if op in ("/", "%"):
        def divide(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), t)
            if isinstance(a, Sym) or isinstance(b, Sym):
                return conv(arith(a, b), t)
            if b == 0:
                raise UndefinedBehaviour(line, "division by zero")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            r = q if op == "/" else a - q * b
            if signed and not lo <= r <= hi:
                raise UndefinedBehaviour(line, "signed overflow in division")
            return conv(r, t)
        return divide, t

    if signed and op in ("+", "-", "*"):
        def signed_arith(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), t)
            r = arith(a, b)
            if type(r) is int and not lo <= r <= hi:
                f.ctx.out.note_ub(line, f"signed overflow in '{ltext} {op} {rtext}' (the kernel wraps: -fno-strict-overflow)")
            return conv(r, t)
        return signed_arith, t

    mask = (1 << t[1]) - 1

    def unsigned_arith(f: Frame) -> Any:
        a = as_int(lfn(f), f, lt, ltext)
        b = as_int(rfn(f), f, rt, rtext)
        if type(a) is int and type(b) is int:
            return arith(conv(a, t), conv(b, t)) & mask
        return conv(arith(conv(a, t), conv(b, t)), t)
    return unsigned_arith, t


_ARITH = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "/": lambda a, b: a // b, "%": lambda a, b: a % b,
}


_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}
