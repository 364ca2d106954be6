"""Comparing the two renderings of one case: where they differ, which line, which field, how bad.

Outputs are compared as bytes plus the list of opaque events (calls the input does not define that
write to the seq_file). A difference is located by its first differing byte; its line is named by
its label (the text before the first value: `Private_Hugetlb:`), so that the report can say which
lines of a many-line record differ over all the inputs tried, not only at the first difference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fmtcheck.c.extensions import token_lengths
from fmtcheck.c.outputs import ConcreteOutput
from fmtcheck.c.stores import written_path
from fmtcheck.common.result import Divergence, SourceLine
from fmtcheck.engine.severity import classify_lines, classify_outputs


@dataclass
class Outcome:
    old: ConcreteOutput
    new: ConcreteOutput
    inputs: dict[str, Any] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # the two sides' file labels, to read the call sites' lines
    reads: tuple[list[str], list[str]] | None = None  # the keys each side read (old, new)

    def sources(self, old_site: str | None, new_site: str | None) -> tuple[SourceLine | None, SourceLine | None]:
        """The source lines of one call site on each side."""
        return SourceLine.from_where(old_site, self.files), SourceLine.from_where(new_site, self.files)

    @property
    def same(self) -> bool:
        return self.old.data == self.new.data and self.old.events == self.new.events


def unshared_call(outcome: Outcome) -> tuple[str, str] | None:
    """(call, where) when the difference may be nothing but the output of an unknown call that
    receives the seq_file, else None.

    Such a call may print or not. A difference is realizable from what both sides share only if
    it shows before the two sides' sequences of these calls part (same calls, same arguments, at
    the same byte offsets up to there): whatever the calls print, it is then the same text at the
    same places on both sides, and the differing byte stays. A difference after the sequences part
    (a call moved, or made by one side only) could be the call's own output."""
    old_events, new_events = outcome.old.events, outcome.new.events
    if old_events == new_events:
        return None
    k = next((i for i, (a, b) in enumerate(zip(old_events, new_events)) if a != b),
             min(len(old_events), len(new_events)))
    parted = min(ev[0] for ev in (old_events[k:k + 1] + new_events[k:k + 1]))
    if outcome.old.data != outcome.new.data and first_difference(outcome.old.data, outcome.new.data) < parted:
        return None
    if [e[1] for e in old_events] == [e[1] for e in new_events] and len(outcome.old.data) != len(outcome.new.data):
        # the same calls, made the same way, print the same text: added to outputs of different
        # lengths, whatever they print, the lengths still differ
        return None
    if lengths_always_differ(outcome):
        return None
    parts = []
    for events, sites in ((old_events, outcome.old.event_sites), (new_events, outcome.new.event_sites)):
        if k < len(events):
            parts.append((events[k][1], sites.get(events[k][1], "call")))
    if len(parts) == 2 and parts[0][0] != parts[1][0]:
        return f"{parts[0][0]} ({parts[0][1]}) or {parts[1][0]} ({parts[1][1]})", parts[0][1]
    # (the reason names both, so a reader sees which two outputs the model could not compare)
    return parts[0]


def lengths_always_differ(outcome: Outcome) -> bool:
    """Both sides make the same opaque events in the same order, those that differ only by the
    width or precision of a %p extension whose text the kernel bounds (`%39pI6c` and `%45pI6c` of
    the same address, fmtcheck.c.extensions.token_lengths), and for every length that text can
    have the two outputs' lengths differ: then they differ whatever the extensions print.
    (The lengths of one event pair are taken apart from the others', a superset of what is
    possible when two events print the same text, so an answer of True stays sound.)"""
    old_events, new_events = outcome.old.events, outcome.new.events
    if len(old_events) != len(new_events) or old_events == new_events:
        return False
    gaps = {len(outcome.old.data) - len(outcome.new.data)}
    for (_, a), (_, b) in zip(old_events, new_events):
        if a == b:
            continue
        ta, tb = token_lengths(a), token_lengths(b)
        if ta is None or tb is None or ta[0] != tb[0]:
            return False
        steps = {ta[1](n) - tb[1](n) for n in ta[2]}
        gaps = {g + d for g in gaps for d in steps}
        if len(gaps) > 4096:
            return False
    return 0 not in gaps


def _event_divergence(outcome: Outcome, aliases: dict[str, str]) -> Divergence:
    """Same bytes, but the opaque output events (calls that print what the model cannot see)
    differ in order, arguments or position: the outputs can differ, so this is a divergence."""
    old_events, new_events = outcome.old.events, outcome.new.events
    k = next((i for i, (a, b) in enumerate(zip(old_events, new_events)) if a != b), min(len(old_events), len(new_events)))
    offset = (old_events[k] if k < len(old_events) else new_events[k])[0]
    line, column, text, has_nl = _line_at(outcome.old.data, offset)
    show = lambda events: (f"<{events[k][1]}>".encode("utf-8", "replace") if k < len(events) else b"<no call>")
    site = lambda out, events: out.event_sites.get(events[k][1]) if k < len(events) else None
    old_source, new_source = outcome.sources(site(outcome.old, old_events), site(outcome.new, new_events))
    return Divergence(
        line=line, column=column, expected=show(old_events), actual=show(new_events), field=None,
        severity="breaking", kind="output-event",
        counterexample=displayed_inputs(outcome.inputs, aliases),
        note=_event_note(old_events[k][1] if k < len(old_events) else None, outcome),
        old_source=old_source, new_source=new_source,
    )


def _event_note(old_key: str | None, outcome: Outcome) -> str:
    """Why differing opaque events are a divergence: a call made differently, or (lengths) the
    same bounded %p extension padded to lengths that differ whatever it prints."""
    shape = token_lengths(old_key) if old_key is not None and lengths_always_differ(outcome) else None
    if shape is None:
        return "a call that writes to the seq_file (not modelled) happens differently on the two sides"
    texts = shape[2]
    return (f"the same %p extension of the same argument on both sides, whose text is {texts.start}-"
            f"{texts.stop - 1} bytes (lib/vsprintf.c), padded or cut so that the outputs' lengths "
            f"differ whatever it prints")


def first_difference(a: bytes, b: bytes) -> int:
    """The offset of the first byte where a and b differ (the shorter length if one is a prefix
    of the other), by bisection over slice comparisons: a /proc line of 256 fields is thousands of
    bytes, and a byte-by-byte Python loop over it cost more than rendering it."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _line_at(data: bytes, offset: int) -> tuple[int, int, bytes, bool]:
    """(1-based line, 1-based column, the line without newline, has newline) at a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    has_nl = end >= 0
    if not has_nl:
        end = len(data)
    return data.count(b"\n", 0, start) + 1, offset - start + 1, data[start:end], has_nl


def line_labels(outcome: Outcome) -> list[int]:
    """Numbers (1-based) of the differing output lines: every one while both outputs have the
    same number of lines, else the line of the first difference (later lines have shifted)."""
    old, new = outcome.old.data, outcome.new.data
    if old == new:
        return [0]  # same bytes, different output events
    old_lines = old.split(b"\n")
    new_lines = new.split(b"\n")
    if len(old_lines) != len(new_lines):
        return [old.count(b"\n", 0, first_difference(old, new)) + 1]
    return [n for n, (a, b) in enumerate(zip(old_lines, new_lines), 1) if a != b]


def describe(outcome: Outcome, aliases: dict[str, str], label: int | None = None,
             shown: ShownInputs | None = None) -> Divergence:
    """The Divergence for one case: at the first difference on line `label` (or the first one);
    `shown`, when given, displays its inputs (once per case for a whole report)."""
    old = outcome.old.data
    new = outcome.new.data
    if old == new:
        return _event_divergence(outcome, aliases)
    offset, new_offset = _offsets(old, new, label)
    line, column, expected, exp_nl = _line_at(old, offset)
    new_line_no, _, actual, act_nl = _line_at(new, new_offset)
    if new_line_no != line:
        actual, act_nl = _nth_line(new, line)
    field_name = outcome.old.field_at(offset) or outcome.new.field_at(new_offset)
    kind, severity = _classify(expected, actual, exp_nl, act_nl, old, new)
    old_source, new_source = outcome.sources(outcome.old.site_at(offset), outcome.new.site_at(new_offset))
    return Divergence(
        line=line, column=column, expected=expected, actual=actual,
        field=_display(field_name, aliases) if field_name else None,
        severity=severity, kind=kind,
        counterexample=(shown or displayed_inputs)(outcome.inputs, aliases),
        expected_has_newline=exp_nl, actual_has_newline=act_nl,
        old_source=old_source, new_source=new_source,
    )


def severity_of(outcome: Outcome, label: int | None = None) -> str:
    """The severity `describe` gives the same case and label, without building its report (the
    search for a worse case looks at hundreds of candidates of one line)."""
    old, new = outcome.old.data, outcome.new.data
    if old == new:
        return "breaking"  # an output-event divergence
    offset, new_offset = _offsets(old, new, label)
    line, _, expected, exp_nl = _line_at(old, offset)
    new_line_no, _, actual, act_nl = _line_at(new, new_offset)
    if new_line_no != line:
        actual, act_nl = _nth_line(new, line)
    return _classify(expected, actual, exp_nl, act_nl, old, new)[1]


def _offsets(old: bytes, new: bytes, label: int | None) -> tuple[int, int]:
    """The offsets, in each output, of the first difference on line `label` (or the first one)."""
    offset = new_offset = first_difference(old, new)
    if label:
        old_lines = old.split(b"\n")
        new_lines = new.split(b"\n")
        if len(old_lines) == len(new_lines) and label <= len(old_lines):
            within = first_difference(old_lines[label - 1], new_lines[label - 1])
            offset = sum(len(x) + 1 for x in old_lines[: label - 1]) + within
            new_offset = sum(len(x) + 1 for x in new_lines[: label - 1]) + within
    return offset, new_offset


def displayed_inputs(inputs: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
    """A case's inputs by the names the reader wrote (`_display`), the aliases ordered once. A
    read after unknown calls that may have written the caller's data (`s->x@cN`, c/stores.py)
    holds, in a reported case, what the path held before them: it is shown once, by the path."""
    ordered = _by_length(aliases)
    shown: dict[str, Any] = {}
    for key, value in inputs.items():
        path = written_path(key)
        if path is not None and inputs.get(path, value) == value:
            key = path
            if key in inputs:
                continue
        shown.setdefault(_display(key, aliases, ordered), value)
    return shown


class ShownInputs:
    """`displayed_inputs` once per case within one report: the lines of one loop often shrink to
    the same case (every line of a slip in iterations 2..9 to the same 9 iterations), whose
    thousands of inputs would each be displayed again per line. An answer is kept with the
    inputs dict it was made for (so that its id names that dict while kept: no case's inputs
    change once made) and the aliases it was made with; each call returns a fresh dict."""

    def __init__(self) -> None:
        self.done: dict[int, tuple[dict[str, Any], dict[str, str], dict[str, Any]]] = {}

    def __call__(self, inputs: dict[str, Any], aliases: dict[str, str]) -> dict[str, Any]:
        kept = self.done.get(id(inputs))
        if kept is None or kept[0] is not inputs or kept[1] != aliases:
            kept = self.done[id(inputs)] = (inputs, dict(aliases), displayed_inputs(inputs, aliases))
        return dict(kept[2])


def _nth_line(data: bytes, line: int) -> tuple[bytes, bool]:
    lines = data.split(b"\n")
    if line - 1 < len(lines):
        return lines[line - 1], line - 1 < len(lines) - 1
    return b"", False


def _classify(expected: bytes, actual: bytes, exp_nl: bool, act_nl: bool, old: bytes, new: bytes) -> tuple[str, str]:
    """Kind and severity: by whole outputs when the line structure differs, else by the line."""
    if old.count(b"\n") != new.count(b"\n") or exp_nl != act_nl or b"\x00" in expected + actual:
        return classify_outputs(old, new)
    return classify_lines(expected, actual)


def display_key(key: str, aliases: dict[str, str]) -> str:
    """An input key as the reader wrote it (a report's counterexample and reasons)."""
    return _display(key, aliases)


def _by_length(aliases: dict[str, str]) -> list[tuple[str, str]]:
    return sorted(aliases.items(), key=lambda kv: -len(kv[0]))


def _display(key: str, aliases: dict[str, str], ordered: list[tuple[str, str]] | None = None) -> str:
    """A key as the reader wrote it: the local variable name for a call's result (`ordered`:
    the aliases longest first, when the caller sorted them once for many keys)."""
    for full, alias in ordered if ordered is not None else _by_length(aliases):
        if key == full or (key.startswith(full) and key[len(full)] in "-.[("):
            return alias + key[len(full):]
    return key
