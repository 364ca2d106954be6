"""Reading an input file named on the command line: one place for every command's failures.

Every failure is an `InputError` naming the path, so the CLI prints one line and exits 2. At most
`limit` + 1 bytes are read, so an oversized input is refused without being loaded whole (the
caller sees more than `limit` bytes and says so); `-` is standard input.
"""

from __future__ import annotations

import os
import sys

from fmtcheck.common.errors import InputError


def read_input(path: str, limit: int, kind: str = "input file") -> bytes:
    """The bytes of PATH (at most limit + 1 of them)."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            return sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
        return stream.read(limit + 1)
    if not os.path.lexists(path):
        raise InputError(path, "no such file")
    if os.path.isdir(path):
        raise InputError(path, f"is a directory, not a {kind}")
    try:
        with open(path, "rb") as handle:
            return handle.read(limit + 1)
    except PermissionError:
        raise InputError(path, "permission denied") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
