"""Rebuilding functions from a patch alone: the pieces of every hunk joined, per side, into whole
functions, with a gap marker where the patch does not show the code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fmtcheck.patch.ctext import Definition, harvest_definitions
from fmtcheck.patch.hunks import GAP_EVENT, GAP_MARKER, HunkScan, Piece, SideScan, scan_hunk
from fmtcheck.patch.patchfile import (
    FileDiff,
    HunkLine,
)


def assemble_function(name: str, pieces: list[Piece], file: str, side: str | None = None) -> Definition:
    """Join one side's pieces of a function into one complete function (see the module doc).
    SIDE ("old" or "new") says which file line each line of the patch keeps (reports name them);
    the lines the rebuild makes up (header, braces, gap markers) have none."""
    out: list[bytes] = []
    rows: list[int | None] = []

    def made(*texts: bytes) -> None:
        out.extend(texts)
        rows.extend(None for _ in texts)

    gaps = 0
    depth = 0
    opened = 0  # blocks opened inside the function whose opening line the patch does not show
    events: list[tuple[int, str]] = []  # (index in out, key) of each gap that holds code

    def gap(key: str | None) -> None:
        if key is not None:
            events.append((len(out), key))
        made(GAP_MARKER)

    first = pieces[0]
    if first.depth_in > 0:
        made(first.header or f"static void {name}(void)".encode(), b"{")
        gap("start")
        gaps, depth = 1, 1
    elif first.header is not None:
        made(first.header)
    for index, piece in enumerate(pieces):
        if index > 0:
            gap(_code_between(pieces[index - 1], piece, side))
            gaps += 1
        target = max(piece.depth_in, 1) if depth > 0 else piece.depth_in
        while depth > target:
            made(b"}")
            depth -= 1
        while depth < target:
            made(hidden_block_opening(depth, opened))
            opened += depth > 0
            depth += 1
        out += [line.text for line in piece.lines]
        rows += [_side_line(line, side) for line in piece.lines]
        depth = piece.depth_out
    if depth > 0:
        gap("end")
        gaps += 1
        made(*[b"}"] * depth)
    printing_gaps = _print_in_gaps(out, events)
    changed = any(p.changed for p in pieces)
    problem = next((p.problem for p in pieces if p.problem), None)
    if problem is None and not printing_gaps:
        problem = next((p.printing_cut for p in pieces if p.printing_cut), None)
    line = next((l.old_no or l.new_no or 0 for p in pieces for l in p.lines), 0)
    text_rows = tuple(n for text, row in zip(out, rows) for n in [row] + [None] * text.count(b"\n"))
    return Definition(name, "function", b"\n".join(out) + b"\n", file, line, changed, gaps == 0, gaps, problem,
                      rows=text_rows)


def _code_between(before: Piece, after: Piece, side: str | None) -> str | None:
    """The key of the gap between two pieces when the hunk headers put code there (the side's
    line numbers jump), None when the pieces are adjacent: such a gap holds nothing."""
    last = _side_line(before.lines[-1], side) if before.lines else None
    following = _side_line(after.lines[0], side) if after.lines else None
    if last is not None and following is not None and following <= last + 1:
        return None
    return f"after_{before.hunk_where}"


_SEQ_PARAMETER = re.compile(rb"struct\s+seq_file\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)")


def _print_in_gaps(out: list[bytes], events: list[tuple[int, str]]) -> bool:
    """A gap is unchanged code, the same on both sides, that may print: it becomes a call of an
    unknown function that receives the seq_file (an output event the engine keeps uninterpreted,
    and the same on both sides when the gap is), named by the hunk before it. Without a seq_file
    parameter the function's gaps cannot print to it and stay comments. Whether they print."""
    header = b"\n".join(out[: next((k for k, text in enumerate(out) if text.strip().startswith(b"{")), 1)])
    match = _SEQ_PARAMETER.search(header)
    if match is None:
        return False
    for index, key in events:
        out[index] = b"%s_%s(%s); %s" % (GAP_EVENT, key.encode(), match.group(1), GAP_MARKER)
    return True


def _side_line(line: HunkLine, side: str | None) -> int | None:
    if side == "old":
        return line.old_no
    if side == "new":
        return line.new_no
    return line.old_no or line.new_no


def hidden_block_opening(depth: int, index: int) -> bytes:
    """The opening of a block whose first line lies in a hunk gap.

    Inside a function such a block belongs to an `if`, `for`, `while`, `else` or `switch` the patch
    does not show: its code may or may not run. It opens under a condition nothing defines, an input
    shared by both sides (numbered in order, the same on both when the context is), so that an early
    `return` shown inside it does not make the code after it unreachable on both sides and every
    difference there invisible. Only the function body itself (depth 0) opens unconditionally.
    """
    if depth == 0:
        return b"{"
    return b"if (__fmtcheck_hidden_condition_%d) {" % index


@dataclass
class FileView:
    """What the old and new sides of one file define, and notes about what could not be seen."""

    path: str
    old: dict[str, Definition] = field(default_factory=dict)
    new: dict[str, Definition] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    touched_declarations: list[str] = field(default_factory=list)  # changed, but not rebuildable
    # changes in code no hunk header names: (line of the hunk, line of the change, text)
    unnamed: list[tuple[int, int, bytes]] = field(default_factory=list)
    from_tree: bool = False
    origin: str = "hunks"  # how its functions were rebuilt: "hunks", or whole files from "tree" or "git"
    # whole files only: each side's `#include` lines, so the engine can read the constants of
    # the headers (`BLK_MQ_S_STOPPED` in a designator) from the tree
    includes: dict[str, list[bytes]] = field(default_factory=dict)

    def side(self, which: str) -> dict[str, Definition]:
        return self.old if which == "old" else self.new


def view_from_hunks(diff: FileDiff, source: str) -> FileView:
    """Rebuild a file's touched functions and definitions from its hunks alone."""
    view = FileView(diff.path)
    scans: list[HunkScan] = []
    carry_old = carry_new = None
    for hunk in diff.hunks:
        scan = scan_hunk(hunk, carry_old, carry_new, diff.path, source)
        scans.append(scan)
        carry_old = _open_function(scan.old)
        carry_new = _open_function(scan.new)
    for which in ("old", "new"):
        _collect_side(view, [getattr(scan, which) for scan in scans], which, source)
    for scan in scans:
        if scan.trimmed_lead or scan.trimmed_trail:
            view.notes.append(
                f"{diff.path}: {scan.trimmed_lead + scan.trimmed_trail} unchanged line(s) of the hunk at "
                f"{source}:{scan.hunk.where} cut a statement in two and were left out"
            )
    return view


def _open_function(scan: SideScan) -> str | None:
    if scan.pieces and scan.pieces[-1].depth_out > 0 and scan.pieces[-1].kind == "function":
        return scan.pieces[-1].name
    return None


def _collect_side(view: FileView, scans: list[SideScan], which: str, source: str) -> None:
    defs = view.side(which)
    grouped: dict[str, list[Piece]] = {}
    for scan in scans:
        for definition in _top_definitions(scan.top, view.path):
            defs.setdefault(definition.name, definition)
        for piece in scan.pieces:
            if piece.kind != "function" or piece.name is None:
                if piece.changed:
                    what = piece.name or (
                        "a macro the patch does not show from its start"
                        if piece.kind == "macro"
                        else "code the patch does not name"
                    )
                    where = next((l.where for l in piece.lines if l.changed), 0)
                    if piece.name is None:
                        view.unnamed.append((piece.hunk_where, where, b"\n".join(l.text for l in piece.lines)))
                    note = (
                        f"{view.path}: changes inside {what} ({source}:{where}) cannot be rebuilt "
                        "from the patch alone; give --tree DIR"
                    )
                    if note not in view.notes:
                        view.notes.append(note)
                    if piece.name and piece.name not in view.touched_declarations:
                        view.touched_declarations.append(piece.name)
                continue
            grouped.setdefault(piece.name, []).append(piece)
    for name, pieces in grouped.items():
        variants = _split_variants(pieces)
        defs[name] = assemble_function(name, variants[0], view.path, which)


def _split_variants(pieces: list[Piece]) -> list[list[Piece]]:
    """A function defined twice (``#ifdef`` alternatives): keep each definition's pieces apart."""
    variants: list[list[Piece]] = [[]]
    for piece in pieces:
        if variants[-1] and piece.depth_in == 0 and variants[-1][-1].depth_out == 0:
            variants.append([])
        variants[-1].append(piece)
    return variants


def _top_definitions(lines: list[HunkLine], path: str) -> list[Definition]:
    """Macros and initialised declarations among a hunk's file-scope lines."""
    if not lines:
        return []
    text = b"\n".join(line.text for line in lines) + b"\n"

    def row_changed(first: int, last: int) -> bool:
        return any(line.changed for line in lines[first : last + 1])

    def row_line(row: int) -> int:
        line = lines[min(row, len(lines) - 1)]
        return line.old_no or line.new_no or 0

    return harvest_definitions(text, path, row_changed, row_line)
