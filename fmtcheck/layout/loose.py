"""Loose matching: reading the values of a line that does not match exactly, to explain how it departs.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from fmtcheck.layout.compiler import parse_value
from fmtcheck.layout.model import Field, Grammar, Group, Line, Lit, Pad, Prim
from fmtcheck.layout.render import field_domain


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


@dataclass
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


def _loose_items(items, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    for item in items:
        pos, ok = _loose_item(item, data, pos, values, grammar, repeated)
        if not ok:
            return pos, False
    return pos, True


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
