"""Rendering grammar lines as the kernel prints them, through the same printf and seq_file models
the engine uses, with example values from each field's domain.
"""

from __future__ import annotations

import functools

from fmtcheck.common.plain import plain
from fmtcheck.layout.language import all_grammars
from fmtcheck.layout.model import (
    BUILTIN_DOMAINS,
    Alt,
    Domain,
    Field,
    Grammar,
    Group,
    Line,
    Lit,
    Optional,
    Pad,
    Prim,
    Printf,
    Records,
    line_fields,
    walk_items,
)

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Any, Iterator


@functools.lru_cache(maxsize=4096)
def field_domain(field: Field, grammar: Grammar | None = None) -> Domain:
    """The domain of a field, narrowed to what its C type can hold (a %u field is at most 32-bit)."""
    dom = grammar.domain(field.domain) if grammar else BUILTIN_DOMAINS.get(field.domain)
    if dom is None:
        dom = _find_custom_domain(field.domain)
    if not dom.numeric:
        return dom
    bits, signed = _spec_bits(field.spec)
    lo = max(dom.min, -(1 << (bits - 1)) if signed else 0)
    hi = min(dom.max, (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    if isinstance(field.spec, Prim) and field.spec.kind == "ll":
        lo = max(lo, -(1 << 63) + 1)  # seq_put_decimal_ll prints LLONG_MIN as "-0" (§e.4)
    if lo == dom.min and hi == dom.max:
        return dom
    examples = tuple(v for v in dom.examples if lo <= v <= hi) or (lo, hi)
    return Domain(dom.kind, dom.description, bits=min(bits, dom.bits), signed=dom.signed and signed,
                  min=lo, max=hi, examples=examples)


def _find_custom_domain(name: str) -> Domain:
    for g in all_grammars():
        if name in g.domains:
            return g.domains[name]
    raise KeyError(name)


def _spec_bits(spec: Printf | Prim) -> tuple[int, bool]:
    if isinstance(spec, Prim):
        return 64, spec.kind == "ll"
    d = spec.parsed
    if d.conversion in "diuoxX":
        return d.bits, d.conversion in "di"
    return 64, False


def example_value(field: Field, grammar: Grammar | None = None):
    dom = field_domain(field, grammar)
    if dom.examples:
        return dom.examples[0] if not dom.numeric else dom.examples[min(1, len(dom.examples) - 1)]
    return 0 if dom.numeric else b"x"


def example_values(line: Line, grammar: Grammar | None = None) -> dict:
    """One valid value per field (a list of two for fields inside repeated groups)."""
    values: dict[str, Any] = {}
    _example_items(line.items, values, grammar, repeated=False)
    return values


def _example_items(items, values: dict, grammar, repeated: bool) -> None:
    for item in items:
        if isinstance(item, Field) and item.same_as is None:
            v = example_value(item, grammar)
            values[item.name] = [v, v] if repeated else v
        elif isinstance(item, Group):
            _example_items(item.items, values, grammar, repeated or item.repeat != "?")
        elif isinstance(item, Alt):
            _example_items(item.options[0], values, grammar, repeated)


@plain
class Span:
    start: int
    end: int
    field: str | None  # None for literal bytes


def render_line(line: Line, values: dict, params: dict | None = None, grammar: Grammar | None = None) -> bytes:
    """The bytes the kernel prints for LINE with these values, its newline included (none for a
    `final` line)."""
    return render_line_spans(line, values, params, grammar)[0]


def render_line_spans(line: Line, values: dict, params: dict | None = None,
                      grammar: Grammar | None = None) -> tuple[bytes, list[Span]]:
    """render_line plus, for each rendered item, where it landed (for reporting a field by column)."""
    out = bytearray()
    spans: list[Span] = []
    ctx = _RenderCtx(values, dict(params or {}), grammar)
    _render_items(line.items, ctx, out, spans, index=None)
    if line.newline:
        out += b"\n"
    return bytes(out), spans


@plain
class _RenderCtx:
    values: dict
    params: dict
    grammar: Grammar | None


def _value_at(ctx: _RenderCtx, f: Field, index: tuple | None):
    if f.same_as is not None:
        v = ctx.values.get(f.same_as, ctx.params.get(f.same_as))
    else:
        v = ctx.values.get(f.name)
    for i in index or ():
        if isinstance(v, list):
            v = v[i] if i < len(v) else None
    if v is None or isinstance(v, list):
        v = example_value(f, ctx.grammar)
    return v


def _render_items(items, ctx: _RenderCtx, out: bytearray, spans: list, index: tuple | None) -> None:
    for item in items:
        start = len(out)
        if isinstance(item, Lit):
            out += item.data
            spans.append(Span(start, len(out), None))
        elif isinstance(item, Field):
            out += render_field(item, _value_at(ctx, item, index), ctx.params)
            spans.append(Span(start, len(out), _indexed(item.name, index)))
        elif isinstance(item, Pad):
            col = len(out) - (out.rfind(b"\n") + 1)
            out += b" " * max(0, item.column - col) + item.char
            spans.append(Span(start, len(out), None))
        elif isinstance(item, Group):
            for i in range(_group_count(item, ctx, index)):
                sub = (index or ()) + (i,) if item.repeat != "?" else index
                _render_items(item.items, ctx, out, spans, sub)
        elif isinstance(item, Alt):
            _render_items(_pick_alt(item, ctx), ctx, out, spans, index)


def _indexed(name: str, index: tuple | None) -> str:
    return name + "".join(f"[{i}]" for i in index or ())


def _group_count(group: Group, ctx: _RenderCtx, index: tuple | None) -> int:
    """How many times a group renders: its bound count, else the length of its fields' lists."""
    fields = [f for f in walk_items(group.items) if isinstance(f, Field) and f.same_as is None]
    if group.repeat == "?":
        return int(bool(fields) and all(ctx.values.get(f.name) is not None for f in fields))
    if group.count and group.count in ctx.params:
        return int(ctx.params[group.count])
    for f in fields:
        v = ctx.values.get(f.name)
        for i in index or ():
            v = v[i] if isinstance(v, list) and i < len(v) else None
        if isinstance(v, list):
            return len(v)
    return 1 if group.repeat == "+" else 0


def _pick_alt(alt: Alt, ctx: _RenderCtx):
    """The first option whose fields all have values (the first option by default)."""
    for option in alt.options:
        fields = [f for f in walk_items(option) if isinstance(f, Field) and f.same_as is None]
        if fields and all(f.name in ctx.values for f in fields):
            return option
    return alt.options[0]


def render_field(f: Field, value, params: dict | None = None) -> bytes:
    """One field as the kernel prints it: a printf directive or a seq_file primitive."""
    from fmtcheck.kernel.seq_file import SeqFile
    from fmtcheck.kernel.vsprintf import format_directive

    spec = f.spec
    if isinstance(spec, Prim):
        m = SeqFile()
        value = int(value)
        if spec.kind in ("ull", "ullw"):
            m.seq_put_decimal_ull_width(spec.delim, value, spec.width if spec.kind == "ullw" else 0)
        elif spec.kind == "ll":
            m.seq_put_decimal_ll(spec.delim, value)
        else:
            m.seq_put_hex_ll(spec.delim, value, spec.width)
        return bytes(m.buf)
    d = spec.parsed
    width = None
    if d.width_star:
        param, offset = f.star or ("", 0)
        width = int((params or {}).get(param, 0)) + offset
    if d.conversion == "p":
        return bytes(value)  # %*pb, %*pbl...: the field's value is its rendered text
    if d.conversion == "c" and isinstance(value, (bytes, bytearray)):
        value = value[0] if value else 0
    if d.conversion == "s" and isinstance(value, str):
        value = value.encode("latin-1")
    return format_directive(d, value, width, None)


def example_params(grammar: Grammar) -> dict:
    """Parameter values for an example rendering: 2 CPUs, prec 3, and counts of 2."""
    params: dict[str, Any] = {"prec": 3}
    for line in grammar.lines:
        for item in walk_items(line.items):
            if isinstance(item, Group) and item.count:
                params.setdefault(item.count, 2)
            if isinstance(item, Field) and item.star:
                params.setdefault(item.star[0], 3)
    return params


def example_rendering(grammar: Grammar) -> list[tuple[Line, bytes]]:
    """Every line once (first option of each choice and variant), with example values."""
    params = example_params(grammar)
    out = []
    for node in _first_path(grammar.body):
        values = example_values(node, grammar)
        for line in grammar.lines:
            for f in line_fields(line):
                if f.name not in values and f.same_as is None:
                    values[f.name] = example_value(f, grammar)
        out.append((node, render_line(node, values, params, grammar)))
    return out


def _first_path(nodes: list) -> Iterator[Line]:
    for node in nodes:
        if isinstance(node, Line):
            yield node
        elif isinstance(node, (Records, Optional)):
            yield from _first_path(node.body)
        elif node.options:
            yield from _first_path(node.options[0])
