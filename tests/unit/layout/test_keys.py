"""Keys and columns (fmtcheck.layout.keys): keyed files know their keys, rows their field counts;
`diff` reports a key or a column on one side only, in both directions; `check` requires the keys
every matching kernel prints and notes the ones no known kernel prints."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from _paths import SHARED
from fmtcheck.cli import main
from fmtcheck.common.options import Options
from fmtcheck.layout.capture import check_bytes
from fmtcheck.layout.diff import diff_captures
from fmtcheck.layout.grammar import GrammarError, load_grammar, parse_grammar

JC = SHARED / "fixtures" / "jc-linux-proc"

MEMINFO = (b"MemTotal:        3996436 kB\nMemFree:         2410080 kB\nMemAvailable:    3240716 kB\n"
           b"Buffers:           55024 kB\nCached:           981672 kB\nSwapCached:            0 kB\n"
           b"Active:           748932 kB\nInactive:         566744 kB\nActive(anon):     279332 kB\n"
           b"Inactive(anon):    19600 kB\nActive(file):     469600 kB\nInactive(file):   547144 kB\n"
           b"Unevictable:           0 kB\nMlocked:               0 kB\nSwapTotal:       2097148 kB\n"
           b"SwapFree:        2097148 kB\nDirty:                52 kB\nWriteback:             0 kB\n"
           b"AnonPages:        279024 kB\nMapped:           224844 kB\nShmem:             19932 kB\n"
           b"KReclaimable:      92432 kB\nSlab:             158172 kB\nSReclaimable:      92432 kB\n"
           b"SUnreclaim:        65740 kB\nKernelStack:        6048 kB\nPageTables:         8676 kB\n"
           b"NFS_Unstable:          0 kB\nBounce:                0 kB\nWritebackTmp:          0 kB\n"
           b"CommitLimit:     4095364 kB\nCommitted_AS:    1700432 kB\nVmallocTotal:   34359738367 kB\n"
           b"VmallocUsed:       23148 kB\nVmallocChunk:          0 kB\nPercpu:             1504 kB\n"
           b"HugePages_Total:       0\nHugePages_Free:        0\nHugePages_Rsvd:        0\n"
           b"HugePages_Surp:        0\nHugepagesize:       2048 kB\nHugetlb:               0 kB\n"
           b"DirectMap4k:      169920 kB\nDirectMap2M:     4024320 kB\n")

DISKSTATS_15 = (b"   8       0 sda 4402 1276 474754 1882 1218 1383 46224 2210 0 3520 4092 0 0 0 0\n"
                b"   8       1 sda1 4339 1276 470394 1860 1217 1383 46224 2210 0 3496 4070 0 0 0 0\n")


def _eleven(row: bytes) -> bytes:
    """A diskstats row of kernels before 4.18: the first 11 counters."""
    major, minor, name, *counters = row.split()
    return b"%4s %7s %s " % (major, minor, name) + b" ".join(counters[:11])


def _diff_exit(tmp_path, old: bytes, new: bytes, name: str = "meminfo") -> tuple[int, int]:
    a, b = tmp_path / f"old_{name}", tmp_path / f"new_{name}"
    a.write_bytes(old)
    b.write_bytes(new)
    return main(["diff", str(a), str(b)]), main(["diff", str(b), str(a)])


def _divs(tmp_path, old: bytes, new: bytes, name: str = "meminfo") -> list:
    a, b = tmp_path / f"o_{name}", tmp_path / f"n_{name}"
    a.write_bytes(old)
    b.write_bytes(new)
    return diff_captures(str(a), str(b), Options()).results[0].divergences


def _kinds(tmp_path, old: bytes, new: bytes, name: str = "meminfo") -> list[str]:
    return [d.kind for d in _divs(tmp_path, old, new, name)]


def test_meminfo_key_removed_diverges_both_ways(tmp_path):
    without = MEMINFO.replace(b"MemFree:         2410080 kB\n", b"")
    assert _diff_exit(tmp_path, MEMINFO, without) == (1, 1)
    assert _kinds(tmp_path, MEMINFO, without) == ["key-removed"]
    assert _kinds(tmp_path, without, MEMINFO) == ["key-added"]


def test_meminfo_key_renamed_diverges_both_ways(tmp_path):
    renamed = MEMINFO.replace(b"MemFree:  ", b"MemFrei:  ")
    assert _diff_exit(tmp_path, MEMINFO, renamed) == (1, 1)
    assert _kinds(tmp_path, MEMINFO, renamed) == ["key-renamed"]
    assert _kinds(tmp_path, renamed, MEMINFO) == ["key-renamed"]


def test_key_removed_is_breaking_and_added_cosmetic(tmp_path):
    without = MEMINFO.replace(b"Percpu:             1504 kB\n", b"")
    [gone] = _divs(tmp_path, MEMINFO, without)
    [back] = _divs(tmp_path, without, MEMINFO)
    assert (gone.kind, gone.severity, back.kind, back.severity) == \
        ("key-removed", "breaking", "key-added", "cosmetic")
    assert "4.16+" in gone.note


def test_config_dependent_key_is_noted_with_its_config(tmp_path):
    without = MEMINFO.replace(b"Hugetlb:               0 kB\n", b"")
    [gone] = _divs(tmp_path, MEMINFO, without)
    assert "CONFIG_HUGETLB_PAGE" in gone.note


def test_diskstats_11_against_15_counters_diverges_both_ways(tmp_path):
    eleven = b"\n".join(_eleven(r) for r in DISKSTATS_15.splitlines()) + b"\n"
    assert len(eleven.splitlines()[0].split()) == 14
    assert _diff_exit(tmp_path, DISKSTATS_15, eleven, "diskstats") == (1, 1)
    assert _kinds(tmp_path, eleven, DISKSTATS_15, "diskstats") == ["columns-added"]
    assert _kinds(tmp_path, DISKSTATS_15, eleven, "diskstats") == ["columns-removed"]


def test_columns_severity_says_which_readers(tmp_path):
    """14 -> 18 fields: psutil reads both as a disk (cosmetic); 18 -> 15 is its Linux 2.4 layout."""
    eleven = b"\n".join(_eleven(r) for r in DISKSTATS_15.splitlines()) + b"\n"
    [added] = _divs(tmp_path, eleven, DISKSTATS_15, "diskstats")
    assert added.severity == "cosmetic" and "psutil" in added.note
    twelve = b"\n".join(r + b" 0" for r in eleven.splitlines()) + b"\n"  # 15 fields: read as 2.4
    [odd] = _divs(tmp_path, eleven, twelve, "diskstats")
    assert (odd.kind, odd.severity) == ("columns-added", "breaking")


def test_snmp_udp_7_against_10_columns(tmp_path):
    ten = (b"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors "
           b"IgnoredMulti MemErrors\nUdp: 35 2 0 38 0 0 0 0 0\n")
    seven = (b"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors\n"
             b"Udp: 35 2 0 38 0 0 0\n")
    head = b"Ip: Forwarding DefaultTTL\nIp: 1 64\n"
    assert _diff_exit(tmp_path, head + ten, head + seven, "snmp") == (1, 1)
    kinds = _kinds(tmp_path, head + seven, head + ten, "snmp")
    assert sorted(kinds) == ["columns-added", "key-added", "key-added"]


def test_two_live_captures_seconds_apart_are_the_same_layout(tmp_path):
    files = ["meminfo", "vmstat", "diskstats", "net/snmp", "net/netstat", "self/status", "self/stat"]
    present = [f for f in files if os.path.exists(f"/proc/{f}")]
    if not present:
        pytest.skip("no /proc")
    first = {f: Path(f"/proc/{f}").read_bytes() for f in present}
    time.sleep(1)
    for f in present:
        a, b = tmp_path / (f.replace("/", "_") + ".a"), tmp_path / (f.replace("/", "_") + ".b")
        a.write_bytes(first[f])
        b.write_bytes(Path(f"/proc/{f}").read_bytes())
        assert main(["diff", str(a), str(b)]) == 0, f


def test_check_missing_key_every_matching_kernel_prints():
    result = check_bytes(MEMINFO.replace(b"MemFree:         2410080 kB\n", b""), "meminfo")
    [d] = result.divergences
    assert (d.kind, d.field, d.line) == ("missing-line", "MemFree", 2)
    assert "4.20+" in d.note  # KReclaimable says 4.20 or later


def test_check_key_absent_before_its_release_is_not_required():
    """MemAvailable came with 3.14: a capture whose keys all predate it may lack it."""
    old = MEMINFO.replace(b"MemAvailable:    3240716 kB\n", b"")
    for newer in (b"KReclaimable:      92432 kB\n", b"Percpu:             1504 kB\n",
                  b"Hugetlb:               0 kB\n"):
        old = old.replace(newer, b"")
    assert check_bytes(old, "meminfo").verdict == "equivalent"


def test_check_unknown_key_is_a_note():
    result = check_bytes(MEMINFO + b"GPUActive:             0 kB\n", "meminfo")
    assert result.verdict == "equivalent"
    assert any("key-unknown" in n and "GPUActive" in n for n in result.notes)


def test_config_key_is_never_required():
    result = check_bytes(MEMINFO.replace(b"DirectMap4k:      169920 kB\n", b""), "meminfo")
    assert result.verdict == "equivalent"


@pytest.mark.skipif(not JC.exists(), reason="../shared/fixtures/jc-linux-proc is absent")
def test_real_meminfo_and_vmstat_have_every_required_key():
    for name in ("meminfo", "vmstat"):
        result = check_bytes((JC / name).read_bytes(), name)
        assert result.verdict == "equivalent", (name, result.divergences[:1])


def test_key_entries_parse_and_are_checked():
    g = parse_grammar('name t\nkeys label\nkey A B since=3.14 config=CONFIG_X\nkey C until=5.5\n'
                      'records r key=label { line <label:label %-16s> <v:kb %8lu> " kB" }\n', "t")
    assert g.key_fields == ("label",)
    assert g.keys["B"].since == (3, 14) and g.keys["B"].config == "CONFIG_X"
    assert g.keys["C"].until == (5, 5) and not g.keys["C"].conditional
    with pytest.raises(GrammarError):
        parse_grammar("name t\nkey A\nkey A\nline \"x\"\n", "t")
    with pytest.raises(GrammarError):
        parse_grammar("name t\nkey A since=x.y\nline \"x\"\n", "t")


def test_shipped_keyed_grammars_declare_their_keys():
    for name in ("meminfo", "vmstat", "status", "smaps", "net_snmp", "net_netstat"):
        assert load_grammar(name).key_fields, name
    for name, line in (("diskstats", "disk"), ("pid_stat", "stat"), ("net_snmp", "values")):
        assert line in load_grammar(name).columns


def test_pid_stat_without_final_newline_is_missing_newline():
    line = (b"1 (systemd) S 0 1 1 0 -1 4194560 61399 2385767 94 1017 94 270 3143 1289 20 0 1 0 5 "
            b"172040192 3312 18446744073709551615 1 1 0 0 0 0 671173123 4096 1260 0 0 0 17 1 0 0 0 "
            b"0 0 0 0 0 0 0 0 0 0")
    assert check_bytes(line + b"\n", "pid_stat").verdict == "equivalent"
    [d] = check_bytes(line, "pid_stat").divergences
    assert (d.kind, d.column, d.expected) == ("missing-newline", len(line) + 1, line)


def test_stripped_header_is_reported_on_the_header_and_rows_still_checked():
    rows = b"          HI:          0          0\n       TIMER:     123456     654321\n"
    header = b"                    CPU0       CPU1       \n"
    assert check_bytes(header + rows, "softirqs").verdict == "equivalent"
    [d] = check_bytes(header.rstrip(b" \n") + b"\n" + rows, "softirqs").divergences
    assert (d.line, d.kind) == (1, "header")
    bad_row = rows.replace(b"    123456", b"   123456 ")
    divs = check_bytes(header.rstrip(b" \n") + b"\n" + bad_row, "softirqs").divergences
    assert [(x.line, x.kind) for x in divs] == [(1, "header"), (3, "width")]


def test_lines_an_object_prints_or_not_are_no_keys(tmp_path):
    """A kernel thread's status has no Vm* lines (task_mem prints them only for a task with an mm)."""
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("no /proc/self/status")
    data = status.read_bytes()
    kthread = b"".join(l for l in data.splitlines(keepends=True)
                       if not l.startswith((b"Vm", b"Rss", b"HugetlbPages")))
    assert kthread != data
    assert _kinds(tmp_path, data, kthread, "status") == []


def test_a_capture_cut_short_is_one_missing_line_naming_the_keys():
    cut = MEMINFO[: MEMINFO.index(b"Buffers:")]
    [d] = check_bytes(cut, "meminfo").divergences
    assert (d.kind, d.line, d.field) == ("missing-line", 4, "Buffers")
    assert "'Cached'" in d.note and "more are missing" in d.note


def _snmp(drop: str = "", without: str = "") -> bytes:
    """A net/snmp capture with the keys the grammar lists for every release (and Udp.InCsumErrors
    unless WITHOUT names it), minus DROP."""
    g = load_grammar("net_snmp")
    sections: dict = {}
    for name, info in g.keys.items():
        if "." not in name or info.conditional or name in (drop, without):
            continue
        section, key = name.split(".")
        sections.setdefault(section, []).append(key)
    out = b""
    for section, keys in sections.items():
        out += f"{section}: {' '.join(keys)}\n{section}: {' '.join('0' for _ in keys)}\n".encode()
    return out


def test_snmp_key_every_release_prints_missing_diverges():
    assert check_bytes(_snmp(), "net_snmp").verdict == "equivalent"
    r = check_bytes(_snmp(drop="Tcp.OutRsts"), "net_snmp")
    assert [(d.kind, d.field) for d in r.divergences] == [("missing-line", "Tcp.OutRsts")]


def test_snmp_key_of_later_releases_is_not_required_before_them():
    """Without any InCsumErrors (added in 3.10) the capture may be of 2.6.32: none is missing."""
    data = _snmp()
    for section in (b"Icmp", b"Tcp", b"Udp", b"UdpLite"):
        head, _, rest = data.partition(section + b": ")
        names, _, rest2 = rest.partition(b"\n")
        values, _, tail = rest2.partition(b"\n")
        keys = names.split(b" ")
        if b"InCsumErrors" in keys:
            i = keys.index(b"InCsumErrors")
            vals = values.split(b" ")
            del keys[i], vals[i + 1]
            data = head + section + b": " + b" ".join(keys) + b"\n" + b" ".join(vals) + b"\n" + tail
    assert b"InCsumErrors" not in data
    assert check_bytes(data, "net_snmp").verdict == "equivalent"


def test_vmstat_key_every_release_prints_missing_diverges():
    """A vmstat of the keys every release prints conforms; without nr_mapped it diverges there."""
    g = load_grammar("vmstat")
    required = [n for n, info in g.keys.items() if not info.conditional and not info.since and not info.until]
    assert "nr_free_pages" in required and "nr_writeback_temp" not in required  # gone in 6.18
    def capture(keys):
        return b"".join(b"%s %d\n" % (n.encode(), i) for i, n in enumerate(keys))
    assert check_bytes(capture(required), "vmstat").verdict == "equivalent"
    r = check_bytes(capture([n for n in required if n != "nr_mapped"]), "vmstat")
    assert [(d.kind, d.field) for d in r.divergences] == [("missing-line", "nr_mapped")]


# -- status and smaps: key lists from the printers' history --------------------------------------


def _labelled_lines(name: str) -> set[str]:
    from fmtcheck.layout.keys import key_blocks, object_lines

    g = load_grammar(name)
    per_object = object_lines(g)
    return {k for k in key_blocks(g)
            if not all(line.name in per_object for line in g.lines if line.items and
                       getattr(line.items[0], "data", b"").split(b":")[0].strip().decode("latin-1") == k)}


@pytest.mark.parametrize("name", ["status", "smaps"])
def test_status_and_smaps_list_every_key_their_layout_prints(name):
    """Every labelled line of the layout is a listed key, but the lines a task prints or not as a
    whole (task_mem for a task with an mm) and RHEL 6's Utrace patch (a key-unknown note)."""
    listed = set(load_grammar(name).keys)
    assert _labelled_lines(name) - listed <= {"Utrace"}
    assert any(not info.conditional for info in load_grammar(name).keys.values())


def _live_status() -> bytes:
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("no /proc/self/status")
    return status.read_bytes()


def test_status_line_of_a_distribution_patch_is_a_key_unknown_note():
    data = _live_status()
    at = data.index(b"FDSize:")
    rhel = data[:at] + b"Utrace:\t0\n" + data[at:]
    result = check_bytes(rhel, "status")
    assert result.verdict == "equivalent"
    assert any(n.startswith("key-unknown: Utrace") for n in result.notes)


def test_kernel_thread_status_misses_no_key():
    """task_mem, core dumping and THP lines are printed only for a task with an mm."""
    lines = _live_status().splitlines(keepends=True)
    kthread = b"".join(l for l in lines if not l.startswith(
        (b"Vm", b"Rss", b"HugetlbPages", b"CoreDumping", b"THP_enabled", b"untag_mask")))
    result = check_bytes(kthread, "status")
    assert result.verdict == "equivalent", result.divergences


def test_status_key_required_by_every_release_missing_diverges():
    data = _live_status()
    start = data.index(b"TracerPid:")
    cut = data[:start] + data[data.index(b"\n", start) + 1:]
    kinds = {d.kind for d in check_bytes(cut, "status").divergences}
    assert "missing-line" in kinds


def test_status_config_key_removed_names_its_config(tmp_path):
    data = _live_status()
    if b"\nSeccomp:" not in data:
        pytest.skip("this kernel prints no Seccomp line")
    start = data.index(b"\nSeccomp:") + 1
    without = data[:start] + data[data.index(b"\n", start) + 1:]
    removed = [d for d in _divs(tmp_path, data, without, "status") if d.kind == "key-removed"]
    assert [d.field for d in removed] == ["Seccomp"] and "CONFIG_SECCOMP" in removed[0].note


def test_an_smaps_without_mappings_misses_no_key():
    assert check_bytes(b"", "smaps").verdict == "equivalent"


def test_a_3_10_nonlinear_mapping_conforms():
    """show_smap of 3.x prints Nonlinear after Locked for a VM_NONLINEAR mapping (remap_file_pages)."""
    head = b"7f0000000000-7f0000001000 rw-s 00000000 00:04 1234 "
    head += b" " * (73 - len(head)) + b"/dev/zero (deleted)\n"
    keys = [b"Size", b"Rss", b"Pss", b"Shared_Clean", b"Shared_Dirty", b"Private_Clean", b"Private_Dirty",
            b"Referenced", b"Anonymous", b"AnonHugePages", b"Swap", b"KernelPageSize", b"MMUPageSize", b"Locked",
            b"Nonlinear"]
    vma = head + b"".join(b"%-16s%8d kB\n" % (k + b":", 4) for k in keys) + b"VmFlags: rd wr sh mr mw me ms \n"
    assert check_bytes(vma, "smaps").verdict == "equivalent"
    assert check_bytes(vma.replace(b"Nonlinear:      ", b"Nonlinear:     "), "smaps").verdict == "divergent"
