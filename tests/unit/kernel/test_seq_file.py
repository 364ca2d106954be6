"""seq_file primitives: the bytes each writes and each "fits?" rule of kernel-seq-semantics.md §a, §e.

Overflow tests place `count` just around the limit with a filler written by seq_write, then check
both `count` (== size when overflowed) and which bytes were accepted.
"""

from __future__ import annotations

import pytest

from fmtcheck.common.errors import LimitExceeded
from fmtcheck.kernel.seq_file import (
    ESCAPE_ANY,
    ESCAPE_APPEND,
    ESCAPE_HEX,
    ESCAPE_NA,
    ESCAPE_NAP,
    ESCAPE_NP,
    ESCAPE_NULL,
    ESCAPE_OCTAL,
    ESCAPE_SPACE,
    ESCAPE_SPECIAL,
    MAX_OUTPUT,
    SeqFile,
    num_to_str,
    string_escape_mem,
)
from fmtcheck.kernel.vsprintf import vsnprintf

LLONG_MIN = -(1 << 63)


def at(count: int, size: int) -> SeqFile:
    """A buffer of `size` bytes already holding `count` filler bytes."""
    m = SeqFile(size)
    m.buf += b"." * count
    return m


def content(action) -> bytes:
    """The bytes one primitive call writes into an unbounded buffer."""
    m = SeqFile()
    action(m)
    return bytes(m.buf)


def test_escape_flag_values_are_the_kernels():
    assert (ESCAPE_SPACE, ESCAPE_SPECIAL, ESCAPE_NULL, ESCAPE_OCTAL) == (0x01, 0x02, 0x04, 0x08)
    assert (ESCAPE_NP, ESCAPE_HEX, ESCAPE_NA, ESCAPE_NAP, ESCAPE_APPEND) == (0x10, 0x20, 0x40, 0x80, 0x100)
    assert ESCAPE_ANY == 0x0F


# --------------------------------------------------------------------------------------------------
# State


def test_new_buffer_state():
    m = SeqFile(16)
    assert (m.count, m.overflowed, m.pad_until, m.size) == (0, False, 0, 16)
    assert SeqFile().overflowed is False


def test_overflow_reports_count_equal_to_size_and_can_be_rolled_back():
    m = at(3, 8)
    m.seq_write(b"toolong")
    assert m.count == 8 and m.overflowed
    m.count = 3  # what seq_read does to discard a record
    assert m.count == 3 and not m.overflowed and bytes(m.buf) == b"..."
    m.count = 8
    assert m.overflowed


def test_unbounded_buffer_never_overflows():
    m = SeqFile()
    m.seq_write(b"x" * 10000)
    m.seq_put_hex_ll(None, 1, 0)
    assert m.count == 10001 and not m.overflowed


def test_unbounded_buffer_is_capped_at_max_output():
    m = SeqFile()
    m.seq_setwidth(MAX_OUTPUT + 1)
    with pytest.raises(LimitExceeded):
        m.seq_pad(0)
    with pytest.raises(LimitExceeded):
        SeqFile().seq_put_hex_ll(None, 0, MAX_OUTPUT + 1)
    with pytest.raises(LimitExceeded):
        SeqFile().seq_put_decimal_ull_width(None, 0, MAX_OUTPUT + 1)


# --------------------------------------------------------------------------------------------------
# seq_printf


def test_printf_bytes():
    assert content(lambda m: m.seq_printf(b"%6s: %7llu\n", b"lo", 42)) == b"    lo:      42\n"


def test_printf_needs_room_for_a_trailing_nul():
    m = at(5, 10)
    m.seq_printf(b"%d", 1234)  # 5 + 4 < 10
    assert m.count == 9 and not m.overflowed
    m = at(5, 10)
    m.seq_printf(b"%d", 12345)  # 5 + 5 == 10: overflow
    assert m.overflowed and bytes(m.buf) == b"....."


def test_printf_on_a_full_buffer_overflows_even_for_empty_output():
    m = at(10, 10)
    m.seq_printf(b"")
    assert m.overflowed


def test_printf_unsupported_conversion_ends_output_without_overflow():
    m = at(0, 10)
    m.seq_printf(b"ab%ncdefghijklmnop")
    assert bytes(m.buf) == b"ab" and not m.overflowed


# --------------------------------------------------------------------------------------------------
# seq_puts / seq_putc / seq_write


def test_puts_bytes_stop_at_nul():
    assert content(lambda m: m.seq_puts(b"ab\0cd")) == b"ab"


def test_puts_rule_is_count_plus_len_below_size():
    m = at(6, 10)
    m.seq_puts(b"abc")
    assert m.count == 9 and not m.overflowed
    m = at(6, 10)
    m.seq_puts(b"abcd")
    assert m.overflowed and bytes(m.buf) == b"......"


def test_puts_of_one_char_goes_through_putc():
    m = at(9, 10)
    m.seq_puts(b"x")
    assert bytes(m.buf) == b".........x" and m.overflowed


def test_putc_writes_nul():
    assert content(lambda m: m.seq_putc(0)) == b"\0"


def test_putc_fills_the_last_byte_which_is_overflow():
    m = at(9, 10)
    m.seq_putc(ord("x"))
    assert m.count == 10 and m.overflowed and bytes(m.buf).endswith(b"x")


def test_putc_on_a_full_buffer_writes_nothing():
    m = at(10, 10)
    m.seq_putc(ord("x"))
    assert bytes(m.buf) == b"." * 10 and m.count == 10


def test_write_returns_zero_or_minus_one():
    m = at(5, 10)
    assert m.seq_write(b"abcd") == 0
    assert m.seq_write(b"e") == -1
    assert m.overflowed


def test_write_length_argument_and_nul_bytes():
    assert content(lambda m: m.seq_write(b"a\0bcd", 3)) == b"a\0b"


def test_write_of_zero_bytes_fits_unless_already_overflowed():
    m = at(9, 10)
    assert m.seq_write(b"") == 0 and not m.overflowed
    m = at(10, 10)
    assert m.seq_write(b"") == -1


def test_record_of_exactly_size_bytes_overflows():  # §e.7
    m = SeqFile(8)
    m.seq_write(b"1234567")
    m.seq_putc(ord("\n"))
    assert m.overflowed
    m = SeqFile(8)
    assert m.seq_write(b"12345678") == -1


# --------------------------------------------------------------------------------------------------
# seq_put_decimal_ull(_width)


def test_ull_width_pads_with_spaces():  # §e.1
    assert content(lambda m: m.seq_put_decimal_ull_width(b"", 5, 3)) == b"  5"


@pytest.mark.parametrize("width", [0, 1])
def test_ull_width_zero_equals_one_equals_no_padding(width):  # §e.3
    assert content(lambda m: m.seq_put_decimal_ull_width(None, 7, width)) == b"7"


def test_ull_width_never_cuts_a_wider_number():
    assert content(lambda m: m.seq_put_decimal_ull_width(b" ", 123456, 3)) == b" 123456"


def test_ull_is_ull_width_zero_and_masks_to_64_bits():
    assert content(lambda m: m.seq_put_decimal_ull(b"x", 0)) == b"x0"
    assert content(lambda m: m.seq_put_decimal_ull(None, -1)) == b"18446744073709551615"


@pytest.mark.parametrize("delim", [None, b"", b"\0ignored"])
def test_null_and_empty_delimiters_print_nothing(delim):  # §e.2
    assert content(lambda m: m.seq_put_decimal_ull(delim, 42)) == b"42"


def test_multi_char_delimiter():
    assert content(lambda m: m.seq_put_decimal_ull_width(b" kB\nVmSize:\t", 8, 8)) == b" kB\nVmSize:\t       8"


def test_ull_precheck_needs_two_bytes_before_the_delimiter():
    m = at(8, 10)
    m.seq_put_decimal_ull(b"|", 5)  # 8 + 2 == 10
    assert m.overflowed and bytes(m.buf) == b"." * 8
    m = at(7, 10)
    m.seq_put_decimal_ull(b"|", 5)
    assert bytes(m.buf) == b".......|5" and not m.overflowed


def test_ull_long_delimiter_overflows_after_the_precheck():
    m = at(5, 10)
    m.seq_put_decimal_ull(b"abcdef", 5)
    assert m.overflowed


def test_ull_width_must_fit_below_size():
    m = at(5, 10)
    m.seq_put_decimal_ull_width(None, 5, 5)  # 5 + 5 == 10
    assert m.overflowed
    m = at(5, 10)
    m.seq_put_decimal_ull_width(None, 5, 4)
    assert bytes(m.buf) == b".....   5" and not m.overflowed


def test_ull_digits_may_fill_the_buffer_exactly_which_is_overflow():
    m = at(5, 10)
    m.seq_put_decimal_ull(None, 12345)  # passes count+2 and count+1 checks, num_to_str fits 5 in 5
    assert m.count == 10 and m.overflowed


def test_ull_digits_longer_than_the_rest_overflow():
    m = at(5, 10)
    m.seq_put_decimal_ull(None, 123456)
    assert m.overflowed and bytes(m.buf) == b"....."


# --------------------------------------------------------------------------------------------------
# seq_put_decimal_ll


def test_ll_sign_after_delimiter():
    assert content(lambda m: m.seq_put_decimal_ll(b" ", -5)) == b" -5"
    assert content(lambda m: m.seq_put_decimal_ll(None, 1234)) == b"1234"
    assert content(lambda m: m.seq_put_decimal_ll(b"", -9223372036854775807)) == b"-9223372036854775807"


def test_ll_llong_min_prints_minus_zero():  # §e.4
    assert content(lambda m: m.seq_put_decimal_ll(b" ", LLONG_MIN)) == b" -0"
    assert content(lambda m: m.seq_put_decimal_ll(None, 1 << 63)) == b"-0"  # same 64 bits


def test_ll_needs_three_bytes_before_the_delimiter():
    m = at(7, 10)
    m.seq_put_decimal_ll(None, 1)  # 7 + 3 == 10
    assert m.overflowed and bytes(m.buf) == b"......."
    m = at(6, 10)
    m.seq_put_decimal_ll(None, 1)
    assert bytes(m.buf) == b"......1" and not m.overflowed


def test_ll_needs_two_bytes_after_the_delimiter():
    m = at(6, 10)
    m.seq_put_decimal_ll(b"ab", 1)  # 8 + 2 == 10 after the delimiter
    assert m.overflowed
    m = at(6, 10)
    m.seq_put_decimal_ll(b":", -1)  # 7 + 2 < 10, then "-1" directly
    assert bytes(m.buf) == b"......:-1" and not m.overflowed


def test_ll_large_magnitude_goes_through_num_to_str_and_may_fill_the_buffer():
    m = at(6, 10)
    m.seq_put_decimal_ll(b" ", -12)  # " -" then "12" in the 2 bytes left
    assert m.count == 10 and m.overflowed
    m = at(6, 10)
    m.seq_put_decimal_ll(b" ", -123)
    assert m.overflowed


# --------------------------------------------------------------------------------------------------
# seq_put_hex_ll


def test_hex_pads_with_zeros():  # §e.1
    assert content(lambda m: m.seq_put_hex_ll(b"", 5, 3)) == b"005"


def test_hex_bytes():
    assert content(lambda m: m.seq_put_hex_ll(None, 0, 0)) == b"0"
    assert content(lambda m: m.seq_put_hex_ll(b" ", 0, 4)) == b" 0000"
    assert content(lambda m: m.seq_put_hex_ll(b"-", 0xDEADBEEF, 2)) == b"-deadbeef"
    assert content(lambda m: m.seq_put_hex_ll(None, -1, 0)) == b"ffffffffffffffff"


def test_hex_fits_with_less_or_equal_and_is_then_overflowed():
    m = at(6, 10)
    m.seq_put_hex_ll(None, 0xABCD, 0)  # 6 + 4 <= 10
    assert bytes(m.buf) == b"......abcd" and m.count == 10 and m.overflowed
    m = at(6, 10)
    m.seq_put_hex_ll(None, 0xABCDE, 0)
    assert m.overflowed and bytes(m.buf) == b"......"


def test_hex_writes_the_delimiter_without_a_precheck():
    m = at(8, 10)
    m.seq_put_hex_ll(b"x", 5, 1)  # putc fills byte 9, then 9 + 1 <= 10
    assert bytes(m.buf) == b"........x5" and m.overflowed


def test_hex_width_counts_in_the_fits_rule():
    m = at(6, 10)
    m.seq_put_hex_ll(None, 1, 5)
    assert m.overflowed and bytes(m.buf) == b"......"


# --------------------------------------------------------------------------------------------------
# seq_setwidth / seq_pad


def test_pad_to_the_column_then_char():
    m = SeqFile()
    m.seq_puts(b"ab")
    m.seq_setwidth(6)
    m.seq_puts(b"cd")
    assert m.pad_until == 8
    m.seq_pad(ord("|"))
    assert bytes(m.buf) == b"abcd    |"


def test_pad_past_the_column_writes_only_the_char():
    m = SeqFile()
    m.seq_setwidth(2)
    m.seq_puts(b"abcd")
    m.seq_pad(ord("\n"))
    assert bytes(m.buf) == b"abcd\n"


def test_pad_with_nul_char_writes_no_char():
    m = SeqFile()
    m.seq_setwidth(3)
    m.seq_pad(0)
    assert bytes(m.buf) == b"   "


def test_pad_may_end_exactly_at_size_then_char_is_not_written():
    m = at(4, 10)
    m.seq_setwidth(6)
    m.seq_pad(ord("x"))
    assert bytes(m.buf) == b"....      " and m.count == 10 and m.overflowed


def test_pad_beyond_size_overflows_and_drops_the_char():
    m = at(4, 10)
    m.seq_setwidth(7)
    m.seq_pad(ord("x"))
    assert m.overflowed and bytes(m.buf) == b"...."


def test_pad_char_goes_through_putc_and_may_fill_the_last_byte():
    m = at(4, 10)
    m.seq_setwidth(5)
    m.seq_pad(ord("x"))
    assert bytes(m.buf) == b"....     x" and m.overflowed


# --------------------------------------------------------------------------------------------------
# Escaping


def test_escape_chars_in_esc_as_octal():
    assert content(lambda m: m.seq_escape(b"a b\\c\n", b" \\\n")) == b"a\\040b\\134c\\012"


def test_escape_with_empty_esc_escapes_every_byte():  # §e.18
    assert content(lambda m: m.seq_escape(b"ab", b"")) == b"\\141\\142"


def test_escape_stops_at_nul():
    assert content(lambda m: m.seq_escape(b"a\0b", b"x")) == b"a"


def test_escape_fits_only_below_the_free_space():
    m = at(2, 10)
    m.seq_escape(b"abc\n", b"\n")  # 7 bytes < 8 free
    assert bytes(m.buf) == b"..abc\\012" and not m.overflowed
    m = at(3, 10)
    m.seq_escape(b"abc\n", b"\n")  # 7 bytes, 7 free
    assert m.overflowed and bytes(m.buf) == b"..."


def test_escape_mem_classes_in_order():
    flags = ESCAPE_SPACE | ESCAPE_SPECIAL | ESCAPE_NULL | ESCAPE_OCTAL | ESCAPE_HEX
    src = b"\n\r\t\v\f\\\a\x1b\"\0\x01"
    assert string_escape_mem(src, flags, None) == b'\\n\\r\\t\\v\\f\\\\\\a\\e\\"\\0\\001'
    assert string_escape_mem(b"\x01\xff", ESCAPE_HEX, b"") == b"\\x01\\xff"
    assert string_escape_mem(b"\0", ESCAPE_OCTAL, None) == b"\\000"


def test_escape_mem_char_in_esc_matched_by_no_class_passes_through():
    assert string_escape_mem(b"a\nb", ESCAPE_SPECIAL, b"a\n") == b"a\nb"


def test_escape_mem_nul_counts_as_in_esc():
    assert string_escape_mem(b"a\0b", ESCAPE_NULL, b"\n") == b"a\\0b"


def test_escape_str_status_name_line():
    flags = ESCAPE_SPACE | ESCAPE_SPECIAL
    assert content(lambda m: m.seq_escape_str(b"a\nb\\c\td", flags, b"\n\\")) == b"a\\nb\\\\c\td"


def test_escape_mem_uses_length_not_nul():
    assert content(lambda m: m.seq_escape_mem(b"a\0bz", 3, ESCAPE_NULL, b"")) == b"a\\0b"


def test_escape_mem_printable_pass_through_flags():
    assert string_escape_mem(b"a\xe9\x01", ESCAPE_OCTAL | ESCAPE_NP, None) == b"a\xe9\\001"
    assert string_escape_mem(b"a\xe9\x01", ESCAPE_OCTAL | ESCAPE_NAP, None) == b"a\\351\\001"
    assert string_escape_mem(b"a\xe9\x01", ESCAPE_OCTAL | ESCAPE_NA, None) == b"a\\351\x01"
    assert string_escape_mem(b"ab", ESCAPE_OCTAL | ESCAPE_NP | ESCAPE_APPEND, b"a") == b"\\141b"


def test_seq_path_escapes_esc_chars():
    assert content(lambda m: m.seq_path(b"/usr/lib/x y\n.so", b"\n")) == b"/usr/lib/x y\\012.so"
    assert content(lambda m: m.seq_path(b"/x (deleted)", b"")) == b"/x (deleted)"


def test_seq_path_fits_only_below_the_free_space():
    m = at(3, 10)
    m.seq_path(b"/a\n", b"\n")  # 6 bytes < 7 free
    assert bytes(m.buf) == b".../a\\012" and not m.overflowed
    m = at(4, 10)
    m.seq_path(b"/a\n", b"\n")  # 6 bytes, 6 free
    assert m.overflowed and bytes(m.buf) == b"...."


# --------------------------------------------------------------------------------------------------
# num_to_str


def test_num_to_str_three_argument_form():
    assert num_to_str(20, 0) == b"0"
    assert num_to_str(20, 7) == b"7"
    assert num_to_str(20, 1234567890) == b"1234567890"
    assert num_to_str(20, -1) == b"18446744073709551615"


def test_num_to_str_four_argument_form_pads_with_spaces():
    assert num_to_str(10, 42, 6) == b"    42"
    assert num_to_str(10, 123456, 3) == b"123456"


def test_num_to_str_does_not_fit():
    assert num_to_str(3, 1234) == b""  # digits exceed size
    assert num_to_str(5, 1, 6) == b""  # width exceeds size
    assert num_to_str(0, 5) == b""
    assert num_to_str(-1, 5) == b""
    assert num_to_str(4, 1234) == b"1234"  # exactly size fits (no NUL is written)
    assert num_to_str(6, 1, 6) == b"     1"


# --------------------------------------------------------------------------------------------------
# §e.6: the same text through different primitives has different overflow thresholds


def test_same_bytes_as_printf_in_content_mode():
    via_printf = content(lambda m: m.seq_printf(b"%8lu kB\n", 1234))
    via_primitives = SeqFile()
    via_primitives.seq_put_decimal_ull_width(None, 1234, 8)
    via_primitives.seq_write(b" kB\n")
    assert bytes(via_primitives.buf) == via_printf == b"    1234 kB\n"
    assert content(lambda m: m.seq_put_hex_ll(None, 0xAB, 4)) == vsnprintf(b"%04llx", [0xAB])
    assert content(lambda m: m.seq_put_decimal_ll(b" ", -77)) == vsnprintf(b" %lld", [-77])


def test_decimal_prechecks_are_stricter_than_printf():
    printf = at(8, 10)
    printf.seq_printf(b"%llu", 5)  # 8 + 1 < 10
    ull = at(8, 10)
    ull.seq_put_decimal_ull(None, 5)  # 8 + 2 is not < 10
    ll = at(7, 10)
    ll.seq_put_decimal_ll(None, 5)  # 7 + 3 is not < 10
    assert bytes(printf.buf) == b"........5" and not printf.overflowed
    assert ull.overflowed and ll.overflowed


def test_hex_fills_the_buffer_where_printf_refuses():
    printf = at(6, 10)
    printf.seq_printf(b"%llx", 0xABCD)
    hexed = at(6, 10)
    hexed.seq_put_hex_ll(None, 0xABCD, 0)
    assert printf.overflowed and bytes(printf.buf) == b"......"
    assert hexed.overflowed and bytes(hexed.buf) == b"......abcd"
