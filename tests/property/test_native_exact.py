"""The native record matcher (fmtcheck.layout.native, the C extension `crecords`) stops at exactly
the offset where Python's `re` bulk regex stops, and `check` / `diff` give the very same results
with and without it, on real captures (one-line records: net/dev, diskstats, softirqs, stat,
vmstat, interrupts; multi-line records with seq_pad look-behinds: smaps) mutated the ways a
capture goes wrong: a width, a separator, a digit, a dropped column, a NUL, a non-ASCII byte, a
CRLF line end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.layout import native, reader, records
from _mutations import MUTATIONS, mutate
from _paths import readable_captures
from fmtcheck.layout.capture import check_bytes

pytestmark = pytest.mark.skipif(not native.available(), reason="the native matcher is not built (no C compiler "
                                "at install) or FMTCHECK_NATIVE=off")

ROOT = Path(__file__).resolve().parents[2]
JC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"
FILES = [JC / n for n in ("net_dev", "diskstats", "softirqs", "stat", "vmstat", "interrupts", "pid_smaps")]
FILES += [Path(p) for p in ("/proc/net/dev", "/proc/diskstats", "/proc/self/smaps")]


def _captures() -> list[tuple[str, bytes]]:
    return readable_captures(FILES)


def _record_runs(grammar: str, data: bytes) -> list[tuple[str, int]]:
    """(record pattern, where its records start) of each bulk run a check of DATA makes natively."""
    seen = []
    saved, match = native.NATIVE_MIN_BYTES, native.match_records

    def watched(m, comp, state, top, node):
        if native.table_for(comp.pattern) is not None:
            seen.append((comp.pattern, state.pos))
        return match(m, comp, state, top, node)

    native.NATIVE_MIN_BYTES, native.match_records = 0, watched
    try:
        check_bytes(data, grammar)
    finally:
        native.NATIVE_MIN_BYTES, native.match_records = saved, match
    return list(dict.fromkeys(seen))


CAPTURES = _captures()
RUNS = [(pattern, start, data) for grammar, data in CAPTURES for pattern, start in _record_runs(grammar, data)]


def test_the_captures_give_one_line_and_multi_line_records():
    if not RUNS:
        pytest.skip("no capture with records is readable here")
    multi = [p for p, _, _ in RUNS if not native.table_for(p).one_line]
    if any(g == "smaps" for g, _ in CAPTURES):
        assert multi, "smaps records (several lines, seq_pad look-behinds) have a native table"


@pytest.mark.skipif(not RUNS, reason="no capture with records is readable here")
@settings(max_examples=300)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16), shift=st.integers(0, 8))
def test_the_native_matcher_stops_where_python_re_stops(which, kind, where, pick, shift):
    pattern, start, data = RUNS[which % len(RUNS)]
    data = data[:start] + mutate(data[start:], kind, where, pick)  # the records' lines (and what follows)
    for _ in range(shift):  # other line starts too (the run starts at any record, or none)
        nl = data.find(b"\n", start)
        start = nl + 1 if 0 <= nl < len(data) - 1 else start
    table = native.table_for(pattern)
    m = records.bulk_regex(pattern).match(data, start)
    expected = m.end() if m else start
    end, died, lines = table.run(data, start, len(data))
    assert end == expected
    assert lines == data.count(b"\n", start, end)
    if died:
        assert re.compile(pattern.encode("latin-1"), re.S).match(data, end) is None


def _results(grammar: str, data: bytes, use_native: bool, chunk: int):
    saved = native.ENABLED, native.NATIVE_MIN_BYTES, reader.CHUNK, reader.PIECE
    native.ENABLED, native.NATIVE_MIN_BYTES = use_native, 0
    reader.CHUNK, reader.PIECE = chunk, min(chunk, reader.PIECE)
    try:
        r = check_bytes(data, grammar)
    finally:
        native.ENABLED, native.NATIVE_MIN_BYTES, reader.CHUNK, reader.PIECE = saved
    return r.verdict, r.divergences, r.notes, r.cases


@pytest.mark.skipif(not CAPTURES, reason="no capture with records is readable here")
@settings(max_examples=150)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16), chunk=st.sampled_from([reader.CHUNK, 4096, 65536]))
def test_check_gives_the_same_result_with_and_without_the_native_matcher(which, kind, where, pick, chunk):
    grammar, data = CAPTURES[which % len(CAPTURES)]
    data = mutate(data, kind, where, pick)  # any line: a header too
    assert _results(grammar, data, True, chunk) == _results(grammar, data, False, chunk)


@pytest.mark.skipif(not CAPTURES, reason="no capture with records is readable here")
@settings(max_examples=40)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16))
def test_diff_gives_the_same_result_with_and_without_the_native_matcher(tmp_path_factory, which, kind, where, pick):
    from fmtcheck.common.options import Options
    from fmtcheck.layout.diff import diff_captures

    grammar, data = CAPTURES[which % len(CAPTURES)]
    d = tmp_path_factory.mktemp("native")
    (d / "old").write_bytes(data)
    (d / "new").write_bytes(mutate(data, kind, where, pick))
    out = []
    saved = native.ENABLED, native.NATIVE_MIN_BYTES
    try:
        for use in (True, False):
            native.ENABLED, native.NATIVE_MIN_BYTES = use, 0
            r = diff_captures(str(d / "old"), str(d / "new"), Options(grammar=grammar)).results[0]
            out.append((r.verdict, r.divergences, r.notes))
    finally:
        native.ENABLED, native.NATIVE_MIN_BYTES = saved
    assert out[0] == out[1]


@pytest.mark.skipif(not CAPTURES, reason="no capture with records is readable here")
@settings(max_examples=100)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16), buffer=st.sampled_from([64, 1000, 4096, native.BUFFER]),
       largest=st.sampled_from([128, native.MAX_BUFFER]), first=st.sampled_from([16, 100, native.FIRST_FILL]))
def test_check_of_a_file_read_into_one_buffer_gives_the_windows_results(tmp_path_factory, which, kind, where,
                                                                       pick, buffer, largest, first):
    """A regular file's records are read into one reused buffer (`native._match_file`), cut at other
    record ends than the reader's windows, the first reads smaller, the buffer doubled for a longer
    record and, past its largest size, the rest left to the windows: the results are the same as
    without the native matcher."""
    from fmtcheck.common.options import Options
    from fmtcheck.layout.capture import check_captures

    grammar, data = CAPTURES[which % len(CAPTURES)]
    path = tmp_path_factory.mktemp("native") / "capture"
    path.write_bytes(mutate(data, kind, where, pick))
    out = []
    saved = native.ENABLED, native.NATIVE_MIN_BYTES, native.BUFFER, native.MAX_BUFFER, native.FIRST_FILL
    try:
        for use in (True, False):
            native.ENABLED, native.NATIVE_MIN_BYTES, native.BUFFER, native.MAX_BUFFER = use, 0, buffer, largest
            native.FIRST_FILL = first
            r = check_captures([str(path)], Options(grammar=grammar)).results[0]
            out.append((r.verdict, r.divergences, r.notes, r.cases))
    finally:
        native.ENABLED, native.NATIVE_MIN_BYTES, native.BUFFER, native.MAX_BUFFER, native.FIRST_FILL = saved
    assert out[0] == out[1]


def _line_patterns() -> list[tuple[str, bytes]]:
    """(one-line record pattern with a native line table, the capture) of every line the matcher
    decides by the DFA on the captures (records.DFA_MIN_BYTES at 0: every capture is large)."""
    seen = []
    saved, table_of = records.DFA_MIN_BYTES, native.line_table

    def watched(pattern):
        table = table_of(pattern)
        if table is not None:
            seen.append(pattern)
        return table

    records.DFA_MIN_BYTES, native.line_table = 0, watched
    try:
        out = []
        for grammar, data in CAPTURES:
            del seen[:]
            check_bytes(data, grammar)
            out += [(p, data) for p in dict.fromkeys(seen)]
        return out
    finally:
        records.DFA_MIN_BYTES, native.line_table = saved, table_of


LINES = _line_patterns() if CAPTURES else []


@pytest.mark.skipif(not LINES, reason="no capture with DFA-decided lines is readable here")
@settings(max_examples=300)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16), line=st.integers(0, 1 << 16))
def test_a_native_line_table_decides_a_line_as_python_re_does(which, kind, where, pick, line):
    """`native.line_end` of a line (the one-line record's table, run to the line's newline) is
    the line's end exactly when the pattern, compiled by Python's re, matches there to that end."""
    pattern, data = LINES[which % len(LINES)]
    data = mutate(data, kind, where, pick)
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)]
    start = starts[line % len(starts)]
    table = native.line_table(pattern)
    end = native.line_end(table, data, start)
    if end is None:
        return  # not a line start the table can run from: the RE2 plan decides (not asserted here)
    nl = data.find(b"\n", start)
    m = re.compile(pattern.encode("latin-1"), re.S).match(data, start)
    assert (end == nl + 1 and nl >= 0) == (m is not None and m.end() == nl + 1)


@pytest.mark.skipif(not CAPTURES, reason="no capture with records is readable here")
@settings(max_examples=100)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16))
def test_check_gives_the_same_result_with_lines_decided_by_native_tables_or_rE2(which, kind, where, pick):
    grammar, data = CAPTURES[which % len(CAPTURES)]
    data = mutate(data, kind, where, pick)
    saved = records.DFA_MIN_BYTES
    records.DFA_MIN_BYTES = 0  # every line the matcher decides by a DFA: native line table, else RE2's plan
    try:
        assert _results(grammar, data, True, reader.CHUNK) == _results(grammar, data, False, reader.CHUNK)
    finally:
        records.DFA_MIN_BYTES = saved
