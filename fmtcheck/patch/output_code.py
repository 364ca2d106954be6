"""Which functions are output code: they call a seq_file primitive, a helper or macro that does, or
pass their seq_file on; and the closure of definitions a side needs.
"""

from __future__ import annotations

import re

from fmtcheck.common.errors import Inconclusive
from fmtcheck.patch.ctext import (
    CALL,
    MAX_DEFINITIONS_PER_SOURCE,
    SEQ_PARAM,
    struct_key,
    Definition,
    called_names,
    code_only,
    identifiers,
    matching_paren,
)

MAX_SOURCE_BYTES = 2 * 1024 * 1024  # what the definitions one side needs may add up to

PRIMITIVES = frozenset(
    {
        "seq_printf",
        "seq_vprintf",
        "seq_puts",
        "__seq_puts",
        "seq_putc",
        "seq_write",
        "seq_put_decimal_ull",
        "seq_put_decimal_ull_width",
        "seq_put_decimal_ll",
        "seq_put_hex_ll",
        "seq_pad",
        "seq_setwidth",
        "seq_escape",
        "seq_escape_mem",
        "seq_escape_str",
        "seq_path",
        "seq_file_path",
        "seq_path_root",
        "seq_dentry",
        "seq_hex_dump",
        "seq_bprintf",
    }
)


READ_PATH = frozenset({"seq_read", "seq_read_iter", "traverse", "seq_lseek"})


PRINTF_MODEL = frozenset(
    {"vsnprintf", "format_decode", "number", "num_to_str", "put_dec", "put_dec_trunc8", "string", "pointer"}
)


C_SUFFIXES = (".c", ".h")


def seq_file_parameter(definition: Definition) -> str | None:
    """The name of a ``struct seq_file *`` parameter in a function's header."""
    head = definition.text.split(b"{", 1)[0]
    match = SEQ_PARAM.search(code_only(head))
    return match.group(1).decode("ascii") if match else None


def passes_parameter(definition: Definition, parameter: str) -> bool:
    """Whether the body hands PARAMETER itself (not a member of it) to some call."""
    code = code_only(definition.text)
    body_at = code.find(b"{")
    code = code[body_at:] if body_at >= 0 else code
    param = re.escape(parameter.encode())
    for match in CALL.finditer(code):
        close = matching_paren(code, match.end() - 1)
        if close is None:
            continue
        args = code[match.end() : close]
        if re.search(rb"(?<![\w.>])" + param + rb"\b(?!\s*(?:->|\.|\[))", args):
            return True
    return False


def is_output_code(
    definition: Definition, visible: dict[str, Definition], memo: dict[str, bool] | None = None
) -> bool:
    """Does DEFINITION print through seq_file (directly, via helpers/macros, or its seq_file)?"""
    memo = {} if memo is None else memo
    key = f"{definition.file}:{definition.name}:{id(definition)}"
    if key in memo:
        return memo[key]
    memo[key] = False  # cycle guard
    calls = called_names(definition.text)
    result = bool(calls & PRIMITIVES) or any(name.startswith("SEQ_") for name in calls)
    if not result:
        for name in sorted(calls):
            helper = visible.get(name)
            if helper is not None and helper is not definition and helper.kind in ("function", "macro"):
                if is_output_code(helper, visible, memo):
                    result = True
                    break
    if not result and definition.kind == "function":
        parameter = seq_file_parameter(definition)
        result = parameter is not None and passes_parameter(definition, parameter)
    memo[key] = result
    return result


_C_KEYWORDS = frozenset(
    {"if", "while", "for", "switch", "return", "sizeof", "typeof", "__typeof__", "defined", "_Alignof",
     "alignof", "offsetof", "do", "case", "else", "goto"}
)


def unknown_output_calls(target: Definition, visible: dict[str, Definition]) -> list[str]:
    """Calls that may print but whose definition neither the patch nor the tree gives: calls that
    hand a function its ``struct seq_file *``, and ``SEQ_*`` macro wrappers, in TARGET and in the
    helpers it uses. Their output is unknown; it can only be compared when both sides make the
    very same calls."""
    found: list[str] = []
    for definition in [target] + [d for d in closure(target, visible) if d.kind == "function"]:
        parameter = seq_file_parameter(definition)
        code = code_only(definition.text)
        body = code[code.find(b"{") :] if b"{" in code else code
        for match in CALL.finditer(body):
            name = match.group(1).decode("ascii", "replace")
            if name in PRIMITIVES or name in visible or name in _C_KEYWORDS:
                continue
            close = matching_paren(body, match.end() - 1)
            args = body[match.end() : close] if close is not None else b""
            hands_over = parameter is not None and re.search(
                rb"(?<![\w.>])" + re.escape(parameter.encode()) + rb"\b(?!\s*(?:->|\.|\[))", args
            )
            if hands_over or name.startswith("SEQ_"):
                found.append(name)
    return found


def closure(target: Definition, visible: dict[str, Definition]) -> list[Definition]:
    """The definitions TARGET needs, transitively (bounded), in source order: macros, tables, helpers."""
    needed: list[Definition] = []
    seen = {target.name}
    queue = [target]
    size = len(target.text)
    while queue and len(needed) < MAX_DEFINITIONS_PER_SOURCE:
        current = queue.pop(0)
        for name in sorted(identifiers(current.text)):
            if name in seen or name in PRIMITIVES:
                continue
            seen.add(name)
            for found in (visible.get(name), visible.get(struct_key(name))):
                if found is None or found is target:
                    continue
                size += len(found.text)
                if size > MAX_SOURCE_BYTES:
                    raise Inconclusive(target.name, f"the definitions it needs exceed {MAX_SOURCE_BYTES} bytes")
                needed.append(found)
                queue.append(found)
    order = {"macro": 0, "declaration": 1, "function": 2}
    unique: dict[int, Definition] = {id(d): d for d in needed}
    return sorted(unique.values(), key=lambda d: (order[d.kind], d.file, d.line))


def side_source_and_lines(target: Definition, visible: dict[str, Definition]) -> tuple[bytes, list[tuple[str, int | None]]]:
    """The text handed to the engine for one side (what TARGET needs, then TARGET itself), and for
    each of its lines the file and line it comes from (None for a line the rebuild made up, and
    for the blank line between two definitions)."""
    definitions = closure(target, visible) + [target]
    parts = [d.text.rstrip(b"\n") for d in definitions]
    lines: list[tuple[str, int | None]] = []
    for index, (definition, text) in enumerate(zip(definitions, parts)):
        if index:
            lines.append((definition.file, None))
        lines += [(definition.file, n) for n in definition.file_lines(text.count(b"\n") + 1)]
    return b"\n\n".join(parts) + b"\n", lines
