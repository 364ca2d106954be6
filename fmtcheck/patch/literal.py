"""Two sides that differ only in statements that print literals are checked statement by statement.

A tree-wide cleanup (`seq_printf(m, "text")` -> `seq_puts(m, "text")`, `seq_puts(m, "\\n")` ->
`seq_putc(m, '\\n')`) changes hundreds of functions, each in a line or two, and leaves the rest of
each the same tokens. Such a statement only prints: its arguments after the seq_file are
literals, so what it prints does not depend on any state, and it changes nothing but the seq_file.
When the two sides are the same tokens but for stretches of such statements, the functions are
equivalent exactly when each stretch prints the same bytes on both sides, which the engine
decides on the stretch alone (a function of the seq_file and nothing else), in a few
milliseconds instead of a search over the whole function.
"""

from __future__ import annotations

import difflib

from fmtcheck.patch.tokens import c_tokens

MAX_STRETCHES = 8
_LITERAL_OUTPUT = {b"seq_printf", b"seq_puts", b"seq_putc"}


def c_statements(tokens: list[bytes]) -> list[tuple[bytes, ...]]:
    """TOKENS cut into statements: each ends with `;` outside parentheses, `{`, `}` or the end
    of a preprocessor line."""
    out: list[tuple[bytes, ...]] = []
    current: list[bytes] = []
    depth = 0
    for token in tokens:
        current.append(token)
        if token == b"(":
            depth += 1
        elif token == b")":
            depth = max(depth - 1, 0)
        elif (token == b";" and depth == 0) or token in (b"{", b"}", b"\n"):
            out.append(tuple(current))
            current = []
    if current:
        out.append(tuple(current))
    return out


def literal_output(statement: tuple[bytes, ...]) -> bytes | None:
    """The seq_file STATEMENT prints to when it is one call of seq_printf/seq_puts/seq_putc whose
    other arguments are literals (`seq_puts(m, "x");`), else None."""
    if len(statement) < 6 or statement[0] not in _LITERAL_OUTPUT or statement[1] != b"(":
        return None
    if statement[-2:] != (b")", b";") or statement[3] != b",":
        return None
    seq, rest = statement[2], statement[4:-2]
    if not (seq[:1].isalpha() or seq[:1] == b"_"):
        return None
    if not rest or not all(t[:1] in (b'"', b"'") for t in rest):
        return None
    return seq


def literal_stretches(old: bytes, new: bytes) -> list[tuple[bytes, bytes, bytes]] | None:
    """(seq_file, old statements, new statements) for each stretch where OLD and NEW differ,
    when they are the same statements elsewhere and every differing statement prints literals
    to one and the same seq_file; else None."""
    old_tokens, new_tokens = c_tokens(old), c_tokens(new)
    if old_tokens is None or new_tokens is None:
        return None
    a, b = c_statements(old_tokens), c_statements(new_tokens)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    stretches = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        seqs = {literal_output(s) for s in a[i1:i2] + b[j1:j2]}
        if None in seqs or len(seqs) != 1 or len(stretches) == MAX_STRETCHES:
            return None
        join = lambda rows: b"\n".join(b" ".join(row) for row in rows)  # noqa: E731
        stretches.append((seqs.pop(), join(a[i1:i2]), join(b[j1:j2])))
    return stretches or None


def stretch_function(seq: bytes, body: bytes) -> bytes:
    """A function made of one stretch, for the engine."""
    return b"static void __fmtcheck_stretch(struct seq_file *%s)\n{\n%s\n}\n" % (seq, body)
