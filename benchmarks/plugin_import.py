"""What the fmtcheck pytest plugin adds to pytest start-up (target: under 50 ms).

The plugin is an entry point, so every pytest run in an environment with fmtcheck installed pays
for importing it, whether or not a test asks fmtcheck anything. Two measurements, median of N runs:

1. ``python -X importtime``: the cumulative import time of ``fmtcheck.plugin`` in an interpreter
   that has already imported pytest (what pytest pays: pytest itself is loaded anyway);
2. CPU time of ``pytest --collect-only -q`` in an empty directory with the plugin and with
   ``-p no:fmtcheck``, interleaved so drift hits both alike; the difference is the overhead (it
   includes pytest's assertion-rewriting hook reading the module, which -X importtime misses).

Both are taken twice: as the environment is (``PYTHONDONTWRITEBYTECODE=1`` here means every
import compiles the source again) and with a warm bytecode cache (a normal install), the cache kept
in a temporary ``PYTHONPYCACHEPREFIX`` so the tree is not touched.

Usage: ``python benchmarks/plugin_import.py [--runs N]``. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import re
import statistics
import subprocess
import sys
import tempfile

TARGET_MS = 50.0
_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)\s*$")


def environment(pycache: str | None) -> dict[str, str]:
    """The current environment, or one that writes and reuses bytecode under PYCACHE."""
    env = dict(os.environ)
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def import_time_ms(env: dict[str, str], module: str = "fmtcheck.plugin") -> float:
    """Cumulative import time of MODULE after pytest is loaded, from ``-X importtime``."""
    code = f"import pytest; import {module}"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, check=True, env=env)
    total_us = 0
    for line in proc.stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if match and match.group(4) in (module, module.split(".")[0]) and len(match.group(3)) == 1:
            total_us += int(match.group(2))  # top-level entries only: nested ones are included
    return total_us / 1000


def collect_cpu_ms(directory: str, disable: bool, env: dict[str, str]) -> float:
    """CPU time (user + system) of one ``pytest --co -q`` in an empty directory (exit 5, "no
    tests ran", is expected). CPU rather than wall time: other work on the machine then barely
    moves it, and the difference we look for is a few milliseconds in about a second."""
    cmd = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"]
    if disable:
        cmd += ["-p", "no:fmtcheck"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=directory, capture_output=True, check=False, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def measure(runs: int, env: dict[str, str]) -> dict[str, float]:
    import_time_ms(env)  # warm the caches (bytecode, file system)
    imports = [import_time_ms(env) for _ in range(runs)]
    with_plugin: list[float] = []
    without: list[float] = []
    with tempfile.TemporaryDirectory(prefix="fmtcheck-bench-") as empty:
        collect_cpu_ms(empty, False, env)
        for i in range(runs):  # alternate which goes first, so neither always runs warmer
            for disable in ((False, True) if i % 2 else (True, False)):
                (without if disable else with_plugin).append(collect_cpu_ms(empty, disable, env))
    return {
        "import_ms": statistics.median(imports),
        "pytest_with_ms": statistics.median(with_plugin),
        "pytest_without_ms": statistics.median(without),
    }


def show(label: str, m: dict[str, float], runs: int) -> float:
    overhead = m["pytest_with_ms"] - m["pytest_without_ms"]
    print(f"[{label}]")
    print(f"  import fmtcheck.plugin after pytest (-X importtime): {m['import_ms']:.1f} ms")
    print(f"  pytest --co -q in an empty dir: {m['pytest_with_ms']:.0f} ms with the plugin, "
          f"{m['pytest_without_ms']:.0f} ms with -p no:fmtcheck (CPU): {overhead:+.1f} ms")
    return max(m["import_ms"], overhead)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    print(f"median of {args.runs} runs each")
    worst = show("environment as is", measure(args.runs, environment(None)), args.runs)
    with tempfile.TemporaryDirectory(prefix="fmtcheck-pycache-") as pycache:
        cached = show("bytecode cached", measure(args.runs, environment(pycache)), args.runs)
    print(f"start-up overhead: {cached:.1f} ms with bytecode, {worst:.1f} ms without "
          f"(target < {TARGET_MS:.0f} ms): {'ok' if max(worst, cached) < TARGET_MS else 'OVER TARGET'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
