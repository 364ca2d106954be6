"""C integer types as the interpreter models them: widths, signedness, promotions, conversions.
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c.symbolic import Sym
from fmtcheck.c.symbolic import compare as sym_compare
from fmtcheck.c.symbolic import wrap as sym_wrap
from fmtcheck.common.errors import Inconclusive

# C types are small tuples: ("int", bits, signed), ("ptr", elem), ("array", elem, n),
# ("struct", name), ("void",), ("free",) for a value whose type only its use decides.
U64 = ("int", 64, False)


S64 = ("int", 64, True)


U32 = ("int", 32, False)


S32 = ("int", 32, True)


U8 = ("int", 8, False)


S8 = ("int", 8, True)


CHAR = S8


VOID = ("void",)


FREE = ("free",)


CHAR_PTR = ("ptr", CHAR)


BASE_TYPES = {
    "char": S8, "signed char": S8, "unsigned char": U8, "u8": U8, "s8": S8, "__u8": U8, "__s8": S8,
    "short": ("int", 16, True), "unsigned short": ("int", 16, False), "u16": ("int", 16, False),
    "s16": ("int", 16, True), "__u16": ("int", 16, False), "__s16": ("int", 16, True),
    "int": S32, "signed": S32, "unsigned": U32, "unsigned int": U32, "u32": U32, "s32": S32,
    "__u32": U32, "__s32": S32, "long": S64, "unsigned long": U64, "long long": S64,
    "unsigned long long": U64, "u64": U64, "s64": S64, "__u64": U64, "__s64": S64,
    "size_t": U64, "ssize_t": S64, "loff_t": S64, "off_t": S64, "ptrdiff_t": S64, "uintptr_t": U64,
    "bool": ("int", 8, False, "bool"), "_Bool": ("int", 8, False, "bool"), "pid_t": S32, "uid_t": U32, "gid_t": U32, "umode_t": ("int", 16, False),
    "atomic_long_t": S64, "atomic_t": S32, "time64_t": S64, "ktime_t": S64, "dev_t": U32,
    "sector_t": U64, "blkcnt_t": U64, "phys_addr_t": U64, "resource_size_t": U64, "gfp_t": U32,
    "vm_flags_t": U64, "pgoff_t": U64, "long int": S64, "unsigned long int": U64, "short int": ("int", 16, True),
}


def int_type(t: tuple) -> tuple:
    """The integer type a value of type t behaves as (pointers as u64, free values as u64)."""
    return t if t[0] == "int" else U64


def promote(t: tuple) -> tuple:
    t = int_type(t)[:3]
    return S32 if t[1] < 32 else t


def usual(a: tuple, b: tuple) -> tuple:
    """C's usual arithmetic conversions over (bits, signed) integer types."""
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a[2] == b[2]:
        return a if a[1] >= b[1] else b
    unsigned, signed = (a, b) if not a[2] else (b, a)
    if unsigned[1] >= signed[1]:
        return unsigned
    return signed


def conv(v: Any, t: tuple) -> Any:
    """Convert a value to integer type t (truncate, sign-extend; bool is 0 or 1)."""
    if len(t) > 3 and t[3] == "bool":
        if isinstance(v, Sym):
            # in a proof, a value of the inputs made a bool is its comparison with 0 (C's rule),
            # where Python's truth of it would stop the proof
            return sym_wrap(sym_compare("!=", v, 0), t[1], t[2])
        return 1 if v else 0
    if type(v) is int:
        bits = t[1]
        v &= (1 << bits) - 1
        if t[2] and v >> (bits - 1):
            v -= 1 << bits
        return v
    if isinstance(v, Sym):
        return sym_wrap(v, t[1], t[2])
    raise TypeError(v)


def struct_sized(t: tuple) -> bool:
    """A struct, or an array of known length of structs, whose size only the kernel knows."""
    while t[0] == "array" and t[2] is not None:
        t = t[1]
    return t[0] == "struct" and t[1] not in ("?", "seq_file")


def type_size(t: tuple) -> int:
    kind = t[0]
    if kind == "int":
        return t[1] // 8
    if kind == "ptr":
        return 8
    if kind == "array":
        return type_size(t[1]) * t[2]
    raise Inconclusive("sizeof", f"size of {t} is not known to the model")
