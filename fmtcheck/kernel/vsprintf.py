"""A byte-exact model of the kernel's printf (lib/vsprintf.c: vsnprintf, format_decode, number).

Written from kernel-seq-semantics.md §b and §e, not from kernel code. The kernel's printf is not ISO C:
`%.0d` of 0 prints "0", `0` plus a precision still zero-fills, `#x` of 0 prints "0x0", an unsupported
conversion silently ends the output, `%p` hashes and swallows every letter or digit after it. Python's
`%` and `format()` get several of these wrong, so this module renders every directive itself.

Modelled kernel: ~6.13+ (table-driven format_decode), 64-bit, PAGE_SIZE 4096, hashed pointers ready
(never "(____ptrval____)"), kptr_restrict = 0 (so `%pK` behaves like `%p`).

Resource bounds (the model's own, not the kernel's): a field width or precision above MAX_FIELD raises
`LimitExceeded` instead of allocating, and a single vsnprintf result may not exceed MAX_OUTPUT bytes.
"""

from __future__ import annotations

import functools
import zlib

from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.common.plain import plain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Any, Sequence

# Flag bits. The values are the kernel's own (lib/vsprintf.c); only their names matter to callers.
LEFT = 2
PLUS = 4
SPACE = 8
ZEROPAD = 16
SPECIAL = 64

MAX_FIELD = 1 << 20  # widest width/precision the model renders (the kernel would render up to INT_MAX)
MAX_OUTPUT = 16 << 20  # largest output one vsnprintf call (or one seq_file buffer) may produce

PRECISION_MAX = (1 << 15) - 1  # precision is a 16-bit signed field in the kernel
PAGE_SIZE = 4096
MAX_ERRNO = 4095
POINTER_DIGITS = 16  # 2 * sizeof(void *) on a 64-bit kernel

_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_INT_MIN = -(1 << 31)

_FLAG_BITS = {ord("-"): LEFT, ord("+"): PLUS, ord(" "): SPACE, ord("#"): SPECIAL, ord("0"): ZEROPAD}
_DOUBLED_LENGTHS = {ord("h"): "hh", ord("l"): "ll"}  # only h and l have a doubled form
_SINGLE_LENGTHS = {ord("h"): "h", ord("l"): "l", ord("L"): "L", ord("H"): "H", ord("z"): "z", ord("t"): "t"}
_LENGTH_BITS = {"": 32, "hh": 8, "H": 8, "h": 16, "l": 64, "ll": 64, "L": 64, "z": 64, "t": 64}
_INTEGER_CONVERSIONS = "diuoxX"
_CONVERSIONS = frozenset(b"diuoxXcsp%")
_BASES = {"o": 8, "x": 16, "X": 16}

# First characters after %p that select a kernel extension this model does not render (6.17's list).
# Any other letter or digit is unknown to the kernel too, which then prints a plain hashed %p.
_UNMODELLED_POINTER_EXTENSIONS = frozenset(b"SsBRrhbMmIiEUVN4adtCDgGOfAuk")

_DIGITS_LOWER = b"0123456789abcdef"
_DIGITS_UPPER = b"0123456789ABCDEF"

# A symbolic pointer (an object with a `key`) has no real address; %px prints this base plus its hash.
_SYMBOLIC_ADDRESS_BASE = 0xFFFF_8880_0000_0000


# --------------------------------------------------------------------------------------------------
# Directives


@plain(frozen=True)
class Directive:
    """One parsed `%...` directive, as format_decode sees it."""

    text: bytes  # the directive as written, e.g. b"%-7llu" (for %p, including the swallowed suffix)
    offset: int  # byte offset of '%' in the format
    flags: int  # bitmask of LEFT, PLUS, SPACE, SPECIAL, ZEROPAD
    width: int | None  # None = unset; ignored if width_star
    width_star: bool
    precision: int | None  # None = unset; literal digits already wrapped to the 16-bit field
    precision_star: bool
    length: str  # '', 'hh', 'h', 'H', 'l', 'll', 'L', 'z', 't'
    conversion: str  # one of 'd','i','u','o','x','X','c','s','p','%'
    pointer_ext: bytes = b""  # for 'p': the letters/digits swallowed after it

    @property
    def is_integer(self) -> bool:
        return self.conversion in _INTEGER_CONVERSIONS

    @property
    def bits(self) -> int:
        """Width of the value the conversion reads: the length modifier for integers, 8 for %c
        (an int cast to unsigned char), 64 for the pointers of %s/%p, 0 for %% (reads nothing)."""
        if self.is_integer:
            return _LENGTH_BITS[self.length]
        return {"c": 8, "s": 64, "p": 64}.get(self.conversion, 0)

    @property
    def signed(self) -> bool:
        return self.conversion in "di"

    @property
    def base(self) -> int:
        return _BASES.get(self.conversion, 10)

    @property
    def nargs(self) -> int:
        """Arguments consumed, in order: '*' width, '.*' precision, then the value (none for %%)."""
        return int(self.width_star) + int(self.precision_star) + int(self.conversion != "%")


@plain(frozen=True)
class InvalidDirective:
    """A directive the kernel rejects: output stops at `offset` (always the last parsed element)."""

    text: bytes
    offset: int
    reason: str


FormatItem = bytes | Directive | InvalidDirective


# --------------------------------------------------------------------------------------------------
# Parsing (format_decode)


def parse_format(fmt: bytes) -> list[FormatItem]:
    """Split a format into literal byte runs and directives, in order.

    Like a C string the format ends at its first NUL byte. Parsing stops after an InvalidDirective,
    because the kernel prints nothing from there on. Results are cached; the list is a fresh copy.
    """
    return list(_parse_format_cached(bytes(fmt)))


@functools.lru_cache(maxsize=4096)
def _parse_format_cached(fmt: bytes) -> tuple[FormatItem, ...]:
    nul = fmt.find(b"\0")
    if nul >= 0:
        fmt = fmt[:nul]
    items: list[FormatItem] = []
    pos = 0
    while pos < len(fmt):
        percent = fmt.find(b"%", pos)
        if percent < 0:
            items.append(fmt[pos:])
            break
        if percent > pos:
            items.append(fmt[pos:percent])
        item, pos = _parse_directive(fmt, percent)
        items.append(item)
        if isinstance(item, InvalidDirective):
            break
    return tuple(items)


parse_format.cache_info = _parse_format_cached.cache_info  # type: ignore[attr-defined]
parse_format.cache_clear = _parse_format_cached.cache_clear  # type: ignore[attr-defined]


def _parse_directive(fmt: bytes, start: int) -> tuple[Directive | InvalidDirective, int]:
    """Parse `%[flags][width][.precision][length]conversion` starting at the '%' at `start`."""
    pos = start + 1
    flags, pos = _parse_flags(fmt, pos)
    width, width_star, pos = _parse_width(fmt, pos)
    precision, precision_star, pos = _parse_precision(fmt, pos)
    length, pos = _parse_length(fmt, pos)
    if pos >= len(fmt):
        return InvalidDirective(fmt[start:], start, "format ends inside a directive"), len(fmt)
    conversion = fmt[pos]
    pos += 1
    if conversion not in _CONVERSIONS:
        reason = f"unsupported conversion {chr(conversion)!r}"
        return InvalidDirective(fmt[start:pos], start, reason), pos
    pointer_ext = b""
    if conversion == ord("p"):
        ext_end = pos
        while ext_end < len(fmt) and _kernel_isalnum(fmt[ext_end]):
            ext_end += 1
        pointer_ext, pos = fmt[pos:ext_end], ext_end
    directive = Directive(
        text=fmt[start:pos],
        offset=start,
        flags=flags,
        width=width,
        width_star=width_star,
        precision=precision,
        precision_star=precision_star,
        length=length,
        conversion=chr(conversion),
        pointer_ext=pointer_ext,
    )
    return directive, pos


def _parse_flags(fmt: bytes, pos: int) -> tuple[int, int]:
    """Any number of flags in any order; a '0' here is a flag, so width digits start at 1-9."""
    flags = 0
    while pos < len(fmt) and fmt[pos] in _FLAG_BITS:
        flags |= _FLAG_BITS[fmt[pos]]
        pos += 1
    return flags, pos


def _parse_width(fmt: bytes, pos: int) -> tuple[int | None, bool, int]:
    if pos < len(fmt) and fmt[pos] == ord("*"):
        return None, True, pos + 1
    digits, pos = _read_digits(fmt, pos)
    if not digits:
        return None, False, pos
    # Absurd literal widths are kept as a (still absurd) 18-digit value: rendering refuses any width
    # above MAX_FIELD anyway, so the kernel's 32-bit wrap-around is deliberately not modelled here.
    return int(digits[:18]), False, pos


def _parse_precision(fmt: bytes, pos: int) -> tuple[int | None, bool, int]:
    """'.' digits, '.*', or a bare '.' (which leaves the precision unset, unlike C)."""
    if pos >= len(fmt) or fmt[pos] != ord("."):
        return None, False, pos
    pos += 1
    if pos < len(fmt) and fmt[pos] == ord("*"):
        return None, True, pos + 1
    digits, pos = _read_digits(fmt, pos)
    if not digits:
        return None, False, pos
    return _literal_precision(digits), False, pos


def _literal_precision(digits: bytes) -> int:
    """The kernel stores literal precision digits in a 16-bit signed field and turns a negative
    result into 0: so 32767 stays, 40000 wraps to -25536 and becomes 0, 65537 becomes 1."""
    value = 0
    for digit in digits:
        value = (value * 10 + digit - 0x30) & 0xFFFF
    if value >= 0x8000:
        return 0
    return value


def _parse_length(fmt: bytes, pos: int) -> tuple[str, int]:
    if pos >= len(fmt):
        return "", pos
    char = fmt[pos]
    if char in _DOUBLED_LENGTHS and pos + 1 < len(fmt) and fmt[pos + 1] == char:
        return _DOUBLED_LENGTHS[char], pos + 2
    if char in _SINGLE_LENGTHS:
        return _SINGLE_LENGTHS[char], pos + 1
    return "", pos


def _read_digits(fmt: bytes, pos: int) -> tuple[bytes, int]:
    end = pos
    while end < len(fmt) and 0x30 <= fmt[end] <= 0x39:
        end += 1
    return fmt[pos:end], end


def _kernel_isalnum(byte: int) -> bool:
    """The kernel's ctype is Latin-1: 0xC0-0xFF are letters, except 0xD7 (×) and 0xF7 (÷)."""
    if byte < 0x80:
        return chr(byte).isalnum()
    return byte >= 0xC0 and byte not in (0xD7, 0xF7)


# --------------------------------------------------------------------------------------------------
# Integer rendering (number)


def number(
    value: int,
    base: int,
    flags: int,
    width: int | None,
    precision: int | None,
    *,
    signed: bool,
    upper: bool,
) -> bytes:
    """Render a 64-bit value exactly as the kernel's number() does (spec algorithm b.2).

    `value` is taken modulo 2**64 and, when `signed`, read as a two's-complement long long.
    `width`/`precision` None (or negative) mean unset. Differs from C: a 0 value always prints "0",
    ZEROPAD survives a precision, and '#' with base 16 always adds "0x" (even for 0).
    """
    _check_field_limit("width", width)
    _check_field_limit("precision", precision)
    field = -1 if width is None else width
    if flags & LEFT:
        flags &= ~ZEROPAD
    sign, magnitude = _sign_and_magnitude(value, flags, signed)
    field -= len(sign)
    prefix = _base_prefix(base, flags, magnitude, upper)
    field -= len(prefix)
    digits = _digits(magnitude, base, upper)
    shown = max(-1 if precision is None else precision, len(digits))
    field -= shown
    padding = max(field, 0)
    out = bytearray()
    if not flags & (ZEROPAD | LEFT):
        out += b" " * padding
    out += sign + prefix
    if flags & ZEROPAD:
        out += b"0" * padding
    out += b"0" * (shown - len(digits)) + digits
    if flags & LEFT:
        out += b" " * padding
    return bytes(out)


def _sign_and_magnitude(value: int, flags: int, signed: bool) -> tuple[bytes, int]:
    """Only signed conversions get a sign; the magnitude of LLONG_MIN is 2**63, as in the kernel."""
    raw = value & _MASK64
    if not signed:
        return b"", raw
    if raw >= 1 << 63:
        return b"-", (1 << 64) - raw
    if flags & PLUS:
        return b"+", raw
    if flags & SPACE:
        return b" ", raw
    return b"", raw


def _base_prefix(base: int, flags: int, magnitude: int, upper: bool) -> bytes:
    """'#' adds "0x"/"0X" for hex even for 0, and "0" for octal only when the value is not 0."""
    if not flags & SPECIAL or base == 10:
        return b""
    if base == 16:
        return b"0X" if upper else b"0x"
    if base == 8 and magnitude != 0:
        return b"0"
    return b""


def _digits(magnitude: int, base: int, upper: bool) -> bytes:
    """The digits of a non-negative value; 0 gives "0" (never the empty string)."""
    alphabet = _DIGITS_UPPER if upper else _DIGITS_LOWER
    if magnitude == 0:
        return b"0"
    out = bytearray()
    while magnitude:
        magnitude, digit = divmod(magnitude, base)
        out.append(alphabet[digit])
    out.reverse()
    return bytes(out)


def _check_field_limit(what: str, value: int | None) -> None:
    if value is not None and value > MAX_FIELD:
        raise LimitExceeded("printf", f"{what} {value} exceeds the model limit of {MAX_FIELD}")


# --------------------------------------------------------------------------------------------------
# Rendering one directive


def format_directive(
    d: Directive, value: Any, width: int | None = None, precision: int | None = None
) -> bytes:
    """Render one directive with its value.

    `width`/`precision` are the already-fetched C `int` arguments of a '*' width / '.*' precision;
    they are required when the directive has that star and ignored otherwise. Integers are
    truncated to the directive's size and sign-extended for d/i (b.1).
    """
    flags, field = _effective_width(d, width)
    shown = _effective_precision(d, precision)
    if d.conversion == "%":
        return b"%"  # flags, width and precision are parsed and ignored
    _check_field_limit("width", field)
    _check_field_limit("precision", shown)
    if d.conversion == "c":
        return _render_char(value, flags, field)
    if d.conversion == "s":
        return _render_string(d, value, flags, field, shown)
    if d.conversion == "p":
        return _render_pointer(d, value, flags, field, shown)
    return _render_integer(d, value, flags, field, shown)


def _effective_width(d: Directive, star_value: int | None) -> tuple[int, int]:
    """Returns (flags, width) with -1 meaning unset. A negative '*' sets LEFT and uses the absolute
    value; INT_MIN stays negative (its negation overflows), which then pads nothing."""
    if not d.width_star:
        return d.flags, -1 if d.width is None else d.width
    raw = _c_int(_require_star(d, star_value, "width"))
    if raw < 0:
        return d.flags | LEFT, raw if raw == _INT_MIN else -raw
    return d.flags, raw


def _effective_precision(d: Directive, star_value: int | None) -> int | None:
    """A '.*' value is clamped to 0..32767 (negative becomes 0, not "unset" as in C)."""
    if not d.precision_star:
        return d.precision
    raw = _c_int(_require_star(d, star_value, "precision"))
    return min(max(raw, 0), PRECISION_MAX)


def _require_star(d: Directive, star_value: int | None, what: str) -> int:
    if star_value is None:
        raise TypeError(f"{_where(d)}: the '*' {what} needs its int argument")
    return _as_int(d, star_value)


def _render_integer(d: Directive, value: Any, flags: int, field: int, shown: int | None) -> bytes:
    fetched = _fetch_integer(_as_int(d, value), d.bits, d.signed)
    return number(fetched, d.base, flags, field, shown, signed=d.signed, upper=d.conversion == "X")


def _fetch_integer(value: int, bits: int, signed: bool) -> int:
    """What va_arg plus the kernel's narrowing leaves of a value: truncated to `bits`,
    sign-extended when the conversion is signed (%hhd of 200 is -56, %hu of 70000 is 4464)."""
    mask = (1 << bits) - 1
    value &= mask
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def _render_char(value: Any, flags: int, field: int) -> bytes:
    """%c: the int argument cast to unsigned char (NUL included), space padded; no precision."""
    if isinstance(value, (bytes, bytearray)) and len(value) == 1:
        value = value[0]
    if not isinstance(value, int):
        raise TypeError(f"%c needs an int, got {type(value).__name__}")
    char = bytes([value & 0xFF])
    padding = b" " * max(field - 1, 0)
    return char + padding if flags & LEFT else padding + char


def _render_string(d: Directive, value: Any, flags: int, field: int, shown: int | None) -> bytes:
    """%s: up to `shown` bytes, stopping at NUL, space padded (the '0' flag is ignored).
    Bad pointers print "(null)"/"(efault)", which also obey width and a precision that defaults
    to 16 for them."""
    text = _string_argument(d, value)
    if text is None:
        text = _bad_string_pointer_text(value)
        if shown is None:
            shown = POINTER_DIGITS
    if shown is not None:
        text = text[:shown]
    return _pad_text(text, flags, field)


def _string_argument(d: Directive, value: Any) -> bytes | None:
    """The C string behind a %s argument, or None for a pointer that cannot be dereferenced."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        nul = data.find(b"\0")
        return data if nul < 0 else data[:nul]
    if value is None:
        return None
    if isinstance(value, int):
        if _is_bad_string_pointer(value & _MASK64):
            return None
        raise Inconclusive(_where(d), "%s of a raw pointer value: the string it points to is unknown")
    raise TypeError(f"{_where(d)}: %s needs bytes, None or an int pointer, got {type(value).__name__}")


def _is_bad_string_pointer(address: int) -> bool:
    return address < PAGE_SIZE or _is_error_pointer(address)


def _bad_string_pointer_text(value: Any) -> bytes:
    if value is None or value & _MASK64 == 0:
        return b"(null)"
    return b"(efault)"


def _pad_text(text: bytes, flags: int, field: int) -> bytes:
    padding = b" " * max(field - len(text), 0)
    return text + padding if flags & LEFT else padding + text


# --------------------------------------------------------------------------------------------------
# Pointers


def _render_pointer(d: Directive, value: Any, flags: int, field: int, shown: int | None) -> bytes:
    """%p and the extensions the model knows: plain/%pK (hashed), %px (raw), %pe of a non-error
    pointer (plain); an unknown letter is plain %p for the kernel too. Other known extensions
    (%ps, %pg, %*pb, ...) cannot be rendered without kernel data, so they are Inconclusive."""
    selector = d.pointer_ext[:1]
    if selector == b"x":
        return _pointer_string(_pointer_address(value), flags, field, shown)
    if selector == b"e" and _is_error_pointer(_pointer_address(value)):
        raise Inconclusive(_where(d), "unsupported %p extension '%pe' of an error pointer (errno name)")
    if selector and selector[0] in _UNMODELLED_POINTER_EXTENSIONS:
        raise Inconclusive(
            _where(d), f"unsupported %p extension '%p{d.pointer_ext.decode('latin-1')}'"
        )
    return _hashed_pointer(value, flags, field, shown)  # plain, K, e of a normal pointer, unknown


def renders_opaque(d: Directive) -> bool:
    """A %p extension whose text needs kernel data (symbol names, addresses, bitmaps, dentries):
    the model prints it as an opaque output event keyed by the directive and its argument."""
    selector = d.pointer_ext[:1]
    return d.conversion == "p" and bool(selector) and selector[0] in _UNMODELLED_POINTER_EXTENSIONS


# How long the text of some extensions is before the width pads it (lib/vsprintf.c of 6.1 and
# 6.12, read for facts), by the letters after %p: each first checks the pointer and prints
# "(null)" (6 bytes) or "(efault)" (8) for NULL or a bad one, else its text, both through
# string_nocheck (a precision cuts it, the width pads it with spaces). I4: a dotted quad of 1-3
# digits each; i4: 3 digits each; I6c: compressed, from "::" up to an ISATAP address with an IPv4
# tail, "ffff:ffff:ffff:ffff:200:5efe:255.255.255.255" (44); I6: eight groups of 4 digits; i6: 32
# digits; M/m: six bytes with or without separators (any letter after them: -, reversed); U: a UUID.
_EXTENSION_TEXT = ((b"I6c", 2, 44), (b"I4", 7, 15), (b"i4", 15, 15), (b"I6", 39, 39), (b"i6", 32, 32),
                   (b"M", 17, 17), (b"m", 12, 12), (b"U", 36, 36))
_BAD_POINTER_TEXT = (6, 8)  # "(null)", "(efault)"


def extension_text_lengths(ext: bytes) -> range | None:
    """Every length (a superset: the shortest to the longest) of the text the %p extension `ext`
    prints before padding, whatever the pointer; None for an extension the model does not bound."""
    for prefix, low, high in _EXTENSION_TEXT:
        if ext.startswith(prefix):
            return range(min(low, _BAD_POINTER_TEXT[0]), max(high, _BAD_POINTER_TEXT[1]) + 1)
    return None


def padded_length(text_length: int, width: int | None, precision: int | None) -> int:
    """The bytes a string of `text_length` takes once cut by `precision` and padded to `width`
    (string_nocheck, widen_string; a negative width is a left-justified one, as long)."""
    shown = text_length if precision is None else min(text_length, precision)
    return max(abs(width) if width is not None else 0, shown)


def _hashed_pointer(value: Any, flags: int, field: int, shown: int | None) -> bytes:
    """Plain %p: NULL and error pointers print their raw value; anything else a 32-bit hash."""
    if _is_symbolic_pointer(value):
        return _pointer_string(_pointer_hash(value), flags, field, shown)
    address = _pointer_address(value)
    if address == 0 or _is_error_pointer(address):
        return _pointer_string(address, flags, field, shown)
    return _pointer_string(_pointer_hash(value), flags, field, shown)


def _pointer_string(address: int, flags: int, field: int, shown: int | None) -> bytes:
    """Hex through number(): with no width given, 16 digits zero-padded; a user width replaces that
    default (and then pads with spaces unless '0' was given)."""
    if field == -1:
        field = POINTER_DIGITS
        flags |= ZEROPAD
    return number(address, 16, flags, field, shown, signed=False, upper=False)


def _pointer_hash(value: Any) -> int:
    """Deterministic stand-in for the kernel's siphash (kept to 32 bits, like the kernel's):
    crc32 of the key's UTF-8 bytes, or of the address as 8 little-endian bytes. Never hash()."""
    if _is_symbolic_pointer(value):
        return zlib.crc32(str(value.key).encode("utf-8"))
    return zlib.crc32(_pointer_address(value).to_bytes(8, "little"))


def _pointer_address(value: Any) -> int:
    """The raw address of a %p argument. A symbolic pointer (with a `key`) has none, so it gets a
    kernel-looking stand-in: _SYMBOLIC_ADDRESS_BASE | its 32-bit hash."""
    if value is None:
        return 0
    if _is_symbolic_pointer(value):
        return _SYMBOLIC_ADDRESS_BASE | _pointer_hash(value)
    if isinstance(value, int):
        return value & _MASK64
    raise TypeError(f"%p needs an int, None or an object with a `key`, got {type(value).__name__}")


def _is_symbolic_pointer(value: Any) -> bool:
    return not isinstance(value, int) and value is not None and hasattr(value, "key")


def _is_error_pointer(address: int) -> bool:
    """IS_ERR_VALUE: the top MAX_ERRNO addresses hold -errno values, not objects."""
    return address >= (1 << 64) - MAX_ERRNO


# --------------------------------------------------------------------------------------------------
# Whole formats


def vsnprintf(fmt: bytes, args: Sequence) -> bytes:
    """The full output of the kernel's vsnprintf for `fmt` and `args` (no size limit: callers
    apply their own). Arguments are consumed in order ('*' width, '.*' precision, value); extra
    arguments are ignored as in C; output stops at the first invalid directive."""
    out = bytearray()
    pending = iter(args)
    for item in _parse_format_cached(bytes(fmt)):
        if isinstance(item, InvalidDirective):
            break
        if isinstance(item, bytes):
            out += item
        else:
            out += _render_with_arguments(item, pending)
        if len(out) > MAX_OUTPUT:
            raise LimitExceeded("printf", f"output exceeds {MAX_OUTPUT} bytes")
    return bytes(out)


def _render_with_arguments(d: Directive, pending) -> bytes:
    width = _next_argument(d, pending) if d.width_star else None
    precision = _next_argument(d, pending) if d.precision_star else None
    value = _next_argument(d, pending) if d.conversion != "%" else None
    return format_directive(d, value, width, precision)


_MISSING = object()


def _next_argument(d: Directive, pending) -> Any:
    value = next(pending, _MISSING)
    if value is _MISSING:
        raise Inconclusive(_where(d), "the format needs more arguments than were given")
    return value


# --------------------------------------------------------------------------------------------------
# Small helpers


def _c_int(value: int) -> int:
    """A Python int as a C int (32-bit two's complement)."""
    value &= _MASK32
    return value - (1 << 32) if value >> 31 else value


def _as_int(d: Directive, value: Any) -> int:
    if isinstance(value, int):
        return value
    raise TypeError(f"{_where(d)}: expected an int argument, got {type(value).__name__}")


def _where(d: Directive) -> str:
    return d.text.decode("latin-1")
