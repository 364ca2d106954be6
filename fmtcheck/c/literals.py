"""C literals: integer constants with their suffixes, and string/char escapes, as bytes.
"""

from __future__ import annotations

from fmtcheck.c.types import S32, S64, U32, U64


def parse_number(text: str) -> tuple[int | None, tuple]:
    """The value and C type of an integer literal (ValueError when it is not one)."""
    negative = text.startswith("-")
    if negative:
        value, t = parse_number(text[1:].lstrip())
        return (None, t) if value is None else (-value, t)
    if len(text) > 64 or "_" in text or "'" in text:
        raise ValueError(text)
    t = text.lower()
    suffix = ""
    while t and t[-1] in "ul" and not (t.startswith("0x") and t[-1] in "abcdef"):
        suffix = t[-1] + suffix
        t = t[:-1]
    if "." in t or ("e" in t and not t.startswith("0x")) or "p" in t:
        return None, S32
    if t.startswith("0x"):
        value = int(t[2:] or "0", 16)
        base = 16
    elif t.startswith("0b"):
        value = int(t[2:], 2)
        base = 2
    elif t.startswith("0") and len(t) > 1:
        value = int(t, 8)
        base = 8
    else:
        value = int(t or "0")
        base = 10
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates: list[tuple] = []
    if longs == 0:
        candidates = [S32, U32, S64, U64] if base != 10 else [S32, S64, U64]
    else:
        candidates = [S64, U64]
    if unsigned:
        candidates = [U32, U64] if longs == 0 else [U64]
    for c in candidates:
        if value < (1 << (c[1] - (1 if c[2] else 0))):
            return value, c
    return value & ((1 << 64) - 1), U64


_ESCAPES = {b"n": 10, b"t": 9, b"r": 13, b"0": 0, b"\\": 92, b"'": 39, b'"': 34, b"a": 7, b"b": 8,
            b"f": 12, b"v": 11, b"e": 27, b"?": 63}


def unescape(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        nxt = data[i + 1:i + 2]
        if nxt == b"x":
            j = i + 2
            while j < len(data) and data[j:j + 1] in b"0123456789abcdefABCDEF" and data[j:j + 1]:
                j += 1
            out.append(int(data[i + 2:j] or b"0", 16) & 0xFF)
            i = j
        elif nxt and nxt in b"01234567":
            j = i + 1
            while j < len(data) and j < i + 4 and data[j:j + 1] in b"01234567" and data[j:j + 1]:
                j += 1
            out.append(int(data[i + 1:j], 8) & 0xFF)
            i = j
        elif nxt == b"\n":
            i += 2
        else:
            out.append(_ESCAPES.get(nxt, nxt[0] if nxt else 92))
            i += 2
    return bytes(out)
