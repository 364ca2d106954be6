"""C text as the patch front end reads it: bytes of kernel C lexed just enough to find functions,
calls, braces and definitions in partial code (hunks), and tree-sitter where the text is whole.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

MAX_DEFINITIONS_PER_SOURCE = 400
from fmtcheck.kernel.macros import ANNOTATIONS, FOR_EACH

FUNCTION_CLOSE = re.compile(rb"^\}\s*;?\s*(?:/[/*].*)?$")


LABEL = re.compile(rb"^[A-Za-z_]\w*:\s*(?:/[/*].*)?$")


_IDENT = re.compile(rb"\b[A-Za-z_]\w*\b")


CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")


SEQ_PARAM = re.compile(rb"struct\s+seq_file\s*\*\s*(?:const\s+)?([A-Za-z_]\w*)")


INCLUDE = re.compile(rb'^\s*#\s*include\s+"([^"\n]+)"', re.M)


DECL_SECTION = re.compile(rb"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*=\s*\{?\s*$")






_COMMENT_OR_STRING = re.compile(rb'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.S)


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter_c
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_c.language()))


def _for_parsing(text: bytes) -> bytes:
    """What tree-sitter should see: annotations blanked (same length, so offsets hold) and
    ``for_each_x(args) {`` loop heads turned into ``for (;;)`` so that they parse as loops."""
    text = ANNOTATIONS.sub(lambda m: b" " * len(m.group(0)), text)
    out = bytearray()
    pos = 0
    for match in FOR_EACH.finditer(text):
        if match.start() < pos:
            continue
        close = matching_paren(text, match.end() - 1)
        if close is None:
            continue
        rest = text[close + 1 : close + 64].lstrip()
        if rest.startswith((b";", b")", b",")):  # an ordinary call, not a loop head
            continue
        out += text[pos : match.start()] + b"for (;;)" + b" " * max(0, close + 1 - match.start() - 8)
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def matching_paren(text: bytes, open_pos: int) -> int | None:
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
    return {name.decode("ascii", "replace") for name in CALL.findall(code_only(text))}


class Lexer:
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
    lexer = Lexer()
    return sum(lexer.scan(text)[0] for text in lines)


def indent_depth(text: bytes) -> int:
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
    # the file line of each line of `text` (None for a line the rebuild made up); None when the
    # text is one stretch of the file from `line` on
    rows: tuple[int | None, ...] | None = None

    def file_lines(self, count: int) -> list[int | None]:
        """The file lines of the first COUNT lines of the text, for reports."""
        if self.rows is not None:
            return list(self.rows[:count]) + [None] * max(count - len(self.rows), 0)
        return [self.line + k if self.line > 0 else None for k in range(count)]


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
    if node.type in ("struct_specifier", "union_specifier"):
        # `struct flagsbuf { char buf[N]; };`: the layout a local of that type has
        tag = node.child_by_field_name("name")
        if tag is not None and node.child_by_field_name("body") is not None:
            return "declaration", [struct_key(tag.text.decode("ascii", "replace"))]
        return None, []
    if node.type in ("declaration", "type_definition", "enum_specifier"):
        names = _declared_names(node) + _struct_defined_with_annotation(node)
        return ("declaration", names) if names else (None, [])
    return None, []


def _struct_defined_with_annotation(node) -> list[str]:
    """``struct nfs_iostats { ... } ____cacheline_aligned;``: tree-sitter reads the trailing
    attribute macro as a declarator, so the struct definition sits inside a declaration of
    nothing; its layout is what locals of that type have."""
    if node.type != "declaration" or any(child.type == "init_declarator" for child in node.children):
        return []
    specifier = node.child_by_field_name("type")
    if specifier is None or specifier.type not in ("struct_specifier", "union_specifier"):
        return []
    tag = specifier.child_by_field_name("name")
    declarator = node.child_by_field_name("declarator")
    if tag is None or specifier.child_by_field_name("body") is None or declarator is None:
        return []
    if declarator.type != "identifier" or not declarator.text.startswith(b"__"):
        return []  # `struct x {...} table;` defines a variable, not only the layout
    return [struct_key(tag.text.decode("ascii", "replace"))]


def struct_key(tag: str) -> str:
    """How a struct definition is named among definitions (apart from functions and variables
    of the same name): ``struct TAG``."""
    return f"struct {tag}"


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


def body_scope_declarations(function_text: bytes) -> tuple[dict[bytes, bytes], set[bytes]]:
    """The declarations in scope of a function's whole body, name -> declaration without its
    initializer or storage class (``const char *s``): its parameters and the declarations that
    open its body, before any statement. Also every other name the function declares (in a
    block, or after a statement), whose scope is not the whole body."""
    text = _for_parsing(function_text)
    tree = _parser().parse(text)
    nodes = [n for n in tree.root_node.children if n.type == "function_definition"]
    if len(nodes) != 1:
        return {}, {b"*"}
    function = nodes[0]
    whole: dict[bytes, bytes] = {}
    parameter_names: list[bytes] = []
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    for parameter in (parameters.named_children if parameters is not None else []):
        name = _declarator_name(parameter.child_by_field_name("declarator"))
        if name and parameter.type == "parameter_declaration":
            parameter_names.append(name)
            whole[name] = _without_storage(text, parameter, parameter.child_by_field_name("declarator"))
    body = function.child_by_field_name("body")
    leading = True
    for child in (body.named_children if body is not None else []):
        if child.type == "comment":
            continue
        leading = leading and child.type == "declaration"
        if not leading:
            break
        for part in child.children_by_field_name("declarator"):
            inner = part.child_by_field_name("declarator") if part.type == "init_declarator" else part
            name = _declarator_name(inner)
            if name:
                whole[name] = _without_storage(text, child, inner)
    counts = Counter(parameter_names)
    counts.update(name for node in (_descendants(body, "declaration") if body is not None else [])
                  for name in _names_declared(node))
    # a name declared twice (a parameter or leading local shadowed in a block) is not one object
    elsewhere = {name for name, count in counts.items() if count > 1 or name not in whole}
    return whole, elsewhere


def _declarator_name(node) -> bytes | None:
    while node is not None:
        if node.type == "identifier":
            return node.text
        node = node.child_by_field_name("declarator")
    return None


def _names_declared(declaration) -> list[bytes]:
    names = []
    for part in declaration.children_by_field_name("declarator"):
        inner = part.child_by_field_name("declarator") if part.type == "init_declarator" else part
        name = _declarator_name(inner)
        if name:
            names.append(name)
    return names


def _without_storage(text: bytes, declaration, declarator) -> bytes:
    """``type declarator`` of one declarator of DECLARATION: its specifiers and qualifiers (the
    storage class dropped) and the declarator without an initializer."""
    first = min((d.start_byte for d in declaration.children_by_field_name("declarator")),
                default=declarator.start_byte)
    specifiers = [c for c in declaration.children
                  if c.end_byte <= first and c.type != "storage_class_specifier"]
    words = [text[c.start_byte:c.end_byte] for c in specifiers]
    return b" ".join(words + [text[declarator.start_byte:declarator.end_byte]])
