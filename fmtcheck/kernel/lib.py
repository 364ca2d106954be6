"""The kernel library that output code calls, with its real meaning (lib/hexdump.c, bitops,
log2.h, minmax.h, seq_file.h accessors).

Why: a rewrite that uses `hex_asc[x & 0xf]` or `__builtin_clzll(v)` must be judged with what these
are, not as free inputs; a table entry taken as an input lets the two sides disagree about the
kernel's own constants and gives wrong-way verdicts. What is here is a fact about the kernel, the
same in every release fmtcheck models; what is not here stays an uninterpreted function.
"""

from __future__ import annotations

from typing import Callable
from fmtcheck.common.lazyre import lazy_compile

# lib/hexdump.c
HEX_ASC = b"0123456789abcdef"
HEX_ASC_UPPER = b"0123456789ABCDEF"
TABLES: dict[str, bytes] = {"hex_asc": HEX_ASC + b"\0", "hex_asc_upper": HEX_ASC_UPPER + b"\0"}

# accessors that receive the seq_file only to read from it: values, never output events
SEQ_ACCESSORS = frozenset({
    "seq_user_ns", "seq_file_net", "seq_file_single_net", "pde_data", "PDE_DATA", "seq_file_inode",
    "file_inode", "single_open_net_private", "seq_private", "net_generic", "seq_css",
})
# the kernel's locking and RCU calls: they write the lock they are given and nothing a printer reads
_LOCK_CALL = lazy_compile(r"(raw_)?(spin|read|write|mutex|rt_mutex|down|up|rcu_read|srcu_read|rwsem|"
                        r"seqcount|write_seqcount|read_seqcount|local|preempt|percpu_down|percpu_up)"
                        r"(_(lock|unlock|trylock|read|write|read_lock|read_unlock|begin|end|retry|"
                        r"bh|irq|irqsave|irqrestore|nested|interruptible|killable|held))*")


# the kernel's accessors that read through the pointer they get and write nothing
_READ_CALL = lazy_compile(r"(atomic(64|_long)?|local(64)?|refcount|kref|percpu_counter|static_key|"
                        r"u64_stats|seqcount|read_seqcount|raw_read_seqcount)_(read|read_positive|sum|sum_positive|"
                        r"fetch_begin|fetch_retry|begin|retry|enabled)"
                        r"|test_bit|variable_test_bit|constant_test_bit|list_empty|list_empty_careful|hlist_empty|"
                        r"list_is_last|list_is_first|list_is_singular|cpumask_test_cpu|cpumask_weight|bitmap_weight|"
                        r"bitmap_empty|bitmap_full|cpumask_empty|nodes_weight|dev_name|netdev_name|kobject_name|"
                        r"jiffies_to_msecs|jiffies_to_usecs|jiffies_to_clock_t|ktime_to_ns|ktime_to_us|ktime_to_ms")
# words in the names of calls that change what they are given (`atomic_inc_return(&s->n)`)
_WRITER_WORD = lazy_compile(r"(^|_)(inc|dec|add|sub|set|clear|xchg|cmpxchg|update|fill|reset|fold|collect|"
                          r"snapshot|sync|refresh|flush|drain|store|write|put|get_and|and|or|xor)(_|$)")


def may_write_through(name: str | None, discarded: bool) -> bool:
    """May an unknown call that gets a pointer into the caller's data write through it? Yes when
    it is called for what it does (its value thrown away: `fill_stats(s);`) or its name says it
    changes things (`atomic_inc_return`, `foo_update_stats`); never for the kernel's lock and RCU
    primitives, which write only their lock, nor for its read-only accessors (`atomic_read`,
    `test_bit`, `list_empty`). A call used for its value under another name is taken as reading
    (`dev_name(dev)`, `get_counter(s)` in a print's arguments), as the model takes every unknown
    call as a function of its arguments (docs/kernel-model.md)."""
    if name is not None and (_LOCK_CALL.fullmatch(name) or _READ_CALL.fullmatch(name)):
        return False
    return discarded or name is None or _WRITER_WORD.search(name) is not None


# members of struct seq_file that hold the buffer state (modelled by the primitives, not inputs)
SEQ_BUFFER_MEMBERS = frozenset({"buf", "size", "count", "from", "pad_until", "read_pos", "lock"})


def _bits(x: int, width: int) -> int:
    return x & ((1 << width) - 1)


def clz(x: int, width: int) -> int | None:
    """__builtin_clz*: undefined for 0 (None: the caller decides)."""
    x = _bits(x, width)
    return None if x == 0 else width - x.bit_length()


def ctz(x: int, width: int) -> int | None:
    x = _bits(x, width)
    return None if x == 0 else (x & -x).bit_length() - 1


def fls(x: int, width: int) -> int:
    """fls/fls64: 1-based index of the most significant set bit, 0 for 0."""
    return _bits(x, width).bit_length()


def ffs(x: int, width: int) -> int:
    """ffs: 1-based index of the least significant set bit, 0 for 0."""
    x = _bits(x, width)
    return (x & -x).bit_length()


def ilog2(x: int) -> int | None:
    """ilog2: undefined for 0 (the kernel's is -1 at run time for a variable; None here)."""
    x = _bits(x, 64)
    return None if x == 0 else x.bit_length() - 1


def popcount(x: int, width: int) -> int:
    return bin(_bits(x, width)).count("1")


def hex_asc_lo(x: int) -> int:
    return HEX_ASC[x & 0x0F]


def hex_asc_hi(x: int) -> int:
    return HEX_ASC[(x & 0xF0) >> 4]


def hex_asc_upper_lo(x: int) -> int:
    return HEX_ASC_UPPER[x & 0x0F]


def hex_asc_upper_hi(x: int) -> int:
    return HEX_ASC_UPPER[(x & 0xF0) >> 4]


def roundup_pow_of_two(x: int) -> int | None:
    x = _bits(x, 64)
    return None if x == 0 else 1 << (x - 1).bit_length()


# name -> (argument bits, result (bits, signed), function of the argument); None = undefined
PURE: dict[str, tuple[int, tuple[int, bool], Callable[[int], int | None]]] = {
    "__builtin_clz": (32, (32, True), lambda x: clz(x, 32)),
    "__builtin_clzl": (64, (32, True), lambda x: clz(x, 64)),
    "__builtin_clzll": (64, (32, True), lambda x: clz(x, 64)),
    "__builtin_ctz": (32, (32, True), lambda x: ctz(x, 32)),
    "__builtin_ctzl": (64, (32, True), lambda x: ctz(x, 64)),
    "__builtin_ctzll": (64, (32, True), lambda x: ctz(x, 64)),
    "__builtin_popcount": (32, (32, True), lambda x: popcount(x, 32)),
    "__builtin_popcountl": (64, (32, True), lambda x: popcount(x, 64)),
    "__builtin_popcountll": (64, (32, True), lambda x: popcount(x, 64)),
    "hweight8": (8, (32, False), lambda x: popcount(x, 8)),
    "hweight16": (16, (32, False), lambda x: popcount(x, 16)),
    "hweight32": (32, (32, False), lambda x: popcount(x, 32)),
    "hweight64": (64, (32, False), lambda x: popcount(x, 64)),
    "hweight_long": (64, (32, False), lambda x: popcount(x, 64)),
    "fls": (32, (32, True), lambda x: fls(x, 32)),
    "fls64": (64, (32, True), lambda x: fls(x, 64)),
    "fls_long": (64, (32, True), lambda x: fls(x, 64)),
    "__fls": (64, (64, False), lambda x: None if _bits(x, 64) == 0 else fls(x, 64) - 1),
    "ffs": (32, (32, True), lambda x: ffs(x, 32)),
    "__ffs": (64, (64, False), lambda x: None if _bits(x, 64) == 0 else ffs(x, 64) - 1),
    "ilog2": (64, (32, True), ilog2),
    "order_base_2": (64, (32, True), lambda x: 0 if _bits(x, 64) <= 1 else (_bits(x, 64) - 1).bit_length()),
    "roundup_pow_of_two": (64, (64, False), roundup_pow_of_two),
    "is_power_of_2": (64, (8, False), lambda x: int(_bits(x, 64) != 0 and _bits(x, 64) & (_bits(x, 64) - 1) == 0)),
    "hex_asc_lo": (8, (8, True), hex_asc_lo),
    "hex_asc_hi": (8, (8, True), hex_asc_hi),
    "hex_asc_upper_lo": (8, (8, True), hex_asc_upper_lo),
    "hex_asc_upper_hi": (8, (8, True), hex_asc_upper_hi),
}


# the calls fmtcheck.c.calls models by name (its `_builtin_*` methods): a header's definition of
# one of these is never expanded in their place
# include/linux/seqlock.h, u64_stats_sync.h: the test that ends a read section,
# `do { seq = read_seqcount_begin(&s); x = s->x; } while (read_seqcount_retry(&s, seq));`. It is
# true only while a writer interfered, so every pass but the last is done again; what the code
# keeps is the last pass's reads, taken when the test was false. `fmtcheck.c.statements` runs such
# a section once (and checks that a second pass would change nothing), instead of drawing the test.
READ_SECTION_RETRIES = frozenset({
    "read_seqretry", "read_seqcount_retry", "raw_read_seqcount_retry", "__read_seqcount_retry",
    "do_read_seqcount_retry", "do___read_seqcount_retry", "read_seqcount_latch_retry",
    "raw_read_seqcount_latch_retry", "zone_span_seqretry", "u64_stats_fetch_retry",
    "u64_stats_fetch_retry_irq", "u64_stats_fetch_retry_bh", "__u64_stats_fetch_retry",
})

BUILTIN_CALLS = frozenset({
    "num_to_str", "ARRAY_SIZE", "strlen", "memset", "memcpy", "min", "max", "min_t", "max_t", "clamp",
    "hex_byte_pack", "hex_byte_pack_upper", "do_div",
})

_U32, _S32, _U64, _S64 = ("int", 32, False), ("int", 32, True), ("int", 64, False), ("int", 64, True)

# include/linux/math64.h: name -> (dividend, divisor, remainder through the third argument or
# None). The quotient has the dividend's type; each operand is converted to its parameter's type
# first (div_u64's divisor is a u32: 2^32 + 5 divides by 5).
DIVISIONS: dict[str, tuple[tuple, tuple, tuple | None]] = {
    "div_u64": (_U64, _U32, None),
    "div_s64": (_S64, _S32, None),
    "div64_u64": (_U64, _U64, None),
    "div64_s64": (_S64, _S64, None),
    "div64_ul": (_U64, _U64, None),
    "div_u64_rem": (_U64, _U32, _U32),
    "div_s64_rem": (_S64, _S32, _S32),
    "div64_u64_rem": (_U64, _U64, _U64),
}


def hex_byte(x: int, upper: bool = False) -> bytes:
    """hex_byte_pack / hex_byte_pack_upper: the two hex digits of a byte, high first."""
    table = HEX_ASC_UPPER if upper else HEX_ASC
    return bytes((table[(x >> 4) & 0xF], table[x & 0xF]))


def clamp(v: int, lo: int, hi: int) -> int:
    """minmax.h clamp(): min(max(v, lo), hi)."""
    return min(max(v, lo), hi)
