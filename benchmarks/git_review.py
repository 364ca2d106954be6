"""Measure git-native review on real kernel code: `range` over N commits, and a tree-wide patch.

    python benchmarks/git_review.py OLD_TREE NEW_TREE [--commits 50] [--files 500]

OLD_TREE and NEW_TREE are two kernel releases (e.g. Debian's linux-source-6.1 and -6.12). Nothing
of them is kept: everything is built in a temporary directory and removed.

range: a git repository is made with the OLD_TREE version of the first N files (by path) that
differ between the two trees and hold seq_file output code; each further commit replaces one file
with its NEW_TREE version. That is N commits of the kernel's own changes to output code.
`fmtcheck range` judges them with --jobs 1 (the baseline) and --jobs 2; the script prints the
time of each, the speed-up, the verdict counts, and whether the two reports are identical.

tree-wide patch: up to --files files of OLD_TREE where ``seq_printf(m, "literal")`` (no
conversion) can become ``seq_puts(m, "literal")``, the classic cleanup; the patch is git's diff of
that change. `fmtcheck patch` judges it with --tree and without; the script prints the time, the
number of files and functions, and the verdict counts (every function should be equivalent).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DIRS = ("fs", "kernel", "net", "mm", "block", "lib", "ipc", "security", "drivers/base", "drivers/md", "arch/x86")
OUTPUT = re.compile(rb"\bseq_(?:printf|puts|putc|put_decimal_ull|put_decimal_ull_width|write)\s*\(")
LITERAL_PRINTF = re.compile(rb'\bseq_printf\((\s*[A-Za-z_][\w>.-]*\s*),\s*("(?:[^"\\%\n]|\\.)*")\s*\);')
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


def fmtcheck(*args: str, cwd: str | None = None) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fmtcheck", *args], capture_output=True, cwd=cwd)
    return time.perf_counter() - start, done.returncode, done.stdout


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
        seconds, code, out = fmtcheck("range", spec, "--tree", root, "--format", "json", "--jobs", str(jobs),
                                      "--progress", "never")
        outputs[jobs] = (seconds, code, out)
        print(f"  --jobs {jobs}: {seconds:7.1f} s, exit {code}, {dict(sorted(verdicts(out).items()))}")
    print(f"  speed-up of --jobs 2 over --jobs 1: {outputs[1][0] / outputs[2][0]:.2f}x; "
          f"reports identical: {outputs[1][2] == outputs[2][2]}")


def bench_treewide(old: str, limit: int, work: str) -> None:
    root = os.path.join(work, "treewide")
    os.makedirs(root)
    git(root, "init", "-q", "-b", "main")
    changed = []
    for path in c_files(old):
        data = read(old, path)
        if data is None or not LITERAL_PRINTF.search(data):
            continue
        write(root, path, data)
        changed.append(path)
        if len(changed) == limit:
            break
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    for path in changed:
        data = read(root, path) or b""
        write(root, path, LITERAL_PRINTF.sub(rb"seq_puts(\1, \2);", data))
    patch = os.path.join(work, "treewide.patch")
    with open(patch, "wb") as handle:
        handle.write(git(root, "diff"))
    git(root, "checkout", "-q", "--", ".")
    print(f"tree-wide seq_printf -> seq_puts patch: {len(changed)} files")
    for label, extra in (("with --tree", ["--tree", root]), ("without a tree", [])):
        seconds, code, out = fmtcheck("patch", patch, "--format", "json", "--max-functions", "100000", *extra)
        counts = verdicts(out) if out else {}
        print(f"  {label:15}: {seconds:7.1f} s, exit {code}, {sum(counts.values())} results {dict(sorted(counts.items()))}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--only", choices=("range", "treewide"))
    args = parser.parse_args()
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
