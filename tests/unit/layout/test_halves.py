"""A large capture's second half matched by a child (fmtcheck.layout.halves): the same results."""

from __future__ import annotations

import pytest

from _paths import FIXTURES
from fmtcheck.common.options import Options
from fmtcheck.layout import halves, native, reader, records
from fmtcheck.layout.capture import check_captures

SMAPS = (FIXTURES / "captures" / "smaps_small").read_bytes()


def _result(path) -> tuple:
    r = check_captures([str(path)], Options()).results[0]
    return r.verdict, r.cases, [(d.line, d.column, d.kind, d.actual, d.expected, d.note) for d in r.divergences], r.notes


@pytest.fixture
def split(monkeypatch):
    """Halves on small captures (any size, a 4 kB span, 3 kB windows), and the records' meetings
    counted: a list of True (met) / None (not met) per meeting point reached."""
    monkeypatch.setattr(halves, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(halves, "SPAN", 4000)
    monkeypatch.setattr(halves, "MEET", 2000)
    monkeypatch.setattr(halves, "forkable", lambda: True)  # pytest-xdist workers run a thread
    monkeypatch.setattr(reader, "CHUNK", 3000)
    monkeypatch.setattr(reader, "MARGIN", 900)
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 2000)  # its look ahead would read a small capture whole
    monkeypatch.setattr(native, "ENABLED", False)  # halves serve Python's re; the native matcher has its own
    meetings = []
    plain = records.RecordMatcher.second_half_records

    def counted(self, bulk, st, comp):
        child = self.half is not None or not self.half_tried  # there is one, or one may start
        out = plain(self, bulk, st, comp)
        if child and self.half is None and self.half_tried:
            meetings.append(out)
        return out

    monkeypatch.setattr(records.RecordMatcher, "second_half_records", counted)
    return meetings


def _alone(monkeypatch, path) -> tuple:
    monkeypatch.setattr(halves, "SPLIT_MIN_BYTES", 1 << 62)
    return _result(path)


def test_a_conforming_capture_is_met_half_way(split, monkeypatch, tmp_path):
    skips = []
    plain = reader.Reader.skip_to

    def seen(self, pos):
        skips.append(pos > self.end)
        plain(self, pos)

    monkeypatch.setattr(reader.Reader, "skip_to", seen)
    path = tmp_path / "smaps"
    path.write_bytes(SMAPS * 40)
    got = _result(path)
    assert True in split and skips == [True]  # the child's records were taken, unread by the parent
    assert got == _alone(monkeypatch, path)
    assert got[:3] == ("equivalent", 2000, [])


@pytest.mark.parametrize("where", [0.05, 0.49, 0.51, 0.7, 0.99])
@pytest.mark.parametrize("change", [(b"Rss:            ", b"Rss:           \t"), (b" kB\n", b"  kB\n"),
                                    (b"VmFlags:", b"VmFlagz:"), (b"\n", b"\n\n")])
def test_a_divergence_anywhere_is_reported_as_one_process_reports_it(split, monkeypatch, tmp_path, where, change):
    data = SMAPS * 40
    at = data.find(change[0], int(len(data) * where))
    at = at if at >= 0 else data.rfind(change[0])
    path = tmp_path / "smaps"
    path.write_bytes(data[:at] + change[1] + data[at + len(change[0]):])
    got = _result(path)
    assert got == _alone(monkeypatch, path)
    assert got[0] == "divergent"


def test_records_that_stop_before_the_middle_and_go_on_still_meet(split, monkeypatch, tmp_path):
    data = SMAPS * 40
    at = data.find(b"Rss:", len(data) // 10)
    path = tmp_path / "smaps"
    path.write_bytes(data[:at] + b"Rss:  " + data[at + 6:])
    got = _result(path)
    assert True in split
    assert got == _alone(monkeypatch, path)


def test_a_middle_without_any_record_start_leaves_the_parent_alone(split, monkeypatch, tmp_path):
    path = tmp_path / "smaps"
    monkeypatch.setattr(halves, "SEARCH_LINES", 1)  # the child gives up unless the middle line starts a record
    path.write_bytes(SMAPS * 40)
    got = _result(path)
    assert got == _alone(monkeypatch, path) and got[0] == "equivalent"


def test_a_child_that_fails_changes_nothing(split, monkeypatch, tmp_path):
    def broken(*args):
        raise MemoryError

    monkeypatch.setattr(records, "second_half", broken)
    path = tmp_path / "smaps"
    path.write_bytes(SMAPS * 40)
    assert _result(path) == _alone(monkeypatch, path)
    assert None in split and True not in split


@pytest.mark.parametrize("load, cpus, threads, expected", [
    (0.3, {0, 1}, 1, True), (1.4, {0, 1}, 1, True), (1.6, {0, 1}, 1, False), (8.0, {0, 1}, 1, False),
    (0.1, {0}, 1, False), (0.1, {0, 1}, 2, False), (3.0, set(range(8)), 1, True),
])
def test_a_child_is_forked_only_when_a_cpu_is_free(monkeypatch, load, cpus, threads, expected):
    """On a busy machine the child only competes for the same CPUs (slower at load 8): one CPU
    must be free on average, and this process single-threaded."""
    import os
    import threading

    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cpus)
    monkeypatch.setattr(threading, "active_count", lambda: threads)
    assert halves.forkable() is expected


def test_diff_of_two_large_captures_is_the_one_process_diff(split, monkeypatch, tmp_path, where=0.75):
    from fmtcheck.layout.diff import diff_captures

    old, new = tmp_path / "old", tmp_path / "new"
    data = SMAPS * 40
    at = data.find(b" kB\n", int(len(data) * where))
    old.write_bytes(data)
    new.write_bytes(data[:at] + b"  kB\n" + data[at + 4:])

    def both() -> list:
        out = []
        for a, b in ((old, new), (new, old)):
            r = diff_captures(str(a), str(b), Options()).results[0]
            out.append((r.verdict, r.cases, r.divergences, r.notes))
        return out

    got = both()
    assert True in split
    monkeypatch.setattr(halves, "SPLIT_MIN_BYTES", 1 << 62)
    assert got == both()
    assert got[0][0] == got[1][0] == "divergent"
