"""Measure `check` and `diff` speed on a generated smaps capture (issue #4 performance target).

Prints MB/s for check and diff, the ratio to `cmp` on the same bytes, and the peak RSS. Run:
    python benchmarks/capture_speed.py [--mb 60] [--runs 3]
Each phase runs in a child process so that its peak RSS is its own. The time is that of
`check_captures` / `diff_captures` in the child: grammar detection, grammar parsing, regex
compilation, reading and matching; the import of fmtcheck is measured apart and printed as
"startup" (it does not grow with the capture). `cmp` compares the capture with a byte copy of it
(comparing a file with itself returns at once). The best of --runs runs is shown for each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import resource, sys, time
t0 = time.perf_counter()
from fmtcheck.common.options import Options
from fmtcheck.layout.capture import check_captures
from fmtcheck.layout.diff import diff_captures
startup = time.perf_counter() - t0
mode, a, b = sys.argv[1:4]
t = time.perf_counter()
if mode == "check":
    r = check_captures([a], Options())
else:
    r = diff_captures(a, b, Options())
dt = time.perf_counter() - t
print(dt, startup, r.results[0].verdict, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


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


def run_child(mode: str, a: str, b: str) -> tuple[float, float, str, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, a, b], capture_output=True, text=True, check=True)
    dt, startup, verdict, rss = out.stdout.split()
    return float(dt), float(startup), verdict, int(rss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, b, copy = (os.path.join(tmp, n) for n in ("a", "b", "copy"))
        size = generate(a, args.mb)
        generate(b, args.mb, seed_addr=0x560000000000)  # same layout, other values (addresses)
        shutil.copyfile(a, copy)
        mb = size / 1e6
        cmp_dt = min(_timed(["cmp", a, copy]) for _ in range(args.runs))
        cmp_rate = mb / cmp_dt
        print(f"capture: {mb:.1f} MB of smaps; cmp {cmp_rate:.0f} MB/s ({cmp_dt:.3f} s)")
        for mode in ("check", "diff"):
            runs = [run_child(mode, a, b) for _ in range(args.runs)]
            dt, startup, verdict, _ = min(runs)
            rss = max(r[3] for r in runs)
            total = mb * (2 if mode == "diff" else 1)
            print(f"{mode}: {total:.1f} MB in {dt:.2f} s = {total / dt:.0f} MB/s ({verdict}); "
                  f"ratio to cmp {(total / dt) / cmp_rate:.3f}; peak RSS {rss / 1024:.0f} MB; "
                  f"startup {startup:.2f} s, with it {total / (dt + startup):.0f} MB/s")


def _timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
