"""`fmtcheck patch`: judge every output function a kernel patch changes, old version against new.

A reviewer holds a patch, not old.c and new.c. This module rebuilds, for every function the patch
touches, the version before and the version after, finds out which of them are output code (they
print through seq_file), and hands each pair to the core engine (`fmtcheck.engine.compare_functions`).

Two ways to rebuild
-------------------
*From the patch alone* (the default). Each hunk is split, per side, into pieces that belong to a
function (the hunk header's function context names the function a hunk starts in; a brace-aware
scan and tree-sitter find the functions that start and end inside it) and top-level text, from
which ``#define``s and initialised declarations are taken. A function's pieces from all hunks are
joined into one syntactically complete function:

- the header comes from the function's own lines when the patch shows them, else from the hunk
  header's function context (a header git truncated is repaired by closing its parameter list);
- lines the patch does not show (before the first hunk, between two hunks, after the last one)
  become one marker line ``/* fmtcheck: hunk gap */``. The engine treats the marker as a call to an
  unknown function that prints nothing. That is exact for code before the first hunk and the end
  of the function only as far as it is the same on both sides; between hunks it is an
  approximation (unchanged code can still print values the changed code computed), so every result
  rebuilt with a gap says so in a note and suggests ``--tree``;
- braces are balanced from the kernel's indentation (one tab per block) and from the closing brace
  of the function at column 0 when the hunk shows it;
- a hunk that starts or ends inside a statement (git's three lines of context cut a long
  ``seq_printf`` in two) drops those unchanged context lines; when that cannot be done (the change
  itself is inside the cut statement, or dropped context prints), the function is reported
  inconclusive with the reason and the advice to use ``--tree``.

Functions and macros the patch adds exist only on the new side, removed ones only on the old side,
context ones on both (seed 003's empty ``__weak arch_show_smap`` stub prints nothing on both).

*With ``--tree DIR``* the patch is applied in memory to the files it names (a series in order, each
version of a thread from the same base), so both sides are whole files: whole functions, and every
helper, macro and table the hunks do not show, including those of headers included with
``#include "..."``. Functions that use a changed macro or table are checked too.

What gets checked
-----------------
A touched function is output code when it calls a seq_file primitive, a helper or macro (from the
available text) that does, a ``SEQ_*`` macro wrapper, or passes its ``struct seq_file *`` parameter
to any call. Changes to the read path in fs/seq_file.c (seq_read, seq_read_iter, traverse,
seq_lseek) are reported as such, not checked; changes to a primitive's own implementation are
inconclusive (the engine models them from the specification).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

from fmtcheck.common.errors import Inconclusive, InputError
from fmtcheck.common.options import Options
from fmtcheck.patch.patchfile import FileDiff, Hunk, HunkLine, Patch, label_patches, read_patches
from fmtcheck.common.result import Report, Result

GAP_MARKER = b"/* fmtcheck: hunk gap */"
MAX_DEFINITIONS_PER_SOURCE = 400
MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_TREE_FILE_BYTES = 8 * 1024 * 1024
MAX_TRIM = 12
MAX_INCLUDES = 32
MAX_TOUCHED_FUNCTIONS = 500

PRIMITIVES = frozenset(
    {
        "seq_printf",
        "seq_vprintf",
        "seq_puts",
        "__seq_puts",
        "seq_putc",
        "seq_write",
        "seq_put_decimal_ull",
        "seq_put_decimal_ull_width",
        "seq_put_decimal_ll",
        "seq_put_hex_ll",
        "seq_pad",
        "seq_setwidth",
        "seq_escape",
        "seq_escape_mem",
        "seq_escape_str",
        "seq_path",
        "seq_file_path",
        "seq_path_root",
        "seq_dentry",
        "seq_hex_dump",
        "seq_bprintf",
    }
)
READ_PATH = frozenset({"seq_read", "seq_read_iter", "traverse", "seq_lseek"})
PRINTF_MODEL = frozenset(
    {"vsnprintf", "format_decode", "number", "num_to_str", "put_dec", "put_dec_trunc8", "string", "pointer"}
)
C_SUFFIXES = (".c", ".h")

_FUNCTION_CLOSE = re.compile(rb"^\}\s*;?\s*(?:/[/*].*)?$")
_LABEL = re.compile(rb"^[A-Za-z_]\w*:\s*(?:/[/*].*)?$")
_IDENT = re.compile(rb"\b[A-Za-z_]\w*\b")
_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")
_SEQ_PARAM = re.compile(rb"struct\s+seq_file\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)")
_INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"\n]+)"', re.M)
_DECL_SECTION = re.compile(rb"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*=\s*\{?\s*$")
_ANNOTATIONS = re.compile(
    rb"\b(?:__(?:always_inline|weak|maybe_unused|init|exit|cold|hot|user|rcu|percpu|iomem|must_check|pure|"
    rb"noreturn|used|ro_after_init|read_mostly|initdata|initconst|force|bitwise|kernel|noinline_for_stack|"
    rb"noinline|always_unused|visible|latent_entropy|ref|meminit|sched)|noinline|notrace|asmlinkage|inline)\b"
)
_FOR_EACH = re.compile(rb"\b(\w*for_each\w*|\w*_foreach\w*)\s*\(")
_COMMENT_OR_STRING = re.compile(rb'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)


# ============================================================================================
# Small C helpers


@lru_cache(maxsize=1)
def _parser():
    from tree_sitter import Language, Parser
    import tree_sitter_c

    return Parser(Language(tree_sitter_c.language()))


def _for_parsing(text: bytes) -> bytes:
    """What tree-sitter should see: annotations blanked (same length, so offsets hold) and
    ``for_each_x(args) {`` loop heads turned into ``for (;;)`` so that they parse as loops."""
    text = _ANNOTATIONS.sub(lambda m: b" " * len(m.group(0)), text)
    out = bytearray()
    pos = 0
    for match in _FOR_EACH.finditer(text):
        if match.start() < pos:
            continue
        close = _matching_paren(text, match.end() - 1)
        if close is None:
            continue
        rest = text[close + 1 : close + 64].lstrip()
        if rest.startswith((b";", b")", b",")):  # an ordinary call, not a loop head
            continue
        out += text[pos : match.start()] + b"for (;;)" + b" " * max(0, close + 1 - match.start() - 8)
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def _matching_paren(text: bytes, open_pos: int) -> int | None:
    """Index of the ')' closing the '(' at OPEN_POS (bounded search; literals not skipped)."""
    depth = 0
    for pos in range(open_pos, min(len(text), open_pos + 20000)):
        char = text[pos : pos + 1]
        if char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
            if depth == 0:
                return pos
    return None


def parses_cleanly(text: bytes) -> bool:
    """True when tree-sitter finds no syntax error in TEXT (after `_for_parsing`)."""
    return not _parser().parse(_for_parsing(text)).root_node.has_error


def code_only(text: bytes) -> bytes:
    """TEXT with comments and string/char literals removed: what identifiers and calls are."""
    return _COMMENT_OR_STRING.sub(lambda m: b" " if m.group(0)[:1] in b"/" else b'""', text)


def identifiers(text: bytes) -> set[str]:
    """Every identifier TEXT mentions outside comments and literals (what it may depend on)."""
    return {ident.decode("ascii", "replace") for ident in _IDENT.findall(code_only(text))}


def called_names(text: bytes) -> set[str]:
    """Every name TEXT calls (functions and function-like macros; keywords such as ``if`` too)."""
    return {name.decode("ascii", "replace") for name in _CALL.findall(code_only(text))}


class _Lexer:
    """Counts braces line by line outside comments, literals and preprocessor directives."""

    def __init__(self, in_comment: bool = False) -> None:
        self.in_comment = in_comment
        self.in_directive = False

    def scan(self, text: bytes) -> tuple[int, bool]:
        """(brace delta, whether the line holds code) for one line."""
        if self.in_directive:
            self.in_directive = text.rstrip().endswith(b"\\")
            return 0, True
        if not self.in_comment and text.lstrip().startswith(b"#"):
            self.in_directive = text.rstrip().endswith(b"\\")
            return 0, True
        delta, code, i, n = 0, False, 0, len(text)
        while i < n:
            if self.in_comment:
                end = text.find(b"*/", i)
                if end < 0:
                    return delta, code
                self.in_comment, i = False, end + 2
                continue
            char = text[i : i + 1]
            if text.startswith(b"/*", i):
                self.in_comment, i = True, i + 2
            elif text.startswith(b"//", i):
                break
            elif char in (b'"', b"'"):
                code = True
                i = _skip_literal(text, i)
            else:
                if char == b"{":
                    delta += 1
                elif char == b"}":
                    delta -= 1
                if not char.isspace():
                    code = True
                i += 1
        return delta, code


def _skip_literal(text: bytes, i: int) -> int:
    quote = text[i : i + 1]
    i += 1
    while i < len(text):
        char = text[i : i + 1]
        if char == b"\\":
            i += 2
            continue
        if char == quote:
            return i + 1
        i += 1
    return i


def brace_delta(lines: Iterable[bytes]) -> int:
    """Net change of brace depth over LINES (outside comments, literals and directives)."""
    lexer = _Lexer()
    return sum(lexer.scan(text)[0] for text in lines)


def _indent_depth(text: bytes) -> int:
    """Block depth suggested by kernel indentation: one tab (or eight spaces) per level."""
    tabs = spaces = 0
    for byte in text:
        if byte == 9:
            tabs += 1
        elif byte == 32:
            spaces += 1
        else:
            break
    depth = tabs + spaces // 8
    return depth + 1 if text.lstrip().startswith(b"}") else depth


# ============================================================================================
# Definitions


@dataclass
class Definition:
    """A function, macro or initialised declaration, as one side of the patch sees it."""

    name: str
    kind: str  # "function" | "macro" | "declaration"
    text: bytes
    file: str
    line: int = 0  # first line on its side, for ordering
    changed: bool = False  # holds a line the patch adds (new side) or removes (old side)
    complete: bool = True  # False when rebuilt from hunks with gaps
    gaps: int = 0
    problem: str | None = None  # why this rebuild cannot be judged


def function_name(node) -> str | None:
    """The name a function_definition or declarator declares."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            return declarator.text.decode("ascii", "replace")
        if declarator.type == "function_declarator" or declarator.type.endswith("declarator"):
            declarator = declarator.child_by_field_name("declarator")
            continue
        return None
    return None


def _declared_names(node) -> list[str]:
    """Names an initialised file-scope declaration defines (arrays, tables, constants, enums)."""
    names = []
    for child in node.children:
        if child.type == "init_declarator":
            name = function_name(child)
            if name:
                names.append(name)
    for enumerator in _descendants(node, "enumerator"):
        name_node = enumerator.child_by_field_name("name")
        if name_node is not None:
            names.append(name_node.text.decode("ascii", "replace"))
    return names


def _descendants(node, kind: str, limit: int = 10000) -> list:
    found, stack = [], [node]
    while stack and limit > 0:
        limit -= 1
        current = stack.pop()
        if current.type == kind:
            found.append(current)
        stack.extend(reversed(current.children))
    return found


def harvest_definitions(
    text: bytes,
    file: str,
    row_changed: Callable[[int, int], bool],
    row_line: Callable[[int], int],
) -> list[Definition]:
    """Every file-scope function, macro and initialised declaration in TEXT (looking inside
    ``#if`` blocks). ROW_CHANGED(first_row, last_row) says whether those rows hold a change."""
    tree = _parser().parse(_for_parsing(text))
    found: list[Definition] = []
    stack = list(reversed(tree.root_node.children))
    while stack:
        node = stack.pop()
        kind, names = _definition_kind(node)
        if kind is None:
            if node.type.startswith(("preproc_if", "preproc_else", "preproc_elif")):
                stack.extend(reversed(node.children))
            continue
        body = text[node.start_byte : node.end_byte]
        if kind == "declaration" and node.type != "declaration":
            body += b";"
        changed = row_changed(node.start_point[0], node.end_point[0])
        for name in names:
            found.append(Definition(name, kind, body, file, row_line(node.start_point[0]), changed))
    return found


def _definition_kind(node) -> tuple[str | None, list[str]]:
    if node.type == "function_definition":
        name = function_name(node)
        return ("function", [name]) if name else (None, [])
    if node.type in ("preproc_def", "preproc_function_def"):
        name_node = node.child_by_field_name("name")
        return ("macro", [name_node.text.decode("ascii", "replace")]) if name_node is not None else (None, [])
    if node.type in ("declaration", "type_definition", "enum_specifier"):
        names = _declared_names(node)
        return ("declaration", names) if names else (None, [])
    return None, []


def function_header_name(header: bytes) -> str | None:
    """The function a header declares (``static int show(struct seq_file *m, void *v)``), or None
    when the text is not a function header (a struct, an initialiser, a prototype)."""
    if b"(" not in header or b";" in code_only(header):
        return None
    tree = _parser().parse(_for_parsing(header.rstrip().rstrip(b"{") + b"\n{\n}\n"))
    nodes = [n for n in tree.root_node.children if n.type != "comment"]
    if len(nodes) != 1 or nodes[0].type != "function_definition" or nodes[0].has_error:
        return None
    return function_name(nodes[0])


def repair_header(section: bytes) -> tuple[str, bytes] | None:
    """(name, header) from a hunk header's function context, which git cuts at 80 bytes and which
    holds only the first line of a multi-line header: close the parameter list if needed."""
    text = section.strip()
    if not text or b"(" not in text:
        return None
    for candidate in _header_candidates(text):
        name = function_header_name(candidate)
        if name:
            return name, candidate
    return None


def _header_candidates(text: bytes) -> list[bytes]:
    candidates = [text]
    open_at = text.find(b"(")
    if text.count(b"(") > text.count(b")"):
        comma = text.rfind(b",")
        if comma > open_at:
            candidates.append(text[:comma] + b")")
        candidates.append(text + b")")
    candidates.append(text[:open_at] + b"(void)")
    return candidates


# ============================================================================================
# Rebuilding from hunks


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
    lexer = _Lexer(in_comment=start is not None and _starts_in_comment(lines[start].text))
    if start is not None and _inside_function(lines[start].text) and not lexer.in_comment:
        piece, taken = _leading_piece(lines[index:], start - index, section, carry)
        index += taken
        scan.pieces.append(piece)
        lexer = _Lexer()
        for line in piece.lines:
            lexer.scan(line.text)
    _scan_file_scope(lines, index, lexer, scan)
    return scan


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
    return text[:1] in (b"\t", b"{", b"}") or text.startswith(b"  ") or bool(_LABEL.match(text))


def _leading_piece(lines: list[HunkLine], start: int, section: bytes, carry: str | None) -> tuple[Piece, int]:
    """The piece of the function the hunk starts in; returns it and the index after it."""
    repaired = repair_header(section)
    name, kind, header = None, "function", None
    if repaired:
        name, header = repaired
    else:
        declared = _DECL_SECTION.search(section.strip())
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
    lexer, depth = _Lexer(), 0
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
    lexer, run, need = _Lexer(), 0, 1
    for index in range(start, len(lines)):
        text = lines[index].text
        if not lexer.in_comment and not lexer.in_directive and _FUNCTION_CLOSE.match(text):
            return max(1 - run, need), index
        run += lexer.scan(text)[0]
        need = max(need, 1 - run)
    return max(_indent_depth(lines[start].text), need, 1), None


def _scan_file_scope(lines: list[HunkLine], index: int, lexer: _Lexer, scan: SideScan) -> None:
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
            side.pieces[-1].problem = reason


def assemble_function(name: str, pieces: list[Piece], file: str) -> Definition:
    """Join one side's pieces of a function into one complete function (see the module doc)."""
    out: list[bytes] = []
    gaps = 0
    depth = 0
    first = pieces[0]
    if first.depth_in > 0:
        header = first.header or f"static void {name}(void)".encode()
        out += [header, b"{", GAP_MARKER]
        gaps, depth = 1, 1
    elif first.header is not None:
        out.append(first.header)
    for index, piece in enumerate(pieces):
        if index > 0:
            out.append(GAP_MARKER)
            gaps += 1
        target = max(piece.depth_in, 1) if depth > 0 else piece.depth_in
        while depth > target:
            out.append(b"}")
            depth -= 1
        while depth < target:
            out.append(b"{")
            depth += 1
        out += [line.text for line in piece.lines]
        depth = piece.depth_out
    if depth > 0:
        out.append(GAP_MARKER)
        gaps += 1
        out += [b"}"] * depth
    changed = any(p.changed for p in pieces)
    problem = next((p.problem for p in pieces if p.problem), None)
    line = next((l.old_no or l.new_no or 0 for p in pieces for l in p.lines), 0)
    return Definition(name, "function", b"\n".join(out) + b"\n", file, line, changed, gaps == 0, gaps, problem)


# ============================================================================================
# Views of a file: the definitions each side sees


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
        defs[name] = assemble_function(name, variants[0], view.path)


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


# --------------------------------------------------------------------------------------------
# With --tree: apply the patch in memory


class TreeState:
    """The files of a kernel tree as a series of patches leaves them (read lazily, kept in memory)."""

    def __init__(self, root: str, base: dict[str, list[bytes] | None] | None = None) -> None:
        self.root = root
        self.base: dict[str, list[bytes] | None] = base if base is not None else {}
        self.files: dict[str, list[bytes] | None] = {}

    def fork(self) -> "TreeState":
        """A fresh state on the same base (another version of a patch applies to the base)."""
        return TreeState(self.root, self.base)

    def exists(self, path: str) -> bool:
        return self.lines(path) is not None

    def lines(self, path: str) -> list[bytes] | None:
        if path in self.files:
            return self.files[path]
        if path not in self.base:
            self.base[path] = self._read(path)
        return self.base[path]

    def _read(self, path: str) -> list[bytes] | None:
        full = os.path.normpath(os.path.join(self.root, path))
        if not full.startswith(os.path.normpath(self.root) + os.sep) or not os.path.isfile(full):
            return None
        if os.path.getsize(full) > MAX_TREE_FILE_BYTES:
            raise InputError(full, f"over the {MAX_TREE_FILE_BYTES}-byte limit for a tree file")
        with open(full, "rb") as handle:
            data = handle.read().replace(b"\r\n", b"\n")
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        return lines


@dataclass
class Applied:
    """A file before and after a patch, with the line numbers the patch removed and added."""

    path: str
    old: list[bytes]
    new: list[bytes]
    removed: set[int]  # 1-based, in old
    added: set[int]  # 1-based, in new


def tree_path(diff: FileDiff, state: TreeState) -> str:
    """The path of DIFF inside the tree: git paths as they are; ``diff -u`` paths may name a
    backup (``foo.c.orig``) or carry one extra leading directory, so take the one that exists."""
    if diff.git_style:
        return diff.old_path or diff.new_path or ""
    names = [p for p in (diff.old_path, diff.new_path) if p]
    tries = names + [p.split("/", 1)[1] for p in names if "/" in p]
    for path in tries:
        if state.exists(path):
            return path
    return names[-1] if names else ""


def apply_file_diff(diff: FileDiff, state: TreeState, source: str) -> Applied:
    """Apply one file's hunks to the tree state (as ``patch`` would, allowing line offsets)."""
    path = tree_path(diff, state)
    current = state.lines(path)
    if diff.old_path is None:
        if current is not None:
            raise InputError(
                f"{source}:{diff.where}", f"{path}: the patch creates it but it already exists in {state.root}"
            )
        current = []
    elif current is None:
        raise InputError(f"{source}:{diff.where}", f"{path}: not found in --tree {state.root}")
    out: list[bytes] = []
    removed: set[int] = set()
    added: set[int] = set()
    cursor = 0
    offset = 0
    for hunk in diff.hunks:
        expected = [line.text for line in hunk.lines if line.tag in " -"]
        position = _find_hunk(current, expected, hunk, cursor, offset)
        if position is None:
            raise InputError(
                f"{source}:{hunk.where}", f"hunk {hunk.header} does not apply to {os.path.join(state.root, path)}"
            )
        offset = position - (hunk.old_start - 1 if hunk.old_len else hunk.old_start)
        out += current[cursor:position]
        old_no = position
        for line in hunk.lines:
            if line.tag in " -":
                old_no += 1
            if line.tag == "-":
                removed.add(old_no)
            else:
                out.append(current[old_no - 1] if line.tag == " " else line.text)
                if line.tag == "+":
                    added.add(len(out))
        cursor = position + len(expected)
    out += current[cursor:]
    new_path = path
    if diff.new_path is None:
        state.files[path] = None
        out = []
    elif diff.git_style and diff.old_path and diff.new_path != diff.old_path:
        state.files[path] = None  # a rename
        new_path = diff.new_path
        state.files[new_path] = out
    else:
        state.files[path] = out
    return Applied(new_path, current, out, removed, added)


def _find_hunk(current: list[bytes], expected: list[bytes], hunk: Hunk, cursor: int, offset: int) -> int | None:
    """Where EXPECTED sits in CURRENT at or after CURSOR, nearest to the header's line (+offset)."""
    if not expected:
        guess = hunk.old_start + offset
        return min(max(guess, cursor), len(current))
    guess = hunk.old_start - 1 + offset
    last = len(current) - len(expected)
    for same in (_same_exact, _same_loose):
        for distance in range(0, max(last, 0) + len(current) + 1):
            for position in (guess - distance, guess + distance) if distance else (guess,):
                if cursor <= position <= last and same(current, position, expected):
                    return position
            if guess - distance < cursor and guess + distance > last:
                break
    return None


def _same_exact(current: list[bytes], position: int, expected: list[bytes]) -> bool:
    return current[position : position + len(expected)] == expected


def _same_loose(current: list[bytes], position: int, expected: list[bytes]) -> bool:
    """Mail strips trailing whitespace from context lines: compare without it."""
    window = current[position : position + len(expected)]
    return all(a.rstrip() == b.rstrip() for a, b in zip(window, expected))


def view_from_tree(applied: Applied) -> FileView:
    """Both sides of a file as whole texts; a definition is changed when it holds a changed line."""
    view = FileView(applied.path, from_tree=True)
    for which, lines, changed in (("old", applied.old, applied.removed), ("new", applied.new, applied.added)):
        text = b"\n".join(lines) + b"\n"

        def row_changed(first: int, last: int, changed: set[int] = changed) -> bool:
            return any(first + 1 <= number <= last + 1 for number in changed)

        for definition in harvest_definitions(text, applied.path, row_changed, lambda row: row + 1):
            view.side(which).setdefault(definition.name, definition)
    return view


def tree_include_definitions(path: str, text: bytes, state: TreeState) -> dict[str, Definition]:
    """Definitions of the headers a file includes with ``#include "..."`` (one level, bounded)."""
    found: dict[str, Definition] = {}
    directory = os.path.dirname(path)
    for match in list(_INCLUDE.finditer(text))[:MAX_INCLUDES]:
        name = match.group(1).decode("utf-8", "replace")
        header = os.path.normpath(os.path.join(directory, name))
        lines = state.lines(header)
        if lines is None:
            continue
        header_text = b"\n".join(lines) + b"\n"
        for definition in harvest_definitions(header_text, header, lambda a, b: False, lambda row: row + 1):
            found.setdefault(definition.name, definition)
    return found


# ============================================================================================
# What is output code, and what each side needs


def seq_file_parameter(definition: Definition) -> str | None:
    """The name of a ``struct seq_file *`` parameter in a function's header."""
    head = definition.text.split(b"{", 1)[0]
    match = _SEQ_PARAM.search(code_only(head))
    return match.group(1).decode("ascii") if match else None


def passes_parameter(definition: Definition, parameter: str) -> bool:
    """Whether the body hands PARAMETER itself (not a member of it) to some call."""
    code = code_only(definition.text)
    body_at = code.find(b"{")
    code = code[body_at:] if body_at >= 0 else code
    param = re.escape(parameter.encode())
    for match in _CALL.finditer(code):
        close = _matching_paren(code, match.end() - 1)
        if close is None:
            continue
        args = code[match.end() : close]
        if re.search(rb"(?<![\w.>])" + param + rb"\b(?!\s*(?:->|\.|\[))", args):
            return True
    return False


def is_output_code(
    definition: Definition, visible: dict[str, Definition], memo: dict[str, bool] | None = None
) -> bool:
    """Does DEFINITION print through seq_file (directly, via helpers/macros, or its seq_file)?"""
    memo = {} if memo is None else memo
    key = f"{definition.file}:{definition.name}:{id(definition)}"
    if key in memo:
        return memo[key]
    memo[key] = False  # cycle guard
    calls = called_names(definition.text)
    result = bool(calls & PRIMITIVES) or any(name.startswith("SEQ_") for name in calls)
    if not result:
        for name in sorted(calls):
            helper = visible.get(name)
            if helper is not None and helper is not definition and helper.kind in ("function", "macro"):
                if is_output_code(helper, visible, memo):
                    result = True
                    break
    if not result and definition.kind == "function":
        parameter = seq_file_parameter(definition)
        result = parameter is not None and passes_parameter(definition, parameter)
    memo[key] = result
    return result


_C_KEYWORDS = frozenset(
    {"if", "while", "for", "switch", "return", "sizeof", "typeof", "__typeof__", "defined", "_Alignof",
     "alignof", "offsetof", "do", "case", "else", "goto"}
)


def unknown_output_calls(target: Definition, visible: dict[str, Definition]) -> list[str]:
    """Calls that may print but whose definition neither the patch nor the tree gives: calls that
    hand a function its ``struct seq_file *``, and ``SEQ_*`` macro wrappers, in TARGET and in the
    helpers it uses. Their output is unknown; it can only be compared when both sides make the
    very same calls."""
    found: list[str] = []
    for definition in [target] + [d for d in closure(target, visible) if d.kind == "function"]:
        parameter = seq_file_parameter(definition)
        code = code_only(definition.text)
        body = code[code.find(b"{") :] if b"{" in code else code
        for match in _CALL.finditer(body):
            name = match.group(1).decode("ascii", "replace")
            if name in PRIMITIVES or name in visible or name in _C_KEYWORDS:
                continue
            close = _matching_paren(body, match.end() - 1)
            args = body[match.end() : close] if close is not None else b""
            hands_over = parameter is not None and re.search(
                rb"(?<![\w.>])" + re.escape(parameter.encode()) + rb"\b(?!\s*(?:->|\.|\[))", args
            )
            if hands_over or name.startswith("SEQ_"):
                found.append(name)
    return found


def closure(target: Definition, visible: dict[str, Definition]) -> list[Definition]:
    """The definitions TARGET needs, transitively (bounded), in source order: macros, tables, helpers."""
    needed: list[Definition] = []
    seen = {target.name}
    queue = [target]
    size = len(target.text)
    while queue and len(needed) < MAX_DEFINITIONS_PER_SOURCE:
        current = queue.pop(0)
        for name in sorted(identifiers(current.text)):
            if name in seen or name in PRIMITIVES:
                continue
            seen.add(name)
            found = visible.get(name)
            if found is None or found is target:
                continue
            size += len(found.text)
            if size > MAX_SOURCE_BYTES:
                raise Inconclusive(target.name, f"the definitions it needs exceed {MAX_SOURCE_BYTES} bytes")
            needed.append(found)
            queue.append(found)
    order = {"macro": 0, "declaration": 1, "function": 2}
    unique: dict[int, Definition] = {id(d): d for d in needed}
    return sorted(unique.values(), key=lambda d: (order[d.kind], d.file, d.line))


def side_source(target: Definition, visible: dict[str, Definition]) -> bytes:
    """The text handed to the engine for one side: what TARGET needs, then TARGET itself."""
    parts = [d.text.rstrip(b"\n") for d in closure(target, visible)]
    parts.append(target.text.rstrip(b"\n"))
    return b"\n\n".join(parts) + b"\n"


# ============================================================================================
# Checking


@dataclass
class Candidate:
    """A touched function: its two sides, why it is checked, and the subject for the report."""

    path: str
    name: str
    old: Definition | None
    new: Definition | None
    reasons: list[str] = field(default_factory=list)


@dataclass
class PatchPlan:
    """What one patch touches: the checks to run and what to say about the rest."""

    patch: Patch
    checks: list[tuple[Candidate, bytes, bytes]] = field(default_factory=list)  # candidate, old src, new src
    problems: list[tuple[Candidate, str]] = field(default_factory=list)  # inconclusive before the engine
    modelled: list[tuple[Candidate, str]] = field(default_factory=list)  # primitive implementations changed
    not_output: list[str] = field(default_factory=list)  # "file: fn" touched but not output code
    notes: list[str] = field(default_factory=list)
    read_path: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # output functions only one side has

    def subject(self, candidate: Candidate) -> str:
        return f"{self.patch.prefix()}{candidate.path}:{candidate.name}"


def check_patches(paths: list[str], options: Options) -> Report:
    """Judge every output function the patches touch (``fmtcheck patch``)."""
    report = Report(command="patch")
    plans = plan_patches(paths, options)
    several_files = len(paths) > 1
    for plan in plans:
        results = judge_plan(plan, options, several_files)
        report.results.extend(results)
        quiet = all(result.verdict == "nothing-to-check" for result in results)
        for note in ([] if quiet else plan.notes + [plan.patch.prefix() + n for n in plan.added]):
            if note not in report.notes:
                report.notes.append(note)
    _add_read_path_notes(report, plans)
    return report


def plan_patches(paths: list[str], options: Options) -> list[PatchPlan]:
    """Read and rebuild every patch (no engine involved): what would be checked, with what text.

    With --tree, the patches of one version (from all the files given, e.g. the 0001..0003 files
    of ``git format-patch``) apply one after the other in series order; each version starts again
    from the tree as it is."""
    if not paths:
        raise InputError("patch", "no patch given")
    tree = _tree_root(options.tree)
    patches = [patch for path in paths for patch in read_patches(path)]
    label_patches(patches)
    base = TreeState(tree) if tree else None
    states: dict[int, TreeState] = {}
    carried: dict[int, Carried] = {}
    planned: dict[int, PatchPlan] = {}
    for patch in _in_application_order(patches):
        state = states.setdefault(patch.version, base.fork()) if base is not None else None
        planned[id(patch)] = plan_patch(patch, state, carried.setdefault(patch.version, {}))
    return [planned[id(patch)] for patch in patches]


Carried = dict  # path -> {name -> Definition}: what earlier patches of a series defined


def carry_forward(carried: "Carried", views: list["FileView"]) -> None:
    """Definitions a patch of a series adds or changes exist, whole, for the patches after it
    (seen from the patch alone, [2/3] may call a helper that only [1/3] shows)."""
    for view in views:
        if view.from_tree:
            continue
        known = carried.setdefault(view.path, {})
        for name, definition in view.new.items():
            if definition.changed and definition.complete and not definition.problem:
                known[name] = definition
        for name, definition in view.old.items():
            if definition.changed and name not in view.new:
                known.pop(name, None)


def _tree_root(tree: str | None) -> str | None:
    if tree is None:
        return None
    if not os.path.isdir(tree):
        raise InputError(tree, "--tree is not a directory")
    return tree


def _in_application_order(patches: list[Patch]) -> list[Patch]:
    """Within a version, a series applies in patch-number order; versions keep their file order."""
    return sorted(patches, key=lambda p: (p.version, p.number if p.number is not None else 0))


def plan_patch(patch: Patch, state: TreeState | None, carried: "Carried | None" = None) -> PatchPlan:
    """Rebuild one patch's touched files and decide what to check."""
    plan = PatchPlan(patch)
    carried = {} if carried is None else carried
    views: list[FileView] = []
    skipped: list[str] = []
    for diff in patch.files:
        if not diff.path.endswith(C_SUFFIXES):
            skipped.append(diff.path)
            continue
        if state is not None:
            views.append(view_from_tree(apply_file_diff(diff, state, patch.source)))
        else:
            views.append(view_from_hunks(diff, patch.source))
    if skipped:
        plan.not_output.append("not C: " + ", ".join(skipped))
    headers = _header_definitions(views)
    for view in views:
        plan.notes.extend(n for n in view.notes if n not in plan.notes)
        _plan_file(plan, view, headers, state, _carried_for(carried, view.path))
    carry_forward(carried, views)
    return plan


def _carried_for(carried: "Carried", path: str) -> dict[str, Definition]:
    """What earlier patches defined that PATH sees: its own file's, then every header's."""
    visible: dict[str, Definition] = {}
    for other, definitions in carried.items():
        if other.endswith(".h") and other != path:
            visible.update(definitions)
    visible.update(carried.get(path, {}))
    return visible


def _header_definitions(views: list[FileView]) -> dict[str, dict[str, Definition]]:
    """Definitions of the headers the patch itself touches, visible to every file of the patch."""
    merged: dict[str, dict[str, Definition]] = {"old": {}, "new": {}}
    for view in views:
        if view.path.endswith(".h"):
            for which in ("old", "new"):
                for name, definition in view.side(which).items():
                    merged[which].setdefault(name, definition)
    return merged


def _visible(
    view: FileView, which: str, headers: dict[str, dict[str, Definition]], extra: dict[str, Definition]
) -> dict[str, Definition]:
    """What one side of a file sees: its own definitions over the patch's headers over EXTRA."""
    visible = dict(extra)
    visible.update(headers[which])
    visible.update(view.side(which))
    return visible


def _plan_file(
    plan: PatchPlan,
    view: FileView,
    headers: dict[str, dict[str, Definition]],
    state: TreeState | None,
    carried: dict[str, Definition],
) -> None:
    extra_old: dict[str, Definition] = dict(carried)
    extra_new: dict[str, Definition] = dict(carried)
    if state is not None:
        old_text = b"\n".join(d.text for d in view.old.values())
        new_text = b"\n".join(d.text for d in view.new.values())
        extra_old = tree_include_definitions(view.path, _file_text(state, view.path, old_text), state)
        extra_new = tree_include_definitions(view.path, _file_text(state, view.path, new_text), state)
    visible = {
        "old": _visible(view, "old", headers, extra_old),
        "new": _visible(view, "new", headers, extra_new),
    }
    memo: dict[str, bool] = {}
    for candidate in touched_functions(view, visible):
        _classify(plan, view, candidate, visible, memo)
    _report_unnamed_output(plan, view)
    _note_unused_changes(plan, view, visible)


def _report_unnamed_output(plan: PatchPlan, view: FileView) -> None:
    """A change that prints, in code no hunk header names (``diff -u`` without ``-p``, or a macro
    cut at its start), cannot be judged: inconclusive rather than a silent nothing-to-check."""
    by_hunk: dict[int, tuple[int, set[str]]] = {}
    for hunk_where, where, text in view.unnamed:
        first, calls = by_hunk.get(hunk_where, (where, set()))
        by_hunk[hunk_where] = (min(first, where), calls | called_names(text))
    for _hunk_where, (where, calls) in sorted(by_hunk.items()):
        if not (calls & PRIMITIVES or any(c.startswith("SEQ_") for c in calls)):
            continue
        candidate = Candidate(view.path, f"(code at {plan.patch.source}:{where})", None, None)
        plan.problems.append(
            (
                candidate,
                "the change prints, but the patch does not say which function or macro it is in "
                "(no function context in the hunk header: a diff made without -p?); give --tree DIR",
            )
        )


def _file_text(state: TreeState, path: str, fallback: bytes) -> bytes:
    lines = state.lines(path)
    return b"\n".join(lines) + b"\n" if lines else fallback


def touched_functions(view: FileView, visible: dict[str, dict[str, Definition]]) -> list[Candidate]:
    """Functions with a changed line on either side, then functions whose text uses a changed
    macro or table (their output changes although none of their lines do)."""
    names: list[str] = []
    for which in ("old", "new"):
        for name, definition in view.side(which).items():
            if definition.kind == "function" and definition.changed and name not in names:
                names.append(name)
    candidates = [
        Candidate(view.path, name, view.old.get(name), view.new.get(name)) for name in names[:MAX_TOUCHED_FUNCTIONS]
    ]
    changed_data = {
        name
        for which in ("old", "new")
        for name, d in view.side(which).items()
        if d.kind != "function" and d.changed
    } | set(view.touched_declarations)
    if changed_data:
        candidates.extend(_users_of(view, changed_data, set(names)))
    return candidates


def _users_of(view: FileView, changed: set[str], already: set[str]) -> list[Candidate]:
    """Unchanged functions that use a changed macro or table (directly or through another macro)."""
    affected = set(changed)
    for _round in range(8):
        grew = False
        for which in ("old", "new"):
            for name, definition in view.side(which).items():
                uses = identifiers(definition.text) & affected
                if name not in affected and definition.kind == "macro" and uses:
                    affected.add(name)
                    grew = True
        if not grew:
            break
    users = []
    for name, definition in view.new.items():
        if definition.kind != "function" or name in already:
            continue
        used = sorted(identifiers(definition.text) & affected)
        if used:
            reason = f"uses changed {', '.join(used)}"
            users.append(Candidate(view.path, name, view.old.get(name), definition, [reason]))
    return users


def _classify(
    plan: PatchPlan,
    view: FileView,
    candidate: Candidate,
    visible: dict[str, dict[str, Definition]],
    memo: dict[str, bool],
) -> None:
    """Decide what to do with one touched function: check it, report it, or only mention it."""
    path, name = candidate.path, candidate.name
    label = f"{path}: {name}"
    if path.endswith("fs/seq_file.c") and name in READ_PATH:
        plan.read_path.append(f"read-path change: {name} ({path}); see `fmtcheck reads`")
        plan.not_output.append(label)
        return
    modelled = (path.endswith(("fs/seq_file.c", "include/linux/seq_file.h")) and name in PRIMITIVES) or (
        path.endswith("lib/vsprintf.c") and name in PRINTF_MODEL
    )
    if modelled:
        reason = (
            f"changes the implementation of {name}, which fmtcheck models from the specification "
            "(kernel-seq-semantics.md), not from the patch"
        )
        plan.modelled.append((candidate, reason))
        return
    output_old = candidate.old is not None and is_output_code(candidate.old, visible["old"], memo)
    output_new = candidate.new is not None and is_output_code(candidate.new, visible["new"], memo)
    problem = (candidate.old and candidate.old.problem) or (candidate.new and candidate.new.problem)
    if problem and any(d is not None and seq_file_parameter(d) for d in (candidate.old, candidate.new)):
        output_old = True  # a function cut too short to see its calls, but it has a seq_file
    if not (output_old or output_new):
        plan.not_output.append(label)
        return
    if candidate.old is None or candidate.new is None:
        plan.added.append(_added_or_removed(candidate, visible))
        return
    problem = candidate.old.problem or candidate.new.problem
    if problem:
        plan.problems.append((candidate, problem))
        return
    try:
        unseen = _unseen_output_helpers(candidate, visible)
        if unseen:
            plan.problems.append((candidate, unseen))
            return
        old_src = side_source(candidate.old, visible["old"])
        new_src = side_source(candidate.new, visible["new"])
    except Inconclusive as err:
        plan.problems.append((candidate, f"{err.where}: {err.what}"))
        return
    plan.checks.append((candidate, old_src, new_src))


def _unseen_output_helpers(candidate: Candidate, visible: dict[str, dict[str, Definition]]) -> str | None:
    """Why the sides cannot be compared when they make different calls to printing helpers the
    patch does not show (a rewrite onto an existing helper: ``--tree`` shows it), else None."""
    assert candidate.old is not None and candidate.new is not None
    old_calls = Counter(unknown_output_calls(candidate.old, visible["old"]))
    new_calls = Counter(unknown_output_calls(candidate.new, visible["new"]))
    if old_calls == new_calls:
        return None
    differing = sorted(name for name in old_calls | new_calls if old_calls[name] != new_calls[name])
    return (
        f"the two sides make different calls to {', '.join(differing)}, which print(s) to the seq_file "
        "but is not in the patch; give --tree DIR so that its definition is known"
    )


def _added_or_removed(candidate: Candidate, visible: dict[str, dict[str, Definition]]) -> str:
    """Say what an output function that exists on one side only means for the check."""
    which = "new" if candidate.old is None else "old"
    verb = "adds" if which == "new" else "removes"
    callers = sorted(
        name
        for name, definition in visible[which].items()
        if definition.kind == "function"
        and name != candidate.name
        and candidate.name in identifiers(definition.text)
    )
    if callers:
        return f"{candidate.path}: {verb} output helper {candidate.name}, checked through {', '.join(callers)}"
    return f"{candidate.path}: {verb} output function {candidate.name}: nothing to compare it with"


def _note_unused_changes(plan: PatchPlan, view: FileView, visible: dict[str, dict[str, Definition]]) -> None:
    """A changed macro or table no rebuilt function uses: its users are not in the patch."""
    if view.from_tree:
        return
    used: set[str] = set()
    for which in ("old", "new"):
        for definition in view.side(which).values():
            if definition.kind == "function":
                used |= identifiers(definition.text)
    for which in ("old", "new"):
        for name, definition in view.side(which).items():
            if definition.kind != "function" and definition.changed and name not in used:
                note = (
                    f"{view.path}: changes {name}, whose users the patch does not show; "
                    "give --tree DIR to check them"
                )
                if note not in plan.notes:
                    plan.notes.append(note)


def judge_plan(plan: PatchPlan, options: Options, several_files: bool = False) -> list[Result]:
    """Run the engine on every planned check; report problems; say what a quiet patch touched."""
    results: list[Result] = []
    for candidate, old_src, new_src in plan.checks:
        results.append(judge(candidate, old_src, new_src, plan.subject(candidate), options))
    for candidate, reason in plan.problems:
        subject = plan.subject(candidate)
        results.append(Result(subject, "inconclusive", reason=reason, notes=list(candidate.reasons)))
    for candidate, reason in plan.modelled:
        results.append(Result(plan.subject(candidate), "inconclusive", reason=reason))
    if not results:
        results.append(nothing_to_check(plan))
    if several_files:
        for result in results:
            result.extra.setdefault("patch", plan.patch.source)
    return results


def judge(candidate: Candidate, old_src: bytes, new_src: bytes, subject: str, options: Options) -> Result:
    """One function through the engine; engine errors become an inconclusive result, not a crash."""
    from fmtcheck.engine.verdict import compare_functions

    try:
        result = compare_functions(old_src, new_src, candidate.name, options, subject)
    except Inconclusive as err:
        result = Result(subject, "inconclusive", reason=f"{err.where}: {err.what}")
    except InputError as err:
        reason = f"the rebuilt function is not understood: {err.where}: {err.what}"
        result = Result(subject, "inconclusive", reason=reason)
    except Exception as err:  # noqa: BLE001 - one function's failure must not lose the others
        if os.environ.get("FMTCHECK_DEBUG"):
            raise
        result = Result(subject, "inconclusive", reason=f"internal error while judging: {type(err).__name__}: {err}")
    result.subject = subject
    result.notes.extend(note for note in _rebuild_notes(candidate) if note not in result.notes)
    return result


def _rebuild_notes(candidate: Candidate) -> list[str]:
    notes = list(candidate.reasons)
    gaps = max(candidate.old.gaps if candidate.old else 0, candidate.new.gaps if candidate.new else 0)
    if gaps:
        notes.append(
            f"rebuilt from the patch's hunks: {gaps} stretch(es) of {candidate.name} the patch does not show "
            "are taken to print nothing (/* fmtcheck: hunk gap */); give --tree DIR for whole functions"
        )
    return notes


def nothing_to_check(plan: PatchPlan) -> Result:
    """The result of a patch that touches no output code: it says what the patch touched."""
    files = ", ".join(dict.fromkeys(diff.path for diff in plan.patch.files))
    notes = []
    if plan.not_output:
        notes.append("touches no output code: " + "; ".join(plan.not_output))
    elif not plan.added:
        notes.append("touches no function")
    notes.extend(plan.added)
    notes.extend(plan.read_path)
    notes.extend(plan.notes)
    return Result(f"{plan.patch.prefix()}{files}", "nothing-to-check", notes=notes)


def _add_read_path_notes(report: Report, plans: list[PatchPlan]) -> None:
    """One report note per read-path change, naming the versions/patches that make it."""
    seen: dict[str, list[str]] = {}
    for plan in plans:
        for note in plan.read_path:
            seen.setdefault(note, [])
            if plan.patch.label and plan.patch.label not in seen[note]:
                seen[note].append(plan.patch.label)
    for note, labels in seen.items():
        report.notes.append(note + (f" ({', '.join(labels)})" if labels else ""))
