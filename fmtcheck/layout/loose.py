"""Loose matching: reading the values of a line that does not match exactly, to explain how it departs.
"""

from __future__ import annotations

import functools
import re

from fmtcheck.common.plain import plain
from fmtcheck.layout.compiler import parse_value
from fmtcheck.layout.model import Field, Grammar, Group, Line, Lit, Pad, Prim
from fmtcheck.layout.render import field_domain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Any


@functools.lru_cache(maxsize=1024)
def _loose_lit_rx(data: bytes) -> re.Pattern:
    return re.compile(loose_lit(data))


@functools.lru_cache(maxsize=256)
def _loose_pad_rx(char: bytes) -> re.Pattern:
    return re.compile(rb"[ \t]*" + re.escape(char.strip(b" ")))


@functools.lru_cache(maxsize=1024)
def _loose_field_rx(f: Field, grammar: Grammar | None) -> re.Pattern:
    return re.compile(loose_field(f, grammar), re.S)


def loose_lit(data: bytes) -> bytes:
    """A literal with every whitespace run optional and any length: finds the fields around it
    even when the spacing drifted or a separator vanished."""
    parts = re.split(rb"([ \t]+)", data)
    out = []
    for p in parts:
        if not p:
            continue
        out.append(rb"[ \t]*" if p[:1] in (b" ", b"\t") else re.escape(p))
    return b"".join(out)


def loose_field(f: Field, grammar: Grammar | None) -> bytes:
    dom = field_domain(f, grammar)
    spec = f.spec
    if isinstance(spec, Prim):
        digits = rb"[0-9a-fA-F]+" if spec.kind == "hex" else rb"-?[0-9]+"
        return loose_lit(spec.delim) + rb"[ \t]*" + digits
    d = spec.parsed
    if d.conversion in "diuoxX":
        return rb"[ \t]*[-+]?(?:0[xX])?[0-9a-fA-F]+" if d.base == 16 else rb"[ \t]*[-+]?[0-9]+[ \t]*" if d.flags & 2 else rb"[ \t]*[-+]?[0-9]+"
    if dom.charset is not None and dom.max_len == 0:
        return rb"[ \t]*"
    core = dom.charset + rb"+" if dom.charset is not None else dom.pattern
    if dom.charset is not None and re.fullmatch(dom.charset, b" "):
        core = dom.charset + rb"*?"  # may hold spaces (comm): take as little as the rest allows
    return rb"[ \t]*(?:" + core + rb")" + (rb"[ \t]*" if d.flags & 2 else b"")


@plain
class LooseResult:
    values: dict
    end: int  # bytes of the line explained
    complete: bool  # every item matched


def loose_walk(line: Line, data: bytes, grammar: Grammar | None = None) -> LooseResult:
    """Read field values out of a line that does not match exactly: each item is matched loosely,
    in order, for as long as they match. Repeated fields come out as lists."""
    values: dict[str, Any] = {}
    pos, ok = _loose_items(line.items, data, 0, values, grammar, repeated=False)
    return LooseResult(values, pos, ok)


MAX_SPREADS = 64  # ends tried for a field that may hold blanks (comm)


def _loose_items(items, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    for i, item in enumerate(items):
        if i + 1 < len(items) and isinstance(items[i + 1], Lit) and _holds_blanks(item, grammar):
            return _loose_spread(items, i, data, pos, values, grammar, repeated)
        pos, ok = _loose_item(item, data, pos, values, grammar, repeated)
        if not ok:
            return pos, False
    return pos, True


def _holds_blanks(item, grammar) -> bool:
    """A string field whose domain may hold blanks (comm): a loose reading cannot end it at a blank."""
    if not isinstance(item, Field) or isinstance(item.spec, Prim) or item.same_as is not None:
        return False
    dom = field_domain(item, grammar)
    return not dom.numeric and dom.charset is not None and bool(re.fullmatch(dom.charset, b" "))


def _loose_spread(items, i: int, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    """Items[i] may hold blanks and the literal items[i+1] follows it: try each place where that
    literal occurs, from the last (the kernel's own readers take the last ')' after comm), and keep
    the first that lets the rest of the line read completely, else the one that reads furthest."""
    stop = items[i + 1].data.strip(b" \t") or items[i + 1].data
    ends, at = [], len(data)
    while len(ends) < MAX_SPREADS:
        at = data.rfind(stop, pos, at)
        if at < 0:
            break
        ends.append(at)
    best = None
    for end in ends:
        trial: dict = {}
        f = items[i]
        if not _loose_field_rx(f, grammar).fullmatch(data, pos, end):
            continue
        try:
            value = parse_value(f, _loose_core(f, data[pos:end], grammar), grammar)
        except ValueError:
            continue
        trial[f.name] = [value] if repeated else value
        got, ok = _loose_items(items[i + 1:], data, end, trial, grammar, repeated)
        if best is None or (ok, got) > (best[1], best[0]):
            best = (got, ok, trial)
        if ok:
            break
    if best is None:
        pos, ok = _loose_item(items[i], data, pos, values, grammar, repeated)
        return (_loose_items(items[i + 1:], data, pos, values, grammar, repeated) if ok else (pos, False))
    _merge_values(values, best[2])
    return best[0], best[1]


def _loose_item(item, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    if isinstance(item, Lit):
        m = _loose_lit_rx(item.data).match(data, pos)
        return (m.end(), True) if m else (pos, False)
    if isinstance(item, Pad):
        m = _loose_pad_rx(item.char).match(data, pos)
        return (m.end(), True) if m else (pos, False)
    if isinstance(item, Field):
        m = _loose_field_rx(item, grammar).match(data, pos)
        if not m:
            return pos, False
        if item.same_as is None:
            try:
                value = parse_value(item, _loose_core(item, m.group(0), grammar), grammar)
            except ValueError:
                return pos, False
            if repeated:
                values.setdefault(item.name, []).append(value)
            else:
                values[item.name] = value
        return m.end(), True
    if isinstance(item, Group):
        if item.repeat == "?":
            trial: dict = {}
            end, ok = _loose_items(item.items, data, pos, trial, grammar, repeated)
            if ok and end > pos:
                _merge_values(values, trial)
                return end, True
            return pos, True
        count = 0
        while pos < len(data):
            trial = {}
            end, ok = _loose_items(item.items, data, pos, trial, grammar, True)
            if not ok or end == pos:
                break
            _merge_values(values, trial)
            pos = end
            count += 1
        return pos, count > 0 or item.repeat == "*"
    best = (pos, False, {})
    for option in item.options:
        trial = {}
        end, ok = _loose_items(option, data, pos, trial, grammar, repeated)
        if (ok, end) > (best[1], best[0]):
            best = (end, ok, trial)
    _merge_values(values, best[2])
    return best[0], best[1]


def _loose_core(f: Field, text: bytes, grammar) -> bytes:
    """The value part of a loosely matched field: without the blanks around it, unless the
    domain itself may hold blanks (comm, text)."""
    dom = field_domain(f, grammar)
    if dom.numeric:
        spec = f.spec
        if isinstance(spec, Prim) and spec.delim:
            text = text.lstrip(b" \t")
            delim = spec.delim.strip(b" \t")
            text = text[len(delim):] if delim and text.startswith(delim) else text
        return text.strip(b" \t")
    if dom.charset is not None and not re.fullmatch(dom.charset, b" ") and not re.fullmatch(dom.charset, b"\t"):
        return text.strip(b" \t")
    if dom.pattern is not None:
        text = text.lstrip(b" \t")
        m = re.match(dom.pattern, text)  # the value without the blanks after it (a %-16s label)
        return m.group(0) if m else text
    return text


def _merge_values(values: dict, trial: dict) -> None:
    for k, v in trial.items():
        if isinstance(v, list) and isinstance(values.get(k), list):
            values[k].extend(v)
        else:
            values[k] = v
