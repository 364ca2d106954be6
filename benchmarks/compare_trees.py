"""Run every fixture, seed and grammar through two fmtcheck checkouts and diff their JSON.

    python benchmarks/compare_trees.py OLD_CHECKOUT NEW_CHECKOUT [--seeds DIR] [--captures DIR] [--seed N]

Both checkouts are run on the same inputs (the fixtures of NEW, the seeds and captures named), with
the same `--seed`, each from its own source tree (not from whatever fmtcheck is installed). The
script prints one line per case whose JSON or exit status differs, with a short diff, and a summary;
`--show-all` prints every case. It measures and prints; it asserts nothing. A change that claims to
keep behaviour shows "0 differ"; a change that means to alter some results shows exactly those.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# Run fmtcheck from CHECKOUT: its package first on sys.path, and its grammars/ directory as the
# package fmtcheck.grammars (an installed editable finder would otherwise supply another tree's).
BOOTSTRAP = r"""
import importlib.util, sys
root = sys.argv.pop(1)
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location("fmtcheck.grammars", root + "/grammars/__init__.py",
                                              submodule_search_locations=[root + "/grammars"])
module = importlib.util.module_from_spec(spec)
sys.modules["fmtcheck.grammars"] = module
spec.loader.exec_module(module)
import fmtcheck
assert fmtcheck.__file__.startswith(root), fmtcheck.__file__
from fmtcheck.cli import main
sys.exit(main(sys.argv[1:]))
"""


def cases(inputs: Path, seeds: Path | None, captures: Path | None, seed: int) -> list[tuple[str, list[str]]]:
    """(name, fmtcheck arguments) for every question the fixtures ask."""
    common = ["--format", "json", "--seed", str(seed)]
    out: list[tuple[str, list[str]]] = []
    fx = inputs / "fixtures"
    for pair in sorted((fx / "pairs").iterdir()):
        if (pair / "old.c").exists():
            out.append((f"pairs/{pair.name}", ["verify", str(pair / "old.c"), str(pair / "new.c"), *common]))
    for new in sorted((fx / "example").glob("new*.c")):
        out.append((f"example/{new.name}", ["verify", str(fx / "example" / "old.c"), str(new), *common]))
    for new in sorted((fx / "own_primitive").glob("new*.c")):
        out.append((f"own_primitive/{new.name}", ["verify", str(fx / "own_primitive" / "old.c"), str(new), *common]))
    for hostile in sorted((fx / "hostile").glob("*.c")):
        out.append((f"hostile/{hostile.name}", ["verify", str(hostile), str(hostile), *common]))
    patches = [p for p in sorted((fx / "patches").iterdir()) if p.is_file() and p.suffix in (".patch", ".diff", ".mbx", ".txt")]
    patches += sorted((fx / "patches" / "bad").iterdir())
    for patch in patches:
        out.append((f"patch/{patch.name}", ["patch", str(patch), *common]))
        out.append((f"patch+tree/{patch.name}", ["patch", str(patch), "--tree", str(fx / "tree"), *common]))
    for patch in sorted((fx / "plugin" / "queue").glob("*.patch")):
        out.append((f"plugin-queue/{patch.name}", ["patch", str(patch), *common]))
    if seeds and seeds.is_dir():
        for s in sorted(seeds.glob("*.txt")):
            out.append((f"seed/{s.name}", ["patch", str(s), *common]))
    out.append(("grammars", ["grammars", "--format", "json"]))
    grammar_dir = inputs / "grammars"
    for g in sorted(grammar_dir.glob("*.grammar")):
        out.append((f"grammars/{g.stem}", ["grammars", g.stem, "--format", "json"]))
    capture_files = sorted((fx / "captures").iterdir()) + sorted((fx / "consumers").glob("*.txt"))
    if captures and captures.is_dir():
        capture_files += sorted(p for p in captures.rglob("*") if p.is_file())
    for c in capture_files:
        out.append((f"check/{c.relative_to(c.parents[1])}", ["check", str(c), "--format", "json"]))
    cap = fx / "captures"
    for a, b in [("net_dev_current", "net_dev_added_iface"), ("net_dev_old_layout", "net_dev_current"),
                 ("net_dev_current", "net_dev_current")]:
        out.append((f"diff/{a}~{b}", ["diff", str(cap / a), str(cap / b), "--format", "json"]))
    cons = fx / "consumers"
    for a, b in [("net_dev.txt", "net_dev_glued.txt"), ("smaps.txt", "smaps_width.txt"),
                 ("meminfo.txt", "meminfo_zero_padded.txt"), ("status.txt", "status_uid_spaces.txt")]:
        out.append((f"diff/{a}~{b}", ["diff", str(cons / a), str(cons / b), "--format", "json"]))
    return out


def run(checkout: Path, args: list[str], timeout: float) -> tuple[int | str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["PYTHONHASHSEED"] = "0"
    try:
        p = subprocess.run([sys.executable, "-c", BOOTSTRAP, str(checkout), *args], capture_output=True,
                           timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    text = p.stdout.decode("utf-8", "replace")
    try:
        text = json.dumps(json.loads(text), indent=1, sort_keys=True)
    except ValueError:
        text = text + p.stderr.decode("utf-8", "replace")
    return p.returncode, text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    default_seeds = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
    ap.add_argument("--seeds", type=Path, default=default_seeds if default_seeds.is_dir() else None,
                    help="a directory of seed threads (default: ../shared/seeds when present)")
    ap.add_argument("--captures", type=Path, default=None, help="more captures to `check` (a directory)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--show-all", action="store_true")
    args = ap.parse_args(argv)
    todo = cases(args.new.resolve(), args.seeds, args.captures, args.seed)

    def both(case):
        name, cargs = case
        return name, run(args.old.resolve(), cargs, args.timeout), run(args.new.resolve(), cargs, args.timeout)

    differ = 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, (old_rc, old_out), (new_rc, new_out) in pool.map(both, todo):
            same = old_rc == new_rc and old_out == new_out
            differ += not same
            if same and not args.show_all:
                continue
            print(f"{'same  ' if same else 'DIFFER'} {name}: exit {old_rc} -> {new_rc}")
            if not same:
                diff = list(difflib.unified_diff(old_out.splitlines(), new_out.splitlines(), "old", "new", n=1, lineterm=""))
                for line in diff[2:40]:
                    print("    " + line)
                if len(diff) > 40:
                    print(f"    ... {len(diff) - 40} more diff lines")
    print(f"{len(todo)} cases, {differ} differ, {len(todo) - differ} same")
    return 0


if __name__ == "__main__":
    sys.exit(main())
