"""Regular expressions compiled when first used, not when their module is imported (issue #16).

CPython compiles a pattern with its `re` parser and compiler, written in Python: the ~75 patterns
of the modules a verdict imports were ~10% of the instructions of a whole `fmtcheck verify` of a
small pair (cachegrind), and most of them serve inputs a given verdict never has (kernel-tree
headers, build conditions, lock calls, severity words). `lazy_compile` returns a stand-in that
compiles on its first use and then holds the compiled pattern's own methods and attributes, bound
once: a later use costs what a compiled pattern's does. It serves what the modules do with their
patterns, call their methods and read their attributes; it is not a `re.Pattern` (no
`isinstance`, and `re.sub(stand_in, ...)` fails loudly).
"""

from __future__ import annotations

import re
from typing import Any

_ATTRIBUTES = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
               "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """`re.compile(source, flags)` on first use (see the module's docstring)."""

    def __init__(self, source: str | bytes, flags: int = 0) -> None:
        self._source = (source, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)  # (copying, pickling, or a lookup before __init__)
        compiled = re.compile(*self._source)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)


def lazy_compile(source: str | bytes, flags: int = 0) -> LazyPattern:
    """A pattern compiled when first used (`LazyPattern`)."""
    return LazyPattern(source, flags)
