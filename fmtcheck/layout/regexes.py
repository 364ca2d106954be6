"""Width-exact regular expressions over bytes for numbers, strings and seq_pad columns.
"""

from __future__ import annotations

import functools
import re

from fmtcheck.layout.model import Domain

DIGITS = {8: "01234567", 10: "0123456789", 16: "0123456789abcdef"}


def _to_base(n: int, base: int, upper: bool = False) -> str:
    if n == 0:
        return "0"
    digits = DIGITS[base].upper() if upper else DIGITS[base]
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return "".join(reversed(out))


def _cls(lo: int, hi: int, base: int, upper: bool) -> str:
    """A character class for digit values lo..hi, written with ranges ([0-9a-f])."""
    digits = DIGITS[base].upper() if upper else DIGITS[base]
    chars = digits[lo : hi + 1]
    if len(chars) == 1:
        return re.escape(chars)
    runs: list[str] = []
    start = prev = chars[0]
    for ch in chars[1:] + "\0":
        if ord(ch) == ord(prev) + 1:
            prev = ch
            continue
        runs.append(start if start == prev else f"{start}-{prev}" if ord(prev) > ord(start) + 1 else start + prev)
        start = prev = ch
    return "[" + "".join(runs) + "]"


def _le_regex(s: str, base: int, upper: bool) -> str:
    """Digit strings of exactly len(s) digits, no leading zero, whose value is <= s."""
    digits = DIGITS[base].upper() if upper else DIGITS[base]
    n = len(s)
    alts = []
    for i in range(n):
        d = digits.index(s[i])
        lo = 1 if i == 0 else 0
        if d > lo:
            rest = f"{_cls(0, base - 1, base, upper)}{{{n - i - 1}}}" if n - i - 1 else ""
            alts.append(re.escape(s[:i]) + _cls(lo, d - 1, base, upper) + rest)
        elif d == lo and i == 0 and n > 1:
            continue
    alts.append(re.escape(s))
    return "(?:" + "|".join(alts) + ")"


def _digit_runs(lo: int, hi: int, base: int, upper: bool) -> list[tuple[int, int, str]]:
    """Canonical digit strings (no leading zero) for values lo..hi (lo >= 0), as a list of
    (min_len, max_len, regex): one entry for the single digits, one for every length between,
    and one for the longest length, capped at HI."""
    if hi < lo:
        return []
    s = _to_base(hi, base, upper)
    n = len(s)
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    out = []
    if lo < base:
        out.append((1, 1, _cls(lo, min(hi, base - 1), base, upper)))
    first = max(2, len(_to_base(lo, base, upper)))
    if n >= 2 and hi == base**n - 1:  # every n-digit string is <= HI (a u64 in hex): one class run
        lo_len = min(first, n)
        return out + [(lo_len, n, f"{nz}{any_}{{{lo_len - 1},{n - 1}}}" if n > lo_len else f"{nz}{any_}{{{n - 1}}}")]
    if first <= n - 1:
        out.append((first, n - 1, f"{nz}{any_}{{{first - 1},{n - 2}}}" if n - 1 > first else f"{nz}{any_}{{{first - 1}}}"))
    if n >= 2:
        out.append((n, n, _le_regex(s, base, upper)))
    return out


@functools.lru_cache(maxsize=2048)
def number_regex(base: int, upper: bool, lo: int, hi: int, width: int, mode: str) -> str:
    """An exact regex (str) for every rendering of lo..hi in base, padded to WIDTH columns.

    mode: "right" (spaces before, the default of printf and seq_put_decimal_ull_width),
    "left" (spaces after, the '-' flag), "zero" (zeros after the sign, the '0' flag and
    seq_put_hex_ll). A value wider than WIDTH prints in full, never cut. The regex ends with a
    look-ahead that refuses another digit, so it can sit inside an atomic group.
    """
    runs = [("", r) for r in _digit_runs(max(lo, 0), hi, base, upper)]
    if lo < 0:
        runs += [("-", r) for r in _digit_runs(1, -lo, base, upper)]
    any_ = _cls(0, base - 1, base, upper)
    padded, wide = [], []
    for sign, (a, b, rx) in runs:
        for length in range(a, b + 1):
            total = length + len(sign)
            if total >= width:
                break
            body = re.escape(sign) + _exact_len(rx, a, b, length, base, upper)
            pad = width - total
            padded.append((pad, body))
        if b + len(sign) >= width:
            a2 = max(a, width - len(sign))
            body = re.escape(sign) + (rx if a2 == a else _exact_range(rx, a2, b, a, base, upper))
            wide.append(body)
    alts = []
    if mode == "zero" and lo == 0 and width >= 2 and hi >= base ** (width - 1) - 1:
        # the zero-padded renderings of every value under WIDTH digits: "0" and any WIDTH-1 digits
        # (strip the zeros: all of them, the value 0; else a value of fewer than WIDTH digits).
        # One class run instead of WIDTH-1 alternatives: an smaps header matches 25% faster.
        alts.append("0" + f"{any_}{{{width - 1}}}")
        padded = []
    for pad, body in sorted(padded, key=lambda pb: -pb[0]):
        if mode == "right":
            alts.append(_spaces(pad) + body)
        elif mode == "left":
            alts.append(body + _spaces(pad))
        else:
            alts.append(body[:2] + f"0{{{pad}}}" + body[2:] if body.startswith("\\-") else f"0{{{pad}}}" + body)
    alts.extend(wide)
    return "(?:" + "|".join(alts) + f")(?!{any_})"


def _exact_len(rx: str, a: int, b: int, length: int, base: int, upper: bool) -> str:
    """The strings of one run that have exactly LENGTH digits."""
    if a == b:
        return rx
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    return f"{nz}{any_}{{{length - 1}}}"


def _exact_range(rx: str, a2: int, b: int, a: int, base: int, upper: bool) -> str:
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    return f"{nz}{any_}{{{a2 - 1},{b - 1}}}" if b > a2 else f"{nz}{any_}{{{a2 - 1}}}"


def _spaces(n: int) -> str:
    return "" if n <= 0 else " " if n == 1 else f" {{{n}}}"


def _merge_runs(alts: list[str]) -> list[str]:
    """Spaces are written as one ` {n}` so the engine compares them in one step."""
    out = []
    for a in alts:
        stripped = a.lstrip(" ")
        n = len(a) - len(stripped)
        if n > 1:
            a = f" {{{n}}}" + stripped
        elif n == 1:
            a = " " + stripped
        tail = a.rstrip(" ")
        n = len(a) - len(tail)
        if n > 1 and not tail.endswith("\\"):
            a = tail + f" {{{n}}}"
        out.append(a)
    return out


def string_regex(dom: Domain, width: int, left: bool, precision: int | None) -> str | None:
    """An exact regex for a %s of a charset domain padded to WIDTH, or None when the domain is not a
    plain charset run and padding is needed (the caller then verifies by rendering)."""
    max_len = dom.max_len
    if precision is not None:
        max_len = precision if max_len is None else min(max_len, precision)
    if dom.charset is None:
        if width <= 0 and precision is None:
            return "(?:" + dom.pattern.decode("latin-1") + ")"
        return None
    cs = dom.charset.decode("latin-1")
    alts = []
    for length in range(dom.min_len, width):
        if max_len is not None and length > max_len:
            break
        body = f"{cs}{{{length}}}" if length else ""
        pad = " " * (width - length)
        alts.append(body + pad if left else pad + body)
    lo = max(width, dom.min_len)
    if max_len is None or lo <= max_len:
        hi = "" if max_len is None else str(max_len)
        alts.append(f"{cs}{{{lo},{hi}}}")
    if not alts:
        return None
    return "(?:" + "|".join(_merge_runs(alts)) + ")"


def pad_regex(column: int, char: bytes = b"") -> str:
    """seq_pad to COLUMN then CHAR, as an exact regex: no spaces when the line is already at COLUMN
    or beyond, else exactly as many as end at COLUMN. The column is checked by fixed-width
    look-behinds, so the regex holds wherever the line starts in the buffer (after a newline, or at
    the very start of the buffer, which the matcher always keeps at a line start). When CHAR is a
    space, what follows does not start with one: the run of spaces is the padding (as a greedy
    match of the run would read it), not the start of the next field."""
    rx = ""
    if column > 0:
        rx = (f"(?:(?<=[^\\n]{{{column}}})| +(?:(?<=\\n[^\\n]{{{column}}})|(?<=\\A[^\\n]{{{column}}})))")
    rx += rx_lit(char)
    if char[-1:] == b" ":
        rx += "(?! )"
    return rx


def atomic_number(rx: str, follow: bytes | None, digits: str, repeated: bool = False) -> str:
    """A number regex, with or without its trailing no-more-digits look-ahead.

    When what follows is a fixed byte that cannot continue the number, that byte already refuses a
    longer number, and the alternatives of a number regex never match the same text two ways, so
    the look-ahead (and an atomic group) would only cost time: it is dropped, which makes the
    compiled records about twice as fast to match. Inside a REPEATED group it is kept: a
    repetition may be possessive (see LineCompiler.group), and each repetition must then end where
    its number ends on the first try. When nothing fixes what follows, a digit may follow."""
    if repeated and follow is not None and chr(follow[0]) not in digits:
        return rx
    return rx[: rx.rindex("(?!")]


_RUN = re.compile(rb"(.)\1{2,}|.", re.S)


def rx_lit(data: bytes) -> str:
    """The exact regex of a literal. A run of three or more equal bytes (the blanks of a padded
    label) is written `c{n}`: the same strings, but one step of the engine instead of n, which
    makes the compiled records of a label-per-line file such as smaps about a tenth faster."""
    out = []
    for m in _RUN.finditer(data):
        run = m.group(0)
        atom = re.escape(run[:1].decode("latin-1"))
        out.append(f"{atom}{{{len(run)}}}" if len(run) > 2 else re.escape(run.decode("latin-1")))
    return "".join(out)


def as_bytes(value) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode()
