"""Which build options a divergence depends on.

fmtcheck keeps the first branch of every `#if`/`#ifdef` (the configuration with the feature on,
`fmtcheck.c.cfront`). A line printed under `#ifdef CONFIG_X86_POSTED_MSI` that only the new side
has is a real change of output, for every kernel built with that option: the build setting is
shared by both sides, so the divergence stands. But a reviewer must know that kernels built
without the option print the same; so a divergent result names the conditions the differing
output is printed under, read from the function's text at the line that printed it.
"""

from __future__ import annotations

import re

from fmtcheck.common.result import Result
from fmtcheck.patch.ctext import Definition

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[ \t]*(.*?)[ \t]*(?:/\*.*)?$")


def conditions_at(definition: Definition, file_line: int) -> list[str]:
    """The preprocessor conditions FILE_LINE of DEFINITION is compiled under, outermost first
    (first branches only: `#ifdef X` gives "X", `#ifndef X` "!X", `#if E` "E")."""
    lines = definition.text.split(b"\n")
    stack: list[str | None] = []
    for text, row in zip(lines, definition.file_lines(len(lines))):
        if row == file_line:
            return [c for c in stack if c is not None]
        match = _DIRECTIVE.match(text)
        if match is None:
            continue
        word, rest = match.group(1), match.group(2).decode("latin-1").strip()
        if word in (b"if", b"ifdef", b"ifndef"):
            stack.append({b"if": rest, b"ifdef": rest, b"ifndef": f"!{rest}"}[word])
        elif word in (b"elif", b"else") and stack:
            stack[-1] = None  # not the branch fmtcheck keeps
        elif word == b"endif" and stack:
            stack.pop()
    return []


def name_the_configuration(result: Result, old: Definition | None, new: Definition | None, path: str) -> None:
    """Add to a divergent RESULT a note naming the conditions its first differing output is
    printed under, on each side that printed it."""
    if result.verdict != "divergent" or not result.divergences:
        return
    first = result.divergences[0]
    found: list[str] = []
    for side, definition, where in (("old", old, first.old_source), ("new", new, first.new_source)):
        if definition is None or where is None or where.file != path or not where.line:
            continue
        conditions = conditions_at(definition, where.line)
        if conditions:
            found.append(f"on the {side} side under {' && '.join(f'`{c}`' for c in conditions)}")
    if found:
        result.notes.append(
            f"the first difference (output line {first.line}) is printed {'; '.join(found)}: fmtcheck takes the "
            "first branch of every #if, so it holds for kernels built that way; a kernel built otherwise may "
            "print the same"
        )
