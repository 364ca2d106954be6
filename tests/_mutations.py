"""Real captures mutated the ways a capture goes wrong, for the property tests of the native matcher
and key reader: a width, a separator, a digit, a dropped column, a NUL, a non-ASCII byte, a CRLF
line end. A plain module, as _paths is."""

import re


MUTATIONS = ["width+", "width-", "separator", "digit", "drop-column", "nul", "non-ascii", "crlf", "none"]


def mutate(data: bytes, kind: str, where: int, pick: int) -> bytes:
    """DATA with one line (the WHERE-th, counted round) changed the KIND way."""
    lines = data.split(b"\n")
    i = where % max(1, len(lines) - 1)
    line = lines[i]
    if not line:
        return data
    tokens = [m.span() for m in re.finditer(rb"\S+", line)]
    col = pick % len(line)
    if kind == "width+":
        line = line[:col] + b" " + line[col:]
    elif kind == "width-" and b" " in line:
        j = line.find(b" ", col) if line.find(b" ", col) >= 0 else line.find(b" ")
        line = line[:j] + line[j + 1:]
    elif kind == "separator":
        j = line.find(b" ", col)
        line = line[:j] + b"\t" + line[j + 1:] if j >= 0 else line + b":"
    elif kind == "digit":
        digits = [k for k, b in enumerate(line) if 48 <= b <= 57]
        if digits:
            k = digits[pick % len(digits)]
            line = line[:k] + (b"0" if line[k] != 48 else b"9") + line[k + 1:]
    elif kind == "drop-column" and tokens:
        a, b = tokens[pick % len(tokens)]
        line = line[:a] + line[b:]
    elif kind == "nul":
        line = line[:col] + b"\0" + line[col:]
    elif kind == "non-ascii":
        line = line[:col] + b"\xc3\xa9" + line[col + 1:]
    elif kind == "crlf":
        line = line + b"\r"
    lines[i] = line
    return b"\n".join(lines)
