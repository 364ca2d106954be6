"""Settled records matched in bulk by the native matcher: a C extension (`crecords`, built at install
when a compiler is there) running the exact DFA of the record regex (`automaton`) over the window.

Python's `re` runs a width-exact smaps record at ~300 MB/s and RE2 a net/dev row at ~250 MB/s;
a table-driven DFA in C runs both at 0.5-1 GB/s: four streams over four parts of the window, each
starting at a line start where a whole record begins, side by side, so that their table loads
overlap; a part counts only when the one before ended a record exactly where it starts (else the
rest is run again from where that one stopped), so the answer is the one stream's.

The run returns where the chain of whole records from st.pos stops, and whether the DFA died there
(no record can start at that point, whatever follows): that record is left to the line-by-line
matcher, which explains it as before. Verdicts and messages do not depend on this module: without
the extension (no compiler at install), for a pattern with no exact DFA (`automaton.Untranslatable`),
or with FMTCHECK_NATIVE=off in the environment (read once, at import), records are matched by RE2
or Python's `re` as before. The table of a pattern is built once (0.2 s for a net/dev row, 2 s for
an smaps record) and kept in the per-user cache (`gcache`), so it is built only for captures of
NATIVE_MIN_BYTES or more, and not at all when the cache is off (FMTCHECK_CACHE_DIR=off).
"""

from __future__ import annotations

import functools
import os
import struct

from fmtcheck.common.plain import plain
from fmtcheck.layout.gcache import cache_dir, cached_bytes

try:  # an optional accelerator: without it records are matched by RE2 or Python's re
    from fmtcheck.layout import crecords
except ImportError:  # pragma: no cover - built at install when a C compiler is there
    crecords = None

ENABLED = crecords is not None and os.environ.get("FMTCHECK_NATIVE", "").lower() not in ("off", "0", "no")
NATIVE_MIN_BYTES = 8 << 20  # bytes ahead from which records are matched natively
_HEADER = struct.Struct("<8sqqqqq")  # magic, width, limit, start state (buffer start), (after a newline), one line
_MAGIC = b"fmtdfa1\0"
UNTRANSLATABLE = b"-"


@plain(frozen=True)
class Table:
    """A record DFA as the extension runs it (see `automaton.repeated_table`)."""

    table: bytes
    classes: bytes
    width: int
    limit: int
    start_first: int  # the start state on the buffer's first line (`\\A` look-behinds)
    start_nl: int  # the start state on a line after a newline
    one_line: bool  # every record is one line (so its key can be read per line)

    def usable_at(self, buf: bytes, start: int) -> bool:
        """The run must start at a line start when the DFA counts columns (seq_pad look-behinds)."""
        return self.start_first == self.start_nl or start == 0 or buf[start - 1] == 10

    def run(self, buf: bytes, start: int, stop: int) -> tuple[int, bool, int]:
        """(where the whole records from START end, whether the DFA died before STOP, the newlines
        from START to that end)."""
        state = self.start_first if start == 0 else self.start_nl
        return crecords.run(self.table, self.classes, self.width, state, self.start_nl, self.limit, buf, start, stop)


def available() -> bool:
    return ENABLED


@functools.lru_cache(maxsize=32)
def table_for(pattern: str) -> Table | None:
    """The native table of the record regex PATTERN, or None (no extension, or no exact DFA)."""
    if not ENABLED or cache_dir() is None:
        return None  # without the per-user cache every run would build the table again (seconds)
    try:
        raw = pattern.encode("latin-1")
    except UnicodeEncodeError:
        return None
    return decode(cached_bytes("native", raw, ("automaton.py", "dfa.py", "native.py"), lambda: encode(raw)))


def encode(raw: bytes) -> bytes:
    """The table of RAW as stored in the cache, or UNTRANSLATABLE."""
    import re

    from fmtcheck.layout import automaton

    try:
        d = automaton.record_dfa(raw)
        table, classes, limit, starts = automaton.repeated_table(d)
    except (automaton.Untranslatable, re.error, RecursionError, OverflowError):
        return UNTRANSLATABLE
    nl = starts["nl"]
    head = _HEADER.pack(_MAGIC, len(d.classes), limit, starts.get("A", nl), nl, automaton.one_line(raw))
    return head + classes + table.tobytes()


def decode(stored: bytes) -> Table | None:
    """The Table in STORED, checked entry by entry by the extension; None for anything else."""
    if len(stored) < _HEADER.size + 256 or not stored.startswith(_MAGIC):
        return None
    _, width, limit, first, nl, one_line = _HEADER.unpack_from(stored)
    classes = stored[_HEADER.size:_HEADER.size + 256]
    table = stored[_HEADER.size + 256:]
    try:
        if not crecords.check(table, classes, width):
            return None
    except (ValueError, OverflowError):
        return None
    n = len(table) // 4
    if not all(0 <= s <= n - width and s % width == 0 for s in (first, nl)) or not 0 <= limit <= n:
        return None
    return Table(table, classes, width, limit, first, nl, bool(one_line))


def match_records(m, comp, st, top: bool, node) -> tuple[bool, bool]:
    """`RecordMatcher.dfa_lines` by the native matcher: records from st.pos, a window at a time,
    while NATIVE_MIN_BYTES or more are ahead. Returns (whether at least one record matched,
    whether the record now at st.pos is one the record regex refuses: the DFA's answer is exact,
    so it is left to the line-by-line matcher). Otherwise (no table, an unfinished record at the
    end of the file) the regex loop of fast_records goes on from st.pos."""
    if not ENABLED:
        return False, False
    r = m.r
    r.ensure(st.pos, NATIVE_MIN_BYTES)
    if r.end - st.pos < NATIVE_MIN_BYTES:
        return False, False
    table = table_for(comp.pattern)
    if table is None or (m.collect and not table.one_line):
        return False, False
    matched = False
    while True:
        if top:
            r.keep = st.pos
        buf, base = r.buf, r.base
        start = st.pos - base
        if not table.usable_at(buf, start):
            return matched, False
        end, died, lines = table.run(buf, start, len(buf))
        if end > start:
            matched = True
            if m.collect:
                m.note_lines(node, buf, start, end, m.dfa_keys(node, comp))
            st.line += lines
            st.pos = base + end
        if died or r.eof:
            return matched, died
        if top:
            r.keep = st.pos
        r.ensure(st.pos, r.end - st.pos + 1)  # the window ended inside a record: one more chunk
