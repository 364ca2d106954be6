"""Single-point mutants of a show function, made by editing its C text.

The NEW side of an equivalent rewrite is read as a sequence of output statements (`seq_printf`,
`seq_put_decimal_ull[_width]`, `seq_put_decimal_ll`, `seq_puts`, `seq_putc`, and function-like
macros that expand to one of them). Each statement becomes a list of items: literal text (`Lit`) and
formatted fields (`Field`). A mutation operator changes the items of one or two statements; only
those statements are re-emitted as C (in the same style: a `seq_printf` stays a `seq_printf`, a
`seq_put_decimal_*` call stays one when it can), everything else keeps its original text.

The same item model gives an independent oracle (`render`): a direct Python rendering of the
items, which does not use fmtcheck, used to confirm that a mutant fmtcheck calls equivalent really
is (see `straight_line`).
"""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

PUT_CALLS = {"seq_put_decimal_ull_width", "seq_put_decimal_ull", "seq_put_decimal_ll", "seq_put_hex_ll"}
OUTPUT_CALLS = PUT_CALLS | {"seq_printf", "seq_puts", "seq_putc", "seq_write"}
ALL_SEQ_CALLS = OUTPUT_CALLS | {"seq_write", "seq_escape", "seq_pad", "seq_setwidth", "seq_path",
                                "seq_put_hex_ll", "seq_escape_str", "seq_escape_mem", "__seq_puts",
                                "seq_vprintf"}
CONTROL = re.compile(r"\b(if|for|while|switch|goto|return|do)\b|\?|\bfor_each\w*")
TAIL_RETURN = re.compile(r"\breturn\b[^;]*;\s*$")
# value expressions whose range is not a whole 64-bit type: the oracle cannot draw them uniformly
NARROWING = re.compile(r">>|<<|/|%|&|\(\s*(unsigned\s+)?(int|short|char|u8|u16|u32|s8|s16|s32)\s*\)")
HELPER = "fc_put_width_small"
HELPER_TEXT = f"""/* mutant helper: ignores the width for one-digit values */
static void {HELPER}(struct seq_file *m, const char *delim, unsigned long long v, unsigned int width)
{{
\tif (v < 10)
\t\tseq_put_decimal_ull(m, delim, v);
\telse
\t\tseq_put_decimal_ull_width(m, delim, v, width);
}}

"""


# -- lexing ----------------------------------------------------------------------------------


def _skip_literal(text: str, i: int) -> int:
    """Index just after the string or char literal starting at text[i]."""
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


def blank_comments(text: str) -> str:
    """The text with comments (and only comments) replaced by spaces: offsets are kept."""
    out = list(text)
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_literal(text, i)
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = len(text) if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def match_paren(text: str, i: int) -> int:
    """text[i] is an opening bracket; index of its match."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[text[i]]]
    i += 1
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_literal(text, i)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    raise ValueError("unbalanced brackets")


def split_args(text: str) -> list[str]:
    args, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_literal(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    if text.strip():
        args.append(text[start:].strip())
    return args


_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
        "f": "\f", "v": "\v", "?": "?", "e": "\x1b"}


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
            out.append(chr(int(m.group(0), 16) & 0xFF))
            i += 2 + len(m.group(0))
        else:
            out.append(_ESC.get(n, n))
            i += 2
    return "".join(out)


def string_value(expr: str) -> str | None:
    """The value of an argument made only of adjacent string literals, else None."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', expr, re.S)
    rest = re.sub(r'"((?:[^"\\]|\\.)*)"', "", expr, flags=re.S)
    if not parts or rest.strip():
        return None
    return "".join(_unescape(p) for p in parts)


def char_value(expr: str) -> str | None:
    m = re.fullmatch(r"'((?:[^'\\]|\\.)+)'", expr.strip())
    return _unescape(m.group(1)) if m else None


def c_string(s: str) -> str:
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 32 <= o < 127:
            out.append(ch)
        else:
            out.append(f"\\{o & 0xFF:03o}")
    return '"' + "".join(out) + '"'


def c_char(ch: str) -> str:
    return {"\n": r"'\n'", "\t": r"'\t'", "'": r"'\''", "\\": r"'\\'"}.get(ch, f"'{ch}'") if 32 <= ord(ch) < 127 or ch in "\n\t" else f"'\\{ord(ch):03o}'"


# -- the item model -----------------------------------------------------------------------------


@dataclass
class Lit:
    text: str


@dataclass
class DelimExpr:
    """A delimiter argument that is an expression (a helper's `label` parameter)."""
    expr: str


@dataclass
class Field:
    spec: str                       # d i u x X o s c p
    expr: str                       # the value argument
    flags: str = ""
    width: int | str | None = None  # literal width, an expression ('*' / put width), or none
    prec: str = ""                  # ".N" as written, or "" ('.*' makes the field opaque)
    length: str = ""
    raw: str | None = None          # original conversion text when it cannot be re-rendered
    extra: list[str] = field(default_factory=list)  # '*' arguments before expr, for raw fields
    helper: bool = False

    @property
    def numeric(self) -> bool:
        return self.spec in "diuxXo" and self.raw is None

    def conv(self) -> str:
        if self.raw is not None:
            return self.raw
        w = "" if self.width is None or self.width == 0 else ("*" if isinstance(self.width, str) else str(self.width))
        return "%" + self.flags + w + self.prec + self.length + self.spec

    def args(self) -> list[str]:
        if self.raw is not None:
            return self.extra + [self.expr]
        return ([self.width] if isinstance(self.width, str) else []) + [self.expr]

    def put_call(self) -> str | None:
        """Which seq_put_decimal_* call prints this field, if one does."""
        if self.raw is not None or self.flags or self.prec or self.helper:
            return None
        if self.spec == "u" and self.length == "ll":
            return "seq_put_decimal_ull" if self.width is None else "seq_put_decimal_ull_width"
        if self.spec in "di" and self.length == "ll" and self.width is None:
            return "seq_put_decimal_ll"
        return None

    def hex_call(self) -> bool:
        return (self.raw is None and self.flags == "0" and not self.prec and not self.helper
                and self.spec == "x" and self.length == "ll" and self.width is not None)


CONV = re.compile(r"%([-+ #0]*)(\*|\d+)?(\.\*|\.\d*)?(hh|h|ll|l|z|t|L|j|q)?([diouxXscpn%])")


def parse_format(fmt: str, args: list[str]) -> list[Lit | Field] | None:
    items: list[Lit | Field] = []
    pos, ai = 0, 0
    lit = []
    while pos < len(fmt):
        if fmt[pos] != "%":
            lit.append(fmt[pos])
            pos += 1
            continue
        m = CONV.match(fmt, pos)
        if not m:
            return None
        flags, width, prec, length, spec = m.groups()
        if spec == "%":
            lit.append("%")
            pos = m.end()
            continue
        if lit:
            items.append(Lit("".join(lit)))
            lit = []
        extra = []
        if width == "*":
            extra.append(args[ai]); ai += 1
        if prec == ".*":
            extra.append(args[ai]); ai += 1
        if ai >= len(args):
            return None
        raw_text = m.group(0)
        end = m.end()
        if spec == "p":  # %p and its extensions (%pI4, %pK ...)
            ext = re.match(r"[A-Za-z0-9]*", fmt[end:]).group(0)
            raw_text += ext
            end += len(ext)
        f = Field(spec=spec, expr=args[ai], flags=flags or "", width=int(width) if width and width != "*" else None,
                  prec=prec or "", length=length or "")
        ai += 1
        if extra or spec in "pcn" or prec == ".*":
            f.raw, f.extra = raw_text, extra
        items.append(f)
        pos = end
    if lit:
        items.append(Lit("".join(lit)))
    if ai != len(args):
        return None
    return items


def format_text(items: list[Lit | Field]) -> tuple[str, list[str]]:
    fmt, args = [], []
    for it in items:
        if isinstance(it, Lit):
            fmt.append(it.text.replace("%", "%%"))
        elif isinstance(it, DelimExpr):
            fmt.append("%s")
            args.append(it.expr)
        else:
            fmt.append(it.conv())
            args += it.args()
    return "".join(fmt), args


@dataclass
class Stmt:
    start: int
    end: int            # just after the ';'
    style: str          # "printf" | "put"
    seq: str
    items: list[Lit | Field]
    line: int


@dataclass
class Function:
    name: str
    body_start: int
    body_end: int
    stmts: list[Stmt]
    straight: bool      # straight-line code whose output is exactly the statements' items


@dataclass
class Source:
    text: str
    functions: list[Function]
    macros: dict[str, tuple[list[str], str]]


def parse_macros(text: str) -> dict[str, tuple[list[str], str]]:
    macros = {}
    joined = re.sub(r"\\\n", " ", text)
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)[ \t]*(.*)$", joined, re.M):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        macros[m.group(1)] = (params, m.group(3).strip())
    return macros


def expand(macros, name: str, args: list[str]) -> tuple[str, list[str]] | None:
    """A call of a function-like macro whose body is one output call: (callee, its arguments)."""
    params, body = macros[name]
    if len(params) != len(args):
        return None
    body = body.rstrip(";").strip()
    m = re.fullmatch(r"(\w+)\s*\((.*)\)", body, re.S)
    if not m or m.group(1) not in OUTPUT_CALLS:
        return None
    sub = dict(zip(params, args))
    out_args = []
    for a in split_args(m.group(2)):
        out_args.append(re.sub(r"\b\w+\b", lambda t: sub.get(t.group(0), t.group(0)), a) if '"' not in a else a)
    return m.group(1), out_args


def call_items(callee: str, args: list[str]) -> tuple[str, str, list[Lit | Field]] | None:
    if callee == "seq_printf":
        fmt = string_value(args[1]) if len(args) >= 2 else None
        if fmt is None:
            return None
        items = parse_format(fmt, args[2:])
        return None if items is None else ("printf", args[0], items)
    if callee in PUT_CALLS:
        want = 4 if callee.endswith("_width") or callee == "seq_put_hex_ll" else 3
        if len(args) != want:
            return None
        delim = string_value(args[1])
        head: list = [Lit(delim)] if delim else []
        if delim is None:
            head = [] if args[1] == "NULL" else [DelimExpr(args[1])]
        if callee == "seq_put_hex_ll":
            w = int(args[3]) if re.fullmatch(r"\d+", args[3]) else args[3]
            return "put", args[0], head + [Field("x", args[2], flags="0", length="ll", width=w)]
        if callee == "seq_put_decimal_ll":
            f = Field("d", args[2], length="ll")
        else:
            w: int | str | None = None
            if want == 4:
                w = int(args[3]) if re.fullmatch(r"\d+", args[3]) else args[3]
            f = Field("u", args[2], length="ll", width=w)
        return "put", args[0], head + [f]
    if callee == "seq_write":
        s = string_value(args[1]) if len(args) == 3 else None
        if s is None or not re.fullmatch(r"\d+", args[2]) or int(args[2]) > len(s):
            return None
        return "put", args[0], [Lit(s[: int(args[2])])] if int(args[2]) else []
    if callee == "seq_puts":
        s = string_value(args[1]) if len(args) == 2 else None
        return None if s is None else ("put", args[0], [Lit(s)] if s else [])
    if callee == "seq_putc":
        ch = char_value(args[1]) if len(args) == 2 else None
        return None if ch is None else ("put", args[0], [Lit(ch)])
    return None


def parse_source(text: str) -> Source:
    clean = blank_comments(text)
    macros = parse_macros(clean)
    functions = []
    # function definitions: "name(...) {" at the top level
    depth_zero = [m for m in re.finditer(r"\b(\w+)\s*\(([^;{}()]*)\)\s*\{", clean)]
    taken_until = -1
    for m in depth_zero:
        if m.start() < taken_until or m.group(1) in ("if", "for", "while", "switch"):
            continue
        line_start = clean.rfind("\n", 0, m.start()) + 1
        if clean[line_start:m.start()].lstrip().startswith("#"):
            continue
        open_ = m.end() - 1
        close = match_paren(clean, open_)
        taken_until = close
        functions.append(_parse_function(text, clean, macros, m.group(1), open_ + 1, close))
    return Source(text, functions, macros)


def _parse_function(text, clean, macros, name, start, end) -> Function:
    stmts: list[Stmt] = []
    straight = not CONTROL.search(TAIL_RETURN.sub("", clean[start:end]))
    names = set(OUTPUT_CALLS) | set(ALL_SEQ_CALLS) | set(macros)
    for m in re.finditer(r"\b(\w+)\s*\(", clean[start:end]):
        callee = m.group(1)
        if callee not in names:
            continue
        s = start + m.start()
        if stmts and s < stmts[-1].end:
            continue
        open_ = start + m.end() - 1
        close = match_paren(clean, open_)
        j = close + 1
        while j < end and clean[j] in " \t\n":
            j += 1
        if j >= end or clean[j] != ";":
            straight = False
            continue
        args = split_args(text[open_ + 1:close])
        target = (callee, args)
        if callee in macros:
            target = expand(macros, callee, args)
        parsed = call_items(*target) if target and target[0] in OUTPUT_CALLS else None
        if parsed is None:
            straight = False
            continue
        style, seq, items = parsed
        stmts.append(Stmt(s, j + 1, style, seq, items, text.count("\n", 0, s) + 1))
    return Function(name, start, end, stmts, straight)


# -- emitting ---------------------------------------------------------------------------------


def emit(stmt: Stmt, items: list[Lit | Field]) -> str:
    items = _merge(items)
    calls: list[str] = []
    seq = stmt.seq
    if stmt.style == "printf":
        chunk: list[Lit | Field] = []
        for it in items + [None]:
            if it is None or (isinstance(it, Field) and it.helper):
                if chunk:
                    fmt, args = format_text(chunk)
                    calls.append(f"seq_printf({', '.join([seq, c_string(fmt)] + args)})")
                    chunk = []
                if it is not None:
                    calls.append(f'{HELPER}({seq}, "", {it.expr}, {it.width})')
            else:
                chunk.append(it)
    else:
        i = 0
        while i < len(items):
            it = items[i]
            nxt = items[i + 1] if i + 1 < len(items) else None
            if isinstance(it, (Lit, DelimExpr)) and isinstance(nxt, Field):
                delim, f, i = it, nxt, i + 2
            elif isinstance(it, Field):
                delim, f, i = Lit(""), it, i + 1
            elif isinstance(it, DelimExpr):
                i += 1
                calls.append(f"seq_puts({seq}, {it.expr})")
                continue
            else:
                i += 1
                if len(it.text) == 1:
                    calls.append(f"seq_putc({seq}, {c_char(it.text)})")
                else:
                    calls.append(f"seq_puts({seq}, {c_string(it.text)})")
                continue
            call = f.put_call()
            d = delim.expr if isinstance(delim, DelimExpr) else c_string(delim.text)
            if f.helper:
                calls.append(f"{HELPER}({seq}, {d}, {f.expr}, {f.width})")
            elif f.hex_call():
                d = "NULL" if d == '""' else d
                calls.append(f"seq_put_hex_ll({seq}, {d}, {f.expr}, {f.width})")
            elif call == "seq_put_decimal_ull_width":
                calls.append(f"{call}({seq}, {d}, {f.expr}, {f.width})")
            elif call is not None:
                calls.append(f"{call}({seq}, {d}, {f.expr})")
            else:
                fmt, args = format_text(([delim] if not isinstance(delim, Lit) or delim.text else []) + [f])
                calls.append(f"seq_printf({', '.join([seq, c_string(fmt)] + args)})")
    if not calls:
        return ";"
    if len(calls) == 1:
        return calls[0] + ";"
    return "{ " + "; ".join(calls) + "; }"


def _merge(items):
    out = []
    for it in items:
        if isinstance(it, Lit):
            if not it.text:
                continue
            if out and isinstance(out[-1], Lit):
                out[-1] = Lit(out[-1].text + it.text)
                continue
        out.append(it)
    return out


# -- mutation operators -------------------------------------------------------------------------


@dataclass
class Mutant:
    ident: str
    operator: str
    where: str
    text: str
    changed: dict[int, list] = field(default_factory=dict)  # stmt index -> new items (for the oracle)


def _desc(f: Field) -> str:
    return f"{f.conv() if f.put_call() is None else f.put_call() + '(' + str(f.width) + ')'} {f.expr}"


def mutants(text: str, label: str = "") -> list[Mutant]:
    src = parse_source(text)
    out: list[Mutant] = []
    for fn in src.functions:
        if not fn.stmts:
            continue
        out += _function_mutants(src, fn, label)
    return out


def _function_mutants(src: Source, fn: Function, label: str) -> list[Mutant]:
    stmts = fn.stmts
    result: list[Mutant] = []
    counter = [0]

    def make(op: str, where: str, changes: dict[int, list]) -> None:
        text = src.text
        helper = any(isinstance(it, Field) and it.helper for items in changes.values() for it in items)
        for si in sorted(changes, reverse=True):
            st = stmts[si]
            text = text[:st.start] + emit(st, changes[si]) + text[st.end:]
        if helper:
            text = HELPER_TEXT + text
        counter[0] += 1
        result.append(Mutant(f"{label}{fn.name}#{counter[0]:03d}", op, where, text, changes))

    fields = [(si, ii) for si, st in enumerate(stmts) for ii, it in enumerate(st.items) if isinstance(it, Field)]

    def with_item(si, ii, new) -> dict[int, list]:
        items = copy.deepcopy(stmts[si].items)
        if new is None:
            del items[ii]
        elif isinstance(new, list):
            items[ii:ii + 1] = new
        else:
            items[ii] = new
        return {si: items}

    for si, ii in fields:
        f = stmts[si].items[ii]
        at = f"line {stmts[si].line}, {_desc(f)}"
        # widths +1 / -1
        if isinstance(f.width, int) and f.raw is None:
            for dw in (+1, -1):
                if f.width + dw < 0:
                    continue
                g = copy.deepcopy(f); g.width = f.width + dw
                make(f"width {dw:+d}", f"{at}: width {f.width} -> {g.width}", with_item(si, ii, g))
        # delimiter removed / doubled / moved after its number
        prev = stmts[si].items[ii - 1] if ii > 0 else None
        if isinstance(prev, Lit):
            keep, _, delim = prev.text.rpartition("\n")
            keep = keep + "\n" if _ else ""
            if delim:
                items = copy.deepcopy(stmts[si].items)
                items[ii - 1] = Lit(keep)
                make("delimiter removed", f"{at}: {delim!r} removed", {si: items})
                items = copy.deepcopy(stmts[si].items)
                items[ii - 1] = Lit(keep + delim + delim)
                make("delimiter doubled", f"{at}: {delim!r} doubled", {si: items})
                items = copy.deepcopy(stmts[si].items)
                items[ii - 1] = Lit(keep)
                items.insert(ii + 1, Lit(delim))
                make("delimiter moved", f"{at}: {delim!r} moved after the field", {si: items})
        if f.numeric:
            # decimal for hex
            if f.spec in "diu":
                g = copy.deepcopy(f); g.spec = "x"
                make("hex for decimal", f"{at}: -> {g.conv()}", with_item(si, ii, g))
            # zero padding for space padding
            if isinstance(f.width, int) and f.width > 0 and "0" not in f.flags and "-" not in f.flags:
                g = copy.deepcopy(f); g.flags += "0"
                make("zero padding", f"{at}: -> {g.conv()}", with_item(si, ii, g))
            # signed for unsigned
            if f.spec == "u":
                g = copy.deepcopy(f); g.spec = "d"
                make("signed for unsigned", f"{at}: -> {g.conv()}", with_item(si, ii, g))
            # helper that ignores the width for one-digit values
            if f.spec == "u" and f.length == "ll" and f.width is not None and not f.flags and not f.prec:
                g = copy.deepcopy(f); g.helper = True
                make("width ignored below 10", f"{at}: -> {HELPER}()", with_item(si, ii, g))
        # field dropped (with the blanks that separate it from the previous item)
        items = copy.deepcopy(stmts[si].items)
        del items[ii]
        if ii > 0 and isinstance(items[ii - 1], Lit):
            items[ii - 1] = Lit(items[ii - 1].text.rstrip(" \t"))
        make("field dropped", f"{at}: dropped", {si: items})

    # adjacent fields swapped (their values)
    for (s1, i1), (s2, i2) in zip(fields, fields[1:]):
        a, b = stmts[s1].items[i1], stmts[s2].items[i2]
        if a.spec not in "diuxXo" or b.spec not in "diuxXo":
            continue
        changes = {s1: copy.deepcopy(stmts[s1].items)}
        changes.setdefault(s2, copy.deepcopy(stmts[s2].items))
        changes[s1][i1].expr, changes[s2][i2].expr = b.expr, a.expr
        make("fields swapped", f"line {stmts[s1].line}: {a.expr} <-> {b.expr}", changes)

    # each newline removed
    for si, st in enumerate(stmts):
        for ii, it in enumerate(st.items):
            if isinstance(it, Lit):
                for k, ch in enumerate(it.text):
                    if ch == "\n":
                        items = copy.deepcopy(st.items)
                        items[ii] = Lit(it.text[:k] + it.text[k + 1:])
                        make("newline removed", f"line {st.line}: newline #{k} of {it.text!r} removed", {si: items})
    return result


# -- the independent oracle ----------------------------------------------------------------------


def straight_line(text: str) -> Function | None:
    """The single output function of a source, when its output is exactly its statements' items."""
    src = parse_source(text)
    fns = src.functions
    if len(fns) != 1 or not fns[0].stmts or not fns[0].straight:
        return None
    return fns[0]


def items_of(text: str, fn: Function | None = None) -> list | None:
    fn = fn or straight_line(text)
    if fn is None:
        return None
    items = [it for st in fn.stmts for it in st.items]
    if any(isinstance(it, Field) and (NARROWING.search(it.expr) or it.length not in ("ll", "l", "z", "j", "q", "t")
                                      and it.spec != "s") for it in items):
        return None  # a value that is not a free 64-bit pattern: leave it to the model check
    return items


def _norm(expr: str) -> str:
    return re.sub(r"\s+", " ", expr).strip()


def _int_bits(length: str, spec: str) -> int:
    return {"hh": 8, "h": 16, "": 32, "l": 64, "ll": 64, "z": 64, "t": 64, "j": 64, "L": 64, "q": 64}[length]


def render(items: list, values: dict[str, Any]) -> bytes:
    """Python's own rendering of the items (no fmtcheck code): integers as 64-bit patterns."""
    out = []
    for it in items:
        if isinstance(it, Lit):
            out.append(it.text.encode("latin-1"))
            continue
        if isinstance(it, DelimExpr):
            raise ValueError("delimiter expression")
        v = values[_norm(it.expr)]
        if it.raw is not None:
            raise ValueError("opaque conversion")
        width = it.width if isinstance(it.width, int) else (0 if it.width is None else int(values[_norm(it.width)]))
        if it.helper:
            s = str(v & ((1 << 64) - 1)).encode()
            out.append(s if (v & ((1 << 64) - 1)) < 10 else s.rjust(width))
            continue
        if it.spec == "s":
            s = v
            if it.prec:
                s = s[: int(it.prec[1:] or 0)]
        else:
            bits = _int_bits(it.length, it.spec)
            u = v & ((1 << bits) - 1)
            sign = ""
            if it.spec in "di":
                n = u - (1 << bits) if u >> (bits - 1) else u
                sign = "-" if n < 0 else ("+" if "+" in it.flags else (" " if " " in it.flags else ""))
                digits = str(abs(n))
            else:
                digits = {"u": str(u), "x": f"{u:x}", "X": f"{u:X}", "o": f"{u:o}"}[it.spec]
                if "#" in it.flags and it.spec in "xX" and u:
                    sign = "0" + it.spec
            if it.prec:
                p = int(it.prec[1:] or 0)
                digits = "" if p == 0 and u == 0 else digits.rjust(p, "0")
            if "0" in it.flags and "-" not in it.flags and not it.prec:
                digits = digits.rjust(width - len(sign), "0")
            s = (sign + digits).encode()
        s = s.ljust(width) if "-" in it.flags else s.rjust(width)
        out.append(s)
    return b"".join(out)


def oracle_values(items_lists: list[list], rng: random.Random) -> dict[str, Any]:
    """One random assignment: every distinct value expression gets a 64-bit pattern (or a name)."""
    vals: dict[str, Any] = {}
    for items in items_lists:
        for it in items:
            if not isinstance(it, Field):
                continue
            for e, is_str in [(it.expr, it.spec == "s")] + ([(it.width, False)] if isinstance(it.width, str) else []):
                k = _norm(e)
                if k in vals:
                    continue
                if is_str:
                    n = rng.randint(1, 15)
                    vals[k] = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789._-@") for _ in range(n))
                else:
                    vals[k] = oracle_int(rng)
    return vals


def oracle_int(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.35:
        d = rng.randint(1, 20)
        return rng.choice([10 ** (d - 1), 10**d - 1, rng.randint(10 ** (d - 1), 10**d - 1)]) & ((1 << 64) - 1)
    if r < 0.55:
        k = rng.randint(1, 16)
        return rng.choice([16 ** k - 1, 16 ** (k - 1), 2**63 - 1, 2**63, 2**31 - 1, 2**31, 2**32 - 1, 2**32])
    if r < 0.75:
        return rng.randint(0, 12)
    if r < 0.85:
        return (1 << 64) - rng.randint(1, 12)
    return rng.getrandbits(64)


def oracle_differs(old_items: list, new_items: list, samples: int, seed: int = 0) -> tuple[bool, dict | None]:
    """True and the witness when the direct renderings differ on some sampled assignment."""
    rng = random.Random(seed)
    for _ in range(samples):
        vals = oracle_values([old_items, new_items], rng)
        if render(old_items, vals) != render(new_items, vals):
            return True, vals
    # every-field-small and every-field-equal corners
    for v in range(0, 12):
        vals = {k: (x if isinstance(x, bytes) else v) for k, x in oracle_values([old_items, new_items], rng).items()}
        if render(old_items, vals) != render(new_items, vals):
            return True, vals
    return False, None


def mutated_items(fn: Function, mutant: Mutant) -> list:
    return [it for si, st in enumerate(fn.stmts) for it in mutant.changed.get(si, st.items)]
