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

from fmtcheck.patch.hunks import GAP_MARKER
from fmtcheck.patch.tokens import c_tokens

MAX_STRETCHES = 64  # each is a small function the engine judges in milliseconds
_LITERAL_OUTPUT = {b"seq_printf", b"seq_puts", b"seq_putc"}


_HEADS = {b"if", b"for", b"while", b"switch"}


def c_statements(tokens: list[bytes]) -> list[tuple[bytes, ...]]:
    """TOKENS cut into statements: each ends with `;` outside parentheses, `{`, `}` or the end
    of a preprocessor line. The head of a control statement without braces (`if (c)`, `else`,
    `for (...)`) and a label (`case X:`, `default:`, `out:`) are statements of their own, so
    that the statement they govern or mark can be compared alone (`governs_one`)."""
    out: list[tuple[bytes, ...]] = []
    current: list[bytes] = []
    depth = 0
    for k, token in enumerate(tokens):
        if token == GAP_MARKER:  # code the patch does not show: a place of its own
            out.extend([tuple(current)] if current else [])
            out.append((token,))
            current = []
            continue
        current.append(token)
        nxt = tokens[k + 1] if k + 1 < len(tokens) else b""
        if token == b"(":
            depth += 1
        elif token == b")":
            depth = max(depth - 1, 0)
            if depth == 0 and current[0] in _HEADS and nxt not in (b"{", b";"):
                out.append(tuple(current))
                current = []
        elif (token == b";" and depth == 0) or token in (b"{", b"}", b"\n"):
            out.append(tuple(current))
            current = []
        elif depth == 0 and _ends_label_or_else(current, nxt):
            out.append(tuple(current))
            current = []
    if current:
        out.append(tuple(current))
    return out


def _ends_label_or_else(current: list[bytes], nxt: bytes) -> bool:
    if current == [b"else"] or current == [b"do"]:
        return nxt not in (b"{", b"if")
    if current[-1] != b":" or nxt == b":":
        return False
    if current[0] in (b"case", b"default"):
        return b"?" not in current  # `case A ? B : C:` is not cut at its first colon
    return len(current) == 2 and (current[0][:1].isalpha() or current[0][:1] == b"_")


def braceless_head(statement: tuple[bytes, ...]) -> bool:
    """Whether STATEMENT is the head of a control statement that governs the one statement
    after it (no braces): `if (c)`, `for (...)`, `while (c)`, `else`, `do`; and a hunk gap, which
    may end with one."""
    return statement[:1] in ((b"else",), (b"do",), (GAP_MARKER,)) or (statement[0] in _HEADS and statement[-1] == b")")


def differing_stretches(a: list[tuple[bytes, ...]],
                        b: list[tuple[bytes, ...]]) -> list[tuple[list, list]] | None:
    """The (old statements, new statements) of each place where the statement lists A and B
    differ. Right after a head without braces (`if (c)`), the one statement it governs is a
    stretch of its own on each side, and the statements after it another (`if (c) A; B;`: B is
    not under the `if`); None when a side has no statement there."""
    out: list[tuple[list, list]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 > 0 and braceless_head(a[i1 - 1]):
            if i1 == i2 or j1 == j2:
                return None
            out.append((a[i1:i1 + 1], b[j1:j1 + 1]))
            i1, j1 = i1 + 1, j1 + 1
            if i1 == i2 and j1 == j2:
                continue
        out.append((a[i1:i2], b[j1:j2]))
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
    differing = differing_stretches(c_statements(old_tokens), c_statements(new_tokens))
    stretches = []
    for old_part, new_part in differing or []:
        seqs = {literal_output(s) for s in old_part + new_part}
        if None in seqs or len(seqs) != 1 or len(stretches) == MAX_STRETCHES:
            return None
        join = lambda rows: b"\n".join(b" ".join(row) for row in rows)  # noqa: E731
        stretches.append((seqs.pop(), join(old_part), join(new_part)))
    return stretches or None


def stretch_function(seq: bytes, body: bytes) -> bytes:
    """A function made of one stretch, for the engine."""
    return b"static void __fmtcheck_stretch(struct seq_file *%s)\n{\n%s\n}\n" % (seq, body)
