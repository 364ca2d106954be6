"""Differential test: the kernel printf model against glibc's snprintf, where the two agree.

Hypothesis builds formats of a few directives (flags, widths, precisions, length modifiers,
conversions d i u o x X c s %) with literal text between them, and values for each. Cases where the
kernel and ISO C / glibc legitimately differ (kernel-seq-semantics.md table b.4) are excluded, each
for the reason given in `_kernel_and_glibc_agree`; those cases have explicit unit tests in
tests/unit/test_vsprintf.py instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform
from dataclasses import dataclass, field

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fmtcheck.kernel.vsprintf import vsnprintf

pytestmark = pytest.mark.slow

INTEGER_CONVERSIONS = "diuoxX"
# Length modifiers glibc shares with the kernel. 'H' is kernel-only, so it is not generated.
INTEGER_LENGTHS = ["", "hh", "h", "l", "ll", "L", "z", "t"]
# The C type each length reads through va_arg (types narrower than int are promoted to int).
C_TYPE_OF_LENGTH = {
    "": ctypes.c_int, "hh": ctypes.c_int, "h": ctypes.c_int,
    "l": ctypes.c_long, "z": ctypes.c_long, "t": ctypes.c_long,
    "ll": ctypes.c_longlong, "L": ctypes.c_longlong,
}
BITS_OF_C_TYPE = {ctypes.c_int: 32, ctypes.c_long: 64, ctypes.c_longlong: 64}
OUTPUT_BUFFER = 4096


def _load_glibc():
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


LIBC = _load_glibc()


@dataclass
class Case:
    """One directive: its text, the kernel model's arguments and glibc's ctypes arguments."""

    conversion: str
    flags: str = ""
    width: str = ""  # "", "<digits>" or "*"
    precision: str = ""  # "", ".", ".<digits>" or ".*"
    length: str = ""
    model_args: list = field(default_factory=list)
    c_args: list = field(default_factory=list)
    value: object = None
    star_precision: int | None = None

    @property
    def text(self) -> bytes:
        return f"%{self.flags}{self.width}{self.precision}{self.length}{self.conversion}".encode()


def _int32():
    return st.integers(-(1 << 31), (1 << 31) - 1)


def _signed_range(bits: int):
    return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


@st.composite
def directives(draw) -> Case:
    conversion = draw(st.sampled_from(list(INTEGER_CONVERSIONS) + ["c", "s", "%"]))
    case = Case(conversion=conversion)
    case.flags = "".join(draw(st.lists(st.sampled_from("-+ #0"), max_size=4)))
    star_allowed = conversion != "%"  # see exclusion (h)
    case.width = draw(_width_texts(star_allowed))
    if case.width == "*":
        star = draw(st.integers(-40, 40))  # negative means '-' in both
        case.model_args.append(star)
        case.c_args.append(ctypes.c_int(star))
    case.precision = draw(_precision_texts(star_allowed))
    if case.precision == ".*":
        star = draw(st.integers(0, 40))  # see exclusion (f)
        case.star_precision = star
        case.model_args.append(star)
        case.c_args.append(ctypes.c_int(star))
    if conversion in INTEGER_CONVERSIONS:
        case.length = draw(st.sampled_from(INTEGER_LENGTHS))
        c_type = C_TYPE_OF_LENGTH[case.length]
        case.value = draw(_signed_range(BITS_OF_C_TYPE[c_type]))
        case.model_args.append(case.value)
        case.c_args.append(c_type(case.value))
    elif conversion == "c":
        case.value = draw(_int32())
        case.model_args.append(case.value)
        case.c_args.append(ctypes.c_int(case.value))
    elif conversion == "s":
        case.value = draw(st.binary(max_size=20))  # may hold a NUL: both stop there
        case.model_args.append(case.value)
        case.c_args.append(ctypes.c_char_p(case.value))
    return case


def _width_texts(star_allowed: bool):
    literal = st.integers(1, 40).map(str)  # never "0": a leading 0 is a flag, not a width
    choices = [st.just(""), literal] + ([st.just("*")] if star_allowed else [])
    return st.one_of(*choices)


def _precision_texts(star_allowed: bool):
    literal = st.integers(0, 40).map(lambda p: f".{p}")
    choices = [st.just(""), st.just("."), literal] + ([st.just(".*")] if star_allowed else [])
    return st.one_of(*choices)


def _truncated_value(case: Case) -> int:
    """The value as the conversion reads it (so a %hhx of 256 counts as 0)."""
    bits = {"hh": 8, "h": 16, "": 32}.get(case.length, 64)
    return case.value & ((1 << bits) - 1)


def _precision_given(case: Case) -> bool:
    return case.precision != ""


def _precision_is_zero(case: Case) -> bool:
    """Precision 0 as glibc sees it: ".", ".0" or a '.*' of 0."""
    if case.precision == ".*":
        return case.star_precision == 0
    return case.precision in (".", ".0")


def _kernel_and_glibc_agree(case: Case) -> bool:
    """False for the documented differences of table b.4 (their own unit tests cover them):

    (a) an integer 0 with precision 0 or a bare '.': the kernel prints "0", glibc "";
    (b) the '0' flag with any precision on an integer (without '-'): the kernel keeps zero fill,
        glibc ignores the '0' flag (a bare '.' is "precision 0" to glibc, "unset" to the kernel);
    (c) '#' with x/X and value 0: the kernel prints "0x0", glibc "0";
    (d) '#' with o and a precision: the kernel adds the "0" prefix before the precision zeros,
        glibc only makes sure the first digit is a 0;
    (e) %s with a bare '.': the kernel leaves the precision unset (whole string), glibc uses 0;
    (f) a negative '.*' (kernel: 0, glibc: unset) or one above 32767 (kernel clamps): never generated;
    (g) NULL %s (glibc prints "(null)" only if the precision allows 6 chars, the kernel cuts it),
        pointers and %p, 'H', and length modifiers on c/s (glibc reads wide chars): never generated;
    (h) '*' on %%: whether glibc consumes an argument there is not specified; never generated.
    """
    if case.conversion in INTEGER_CONVERSIONS:
        value = _truncated_value(case)
        if value == 0 and _precision_is_zero(case):
            return False  # (a)
        if "0" in case.flags and "-" not in case.flags and _precision_given(case):
            return False  # (b)
        if "#" in case.flags and case.conversion in "xX" and value == 0:
            return False  # (c)
        if "#" in case.flags and case.conversion == "o" and _precision_given(case):
            return False  # (d)
    if case.conversion == "s" and case.precision == ".":
        return False  # (e)
    return True


def _glibc_snprintf(fmt: bytes, c_args: list) -> bytes:
    buf = ctypes.create_string_buffer(OUTPUT_BUFFER)
    length = LIBC.snprintf(buf, OUTPUT_BUFFER, fmt, *c_args)
    assert 0 <= length < OUTPUT_BUFFER
    return buf.raw[:length]


literal_text = st.binary(max_size=6).map(lambda b: b.replace(b"%", b"").replace(b"\0", b""))


@pytest.mark.skipif(LIBC is None, reason="needs glibc's snprintf through ctypes")
@settings(max_examples=400)
@given(st.lists(st.tuples(literal_text, directives()), min_size=1, max_size=4), literal_text)
def test_kernel_printf_matches_glibc_where_they_agree(pieces, tail):
    for _, case in pieces:
        assume(_kernel_and_glibc_agree(case))
    fmt = b"".join(lit + case.text for lit, case in pieces) + tail
    model_args = [a for _, case in pieces for a in case.model_args]
    c_args = [a for _, case in pieces for a in case.c_args]
    assert vsnprintf(fmt, model_args) == _glibc_snprintf(fmt, c_args), fmt


@pytest.mark.skipif(LIBC is None, reason="needs glibc's snprintf through ctypes")
def test_glibc_harness_sees_the_documented_differences():
    """Keeps the exclusions honest: glibc really differs from the kernel on these (b.4 ✓ rows)."""
    assert _glibc_snprintf(b"%.0d|%#x|%05.3d|%#.3o|%.s", [ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(7),
                                                         ctypes.c_int(8), ctypes.c_char_p(b"abc")]) == b"|0|  007|010|"
    assert vsnprintf(b"%.0d|%#x|%05.3d|%#.3o|%.s", [0, 0, 7, 8, b"abc"]) == b"0|0x0|00007|0010|abc"
