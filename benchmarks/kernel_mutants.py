"""Mutants of real kernel printers for benchmarks/kernel_corpus.py (six operators).

Why: a tool that calls everything "equivalent" would pass the rewrite corpus; mutants that change
the bytes of real printers show it also sees differences. Each operator is applied at every site
where it applies: width +-1, a delimiter moved from after a number to before it, a separator
dropped, zero padding, `%d` for `%u`, and a helper that skips padding below 10.

A mutant counts as excluded (it cannot change bytes) only for a reason this module shows itself,
from the format and from types it reads in the code, never from fmtcheck's verdict: then the
mutant is still judged, and a `divergent` there is a wrong-way verdict. The reasons:
- kernel vsprintf rules: `0` with no width, or with `-`, or with width 1, pads nothing; width 1 to
  no width pads nothing;
- `%d` for `%u` where the printed value is provably below the sign bit of the conversion: a cast to
  a narrower unsigned type, a local or parameter declared so, `E >> k` (k >= 1) of an unsigned `E`
  no wider than the conversion, `E / C` (C >= 2) of such an `E`, `E & C` with C below the sign bit,
  a literal below it, a `!`, a comparison or a `&&`/`||` (0 or 1, an int: only for conversions of
  at most 32 bits, where an int is what is read), a `?:` whose two arms are such values. `E`'s type
  is read from the function (locals, parameters), for `p->f` / `s.f` from the member's type in
  the struct's definitions in the same texts (all must agree), or, for a call, from the return type declared in
  the file, a header it includes (directly) or include/linux/types.h; typedefs are followed through
  the same texts; all declarations found must agree. A constant C or k is a number literal or a
  macro whose every `#define` in the file, include/ and arch/x86/include/ is one number literal.
  `unsigned long` is 64-bit (x86-64);
- `%d` for `%u` of a counter (`counted_walk`): a local of a 64-bit unsigned type, 0 when declared
  or set to 0 first (at the top of the body), then only read or incremented by one, each increment
  inside exactly one loop, a list walk (`list_for_each_entry` ... of list.h, llist.h, hlist;
  not an RCU walk, which may see entries move), in a function with no `goto`, at most 3 increment
  sites: a walk that ends visits distinct nodes (its next pointers are a function; a repeated
  node is a cycle that never comes back to the end), each one of at least 8 bytes, so fewer than
  2^61 per walk and below 2^63 in all;
- a width changed on `%s` of a string literal (or a `?:` of literals) whose bytes, up to a NUL and
  cut by the precision, are at least both widths long: neither width pads.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from benchmarks.kernel_rewrite import (
    CONVERSION, Piece, Printer, decode_c_string, encode_c_string, format_of, printf_statements, split_format,
)
from fmtcheck.c.cfront import walk

CONVERSION_BITS = {b"": 32, b"l": 64, b"ll": 64, b"L": 64, b"z": 64, b"t": 64, b"h": 16, b"hh": 8, b"H": 8}
UNSIGNED_BITS = {"bool": 1, "_Bool": 1, "u8": 8, "__u8": 8, "unsigned char": 8, "u16": 16, "__u16": 16,
                 "unsigned short": 16, "unsigned short int": 16, "u32": 32, "__u32": 32, "unsigned int": 32,
                 "unsigned": 32, "u64": 64, "__u64": 64, "unsigned long": 64, "unsigned long int": 64,
                 "unsigned long long": 64, "unsigned long long int": 64, "size_t": 64}
DELIMITERS = (b" ", b"\t", b":", b",", b"/", b"|", b";")


@dataclass
class Mutant:
    operator: str
    site: str  # line and what was changed
    text: bytes | None  # the mutated function (None when the operator changes nothing at the site)
    excluded: str | None = None  # why nothing changes (text is None)
    cannot_change: str | None = None  # why the mutant, though made, cannot change bytes


# ---------------------------------------------------------------------------------------------
# types the script reads from the code


def _norm_type(text: str) -> str:
    text = re.sub(r"\b(?:const|volatile|register|static)\b", " ", text)
    return re.sub(r"\s+", " ", text).strip()


class Types:
    """Integer types of the code: the function's locals and parameters, the return types and
    typedefs declared in the file, the headers it includes directly, and include/linux/types.h."""

    def __init__(self, src: bytes, path: str, tree: str | None, func_node) -> None:
        self.src, self.path, self.tree, self.func_node = src, path, tree, func_node
        self.locals = _declared_names(func_node)
        self.struct_locals = _struct_names(func_node)
        self._texts: list[tuple[str, str]] | None = None

    def texts(self) -> list[tuple[str, str]]:
        """(name, text) of the file, the headers it includes directly, and include/linux/types.h."""
        if self._texts is None:
            text = self.src.decode("latin-1")
            self._texts = [(self.path, text)]
            if self.tree:
                root = Path(self.tree)
                files = [(root / "include" / name if mark == "<" else root / Path(self.path).parent / name, name)
                         for mark, name in re.findall(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M)]
                for file, name in files + [(root / "include/linux/types.h", "linux/types.h")]:
                    if file.is_file():
                        self._texts.append((name, file.read_text(encoding="latin-1")))
        return self._texts

    def _agreeing(self, pattern: str) -> tuple[str, str] | None:
        """The one type text every match of `pattern` (group 1) gives, with where it is."""
        found = [(_norm_type(m.group(1)), f"{name}:{text.count(chr(10), 0, m.start()) + 1}")
                 for name, text in self.texts() for m in re.finditer(pattern, text, re.M)]
        kinds = {t for t, _ in found}
        return found[0] if len(kinds) == 1 else None

    def unsigned_bits(self, type_text: str, depth: int = 0) -> tuple[int, str] | None:
        """(width, how) when the type is unsigned; None when it is signed or not found."""
        t = _norm_type(type_text)
        if t in UNSIGNED_BITS:
            return UNSIGNED_BITS[t], t
        if depth > 4 or not re.fullmatch(r"[A-Za-z_]\w*", t):
            return None
        hit = self._agreeing(rf"^\s*typedef\s+([A-Za-z_][\w\s]*?)\s+{t}\s*;")
        if hit is None:
            return None
        inner = self.unsigned_bits(hit[0], depth + 1)
        return (inner[0], f"{t} = {inner[1]} ({hit[1]})") if inner else None

    def macro_value(self, name: str) -> int | None:
        """The value of an object-like macro every definition of which (in the file, include/ and
        arch/x86/include/ of the tree) is the same number literal; None otherwise."""
        bodies = {m.group(1).strip() for _, text in self.texts()[:1]
                  for m in re.finditer(rf"^[ \t]*#[ \t]*define[ \t]+{name}\b(?!\()(.*)$", text, re.M)}
        if self.tree:
            bodies |= _tree_macro_bodies(self.tree, name)
        values = {_number(b) for b in bodies}
        return values.pop() if len(values) == 1 and None not in values else None

    def struct_of(self, name: str, through_pointer: bool) -> str | None:
        """The tag of the struct a local or parameter points to (`->`) or is (`.`), when every
        declaration of the name in the function says the same."""
        tags = self.struct_locals.get(name)
        return tags[0][0] if tags and len(set(tags)) == 1 and tags[0][1] == through_pointer else None

    def member_type(self, tag: str, member: str) -> tuple[str, str] | None:
        """The type of a scalar member of `struct tag` (any depth of its body: an anonymous union's
        member is reached the same way), when every definition of the struct in the texts gives
        one and the same type text for that name; arrays are left out."""
        found = []
        for name, text in self.texts():
            for m in re.finditer(rf"\bstruct\s+{re.escape(tag)}\s*\{{", text):
                body = _braced(text, m.end() - 1)
                for d in re.finditer(rf"(?:^|[;{{}}])\s*((?:const\s+)?(?:unsigned\s+|signed\s+)?[A-Za-z_]\w*"
                                     rf"(?:\s+(?:long|int|short|char))*)\s+(?:\w+\s*,\s*)*{re.escape(member)}\s*[;:,]",
                                     body, re.M):
                    found.append((_norm_type(d.group(1)), f"{name}:{text.count(chr(10), 0, m.start()) + 1}"))
        kinds = {t for t, _ in found}
        return found[0] if len(kinds) == 1 else None

    def return_type(self, name: str) -> tuple[str, str] | None:
        return self._agreeing(rf"^[ \t]*(?:(?:static|inline|__always_inline|extern)\s+)*"
                              rf"(?!(?:return|else|case|goto|do)\b)((?:const\s+)?(?:unsigned\s+|signed\s+)?[A-Za-z_]\w*(?:\s+(?:long|int|short|char))*)"
                              rf"\s+{name}\s*\(")


@lru_cache(maxsize=None)
def _tree_macro_bodies(tree: str, name: str) -> frozenset[str]:
    """The bodies of every `#define NAME` (object-like) in the tree's include/ and arch/x86/include/."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return frozenset({"?"})
    dirs = [d for d in (Path(tree) / "include", Path(tree) / "arch/x86/include") if d.is_dir()]
    run = subprocess.run(["grep", "-rhE", rf"^\s*#\s*define\s+{name}([^A-Za-z0-9_(]|$)", "--include=*.h",
                          *map(str, dirs)], capture_output=True, text=True, encoding="latin-1")
    return frozenset(re.sub(rf"^\s*#\s*define\s+{name}", "", line).strip() for line in run.stdout.splitlines())


def _number(text: str) -> int | None:
    """The value of a C number literal (suffixes, an outer pair of parentheses and a trailing
    comment allowed); None for anything else."""
    text = re.sub(r"/\*.*?\*/|//.*$", "", text).strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*", text)
    return int(m.group(1), 0) if m else None


def _braced(text: str, open_at: int) -> str:
    """The text between the `{` at `open_at` and its matching `}` ('' when unbalanced)."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:i]
    return ""


def _struct_names(func_node) -> dict[str, list[tuple[str, bool]]]:
    """name -> [(struct tag, declared as a pointer)] for every declaration of a local or parameter
    of a `struct T` or `struct T *` type in the function."""
    out: dict[str, list[tuple[str, bool]]] = {}
    for n in walk(func_node):
        kind = n.child_by_field_name("type") if n.type in ("declaration", "parameter_declaration") else None
        if kind is None or kind.type != "struct_specifier" or kind.child_by_field_name("name") is None:
            continue
        tag = kind.child_by_field_name("name").text.decode("latin-1")
        for d in n.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                d = d.child_by_field_name("declarator")
            pointer = d is not None and d.type == "pointer_declarator"
            if pointer:
                d = d.child_by_field_name("declarator")
            if d is not None and d.type == "identifier":
                out.setdefault(d.text.decode("latin-1"), []).append((tag, pointer))
    return out


def _declared_names(func_node) -> dict[str, str]:
    """name -> type text of the function's scalar parameters and locals (pointers and arrays left out)."""
    out: dict[str, str] = {}
    for n in walk(func_node):
        if n.type not in ("declaration", "parameter_declaration") or n.child_by_field_name("type") is None:
            continue
        type_text = n.child_by_field_name("type").text.decode("latin-1")
        for d in n.children_by_field_name("declarator"):
            if d.type == "init_declarator":
                d = d.child_by_field_name("declarator")
            if d is not None and d.type == "identifier":
                name = d.text.decode("latin-1")
                out[name] = type_text if name not in out or out[name] == type_text else "?"
    return out


def _strip_parens(node):
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _unsigned_of(node, types: Types) -> tuple[int, str] | None:
    """(width, why) when the expression has an unsigned type the script can read."""
    node = _strip_parens(node)
    if node.type == "cast_expression":
        return types.unsigned_bits(node.child_by_field_name("type").text.decode("latin-1"))
    if node.type == "identifier" and node.text.decode("latin-1") in types.locals:
        return types.unsigned_bits(types.locals[node.text.decode("latin-1")])
    if node.type == "field_expression" and node.child_by_field_name("argument").type == "identifier":
        tag = types.struct_of(node.child_by_field_name("argument").text.decode("latin-1"),
                              node.child_by_field_name("operator").text == b"->")
        member = node.child_by_field_name("field").text.decode("latin-1")
        found = types.member_type(tag, member) if tag else None
        got = types.unsigned_bits(found[0]) if found else None
        return (got[0], f"struct {tag} member {member} is {got[1]} ({found[1]})") if got else None
    if node.type == "call_expression" and node.child_by_field_name("function").type == "identifier":
        name = node.child_by_field_name("function").text.decode("latin-1")
        ret = types.return_type(name)
        got = types.unsigned_bits(ret[0]) if ret else None
        return (got[0], f"{name} returns {got[1]} ({ret[1]})") if got else None
    return None


def _literal(node, types: Types | None = None) -> int | None:
    """A number literal's value, or (with `types`) an identifier's that is a macro of one."""
    node = _strip_parens(node)
    if node is None:
        return None
    if node.type == "identifier" and types is not None and node.text.decode("latin-1") not in types.locals:
        return types.macro_value(node.text.decode("latin-1"))
    if node.type != "number_literal":
        return None
    return _number(node.text.decode("latin-1"))


TRUTH_OPERATORS = ("==", "!=", "<", ">", "<=", ">=", "&&", "||")


def below_sign_bit(node, bits: int, types: Types) -> str | None:
    """Why the argument's value is in [0, 2^(bits-1)) (so %d prints it as %u does), or None."""
    node = _strip_parens(node)
    if node is None:
        return None
    direct = _unsigned_of(node, types)
    if direct and direct[0] < bits:
        return f"an unsigned {direct[0]}-bit value ({direct[1]}) printed as {bits}-bit"
    if node.type == "identifier" and types.func_node is not None:
        counted = counted_walk(node.text.decode("latin-1"), types.func_node, bits, types)
        if counted:
            return counted
    if node.type == "number_literal":
        value = _literal(node)
        return f"the literal {value}: below 2^{bits - 1}" if value is not None and value < 1 << (bits - 1) else None
    if node.type == "unary_expression" and node.child_by_field_name("operator").text == b"!":
        return "a logical not: 0 or 1 (an int)" if bits <= 32 else None
    if node.type == "conditional_expression":
        arms = [below_sign_bit(node.child_by_field_name(f), bits, types) for f in ("consequence", "alternative")]
        return f"either arm of ?: ({arms[0]}; {arms[1]})" if all(arms) else None
    if node.type != "binary_expression":
        return None
    op = node.child_by_field_name("operator").text.decode("latin-1")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op in TRUTH_OPERATORS:
        return f"a comparison '{op}': 0 or 1 (an int)" if bits <= 32 else None
    by = _literal(right, types)
    if op in (">>", "/") and (by or 0) >= (1 if op == ">>" else 2):
        inner = _unsigned_of(left, types)
        how = f"shifted right by {by}" if op == ">>" else f"divided by {by}"
        if inner and inner[0] <= bits:
            return f"an unsigned {inner[0]}-bit value ({inner[1]}) {how}: below 2^{bits - 1}"
    if op == "&":
        mask = by if by is not None else _literal(left, types)
        if mask is not None and 0 <= mask < 1 << (bits - 1):
            return f"masked by {mask:#x}: below 2^{bits - 1}"
    return None


LIST_WALK = re.compile(r"(?:h|ll)?list_for_each(?:_entry)?(?:_safe|_continue|_reverse|_from|_prev)*")
PRINTING_CALLS = frozenset({"seq_printf", "seq_put_decimal_ull", "seq_put_decimal_ull_width", "seq_put_decimal_ll",
                            "if", "while", "switch", "return"})


def _masked(text: str) -> str:
    """The text with comments, strings and character literals blanked (offsets kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def _open_before(text: str, pos: int, opener: str, closer: str) -> int:
    """The offset of the unclosed `opener` that encloses `pos` (-1 if none)."""
    depth = 0
    for i in range(pos - 1, -1, -1):
        if text[i] == closer:
            depth += 1
        elif text[i] == opener:
            if depth == 0:
                return i
            depth -= 1
    return -1


def _head_before(text: str, close: int) -> str | None:
    """The word heading the parenthesised group that ends at `close` (`if`, `for`, a macro ...)."""
    open_ = _open_before(text, close, "(", ")")
    m = re.search(r"(\w+)\s*$", text[:open_]) if open_ >= 0 else None
    return m.group(1) if m else None


def _enclosing_heads(text: str, pos: int, body: int) -> list[str] | None:
    """The control heads around the statement at `pos`, innermost first, up to the function's body
    `{` at `body`: words (`if`, `for`, a macro), `{` for a bare block; None for a shape not read."""
    heads: list[str] = []
    while True:
        before = text[:pos].rstrip()
        last = before[-1:] if before else ""
        if last in (";", "}"):  # a statement among others in a block
            brace = _open_before(text, len(before), "{", "}")
            if brace < 0:
                return None
            pos = brace + 1
            continue
        if last == "{":
            if len(before) - 1 == body:
                return heads
            pos = len(before) - 1
            inner = text[:pos].rstrip()
            if inner.endswith(")"):
                heads.append(_head_before(text, len(inner) - 1) or "?")
                pos = _open_before(text, len(inner) - 1, "(", ")")
                pos = len(re.sub(r"\w+\s*$", "", text[:pos]))
            elif re.search(r"\b(?:do|else)$", inner):
                return None
            else:
                heads.append("{")
            continue
        if last == ")":
            heads.append(_head_before(text, len(before) - 1) or "?")
            pos = _open_before(text, len(before) - 1, "(", ")")
            pos = len(re.sub(r"\w+\s*$", "", text[:pos]))
            continue
        return None


def counted_walk(name: str, func_node, bits: int, types: Types) -> str | None:
    """Why the local `name` is a count of list entries below 2^63 (the rule in the module's doc)."""
    if bits != 64 or types.unsigned_bits(types.locals.get(name, "?")) is None \
            or types.unsigned_bits(types.locals[name])[0] != 64:
        return None
    decls = [d for d in walk(func_node) if d.type in ("init_declarator", "identifier")
             and d.parent is not None and d.parent.type in ("declaration", "init_declarator")
             and (d.child_by_field_name("declarator") if d.type == "init_declarator" else d) is not None
             and (d.child_by_field_name("declarator") if d.type == "init_declarator" else d).text == name.encode()]
    decls = [d for d in decls if not (d.type == "identifier" and d.parent.type == "init_declarator")]
    if len(decls) != 1 or _is_static(decls[0]):
        return None  # shadowed, or kept from call to call
    zero_init = decls[0].type == "init_declarator" and _literal(decls[0].child_by_field_name("value")) == 0
    text = _masked(func_node.text.decode("latin-1"))
    body = text.find("{", func_node.child_by_field_name("body").start_byte - func_node.start_byte)
    if re.search(r"\bgoto\b", text):
        return None
    declared_at = decls[0].start_byte - func_node.start_byte
    sites, first = 0, None
    for m in re.finditer(rf"\b{re.escape(name)}\b", text):
        if decls[0].start_byte <= m.start() + func_node.start_byte < decls[0].end_byte:
            continue
        if m.start() < declared_at:
            return None
        kind = _use_of(text, m.start(), m.end(), body)
        if kind is None:
            return None
        if first is None:
            first = kind
        if kind == "increment":
            sites += 1
    if not (zero_init or first == "zero at top"):
        return None
    if not 1 <= sites <= 3:
        return None
    return (f"a count from 0 of list entries ({sites} increment site(s), each in one list walk): "
            "fewer than 2^61 per walk: below 2^63")


def _is_static(declarator) -> bool:
    decl = declarator
    while decl is not None and decl.type != "declaration":
        decl = decl.parent
    return decl is None or any(c.type == "storage_class_specifier" for c in decl.children)


def _use_of(text: str, start: int, end: int, body: int) -> str | None:
    """How the counter is used here: 'zero at top' / 'zero' (set to 0), 'increment' (by one, in
    exactly one list walk), 'read'; None for any other use (a write, its address, a macro argument)."""
    stmt = max(text.rfind(c, 0, start) for c in ";{}") + 1
    statement = text[stmt:text.find(";", end) + 1]
    after = text[end:].lstrip()
    if re.fullmatch(r"\s*(?:\w+\s*=(?!=)\s*)+0\s*;", statement):
        return "zero at top" if _open_before(text, start, "{", "}") == body else "zero"
    if re.fullmatch(rf"\s*(?:\+\+\s*\w+|\w+\s*(?:\+\+|\+=\s*1))\s*;", statement) or (
            re.fullmatch(r"\s*(?:\+\+|\+=\s*1\b)\s*;.*", after, re.S) and text[:start].rstrip()[-1:] == ")"):
        begin = stmt if re.fullmatch(r"\s*(?:\+\+\s*\w+|\w+\s*(?:\+\+|\+=\s*1))\s*;", statement) else start
        heads = _enclosing_heads(text, begin if text[begin:start].strip(" \t\n+") == "" else start, body)
        if heads is None:
            return None
        loops = [h for h in heads if h not in ("if", "{", "switch")]
        return "increment" if len(loops) == 1 and LIST_WALK.fullmatch(loops[0]) else None
    if re.match(r"(?:\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=)", after) or re.search(r"(?:&|\+\+|--)\s*$", text[:start]):
        return None
    if re.search(r"(?:^|[^\w\s])\s*\(\s*$", text[:start]):
        return None  # `(x)` could be written through: `(x)++`
    pos = start
    while (pos := _open_before(text, pos, "(", ")")) >= 0:
        word = re.search(r"(\w+)\s*$", text[:pos])
        if word and word.group(1) not in PRINTING_CALLS and word.group(1) != "sizeof":
            return None
    return "read"


def _string_literal(node) -> bytes | None:
    """The bytes a `%s` of this argument prints, when it is a string literal (up to a NUL)."""
    node = _strip_parens(node)
    if node is None:
        return None
    parts = [node] if node.type == "string_literal" else list(node.named_children) if node.type == "concatenated_string" else []
    out = b""
    for part in parts:
        text = part.text.decode("latin-1")
        body = decode_c_string(text[1:-1]) if part.type == "string_literal" and text[:1] == '"' == text[-1:] else None
        if body is None:
            return None
        out += body
    return out.split(b"\0", 1)[0] if parts else None


def literal_pads_nothing(node, prec: bytes | None, widths: tuple[int, int]) -> str | None:
    """Why neither width pads `%s` of the argument: every string it can be is long enough."""
    node = _strip_parens(node)
    if node is None or prec == b"*":
        return None
    arms = ([node.child_by_field_name("consequence"), node.child_by_field_name("alternative")]
            if node.type == "conditional_expression" else [node])
    texts = [_string_literal(a) for a in arms]
    if any(t is None for t in texts):
        return None
    shortest = min(len(t if prec is None else t[:int(prec or b"0")]) for t in texts)
    if shortest < max(widths):
        return None
    what = "a string literal" if len(texts) == 1 else "either string literal of ?:"
    return f"{what} of at least {shortest} bytes: widths {widths[0]} and {widths[1]} pad nothing"


# ---------------------------------------------------------------------------------------------
# the operators at one conversion


@dataclass
class Site:
    """One conversion of one seq_printf format in a function."""

    src: bytes
    printer: Printer
    fmt_node: object
    pieces: list[Piece]
    index: int
    where: str
    arg: object  # the tree-sitter node of the converted argument, or None

    @property
    def piece(self) -> Piece:
        return self.pieces[self.index]

    def text_with(self, pieces: list[Piece]) -> bytes:
        """The function with the format made of `pieces`."""
        fmt = b"".join(p.text.replace(b"%", b"%%") if p.literal else p.text for p in pieces if p.text)
        start, end = self.fmt_node.start_byte - self.printer.start, self.fmt_node.end_byte - self.printer.start
        text = self.src[self.printer.start:self.printer.end]
        return text[:start] + encode_c_string(fmt).encode("latin-1") + text[end:]

    def replaced(self, piece: Piece) -> bytes:
        return self.text_with(self.pieces[:self.index] + [piece] + self.pieces[self.index + 1:])

    def mutant(self, op: str, piece: Piece, cannot_change: str | None = None) -> Mutant:
        return Mutant(op, self.where, self.replaced(piece), cannot_change=cannot_change)


def reparse(text: bytes) -> Piece:
    m = CONVERSION.match(text)
    return Piece(text, False, m.group("flags"), m.group("width"), m.group("prec"), m.group("len") or b"",
                 m.group("conv"))


def with_width(p: Piece, w: int) -> Piece:
    m = CONVERSION.match(p.text)
    return reparse(b"%" + p.flags + (str(w).encode() if w > 0 else b"") + p.text[m.end("width"):])


def width_mutants(s: Site) -> list[Mutant]:
    p = s.piece
    if not p.width or p.width == b"*":
        return []
    w = int(p.width)
    text = (lambda v: literal_pads_nothing(s.arg, p.prec, (w, v))) if p.conv == b"s" else (lambda v: None)
    out = [s.mutant("width+1", with_width(p, w + 1), text(w + 1))]
    out.append(s.mutant("width-1", with_width(p, w - 1), "width 1 to no width: both pad nothing" if w == 1 else text(w - 1)))
    return out


def zero_padding_mutants(s: Site) -> list[Mutant]:
    p = s.piece
    if p.conv not in b"diuxXo" or b"0" in p.flags:
        return []
    newp = reparse(b"%0" + p.text[1:])
    if not p.width:
        return [s.mutant("zero-padding", newp, "no width: a 0 flag pads nothing")]
    if b"-" in p.flags:
        return [s.mutant("zero-padding", newp, "left-justified: '-' cancels '0' (lib/vsprintf.c number())")]
    if p.width == b"1":
        return [s.mutant("zero-padding", newp, "width 1: a 0 flag pads nothing")]
    return [s.mutant("zero-padding", newp)]


def d_for_u_mutants(s: Site, types: Types) -> list[Mutant]:
    p = s.piece
    if p.conv != b"u":
        return []
    bits = CONVERSION_BITS[p.length]
    return [s.mutant("d-for-u", reparse(p.text[:-1] + b"d"), below_sign_bit(s.arg, bits, types) if s.arg else None)]


def delimiter_mutants(s: Site) -> list[Mutant]:
    """The delimiter after a number moved before it; the blank separator to the next conversion dropped."""
    p, i, pieces = s.piece, s.index, s.pieces
    nxt = pieces[i + 1] if i + 1 < len(pieces) else None
    if p.conv not in b"diuxXo" or nxt is None or not nxt.literal:
        return []
    out: list[Mutant] = []
    ch = nxt.text[:1]
    if ch in DELIMITERS:
        moved = pieces[:i] + [Piece(ch, True), p, Piece(nxt.text[1:], True)] + pieces[i + 2:]
        out.append(Mutant("delimiter-moved", s.where, s.text_with(moved)))
    if i + 2 < len(pieces) and not pieces[i + 2].literal and nxt.text.strip(b" \t") == b"":
        dropped = pieces[:i + 1] + [Piece(nxt.text[1:], True)] + pieces[i + 2:]
        out.append(Mutant("separator-dropped", s.where, s.text_with(dropped)))
    return out


def make_mutants(src: bytes, printer: Printer, func_node, tree: str | None = None) -> list[Mutant]:
    """Every applicable site of the first five operators in one function's seq_printf formats."""
    types = Types(src, printer.path, tree, func_node)
    mutants: list[Mutant] = []
    for stmt, args in printf_statements(func_node):
        fmt = format_of(args[1], src) if len(args) >= 2 else None
        pieces = split_format(fmt) if fmt is not None else None
        if pieces is None:
            continue
        argpos = 0
        for i, p in enumerate(pieces):
            if p.literal:
                continue
            argpos += p.nargs
            arg = args[1 + argpos] if 1 + argpos < len(args) else None
            s = Site(src, printer, args[1], pieces, i, f"line {stmt.start_point[0] + 1}: "
                     f"{p.text.decode('latin-1')} (conversion {i + 1})", arg)
            mutants += width_mutants(s) + zero_padding_mutants(s) + d_for_u_mutants(s, types) + delimiter_mutants(s)
    return mutants


HELPER = (b"static void fc_put_width_mut(struct seq_file *m, const char *d, unsigned long long v,"
          b" unsigned int w) { if (v < 10) seq_put_decimal_ull(m, d, v); else seq_put_decimal_ull_width(m, d, v, w); }\n")


def helper_mutants(rewrite: bytes, line_of) -> list[Mutant]:
    """The helper that skips padding below 10, at every width call of the rewrite."""
    out: list[Mutant] = []
    for m in re.finditer(rb"seq_put_decimal_ull_width\(", rewrite):
        line = rewrite[:m.start()].count(b"\n")
        wm = re.search(rb",\s*(\d+)\);", rewrite[m.end():m.end() + 300])
        site = f"line {line_of(line)}: seq_put_decimal_ull_width"
        if wm and int(wm.group(1)) < 2:
            out.append(Mutant("helper-skips-padding", site, None, "width below 2: nothing to skip"))
            continue
        out.append(Mutant("helper-skips-padding", site, rewrite[:m.start()] + b"fc_put_width_mut(" + rewrite[m.end():]))
    return out
