"""Two sides that differ only in statements that print values are checked stretch by stretch.

The commonest tree-wide cleanups after the literal ones (`fmtcheck.patch.literal`) change how a
value is printed, not which: ``seq_printf(m, "%s", name)`` -> ``seq_puts(m, name)``,
``seq_printf(m, "%llu\\n", v)`` -> ``seq_put_decimal_ull(m, "", v); seq_putc(m, '\\n')``. Such a
statement only reads: its arguments after the seq_file are expressions without a call, an
assignment or an increment, so it changes nothing but the seq_file. When the two sides are the
same C tokens but for stretches of such statements, every stretch starts in the same state on
both sides (the code before it is the same, and earlier stretches only print), so the functions
are equivalent when each stretch prints the same bytes on both sides **for every value** of what
it reads. The engine decides that on the stretch alone: a function whose parameters are the
seq_file and the locals the stretch reads, declared as the function declares them, so each is
an input of its own type (a universally quantified value covers the one the code computed).

Only an equivalence proven this way is taken; anything else (a difference, a bound, a local the
stretch reads whose declaration is not in scope of the whole body) sends the whole function to
the engine, which also finds a difference's counterexample in context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from fmtcheck.common.result import Result
from fmtcheck.patch.ctext import body_scope_declarations
from fmtcheck.patch.literal import c_statements, differing_stretches
from fmtcheck.patch.tokens import c_tokens

MAX_STRETCHES = 64  # each is a small function the engine judges in milliseconds
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![(\w])((?:\\\n|[^\n])*)", re.M)
STRETCH_NAME = "__fmtcheck_value_stretch"
# output primitives whose effect is what they print (seq_pad/seq_setwidth read the padding state)
_OUTPUT_CALLS = {b"seq_printf", b"seq_puts", b"seq_putc", b"seq_write", b"seq_put_decimal_ull",
                 b"seq_put_decimal_ull_width", b"seq_put_decimal_ll", b"seq_put_hex_ll"}
# tokens of an expression that only reads (no assignment, increment, compound literal, statement)
_READ_ONLY = {b"->", b".", b"[", b"]", b"(", b")", b",", b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^",
              b"~", b"!", b"<", b">", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"?", b":", b"<<", b">>"}


@dataclass
class Stretch:
    """One place where the sides differ: the seq_file printed to, the names the statements
    read (members aside), and each side's statements."""

    seq: bytes
    names: set[bytes]
    old: bytes
    new: bytes


def _is_name(token: bytes) -> bool:
    return token[:1].isalpha() or token[:1] == b"_"


def value_output(statement: tuple[bytes, ...]) -> tuple[bytes, set[bytes]] | None:
    """(seq_file, names read) when STATEMENT is one call of an output primitive whose other
    arguments only read (no call, assignment or increment), else None."""
    if len(statement) < 6 or statement[0] not in _OUTPUT_CALLS or statement[1] != b"(":
        return None
    if statement[-2:] != (b")", b";") or statement[3] != b"," or not _is_name(statement[2]):
        return None
    names: set[bytes] = set()
    previous = b","
    for token in statement[4:-2]:
        if token == b"(" and (_is_name(previous) or previous in (b")", b"]")):
            return None  # a call (or a macro with arguments): it may do anything
        if _is_name(token):
            if previous not in (b".", b"->"):
                names.add(token)
        elif token[:1] not in (b'"', b"'") and not token[:1].isdigit() and token not in _READ_ONLY:
            return None
        previous = token
    return statement[2], names


def value_stretches(old: bytes, new: bytes) -> list[Stretch] | None:
    """The stretches where OLD and NEW differ, when they are the same statements elsewhere and
    every differing statement is a read-only output call to one and the same seq_file; else None."""
    old_tokens, new_tokens = c_tokens(old), c_tokens(new)
    if old_tokens is None or new_tokens is None:
        return None
    differing = differing_stretches(c_statements(old_tokens), c_statements(new_tokens))
    stretches: list[Stretch] = []
    for old_part, new_part in differing or []:
        outputs = [value_output(s) for s in old_part + new_part]
        if None in outputs or len({seq for seq, _ in outputs}) != 1 or len(stretches) == MAX_STRETCHES:
            return None
        join = lambda rows: b"\n".join(b" ".join(row) for row in rows)  # noqa: E731
        names = set().union(*(n for _, n in outputs))
        stretches.append(Stretch(outputs[0][0], names, join(old_part), join(new_part)))
    return stretches or None


def stretch_programs(src_old: bytes, src_new: bytes, function_text: bytes,
                     stretch: Stretch) -> tuple[bytes, bytes] | None:
    """Each side's source with the stretch appended as a function `STRETCH_NAME` of the
    seq_file and of the locals it reads (the file's macros, tables and includes stay in view);
    None when a name the stretch reads is declared somewhere other than the parameters or the
    leading declarations of the body (a block-scope local: it may not be the one in scope)."""
    if stretch.seq in stretch.names:
        return None  # it reads the seq_file's own state (m->count), which the stretch starts afresh
    if not _macros_only_read(src_old, stretch.names) or not _macros_only_read(src_new, stretch.names):
        return None
    declared, elsewhere = body_scope_declarations(function_text)
    parameters = [b"struct seq_file *" + stretch.seq]
    for name in sorted(stretch.names - {stretch.seq}):
        if name in elsewhere:
            return None
        if name in declared:
            parameters.append(declared[name])
    head = b"\nstatic void " + STRETCH_NAME.encode() + b"(" + b", ".join(parameters) + b")\n{\n"
    return (src_old + head + stretch.old + b"\n}\n", src_new + head + stretch.new + b"\n}\n")


Judge = Callable[[str, bytes, bytes], Result]


def equivalent_by_stretches(old_src: bytes, new_src: bytes, function_text: bytes, judge: Judge,
                            subject: str) -> Result | None:
    """Equivalent, proven, when the sides differ only in value stretches each proven to print
    the same for every value it reads (module doc); None when that does not hold or cannot be
    shown, and the whole function goes to the engine."""
    stretches = value_stretches(old_src, new_src)
    if not stretches:
        return None
    for stretch in stretches:
        programs = stretch_programs(old_src, new_src, function_text, stretch)
        if programs is None:
            return None
        one = judge(STRETCH_NAME, *programs)
        if one.verdict != "equivalent" or one.method != "proven":
            return None
    note = (f"the two sides differ only in {len(stretches)} stretch(es) of statements that print values they only "
            "read, each proven to print the same bytes for every value of what it reads; the rest is the same C "
            "tokens")
    return Result(subject, "equivalent", method="proven", notes=[note], extra={"decided_by": "value-stretches"})


def _macros_only_read(src: bytes, names: set[bytes]) -> bool:
    """Whether every object-like macro of SRC among NAMES expands to an expression that only
    reads (a macro `NEXT_ID` that is `id++` changes state the code after the stretch sees)."""
    for match in _DEFINE.finditer(src):
        if match.group(1) not in names:
            continue
        tokens = c_tokens(match.group(2))
        statement = (b"seq_puts", b"(", b"m", b",", *(tokens or [b"="]), b")", b";")
        if tokens is None or value_output(statement) is None:
            return False
    return True
