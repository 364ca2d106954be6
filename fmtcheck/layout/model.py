"""The grammar model: domains of values and the nodes of a layout (lines, items, records, options,
choices and kernel-version variants), as plain data.
"""

from __future__ import annotations

import functools

from fmtcheck.common.errors import InputError
from fmtcheck.common.plain import factory, plain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Iterator


@plain(frozen=True)
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


@plain(frozen=True)
class Printf:
    """A field printed by one printf directive (seq_printf/vsnprintf)."""

    directive: bytes

    @property
    def parsed(self):
        return _parse_directive(self.directive)

    def __str__(self) -> str:
        return self.directive.decode("latin-1")


@plain(frozen=True)
class Prim:
    """A field printed by a seq_file number primitive, with its delimiter and width."""

    kind: str  # ull | ullw | ll | hex
    delim: bytes = b""
    width: int = 0

    def __str__(self) -> str:
        args = [f'"{escape_text(self.delim)}"'] if self.delim else []
        if self.kind in ("ullw", "hex"):
            args.append(str(self.width))
        return f"{self.kind}({', '.join(args)})"


@plain(frozen=True)
class Lit:
    data: bytes


@plain(frozen=True)
class Field:
    name: str
    domain: str
    spec: Printf | Prim
    star: tuple[str, int] | None = None  # '*' width from a parameter: (param, offset)
    same_as: str | None = None  # value must equal this earlier field's value


@plain(frozen=True)
class Pad:
    """seq_setwidth(column) at line start + seq_pad(char): spaces up to the column, then char."""

    column: int
    char: bytes


@plain(frozen=True)
class Group:
    items: tuple
    repeat: str  # "?" optional, "*" zero or more, "+" one or more
    count: str | None = None  # a parameter that binds/checks the repetition count


@plain(frozen=True)
class Alt:
    options: tuple  # tuple of item tuples, tried in order


Item = Lit | Field | Pad | Group | Alt


@plain(eq=False)
class Line:
    name: str
    items: tuple
    header: bool = False
    uid: int = 0
    newline: bool = True  # False for a `final` line: the file ends after it, with no newline

    def __repr__(self) -> str:
        return f"Line({self.name!r})"

    @property
    def end_pattern(self) -> str:
        """The regex that ends the line: its newline, or (a `final` line) the end of the file."""
        return r"\n" if self.newline else r"\Z"


@plain(eq=False)
class Records:
    name: str
    body: list
    key: tuple = ()
    uid: int = 0


@plain(eq=False)
class Optional:
    body: list
    uid: int = 0


@plain(eq=False)
class Choice:
    options: list  # list of bodies
    uid: int = 0


@plain(eq=False)
class Variant:
    """A kernel-version or config choice: the first occurrence decides for the whole capture."""

    name: str
    options: list  # list of bodies
    labels: list  # one description per option
    uid: int = 0
    versions: list = factory(list)  # per option: the kernel releases that print it
    sources: list = factory(list)  # per option: the printer's source (file:function, release)


Node = Line | Records | Optional | Choice | Variant


def parse_version(text: str) -> tuple:
    """A kernel release as a comparable tuple ("2.6.32" -> (2, 6, 32))."""
    return tuple(int(p) for p in text.split("."))


@plain(frozen=True)
class KeyInfo:
    """One key (a line label such as `MemFree`, or `Udp.InCsumErrors`) and the kernels that print
    it: `since` and `until` (exclusive) releases, the config option or architecture it needs, and
    `seen` for a key known from the listed releases whose history was not traced (never required)."""

    name: str
    since: tuple | None = None
    until: tuple | None = None
    config: str | None = None
    arch: str | None = None
    seen: tuple = ()

    @property
    def conditional(self) -> bool:
        return bool(self.config or self.arch or self.seen)

    def describe(self) -> str:
        parts = []
        if self.since:
            parts.append(".".join(map(str, self.since)) + "+")
        if self.until:
            parts.append("before " + ".".join(map(str, self.until)))
        if self.config:
            parts.append(self.config)
        if self.arch:
            parts.append(f"arch {self.arch}")
        if self.seen:
            parts.append("seen in " + ", ".join(".".join(map(str, v)) for v in self.seen))
        return ", ".join(parts)


@plain(frozen=True)
class ColumnRule:
    """A line whose number of fields is part of the layout (`columns` entry): the field counts
    consumers accept (`counts`, such as "7 14 >=18") and which consumer rule says so (`why`)."""

    line: str
    counts: str
    why: str

    def accepts(self, n: int) -> bool:
        for word in self.counts.split():
            if word.startswith(">=") and n >= int(word[2:]) or word.isdigit() and n == int(word):
                return True
        return False


@plain(eq=False)
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
    key_fields: tuple = ()  # `keys FIELD [SUBFIELD]`: the field that holds a line's key
    keys: dict = factory(dict)  # `key` entries: name -> KeyInfo
    columns: dict = factory(dict)  # `columns` entries: line name -> ColumnRule
    domains: dict = factory(dict)
    body: list = factory(list)
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


def escape_text(data: bytes) -> str:
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


@functools.lru_cache(maxsize=512)
def _parse_directive(directive: bytes):
    from fmtcheck.kernel.vsprintf import Directive, parse_format

    parsed = [p for p in parse_format(directive) if not isinstance(p, bytes)]
    if len(parsed) != 1 or not isinstance(parsed[0], Directive):
        raise GrammarError("grammar", f"not one valid printf directive: {directive!r}")
    return parsed[0]
