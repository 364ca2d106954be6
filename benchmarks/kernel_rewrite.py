"""The text side of benchmarks/kernel_corpus.py: kernel formats and the mechanical rewrite.

Why a module of its own: these are pure functions of a file's bytes and its tree-sitter nodes (no
processes, no engine), so they can be read and tested apart from the machinery that runs the
judgements. Nothing of the kernel is stored here: the sources come from a tree given on the command
line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmtcheck.c.cfront import walk as _walk

# output primitives of fs/seq_file.c and include/linux/seq_file.h
SEQ_PRIMITIVES = {
    "seq_printf", "seq_vprintf", "seq_bprintf", "seq_puts", "seq_putc", "seq_write",
    "seq_put_decimal_ull", "seq_put_decimal_ull_width", "seq_put_decimal_ll", "seq_put_hex_ll",
    "seq_pad", "seq_escape", "seq_escape_str", "seq_escape_mem", "seq_hex_dump", "seq_path",
    "seq_path_root", "seq_dentry", "seq_file_path", "seq_show_option", "seq_show_option_n",
    "seq_put_decimal_ll_width",
}


@dataclass
class Printer:
    """One output function in one file of a tree."""

    path: str  # relative to the tree
    name: str
    start: int  # byte offsets of the function definition in the file
    end: int
    line: int  # first line (1-based)
    last_line: int

    @property
    def key(self) -> str:
        return f"{self.path}:{self.name}"



# ---------------------------------------------------------------------------------------------
# C string literals and kernel formats

_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
                   '"': 34, "?": 63, "e": 27}


def decode_c_string(body: str) -> bytes | None:
    """The bytes of a C string literal's body (between the quotes); None if it is odd."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("latin-1", "replace")
            i += 1
            continue
        i += 1
        if i >= len(body):
            return None
        c = body[i]
        if c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
            i += 1
        elif c in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            out.append(int(body[i:j], 8) & 0xFF)
            i = j
        elif c == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 1:
                return None
            out.append(int(body[i + 1:j], 16) & 0xFF)
            i = j
        else:
            return None
    return bytes(out)


def encode_c_string(data: bytes) -> str:
    """A C string literal for the bytes (octal escapes, three digits, so nothing runs on)."""
    out = ['"']
    for b in data:
        if b == 0x22:
            out.append('\\"')
        elif b == 0x5C:
            out.append("\\\\")
        elif b == 10:
            out.append("\\n")
        elif b == 9:
            out.append("\\t")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    out.append('"')
    return "".join(out)


def encode_c_char(b: int) -> str:
    if b == 0x27:
        return "'\\''"
    if b == 0x5C:
        return "'\\\\'"
    if b == 10:
        return "'\\n'"
    if b == 9:
        return "'\\t'"
    if 0x20 <= b < 0x7F:
        return f"'{chr(b)}'"
    return f"'\\{b:03o}'"


CONVERSION = re.compile(
    rb"%(?P<flags>[-+ #0]*)(?P<width>\*|[1-9][0-9]*)?(?:\.(?P<prec>\*|[0-9]*))?"
    rb"(?P<len>hh|h|H|ll|l|L|z|t)?(?P<conv>[diouxXcsp%])"
)
_PTR_EXT = re.compile(rb"[A-Za-z0-9]*")

UNSIGNED_CASTS = {b"": "unsigned int", b"h": "unsigned short", b"hh": "unsigned char", b"H": "unsigned char",
                  b"l": "unsigned long", b"ll": "unsigned long long", b"L": "unsigned long long",
                  b"z": "size_t", b"t": "unsigned long"}


@dataclass
class Piece:
    """A literal run or one conversion of a format."""

    text: bytes  # literal bytes, or the conversion's own text (with %p extension)
    literal: bool
    flags: bytes = b""
    width: bytes | None = None
    prec: bytes | None = None
    length: bytes = b""
    conv: bytes = b""

    @property
    def nargs(self) -> int:
        if self.literal:
            return 0
        return 1 + (self.width == b"*") + (self.prec == b"*")


def split_format(fmt: bytes) -> list[Piece] | None:
    """The pieces of a kernel format; None when it holds a directive the kernel stops at."""
    fmt = fmt.split(b"\0", 1)[0]
    pieces: list[Piece] = []
    literal = bytearray()
    i = 0
    while i < len(fmt):
        if fmt[i:i + 1] != b"%":
            literal.append(fmt[i])
            i += 1
            continue
        m = CONVERSION.match(fmt, i)
        if not m:
            return None
        if m.group("conv") == b"%":
            if m.end() - i != 2:
                return None
            literal += b"%"
            i = m.end()
            continue
        if literal:
            pieces.append(Piece(bytes(literal), True))
            literal = bytearray()
        end = m.end()
        if m.group("conv") == b"p":
            end = _PTR_EXT.match(fmt, end).end()
        pieces.append(Piece(fmt[i:end], False, m.group("flags"), m.group("width"), m.group("prec"),
                            m.group("len") or b"", m.group("conv")))
        i = end
    if literal:
        pieces.append(Piece(bytes(literal), True))
    return pieces


def format_of(node, src: bytes) -> bytes | None:
    """The bytes of a format argument made only of string literals; None otherwise."""
    if node.type == "string_literal":
        parts = [node]
    elif node.type == "concatenated_string":
        parts = list(node.named_children)
        if any(p.type != "string_literal" for p in parts):
            return None
    else:
        return None
    out = bytearray()
    for p in parts:
        text = src[p.start_byte:p.end_byte].decode("latin-1")
        if not text.startswith('"') or not text.endswith('"'):
            return None  # L"", u8"" ...
        body = decode_c_string(text[1:-1])
        if body is None:
            return None
        out += body
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# the mechanical rewrite


def printf_statements(func_node):
    """`seq_printf(...);` expression statements of a function, with their call nodes."""
    for n in _walk(func_node):
        if n.type != "expression_statement" or not n.named_children:
            continue
        call = n.named_children[0]
        if call.type != "call_expression":
            continue
        fn = call.child_by_field_name("function")
        if fn is None or fn.type != "identifier" or fn.text != b"seq_printf":
            continue
        args = call.child_by_field_name("arguments")
        if args is None:
            continue
        yield n, [a for a in args.named_children if a.type != "comment"]


def split_printf(args, src: bytes) -> list[str] | None:
    """The statements that print what one `seq_printf(args)` prints, one per conversion."""
    if len(args) < 2:
        return None
    fmt = format_of(args[1], src)
    if fmt is None:
        return None
    pieces = split_format(fmt)
    if pieces is None:
        return None
    rest = [_one_line(src[a.start_byte:a.end_byte].decode("latin-1")) for a in args[2:]]
    if sum(p.nargs for p in pieces) != len(rest):
        return None
    m = _one_line(src[args[0].start_byte:args[0].end_byte].decode("latin-1"))
    out: list[str] = []
    pending = b""  # literal text waiting to become the delimiter of the next decimal
    for piece in pieces:
        if piece.literal:
            pending += piece.text
            continue
        taken, rest = rest[:piece.nargs], rest[piece.nargs:]
        if piece.conv == b"u" and not piece.flags and piece.prec is None and piece.width != b"*":
            cast = UNSIGNED_CASTS[piece.length]
            value = f"({cast})({taken[0]})"
            delim = encode_c_string(pending)
            pending = b""
            if piece.width:
                out.append(f"seq_put_decimal_ull_width({m}, {delim}, {value}, {piece.width.decode()});")
            else:
                out.append(f"seq_put_decimal_ull({m}, {delim}, {value});")
            continue
        out.extend(_literal_calls(m, pending))
        pending = b""
        out.append(f"seq_printf({m}, {encode_c_string(piece.text)}, {', '.join(taken)});")
    out.extend(_literal_calls(m, pending))
    return out


def _one_line(text: str) -> str:
    """An argument's text on one line (comments dropped), so the rewrite keeps every line number."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    return re.sub(r"\s*\n\s*", " ", text)


def _literal_calls(m: str, text: bytes) -> list[str]:
    if not text:
        return []
    if len(text) == 1:
        return [f"seq_putc({m}, {encode_c_char(text[0])});"]
    return [f"seq_puts({m}, {encode_c_string(text)});"]


_TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>/\*.*?\*/|//[^\n]*)|(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<id>[A-Za-z_]\w*)|(?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)|(?P<punct>->|\.\.\.|.)""",
    re.S | re.X,
)


def local_names(func_node) -> set[str]:
    """Names declared inside the function's body."""
    body = func_node.child_by_field_name("body")
    names: set[str] = set()
    if body is None:
        return names
    for n in _walk(body):
        if n.type != "declaration":
            continue
        if n.has_error:
            continue
        for d in n.children_by_field_name("declarator"):
            while d is not None and d.type not in ("identifier", "function_declarator"):
                d = d.child_by_field_name("declarator")
            if d is not None and d.type == "identifier":
                names.add(d.text.decode("latin-1"))
    names -= SEQ_PRIMITIVES
    return names


def macro_tokens(src: bytes) -> set[str]:
    """Identifiers used in the file's #define bodies (a local they name must keep its name)."""
    out: set[str] = set()
    text = src.decode("latin-1")
    for m in re.finditer(r"^[ \t]*#[ \t]*define[^\n]*(?:\\\n[^\n]*)*", text, re.M):
        out.update(re.findall(r"[A-Za-z_]\w*", m.group(0)))
    return out


def rename_locals(text: str, names: set[str]) -> str:
    """Rename the locals (not members, tags or designators) by a suffix."""
    out: list[str] = []
    prev = ""
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        kind = m.lastgroup
        if kind == "id" and tok in names and prev not in (".", "->", "struct", "union", "enum"):
            tok = tok + "_rw"
        out.append(tok)
        if kind not in ("ws", "comment"):
            prev = tok
    return "".join(out)


@dataclass
class Rewrite:
    text: bytes  # the rewritten function
    split: int  # seq_printf statements split
    kept: int  # seq_printf statements left as they were (format not a literal, odd arguments)
    renamed: int


def rewrite_function(src: bytes, printer: Printer, func_node) -> Rewrite:
    """The mechanical rewrite of one function (text of the function only)."""
    edits: list[tuple[int, int, str]] = []
    split = kept = 0
    for stmt, args in printf_statements(func_node):
        calls = split_printf(args, src)
        if calls is None:
            kept += 1
            continue
        split += 1
        old = src[stmt.start_byte:stmt.end_byte]
        edits.append((stmt.start_byte, stmt.end_byte, "{ " + " ".join(calls) + " }" + "\n" * old.count(b"\n")))
    text = bytearray(src[printer.start:printer.end])
    for start, end, new in sorted(edits, reverse=True):
        text[start - printer.start:end - printer.start] = new.encode("latin-1")
    names = local_names(func_node) - macro_tokens(src)
    renamed = rename_locals(text.decode("latin-1"), names).encode("latin-1")
    return Rewrite(renamed, split, kept, len(names))


def function_node(root, printer: Printer):
    for n in _walk(root):
        if n.type == "function_definition" and n.start_byte == printer.start and n.end_byte == printer.end:
            return n
    raise LookupError(printer.key)


def with_function(src: bytes, printer: Printer, text: bytes) -> bytes:
    return src[:printer.start] + text + src[printer.end:]
