"""What a line or block of a grammar binds, and what can start it (for choices and loops).
"""

from __future__ import annotations

import functools
import re

from fmtcheck.layout.matchstate import State
from fmtcheck.layout.model import (
    Field,
    Group,
    Line,
    Optional,
    Records,
    Variant,
    walk_items,
)


def key_text(raw: bytes) -> bytes:
    """A key field's text without its padding and primitive delimiter ("-55d6..." -> "55d6...")."""
    return raw.strip(b" \t").lstrip(b"-:/").strip(b" ")


@functools.lru_cache(maxsize=16)
def leading_keys(stop_byte: int) -> re.Pattern:
    """A regex whose findall over whole lines, each holding STOP_BYTE, gives for each line
    key_text of the text before its first STOP_BYTE, with no Python call per line.

    Why it is key_text: of a text R without STOP_BYTE or newline, let S = R.strip(" \t") and
    T = S.lstrip("-:/"); key_text(R) = T.strip(" "), which is T.lstrip(" ") (T is a suffix of S,
    so it ends with a byte other than a blank, or is empty). The regex takes the longest run of
    blanks (which is what S drops at the start), then of "-:/" (what T drops; it cannot reach the
    blanks S drops at the end), then of spaces (T.lstrip(" "); when T is empty it may take some
    of the blanks at the end, leaving the empty key), and then the longest text that ends with a
    byte other than a blank (or none) and is followed only by blanks up to STOP_BYTE: S's end,
    its last byte not being a blank. Each step takes the longest run it can and the rest always
    matches, so the engine never goes back into them. The classes leave out STOP_BYTE and the
    newline, which the text before the first STOP_BYTE cannot hold."""
    out = bytes([stop_byte])
    parts = []
    for chars in (b" \t", b"-:/", b" "):
        kept = bytes(c for c in chars if c != stop_byte)
        if kept:
            parts.append(b"[" + re.escape(kept) + b"]*")
    stop = re.escape(out)
    trailing = parts[0]  # the blanks S drops at the end: the first class again
    text = b"[^\n" + stop + b"]"
    last = b"[^\n \t" + stop + b"]"
    return re.compile(b"".join(parts) + b"((?:" + text + b"*" + last + b")?)" + trailing + stop + b"[^\n]*\n")


def as_key(v):
    if isinstance(v, list):
        v = v[0] if v else b""
    return v if isinstance(v, bytes) else str(v).encode()


@functools.lru_cache(maxsize=None)
def line_params(line: Line) -> tuple:
    """Parameters and bound values a line's regex depends on."""
    names = []
    for item in walk_items(line.items):
        if isinstance(item, Group) and item.count:
            names.append(item.count)
        elif isinstance(item, Field):
            if item.star:
                names.append(item.star[0])
            if item.same_as:
                names.append(item.same_as)
    return tuple(dict.fromkeys(names))


def block_params(nodes: list) -> tuple:
    names = []
    for node in nodes:
        if isinstance(node, Line):
            names.extend(line_params(node))
        elif isinstance(node, (Optional, Records)):
            names.extend(block_params(node.body))
        else:
            for body in node.options:
                names.extend(block_params(body))
    return tuple(dict.fromkeys(names))


def first_lines(nodes: list, st: State) -> list[Line]:
    lines, _ = _first(nodes, st)
    return lines


def _first(nodes: list, st: State) -> tuple[list[Line], bool]:
    """The lines that can come first in NODES, and whether NODES can match nothing."""
    out: list[Line] = []
    for node in nodes:
        if isinstance(node, Line):
            out.append(node)
            return out, False
        if isinstance(node, (Records, Optional)):
            out.extend(_first(node.body, st)[0])
            continue
        options = node.options
        if isinstance(node, Variant):
            options = [node.options[i] for i in st.variants.get(node.uid, range(len(node.options)))]
        nullable = False
        for body in options:
            lines, empty = _first(body, st)
            out.extend(lines)
            nullable = nullable or empty
        if not nullable:
            return out, False
    return out, True


def follow_first(rest, st: State) -> tuple[list[Line], bool]:
    out: list[Line] = []
    while rest is not None:
        nodes, rest = rest
        lines, nullable = _first(nodes, st)
        out.extend(lines)
        if not nullable:
            return out, False
    return out, True
