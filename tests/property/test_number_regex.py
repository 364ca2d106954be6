"""`number_regex` accepts exactly the renderings of the values in its range: checked against the
definition (parse the digits, render them again with the same padding) on random strings of
digits, blanks and signs, in bases 10 and 16, every padding mode, full and narrow ranges."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from fmtcheck.layout.regexes import number_regex

RANGES = [(0, 2**64 - 1), (0, 2**32 - 1), (0, 255), (0, 9), (-(2**31), 2**31 - 1), (0, 15)]


def rendering(value: int, base: int, upper: bool, width: int, mode: str) -> str:
    digits = format(abs(value), "X" if upper else "x") if base == 16 else str(abs(value))
    sign = "-" if value < 0 else ""
    if mode == "zero":
        return sign + digits.rjust(width - len(sign), "0")
    text = sign + digits
    return text.rjust(width) if mode == "right" else text.ljust(width)


def is_rendering(text: str, lo: int, hi: int, base: int, upper: bool, width: int, mode: str) -> bool:
    core = text.strip(" ")
    try:
        value = int(core, base)
    except ValueError:
        return False
    return lo <= value <= hi and rendering(value, base, upper, width, mode) == text


def _edited(text: str, edit: int, where: int, char: str) -> str:
    i = where % (len(text) + 1)
    if edit == 0:
        return text[:i] + char + text[i:]
    if edit == 1:
        return text[:i] + text[i + 1:]
    if edit == 2:
        return text[:i] + char + text[i + 1:]
    return text


@given(rng=st.sampled_from(RANGES), base=st.sampled_from([10, 16]), upper=st.booleans(),
       width=st.integers(1, 20), mode=st.sampled_from(["right", "left", "zero"]),
       value=st.integers(-(2**65), 2**65), edit=st.integers(0, 3), where=st.integers(0, 30),
       char=st.sampled_from("0 1f9aF-"))
def test_number_regex_accepts_exactly_the_renderings(rng, base, upper, width, mode, value, edit, where, char):
    """A rendering of a value in the range matches; one edited (a byte inserted, dropped or
    replaced), or of a value out of the range, matches exactly when it is the rendering of one."""
    lo, hi = rng
    upper = upper and base == 16
    rx = re.compile(number_regex(base, upper, lo, hi, width, mode))
    v = lo + value % (hi - lo + 1)
    assert rx.fullmatch(rendering(v, base, upper, width, mode)), (v, width, mode)
    for edge in (lo, hi, lo - 1, hi + 1, base ** (value % 17) - 1, base ** (value % 17)):
        assert bool(rx.fullmatch(rendering(edge, base, upper, width, mode))) == (lo <= edge <= hi), edge
    text = _edited(rendering(value, base, upper, width, mode), edit, where, char)
    if "-" in text[1:] or text.strip(" ").startswith("+"):
        return
    assert bool(rx.fullmatch(text)) == is_rendering(text, lo, hi, base, upper, width, mode), text
