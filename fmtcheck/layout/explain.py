"""Explaining a divergent line: the expected rendering, the first difference, the field and domain
it falls in, and its kind (width, separator, missing blank, value...).
"""

from __future__ import annotations

import re

from fmtcheck.common.result import Divergence
from fmtcheck.layout.compiler import Compiled, LineCompiler, Unbound, literal_prefix, run_checks
from fmtcheck.layout.loose import loose_walk
from fmtcheck.layout.model import (
    Grammar,
    Line,
    line_fields,
)
from fmtcheck.layout.render import example_values, field_domain, render_line_spans


def render_expected(g: Grammar, node: Line, values: dict, params: dict) -> bytes:
    try:
        return render_line_spans(node, values, params, g)[0]
    except Exception:  # noqa: BLE001 - a value the loose reading got wrong: fall back to examples
        return render_line_spans(node, example_values(node, g), params, g)[0]


MAX_REPAIR_LINE = 4096  # longer divergent lines are not searched for a missing blank
MAX_NEWLINE_LINE = 1 << 20  # longer last lines are not tried with the newline they lack


def missing_blank(g: Grammar, node: Line, text: bytes, params: dict, before: int,
                  compiled: Compiled | None = None) -> int | None:
    """The leftmost offset, before BEFORE, where one inserted space makes TEXT a line that NODE
    prints exactly: the place of a blank that went missing between two tokens, such as a disk
    name glued to its first counter ("sda14200"), which a loose reading takes for one longer name.
    Offsets between two digits are not tried (any split of a number would do there)."""
    if len(text) > MAX_REPAIR_LINE:
        return None
    if compiled is None:
        try:
            comp = LineCompiler(g, dict(params))
            compiled = Compiled(comp.items(node.items, b"\n") + node.end_pattern, comp.checks, comp.groups,
                                prefix=literal_prefix(node.items))
        except Unbound:
            return None
    for p in range(1, min(before, len(text))):
        a, b = text[p - 1], text[p]
        if a in b" \t" or b in b" \t" or (48 <= a <= 57 and 48 <= b <= 57):
            continue
        cand = text[:p] + b" " + text[p:] + (b"\n" if node.newline else b"")
        if compiled.line_fullmatch(g, cand, dict(params)):
            return p
    return None


def explain(g: Grammar, node: Line, text: bytes, has_nl: bool, line_no: int, params: dict,
            compiled: Compiled | None = None) -> Divergence:
    """The first divergence of TEXT from what NODE prints for the values TEXT holds. When one
    missing blank earlier in the line explains it exactly, that is the divergence reported."""
    if not has_nl and exact_with_newline(g, node, text, params, compiled):
        return Divergence(line_no, len(text) + 1, text, text, None, "breaking", "missing-newline",
                          actual_has_newline=False, note="the last line has no newline")
    d = _explain(g, node, text, has_nl, line_no, params)
    if d.kind == "missing-newline":
        return d
    p = missing_blank(g, node, text, params, d.column - 1, compiled)
    if p is None:
        return d
    repaired = text[:p] + b" " + text[p:]
    res = loose_walk(node, repaired, g)
    try:
        _, spans = render_line_spans(node, res.values, params, g)
        fname = field_at(spans, p)
    except Exception:  # noqa: BLE001 - the field name is a courtesy
        fname = None
    kind, severity = classify(repaired, text, p + 1, node.header)
    return Divergence(line_no, p + 1, repaired, text, fname, severity, kind, actual_has_newline=has_nl,
                      note="a blank is missing here: with one space inserted the line is exact")


def exact_with_newline(g: Grammar, node: Line, text: bytes, params: dict, compiled: Compiled | None) -> bool:
    """Would TEXT (a last line without its newline) be exact with the newline it lacks?"""
    if compiled is None or len(text) > MAX_NEWLINE_LINE:
        return False
    cand = text + b"\n"
    if not cand.startswith(compiled.prefix):
        return False
    m = compiled.regex.fullmatch(cand)
    return m is not None and run_checks(g, compiled, m, cand, dict(params), bind=True) is None


PLACEHOLDER_NOTE = ("expected shows example values where this line could not be read as the layout "
                    "(they are not the capture's)")


def _explain(g: Grammar, node: Line, text: bytes, has_nl: bool, line_no: int, params: dict) -> Divergence:
    res = loose_walk(node, text, g)
    values = res.values
    placeholder = not res.complete  # the fields not read take their domain's example value
    try:
        expected, spans = render_line_spans(node, values, params, g)
    except Exception:  # noqa: BLE001
        placeholder = True
        values = example_values(node, g)
        values.update({k: v for k, v in res.values.items() if not isinstance(v, list)})
        try:
            expected, spans = render_line_spans(node, values, params, g)
        except Exception:  # noqa: BLE001
            expected, spans = render_line_spans(node, example_values(node, g), params, g)
    if node.newline:
        expected = expected[:-1]  # without its newline
    col = first_difference(expected, text)
    if col is None and has_nl and not node.newline:
        return Divergence(line_no, len(text) + 1, expected, text, None, "breaking", "extra-text",
                          expected_has_newline=False, actual_has_newline=True,
                          note="a newline after the last line: the kernel prints it without one")
    if col is None:
        if not has_nl:
            return Divergence(line_no, len(text) + 1, expected, text, None, "breaking", "missing-newline",
                              actual_has_newline=False, note="the last line has no newline")
        name, col = domain_violation(g, node, values, spans)
        return Divergence(line_no, col, expected, text, name, "breaking", "value",
                          note="a value outside its field's domain")
    fname = field_at(spans, col - 1)
    kind, severity = classify(expected, text, col, node.header)
    return Divergence(line_no, col, expected, text, fname, severity, kind, actual_has_newline=has_nl,
                      note=PLACEHOLDER_NOTE if placeholder else None)


def first_difference(a: bytes, b: bytes) -> int | None:
    """1-based column of the first differing byte, or None when equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i + 1
    return n + 1


def field_at(spans, offset: int) -> str | None:
    """The field rendered at OFFSET, or the one just before it (the value whose padding is off)."""
    before = None
    for sp in spans:
        if sp.start <= offset < sp.end and sp.field:
            return sp.field
        if sp.start <= offset < sp.end and not sp.field:
            return before if offset == sp.start and before else None
        if sp.field:
            before = sp.field
    return before


def domain_violation(g: Grammar, node: Line, values: dict, spans) -> tuple[str | None, int]:
    for f in line_fields(node):
        v = values.get(f.name)
        dom = field_domain(f, g)
        for x in v if isinstance(v, list) else [v]:
            if dom.numeric and isinstance(x, int) and not dom.min <= x <= dom.max:
                start = next((sp.start for sp in spans if sp.field and sp.field.split("[")[0] == f.name), 0)
                return f.name, start + 1
    return None, 1


_SPACES = re.compile(rb" +")


def classify(expected: bytes, actual: bytes, col: int, header: bool) -> tuple[str, str]:
    """(kind, severity) of a divergence. Only a change in how many spaces separate the same tokens
    is cosmetic (consumers split on whitespace); headers, tabs, glued or split tokens, zero padding
    and anything else is breaking (docs/consumers.md)."""
    i = col - 1
    e = expected[i : i + 1]
    a = actual[i : i + 1]
    same_tokens = _SPACES.sub(b" ", expected).strip(b" ") == _SPACES.sub(b" ", actual).strip(b" ")
    if header:
        return "header", "breaking"
    if same_tokens:
        return "width", "cosmetic"
    if {e, a} == {b" ", b"\t"}:
        return "separator", "breaking"
    if not a and e:
        return "missing-text", "breaking"
    if not e and a:
        return "extra-text", "breaking"
    if expected.replace(b" ", b"") == actual.replace(b" ", b"") or e in (b" ", b"\t") or a in (b" ", b"\t"):
        if e.isdigit() and a == b"0" or a.isdigit() and e == b" " and _zero_padded(actual, i):
            return "value", "breaking"
        return "separator", "breaking"
    return "value", "breaking"


def _zero_padded(actual: bytes, i: int) -> bool:
    return actual[i : i + 1] == b"0" and actual[i + 1 : i + 2].isdigit()
