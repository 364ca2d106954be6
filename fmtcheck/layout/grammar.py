"""Grammars of real /proc layouts: the model, the `.grammar` file parser, the renderer and the
regex compiler that `check` and `diff` use.

A grammar says, as data, how one /proc file is laid out: literal bytes, fields written the way the
kernel writes them (a printf directive or a seq_file primitive), repeated records, per-CPU columns,
optional lines and kernel-version variants. The language is documented in `grammars/README.md`;
the files ship in the package `fmtcheck.grammars` and are loaded with importlib.resources.

API for the core engine (everything is bytes; nothing is decoded):

    load_grammar(name: str) -> Grammar                      # InputError if unknown or malformed
    grammar_names() -> list[str]
    Grammar.name, .path, .printer, .source, .about          # str
    Grammar.body: list[Node]                                # the layout, in order
    Grammar.lines: list[Line]                               # every Line, depth first, in order
    Grammar.records: list[Records]                          # every repeated-record block
    Grammar.line(name: str) -> Line                         # a Line by its name ("dev", "Rss"...)
    Line.name: str; Line.header: bool; Line.items: list[Item]
    Item = Lit(data: bytes) | Field(name, domain: str, spec: Printf | Prim, ...) | Pad(column, char)
         | Group(items, repeat: "?"|"*"|"+", count: str|None) | Alt(options: list[list[Item]])
    Printf.directive: bytes (e.g. b"%7llu"), Printf.parsed: kernel.vsprintf.Directive
    Prim.kind: "ull"|"ullw"|"ll"|"hex", Prim.delim: bytes, Prim.width: int
    line_fields(line: Line) -> list[Field]                  # every field, depth first
    render_line(line: Line, values: dict[str, int|bytes|list], params: dict|None = None) -> bytes
        # the line as the kernel prints it, trailing b"\n" included; a field inside a repeated
        # group takes a list; missing values take the domain's example
    field_domain(field: Field) -> Domain                    # kind, bits, min, max, signed,
        # charset/min_len/max_len (strings), pattern (regex over bytes), examples, description
    example_values(line: Line) -> dict                      # one valid value per field
    grammars_command(name: str | None, fmt: str) -> int     # `fmtcheck grammars [NAME]`

Rendering goes through `fmtcheck.kernel.vsprintf.format_directive` and `fmtcheck.kernel.seq_file`
so that a grammar line and a C function are rendered by the same model. Matching goes the other way:
each line compiles to a width-exact regular expression over bytes (`compile_items`), so that a
capture conforms exactly when every line matches (seq_pad columns included, by fixed-width
look-behinds); the few constructs a regex cannot express exactly (a padded string of a pattern
domain, unusual printf flag mixes) are compiled loosely and re-checked by rendering the parsed
value. Detection (`detect_grammar`) reads only the `detect`, `filename` and `priority` entries
(`grammar_meta`) and parses the one grammar it picks.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
import sys
from dataclasses import dataclass, field as dc_field
from typing import Any, Iterator, Union

import pyparsing as pp

from fmtcheck.common.errors import InputError

# --------------------------------------------------------------------------------------------------
# Domains


@dataclass(frozen=True)
class Domain:
    """The set of values a field can take, so inputs can be drawn from it and captures checked."""

    kind: str
    description: str
    bits: int = 0  # numeric domains: bit width of the C type
    signed: bool = False
    min: int | None = None
    max: int | None = None
    charset: bytes | None = None  # string domains: one regex character class, e.g. rb"[^\s/:]"
    min_len: int = 0
    max_len: int | None = None
    pattern: bytes | None = None  # string domains that are not a simple charset run
    examples: tuple = ()

    @property
    def numeric(self) -> bool:
        return self.bits > 0

    @property
    def regex(self) -> bytes:
        """A regex matching exactly the values of a string domain, unpadded."""
        if self.pattern is not None:
            return self.pattern
        hi = "" if self.max_len is None else str(self.max_len)
        return self.charset + f"{{{self.min_len},{hi}}}".encode()


def _num(kind: str, bits: int, signed: bool, desc: str, examples: tuple = (0, 1, 4096)) -> Domain:
    lo = -(1 << (bits - 1)) if signed else 0
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    return Domain(kind, desc, bits=bits, signed=signed, min=lo, max=hi, examples=examples)


_WS_CLASS = rb"\x00\t\n\x0b\x0c\r \xa0"  # kernel isspace() (0xa0 is a space in lib/ctype.c) + NUL

BUILTIN_DOMAINS: dict[str, Domain] = {
    "u8": _num("u8", 8, False, "unsigned 8-bit"),
    "u16": _num("u16", 16, False, "unsigned 16-bit"),
    "u32": _num("u32", 32, False, "unsigned 32-bit counter", (0, 7, 4294967295)),
    "u64": _num("u64", 64, False, "unsigned 64-bit counter", (0, 13222, 18446744073709551615)),
    "s32": _num("int", 32, True, "signed int", (0, -1, 2147483647)),
    "int": _num("int", 32, True, "signed int", (0, -1, 2147483647)),
    "s64": _num("s64", 64, True, "signed 64-bit", (0, -1, 9223372036854775807)),
    "kb": _num("u64", 64, False, "a size in kB (u64)", (0, 208, 34359738367)),
    "hex": _num("hex", 64, False, "a 64-bit value printed in hex", (0, 0x1000, 0xFFFFFFFFFFFFFFFF)),
    "addr": _num("addr", 64, False, "a virtual address (hex)", (0x55A9E753C000, 0x7FFCCD2CB000)),
    "devnum": _num("u32", 32, False, "a device major or minor number", (0, 8, 253)),
    "ifname": Domain(
        "ifname", "network interface name: 1..15 bytes, any byte but NUL, '/', ':' and whitespace",
        charset=rb"[^" + _WS_CLASS + rb"/:]", min_len=1, max_len=15,
        examples=(b"lo", b"eth0", b"enp0s31f6", b"wlx0123456789ab"),
    ),
    "word": Domain("name", "an identifier: letters, digits, '_'", charset=rb"[A-Za-z0-9_]",
                   min_len=1, max_len=64, examples=(b"Tcp", b"nr_free_pages")),
    "label": Domain("name", "a label and its colon: letters, digits, '_', '(' and ')', then ':'",
                    pattern=rb"[A-Za-z0-9_()]{1,63}:", examples=(b"MemTotal:", b"Active(anon):")),
    "token": Domain("name", "a run of non-blank bytes", charset=rb"[^" + _WS_CLASS + rb"]",
                    min_len=1, max_len=128, examples=(b"IO-APIC", b"edge", b"sda1")),
    "text": Domain("text", "free text up to the end of the line", pattern=rb"[^\n]*",
                   examples=(b"timer", b"PCIe PME, pciehp")),
    "path": Domain("path", "a path or mapping name (newlines escaped as \\012)", pattern=rb"[^\n]+",
                   examples=(b"/usr/bin/cat", b"[heap]", b"/lib/x (deleted)")),
    "comm": Domain("comm", "a task name, unescaped: up to 64 bytes, any byte but NUL",
                   charset=rb"[^\x00]", min_len=0, max_len=64, examples=(b"systemd", b"my file) x")),
    "taskname": Domain("name", "a task name escaped as in /proc/PID/status (\\n and \\\\)",
                       pattern=rb"(?:[^\n\\]|\\[n\\])*", examples=(b"systemd", b"a\\nb")),
    "char": Domain("char", "one letter", charset=rb"[A-Za-z]", min_len=1, max_len=1,
                   examples=(b"S", b"R")),
    "bit": Domain("char", "the character '0' or '1'", charset=rb"[01]", min_len=1, max_len=1,
                  examples=(b"0", b"1")),
    "blank": Domain("blank", "the empty string (padding only)", charset=rb"[ ]", min_len=0,
                    max_len=0, examples=(b"",)),
    "perms": Domain("perms", "mapping permissions rwxp", pattern=rb"[r-][w-][x-][sp]",
                    examples=(b"r-xp", b"rw-p", b"---p")),
    "state": Domain("state", "a task state string", pattern=rb"[A-Za-z] \([a-z ]+\)",
                    examples=(b"S (sleeping)", b"R (running)")),
    "bitmap": Domain("bitmap", "a %*pb bitmap: hex in 32-bit chunks separated by ','",
                     pattern=rb"[0-9a-f]{1,8}(?:,[0-9a-f]{8})*", examples=(b"3", b"ff,ffffffff")),
    "bitlist": Domain("bitlist", "a %*pbl bit list such as 0-3,8 (decimal, no leading zeros)",
                      pattern=rb"(?:(?:0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*))?(?:,(?:0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*))?)*)?",
                      examples=(b"0-1", b"0")),
    "vmflag": Domain("vmflag", "a two-letter VmFlags mnemonic ('??' for an unnamed bit)",
                     pattern=rb"[a-z0-9?]{2}", examples=(b"rd", b"mr", b"sd")),
}


# --------------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class Printf:
    """A field printed by one printf directive (seq_printf/vsnprintf)."""

    directive: bytes

    @property
    def parsed(self):
        return _parse_directive(self.directive)

    def __str__(self) -> str:
        return self.directive.decode("latin-1")


@dataclass(frozen=True)
class Prim:
    """A field printed by a seq_file number primitive, with its delimiter and width."""

    kind: str  # ull | ullw | ll | hex
    delim: bytes = b""
    width: int = 0

    def __str__(self) -> str:
        args = [f'"{_escape_text(self.delim)}"'] if self.delim else []
        if self.kind in ("ullw", "hex"):
            args.append(str(self.width))
        return f"{self.kind}({', '.join(args)})"


@dataclass(frozen=True)
class Lit:
    data: bytes


@dataclass(frozen=True)
class Field:
    name: str
    domain: str
    spec: Printf | Prim
    star: tuple[str, int] | None = None  # '*' width from a parameter: (param, offset)
    same_as: str | None = None  # value must equal this earlier field's value


@dataclass(frozen=True)
class Pad:
    """seq_setwidth(column) at line start + seq_pad(char): spaces up to the column, then char."""

    column: int
    char: bytes


@dataclass(frozen=True)
class Group:
    items: tuple
    repeat: str  # "?" optional, "*" zero or more, "+" one or more
    count: str | None = None  # a parameter that binds/checks the repetition count


@dataclass(frozen=True)
class Alt:
    options: tuple  # tuple of item tuples, tried in order


Item = Union[Lit, Field, Pad, Group, Alt]


@dataclass(eq=False)
class Line:
    name: str
    items: tuple
    header: bool = False
    uid: int = 0

    def __repr__(self) -> str:
        return f"Line({self.name!r})"


@dataclass(eq=False)
class Records:
    name: str
    body: list
    key: tuple = ()
    uid: int = 0


@dataclass(eq=False)
class Optional:
    body: list
    uid: int = 0


@dataclass(eq=False)
class Choice:
    options: list  # list of bodies
    uid: int = 0


@dataclass(eq=False)
class Variant:
    """A kernel-version or config choice: the first occurrence decides for the whole capture."""

    name: str
    options: list  # list of bodies
    labels: list  # one description per option
    uid: int = 0


Node = Union[Line, Records, Optional, Choice, Variant]


@dataclass(eq=False)
class Grammar:
    name: str
    path: str = ""
    printer: str = ""
    source: str = ""
    about: str = ""
    detect: bytes | None = None
    filename: str | None = None
    priority: int = 50
    params: tuple = ()
    domains: dict = dc_field(default_factory=dict)
    body: list = dc_field(default_factory=list)
    text: str = ""

    @property
    def lines(self) -> list[Line]:
        return [n for n in walk_nodes(self.body) if isinstance(n, Line)]

    @property
    def records(self) -> list[Records]:
        return [n for n in walk_nodes(self.body) if isinstance(n, Records)]

    @property
    def variants(self) -> list[Variant]:
        return [n for n in walk_nodes(self.body) if isinstance(n, Variant)]

    def line(self, name: str) -> Line:
        for line in self.lines:
            if line.name == name:
                return line
        raise KeyError(name)

    def domain(self, name: str) -> Domain:
        if name in self.domains:
            return self.domains[name]
        if name in BUILTIN_DOMAINS:
            return BUILTIN_DOMAINS[name]
        raise KeyError(name)


def walk_nodes(nodes: list) -> Iterator:
    """Every node, depth first, in layout order."""
    for node in nodes:
        yield node
        if isinstance(node, (Records, Optional)):
            yield from walk_nodes(node.body)
        elif isinstance(node, (Choice, Variant)):
            for body in node.options:
                yield from walk_nodes(body)


def walk_items(items) -> Iterator:
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from walk_items(item.items)
        elif isinstance(item, Alt):
            for option in item.options:
                yield from walk_items(option)


def line_fields(line: Line) -> list[Field]:
    return [i for i in walk_items(line.items) if isinstance(i, Field)]


class GrammarError(InputError):
    """A .grammar file that does not parse or does not make sense."""


# --------------------------------------------------------------------------------------------------
# Parsing .grammar files (pyparsing)


def _decode_string(raw: str) -> bytes:
    """A double-quoted grammar string with C escapes (\\t \\n \\\\ \\" \\0 \\xHH) as bytes."""
    body = raw[1:-1]
    out = bytearray()
    i = 0
    simple = {"t": 9, "n": 10, "r": 13, "\\": 92, '"': 34, "0": 0, "v": 11, "f": 12}
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "x":
                out.append(int(body[i + 2 : i + 4], 16))
                i += 4
                continue
            out.append(simple.get(nxt, ord(nxt)))
            i += 2
            continue
        out += ch.encode("latin-1")
        i += 1
    return bytes(out)


def _escape_text(data: bytes) -> str:
    """The inverse of _decode_string, for showing grammar items."""
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x22:
            out.append('\\"')
        elif b == 9:
            out.append("\\t")
        elif b == 10:
            out.append("\\n")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


@functools.lru_cache(maxsize=1)
def _language() -> pp.ParserElement:
    """The pyparsing grammar of .grammar files (see grammars/README.md)."""
    pp.ParserElement.set_default_whitespace_chars(" \t\r\n")
    string = pp.Regex(r'"(?:[^"\\\n]|\\.)*"')
    regex = pp.Regex(r"/(?:[^/\\\n]|\\.)+/")
    ident = pp.Word(pp.alphas + "_", pp.alphanums + "_")
    integer = pp.Regex(r"-?\d+")
    lpar, rpar, lbr, rbr, lcur, rcur = map(pp.Suppress, "()[]{}")
    kw = pp.Keyword

    directive = pp.Regex(r"%[-+ #0]*(\*|\d+)?(\.(\*|\d*))?(hh|h|H|ll|l|L|z|t)?([diuoxXcs%]|p[A-Za-z0-9]*)")
    prim_arg = string | integer
    prim = pp.Group(ident("kind") + lpar + pp.Optional(pp.DelimitedList(prim_arg))("args") + rpar)
    star = pp.Group(pp.Literal("*=").suppress() + pp.Suppress("@") + ident + pp.Optional(pp.Suppress("+") + integer))
    same = pp.Group(pp.Literal("=").suppress() + ident)
    field = pp.Group(
        pp.Suppress("<") + pp.Optional(ident("name")) + pp.Optional(pp.Suppress(":") + ident("domain"))
        + (directive("directive") | prim("prim"))
        + pp.Optional(star("star")) + pp.Optional(same("same")) + pp.Suppress(">")
    )("field")
    pad = pp.Group(kw("pad").suppress() + lpar + integer + pp.Suppress(",") + string + rpar)("pad")
    items = pp.Forward()
    group = pp.Group(lbr + pp.Group(items) + rbr + pp.Optional(pp.one_of("* +"), default="?")
                     + pp.Optional(pp.Suppress("@") + ident, default=""))("group")
    alt = pp.Group(lpar + pp.Group(items) + pp.OneOrMore(pp.Suppress("|") + pp.Group(items)) + rpar)("alt")
    item = pad | field | group | alt | pp.Group(string)("lit")
    items <<= pp.ZeroOrMore(item)

    stmts = pp.Forward()
    block = pp.Group(lcur + stmts + rcur)
    line_name = pp.Optional(pp.Suppress(kw("as")) + ident, default="")
    line = pp.Group(kw("line") + line_name + pp.Group(items))
    header = pp.Group(kw("header") + line_name + pp.Group(items))
    key = pp.Optional(kw("key").suppress() + pp.Suppress("=") + pp.Group(pp.DelimitedList(ident)), default=[])
    records = pp.Group(kw("records") + ident + key + block)
    optional = pp.Group(kw("optional") + block)
    choice = pp.Group(kw("choice") + block + pp.OneOrMore(kw("or").suppress() + block))
    label = pp.Optional(string, default='""')
    variant = pp.Group(kw("variant") + ident + pp.Group(label + block)
                       + pp.OneOrMore(kw("or").suppress() + pp.Group(label + block)))
    config = pp.Group(kw("config") + ident + label + block)
    stmt = line | header | records | optional | choice | variant | config
    stmts <<= pp.ZeroOrMore(stmt)

    meta_str = pp.Group(pp.one_of("name path printer source about", as_keyword=True) + (string | ident))
    meta_detect = pp.Group((kw("detect") | kw("filename")) + regex)
    meta_prio = pp.Group(kw("priority") + integer)
    reserved = pp.MatchFirst([kw(w) for w in "line header records optional choice variant config domain param".split()])
    meta_param = pp.Group(kw("param") + pp.OneOrMore(~reserved + ident))
    meta_domain = pp.Group(kw("domain") + ident + (kw("charset") + regex + integer + integer | regex) + string)
    meta = meta_str | meta_detect | meta_prio | meta_param | meta_domain
    language = pp.Group(pp.ZeroOrMore(meta)) + pp.Group(stmts) + pp.StringEnd()
    language.ignore(pp.Regex(r"#[^\n]*"))
    return language


class _Builder:
    """Turns the pyparsing tree into model objects, naming lines and checking references."""

    def __init__(self, grammar: Grammar) -> None:
        self.g = grammar
        self.uid = 0
        self.auto = 0

    def next_uid(self) -> int:
        self.uid += 1
        return self.uid

    def meta(self, entries) -> None:
        for entry in entries:
            key = entry[0]
            if key == "detect":
                self.g.detect = _regex_literal(entry[1])
            elif key == "filename":
                self.g.filename = _regex_literal(entry[1]).decode("latin-1")
            elif key == "priority":
                self.g.priority = int(entry[1])
            elif key == "param":
                self.g.params = tuple(entry[1:])
            elif key == "domain":
                self.g.domains[entry[1]] = self.custom_domain(entry)
            else:
                value = entry[1]
                text = _decode_string(value).decode("utf-8") if value.startswith('"') else value
                setattr(self.g, key, text)

    def custom_domain(self, entry) -> Domain:
        name = entry[1]
        desc = _decode_string(entry[-1]).decode("utf-8")
        if entry[2] == "charset":
            return Domain(name, desc, charset=_regex_literal(entry[3]), min_len=int(entry[4]),
                          max_len=int(entry[5]) or None, examples=())
        return Domain(name, desc, pattern=_regex_literal(entry[2]))

    def stmts(self, tree) -> list:
        return [self.stmt(s) for s in tree]

    def stmt(self, s):
        kind = s[0]
        if kind in ("line", "header"):
            items = self.items(s[2])
            name = s[1] or self.line_name(items)
            return Line(name, items, header=kind == "header", uid=self.next_uid())
        if kind == "records":
            return Records(s[1], self.stmts(s[3]), tuple(s[2]), uid=self.next_uid())
        if kind == "optional":
            return Optional(self.stmts(s[1]), uid=self.next_uid())
        if kind == "choice":
            return Choice([self.stmts(b) for b in s[1:]], uid=self.next_uid())
        if kind == "variant":
            labels = [_decode_string(o[0]).decode() for o in s[2:]]
            return Variant(s[1], [self.stmts(o[1]) for o in s[2:]], labels, uid=self.next_uid())
        if kind == "config":
            label = _decode_string(s[2]).decode()
            return Variant(s[1], [self.stmts(s[3]), []], [label or "present", "absent"], uid=self.next_uid())
        raise GrammarError(self.g.name, f"unknown statement {kind!r}")

    def line_name(self, items) -> str:
        """A line is named after its first field, or its first literal word (header lines)."""
        for item in walk_items(items):
            if isinstance(item, Field) and not item.name.startswith("_"):
                return item.name
            if isinstance(item, Lit):
                word = re.match(rb"\s*([A-Za-z0-9_()]+)", item.data)
                if word:
                    return word.group(1).decode()
        self.auto += 1
        return f"line{self.auto}"

    def items(self, tree) -> tuple:
        return tuple(self.item(t) for t in tree)

    def item(self, t):
        kind = t.get_name()
        if kind == "lit":
            return Lit(_decode_string(t[0]))
        if kind == "pad":
            return Pad(int(t[0]), _decode_string(t[1]))
        if kind == "group":
            return Group(self.items(t[0]), t[1], t[2] or None)
        if kind == "alt":
            return Alt(tuple(self.items(o) for o in t))
        return self.field(t)

    def field(self, t) -> Field:
        name = t.get("name") or ""
        if not name:
            self.auto += 1
            name = f"_{self.auto}"
        if t.get("directive"):
            spec: Printf | Prim = Printf(t["directive"].encode("latin-1"))
            spec.parsed  # validate now, not at first use
        else:
            spec = self.prim(t["prim"])
        domain = t.get("domain") or _default_domain(spec)
        try:
            self.g.domain(domain)
        except KeyError:
            raise GrammarError(self.g.name, f"field {name}: unknown domain {domain!r}") from None
        star = None
        if t.get("star"):
            s = t["star"]
            star = (s[0], int(s[1]) if len(s) > 1 else 0)
        same = t["same"][0] if t.get("same") else None
        return Field(name, domain, spec, star, same)

    def prim(self, t) -> Prim:
        kind = t["kind"]
        args = list(t.get("args") or [])
        delim = _decode_string(args.pop(0)) if args and args[0].startswith('"') else b""
        width = int(args.pop(0)) if args else 0
        if kind not in ("ull", "ullw", "ll", "hex") or args:
            raise GrammarError(self.g.name, f"bad seq_file primitive {kind}(...)")
        return Prim(kind, delim, width)


def _regex_literal(text: str) -> bytes:
    return text[1:-1].replace("\\/", "/").encode("latin-1")


def _default_domain(spec: Printf | Prim) -> str:
    """The domain a field has when the grammar does not name one: its C type."""
    if isinstance(spec, Prim):
        return {"ull": "u64", "ullw": "u64", "ll": "s64", "hex": "hex"}[spec.kind]
    d = spec.parsed
    if d.conversion == "s":
        return "text"
    if d.conversion == "c":
        return "char"
    if d.conversion == "p":
        return "text"
    if d.conversion in "xXo":
        return "hex" if d.bits == 64 else "u32"
    signed = d.conversion in "di"
    return {(64, True): "s64", (64, False): "u64", (32, True): "int"}.get((d.bits, signed), "u32" if not signed else "int")


@functools.lru_cache(maxsize=512)
def _parse_directive(directive: bytes):
    from fmtcheck.kernel.vsprintf import Directive, parse_format

    parsed = [p for p in parse_format(directive) if not isinstance(p, bytes)]
    if len(parsed) != 1 or not isinstance(parsed[0], Directive):
        raise GrammarError("grammar", f"not one valid printf directive: {directive!r}")
    return parsed[0]


def parse_grammar(text: str, name: str = "grammar") -> Grammar:
    """Parse the text of a .grammar file into a Grammar (GrammarError on a malformed file)."""
    try:
        meta, body = _language().parse_string(text, parse_all=True)
    except pp.ParseBaseException as err:
        raise GrammarError(f"{name}.grammar:{err.lineno}:{err.col}", f"syntax error: {err.msg}") from None
    grammar = Grammar(name=name, text=text)
    builder = _Builder(grammar)
    builder.meta(meta)
    grammar.name = grammar.name or name
    grammar.body = builder.stmts(body)
    _check_grammar(grammar)
    return grammar


def _check_grammar(g: Grammar) -> None:
    """Reject constructs the matcher cannot handle, with a message that says where."""
    for line in g.lines:
        for item in walk_items(line.items):
            if isinstance(item, Group) and item.repeat != "?":
                if any(isinstance(i, Pad) for i in walk_items(item.items)):
                    raise GrammarError(g.name, f"line {line.name}: pad() inside a repeated group")


# --------------------------------------------------------------------------------------------------
# Loading


def _grammar_root():
    """The directory of the grammar files: the package `fmtcheck.grammars` once installed, or the
    `grammars/` directory beside the package when running from a source tree without install."""
    try:
        return importlib.resources.files("fmtcheck.grammars")
    except ModuleNotFoundError:
        from pathlib import Path

        return Path(__file__).resolve().parent.parent / "grammars"


def grammar_names() -> list[str]:
    """The names of the grammars shipped in the package."""
    root = _grammar_root()
    return sorted(p.name[: -len(".grammar")] for p in root.iterdir() if p.name.endswith(".grammar"))


@functools.lru_cache(maxsize=64)
def load_grammar(name: str) -> Grammar:
    """The grammar NAME from the package (InputError if there is none)."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", name or ""):
        raise InputError("--grammar", f"unknown grammar {name!r}")
    if name not in grammar_names():  # never a path built from a name that is no grammar's
        known = ", ".join(grammar_names())
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise InputError("--grammar", f"unknown grammar {shown!r} (known: {known})")
    resource = _grammar_root().joinpath(f"{name}.grammar")
    return parse_grammar(resource.read_text(encoding="utf-8"), name)


def all_grammars() -> list[Grammar]:
    return [load_grammar(n) for n in grammar_names()]


@dataclass(frozen=True)
class GrammarMeta:
    """What grammar detection needs, read without parsing the whole file."""

    name: str
    detect: bytes | None
    filename: str | None
    priority: int


_META_LINE = re.compile(
    r"^[ \t]*(detect|filename|priority)[ \t]+(/(?:[^/\\\n]|\\.)+/|-?[0-9]+)[ \t]*(?:#[^\n]*)?$", re.M)


@functools.lru_cache(maxsize=64)
def grammar_meta(name: str) -> GrammarMeta:
    """The `detect`, `filename` and `priority` entries of grammar NAME, scanned line by line (a
    line that starts with one of these keywords can only be that entry), so that detection does
    not parse every grammar; anything unusual falls back to a full parse."""
    text = _grammar_root().joinpath(f"{name}.grammar").read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for m in _META_LINE.finditer(text):
        if m.group(1) in found:
            break
        found[m.group(1)] = m.group(2)
    else:
        try:
            detect = _regex_literal(found["detect"]) if "detect" in found else None
            fname = _regex_literal(found["filename"]).decode("latin-1") if "filename" in found else None
            return GrammarMeta(name, detect, fname, int(found.get("priority", 50)))
        except ValueError:
            pass
    g = load_grammar(name)
    return GrammarMeta(name, g.detect, g.filename, g.priority)


def detect_grammar(head: bytes, filename: str = "") -> Grammar | None:
    """The grammar whose `detect` regex matches the start of a capture, preferring one whose
    `filename` hint matches the file name when several do. Only the chosen grammar is parsed."""
    found = [g for g in map(grammar_meta, grammar_names()) if g.detect is not None and re.match(g.detect, head)]
    if not found:
        return None
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    hinted = [g for g in found if g.filename and re.search(g.filename, base)]
    return load_grammar(sorted(hinted or found, key=lambda g: g.priority)[0].name)


# --------------------------------------------------------------------------------------------------
# Domains of fields and example values


@functools.lru_cache(maxsize=4096)
def field_domain(field: Field, grammar: Grammar | None = None) -> Domain:
    """The domain of a field, narrowed to what its C type can hold (a %u field is at most 32-bit)."""
    dom = grammar.domain(field.domain) if grammar else BUILTIN_DOMAINS.get(field.domain)
    if dom is None:
        dom = _find_custom_domain(field.domain)
    if not dom.numeric:
        return dom
    bits, signed = _spec_bits(field.spec)
    lo = max(dom.min, -(1 << (bits - 1)) if signed else 0)
    hi = min(dom.max, (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    if isinstance(field.spec, Prim) and field.spec.kind == "ll":
        lo = max(lo, -(1 << 63) + 1)  # seq_put_decimal_ll prints LLONG_MIN as "-0" (§e.4)
    if lo == dom.min and hi == dom.max:
        return dom
    examples = tuple(v for v in dom.examples if lo <= v <= hi) or (lo, hi)
    return Domain(dom.kind, dom.description, bits=min(bits, dom.bits), signed=dom.signed and signed,
                  min=lo, max=hi, examples=examples)


def _find_custom_domain(name: str) -> Domain:
    for g in all_grammars():
        if name in g.domains:
            return g.domains[name]
    raise KeyError(name)


def _spec_bits(spec: Printf | Prim) -> tuple[int, bool]:
    if isinstance(spec, Prim):
        return 64, spec.kind == "ll"
    d = spec.parsed
    if d.conversion in "diuoxX":
        return d.bits, d.conversion in "di"
    return 64, False


def example_value(field: Field, grammar: Grammar | None = None):
    dom = field_domain(field, grammar)
    if dom.examples:
        return dom.examples[0] if not dom.numeric else dom.examples[min(1, len(dom.examples) - 1)]
    return 0 if dom.numeric else b"x"


def example_values(line: Line, grammar: Grammar | None = None) -> dict:
    """One valid value per field (a list of two for fields inside repeated groups)."""
    values: dict[str, Any] = {}
    _example_items(line.items, values, grammar, repeated=False)
    return values


def _example_items(items, values: dict, grammar, repeated: bool) -> None:
    for item in items:
        if isinstance(item, Field) and item.same_as is None:
            v = example_value(item, grammar)
            values[item.name] = [v, v] if repeated else v
        elif isinstance(item, Group):
            _example_items(item.items, values, grammar, repeated or item.repeat != "?")
        elif isinstance(item, Alt):
            _example_items(item.options[0], values, grammar, repeated)


# --------------------------------------------------------------------------------------------------
# Rendering (through the kernel models)


@dataclass
class Span:
    start: int
    end: int
    field: str | None  # None for literal bytes


def render_line(line: Line, values: dict, params: dict | None = None, grammar: Grammar | None = None) -> bytes:
    """The bytes the kernel prints for LINE with these values, its newline included."""
    return render_line_spans(line, values, params, grammar)[0]


def render_line_spans(line: Line, values: dict, params: dict | None = None,
                      grammar: Grammar | None = None) -> tuple[bytes, list[Span]]:
    """render_line plus, for each rendered item, where it landed (for reporting a field by column)."""
    out = bytearray()
    spans: list[Span] = []
    ctx = _RenderCtx(values, dict(params or {}), grammar)
    _render_items(line.items, ctx, out, spans, index=None)
    out += b"\n"
    return bytes(out), spans


@dataclass
class _RenderCtx:
    values: dict
    params: dict
    grammar: Grammar | None


def _value_at(ctx: _RenderCtx, f: Field, index: tuple | None):
    if f.same_as is not None:
        v = ctx.values.get(f.same_as, ctx.params.get(f.same_as))
    else:
        v = ctx.values.get(f.name)
    for i in index or ():
        if isinstance(v, list):
            v = v[i] if i < len(v) else None
    if v is None or isinstance(v, list):
        v = example_value(f, ctx.grammar)
    return v


def _render_items(items, ctx: _RenderCtx, out: bytearray, spans: list, index: tuple | None) -> None:
    for item in items:
        start = len(out)
        if isinstance(item, Lit):
            out += item.data
            spans.append(Span(start, len(out), None))
        elif isinstance(item, Field):
            out += render_field(item, _value_at(ctx, item, index), ctx.params)
            spans.append(Span(start, len(out), _indexed(item.name, index)))
        elif isinstance(item, Pad):
            col = len(out) - (out.rfind(b"\n") + 1)
            out += b" " * max(0, item.column - col) + item.char
            spans.append(Span(start, len(out), None))
        elif isinstance(item, Group):
            for i in range(_group_count(item, ctx, index)):
                sub = (index or ()) + (i,) if item.repeat != "?" else index
                _render_items(item.items, ctx, out, spans, sub)
        elif isinstance(item, Alt):
            _render_items(_pick_alt(item, ctx), ctx, out, spans, index)


def _indexed(name: str, index: tuple | None) -> str:
    return name + "".join(f"[{i}]" for i in index or ())


def _group_count(group: Group, ctx: _RenderCtx, index: tuple | None) -> int:
    """How many times a group renders: its bound count, else the length of its fields' lists."""
    fields = [f for f in walk_items(group.items) if isinstance(f, Field) and f.same_as is None]
    if group.repeat == "?":
        return int(bool(fields) and all(ctx.values.get(f.name) is not None for f in fields))
    if group.count and group.count in ctx.params:
        return int(ctx.params[group.count])
    for f in fields:
        v = ctx.values.get(f.name)
        for i in index or ():
            v = v[i] if isinstance(v, list) and i < len(v) else None
        if isinstance(v, list):
            return len(v)
    return 1 if group.repeat == "+" else 0


def _pick_alt(alt: Alt, ctx: _RenderCtx):
    """The first option whose fields all have values (the first option by default)."""
    for option in alt.options:
        fields = [f for f in walk_items(option) if isinstance(f, Field) and f.same_as is None]
        if fields and all(f.name in ctx.values for f in fields):
            return option
    return alt.options[0]


def render_field(f: Field, value, params: dict | None = None) -> bytes:
    """One field as the kernel prints it: a printf directive or a seq_file primitive."""
    from fmtcheck.kernel.seq_file import SeqFile
    from fmtcheck.kernel.vsprintf import format_directive

    spec = f.spec
    if isinstance(spec, Prim):
        m = SeqFile()
        value = int(value)
        if spec.kind in ("ull", "ullw"):
            m.seq_put_decimal_ull_width(spec.delim, value, spec.width if spec.kind == "ullw" else 0)
        elif spec.kind == "ll":
            m.seq_put_decimal_ll(spec.delim, value)
        else:
            m.seq_put_hex_ll(spec.delim, value, spec.width)
        return bytes(m.buf)
    d = spec.parsed
    width = None
    if d.width_star:
        param, offset = f.star or ("", 0)
        width = int((params or {}).get(param, 0)) + offset
    if d.conversion == "p":
        return bytes(value)  # %*pb, %*pbl...: the field's value is its rendered text
    if d.conversion == "c" and isinstance(value, (bytes, bytearray)):
        value = value[0] if value else 0
    if d.conversion == "s" and isinstance(value, str):
        value = value.encode("latin-1")
    return format_directive(d, value, width, None)


# --------------------------------------------------------------------------------------------------
# Regex compilation: exact (to accept) and loose (to explain)

_DIGITS = {8: "01234567", 10: "0123456789", 16: "0123456789abcdef"}


def _to_base(n: int, base: int, upper: bool = False) -> str:
    if n == 0:
        return "0"
    digits = _DIGITS[base].upper() if upper else _DIGITS[base]
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(digits[r])
    return "".join(reversed(out))


def _cls(lo: int, hi: int, base: int, upper: bool) -> str:
    """A character class for digit values lo..hi, written with ranges ([0-9a-f])."""
    digits = _DIGITS[base].upper() if upper else _DIGITS[base]
    chars = digits[lo : hi + 1]
    if len(chars) == 1:
        return re.escape(chars)
    runs: list[str] = []
    start = prev = chars[0]
    for ch in chars[1:] + "\0":
        if ord(ch) == ord(prev) + 1:
            prev = ch
            continue
        runs.append(start if start == prev else f"{start}-{prev}" if ord(prev) > ord(start) + 1 else start + prev)
        start = prev = ch
    return "[" + "".join(runs) + "]"


def _le_regex(s: str, base: int, upper: bool) -> str:
    """Digit strings of exactly len(s) digits, no leading zero, whose value is <= s."""
    digits = _DIGITS[base].upper() if upper else _DIGITS[base]
    n = len(s)
    alts = []
    for i in range(n):
        d = digits.index(s[i])
        lo = 1 if i == 0 else 0
        if d > lo:
            rest = f"{_cls(0, base - 1, base, upper)}{{{n - i - 1}}}" if n - i - 1 else ""
            alts.append(re.escape(s[:i]) + _cls(lo, d - 1, base, upper) + rest)
        elif d == lo and i == 0 and n > 1:
            continue
    alts.append(re.escape(s))
    return "(?:" + "|".join(alts) + ")"


def _digit_runs(lo: int, hi: int, base: int, upper: bool) -> list[tuple[int, int, str]]:
    """Canonical digit strings (no leading zero) for values lo..hi (lo >= 0), as a list of
    (min_len, max_len, regex): one entry for the single digits, one for every length between,
    and one for the longest length, capped at HI."""
    if hi < lo:
        return []
    s = _to_base(hi, base, upper)
    n = len(s)
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    out = []
    if lo < base:
        out.append((1, 1, _cls(lo, min(hi, base - 1), base, upper)))
    first = max(2, len(_to_base(lo, base, upper)))
    if first <= n - 1:
        out.append((first, n - 1, f"{nz}{any_}{{{first - 1},{n - 2}}}" if n - 1 > first else f"{nz}{any_}{{{first - 1}}}"))
    if n >= 2:
        out.append((n, n, _le_regex(s, base, upper)))
    return out


@functools.lru_cache(maxsize=2048)
def number_regex(base: int, upper: bool, lo: int, hi: int, width: int, mode: str) -> str:
    """An exact regex (str) for every rendering of lo..hi in base, padded to WIDTH columns.

    mode: "right" (spaces before, the default of printf and seq_put_decimal_ull_width),
    "left" (spaces after, the '-' flag), "zero" (zeros after the sign, the '0' flag and
    seq_put_hex_ll). A value wider than WIDTH prints in full, never cut. The regex ends with a
    look-ahead that refuses another digit, so it can sit inside an atomic group.
    """
    runs = [("", r) for r in _digit_runs(max(lo, 0), hi, base, upper)]
    if lo < 0:
        runs += [("-", r) for r in _digit_runs(1, -lo, base, upper)]
    any_ = _cls(0, base - 1, base, upper)
    padded, wide = [], []
    for sign, (a, b, rx) in runs:
        for length in range(a, b + 1):
            total = length + len(sign)
            if total >= width:
                break
            body = re.escape(sign) + _exact_len(rx, a, b, length, base, upper)
            pad = width - total
            padded.append((pad, body))
        if b + len(sign) >= width:
            a2 = max(a, width - len(sign))
            body = re.escape(sign) + (rx if a2 == a else _exact_range(rx, a2, b, a, base, upper))
            wide.append(body)
    alts = []
    for pad, body in sorted(padded, key=lambda pb: -pb[0]):
        if mode == "right":
            alts.append(_spaces(pad) + body)
        elif mode == "left":
            alts.append(body + _spaces(pad))
        else:
            alts.append(body[:2] + f"0{{{pad}}}" + body[2:] if body.startswith("\\-") else f"0{{{pad}}}" + body)
    alts.extend(wide)
    return "(?:" + "|".join(alts) + f")(?!{any_})"


def _exact_len(rx: str, a: int, b: int, length: int, base: int, upper: bool) -> str:
    """The strings of one run that have exactly LENGTH digits."""
    if a == b:
        return rx
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    return f"{nz}{any_}{{{length - 1}}}"


def _exact_range(rx: str, a2: int, b: int, a: int, base: int, upper: bool) -> str:
    nz, any_ = _cls(1, base - 1, base, upper), _cls(0, base - 1, base, upper)
    return f"{nz}{any_}{{{a2 - 1},{b - 1}}}" if b > a2 else f"{nz}{any_}{{{a2 - 1}}}"


def _spaces(n: int) -> str:
    return "" if n <= 0 else " " if n == 1 else f" {{{n}}}"


def _merge_runs(alts: list[str]) -> list[str]:
    """Spaces are written as one ` {n}` so the engine compares them in one step."""
    out = []
    for a in alts:
        stripped = a.lstrip(" ")
        n = len(a) - len(stripped)
        if n > 1:
            a = f" {{{n}}}" + stripped
        elif n == 1:
            a = " " + stripped
        tail = a.rstrip(" ")
        n = len(a) - len(tail)
        if n > 1 and not tail.endswith("\\"):
            a = tail + f" {{{n}}}"
        out.append(a)
    return out


def string_regex(dom: Domain, width: int, left: bool, precision: int | None) -> str | None:
    """An exact regex for a %s of a charset domain padded to WIDTH, or None when the domain is not a
    plain charset run and padding is needed (the caller then verifies by rendering)."""
    max_len = dom.max_len
    if precision is not None:
        max_len = precision if max_len is None else min(max_len, precision)
    if dom.charset is None:
        if width <= 0 and precision is None:
            return "(?:" + dom.pattern.decode("latin-1") + ")"
        return None
    cs = dom.charset.decode("latin-1")
    alts = []
    for length in range(dom.min_len, width):
        if max_len is not None and length > max_len:
            break
        body = f"{cs}{{{length}}}" if length else ""
        pad = " " * (width - length)
        alts.append(body + pad if left else pad + body)
    lo = max(width, dom.min_len)
    if max_len is None or lo <= max_len:
        hi = "" if max_len is None else str(max_len)
        alts.append(f"{cs}{{{lo},{hi}}}")
    if not alts:
        return None
    return "(?:" + "|".join(_merge_runs(alts)) + ")"


# -- compiled lines ------------------------------------------------------------------------------


class Unbound(Exception):
    """A line refers to a parameter that has no value yet and cannot be bound by this line."""


@dataclass
class Check:
    """A constraint the regex could not express, checked on the match: a pad column, a field to
    re-render, a count to bind or compare, a field value to bind."""

    kind: str  # pad | verify | count | bindstar | bind
    group: str
    item: Any
    extra: Any = None


@dataclass
class Compiled:
    pattern: str
    checks: list
    groups: dict  # field name -> group name (top-level, non-repeated fields)

    @functools.cached_property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern.encode("latin-1"), re.S)


class _Compiler:
    """Builds the exact regex of item sequences under the current parameter bindings."""

    def __init__(self, grammar: Grammar, params: dict, prefix: str = "g", capture: bool = True,
                 keep: frozenset | set | None = None) -> None:
        self.g = grammar
        self.keep = keep  # None: a named group for every field; else only for these (and checks)
        self.params = params
        self.prefix = prefix
        self.n = 0
        self.checks: list[Check] = []
        self.groups: dict[str, str] = {}
        self.capture = capture
        self.bind_names = binding_names(grammar)

    def gname(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n}"

    def items(self, items, follow: bytes | None) -> str:
        parts = []
        for i, item in enumerate(items):
            nxt = _first_byte(items[i + 1 :], follow)
            parts.append(self.item(item, nxt))
        return "".join(parts)

    def item(self, item, follow: bytes | None) -> str:
        if isinstance(item, Lit):
            return _rx_lit(item.data)
        if isinstance(item, Field):
            return self.field(item, follow)
        if isinstance(item, Pad):
            if not self.capture:
                raise Unbound("pad in a repeated group")
            return pad_regex(item.column, item.char)
        if isinstance(item, Group):
            return self.group(item, follow)
        options = [self.items(o, follow) for o in item.options]
        return "(?:" + "|".join(options) + ")"

    def group(self, group: Group, follow: bytes | None) -> str:
        if group.repeat == "?":
            return "(?:" + self.items(group.items, follow) + ")?"
        inner = _Compiler(self.g, self.params, self.prefix + "r", capture=False)
        body = inner.items(group.items, _repeat_follow(group.items, follow))
        count = self.params.get(group.count) if group.count else None
        # Possessive when what follows the group (a fixed byte, not a letter or digit) cannot start
        # another repetition: giving repetitions back could not help then, and a possessive repeat
        # keeps no backtracking state per repetition (a 10 MB line of counters stays small).
        again = _first_byte(group.items, None)
        possessive = "+" if again is not None and follow is not None and not follow.isalnum() and follow != again else ""
        if count is not None:
            rx = f"(?:{body}){{{int(count)}}}{possessive}"
        else:
            rx = f"(?:{body})" + ("*" if group.repeat == "*" else "+") + possessive
        if (group.count and count is None) or inner.checks:
            if not self.capture:
                raise Unbound(f"count {group.count} inside a repeated group")
            g = self.gname()
            self.checks.append(Check("count", g, group, body))
            return f"(?P<{g}>{rx})"
        return rx

    def field(self, f: Field, follow: bytes | None) -> str:
        if f.same_as is not None:
            if f.same_as in self.params:
                return _rx_lit(_as_bytes(self.params[f.same_as]))
            if f.same_as in self.groups:
                return f"(?P={self.groups[f.same_as]})"
            raise Unbound(f"{f.name} refers to {f.same_as}")
        rx, verify = self.field_regex(f, follow)
        if rx is None:
            raise Unbound(f"{f.name}: width parameter {f.star[0]} unbound")
        if not self.capture and verify:
            raise Unbound(f"{f.name} needs a check inside a repeated group")
        if not self.capture:
            return rx
        if (self.keep is not None and f.name not in self.keep and not verify
                and f.star is None and f.name not in self.bind_names):
            return rx  # a field nobody reads back: no group, which matches faster
        g = self.gname()
        self.groups[f.name] = g
        if verify:
            self.checks.append(Check("verify", g, f))
        if f.star is not None and f.star[0] not in self.params:
            self.checks.append(Check("bindstar", g, f))
        if f.name in self.bind_names:
            self.checks.append(Check("bind", g, f))
        return f"(?P<{g}>{rx})"

    def field_regex(self, f: Field, follow: bytes | None) -> tuple[str | None, bool]:
        """(regex, needs_verify) for one field under the current bindings."""
        dom = field_domain(f, self.g)
        spec = f.spec
        if isinstance(spec, Prim):
            mode = "zero" if spec.kind == "hex" else "right"
            base = 16 if spec.kind == "hex" else 10
            width = max(spec.width, 1) if spec.kind in ("ullw", "hex") else 1
            rx = number_regex(base, False, dom.min, dom.max, width, mode)
            return _rx_lit(spec.delim) + _atomic(rx, follow, _DIGITS[base], not self.capture), False
        d = spec.parsed
        if d.conversion == "p":  # %*pb, %*pbl: the '*' is a bit count, the text is the domain
            return "(?:" + dom.regex.decode("latin-1") + ")", False
        width = d.width if d.width is not None else 0
        if d.width_star:
            if f.star is None:
                raise GrammarError(self.g.name, f"field {f.name}: '*' width needs *=@param")
            if f.star[0] not in self.params:
                if d.conversion == "s" and dom.max_len == 0:
                    return " *", False
                return None, False
            width = int(self.params[f.star[0]]) + f.star[1]
        left = bool(d.flags & 2)
        if d.conversion in "diuoxX":
            return self.integer_regex(d, dom, width, left, follow)
        if d.conversion == "p":
            return "(?:" + dom.regex.decode("latin-1") + ")", False
        if d.conversion == "%":
            return "%", False
        rx = string_regex(dom, width, left, d.precision)
        if rx is None:
            return _loose_string(dom, left), True
        cs = dom.charset
        atomic = cs is not None and follow is not None and not re.fullmatch(cs, follow)
        return (f"(?>{rx})" if atomic else rx), False

    def integer_regex(self, d, dom: Domain, width: int, left: bool, follow) -> tuple[str, bool]:
        flags = d.flags
        base = d.base
        upper = d.conversion == "X"
        simple = d.precision is None and not flags & (4 | 8)  # no precision, PLUS, SPACE
        if simple and flags & 64:  # SPECIAL: only "%#x" with no width is common ("0x" + digits)
            if base == 16 and width <= 2 and dom.min >= 0:
                prefix = "0X" if upper else "0x"
                rx = number_regex(16, upper, 0, dom.max, 1, "right")
                return prefix + _atomic(rx, follow, _DIGITS[16], not self.capture), False
            simple = False
        if not simple:
            return _loose_number(left), True
        mode = "left" if left else ("zero" if flags & 16 else "right")
        rx = number_regex(base, upper, dom.min, dom.max, max(width, 1), mode)
        return _atomic(rx, follow, _DIGITS[base] + ("ABCDEF" if upper else ""), not self.capture), False


def pad_regex(column: int, char: bytes = b"") -> str:
    """seq_pad to COLUMN then CHAR, as an exact regex: no spaces when the line is already at COLUMN
    or beyond, else exactly as many as end at COLUMN. The column is checked by fixed-width
    look-behinds, so the regex holds wherever the line starts in the buffer (after a newline, or at
    the very start of the buffer, which the matcher always keeps at a line start). When CHAR is a
    space, what follows does not start with one: the run of spaces is the padding (as a greedy
    match of the run would read it), not the start of the next field."""
    rx = ""
    if column > 0:
        rx = (f"(?:(?<=[^\\n]{{{column}}})| +(?:(?<=\\n[^\\n]{{{column}}})|(?<=\\A[^\\n]{{{column}}})))")
    rx += _rx_lit(char)
    if char[-1:] == b" ":
        rx += "(?! )"
    return rx


def _atomic(rx: str, follow: bytes | None, digits: str, repeated: bool = False) -> str:
    """A number regex, with or without its trailing no-more-digits look-ahead.

    When what follows is a fixed byte that cannot continue the number, that byte already refuses a
    longer number, and the alternatives of a number regex never match the same text two ways, so
    the look-ahead (and an atomic group) would only cost time: it is dropped, which makes the
    compiled records about twice as fast to match. Inside a REPEATED group it is kept: a
    repetition may be possessive (see _Compiler.group), and each repetition must then end where
    its number ends on the first try. When nothing fixes what follows, a digit may follow."""
    if repeated and follow is not None and chr(follow[0]) not in digits:
        return rx
    return rx[: rx.rindex("(?!")]


def _loose_number(left: bool) -> str:
    return r" *[-+ ]?(?:0[xX])?[0-9a-fA-F]+" + (" *" if left else "")


def _loose_string(dom: Domain, left: bool) -> str:
    core = dom.regex.decode("latin-1")
    return f" *(?:{core})" + (" *" if left else "")


def _rx_lit(data: bytes) -> str:
    return re.escape(data.decode("latin-1"))


def _repeat_follow(items, follow: bytes | None) -> bytes | None:
    """What follows the last item of a repeated group: its own first byte again, or what follows
    the group. Only a byte that is the same kind (not a letter or digit) in both cases will do."""
    again = _first_byte(items, None)
    if again is None or follow is None or again.isalnum() or follow.isalnum():
        return None
    return again


def _first_byte(items, follow: bytes | None) -> bytes | None:
    """The byte that must come right after an item, when a literal fixes it."""
    for item in items:
        if isinstance(item, Lit):
            if item.data:
                return item.data[:1]
            continue
        if isinstance(item, Field) and isinstance(item.spec, Prim) and item.spec.delim:
            return item.spec.delim[:1]
        return None
    return follow


def _as_bytes(value) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode()


@functools.lru_cache(maxsize=None)
def binding_names(grammar: Grammar) -> frozenset:
    """Fields other fields refer to with `=name`: their values are bound when matched."""
    names = set()
    for line in grammar.lines:
        for f in line_fields(line):
            if f.same_as:
                names.add(f.same_as)
    return frozenset(names)


def compile_items(grammar: Grammar, items, params: dict, prefix: str = "g") -> Compiled:
    """The exact regex of a line's items (newline included) under PARAMS. Raises Unbound."""
    comp = _Compiler(grammar, params, prefix)
    pattern = comp.items(items, b"\n") + r"\n"
    return Compiled(pattern, comp.checks, comp.groups)


# -- checks on a match ---------------------------------------------------------------------------


def run_checks(grammar: Grammar, compiled: Compiled, m: re.Match, buf: bytes, params: dict,
               bind: bool) -> str | None:
    """Apply the checks the regex could not express. Returns the failing field name, or None.
    With BIND, parameters and referenced values found on this match are stored in PARAMS."""
    for check in compiled.checks:
        start = m.start(check.group)
        if start < 0:
            continue
        text = m.group(check.group)
        if check.kind == "pad":
            col = start - (buf.rfind(b"\n", 0, start) + 1)
            if len(text) != max(0, check.item.column - col):
                return "pad"
        elif check.kind == "verify":
            if not _verify_field(grammar, check.item, text, params):
                return check.item.name
        elif check.kind == "count":
            failed = _check_count(grammar, check, text, params, bind)
            if failed:
                return failed
        elif check.kind == "bindstar" and bind:
            param, offset = check.item.star
            params[param] = len(text) - offset
        elif check.kind == "bind" and bind:
            params[check.item.name] = text
    return None


def _check_count(grammar: Grammar, check: Check, text: bytes, params: dict, bind: bool) -> str | None:
    group: Group = check.item
    # each repetition must be followed by another one or by the end of the group's text: the
    # repeated body need not be self-delimiting (a number may stop early, see _atomic)
    rx = _compiled_rx(f"(?:{check.extra})(?=(?:{check.extra})|\\Z)")
    pos = n = 0
    while pos < len(text):
        m = rx.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        n += 1
    if group.count:
        if group.count in params and int(params[group.count]) != n:
            return group.count
        if bind:
            params[group.count] = n
    return None


@functools.lru_cache(maxsize=256)
def _compiled_rx(pattern: str) -> re.Pattern:
    return re.compile(pattern.encode("latin-1"), re.S)


def parse_value(f: Field, text: bytes, grammar: Grammar | None = None):
    """The value a field's rendered text stands for (ints for numbers, bytes otherwise)."""
    dom = field_domain(f, grammar)
    spec = f.spec
    if isinstance(spec, Prim):
        text = text[len(spec.delim):] if text.startswith(spec.delim) else text
        return _parse_int(text, 16 if spec.kind == "hex" else 10)
    d = spec.parsed
    if d.conversion in "diuoxX":
        return _parse_int(text, d.base)
    if d.conversion == "c":
        t = text.strip(b" ")
        return t[0] if t else 0
    if d.conversion == "s" and dom.charset is not None and not re.fullmatch(dom.charset, b" "):
        return text.strip(b" ")
    if d.conversion == "s" and d.width_star and dom.max_len == 0:
        return text  # padding only (%*s of ""): its width is the parameter's, or sets it
    if d.conversion == "s" and (d.width or d.width_star):
        return text.lstrip(b" ") if not d.flags & 2 else text.rstrip(b" ")
    return text


def _parse_int(text: bytes, base: int) -> int:
    t = text.strip(b" \t")
    neg = t.startswith(b"-")
    t = t.lstrip(b"+- ")
    if t[:2] in (b"0x", b"0X"):
        t = t[2:]
    if not t:
        raise ValueError("no digits")
    n = int(t, base)
    return -n if neg else n


def _verify_field(grammar: Grammar, f: Field, text: bytes, params: dict) -> bool:
    """A loosely matched field conforms if rendering its parsed value gives the same bytes."""
    try:
        value = parse_value(f, text, grammar)
        return render_field(f, value, params) == text
    except (ValueError, TypeError, IndexError):
        return False


# -- loose matching (for explaining a divergence) -------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _loose_lit_rx(data: bytes) -> re.Pattern:
    return re.compile(loose_lit(data))


@functools.lru_cache(maxsize=256)
def _loose_pad_rx(char: bytes) -> re.Pattern:
    return re.compile(rb"[ \t]*" + re.escape(char.strip(b" ")))


@functools.lru_cache(maxsize=1024)
def _loose_field_rx(f: Field, grammar: Grammar | None) -> re.Pattern:
    return re.compile(loose_field(f, grammar), re.S)


def loose_lit(data: bytes) -> bytes:
    """A literal with every whitespace run optional and any length: finds the fields around it
    even when the spacing drifted or a separator vanished."""
    parts = re.split(rb"([ \t]+)", data)
    out = []
    for p in parts:
        if not p:
            continue
        out.append(rb"[ \t]*" if p[:1] in (b" ", b"\t") else re.escape(p))
    return b"".join(out)


def loose_field(f: Field, grammar: Grammar | None) -> bytes:
    dom = field_domain(f, grammar)
    spec = f.spec
    if isinstance(spec, Prim):
        digits = rb"[0-9a-fA-F]+" if spec.kind == "hex" else rb"-?[0-9]+"
        return loose_lit(spec.delim) + rb"[ \t]*" + digits
    d = spec.parsed
    if d.conversion in "diuoxX":
        return rb"[ \t]*[-+]?(?:0[xX])?[0-9a-fA-F]+" if d.base == 16 else rb"[ \t]*[-+]?[0-9]+[ \t]*" if d.flags & 2 else rb"[ \t]*[-+]?[0-9]+"
    if dom.charset is not None and dom.max_len == 0:
        return rb"[ \t]*"
    core = dom.charset + rb"+" if dom.charset is not None else dom.pattern
    if dom.charset is not None and re.fullmatch(dom.charset, b" "):
        core = dom.charset + rb"*?"  # may hold spaces (comm): take as little as the rest allows
    return rb"[ \t]*(?:" + core + rb")" + (rb"[ \t]*" if d.flags & 2 else b"")


@dataclass
class LooseResult:
    values: dict
    end: int  # bytes of the line explained
    complete: bool  # every item matched


def loose_walk(line: Line, data: bytes, grammar: Grammar | None = None) -> LooseResult:
    """Read field values out of a line that does not match exactly: each item is matched loosely,
    in order, for as long as they match. Repeated fields come out as lists."""
    values: dict[str, Any] = {}
    pos, ok = _loose_items(line.items, data, 0, values, grammar, repeated=False)
    return LooseResult(values, pos, ok)


def _loose_items(items, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    for item in items:
        pos, ok = _loose_item(item, data, pos, values, grammar, repeated)
        if not ok:
            return pos, False
    return pos, True


def _loose_item(item, data: bytes, pos: int, values: dict, grammar, repeated: bool) -> tuple[int, bool]:
    if isinstance(item, Lit):
        m = _loose_lit_rx(item.data).match(data, pos)
        return (m.end(), True) if m else (pos, False)
    if isinstance(item, Pad):
        m = _loose_pad_rx(item.char).match(data, pos)
        return (m.end(), True) if m else (pos, False)
    if isinstance(item, Field):
        m = _loose_field_rx(item, grammar).match(data, pos)
        if not m:
            return pos, False
        if item.same_as is None:
            try:
                value = parse_value(item, _loose_core(item, m.group(0), grammar), grammar)
            except ValueError:
                return pos, False
            if repeated:
                values.setdefault(item.name, []).append(value)
            else:
                values[item.name] = value
        return m.end(), True
    if isinstance(item, Group):
        if item.repeat == "?":
            trial: dict = {}
            end, ok = _loose_items(item.items, data, pos, trial, grammar, repeated)
            if ok and end > pos:
                _merge_values(values, trial)
                return end, True
            return pos, True
        count = 0
        while pos < len(data):
            trial = {}
            end, ok = _loose_items(item.items, data, pos, trial, grammar, True)
            if not ok or end == pos:
                break
            _merge_values(values, trial)
            pos = end
            count += 1
        return pos, count > 0 or item.repeat == "*"
    best = (pos, False, {})
    for option in item.options:
        trial = {}
        end, ok = _loose_items(option, data, pos, trial, grammar, repeated)
        if (ok, end) > (best[1], best[0]):
            best = (end, ok, trial)
    _merge_values(values, best[2])
    return best[0], best[1]


def _loose_core(f: Field, text: bytes, grammar) -> bytes:
    """The value part of a loosely matched field: without the blanks around it, unless the
    domain itself may hold blanks (comm, text)."""
    dom = field_domain(f, grammar)
    if dom.numeric:
        spec = f.spec
        if isinstance(spec, Prim) and spec.delim:
            text = text.lstrip(b" \t")
            delim = spec.delim.strip(b" \t")
            text = text[len(delim):] if delim and text.startswith(delim) else text
        return text.strip(b" \t")
    if dom.charset is not None and not re.fullmatch(dom.charset, b" ") and not re.fullmatch(dom.charset, b"\t"):
        return text.strip(b" \t")
    if dom.pattern is not None:
        text = text.lstrip(b" \t")
        m = re.match(dom.pattern, text)  # the value without the blanks after it (a %-16s label)
        return m.group(0) if m else text
    return text


def _merge_values(values: dict, trial: dict) -> None:
    for k, v in trial.items():
        if isinstance(v, list) and isinstance(values.get(k), list):
            values[k].extend(v)
        else:
            values[k] = v


# --------------------------------------------------------------------------------------------------
# `fmtcheck grammars [NAME]`


def describe_items(items) -> str:
    """A grammar line written back in the grammar language."""
    out = []
    for item in items:
        if isinstance(item, Lit):
            out.append(f'"{_escape_text(item.data)}"')
        elif isinstance(item, Field):
            star = f" *=@{item.star[0]}" + (f"+{item.star[1]}" if item.star[1] else "") if item.star else ""
            same = f" ={item.same_as}" if item.same_as else ""
            out.append(f"<{item.name}:{item.domain} {item.spec}{star}{same}>")
        elif isinstance(item, Pad):
            out.append(f'pad({item.column}, "{_escape_text(item.char)}")')
        elif isinstance(item, Group):
            suffix = "" if item.repeat == "?" else item.repeat
            count = f"@{item.count}" if item.count else ""
            out.append(f"[ {describe_items(item.items)} ]{suffix}{count}")
        else:
            out.append("( " + " | ".join(describe_items(o) for o in item.options) + " )")
    return " ".join(out)


def example_params(grammar: Grammar) -> dict:
    """Parameter values for an example rendering: 2 CPUs, prec 3, and counts of 2."""
    params: dict[str, Any] = {"prec": 3}
    for line in grammar.lines:
        for item in walk_items(line.items):
            if isinstance(item, Group) and item.count:
                params.setdefault(item.count, 2)
            if isinstance(item, Field) and item.star:
                params.setdefault(item.star[0], 3)
    return params


def example_rendering(grammar: Grammar) -> list[tuple[Line, bytes]]:
    """Every line once (first option of each choice and variant), with example values."""
    params = example_params(grammar)
    out = []
    for node in _first_path(grammar.body):
        values = example_values(node, grammar)
        for line in grammar.lines:
            for f in line_fields(line):
                if f.name not in values and f.same_as is None:
                    values[f.name] = example_value(f, grammar)
        out.append((node, render_line(node, values, params, grammar)))
    return out


def _first_path(nodes: list) -> Iterator[Line]:
    for node in nodes:
        if isinstance(node, Line):
            yield node
        elif isinstance(node, (Records, Optional)):
            yield from _first_path(node.body)
        elif node.options:
            yield from _first_path(node.options[0])


def _grammar_summary(g: Grammar) -> dict:
    return {
        "name": g.name,
        "path": g.path,
        "printer": g.printer,
        "source": g.source,
        "about": g.about,
        "variants": {v.name: v.labels for v in g.variants},
        "records": [{"name": r.name, "key": list(r.key)} for r in g.records],
    }


def grammars_command(name: str | None, fmt: str = "text") -> int:
    """List the grammars, or show one with an annotated example rendering. Returns the exit code."""
    from fmtcheck.report import visible

    if name is None:
        grammars = all_grammars()
        if fmt == "json":
            sys.stdout.write(json.dumps([_grammar_summary(g) for g in grammars], indent=2) + "\n")
        else:
            width = max(len(g.name) for g in grammars)
            for g in grammars:
                sys.stdout.write(f"{g.name:<{width}}  {g.path:<24} {g.printer}\n")
        return 0
    g = load_grammar(name)
    example = example_rendering(g)
    if fmt == "json":
        data = _grammar_summary(g)
        data["lines"] = [
            {"name": line.name, "header": line.header, "grammar": describe_items(line.items),
             "example": visible(text.rstrip(b"\n"))}
            for line, text in example
        ]
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return 0
    out = [f"{g.name}: {g.path}", f"  printed by {g.printer}" + (f" ({g.source})" if g.source else "")]
    if g.about:
        out.append(f"  {g.about}")
    for v in g.variants:
        out.append(f"  variant {v.name}: " + " | ".join(lab or f"option {i + 1}" for i, lab in enumerate(v.labels)))
    out.append("")
    out.append("example rendering (space '·', tab '→'):")
    for line, text in example:
        tag = "header" if line.header else line.name
        shown = visible(text.rstrip(b"\n"))
        out.append(f"  {tag:<18} {shown}")
        out.append(f"  {'':<18} = {describe_items(line.items)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
