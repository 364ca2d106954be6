"""Judge the kernel's own seq_file printers against mechanical rewrites, mutants and other releases.

Why: fmtcheck exists to judge real kernel code, and fixtures written for it say little about how
it does on the kernel's own printers. This script reads a kernel tree from a path (nothing of the
kernel is stored in the project), finds every function that takes a `struct seq_file *` and calls a
seq_* output primitive (the denominator), and judges each one, through the public facade
`fmtcheck.verify_sources`, against a rewrite it makes itself (benchmarks/kernel_rewrite.py): every
`seq_printf` split into one call per conversion, `seq_puts`/`seq_putc` for literal text,
`seq_put_decimal_ull(_width)` for plain unsigned conversions, locals renamed. The rewrite prints the
same bytes, so every `divergent` there is a bug. With `--mutants N` it mutates the first N decided
functions (six operators); with `--pair-tree DIR` it judges each printer whose text changed between
two releases.

A whole tree takes longer than a session can wait, so nothing waits for the end: each judgement is
written as one JSON line to `--out` the moment it is made, `--resume` skips the judgements the file
already holds for the same engine and the same input, and the markdown report (`--report`) is
rebuilt from the file alone, complete or partial (benchmarks/kernel_report.py). Every judgement is
a forked child under an address-space limit and a CPU-time limit (CPU, not wall time, so the load
of a shared machine changes the time taken, not the answers); `--jobs N` runs N at once.

Usage:
    python3 benchmarks/kernel_corpus.py --tree /path/linux-6.1 [PATH...] --out run.jsonl [--resume]
        [--jobs 2] [--cpu 60] [--mutants 40] [--pair-tree /path/linux-6.12] [--report run.md]
    python3 benchmarks/kernel_corpus.py --report run.md --out run.jsonl      # report only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.kernel_report import latest, outcome, read_records, render_report  # noqa: E402
from benchmarks.kernel_mutants import HELPER, helper_mutants, make_mutants  # noqa: E402
from benchmarks.kernel_rewrite import (  # noqa: E402
    SEQ_PRIMITIVES, Printer, function_node, rewrite_function, with_function,
)
from fmtcheck.c.cfront import function_name, walk  # noqa: E402

DEFAULT_PATHS = ["fs/proc", "kernel/irq", "mm", "net", "arch/x86/kernel", "kernel/cgroup", "block"]
MEMORY_LIMIT = 1536 * 1024 * 1024
CPU_LIMIT = 60.0
WALL_FACTOR = 20  # a child is killed after this many times its CPU limit of wall time (a hung child)


# ---------------------------------------------------------------------------------------------
# finding the printers


def _parser():
    import tree_sitter_c
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_c.language()))


def _params(node):
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl.child_by_field_name("parameters") if decl is not None else None


def _calls_primitive(body) -> bool:
    for n in walk(body):
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn is not None and fn.type == "identifier" and fn.text.decode() in SEQ_PRIMITIVES:
                return True
    return False


def find_printers(tree: Path, paths: list[str]) -> list[Printer]:
    """Every function with a `struct seq_file *` parameter that calls a seq_* output primitive."""
    parser = _parser()
    found: list[Printer] = []
    for rel in paths:
        base = tree / rel
        files = [base] if base.is_file() else sorted(base.rglob("*.c"))
        for path in files:
            data = path.read_bytes()
            if b"seq_file" not in data:
                continue
            seen: set[str] = set()
            for node in walk(parser.parse(data).root_node):
                if node.type != "function_definition":
                    continue
                params = _params(node)
                if params is None or not re.search(rb"struct\s+seq_file\s*\*", params.text):
                    continue
                body = node.child_by_field_name("body")
                name = function_name(node)
                if body is None or not _calls_primitive(body) or not name or name in seen:
                    continue
                seen.add(name)
                found.append(Printer(str(path.relative_to(tree)), name, node.start_byte, node.end_byte,
                                     node.start_point[0] + 1, node.end_point[0] + 1))
    return found


# ---------------------------------------------------------------------------------------------
# the engine's identity


def _git(*args: str, root: Path = ROOT) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    return out.stdout.decode("latin-1").strip() if out.returncode == 0 else ""


def engine_root() -> Path:
    """The checkout of the fmtcheck the judgements import (the one an installed or editable
    package, or PYTHONPATH, supplies), which need not be the checkout of this script."""
    import fmtcheck

    return Path(fmtcheck.__file__).resolve().parents[1]


# what verify_sources runs: the layers below the front ends (pyproject.toml's import-linter
# contracts: common < kernel < c < engine); patch/, layout/, reads/, impact/ cannot change a verdict here
ENGINE_PATHS = ("fmtcheck/__init__.py", "fmtcheck/common", "fmtcheck/kernel", "fmtcheck/c", "fmtcheck/engine")


def engine_of(commit: str, root: Path = ROOT) -> str:
    """The engine of a commit: a digest of the git ids of ENGINE_PATHS there ('' if unknown)."""
    ids = [_git("rev-parse", f"{commit}:{path}", root=root) for path in ENGINE_PATHS]
    return hashlib.sha256(" ".join(ids).encode()).hexdigest()[:12] if all(ids) else ""


def engine_identity(root: Path | None = None) -> tuple[str, str]:
    """(engine, commit) of the checkout the imported fmtcheck comes from (`engine_root`):
    engine_of(HEAD), plus a digest of uncommitted changes to ENGINE_PATHS. A commit that changes
    only front ends, benchmarks or docs keeps the engine."""
    root = root or engine_root()
    engine = engine_of("HEAD", root) or "unknown"
    diff = _git("diff", "HEAD", "--", *ENGINE_PATHS, root=root)
    untracked = _git("ls-files", "-o", "--exclude-standard", "--", *ENGINE_PATHS, root=root)
    if diff or untracked:
        digest = hashlib.sha256(diff.encode("latin-1"))
        for name in untracked.splitlines():
            digest.update((root / name).read_bytes())
        engine += "+dirty-" + digest.hexdigest()[:10]
    return engine, _git("rev-parse", "--short", "HEAD", root=root)


def with_engines(records: list[dict]) -> list[dict]:
    """The records with each clean record's engine recomputed from its commit (so records of
    runs that named the engine another way, or of commits with the same engine, agree)."""
    cache: dict[str, str] = {}
    out = []
    for r in records:
        commit, engine = r.get("commit"), r.get("engine") or ""
        if commit and "+dirty" not in engine:
            if commit not in cache:
                cache[commit] = engine_of(commit) or engine
            r = {**r, "engine": cache[commit]}
        out.append(r)
    return out


# ---------------------------------------------------------------------------------------------
# judging in children


@dataclass
class Task:
    """One judgement: the record it starts (kind, id, ...) and what verify_sources is given."""

    record: dict
    old: bytes
    new: bytes
    function: str
    old_label: str
    new_label: str
    tree: str | None

    def digest(self) -> str:
        """What the answer is a function of (with the engine): inputs, function, labels, tree."""
        h = hashlib.sha256()
        for part in (self.old, self.new, self.function.encode(), self.old_label.encode(),
                     self.new_label.encode(), (self.tree or "").encode()):
            h.update(len(part).to_bytes(8, "little") + part)
        return h.hexdigest()[:16]


def _warm_up() -> None:
    """Import everything verify_sources needs before forking, so children start warm."""
    import fmtcheck

    try:
        fmtcheck.verify_sources(b"void f(struct seq_file *m, int x)\n{\n\tseq_printf(m, \"%d\\n\", x);\n}\n",
                                b"void f(struct seq_file *m, int x)\n{\n\tseq_put_decimal_ll(m, \"\", x);\n"
                                b"\tseq_putc(m, '\\n');\n}\n")
    except Exception:  # noqa: BLE001 - warming only
        pass


def _warm_headers(tree: Path, path: str, src: bytes) -> None:
    """Read the constants of the headers a file includes once, before the judgements fork
    (each child then finds them in its inherited cache instead of reading the headers again)."""
    from fmtcheck.c import headers

    headers.tree_constants(str(tree), path, headers.includes_of(src))
    headers.tree_structs(str(tree), path, headers.includes_of(src))
    headers.tree_typedefs(str(tree), path, headers.includes_of(src))


def _answer(task: Task) -> dict:
    """The child's answer: verdict and reason, or how the facade failed."""
    import fmtcheck
    from fmtcheck.common.options import Options

    try:
        report = fmtcheck.verify_sources(task.old, task.new, Options(function=task.function, tree=task.tree),
                                         old_label=task.old_label, new_label=task.new_label)
    except MemoryError:
        return {"status": "memory", "reason": "MemoryError under the address-space limit"}
    except Exception as exc:  # noqa: BLE001 - classified below
        code, where, what = getattr(exc, "exit_code", None), getattr(exc, "where", ""), getattr(exc, "what", str(exc))
        if code in (2, 3):
            return {"status": "error" if code == 2 else "inconclusive", "reason": f"{where}: {what}"}
        last = (traceback.extract_tb(exc.__traceback__) or [None])[-1]
        at = f"{Path(last.filename).name}:{last.lineno}" if last else "?"
        return {"status": "internal", "reason": f"{type(exc).__name__}: {exc} (at {at})"}
    results = [r.to_json() for r in report.results]
    for r, obj in zip(results, report.results):
        for d, div in zip(r.get("divergences", []), obj.divergences):
            if div.rendered:
                d["rendered_old"] = div.rendered[0].decode("latin-1")[:4000]
                d["rendered_new"] = div.rendered[1].decode("latin-1")[:4000]
    if not results:
        return {"status": "nothing-to-check"}
    reason = next((r.get("reason") for r in results if r.get("verdict") == report.verdict), None)
    return {"status": report.verdict, "reason": reason,
            "results": results if report.verdict == "divergent" else None}


@dataclass
class Child:
    task: Task
    pid: int
    fd: int
    start: float
    chunks: list[bytes] = field(default_factory=list)


_WHERE = re.compile(r".+\.[ch](?: \([^)]*\))?:\d+(?::\d+)?")


def running_construct(frame) -> str | None:
    """The innermost construct of the C code a judgement was running in FRAME's stack: the
    engine's compiled closures hold their construct's `where` (FILE:LINE), as its reasons do."""
    while frame is not None:
        where = frame.f_locals.get("where")
        if isinstance(where, str) and _WHERE.fullmatch(where):
            return where
        frame = frame.f_back
    return None


def names_a_line_of_timeout(cpu: float, where: str | None) -> str:
    return f"no answer within {cpu:.0f} s of CPU" + (f" (running {where} when the limit came)" if where else "")


def _out_of_cpu(fd: int, cpu: float):
    """The child's SIGXCPU handler: a timeout that names the construct of the code the CPU limit
    found the judgement in (a sample of where the time went: it depends on timing, so it names a
    place to look at, never a verdict), then the child ends."""

    def handler(signum, frame) -> None:
        reason = names_a_line_of_timeout(cpu, running_construct(frame))
        os.write(fd, json.dumps({"status": "timeout", "reason": reason}).encode())
        os._exit(0)

    return handler


def start_child(task: Task, cpu: float, memory: int) -> Child:
    """Fork a child that judges the task under the limits and writes its answer to a pipe."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        signal.signal(signal.SIGXCPU, _out_of_cpu(write_fd, cpu))
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_CPU, (max(1, int(cpu)), max(1, int(cpu)) + 5))
            data = json.dumps(_answer(task)).encode()
        except BaseException as exc:  # noqa: BLE001 - the child must always answer
            data = json.dumps({"status": "internal", "reason": f"{type(exc).__name__}: {exc}"}).encode()
        with os.fdopen(write_fd, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    return Child(task, pid, read_fd, time.monotonic())


def finish_child(child: Child, cpu: float, killed: bool) -> dict:
    """Reap the child: its answer (or why there is none), wall and CPU time, peak RSS."""
    os.close(child.fd)
    _, status, usage = os.wait4(child.pid, 0)
    answer = None
    if not killed:
        try:
            answer = json.loads(b"".join(child.chunks) or b"null")
        except ValueError:
            answer = None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if killed:
        answer = {"status": "timeout", "reason": f"no answer within {WALL_FACTOR * cpu:.0f} s of wall time"}
    elif sig in (signal.SIGXCPU, signal.SIGKILL) and not isinstance(answer, dict):
        answer = {"status": "timeout", "reason": f"no answer within {cpu:.0f} s of CPU"}
    elif not isinstance(answer, dict):
        answer = {"status": "crash", "reason": f"child ended (signal {sig}, status {status}) without an answer"}
    answer["seconds"] = round(time.monotonic() - child.start, 3)
    answer["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 3)
    answer["maxrss_mb"] = round(usage.ru_maxrss / 1024, 1)
    return answer


def run_tasks(tasks: Iterable[Task], jobs: int, cpu: float, memory: int, sink: Callable[[Task, dict], None]) -> None:
    """Judge the tasks, at most `jobs` at a time, handing each answer to `sink` as it comes."""
    pending: Iterator[Task] = iter(tasks)
    running: dict[int, Child] = {}
    more = True
    while more or running:
        while more and len(running) < jobs:
            task = next(pending, None)
            if task is None:
                more = False
                break
            child = start_child(task, cpu, memory)
            running[child.fd] = child
        if not running:
            break
        ready, _, _ = select.select(list(running), [], [], 1.0)
        for fd in ready:
            child = running[fd]
            chunk = os.read(fd, 1 << 20)
            if chunk:
                child.chunks.append(chunk)
                continue
            del running[fd]
            sink(child.task, finish_child(child, cpu, killed=False))
        for fd, child in list(running.items()):
            if time.monotonic() - child.start > WALL_FACTOR * cpu:
                os.kill(child.pid, signal.SIGKILL)
                del running[fd]
                sink(child.task, finish_child(child, cpu, killed=True))


# ---------------------------------------------------------------------------------------------
# the three phases: the tasks of each


def function_tasks(tree: Path, printers: list[Printer]) -> Iterator[Task]:
    """Each printer against its mechanical rewrite (headers warmed once per file, before forking)."""
    parser = _parser()
    for path in dict.fromkeys(p.path for p in printers):
        src = (tree / path).read_bytes()
        root = parser.parse(src).root_node
        _warm_headers(tree, path, src)
        for p in (q for q in printers if q.path == path):
            rw = rewrite_function(src, p, function_node(root, p))
            yield Task({"kind": "function", "id": p.key, "line": p.line, "split": rw.split, "kept": rw.kept,
                        "renamed": rw.renamed}, src, with_function(src, p, rw.text), p.name, path,
                       f"{path} (rewrite)", str(tree))


def mutant_tasks(tree: Path, printers: list[Printer]) -> Iterator[Task | dict]:
    """Every mutant of the given printers; a site where the operator changes nothing is a record."""
    parser = _parser()
    for p in printers:
        src = (tree / p.path).read_bytes()
        node = function_node(parser.parse(src).root_node, p)
        _warm_headers(tree, p.path, src)
        muts = make_mutants(src, p, node, str(tree))
        muts += helper_mutants(rewrite_function(src, p, node).text, lambda ln, p=p: p.line + ln)
        seen: dict[str, int] = {}
        for mu in muts:
            mid = f"{p.key} {mu.operator} {mu.site}"
            seen[mid] = seen.get(mid, 0) + 1
            mid += f" #{seen[mid]}" if seen[mid] > 1 else ""
            record = {"kind": "mutant", "id": mid, "function": p.key, "operator": mu.operator, "site": mu.site,
                      "cannot_change": mu.cannot_change}
            if mu.text is None:
                yield {**record, "status": "excluded", "reason": mu.excluded}
                continue
            new = with_function(src, p, mu.text)
            if mu.operator == "helper-skips-padding":
                new = new[:p.start] + HELPER.rstrip(b"\n") + b" " + new[p.start:]
            yield Task(record, src, new, p.name, p.path, f"{p.path} (mutant)", str(tree))


def normalized(text: bytes) -> bytes:
    text = re.sub(rb"/\*.*?\*/|//[^\n]*", b"", text, flags=re.S)
    return re.sub(rb"\s+", b"", text)


def pair_tasks(tree: Path, other: Path, printers: list[Printer], paths: list[str]) -> list[Task]:
    """The same printer in two releases, wherever its text changed (judged without a tree: one
    tree's header constants would be wrong for the other release's side)."""
    others = {p.key: p for p in find_printers(other, paths)}
    tasks: list[Task] = []
    for p in printers:
        q = others.get(p.key)
        if q is None:
            continue
        a, b = (tree / p.path).read_bytes(), (other / q.path).read_bytes()
        if normalized(a[p.start:p.end]) != normalized(b[q.start:q.end]):
            tasks.append(Task({"kind": "pair", "id": p.key, "old_line": p.line, "new_line": q.line}, a, b, p.name,
                              f"{tree.name}/{p.path}", f"{other.name}/{q.path}", None))
    return tasks


# ---------------------------------------------------------------------------------------------
# the run


class Journal:
    """The JSON-lines file: what it already holds (for --resume) and each new record, flushed."""

    def __init__(self, path: Path, resume: bool, engine: str, commit: str, verbose: bool) -> None:
        self.records = with_engines(read_records(path.read_text(encoding="latin-1"))) if resume and path.exists() else []
        self.file = path.open("a" if resume else "w", encoding="latin-1")
        self.engine, self.commit, self.verbose = engine, commit, verbose
        self.count = 0

    def write(self, record: dict) -> None:
        record = {**record, "engine": self.engine, "commit": self.commit}
        self.records.append(record)
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def held(self) -> set[tuple]:
        """(kind, id, input digest) of every judgement the file holds from this engine."""
        _, judged = latest(self.records, self.engine)
        return {(k, i, r.get("input")) for (k, i), r in judged.items()}

    def relabel(self, task: Task) -> None:
        """A judgement the file holds whose `cannot_change` the script now gives differently (the
        exclusion rule changed, the engine did not): the same judgement, written again with the
        script's reason, so the report classes it by the rule of this checkout."""
        _, judged = latest(self.records, self.engine)
        record = judged.get((task.record["kind"], task.record["id"]))
        if record is not None and record.get("cannot_change") != task.record.get("cannot_change"):
            self.write({**record, "cannot_change": task.record.get("cannot_change"), "relabelled": True})

    def answered(self, task: Task, answer: dict) -> None:
        self.write({**task.record, "input": task.digest(), **answer})
        self.count += 1
        if self.verbose:
            print(f"[{self.count}] {task.record['id']}: {answer['status']} cpu {answer['cpu_seconds']}s "
                  f"rss {answer['maxrss_mb']}MB {(answer.get('reason') or '')[:90]}", file=sys.stderr, flush=True)


def run_phase(journal: Journal, phase: str, ids: list[str], items: Iterable[Task | dict], extra: dict,
              args) -> None:
    """Write the phase's plan (its denominator), then judge, as they are made, the tasks the file
    does not hold yet (tasks are made lazily: a file's headers are read just before its judgements)."""
    journal.write({"kind": "plan", "phase": phase, "ids": ids, **extra})
    held = journal.held()
    print(f"{phase}: {len(ids)} planned, {sum(1 for k in held if k[0] == phase[:-1])} held", file=sys.stderr,
          flush=True)

    def todo() -> Iterator[Task]:
        for item in items:
            if isinstance(item, dict):
                journal.write(item)  # a site where the operator changes nothing: no judgement to skip
            elif (item.record["kind"], item.record["id"], item.digest()) not in held:
                yield item
            else:
                journal.relabel(item)

    run_tasks(todo(), args.jobs, args.cpu, args.memory, journal.answered)


def decided_printers(journal: Journal, printers: list[Printer], limit: int) -> list[Printer]:
    """The first `limit` printers (by key) whose latest judgement in the file, by any engine, is
    decided: the mutants start from them (a mutant judged by another engine than its function
    still counts: killed only when divergent)."""
    _, judged = latest(journal.records)
    ok = [p for p in printers if ("function", p.key) in judged and outcome(judged[("function", p.key)]) == "decided"]
    return sorted(ok, key=lambda p: p.key)[:limit]


def unkilled_first(journal: Journal, items: list[Task | dict]) -> list[Task | dict]:
    """The mutant items, those whose latest judgement in the file (by any engine) is not a kill
    (of a mutant that can change bytes) first: after a change to the engine they are the ones to look at, and a run that is stopped
    early has judged them (the plan, the denominator, is unchanged)."""
    _, judged = latest(journal.records)

    def killed(item: Task | dict) -> bool:
        record = judged.get(("mutant", item.record["id"] if isinstance(item, Task) else item["id"]))
        return record is None or record.get("status") == "divergent" or bool(record.get("cannot_change"))

    return sorted(items, key=killed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, help="a kernel source tree")
    ap.add_argument("paths", nargs="*", help=f"paths in the tree (default: {' '.join(DEFAULT_PATHS)})")
    ap.add_argument("--out", type=Path, help="the JSON-lines file of the judgements")
    ap.add_argument("--resume", action="store_true", help="keep --out and skip what it holds for this engine")
    ap.add_argument("--report", type=Path, help="write the markdown report here ('-': stdout)")
    ap.add_argument("--engine", help="report only the judgements of this engine id")
    ap.add_argument("--jobs", type=int, default=1, help="judgements at once (default 1)")
    ap.add_argument("--pair-tree", type=Path, help="another release: judge the printers whose text changed")
    ap.add_argument("--mutants", type=int, default=0, metavar="N", help="mutate the first N decided functions")
    ap.add_argument("--unkilled-first", action="store_true",
                    help="judge first the mutants the file's latest records (any engine) did not kill")
    ap.add_argument("--no-functions", action="store_true", help="skip judging the functions (mutants/pairs only)")
    ap.add_argument("--cpu", type=float, default=CPU_LIMIT, help="CPU seconds per judgement (default 60)")
    ap.add_argument("--memory", type=int, default=MEMORY_LIMIT, help="address-space limit per judgement (bytes)")
    ap.add_argument("--only", help="only functions whose path:name contains this")
    ap.add_argument("--list", action="store_true", help="print the functions found and stop")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.tree is None:
        if not (args.report and args.out):
            ap.error("--tree is required unless only a --report of an --out file is asked")
        return write_report(args)
    args.paths = args.paths or DEFAULT_PATHS
    tree = args.tree.resolve()
    printers = find_printers(tree, args.paths)
    if args.only:
        printers = [p for p in printers if args.only in p.key]
    print(f"{tree}: {len(printers)} output functions in {' '.join(args.paths)}", file=sys.stderr, flush=True)
    if args.list or not args.out:
        for p in printers:
            print(f"{p.key}:{p.line}")
        return 0
    engine, commit = engine_identity()
    journal = Journal(args.out, args.resume, engine, commit, args.verbose)
    _warm_up()
    meta = {"tree": tree.name, "paths": args.paths, "cpu": args.cpu, "memory": args.memory,
            "parent_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if not args.no_functions:
        run_phase(journal, "functions", [p.key for p in printers], function_tasks(tree, printers), meta, args)
    if args.mutants:
        base = decided_printers(journal, printers, args.mutants)
        items = list(mutant_tasks(tree, base))
        if args.unkilled_first:
            items = unkilled_first(journal, items)
        run_phase(journal, "mutants", [i.record["id"] if isinstance(i, Task) else i["id"] for i in items], items,
                  {**meta, "base": [p.key for p in base]}, args)
    if args.pair_tree:
        pairs = pair_tasks(tree, args.pair_tree.resolve(), printers, args.paths)
        run_phase(journal, "pairs", [t.record["id"] for t in pairs], pairs,
                  {**meta, "pair_tree": args.pair_tree.resolve().name}, args)
    journal.file.close()
    return write_report(args) if args.report else 0


def write_report(args) -> int:
    text = render_report(with_engines(read_records(args.out.read_text(encoding="latin-1"))), args.engine)
    if str(args.report) == "-":
        sys.stdout.write(text)
    else:
        args.report.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
