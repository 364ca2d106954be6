"""Measure git-native review on real kernel code: `range` over N commits, and a tree-wide patch.

    python benchmarks/git_review.py OLD_TREE NEW_TREE [--commits 50] [--files 500]

OLD_TREE and NEW_TREE are two kernel releases (e.g. Debian's linux-source-6.1 and -6.12). Nothing
of them is kept: everything is built in a temporary directory and removed.

range: a git repository is made with the OLD_TREE version of the first N files (by path) that
differ between the two trees and hold seq_file output code; each further commit replaces one file
with its NEW_TREE version. That is N commits of the kernel's own changes to output code.
`fmtcheck range` judges them with --jobs 1 (the baseline) and --jobs 2; the script prints the
time of each, the speed-up, the verdict counts, and whether the two reports are identical.

tree-wide patch: --files files of the whole OLD_TREE (every top directory, in path order), each
given the classic output cleanups where they apply (``seq_printf(m, "literal")`` -> ``seq_puts``,
``seq_printf(m, "%s", s)`` -> ``seq_puts(m, s)``, ``seq_puts(m, "c")`` -> ``seq_putc(m, 'c')``)
and otherwise a whitespace one (the continuation lines of its first multi-line output call
re-aligned under the opening parenthesis, as checkpatch asks); the patch is git's diff of that
change. `fmtcheck patch` judges it with --tree and without; the script prints the time, the peak
memory of the child, the number of files and results, and the verdict counts (every function
should be equivalent: none of the changes alters a byte of output).

Every fmtcheck run is a child with its address space bounded (--memory-mb, default 3000) and
its own peak RSS read back (wait4), so a run that would take the machine's memory fails alone.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

DIRS = ("fs", "kernel", "net", "mm", "block", "lib", "ipc", "security", "drivers/base", "drivers/md", "arch/x86")
OUTPUT = re.compile(rb"\bseq_(?:printf|puts|putc|put_decimal_ull|put_decimal_ull_width|write)\s*\(")
SEQ = rb"(\s*[A-Za-z_][\w>.-]*\s*)"
CLEANUPS = (
    (re.compile(rb'\bseq_printf\(' + SEQ + rb',\s*("(?:[^"\\%\n]|\\.)*")\s*\);'), rb"seq_puts(\1, \2);"),
    (re.compile(rb'\bseq_printf\(' + SEQ + rb',\s*"%s"\s*,\s*([A-Za-z_][\w>.-]*)\s*\);'), rb"seq_puts(\1, \2);"),
    (re.compile(rb'\bseq_puts\(' + SEQ + rb',\s*"([^"\\\n\'])"\s*\);'), rb"seq_putc(\1, '\2');"),
)
# possessive quantifiers: the split between a line's indentation and its text is tried one way
# only (tried every way, a call followed by many indented lines backtracked for minutes)
MULTILINE_CALL = re.compile(rb"^([ \t]*)(seq_printf\()[^\n;]*\n((?:[ \t]++[^\n;]*\n)*+[ \t]++[^\n]*;)", re.M)
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.org", "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: str, *args: str) -> bytes:
    env = dict(os.environ, **GIT_ENV, HOME=root)
    return subprocess.run(["git", "-C", root, *args], capture_output=True, env=env, check=True).stdout


def c_files(tree: str) -> list[str]:
    found = []
    for top in DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(tree, top)):
            dirnames.sort()
            for name in sorted(names):
                if name.endswith(".c"):
                    found.append(os.path.relpath(os.path.join(dirpath, name), tree))
    return found


def read(tree: str, path: str) -> bytes | None:
    try:
        with open(os.path.join(tree, path), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def write(root: str, path: str, data: bytes) -> None:
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(data)


def changed_output_files(old: str, new: str, count: int) -> list[tuple[str, bytes, bytes]]:
    picked = []
    for path in c_files(old):
        a, b = read(old, path), read(new, path)
        if a is None or b is None or a == b or not OUTPUT.search(a) or len(a) > 400_000:
            continue
        picked.append((path, a, b))
        if len(picked) == count:
            break
    return picked


MEMORY_MB = 3000
CPU_SECONDS = 1800


def fmtcheck(*args: str, cwd: str | None = None) -> tuple[float, int, bytes, int, float]:
    """One fmtcheck child, its address space and CPU time bounded: (seconds, exit status, stdout,
    peak RSS in MB, CPU seconds of the child and the children it waited for). On a loaded machine
    the CPU time is the figure that does not depend on the other users."""
    def bound() -> None:
        limit = MEMORY_MB << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))

    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "fmtcheck", *args], stdout=out, stderr=subprocess.DEVNULL,
                                 cwd=cwd, preexec_fn=bound)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return seconds, child.returncode, out.read(), usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def verdicts(stdout: bytes) -> collections.Counter:
    report = json.loads(stdout)
    return collections.Counter(result["verdict"] for result in report["results"])


def bench_range(old: str, new: str, commits: int, work: str) -> None:
    root = os.path.join(work, "range")
    os.makedirs(root)
    git(root, "init", "-q", "-b", "main")
    files = changed_output_files(old, new, commits)
    for path, before, _after in files:
        write(root, path, before)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base: the old release's files")
    for path, _before, after in files:
        write(root, path, after)
        git(root, "commit", "-q", "-am", f"{path}: as in the new release")
    spec = "HEAD~%d..HEAD" % len(files)
    print(f"range: {len(files)} commits of real output-code changes")
    outputs = {}
    for jobs in (1, 2):
        seconds, code, out, peak, cpu = fmtcheck("range", spec, "--tree", root, "--format", "json", "--jobs",
                                                 str(jobs), "--progress", "never")
        outputs[jobs] = (seconds, code, out)
        counts = verdicts(out) if out else {}
        print(f"  --jobs {jobs}: {seconds:7.1f} s ({cpu:.1f} s CPU), exit {code}, peak {peak} MB (parent), "
              f"{sum(counts.values())} results {dict(sorted(counts.items()))}")
    print(f"  speed-up of --jobs 2 over --jobs 1: {outputs[1][0] / outputs[2][0]:.2f}x; "
          f"reports identical: {outputs[1][2] == outputs[2][2]}")


def cleaned(data: bytes) -> tuple[bytes, str]:
    """The file with the classic output cleanups, or, where none applies, its first multi-line
    output call re-aligned under the opening parenthesis (a whitespace-only change)."""
    out = data
    for pattern, replacement in CLEANUPS:
        out = pattern.sub(replacement, out)
    if out != data:
        return out, "cleanup"
    for match in MULTILINE_CALL.finditer(data):
        indent = match.group(1).expandtabs(8)
        column = len(indent) + len(b"seq_printf(")
        aligned = b"\t" * (column // 8) + b" " * (column % 8)
        rest = match.group(3)
        lines = [aligned + line.lstrip(b" \t") for line in rest.split(b"\n")]
        new_rest = b"\n".join(lines)
        if new_rest != rest:
            return data[:match.start(3)] + new_rest + data[match.end(3):], "whitespace"
    return data, "none"


def all_c_files(tree: str) -> list[str]:
    found = []
    for dirpath, dirnames, names in os.walk(tree):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith(".c"):
                found.append(os.path.relpath(os.path.join(dirpath, name), tree))
    return found


def bench_treewide(old: str, limit: int, work: str) -> None:
    root = os.path.join(work, "treewide")
    os.makedirs(root)
    git(root, "init", "-q", "-b", "main")
    changed = []
    kinds = collections.Counter()
    for path in all_c_files(old):
        data = read(old, path)
        if data is None or len(data) > 400_000 or not OUTPUT.search(data):
            continue
        after, kind = cleaned(data)
        if after == data:
            continue
        write(root, path, data)
        changed.append((path, after))
        kinds[kind] += 1
        if len(changed) == limit:
            break
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    for path, after in changed:
        write(root, path, after)
    patch = os.path.join(work, "treewide.patch")
    with open(patch, "wb") as handle:
        handle.write(git(root, "diff"))
    git(root, "checkout", "-q", "--", ".")
    size = os.path.getsize(patch)
    print(f"tree-wide output cleanup patch: {len(changed)} files ({dict(sorted(kinds.items()))}), {size >> 10} KiB")
    for label, extra in (("with --tree", ["--tree", root]), ("without a tree", [])):
        seconds, code, out, peak, cpu = fmtcheck("patch", patch, "--format", "json", "--max-functions", "100000",
                                                 *extra)
        counts = verdicts(out) if out else {}
        print(f"  {label:15}: {seconds:7.1f} s ({cpu:.1f} s CPU), exit {code}, peak {peak} MB, {sum(counts.values())} results "
              f"{dict(sorted(counts.items()))}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--only", choices=("range", "treewide"))
    parser.add_argument("--memory-mb", type=int, default=3000, help="address-space bound of each fmtcheck child")
    parser.add_argument("--cpu-seconds", type=int, default=1800, help="CPU-time bound of each fmtcheck child")
    args = parser.parse_args()
    global MEMORY_MB, CPU_SECONDS
    MEMORY_MB = args.memory_mb
    CPU_SECONDS = args.cpu_seconds
    work = tempfile.mkdtemp(prefix="fmtcheck-git-bench-")
    try:
        if args.only in (None, "range"):
            bench_range(args.old, args.new, args.commits, work)
        if args.only in (None, "treewide"):
            bench_treewide(args.old, args.files, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
