"""`fmtcheck diff OLD NEW`: do two captures of one /proc file have the same layout?

Captures taken at different moments (or on an old and a patched kernel) differ in every counter, so
bytes cannot be compared. With a grammar, OLD is matched first: that settles the layout it shows
(which kernel-version variants, which optional lines). NEW is then checked against the grammar
held to OLD's layout, so a padding that is not what the field width gives for NEW's value, a changed
separator, a tab for a space, a header change, or a line added or missing is reported where it
happens in NEW. A departure that OLD shows as well is the same layout and is not reported. Values
changing, per-CPU columns changing in number, and records present on one side only (an interface
added, a VMA gone) are not layout changes: the latter are listed as notes.

Without a grammar, a token-level diff pairs lines (by their first token, else by position) and
compares them token by token: digits may change, and a blank run may change only as much as the
numbers beside it changed in length (right- or left-aligned columns); anything else is reported.
"""

from __future__ import annotations

import re
from collections import Counter

from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Divergence, Report, Result
from fmtcheck.layout.capture import grammar_for, match_capture
from fmtcheck.layout.explain import classify, first_difference
from fmtcheck.layout.language import detect_grammar
from fmtcheck.layout.reader import open_capture, read_head

MAX_KEYS_SHOWN = 5


def diff_captures(old: str, new: str, options: Options) -> Report:
    """Compare the layout of two captures of the same /proc file."""
    for path in (old, new):
        open_capture(path).close()
    grammar = None
    if options.grammar:
        grammar = grammar_for(old, options.grammar)
    else:
        head = read_head(old) or read_head(new)
        grammar = detect_grammar(head, old) if head else None
    report = Report(command="diff")
    if grammar is None:
        report.results.append(token_diff(old, new))
    else:
        report.results.append(grammar_diff(old, new, grammar))
    return report


# --------------------------------------------------------------------------------------------------
# With a grammar


def grammar_diff(old: str, new: str, grammar) -> Result:
    before = match_capture(old, grammar, collect=True)
    after = match_capture(new, grammar, variants=before.variants, collect=True)
    known = Counter(_signature(d) for d in before.divergences)
    divergences = []
    for d in after.divergences:
        sig = _signature(d)
        if known[sig]:
            continue  # OLD departs from the grammar in the same way: same layout
        divergences.append(d)
    notes = record_notes(before.records, after.records)
    if before.divergences:
        notes.append(f"{old} itself departs from the {grammar.name} grammar in {len(before.divergences)} "
                     "place(s); NEW was compared with the layout OLD shows")
    if after.truncated:
        notes.append(f"{after.truncated} more divergences not shown")
    verdict = "divergent" if divergences else "equivalent"
    return Result(subject=f"{old} -> {new}", verdict=verdict, method="tested", cases=after.lines,
                  divergences=divergences, notes=notes, extra={"grammar": grammar.name})


def _signature(d: Divergence) -> tuple:
    """What a departure looks like, regardless of the values on its line."""
    digits = re.compile(rb"[0-9]+")
    i = d.column - 1
    return (d.kind, (d.field or "").split("[")[0], digits.sub(b"9", d.actual[max(0, i - 1): i + 2]),
            digits.sub(b"9", d.expected[max(0, i - 1): i + 2]))


def record_notes(old_records: list, new_records: list) -> list[str]:
    """Records present on one side only, by block and key (a note each way, keys abbreviated)."""
    old_keys = Counter((r.block, r.key) for r in old_records)
    new_keys = Counter((r.block, r.key) for r in new_records)
    notes = []
    for label, a, b in (("only in OLD", old_keys, new_keys), ("only in NEW", new_keys, old_keys)):
        only = [k for k in a if k not in b]
        if only:
            shown = ", ".join(f"{blk} {_show_key(key)}" for blk, key in only[:MAX_KEYS_SHOWN])
            more = f" and {len(only) - MAX_KEYS_SHOWN} more" if len(only) > MAX_KEYS_SHOWN else ""
            notes.append(f"{len(only)} record(s) {label}: {shown}{more}")
    return notes


def _show_key(key: tuple) -> str:
    return "/".join(k.decode("latin-1") if isinstance(k, bytes) else str(k) for k in key)


# --------------------------------------------------------------------------------------------------
# Without a grammar: tokens

_TOKEN = re.compile(rb"[0-9]+|[ ]+|\t+|[^0-9 \t]+")


def tokens(line: bytes) -> list[bytes]:
    return _TOKEN.findall(line)


def _kind(tok: bytes) -> str:
    if tok[:1].isdigit():
        return "num"
    if tok[:1] == b" ":
        return "sp"
    if tok[:1] == b"\t":
        return "tab"
    return "text"


def read_lines(path: str) -> list[bytes]:
    with open_capture(path) as f:
        try:
            return f.read().split(b"\n")
        except OSError as err:
            raise InputError(path, err.strerror or "cannot read") from None


def token_diff(old: str, new: str) -> Result:
    """Layout diff of two captures of a file with no grammar."""
    a, b = read_lines(old), read_lines(new)
    pairs, only_old, only_new = pair_lines(a, b)
    divergences = []
    for i, j in pairs:
        d = compare_line(a[i], b[j], j + 1)
        if d is not None:
            divergences.append(d)
    notes = ["no grammar for this file: compared token by token"]
    for label, idx, lines in (("only in OLD", only_old, a), ("only in NEW", only_new, b)):
        if idx:
            shown = ", ".join(repr(_key(lines[i]).decode("latin-1")) for i in idx[:MAX_KEYS_SHOWN])
            notes.append(f"{len(idx)} line(s) {label}: {shown}")
    verdict = "divergent" if divergences else "equivalent"
    return Result(subject=f"{old} -> {new}", verdict=verdict, method="tested", cases=len(pairs),
                  divergences=divergences, notes=notes)


def _key(line: bytes) -> bytes:
    """A line's key: its first non-numeric token (a label), or empty for purely numeric lines."""
    for tok in tokens(line):
        if _kind(tok) == "text":
            return tok
    return b""


def pair_lines(a: list[bytes], b: list[bytes]) -> tuple[list, list, list]:
    """Pair lines by key when keys are unique on both sides, else by position."""
    ka, kb = [_key(x) for x in a], [_key(x) for x in b]
    unique = len(set(ka)) == len(ka) and len(set(kb)) == len(kb) and any(ka)
    if not unique:
        n = min(len(a), len(b))
        return [(i, i) for i in range(n)], list(range(n, len(a))), list(range(n, len(b)))
    where = {k: j for j, k in enumerate(kb)}
    pairs = [(i, where[k]) for i, k in enumerate(ka) if k in where]
    only_old = [i for i, k in enumerate(ka) if k not in where]
    seen = {k for k in ka}
    only_new = [j for j, k in enumerate(kb) if k not in seen]
    return pairs, only_old, only_new


def compare_line(old: bytes, new: bytes, line_no: int) -> Divergence | None:
    """The first layout difference between two lines whose values may differ."""
    ta, tb = tokens(old), tokens(new)
    col = 1
    for i in range(min(len(ta), len(tb))):
        x, y = ta[i], tb[i]
        if _kind(x) != _kind(y):
            return _div(old, new, line_no, col, "separator")
        k = _kind(x)
        if k == "text" and x != y:
            return _div(old, new, line_no, col + _common(x, y), "separator")
        if k in ("sp", "tab") and x != y and not _explained(ta, tb, i):
            return _div(old, new, line_no, col + min(len(x), len(y)), "width")
        col += len(y)
    if len(ta) != len(tb):
        kind = "missing-text" if len(tb) < len(ta) else "extra-text"
        return _div(old, new, line_no, len(new) + 1 if len(tb) < len(ta) else col, kind)
    return None


def _common(x: bytes, y: bytes) -> int:
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    return n


def _explained(ta: list, tb: list, i: int) -> bool:
    """A blank run may differ only as much as a neighbouring number changed length: a right-aligned
    column (number after) or a left-aligned one (number before) keeps its total width."""
    da, db = len(ta[i]), len(tb[i])
    for j in (i + 1, i - 1):
        if 0 <= j < len(ta) and j < len(tb) and _kind(ta[j]) == "num" == _kind(tb[j]):
            if da + len(ta[j]) == db + len(tb[j]) and min(da, db) >= 1:
                return True
    return False


def _div(old: bytes, new: bytes, line_no: int, col: int, kind: str) -> Divergence:
    first = first_difference(old, new) or col
    kind_c, severity = classify(old, new, min(col, first) if kind != "width" else col, False)
    severity = "cosmetic" if kind == "width" and severity == "cosmetic" else "breaking"
    return Divergence(line_no, col, old, new, None, severity, kind if kind != "separator" else kind_c,
                      note="token-level comparison (no grammar): expected is the OLD line")
