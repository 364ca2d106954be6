"""Per grammar: its example rendering conforms, and layout mutants of it do not.

For every shipped grammar the example that `fmtcheck grammars NAME` shows is checked against the
grammar itself, then four mutants of one line of it, each a layout change the kernel never makes
for that line: a field one byte wider (a blank inserted before it), one byte narrower (one padding
byte or one zero of a fixed-width field removed), a separator moved one byte to the right, and a
column dropped (a field with the separator before it). Each mutant must be reported divergent; a
grammar with no field where a mutant class is a layout change skips that class with the reason.
"""

from __future__ import annotations

import pytest

from fmtcheck.layout.capture import check_bytes
from fmtcheck.layout.grammar import grammar_names, load_grammar
from fmtcheck.layout.render import example_params, example_values, example_value, render_line_spans
from fmtcheck.layout.model import Line, line_fields, walk_nodes
from fmtcheck.layout.render import field_domain

NAMES = grammar_names()


def example_lines(g) -> list[tuple[object, bytes, list]]:
    """The example rendering line by line, with the spans of its items."""
    from fmtcheck.layout.render import example_rendering

    params = example_params(g)
    out = []
    for line, _ in example_rendering(g):
        values = example_values(line, g)
        for other in g.lines:
            for f in line_fields(other):
                if f.name not in values and f.same_as is None:
                    values[f.name] = example_value(f, g)
        data, spans = render_line_spans(line, values, params, g)
        out.append((line, data, spans))
    return out


def version_dependent(g) -> set:
    """Fields that one option of a variant prints and another does not: dropping one of them gives
    the layout of another kernel version, which is no divergence."""
    names: set = set()
    for v in g.variants:
        per_option = [{f.name for n in walk_nodes(body) if isinstance(n, Line) for f in line_fields(n)}
                      for body in v.options]
        if per_option:
            names |= set.union(*per_option) - set.intersection(*per_option)
    return names


def numeric_spans(g, line, spans) -> list:
    """Spans of the line's fields whose domain is a number and that every version prints."""
    fields = {f.name: f for f in line_fields(line)}
    skip = version_dependent(g)
    found = []
    for span in spans:
        name = (span.field or "").split("[")[0]
        f = fields.get(name)
        if f is not None and name not in skip and field_domain(f, g).numeric and span.end > span.start:
            found.append(span)
    return found


def between_digits(data: bytes, s) -> bool:
    """A separator with a digit on both sides: moving it right changes two values, not the layout."""
    return data[s.start - 1:s.start].isdigit() and data[s.end:s.end + 1].isdigit() and s.end - s.start == 1


def with_line(lines, index: int, new: bytes) -> bytes:
    return b"".join(new if i == index else data for i, (_, data, _) in enumerate(lines))


def mutants(g) -> dict[str, bytes | str]:
    """One mutant per class, or the reason there is none."""
    lines = example_lines(g)
    found: dict[str, bytes | str] = {}
    for i, (line, data, spans) in enumerate(lines):
        nums = numeric_spans(g, line, spans)
        # the first field of a line (a slot or IRQ number) is the one whose width some versions
        # changed (udp6 "%4d" before 3.x): prefer the others for the narrower mutant
        for s in nums[1:] + nums[:1]:
            found.setdefault("wider", with_line(lines, i, data[:s.start] + b" " + data[s.start:]))
            text = data[s.start:s.end]
            if text[:1] == b" ":
                found.setdefault("narrower", with_line(lines, i, data[:s.start] + data[s.start + 1:]))
            elif len(text) > 1 and text[:1] == b"0":
                found.setdefault("narrower", with_line(lines, i, data[:s.start] + data[s.start + 1:]))
        lits = [k for k, s in enumerate(spans) if s.field is None and s.end > s.start]
        for k in lits:
            s = spans[k]
            nxt = data[s.end:s.end + 1]
            if k + 1 < len(spans) and spans[k + 1].field and nxt not in (b"", b"\n") and data[s.start:s.end] != nxt:
                if between_digits(data, s) or not (spans[k + 1] in nums or (k and spans[k - 1] in nums)):
                    continue  # "1 23" -> "12 3" is another value, not another layout
                moved = data[:s.start] + data[s.start + 1:s.end + 1] + data[s.start:s.start + 1] + data[s.end + 1:]
                found.setdefault("moved-separator", with_line(lines, i, moved))
        for k, s in enumerate(spans):
            # a column of a repeated group may be dropped from every line alike: only fixed columns
            if s.field and "[" not in s.field and k > 0 and spans[k - 1].field is None and s in nums:
                prev = spans[k - 1]
                found.setdefault("dropped-column", with_line(lines, i, data[:prev.start] + data[s.end:]))
    for cls in ("wider", "narrower", "moved-separator", "dropped-column"):
        found.setdefault(cls, f"{g.name}: no field where a {cls} mutant is a layout change")
    return found


def example_bytes(g) -> bytes:
    return b"".join(d for _, d, _ in example_lines(g))


def reported(g, data: bytes) -> set:
    """(line, kind) of every divergence `check` reports."""
    return {(d.line, d.kind) for d in check_bytes(data, g).divergences}


@pytest.mark.parametrize("name", NAMES)
def test_example_rendering_conforms(name):
    """The example is one record per statement: a keyed file's example lacks the keys every kernel
    prints (meminfo's MemTotal...), which `check` rightly reports as missing lines, and only those."""
    g = load_grammar(name)
    result = check_bytes(example_bytes(g), g)
    if g.keys:
        assert all(d.kind == "missing-line" for d in result.divergences), (name, result.divergences[:1])
    else:
        assert result.verdict == "equivalent", (name, example_bytes(g), result.divergences[:1])


@pytest.mark.parametrize("cls", ["wider", "narrower", "moved-separator", "dropped-column"])
@pytest.mark.parametrize("name", NAMES)
def test_layout_mutant_diverges(name, cls):
    """The mutant is reported divergent at a place or of a kind the example itself is not."""
    g = load_grammar(name)
    mutant = mutants(g)[cls]
    if isinstance(mutant, str):
        pytest.skip(mutant)
    result = check_bytes(mutant, g)
    assert result.verdict == "divergent", (name, cls, mutant)
    assert reported(g, mutant) - reported(g, example_bytes(g)), (name, cls, mutant)
