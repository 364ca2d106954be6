"""Text of results for a terminal, shared by every front end's report.

Whitespace is made visible only here: a space is '·', a tab '→' (then padding is not expanded), a
NUL '␀', other control bytes '\\xHH', and a line that has no final newline is marked '⏎̸'. A caret
line points at the first differing byte (by display column, so escapes do not shift it).
"""

from __future__ import annotations

from fmtcheck.common.result import Divergence, Report, Result, escape_bytes

_VISIBLE = {0x20: "·", 0x09: "→", 0x00: "␀", 0x0D: "␍"}


def visible(data: bytes) -> str:
    """Render bytes with every whitespace and non-printable byte made visible."""
    return "".join(_visible_byte(b) for b in data)


def _visible_byte(b: int) -> str:
    if b in _VISIBLE:
        return _VISIBLE[b]
    if b == 0x0A:
        return "↵"
    if 0x21 <= b < 0x7F:
        return chr(b)
    return f"\\x{b:02x}"


def _display_column(data: bytes, column: int) -> int:
    """Display width of the first column-1 bytes, so the caret lands under the right glyph."""
    return sum(len(_visible_byte(b)) for b in data[: max(column - 1, 0)])


def format_divergence(d: Divergence, color: bool = False) -> list[str]:
    """The lines a reviewer reads for one divergence."""
    red, green, bold, reset = ("\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[0m") if color else ("",) * 4
    where = f"line {d.line}, column {d.column}"
    if d.field:
        where += f", field {d.field}"
    lines = [f"  {bold}{where}: {d.severity} ({d.kind}){reset}"]
    start = _window_start(d)
    exp = ("…" if start else "") + visible(d.expected[start:start + MAX_SHOWN]) + _tail(d.expected, start, d.expected_has_newline)
    act = ("…" if start else "") + visible(d.actual[start:start + MAX_SHOWN]) + _tail(d.actual, start, d.actual_has_newline)
    lines.append(f"    expected: {green}{exp}{reset}")
    lines.append(f"    actual:   {red}{act}{reset}")
    column = d.column - start
    caret = max(_display_column(d.expected[start:], column), _display_column(d.actual[start:], column)) + (1 if start else 0)
    lines.append("              " + " " * caret + "^")
    if d.counterexample:
        lines.append(f"    counterexample: {_show_inputs(d.counterexample, d.field)}")
    if d.note:
        lines.append(f"    note: {d.note}")
    if d.worst:
        lines.append(f"    worst case ({d.worst.get('kind')}, {d.worst.get('severity')}):")
        lines.append(f"      expected: {visible(d.worst.get('expected', b''))}")
        lines.append(f"      actual:   {visible(d.worst.get('actual', b''))}")
        ce = d.worst.get("counterexample") or {}
        if ce:
            lines.append("      input: " + _show_inputs(ce, d.worst.get("field")))
    return lines


MAX_SHOWN = 240  # bytes of a line shown around the difference; JSON keeps the whole line


def _window_start(d: Divergence) -> int:
    """Where the shown part of a very long line starts, so the difference stays in view."""
    longest = max(len(d.expected), len(d.actual))
    if longest <= MAX_SHOWN:
        return 0
    return max(0, min(d.column - 1 - MAX_SHOWN // 3, longest - MAX_SHOWN))


def _tail(line: bytes, start: int, has_newline: bool) -> str:
    more = len(line) - start - MAX_SHOWN
    if more > 0:
        return f"… (+{more} bytes)"
    return "" if has_newline else "⏎̸"


def _show_inputs(values: dict, field: str | None) -> str:
    """Only the inputs that matter: every non-zero value (the engine shrinks counterexamples to
    the fewest); the rest are summarised, so a 24-input counterexample stays readable."""
    keep = [k for k, v in values.items() if v not in (0, b"")]
    if not keep:
        empty = any(isinstance(v, (bytes, bytearray)) for v in values.values())
        return "all inputs 0 or empty" if empty else "all inputs 0"
    shown = [f"{k}={_show_value(values[k])}" for k in keep]
    rest = len(values) - len(shown)
    if rest:
        shown.append(f"the {rest} other input(s) 0 or empty")
    return ", ".join(shown)


def _show_value(value: object) -> str:
    if isinstance(value, (bytes, bytearray)):
        return '"' + visible(bytes(value)) + '"'
    return repr(value)


def format_result(r: Result, color: bool = False) -> list[str]:
    head = f"{r.subject}: {r.verdict}"
    if r.method:
        head += f", {r.method}"
    if r.cases:
        head += f" ({r.cases} cases)"
    lines = [head]
    if r.reason:

        lines.append(f"  reason: {one_line(r.reason)}")
    if r.classes:
        lines.append("  inputs covered: " + ", ".join(r.classes))
    for d in r.divergences:
        lines.extend(format_divergence(d, color))
    for note in r.notes:
        lines.append(f"  note: {note}")
    return lines


def summary_line(report: Report) -> str:
    counts: dict[str, int] = {}
    for r in report.results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    parts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return f"{report.verdict}: {parts}" if parts else report.verdict


def one_line(text: str, limit: int = 400) -> str:
    """Text from the input, made safe for one line of a terminal: control bytes escaped, cut short."""
    if text.isprintable() and len(text) <= limit:
        return text
    safe = "".join(ch if ch.isprintable() else escape_bytes(ch.encode("utf-8", "surrogateescape")) for ch in text)
    return safe if len(safe) <= limit else safe[: limit - 3] + "..."
