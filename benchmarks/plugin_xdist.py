"""The pytest plugin on a patch queue: wall time serial and under ``-n N``, and the junit times.

Builds a queue of ``--size`` patches in a temporary directory. The default queue (``--queue
review``) is fixtures/plugin/review-queue: twenty patches to real-sized /proc printers, judged from
their hunks as a reviewer's plain queue is, or with ``--with-tree`` against the tree they apply to
(fixtures/plugin/review-tree, given as ``--fmtcheck-tree``). ``--queue toy`` is the repository's
small patch fixtures that need no tree (fixtures/patches but 09, fixtures/plugin/queue,
fixtures/hostile's seed patches: 20 in all, a few lines each, judged in milliseconds); ``--queue
both`` prints both. A queue is cycled under distinct names when more patches are asked for. It runs
``pytest --fmtcheck-patches`` over it serially and with ``-n N`` for each N given (``CI=true``, so
every run uses seed 0 and judges the same way), and prints each run's wall time beside the serial
run's (the baseline, measured in the same invocation), the wall time of pytest on one empty test
under the same setting (what pytest and xdist cost before any judging), the outcome counts (which
must not change with ``-n``), how many items each worker ran, and the sum and largest of the junit
``time`` of the items: the judging time pytest records. It measures and prints; it asserts nothing.

    python benchmarks/plugin_xdist.py [--queue review|toy|both] [--size 20] [--workers 2 [--workers 4]]
                                      [--repeat 1] [--bytecode env|warm|both] [--max-examples N]
                                      [--with-tree] [--trees OLD NEW] [--assert-plain]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_PATCHES = (ROOT / "fixtures" / "patches", ROOT / "fixtures" / "plugin" / "queue", ROOT / "fixtures" / "hostile")
REVIEW_QUEUE = ROOT / "fixtures" / "plugin" / "review-queue"
REVIEW_TREE = ROOT / "fixtures" / "plugin" / "review-tree"
NEEDS_TREE = frozenset({"09-mem-needs-tree.patch"})
QUEUE_SUFFIXES = (".patch", ".diff", ".mbx", ".txt")


def fixture_patches() -> list[Path]:
    """Every toy patch fixture that fmtcheck judges without a tree (bad/ and bad.patch are
    unreadable on purpose and not in these directories)."""
    return [p for directory in FIXTURE_PATCHES for p in sorted(directory.iterdir())
            if p.is_file() and p.suffix in QUEUE_SUFFIXES and p.name not in NEEDS_TREE]


def review_patches() -> list[Path]:
    """The review queue: real-sized printers, mixed verdicts (fixtures/plugin/review-queue/EXPECTED.toml)."""
    return sorted(REVIEW_QUEUE.glob("*.patch"))
_OUTCOME = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)")
_WORKER = re.compile(r"^\[(gw\d+)\] \[\s*\d+%\] ", re.MULTILINE)  # pytest -v under xdist


def build_queue(directory: Path, size: int, sources: list[Path]) -> list[Path]:
    """SIZE patch files: SOURCES cycled, each under its own name."""
    directory.mkdir(parents=True, exist_ok=True)
    queue = []
    for index in range(size):
        source = sources[index % len(sources)]
        target = directory / f"{index + 1:04d}-{source.name}"
        shutil.copyfile(source, target)
        queue.append(target)
    return queue


def environment(pycache: str | None, assert_plain: bool = False) -> dict[str, str]:
    """CI=true (seed 0, so every run judges alike), as the environment is, or writing and reusing
    bytecode under PYCACHE (a normal install; ``PYTHONDONTWRITEBYTECODE=1`` makes every process,
    each xdist worker too, compile pytest, Hypothesis and fmtcheck again). ASSERT_PLAIN runs every
    pytest with ``--assert=plain``: pytest then rewrites no plugin's modules (Hypothesis' own
    distribution registers a pytest plugin, so all of Hypothesis is rewritten, from source in each
    process when no bytecode may be written); a queue holds no Python assert to rewrite."""
    env = dict(os.environ, CI="true")
    if assert_plain:
        env["PYTEST_ADDOPTS"] = (env.get("PYTEST_ADDOPTS", "") + " --assert=plain").strip()
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def build_tree_queue(directory: Path, old: Path, new: Path, size: int) -> list[Path]:
    """Up to SIZE real patches: ``diff -u -p`` of each .c file of the two kernel trees that differs
    and prints to a seq_file (first by path), one patch per file."""
    directory.mkdir(parents=True, exist_ok=True)
    queue: list[Path] = []
    for source in sorted(old.rglob("*.c")):
        relative = source.relative_to(old)
        other = new / relative
        if len(queue) >= size or not other.is_file():
            continue
        text = source.read_bytes()
        if b"seq_printf" not in text and b"seq_puts" not in text or text == other.read_bytes():
            continue
        diff = subprocess.run(["diff", "-u", "-p", "--label", f"a/{relative}", "--label", f"b/{relative}",
                               str(source), str(other)], capture_output=True, timeout=60).stdout
        target = directory / (str(relative).replace("/", "_") + ".diff")
        target.write_bytes(diff)
        queue.append(target)
    return queue


def run_pytest(queue: Path, workers: int, junit: Path, env: dict[str, str],
               extra: list[str]) -> tuple[float, str]:
    """Wall time and outcomes of one pytest run over the queue (exit status 1 is expected: some
    fixtures diverge); under xdist the outcomes end with how many items each worker ran."""
    argv = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", f"--junitxml={junit}",
            f"--fmtcheck-patches={queue}", "--rootdir", str(queue.parent), *extra]
    if workers:
        argv += ["-n", str(workers)]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=queue.parent, env=env, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
        raise SystemExit(f"pytest exited {proc.returncode}")
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    outcomes = ", ".join(f"{n} {word}" for n, word in sorted(_OUTCOME.findall(last), key=lambda m: m[1]))
    per_worker = Counter(_WORKER.findall(proc.stdout))
    if per_worker:
        outcomes += "; items per worker " + " ".join(f"{w}:{n}" for w, n in sorted(per_worker.items()))
    return elapsed, outcomes


def junit_times(junit: Path) -> tuple[int, float, float]:
    """(items, sum of item times, largest item time) from a junit file."""
    times = [float(case.get("time", "0")) for case in ET.parse(junit).getroot().iter("testcase")]
    return len(times), sum(times), max(times, default=0.0)


def run_empty(directory: Path, workers: int, env: dict[str, str]) -> float:
    """Wall time of pytest on one empty test: what pytest and xdist cost before any judging."""
    test = directory / "test_empty.py"
    test.write_text("def test_nothing():\n    pass\n")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test), "--rootdir", str(directory)]
    if workers:
        argv += ["-n", str(workers)]
    start = time.perf_counter()
    subprocess.run(argv, cwd=directory, env=env, capture_output=True, text=True, timeout=300, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queue", choices=("review", "toy", "both"), default="review",
                        help="the review queue of real-sized printers (default), the toy fixtures, or both")
    parser.add_argument("--size", type=int, default=20, help="patches in the queue (default 20)")
    parser.add_argument("--workers", type=int, action="append", help="-n values to compare (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting, interleaved; the best is shown")
    parser.add_argument("--max-examples", type=int, default=None,
                        help="--fmtcheck-max-examples for every run (default: the plugin's, 200)")
    parser.add_argument("--trees", nargs=2, type=Path, metavar=("OLD", "NEW"),
                        help="instead of the fixtures, real patches: diffs of the output files of two kernel trees")
    parser.add_argument("--with-tree", action="store_true",
                        help="judge with --fmtcheck-tree (whole functions, as a reviewer in a checkout): "
                             "OLD with --trees, fixtures/plugin/review-tree for the review queue")
    parser.add_argument("--bytecode", choices=("env", "warm", "both"), default="both",
                        help="as the environment is, with a warm bytecode cache, or both (default)")
    parser.add_argument("--assert-plain", action="store_true",
                        help="every pytest run with --assert=plain (no assertion rewriting of plugins' modules)")
    args = parser.parse_args(argv)
    extra = [f"--fmtcheck-max-examples={args.max_examples}"] if args.max_examples else []
    kinds = ["kernel"] if args.trees else (["review", "toy"] if args.queue == "both" else [args.queue])
    for kind in kinds:
        tree = args.trees[0] if kind == "kernel" else REVIEW_TREE if kind == "review" else None
        with_tree = [f"--fmtcheck-tree={tree}"] if args.with_tree and tree else []
        print_capacity("before")
        run_queue(kind, args, extra + with_tree)
    print_capacity("at the end")
    return 0


SPIN = "x = 0\nfor i in range(15_000_000):\n    x += i\n"


def parallel_capacity() -> float:
    """Wall time of two CPU-bound processes started together over that of one alone: about 1.0
    when two cores are free, about 2.0 when the machine's other load leaves no parallelism for
    ``-n 2`` to gain (on Linux with ``kernel.sched_autogroup_enabled``, the processes of one
    session share one slice of the CPUs, so a busy machine gives two workers no more than one).
    It says how to read the figures measured beside it."""
    def wall(count: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
        for proc in procs:
            proc.wait(timeout=300)
        return time.perf_counter() - start
    return wall(2) / wall(1)


def print_capacity(when: str) -> None:
    print(f"CPU-bound control {when}: two processes at once took {parallel_capacity():.2f}x the wall of one "
          f"(1.00x: two free cores; 2.00x: no parallelism to gain); load average {os.getloadavg()[0]:.1f}")


def run_queue(kind: str, args: argparse.Namespace, extra: list[str]) -> None:
    """Build one queue, measure it under every setting and print its table."""
    settings = [0] + (args.workers or [2])
    caches = ["env", "warm"] if args.bytecode == "both" else [args.bytecode]
    tree = next((option.split("=", 1)[1] for option in extra if option.startswith("--fmtcheck-tree=")), None)
    print(f"\npytest plugin on a queue of {args.size} {kind} patches{f', tree {tree}' if tree else ''} "
          f"({os.cpu_count()} CPUs, best of {max(args.repeat, 1)}, max examples {args.max_examples or 'default'}, "
          f"{'--assert=plain, ' if args.assert_plain else ''}"
          f"load average {os.getloadavg()[0]:.1f} at start)")
    with tempfile.TemporaryDirectory(prefix="fmtcheck-queue-") as tmp:
        queue = Path(tmp) / "queue"
        if kind == "kernel":
            built = build_tree_queue(queue, args.trees[0], args.trees[1], args.size)
            print(f"queue: {len(built)} diffs of .c files that print to a seq_file, {args.trees[0]} -> {args.trees[1]}")
        else:
            built = build_queue(queue, args.size, review_patches() if kind == "review" else fixture_patches())
        print(f"{'bytecode':<9} {'run':<7} {'wall s':>7} {'vs serial':>10} {'empty s':>8} {'items':>6} "
              f"{'junit sum s':>12} {'junit max s':>12}  outcomes")
        for cache in caches:
            pycache = os.path.join(tmp, "pycache") if cache == "warm" else None
            env = environment(pycache, args.assert_plain)
            if pycache:
                warm_up(Path(tmp), built, env, extra)
            best = measure(queue, settings, max(args.repeat, 1), env, Path(tmp), extra)
            print_settings(cache, settings, best)


def warm_up(tmp: Path, queue: list[Path], env: dict[str, str], extra: list[str]) -> None:
    """Fill the bytecode cache: collect the whole queue and judge its first few patches (judging
    all of a real queue would cost as much as the serial run it prepares)."""
    few = tmp / "warm-up"
    build_queue(few, min(3, len(queue)), queue)
    run_pytest(few, 0, tmp / "warm-up.xml", env, extra)
    run_pytest(queue[0].parent, 0, tmp / "warm-up-co.xml", env, [*extra, "--co"])


def print_settings(cache: str, settings: list[int],
                   best: dict[int, tuple[float, float, str, tuple[int, float, float]]]) -> None:
    serial = best[0][0]
    for n in settings:
        wall, empty, outcomes, (items, total, largest) = best[n]
        label = "serial" if n == 0 else f"-n {n}"
        print(f"{cache:<9} {label:<7} {wall:>7.2f} {wall / serial:>9.2f}x {empty:>8.2f} {items:>6} "
              f"{total:>12.2f} {largest:>12.2f}  {outcomes}")
    for n in settings[1:]:
        startup = best[n][1] - best[0][1]
        saving = best[0][3][1] * (1 - 1 / n)
        print(f"{cache:<9} -n {n}: xdist start-up {startup:.2f} s (empty test, -n {n} minus serial); "
              f"splitting the queue's {best[0][3][1]:.2f} s of judging saves at most {saving:.2f} s; "
              f"the queue over an empty test: serial {best[0][0] - best[0][1]:.2f} s, "
              f"-n {n} {best[n][0] - best[n][1]:.2f} s")


def measure(queue: Path, settings: list[int], repeat: int, env: dict[str, str], tmp: Path,
            extra: list[str]) -> dict[int, tuple[float, float, str, tuple[int, float, float]]]:
    """The best run of each setting: (queue wall, empty-test wall, outcomes, junit times), the
    settings interleaved so a change in the machine's load hits all of them alike."""
    best: dict[int, tuple[float, float, str, tuple[int, float, float]]] = {}
    empty: dict[int, float] = {}
    for _round in range(repeat):
        for n in settings:
            junit = tmp / f"junit-{n}.xml"
            wall, outcomes = run_pytest(queue, n, junit, env, extra)
            empty[n] = min(empty.get(n, float("inf")), run_empty(tmp, n, env))
            if n not in best or wall < best[n][0]:
                best[n] = (wall, 0.0, outcomes, junit_times(junit))
    return {n: (wall, empty[n], outcomes, times) for n, (wall, _e, outcomes, times) in best.items()}


if __name__ == "__main__":
    raise SystemExit(main())
