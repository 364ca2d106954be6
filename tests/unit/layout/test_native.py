"""The exact DFA of a record regex (fmtcheck.layout.automaton) and its native run
(fmtcheck.layout.native): the constructs it takes (seq_pad's column look-behinds, a one-byte
negative look-ahead, atomic groups settled by what follows, look-aheads of one-line variants)
against Python's `re` on every string of a small alphabet, and the records it refuses (a record
that can be a prefix of another, an empty one, a look-behind of another form)."""

from __future__ import annotations

import functools
import itertools
import os
import re
import subprocess
import sys

import pytest

from fmtcheck.layout import automaton, native, records

needs_native = pytest.mark.skipif(not native.available(), reason="the native matcher is not built")


@functools.lru_cache(maxsize=None)
def _table(pattern: bytes) -> native.Table:
    table = native.decode(native.encode(pattern))
    assert table is not None, pattern
    return table


def _ends(pattern: bytes, data: bytes, start: int) -> tuple[int, int]:
    """(where Python's bulk regex stops, where the native run stops) from START."""
    m = records.bulk_regex(pattern.decode("latin-1")).match(data, start)
    return (m.end() if m else start), _table(pattern).run(data, start, len(data))[0]


def _strings(alphabet, longest: int):
    """Every string of up to LONGEST units of ALPHABET (bytes: its bytes; a tuple: its pieces)."""
    units = [bytes([b]) for b in alphabet] if isinstance(alphabet, bytes) else list(alphabet)
    for n in range(longest + 1):
        for parts in itertools.product(units, repeat=n):
            yield b"".join(parts)


SEQ_PAD = rb"x+(?:(?:(?<=[^\n]{4})| +(?:(?<=\n[^\n]{4})|(?<=\A[^\n]{4})))y)?\n"


@needs_native
@pytest.mark.parametrize("pattern,alphabet,longest", [
    (SEQ_PAD, b"x y\n", 8),  # the smaps name column: padded to column 4, or one blank past it
    (rb"x+(?<=\n[^\n]{3})y\n", b"xy\n", 8),  # at column 3 on a line after a newline only
    (rb"x+(?<=\A[^\n]{3})y\n", b"xy\n", 8),  # at column 3 on the buffer's first line only
    (rb"a(?! )[^\n]+\n", b"a b\n", 7),  # "no blank next", whatever consumes the next byte
    (rb"(?>[0-9]+) \n", b"0 \n", 7),  # an atomic group settled by the blank that must follow
    (rb"(?= *[0-9]+\n)(?: ?[0-9]{1,2})\n", b"0 1\n", 7),  # an undecided variant: both layouts
    (rb"[0-9]+ kB\n(?:K: [0-9]\n)?V\n", (b"0 kB\n", b"K: 7\n", b"V\n", b"0", b"K"), 6),  # several lines, an optional one
])
def test_the_native_run_stops_where_python_re_stops_on_every_short_string(pattern, alphabet, longest):
    for data in _strings(alphabet, longest):
        starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
        for start in starts:
            expected, got = _ends(pattern, data, start)
            assert got == expected, (pattern, data, start)


@pytest.mark.parametrize("pattern", [
    rb"(?:a\n)*a\n",  # "a\n" is a prefix of "a\na\n": bulk matching would depend on backtracking order
    rb"a\n(?:b\n)?",  # a record that does not end with its newline
    rb"a(?<=ba)\n",  # a look-behind that is not a column
    rb"(a)\1\n",  # a back-reference
    rb"a$\n",  # an anchor
    rb"(?>a+)a\n",  # an atomic group that what follows does not settle
    rb"(?i)a\n",  # a flag
])
def test_records_without_an_exact_bulk_dfa_are_refused(pattern):
    assert native.encode(pattern) == native.UNTRANSLATABLE


@needs_native
def test_a_damaged_table_is_not_run():
    stored = bytearray(native.encode(rb"[0-9]+\n"))
    assert native.decode(bytes(stored)) is not None
    stored[-4:] = (1 << 30).to_bytes(4, sys.byteorder)  # a row offset outside the table
    assert native.decode(bytes(stored)) is None
    assert native.decode(b"garbage") is None


@needs_native
def test_the_run_checks_its_own_bounds():
    table = native.decode(native.encode(rb"[0-9]+\n"))
    with pytest.raises(ValueError):
        table.run(b"12\n", 2, 1)
    with pytest.raises(ValueError):
        table.run(b"12\n", 0, 99)


@needs_native
def test_long_buffers_split_into_streams_and_threads_give_the_one_stream_answer():
    """Over 1 MiB the run splits the buffer (four streams, two threads); a refused record in any
    part, or a part that starts inside a record, still gives the offset `re` gives."""
    pattern = rb"[0-9]+ kB\n(?:K: [0-9]\n)?V\n"
    rx = re.compile(b"(?:(" + pattern + b"))*+", re.S)
    table = native.decode(native.encode(pattern))
    body = b"".join(b"%d kB\n%sV\n" % (i, b"K: 7\n" if i % 3 else b"") for i in range(200_000))
    for cut in (0, len(body) // 4 + 3, len(body) // 2 + 1, len(body) - 5, len(body) * 3 // 4):
        data = body[:cut] + b"x" + body[cut:] if cut else body
        end, died, lines = table.run(data, 0, len(data))
        assert end == rx.match(data).end()
        assert lines == data.count(b"\n", 0, end)
        assert died == (end < len(data))


def test_fmtcheck_native_off_disables_it():
    code = "from fmtcheck.layout import native; print(native.available())"
    env = dict(os.environ, FMTCHECK_NATIVE="off")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert run.stdout.strip() == "False", run.stderr


def test_one_line_records_are_known_as_such():
    assert automaton.one_line(rb"(?=[0-9 ]+\n)[0-9]+ ?\n") == 1
    assert automaton.one_line(rb"[0-9]+\nV\n") == 0


@needs_native
def test_without_the_cache_no_table_is_built(monkeypatch):
    """Every run would build it again (seconds for an smaps record): records go through re."""
    monkeypatch.setenv("FMTCHECK_CACHE_DIR", "off")
    native.table_for.cache_clear()
    try:
        assert native.table_for("[0-9]+\\n") is None
    finally:
        native.table_for.cache_clear()
