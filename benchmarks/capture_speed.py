"""Measure `check` and `diff` speed on a generated smaps capture (issue #4 performance target).

Prints MB/s for check and diff, the ratio to `cmp` on the same file, and the peak RSS. Run:
    python benchmarks/capture_speed.py [--mb 60]
Each phase runs in a child process so that its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import resource, sys, time
from fmtcheck.options import Options
mode, a, b = sys.argv[1:4]
t = time.perf_counter()
if mode == "check":
    from fmtcheck.capture import check_captures
    r = check_captures([a], Options())
else:
    from fmtcheck.layoutdiff import diff_captures
    r = diff_captures(a, b, Options())
dt = time.perf_counter() - t
print(dt, r.verdict, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def generate(path: str, megabytes: int) -> int:
    """A smaps capture made of this process's real records, repeated with fresh addresses."""
    with open("/proc/self/smaps", "rb") as f:
        records = f.read().split(b"\n")
    body = b"\n".join(r for r in records if not r[:1].isalnum() or b"-" not in r[:17] or True)
    blocks = body.split(b"\nVmFlags:")
    template = open("/proc/self/smaps", "rb").read()
    size = 0
    addr = 0x550000000000
    with open(path, "wb") as out:
        while size < megabytes << 20:
            for rec in template.split(b"\n")[:]:
                pass
            chunk = bytearray()
            for line in template.splitlines(keepends=True):
                if line[:1] in b"0123456789abcdef" and b"-" in line[:17] and b" " in line[:30]:
                    width = line.index(b"-")  # keep the address width, so the pad column holds
                    if width != 12:
                        continue
                    start = f"{addr:0{width}x}".encode()
                    end = f"{addr + 0x1000:0{width}x}".encode()
                    addr += 0x1000
                    line = start + b"-" + end + line[2 * width + 1 :]
                chunk += line
            out.write(chunk)
            size += len(chunk)
    del blocks
    return size


def run_child(mode: str, a: str, b: str) -> tuple[float, str, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, a, b], capture_output=True, text=True, check=True)
    dt, verdict, rss = out.stdout.split()
    return float(dt), verdict, int(rss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        size = generate(a, args.mb)
        generate(b, args.mb)
        mb = size / 1e6
        t = time.perf_counter()
        subprocess.run(["cmp", a, a], check=True)
        cmp_dt = time.perf_counter() - t
        t = time.perf_counter()
        subprocess.run(["cmp", "-s", a, b])
        for mode in ("check", "diff"):
            dt, verdict, rss = run_child(mode, a, b)
            total = mb * (2 if mode == "diff" else 1)
            print(f"{mode}: {total:.1f} MB in {dt:.2f} s = {total / dt:.0f} MB/s ({verdict}); "
                  f"cmp {mb / cmp_dt:.0f} MB/s, ratio {(total / dt) / (mb / cmp_dt):.3f}; "
                  f"peak RSS {rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
