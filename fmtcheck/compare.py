"""Comparing the two renderings of one case: where they differ, which line, which field, how bad.

Outputs are compared as bytes plus the list of opaque events (calls the input does not define that
write to the seq_file). A difference is located by its first differing byte; its line is named by
its label (the text before the first value: `Private_Hugetlb:`), so that the report can say which
lines of a many-line record differ over all the inputs tried, not only at the first difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .outputs import ConcreteOutput
from .result import Divergence



@dataclass
class Outcome:
    old: ConcreteOutput
    new: ConcreteOutput
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def same(self) -> bool:
        return self.old.data == self.new.data and self.old.events == self.new.events


def _event_divergence(outcome: Outcome, aliases: dict[str, str]) -> Divergence:
    """Same bytes, but the opaque output events (calls that print what the model cannot see)
    differ in order, arguments or position: the outputs can differ, so this is a divergence."""
    old_events, new_events = outcome.old.events, outcome.new.events
    k = next((i for i, (a, b) in enumerate(zip(old_events, new_events)) if a != b), min(len(old_events), len(new_events)))
    offset = (old_events[k] if k < len(old_events) else new_events[k])[0]
    line, column, text, has_nl = _line_at(outcome.old.data, offset)
    show = lambda events: (f"<{events[k][1]}>".encode("utf-8", "replace") if k < len(events) else b"<no call>")
    return Divergence(
        line=line, column=column, expected=show(old_events), actual=show(new_events), field=None,
        severity="breaking", kind="output-event",
        counterexample={_display(key, aliases): v for key, v in outcome.inputs.items()},
        note="a call that writes to the seq_file (not modelled) happens differently on the two sides",
    )


def first_difference(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def _line_at(data: bytes, offset: int) -> tuple[int, int, bytes, bool]:
    """(1-based line, 1-based column, the line without newline, has newline) at a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    has_nl = end >= 0
    if not has_nl:
        end = len(data)
    return data.count(b"\n", 0, start) + 1, offset - start + 1, data[start:end], has_nl


def line_template(out: ConcreteOutput, start: int, end: int) -> str:
    """A line with every formatted value replaced by '•': the same for every input, so it names
    the line (`Private_Hugetlb:•·kB`) whatever the values are."""
    data = out.data
    covered = bytearray(end - start)
    for s, e, name in out.spans:
        if e <= start or s >= end or name is None:
            continue
        for i in range(max(s, start), min(e, end)):
            covered[i - start] = 1
    pieces = []
    in_field = False
    for i in range(start, end):
        if covered[i - start]:
            if not in_field:
                pieces.append("\u2022")
            in_field = True
        else:
            in_field = False
            b = data[i]
            pieces.append(chr(b) if 0x21 <= b < 0x7F else ("\u00b7" if b == 0x20 else "\u2192" if b == 9 else f"\\x{b:02x}"))
    text = "".join(pieces)
    return text[:60] if text else "<empty line>"


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    spans = []
    pos = 0
    for line in data.split(b"\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


def line_labels(outcome: Outcome) -> list[str]:
    """Templates of every differing line (lines are paired by position while counts agree)."""
    old, new = outcome.old.data, outcome.new.data
    if outcome.old.events != outcome.new.events and old == new:
        return ["<output event order>"]
    old_spans = _line_spans(old)
    new_lines = new.split(b"\n")
    if len(old_spans) != len(new_lines):
        i = first_difference(old, new)
        line = old.count(b"\n", 0, i)
        s, e = old_spans[min(line, len(old_spans) - 1)]
        return [line_template(outcome.old, s, e)]
    labels = []
    for (s, e), b in zip(old_spans, new_lines):
        if old[s:e] != b:
            label = line_template(outcome.old, s, e)
            if label not in labels:
                labels.append(label)
    return labels or ["<output event order>"]


def describe(outcome: Outcome, aliases: dict[str, str], label: str | None = None) -> Divergence:
    """The Divergence for one case: at the first difference on the labelled line."""
    old = outcome.old.data
    new = outcome.new.data
    if old == new:
        return _event_divergence(outcome, aliases)
    offset = first_difference(old, new)
    if label is not None:
        old_lines = old.split(b"\n")
        new_lines = new.split(b"\n")
        if len(old_lines) == len(new_lines):
            pos = 0
            for a, b in zip(old_lines, new_lines):
                if a != b and line_template(outcome.old, pos, pos + len(a)) == label:
                    offset = pos + first_difference(a, b)
                    break
                pos += len(a) + 1
    line, column, expected, exp_nl = _line_at(old, offset)
    new_line_no, _, actual, act_nl = _line_at(new, offset)
    if new_line_no != line:
        actual, act_nl = _nth_line(new, line)
    field_name = outcome.old.field_at(offset) or outcome.new.field_at(offset)
    kind, severity = _classify(expected, actual, exp_nl, act_nl, old, new)
    return Divergence(
        line=line, column=column, expected=expected, actual=actual,
        field=_display(field_name, aliases) if field_name else None,
        severity=severity, kind=kind,
        counterexample={_display(k, aliases): v for k, v in outcome.inputs.items()},
        expected_has_newline=exp_nl, actual_has_newline=act_nl,
    )


def _nth_line(data: bytes, line: int) -> tuple[bytes, bool]:
    lines = data.split(b"\n")
    if line - 1 < len(lines):
        return lines[line - 1], line - 1 < len(lines) - 1
    return b"", False


def _classify(expected: bytes, actual: bytes, exp_nl: bool, act_nl: bool, old: bytes, new: bytes) -> tuple[str, str]:
    try:
        from .severity import classify_lines, classify_outputs
    except ImportError:  # pragma: no cover - severity ships with the package
        return ("value", "breaking")
    if old.count(b"\n") != new.count(b"\n") or exp_nl != act_nl or b"\x00" in expected + actual:
        return classify_outputs(old, new)
    return classify_lines(expected, actual)


def _display(key: str, aliases: dict[str, str]) -> str:
    """A key as the reader wrote it: the local variable name for a call's result."""
    for full, alias in sorted(aliases.items(), key=lambda kv: -len(kv[0])):
        if key == full or (key.startswith(full) and key[len(full)] in "-.[("):
            return alias + key[len(full):]
    return key
