"""Severity of a divergence, decided from the bytes alone (consumers.md: a divergence that keeps
every token and separator is cosmetic; anything else is breaking)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.engine.severity import (
    KIND_PRIORITY,
    SEVERITY_RANK,
    classify_lines,
    classify_outputs,
    lex,
    looks_like_header,
    same_number,
    severity_of,
    worst_kind,
)

NET_DEV_H1 = b"Inter-|   Receive" + b" " * 48 + b"|  Transmit"
NET_DEV_H2 = (
    b" face |bytes    packets errs drop fifo frame compressed multicast|"
    b"bytes    packets errs drop fifo colls carrier compressed"
)
NET_DEV_ROW = b"    0    0    0     0          0         0 123456789  654321    0    0    0     0       0          0"

# (id, expected, actual, kind); the severity follows from the kind (only "width" is cosmetic).
LINE_CASES = [
    # width: only the number of spaces between or before tokens changed
    ("width-leading", b"  5", b"   5", "width"),
    ("width-leading-dropped", b"  eth0: 1 2", b"eth0: 1 2", "width"),
    ("width-meminfo", b"MemTotal:       16000000 kB", b"MemTotal:        16000000 kB", "width"),
    ("width-smaps-private-hugetlb", b"Private_Hugetlb:        0 kB", b"Private_Hugetlb:         0 kB", "width"),
    ("width-after-tab-padding", b"VmRSS:\t    1234 kB", b"VmRSS:\t     1234 kB", "width"),
    ("width-vmflags-not-header", b"VmFlags: rd ex mr mw me", b"VmFlags: rd  ex mr mw me", "width"),
    ("width-status-label-not-header", b"State:\tS  (sleeping)", b"State:\tS (sleeping)", "width"),
    # merged: a whitespace gap between two tokens vanished
    ("merged-net-dev-glue", b"  eth0: 4046496815 2911634" + NET_DEV_ROW, b"  eth0:4046496815 2911634" + NET_DEV_ROW, "token-merged"),
    ("merged-private-hugetlb", b"Private_Hugetlb: 12345678 kB", b"Private_Hugetlb:12345678 kB", "token-merged"),
    ("merged-unit", b"5 kB", b"5kB", "token-merged"),
    ("merged-shadow-call-stack", b"ShadowCallStack: 10373888 kB", b"ShadowCallStack:10373888 kB", "token-merged"),
    ("merged-interrupt-chip", b"   0:         36   IO-APIC   2-edge", b"   0:         36IO-APIC   2-edge", "token-merged"),
    ("merged-around-colon", b"key : 1", b"key:1", "token-merged"),
    ("merged-beats-width", b"  eth0: 4046496815  1", b"  eth0:4046496815   1", "token-merged"),
    # split: a token was cut in two
    ("split-net-dev-unglued", b"  eth0:4046496815 1", b"  eth0: 4046496815 1", "token-split"),
    ("split-unit", b"5kB", b"5 kB", "token-split"),
    # separators
    ("separator-lost-colon", b"Rss:   5 kB", b"Rss    5 kB", "separator-lost"),
    ("separator-lost-slash-glued", b"SigQ:\t0/63457", b"SigQ:\t063457", "separator-lost"),
    ("separator-changed-slash-to-space", b"SigQ:\t0/63457", b"SigQ:\t0 63457", "separator-changed"),
    ("separator-changed-colon-to-slash", b"fd 08:01 1234", b"fd 08/01 1234", "separator-changed"),
    ("separator-changed-added", b"Rss 5 kB", b"Rss: 5 kB", "separator-changed"),
    ("separator-moved", b"eth0: 1", b"eth0 :1", "separator-moved"),
    # tabs
    ("tab-to-spaces-uid", b"Uid:\t0\t0\t0\t0", b"Uid: 0 0 0 0", "tab"),
    ("tab-space-after-tab", b"Threads:\t1", b"Threads:\t 1", "tab"),
    ("tab-doubled", b"Uid:\t0\t0", b"Uid:\t0\t\t0", "tab"),
    ("tab-leading", b"\t5", b"        5", "tab"),
    # trailing whitespace
    ("trailing-groups", b"Groups:\t4 24 27 ", b"Groups:\t4 24 27", "trailing-space"),
    ("trailing-maps-unnamed", b"7f00-7f01 rw-p 00000000 00:00 0 ", b"7f00-7f01 rw-p 00000000 00:00 0", "trailing-space"),
    ("trailing-added", b"nr_unstable 0", b"nr_unstable 0  ", "trailing-space"),
    # headers: any change, even of width, breaks exact-match consumers
    ("header-net-dev-1-width", NET_DEV_H1, NET_DEV_H1.replace(b"   Receive", b"  Receive"), "header"),
    ("header-net-dev-2-word", NET_DEV_H2, NET_DEV_H2.replace(b"colls", b"coll"), "header"),
    ("header-interrupts-cpus", b"           CPU0       CPU1       ", b"          CPU0        CPU1       ", "header"),
    ("header-tcpext-names", b"TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed", b"TcpExt:  SyncookiesSent SyncookiesRecv SyncookiesFailed", "header"),
    ("header-partitions", b"major minor  #blocks  name", b"major minor #blocks name", "header"),
    # fields
    ("field-added-17th-column", b"eth0: 1 2 3", b"eth0: 1 2 3 4", "field-added"),
    ("field-dropped", b"cpu  1 2 3 4", b"cpu  1 2 3", "field-dropped"),
    ("fields-swapped", b"cpu  1 2 3", b"cpu  2 1 3", "fields-swapped"),
    # respelled numbers
    ("respelled-zero-padding", b"MemFree:        00000740 kB", b"MemFree:             740 kB", "respelled"),
    ("respelled-plus-sign", b"THP_enabled:\t+1", b"THP_enabled:\t1", "respelled"),
    ("respelled-minus-zero", b"x -0", b"x 0", "respelled"),
    ("respelled-hex-vs-decimal", b"untag_mask:\t0xffffffffffffffff", b"untag_mask:\t18446744073709551615", "respelled"),
    ("respelled-hex-case", b"CapBnd:\t000001ffffffffff", b"CapBnd:\t000001FFFFFFFFFF", "respelled"),
    ("respelled-hex-padding", b"7f00 0a", b"7f00 a", "respelled"),
    ("respelled-umask-octal-padding", b"Umask:\t0022", b"Umask:\t022", "respelled"),
    ("respelled-address-range", b"00400000-00452000 r-xp", b"400000-452000 r-xp", "respelled"),
    ("respelled-fraction", b"avg10=0.50", b"avg10=0.5", "respelled"),
    ("respelled-beats-width", b"MemFree:        00000740 kB", b"MemFree:       740 kB", "respelled"),
    # values
    ("value-number", b"MemFree:        740 kB", b"MemFree:        741 kB", "value"),
    ("value-text", b"State:\tS (sleeping)", b"State:\tR (running)", "value"),
    ("value-not-a-base-change", b"x 10", b"x 0x10", "value"),
    ("value-beats-width", b"a   1 2", b"a 1 3", "value"),
    # NUL bytes
    ("nul-byte", b"Name:\tbash", b"Name:\tba\x00sh", "nul-byte"),
]


@pytest.mark.parametrize("expected, actual, kind", [c[1:] for c in LINE_CASES], ids=[c[0] for c in LINE_CASES])
def test_classify_lines(expected: bytes, actual: bytes, kind: str) -> None:
    got_kind, severity = classify_lines(expected, actual)
    assert got_kind == kind
    assert severity == ("cosmetic" if kind == "width" else "breaking")


def test_there_are_enough_cases() -> None:
    assert len(LINE_CASES) >= 30
    covered = {c[3] for c in LINE_CASES}
    assert covered >= set(KIND_PRIORITY) - {"newline"}


def test_identical_lines() -> None:
    assert classify_lines(b"MemTotal:  1 kB", b"MemTotal:  1 kB") == ("identical", "cosmetic")


def test_header_hint_overrides_the_guess() -> None:
    """The engine knows which lines are constant text; its hint wins over the heuristic."""
    e, a = b"           CPU0       CPU1", b"          CPU0       CPU1"
    assert classify_lines(e, a, header=False) == ("width", "cosmetic")
    assert classify_lines(b"x  1", b"x 1", header=True) == ("header", "breaking")


def test_issue_examples() -> None:
    """The examples named in issue #8."""
    assert classify_lines(b"  eth0: 4046496815 1", b"  eth0:4046496815 1")[0] == "token-merged"
    assert classify_lines(b"Private_Hugetlb: 12345678 kB", b"Private_Hugetlb:12345678 kB")[0] == "token-merged"
    assert classify_lines(b"x 00000740", b"x 740")[0] == "respelled"
    assert classify_lines(b"  5", b"   5") == ("width", "cosmetic")
    assert classify_lines(b"5 kB", b"5kB")[0] == "token-merged"


@pytest.mark.parametrize(
    "line, header",
    [
        (NET_DEV_H1, True),
        (NET_DEV_H2, True),
        (b"           CPU0       ", True),
        (b"Ip: Forwarding DefaultTTL InReceives", True),
        (b"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority", True),
        (b"Ip: 1 64 12345", False),
        (b"  eth0: 1 2 3", False),
        (b"State:\tS (sleeping)", False),
        (b"Speculation_Store_Bypass:\tthread force mitigated", False),
        (b"VmFlags: rd ex mr mw me sd ", False),
        (b"  0:         36   IO-APIC   2-edge      timer", False),
        (b"Name:\tbash", False),
    ],
)
def test_looks_like_header(line: bytes, header: bool) -> None:
    assert looks_like_header(line) is header


def test_lex_round_trips() -> None:
    for line in (b"  eth0: 1 2", b"SigQ:\t0/63457", b"", b"   ", b"a", b"x:\t "):
        words, slots = lex(line)
        assert len(slots) == len(words) + 1
        rebuilt = slots[0] + b"".join(w + s for w, s in zip(words, slots[1:]))
        assert rebuilt == line


@pytest.mark.parametrize(
    "x, y, same",
    [
        (b"00000740", b"740", True),
        (b"0x1f", b"31", True),
        (b"0x10", b"10", False),
        (b"ff", b"FF", True),
        (b"10", b"16", False),
        (b"-0", b"0", True),
        (b"1.0", b"1", True),
        (b"eth0", b"eth1", False),
    ],
)
def test_same_number(x: bytes, y: bytes, same: bool) -> None:
    assert same_number(x, y) is same


# ---------------------------------------------------------------- whole outputs

MEMINFO = (
    b"MemTotal:       16000000 kB\n"
    b"MemFree:          123456 kB\n"
    b"MemAvailable:    1000000 kB\n"
    b"Buffers:            2372 kB\n"
)
NET_DEV = NET_DEV_H1 + b"\n" + NET_DEV_H2 + b"\n" + b"    lo: 1234567 12    0    0    0     0          0         0  1234567      12    0    0    0     0       0          0\n"

OUTPUT_CASES = [
    ("identical", MEMINFO, MEMINFO, "identical"),
    ("width-everywhere", MEMINFO, MEMINFO.replace(b":  ", b":   "), "width"),
    ("newline-glued", b"a 1\nb 2\n", b"a 1b 2\n", "newline"),
    ("newline-final-missing", b"a 1\nb 2\n", b"a 1\nb 2", "newline"),
    ("newline-extra", b"a 1 b 2\n", b"a 1\nb 2\n", "newline"),
    ("newline-blank-line", MEMINFO, MEMINFO + b"\n", "newline"),
    ("field-added-line", MEMINFO, MEMINFO + b"Balloon:               0 kB\n", "field-added"),
    ("field-dropped-line", MEMINFO, MEMINFO.replace(b"MemAvailable:    1000000 kB\n", b""), "field-dropped"),
    ("merged-and-respelled-in-file", NET_DEV, NET_DEV.replace(b"    lo: 1234567", b"    lo:01234567"), "token-merged"),
    ("merged-glue-in-file", NET_DEV.replace(b"lo: 1234567 ", b"lo: 4046496815 "), NET_DEV.replace(b"lo: 1234567 ", b"lo:4046496815 "), "token-merged"),
    ("header-in-file", NET_DEV, NET_DEV.replace(b"|  Transmit", b"| Transmit"), "header"),
    ("respelled-in-file", MEMINFO, MEMINFO.replace(b"  123456", b"00123456"), "respelled"),
    ("nul-in-file", MEMINFO, MEMINFO + b"\x00", "nul-byte"),
    ("tab-in-file", b"Name:\tbash\nUid:\t0\t0\t0\t0\n", b"Name:\tbash\nUid: 0 0 0 0\n", "tab"),
    ("worst-of-several", MEMINFO, MEMINFO.replace(b"Buffers:            2372", b"Buffers:2372").replace(b":  ", b":   "), "token-merged"),
]


@pytest.mark.parametrize("expected, actual, kind", [c[1:] for c in OUTPUT_CASES], ids=[c[0] for c in OUTPUT_CASES])
def test_classify_outputs(expected: bytes, actual: bytes, kind: str) -> None:
    got_kind, severity = classify_outputs(expected, actual)
    assert got_kind == kind
    assert severity == ("cosmetic" if kind in ("width", "identical") else "breaking")


def test_severity_rank_and_helpers() -> None:
    assert SEVERITY_RANK == {"cosmetic": 0, "breaking": 1}
    assert all(severity_of(k) == "breaking" for k in KIND_PRIORITY if k != "width")
    assert severity_of("width") == "cosmetic"
    assert worst_kind(["width", "respelled", "tab"]) == "respelled"
    assert worst_kind([]) == "identical"


# ---------------------------------------------------------------- properties

_numbers = st.lists(st.integers(min_value=0, max_value=10**12), min_size=2, max_size=8)
_gaps = st.integers(min_value=1, max_value=6)


@settings(max_examples=150)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_any_bytes_get_a_known_kind(expected: bytes, actual: bytes) -> None:
    for kind, severity in (classify_lines(expected, actual), classify_outputs(expected, actual)):
        assert kind in KIND_PRIORITY or kind == "identical"
        assert severity == severity_of(kind)


@settings(max_examples=150)
@given(_numbers, st.data())
def test_more_spaces_between_numbers_is_width(values: list[int], data: st.DataObject) -> None:
    gaps = [data.draw(_gaps) for _ in values]
    wider = [g + data.draw(st.integers(min_value=0, max_value=3)) for g in gaps]
    expected = b"key:" + b"".join(b" " * g + b"%d" % v for g, v in zip(gaps, values))
    actual = b"key:" + b"".join(b" " * g + b"%d" % v for g, v in zip(wider, values))
    assert classify_lines(expected, actual)[0] in ("width", "identical")


@settings(max_examples=150)
@given(_numbers, st.data())
def test_removing_a_gap_between_numbers_merges(values: list[int], data: st.DataObject) -> None:
    i = data.draw(st.integers(min_value=1, max_value=len(values) - 1))
    expected = b"key:" + b"".join(b" %d" % v for v in values)
    actual = b"key:" + b"".join((b"%d" if j == i else b" %d") % v for j, v in enumerate(values))
    assert classify_lines(expected, actual) == ("token-merged", "breaking")
