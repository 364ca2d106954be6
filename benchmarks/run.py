"""fmtcheck benchmarks (issue #7): mutation power, time to verdict, engine and capture throughput.

    python -m benchmarks [--quick] [--capture-mb N] [--only mutants,verdict,engine,capture]
    python benchmarks/run.py ...

Prints one table and writes benchmarks/RESULTS.md (machine, date, table, details). Nothing here
asserts a time: targets are reported as met or missed.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as _dt
import io
import json
import os
import platform
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import mutants as M  # noqa: E402
from fmtcheck.c import cfront  # noqa: E402
from fmtcheck.engine.verdict import Runner, side_of, pair_functions, verify_sources  # noqa: E402
from fmtcheck.common.errors import FmtcheckError, Inconclusive  # noqa: E402
from fmtcheck.engine.inputs import (IFNAME_BYTES, MAX_LOOP, STRING_BOUNDS, VectorInputs,  # noqa: E402
                             boundary_values, string_of_length, type_range)
from fmtcheck.c.hints import InputSpace, collect_hints  # noqa: E402
from fmtcheck.common.options import Options  # noqa: E402

SEEDS_DIR = ROOT.parent / "shared" / "seeds"  # --seeds DIR; skipped when absent
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"

TARGETS = {
    "kill": "100% of non-equivalent mutants killed",
    "verdict": "< 1 s per fixture verdict",
    "engine": ">= 50,000 vectors/s",
    "check": "check >= 100 MB/s",
    "diff": "diff >= 30 MB/s",
    "memory": "< 200 MB peak",
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# building a runner the way engine.judge does


def build_runner(old: bytes, new: bytes) -> Runner:
    old_unit = cfront.parse_unit(old, "old")
    new_unit = cfront.parse_unit(new, "new")
    pairs = pair_functions(old_unit, new_unit, None)
    old_name, new_name = pairs[0]
    space = InputSpace()
    collect_hints(old_unit, space)
    collect_hints(new_unit, space)
    return Runner(side_of(old_unit, space, old_name, "old"), side_of(new_unit, space, new_name, "new"))


def discover(runner: Runner) -> dict[str, Any]:
    probe = VectorInputs()
    runner.run_case(probe)
    return dict(probe.kinds)


def uniform_vector(kinds: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The naive baseline: every input uniform over its whole type (strings: uniform length)."""
    vec: dict[str, Any] = {}
    for k, kind in kinds.items():
        if kind[0] == "int":
            lo, hi = type_range(kind)
            vec[k] = rng.randint(lo, hi)
        elif kind[0] == "str":
            lo, hi = STRING_BOUNDS.get(kind[1], (0, 24))
            alphabet = IFNAME_BYTES if kind[1] == "ifname" else bytes(range(1, 256))
            vec[k] = bytes(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))
        elif kind[0] == "loop":
            vec[k] = rng.randint(0, MAX_LOOP)
    return vec


def mixed_vector(kinds: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The independent check: boundaries, every digit length, small values, uniform values."""
    vec: dict[str, Any] = {}
    for k, kind in kinds.items():
        if kind[0] == "int":
            lo, hi = type_range(kind)
            r = rng.random()
            if r < 0.3:
                vec[k] = rng.choice(boundary_values(kind))
            elif r < 0.6:
                d = rng.randint(1, len(str(hi)))
                v = rng.randint(10 ** (d - 1) if d > 1 else 0, min(10**d - 1, hi))
                vec[k] = -v if lo < 0 and rng.random() < 0.3 and -v >= lo else v
            elif r < 0.85:
                vec[k] = max(lo, min(hi, rng.randint(-3, 12)))
            else:
                vec[k] = rng.randint(lo, hi)
        elif kind[0] == "str":
            lo, hi = STRING_BOUNDS.get(kind[1], (0, 24))
            n = rng.randint(lo, hi)
            if rng.random() < 0.5:
                vec[k] = string_of_length(n, kind[1], rng.randint(0, 25))
            else:
                alphabet = IFNAME_BYTES if kind[1] == "ifname" else bytes(range(1, 256))
                vec[k] = bytes(rng.choice(alphabet) for _ in range(n))
        elif kind[0] == "loop":
            vec[k] = rng.randint(0, MAX_LOOP)
    return vec


def random_search(old: bytes, new: bytes, n: int, seed: int, make) -> tuple[bool, float, int, dict | None]:
    """(differs, seconds to the first difference or to the end, cases, witness)."""
    t0 = time.perf_counter()
    runner = build_runner(old, new)
    kinds = discover(runner)
    rng = random.Random(seed)
    for i in range(n):
        inputs = VectorInputs(make(kinds, rng))
        outcome = runner.run_case(inputs)
        for k, v in inputs.kinds.items():
            kinds.setdefault(k, v)
        if outcome is not None and not outcome.same:
            return True, time.perf_counter() - t0, i + 1, outcome.inputs
    return False, time.perf_counter() - t0, n, None


# ---------------------------------------------------------------------------------------------
# 1. mutation power


@dataclass
class MutantRow:
    source: str
    ident: str
    operator: str
    where: str
    verdict: str = ""
    method: str | None = None
    fmt_seconds: float = 0.0
    first_seconds: float | None = None
    first_cases: int | None = None
    naive_cases: int | None = None
    naive_killed: bool = False
    naive_seconds: float = 0.0
    oracle: str = "n/a"          # "differs" | "same" | "n/a"
    model_check: str = "n/a"     # "differs" | "same" | "n/a"
    status: str = ""             # killed | equivalent | SURVIVOR | inconclusive | error
    note: str = ""
    text: str = ""


def equivalent_sources(quick: bool) -> list[tuple[str, Path, Path]]:
    out = [("example", ROOT / "fixtures/example/old.c", ROOT / "fixtures/example/new.c")]
    pairs = ROOT / "fixtures/pairs"
    expected: dict[str, Any] = {}
    try:
        expected = tomllib.loads((pairs / "EXPECTED.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        pass
    for name in sorted(expected):
        entry = expected[name]
        if isinstance(entry, dict) and entry.get("verdict") == "equivalent":
            d = pairs / name
            if (d / "old.c").is_file() and (d / "new.c").is_file():
                out.append((name, d / "old.c", d / "new.c"))
    return out


_FIRST: dict[str, Any] = {"t": None, "n": 0, "cases": None}


def _instrument() -> Any:
    """Wrap Runner.run_case (at run time, fmtcheck is not edited) to note when the first
    differing case is seen: fmtcheck's time to its first counterexample."""
    original = Runner.run_case

    def run_case(self, inputs):
        outcome = original(self, inputs)
        _FIRST["n"] += 1
        if outcome is not None and not outcome.same and _FIRST["t"] is None:
            _FIRST["t"] = time.perf_counter()
            _FIRST["cases"] = _FIRST["n"]
        return outcome

    Runner.run_case = run_case
    return original


def quick_sample(muts: list, cap: int) -> list:
    """--quick: the first mutant of each operator, thinned to at most `cap`."""
    seen, first = set(), []
    for m in muts:
        if m.operator not in seen:
            seen.add(m.operator)
            first.append(m)
    step = max(1, len(first) // cap)
    return first[::step][:cap]


def mutation_power(quick: bool, seed: int) -> dict[str, Any]:
    original = _instrument()
    try:
        return _mutation_power(quick, seed)
    finally:
        Runner.run_case = original


def _mutation_power(quick: bool, seed: int) -> dict[str, Any]:
    confirm = 2000 if quick else 20000
    model_confirm = 1500 if quick else 10000
    rows: list[MutantRow] = []
    skipped: list[str] = []
    sources = equivalent_sources(quick)
    for name, old_path, new_path in sources:
        old, new = old_path.read_bytes(), new_path.read_bytes()
        try:
            base = verify_sources(old, new, Options())
            verdicts = {r.verdict for r in base.results}
        except FmtcheckError as err:
            skipped.append(f"{name}: {err}")
            continue
        if verdicts != {"equivalent"}:
            skipped.append(f"{name}: the unmutated pair is {sorted(verdicts)}, not equivalent")
            continue
        old_text = old.decode("latin-1")
        new_text = new.decode("latin-1")
        old_items = None
        fn_new = M.straight_line(new_text)
        try:
            old_items = M.items_of(old_text)
        except Exception:  # noqa: BLE001
            old_items = None
        muts = M.mutants(new_text, f"{name}:")
        total = len(muts)
        if quick:
            muts = quick_sample(muts, 12 if name == "example" else 3)
        log(f"[mutants] {name}: {len(muts)} of {total} mutants")
        for mut in muts:
            row = MutantRow(name, mut.ident, mut.operator, mut.where, text=mut.text)
            mtext = mut.text.encode("latin-1")
            _FIRST.update(t=None, n=0, cases=None)
            t0 = time.perf_counter()
            try:
                rep = verify_sources(old, mtext, Options())
                row.first_seconds = (_FIRST["t"] - t0) if _FIRST["t"] is not None else None
                row.first_cases = _FIRST["cases"]
                vs = [r.verdict for r in rep.results]
                row.fmt_seconds = time.perf_counter() - t0
                row.verdict = "divergent" if "divergent" in vs else ("inconclusive" if "inconclusive" in vs else "equivalent")
                row.method = ",".join(sorted({r.method for r in rep.results if r.method}))
                if row.verdict == "inconclusive":
                    row.note = "; ".join(r.reason or "" for r in rep.results if r.verdict == "inconclusive")
            except Exception as err:  # noqa: BLE001
                row.fmt_seconds = time.perf_counter() - t0
                row.verdict = "error"
                row.note = f"{type(err).__name__}: {err}"
            # naive baseline: 100 uniform vectors
            try:
                row.naive_killed, row.naive_seconds, row.naive_cases, _ = random_search(old, mtext, 100, seed, uniform_vector)
            except Exception as err:  # noqa: BLE001
                row.note += f" naive: {type(err).__name__}: {err}"
            # independent checks
            if old_items is not None and fn_new is not None:
                try:
                    differs, witness = M.oracle_differs(old_items, M.mutated_items(fn_new, mut),
                                                  confirm if row.verdict != "divergent" else 300, seed)
                    row.oracle = "differs" if differs else "same"
                    if differs and row.verdict != "divergent":
                        row.note += f" oracle witness: {witness}"
                except Exception:  # noqa: BLE001 - an item the oracle cannot render
                    row.oracle = "n/a"
            if row.verdict != "divergent" or row.oracle == "same":
                try:
                    differs, _, _, witness = random_search(old, mtext, model_confirm, seed + 1, mixed_vector)
                    row.model_check = "differs" if differs else "same"
                    if differs:
                        row.note += f" model witness: {witness}"
                except Exception as err:  # noqa: BLE001
                    row.model_check = "n/a"
                    row.note += f" model check: {type(err).__name__}: {err}"
            if row.verdict == "divergent":
                row.status = "killed"
                if row.oracle == "same" and row.model_check == "same":
                    row.note += " (no independent witness found: possible false alarm)"
            elif row.verdict == "equivalent":
                confirmed = row.model_check == "same" and row.oracle in ("same", "n/a")
                if confirmed:
                    row.status = "equivalent"
                elif row.model_check == "same":
                    row.status = "disputed"  # only the Python oracle sees a difference: check by hand
                else:
                    row.status = "SURVIVOR"
            else:
                row.status = row.verdict
            rows.append(row)
    return {"rows": rows, "skipped": skipped, "confirm": confirm, "model_confirm": model_confirm,
            "sources": [s[0] for s in sources]}


# ---------------------------------------------------------------------------------------------
# 2. time to verdict (whole process)


def fmtcheck_cmd() -> list[str]:
    script = Path(sys.executable).parent / "fmtcheck"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "fmtcheck"]


def timed(cmd: list[str], runs: int) -> dict[str, Any]:
    times, rc, err = [], None, ""
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - t0)
        rc = p.returncode
        err = p.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        err = err[0]
        out = p.stdout.decode(errors="replace").strip().splitlines()
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "rc": rc,
            "stderr": err, "summary": out[-1] if out else ""}


def time_to_verdict(quick: bool) -> dict[str, Any]:
    runs = 3 if quick else 5
    fc = fmtcheck_cmd()
    rows = []
    ex = ROOT / "fixtures/example"
    cases = [("example", ex / "old.c", ex / "new.c"), ("example-divergent", ex / "old.c", ex / "new-divergent.c")]
    pairs = ROOT / "fixtures/pairs"
    if pairs.is_dir():
        for d in sorted(pairs.iterdir()):
            if (d / "old.c").is_file() and (d / "new.c").is_file():
                cases.append((d.name, d / "old.c", d / "new.c"))
    for name, old, new in cases:
        r = timed(fc + ["verify", str(old.relative_to(ROOT)), str(new.relative_to(ROOT))], runs)
        r["name"], r["kind"] = name, "verify"
        rows.append(r)
        log(f"[verdict] {name}: {r['median']:.3f} s rc={r['rc']}")
    seeds = sorted(SEEDS_DIR.glob("*.txt")) if SEEDS_DIR.is_dir() else []
    for s in seeds:
        r = timed(fc + ["patch", str(s)], runs)
        r["name"], r["kind"] = s.name, "patch"
        rows.append(r)
        log(f"[verdict] patch {s.name}: {r['median']:.3f} s rc={r['rc']} {r['stderr'][:80]}")
    # import cost alone, for reading the numbers
    r = timed(fc + ["--help"], runs)
    slow = [x for x in rows if x["kind"] == "verify" and x["median"] >= 1.0]
    profiles = {}
    for x in sorted(slow, key=lambda x: -x["median"])[:2]:
        d = ROOT / "fixtures/pairs" / x["name"]
        if d.is_dir():
            profiles[x["name"]] = profile_call(_cli, ["verify", str(d / "old.c"), str(d / "new.c")])
    for x in [x for x in rows if x["kind"] == "patch" and x["median"] >= 1.0][:1]:
        profiles[f"patch {x['name']}"] = profile_call(_cli, ["patch", str(SEEDS_DIR / x["name"])])
    return {"rows": rows, "runs": runs, "startup": r["median"], "cmd": " ".join(fc), "profiles": profiles}


# ---------------------------------------------------------------------------------------------
# 3. engine throughput


def engine_throughput(quick: bool, seed: int) -> dict[str, Any]:
    """Runner.run_case in a loop on the example, pinned to one core: as `decide` sets it up (proof
    traces and fast path enabled, when this engine has them) and through the interpreter alone."""
    ex = ROOT / "fixtures/example"
    runner = build_runner((ex / "old.c").read_bytes(), (ex / "new.c").read_bytes())
    kinds = discover(runner)
    fast = False
    if hasattr(runner, "enable_fast_path"):
        runner.prove()
        runner.kinds = dict(kinds)
        runner.enable_fast_path()
        fast = getattr(runner, "fast", None) is not None
    rng = random.Random(seed)
    vectors = [mixed_vector(kinds, rng) for _ in range(4096)]
    seconds = 3.0 if quick else 10.0
    slow = getattr(runner, "run_slow", None)
    modes = [("run_case (as in decide" + (", fast path on)" if fast else ")"), runner.run_case)]
    if fast and slow is not None:
        modes.append(("run_slow (interpreter only)", slow))
    affinity = None
    if hasattr(os, "sched_getaffinity"):
        affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(affinity)})
    results = []
    try:
        for label, fn in modes:
            for v in vectors[:200]:  # warm-up
                fn(VectorInputs(v))
            n, t0 = 0, time.perf_counter()
            end = t0 + seconds / len(modes)
            while True:
                for v in vectors:
                    fn(VectorInputs(v))
                n += len(vectors)
                if time.perf_counter() >= end:
                    break
            elapsed = time.perf_counter() - t0
            prof = cProfile.Profile()
            prof.enable()
            for v in vectors[:2000]:
                fn(VectorInputs(v))
            prof.disable()
            results.append({"label": label, "rate": n / elapsed, "cases": n, "seconds": elapsed,
                            "profile": _profile_text(prof)})
    finally:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)
    head = results[0]
    return {"rate": head["rate"], "cases": head["cases"], "seconds": head["seconds"], "inputs": len(kinds),
            "profile": head["profile"], "modes": results}


def profile_call(fn, *args, top: int = 12) -> str:
    """cProfile top entries (own time) of one in-process call, stdout swallowed."""
    import contextlib

    prof = cProfile.Profile()
    with contextlib.redirect_stdout(io.StringIO()):
        prof.enable()
        try:
            fn(*args)
        except BaseException:  # noqa: BLE001 - SystemExit from a CLI main, or a crash to profile anyway
            pass
        finally:
            prof.disable()
    return _profile_text(prof, top)


def _profile_text(prof: cProfile.Profile, top: int = 12) -> str:
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
    c = io.StringIO()
    pstats.Stats(prof, stream=c).sort_stats("cumulative").print_stats(top)
    return ("by own time:\n" + _trim_profile(s.getvalue(), top) + "\n\nby cumulative time:\n"
            + _trim_profile(c.getvalue(), top))


def _cli(argv: list[str]) -> None:
    from fmtcheck.cli import main as cli_main

    cli_main(argv)


def _trim_profile(text: str, top: int = 12) -> str:
    lines = text.strip().splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("ncalls")), 0)
    return "\n".join(l.replace(str(ROOT) + "/", "") for l in lines[start:start + top + 1])


# ---------------------------------------------------------------------------------------------
# 4. capture throughput

SMAPS_FIELDS = ["Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty", "Shared_Clean",
                "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM",
                "LazyFree", "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb",
                "Private_Hugetlb", "Swap", "SwapPss", "Locked"]
PATHS = ["[heap]", "[stack]", "[vdso]", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python3.11",
         "/usr/lib/locale/locale-archive", "[anon:scudo]", ""]


def smaps_record(rng: random.Random, vrng: random.Random, addr: int) -> tuple[str, int]:
    """One VMA: layout and addresses from `rng`, counter values from `vrng`."""
    size = rng.choice([4, 8, 12, 132, 1024, 2048, 8192, 65536, 1 << 20]) * 1024
    end = addr + size
    perms = rng.choice(["r--p", "rw-p", "r-xp", "---p", "rw-s"])
    path = rng.choice(PATHS)
    inode = rng.choice([0, 0, rng.randint(1, 99999999)])
    head = f"{addr:08x}-{end:08x} {perms} {rng.randint(0, 1 << 24):08x} {rng.randint(0, 255):02x}:{rng.randint(0, 255):02x} {inode} "
    lines = [(head.ljust(73) + path) if path else head]
    kb = size // 1024
    for name in SMAPS_FIELDS:
        if name in ("KernelPageSize", "MMUPageSize"):
            v = 4
        elif name == "Size":
            v = kb
        else:
            v = vrng.choice([0, 0, 0, vrng.randint(0, kb)])
        lines.append(f"{name + ':':<16}{v:>8} kB")
    lines.append(f"THPeligible:    {rng.randint(0, 1):>8}")
    lines.append("VmFlags: " + " ".join(rng.sample(["rd", "wr", "ex", "mr", "mw", "me", "ac", "sd", "dw"], 5)) + " ")
    return "\n".join(lines) + "\n", end + rng.randint(0, 1 << 20) * 4096


def write_smaps(path: Path, target_bytes: int, seed: int, value_seed: int | None = None) -> int:
    """A generated smaps capture; the same `seed` with another `value_seed` gives the same VMAs
    with other counter values (what `fmtcheck diff` compares)."""
    rng = random.Random(seed)
    vrng = random.Random(seed if value_seed is None else value_seed)
    addr = 0x555555554000
    written = 0
    with path.open("w") as f:
        chunk = []
        while written < target_bytes:
            rec, addr = smaps_record(rng, vrng, addr)
            chunk.append(rec)
            written += len(rec)
            if len(chunk) >= 2000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
    return written


def capture_profiles(which: set[str], seed: int, mb: float = 2.0) -> dict[str, str]:
    """cProfile of `fmtcheck check` / `diff` on generated captures, for the missed targets."""
    profiles = {}
    size = int(mb * 1_000_000)
    tmp = Path(tempfile.mkdtemp(prefix="fmtcheck-prof-"))
    try:
        small, small_b = tmp / "smaps-small.txt", tmp / "smaps-small-b.txt"
        if not which:
            return profiles
        write_smaps(small, size, seed)
        write_smaps(small_b, size, seed, seed + 1)
        if "check" in which:
            profiles[f"fmtcheck check ({mb:g} MB)"] = profile_call(_cli, ["check", str(small)])
        if "diff" in which:
            profiles[f"fmtcheck diff ({mb:g} MB + {mb:g} MB; grammars already loaded by the check above)"] = \
                profile_call(_cli, ["diff", str(small), str(small_b)])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return profiles


EXT_LINE = re.compile(r"^(check|diff): ([\d.]+) MB in ([\d.]+) s = [\d.]+ MB/s .*?peak RSS (\d+) MB"
                      r"(?:.*?with it ([\d.]+) MB/s)?", re.M)


def external_capture(ext: Path, mb: float, seed: int) -> dict[str, Any]:
    """benchmarks/capture_speed.py (another developer's script): run it, keep its text, read its figures."""
    args = [sys.executable, str(ext), "--mb", str(max(1, int(round(mb))))]
    p = subprocess.run(args, capture_output=True, cwd=ROOT, timeout=3600)
    if p.returncode == 2 and b"usage" in p.stderr:
        args = [sys.executable, str(ext)]
        p = subprocess.run(args, capture_output=True, cwd=ROOT, timeout=3600)
    stdout = p.stdout.decode(errors="replace")
    figures = {}
    for m in EXT_LINE.finditer(stdout):
        mbytes, secs = float(m.group(2)), float(m.group(3))
        figures[m.group(1)] = {"mb": mbytes, "seconds": secs, "mb_s": mbytes / secs if secs else 0.0,
                               "rss_mb": int(m.group(4)),
                               "with_startup": float(m.group(5)) if m.group(5) else None}
    log(f"[capture] {' '.join(args[1:])}: rc={p.returncode} {figures}")
    slow = {k for k, f in figures.items() if f["mb_s"] < (100 if k == "check" else 30)}
    return {"external": True, "cmd": " ".join(args[1:]).replace(str(ROOT) + "/", ""), "rc": p.returncode,
            "stdout": stdout, "stderr": p.stderr.decode(errors="replace")[-2000:], "figures": figures,
            "profiles": capture_profiles(slow, seed, min(mb, 10.0))}


MEASURE = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
t = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
err = p.stderr.decode(errors="replace").strip().splitlines()
print(json.dumps({"seconds": t, "rc": p.returncode, "maxrss_kb": ru.ru_maxrss, "cpu": ru.ru_utime + ru.ru_stime,
                  "stderr": err[-1] if err else ""}))
"""


def measured(cmd: list[str]) -> dict[str, Any]:
    p = subprocess.run([sys.executable, "-c", MEASURE] + cmd, capture_output=True, cwd=ROOT)
    return json.loads(p.stdout)


def capture_throughput(quick: bool, mb: float, seed: int) -> dict[str, Any]:
    ext = Path(__file__).resolve().parent / "capture_speed.py"
    if ext.is_file():
        return external_capture(ext, mb, seed)
    tmp = Path(tempfile.mkdtemp(prefix="fmtcheck-bench-"))
    try:
        a, b, a2 = tmp / "smaps-a.txt", tmp / "smaps-b.txt", tmp / "smaps-a-copy.txt"
        size = write_smaps(a, int(mb * 1_000_000), seed)
        write_smaps(b, int(mb * 1_000_000), seed, seed + 1)
        shutil.copyfile(a, a2)
        size_b = b.stat().st_size
        mbytes = size / 1e6
        fc = fmtcheck_cmd()
        rows = []
        for label, cmd, nbytes in [
            ("fmtcheck check", fc + ["check", str(a)], size),
            ("fmtcheck diff", fc + ["diff", str(a), str(b)], size + size_b),
            ("cmp (identical files)", ["cmp", str(a), str(a2)], 2 * size),
            ("GNU diff (values differ)", ["diff", str(a), str(b)], size + size_b),
        ]:
            if shutil.which(cmd[0]) is None and not Path(cmd[0]).is_file():
                rows.append({"label": label, "missing": True})
                continue
            r = measured(cmd)
            r["label"], r["bytes"] = label, nbytes
            r["mb_s"] = nbytes / 1e6 / r["seconds"] if r["seconds"] else 0.0
            ok = r["rc"] in (0, 1) and not r["stderr"].startswith("fmtcheck: error")
            r["works"] = ok
            rows.append(r)
            log(f"[capture] {label}: {r['mb_s']:.1f} MB/s rc={r['rc']} rss={r['maxrss_kb'] / 1024:.0f} MB {r['stderr'][:90]}")
        slow = {r["label"].split()[1] for r in rows if r["label"].startswith("fmtcheck") and r.get("works")
                and r["mb_s"] < (100 if "check" in r["label"].split()[1] else 30)}
        return {"external": False, "mb": mbytes, "rows": rows, "profiles": capture_profiles(slow, seed, min(mb, 10.0))}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# the table and RESULTS.md


def median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def short(goal: float, value: float) -> str:
    """How far a throughput is below its goal."""
    if value <= 0:
        return "no throughput"
    r = goal / value
    return f"{(1 - value / goal) * 100:.0f}% short" if r < 2 else f"x{r:.1f} short"


def _n(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def fmt_s(x: float | None) -> str:
    return "-" if x is None else (f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s")


def engine_state() -> str:
    """Which fmtcheck was measured: HEAD plus a digest of the working-tree sources."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted((ROOT / "fmtcheck").rglob("*.py")):
        h.update(f.name.encode() + f.read_bytes())
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "fmtcheck"], capture_output=True, text=True, cwd=ROOT).stdout
    n = len([l for l in dirty.splitlines() if l.strip()])
    return f"HEAD {head or '?'}, fmtcheck/*.py sha256 {h.hexdigest()[:12]} ({n} uncommitted change(s) under fmtcheck/)"


def machine() -> dict[str, str]:
    return {
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?",
        "uname": " ".join(platform.uname()),
        "nproc": str(os.cpu_count()),
        "affinity": str(len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else "?",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    }


def summarise(res: dict[str, Any]) -> tuple[list[tuple[str, str, str]], list[str], dict[str, Any]]:
    """(table rows (metric, value, target status), detail lines, target verdicts)."""
    table: list[tuple[str, str, str]] = []
    detail: list[str] = []
    targets: dict[str, Any] = {}
    mp = res.get("mutants")
    if mp:
        rows: list[MutantRow] = mp["rows"]
        nonequiv = [r for r in rows if r.status != "equivalent"]
        equiv = [r for r in rows if r.status == "equivalent"]
        killed = [r for r in rows if r.status == "killed"]
        survivors = [r for r in rows if r.status not in ("killed", "equivalent")]
        naive_killed = [r for r in nonequiv if r.naive_killed]
        pct = 100.0 * len(killed) / len(nonequiv) if nonequiv else 100.0
        met = not survivors
        targets["kill"] = (met, f"{len(killed)}/{len(nonequiv)} = {pct:.1f}%")
        table.append(("mutants (sources: " + ", ".join(mp["sources"]) + ")", f"{len(rows)} total, {len(equiv)} equivalent (confirmed), {len(nonequiv)} non-equivalent", ""))
        table.append(("fmtcheck defaults: killed", f"{len(killed)}/{len(nonequiv)} ({pct:.1f}%)", "MET" if met else "MISSED"))
        table.append(("fmtcheck: median time to first counterexample",
                      fmt_s(median([r.first_seconds for r in killed if r.first_seconds is not None]))
                      + f", median {_n(median([r.first_cases for r in killed if r.first_cases]))} case(s)"
                      + f" (full verdict incl. shrink and report: {fmt_s(median([r.fmt_seconds for r in killed]))})", ""))
        npct = 100.0 * len(naive_killed) / len(nonequiv) if nonequiv else 100.0
        table.append(("naive baseline (100 uniform vectors): killed", f"{len(naive_killed)}/{len(nonequiv)} ({npct:.1f}%)", ""))
        table.append(("naive: median time to first counterexample", fmt_s(median([r.naive_seconds for r in naive_killed]))
                      + f", median {_n(median([r.naive_cases for r in naive_killed if r.naive_cases]))} case(s)", ""))
        by_op: dict[str, list[MutantRow]] = {}
        for r in rows:
            by_op.setdefault(r.operator, []).append(r)
        detail.append("| operator | mutants | equivalent | fmtcheck killed | fmtcheck: median time / cases to 1st counterexample "
                      "| naive killed | naive: median time / cases | other |")
        detail.append("|---|---:|---:|---:|---:|---:|---:|---|")
        for op, rs in sorted(by_op.items()):
            ne = [r for r in rs if r.status != "equivalent"]
            other = [r for r in rs if r.status not in ("killed", "equivalent")]
            fk = [r for r in rs if r.status == "killed" and r.first_seconds is not None]
            nk = [r for r in ne if r.naive_killed]
            detail.append(f"| {op} | {len(rs)} | {len(rs) - len(ne)} | {len(fk)}/{len(ne)} | "
                          f"{fmt_s(median([r.first_seconds for r in fk]))} / {_n(median([r.first_cases for r in fk if r.first_cases]))} | "
                          f"{len(nk)}/{len(ne)} | {fmt_s(median([r.naive_seconds for r in nk]))} / {_n(median([r.naive_cases for r in nk if r.naive_cases]))} | "
                          f"{', '.join(sorted({r.status for r in other}))} |")
        mp["survivors"] = survivors
        mp["equivalent"] = equiv
        mp["false_alarms"] = [r for r in killed if "possible false alarm" in r.note]
    vt = res.get("verdict")
    if vt:
        vrows = [r for r in vt["rows"] if r["kind"] == "verify"]
        worst = max(vrows, key=lambda r: r["median"])
        met = all(r["median"] < 1.0 for r in vrows)
        targets["verdict"] = (met, f"slowest {worst['name']} {worst['median']:.3f} s")
        table.append((f"time to verdict, fixture pairs (median of {vt['runs']}, whole process)",
                      f"median {fmt_s(median([r['median'] for r in vrows]))}, slowest {worst['name']} {fmt_s(worst['median'])} "
                      f"({len(vrows)} pairs; interpreter+import alone {fmt_s(vt['startup'])})",
                      "MET" if met else f"MISSED ({sum(r['median'] >= 1.0 for r in vrows)}/{len(vrows)} pairs >= 1 s, "
                                        f"slowest {worst['median'] - 1.0:+.2f} s over)"))
        prow = [r for r in vt["rows"] if r["kind"] == "patch"]
        if prow:
            works = [r for r in prow if r["rc"] in (0, 1, 3)]
            if works:
                table.append((f"time to verdict, seed patches (median of {vt['runs']})", ", ".join(f"{r['name']} {fmt_s(r['median'])} (rc {r['rc']})" for r in prow), ""))
            else:
                table.append(("time to verdict, seed patches", f"`fmtcheck patch` does not work yet: {prow[0]['stderr']}", "n/a"))
    en = res.get("engine")
    if en:
        met = en["rate"] >= 50000
        targets["engine"] = (met, f"{en['rate']:,.0f} vectors/s")
        others = "".join(f"; {m['label']}: {m['rate']:,.0f}/s" for m in en.get("modes", [])[1:])
        table.append(("engine throughput (example, 1 core, Runner.run_case)",
                      f"{en['rate']:,.0f} vectors/s ({en['inputs']} inputs per vector{others})", "MET" if met else f"MISSED ({short(50000, en['rate'])})"))
    cp = res.get("capture")
    if cp:
        if cp["external"]:
            figs = cp["figures"]
            if not figs:
                table.append(("capture throughput (benchmarks/capture_speed.py)", f"rc {cp['rc']}, no figures read: see details", ""))
            peak = 0
            for key, goal in (("check", 100), ("diff", 30)):
                f = figs.get(key)
                if not f:
                    continue
                peak = max(peak, f["rss_mb"])
                met = f["mb_s"] >= goal
                targets[key] = (met, f"{f['mb_s']:.1f} MB/s")
                extra = f" ({f['with_startup']:.0f} MB/s counting start-up)" if f.get("with_startup") else ""
                table.append((f"fmtcheck {key} ({f['mb']:.0f} MB, capture_speed.py)", f"{f['mb_s']:.1f} MB/s{extra}, peak {f['rss_mb']} MB",
                              "MET" if met else f"MISSED ({f['mb_s']:.1f} vs {goal} MB/s, {short(goal, f['mb_s'])})"))
            if figs:
                targets["memory"] = (peak < 200, f"{peak} MB peak")
                table.append(("capture peak memory (check, diff)", f"{peak} MB", "MET" if peak < 200 else "MISSED"))
        else:
            for r in cp["rows"]:
                if r.get("missing"):
                    table.append((r["label"], "not installed", ""))
                    continue
                mem = r["maxrss_kb"] / 1024
                status = ""
                if r["label"].startswith("fmtcheck"):
                    key = r["label"].split()[1]
                    goal = 100 if key == "check" else 30
                    if not r["works"]:
                        status = "NOT MEASURABLE"
                        targets[key] = (None, f"command fails: {r['stderr']}")
                        targets.setdefault("memory", (None, "no working capture command"))
                    else:
                        status = "MET" if r["mb_s"] >= goal else f"MISSED ({r['mb_s']:.1f} vs {goal} MB/s, {short(goal, r['mb_s'])})"
                        targets[key] = (r["mb_s"] >= goal, f"{r['mb_s']:.1f} MB/s")
                        okmem = mem < 200
                        prev = targets.get("memory")
                        if prev is None or prev[0] is None or prev[0]:
                            targets["memory"] = (okmem, f"{mem:.0f} MB peak ({r['label']})")
                value = (f"{r['mb_s']:.1f} MB/s, peak {mem:.0f} MB" if r["works"] else f"fails (rc {r['rc']}): {r['stderr']}")
                table.append((f"{r['label']} on {cp['mb']:.0f} MB smaps", value, status))
    return table, detail, targets


def render_table(table: list[tuple[str, str, str]]) -> str:
    w0 = max(len(r[0]) for r in table)
    w1 = max(len(r[1]) for r in table)
    lines = [f"{'metric':<{w0}} | {'value':<{w1}} | target", "-" * (w0 + w1 + 15)]
    for a, b, c in table:
        lines.append(f"{a:<{w0}} | {b:<{w1}} | {c}")
    return "\n".join(lines)


def write_results(res: dict[str, Any], args, table, detail, targets) -> None:
    m = machine()
    out = ["# fmtcheck benchmarks", "",
           f"Generated by `python -m benchmarks{' --quick' if args.quick else ''}` on {m['date']}.", "",
           f"- machine: `{m['uname']}`", f"- nproc: {m['nproc']} (usable: {m['affinity']})", f"- python: {m['python']}",
           f"- fmtcheck command: `{res.get('verdict', {}).get('cmd', fmtcheck_cmd()[0])}`",
           f"- engine measured: {res.get('engine_state', engine_state())}",
           f"- load average (1, 5, 15 min) at start: {res.get('load_start', '?')}; at end: {m['load']}. "
           "Other developers share this machine: times are wall-clock and inflate with the load.", "",
           "## Summary", "", "| metric | value | target |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in table]
    out += ["", "## Targets", ""]
    for key, goal in TARGETS.items():
        if key in targets:
            met, what = targets[key]
            out.append(f"- {goal}: **{'met' if met else ('not measurable' if met is None else 'MISSED')}** ({what})")
        else:
            out.append(f"- {goal}: not run")
    mp = res.get("mutants")
    if mp:
        out += ["", "## 1. Mutation power", "",
                "Mutants are single-point edits of the NEW side of each equivalent pair (operators in "
                "`benchmarks/mutants.py`). fmtcheck runs with default `Options()`; the naive baseline runs "
                "100 vectors drawn uniformly over each input's type (no boundaries, no sweep, no shrinking) "
                "through `Runner.run_case`. A mutant fmtcheck calls equivalent counts as equivalent only if "
                f"two independent checks find no difference: a direct Python rendering of the items ({mp['confirm']} "
                "random+boundary assignments; only for straight-line sources) and the engine's model on "
                f"{mp['model_confirm']} random+boundary vectors (no sweep, no proof). Times: fmtcheck = whole "
                "verify_sources call (parse, proof, sweep, search, shrink, report); naive = parse + compile + cases "
                "until the first difference.", ""]
        out += detail
        if mp["skipped"]:
            out += ["", "Sources skipped: " + "; ".join(mp["skipped"])]
        out += ["", "### Mutants fmtcheck did not kill (non-equivalent, or not confirmed equivalent)", ""]
        if not mp["survivors"]:
            out.append("None.")
        for r in mp["survivors"]:
            out += [f"- **{r.status}** `{r.ident}` {r.operator}: {r.where} — fmtcheck {r.verdict} {r.method or ''}; "
                    f"oracle {r.oracle}, model check {r.model_check}. {r.note}", "", "```c", r.text.rstrip(), "```", ""]
        out += ["", "### Equivalent mutants (fmtcheck: equivalent; both checks: no difference)", ""]
        for r in mp["equivalent"]:
            out.append(f"- `{r.ident}` {r.operator}: {r.where} (fmtcheck {r.method}; oracle {r.oracle}, model {r.model_check})")
        if mp["false_alarms"]:
            out += ["", "### Killed without an independent witness (check these: possible false alarms)", ""]
            for r in mp["false_alarms"]:
                out.append(f"- `{r.ident}` {r.operator}: {r.where}")
    vt = res.get("verdict")
    if vt:
        out += ["", f"## 2. Time to verdict (whole process, median of {vt['runs']})", "",
                f"Interpreter start + `import fmtcheck` + argparse alone (`fmtcheck --help`): {fmt_s(vt['startup'])}.", "",
                "| subject | command | median | min | max | exit | last line |", "|---|---|---:|---:|---:|---:|---|"]
        for r in vt["rows"]:
            last = (r["summary"] if r["rc"] in (0, 1, 3) else r["stderr"]).replace("|", "\\|")
            out.append(f"| {r['name']} | {r['kind']} | {fmt_s(r['median'])} | {fmt_s(r['min'])} | {fmt_s(r['max'])} | {r['rc']} | {last} |")
        for name, prof in vt.get("profiles", {}).items():
            what = f"`fmtcheck {name}`" if name.startswith("patch ") else f"`fmtcheck verify` on {name}"
            out += ["", f"cProfile of {what} (in process):", "", "```", prof, "```"]
    en = res.get("engine")
    if en:
        out += ["", "## 3. Engine throughput", "",
                f"Vectors (boundary, digit-length, small and uniform values) through both sides of fixtures/example "
                f"({en['inputs']} inputs per vector), compared, on one pinned core:", ""]
        for mode in en.get("modes", []):
            out += [f"- `{mode['label']}`: **{mode['rate']:,.0f} vectors/s** ({mode['cases']:,} in {mode['seconds']:.1f} s)"]
        for mode in en.get("modes", []):
            out += ["", f"cProfile of 2,000 vectors, `{mode['label']}`:", "", "```", mode["profile"], "```"]
    cp = res.get("capture")
    if cp:
        out += ["", "## 4. Capture throughput", ""]
        if cp["external"]:
            out += [f"From `{cp['cmd']}` (another developer's script; exit {cp['rc']}). It times `check_captures` / "
                    "`diff_captures` in a child process (best of its runs; interpreter and grammar start-up reported "
                    "apart, as 'startup'), counts both files for diff, and reads peak RSS from the child. The targets "
                    "are judged on its main figure (without start-up):", "", "```", cp["stdout"].rstrip(), cp["stderr"].rstrip(), "```"]
            for name, prof in cp.get("profiles", {}).items():
                out += ["", f"cProfile of {name} (in process):", "", "```", prof, "```"]
        else:
            out += [f"Generated smaps captures of {cp['mb']:.0f} MB each (`--capture-mb`). MB/s counts the bytes read "
                    "(both files for diff and cmp). Peak memory is ru_maxrss of the child (resource.getrusage RUSAGE_CHILDREN).", "",
                    "| command | MB/s | seconds | peak RSS | exit | note |", "|---|---:|---:|---:|---:|---|"]
            for r in cp["rows"]:
                if r.get("missing"):
                    out.append(f"| {r['label']} | - | - | - | - | not installed |")
                    continue
                out.append(f"| {r['label']} | {r['mb_s']:.1f} | {r['seconds']:.2f} | {r['maxrss_kb'] / 1024:.0f} MB | {r['rc']} | "
                           f"{'' if r['works'] else r['stderr'].replace('|', '/')} |")
            for name, prof in cp.get("profiles", {}).items():
                out += ["", f"cProfile of {name} (in process):", "", "```", prof, "```"]
    RESULTS.write_text("\n".join(out) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller samples and a 10 MB capture (about 2 minutes)")
    ap.add_argument("--capture-mb", type=float, default=None, help="size of each generated capture (default 100, --quick 10)")
    ap.add_argument("--only", default="mutants,verdict,engine,capture")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=Path, default=None, metavar="DIR",
                    help="a directory of seed patch threads to time (default: ../shared/seeds when present)")
    args = ap.parse_args(argv)
    if args.seeds is not None:
        global SEEDS_DIR
        SEEDS_DIR = args.seeds
    mb = args.capture_mb if args.capture_mb is not None else (10 if args.quick else 100)
    only = set(args.only.split(","))
    res: dict[str, Any] = {"load_start": machine()["load"], "engine_state": engine_state()}
    t0 = time.perf_counter()
    if "engine" in only:
        res["engine"] = engine_throughput(args.quick, args.seed)
        log(f"[engine] {res['engine']['rate']:,.0f} vectors/s")
    if "verdict" in only:
        res["verdict"] = time_to_verdict(args.quick)
    if "capture" in only:
        res["capture"] = capture_throughput(args.quick, mb, args.seed)
    if "mutants" in only:
        res["mutants"] = mutation_power(args.quick, args.seed)
    table, detail, targets = summarise(res)
    print(render_table(table))
    if res.get("mutants") and res["mutants"]["survivors"]:
        print("\nmutants fmtcheck did not kill:")
        for r in res["mutants"]["survivors"]:
            print(f"  {r.ident} {r.operator}: {r.where} (fmtcheck {r.verdict}; oracle {r.oracle}; model {r.model_check}) {r.note}")
    write_results(res, args, table, detail, targets)
    print(f"\nwrote {RESULTS.relative_to(ROOT)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
