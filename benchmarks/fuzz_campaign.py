"""Fuzz campaign over fmtcheck's input-reading entry points (issue #6).

    python benchmarks/fuzz_campaign.py --minutes 2 --target all --out fuzz-crashes

Inputs come from the Hypothesis strategies of tests/property/test_fuzz.py (random bytes, mutated
seed patches and captures, C token soup, structured C, deep nesting), driven through Hypothesis's
`fuzz_one_input` from random buffers. Each input runs in-process in a forked worker (fmtcheck
already imported; address space capped with --memory-mb) through `fmtcheck.cli.main`, or, for the
`cfront` target, through `cfront.parse_unit` and `engine.entry_points` directly. The parent waits at
most --timeout seconds per input; a worker that does not answer is killed and the input counted as
a hang. Crashes are contract violations: an internal error (``fmtcheck: error: internal:``), a
traceback, an exit status outside 0..3, an exit 2 whose stderr is not one ``fmtcheck: error:`` line,
or a worker that died. Every crash and hang is saved under --out (files + argv + what happened),
one directory per input, with a signature so that duplicates can be told apart.

Prints a table: target, executions, crashes (unique signatures), hangs, slow (> --slow s), status
histogram. Exit status 1 if any crash or hang was found.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import importlib.util
import io
import json
import multiprocessing as mp
import os
import re
import resource
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_spec = importlib.util.spec_from_file_location("fmtcheck_fuzz_strategies", ROOT / "tests" / "property" / "test_fuzz.py")
F = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(F)  # the strategies and the contract check of the fuzz tests

TARGETS = ["verify", "patch", "check", "diff", "reads", "cfront"]
FAST = ["--max-examples", "10", "--color", "never"]


# --------------------------------------------------------------------------------------------------
# Jobs: (target, files {name: bytes}, argv with {name} placeholders)


EXCLUDED: set = set()  # names of F.DEEP inputs left out (--exclude-deep), e.g. a known hang


def _job_strategy(target: str):
    deep = st.sampled_from(sorted(set(F.DEEP) - EXCLUDED)).map(lambda k: F.DEEP[k])
    if target == "verify":
        c = st.one_of(F.C_INPUT, F.c_function(), deep)
        return st.tuples(c, c, F.COMMON_OPTS).map(
            lambda t: (target, {"old.c": t[0], "new.c": t[1]}, ["verify", "{old.c}", "{new.c}", *FAST, *t[2]]))
    if target == "cfront":
        return st.one_of(F.C_INPUT, F.c_function(), deep).map(lambda b: (target, {"in.c": b}, []))
    if target == "patch":
        return st.tuples(st.lists(F.PATCH_INPUT, min_size=1, max_size=2), F.COMMON_OPTS).map(
            lambda t: (target, {f"p{i}.patch": p for i, p in enumerate(t[0])},
                       ["patch", *[f"{{p{i}.patch}}" for i in range(len(t[0]))], *FAST, *t[1]]))
    grammar = st.one_of(st.none(), st.none(), F.GRAMMAR_NAMES).map(lambda g: [] if g is None else ["--grammar", g])
    if target == "check":
        return st.tuples(st.lists(F.CAPTURE_INPUT, min_size=1, max_size=2), grammar).map(
            lambda t: (target, {f"c{i}": c for i, c in enumerate(t[0])},
                       ["check", *[f"{{c{i}}}" for i in range(len(t[0]))], *FAST, *t[1]]))
    if target == "diff":
        return st.tuples(F.CAPTURE_INPUT, F.CAPTURE_INPUT, grammar, st.booleans()).map(
            lambda t: (target, {"old": t[0], "new": t[1]},
                       ["diff", "{old}", "{new}", *FAST, *t[2], *(["--consumers"] if t[3] else [])]))
    if target == "reads":
        opts = st.lists(st.sampled_from([["--bufsize", "1"], ["--bufsize", "4096"], ["--bufsize", "0"],
                                         ["--split", "lines"], ["--split", "file"], ["--split", "re:\\n\\n"],
                                         ["--check"], ["--split", "re:(a*)*$"]]), max_size=3)
        return st.tuples(F.CAPTURE_INPUT, opts).map(
            lambda t: (target, {"cap": t[0]}, ["reads", "{cap}", "--model", "--max-examples", "10",
                                               *[a for o in t[1] for a in o]]))
    raise ValueError(target)


def available(target: str) -> str | None:
    """None if the target can run, else the missing module."""
    if target == "cfront":
        return None if F._have("fmtcheck.c.cfront") else "fmtcheck.c.cfront"
    return F.missing_module(target)


# --------------------------------------------------------------------------------------------------
# The worker (a forked child that runs jobs until told to stop)


def _run_job(job, workdir: Path):
    target, files, argv = job
    paths = {}
    for name, data in files.items():
        path = workdir / name
        path.write_bytes(data)
        paths[name] = str(path)
    if target == "cfront":
        from fmtcheck.c import cfront
        from fmtcheck.engine import verdict as engine
        from fmtcheck.common.errors import FmtcheckError

        start = time.monotonic()
        try:
            unit = cfront.parse_unit(files["in.c"], "in.c")
            engine.entry_points(unit)
            status, err = 0, ""
        except FmtcheckError as exc:
            status, err = exc.exit_code, f"fmtcheck: error: {exc.where}: {exc.what}\n"
        except (RecursionError, MemoryError) as exc:
            status, err = 2, f"fmtcheck: error: input: {type(exc).__name__}\n"
        except Exception as exc:  # noqa: BLE001
            status, err = 2, f"fmtcheck: error: internal: {type(exc).__name__}: {exc}\n" + traceback.format_exc()
        return status, "", err, time.monotonic() - start
    real = [paths[a[1:-1]] if a.startswith("{") and a.endswith("}") and a[1:-1] in paths else a for a in argv]
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    start = time.monotonic()
    try:
        try:
            from fmtcheck import cli

            status = cli.main(real)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # noqa: BLE001 - a traceback escaping main() is the crash we look for
            err.write("Traceback (escaped main):\n" + traceback.format_exc())
            status = 98
    finally:
        sys.stdout, sys.stderr = saved
    return status, out.getvalue()[-4000:], _clip(err.getvalue()), time.monotonic() - start


def _clip(text: str, keep: int = 8000) -> str:
    return text if len(text) <= keep else text[: keep // 2] + "\n...\n" + text[-keep // 2:]


def _worker(conn, memory_mb: int) -> None:
    if memory_mb:
        limit = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    workdir = Path(tempfile.mkdtemp(prefix="fmtcheck-fuzz-"))
    try:
        while True:
            job = conn.recv()
            if job is None:
                return
            for p in workdir.iterdir():
                p.unlink()
            try:
                result = _run_job(job, workdir)
            except Exception:  # noqa: BLE001 - a bug of this script, reported as such
                result = ("harness", "", "harness error:\n" + traceback.format_exc(), 0.0)
            conn.send(result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


class Worker:
    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.ctx = mp.get_context("fork")
        self.proc = None
        self.start()

    def start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.memory_mb), daemon=True)
        self.proc.start()
        child.close()

    def run(self, job, timeout: float):
        """(status, stdout, stderr, seconds) or ("hang", ...) or ("died", ...)."""
        start = time.monotonic()
        try:
            self.conn.send(job)
            if self.conn.poll(timeout):
                return self.conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
            self.restart()
            return "died", "", f"worker died (exit {self.proc.exitcode})", time.monotonic() - start
        self.restart()
        return "hang", "", f"no answer after {timeout} s", time.monotonic() - start

    def restart(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.kill()  # our own child, by its handle
        if self.proc is not None:
            self.proc.join(5)
        self.start()

    def stop(self) -> None:
        try:
            self.conn.send(None)
            self.proc.join(5)
        except OSError:
            pass
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)


# --------------------------------------------------------------------------------------------------
# Classification


def signature(target: str, outcome) -> str:
    status, _out, err, _seconds = outcome
    if status in ("hang", "died"):
        return f"{target}: {status}"
    def norm(text: str) -> str:
        return re.sub(r"\d+", "N", re.sub(r"/tmp/\S+", "PATH", text))

    lines = err.strip().splitlines()
    first = lines[0] if lines else f"exit {status}"
    if "Traceback" in err:
        first = "traceback: " + norm([line for line in lines if line.strip()][-1])
    elif "fmtcheck: error: internal:" in first:
        first = norm(first.split("fmtcheck: error: ", 1)[1][:90])  # exception type and the start of its message
    elif status == 2 and (len(err.splitlines()) != 1 or not first.startswith("fmtcheck: error: ")):
        # not one line: the kind of message, without its variable tail (paths, quoted input)
        what = first.split(": ", 3)[-1] if first.startswith("fmtcheck: error: ") else first
        first = f"exit 2 with {len(err.splitlines())} stderr lines: " + norm(re.split(r"[:'\"(]", what, 1)[0][:60])
    elif status not in (0, 1, 2, 3):
        first = f"exit status {status!r}: {norm(first[:80])}"
    else:
        first = norm(first)
    return f"{target}: {first[:160]}"


def problem(target: str, outcome, slow: float) -> str | None:
    status, out, err, seconds = outcome
    if status == "hang":
        return "hang"
    if status == "died":
        return "crash"
    if F.contract_violation([], status, out, err, seconds, time_limit=float("inf")) is not None:
        return "crash"
    if seconds > slow:
        return "slow"
    return None


def save(out_dir: Path, target: str, job, outcome, kind: str, sig: str) -> Path:
    _t, files, argv = job
    digest = hashlib.sha1(repr((target, sorted(files.items()), argv)).encode()).hexdigest()[:12]
    d = out_dir / f"{kind}-{target}-{digest}"
    d.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (d / name).write_bytes(data)
    status, out, err, seconds = outcome
    (d / "info.json").write_text(json.dumps({
        "target": target, "kind": kind, "signature": sig, "argv": argv, "status": status,
        "seconds": round(seconds, 3), "stderr": _clip(err), "stdout_tail": out[-1000:],
        "replay": ("python -c \"from fmtcheck.c import cfront; from fmtcheck.engine import verdict as engine; engine.entry_points("
                   "cfront.parse_unit(open('in.c','rb').read(), 'in.c'))\"" if target == "cfront"
                   else "fmtcheck " + " ".join(a[1:-1] if a.startswith("{") else a for a in argv)),
    }, indent=2))
    return d


# --------------------------------------------------------------------------------------------------
# Campaign


def campaign(target: str, minutes: float, timeout: float, slow: float, out_dir: Path, memory_mb: int,
             seed: int, max_saved: int) -> dict:
    stats = {"target": target, "execs": 0, "crashes": 0, "hangs": 0, "slow": 0,
             "signatures": collections.Counter(), "statuses": collections.Counter(), "saved": [],
             "max_seconds": 0.0}
    per_sig_saved: collections.Counter = collections.Counter()
    worker = Worker(memory_mb)
    deadline = time.monotonic() + minutes * 60
    rng = __import__("random").Random(seed)

    @settings(database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(job=_job_strategy(target))
    def one(job):
        outcome = worker.run(job, timeout)
        stats["execs"] += 1
        stats["statuses"][outcome[0]] += 1
        stats["max_seconds"] = max(stats["max_seconds"], outcome[3])
        kind = problem(target, outcome, slow)
        if kind is None:
            return
        sig = signature(target, outcome) if kind != "slow" else f"{target}: slow"
        stats[{"crash": "crashes", "hang": "hangs", "slow": "slow"}[kind]] += 1
        stats["signatures"][(kind, sig)] += 1
        if per_sig_saved[sig] < max_saved:
            per_sig_saved[sig] += 1
            stats["saved"].append(str(save(out_dir, target, job, outcome, kind, sig)))

    try:
        while time.monotonic() < deadline:
            size = rng.choice([64, 256, 1024, 4096, 16384])
            try:
                one.hypothesis.fuzz_one_input(rng.randbytes(size))
            except Exception as exc:  # noqa: BLE001 - a generation problem, not a finding
                stats["statuses"][f"generator {type(exc).__name__}"] += 1
    finally:
        worker.stop()
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="per target")
    ap.add_argument("--target", choices=TARGETS + ["all"], default="all")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per input before it is a hang")
    ap.add_argument("--slow", type=float, default=5.0, help="seconds per input above which it is reported as slow")
    ap.add_argument("--out", default="fuzz-crashes", help="directory for crashing inputs")
    ap.add_argument("--memory-mb", type=int, default=3072, help="address-space cap of the worker (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-saved", type=int, default=3, help="inputs saved per crash signature")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--exclude-deep", action="append", default=[], metavar="NAME",
                    help="leave out one of the deep-nesting inputs of test_fuzz.DEEP (a known hang)")
    args = ap.parse_args(argv)
    EXCLUDED.update(args.exclude_deep)

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    targets = TARGETS if args.target == "all" else [args.target]
    results = []
    for target in targets:
        missing = available(target)
        if missing:
            print(f"{target}: skipped ({missing} has not landed)", flush=True)
            results.append({"target": target, "skipped": missing})
            continue
        print(f"{target}: fuzzing for {args.minutes} min ...", flush=True)
        results.append(campaign(target, args.minutes, args.timeout, args.slow, out_dir, args.memory_mb,
                                args.seed, args.max_saved))

    print()
    print(f"{'entry point':<12} {'executions':>10} {'crashes':>8} {'unique':>7} {'hangs':>6} {'slow':>5} "
          f"{'max s':>6}  statuses")
    for r in results:
        if "skipped" in r:
            print(f"{r['target']:<12} {'-':>10} {'-':>8} {'-':>7} {'-':>6} {'-':>5} {'-':>6}  skipped: {r['skipped']} missing")
            continue
        unique = sum(1 for (k, _s) in r["signatures"] if k == "crash")
        hist = ", ".join(f"{k}:{v}" for k, v in sorted(r["statuses"].items(), key=lambda kv: str(kv[0])))
        print(f"{r['target']:<12} {r['execs']:>10} {r['crashes']:>8} {unique:>7} {r['hangs']:>6} {r['slow']:>5} "
              f"{r['max_seconds']:>6.1f}  {hist}")
    print()
    found = False
    for r in results:
        for (kind, sig), n in sorted(r.get("signatures", {}).items(), key=lambda kv: -kv[1]):
            found = found or kind in ("crash", "hang")
            print(f"  [{kind}] x{n}  {sig}")
    print(f"\ninputs saved under {out_dir}/")
    if args.json:
        Path(args.json).write_text(json.dumps([
            {**{k: v for k, v in r.items() if k not in ("signatures", "statuses")},
             "signatures": [[k, s, n] for (k, s), n in r.get("signatures", {}).items()],
             "statuses": {str(k): v for k, v in r.get("statuses", {}).items()}} for r in results], indent=2))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
