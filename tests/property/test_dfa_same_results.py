"""`check` gives the very same result (verdict, divergences with their messages, notes) whether
settled records are matched by the DFA (fmtcheck.layout.dfa, RE2) or by Python's re, on real
captures with one byte deleted, doubled or replaced anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.layout import records
from _paths import readable_captures
from fmtcheck.layout.capture import check_bytes

pytest.importorskip("re2", reason="google-re2 is not installed: the DFA path is not used")

ROOT = Path(__file__).resolve().parents[2]
JC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"
FILES = [JC / n for n in ("net_dev", "diskstats", "softirqs", "stat", "stat2", "vmstat", "interrupts")]
FILES += [Path(p) for p in ("/proc/net/dev", "/proc/diskstats", "/proc/softirqs", "/proc/vmstat")]


def _captures() -> list[tuple[str, bytes]]:
    return readable_captures(FILES)


CAPTURES = _captures()


def _mutated(data: bytes, kind: str, where: int, byte: bytes) -> bytes:
    i = where % len(data)
    if kind == "delete":
        return data[:i] + data[i + 1 :]
    if kind == "double":
        return data[:i] + data[i : i + 1] * 2 + data[i + 1 :]
    return data[:i] + byte + data[i + 1 :]


@pytest.mark.skipif(not CAPTURES, reason="no capture of a file with one-line records is readable here")
@settings(max_examples=120)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(["delete", "double", "replace", "none"]),
       where=st.integers(0, 1 << 20), byte=st.sampled_from([b" ", b"\t", b"0", b"9", b"a", b":", b"\n", b"\xff"]))
def test_dfa_and_python_re_give_the_same_result(which, kind, where, byte):
    grammar, data = CAPTURES[which % len(CAPTURES)]
    if kind != "none":
        data = _mutated(data, kind, where, byte)
    saved = records.DFA_MIN_BYTES
    try:
        records.DFA_MIN_BYTES = 0
        with_dfa = check_bytes(data, grammar)
        records.DFA_MIN_BYTES = 1 << 62
        without = check_bytes(data, grammar)
    finally:
        records.DFA_MIN_BYTES = saved
    assert (with_dfa.verdict, with_dfa.divergences, with_dfa.notes) == (without.verdict, without.divergences, without.notes)


@pytest.mark.skipif(not CAPTURES, reason="no capture of a file with one-line records is readable here")
@settings(max_examples=60)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(["delete", "double", "replace"]),
       where=st.integers(0, 1 << 20), byte=st.sampled_from([b" ", b"0", b"a", b":", b"\n"]))
def test_diff_by_dfa_and_by_python_re_is_the_same(tmp_path_factory, which, kind, where, byte):
    from fmtcheck.common.options import Options
    from fmtcheck.layout.diff import diff_captures

    grammar, data = CAPTURES[which % len(CAPTURES)]
    d = tmp_path_factory.mktemp("dfa")
    (d / "old").write_bytes(data)
    (d / "new").write_bytes(_mutated(data, kind, where, byte))
    saved = records.DFA_MIN_BYTES
    try:
        records.DFA_MIN_BYTES = 0
        a = diff_captures(str(d / "old"), str(d / "new"), Options(grammar=grammar)).results[0]
        records.DFA_MIN_BYTES = 1 << 62
        b = diff_captures(str(d / "old"), str(d / "new"), Options(grammar=grammar)).results[0]
    finally:
        records.DFA_MIN_BYTES = saved
    assert (a.verdict, a.divergences, a.notes) == (b.verdict, b.divergences, b.notes)
