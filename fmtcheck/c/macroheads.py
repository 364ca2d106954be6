"""A header's macro used as the head of a statement, read as what all its definitions are (with
`--tree`): `ifdebug(CACHE) seq_printf(...);` (include/linux/sunrpc/debug.h gives `if (...)` in
every build) is an `if`, `skb_queue_walk_safe(q, skb, tmp) { ... }` a loop. tree-sitter sees
neither without this: the call and the statement after it are a syntax error.
"""

from __future__ import annotations


from fmtcheck.c.headers import includes_of, tree_macro_bodies
from fmtcheck.kernel import macros as kernel_macros
from fmtcheck.common.lazyre import lazy_compile

# `name(args)` at a statement's start and followed by a statement, not by `;` or an operator
_HEAD_CALL = lazy_compile(rb"\b([a-z_]\w*)\s*\(")
_STATEMENT_AFTER = lazy_compile(rb"\s*(?:\{|[A-Za-z_])")
_IF_HEAD = lazy_compile(rb"if ?\(.*\)\Z")
_LOOP_HEAD = lazy_compile(rb"(?:for|while) ?\(.*\)\Z|\w*(?:for_each|FOR_EACH)\w* ?\(.*\)\Z")


def rewrite_macro_heads(text: bytes, data: bytes, where: str, tree: str) -> bytes:
    """A header's macro used as the head of a statement (`ifdebug(CACHE) seq_printf(...);`,
    `skb_queue_walk_safe(q, skb, tmp) { ... }`) is what its definitions are, when every one the
    headers give (a `#ifdef` may give several) is of one kind: all `if (...)` heads, an `if` on an
    unknown condition (the call, uninterpreted: `if (ifdebug(CACHE))`, whichever build); all loop
    heads, an iterator loop like `for_each_*`. Any other macro is left as it is."""
    heads = {}
    for m in _HEAD_CALL.finditer(text):
        if m.group(1) in _C_WORDS or not kernel_macros.at_statement_start(text, m.start()):
            continue
        close = kernel_macros.matching_paren(text, m.end() - 1)
        if close is not None and _STATEMENT_AFTER.match(text, close + 1) and not text.startswith(b"else", close + 1):
            heads[m.start()] = (m.group(1), close)
    if not heads:
        return text
    names = frozenset(name.decode("latin-1") for name, _ in heads.values())
    bodies = tree_macro_bodies(tree, where, includes_of(data), names)
    out = bytearray()
    pos = 0
    for start, (name, close) in sorted(heads.items()):
        found = bodies.get(name.decode("latin-1"))
        if start < pos or not found:
            continue
        call = text[start:close + 1]
        if all(_IF_HEAD.fullmatch(b) and _one_head(b) for b in found):
            new = b"if (" + call.replace(b"\n", b" ") + b")"
        elif all(_LOOP_HEAD.fullmatch(b) and _one_head(b) for b in found):
            inner = text[text.index(b"(", start) + 1:close].replace(b"\n", b" ")
            new = b'for (;__fc_each("' + name + b'"' + (b", " + inner if inner.strip() else b"") + b");)"
        else:
            continue
        out += text[pos:start] + new + b"\n" * call.count(b"\n")
        pos = close + 1
    out += text[pos:]
    return bytes(out)


_C_WORDS = {b"if", b"while", b"for", b"switch", b"return", b"sizeof", b"do", b"else", b"case", b"goto", b"typeof",
            b"__fc_each", b"defined"}


def _one_head(body: bytes) -> bool:
    """Whether the body's first parenthesis closes at its end: `if (a && b)`, not
    `if (len > n) seqbuf_dump()` (a statement of its own)."""
    return kernel_macros.matching_paren(body, body.index(b"(")) == len(body) - 1
