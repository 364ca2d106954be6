"""Run real /proc consumers on the old and the new rendering, and say what each one reads.

A byte difference matters to the degree that programs reading the file see different values, or
fail. So instead of arguing from the bytes (`fmtcheck.engine.severity` does that), this module feeds both
renderings to the parsers that consumers.md names and compares what they return:

* jc: the file's own parser (`jc.parse('proc_net_dev', ...)`) and jc's auto-detection
  (`jc.parse('proc', ...)`, what `jc --proc` runs), which raises when the file is not recognised;
* psutil, pointed at a temporary procfs root through `psutil.PROCFS_PATH`, in a subprocess (its
  module-level caches, such as the CPU-times tuple and the wrap-around counters, would otherwise
  leak between the two sides and into the caller);
* awk's view: every line split on whitespace, keyed by its first token, tokens compared as text;
* procps `free` and `vmstat -s`, run in a private mount namespace (`unshare -m`) with the rendered
  file bind-mounted over the real /proc file, when the tools are installed and the namespace is
  allowed (root).

Values are compared as each consumer parses them (jc's dicts, psutil's named tuples), flattened to
`path -> scalar` so the first difference can be named. jc and psutil are optional
(`pip install 'fmtcheck[consumers]'`) and imported lazily.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

from fmtcheck.common.termination import temporary_directory

INSTALL_HINT = "pip install 'fmtcheck[consumers]'"
OUTCOMES = ("same values", "different values", "error", "skipped")
_DETAIL_MAX = 160
_SUBPROCESS_TIMEOUT = 60.0


@dataclass
class ConsumerOutcome:
    """What one consumer made of the two renderings."""

    consumer: str
    outcome: str  # one of OUTCOMES
    detail: str | None = None  # first differing value, the error, or why it was skipped

    def to_json(self) -> dict[str, Any]:
        return {"consumer": self.consumer, "outcome": self.outcome, "detail": self.detail}


# --------------------------------------------------------------------------- proc file names

PROC_FILES = (  # the names run_consumers and guess_proc_file use
    "net/dev", "net/snmp", "net/netstat", "meminfo", "vmstat", "stat", "diskstats", "partitions",
    "interrupts", "softirqs", "loadavg", "uptime", "pid/status", "pid/smaps", "pid/smaps_rollup",
    "pid/maps", "pid/stat", "pid/statm", "pid/io",
)

_FUNCTION_FILES = {
    "dev_seq_printf_stats": "net/dev", "dev_seq_show": "net/dev",
    "show_smap": "pid/smaps", "__show_smap": "pid/smaps",
    "show_smaps_rollup": "pid/smaps_rollup",
    "show_map": "pid/maps", "show_map_vma": "pid/maps", "show_vma_header_prefix": "pid/maps",
    "meminfo_proc_show": "meminfo", "show_val_kb": "meminfo", "hugetlb_report_meminfo": "meminfo",
    "arch_report_meminfo": "meminfo",
    "proc_pid_status": "pid/status", "task_state": "pid/status", "task_mem": "pid/status",
    "task_sig": "pid/status", "task_cap": "pid/status", "task_seccomp": "pid/status",
    "task_cpus_allowed": "pid/status", "task_context_switch_counts": "pid/status",
    "render_sigset_t": "pid/status", "render_cap_t": "pid/status",
    "do_task_stat": "pid/stat", "proc_tid_stat": "pid/stat", "proc_tgid_stat": "pid/stat",
    "proc_pid_statm": "pid/statm", "do_io_accounting": "pid/io",
    "diskstats_show": "diskstats", "show_partition": "partitions",
    "vmstat_show": "vmstat", "show_interrupts": "interrupts", "arch_show_interrupts": "interrupts",
    "show_stat": "stat", "show_softirqs": "softirqs",
    "loadavg_proc_show": "loadavg", "uptime_proc_show": "uptime",
    "snmp_seq_show": "net/snmp", "snmp_seq_show_ipstats": "net/snmp",
    "snmp_seq_show_tcp_udp": "net/snmp", "icmp_put": "net/snmp", "icmpmsg_put": "net/snmp",
    "netstat_seq_show": "net/netstat",
}


def normalize_proc_file(proc_file: str) -> str:
    """"/proc/1234/status", "/proc/self/smaps", "proc/net/dev" -> "pid/status", "pid/smaps", "net/dev"."""
    name = proc_file.strip().lstrip("/")
    if name.startswith("proc/"):
        name = name[len("proc/"):]
    head, _, rest = name.partition("/")
    if rest and (head.isdigit() or head in ("self", "thread-self", "pid", "PID")):
        name = "pid/" + rest
    return name


# --------------------------------------------------------------------------- guessing the file

_MAPS_LINE = re.compile(
    rb"^[0-9a-f]{8,16}-[0-9a-f]{8,16} [-r][-w][-x][sp-] [0-9a-f]+ [0-9a-f]+:[0-9a-f]+ \d+", re.M
)
_NET_DEV_ROW = re.compile(rb"^ *[^\s:]+: *\d+(?:\s+\d+){15}\s*$", re.M)


def _labels(names: str, after: bytes) -> re.Pattern[bytes]:
    """A line that starts with one of the labels (space-separated regex pieces), then `after`."""
    alternatives = "|".join(names.split()).encode()
    return re.compile(rb"^(?:" + alternatives + rb")" + after, re.M)


# Labels found in one file only (AnonHugePages & co. appear in both smaps and meminfo: left out).
_STATUS_KEYS = _labels(
    r"Name Umask State Tgid Pid PPid Uid Gid FDSize Groups NStgid Vm[A-Za-z]+ Rss[A-Za-z]+ Threads"
    r" SigQ Sig[A-Za-z]{3} ShdPnd Cap[A-Za-z]{3} NoNewPrivs Seccomp Cpus_allowed Mems_allowed"
    r" voluntary_ctxt_switches nonvoluntary_ctxt_switches",
    rb":\t",
)
_SMAPS_KEYS = _labels(
    r"Size KernelPageSize MMUPageSize Rss Pss Pss_Dirty Pss_Anon Pss_File Pss_Shmem Shared_Clean"
    r" Shared_Dirty Private_Clean Private_Dirty Referenced Anonymous LazyFree Shared_Hugetlb"
    r" Private_Hugetlb SwapPss Locked THPeligible VmFlags",
    rb": ",
)
_MEMINFO_KEYS = _labels(
    r"MemTotal MemFree MemAvailable Buffers Cached SwapCached Active Inactive Active\((?:anon|file)\)"
    r" Inactive\((?:anon|file)\) Unevictable Mlocked SwapTotal SwapFree Dirty Writeback AnonPages"
    r" Mapped Shmem KReclaimable Slab SReclaimable SUnreclaim KernelStack PageTables CommitLimit"
    r" Committed_AS VmallocTotal VmallocUsed Percpu HugePages_Total Hugepagesize DirectMap4k",
    rb":",
)
_VMSTAT_ROW = re.compile(rb"^[a-z][a-z0-9_]+ \d+$", re.M)
_DISKSTATS_ROW = re.compile(rb"^ *\d+ +\d+ \S+(?: \d+){10,}$", re.M)
_INTERRUPTS = re.compile(rb"^ +(?:CPU\d+ *)+$|^ *(?:\d+|[A-Z]{3}): +\d+", re.M)


def guess_proc_file(function: str | None, output: bytes) -> str | None:
    """Which /proc file a rendering belongs to: from the kernel function that printed it when it
    is a known one, else sniffed from the bytes. None when nothing fits."""
    if function:
        found = _FUNCTION_FILES.get(function.split(":")[-1].strip())
        if found:
            return found
    return _sniff(output)


def _sniff(output: bytes) -> str | None:
    checks: list[tuple[str, Callable[[bytes], bool]]] = [
        ("net/dev", lambda o: o.startswith(b"Inter-|") or bool(_NET_DEV_ROW.search(o))),
        ("pid/smaps_rollup", lambda o: b"[rollup]" in o),
        ("pid/smaps", lambda o: len(_SMAPS_KEYS.findall(o)) >= 2),
        ("pid/status", lambda o: len(_STATUS_KEYS.findall(o)) >= 2),
        ("meminfo", lambda o: len(_MEMINFO_KEYS.findall(o)) >= 2),
        ("pid/maps", lambda o: bool(_MAPS_LINE.search(o))),
        ("net/netstat", lambda o: o.startswith((b"TcpExt:", b"IpExt:"))),
        ("net/snmp", lambda o: bool(re.match(rb"(?:Ip|Icmp|IcmpMsg|Tcp|Udp|UdpLite): ", o))),
        ("stat", lambda o: o.startswith(b"cpu ") or b"\nintr " in o or b"\nctxt " in o),
        ("diskstats", lambda o: bool(_DISKSTATS_ROW.search(o))),
        ("interrupts", lambda o: bool(_INTERRUPTS.search(o))),
        ("vmstat", lambda o: bool(_VMSTAT_ROW.search(o)) and b"nr_" in o),
    ]
    for name, check in checks:
        if check(output):
            return name
    return None


# --------------------------------------------------------------------------- wrapping a record

NET_DEV_HEADER = (
    b"Inter-|   Receive" + b" " * 48 + b"|  Transmit\n"
    b" face |bytes    packets errs drop fifo frame compressed multicast|"
    b"bytes    packets errs drop fifo colls carrier compressed\n"
)
_MAPS_HEAD = b"7f0000000000-7f0000021000 rw-p 00000000 00:00 0"
SMAPS_HEADER = _MAPS_HEAD + b" " * (73 - len(_MAPS_HEAD)) + b"[heap]\n"
SMAPS_SIZE_LINES = (
    b"Size:                132 kB\n"
    b"KernelPageSize:        4 kB\n"
    b"MMUPageSize:           4 kB\n"
)
_ROLLUP_HEAD = b"00400000-7ffc00000000 ---p 00000000 00:00 0"
SMAPS_ROLLUP_HEADER = _ROLLUP_HEAD + b" " * (73 - len(_ROLLUP_HEAD)) + b"[rollup]\n"
MEMINFO_HEAD = (
    b"MemTotal:       16000000 kB\n"
    b"MemFree:         8000000 kB\n"
    b"MemAvailable:   12000000 kB\n"
)


def wrap_record(proc_file: str, record: bytes) -> bytes:
    """A whole file that a parser accepts, built around one rendered record: the two net/dev
    header lines before a device line, a maps line (and Size lines) before bare smaps fields, the
    first meminfo lines before a meminfo fragment, a CPU header before an interrupts row. A record
    that already holds that context is returned unchanged, so wrapping twice changes nothing.

    To keep the two sides identical apart from the record, wrap old and new with `wrap_pair`,
    which decides from the reference record only.
    """
    return _wrap_prefix(normalize_proc_file(proc_file), record) + record


def wrap_pair(proc_file: str, old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """Wrap both renderings with the prefix chosen for the old one, so that a rewrite that drops
    the context (say, the net/dev header) is not silently repaired by the wrapping."""
    prefix = _wrap_prefix(normalize_proc_file(proc_file), old)
    return prefix + old, prefix + new


def _wrap_prefix(name: str, record: bytes) -> bytes:
    first = record.split(b"\n", 1)[0]
    if name == "net/dev":
        return b"" if b"|" in first else NET_DEV_HEADER
    if name == "pid/smaps":
        if _MAPS_LINE.match(record):
            return b""
        return SMAPS_HEADER + (b"" if record.startswith(b"Size:") else SMAPS_SIZE_LINES)
    if name == "pid/smaps_rollup":
        return b"" if _MAPS_LINE.match(record) else SMAPS_ROLLUP_HEADER
    if name == "meminfo":
        return b"" if re.search(rb"^MemTotal:", record, re.M) else MEMINFO_HEAD
    if name == "interrupts":
        return b"" if b"CPU" in first else _interrupts_header(first)
    return b""


def _interrupts_header(row: bytes) -> bytes:
    """The header for an IRQ row: one CPU column per count after "N:"."""
    fields = row.split(b":", 1)[-1].split()
    cpus = 0
    for field in fields:
        if not field.isdigit():
            break
        cpus += 1
    return b" " * 11 + b"".join(b"CPU%-8d" % i for i in range(max(cpus, 1))) + b"\n"


# --------------------------------------------------------------------------- availability


def consumers_available() -> tuple[bool, str]:
    """(True, versions) when jc and psutil can be imported; else (False, the install hint)."""
    missing = [m for m in ("jc", "psutil") if importlib.util.find_spec(m) is None]
    if missing:
        return False, f"{', '.join(missing)} not installed: {INSTALL_HINT}"
    from importlib.metadata import PackageNotFoundError, version

    try:
        return True, f"jc {version('jc')}, psutil {version('psutil')}"
    except PackageNotFoundError:  # importable but not installed as a distribution (vendored)
        return True, "jc, psutil"


# --------------------------------------------------------------------------- comparing values

_ABSENT = "(absent)"


@dataclass
class _Reading:
    """One side as a consumer read it: a value, or the error that stopped it."""

    value: Any = None
    error: str | None = None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts, lists and named tuples as one ordered `path -> scalar` mapping."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        if not value:
            return {prefix: {}}
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, (list, tuple)):
        if not value:
            return {prefix: []}
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{i}]"))
        return out
    return {prefix: value}


def first_difference(old: Any, new: Any) -> str | None:
    """"key: old -> new" for the first value that differs, None when the values are equal."""
    flat_old, flat_new = flatten(old), flatten(new)
    for key in list(flat_old) + [k for k in flat_new if k not in flat_old]:
        a, b = flat_old.get(key, _ABSENT), flat_new.get(key, _ABSENT)
        if a != b or type(a) is not type(b):
            label = key or "(value)"
            sep = " " if label.endswith(":") else ": "
            return _clip(f"{label}{sep}{_show(a)} -> {_show(b)}")
    return None


def _show(value: Any) -> str:
    return value if value is _ABSENT else repr(value)


def _clip(text: str) -> str:
    text = " ".join(text.split("\n"))
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 3] + "..."


def _one_line(err: BaseException) -> str:
    return _clip(f"{type(err).__name__}: {err}")


def compare(consumer: str, old: _Reading, new: _Reading) -> ConsumerOutcome:
    """Outcome from the two readings. An error on one side (or different errors) is the finding,
    and says which side; the same error on both sides means this consumer cannot read the
    rendering at all (a partial record, say), whatever the rewrite did: "skipped", with the error."""
    if old.error is not None and old.error == new.error:
        return ConsumerOutcome(consumer, "skipped", _clip(f"fails the same way on both sides: {old.error}"))
    if old.error is not None or new.error is not None:
        return ConsumerOutcome(consumer, "error", _error_detail(old.error, new.error))
    diff = first_difference(old.value, new.value)
    if diff is None:
        return ConsumerOutcome(consumer, "same values", None)
    return ConsumerOutcome(consumer, "different values", diff)


def _error_detail(old: str | None, new: str | None) -> str:
    if old is not None and new is not None:
        return _clip(f"old: {old}; new: {new}")
    if new is not None:
        return _clip(f"new: {new}")
    return _clip(f"old: {old} (new reads fine)")


def _read(parse: Callable[[bytes], Any], data: bytes) -> _Reading:
    try:
        return _Reading(value=parse(data))
    except Exception as err:  # noqa: BLE001 - a consumer failing is the finding
        return _Reading(error=_one_line(err))


# --------------------------------------------------------------------------- jc

_JC_PARSERS = {
    "net/dev": "proc_net_dev", "net/netstat": "proc_net_netstat", "net/snmp": "proc_net_netstat",
    "meminfo": "proc_meminfo", "vmstat": "proc_vmstat", "stat": "proc_stat",
    "diskstats": "proc_diskstats", "partitions": "proc_partitions", "interrupts": "proc_interrupts",
    "softirqs": "proc_softirqs", "loadavg": "proc_loadavg", "uptime": "proc_uptime",
    "pid/status": "proc_pid_status", "pid/smaps": "proc_pid_smaps", "pid/smaps_rollup": "proc_pid_smaps",
    "pid/maps": "proc_pid_maps", "pid/stat": "proc_pid_stat", "pid/statm": "proc_pid_statm",
    "pid/io": "proc_pid_io",
}


def _text(data: bytes) -> str:
    """jc takes text; latin-1 maps every byte to one character, so no byte is lost or merged."""
    return data.decode("latin-1")


def _jc_consumers(name: str, old: bytes, new: bytes) -> list[ConsumerOutcome]:
    """The file's own jc parser, then jc's auto-detection (`jc --proc`)."""
    if importlib.util.find_spec("jc") is None:
        return [ConsumerOutcome("jc", "skipped", f"jc not installed: {INSTALL_HINT}")]
    import jc

    def parser_for(parser: str) -> Callable[[bytes], Any]:
        return lambda data: jc.parse(parser, _text(data), quiet=True)

    outcomes = []
    own = _JC_PARSERS.get(name)
    if own:
        outcomes.append(compare(f"jc {own}", _read(parser_for(own), old), _read(parser_for(own), new)))
    detect = parser_for("proc")  # what `jc --proc` runs: identify the file, then parse it
    outcomes.append(compare("jc --proc (auto-detect)", _read(detect, old), _read(detect, new)))
    return outcomes


# --------------------------------------------------------------------------- awk's view


def whitespace_fields(data: bytes) -> dict[str, str]:
    """What awk sees: each non-blank line split on whitespace, keyed by its first field ($1), the
    other fields rejoined by single spaces (awk's $0 after `$1=$1`) and compared as text, so
    "00000740" and "740" differ as `$2 == "740"` does. A key seen again gets "#2", "#3"...
    (smaps repeats "Rss:" once per mapping)."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for line in data.split(b"\n"):
        fields = line.split()
        if not fields:
            continue
        key = fields[0].decode("latin-1")
        seen[key] = seen.get(key, 0) + 1
        out[key if seen[key] == 1 else f"{key}#{seen[key]}"] = b" ".join(fields[1:]).decode("latin-1")
    return out


def _awk_consumer(old: bytes, new: bytes) -> ConsumerOutcome:
    return compare("whitespace split (awk)", _read(whitespace_fields, old), _read(whitespace_fields, new))


# --------------------------------------------------------------------------- psutil

PSUTIL_PID = 4242
# What psutil reads from each file (psutil/_pslinux.py), as the public calls that read it.
PSUTIL_CALLS: dict[str, tuple[str, ...]] = {
    "net/dev": ("net_io_counters",),
    "meminfo": ("virtual_memory", "swap_memory"),
    "vmstat": ("swap_memory",),
    "stat": ("cpu_times", "cpu_times_percpu", "cpu_stats", "boot_time"),
    "diskstats": ("disk_io_counters",),
    "pid/status": ("Process.uids", "Process.gids", "Process.num_threads", "Process.num_ctx_switches"),
    "pid/smaps": ("Process.memory_maps", "Process.memory_full_info"),
    "pid/smaps_rollup": ("Process.memory_full_info",),
    "pid/stat": ("Process.ppid", "Process.status", "Process.cpu_times", "Process.create_time", "Process.cpu_num"),
    "pid/statm": ("Process.memory_info",),
    "pid/io": ("Process.io_counters",),
}
# Files psutil needs besides the rendered one (process lookup reads PID/stat and the boot time;
# swap_memory reads both meminfo and vmstat). Identical on both sides.
_SCAFFOLD = {
    "stat": b"cpu  100 0 50 1000 0 0 0 0 0 0\ncpu0 100 0 50 1000 0 0 0 0 0 0\nintr 10\n"
    b"ctxt 20\nbtime 1700000000\nprocesses 30\nprocs_running 1\nprocs_blocked 0\n"
    b"softirq 5 0 0 0 0 0 0 0 0 0 0\n",
    "meminfo": MEMINFO_HEAD + b"Buffers:            1000 kB\nCached:           100000 kB\n"
    b"SwapTotal:             0 kB\nSwapFree:              0 kB\n",
    "vmstat": b"nr_free_pages 2000000\npswpin 0\npswpout 0\n",
    "pid/stat": b"%d (fmtcheck) S 1 %d %d 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 "
    b"18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    % (PSUTIL_PID, PSUTIL_PID, PSUTIL_PID),
    "pid/statm": b"0 0 0 0 0 0 0\n",
}


def _write_procfs(root: Path, name: str, data: bytes) -> None:
    """A directory laid out like /proc: scaffold files, then the rendered file on top."""
    for scaffold, content in _SCAFFOLD.items():
        _write_file(root, scaffold, content)
    _write_file(root, name, data)


def _write_file(root: Path, name: str, data: bytes) -> None:
    rel = name.replace("pid/", f"{PSUTIL_PID}/", 1) if name.startswith("pid/") else name
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _psutil_consumer(name: str, old: bytes, new: bytes) -> ConsumerOutcome:
    label = "psutil"
    if importlib.util.find_spec("psutil") is None:
        return ConsumerOutcome(label, "skipped", f"psutil not installed: {INSTALL_HINT}")
    if not sys.platform.startswith("linux"):
        return ConsumerOutcome(label, "skipped", "psutil's /proc parsers run on Linux only")
    calls = PSUTIL_CALLS[name]
    with temporary_directory("fmtcheck-procfs-") as tmp:
        roots = [Path(tmp, "old"), Path(tmp, "new")]
        for root, data in zip(roots, (old, new)):
            _write_procfs(root, name, data)
        try:
            result = _run_psutil_probe(calls, roots)
        except (OSError, ValueError, subprocess.SubprocessError) as err:
            return ConsumerOutcome(label, "error", _clip(f"probe failed: {_one_line(err)}"))
    return _compare_calls(label, calls, result["old"], result["new"])


def _run_psutil_probe(calls: Iterable[str], roots: list[Path]) -> dict[str, Any]:
    """Run the probe in a fresh, isolated interpreter (see `probe_command`)."""
    argv, env = probe_command(calls, roots)
    proc = subprocess.run(argv, capture_output=True, env=env, timeout=_SUBPROCESS_TIMEOUT, check=False,
                          cwd=str(roots[0].parent), stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise ValueError(f"exit {proc.returncode}: {tail[0]}")
    return json.loads(proc.stdout)


# The child's program: fmtcheck's own package directory is appended after the interpreter's own
# paths (so an installed fmtcheck and psutil are what it finds), then the probe runs.
_PROBE_PROGRAM = (
    "import sys; sys.path.append(sys.argv[1]); del sys.argv[1]\n"
    "from fmtcheck.impact.consumers import probe_main\n"
    "raise SystemExit(probe_main(sys.argv[1:]))\n"
)


def probe_command(calls: Iterable[str], roots: list[Path]) -> tuple[list[str], dict[str, str]]:
    """The psutil probe's argv and environment: `python -I` (no working directory or script
    directory on sys.path, no user site directory, PYTHON* variables ignored) with only a locale
    and PATH in its environment, so nothing from the caller's directory or environment runs."""
    package_parent = str(Path(__file__).resolve().parent.parent.parent)
    argv = [sys.executable, "-I", "-c", _PROBE_PROGRAM, package_parent, "psutil-probe", ",".join(calls), *map(str, roots)]
    return argv, _minimal_environment()


def _minimal_environment() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C", "LANG": "C"}


def _compare_calls(label: str, calls: Iterable[str], old: dict, new: dict) -> ConsumerOutcome:
    """Per call: an error on one side is the finding; a call that fails the same way on both
    sides only means the rendering lacks what it reads (a partial record) and is left out."""
    compared_old, compared_new, shared_errors = {}, {}, []
    for call in calls:
        a, b = old.get(call), new.get(call)
        err_a, err_b = _probe_error(a), _probe_error(b)
        if err_a is not None and err_a == err_b:
            shared_errors.append(f"{call}(): {err_a}")
            continue
        if err_a is not None or err_b is not None:
            return ConsumerOutcome(label, "error", _clip(f"{call}(): " + _error_detail(err_a, err_b)))
        compared_old[call], compared_new[call] = a, b
    if not compared_old:
        return ConsumerOutcome(label, "skipped", _clip("fails the same way on both sides: " + "; ".join(shared_errors)))
    outcome = compare(label, _Reading(compared_old), _Reading(compared_new))
    if outcome.outcome == "same values" and shared_errors:
        skipped = ", ".join(e.split(":", 1)[0] for e in shared_errors)
        outcome.detail = _clip(f"not compared (fails on both sides): {skipped}")
    return outcome


def _probe_error(value: Any) -> str | None:
    if isinstance(value, dict) and set(value) == {"__error__"}:
        return value["__error__"]
    return None


def _psutil_probe_main(calls: list[str], roots: list[str]) -> dict[str, Any]:
    """In the subprocess: for each procfs root, point psutil at it and make every call."""
    import psutil

    saved = psutil.PROCFS_PATH
    out: dict[str, Any] = {}
    try:
        for side, root in zip(("old", "new"), roots):
            psutil.PROCFS_PATH = root
            out[side] = {call: _probe_call(psutil, call, root) for call in calls}
    finally:
        psutil.PROCFS_PATH = saved
    return out


def _probe_call(psutil: Any, call: str, root: str) -> Any:
    """One psutil call as plain data, or {"__error__": text}; paths under the temporary root are
    shown as /proc so that the same failure reads the same on both sides."""
    table: dict[str, Callable[[], Any]] = {
        "net_io_counters": lambda: psutil.net_io_counters(pernic=True, nowrap=False),
        "virtual_memory": psutil.virtual_memory,
        "swap_memory": psutil.swap_memory,
        "cpu_times": psutil.cpu_times,
        "cpu_times_percpu": lambda: psutil.cpu_times(percpu=True),
        "cpu_stats": psutil.cpu_stats,
        "boot_time": psutil.boot_time,
        "disk_io_counters": lambda: psutil.disk_io_counters(perdisk=True, nowrap=False),
    }
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if call.startswith("Process."):
                method = getattr(psutil.Process(PSUTIL_PID), call.split(".", 1)[1])
                value = method(grouped=False) if call == "Process.memory_maps" else method()
            else:
                value = table[call]()
        plain = _plain(value)
        if caught:
            notes = [str(w.message).replace(root, "/proc") for w in caught]
            plain = {"value": plain, "warnings": notes}
        return plain
    except Exception as err:  # noqa: BLE001 - reported as this call's outcome
        return {"__error__": _one_line(err).replace(root, "/proc")}


def _plain(value: Any) -> Any:
    """JSON-able form of what psutil returns (named tuples become dicts)."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


# --------------------------------------------------------------------------- procps

# The files procps reads for each tool (checked with strace on procps-ng 4.0.2).
_PROCPS_TOOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # consumer name: (command, files it reads)
    "procps free": (("free", "-b", "-w"), ("meminfo",)),
    "procps vmstat -s": (("vmstat", "-s"), ("meminfo", "stat", "vmstat")),
}


def _procps_consumers(name: str, old: bytes, new: bytes) -> list[ConsumerOutcome]:
    outcomes = []
    for label, (command, files) in _PROCPS_TOOLS.items():
        if name in files:
            outcomes.append(_procps_consumer(label, command, files, name, old, new))
    return outcomes


def _procps_consumer(
    label: str, command: tuple[str, ...], files: tuple[str, ...], name: str, old: bytes, new: bytes
) -> ConsumerOutcome:
    if shutil.which(command[0]) is None:
        return ConsumerOutcome(label, "skipped", f"{command[0]} (procps) is not installed")
    reason = _namespace_problem()
    if reason:
        return ConsumerOutcome(label, "skipped", reason)
    readings = []
    with temporary_directory("fmtcheck-procps-") as tmp:
        context = _snapshot(files)  # the same live snapshot for both sides
        for side, data in (("old", old), ("new", new)):
            mounts = dict(context)
            mounts[name] = data
            readings.append(_run_procps(Path(tmp, side), command, mounts))
    return compare(label, readings[0], readings[1])


def _snapshot(files: Iterable[str]) -> dict[str, bytes]:
    """One read of each real /proc file the tool also reads, so both sides see the same ones."""
    snap = {}
    for name in files:
        try:
            snap[name] = Path("/proc", name).read_bytes()
        except OSError:
            snap[name] = _SCAFFOLD.get(name, b"")
    return snap


# sh -c SCRIPT sh N FILE1 TARGET1 ... FILEn TARGETn COMMAND ARGS...
_MOUNT_SCRIPT = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind "$1" "$2" || exit 97; shift 2; n=$((n-1)); done;'
    ' exec "$@"'
)


def _run_procps(tmp: Path, command: tuple[str, ...], mounts: dict[str, bytes]) -> _Reading:
    """Bind-mount each file over /proc/NAME in a private mount namespace, then run the tool."""
    tmp.mkdir(parents=True, exist_ok=True)
    argv = ["unshare", "-m", "--", "sh", "-c", _MOUNT_SCRIPT, "sh", str(len(mounts))]
    for name, data in mounts.items():
        path = tmp / name.replace("/", "_")
        path.write_bytes(data)
        argv += [str(path), f"/proc/{name}"]
    argv += [shutil.which(command[0]) or command[0], *command[1:]]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=_SUBPROCESS_TIMEOUT, env=_minimal_environment(),
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as err:
        return _Reading(error=_one_line(err))
    if proc.returncode != 0:
        text = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return _Reading(error=_clip(f"exit {proc.returncode}: {text[0] if text else 'no message'}"))
    return _Reading(value=_parse_procps(command[0], proc.stdout))


def _parse_procps(tool: str, output: bytes) -> dict[str, Any]:
    """free's table as {"Mem.total": n, ...}; vmstat -s as {"K total memory": n, ...}."""
    text = output.decode("utf-8", "replace")
    if tool == "free":
        lines = text.splitlines()
        columns = lines[0].split() if lines else []
        out: dict[str, Any] = {}
        for line in lines[1:]:
            label, _, rest = line.partition(":")
            for column, value in zip(columns, rest.split()):
                out[f"{label.strip()}.{column}"] = _int_or_text(value)
        return out
    out = {}
    for line in text.splitlines():
        match = re.match(r"\s*(\S+)\s+(.*\S)", line)
        if match:
            out[match.group(2)] = _int_or_text(match.group(1))
    return out


def _int_or_text(value: str) -> Any:
    return int(value) if value.isdigit() else value


@lru_cache(maxsize=1)
def _namespace_problem() -> str | None:
    """None when `unshare -m` plus a bind mount over a /proc file works here; else why not."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return "needs Linux with unshare(1) for a private mount namespace"
    with tempfile.NamedTemporaryFile(prefix="fmtcheck-probe-") as probe:
        argv = ["unshare", "-m", "--", "sh", "-c", _MOUNT_SCRIPT, "sh", "1", probe.name, "/proc/meminfo", "true"]
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=_SUBPROCESS_TIMEOUT, check=False)
        except (OSError, subprocess.SubprocessError) as err:
            return f"cannot run unshare: {_one_line(err)}"
    if proc.returncode != 0:
        text = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        why = text[0] if text else f"exit {proc.returncode}"
        return _clip(f"no private mount namespace with a bind mount over /proc (needs root): {why}")
    return None


# --------------------------------------------------------------------------- entry points


def run_consumers(
    proc_file: str | None, old: bytes, new: bytes, *, wrap: bool = True
) -> list[ConsumerOutcome]:
    """Feed the old and the new rendering of `proc_file` to every consumer that reads it.

    `proc_file` is a name such as "net/dev", "meminfo", "pid/status" (or a path like
    "/proc/self/status"); None or an unknown name runs only jc's auto-detection and awk's view.
    With `wrap` (the default) both renderings first get the same context a parser needs around a
    single record (`wrap_pair`); whole files are left as they are.
    """
    name = normalize_proc_file(proc_file) if proc_file else ""
    if wrap:
        old, new = wrap_pair(name, old, new)
    outcomes = _jc_consumers(name, old, new)
    if name in PSUTIL_CALLS:
        outcomes.append(_psutil_consumer(name, old, new))
    outcomes.append(_awk_consumer(old, new))
    outcomes.extend(_procps_consumers(name, old, new))
    return outcomes


def format_matrix(outcomes: Iterable[ConsumerOutcome]) -> list[str]:
    """The outcomes as text table lines (no newlines, no indentation), header first."""
    rows = [("consumer", "reads", "detail")]
    rows += [(o.consumer, o.outcome, o.detail or "") for o in outcomes]
    width0 = max(len(r[0]) for r in rows)
    width1 = max(len(r[1]) for r in rows)
    return [f"{a:<{width0}}  {b:<{width1}}  {c}".rstrip() for a, b, c in rows]


def probe_main(argv: list[str]) -> int:
    """The probe child's entry: `psutil-probe CALLS OLD_ROOT NEW_ROOT` (see `probe_command`)."""
    if len(argv) != 4 or argv[0] != "psutil-probe":
        sys.stderr.write("usage: python -m fmtcheck.impact.consumers psutil-probe CALLS OLD_ROOT NEW_ROOT\n")
        return 2
    result = _psutil_probe_main(argv[1].split(","), argv[2:])
    sys.stdout.write(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(probe_main(sys.argv[1:]))
