"""Two sides that are the same C tokens are the same program: equivalent without running it.

Much of a tree-wide patch does not change what any function does: `static` dropped from a
definition so another file can call it, a multi-line call re-aligned under its parenthesis, a
comment fixed. Comparing the texts the engine would be given, token by token, proves those
equivalent at the cost of reading them, and leaves the engine's search for the functions that
changed. What is compared:

- comments and the whitespace between tokens are dropped, but for the marker of a hunk gap (code
  the patch does not show: moving a line across it may change the output); string and character literals are
  kept whole (a space inside a literal is output);
- operators are read by maximal munch (`a+ +b` is not `a++b`);
- the end of a preprocessor line is a token (it ends a `#define`); a backslash-newline is not;
- at file scope only, `static` and the inline keywords are dropped: there they change linkage,
  not what the code prints. Inside a function `static` makes a local persist, so it is kept.
"""

from __future__ import annotations

import re
from typing import Callable

from fmtcheck.c.literals import parse_number
from fmtcheck.patch.hunks import GAP_MARKER

_TOKEN = re.compile(
    rb"""
    (?P<space>[ \t\f\v\r]+|\\\n)
  | (?P<comment>/\*.*?\*/|//(?:[^\n\\]|\\.)*)
  | (?P<newline>\n)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<word>[A-Za-z_]\w*|\.?\d(?:[eEpP][-+]|[\w.])*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\#\#|/(?!\*)|[^\s"'/])
    """,
    re.S | re.X,
)
# keywords that at file scope change linkage or inlining only
_LINKAGE = {b"static", b"inline", b"__inline", b"__inline__", b"__always_inline", b"noinline",
            b"__maybe_unused", b"notrace"}


def c_tokens(text: bytes) -> list[bytes] | None:
    """The tokens of TEXT as the module doc says, or None when it does not tokenize (an
    unterminated literal or comment): then the texts are not compared this way."""
    tokens: list[bytes] = []
    depth = 0
    directive = False
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            return None
        position = match.end()
        kind = match.lastgroup
        token = match.group()
        if kind == "comment" and token == GAP_MARKER:
            tokens.append(token)  # code the patch does not show: a place, not a comment
            continue
        if kind in ("space", "comment"):
            continue  # a comment spanning lines inside a directive does not end it either
        if kind == "newline":
            if directive:
                tokens.append(b"\n")
                directive = False
            continue
        if token == b"#" and not directive and _starts_line(text, match.start()):
            directive = True
        if token == b"{":
            depth += 1
        elif token == b"}":
            depth = max(depth - 1, 0)
        if depth == 0 and not directive and token in _LINKAGE:
            continue
        tokens.append(token)
    return tokens


def _starts_line(text: bytes, at: int) -> bool:
    start = text.rfind(b"\n", 0, at) + 1
    return not text[start:at].strip()


def same_program(old: bytes, new: bytes) -> bool:
    """Whether OLD and NEW are the same tokens (module doc)."""
    if old == new:
        return True
    old_tokens = c_tokens(old)
    return old_tokens is not None and old_tokens == c_tokens(new)


_CONSTANT_NAME = re.compile(rb"[A-Z][A-Z0-9_]*\Z")


def same_but_constants(old: bytes, new: bytes, value_of: Callable[[str], tuple | None]) -> list[str] | None:
    """The constants OLD and NEW differ by, when they are the same tokens but for names that one
    side writes where the other writes the literal of the same value and type (``CPU_IDLE`` ->
    ``0``, whose enum in a header of the tree is 0, an int): the same program. VALUE_OF gives a
    name's (value, type) as the build has it, or None. A name that occurs anywhere else in
    either text (a local #define, a variable) is not taken: there it may not be the header's."""
    a, b = c_tokens(old), c_tokens(new)
    if a is None or b is None or len(a) != len(b):
        return None
    pairs = [(x, y) for x, y in zip(a, b) if x != y]
    if not pairs:
        return None
    names = []
    for x, y in pairs:
        name, literal = (x, y) if _CONSTANT_NAME.match(x) else (y, x)
        if not _CONSTANT_NAME.match(name) or not literal[:1].isdigit():
            return None
        names.append(name)
    if any(a.count(name) + b.count(name) != names.count(name) for name in set(names)):
        return None
    for name, (x, y) in zip(names, pairs):
        literal = y if x == name else x
        try:
            written = parse_number(literal.decode("latin-1"))
        except ValueError:
            return None
        known = value_of(name.decode("latin-1"))
        if known is None or written[0] is None or (known[0], known[1]) != written:
            return None
    return sorted({name.decode("latin-1") for name in names})
