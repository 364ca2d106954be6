"""Judge the kernel's own seq_file printers against mechanical rewrites, mutants and other releases.

Why: fmtcheck exists to judge real kernel code, and fixtures written for it say little about how
it does on the kernel's own printers. This script reads a kernel tree from a path (nothing of the
kernel is stored in the project), finds every function that takes a `struct seq_file *` and calls a
seq_* output primitive, and judges each one, through the public facade `fmtcheck.verify_sources`,
against a rewrite it makes itself:

- every `seq_printf(m, "...", ...)` statement is split into one call per conversion, with
  `seq_puts`/`seq_putc` for literal text and `seq_put_decimal_ull(_width)` for plain unsigned
  conversions (the argument cast to the conversion's type, so the rewrite is exactly equivalent in C);
- locals are renamed;

so the two sides differ in text and syntax and only understanding can decide them. The sides are
the whole file (as a user would give it) and the file with the one function replaced.

Every judgement runs in a forked child with a memory limit and a timeout, so one function cannot
sink the run. The report (markdown on stdout, or `--out FILE`) gives: functions found (the
denominator); decided; inconclusive grouped by construct; errors; divergent (a bug of fmtcheck or of
the rewrite: the rendered counterexample is printed); median/p95 time; peak memory. With
`--mutants N` it also mutates real functions (six operators) and gives the kill rate per operator
with every excluded mutant and its reason; with `--pair-tree DIR` it judges the same printer in two
releases wherever its text changed.

Usage:
    python3 benchmarks/kernel_corpus.py --tree /path/linux-6.1 [PATH...] [--pair-tree /path/linux-6.12]
        [--mutants 40] [--jobs 1] [--timeout 60] [--json results.json] [--out KERNEL.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import statistics
import sys
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from fmtcheck.c.cfront import function_name as _function_name, walk as _walk

DEFAULT_PATHS = ["fs/proc", "kernel/irq", "mm", "net", "arch/x86/kernel", "kernel/cgroup", "block"]

# output primitives of fs/seq_file.c and include/linux/seq_file.h
SEQ_PRIMITIVES = {
    "seq_printf", "seq_vprintf", "seq_bprintf", "seq_puts", "seq_putc", "seq_write",
    "seq_put_decimal_ull", "seq_put_decimal_ull_width", "seq_put_decimal_ll", "seq_put_hex_ll",
    "seq_pad", "seq_escape", "seq_escape_str", "seq_escape_mem", "seq_hex_dump", "seq_path",
    "seq_path_root", "seq_dentry", "seq_file_path", "seq_show_option", "seq_show_option_n",
    "seq_put_decimal_ll_width",
}
MEMORY_LIMIT = 1536 * 1024 * 1024
TIMEOUT = 60.0


# ---------------------------------------------------------------------------------------------
# finding the printers


def _parser():
    import tree_sitter_c
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_c.language()))


def _params(node):
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl.child_by_field_name("parameters") if decl is not None else None


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


def find_printers(tree: Path, paths: list[str]) -> list[Printer]:
    """Every function with a `struct seq_file *` parameter that calls a seq_* output primitive."""
    parser = _parser()
    found: list[Printer] = []
    for rel in paths:
        base = tree / rel
        files = [base] if base.is_file() else sorted(base.rglob("*.c"))
        for path in files:
            data = path.read_bytes()
            if b"seq_file" not in data:
                continue
            root = parser.parse(data).root_node
            seen: set[str] = set()
            for node in _walk(root):
                if node.type != "function_definition":
                    continue
                params = _params(node)
                if params is None or not re.search(rb"struct\s+seq_file\s*\*", params.text):
                    continue
                body = node.child_by_field_name("body")
                if body is None or not _calls_primitive(body):
                    continue
                name = _function_name(node)
                if not name or name in seen:
                    continue
                seen.add(name)
                found.append(Printer(str(path.relative_to(tree)), name, node.start_byte, node.end_byte,
                                     node.start_point[0] + 1, node.end_point[0] + 1))
    return found


def _calls_primitive(body) -> bool:
    for n in _walk(body):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and fn.text.decode() in SEQ_PRIMITIVES:
                return True
    return False


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


_CONVERSION = re.compile(
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
        m = _CONVERSION.match(fmt, i)
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


def _printf_statements(func_node):
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
    for stmt, args in _printf_statements(func_node):
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


# ---------------------------------------------------------------------------------------------
# judging in a child process


def _warm_up() -> None:
    """Import everything verify_sources needs before forking, so children start warm."""
    import fmtcheck

    try:
        fmtcheck.verify_sources(b"void f(struct seq_file *m, int x)\n{\n\tseq_printf(m, \"%d\\n\", x);\n}\n",
                                b"void f(struct seq_file *m, int x)\n{\n\tseq_put_decimal_ll(m, \"\", x);\n"
                                b"\tseq_putc(m, '\\n');\n}\n")
    except Exception:
        pass


def _warm_headers(tree: Path, path: str, src: bytes) -> None:
    """Read the constants of the headers a file includes once, before the judgements fork
    (each child then finds them in its inherited cache instead of reading the headers again)."""
    try:
        from fmtcheck.c import headers
    except ImportError:  # an engine from before the header constants
        return
    headers.tree_constants(str(tree), path, headers.includes_of(src))


def _child_judge(old: bytes, new: bytes, function: str, old_label: str, new_label: str,
                 tree: str | None) -> dict:
    import fmtcheck

    options = None
    try:
        from fmtcheck.common.options import Options  # the layout after issue 13
    except ImportError:
        from fmtcheck.options import Options
    options = Options(function=function, tree=tree)
    try:
        report = fmtcheck.verify_sources(old, new, options, old_label=old_label, new_label=new_label)
    except MemoryError:
        return {"status": "memory"}
    except Exception as exc:  # noqa: BLE001 - classified below
        exit_code = getattr(exc, "exit_code", None)
        where, what = getattr(exc, "where", ""), getattr(exc, "what", str(exc))
        if exit_code == 3:
            return {"status": "inconclusive", "reason": f"{where}: {what}", "raised": True}
        if exit_code == 2:
            return {"status": "error", "reason": f"{where}: {what}"}
        tb = traceback.extract_tb(exc.__traceback__)
        last = tb[-1] if tb else None
        at = f"{Path(last.filename).name}:{last.lineno}" if last else "?"
        return {"status": "internal", "reason": f"{type(exc).__name__}: {exc} (at {at})"}
    results = [r.to_json() for r in report.results]
    for r, obj in zip(results, report.results):
        for d, div in zip(r.get("divergences", []), obj.divergences):
            if div.rendered:
                d["rendered_old"] = div.rendered[0].decode("latin-1")[:4000]
                d["rendered_new"] = div.rendered[1].decode("latin-1")[:4000]
    if not results:
        return {"status": "nothing-to-check"}
    worst = report.verdict
    return {"status": worst, "results": results,
            "reason": next((r.get("reason") for r in results if r.get("verdict") == worst), None)}


def judge(old: bytes, new: bytes, function: str, old_label: str, new_label: str, tree: str | None,
          timeout: float, memory: int) -> dict:
    """Run one judgement in a forked child with a memory limit and a timeout."""
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        code = 0
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            out = _child_judge(old, new, function, old_label, new_label, tree)
        except BaseException as exc:  # noqa: BLE001 - the child must always answer
            out = {"status": "internal", "reason": f"{type(exc).__name__}: {exc}"}
        try:
            data = json.dumps(out).encode()
        except Exception as exc:  # noqa: BLE001
            data = json.dumps({"status": "internal", "reason": f"unserializable result: {exc}"}).encode()
        with os.fdopen(write_fd, "wb") as f:
            f.write(data)
        os._exit(code)
    os.close(write_fd)
    chunks: list[bytes] = []
    os.set_blocking(read_fd, False)
    timed_out = False
    import select

    while True:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_fd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_fd)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.monotonic() - start
    if timed_out:
        out = {"status": "timeout", "reason": f"no answer within {timeout:.0f} s"}
    else:
        try:
            out = json.loads(b"".join(chunks) or b"null")
        except ValueError:
            out = None
        if not isinstance(out, dict):
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            out = {"status": "crash", "reason": f"child ended (signal {sig}, status {status}) without an answer"}
    out["seconds"] = round(elapsed, 3)
    out["maxrss_mb"] = round(usage.ru_maxrss / 1024, 1)
    return out


# ---------------------------------------------------------------------------------------------
# classifying answers


def construct_of(reason: str | None) -> str:
    """A short name for the construct an inconclusive or error answer names (for grouping)."""
    if not reason:
        return "(no reason given)"
    text = reason
    text = re.sub(r"\S+\.[ch](?: \([^)]*\))?:\d+(?::\d+)?", "FILE:N", text)
    text = re.sub(r"\S+\.[ch](?: \([^)]*\))?", "FILE", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'X'", text)
    text = re.sub(r"\b0x[0-9a-f]+\b|\b\d+\b", "N", text)
    text = re.sub(r"\b[A-Za-z_]\w*\(", "F(", text)
    text = re.sub(r"^FILE(?::N)?: ", "", text)
    return text[:110]


def names_real_line(reason: str | None, printer: Printer, src_lines: int) -> bool:
    """Does the answer name a line of the user's file (not line 1 of a wrapper, not beyond it)?"""
    if not reason:
        return False
    lines = [int(x) for x in re.findall(r":(\d+)\b", reason)]
    lines += [int(x) for x in re.findall(r"\bline (\d+)\b", reason)]
    return any(1 <= n <= src_lines and (printer.line <= n <= printer.last_line or n > 1) for n in lines)


def outcome(answer: dict) -> str:
    status = answer["status"]
    if status == "equivalent":
        return "decided"
    return status


# ---------------------------------------------------------------------------------------------
# mutants


@dataclass
class Mutant:
    operator: str
    site: str  # line and what was changed
    text: bytes | None  # the mutated function (None when excluded)
    excluded: str | None = None


OPERATORS = ("width+1", "width-1", "delimiter-moved", "separator-dropped", "zero-padding", "d-for-u",
             "helper-skips-padding")


def _format_nodes(func_node):
    """(call name, format node, args) of every seq_printf with a literal format."""
    for stmt, args in _printf_statements(func_node):
        if len(args) >= 2:
            yield stmt, args


def _replace_format(src: bytes, printer: Printer, fmt_node, new_fmt: bytes) -> bytes:
    start, end = fmt_node.start_byte - printer.start, fmt_node.end_byte - printer.start
    text = src[printer.start:printer.end]
    return text[:start] + encode_c_string(new_fmt).encode("latin-1") + text[end:]


def _join(pieces: list[Piece]) -> bytes:
    return b"".join(p.text.replace(b"%", b"%%") if p.literal else p.text for p in pieces)


def _narrow_arg(arg: str, func_text: str) -> bool:
    """An argument whose type is visibly narrower than int (so %d and %u print the same)."""
    if re.match(r"\(\s*(?:unsigned\s+)?(?:char|short|u8|u16|s8|s16)\s*\)", arg):
        return True
    if re.fullmatch(r"[A-Za-z_]\w*", arg):
        return bool(re.search(rf"\b(?:u8|u16|s8|s16|unsigned\s+char|unsigned\s+short|char|short|bool)\s+"
                              rf"(?:\w+\s*,\s*)*\**{re.escape(arg)}\b", func_text))
    return False


def make_mutants(src: bytes, printer: Printer, func_node) -> list[Mutant]:
    """Every applicable site of the six operators in one function."""
    mutants: list[Mutant] = []
    func_text = src[printer.start:printer.end].decode("latin-1")
    for stmt, args in _format_nodes(func_node):
        fmt_node = args[1]
        fmt = format_of(fmt_node, src)
        pieces = split_format(fmt) if fmt is not None else None
        if pieces is None:
            continue
        line = stmt.start_point[0] + 1
        argtexts = [src[a.start_byte:a.end_byte].decode("latin-1") for a in args[2:]]
        argpos = 0
        for i, p in enumerate(pieces):
            if p.literal:
                continue
            numeric = p.conv in b"diuxXo"
            site = f"line {line}: {p.text.decode('latin-1')} (conversion {i + 1})"
            this_arg = argtexts[argpos + p.nargs - 1] if argpos + p.nargs - 1 < len(argtexts) else ""
            argpos += p.nargs
            # width +-1
            if p.width and p.width != b"*":
                w = int(p.width)
                for op, nw in (("width+1", w + 1), ("width-1", w - 1)):
                    newp = _with_width(p, nw)
                    mutants.append(Mutant(op, site, _replace_format(src, printer, fmt_node,
                                                                    _join(pieces[:i] + [newp] + pieces[i + 1:]))))
            # zero padding
            if numeric:
                if not p.width or p.width == b"*" and False:
                    mutants.append(Mutant("zero-padding", site, None, "no width: a 0 flag pads nothing"))
                elif p.width == b"*":
                    mutants.append(Mutant("zero-padding", site, None, "width from an argument (skipped)"))
                elif b"-" in p.flags:
                    mutants.append(Mutant("zero-padding", site, None, "left-justified: '-' overrides '0'"))
                elif b"0" in p.flags:
                    mutants.append(Mutant("zero-padding", site, None, "already zero-padded"))
                elif p.prec is not None:
                    mutants.append(Mutant("zero-padding", site, None, "a precision: '0' is ignored"))
                elif int(p.width) < 2:
                    mutants.append(Mutant("zero-padding", site, None, "width 1: a 0 flag pads nothing"))
                else:
                    newp = _reparse(b"%0" + p.text[1:])
                    mutants.append(Mutant("zero-padding", site, _replace_format(
                        src, printer, fmt_node, _join(pieces[:i] + [newp] + pieces[i + 1:]))))
            # %d for %u
            if p.conv == b"u":
                if p.length in (b"h", b"hh", b"H"):
                    mutants.append(Mutant("d-for-u", site, None, "char/short length: the value fits both ways"))
                elif _narrow_arg(this_arg.strip(), func_text):
                    mutants.append(Mutant("d-for-u", site, None, f"argument {this_arg.strip()} is narrower than int"))
                else:
                    newp = _reparse(p.text[:-1] + b"d")
                    mutants.append(Mutant("d-for-u", site, _replace_format(
                        src, printer, fmt_node, _join(pieces[:i] + [newp] + pieces[i + 1:]))))
            if not numeric:
                continue
            nxt = pieces[i + 1] if i + 1 < len(pieces) else None
            # delimiter moved from after the number to before it
            if nxt is not None and nxt.literal and nxt.text[:1] in (b" ", b"\t", b":", b",", b"/", b"|", b";"):
                ch = nxt.text[:1]
                moved = pieces[:i] + [Piece(ch, True), p, Piece(nxt.text[1:], True)] + pieces[i + 2:]
                moved = [q for q in moved if not (q.literal and not q.text)]
                if b"-" in p.flags and ch == b" " or p.width and p.width != b"*" and b"-" not in p.flags and False:
                    pass
                mutants.append(Mutant("delimiter-moved", site, _replace_format(src, printer, fmt_node, _join(moved))))
            # separator dropped (the literal run between this number and the next conversion)
            if (nxt is not None and nxt.literal and i + 2 < len(pieces) and not pieces[i + 2].literal
                    and nxt.text.strip(b" \t") == b"" and nxt.text):
                dropped = pieces[:i + 1] + [Piece(nxt.text[1:], True)] + pieces[i + 2:]
                dropped = [q for q in dropped if not (q.literal and not q.text)]
                mutants.append(Mutant("separator-dropped", site, _replace_format(src, printer, fmt_node,
                                                                                 _join(dropped))))
    return mutants


def _with_width(p: Piece, w: int) -> Piece:
    text = p.text
    m = _CONVERSION.match(text)
    head = b"%" + p.flags
    width = str(w).encode() if w > 0 else b""
    return _reparse(head + width + text[m.start("width") + len(p.width):] if m.start("width") >= 0 else text)


def _reparse(text: bytes) -> Piece:
    m = _CONVERSION.match(text)
    return Piece(text, False, m.group("flags"), m.group("width"), m.group("prec"), m.group("len") or b"",
                 m.group("conv"))


HELPER = (b"static void fc_put_width_mut(struct seq_file *m, const char *d, unsigned long long v,"
          b" unsigned int w) { if (v < 10) seq_put_decimal_ull(m, d, v); else seq_put_decimal_ull_width(m, d, v, w); }\n")


def helper_mutants(rewrite: bytes, line_of) -> list[Mutant]:
    """The helper that skips padding below 10, at every width call of the rewrite."""
    out: list[Mutant] = []
    for m in re.finditer(rb"seq_put_decimal_ull_width\(", rewrite):
        line = rewrite[:m.start()].count(b"\n")
        tail = rewrite[m.end():m.end() + 300]
        wm = re.search(rb",\s*(\d+)\);", tail)
        site = f"line {line_of(line)}: seq_put_decimal_ull_width"
        if wm and int(wm.group(1)) < 2:
            out.append(Mutant("helper-skips-padding", site, None, "width below 2: nothing to skip"))
            continue
        text = rewrite[:m.start()] + b"fc_put_width_mut(" + rewrite[m.end():]
        out.append(Mutant("helper-skips-padding", site, text))
    return out


# ---------------------------------------------------------------------------------------------
# the runs


@dataclass
class Entry:
    printer: Printer
    answer: dict
    rewrite: Rewrite | None = None
    extra: dict = field(default_factory=dict)


def run_corpus(tree: Path, printers: list[Printer], args) -> list[Entry]:
    parser = _parser()
    entries: list[Entry] = []
    by_file: dict[str, list[Printer]] = defaultdict(list)
    for p in printers:
        by_file[p.path].append(p)
    done = 0
    for path, group in by_file.items():
        src = (tree / path).read_bytes()
        root = parser.parse(src).root_node
        _warm_headers(tree, path, src)
        for printer in group:
            node = function_node(root, printer)
            rw = rewrite_function(src, printer, node)
            new = with_function(src, printer, rw.text)
            answer = judge(src, new, printer.name, path, f"{path} (rewrite)", str(tree), args.timeout, args.memory)
            entries.append(Entry(printer, answer, rw))
            done += 1
            if args.verbose:
                print(f"[{done}/{len(printers)}] {printer.key}: {answer['status']} {answer['seconds']}s "
                      f"{(answer.get('reason') or '')[:100]}", file=sys.stderr, flush=True)
    return entries


def run_mutants(tree: Path, entries: list[Entry], limit: int, args) -> list[dict]:
    """Mutants of the first `limit` decided functions (sorted by key: deterministic)."""
    parser = _parser()
    decided = sorted((e for e in entries if outcome(e.answer) == "decided"), key=lambda e: e.printer.key)[:limit]
    rows: list[dict] = []
    for e in decided:
        p = e.printer
        src = (tree / p.path).read_bytes()
        node = function_node(parser.parse(src).root_node, p)
        _warm_headers(tree, p.path, src)
        muts = make_mutants(src, p, node)
        muts += helper_mutants(e.rewrite.text, lambda ln: p.line + ln)
        for mu in muts:
            row = {"function": p.key, "operator": mu.operator, "site": mu.site}
            if mu.text is None:
                row["status"] = "excluded"
                row["reason"] = mu.excluded
                rows.append(row)
                continue
            if mu.operator == "helper-skips-padding":
                new = with_function(src, p, mu.text)
                new = new[:p.start] + HELPER.rstrip(b"\n") + b" " + new[p.start:]
            else:
                new = with_function(src, p, mu.text)
            ans = judge(src, new, p.name, p.path, f"{p.path} (mutant)", str(tree), args.timeout, args.memory)
            row.update(status=ans["status"], reason=ans.get("reason"), seconds=ans["seconds"])
            if ans["status"] == "divergent":
                row["killed"] = True
            rows.append(row)
            if args.verbose:
                print(f"  mutant {p.key} {mu.operator} {mu.site}: {ans['status']}", file=sys.stderr, flush=True)
    return rows


def normalized(text: bytes) -> bytes:
    text = re.sub(rb"/\*.*?\*/|//[^\n]*", b"", text, flags=re.S)
    return re.sub(rb"\s+", b"", text)


def run_pairs(tree: Path, other: Path, printers: list[Printer], args) -> list[dict]:
    """The same printer in two releases, wherever its text changed."""
    others = {p.key: p for p in find_printers(other, args.paths)}
    rows: list[dict] = []
    for p in printers:
        q = others.get(p.key)
        if q is None:
            continue
        a = (tree / p.path).read_bytes()
        b = (other / q.path).read_bytes()
        if normalized(a[p.start:p.end]) == normalized(b[q.start:q.end]):
            continue
        # no --tree: one tree's header constants would be wrong for the other release's side
        ans = judge(a, b, p.name, f"{tree.name}/{p.path}", f"{other.name}/{q.path}", None,
                    args.timeout, args.memory)
        rows.append({"function": p.key, "old_line": p.line, "new_line": q.line, **ans})
        if args.verbose:
            print(f"  pair {p.key}: {ans['status']} {(ans.get('reason') or '')[:100]}", file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------------------------------------
# the report


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _divergence_text(answer: dict) -> list[str]:
    out: list[str] = []
    for r in answer.get("results", []):
        for d in r.get("divergences", [])[:3]:
            out.append(f"  - line {d['line']} col {d['column']} field {d.get('field')}: "
                       f"expected `{d['expected'][:160]}` actual `{d['actual'][:160]}`; "
                       f"counterexample {json.dumps(d.get('counterexample'))[:300]}")
            if d["expected"] == d["actual"]:
                out.append("    **identical expected and actual lines**")
    return out


def corpus_section(tree: Path, entries: list[Entry]) -> list[str]:
    n = len(entries)
    counts = Counter(outcome(e.answer) for e in entries)
    lines = [f"### {tree.name}: {n} output functions found", ""]
    lines.append("| outcome | functions | share |")
    lines.append("|---|---|---|")
    for key in ("decided", "inconclusive", "error", "internal", "divergent", "timeout", "memory", "crash",
                "nothing-to-check"):
        if counts.get(key):
            lines.append(f"| {key} | {counts[key]} | {_pct(counts[key], n)} |")
    times = [e.answer["seconds"] for e in entries]
    mem = [e.answer["maxrss_mb"] for e in entries]
    split = sum(e.rewrite.split for e in entries if e.rewrite)
    kept = sum(e.rewrite.kept for e in entries if e.rewrite)
    lines += ["", f"Time per function: median {statistics.median(times) if times else 0:.2f} s, "
              f"p95 {_quantile(times, 0.95):.2f} s, max {max(times) if times else 0:.2f} s; "
              f"peak memory (max RSS of a child) {max(mem) if mem else 0:.0f} MB. "
              f"Rewrite: {split} seq_printf statements split, {kept} left whole "
              f"(format not a literal, or arguments the script cannot count).", ""]
    src_lines = {}
    for kind in ("inconclusive", "error", "internal", "timeout", "memory", "crash"):
        group = [e for e in entries if outcome(e.answer) == kind]
        if not group:
            continue
        by = defaultdict(list)
        for e in group:
            by[construct_of(e.answer.get("reason"))].append(e)
        lines += [f"#### {kind} by construct ({len(group)})", "", "| count | construct | example |", "|---|---|---|"]
        for construct, es in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ex = es[0]
            reason = (ex.answer.get("reason") or "").replace("|", "\\|").replace("\n", " ")[:160]
            lines.append(f"| {len(es)} | {construct.replace('|', '/')} | {ex.printer.key}: {reason} |")
        lines.append("")
        if kind == "inconclusive":
            no_line = []
            for e in group:
                path = tree / e.printer.path
                if path not in src_lines:
                    src_lines[path] = path.read_bytes().count(b"\n") + 1
                if not names_real_line(e.answer.get("reason"), e.printer, src_lines[path]):
                    no_line.append(e)
            lines += [f"Inconclusive answers that name no real line: {len(no_line)}", ""]
            for e in no_line[:15]:
                lines.append(f"- {e.printer.key}: {(e.answer.get('reason') or '')[:160]}")
            lines.append("")
    div = [e for e in entries if outcome(e.answer) == "divergent"]
    if div:
        lines += [f"#### divergent ({len(div)}): each is a bug (the rewrite prints the same bytes)", ""]
        for e in div:
            lines.append(f"- {e.printer.key} (line {e.printer.line})")
            lines += _divergence_text(e.answer)
        lines.append("")
    return lines


def mutant_section(rows: list[dict]) -> list[str]:
    lines = ["### Mutants of real functions", ""]
    if not rows:
        return lines + ["(none run)", ""]
    lines += ["| operator | mutants | killed | survived (equivalent) | undecided | excluded | kill rate |",
              "|---|---|---|---|---|---|---|"]
    for op in OPERATORS:
        rs = [r for r in rows if r["operator"] == op]
        run = [r for r in rs if r["status"] != "excluded"]
        killed = sum(1 for r in run if r["status"] == "divergent")
        survived = sum(1 for r in run if r["status"] == "equivalent")
        excl = len(rs) - len(run)
        lines.append(f"| {op} | {len(run)} | {killed} | {survived} | {len(run) - killed - survived} | {excl} | "
                     f"{_pct(killed, len(run))} |")
    lines.append("")
    surv = [r for r in rows if r["status"] not in ("excluded", "divergent")]
    if surv:
        lines += ["Mutants not killed:", ""]
        for r in surv[:60]:
            lines.append(f"- {r['function']} {r['operator']} {r['site']}: {r['status']} "
                         f"{(r.get('reason') or '')[:140]}")
        lines.append("")
    excl = [r for r in rows if r["status"] == "excluded"]
    if excl:
        lines += ["Excluded mutants (cannot change bytes), by reason:", ""]
        for reason, n in Counter(r["reason"] for r in excl).most_common():
            lines.append(f"- {n}: {reason}")
        lines.append("")
    return lines


def pair_section(rows: list[dict], a: Path, b: Path) -> list[str]:
    lines = [f"### Cross-version pairs: {a.name} -> {b.name} ({len(rows)} printers whose text changed)", ""]
    counts = Counter(r["status"] for r in rows)
    lines.append(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    lines += ["", "| function | verdict | reason |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['function']} | {r['status']} | {(r.get('reason') or '').replace('|', '/')[:140]} |")
    lines.append("")
    for r in rows:
        if r["status"] == "divergent":
            lines.append(f"- **{r['function']}** divergent:")
            lines += _divergence_text(r)
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", required=True, type=Path, help="a kernel source tree")
    ap.add_argument("paths", nargs="*", help=f"paths in the tree (default: {' '.join(DEFAULT_PATHS)})")
    ap.add_argument("--pair-tree", type=Path, help="another release: judge the printers whose text changed")
    ap.add_argument("--mutants", type=int, default=0, metavar="N", help="mutate the first N decided functions")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per judgement (default 60)")
    ap.add_argument("--memory", type=int, default=MEMORY_LIMIT, help="address-space limit per judgement (bytes)")
    ap.add_argument("--only", help="only functions whose path:name contains this")
    ap.add_argument("--list", action="store_true", help="print the functions found and stop")
    ap.add_argument("--json", type=Path, help="write every answer here")
    ap.add_argument("--out", type=Path, help="write the markdown here (default stdout)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.paths = args.paths or DEFAULT_PATHS
    tree = args.tree.resolve()
    printers = find_printers(tree, args.paths)
    if args.only:
        printers = [p for p in printers if args.only in p.key]
    print(f"{tree}: {len(printers)} output functions in {' '.join(args.paths)}", file=sys.stderr, flush=True)
    if args.list:
        for p in printers:
            print(f"{p.key}:{p.line}")
        return 0
    _warm_up()
    t0 = time.monotonic()
    entries = run_corpus(tree, printers, args)
    md = [f"## Kernel corpus: {tree.name} ({' '.join(args.paths)})", ""]
    md += corpus_section(tree, entries)
    mrows: list[dict] = []
    if args.mutants:
        mrows = run_mutants(tree, entries, args.mutants, args)
        md += mutant_section(mrows)
    prows: list[dict] = []
    if args.pair_tree:
        prows = run_pairs(tree, args.pair_tree.resolve(), printers, args)
        md += pair_section(prows, tree, args.pair_tree.resolve())
    md.append(f"(wall time of the whole run {time.monotonic() - t0:.0f} s)")
    text = "\n".join(md) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    if args.json:
        args.json.write_text(json.dumps({
            "tree": str(tree), "paths": args.paths,
            "functions": [{"function": e.printer.key, "line": e.printer.line, "split": e.rewrite.split if e.rewrite else 0,
                           **e.answer} for e in entries],
            "mutants": mrows, "pairs": prows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
