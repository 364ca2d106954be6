"""`fmtcheck check` on live /proc, on the jc captures, and on broken captures (fmtcheck.layout.capture)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fmtcheck.layout.capture import check_bytes, check_captures
from fmtcheck.cli import main
from fmtcheck.common.errors import InputError
from fmtcheck.layout.language import detect_grammar, load_grammar
from fmtcheck.common.options import Options
from _paths import ROOT


SHARED = ROOT.parent / "shared"  # as tests/conftest.py
FIXTURES = ROOT / "fixtures"

LIVE = {
    "/proc/net/dev": "net_dev",
    "/proc/self/smaps": "smaps",
    "/proc/self/smaps_rollup": "smaps_rollup",
    "/proc/self/maps": "maps",
    "/proc/self/status": "status",
    "/proc/self/stat": "pid_stat",
    "/proc/self/statm": "statm",
    "/proc/meminfo": "meminfo",
    "/proc/stat": "stat",
    "/proc/vmstat": "vmstat",
    "/proc/interrupts": "interrupts",
    "/proc/softirqs": "softirqs",
    "/proc/diskstats": "diskstats",
    "/proc/net/snmp": "net_snmp",
    "/proc/net/netstat": "net_netstat",
    "/proc/loadavg": "loadavg",
    "/proc/uptime": "uptime",
    "/proc/self/io": "pid_io",
    "/proc/self/schedstat": "pid_schedstat",
    "/proc/self/comm": "pid_comm",
    "/proc/self/wchan": "pid_wchan",
    "/proc/1/wchan": "pid_wchan",
    "/proc/self/mountstats": "pid_mountstats",
    "/proc/zoneinfo": "zoneinfo",
    "/proc/self/syscall": "pid_syscall",
    "/proc/self/limits": "pid_limits",
    "/proc/self/cgroup": "pid_cgroup",
    "/proc/self/mountinfo": "pid_mountinfo",
    "/proc/self/mounts": "mounts",
    "/proc/net/softnet_stat": "net_softnet_stat",
    "/proc/pressure/cpu": "pressure",
    "/proc/pressure/io": "pressure",
    "/proc/pressure/memory": "pressure",
    "/proc/pressure/irq": "pressure",
    "/proc/net/sockstat": "net_sockstat",
    "/proc/net/sockstat6": "net_sockstat6",
    "/proc/net/snmp6": "net_snmp6",
    "/proc/buddyinfo": "buddyinfo",
    "/proc/cgroups": "cgroups",
    "/proc/filesystems": "filesystems",
    "/proc/devices": "devices",
    "/proc/sys/fs/file-nr": "sys_fs_file_nr",
    "/proc/net/tcp": "net_tcp",
    "/proc/net/tcp6": "net_tcp6",
    "/proc/net/udp": "net_udp",
    "/proc/net/udp6": "net_udp6",
    "/proc/net/unix": "net_unix",
    "/proc/net/arp": "net_arp",
    "/proc/cpuinfo": "cpuinfo",
    "/proc/schedstat": "schedstat",
    "/proc/consoles": "consoles",
    "/proc/modules": "modules",
    "/proc/net/rpc/nfs": "net_rpc_nfs",
    "/proc/net/rpc/nfsd": "net_rpc_nfsd",
    "/proc/self/fdinfo/0": "pid_fdinfo",
    "/proc/slabinfo": "slabinfo",
}
JC = SHARED / "fixtures" / "jc-linux-proc"
JC_GRAMMARS = {
    "diskstats": "diskstats", "interrupts": "interrupts", "meminfo": "meminfo", "net_dev": "net_dev",
    "net_netstat": "net_netstat", "pid_maps": "maps", "pid_smaps": "smaps", "pid_stat": "pid_stat",
    "pid_stat_w_space_and_nl_in_comm": "pid_stat", "pid_statm": "statm", "pid_status": "status",
    "softirqs": "softirqs", "stat": "stat", "stat2": "stat", "vmstat": "vmstat",
}


def _live(path: str) -> bytes:
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    with open(path, "rb") as f:  # one read of the whole file: values move between reads
        return f.read()


@pytest.mark.parametrize("path,grammar", sorted(LIVE.items()))
def test_live_proc_conforms(path, grammar):
    data = _live(path)
    if load_grammar(grammar).detect is not None:  # pid_comm has none: any one line is a comm
        assert detect_grammar(data[:65536], path).name == grammar
    result = check_bytes(data, grammar, path)
    assert result.verdict == "equivalent", [(d.line, d.column, d.kind, d.actual) for d in result.divergences]


@pytest.mark.parametrize("name", sorted(JC_GRAMMARS))
def test_jc_captures_conform(name):
    path = JC / name
    if not path.exists():
        pytest.skip("../shared fixtures not present")
    report = check_captures([str(path)], Options())
    (result,) = report.results
    assert result.extra["grammar"] == JC_GRAMMARS[name]
    assert result.verdict == "equivalent", [(d.line, d.column, d.kind, d.actual) for d in result.divergences]


def test_old_layouts_are_recognised_as_variants():
    smaps = (JC / "pid_smaps")
    if not smaps.exists():
        pytest.skip("../shared fixtures not present")
    result = check_bytes(smaps.read_bytes(), "smaps")
    assert any("15-byte" in n for n in result.notes) and any("THPeligible:\t\t" in n for n in result.notes)


NET_DEV = (b"Inter-|   Receive                                                |  Transmit\n"
           b" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
           b"    lo:   13222     152    0    0    0     0          0         0    13222     152    0    0    0     0       0          0\n"
           b" ens33: 60600053  109378    0    0    0     0          0         0 44256546  121425    0    0    0     0       0          0\n")


def _one(data: bytes, grammar: str = "net_dev"):
    result = check_bytes(data, grammar)
    assert result.verdict == "divergent"
    return result.divergences[0]


def test_zero_padding_is_a_breaking_value_divergence():
    d = _one(NET_DEV.replace(b"     152    0", b"    0152    0", 1))
    assert (d.line, d.column, d.field, d.severity) == (3, 20, "rx_packets", "breaking")
    assert d.expected == NET_DEV.split(b"\n")[2]


def test_space_drift_is_cosmetic_and_tab_is_breaking():
    d = _one(NET_DEV.replace(b"   13222     152", b"   13222      152", 1))
    assert (d.line, d.severity, d.kind) == (3, "cosmetic", "width")
    d = _one(NET_DEV.replace(b"    lo:", b"\t   lo:", 1))
    assert (d.line, d.column, d.severity) == (3, 1, "breaking")


def test_header_change_and_extra_column():
    d = _one(NET_DEV.replace(b"Receive ", b"Receive\t", 1))
    assert (d.line, d.kind, d.severity) == (1, "header", "breaking")
    d = _one(NET_DEV.replace(b"       0          0\n ens33", b"       0          0 0\n ens33"))
    assert d.line == 3 and d.kind in ("extra-text", "separator")


def test_missing_newline_and_missing_line():
    d = _one(NET_DEV[:-1])
    assert (d.line, d.kind) == (4, "missing-newline")
    smaps = (FIXTURES / "captures" / "smaps_small")
    data = smaps.read_bytes()
    import re

    d = _one(re.sub(rb"Rss: +[0-9]+ kB\n", b"", data, count=1), "smaps")
    assert d.kind == "missing-line" and d.line == 5


def test_trailing_blank_line_and_snapshots_are_notes():
    result = check_bytes(NET_DEV + b"\n", "net_dev")
    assert result.verdict == "equivalent" and "empty line" in result.notes[0]
    result = check_bytes(NET_DEV + NET_DEV, "net_dev")
    assert result.verdict == "equivalent" and any("2 snapshots" in n for n in result.notes)


def test_stat_comm_with_space_paren_and_newline():
    line = b"42 (a) b\nc) S 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 18446744073709551615" + b" 0" * 27 + b"\n"
    assert check_bytes(line, "pid_stat").verdict == "equivalent"
    assert check_bytes(line.replace(b"S 1", b"S  1"), "pid_stat").verdict == "divergent"


def test_per_cpu_columns_must_agree_with_the_header():
    data = b"           CPU0       CPU1       \n  0:         18          0  IO-APIC   2-edge      timer\n"
    assert check_bytes(data, "interrupts").verdict == "equivalent"
    d = _one(data.replace(b"         18          0  IO", b"         18  IO"), "interrupts")
    assert d.line == 2


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    with pytest.raises(InputError):
        check_captures([str(tmp_path / "missing")], Options())
    with pytest.raises(InputError):
        check_captures([str(tmp_path)], Options())
    junk = tmp_path / "junk"
    junk.write_bytes(b"hello world\n")
    with pytest.raises(InputError):
        check_captures([str(junk)], Options())
    assert main(["check", str(junk)]) == 2
    assert main(["check", "--grammar", "nope", str(junk)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(e.startswith("fmtcheck: error: ") for e in err)


def test_cli_check_exit_codes(tmp_path):
    good = tmp_path / "dev"
    good.write_bytes(NET_DEV)
    bad = tmp_path / "bad"
    bad.write_bytes(NET_DEV.replace(b"    lo:", b"   lo:"))
    assert main(["check", str(good), "--format", "json"]) == 0
    assert main(["check", str(good), str(bad)]) == 1
    assert main(["check", str(bad), "--fail-on", "breaking"]) == 0  # only cosmetic drift


def test_a_10mb_single_line_streams(tmp_path):
    big = tmp_path / "stat"
    big.write_bytes(b"intr 1" + b" 0" * (5 << 20) + b"\n")
    report = check_captures([str(big)], Options(grammar="stat"))
    (result,) = report.results
    assert result.divergences and result.divergences[0].line == 1  # not a /proc/stat: cpu line missing


DISKSTATS = (b"   7       0 loop0 48 0 718 19 0 0 0 0 0 36 19 0 0 0 0 0 0\n"
             b"   7       1 loop1 41 0 688 17 0 0 0 0 0 28 17 0 0 0 0 0 0\n"
             b"   8       0 sda 14200 3361 892828 5058 18736 13416 715384 12604 0 24940 17663 0 0 0 0 0 0\n"
             b"   8       1 sda1 220 0 4432 58 0 0 0 0 0 232 58 0 0 0 0 0 0\n")


def test_a_name_glued_to_its_first_counter_is_reported_at_the_glue():
    d = _one(DISKSTATS.replace(b"sda 14200", b"sda14200"), "diskstats")
    assert (d.line, d.column, d.kind, d.severity) == (3, 17, "separator", "breaking")
    assert d.expected.startswith(b"   8       0 sda 14200 ")


def test_the_first_record_is_reported_when_it_is_the_odd_one():
    """The first line sets the number of counters; when it is the one that lost a counter, it is the
    line reported, not every line after it."""
    result = check_bytes(DISKSTATS.replace(b"loop0 48 0 718", b"loop0 48 0718", 1), "diskstats")
    assert result.verdict == "divergent" and [d.line for d in result.divergences] == [1]
    smaps = (FIXTURES / "captures" / "smaps_small").read_bytes()
    odd = smaps.replace(b"FilePmdMapped:  ", b"FilePmdMapped: ", 1) + smaps  # 1 old-layout VMA of 4
    result = check_bytes(odd, "smaps")
    assert [d.line for d in result.divergences] == [odd[: odd.index(b"FilePmdMapped: ")].count(b"\n") + 1]


def test_an_arch_row_without_its_padding_diverges():
    data = (b"            CPU0       CPU1       \n"
            b"   0:         18          0   IO-APIC    2-edge      timer\n"
            b" NMI:          0          0   Non-maskable interrupts\n"
            b" LOC:     366351     997227   Local timer interrupts\n")
    assert check_bytes(data, "interrupts").verdict == "equivalent"
    d = _one(data.replace(b" LOC:", b"LOC:"), "interrupts")
    assert d.line == 4


def test_the_result_does_not_depend_on_where_the_chunks_end(monkeypatch):
    import fmtcheck.layout.reader as reader

    smaps = (FIXTURES / "captures" / "smaps_small").read_bytes() * 8
    broken = smaps.replace(b"Rss:            ", b"Rss:           \t", 3)[:-1] + b" \n"
    expected = [(d.line, d.column, d.kind) for d in check_bytes(broken, "smaps").divergences]
    assert [d[0] for d in expected] == [5, 30, 55, 400]
    for chunk, margin in [(1000, 300), (777, 900), (4096, 64)]:
        monkeypatch.setattr(reader, "CHUNK", chunk)
        monkeypatch.setattr(reader, "MARGIN", margin)
        got = [(d.line, d.column, d.kind) for d in check_bytes(broken, "smaps").divergences]
        assert got == expected, (chunk, margin)


def test_mountstats_options_longer_than_128_bytes_conform():
    opts = b",".join(b"opt%d=%d" % (i, i * 1000) for i in range(30))
    assert len(opts) > 128
    cap = (b"device server:/export mounted on /mnt/" + b"d" * 200 + b" with fstype nfs4 statvers=1.1\n"
           b"\topts:\t" + opts + b"\n\tage:\t13968\n\tcaps:\tcaps=0xfff7,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
           b"\tsec:\tflavor=1,pseudoflavor=1\n\tevents:\t52 226 \n\tbytes:\t1 0 \n")
    r = check_bytes(cap, "pid_mountstats")
    assert r.verdict == "equivalent", r.divergences


def test_a_row_whose_trailing_blank_was_stripped_says_so():
    cap = (b"device server:/export mounted on /mnt with fstype nfs4 statvers=1.1\n"
           b"\topts:\trw\n\tage:\t1\n\tcaps:\tcaps=0xfff7,wtmult=512,dtsize=32768,bsize=0,namlen=255\n"
           b"\tsec:\tflavor=1\n\tevents:\t52 226\n\tbytes:\t1 0 \n")
    r = check_bytes(cap, "pid_mountstats")
    assert [(d.line, d.kind) for d in r.divergences] == [(6, "width")]
    assert "trailing blank" in r.divergences[0].note


# written from drivers/md/md.c:md_seq_show and the personalities' status (6.12): a bitmap line and
# its empty line, a recovery line, arrays ending with a line of 6 blanks (7 when inactive)
MDSTAT = (b"Personalities : [raid1] [raid0] [raid6] [raid5] [raid4] [raid10] \n"
          b"md0 : active raid1 sdb1[1] sda1[0]\n      976629760 blocks super 1.2 [2/2] [UU]\n"
          b"      bitmap: 0/8 pages [0KB], 65536KB chunk\n\n"
          b"md1 : active raid5 sdc1[3] sdb1[1] sda1[0]\n"
          b"      1953260544 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]\n"
          b"      [=>...................]  recovery =  8.5% (83026432/976630272) finish=142.3min speed=104640K/sec\n"
          b"      \n"
          b"md2 : active raid1 sdd1[1] sde1[0](F)\n      1048512 blocks [2/1] [U_]\n      \n"
          b"md3 : inactive sdf[0](S)\n      4883648 blocks super 1.2\n       \n"
          b"md4 : active raid10 sdg[0] sdh[1] sdi[2] sdj[3]\n"
          b"      209584128 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]\n      \n"
          b"unused devices: <none>\n")


def test_mdstat_as_md_seq_show_prints_it():
    assert check_bytes(MDSTAT, "mdstat").verdict == "equivalent"


@pytest.mark.parametrize("old, new", [
    (b"[=>...................]", b"[=>..................]"),  # a bar of 20, not 21
    (b"\n      \nmd2", b"\n\nmd2"),  # the 6 blanks stripped
    (b"[raid10] \n", b"[raid10]\n"),  # the blank after the last personality stripped
    (b"  recovery =  8.5%", b"  recovery = 8.5%"),  # "%3u" of the percentage
])
def test_mdstat_departures_diverge(old, new):
    assert old in MDSTAT
    assert check_bytes(MDSTAT.replace(old, new, 1), "mdstat").verdict == "divergent"


def test_a_row_whose_trailing_blanks_were_stripped_is_cosmetic_and_says_so():
    """"%-10s" units stripped of their padding: a cosmetic width on the row, without placeholders."""
    header = b"Limit                     Soft Limit           Hard Limit           Units     \n"
    row = b"Max cpu time              unlimited            unlimited            seconds   \n"
    r = check_bytes(header + row.rstrip(b" \n") + b"\n", "pid_limits")
    d = [d for d in r.divergences if d.line == 2][0]
    assert (d.kind, d.severity, d.expected) == ("width", "cosmetic", row.rstrip(b"\n"))
    assert "trailing blank" in d.note and "example values" not in d.note
