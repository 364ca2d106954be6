"""Scanning hunks: each side of a hunk cut into pieces that belong to a function or to file scope,
with the statements git's context lines cut trimmed away.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fmtcheck.patch.ctext import (
    DECL_SECTION,
    FUNCTION_CLOSE,
    LABEL,
    Lexer,
    brace_delta,
    called_names,
    function_header_name,
    indent_depth,
    parses_cleanly,
    repair_header,
)
from fmtcheck.patch.output_code import PRIMITIVES
from fmtcheck.patch.patchfile import (
    Hunk,
    HunkLine,
)

GAP_MARKER = b"/* fmtcheck: hunk gap */"
GAP_EVENT = b"__fmtcheck_hunk_gap"  # the unknown printing call a gap with code becomes (`rebuild`)


MAX_TRIM = 12


@dataclass
class Piece:
    """The part of one function that one hunk shows on one side.

    depth_in / depth_out are the brace depths before the first and after the last line (0 is file
    scope: a piece that starts at 0 holds its function's start, one that ends at 0 its end).
    """

    name: str | None
    kind: str  # "function" | "declaration"
    lines: list[HunkLine]
    depth_in: int
    depth_out: int = 0
    header: bytes | None = None  # header from the hunk context, for a piece without its own
    problem: str | None = None
    hunk_where: int = 0  # the @@ line of the hunk it comes from
    # the hunk ends inside an output statement, left out: a problem unless the gap after it can
    # print (a function with a seq_file, whose gaps are output events: `rebuild`)
    printing_cut: str | None = None

    @property
    def changed(self) -> bool:
        return any(line.changed for line in self.lines)

    @property
    def partial(self) -> bool:
        return self.depth_in > 0 or self.depth_out > 0 or self.header is not None


@dataclass
class SideScan:
    """One side of one hunk, cut into function pieces and file-scope lines."""

    pieces: list[Piece] = field(default_factory=list)
    top: list[HunkLine] = field(default_factory=list)


def scan_side(lines: list[HunkLine], section: bytes, carry: str | None = None) -> SideScan:
    """Cut one side of a hunk into pieces of functions and file-scope text.

    SECTION is the hunk header's function context; CARRY the function the previous hunk of the
    same file ended inside (used when the context names nothing usable)."""
    scan = SideScan()
    start = _first_code_line(lines)
    index = 0
    if start is not None and _continues_a_macro(lines[start].text):
        index = _macro_tail_end(lines, start)
        scan.pieces.append(Piece(None, "macro", list(lines[:index]), 0))
        start = _first_code_line(lines[index:])
        start = None if start is None else start + index
    lexer = Lexer(in_comment=start is not None and _starts_in_comment(lines[start].text))
    if start is not None and _starts_inside_function(lines, start, section, carry) and not lexer.in_comment:
        piece, taken = _leading_piece(lines[index:], start - index, section, carry)
        index += taken
        scan.pieces.append(piece)
        lexer = Lexer()
        for line in piece.lines:
            lexer.scan(line.text)
    _scan_file_scope(lines, index, lexer, scan)
    return scan


def _starts_inside_function(lines: list[HunkLine], start: int, section: bytes, carry: str | None) -> bool:
    """Whether the hunk starts inside a function. A hunk may start with ``#ifdef`` lines at
    column 0 inside a function (nfsd_show): then the first line after the directives decides,
    when the hunk header (or the previous hunk) names a function to be inside."""
    probe = start
    while probe < len(lines) and lines[probe].text.lstrip().startswith(b"#"):
        probe += 1
    if probe == start or probe == len(lines):
        return _inside_function(lines[start].text)
    if not (carry or repair_header(section)):
        return False
    return lines[probe].text.startswith((b"\t", b"  "))


def _continues_a_macro(text: bytes) -> bool:
    """A hunk that starts inside a multi-line ``#define``: a continued line that is no directive."""
    return text.rstrip().endswith(b"\\") and not text.lstrip().startswith(b"#")


def _macro_tail_end(lines: list[HunkLine], start: int) -> int:
    """Index after the continuation lines of a ``#define`` the hunk starts in the middle of."""
    index = start
    while index < len(lines) and lines[index].text.rstrip().endswith(b"\\"):
        index += 1
    return min(index + 1, len(lines))


def _first_code_line(lines: list[HunkLine]) -> int | None:
    for index, line in enumerate(lines):
        if line.text.strip():
            return index
    return None


def _starts_in_comment(text: bytes) -> bool:
    """A hunk that starts inside a file-scope block comment (`` * text`` or `` */``)."""
    return text.startswith((b" *", b"*/"))


def _inside_function(text: bytes) -> bool:
    """Kernel style: code inside a function is indented; braces and labels may sit at column 0."""
    return text[:1] in (b"\t", b"{", b"}") or text.startswith(b"  ") or bool(LABEL.match(text))


def _leading_piece(lines: list[HunkLine], start: int, section: bytes, carry: str | None) -> tuple[Piece, int]:
    """The piece of the function the hunk starts in; returns it and the index after it."""
    repaired = repair_header(section)
    name, kind, header = None, "function", None
    if repaired:
        name, header = repaired
    else:
        declared = DECL_SECTION.search(section.strip())
        if declared:
            name, kind = declared.group(1).decode("ascii", "replace"), "declaration"
        elif carry:
            name = carry
    if lines[start].text.startswith(b"{") and header is not None:
        return _adjacent_header_piece(lines, name, header)
    depth_in, end = _leading_extent(lines, start)
    taken = lines[: end + 1] if end is not None else list(lines)
    depth_out = 0 if end is not None else max(depth_in + brace_delta(l.text for l in taken), 1)
    return Piece(name, kind, taken, depth_in, depth_out, header), len(taken)


def _adjacent_header_piece(lines: list[HunkLine], name: str | None, header: bytes) -> tuple[Piece, int]:
    """A hunk whose first line is the function's opening brace: the context header is the line
    right above it, so the function is known from its start (seed 003's arch_show_smap)."""
    lexer, depth = Lexer(), 0
    for index, line in enumerate(lines):
        depth += lexer.scan(line.text)[0]
        if depth <= 0:
            return Piece(name, "function", lines[: index + 1], 0, 0, header), index + 1
    return Piece(name, "function", list(lines), 0, max(depth, 1), header), len(lines)


def _leading_extent(lines: list[HunkLine], start: int) -> tuple[int, int | None]:
    """(depth before the first code line, index of the function's closing line or None).

    When the closing brace at column 0 is in view the depth follows exactly from the braces in
    between; otherwise the indentation of the first code line says it. Either way the depth must
    stay at 1 or more until the closing line."""
    lexer, run, need = Lexer(), 0, 1
    for index in range(start, len(lines)):
        text = lines[index].text
        if not lexer.in_comment and not lexer.in_directive and FUNCTION_CLOSE.match(text):
            return max(1 - run, need), index
        run += lexer.scan(text)[0]
        need = max(need, 1 - run)
    return max(indent_depth(lines[start].text), need, 1), None


def _scan_file_scope(lines: list[HunkLine], index: int, lexer: Lexer, scan: SideScan) -> None:
    """File-scope lines go to scan.top; each function that starts here becomes a piece."""
    depth, item_start, current = 0, index, None
    while index < len(lines):
        line = lines[index]
        if current is not None:
            current.lines.append(line)
            depth += lexer.scan(line.text)[0]
            if depth <= 0:
                current.depth_out, current, depth, item_start = 0, None, 0, index + 1
            index += 1
            continue
        in_directive = lexer.in_directive or (not lexer.in_comment and line.text.lstrip().startswith(b"#"))
        delta, has_code = lexer.scan(line.text)
        if depth == 0 and delta > 0 and not in_directive:
            header = b"\n".join(l.text for l in lines[item_start : index + 1])
            name = function_header_name(header)
            if name:
                taken = index - item_start
                if taken:
                    del scan.top[-taken:]
                current = Piece(name, "function", list(lines[item_start : index + 1]), 0)
                scan.pieces.append(current)
                depth = delta
                index += 1
                continue
        scan.top.append(line)
        depth = max(depth + delta, 0)
        stripped = line.text.rstrip()
        if depth == 0 and (not has_code or in_directive or stripped.endswith((b";", b"}"))):
            item_start = index + 1
        index += 1
    if current is not None:
        current.depth_out = max(depth, 1)


def piece_parses(piece: Piece) -> bool:
    """Whether a partial piece, framed as a function with its braces balanced, is whole statements."""
    if not piece.partial or piece.kind != "function":
        return True
    body = b"\n".join(line.text for line in piece.lines)
    if piece.depth_in > 0:
        frame = b"void __fmtcheck_probe(void)\n{\n" + b"{\n" * (piece.depth_in - 1)
    else:  # the piece starts at its function's start; the header may come from the hunk context
        frame = piece.header + b"\n" if piece.header is not None else b""
    return parses_cleanly(frame + body + b"\n" + b"}\n" * piece.depth_out)


@dataclass
class HunkScan:
    """Both sides of one hunk after trimming, and what was trimmed."""

    hunk: Hunk
    old: SideScan
    new: SideScan
    trimmed_lead: int = 0
    trimmed_trail: int = 0


def scan_hunk(hunk: Hunk, carry_old: str | None, carry_new: str | None, path: str, source: str) -> HunkScan:
    """Scan both sides of a hunk, dropping as few unchanged lines at its ends as makes every
    partial piece whole statements (a hunk may start or end in the middle of a statement)."""
    scan = _scan_hunk_trimmed(hunk, carry_old, carry_new, path, source)
    for piece in scan.old.pieces + scan.new.pieces:
        piece.hunk_where = hunk.where
    return scan


def _scan_hunk_trimmed(
    hunk: Hunk, carry_old: str | None, carry_new: str | None, path: str, source: str
) -> HunkScan:
    lead = _leading_context(hunk.lines)
    trail = _leading_context(list(reversed(hunk.lines)))
    if lead == len(hunk.lines):  # no change at all (cannot happen in a real diff)
        trail = 0
    for drop_lead, drop_trail in _trim_orders(min(lead, MAX_TRIM), min(trail, MAX_TRIM)):
        kept = hunk.lines[drop_lead : len(hunk.lines) - drop_trail]
        old = scan_side([l for l in kept if l.tag in " -"], hunk.section, carry_old)
        new = scan_side([l for l in kept if l.tag in " +"], hunk.section, carry_new)
        if all(piece_parses(p) for p in old.pieces + new.pieces):
            result = HunkScan(hunk, old, new, drop_lead, drop_trail)
            _flag_printing_tail(result, path, source)
            return result
    old = scan_side(hunk.side("old"), hunk.section, carry_old)
    new = scan_side(hunk.side("new"), hunk.section, carry_new)
    reason = (
        f"the hunk at {source}:{hunk.where} starts or ends inside a statement the patch does not show, "
        "so the function cannot be rebuilt from the patch alone; give --tree DIR"
    )
    for piece in old.pieces + new.pieces:
        if not piece_parses(piece):
            piece.problem = reason
    return HunkScan(hunk, old, new)


def _leading_context(lines: list[HunkLine]) -> int:
    count = 0
    for line in lines:
        if line.changed:
            break
        count += 1
    return count


def _trim_orders(lead: int, trail: int) -> list[tuple[int, int]]:
    pairs = [(a, b) for a in range(lead + 1) for b in range(trail + 1)]
    return sorted(pairs, key=lambda pair: (pair[0] + pair[1], pair[0]))


def _flag_printing_tail(scan: HunkScan, path: str, source: str) -> None:
    """Dropped trailing context that prints may print what the change computed: not judgeable."""
    if not scan.trimmed_trail:
        return
    dropped = scan.hunk.lines[len(scan.hunk.lines) - scan.trimmed_trail :]
    if not called_names(b"\n".join(l.text for l in dropped)) & PRIMITIVES:
        return
    reason = (
        f"the hunk at {source}:{scan.hunk.where} ends inside an output statement the patch does not "
        "show in full; give --tree DIR"
    )
    for side in (scan.old, scan.new):
        if side.pieces and side.pieces[-1].depth_out > 0:
            side.pieces[-1].printing_cut = reason
