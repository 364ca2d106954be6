"""C front end: kernel C text (whole files, functions, fragments) to tree-sitter syntax trees.

Kernel code is not plain C: it leans on the preprocessor (`#define` wrappers such as SEQ_PUT_DEC,
string macros, `for_each_*` iterators written like statements) and on annotations (`__weak`,
`__aligned(n)`, `__always_inline`). tree-sitter parses C, not the preprocessor, so this module
first runs a small, bounded preprocessor of its own over the text:

- `#define`s given in the input are collected and expanded (object- and function-like, with `#`
  and `##`); every other directive line is blanked, and of a `#if`/`#ifdef` block only the first
  branch is kept (the configuration with the feature on);
- annotations that carry no meaning for output are blanked;
- `for_each_x(args)` statement heads become `for (;__fc_each("for_each_x", args);)` so that
  tree-sitter sees a loop; the interpreter gives such loops an input-chosen iteration count.

Line numbers survive every rewrite (replacements never add or remove newlines), so reports point
at the user's lines. A text with no function definition is a statement list, and a text whose
braces do not balance is a fragment cut from the middle of a function: both are wrapped in a
synthetic function `__fc_fragment` after the braces are balanced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from fmtcheck.c.headers import includes_of, tree_function_macros, tree_object_macros
from fmtcheck.c.macroheads import rewrite_macro_heads
from fmtcheck.c.tsgrammar import c_parser
from fmtcheck.common.errors import InputError
from fmtcheck.kernel import macros as kernel_macros
from fmtcheck.kernel.macros import (
    ANNOTATIONS,
    ANNOTATIONS_WITH_ARGS,
    FOR_EACH,
    matching_paren,
)
from fmtcheck.common.lazyre import lazy_compile

MAX_SOURCE_BYTES = 4 * 1024 * 1024
MAX_EXPANSION_BYTES = 1024 * 1024
MAX_EXPANSION_DEPTH = 64
FRAGMENT_NAME = "__fc_fragment"

_TOKEN = lazy_compile(
    rb"""(?P<ws>[ \t\r\f\v]+)|(?P<nl>\n)|(?P<comment>/\*.*?\*/|//[^\n]*)
    |(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<id>[A-Za-z_]\w*)|(?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
    |(?P<punct>\#\#|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[^\s])""",
    re.S | re.X,
)


@dataclass
class Macro:
    """A `#define` from the input: object-like when params is None."""

    name: str
    params: list[str] | None
    body: list[bytes]
    line: int
    variadic: bool = False


@dataclass
class Source:
    """Preprocessed text ready for tree-sitter, with what the preprocessor learned."""

    text: bytes
    macros: dict[str, Macro] = field(default_factory=dict)
    wrapped: bool = False  # the text was wrapped into __fc_fragment
    line_offset: int = 0  # subtract from tree line numbers to get the user's line
    includes: list[tuple[bool, str]] = field(default_factory=list)  # (<...>, name) of #include lines
    conditionals: list["Conditional"] = field(default_factory=list)  # every #if of the text, unchosen


def _check_text(data: bytes, where: str) -> None:
    if len(data) > MAX_SOURCE_BYTES:
        raise InputError(where, f"source is {len(data)} bytes, over the {MAX_SOURCE_BYTES} limit")
    if not data.strip():
        raise InputError(where, "empty input: no C code")
    if b"\x00" in data:
        raise InputError(where, "binary file (NUL byte): not C source")
    sample = data[:65536]
    odd = sum(1 for b in sample if b < 9 or 13 < b < 32 or b == 127)
    if odd * 50 > len(sample):
        raise InputError(where, "binary file: not C source")


def _join_continuations(data: bytes) -> list[bytes]:
    """Split into physical lines; a directive continued with backslashes is kept whole, with
    the continued lines left empty so the line count does not change."""
    lines = data.split(b"\n")
    out: list[bytes] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        extra = 0
        if line.lstrip().startswith(b"#"):
            while line.rstrip(b" \t\r").endswith(b"\\") and i + extra + 1 < len(lines):
                extra += 1
                line = line.rstrip(b" \t\r")[:-1] + b" " + lines[i + extra]
        out.append(line)
        out.extend([b""] * extra)
        i += extra + 1
    return out


def _parse_define(line: bytes, lineno: int) -> Macro | None:
    m = re.match(rb"\s*#\s*define\s+([A-Za-z_]\w*)(\()?", line)
    if not m:
        return None
    name = m.group(1).decode()
    rest = line[m.end():]
    params: list[str] | None = None
    variadic = False
    if m.group(2):
        close = rest.find(b")")
        if close < 0:
            return None
        raw = [p.strip() for p in rest[:close].split(b",") if p.strip()]
        params = []
        for p in raw:
            if p == b"...":
                variadic = True
                params.append("__VA_ARGS__")
            else:
                params.append(p.decode("latin-1"))
        rest = rest[close + 1:]
    body = [t for t in tokenize(_strip_comments(rest)) if not t.isspace()]
    return Macro(name, params, body, lineno, variadic)


def _strip_comments(data: bytes) -> bytes:
    return re.sub(rb"/\*.*?\*/|//[^\n]*", b" ", data, flags=re.S)


def tokenize(data: bytes) -> list[bytes]:
    """C tokens, with whitespace runs, newlines and comments kept as tokens of their own."""
    return [m.group(0) for m in _TOKEN.finditer(data)]


@dataclass(frozen=True)
class Conditional:
    """One `#if`/`#ifdef`/`#ifndef` ... `#endif` of a text, as it reads before any branch is chosen.

    `key` is its opening directive with blanks folded (`#ifdef CONFIG_SMP`): conditionals with the
    same key test the same thing, so one build takes the same branch of each. `branches` holds the
    text of each branch (nested directives included) and ends with an empty branch when there is no
    `#else` (a build where no condition holds compiles nothing). `path` is where it sits: the
    (key, branch) of each enclosing conditional, outermost first; `line`..`end` its lines.
    `compiled` tells which build the parse was: it lets a divergence be checked for being a
    configuration at all (`#ifdef X` and `#ifndef X` both compiled is none).
    """

    key: bytes
    line: int
    end: int
    openers: tuple[bytes, ...]
    branches: tuple[bytes, ...]
    path: tuple[tuple[bytes, int], ...]
    compiled: int | None = None  # the branch this parse compiled; None inside a branch it did not


class _Open:
    """A conditional being read: what `_directives` needs until its `#endif`."""

    def __init__(self, parent_kept: bool, key: bytes, line: int, opener: bytes, want: int | None) -> None:
        self.parent_kept, self.key, self.line, self.want = parent_kept, key, line, want
        self.taken = False
        self.compiled: int | None = None
        self.openers: list[bytes] = [opener]
        self.branches: list[list[bytes]] = [[]]

    def enter(self, live: bool) -> bool:
        """A branch starts; whether it is compiled."""
        if live and self.parent_kept:
            self.compiled = len(self.branches) - 1
        return self.parent_kept and live

    def finish(self, end: int, path: tuple[tuple[bytes, int], ...]) -> Conditional:
        branches = [b"\n".join(lines) for lines in self.branches]
        if not self.openers[-1].startswith(b"#else"):
            branches.append(b"")
        compiled = self.compiled
        if compiled is None and self.parent_kept and len(branches) > len(self.openers):
            compiled = len(branches) - 1
        return Conditional(self.key, self.line, end, tuple(self.openers), tuple(branches), path, compiled)


def _folded(directive: bytes) -> bytes:
    return b" ".join(directive.split())


def _directives(lines: list[bytes], world: dict[bytes, int] | None = None
                ) -> tuple[list[bytes], dict[str, Macro], dict[str, list[tuple[int, Macro | None]]], list[Conditional]]:
    """Blank every directive line, collect defines, keep one branch of each conditional and
    record every conditional as it reads. The macros are those in force at the end; a name
    defined again or `#undef`-ed also has its (line, definition or None) events, in order, so
    that each use expands to the definition in force at its line (`#define N(val) case
    NETDEV_##val: ...`, its uses, `#undef N`: net/core/dev.c).

    Without WORLD the branch kept is the first that may be compiled: ``#if 0`` (the kernel's way
    to keep dead code or prose in a file) is never compiled, so its ``#elif``/``#else`` branch is
    kept instead; any other condition is unknown without the configuration and its first branch
    stands for the conditional. WORLD (conditional key -> branch index) chooses another build:
    `fmtcheck.engine.builds` judges the builds in which the sides' texts differ.
    """
    macros: dict[str, Macro] = {}
    events: dict[str, list[tuple[int, Macro | None]]] = {}
    out: list[bytes] = []
    stack: list[_Open] = []
    done: list[Conditional] = []
    kept = True
    for lineno, line in enumerate(lines, 1):
        stripped = line.lstrip()
        for cond in stack:
            cond.branches[-1].append(line)
        if not stripped.startswith(b"#"):
            out.append(line if kept else b"")
            continue
        word = re.match(rb"#\s*(\w*)", stripped)
        directive = word.group(1) if word else b""
        if directive in (b"if", b"ifdef", b"ifndef"):
            key = _folded(stripped)
            want = world.get(key) if world else None
            cond = _Open(kept, key, lineno, key, want)
            live = (want == 0) if want is not None else not (directive == b"if" and never_compiled(stripped))
            cond.taken = live
            stack.append(cond)
            kept = cond.enter(live)
        elif directive in (b"elif", b"else") and stack:
            cond = stack[-1]
            cond.branches[-1].pop()
            cond.openers.append(_folded(stripped))
            cond.branches.append([])
            if cond.want is not None:
                live = cond.want == len(cond.branches) - 1
            else:
                live = not cond.taken and not (directive == b"elif" and never_compiled(stripped))
            cond.taken = cond.taken or live
            kept = cond.enter(live)
        elif directive == b"endif":
            if stack:
                cond = stack.pop()
                cond.branches[-1].pop()
                kept = cond.parent_kept
                done.append(cond.finish(lineno, tuple((c.key, len(c.branches) - 1) for c in stack)))
        elif directive == b"define" and kept:
            macro = _parse_define(line, lineno)
            if macro:
                macros[macro.name] = macro
                events.setdefault(macro.name, []).append((lineno, macro))
        elif directive == b"undef" and kept:
            name = stripped.split()[1:2]
            if name:
                macros.pop(name[0].decode("latin-1"), None)
                events.setdefault(name[0].decode("latin-1"), []).append((lineno, None))
        out.append(b"")
    # a name defined again, or `#undef`-ed: the expander takes the definition in force at each line
    scoped = {name: ev for name, ev in events.items() if len(ev) > 1 or ev[0][1] is None}
    return out, macros, scoped, done


def never_compiled(directive: bytes) -> bool:
    """``#if 0`` / ``#elif 0`` (comments already blanked): a condition false in every build."""
    return re.fullmatch(rb"#\s*(?:el)?if\s*\(?\s*0\s*\)?\s*", directive.rstrip()) is not None


class _Expander:
    """A bounded macro expander over token lists (the subset of cpp the kernel's output code uses)."""

    def __init__(self, macros: dict[str, Macro], scoped: dict[str, list[tuple[int, Macro | None]]] | None = None,
                 before: dict[str, Macro] | None = None) -> None:
        self.macros = macros
        self.scoped = scoped or {}
        self.before = before or {}  # what a scoped name means before the text's first event (a header's)
        self.line = 1  # the line of the text being expanded (uses inside an expansion keep the call's)
        self.budget = MAX_EXPANSION_BYTES

    def _in_force(self, name: str) -> Macro | None:
        events = self.scoped.get(name)
        if events is None:
            return self.macros.get(name)
        macro = self.before.get(name)
        for line, defined in events:
            if line >= self.line:
                break
            macro = defined
        return macro

    def expand(self, tokens: list[bytes], hide: frozenset[str] = frozenset(), depth: int = 0) -> list[bytes]:
        if depth > MAX_EXPANSION_DEPTH:
            raise InputError("macro", "macro expansion nested too deeply")
        out: list[bytes] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok == b"\n" and depth == 0:
                self.line += 1
            name = tok.decode("latin-1") if _is_ident(tok) else None
            macro = self._in_force(name) if name and name not in hide else None
            if macro is None:
                out.append(tok)
                i += 1
                continue
            if macro.params is None:
                self._spend(sum(len(t) for t in macro.body), macro, name)
                # the body's tokens apart, as written (`sizeof(struct key_vector *)` stays three words)
                out.extend(self.expand([t for tok in macro.body for t in (tok, b" ")], hide | {name}, depth + 1))
                i += 1
                continue
            j = _skip_space(tokens, i + 1)
            if j >= len(tokens) or tokens[j] != b"(":
                out.append(tok)
                i += 1
                continue
            args, end = _collect_args(tokens, j)
            body = self._substitute(macro, args, hide, depth)
            self._spend(sum(len(t) for t in body), macro, name)
            out.extend(self.expand(body, hide | {name}, depth + 1))
            # keep the line count: the newlines swallowed inside the argument list come after
            swallowed = sum(1 for t in tokens[i:end] if t == b"\n")
            out.extend(b"\n" for _ in range(swallowed))
            if depth == 0:
                self.line += swallowed
            i = end
        return out

    def _spend(self, size: int, macro: Macro, name: str) -> None:
        """Every expansion costs its size; a text that expands past the budget is refused (an
        exponential macro chain would otherwise take minutes)."""
        self.budget -= size + 1
        if self.budget < 0:
            raise InputError(f"line {macro.line}", f"expansion of macro {name} is too large (over {MAX_EXPANSION_BYTES} bytes)")

    def _substitute(self, macro: Macro, args: list[list[bytes]], hide: frozenset[str], depth: int) -> list[bytes]:
        params = macro.params or []
        if macro.variadic and len(args) > len(params):
            head = args[: len(params) - 1]
            tail: list[bytes] = []
            for k, a in enumerate(args[len(params) - 1:]):
                if k:
                    tail.append(b",")
                tail.extend(a)
            args = head + [tail]
        table = {p: args[k] if k < len(args) else [] for k, p in enumerate(params)}
        body = macro.body
        out: list[bytes] = []
        k = 0
        while k < len(body):
            tok = body[k]
            if tok == b"#" and k + 1 < len(body) and body[k + 1].decode("latin-1") in table:
                text = b" ".join(t for t in table[body[k + 1].decode("latin-1")] if not t.isspace())
                out.append(b'"' + text.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"')
                k += 2
                continue
            if tok == b"##" and out and k + 1 < len(body):
                while out and out[-1].isspace():
                    out.pop()
                if out and out[-1] == b",":
                    # GNU ", ##__VA_ARGS__": the comma goes when the arguments are empty
                    rest = [t for t in table.get(body[k + 1].decode("latin-1"), [body[k + 1]]) if not t.isspace()]
                    if not rest:
                        out.pop()
                        k += 2
                        continue
                    k += 1
                    continue
                nxt = body[k + 1]
                nxt_tokens = table.get(nxt.decode("latin-1"), [nxt])
                nxt_tokens = [t for t in nxt_tokens if not t.isspace()]
                glued = out.pop() + (nxt_tokens[0] if nxt_tokens else b"")
                out.append(glued)
                out.extend(nxt_tokens[1:])
                k += 2
                continue
            name = tok.decode("latin-1")
            if name in table and not (k + 1 < len(body) and body[k + 1] == b"##"):
                out.extend(self.expand([t for t in table[name] if t != b"\n"], hide, depth + 1))
            elif name in table:
                out.extend(t for t in table[name] if t != b"\n")
            else:
                out.append(tok)
            out.append(b" ")
            k += 1
        return out


def _is_ident(tok: bytes) -> bool:
    return bool(tok) and (tok[0:1].isalpha() or tok[0:1] == b"_") and tok.replace(b"_", b"a").isalnum()


def _skip_space(tokens: list[bytes], j: int) -> int:
    while j < len(tokens) and (tokens[j].isspace() or tokens[j].startswith((b"/*", b"//"))):
        j += 1
    return j


def _collect_args(tokens: list[bytes], open_index: int) -> tuple[list[list[bytes]], int]:
    """Arguments of a macro call whose '(' is at open_index; returns them and the index after ')'."""
    depth = 0
    args: list[list[bytes]] = [[]]
    j = open_index
    while j < len(tokens):
        tok = tokens[j]
        if tok == b"(":
            depth += 1
            if depth > 1:
                args[-1].append(tok)
        elif tok == b")":
            depth -= 1
            if depth == 0:
                return ([a for a in args] if any(args) or len(args) > 1 else []), j + 1
            args[-1].append(tok)
        elif tok == b"," and depth == 1:
            args.append([])
        elif not tok.startswith((b"/*", b"//")):
            args[-1].append(tok)
        j += 1
    raise InputError("macro", "unterminated macro argument list")


_COMMENT_OR_STRING = lazy_compile(rb"""/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""", re.S)


def _blank_comments(text: bytes) -> bytes:
    """Comments become spaces (newlines kept), so a fragment cut inside one cannot swallow the
    braces the wrapper adds."""
    def blank(m: re.Match) -> bytes:
        tok = m.group(0)
        if tok.startswith((b"/*", b"//")):
            return bytes(b if b == 0x0A else 0x20 for b in tok)
        return tok
    return _COMMENT_OR_STRING.sub(blank, text)


def _blank_annotations(text: bytes) -> bytes:
    text = ANNOTATIONS.sub(lambda m: b" " * len(m.group(0)), text)
    out = bytearray()
    pos = 0
    for m in ANNOTATIONS_WITH_ARGS.finditer(text):
        if m.start() < pos:
            continue
        end = matching_paren(text, m.end() - 1)
        if end is None:
            continue
        out += text[pos:m.start()]
        out += bytes(b if b == 0x0A else 0x20 for b in text[m.start():end + 1])
        pos = end + 1
    out += text[pos:]
    return bytes(out)


def _rewrite_for_each(text: bytes) -> bytes:
    """`for_each_x(a, b)` as a statement head becomes `for (;__fc_each("for_each_x", a, b);)`."""
    out = bytearray()
    pos = 0
    for m in FOR_EACH.finditer(text):
        if m.start() < pos:
            continue
        before = text[:m.start()].rstrip()
        # only at statement position: after ';', '{', '}', ')' (an if/else head) or 'else' or start
        if before and not (before.endswith((b";", b"{", b"}", b")", b":")) or before.endswith(b"else")):
            continue
        close = matching_paren(text, m.end() - 1)
        if close is None:
            continue
        name = m.group(1)
        args = text[m.end():close]
        out += text[pos:m.start()]
        out += b'for (;__fc_each("' + name + b'"' + (b", " + args if args.strip() else b"") + b");)"
        pos = close + 1
    out += text[pos:]
    return bytes(out)


def _balance_braces(text: bytes) -> tuple[bytes, bool]:
    """Close a fragment cut from a function: add '{' before and '}' after as needed."""
    depth = 0
    lowest = 0
    for tok in tokenize(text):
        if tok == b"{":
            depth += 1
        elif tok == b"}":
            depth -= 1
            lowest = min(lowest, depth)
    opening = -lowest
    closing = depth + opening
    if opening == 0 and closing == 0:
        return text, False
    return b"{" * opening + text + b"\n" + b"}" * closing, True


def preprocess(data: bytes, where: str = "input", extra_macros: dict[str, Macro] | None = None,
               world: dict[bytes, int] | None = None, tree: str | None = None) -> Source:
    """Run the bounded preprocessor; the result is C that tree-sitter can parse. WORLD chooses
    the branch of conditionals by key (`_directives`); with TREE, the arithmetic macros of the
    headers the file includes are expanded too (`header_macros`)."""
    _check_text(data, where)
    data = data.replace(b"\r\n", b"\n")
    # comments go first, as in C's translation phases: one opened on a directive line
    # (`#define N 0 /* several lines */`) belongs to that line, never to the code after it
    lines, macros, scoped, conditionals = _directives(_join_continuations(_blank_comments(data)), world)
    if tree:
        extra_macros = {**header_macros(data, where, tree), **(extra_macros or {})}
    if extra_macros:
        macros = {**extra_macros, **macros}
    text = b"\n".join(lines)
    if macros or scoped:
        expander = _Expander(macros, scoped, extra_macros or {})
        text = b"".join(expander.expand(tokenize(text)))
    text = _blank_annotations(text)
    text = kernel_macros.rewrite(text)
    if tree:
        text = rewrite_macro_heads(text, data, where, tree)
    text = _rewrite_for_each(text)
    return Source(text, macros, includes=includes_of(data), conditionals=conditionals)




_CAPS_CALL = lazy_compile(rb"\b([A-Z][A-Z0-9_]*)\s*\(")
_CAST_WORDS = {b"unsigned", b"signed", b"long", b"int", b"short", b"char", b"u8", b"u16", b"u32", b"u64",
               b"s8", b"s16", b"s32", b"s64", b"__u32", b"__u64", b"size_t"}
_ARITHMETIC = {b"(", b")", b"+", b"-", b"*", b"/", b"%", b"<<", b">>", b"&", b"|", b"^", b"~", b"?", b":",
               b"<", b">", b"<=", b">=", b"==", b"!=", b"!", b"&&", b"||", b","}
MAX_HEADER_MACRO_ROUNDS = 4  # nesting of header macros followed (LOAD_FRAC -> LOAD_INT)


def header_macros(data: bytes, where: str, tree: str) -> dict[str, Macro]:
    """The function-like macros of the tree's headers that the file calls and that are plain
    arithmetic of their parameters: upper-case names (`LOAD_INT(x) ((x) >> FSHIFT)`, `K(x)`) whose
    bodies hold only parameters, numbers, upper-case constants, casts to integer types, operators
    and other such macros. Left unexpanded, such a macro is an uninterpreted function keyed by its
    argument's value, a new input for every value, and the search runs out of cases. A macro the
    model knows by name, or a body with anything else (statements, `typeof`, `##`, members, calls
    of functions), stays as it was."""
    includes = includes_of(data)
    wanted = {m.group(1).decode("latin-1") for m in _CAPS_CALL.finditer(data)}
    names = frozenset(m.group(0).decode("latin-1") for m in _CAPS_WORD.finditer(data))
    accepted: dict[str, Macro] = {n: m for n, m in ((n, _parse_define(line, 0)) for n, line in
                                                    tree_object_macros(tree, where, includes, names).items())
                                  if m is not None and _initializer(m)}
    for _ in range(MAX_HEADER_MACRO_ROUNDS):
        found = tree_function_macros(tree, where, includes, frozenset(wanted - set(accepted)))
        fresh = {name: m for name, m in ((n, _parse_define(line, 0)) for n, line in found.items())
                 if m is not None and m.params is not None and not m.variadic and not kernel_macros.modelled(name)
                 and (_plain_arithmetic(m) or _initializer(m) or _argument_list(m))}
        if not fresh:
            break
        accepted.update(fresh)
        wanted |= {t.decode("latin-1") for m in fresh.values() for t in _called(m.body)}
    while True:  # a macro expands only into macros that are taken themselves, all the way down
        # (an argument list is expanded whatever it calls: unexpanded, the arguments miscount)
        left_out = [n for n, m in accepted.items() if not _argument_list(m)
                    and any(c.decode("latin-1") not in accepted for c in _called(m.body))]
        if not left_out:
            return accepted
        for name in left_out:
            del accepted[name]


def _called(body: list[bytes]) -> list[bytes]:
    return [t for t, nxt in zip(body, body[1:] + [b""]) if nxt == b"(" and _IDENT.fullmatch(t) and t not in _CAST_WORDS]


def _plain_arithmetic(macro: Macro) -> bool:
    params = {p.encode("latin-1") for p in macro.params or []}
    for token in macro.body:
        if token in params or token in _ARITHMETIC or token in _CAST_WORDS or _NUMBER.fullmatch(token):
            continue
        if not _CAPS.fullmatch(token):
            return False
    return bool(macro.body)


def _initializer(macro: Macro) -> bool:
    """A braced initializer of parameters, literals, upper-case constants and addresses of
    names, designated by member (`#define SNMP_MIB_ITEM(_name, _entry) { .name = _name, .entry =
    _entry, }`, `{.label= #name, .counter= &sctp_dbg_objcnt_## name}`): the table entry the kernel
    compiles, which the model reads as any initializer."""
    body, params = macro.body, {p.encode("latin-1") for p in macro.params or []}
    if len(body) < 2 or body[0] != b"{" or body[-1] != b"}":
        return False
    for k, token in enumerate(body[1:-1], 1):
        named = _IDENT.fullmatch(token) and (body[k - 1] in (b".", b"&", b"##") or body[k + 1] == b"##")
        if token in params or token in (b".", b"=", b",", b"#", b"##", b"&", b"NULL") or _NUMBER.fullmatch(token) \
                or token.startswith(b'"') or _CAPS.fullmatch(token) or named:
            continue
        return False
    return True


def _argument_list(macro: Macro) -> bool:
    """Several arguments of a call, of parameters, members, calls and arithmetic
    (`#define ENTITY_NAME(n) ceph_entity_type_name((n).type), le64_to_cpu((n).num)`): unexpanded,
    a printf's arguments would not line up with its format."""
    depth, commas = 0, 0
    for token in macro.body:
        depth += (token == b"(") - (token == b")")
        commas += token == b"," and depth == 0
        if token in (b"{", b"}", b";", b"#", b"##", b"typeof", b"__typeof__") or token.startswith(b'"'):
            return False
    return commas > 0 and depth == 0


_IDENT = lazy_compile(rb"[A-Za-z_]\w*")
_CAPS = lazy_compile(rb"[A-Z][A-Z0-9_]*")
_CAPS_WORD = lazy_compile(rb"\b[A-Z][A-Z0-9_]*\b")
_NUMBER = lazy_compile(rb"(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*")


# ---------------------------------------------------------------------------------------------
# tree-sitter


def parse_tree(text: bytes):
    """Parse C text; tree-sitter never raises on bad input, it marks ERROR nodes."""
    return c_parser().parse(text)


def walk(node) -> Iterator:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def function_name(node) -> str | None:
    """The name of a function_definition node (through pointer declarators)."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return None
    inner = decl.child_by_field_name("declarator")
    while inner is not None and inner.type not in ("identifier", "field_identifier"):
        inner = inner.child_by_field_name("declarator")
    return inner.text.decode("latin-1") if inner is not None else None


@dataclass
class Unit:
    """A parsed input: its functions, file-scope declarations and macros."""

    source: Source
    tree: object
    functions: dict[str, object]
    globals: list[object]
    where: str
    # what whole-tree walks found, by (node id, question): every judgement of a pair (and every
    # rule-6 rerun, engine/assumed.py) compiles the same tree again and asks the same questions
    found: dict = field(default_factory=dict, repr=False, compare=False)

    def nodes_of(self, node, types: tuple[str, ...]) -> list:
        """The nodes of TYPES in NODE's subtree, in `walk` order, found by one walk per unit."""
        key = (node.id, types)
        nodes = self.found.get(key)
        if nodes is None:
            every = self.found.get((node.id, "every node"))
            if every is None:  # one walk of the subtree for every question asked of it
                every = self.found[(node.id, "every node")] = list(walk(node))
            nodes = self.found[key] = [n for n in every if n.type in types]
        return nodes

    def user_line(self, node) -> int:
        """The line in the user's text (a brace the fragment wrapper added counts as line 1). A
        wrapped text keeps the whole functions first, at their own lines, and the statements
        after the wrapper's three lines (`_wrap_fragment`): only those are shifted."""
        line = node.start_point[0] + 1
        if self.source.wrapped and line <= self.source.line_offset - 3:
            return line
        return max(line - self.source.line_offset, 1)


def _first_error(node):
    """The first ERROR or MISSING node in `walk` order: only subtrees that tree-sitter marks as
    holding one (`has_error`, true of every ancestor of such a node) are entered, so a clean
    unit costs one test, not a walk of every node."""
    if not node.has_error:
        return None
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n
        stack.extend(reversed([c for c in n.children if c.has_error]))
    return None


def parse_unit(data: bytes | str, where: str = "input", world: dict[bytes, int] | None = None,
               tree: str | None = None) -> Unit:
    """Parse a whole file, a set of functions, a statement list or a fragment of a function, in
    the build WORLD chooses (by default the first branch of every conditional that may be compiled),
    with the arithmetic macros of TREE's headers (`header_macros`)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    source = preprocess(data, where, world=world, tree=tree)
    tree = parse_tree(source.text)
    functions, globals_ = _top_level(tree.root_node)
    if not functions or _looks_like_fragment(tree.root_node, source.text):
        source = _wrap_fragment(source)
        tree = parse_tree(source.text)
        functions, globals_ = _top_level(tree.root_node)
    unit = Unit(source, tree, functions, globals_, where)
    _reject_garbage(unit)
    return unit


def _top_level(root) -> tuple[dict[str, object], list[object]]:
    functions: dict[str, object] = {}
    globals_: list[object] = []
    for child in root.children:
        if child.type == "function_definition":
            name = function_name(child)
            if name:
                functions[name] = child
        elif child.type == "declaration":
            globals_.append(child)
    return functions, globals_


def _looks_like_fragment(root, text: bytes) -> bool:
    """Statements at file scope or unbalanced braces mean the text was cut from a function."""
    balanced, changed = _balance_braces(text)
    if changed:
        return True
    for child in root.children:
        if child.type in ("expression_statement", "if_statement", "for_statement", "while_statement",
                          "return_statement", "compound_statement"):
            return True
        if child.type == "ERROR" and not any(c.type == "function_definition" for c in child.children):
            return True
    return False


def _wrap_fragment(source: Source) -> Source:
    """Keep whole function definitions at file scope; wrap the statements into __fc_fragment."""
    text, _ = _balance_braces(source.text)
    tree = parse_tree(text)
    keep = bytearray()
    body = bytearray()
    last = 0
    for child in tree.root_node.children:
        start, end = child.start_byte, child.end_byte
        gap = text[last:start]
        if child.type in ("function_definition", "preproc_def", "preproc_function_def") or (
            child.type == "declaration" and child.start_point[1] == 0 and b"(" not in child.text.split(b"=")[0]
            and _is_file_scope_decl(child)
        ):
            keep += _newlines_only(gap) + text[start:end]
            body += _newlines_only(gap) + _newlines_only(text[start:end])
        else:
            keep += _newlines_only(gap) + _newlines_only(text[start:end])
            body += gap + text[start:end]
        last = end
    keep += _newlines_only(text[last:])
    body += text[last:]
    wrapped = bytes(keep) + b"\nvoid " + FRAGMENT_NAME.encode() + b"(void)\n{\n" + bytes(body) + b"\n}\n"
    # the statements now start after the kept text plus three lines
    offset = keep.count(b"\n") + 3
    return Source(wrapped, source.macros, True, offset, conditionals=source.conditionals)


def _is_file_scope_decl(node) -> bool:
    return any(c.type == "storage_class_specifier" and c.text in (b"static", b"extern") for c in node.children)


def _newlines_only(data: bytes) -> bytes:
    return b"\n" * data.count(b"\n")


def _reject_garbage(unit: Unit) -> None:
    """Text that is not C at all (prose, binary noise) is bad input, not an unsupported construct."""
    root = unit.tree.root_node
    if not unit.functions:
        raise InputError(unit.where, "no C function or statement found")
    total = max(len(unit.source.text.strip()), 1)
    err_bytes = sum(n.end_byte - n.start_byte for n in root.children if n.type == "ERROR")
    meaningful = [f for f in unit.functions.values() if f.child_by_field_name("body") is not None]
    if err_bytes * 2 > total or not meaningful:
        raise InputError(unit.where, "not C source (tree-sitter could not parse it)")


def syntax_error_in(node, unit: Unit) -> tuple[int, str] | None:
    """The first syntax error inside a function, as (user line, text)."""
    key = (node.id, "syntax error")
    if key not in unit.found:
        unit.found[key] = _first_error(node)
    err = unit.found[key]
    if err is None:
        return None
    snippet = err.text[:40].decode("latin-1", "replace").replace("\n", " ")
    return unit.user_line(err), snippet
