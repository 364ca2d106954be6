"""The `.grammar` language (grammars/README.md): parsing a file into the model, loading the packaged
grammars, their metadata, and detecting which grammar a capture's head belongs to.
"""

from __future__ import annotations

import functools
import os
import re

from fmtcheck.common.errors import InputError
from fmtcheck.common.plain import plain
from fmtcheck.layout.gcache import cached_grammar, cached_value
from fmtcheck.layout.model import (
    Alt,
    Choice,
    ColumnRule,
    Domain,
    Field,
    Grammar,
    GrammarError,
    Group,
    KeyInfo,
    Line,
    Lit,
    Optional,
    Pad,
    Prim,
    Printf,
    Records,
    Variant,
    parse_version,
    walk_items,
)

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:  # pyparsing is imported where a grammar is parsed: a cached grammar needs none of it
    import pyparsing as pp


def _text(raw: str) -> str:
    """A quoted string of the grammar file as text."""
    return _decode_string(raw).decode("utf-8")


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


@functools.lru_cache(maxsize=1)
def _language() -> pp.ParserElement:
    """The pyparsing grammar of .grammar files (see grammars/README.md)."""
    import pyparsing as pp

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
    final = pp.Group(kw("final") + line_name + pp.Group(items))
    key = pp.Optional(kw("key").suppress() + pp.Suppress("=") + pp.Group(pp.DelimitedList(ident)), default=[])
    records = pp.Group(kw("records") + ident + key + block)
    optional = pp.Group(kw("optional") + block)
    choice = pp.Group(kw("choice") + block + pp.OneOrMore(kw("or").suppress() + block))
    label = pp.Optional(string, default='""')
    versions = pp.Optional(kw("versions").suppress() + string, default='""')
    source = pp.Optional(kw("from").suppress() + string, default='""')
    option = pp.Group(label + versions + source + block)
    variant = pp.Group(kw("variant") + ident + option + pp.OneOrMore(kw("or").suppress() + option))
    config = pp.Group(kw("config") + ident + option)
    stmt = line | header | final | records | optional | choice | variant | config
    stmts <<= pp.ZeroOrMore(stmt)

    meta_str = pp.Group(pp.one_of("name path printer source about", as_keyword=True) + (string | ident))
    meta_detect = pp.Group((kw("detect") | kw("filename")) + regex)
    meta_prio = pp.Group(kw("priority") + integer)
    reserved = pp.MatchFirst([kw(w) for w in
                              "line header final records optional choice variant config domain param keys key columns".split()])
    meta_param = pp.Group(kw("param") + pp.OneOrMore(~reserved + ident))
    domain_example = pp.Group(kw("example").suppress() + string)("example")
    meta_domain = pp.Group(kw("domain") + ident + (kw("charset") + regex + integer + integer | regex) + string
                           + pp.Optional(domain_example))
    key_name = pp.Regex(r"[A-Za-z0-9_()./-]+")
    key_attr = pp.Regex(r"(since|until|config|arch|seen)=[A-Za-z0-9_.,+!-]+")
    meta_keys = pp.Group(kw("keys") + ident + pp.Optional(~reserved + ident))
    meta_key = pp.Group(kw("key") + pp.Group(pp.OneOrMore(~reserved + ~key_attr + key_name))
                        + pp.Group(pp.ZeroOrMore(key_attr)))
    meta_columns = pp.Group(kw("columns") + ident + string + string)
    meta = meta_str | meta_detect | meta_prio | meta_param | meta_domain | meta_keys | meta_key | meta_columns
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
            elif key == "keys":
                self.g.key_fields = tuple(entry[1:])
            elif key == "key":
                self.key_entry(list(entry[1]), list(entry[2]))
            elif key == "columns":
                self.g.columns[entry[1]] = ColumnRule(entry[1], _decode_string(entry[2]).decode("utf-8"),
                                                      _decode_string(entry[3]).decode("utf-8"))
            else:
                value = entry[1]
                text = _decode_string(value).decode("utf-8") if value.startswith('"') else value
                setattr(self.g, key, text)

    def key_entry(self, names: list, attrs: list) -> None:
        """`key NAME... since=V until=V config=C arch=A seen=V,V`: the same history for each NAME."""
        info: dict = {}
        for attr in attrs:
            what, value = attr.split("=", 1)
            try:
                if what in ("since", "until"):
                    info[what] = parse_version(value)
                elif what == "seen":
                    info[what] = tuple(parse_version(v) for v in value.split(","))
                else:
                    info[what] = value
            except ValueError:
                raise GrammarError(self.g.name, f"key {names[0]}: bad release in {attr!r}") from None
        for name in names:
            if name in self.g.keys:
                raise GrammarError(self.g.name, f"key {name} listed twice")
            self.g.keys[name] = KeyInfo(name, **info)

    def custom_domain(self, entry) -> Domain:
        """A `domain` entry; its optional `example "..."` is the value example renderings use."""
        entry = list(entry)
        examples = ()
        if entry and not isinstance(entry[-1], str):
            examples = (_decode_string(entry.pop()[0]),)
        name = entry[1]
        desc = _decode_string(entry[-1]).decode("utf-8")
        if entry[2] == "charset":
            return Domain(name, desc, charset=_regex_literal(entry[3]), min_len=int(entry[4]),
                          max_len=int(entry[5]) or None, examples=examples)
        return Domain(name, desc, pattern=_regex_literal(entry[2]), examples=examples)

    def stmts(self, tree) -> list:
        return [self.stmt(s) for s in tree]

    def stmt(self, s):
        kind = s[0]
        if kind in ("line", "header", "final"):
            items = self.items(s[2])
            name = s[1] or self.line_name(items)
            return Line(name, items, header=kind == "header", uid=self.next_uid(), newline=kind != "final")
        if kind == "records":
            return Records(s[1], self.stmts(s[3]), tuple(s[2]), uid=self.next_uid())
        if kind == "optional":
            return Optional(self.stmts(s[1]), uid=self.next_uid())
        if kind == "choice":
            return Choice([self.stmts(b) for b in s[1:]], uid=self.next_uid())
        if kind == "variant":
            opts = s[2:]
            return Variant(s[1], [self.stmts(o[3]) for o in opts], [_text(o[0]) for o in opts],
                           uid=self.next_uid(), versions=[_text(o[1]) for o in opts],
                           sources=[_text(o[2]) for o in opts])
        if kind == "config":
            o = s[2]
            return Variant(s[1], [self.stmts(o[3]), []], [_text(o[0]) or "present", "absent"],
                           uid=self.next_uid(), versions=[_text(o[1]), ""], sources=[_text(o[2]), ""])
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


def parse_grammar(text: str, name: str = "grammar") -> Grammar:
    """Parse the text of a .grammar file into a Grammar (GrammarError on a malformed file)."""
    import pyparsing as pp

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


@functools.lru_cache(maxsize=1)
def _grammar_root():
    """The directory of the grammar files (a path): the package `fmtcheck.grammars` once installed,
    or the `grammars/` directory beside the package in a source tree (an editable install maps the
    package there). Found by the package's own location, not by importlib.util.find_spec and pathlib
    nor importlib.resources, whose imports (tempfile, shutil, zipfile, pathlib...) cost every `check`
    milliseconds of start-up (issue #17); importlib.resources serves only a package that is not a
    directory (in a zip): then a Traversable, not a path."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for location in (os.path.join(package, "grammars"), os.path.join(os.path.dirname(package), "grammars")):
        if os.path.isfile(os.path.join(location, "net_dev.grammar")):
            return location
    import importlib.resources

    return importlib.resources.files("fmtcheck.grammars")


def _grammar_text(name: str) -> str:
    """The text of the grammar file NAME (a name grammar_names() lists)."""
    root = _grammar_root()
    if isinstance(root, str):
        with open(os.path.join(root, f"{name}.grammar"), encoding="utf-8") as f:
            return f.read()
    return root.joinpath(f"{name}.grammar").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _grammar_files() -> tuple:
    root = _grammar_root()
    names = os.listdir(root) if isinstance(root, str) else [p.name for p in root.iterdir()]
    return tuple(sorted(n[: -len(".grammar")] for n in names if n.endswith(".grammar")))


def grammar_names() -> list[str]:
    """The names of the grammars shipped in the package."""
    return list(_grammar_files())


@functools.lru_cache(maxsize=64)
def load_grammar(name: str) -> Grammar:
    """The grammar NAME from the package (InputError if there is none)."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", name or ""):
        raise InputError("--grammar", f"unknown grammar {name!r}")
    if name not in grammar_names():  # never a path built from a name that is no grammar's
        known = ", ".join(grammar_names())
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise InputError("--grammar", f"unknown grammar {shown!r} (known: {known})")
    return cached_grammar(name, _grammar_text(name), parse_grammar)


def all_grammars() -> list[Grammar]:
    return [load_grammar(n) for n in grammar_names()]


@plain(frozen=True)
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
    text = _grammar_text(name)
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
    `filename` hint matches the file name when several do. Only the chosen grammar is parsed, and
    only the `detect` regexes that can match the capture's first byte are compiled (`_detection`)."""
    first = head[0] if head else None
    found = [GrammarMeta(*entry) for *entry, starts in _detection()
             if entry[1] is not None and (first is None or starts >> first & 1) and re.match(entry[1], head)]
    if not found:
        return None
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    hinted = [g for g in found if g.filename and re.search(g.filename, base)]
    return load_grammar(sorted(hinted or found, key=lambda g: g.priority)[0].name)


@functools.lru_cache(maxsize=1)
def _detection() -> tuple:
    """(name, detect, filename, priority, the bytes a match of detect can start with as a bit set)
    of every grammar, kept in the per-user cache under the texts of the grammar files: a check
    would otherwise scan every file for its header entries and compile some fifty `detect`
    regexes (~7 ms of its start-up, issue #17) to find the one or two that match."""
    names = grammar_names()
    texts = [_grammar_text(name) for name in names]
    key = "\0".join(f"{n}\0{t}" for n, t in zip(names, texts)).encode("utf-8")
    return cached_value("detect", key, ("language.py", "dfa.py", "gcache.py"),
                        lambda: tuple((*_meta_fields(grammar_meta(name)), _first_bytes(grammar_meta(name).detect))
                                      for name in names))


def _meta_fields(meta: GrammarMeta) -> tuple:
    return meta.name, meta.detect, meta.filename, meta.priority


def _first_bytes(detect: bytes | None) -> int:
    """The bytes a match of DETECT can start with (a bit set), or every byte when that is not
    known exactly: a pattern that can match empty, one under IGNORECASE, a construct the DFA
    helpers (`dfa.first_of_seq`) do not know. A superset is safe: the regex still decides."""
    from fmtcheck.layout import dfa
    from re import _constants as C  # noqa: N812 - the opcodes of Python's own regex parse tree
    from re import _parser as sre_parse

    if detect is None:
        return dfa.ALL
    try:
        parsed = sre_parse.parse(detect)
        if parsed.state.flags & re.IGNORECASE or _scoped_ignorecase(list(parsed), C):
            return dfa.ALL
        first, empty = dfa.first_of_seq(list(parsed))
    except Exception:  # noqa: BLE001 - anything unknown: every byte, the regex decides
        return dfa.ALL
    return dfa.ALL if empty else first


def _scoped_ignorecase(items, C) -> bool:  # noqa: N803
    """Does a `(?i:...)` group appear anywhere in ITEMS (a parse tree)?"""
    for op, av in items:
        if op is C.SUBPATTERN and (av[1] & re.IGNORECASE or _scoped_ignorecase(av[3], C)):
            return True
        if op is C.BRANCH and any(_scoped_ignorecase(alt, C) for alt in av[1]):
            return True
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and _scoped_ignorecase(av[2], C):
            return True
        if op in (C.ASSERT, C.ASSERT_NOT) and _scoped_ignorecase(av[1], C):
            return True
        if op is C.ATOMIC_GROUP and _scoped_ignorecase(av, C):
            return True
    return False
