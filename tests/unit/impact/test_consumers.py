"""Real consumers (jc, psutil, awk's view, procps) on old and new renderings of /proc files.

The renderings are hand-written fixtures in fixtures/consumers/ (see its README), since the engine
that renders kernel functions is not wired to this module yet.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fmtcheck.impact import consumers
from fmtcheck.impact.consumers import (
    NET_DEV_HEADER,
    ConsumerOutcome,
    compare,
    consumers_available,
    first_difference,
    format_matrix,
    guess_proc_file,
    normalize_proc_file,
    run_consumers,
    whitespace_fields,
    wrap_pair,
    wrap_record,
)
from fmtcheck.engine.severity import classify_lines, classify_outputs, split_lines
from _paths import ROOT

pytest.importorskip("jc")
pytest.importorskip("psutil")

FIXTURES = ROOT / "fixtures" / "consumers"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def by_name(outcomes: list[ConsumerOutcome]) -> dict[str, ConsumerOutcome]:
    return {o.consumer: o for o in outcomes}


def differing_line(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    pairs = [(a, b) for a, b in zip(split_lines(old)[0], split_lines(new)[0]) if a != b]
    assert len(pairs) == 1
    return pairs[0]


def procps_usable() -> bool:
    return shutil.which("free") is not None and consumers._namespace_problem() is None


# ------------------------------------------------------------------ acceptance (issue #8)


def test_glued_net_dev_column_is_breaking_and_jc_misreads_the_interface() -> None:
    """Old "%6s: %7llu" vs the 2.6-era "%6s:%8llu": with a 10-digit rx_bytes the name glues to
    the number, and jc takes "eth0:404649681" as the interface, shifting every field."""
    old, new = fixture("net_dev.txt"), fixture("net_dev_glued.txt")
    assert classify_outputs(old, new) == ("token-merged", "breaking")
    assert classify_lines(*differing_line(old, new)) == ("token-merged", "breaking")

    got = by_name(run_consumers("net/dev", old, new))
    jc_dev = got["jc proc_net_dev"]
    assert jc_dev.outcome == "different values"
    assert "eth0:404649681" in jc_dev.detail
    assert got["whitespace split (awk)"].outcome == "different values"
    # psutil cuts at the last ':' and still finds 16 numbers: it is not fooled.
    assert got["psutil"].outcome == "same values"


def test_smaps_width_drift_is_cosmetic_and_every_consumer_agrees() -> None:
    """Private_Hugetlb printed in 8 columns instead of 7 only moves the value one space right."""
    old, new = fixture("smaps.txt"), fixture("smaps_width.txt")
    assert classify_outputs(old, new) == ("width", "cosmetic")
    assert classify_lines(*differing_line(old, new)) == ("width", "cosmetic")

    outcomes = run_consumers("pid/smaps", old, new)
    ran = [o for o in outcomes if o.outcome != "skipped"]
    assert {o.consumer for o in ran} >= {"jc proc_pid_smaps", "psutil", "whitespace split (awk)"}
    assert all(o.outcome == "same values" for o in ran), format_matrix(outcomes)


def test_zero_padded_meminfo_value_is_breaking() -> None:
    """"00000740" for "740": a Go base-0 parser reads octal; awk's text comparison sees it too."""
    old, new = fixture("meminfo.txt"), fixture("meminfo_zero_padded.txt")
    assert classify_outputs(old, new) == ("respelled", "breaking")
    assert classify_lines(*differing_line(old, new)) == ("respelled", "breaking")

    got = by_name(run_consumers("meminfo", old, new))
    awk = got["whitespace split (awk)"]
    assert awk.outcome == "different values"
    assert "'740 kB' -> '00000740 kB'" in awk.detail
    assert got["jc proc_meminfo"].outcome == "same values"  # int() forgives leading zeros
    assert got["psutil"].outcome == "same values"


def test_status_tab_to_spaces_breaks_psutil() -> None:
    """psutil reads Uid with the tab-exact regex `Uid:\\t(\\d+)\\t(\\d+)\\t(\\d+)` (Process.uids)."""
    old, new = fixture("status.txt"), fixture("status_uid_spaces.txt")
    assert classify_outputs(old, new) == ("tab", "breaking")
    assert classify_lines(b"Uid:\t0\t0\t0\t0", b"Uid: 0 0 0 0") == ("tab", "breaking")

    got = by_name(run_consumers("pid/status", old, new))
    assert got["psutil"].outcome == "error"
    assert "uids()" in got["psutil"].detail and got["psutil"].detail.startswith("Process.uids(): new:")
    assert got["jc proc_pid_status"].outcome == "same values"


# ------------------------------------------------------------------ more consumer findings


def test_psutil_rejects_a_17th_net_dev_column_and_jc_merges_it() -> None:
    old = fixture("net_dev.txt")
    new = old.replace(b"         0\n", b"         0 0\n")
    got = by_name(run_consumers("net/dev", old, new))
    assert got["psutil"].outcome == "error"
    assert "too many values to unpack" in got["psutil"].detail
    assert got["jc proc_net_dev"].outcome == "different values"
    assert "'0 0'" in got["jc proc_net_dev"].detail


def test_unidentifiable_file_is_an_error_for_jc_auto_detection() -> None:
    """jc --proc matches "cpu" + whitespace + " N"...: one space after "cpu" is not recognised."""
    old = b"cpu  10 0 5 100 0 0 0 0 0 0\ncpu0 10 0 5 100 0 0 0 0 0 0\nintr 1 0\nctxt 2\nbtime 3\nprocesses 4\nprocs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n"
    new = old.replace(b"cpu  ", b"cpu ")
    got = by_name(run_consumers("stat", old, new))
    auto = got["jc --proc (auto-detect)"]
    assert auto.outcome == "error"
    assert auto.detail.startswith("new: ParseError")


def test_single_record_is_wrapped_for_the_parsers() -> None:
    """The engine renders one device line; the two header lines make it a file jc accepts."""
    line_old = b"  eth0: 4046496815 2911634    0    3    0     0          0       412 123456789  654321    0    0    0     0       0          0\n"
    line_new = line_old.replace(b"eth0: ", b"eth0:")
    got = by_name(run_consumers("net/dev", line_old, line_new))
    assert got["jc proc_net_dev"].outcome == "different values"
    assert got["psutil"].outcome == "same values"


# ------------------------------------------------------------------ wrapping


def test_wrap_record_adds_context_once() -> None:
    line = b"    lo: 1 2 0 0 0 0 0 0 1 2 0 0 0 0 0 0\n"
    wrapped = wrap_record("net/dev", line)
    assert wrapped == NET_DEV_HEADER + line
    assert wrap_record("net/dev", wrapped) == wrapped
    smaps_fields = b"Rss:                   4 kB\n"
    wrapped = wrap_record("/proc/self/smaps", smaps_fields)
    assert wrapped.endswith(smaps_fields) and b"[heap]\nSize:" in wrapped
    assert wrap_record("pid/smaps", fixture("smaps.txt")) == fixture("smaps.txt")
    assert wrap_record("meminfo", b"Hugetlb:               0 kB\n").startswith(b"MemTotal:")
    irq = b"  0:         36          0   IO-APIC   2-edge      timer\n"
    assert wrap_record("interrupts", irq).startswith(b"           CPU0       CPU1       \n")
    assert wrap_record("pid/status", b"Uid:\t0\t0\t0\t0\n") == b"Uid:\t0\t0\t0\t0\n"


def test_wrap_pair_decides_from_the_reference_only() -> None:
    """A rewrite that drops the header must not get it back from the wrapping."""
    line = b"    lo: 1 2 0 0 0 0 0 0 1 2 0 0 0 0 0 0\n"
    old, new = NET_DEV_HEADER + line, line
    assert wrap_pair("net/dev", old, new) == (old, new)
    assert wrap_pair("net/dev", line, line) == (NET_DEV_HEADER + line, NET_DEV_HEADER + line)


# ------------------------------------------------------------------ guessing the file


@pytest.mark.parametrize(
    "function, expected",
    [
        ("dev_seq_printf_stats", "net/dev"),
        ("dev_seq_show", "net/dev"),
        ("show_smap", "pid/smaps"),
        ("meminfo_proc_show", "meminfo"),
        ("proc_pid_status", "pid/status"),
        ("diskstats_show", "diskstats"),
        ("vmstat_show", "vmstat"),
        ("show_interrupts", "interrupts"),
        ("show_stat", "stat"),
        ("net/core/net-procfs.c:dev_seq_printf_stats", "net/dev"),
    ],
)
def test_guess_proc_file_from_function(function: str, expected: str) -> None:
    assert guess_proc_file(function, b"") == expected


@pytest.mark.parametrize(
    "name, expected",
    [
        ("net_dev.txt", "net/dev"),
        ("smaps.txt", "pid/smaps"),
        ("meminfo.txt", "meminfo"),
        ("status.txt", "pid/status"),
    ],
)
def test_guess_proc_file_from_bytes(name: str, expected: str) -> None:
    assert guess_proc_file(None, fixture(name)) == expected
    assert guess_proc_file("some_unknown_function", fixture(name)) == expected


def test_guess_proc_file_sniffs_other_layouts() -> None:
    assert guess_proc_file(None, b"  0:         36          0   IO-APIC   2-edge      timer\n") == "interrupts"
    assert guess_proc_file(None, b"nr_free_pages 12\nnr_zone_active_anon 3\n") == "vmstat"
    assert guess_proc_file(None, b"   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n") == "diskstats"
    assert guess_proc_file(None, b"cpu  1 2 3 4 5 6 7 8 9 10\n") == "stat"
    assert guess_proc_file(None, b"hello world\n") is None


def test_normalize_proc_file() -> None:
    assert normalize_proc_file("/proc/1234/status") == "pid/status"
    assert normalize_proc_file("/proc/self/smaps") == "pid/smaps"
    assert normalize_proc_file("/proc/net/dev") == "net/dev"
    assert normalize_proc_file("meminfo") == "meminfo"


# ------------------------------------------------------------------ comparing and reporting


def test_compare_names_the_first_difference_and_the_failing_side() -> None:
    same = compare("c", consumers._Reading({"a": 1}), consumers._Reading({"a": 1}))
    assert same == ConsumerOutcome("c", "same values", None)
    diff = compare("c", consumers._Reading([{"a": 1, "b": 2}]), consumers._Reading([{"a": 1, "b": 3}]))
    assert diff == ConsumerOutcome("c", "different values", "[0].b: 2 -> 3")
    err = compare("c", consumers._Reading(1), consumers._Reading(error="ValueError: x"))
    assert err == ConsumerOutcome("c", "error", "new: ValueError: x")
    both = compare("c", consumers._Reading(error="E"), consumers._Reading(error="E"))
    assert both == ConsumerOutcome("c", "skipped", "fails the same way on both sides: E")
    two = compare("c", consumers._Reading(error="E"), consumers._Reading(error="F"))
    assert two == ConsumerOutcome("c", "error", "old: E; new: F")


def test_partial_record_reads_what_it_can() -> None:
    """A task_state-like fragment: psutil's Threads/ctxt readers find nothing on either side and
    are left out; its Uid/Gid readers still compare; jc cannot identify the fragment at all."""
    old = b"Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"
    new = old.replace(b"Gid:\t0\t0\t0\t0", b"Gid:\t0\t0\t0\t1")
    got = by_name(run_consumers("pid/status", old, new))
    assert got["psutil"].outcome == "same values"  # psutil reads only real, effective, saved
    assert "num_ctx_switches" in got["psutil"].detail
    assert got["jc proc_pid_status"].outcome == "different values"
    assert got["jc proc_pid_status"].detail == "Gid[3]: 0 -> 1"
    assert got["jc --proc (auto-detect)"].outcome == "skipped"


def test_first_difference_compares_types_and_missing_keys() -> None:
    assert first_difference({"a": 1}, {"a": 1.5}) == "a: 1 -> 1.5"
    assert first_difference({"a": 1}, {"a": 1, "b": 2}) == "b: (absent) -> 2"
    assert first_difference({"a": 1}, {"a": "1"}) == "a: 1 -> '1'"
    assert first_difference([1, 2], [1, 2]) is None


def test_whitespace_fields_keys_repeated_labels() -> None:
    got = whitespace_fields(b"Rss:  4 kB\nSwap: 0 kB\n\nRss:  8 kB\n")
    assert got == {"Rss:": "4 kB", "Swap:": "0 kB", "Rss:#2": "8 kB"}


def test_format_matrix() -> None:
    lines = format_matrix(
        [
            ConsumerOutcome("jc proc_net_dev", "different values", "[0].interface: 'eth0' -> 'eth0:404649681'"),
            ConsumerOutcome("psutil", "same values"),
        ]
    )
    assert lines[0].split() == ["consumer", "reads", "detail"]
    assert lines[1].startswith("jc proc_net_dev  different values  [0].interface")
    assert lines[2] == "psutil           same values"
    assert all(line == line.rstrip() for line in lines)


# ------------------------------------------------------------------ availability and skips


def test_consumers_available_and_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    ok, versions = consumers_available()
    assert ok and "jc" in versions and "psutil" in versions
    real_find_spec = consumers.importlib.util.find_spec
    monkeypatch.setattr(
        consumers.importlib.util, "find_spec", lambda n, *a: None if n == "jc" else real_find_spec(n, *a)
    )
    ok, hint = consumers_available()
    assert not ok and "pip install 'fmtcheck[consumers]'" in hint
    got = by_name(run_consumers("meminfo", fixture("meminfo.txt"), fixture("meminfo.txt")))
    assert got["jc"].outcome == "skipped" and "fmtcheck[consumers]" in got["jc"].detail


def test_procps_is_skipped_when_missing_or_not_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    old = fixture("meminfo.txt")
    monkeypatch.setattr(consumers, "_namespace_problem", lambda: "no private mount namespace (needs root)")
    got = by_name(run_consumers("meminfo", old, old))
    assert got["procps free"].outcome == "skipped"
    assert "namespace" in got["procps free"].detail
    monkeypatch.setattr(consumers.shutil, "which", lambda name: None)
    got = by_name(run_consumers("meminfo", old, old))
    assert got["procps free"].outcome == "skipped"
    assert "not installed" in got["procps free"].detail


@pytest.mark.skipif(not procps_usable(), reason="procps free or a private mount namespace is unavailable")
def test_procps_free_reads_the_rendered_meminfo() -> None:
    old = fixture("meminfo.txt")
    new = old.replace(b"MemFree:             740 kB", b"MemFree:             741 kB")
    got = by_name(run_consumers("meminfo", old, new))
    assert got["procps free"].outcome == "different values"
    assert "Mem.free: 757760 -> 758784" == got["procps free"].detail
    assert got["procps vmstat -s"].outcome == "different values"
    same = by_name(run_consumers("meminfo", old, old))
    assert same["procps free"].outcome == "same values"


def test_every_guess_is_a_known_proc_file() -> None:
    assert set(consumers._FUNCTION_FILES.values()) <= set(consumers.PROC_FILES)
    assert set(consumers._JC_PARSERS) <= set(consumers.PROC_FILES)
    assert set(consumers.PSUTIL_CALLS) <= set(consumers.PROC_FILES)
