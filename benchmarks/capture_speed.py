"""Measure `check` and `diff` speed on a large smaps capture and a large net/dev capture (issues #4, #17).

Prints MB/s for check and diff, the ratio to `cmp` on the same bytes (by wall time, and by CPU time,
which a loaded machine disturbs less), the peak RSS and the 1-minute load. Run:
    python benchmarks/capture_speed.py [--mb 100] [--netdev-lines 100000] [--runs 3]
        [--smaps PATH] [--smaps2 PATH] [--netdev PATH] [--netdev2 PATH] [--venv PATH | --no-venv]
Without paths the captures are generated: smaps from this process's own records (repeated with
fresh addresses), net/dev from this machine's header and device rows with fresh names and counters
of every digit length (a seeded generator: the same bytes on every run). diff compares two
captures of the same layout with other values.
Each phase runs in a child process so that its peak RSS is its own. Two times are shown: that of
`check_captures` / `diff_captures` in the child (grammar detection, grammar parsing, regex
compilation, reading and matching), and that of the whole process (interpreter start-up, the
imports, and all of that), which is what a user waits for and what the ratio to cmp is judged on.
The "floor" line is the whole process of a child that starts, imports what the check (diff) path
imports and loads the grammar, but matches nothing: no run can take less. The children find the
package's bytecode cached (in a temporary PYCACHEPREFIX, as an installed package has it, even when
PYTHONDONTWRITEBYTECODE is set) and the grammar cache warm (a first run, not counted, fills both).
`cmp` compares the capture with a byte copy of it (comparing a file with itself returns at once).
The best of --runs runs is shown for each.
The "user" lines are the figure #17 is judged on: the console script `fmtcheck check A` /
`fmtcheck diff A B` run as a user runs it, whole process (wall and CPU time, peak RSS, exit status),
from a clean venv (`python3 -m venv` without system site packages, a non-editable `pip install` of
this checkout; created in a temporary directory, or reused from --venv PATH), beside the same
command from the environment running this script ("dev": an editable install, whose start-up pays
the editable finder and whatever .pth files the base interpreter's site-packages hold), in the same
run as cmp. The commands run in a temporary directory, so that the clean venv imports its own copy.
The "engine" line times the record regexes the check compiled (Python's `re` bulk regex, RE2's
plan and the native matcher's table where the check used one), each alone over the capture in memory from the first record on: the
matching a check cannot do without. Beside the floor it bounds the ratio: no whole-process run of
this design can beat cmp / (floor + engine), by wall time or by CPU time ("bound" in that line).
The "ceiling" line times RE2's DFA running the simplest line pattern over the capture (in memory,
in this process): no exact matching by that DFA can beat it, which says how far the ratio to cmp
can go on this machine.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import resource, sys, time
t0 = time.perf_counter()
mode, a, b = sys.argv[1:4]
if mode in ("check", "floor-check"):
    from fmtcheck.common.options import Options
    from fmtcheck.layout.capture import check_captures, grammar_for
else:
    from fmtcheck.common.options import Options
    from fmtcheck.layout.diff import diff_captures
    from fmtcheck.layout.capture import grammar_for
startup = time.perf_counter() - t0
t = time.perf_counter()
cpu = time.process_time()
if mode == "check":
    r = check_captures([a], Options())
elif mode == "diff":
    r = diff_captures(a, b, Options())
else:  # floor: what a run costs before it matches anything
    grammar_for(a, None)
    r = None
dt = time.perf_counter() - t
cpu = time.process_time() - cpu
print(dt, startup, r.results[0].verdict if r else "-", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu)
"""


ENGINE = r"""
import json, sys, time
from fmtcheck.common.options import Options
from fmtcheck.layout import dfa, native, records
from fmtcheck.layout.capture import check_captures
seen = {"re": [], "RE2": [], "native": []}
bulk, plan, table = records.bulk_regex, dfa.plan_for, native.table_for
records.bulk_regex = lambda p: seen["re"].append(p) or bulk(p)  # what the check compiles, watched
dfa.plan_for = lambda p: seen["RE2"].append(p) or plan(p)
native.table_for = lambda p: seen["native"].append(p) or table(p)
check_captures([sys.argv[1]], Options())
data = open(sys.argv[1], "rb").read()
starts = [0]
while len(starts) < 16 and data.find(b"\n", starts[-1]) >= 0:
    starts.append(data.find(b"\n", starts[-1]) + 1)
stop = data.rfind(b"\n") + 1
best = {}
for kind, patterns in seen.items():
    for pattern in dict.fromkeys(patterns):
        rx = {"re": bulk, "RE2": plan, "native": table}[kind](pattern)
        if rx is None:
            continue
        def run(s, rx=rx, kind=kind):
            if kind == "RE2":
                return rx.end(data, s, stop)
            if kind == "native":
                return rx.run(data, s, stop)[0] if rx.usable_at(data, s) else s
            m = rx.match(data, s)
            return m.end() if m else s
        start = max(starts, key=lambda s: run(s) - s)  # where this pattern's records begin
        covered = run(start) - start
        times = []
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()
            run(start)
            times.append((time.perf_counter() - t, time.process_time() - c))
        if covered > best.get(kind, (0,))[0]:
            best[kind] = (covered, min(x[0] for x in times), min(x[1] for x in times))
print(json.dumps(best))
"""


def run_engine(a: str, env: dict) -> dict:
    """{kind: (bytes covered, wall s, CPU s)}: the record regexes a check of A compiles, each run alone
    over A in memory from where its records begin (kind: "re" or "RE2")."""
    import json

    out = subprocess.run([sys.executable, "-c", ENGINE, a], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def _is_vma_header(line: bytes) -> bool:
    dash = line.find(b"-")
    return 8 <= dash <= 16 and line[:dash].isalnum() and line[dash + 1 : 2 * dash + 1].isalnum()


def generate(path: str, megabytes: int, seed_addr: int = 0x550000000000) -> int:
    """A smaps capture made of this process's real records, repeated with fresh addresses.

    Only 12-digit addresses are rewritten (the usual user-space ones), so that the seq_pad column
    of every header line still holds; others ([vsyscall]) are kept as they are.
    """
    with open("/proc/self/smaps", "rb") as f:
        template = f.read().splitlines(keepends=True)
    size = 0
    addr = seed_addr
    with open(path, "wb") as out:
        while size < megabytes << 20:
            chunk = bytearray()
            for line in template:
                if _is_vma_header(line) and line.index(b"-") == 12:
                    rest = line[25:]
                    line = f"{addr:012x}-{addr + 0x1000:012x}".encode() + rest
                    addr += 0x1000
                chunk += line
            out.write(chunk)
            size += len(chunk)
    return size


def generate_netdev(path: str, lines: int, seed: int = 1) -> int:
    """A /proc/net/dev capture with LINES device rows, printed as dev_seq_printf_stats does."""
    rng = random.Random(seed)
    try:
        with open("/proc/net/dev", "rb") as f:
            header = f.read().split(b"\n")[:2]
    except OSError:
        header = [b"Inter-|   Receive                                                |  Transmit",
                  b" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
                  b"drop fifo colls carrier compressed"]
    size = 0
    with open(path, "wb") as out:
        chunk = [header[0], header[1]]
        for i in range(lines):
            vals = [rng.choice((0, 7, 42, 4096, 123456, 98765432, 12345678901)) for _ in range(16)]
            chunk.append(b"%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d %10d"
                         % (f"v{seed:x}{i:x}".encode()[-15:], *vals))
            if len(chunk) >= 4096 or i == lines - 1:
                data = b"\n".join(chunk) + b"\n"
                out.write(data)
                size += len(data)
                chunk = []
    return size


def run_child(mode: str, a: str, b: str, env: dict) -> tuple[float, float, str, int, float, float, float]:
    """(seconds, startup seconds, verdict, peak RSS in KiB, CPU seconds, whole-process wall seconds,
    whole-process CPU seconds) of one check or diff (or floor-check / floor-diff)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, mode, a, b], capture_output=True, text=True, check=True,
                         env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    whole_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    dt, startup, verdict, rss, cpu = out.stdout.split()
    return float(dt), float(startup), verdict, int(rss), float(cpu), wall, whole_cpu


def child_env(tmp: str) -> dict:
    """The children's environment: bytecode written to and read from a temporary prefix, so that
    they start as an installed package does (compiled modules), whatever PYTHONDONTWRITEBYTECODE says."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(label: str, a: str, b: str, runs: int, tmp: str, venv: str | None = None) -> None:
    """check A and diff A B, each beside cmp of A and a byte copy of A (two distinct files)."""
    copy = os.path.join(tmp, "copy")
    shutil.copyfile(a, copy)
    mb = os.path.getsize(a) / 1e6
    env = child_env(tmp)
    for mode in ("floor-check", "floor-diff"):
        run_child(mode, a, b, env)  # fills the bytecode and grammar caches; not counted
    cmps = [_timed(["cmp", a, copy]) for _ in range(runs)]
    cmp_dt, cmp_cpu = min(c[0] for c in cmps), min(c[1] for c in cmps)
    cmp_rate = mb / cmp_dt
    print(f"{label}: {mb:.1f} MB; cmp {cmp_rate:.0f} MB/s ({cmp_dt:.3f} s, CPU {cmp_cpu:.3f} s); "
          f"load {os.getloadavg()[0]:.1f}")
    for mode in ("check", "diff"):
        total = mb + (os.path.getsize(b) / 1e6 if mode == "diff" else 0)
        for where, script in (("user (clean venv)", venv), ("dev environment", os.path.dirname(sys.executable))):
            if script is not None:
                _user_line(mode, where, os.path.join(script, "fmtcheck"), (a, b), runs, tmp,
                           (cmp_dt * total / mb, cmp_cpu * total / mb))
    ceilings = [_dfa_lines(a) for _ in range(runs)]
    ceiling = min(ceilings) if None not in ceilings else None
    if ceiling is not None:
        print(f"  ceiling: RE2's DFA over the lines alone ({DFA_LINES.decode()}) {mb / ceiling:.0f} MB/s, "
              f"ratio to cmp {cmp_dt / ceiling:.3f} (exact matching by this DFA cannot be faster)")
    bare = [_timed([sys.executable, "-c", "pass"]) for _ in range(runs)]
    nosite = [_timed([sys.executable, "-I", "-S", "-c", "pass"]) for _ in range(runs)]
    print(f"  floor: the interpreter alone starts in {min(x[0] for x in bare):.3f} s (CPU {min(x[1] for x in bare):.3f} s); "
          f"without site (-I -S: no .pth files, no site-packages) {min(x[0] for x in nosite):.3f} s "
          f"(CPU {min(x[1] for x in nosite):.3f} s)")
    engines = run_engine(a, env)
    floor_check = None
    for mode in ("check", "diff"):
        floors = [run_child("floor-" + mode, a, b, env) for _ in range(runs)]
        floor_check = floor_check or (min(f[5] for f in floors), min(f[6] for f in floors))
        results = [run_child(mode, a, b, env) for _ in range(runs)]
        dt, startup, verdict = min(results)[:3]
        rss = max(r[3] for r in results)
        cpu = min(r[4] for r in results)
        wall, whole_cpu = min(r[5] for r in results), min(r[6] for r in results)
        total = mb + (os.path.getsize(b) / 1e6 if mode == "diff" else 0)
        cmp_same = total / cmp_rate  # cmp's time on as many bytes
        cmp_cpu_same = cmp_cpu * total / mb
        print(f"  {mode}: {total:.1f} MB in {dt:.2f} s = {total / dt:.0f} MB/s ({verdict}); "
              f"ratio to cmp {cmp_same / dt:.3f} (by CPU time {cmp_cpu_same / cpu:.3f}); peak RSS {rss / 1024:.0f} MB; "
              f"startup {startup:.2f} s, with it {total / (dt + startup):.0f} MB/s")
        print(f"    whole process: {wall:.3f} s = {total / wall:.0f} MB/s, ratio to cmp {cmp_same / wall:.3f} "
              f"(CPU {whole_cpu:.3f} s, by CPU time {cmp_cpu_same / whole_cpu:.3f}); its floor (start-up, "
              f"imports, grammar load, no matching) {min(f[5] for f in floors):.3f} s "
              f"(CPU {min(f[6] for f in floors):.3f} s, imports {min(f[1] for f in floors):.3f} s, "
              f"grammar {min(f[0] for f in floors):.3f} s)")
    for kind, (covered, wall, cpu) in sorted(engines.items()):
        if covered * 100 < mb * 1e6:
            continue  # a pattern of a few lines (a header), not the records'
        share = covered / (mb * 1e6)  # cmp's time on the bytes the engine covered
        print(f"  engine ({kind}): the record regex alone over {covered / 1e6:.1f} MB in memory {wall:.3f} s "
              f"(CPU {cpu:.3f} s) = {covered / 1e6 / wall:.0f} MB/s, alone {share * cmp_dt / wall:.3f} of cmp "
              f"(by CPU time {share * cmp_cpu / cpu:.3f}); bound for check: cmp / (floor + engine) "
              f"= {cmp_dt / (floor_check[0] + wall):.3f} (by CPU time {cmp_cpu / (floor_check[1] + cpu):.3f})")
    os.unlink(copy)


def _user_line(mode: str, where: str, script: str, captures: tuple, runs: int, tmp: str,
               cmp_same: tuple) -> None:
    """Print the whole process of `fmtcheck check A` (or `diff A B`) as SCRIPT runs it: best wall
    and CPU time of RUNS runs (after one uncounted run that fills the grammar cache), the ratio to
    cmp's time on as many bytes (CMP_SAME: wall, CPU), peak RSS and exit status."""
    cmd = [script, mode, *(captures[:1] if mode == "check" else captures)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    _process(cmd, tmp, env)
    results = [_process(cmd, tmp, env) for _ in range(runs)]
    wall, cpu = min(r[0] for r in results), min(r[1] for r in results)
    rss, codes = max(r[2] for r in results), sorted({r[3] for r in results})
    print(f"  {mode}, {where}: `fmtcheck {mode}` whole process {wall:.3f} s (CPU {cpu:.3f} s): ratio to cmp "
          f"{cmp_same[0] / wall:.3f} (by CPU time {cmp_same[1] / cpu:.3f}); peak RSS {rss / 1024:.0f} MB; "
          f"exit {'/'.join(map(str, codes))}; load {os.getloadavg()[0]:.1f}")


def _process(cmd: list[str], cwd: str, env: dict) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, peak RSS in KiB, exit status) of CMD, its own rusage (wait4)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clean_venv(tmp: str) -> str:
    """The bin directory of a venv made as a user makes one: no system site packages, this checkout
    installed by pip, not editable (its bytecode compiled at install, as pip does)."""
    path = os.path.join(tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    subprocess.run([os.path.join(path, "bin", "python"), "-m", "pip", "install", "-q", ROOT], check=True,
                   cwd=tmp)
    return os.path.join(path, "bin")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100, help="size of the generated smaps capture")
    ap.add_argument("--netdev-lines", type=int, default=100_000, help="rows of the generated net/dev")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--smaps", help="an smaps capture to use instead of generating one")
    ap.add_argument("--smaps2", help="the NEW side of the smaps diff (default: generated)")
    ap.add_argument("--netdev", help="a net/dev capture to use instead of generating one")
    ap.add_argument("--netdev2", help="the NEW side of the net/dev diff (default: generated)")
    ap.add_argument("--only", choices=("smaps", "netdev"), help="measure one capture only")
    ap.add_argument("--venv", help="a clean venv (its directory) with fmtcheck installed, instead of making one")
    ap.add_argument("--no-venv", action="store_true", help="measure this environment only (no clean venv)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        venv = None if args.no_venv else os.path.join(args.venv, "bin") if args.venv else clean_venv(tmp)
        if args.only != "netdev":
            smaps_new = lambda path, old: generate(  # noqa: E731 - same layout, other addresses
                path, args.mb if not args.smaps else max(1, os.path.getsize(old) >> 20), seed_addr=0x560000000000)
            _run("smaps", (args.smaps, lambda path: generate(path, args.mb)), (args.smaps2, smaps_new),
                 args.runs, tmp, venv)
        if args.only != "smaps":
            _run("net/dev", (args.netdev, lambda path: generate_netdev(path, args.netdev_lines)),
                 (args.netdev2, lambda path, old: generate_netdev(path, args.netdev_lines, seed=2)), args.runs, tmp, venv)


def _run(label: str, old: tuple, new: tuple, runs: int, tmp: str, venv: str | None) -> None:
    """Measure on the given captures, or on generated ones (removed afterwards)."""
    a = old[0] or os.path.join(tmp, "old")
    b = new[0] or os.path.join(tmp, "new")
    if not old[0]:
        old[1](a)
    if not new[0]:
        new[1](b, a)
    measure(label, a, b, runs, tmp, venv)
    for path in (a, b):
        if path.startswith(tmp):
            os.unlink(path)


DFA_LINES = rb"(?:[^\n]*\n)*"
CEILING = r"""
import sys, time
try:
    import re2
except ImportError:
    sys.exit(0)
options = re2.Options()
options.encoding = re2.Options.Encoding.LATIN1
rx = re2.compile(rb"(?:[^\n]*\n)*", options)
data = open(sys.argv[1], "rb").read()
t = time.perf_counter()
rx.match(data)
print(time.perf_counter() - t)
"""


def _dfa_lines(path: str) -> float | None:
    """Seconds RE2 takes to run the simplest pattern over every line of PATH (read beforehand, in
    a child, so that this process's memory stays out of the children's peak RSS), or None without
    google-re2: the floor under any exact matching of the lines by the DFA."""
    out = subprocess.run([sys.executable, "-c", CEILING, path], capture_output=True, text=True, check=True)
    return float(out.stdout) if out.stdout.strip() else None


def _timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of CMD: under load, CPU time is the steadier of the two."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    dt = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dt, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
