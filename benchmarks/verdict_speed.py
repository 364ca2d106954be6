"""Verdicts at the speed of start-up: every verdict's whole-process time beside `fmtcheck --help`.

Measured in the same run, each the median of `--repeat` (default 5) whole processes:

- `fmtcheck --help` (the start-up baseline), once at the start and again beside every pair, the two
  run alternately: each pair's ratio is to the start-up measured beside it (the machine's load
  moves both), and the 1-minute load average is printed beside it;
- `fmtcheck verify` on every fixture pair and on the generators (benchmarks/loops.py: K-CPU rows,
  list walks, counted loops and pointer chains of N fields, nested loops, B flag rows;
  benchmarks/branchy.py: B branchy rows), each with its ratio to start-up, and a summary of the
  sizes the issue requires (N <= 256, K <= 100, B <= 32) against its 8x and 3x lines;
- engine throughput on the divergent 16-field line (fixtures/example/old.c against
  new-divergent.c): cases per CPU-second through `Runner.run_case`, beside a gcc -O2 harness of
  the same two functions that this script writes and builds (fmtcheck itself never runs input code
  natively; the harness exists only here, as the yardstick).

`python -m benchmarks.verdict_speed [--repeat N] [--quick]` prints one table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def whole_process(args: list[str], repeat: int) -> float:
    """Median wall time of `fmtcheck ARGS` as a new process."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fmtcheck", *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=ROOT, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def beside_startup(args: list[str], repeat: int) -> tuple[float, float]:
    """(median of `fmtcheck ARGS`, median of `fmtcheck --help`), the two run alternately, so that
    a change of the machine's load during the run moves both: the ratio of one pair is measured
    against the start-up of its own minute, not of the run's first."""
    took, startup = [], []
    for _ in range(repeat):
        startup.append(whole_process(["--help"], 1))
        took.append(whole_process(args, 1))
    return statistics.median(took), statistics.median(startup)


def load() -> str:
    """The 1-minute load average (figures under load are noisy: it is printed beside each)."""
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def fixture_pairs() -> list[tuple[str, Path, Path]]:
    out = []
    for pair in sorted(p for p in (FIXTURES / "pairs").iterdir() if p.is_dir()):
        for new in sorted(pair.glob("new*.c")):
            out.append((f"pairs/{pair.name}/{new.name}", pair / "old.c", new))
    example = FIXTURES / "example"
    for new in sorted(example.glob("new*.c")):
        out.append((f"example/{new.name}", example / "old.c", new))
    return out


# the sizes the issue requires (larger ones are reported beside them)
REQUIRED = {"N": 256, "K": 100, "B": 32}


def generated_pairs(quick: bool, workdir: Path) -> list[tuple[str, Path, Path, bool]]:
    """(name, old file, new file, whether its size is within REQUIRED) for every generator."""
    from benchmarks import loops
    from benchmarks.branchy import branchy_pair

    made: list[tuple[str, str, str, bool]] = []
    for k in ([4, 32] if quick else [4, 32, 100]):
        for lose in (False, True):
            old, new = loops.cpu_row(k, lose)
            made.append((f"loops cpu K={k}{' lost separator' if lose else ''}", old, new, k <= REQUIRED["K"]))
    for n in ([16, 64] if quick else [16, 64, 256]):
        for slip in (False, True):
            old, new = loops.list_walk(n, slip)
            made.append((f"loops list N={n}{' slip' if slip else ''}", old, new, n <= REQUIRED["N"]))
            old, new = loops.counted(n, slip)
            made.append((f"loops counted N={n}{' slip' if slip else ''}", old, new, n <= REQUIRED["N"]))
            old, new = loops.chain(n, slip)
            made.append((f"loops chain N={n}{' lost separator' if slip else ''}", old, new, n <= REQUIRED["N"]))
            old, new = loops.chain(n, slip, while_loop=True)
            made.append((f"loops while N={n}{' lost separator' if slip else ''}", old, new, n <= REQUIRED["N"]))
    for slip in (False, True):
        old, new = loops.nested(0, slip)
        made.append((f"loops nested{' lost separator' if slip else ''}", old, new, True))
        old, new = loops.grid(slip)
        made.append((f"loops grid{' swapped' if slip else ''}", old, new, True))
    for b in ([8, 32] if quick else [8, 32, 64]):
        for slip in (False, True):
            old, new = loops.flag_rows(b, b // 2 if slip else None)
            made.append((f"loops rows B={b}{' slip' if slip else ''}", old, new, b <= REQUIRED["B"]))
            old, new, _ = branchy_pair(b, 7, slip=slip)
            made.append((f"branchy B={b}{' slip' if slip else ''}", old, new, b <= REQUIRED["B"]))
    out = []
    for index, (name, old, new, required) in enumerate(made):
        old_path, new_path = workdir / f"{index}-old.c", workdir / f"{index}-new.c"
        old_path.write_text(old)
        new_path.write_text(new)
        out.append((name, old_path, new_path, required))
    return out


def verdict_of(old: Path, new: Path) -> str:
    from fmtcheck.common.options import Options
    from fmtcheck.engine.verdict import verify_files

    result = verify_files(str(old), str(new), Options()).results[0]
    return f"{result.verdict}{', ' + result.method if result.method else ''}"


# ---------------------------------------------------------------------------------------------
# throughput: engine against a native harness of the same two functions

HARNESS_SHIM = r"""
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
struct seq_file { char buf[8192]; size_t count; };
struct net_device { char name[16]; };
struct link_counters { unsigned long long %(fields)s; };
static struct link_counters counters;
static const struct link_counters *read_link_counters(struct net_device *dev) { (void)dev; return &counters; }
static void seq_printf(struct seq_file *m, const char *f, ...)
{ va_list ap; va_start(ap, f); m->count += vsnprintf(m->buf + m->count, sizeof m->buf - m->count, f, ap); va_end(ap); }
static void seq_put_decimal_ull_width(struct seq_file *m, const char *d, unsigned long long v, unsigned int w)
{ m->count += snprintf(m->buf + m->count, sizeof m->buf - m->count, "%%s%%*llu", d, (int)w, v); }
"""

HARNESS_MAIN = r"""
int main(int argc, char **argv)
{
	long n = atol(argv[1]), differ = 0;
	unsigned long long x = 88172645463325252ULL;
	struct net_device dev; struct seq_file a, b;
	strcpy(dev.name, "eth0");
	unsigned long long *f = (unsigned long long *)&counters;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (long i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof counters / sizeof *f; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			unsigned long long p = 1; int d = x %% 20; while (d--) p *= 10;
			f[k] = x %% p;
		}
		a.count = b.count = 0;
		old_show(&a, &dev); new_show(&b, &dev);
		differ += a.count != b.count || memcmp(a.buf, b.buf, a.count) != 0;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	printf("%%ld %%.6f\n", differ, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
"""


def native_rate(old: Path, new: Path, workdir: Path) -> float | None:
    """Cases per CPU-second of a gcc -O2 build of both functions (None without gcc)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    old_text, new_text = old.read_text(), new.read_text()
    fields = sorted(set(re.findall(r"c->(\w+)", old_text + new_text)))
    source = (HARNESS_SHIM % {"fields": ", ".join(fields)}
              + "#define netdev_show_line old_show\n" + old_text + "#undef netdev_show_line\n"
              + "#define netdev_show_line new_show\n" + new_text + "#undef netdev_show_line\n"
              + HARNESS_MAIN % {})
    c_file, binary = workdir / "harness.c", workdir / "harness"
    c_file.write_text(source)
    subprocess.run([gcc, "-O2", "-w", "-o", str(binary), str(c_file)], check=True)
    cases = 2_000_000
    out = subprocess.run([str(binary), str(cases)], capture_output=True, text=True, check=True).stdout.split()
    return cases / float(out[1])


def engine_rate(old: Path, new: Path, cases: int = 3000) -> tuple[float, str]:
    """Cases per CPU-second through the engine's case runner (fast path, the interpreter for
    every case whose bytes differ), on random digit-length vectors."""
    from fmtcheck.c import cfront
    from fmtcheck.c.hints import InputSpace, collect_hints
    from fmtcheck.engine.inputs import VectorInputs
    from fmtcheck.engine.verdict import Runner, side_of

    old_unit = cfront.parse_unit(old.read_bytes(), str(old))
    new_unit = cfront.parse_unit(new.read_bytes(), str(new))
    space = InputSpace()
    collect_hints(old_unit, space)
    collect_hints(new_unit, space)
    runner = Runner(side_of(old_unit, space, "netdev_show_line", "old"), side_of(new_unit, space, "netdev_show_line", "new"))
    runner.prove()
    discovery = VectorInputs()
    runner.run_case(discovery)
    runner.kinds = dict(discovery.kinds)
    runner.enable_fast_path()
    rng = random.Random(1)
    vectors = []
    for _ in range(cases):
        vector = {}
        for key, kind in runner.kinds.items():
            if kind[0] == "int":
                vector[key] = rng.randrange(10 ** rng.randrange(0, 20)) if kind[1] == 64 else rng.randrange(1 << 31)
        vectors.append(vector)
    start = time.process_time()
    differ = 0
    for vector in vectors:
        outcome = runner.run_case(VectorInputs(vector))
        differ += outcome is not None and not outcome.same
    took = time.process_time() - start
    return cases / took, f"{differ}/{cases} differ, fast path {'on' if runner.fast else 'off'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller generator sizes")
    args = parser.parse_args()
    os.environ.setdefault("CI", "true")
    # An installed fmtcheck runs from bytecode; with PYTHONDONTWRITEBYTECODE set and no cache in
    # the checkout every process would compile ~50 modules first (0.3 s) and measure that instead.
    compiled = all(compileall.compile_dir(str(ROOT / d), quiet=1) for d in ("fmtcheck", "grammars"))
    print(f"bytecode of the checkout {'compiled' if compiled else 'NOT compiled'} before measuring")
    with tempfile.TemporaryDirectory(prefix="fmtcheck-speed-") as tmp:
        workdir = Path(tmp)
        startup = whole_process(["--help"], args.repeat)
        print(f"start-up (fmtcheck --help, median of {args.repeat}): {startup * 1000:.0f} ms")
        print(f"{'pair':44} {'verdict':22} {'ms':>7} {'start-up':>8} {'x start-up':>10}  load")
        worst: dict[str, float] = {"proven": 0.0, "all": 0.0}
        required: dict[str, tuple[float, str]] = {"proven": (0.0, ""), "all": (0.0, "")}
        pairs = [(name, old, new, True) for name, old, new in fixture_pairs()] + generated_pairs(args.quick, workdir)
        for name, old, new, within in pairs:
            verdict = verdict_of(old, new)
            took, beside = beside_startup(["verify", str(old), str(new)], args.repeat)
            ratio = took / beside
            worst["all"] = max(worst["all"], ratio)
            if verdict.endswith("proven"):
                worst["proven"] = max(worst["proven"], ratio)
            for kind in ("all", "proven") if verdict.endswith("proven") else ("all",):
                if within and ratio > required[kind][0]:
                    required[kind] = (ratio, name)
            print(f"{name:44} {verdict:22} {took * 1000:7.0f} {beside * 1000:8.0f} {ratio:10.1f}  {load()}"
                  f"{'' if within else '  (larger size)'}")
        print(f"worst verdict: {worst['all']:.1f}x start-up; worst proven: {worst['proven']:.1f}x")
        print(f"required sizes (fixtures, N <= {REQUIRED['N']}, K <= {REQUIRED['K']}, B <= {REQUIRED['B']}): "
              f"worst verdict {required['all'][0]:.1f}x ({required['all'][1]}) against 8x: "
              f"{'holds' if required['all'][0] <= 8 else 'does not hold'}; worst proven "
              f"{required['proven'][0]:.1f}x ({required['proven'][1]}) against 3x: "
              f"{'holds' if required['proven'][0] <= 3 else 'does not hold'}")
        old, new = FIXTURES / "example" / "old.c", FIXTURES / "example" / "new-divergent.c"
        rate, detail = engine_rate(old, new)
        native = native_rate(old, new, workdir)
        print(f"engine on the divergent 16-field line: {rate:,.0f} cases/CPU-s ({detail})")
        if native is None:
            print("gcc not found: no native harness")
        else:
            print(f"gcc -O2 harness of the same two functions: {native:,.0f} cases/CPU-s; "
                  f"engine/native = 1/{native / rate:.0f}")


if __name__ == "__main__":
    main()
