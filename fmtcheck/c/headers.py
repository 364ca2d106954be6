"""Constants the headers of a kernel tree define (with `--tree`): the enumerators and object-like
integer macros of the headers a file includes, so a table indexed by designators
(`[SIGEV_SIGNAL] = "signal"`) or a comparison with a constant uses the value the kernel
compiles, not an input.

Only what is certain is taken: a value that folds from literals and names already known; an
enumerator in an enum body with no preprocessor line before it (a `#ifdef` inside an enum shifts
the values after it by configuration); a name two headers define differently, or `#undef`, is
dropped. `<asm/...>` is x86's. Headers are read from the tree only (regular files under it),
bounded in number and size; each is read once per process.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from pathlib import Path

from fmtcheck.c.literals import parse_number, unescape
from fmtcheck.c.types import S32, conv, promote, usual
from fmtcheck.common.lazyre import lazy_compile

MAX_HEADERS = 1500  # headers read for one file (its includes, and theirs, breadth first)
MAX_DEPTH = 8  # include levels followed (uapi constants sit 4 to 6 levels down)
MAX_HEADER_BYTES = 1 << 20

_INCLUDE = lazy_compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_COMMENT = lazy_compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = lazy_compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?=[ \t])([^\n]*)$", re.M)
_UNDEF = lazy_compile(rb"^[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)", re.M)
_ENUM = lazy_compile(rb"\benum\b[ \t\n]*\w*[ \t\n]*\{")
_NAME = lazy_compile(r"[A-Za-z_]\w*\Z")
_TOKEN = lazy_compile(r"\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<|>>|[-+*/%()|&^~])")
# where `#include <x/y.h>` is looked for, in the kernel's order (x86 is the tree's default arch)
_SYSTEM_DIRS = ("include", "arch/x86/include", "include/uapi", "arch/x86/include/uapi",
                "arch/x86/include/generated", "include/generated")


def includes_of(text: bytes) -> list[tuple[bool, str]]:
    """(system, name) of every #include line of a C text."""
    return [(m.group(1) == b"<", m.group(2).decode("latin-1").strip()) for m in _INCLUDE.finditer(text)]


def tree_constants(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, tuple[int, tuple]]:
    """The constants (value, C type) the headers `includes` (of the file `where`, in `tree`) define."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    directory = _file_directory(root, where)
    return dict(_constants(root, directory, tuple(includes))[0])


def tree_strings(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, bytes]:
    """The string macros (`#define NFS_IOSTAT_VERS "1.1"`) the headers `includes` define."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    return dict(_constants(root, _file_directory(root, where), tuple(includes))[1])


def tree_return_types(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, tuple]:
    """The integer types the functions the headers `includes` declare return
    (`static inline unsigned long huge_page_size(const struct hstate *h)`); a name declared with
    two types, or also defined as a function-like macro, is dropped."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    return dict(_constants(root, _file_directory(root, where), tuple(includes))[2])


@functools.lru_cache(maxsize=64)
def _include_closure(root: Path, directory: Path | None, includes: tuple) -> tuple[Path, ...]:
    """The headers INCLUDES reach, breadth first, bounded in depth and number."""
    seen: dict[Path, None] = {}
    level = [h for h in (_resolve(root, directory, s, n) for s, n in includes) if h is not None]
    for _ in range(MAX_DEPTH):
        nxt = []
        for header in level:
            if header in seen or len(seen) >= MAX_HEADERS:
                continue
            seen[header] = None
            nxt += [h for h in (_resolve(root, header.parent, s, n) for s, n in _header(header)[3]) if h is not None]
        level = nxt
    return tuple(seen)


@functools.lru_cache(maxsize=64)
def _constants(root: Path, directory: Path | None, includes: tuple) -> tuple:
    found: list[tuple[dict[str, str], dict[str, tuple[int, tuple]], set[str]]] = []
    returns: dict[str, tuple | None] = {}
    for header in _include_closure(root, directory, includes):
        found.append(_header(header)[:3])
        for name, t in _return_types(header).items():
            returns[name] = t if returns.get(name, t) == t else None
    typed = tuple((name, t) for name, t in returns.items() if t is not None)
    return tuple(_combine(found).items()), tuple(_strings(found).items()), typed


# `static inline unsigned long name(`, `extern u64 name(`: an integer return type, no pointer
_PROTOTYPE = lazy_compile(
    rb"^[ \t]*(?:(?:static|extern|inline|__always_inline|__init|notrace)[ \t]+)*"
    rb"((?:(?:const|unsigned|signed|long|short|int|char)[ \t]+)*[A-Za-z_]\w*)[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.M)
_FUNCTION_MACRO = lazy_compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(", re.M)


@functools.lru_cache(maxsize=4096)
def _return_types(path: Path) -> dict[str, tuple | None]:
    """Name -> the integer type a header's function declarations give it (None: two types, or a
    function-like macro of that name, which is what the preprocessor calls)."""
    from fmtcheck.c.types import BASE_TYPES

    clean = _clean(path)
    if clean is None:
        return {}
    out: dict[str, tuple | None] = {}
    for m in _PROTOTYPE.finditer(clean):
        words = [w for w in m.group(1).decode("latin-1").split() if w != "const"]
        t = BASE_TYPES.get(" ".join(words))
        if t is None or t[0] != "int":
            continue
        name = m.group(2).decode("latin-1")
        out[name] = t if out.get(name, t) == t else None
    for m in _FUNCTION_MACRO.finditer(clean):
        out[m.group(1).decode("latin-1")] = None
    return out


_STRING_MACRO = lazy_compile(r'\s*(?:"(?:[^"\\\n]|\\.)*"\s*)+\Z')
_LITERAL = lazy_compile(r'"((?:[^"\\\n]|\\.)*)"')


def _strings(found: list) -> dict[str, bytes]:
    """Macros whose whole text is string literals, joined; a name defined twice differently, or
    `#undef`-ed, is dropped."""
    strings: dict[str, bytes] = {}
    dropped: set[str] = set()
    for defines, _, undefs in found:
        dropped |= undefs
        for name, text in defines.items():
            if not _STRING_MACRO.match(text):
                continue
            value = b"".join(unescape(m.group(1).encode("latin-1")) for m in _LITERAL.finditer(text))
            if name in strings and strings[name] != value:
                dropped.add(name)
            strings[name] = value
    return {name: value for name, value in strings.items() if name not in dropped}


def _combine(found: list) -> dict[str, tuple[int, tuple]]:
    """Enumerators first, then macros folded over what is known (twice: a macro may name a later one)."""
    values: dict[str, tuple[int, tuple]] = {}
    conflicts: set[str] = set()
    for _, enums, undefs in found:
        _merge(values, conflicts, enums)
        conflicts |= undefs
    texts: dict[str, str] = {}
    for defines, _, _ in found:
        for name, text in defines.items():
            if name in texts and " ".join(texts[name].split()) != " ".join(text.split()):
                conflicts.add(name)
            texts[name] = text
    for _ in range(2):
        for name, text in texts.items():
            if name in conflicts or name in values:
                continue
            v = fold(text, values)
            if v is not None:
                values[name] = v
    for name in conflicts:
        values.pop(name, None)
    return values


@functools.lru_cache(maxsize=4096)
def _header(path: Path) -> tuple[dict[str, str], dict[str, tuple[int, tuple]], set[str], list[tuple[bool, str]]]:
    data = _read(path)
    if data is None:
        return {}, {}, set(), []
    data = data.replace(b"\\\n", b" ")
    clean = _COMMENT.sub(b" ", data)
    defines = {m.group(1).decode("latin-1"): m.group(2).decode("latin-1") for m in _DEFINE.finditer(clean)}
    undefs = {m.group(1).decode("latin-1") for m in _UNDEF.finditer(clean)}
    return defines, enumerators(clean), undefs, includes_of(data)


_FUNCTION_DEFINE = lazy_compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)([^\n]*)$", re.M)


def tree_function_macros(tree: str | None, where: str, includes: list[tuple[bool, str]],
                         wanted: frozenset[str]) -> dict[str, bytes]:
    """Name -> `#define NAME(params) body` line, for the function-like macros among `wanted` that
    the headers `includes` define once (a name two headers define differently, or `#undef`, is
    dropped, as for constants)."""
    if not tree or not wanted:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    found = dict(_function_macros(root, _file_directory(root, where), tuple(includes)))
    return {name: line for name, line in found.items() if name in wanted}


def tree_object_macros(tree: str | None, where: str, includes: list[tuple[bool, str]],
                       wanted: frozenset[str]) -> dict[str, bytes]:
    """Name -> `#define NAME body` line, for the object-like macros among `wanted` that the
    headers `includes` define once (as `tree_function_macros`)."""
    if not tree or not wanted:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    texts: dict[str, str] = {}
    dropped: set[str] = set()
    for header in _include_closure(root, _file_directory(root, where), tuple(includes)):
        defines, _, undefs, _ = _header(header)
        for name in wanted & defines.keys():
            text = " ".join(defines[name].split())
            if texts.get(name, text) != text:
                dropped.add(name)
            texts[name] = text
        dropped |= undefs
    return {name: f"#define {name} {text}".encode("latin-1") for name, text in texts.items() if name not in dropped}


@functools.lru_cache(maxsize=64)
def _function_macros(root: Path, directory: Path | None, includes: tuple) -> tuple:
    lines: dict[str, bytes] = {}
    dropped: set[str] = set()
    for header in _include_closure(root, directory, includes):
        for name, line in _header_function_macros(header).items():
            if name in dropped:
                continue
            if line is None or lines.get(name, line) != line:
                lines.pop(name, None)
                dropped.add(name)
                continue
            lines[name] = line
        dropped |= _header(header)[2]
    return tuple((name, line) for name, line in lines.items() if name not in dropped)


@functools.lru_cache(maxsize=4096)
def _header_function_macros(path: Path) -> dict[str, bytes | None]:
    clean = _clean(path)
    if clean is None:
        return {}
    lines: dict[str, bytes | None] = {}
    for m in _FUNCTION_DEFINE.finditer(clean):
        name, line = m.group(1).decode("latin-1"), b" ".join(m.group(0).split())
        lines[name] = line if lines.get(name, line) == line else None  # two branches' bodies: neither
    return lines


_STRUCT_HEAD = lazy_compile(rb"\bstruct[ \t\n]+([A-Za-z_]\w*)[ \t\n]*\{")


def tree_structs(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, bytes]:
    """Name -> the text `struct NAME { ... }` of each struct the headers `includes` reach define
    once: a name defined twice differently (a `#ifdef` choosing between two layouts, two
    architectures' headers) is dropped, for no build's layout is then certain. The text keeps the
    `#if` lines inside the body: a caller may use the members (each name's type, when every
    declaration of it agrees), not the positions, of a body whose members depend on the build."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    return dict(_structs(root, _file_directory(root, where), tuple(includes)))


@functools.lru_cache(maxsize=64)
def _structs(root: Path, directory: Path | None, includes: tuple) -> tuple:
    found: dict[str, bytes] = {}
    dropped: set[str] = set()
    for header in _include_closure(root, directory, includes):
        for name, text in _header_structs(header):
            if name in found and b" ".join(found[name].split()) != b" ".join(text.split()):
                dropped.add(name)
            found.setdefault(name, text)
    return tuple((name, text) for name, text in found.items() if name not in dropped)


@functools.lru_cache(maxsize=4096)
def _header_structs(path: Path) -> tuple[tuple[str, bytes], ...]:
    clean = _clean(path)
    if clean is None:
        return ()
    out = []
    for m in _STRUCT_HEAD.finditer(clean):
        depth = 0
        for brace in _BRACE.finditer(clean, m.end() - 1):
            depth += 1 if brace.group(0) == b"{" else -1
            if depth == 0:
                out.append((m.group(1).decode("latin-1"), clean[m.start():brace.end()]))
                break
    return tuple(out)


_BRACE = lazy_compile(rb"[{}]")


# `typedef unsigned int rec_key_t;`, `typedef __u32 __be32;`: an integer type's words and a name
_TYPEDEF = lazy_compile(
    rb"^[ \t]*typedef[ \t]+((?:(?:unsigned|signed|long|short|int|char|const)[ \t]+)*[A-Za-z_]\w*)[ \t]+"
    rb"([A-Za-z_]\w*)[ \t]*;", re.M)


def tree_typedefs(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, str]:
    """Name -> the words of `typedef WORDS NAME;` of a plain type (no pointer, array or struct),
    for the names the headers `includes` reach define once: a name two branches of a `#ifdef`
    define differently (`u32` in one build, `u64` in the other) is dropped, for neither is then
    the type."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    return dict(_typedefs(root, _file_directory(root, where), tuple(includes)))


@functools.lru_cache(maxsize=64)
def _typedefs(root: Path, directory: Path | None, includes: tuple) -> tuple:
    found: dict[str, str] = {}
    dropped: set[str] = set()
    for header in _include_closure(root, directory, includes):
        for name, words in _header_typedefs(header):
            if found.get(name, words) != words:
                dropped.add(name)
            found[name] = words
    return tuple((name, words) for name, words in found.items() if name not in dropped)


@functools.lru_cache(maxsize=4096)
def _header_typedefs(path: Path) -> tuple[tuple[str, str], ...]:
    clean = _clean(path)
    if clean is None:
        return ()
    return tuple((m.group(2).decode("latin-1"), " ".join(w for w in m.group(1).decode("latin-1").split() if w != "const"))
                 for m in _TYPEDEF.finditer(clean))


def tree_macro_bodies(tree: str | None, where: str, includes: list[tuple[bool, str]],
                      wanted: frozenset[str]) -> dict[str, tuple[bytes, ...]]:
    """Name -> the body of every `#define NAME(params) body` among `wanted` in the headers
    `includes` reach, each once: a name defined in several branches of a `#ifdef` has several
    bodies, each what some build compiles (the caller decides only what they all agree on)."""
    if not tree or not wanted:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    bodies: dict[str, dict[bytes, None]] = {}
    for header in _include_closure(root, _file_directory(root, where), tuple(includes)):
        for name, body in _header_macro_bodies(header):
            if name in wanted:
                bodies.setdefault(name, {})[body] = None
    return {name: tuple(found) for name, found in bodies.items()}


@functools.lru_cache(maxsize=4096)
def _header_macro_bodies(path: Path) -> tuple[tuple[str, bytes], ...]:
    clean = _clean(path)
    if clean is None:
        return ()
    return tuple((m.group(1).decode("latin-1"), b" ".join(m.group(3).split())) for m in _FUNCTION_DEFINE.finditer(clean))


def _clean(path: Path) -> bytes | None:
    """A header's text with continuation lines joined and comments blanked (None: unreadable)."""
    data = _read(path)
    return None if data is None else _COMMENT.sub(b" ", data.replace(b"\\\n", b" "))


def _merge(values: dict[str, tuple[int, tuple]], conflicts: set[str], found: dict[str, tuple[int, tuple]]) -> None:
    for name, v in found.items():
        if name in conflicts:
            continue
        if name in values and values[name] != v:
            del values[name]
            conflicts.add(name)
            continue
        values[name] = v


def _file_directory(root: Path, where: str) -> Path | None:
    """The directory of the file being judged, when its name is a path in the tree."""
    name = re.sub(r" \([^)]*\)\Z", "", where)  # "fs/proc/base.c (rewrite)"
    name = re.sub(r":[A-Za-z_]\w*\Z", "", name)  # "fs/proc/base.c:proc_pid_status (old)", a patch's
    path = Path(name)
    path = path if path.is_absolute() else root / path
    try:
        path = path.resolve()
        path.relative_to(root)
    except (OSError, ValueError):
        return None
    return path.parent


@functools.lru_cache(maxsize=65536)
def _resolve(root: Path, directory: Path | None, system: bool, name: str) -> Path | None:
    candidates = [] if system or directory is None else [directory / name]
    candidates += [root / d / name for d in _SYSTEM_DIRS]
    if name.startswith("asm/"):
        # what the build generates for an asm header the arch does not have: the generic one
        candidates += [root / d / ("asm-generic/" + name[4:]) for d in ("include/uapi", "include")]
    for c in candidates:
        try:
            c = c.resolve()
            c.relative_to(root)
        except (OSError, ValueError):
            continue
        if c.is_file():
            return c
    return None


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_HEADER_BYTES:
            return None
        return kernel_text(os.read(fd, MAX_HEADER_BYTES))
    except OSError:
        return None
    finally:
        os.close(fd)


_CONDITIONAL = lazy_compile(rb"[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b(.*)")
_KERNEL_DEFINED = lazy_compile(rb"[ \t]*(?:(!)[ \t]*)?defined[ \t]*(?:\([ \t]*__KERNEL__[ \t]*\)|__KERNEL__)[ \t]*(?:/\*.*|//.*)?\Z")


def kernel_text(data: bytes) -> bytes:
    """A header as the kernel compiles it: the lines only a user-space build sees, the branch of
    `#ifndef __KERNEL__` (`#if !defined(__KERNEL__)`) and the `#else` of `#ifdef __KERNEL__`, are
    blanked (line numbers and the conditional lines themselves kept). The uapi headers define there what user space calls MAJOR, MINOR
    and MKDEV, which differ from the kernel's own (include/linux/kdev_t.h): read as a second
    definition, they made the kernel's a conflict, dropped, and every `MAJOR(dev)` a call keyed by
    its argument's value, a new input for every value the search gave `dev`."""
    if b"__KERNEL__" not in data:
        return data
    lines = data.split(b"\n")
    frames: list[int] = []  # per open conditional: 0 other, 1 kernel branch, 2 user-space branch
    for index, line in enumerate(lines):
        m = _CONDITIONAL.match(line)
        if m is None:
            if 2 in frames:
                lines[index] = b""
            continue
        word, rest = m.group(1), m.group(2)
        if word in (b"ifdef", b"ifndef", b"if"):
            outside = frames[:]
            frames.append(_kernel_frame(word, rest))
        elif not frames:
            continue
        else:
            outside = frames[:-1]
            if word == b"endif":
                frames.pop()
            else:
                frames[-1] = {1: 2, 2: 1 if word == b"else" else 0}.get(frames[-1], 0)
        if 2 in outside:
            lines[index] = b""  # a conditional inside a dropped branch goes with it
    return b"\n".join(lines)


def _kernel_frame(word: bytes, rest: bytes) -> int:
    """1 when a conditional's first branch is the kernel's, 2 when it is user space's, else 0."""
    name = rest.split(b"/*")[0].split(b"//")[0].strip()
    if word in (b"ifdef", b"ifndef"):
        if name != b"__KERNEL__":
            return 0
        return 1 if word == b"ifdef" else 2
    m = _KERNEL_DEFINED.match(rest)
    if m is None:
        return 0
    return 2 if m.group(1) else 1


def enumerators(text: bytes) -> dict[str, tuple[int, tuple]]:
    """The enumerators (value, type) of every `enum {...}` of a C text whose values are certain."""
    text = _COMMENT.sub(b" ", text)
    out: dict[str, tuple[int, tuple]] = {}
    for m in _ENUM.finditer(text):
        close = text.find(b"}", m.end())
        if close < 0:
            continue
        _enum_body(text[m.end():close].decode("latin-1"), out)
    return out


def _enum_body(body: str, out: dict[str, tuple[int, tuple]]) -> None:
    nxt: tuple[int, tuple] | None = (0, S32)
    for line_item in _items(body):
        if line_item is None:  # a preprocessor line: what follows depends on the configuration
            return
        name, _, value = line_item.partition("=")
        name = name.strip()
        name = re.sub(r"\s+__\w+(\(.*\))?\Z", "", name)  # __deprecated and other annotations
        if not _NAME.match(name):
            return
        folded = fold(value, out) if value.strip() else nxt
        if folded is None:
            return
        v = folded[0]
        # an enumerator is an int when its value fits (the values of a wider enum are rare)
        out.setdefault(name, (v, S32 if -(1 << 31) <= v < (1 << 31) else folded[1]))
        nxt = (v + 1, S32)


def _items(body: str):
    """Comma-separated enumerators; None for a preprocessor line among them."""
    current = ""
    for line in body.split("\n"):
        if line.lstrip().startswith("#"):
            if current.strip():
                yield current
            yield None
            return
        depth = 0
        for ch in line:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if ch == "," and depth == 0:
                if current.strip():
                    yield current
                current = ""
            else:
                current += ch
        current += " "
    if current.strip():
        yield current


def fold(expr: str, known: dict[str, tuple[int, tuple]]) -> tuple[int, tuple] | None:
    """The value and C type of an integer constant expression over literals and `known` names
    (value, type), with C's conversions; None when it does not fold."""
    tokens = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None:
            return None
        tokens.append(m.group(1))
        pos = m.end()
        if expr[pos:].strip() == "":
            break
    try:
        value, rest = _parse_binary(tokens, known)
    except (ValueError, IndexError, ZeroDivisionError):
        return None
    return value if not rest else None


_LEVELS = [("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"), ("*", "/", "%")]


def _parse_binary(tokens: list[str], known: dict, level: int = 0):
    if level == len(_LEVELS):
        return _parse_unary(tokens, known)
    left, rest = _parse_binary(tokens, known, level + 1)
    while rest and rest[0] in _LEVELS[level]:
        op = rest[0]
        right, rest = _parse_binary(rest[1:], known, level + 1)
        left = _apply(op, left, right)
    return left, rest


def _apply(op: str, a: tuple[int, tuple], b: tuple[int, tuple]) -> tuple[int, tuple]:
    (x, xt), (y, yt) = a, b
    if op in ("<<", ">>"):
        t = promote(xt)
        if not 0 <= y < t[1]:
            raise ValueError(op)
        return conv(x << y if op == "<<" else x >> y, t), t
    t = usual(xt, yt)
    x, y = conv(x, t), conv(y, t)
    if op in ("/", "%"):
        if y == 0:
            raise ZeroDivisionError(op)
        q = int(x / y)
        return conv(q if op == "/" else x - y * q, t), t
    v = {"|": x | y, "^": x ^ y, "&": x & y, "+": x + y, "-": x - y, "*": x * y}[op]
    return conv(v, t), t


def _parse_unary(tokens: list[str], known: dict):
    head, rest = tokens[0], tokens[1:]
    if head in ("-", "~"):
        (v, t), rest = _parse_unary(rest, known)
        t = promote(t)
        return (conv(-v if head == "-" else ~v, t), t), rest
    if head == "(":
        v, rest = _parse_binary(rest, known)
        if not rest or rest[0] != ")":
            raise ValueError("(")
        return v, rest[1:]
    if head[0].isdigit():
        value, t = parse_number(head)
        if value is None:
            raise ValueError(head)
        return (value, t), rest
    if head in known:
        return known[head], rest
    raise ValueError(head)


MAX_CONFIG_BLOCKS = 3  # #if blocks of one enum whose choices are enumerated (2^3 builds at most)


def tree_build_values(tree: str | None, where: str, includes: list[tuple[bool, str]]) -> dict[str, tuple[int, ...]]:
    """Enumerators whose value depends on the build configuration, with every value it may take
    (`enum misc_res_type { #ifdef CONFIG_KVM_AMD_SEV  SEV, SEV_ES, #endif  MISC_CG_RES_TYPES }`:
    0 or 2), from the headers `includes` of the file `where` in `tree`. A caller judges once per
    value and gives a verdict only when all agree: each is the value of some kernel build."""
    if not tree:
        return {}
    root = Path(tree).resolve()
    if not root.is_dir():
        return {}
    return dict(_build_values(root, _file_directory(root, where), tuple(includes)))


@functools.lru_cache(maxsize=64)
def _build_values(root: Path, directory: Path | None, includes: tuple) -> tuple:
    values: dict[str, tuple[int, ...]] = {}
    dropped: set[str] = set()
    for header in _include_closure(root, directory, includes):
        for name, choices in _header_build_values(header).items():
            if name in values and values[name] != choices:
                dropped.add(name)
            values[name] = choices
    return tuple((name, v) for name, v in values.items() if name not in dropped)


@functools.lru_cache(maxsize=4096)
def _header_build_values(path: Path) -> dict[str, tuple[int, ...]]:
    data = _read(path)
    return {} if data is None else config_enumerators(data)


def config_enumerators(text: bytes) -> dict[str, tuple[int, ...]]:
    """The enumerators after `#if` blocks of an enum (outside them), with the sorted values they
    take over every choice of branch per block. Only flat blocks (`#if`/`#ifdef`/`#ifndef`, an
    optional `#else`, `#endif`) of enumerators without `=` are read, at most MAX_CONFIG_BLOCKS."""
    text = _COMMENT.sub(b" ", text.replace(b"\\\n", b" "))
    out: dict[str, tuple[int, ...]] = {}
    for m in _ENUM.finditer(text):
        close = text.find(b"}", m.end())
        if close < 0 or b"#" not in text[m.end():close]:
            continue
        parts = _config_parts(text[m.end():close].decode("latin-1"))
        if parts is None or not any(isinstance(p, list) for p in parts):
            continue
        for name, choices in _values_per_build(parts).items():
            out.setdefault(name, choices)
    return out


def _config_parts(body: str) -> list | None:
    """The enum body as a list of enumerator names and, for each #if block, a list of its
    branches (each a list of names); None when it is not of the simple shape."""
    parts: list = []
    block: list[list[str]] | None = None
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("#"):
            word = re.match(r"#\s*(\w+)", stripped)
            word = word.group(1) if word else ""
            if word in ("if", "ifdef", "ifndef") and block is None:
                block = [[]]
            elif word == "else" and block is not None and len(block) == 1:
                block.append([])
            elif word == "endif" and block is not None:
                if len(block) == 1:
                    block.append([])  # no #else: the block may be left out
                parts.append(block)
                block = None
            else:
                return None
            continue
        for item in (i.strip() for i in stripped.split(",")):
            if not item:
                continue
            if not _NAME.match(item):
                return None  # a value (`= 4`) or an annotation: not enumerated here
            (block[-1] if block is not None else parts).append(item)
    if block is not None or sum(isinstance(p, list) for p in parts) > MAX_CONFIG_BLOCKS:
        return None
    return parts


def _values_per_build(parts: list) -> dict[str, tuple[int, ...]]:
    blocks = [p for p in parts if isinstance(p, list)]
    choices: list[tuple[int, ...]] = [()]
    for block in blocks:
        choices = [c + (k,) for c in choices for k in range(len(block))]
    values: dict[str, set[int]] = {}
    for choice in choices:
        picked = iter(choice)
        value = 0
        for part in parts:
            names = part[next(picked)] if isinstance(part, list) else [part]
            for name in names:
                if not isinstance(part, list):
                    values.setdefault(name, set()).add(value)
                value += 1
    return {name: tuple(sorted(v)) for name, v in values.items() if len(v) > 1}
