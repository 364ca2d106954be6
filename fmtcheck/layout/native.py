"""Settled records matched in bulk by the native matcher: a C extension (`crecords`, built at install
when a compiler is there) running the exact DFA of the record regex (`automaton`) over the window.

Python's `re` runs a width-exact smaps record at ~300 MB/s and RE2 a net/dev row at ~250 MB/s;
a table-driven DFA in C runs both at 0.5-1 GB/s: eight streams over eight parts of the window, each
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

from fmtcheck.common.errors import InputError
from fmtcheck.common.plain import plain
from fmtcheck.layout import dfa
from fmtcheck.layout.gcache import cache_dir, cached_bytes
from fmtcheck.layout.reader import regular_size

try:  # an optional accelerator: without it records are matched by RE2 or Python's re
    from fmtcheck.layout import crecords
except ImportError:  # pragma: no cover - built at install when a C compiler is there
    crecords = None

ENABLED = crecords is not None and os.environ.get("FMTCHECK_NATIVE", "").lower() not in ("off", "0", "no")
KEYS_API = 2  # the extension's API from which it reads and compares keys (`line_keys`, `keys_only_in`)
NATIVE_MIN_BYTES = 8 << 20  # bytes ahead from which records are matched natively
BUFFER = 4 << 20  # bytes of a regular file read at a time into one reused buffer (`_match_file`)
FIRST_FILL = 256 << 10  # bytes the first read of a run asks for; each next one twice as many, up to BUFFER
MAX_BUFFER = 64 << 20  # a record longer than this is left to the reader's windows (no /proc record nears it)
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


_LINES_BUILT: set[str] = set()  # line patterns line_table has answered in this process


@functools.lru_cache(maxsize=128)
def line_table(pattern: str) -> Table | None:
    """The native table of the one-line record PATTERN that `matcher.dfa_line` would decide by an
    RE2 plan (`dfa.translatable`), or None: one call of the extension decides a line where the RE2
    wrapper takes ~10 us of Python per line and RE2 its import and compiles (the 64 KiB an smaps
    key inventory reads, 2,000 lines, took ~40 ms). The table is one line's (`Table.one_line`):
    its records hold one newline, at their end, so a line is one record exactly when the run from
    its start ends after its newline."""
    if len(_LINES_BUILT) >= 128:
        _LINES_BUILT.clear()
    _LINES_BUILT.add(pattern)
    if not ENABLED or not dfa.translatable(pattern):
        return None
    table = table_for(pattern)
    return table if table is not None and table.one_line else None


def line_table_built(pattern: str) -> bool:
    """Has line_table answered for PATTERN in this process (the inventory reuses the check's)?"""
    return pattern in _LINES_BUILT


def line_end(table: Table, buf: bytes, start: int) -> int | None:
    """By TABLE, the end of the line at START (after its newline) when the line is one record, -1
    when it is not; None when the run cannot start there (not a line start, for a table that
    counts columns)."""
    if not table.usable_at(buf, start):
        return None
    nl = buf.find(b"\n", start)
    if nl < 0:
        return -1  # the window holds the line to the end of the file: no newline comes
    return nl + 1 if table.run(buf, start, nl + 1)[0] == nl + 1 else -1


def line_keys(buf: bytes, start: int, end: int, stop_byte: int) -> bytes | None:
    """The key of each line of buf[start:end] (`lookahead.key_text` of the text before the line's
    first STOP_BYTE; a line without it gives none), each followed by a newline, read by the
    extension: what `lookahead.leading_keys`' findall finds, without a Python object per line
    (100,000 net/dev rows: ~3 ms instead of ~50). None without the extension (or for a newline
    STOP_BYTE, which ends the line before its key)."""
    if not _reads_keys() or stop_byte == 10:
        return None
    return crecords.line_keys(buf, start, end, stop_byte)


def keys_only_in(a: bytes, b: bytes, shown: int) -> tuple | None:
    """Of A's lines (keys, each followed by a newline, as `line_keys` gives them): how many
    distinct ones B's lines do not hold, and the first SHOWN of them in A's order; then the same
    of B against A. Compared by the extension in its own hash sets (no bytes object per key, no
    dict). None without the extension, or when keys made to collide would take it too long
    (Python's dicts then answer)."""
    if not _reads_keys():
        return None
    return crecords.keys_only_in(a, b, shown)


def _reads_keys() -> bool:
    """Is the extension on and built from sources that have its key functions (an older build, a
    stale in-place one, lacks them or has keys_only_in one way only)?"""
    return ENABLED and getattr(crecords, "API", 0) >= KEYS_API


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
    end of the file) the regex loop of fast_records goes on from st.pos. A regular file is read
    by `_match_file` instead of the reader's windows."""
    if not ENABLED:
        return False, False
    r = m.r
    size = regular_size(r.f) if top else None
    if size is None:
        r.ensure(st.pos, NATIVE_MIN_BYTES)
    if (size if size is not None else r.end) - st.pos < NATIVE_MIN_BYTES:
        return False, False
    table = table_for(comp.pattern)
    if table is None or (m.collect and not table.one_line):
        return False, False
    if size is not None and (st.pos == 0 or _byte_before(r, st.pos) == 10):
        return _match_file(m, table, st, node, comp)
    r.ensure(st.pos, NATIVE_MIN_BYTES)
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


def _byte_before(r, pos: int) -> int | None:
    rel = pos - 1 - r.base
    return r.buf[rel] if 0 <= rel < len(r.buf) else None


def _match_file(m, table: Table, st, node, comp) -> tuple[bool, bool]:
    """The loop of match_records over a regular file read at its offsets (os.preadv) into one
    reused buffer of BUFFER bytes, the reader's windows left aside: each byte is copied once, into
    memory the cache still holds, where the windows join 1 MiB reads into fresh 8 MiB strings
    (~0.4 ms of CPU per MB, as much as the matching of an smaps capture: issue #17). Each read
    starts with the record the last run left unfinished (moved to the front); a record longer than
    the buffer doubles it, up to MAX_BUFFER. The first read asks FIRST_FILL bytes and each next one
    twice as many: the first runs of a capture often stop early (a record's variants undecided,
    the DFA dies at the first row that settles them), and then read 4 MiB for a few records. The
    buffer is the process's own, kept for the next run (a fresh 4 MiB costs its page faults each
    time). The records and the answer are those of the windows: the same runs of the same table
    over the same bytes, cut at other record ends. At the end the reader goes on from st.pos."""
    r = m.r
    fd = r.f.fd
    stop_byte = m.dfa_keys(node, comp) if m.collect else None
    buf = _buffer()
    want = min(len(buf), FIRST_FILL)
    held, matched, died = 0, False, False
    state = table.start_first if st.pos == 0 else table.start_nl  # a record starts after a newline
    while True:
        n, at_end = _fill(fd, buf, held, st.pos, r.where, want)
        end, died, lines = crecords.run(table.table, table.classes, table.width, state, table.start_nl,
                                        table.limit, buf, 0, n)
        state = table.start_nl
        if end > 0:
            matched = True
            if stop_byte is not None:
                m.note_lines(node, buf, 0, end, stop_byte)
            st.line += lines
            st.pos += end
        if died or at_end:
            break
        held = n - end
        if end == 0 and n == len(buf):  # one record fills the buffer: a larger one
            if len(buf) >= MAX_BUFFER:
                break
            buf = buf + bytes(len(buf))  # a copy: the process's buffer keeps its size
        elif end > 0:
            buf[:held] = bytes(memoryview(buf)[end:n])
        want = min(len(buf), want * 2)
    r.skip_to(st.pos)
    return matched, died


_BUFFERS: list[bytearray] = []  # the buffer _match_file reads into, kept while BUFFER says its size


def _buffer() -> bytearray:
    if not _BUFFERS or len(_BUFFERS[0]) != BUFFER:
        _BUFFERS[:] = [bytearray(BUFFER)]
    return _BUFFERS[0]


def _fill(fd: int, buf: bytearray, held: int, pos: int, where: str, upto: int) -> tuple[int, bool]:
    """Read into BUF after its first HELD bytes from the file offset POS + HELD, until BUF holds
    UPTO bytes or the file ends: (the bytes BUF now holds, whether the file ended)."""
    view = memoryview(buf)
    n = held
    while n < upto:
        try:
            got = os.preadv(fd, [view[n:upto]], pos + n)
        except OSError as err:
            raise InputError(where, err.strerror or "read error") from None
        if got == 0:
            return n, True
        n += got
    return n, False
