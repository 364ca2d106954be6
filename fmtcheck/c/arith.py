"""C arithmetic on interpreter values: truth, integer views, binary operators with wraparound.

The operators work on concrete ints and on `fmtcheck.c.symbolic.Sym` alike, so the same compiled
closures serve testing and proof.

Shifts follow the compiler the kernel is built with, not ISO C's list of undefined behaviour:
GCC documents that it does not treat a signed `<<` as undefined (it shifts the two's-complement
bits; only UBSAN reports it) and the kernel builds with -fno-strict-overflow, so a left shift of
a negative value, or one that shifts bits into or past the sign bit, is defined here as the
two's-complement wrap to the promoted left operand's type (`(s64)-1 << 2` is -4, `1 << 31` is
INT_MIN). A shift count that is negative or at least the promoted left operand's width stays
undefined behaviour (GCC gives no meaning to it and the hardware masks the count differently per
architecture); the fast path (fmtcheck.engine.fastpath) keeps both rules.
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c import symbolic
from fmtcheck.c.coverage import input_reads, reads_before
from fmtcheck.c.symbolic import Sym
from fmtcheck.c.types import S32, U64, conv, promote, usual
from fmtcheck.c.values import (
    MAX_CHAIN,
    Expr,
    Frame,
    Free,
    LocalStruct,
    Mem,
    Ptr,
    SeqHandle,
    TablePtr,
    UndefinedBehaviour,
    past_chain_bound,
)
from fmtcheck.common.errors import Inconclusive


def as_int(v: Any, f: Frame, t: tuple, text: str) -> Any:
    """An integer from any value: a free path becomes an input of the hinted type."""
    if type(v) is int or isinstance(v, Sym):
        return v
    if isinstance(v, Free):
        key = v.key
        cut = key.rfind("->")  # (past_chain_bound inlined: every read of an input passes here)
        if cut >= 0 and key.count(key[cut:]) > MAX_CHAIN:  # whatever type was assumed: the caller's data
            if getattr(f.ctx.inputs, "symbolic", False):
                raise symbolic.NotProvable("a pointer chain longer than testing follows")
            return 0  # the end of a pointer chain over data the code does not define
        return f.ctx.inputs.int_input(key, t if t[0] == "int" else U64)
    scope = v.mem.file_scope if isinstance(v, Ptr) else getattr(v, "file_scope", None)
    if scope is not None:
        # the address of a file's global, compared with the caller's pointer: an input named by
        # the global (the same on both sides), never a Python object id
        offset = v.off if isinstance(v, Ptr) else 0
        return f.ctx.inputs.int_input(f"&{scope}" + (f"+{offset}" if offset else ""), U64)
    if isinstance(v, (Ptr, LocalStruct, SeqHandle, Mem)):
        # an address the code's own memory has at run time: not known, and nothing both sides
        # share (comparisons of such pointers are decided by `owned_compare`)
        raise Inconclusive(text or "expression", f"the address of a local object ('{text}') used as a number")
    if v is None:
        return 0
    raise Inconclusive(text or "expression", f"value of type {type(v).__name__} used as an integer")


def truth(v: Any, f: Frame, t: tuple, text: str) -> Any:
    v = truth_value(v, f, t, text)
    if isinstance(v, Sym):
        return branch(v, f)
    return v


def truth_value(v: Any, f: Frame, t: tuple, text: str) -> Any:
    """A tested value as a truth: a bool, or a symbol when it depends on the inputs."""
    if type(v) is int:
        return v != 0
    if isinstance(v, Sym):
        return v
    if isinstance(v, Free):
        # a value the code did not make, tested for truth: an input (a pointer may be NULL too)
        if past_chain_bound(v.key):  # whatever type was assumed for it: a Free is the caller's data
            if getattr(f.ctx.inputs, "symbolic", False):
                raise symbolic.NotProvable("a pointer chain longer than testing follows")
            return False  # the end of a pointer chain over data the code does not define
        x = f.ctx.inputs.int_input(v.key, t if t[0] == "int" else U64)
        return x if isinstance(x, Sym) else x != 0
    if isinstance(v, (Ptr, Mem, LocalStruct, SeqHandle, TablePtr)):
        return True
    return bool(v)


def branch(v: Sym, f: Frame) -> bool:
    """A branch on an input outside a row: the path source picks the way (or refuses)."""
    pick = getattr(f.ctx.inputs, "branch", None)
    if pick is None:
        return bool(v)  # raises NotProvable
    return pick(v)


_OWNED = (Ptr, Mem, LocalStruct, SeqHandle, TablePtr)


def owned_compare(op: str, a: Any, b: Any) -> int | None:
    """A comparison of pointers to the code's own objects, by identity: two such pointers are
    equal when they point at the same byte of the same object, and none equals the caller's data
    or NULL (a pointer the caller gives cannot point into the show function's locals). None
    when neither operand is such a pointer; ordering of two objects is not known (inconclusive)."""
    if not isinstance(a, _OWNED) and not isinstance(b, _OWNED):
        return None
    pa, pb = _place(a), _place(b)
    if (pa is None and _file_scope(pb)) or (pb is None and _file_scope(pa)):
        return None  # the caller's pointer may point at the file's global: an input (see as_int)
    if pa is None or pb is None:
        if op in ("==", "!="):
            other = b if pa is not None else a
            if isinstance(other, Free) or (type(other) is int and other == 0) or other is None:
                return int(op == "!=")
        return None
    if pa[0] is not pb[0]:
        if op in ("==", "!="):
            return int(op == "!=")
        raise Inconclusive("expression", "the order of the addresses of two local objects is not known")
    return int(_COMPARE[op](pa[1], pb[1]))


def compared_operands(op: str, f: Frame, lfn, rfn, lt: tuple, rt: tuple, ltext: str, rtext: str,
                      t: tuple) -> tuple[int | None, Any, Any]:
    """The two operands of a comparison in its type, or the result when they are pointers to the
    code's own objects (`owned_compare`)."""
    a, b = lfn(f), rfn(f)
    owned = owned_compare(op, a, b)
    if owned is not None:
        return owned, a, b
    if op in ("==", "!=") and (_chain_end(f, a) and _is_null(b) or _chain_end(f, b) and _is_null(a)):
        return int(op == "=="), a, b  # `p != NULL` at the end of a pointer chain, as `p` (truth_value)
    return None, conv(as_int(a, f, lt, ltext), t), conv(as_int(b, f, rt, rtext), t)


def _chain_end(f: Frame, v: Any) -> bool:
    """A free pointer further down a chain than testing follows (proof mode: not provable)."""
    if not isinstance(v, Free) or not past_chain_bound(v.key):
        return False
    if getattr(f.ctx.inputs, "symbolic", False):
        raise symbolic.NotProvable("a pointer chain longer than testing follows")
    return True


def _is_null(v: Any) -> bool:
    return v is None or (type(v) is int and v == 0)


def _file_scope(place: tuple[Any, int] | None) -> str | None:
    return getattr(place[0], "file_scope", None) if place is not None else None


def _place(v: Any) -> tuple[Any, int] | None:
    if isinstance(v, Ptr):
        return v.mem, v.off
    if isinstance(v, TablePtr):
        return v.table, v.index
    if isinstance(v, list):
        return v, 0
    if isinstance(v, (Mem, LocalStruct, SeqHandle)):
        return v, 0
    return None


def _observed_compare(compare, op, lfn, rfn, lt, rt, t, ltext, rtext, site):
    """`compare`, telling the side's coverage (when it keeps one) the operands and the inputs
    they read; an unsigned value against 0 in a direction that cannot change is not asked for
    (`x >= 0`), but a comparison already asked for shows its outcome there too: `max > 0` is false
    exactly when max is 0."""
    cmp = _COMPARE[op]
    text = f"{ltext} {op} {rtext}"
    unsigned = not t[2]

    def observed(f: Frame) -> Any:
        coverage = f.ctx.coverage
        if coverage is None:
            return compare(f)
        reads = input_reads(f.ctx.inputs)
        start = len(reads) if reads is not None else 0
        owned, a, b = compared_operands(op, f, lfn, rfn, lt, rt, ltext, rtext, t)
        if owned is not None:
            return owned
        result = int(cmp(a, b))
        if type(a) is int and type(b) is int and (site in coverage.sites or not (
                unsigned and ((b == 0 and op in ("<", ">=")) or (a == 0 and op in (">", "<="))))):
            coverage.observe(site, text, bool(result), None, reads[start:] if reads else [], (a, b),
                             reads_before(reads, start) if reads else None)
        return result

    return observed


def observed_truth(fn, t: tuple, text: str, site: str, test=truth):
    """A condition's truth, told to the side's coverage (when it keeps one); with `truth_value`
    as `test`, a symbol when it depends on the inputs (an `if` traced as a row)."""

    def cond(f: Frame) -> Any:
        coverage = f.ctx.coverage
        if coverage is None:
            v = fn(f)
            return v != 0 if type(v) is int else test(v, f, t, text)
        reads = input_reads(f.ctx.inputs)
        start = len(reads) if reads is not None else 0
        v = fn(f)
        outcome = v != 0 if type(v) is int else test(v, f, t, text)
        if not isinstance(outcome, Sym):
            value = v if type(v) is int else (v.key if isinstance(v, Free) else type(v).__name__)
            coverage.observe(site, text, bool(outcome), value, reads[start:] if reads else [])
        return outcome

    return cond


def binary(op: str, left: Expr, right: Expr, lt: tuple, rt: tuple, line: int, where: str,
           site: str | None = None):
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
                return conv(a << b, t)  # a negative `a`, or bits into the sign: wraps (see above)
            return shl, t

        def shr(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), rtp)
            if type(b) is int and (b < 0 or b >= bits):
                raise UndefinedBehaviour(line, f"shift by {b} of a {bits}-bit value")
            if isinstance(b, Sym):
                # the same value; the tree then names the operand's width, which the fast path
                # needs to refuse a count at or over it (fastpath.compile_tree)
                return conv(a >> b, t)
            return a >> b
        return shr, t

    t = usual(lt, rt)
    if op in ("==", "!=", "<", ">", "<=", ">="):
        cmp = _COMPARE[op]

        def compare(f: Frame) -> Any:
            owned, a, b = compared_operands(op, f, lfn, rfn, lt, rt, ltext, rtext, t)
            if owned is not None:
                return owned
            if isinstance(a, Sym) or isinstance(b, Sym):
                return symbolic.compare(op, a, b)
            return int(cmp(a, b))
        if site is None:
            return compare, S32
        return _observed_compare(compare, op, lfn, rfn, lt, rt, t, ltext, rtext, site), S32

    arith = _ARITH.get(op)
    if arith is None:
        raise Inconclusive(where, f"unsupported operator {op}")
    signed = t[2]
    lo, hi = (-(1 << (t[1] - 1)), (1 << (t[1] - 1)) - 1) if signed else (0, (1 << t[1]) - 1)

    if op in ("/", "%"):
        def divide(f: Frame) -> Any:
            a = conv(as_int(lfn(f), f, lt, ltext), t)
            b = conv(as_int(rfn(f), f, rt, rtext), t)
            return c_divide(op, a, b, t, line)
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


def c_divide(op: str, a: Any, b: Any, t: tuple, line: int) -> Any:
    """C's `a / b` or `a % b` of operands already converted to t: the quotient truncates toward
    zero and the remainder takes the dividend's sign; a zero divisor (or INT_MIN / -1) is
    undefined. Symbolic operands give the tree the compiled traces compute the same way."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return conv(_ARITH[op](a, b), t)
    if b == 0:
        raise UndefinedBehaviour(line, "division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    r = q if op == "/" else a - q * b
    if t[2] and not -(1 << (t[1] - 1)) <= r < (1 << (t[1] - 1)):
        raise UndefinedBehaviour(line, "signed overflow in division")
    return conv(r, t)


_ARITH = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "/": lambda a, b: a // b, "%": lambda a, b: a % b,
}


_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}
