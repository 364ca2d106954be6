"""Kernel printf model: every row of kernel-seq-semantics.md table b.4, the rules of b.1-b.3, §e.

Expected values are the spec's, written out by hand (never computed with Python's % or format()).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import pytest

from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.kernel.vsprintf import (
    LEFT,
    MAX_FIELD,
    PLUS,
    SPACE,
    SPECIAL,
    ZEROPAD,
    Directive,
    InvalidDirective,
    format_directive,
    number,
    parse_format,
    vsnprintf,
)

LLONG_MIN = -(1 << 63)


@dataclass(frozen=True)
class SymbolicPointer:
    key: str


def render(fmt: bytes, *args) -> bytes:
    return vsnprintf(fmt, args)


# --------------------------------------------------------------------------------------------------
# Table b.4, one test per row


@pytest.mark.parametrize("fmt", [b"%.0d", b"%.d"])
def test_b4_zero_precision_still_prints_zero(fmt):
    assert render(fmt, 0) == b"0"


def test_b4_zero_flag_with_precision_keeps_zero_fill():
    assert render(b"%05.3d", 7) == b"00007"


def test_b4_hash_hex_of_zero_has_prefix():
    assert render(b"%#x", 0) == b"0x0"


def test_b4_hash_hex_zero_precision_of_zero():
    assert render(b"%#.0x", 0) == b"0x0"


def test_b4_hash_octal_prefix_plus_precision_zeros():
    assert render(b"%#.3o", 8) == b"0010"


def test_b4_bare_dot_leaves_string_precision_unset():
    assert render(b"%.s", b"abc") == b"abc"


def test_b4_negative_star_precision_is_zero():
    assert render(b"%.*s", -1, b"abc") == b""


def test_b4_null_string_is_cut_by_precision():
    assert render(b"%.3s", None) == b"(nu"


@pytest.mark.parametrize("pointer", [1, 4095, -14, (1 << 64) - 4095])
def test_b4_string_pointer_below_page_or_error_is_efault(pointer):
    assert render(b"%s", pointer) == b"(efault)"


@pytest.mark.parametrize(
    "directive", [b"%n", b"%f", b"%e", b"%g", b"%a", b"%jd", b"%qd", b"%Zd", b"%y"]
)
def test_b4_unsupported_conversion_stops_output(directive):
    assert render(b"before " + directive + b" after %d", 1, 2) == b"before "


def test_b4_plain_pointer_is_hashed_16_hex_digits_without_0x():
    out = render(b"%p", 0xFFFF888012345678)
    assert len(out) == 16
    assert out == _hex16(zlib.crc32((0xFFFF888012345678).to_bytes(8, "little")))
    assert not out.startswith(b"0x") and out[:8] == b"00000000"


def test_b4_null_pointer_is_zeros_not_nil():
    assert render(b"%p", 0) == b"0000000000000000"
    assert render(b"%p", None) == b"0000000000000000"


def test_b4_pointer_alnum_suffix_is_eaten():
    hashed = render(b"%p", 0x1000)
    assert render(b"[%pzq9Z]", 0x1000) == b"[" + hashed + b"]"


def test_b4_capital_h_is_char_length():
    assert render(b"%Hd", 200) == b"-56"
    assert render(b"%Hu", 0x1FF) == b"255"


def test_b4_precision_is_a_16_bit_field():
    # '.*' is clamped to 0..32767 ...
    assert render(b"%.*d", 40000, 5) == b"0" * 32766 + b"5"
    assert render(b"%.*d", -7, 0) == b"0"
    # ... and literal digits wrap modulo 2**16 as a signed short, negative becoming 0.
    assert parse_format(b"%.32767d")[0].precision == 32767
    assert parse_format(b"%.40000d")[0].precision == 0
    assert parse_format(b"%.65537d")[0].precision == 1
    assert render(b"%.65539d", 5) == b"005"


def test_b4_width_is_a_full_int():
    assert render(b"%*d", 300, 1) == b" " * 299 + b"1"
    assert render(b"%*d", -300, 1) == b"1" + b" " * 299


@pytest.mark.parametrize(
    ("fmt", "value", "expected"),
    [
        (b"%05s", b"ab", b"   ab"),
        (b"%05c", ord("x"), b"    x"),
        (b"%-05d", 42, b"42   "),
        (b"%+5u", 42, b"   42"),
        (b"%#010x", 255, b"0x000000ff"),
        (b"%#04o", 18, b"0022"),
        (b"%hhd", 200, b"-56"),
    ],
)
def test_b4_same_in_kernel_and_glibc(fmt, value, expected):
    assert render(fmt, value) == expected


def test_b4_percent_with_width_is_one_percent():
    assert render(b"%5%") == b"%"


# --------------------------------------------------------------------------------------------------
# b.1 directive grammar


def test_b1_flags_in_any_order_and_repeated():
    d = parse_format(b"%0-+ #0x")[0]
    assert d.flags == LEFT | PLUS | SPACE | SPECIAL | ZEROPAD
    assert d.width is None and d.conversion == "x"


def test_b1_zero_right_after_percent_is_a_flag():
    d = parse_format(b"%010d")[0]
    assert d.flags == ZEROPAD and d.width == 10
    assert render(b"%010d", -5) == b"-000000005"


def test_b1_parsed_fields():
    d = parse_format(b"ab%-7llu")[1]
    assert d == Directive(
        text=b"%-7llu",
        offset=2,
        flags=LEFT,
        width=7,
        width_star=False,
        precision=None,
        precision_star=False,
        length="ll",
        conversion="u",
        pointer_ext=b"",
    )


def test_b1_star_width_and_precision_are_consumed_in_order():
    d = parse_format(b"%*.*s")[0]
    assert d.width_star and d.precision_star and d.nargs == 3
    assert render(b"%*.*s|", 6, 2, b"abcdef") == b"    ab|"


def test_b1_negative_star_width_sets_left():
    assert render(b"%*d|", -4, 7) == b"7   |"


def test_b1_int_min_star_width_pads_nothing():
    # Negating INT_MIN overflows back to a negative width, which pads nothing.
    assert render(b"%*d|", -(1 << 31), 7) == b"7|"


def test_b1_star_value_is_a_c_int():
    assert render(b"%*d", (1 << 32) + 3, 7) == b"  7"


def test_b1_bare_dot_leaves_precision_unset_for_integers():
    assert parse_format(b"%.d")[0].precision is None
    assert render(b"%05.d", 5) == b"00005"


@pytest.mark.parametrize(
    ("fmt", "length"),
    [(b"%hhd", "hh"), (b"%hd", "h"), (b"%Hd", "H"), (b"%ld", "l"), (b"%lld", "ll"),
     (b"%Ld", "L"), (b"%zd", "z"), (b"%td", "t"), (b"%d", "")],
)
def test_b1_length_modifiers(fmt, length):
    assert parse_format(fmt)[0].length == length


@pytest.mark.parametrize(
    ("fmt", "bits"),
    [(b"%hhu", 8), (b"%Hu", 8), (b"%hu", 16), (b"%u", 32), (b"%lu", 64), (b"%llu", 64),
     (b"%Lu", 64), (b"%zu", 64), (b"%tu", 64)],
)
def test_b1_bits_read_per_length(fmt, bits):
    assert parse_format(fmt)[0].bits == bits


@pytest.mark.parametrize(
    "fmt", [b"%jd", b"%qd", b"%Zd", b"%I64d", b"%LLd", b"%zzd", b"%HHd", b"%5-d", b"%*5d", b"%.-3d"]
)
def test_b1_unsupported_length_or_order_is_invalid(fmt):
    items = parse_format(fmt)
    assert isinstance(items[-1], InvalidDirective)
    assert render(fmt, 1, 2) == b""


def test_b1_format_ending_after_percent_is_invalid():
    items = parse_format(b"abc%")
    assert items == [b"abc", InvalidDirective(b"%", 3, "format ends inside a directive")]
    assert render(b"abc%-08l") == b"abc"


def test_b1_invalid_directive_is_last_and_text_after_it_is_dropped():
    items = parse_format(b"a%d b%nc %d")
    assert isinstance(items[-1], InvalidDirective)
    assert items[-1].text == b"%n" and items[-1].offset == 5
    assert render(b"a%d b%nc %d", 1, 2, 3) == b"a1 b"


def test_b1_integer_truncation_and_sign_extension():
    assert render(b"%hhd", 200) == b"-56"
    assert render(b"%hu", 70000) == b"4464"
    assert render(b"%hd", 65535) == b"-1"
    assert render(b"%u", -1) == b"4294967295"
    assert render(b"%d", 1 << 31) == b"-2147483648"
    assert render(b"%lu", -1) == b"18446744073709551615"
    assert render(b"%tu", -1) == b"18446744073709551615"
    assert render(b"%zd", -1) == b"-1"


def test_b1_length_on_non_integers_is_accepted_and_ignored():
    assert render(b"%lc%hs%l%", 0x141, b"xy") == b"Axy%"


def test_directive_helpers():
    d, s, p, pct = (parse_format(f)[0] for f in (b"%-*.*lld", b"%s", b"%px", b"%*%"))
    assert (d.bits, d.signed, d.nargs) == (64, True, 3)
    assert (s.bits, s.signed, s.nargs) == (64, False, 1)
    assert (p.bits, p.pointer_ext, p.nargs) == (64, b"x", 1)
    assert (pct.bits, pct.nargs) == (0, 1)


def test_nul_byte_ends_the_format():
    assert parse_format(b"ab\0%d") == [b"ab"]
    assert render(b"ab\0%d", 1) == b"ab"


def test_parse_format_is_cached_and_returns_fresh_lists():
    first = parse_format(b"%d cached %s")
    first.append(b"mutated")
    assert parse_format(b"%d cached %s") == first[:-1]
    assert parse_format.cache_info().hits >= 1


# --------------------------------------------------------------------------------------------------
# b.2 number(), step by step


def test_b2_step1_left_clears_zeropad():
    assert number(42, 10, LEFT | ZEROPAD, 5, None, signed=True, upper=False) == b"42   "


def test_b2_step2_sign_takes_a_column():
    assert number(-42, 10, 0, 5, None, signed=True, upper=False) == b"  -42"
    assert number(42, 10, PLUS, 5, None, signed=True, upper=False) == b"  +42"
    assert number(42, 10, SPACE, 5, None, signed=True, upper=False) == b"   42"
    assert number(42, 10, PLUS | SPACE, 0, None, signed=True, upper=False) == b"+42"


def test_b2_step2_sign_flags_do_nothing_for_unsigned():
    for base in (8, 10, 16):
        assert number(8, base, PLUS | SPACE, None, None, signed=False, upper=False)[:1] not in (b"+", b" ")


def test_b2_step2_llong_min_magnitude():
    assert number(LLONG_MIN, 10, 0, None, None, signed=True, upper=False) == b"-9223372036854775808"
    assert render(b"%lld", LLONG_MIN) == b"-9223372036854775808"  # §e.4: printf gets it right


def test_b2_step3_prefixes():
    assert number(0, 16, SPECIAL, None, None, signed=False, upper=False) == b"0x0"
    assert number(255, 16, SPECIAL, None, None, signed=False, upper=True) == b"0XFF"
    assert number(0, 8, SPECIAL, 3, None, signed=False, upper=False) == b"  0"
    assert number(8, 8, SPECIAL, 4, None, signed=False, upper=False) == b" 010"
    assert number(10, 10, SPECIAL, None, None, signed=True, upper=False) == b"10"


def test_b2_step4_zero_is_a_digit():
    assert number(0, 10, 0, None, 0, signed=False, upper=False) == b"0"
    assert render(b"%.0x %.0o %.0u", 0, 0, 0) == b"0 0 0"


def test_b2_step5_precision_never_cuts_digits():
    assert render(b"%.2d", 12345) == b"12345"
    assert render(b"%2d", 100) == b"100"


def test_b2_step6_leading_spaces_before_sign_and_prefix():
    assert render(b"%#8.3x", 10) == b"   0x00a"
    assert render(b"%8.3d", -7) == b"    -007"


def test_b2_step8_zero_padding_after_sign_and_prefix():
    assert render(b"%08d", -42) == b"-0000042"
    assert render(b"%+08d", 42) == b"+0000042"
    assert render(b"%#08x", 0xAB) == b"0x0000ab"
    assert render(b"%#08.4x", 0xAB) == b"0x0000ab"


def test_b2_step9_precision_zeros_then_digits():
    assert render(b"%.5X", 0xAB) == b"000AB"


def test_b2_step10_left_trailing_spaces():
    assert render(b"%-#8x|", 0xAB) == b"0xab    |"
    assert render(b"%-+6d|", 42) == b"+42   |"


# --------------------------------------------------------------------------------------------------
# b.3 other conversions


def test_b3_char_padding_and_nul():
    assert render(b"%3c|%-3c|", ord("a"), ord("b")) == b"  a|b  |"
    assert render(b"%c", 0) == b"\0"  # §e.19
    assert render(b"%c", 0x141) == b"A"  # cast to unsigned char
    assert render(b"%.5c", ord("a")) == b"a"  # precision ignored


def test_b3_string_precision_width_and_nul():
    assert render(b"%.2s", b"abcdef") == b"ab"
    assert render(b"%6.2s|%-6.2s|", b"abc", b"abc") == b"    ab|ab    |"
    assert render(b"%s", b"ab\0cd") == b"ab"
    assert render(b"%s", b"") == b""


def test_b3_bad_string_pointers_follow_width_and_precision():
    assert render(b"%s", None) == b"(null)"
    assert render(b"%s", 0) == b"(null)"
    assert render(b"%10s", None) == b"    (null)"
    assert render(b"%-10.4s|", None) == b"(nul      |"
    assert render(b"%.0s", None) == b""
    assert render(b"%.3s", 1) == b"(ef"


def test_b3_string_of_a_real_pointer_value_is_inconclusive():
    with pytest.raises(Inconclusive) as err:
        render(b"%s", 0xFFFF888000001000)
    assert err.value.where == "%s"


def test_b3_percent_ignores_flags_width_length():
    assert render(b"%-08%|%l%|%.3%") == b"%|%|%"


def test_b3_percent_star_width_still_consumes_its_argument():
    assert render(b"%*%%d", 5, 7) == b"%7"


def test_b3_pointer_extensions_px_and_pk():
    assert render(b"%px", 0xFFFF888012345678) == b"ffff888012345678"
    assert render(b"%px", 0x1234) == b"0000000000001234"
    assert render(b"%pK", 0xFFFF888012345678) == render(b"%p", 0xFFFF888012345678)


def test_b3_pointer_suffix_selects_by_first_char_and_is_swallowed():
    assert render(b"%pxyz!", 0x1234) == b"0000000000001234!"
    assert render(b"%pK99!", 0x5000) == render(b"%p", 0x5000) + b"!"
    items = parse_format(b"%pabc!")  # §e.10: "abc" is never printed
    assert items[0].pointer_ext == b"abc" and items[1] == b"!"


def test_b3_pointer_suffix_swallows_latin1_letters_not_punctuation():
    assert parse_format(b"%p\xe9\xd7")[0].pointer_ext == b"\xe9"


def test_b3_error_pointers_print_raw_value():
    assert render(b"%p", -22) == b"ffffffffffffffea"


def test_b3_symbolic_pointer_hash_is_deterministic_crc32():
    ptr = SymbolicPointer("task:1")
    expected = _hex16(zlib.crc32(b"task:1"))
    assert render(b"%p", ptr) == expected
    assert render(b"%pK", ptr) == expected
    px = render(b"%px", ptr)
    assert len(px) == 16 and px != expected


def test_b3_pointer_honours_user_width_and_flags():
    assert render(b"%20p", 0) == b" " * 19 + b"0"
    hashed = render(b"%p", 0x5000).lstrip(b"0")
    assert render(b"%-p|", 0x5000) == hashed + b" " * (16 - len(hashed)) + b"|"


@pytest.mark.parametrize(
    ("fmt", "args"),
    [(b"%ps", [1 << 40]), (b"%pg", [1 << 40]), (b"%*pb", [8, 1 << 40]),
     (b"%*pbl", [8, 1 << 40]), (b"%*phN", [4, 1 << 40]), (b"%pabc", [1 << 40]), (b"%pe", [-22])],
)
def test_b3_unmodelled_pointer_extensions_are_inconclusive(fmt, args):
    with pytest.raises(Inconclusive) as err:
        render(fmt, *args)
    assert err.value.where == fmt.decode()
    assert "unsupported %p extension" in err.value.what


def test_b3_pe_of_a_normal_pointer_is_plain_p():
    assert render(b"%pe", 0x5000) == render(b"%p", 0x5000)


# --------------------------------------------------------------------------------------------------
# §e printf cases (e.8 - e.10 are also rows of b.4 above)


def test_e8_summary():
    assert render(b"%.0d|%.d|%05.3d|%#x|%#.3o|%.s|%.*s|%.3s", 0, 0, 7, 0, 8, b"abc", -1, b"abc", None) == (
        b"0|0|00007|0x0|0010|abc||(nu"
    )


def test_e9_unsupported_conversion_truncates_the_line():
    assert render(b"%s: %llu %f kB\n", b"x", 5, 1) == b"x: 5 "


def test_e12_status_formats():
    assert render(b"Umask:\t%#04o\n", 0o22) == b"Umask:\t0022\n"
    assert render(b"untag_mask:\t%#lx\n", 0) == b"untag_mask:\t0x0\n"


# --------------------------------------------------------------------------------------------------
# vsnprintf argument handling and resource bounds


def test_vsnprintf_too_few_arguments_is_inconclusive():
    with pytest.raises(Inconclusive):
        render(b"%d %d", 1)


def test_vsnprintf_extra_arguments_are_ignored():
    assert render(b"%d", 1, 2, 3) == b"1"


def test_format_directive_with_star_values():
    d = parse_format(b"%-*.*x")[0]
    assert format_directive(d, 255, 6, 3) == b"0ff   "
    with pytest.raises(TypeError):
        format_directive(d, 255)


@pytest.mark.parametrize(
    ("fmt", "args"),
    [(b"%2147483647d", [1]), (b"%99999999999999999999999999s", [b"x"]), (b"%1048577c", [65]),
     (b"%*d", [MAX_FIELD + 1, 1]), (b"%*p", [-(MAX_FIELD + 1), 0])],
)
def test_huge_widths_raise_limit_exceeded(fmt, args):
    with pytest.raises(LimitExceeded) as err:
        render(fmt, *args)
    assert err.value.where == "printf" and "width" in err.value.what


def test_number_refuses_huge_width_and_precision():
    with pytest.raises(LimitExceeded):
        number(1, 10, 0, MAX_FIELD + 1, None, signed=False, upper=False)
    with pytest.raises(LimitExceeded):
        number(1, 10, 0, None, MAX_FIELD + 1, signed=False, upper=False)


def test_width_at_the_limit_renders():
    assert len(render(b"%*d", MAX_FIELD, 1)) == MAX_FIELD


def test_total_output_is_bounded():
    with pytest.raises(LimitExceeded):
        render(b"%1048576d" * 17, *([1] * 17))


def test_percent_with_huge_width_allocates_nothing():
    assert render(b"%2147483647%") == b"%"


def _hex16(value: int) -> bytes:
    digits = b"0123456789abcdef"
    return bytes(digits[(value >> shift) & 0xF] for shift in range(60, -4, -4))
