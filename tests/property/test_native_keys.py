"""diff's record keys read by the extension (`native.line_keys`, `native.keys_only_in`) are the
ones Python reads and compares: the keys `lookahead.leading_keys`' findall finds on real captures
mutated the ways a capture goes wrong (any stop byte, any part of the capture, lines without the
stop byte), and the records on one side only that dicts of those keys give."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _mutations import MUTATIONS, mutate
from _paths import readable_captures
from fmtcheck.layout import native
from fmtcheck.layout.lookahead import leading_keys

pytestmark = pytest.mark.skipif(not native.available(), reason="the native matcher is not built (no C compiler "
                                "at install) or FMTCHECK_NATIVE=off")

ROOT = Path(__file__).resolve().parents[2]
JC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"
FILES = [JC / n for n in ("net_dev", "diskstats", "softirqs", "interrupts", "pid_smaps", "meminfo")]
FILES += [Path(p) for p in ("/proc/net/dev", "/proc/diskstats", "/proc/self/smaps", "/proc/meminfo")]
CAPTURES = [data for _, data in readable_captures(FILES)]


@pytest.mark.skipif(not CAPTURES, reason="no capture is readable here")
@settings(max_examples=300)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS), where=st.integers(0, 1 << 20),
       pick=st.integers(0, 1 << 16), cut=st.tuples(st.integers(0, 1 << 20), st.integers(0, 1 << 20)),
       stop=st.sampled_from(b": \t-/x\0e"))
def test_native_line_keys_are_the_keys_findall_finds(which, kind, where, pick, cut, stop):
    data = mutate(CAPTURES[which % len(CAPTURES)], kind, where, pick)
    start, end = sorted(c % (len(data) + 1) for c in cut)
    found = leading_keys(stop).findall(data, start, end)
    assert native.line_keys(data, start, end, stop) == b"".join(k + b"\n" for k in found)


def _keys_of(data: bytes) -> list[bytes]:
    return native.line_keys(data, 0, len(data), ord(":")).split(b"\n")[:-1]


KEY = st.binary(max_size=4).map(lambda b: bytes(b"ab: \t\0"[c % 6] for c in b))


@settings(max_examples=300)
@given(old=st.lists(KEY, max_size=12), new=st.lists(KEY, max_size=12), shown=st.integers(0, 6),
       real=st.integers(0, 1 << 16), take=st.tuples(st.integers(0, 1 << 16), st.integers(0, 1 << 16)))
def test_keys_only_in_gives_what_dicts_of_the_keys_give(old, new, shown, real, take):
    if CAPTURES:  # and keys of a real capture, some on one side only
        keys = _keys_of(CAPTURES[real % len(CAPTURES)])
        old = old + keys[take[0] % (len(keys) + 1):]
        new = keys[: take[1] % (len(keys) + 1)] + new
    a, b = dict.fromkeys(old), dict.fromkeys(new)
    only_a = list(itertools.filterfalse(b.__contains__, a))
    only_b = list(itertools.filterfalse(a.__contains__, b))
    blob = lambda keys: b"".join(k + b"\n" for k in keys)  # noqa: E731
    assert native.keys_only_in(blob(old), blob(new), shown) == ((len(only_a), only_a[:shown]),
                                                                 (len(only_b), only_b[:shown]))


@settings(max_examples=200)
@given(old=st.lists(KEY, max_size=12), new=st.lists(KEY, max_size=12), runs=st.integers(1, 4))
def test_record_notes_are_the_same_with_and_without_the_extension(old, new, runs):
    from fmtcheck.layout.diff import record_notes
    from fmtcheck.layout.matchstate import KeyRun

    def records(keys):  # the keys as RUNS runs read in bulk, and a record read line by line
        size = max(1, len(keys) // runs)
        out = [KeyRun("device", b"".join(k + b"\n" for k in keys[i:i + size])) for i in range(0, len(keys), size)]
        return out + [("device", (b"lo",))]

    saved = native.ENABLED
    try:
        native.ENABLED = False
        expected = record_notes(records(old), records(new))
        native.ENABLED = True
        assert record_notes(records(old), records(new)) == expected
    finally:
        native.ENABLED = saved


def test_an_extension_built_from_older_sources_leaves_the_keys_to_python(monkeypatch):
    """A stale build (no `API`, or an older one) is not asked for the key functions: diff's notes
    are Python's."""
    from fmtcheck.layout.diff import record_notes
    from fmtcheck.layout.matchstate import KeyRun

    old, new = [KeyRun("device", b"lo\neth0\n")], [KeyRun("device", b"lo\nwlan0\n")]
    expected = ["1 record(s) only in OLD: device eth0", "1 record(s) only in NEW: device wlan0"]
    assert native.crecords.API >= native.KEYS_API
    assert native.keys_only_in(b"eth0\n", b"wlan0\n", 5) is not None
    monkeypatch.setattr(native, "crecords", type("Stale", (), {"line_keys": None, "keys_only_in": None})())
    assert native.line_keys(b"lo: 1\n", 0, 6, ord(":")) is None
    assert native.keys_only_in(b"eth0\n", b"wlan0\n", 5) is None
    assert record_notes(old, new) == expected
