"""A byte-exact model of the seq_file output primitives (fs/seq_file.c, lib/string_helpers.c).

Written from kernel-seq-semantics.md §a and §e, not from kernel code. Each primitive appends to one
buffer of `size` bytes and follows the kernel's own "fits?" rule; when the output does not fit it marks
the buffer overflowed (count == size) so that a seq_read() model can throw the record away and render
it again with a buffer twice as large. The rules differ between primitives (`<` for most, `<=` for
seq_put_hex_ll, putc/pad may fill the very last byte), and those differences change how read() splits
the output, so each one is modelled as the kernel has it.

`SeqFile(size=None)` is an unbounded buffer for pure content modelling: it never overflows, but it
refuses to grow past MAX_OUTPUT bytes (LimitExceeded).

Integers are Python ints, reduced to the C parameter type inside each primitive (unsigned long long
and long long are 64 bits, unsigned int 32). Strings passed where C takes a `const char *` end at
their first NUL byte, as they would in C.
"""

from __future__ import annotations

from fmtcheck.common.errors import LimitExceeded
from fmtcheck.kernel.vsprintf import MAX_OUTPUT, vsnprintf

__all__ = [
    "MAX_OUTPUT",
    "SeqFile",
    "num_to_str",
    "string_escape_mem",
    "ESCAPE_SPACE",
    "ESCAPE_SPECIAL",
    "ESCAPE_NULL",
    "ESCAPE_OCTAL",
    "ESCAPE_ANY",
    "ESCAPE_NP",
    "ESCAPE_ANY_NP",
    "ESCAPE_HEX",
    "ESCAPE_NA",
    "ESCAPE_NAP",
    "ESCAPE_APPEND",
]

# string_escape_mem flags (include/linux/string_helpers.h values).
ESCAPE_SPACE = 0x01
ESCAPE_SPECIAL = 0x02
ESCAPE_NULL = 0x04
ESCAPE_OCTAL = 0x08
ESCAPE_ANY = ESCAPE_SPACE | ESCAPE_OCTAL | ESCAPE_SPECIAL | ESCAPE_NULL
ESCAPE_NP = 0x10
ESCAPE_ANY_NP = ESCAPE_ANY | ESCAPE_NP
ESCAPE_HEX = 0x20
ESCAPE_NA = 0x40
ESCAPE_NAP = 0x80
ESCAPE_APPEND = 0x100

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1

_SPACE_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t", 0x0B: b"\\v", 0x0C: b"\\f"}
_SPECIAL_ESCAPES = {0x5C: b"\\\\", 0x07: b"\\a", 0x1B: b"\\e", 0x22: b'\\"'}
_HEX_LOWER = b"0123456789abcdef"


class SeqFile:
    """One seq_file buffer: `buf` holds the bytes written, `size` is S (None = unbounded).

    Overflow is the kernel's `count == size`. When a primitive overflows, `buf` keeps the bytes
    written before it (the kernel may have left partial bytes, which no reader ever sees) and
    `count` reports `size`.
    """

    def __init__(self, size: int | None = None) -> None:
        if size is not None and size < 0:
            raise ValueError("a seq_file buffer size cannot be negative")
        self.buf = bytearray()
        self.size = size
        self.pad_until = 0
        self._overflow_flagged = False

    # -- state -------------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Bytes in the buffer as the kernel counts them: `size` once overflowed."""
        if self._overflow_flagged and self.size is not None:
            return self.size
        return len(self.buf)

    @count.setter
    def count(self, value: int) -> None:
        """Like the kernel's `m->count = n`: drop bytes back to n (seq_read discards a record this
        way), or set n == size to mark the buffer overflowed."""
        if self.size is not None and value == self.size and value != len(self.buf):
            self._overflow_flagged = True
            return
        if not 0 <= value <= len(self.buf):
            raise ValueError(f"count {value} is outside the {len(self.buf)} bytes written")
        del self.buf[value:]
        self._overflow_flagged = False

    @property
    def overflowed(self) -> bool:
        return self.size is not None and self.count == self.size

    def _set_overflow(self) -> None:
        if self.size is not None:
            self._overflow_flagged = True

    def _fits_below_size(self, extra: int) -> bool:
        """The common rule: count + extra < size (one byte is kept free, as for a trailing NUL)."""
        return self.size is None or self.count + extra < self.size

    def _free(self) -> int:
        """Space left in the buffer; for an unbounded buffer, what MAX_OUTPUT still allows."""
        if self.size is None:
            return MAX_OUTPUT - len(self.buf)
        return self.size - self.count

    def _ensure_capacity(self, extra: int) -> None:
        if len(self.buf) + extra > MAX_OUTPUT:
            raise LimitExceeded("seq_file", f"output exceeds {MAX_OUTPUT} bytes")

    def _append(self, data: bytes) -> None:
        self._ensure_capacity(len(data))
        self.buf += data

    def _put_delimiter(self, delimiter: bytes | None) -> None:
        """NULL and "" print nothing; one char goes through seq_putc, longer ones through seq_puts
        (a non-constant string there, so seq_write). Only the overflow path differs."""
        text = _c_string(delimiter) if delimiter is not None else b""
        if len(text) == 1:
            self.seq_putc(text[0])
        elif text:
            self.seq_write(text)

    # -- primitives --------------------------------------------------------------------------------

    def seq_printf(self, fmt: bytes, *args) -> None:
        """Kernel printf output. Needs count < size before rendering and count + len < size after;
        an unsupported conversion just ends the output early (no overflow)."""
        if self.size is not None and self.count >= self.size:
            self._set_overflow()
            return
        text = vsnprintf(fmt, args)
        if self._fits_below_size(len(text)):
            self._append(text)
        else:
            self._set_overflow()

    def seq_puts(self, s: bytes) -> None:
        """The bytes of s up to its NUL. A 1-char string is treated as a compile-time constant and
        goes through seq_putc (the kernel's inline wrapper); its overflow outcome equals seq_write's."""
        text = _c_string(s)
        if len(text) == 1:
            self.seq_putc(text[0])
        else:
            self.seq_write(text)

    def seq_putc(self, c: int) -> None:
        """One byte (NUL included). Writes even into the last byte, which leaves count == size,
        i.e. overflowed; does nothing (and flags nothing) once count >= size."""
        if isinstance(c, (bytes, bytearray)):
            c = c[0]
        if self.size is not None and self.count >= self.size:
            return
        self._append(bytes([c & 0xFF]))

    def seq_write(self, data: bytes, length: int | None = None) -> int:
        """`length` raw bytes of data (all of it by default). Needs count + length < size.
        Returns 0, or -1 on overflow, like the kernel."""
        chunk = _leading_bytes(data, length)
        if self._fits_below_size(len(chunk)):
            self._append(chunk)
            return 0
        self._set_overflow()
        return -1

    def seq_put_decimal_ull(self, delim: bytes | None, n: int) -> None:
        """delim + n in decimal, no padding: seq_put_decimal_ull_width with width 0."""
        self.seq_put_decimal_ull_width(delim, n, 0)

    def seq_put_decimal_ull_width(self, delim: bytes | None, n: int, width: int) -> None:
        """delim + n in decimal right-aligned in >= width columns, padded with spaces.

        Checks, in order: count + 2 < size before the delimiter; then (width 0 counting as 1)
        count + width < size; then the digits and padding must fit the rest (num_to_str), which
        may fill the buffer exactly and so overflow it."""
        n &= _MASK64
        width &= _MASK32
        if not self._fits_below_size(2):
            self._set_overflow()
            return
        self._put_delimiter(delim)
        width = width or 1
        if not self._fits_below_size(width):
            self._set_overflow()
            return
        self._ensure_capacity(width)
        text = num_to_str(self._free(), n, width)
        if not text:
            self._set_overflow()
            return
        self._append(text)

    def seq_put_decimal_ll(self, delim: bytes | None, n: int) -> None:
        """delim + optional '-' + magnitude, no width. LLONG_MIN prints "-0": negating it wraps
        back to LLONG_MIN, which then takes the single-digit path and writes its low byte + '0'."""
        n = _as_signed64(n)
        if not self._fits_below_size(3):
            self._set_overflow()
            return
        self._put_delimiter(delim)
        if not self._fits_below_size(2):
            self._set_overflow()
            return
        if n < 0:
            self._append(b"-")
            n = _as_signed64(-n)
        if n < 10:
            self._append(bytes([(n + 0x30) & 0xFF]))
            return
        text = num_to_str(self._free(), n, 0)
        if not text:
            self._set_overflow()
            return
        self._append(text)

    def seq_put_hex_ll(self, delim: bytes | None, v: int, width: int) -> None:
        """delim + v in lowercase hex zero-padded to >= width digits. The delimiter goes first with
        no pre-check; the digits need count + D <= size (note <=: filling the buffer exactly
        "fits" but leaves it overflowed)."""
        self._put_delimiter(delim)
        v &= _MASK64
        width &= _MASK32
        length = max(_hex_digit_count(v), width)
        if self.size is not None and self.count + length > self.size:
            self._set_overflow()
            return
        self._ensure_capacity(length)
        digits = _hex_digits(v)
        self._append(b"0" * (length - len(digits)) + digits)

    def seq_setwidth(self, n: int) -> None:
        """Remember the column seq_pad pads to: the current position plus n (a size_t)."""
        self.pad_until = (self.count + (n & _MASK64)) & _MASK64

    def seq_pad(self, c: int) -> None:
        """Spaces up to pad_until, then c (if not NUL) through seq_putc. Padding that would pass
        size overflows and drops c; padding may end exactly at size (overflowed, c not written)."""
        padding = _as_signed32(self.pad_until - self.count)  # the kernel keeps it in an int
        if padding > 0:
            if self.size is not None and padding + self.count > self.size:
                self._set_overflow()
                return
            self._ensure_capacity(padding)  # before allocating the spaces
            self._append(b" " * padding)
        if c & 0xFF:
            self.seq_putc(c)

    def seq_escape(self, s: bytes, esc: bytes) -> None:
        """s with every byte found in esc written as \\ooo. An empty esc escapes every byte
        (modern kernels; before ~5.15 it escaped nothing)."""
        self.seq_escape_str(s, ESCAPE_OCTAL, esc)

    def seq_escape_str(self, s: bytes, flags: int, esc: bytes | None) -> None:
        """seq_escape_mem over the C string s (up to its NUL)."""
        text = _c_string(s)
        self.seq_escape_mem(text, len(text), flags, esc)

    def seq_escape_mem(self, src: bytes, length: int, flags: int, esc: bytes | None) -> None:
        """string_escape_mem of the first `length` bytes; the escaped text must be < free space."""
        escaped = string_escape_mem(_leading_bytes(src, length), flags, esc)
        self._commit_if_below_free(escaped)

    def seq_path(self, path: bytes, esc: bytes) -> None:
        """The d_path text of a path with bytes in esc written as \\ooo (maps uses esc "\\n").

        d_path builds the text at the end of the free space with a NUL after it, then it is
        escaped in place towards the front; both succeed exactly when the escaped text is shorter
        than the free space, so that is the fits rule."""
        text = _c_string(path)
        escape_set = _c_string(esc) if esc is not None else b""
        mangled = b"".join(_octal_escape(b) if b in escape_set else bytes([b]) for b in text)
        self._commit_if_below_free(mangled)

    def _commit_if_below_free(self, text: bytes) -> None:
        """seq_get_buf + seq_commit: accepted only if strictly shorter than the free space."""
        if self.size is not None and len(text) >= self.size - self.count:
            self._set_overflow()
            return
        self._append(text)

    def __repr__(self) -> str:
        return f"SeqFile(size={self.size}, count={self.count}, buf={bytes(self.buf)!r})"


# --------------------------------------------------------------------------------------------------
# Free functions


def num_to_str(size: int, n: int, width: int = 0) -> bytes:
    """The bytes num_to_str(buf, size, n, width) writes: n in decimal, left-padded with spaces to
    `width`. b"" means it returned 0: the digits, or the width, exceed `size`.

    width 0 is the 3-argument form of older kernels (digits only). `size` is a C int,
    `n` an unsigned long long, `width` an unsigned int."""
    size = _as_signed32(size)
    n &= _MASK64
    width &= _MASK32
    digits = _decimal_digits(n)
    if len(digits) > size or width > size:
        return b""
    if width > MAX_OUTPUT:
        raise LimitExceeded("num_to_str", f"width {width} exceeds {MAX_OUTPUT} bytes")
    return b" " * max(width - len(digits), 0) + digits


def string_escape_mem(src: bytes, flags: int, only: bytes | None) -> bytes:
    """The full output of the kernel's string_escape_mem for src.

    With a non-empty `only`, bytes not in it pass through and bytes in it are escaped by the first
    class in `flags` that matches (SPACE, SPECIAL, NULL, OCTAL, HEX), else passed through. A NUL
    byte always counts as "in only" (strchr finds the terminator). None or an empty `only` means
    "no filter": every byte is a candidate. ESCAPE_NP/NA/NAP pass printable/ASCII bytes through
    first (ESCAPE_APPEND exempts the bytes of `only` from that)."""
    only_set = _c_string(only) if only is not None else b""
    has_filter = bool(only_set)
    append = bool(flags & ESCAPE_APPEND)
    out = bytearray()
    for byte in bytes(src):
        in_only = has_filter and (byte == 0 or byte in only_set)
        if _passes_through(byte, flags, has_filter, in_only, append):
            out.append(byte)
        else:
            out += _escape_by_class(byte, flags)
    return bytes(out)


def _passes_through(byte: int, flags: int, has_filter: bool, in_only: bool, append: bool) -> bool:
    """The pass-through rules of string_escape_mem, in the kernel's order."""
    if has_filter and not (append or in_only):
        return True
    exempt = append and in_only
    if not exempt and flags & ESCAPE_NAP and byte < 0x80 and _kernel_isprint(byte):
        return True
    if not exempt and flags & ESCAPE_NP and _kernel_isprint(byte):
        return True
    if not exempt and flags & ESCAPE_NA and byte < 0x80:
        return True
    return False


def _escape_by_class(byte: int, flags: int) -> bytes:
    """The first matching escape class, OCTAL and HEX last; unmatched bytes pass through."""
    if flags & ESCAPE_SPACE and byte in _SPACE_ESCAPES:
        return _SPACE_ESCAPES[byte]
    if flags & ESCAPE_SPECIAL and byte in _SPECIAL_ESCAPES:
        return _SPECIAL_ESCAPES[byte]
    if flags & ESCAPE_NULL and byte == 0:
        return b"\\0"
    if flags & ESCAPE_OCTAL:
        return _octal_escape(byte)
    if flags & ESCAPE_HEX:
        return b"\\x" + bytes([_HEX_LOWER[byte >> 4], _HEX_LOWER[byte & 0xF]])
    return bytes([byte])


def _octal_escape(byte: int) -> bytes:
    return bytes([0x5C, 0x30 + (byte >> 6 & 7), 0x30 + (byte >> 3 & 7), 0x30 + (byte & 7)])


def _kernel_isprint(byte: int) -> bool:
    """The kernel's ctype is Latin-1: 0x20-0x7E and 0xA0-0xFF are printable."""
    return 0x20 <= byte <= 0x7E or byte >= 0xA0


def _decimal_digits(n: int) -> bytes:
    return str(n).encode("ascii")


def _hex_digit_count(v: int) -> int:
    """ceil(bit length / 4), at least 1 (v = 0 is the digit "0")."""
    return max(1, (v.bit_length() + 3) // 4)


def _hex_digits(v: int) -> bytes:
    out = bytearray()
    while True:
        out.append(_HEX_LOWER[v & 0xF])
        v >>= 4
        if not v:
            break
    out.reverse()
    return bytes(out)


def _c_string(data: bytes) -> bytes:
    """A `const char *` argument: everything before the first NUL."""
    data = bytes(data)
    nul = data.find(b"\0")
    return data if nul < 0 else data[:nul]


def _leading_bytes(data: bytes, length: int | None) -> bytes:
    data = bytes(data)
    if length is None:
        return data
    if not 0 <= length <= len(data):
        raise ValueError(f"length {length} is outside the {len(data)} bytes given")
    return data[:length]


def _as_signed64(n: int) -> int:
    n &= _MASK64
    return n - (1 << 64) if n >> 63 else n


def _as_signed32(n: int) -> int:
    n &= _MASK32
    return n - (1 << 32) if n >> 31 else n


def escaped_name(method: str, rest: tuple) -> str | None:
    """How a proof names `seq_escape_str(m, s, flags, esc)` (or `seq_escape(m, s, esc)`, the same
    with ESCAPE_OCTAL) of a string input s, given the arguments after s: the bytes are a function
    of s, flags and esc alone, so both sides escaping one string the same way print one field.
    The name is no input (a concrete rendering that meets it falls back to the interpreter).
    None unless flags and esc are known."""
    if method == "seq_escape":
        method, rest = "seq_escape_str", (ESCAPE_OCTAL, *rest)
    if method != "seq_escape_str" or len(rest) != 2:
        return None
    flags, esc = rest
    if type(flags) is not int or not (esc is None or isinstance(esc, (bytes, bytearray))):
        return None
    return f"escaped[{flags:#x},{bytes(esc).hex() if esc is not None else 'NULL'}]"
