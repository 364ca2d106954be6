"""Every real capture of the corpus conforms to its grammar, or is a listed exclusion.

The corpus is read from a path (FMTCHECK_CAPTURES, a directory holding `manifest.tsv`: path,
source, license, kind, kernel, arch, one row per capture; see tests/captures/README.md); without
it these tests skip. Its captures come from other projects' test data, most of them under
licenses that do not allow copying them here. A capture is excluded only as hand-edited, with the
printer source showing that no kernel prints it (tests/captures/exclusions.tsv); an excluded
capture must still diverge, with the divergence kind recorded, so an exclusion cannot hide a
grammar that got looser or a capture that became readable.
"""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path

import pytest

from fmtcheck.layout.capture import check_bytes

HERE = Path(__file__).resolve().parents[2] / "captures"
CORPUS = os.environ.get("FMTCHECK_CAPTURES", "")

# manifest kind -> grammar
KIND_GRAMMAR = {
    "meminfo": "meminfo", "vmstat": "vmstat", "stat": "stat", "diskstats": "diskstats",
    "interrupts": "interrupts", "interrupts_aarch64": "interrupts", "softirqs": "softirqs",
    "net/dev": "net_dev", "net/netstat": "net_netstat", "net/snmp": "net_snmp", "PID/stat": "pid_stat",
    "PID/statm": "statm", "PID/status": "status", "PID/maps": "maps", "PID/smaps": "smaps",
    "PID/smaps_rollup": "smaps_rollup", "loadavg": "loadavg", "uptime": "uptime", "PID/io": "pid_io",
    "PID/schedstat": "pid_schedstat", "PID/comm": "pid_comm", "PID/wchan": "pid_wchan", "PID/mountstats": "pid_mountstats", "PID/syscall": "pid_syscall",
    "PID/limits": "pid_limits", "PID/cgroup": "pid_cgroup", "PID/mountinfo": "pid_mountinfo",
    "mounts": "mounts", "PID/mounts": "mounts", "net/softnet_stat": "net_softnet_stat",
    "pressure/cpu": "pressure", "pressure/io": "pressure", "pressure/memory": "pressure",
    "pressure/irq": "pressure", "net/sockstat": "net_sockstat", "net/sockstat6": "net_sockstat6",
    "net/snmp6": "net_snmp6", "buddyinfo": "buddyinfo", "cgroups": "cgroups", "filesystems": "filesystems",
    "devices": "devices", "sys/fs/file-nr": "sys_fs_file_nr", "net/xfrm_stat": "net_xfrm_stat",
    "net/tcp": "net_tcp", "net/tcp6": "net_tcp6", "net/udp": "net_udp", "net/udplite": "net_udp",
    "net/udp6": "net_udp6", "net/udplite6": "net_udp6", "net/raw6": "net_udp6", "net/unix": "net_unix",
    "net/arp": "net_arp", "cpuinfo": "cpuinfo", "schedstat": "schedstat", "consoles": "consoles",
    "modules": "modules", "net/rpc/nfs": "net_rpc_nfs", "net/rpc/nfsd": "net_rpc_nfsd", "PID/fdinfo": "pid_fdinfo",
    "slabinfo": "slabinfo", "zoneinfo": "zoneinfo", "zoneinfo2": "zoneinfo", "mdstat": "mdstat",
}
# the cpuinfo grammar is that of x86 and arm (show_cpuinfo, c_show); s390 and powerpc print their
# own labels and have their own grammars; others ("%-10s : " on ia64, mips...) have none yet
CPUINFO_GRAMMAR = {"x86": "cpuinfo", "x86-32": "cpuinfo", "arm64": "cpuinfo", "arm": "cpuinfo",
                   "s390x": "cpuinfo_s390", "ppc": "cpuinfo_ppc"}
CPUINFO_ARCHES = set(CPUINFO_GRAMMAR)


def manifest() -> list[dict]:
    if not CORPUS or not (Path(CORPUS) / "manifest.tsv").is_file():
        pytest.skip("no capture corpus: set FMTCHECK_CAPTURES to a directory with manifest.tsv")
    with open(Path(CORPUS) / "manifest.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def exclusions() -> dict[str, tuple[str, str, str]]:
    out = {}
    with open(HERE / "exclusions.tsv") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            path, grammar, kind, reason = line.rstrip("\n").split("\t")
            out[path] = (grammar, kind, reason)
    return out


def checked_rows(rows: list[dict]) -> list[dict]:
    """The manifest rows of a kind that has a grammar, and not empty."""
    return [r for r in rows if r["kind"] in KIND_GRAMMAR and (Path(CORPUS) / r["path"]).stat().st_size > 0
            and (r["kind"] != "cpuinfo" or r["arch"] in CPUINFO_ARCHES)]


def test_every_exclusion_has_a_reason():
    for path, (grammar, _, reason) in exclusions().items():
        assert grammar and reason and reason != "UNEXPLAINED", path


def test_corpus_size_sources_kernels_architectures():
    rows = checked_rows(manifest())
    assert len(rows) >= 1000
    assert len({r["source"] for r in rows}) >= 4
    kernels = {r["kernel"] for r in rows if r["kernel"]}
    assert any(k.startswith("2.6.32") for k in kernels) and any(k.startswith("6.") for k in kernels)
    assert len({r["arch"] for r in rows if r["arch"]}) >= 3


def test_every_capture_conforms_or_is_an_explained_exclusion():
    rows = checked_rows(manifest())
    excl = exclusions()
    wrong, unused = [], set(excl)
    tally: Counter = Counter()
    for r in rows:
        grammar = CPUINFO_GRAMMAR[r["arch"]] if r["kind"] == "cpuinfo" else KIND_GRAMMAR[r["kind"]]
        result = check_bytes((Path(CORPUS) / r["path"]).read_bytes(), grammar, r["path"])
        if r["path"] in excl:
            unused.discard(r["path"])
            kind = excl[r["path"]][1]
            first = result.divergences[0].kind if result.divergences else None
            if result.verdict != "divergent" or (kind and first != kind):
                wrong.append((r["path"], "excluded but", result.verdict, first))
            tally["excluded"] += 1
        elif result.verdict != "equivalent":
            d = result.divergences[0] if result.divergences else None
            wrong.append((r["path"], grammar, result.verdict, d and (d.line, d.kind, d.actual)))
        else:
            tally["conform"] += 1
    assert not wrong, wrong[:10]
    assert not unused, sorted(unused)[:10]


REAL = Path(__file__).resolve().parents[3] / "fixtures" / "captures" / "real"


def real_fixtures() -> list[tuple[str, str]]:
    with open(REAL / "INDEX.tsv", newline="") as f:
        return [(r["file"], r["grammar"]) for r in csv.DictReader(f, delimiter="\t")]


@pytest.mark.parametrize("name,grammar", real_fixtures())
def test_real_fixture_conforms(name, grammar):
    """The captures copied here (with credit) conform without the corpus: old layouts every run."""
    result = check_bytes((REAL / name).read_bytes(), grammar, name)
    assert result.verdict == "equivalent", [(d.line, d.kind, d.actual) for d in result.divergences[:3]]
