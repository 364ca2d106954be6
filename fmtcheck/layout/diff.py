"""`fmtcheck diff OLD NEW`: do two captures of one /proc file have the same layout?

Captures taken at different moments (or on an old and a patched kernel) differ in every counter, so
bytes cannot be compared. With a grammar, both captures are matched on their own; a departure from
the grammar that one side shows and the other does not is a layout change, whichever side shows
it, so `diff A B` and `diff B A` give the same verdict with mirrored kinds. When the two settle a
kernel-version variant differently, each is matched again held to the other's layout, so that a
padding, a separator or a glued name is reported where it is. Keyed files compare their keys
(`key-removed`, `key-added`, `key-renamed`) and rows their field counts (`columns-added`,
`columns-removed`), see fmtcheck.layout.keys. Values changing, per-CPU columns changing in number,
and records present on one side only (an interface added, a VMA gone) are not layout changes: the
latter are listed as notes.

Without a grammar, a token-level diff pairs lines (by their first token, else by position) and
compares them token by token: digits may change, and a blank run may change only as much as the
numbers beside it changed in length (right- or left-aligned columns); anything else is reported.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.common.plain import replace
from fmtcheck.common.result import Divergence, Report, Result
from fmtcheck.layout import native
from fmtcheck.layout.capture import grammar_for, match_capture
from fmtcheck.layout.explain import classify, first_difference
from fmtcheck.layout.keys import INVENTORY_BYTES, diff_columns, diff_keys, inventory_of, is_keyed
from fmtcheck.layout.language import detect_grammar
from fmtcheck.layout.matchstate import KeyRun, expanded_records
from fmtcheck.layout.reader import CHUNK, MAX_LINE, open_capture, read_head

MAX_KEYS_SHOWN = 5
MAX_DIFF_BYTES = 256 << 20  # per capture, without a grammar (held in memory as lines)


def diff_captures(old: str, new: str, options: Options) -> Report:
    """Compare the layout of two captures of the same /proc file."""
    for path in (old, new):
        open_capture(path).close()
    grammar = None
    if options.grammar:
        grammar = grammar_for(old, options.grammar)
    else:
        grammar = detected_grammar(old, new)
    report = Report(command="diff")
    if grammar is None:
        report.results.append(token_diff(old, new))
    else:
        report.results.append(grammar_diff(old, new, grammar))
    return report


def detected_grammar(old: str, new: str):
    """The grammar of either capture, found the same way whichever is OLD: a capture that departs
    from its file's layout where detection looks (an smaps record without its `Size:` line) is
    still diffed by the grammar the other side shows, not token by token, where a removed key is
    only a note. When the two show different grammars, the first by name is taken both ways."""
    found = {g.name: g for g in map(_detected, (old, new)) if g is not None}
    return found[min(found)] if found else None


def _detected(path: str):
    head = read_head(path)
    return detect_grammar(head, path) if head else None


# --------------------------------------------------------------------------------------------------
# With a grammar


MIRROR = {"missing-text": "extra-text", "extra-text": "missing-text", "missing-line": "extra-line",
          "extra-line": "missing-line", "key-added": "key-removed", "key-removed": "key-added",
          "columns-added": "columns-removed", "columns-removed": "columns-added"}


def grammar_diff(old: str, new: str, grammar) -> Result:
    """Both captures are matched on their own, so that OLD and NEW play the same part: a departure
    from the grammar that one side shows and the other does not is a layout change whichever side
    shows it, and `diff A B` and `diff B A` agree (with mirrored kinds). Only when the two settle a
    kernel-version variant differently is each matched again held to the other's layout."""
    collect = not is_keyed(grammar)  # records by key, for the notes; a keyed file has its inventory
    before = match_capture(old, grammar, collect=collect)
    after = match_capture(new, grammar, collect=collect)
    divergences = departures(before.divergences, after.divergences)
    divergences += [mirrored(d) for d in departures(after.divergences, before.divergences)]
    notes = []
    layout_variants = differing_variants(grammar, before.variants, after.variants)
    if layout_variants:
        held_new = match_capture(new, grammar, variants=_held(before.variants, layout_variants), collect=False)
        held_old = match_capture(old, grammar, variants=_held(after.variants, layout_variants), collect=False)
        forward = departures(held_new.divergences, after.divergences + before.divergences)
        spots = {(d.line, d.column) for d in forward}
        divergences += forward  # and the other way where that shows another place
        divergences += [mirrored(d) for d in departures(held_old.divergences, before.divergences + after.divergences)
                        if (d.line, d.column) not in spots]
    keyed = is_keyed(grammar) or grammar.columns
    if keyed:
        old_inv = inventory_of(old, grammar)
        new_inv = inventory_of(new, grammar)
        divergences += diff_keys(grammar, old_inv, new_inv) if is_keyed(grammar) else []
        divergences += diff_columns(grammar, old_inv, new_inv)
        if not (old_inv.complete and new_inv.complete):
            notes.append(f"keys and columns compared on the first {INVENTORY_BYTES >> 10} KiB of each capture")
    if not is_keyed(grammar):
        notes += record_notes(before.records, after.records)
    for path, out in ((old, before), (new, after)):
        if out.divergences:
            notes.append(f"{path} itself departs from the {grammar.name} grammar in {len(out.divergences)} "
                         "place(s); only departures the other side does not show are layout changes")
    truncated = before.truncated + after.truncated
    if truncated:
        notes.append(f"{truncated} more divergences not shown")
    divergences.sort(key=lambda d: d.line)
    verdict = "divergent" if divergences else "equivalent"
    return Result(subject=f"{old} -> {new}", verdict=verdict, method="tested", cases=after.lines,
                  divergences=divergences, notes=notes, extra={"grammar": grammar.name})


def departures(mine: list, theirs: list) -> list:
    """MINE's departures from the grammar that THEIRS does not show in the same way."""
    known = Counter(_signature(d) for d in theirs)
    out = []
    for d in mine:
        sig = _signature(d)
        if known[sig]:
            known[sig] -= 1
            continue
        out.append(d)
    return out


def mirrored(d: Divergence) -> Divergence:
    """A departure OLD shows and NEW does not, told from NEW's side: NEW conforms where OLD did not."""
    note = "OLD departs from the layout here and NEW does not" + (f"; {d.note}" if d.note else "")
    return replace(d, kind=MIRROR.get(d.kind, d.kind), note=note)


def differing_variants(g, a: dict, b: dict) -> set:
    """Variants both captures settle, to different options (and not a mere present/absent line,
    which the key inventory reports as a key added or removed)."""
    out = set()
    for v in g.variants:
        ca, cb = a.get(v.uid), b.get(v.uid)
        if not ca or not cb or set(ca) & set(cb):
            continue
        if is_keyed(g) and len(v.options) == 2 and any(not o for o in v.options):
            continue
        out.add(v.uid)
    return out


def _held(variants: dict, uids: set) -> dict:
    return {uid: c for uid, c in variants.items() if uid in uids}


def _signature(d: Divergence) -> tuple:
    """What a departure looks like, regardless of the values on its line."""
    digits = re.compile(rb"[0-9]+")
    i = d.column - 1
    return (d.kind, (d.field or "").split("[")[0], digits.sub(b"9", d.actual[max(0, i - 1): i + 2]),
            digits.sub(b"9", d.expected[max(0, i - 1): i + 2]))


def record_notes(old_records: list, new_records: list) -> list[str]:
    """Records present on one side only, by block and key (a note each way, keys abbreviated)."""
    single = _single_block_keys(old_records, new_records)
    if single is not None:
        block, old_flat, new_flat = single
        if old_flat == new_flat:
            return []
        shown_as = lambda key: f"{block} {_show_key((key,))}"  # noqa: E731
        found = native.keys_only_in(old_flat, new_flat, MAX_KEYS_SHOWN)
        if found is not None:
            return _only_notes(found, shown_as)
        old_keys, new_keys = dict.fromkeys(old_flat.split(b"\n")[:-1]), dict.fromkeys(new_flat.split(b"\n")[:-1])
    else:
        old_keys = dict.fromkeys(expanded_records(old_records))  # (block, key), in the order first seen
        new_keys = dict.fromkeys(expanded_records(new_records))
        shown_as = lambda record: f"{record[0]} {_show_key(record[1])}"  # noqa: E731
    found = []
    for a, b in ((old_keys, new_keys), (new_keys, old_keys)):
        only = list(itertools.filterfalse(b.__contains__, a))
        found.append((len(only), only[:MAX_KEYS_SHOWN]))
    return _only_notes(found, shown_as)


def _only_notes(found: list, shown_as) -> list[str]:
    """The notes of FOUND: (how many records only OLD holds, the first of them), then NEW's."""
    notes = []
    for label, (count, first) in zip(("only in OLD", "only in NEW"), found):
        if count:
            shown = ", ".join(shown_as(r) for r in first)
            more = f" and {count - MAX_KEYS_SHOWN} more" if count > MAX_KEYS_SHOWN else ""
            notes.append(f"{count} record(s) {label}: {shown}{more}")
    return notes


def _single_block_keys(old_records: list, new_records: list) -> tuple | None:
    """(block, OLD's keys, NEW's keys) when every record of both sides is of one block and keyed by
    one field: then a key stands for its record ((block, (key,)) <-> key is one to one, so the
    records first seen, and those on one side only, are the same), and the keys read in bulk
    (`KeyRun`) are compared as they are, each side's keys one string, each key followed by a
    newline, without a tuple or a bytes object per record. Else (or for a key holding a newline,
    which a record read line by line may have) None."""
    blocks = set()
    flat: list[list] = [[], []]
    for side, records in enumerate((old_records, new_records)):
        for r in records:
            if isinstance(r, KeyRun):
                blocks.add(r.block)
                flat[side].append(r.keys)
            elif len(r[1]) == 1 and b"\n" not in r[1][0]:
                blocks.add(r[0])
                flat[side] += (r[1][0], b"\n")
            else:
                return None
            if len(blocks) > 1:
                return None
    return (blocks.pop(), b"".join(flat[0]), b"".join(flat[1])) if blocks else None


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
    """The lines of a capture, read in chunks: a line over MAX_LINE (or a file over MAX_DIFF_BYTES)
    is refused as soon as it is seen, not after the whole file is in memory."""
    data = bytearray()
    line_start = 0
    with open_capture(path) as f:
        while chunk := f.read(CHUNK):
            seen = len(data)
            data += chunk
            if len(data) > MAX_DIFF_BYTES:
                raise InputError(path, f"larger than {MAX_DIFF_BYTES >> 20} MiB: too large to diff token by token")
            first = data.find(b"\n", seen)
            if first >= 0 and first - line_start > MAX_LINE:
                break
            last = data.rfind(b"\n", seen)
            line_start = last + 1 if last >= 0 else line_start
            if len(data) - line_start > MAX_LINE:
                break
        else:
            return bytes(data).split(b"\n")
    raise InputError(path, f"a line longer than {MAX_LINE >> 20} MiB")


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
