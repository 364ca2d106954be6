"""`fmtcheck reads`: how read(2) slices seq_file output, in the model and on the running kernel.

Model mode (a capture, or ``--records``): the read() sizes that seq_read() returns for each user
buffer size under the kernel behaviour and under the buffer-filling change ("fill": read() copies
as much as the user buffer holds), with the number of
read() calls, start()/stop() sessions and show() calls; the handed-out stream is compared with the
records' concatenation, and ``--check`` searches (Hypothesis) for a read pattern that breaks it.

Live mode (a path under /proc): real os.read() calls, their sizes, and which behaviour the running
kernel shows. Fill always returns min(N, bytes left); the kernel returns at most one buffer of whole
records. When both predict the same sizes the answer is "indistinguishable".

``--records`` syntax: comma-separated terms, each ``SIZE``, ``COUNTxSIZE`` (COUNT records of SIZE
bytes) or either with ``:skip`` (a record whose show() returns SEQ_SKIP). ``0`` is an empty record.
Example: ``61x66,56,44x66,32`` (7018 bytes), ``100x100``, ``3000``, ``10x100,2x50:skip``.

``--split`` (how a capture is cut into records): ``lines`` (the default), ``file``
(one record, as a single_open file), or ``re:REGEX`` (a record starts at each line matching REGEX,
for example ``re:^[0-9a-f]+-[0-9a-f]+ `` for smaps: one record per VMA).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from fmtcheck.common.errors import InputError, LimitExceeded
from fmtcheck.common.inputfile import read_input
from fmtcheck.common.result import Divergence, Report, Result, jsonable

DEFAULT_BUFSIZE = 131072  # what cat(1) asks for
MAX_BUFSIZE = 1 << 30  # os.read() allocates N bytes up front
MAX_RECORDS = 1_000_000
MAX_TOTAL_BYTES = 64 << 20
MAX_LIVE_BYTES = 256 << 20
MAX_MODEL_READS = 1_000_000
CHECK_MAX_READS = 100_000  # read() calls one --check pattern may make before it stops (inconclusive)
PAGE_SIZE = 4096
LINES_NOTE = "records split by lines"
BEHAVIOURS_LEGEND = ("kernel: seq_read() as Linux has it (at most one buffer of whole records per read()); "
                     "fill: the buffer-filling change (read() copies as much as the user buffer holds)")

_TERM = re.compile(r"\s*(?:(\d+)\s*[xX]\s*)?(\d+)\s*(:skip)?\s*\Z")


# ---------------------------------------------------------------------------------------------
# Input


@dataclass
class RecordSource:
    """Records to model: their show() callables, where they came from, and how they were cut."""

    records: list  # list[Show]
    label: str
    unit: str  # how the records were obtained, said to the reader
    unit_known: bool  # True when the record unit is the file's own (--split, --records)
    data: bytes = b""


def parse_records(text: str) -> list:
    """``--records`` text -> RecordSpec list; bad syntax is an InputError naming the term."""
    from fmtcheck.kernel.seq_read import RecordSpec

    specs: list = []
    total = 0
    for term in text.split(","):
        match = _TERM.match(term) if len(term) <= 40 else None
        if not match:
            raise InputError("--records", f"{term.strip()!r}: expected SIZE, COUNTxSIZE or SIZE:skip (e.g. 100x100,4082,2936)")
        count = int(match.group(1)) if match.group(1) is not None else 1
        size, skip = int(match.group(2)), bool(match.group(3))
        if count == 0:
            raise InputError("--records", f"{term.strip()!r}: COUNT must be at least 1")
        total += count * size
        if len(specs) + count > MAX_RECORDS or total > MAX_TOTAL_BYTES:
            raise InputError("--records", f"more than {MAX_RECORDS} records or {MAX_TOTAL_BYTES} bytes")
        specs.extend([RecordSpec(size, skip)] * count)
    return specs


def check_bufsizes(values: Sequence[int] | None) -> list[int]:
    """The user buffer sizes to try (default: cat's 128 KiB); each must be 1..1 GiB."""
    sizes = list(values or [DEFAULT_BUFSIZE])
    for n in sizes:
        if n <= 0:
            raise InputError("--bufsize", f"{n}: must be a positive number of bytes")
        if n > MAX_BUFSIZE:
            raise InputError("--bufsize", f"{n}: larger than {MAX_BUFSIZE} bytes")
    return sizes


def split_records(data: bytes, mode: str) -> list[bytes]:
    """Cut captured output into records: by ``lines``, as one ``file`` record, or ``re:REGEX``."""
    if mode == "file":
        return [data] if data else []
    lines = data.splitlines(keepends=True)
    if mode == "lines":
        return lines
    if not mode.startswith("re:"):
        raise InputError("--split", f"{mode!r}: expected lines, file or re:REGEX")
    try:
        starts = re.compile(mode[3:].encode())
    except re.error as err:
        raise InputError("--split", f"bad regular expression: {err}") from None
    records: list[bytes] = []
    for line in lines:
        if not records or starts.match(line):
            records.append(line)
        else:
            records[-1] += line
    return records


def records_from_capture(data: bytes, source: str, split: str | None) -> RecordSource:
    """Records of captured bytes: --split if given, else lines (no grammar knows which show() call
    printed which bytes, so none gives a record unit)."""
    from fmtcheck.kernel.seq_read import records_from_chunks

    if split:
        chunks = split_records(data, split)
        return RecordSource(records_from_chunks(chunks), source, f"records split by --split {split}", True, data)
    chunks = split_records(data, "lines")
    note = f"{LINES_NOTE}: the file's own record unit is not known (--split sets it)"
    return RecordSource(records_from_chunks(chunks), source, note, False, data)


def read_capture(path: str) -> bytes:
    """The bytes of a capture file, or an InputError naming it."""
    return read_input(path, MAX_TOTAL_BYTES, "capture file")


def is_live(source: str | None, model: bool) -> bool:
    """A path under /proc is read live unless --model says to treat it as a capture."""
    return bool(source) and not model and os.path.abspath(source).startswith("/proc/")


# ---------------------------------------------------------------------------------------------
# Model


@dataclass
class BehaviourRun:
    """One behaviour reading the records with one user buffer size until EOF."""

    behaviour: str
    sizes: list[int]
    sessions: int
    show_calls: int
    buffer_size: int
    stream_identical: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "sizes": self.sizes,
            "read_calls": len(self.sizes),
            "sessions": self.sessions,
            "show_calls": self.show_calls,
            "buffer_size": self.buffer_size,
            "stream_identical": self.stream_identical,
        }


def run_behaviour(records: Sequence, bufsize: int, behaviour: str) -> BehaviourRun:
    """Read RECORDS with read(BUFSIZE) until EOF under BEHAVIOUR, counting what it cost."""
    from fmtcheck.kernel.seq_read import SeqFileReader, expected_stream, read_all

    reader = SeqFileReader(records, behaviour)
    chunks = read_all(reader, [bufsize])
    return BehaviourRun(
        behaviour,
        [len(c) for c in chunks],
        reader.start_calls,
        reader.show_calls,
        reader.size,
        b"".join(chunks) == expected_stream(records),
    )


def model_result(src: RecordSource, bufsize: int) -> tuple[Result, list[BehaviourRun]]:
    """Read sizes for both behaviours at one buffer size; divergent if a stream differs."""
    from fmtcheck.kernel.seq_read import BEHAVIOURS, expected_stream

    runs = [run_behaviour(src.records, bufsize, b) for b in BEHAVIOURS]
    total = len(expected_stream(src.records))
    identical = all(r.stream_identical for r in runs)
    result = Result(
        subject=f"{src.label} read({bufsize})",
        verdict="equivalent" if identical else "divergent",
        method="tested",
        cases=len(runs),
        extra={
            "mode": "model",
            "bufsize": bufsize,
            "records": len(src.records),
            "bytes": total,
            "record_unit": src.unit,
            "behaviours": {r.behaviour: r.to_json() for r in runs},
        },
    )
    return result, runs


# ---------------------------------------------------------------------------------------------
# --check


def check_results(src: RecordSource, bufsizes: Sequence[int], seed: int, max_examples: int) -> list[Result]:
    """Stream property per behaviour: these records read in several patterns, then a Hypothesis
    search over record lengths around S-1/S/S+1, empty and skipped records, and N from 1 to 256 KiB."""
    from fmtcheck.kernel.seq_read import BEHAVIOURS

    return [_check_one(src, bufsizes, b, seed, max_examples) for b in BEHAVIOURS]


def _patterns(bufsizes: Sequence[int], total: int) -> list[tuple[list[int], tuple[int, int, str] | None]]:
    """Read patterns for the given records: each N, 1 byte then N, and a reread from offset 0."""
    out: list[tuple[list[int], tuple[int, int, str] | None]] = []
    for n in bufsizes:
        out.append(([n], None))
        out.append(([1, n], None))
        out.append(([n], (1, 0, "lseek")))
        out.append(([n], (1, total // 2, "pread")))
    return out


def _check_one(src: RecordSource, bufsizes: Sequence[int], behaviour: str, seed: int, max_examples: int) -> Result:
    from fmtcheck.kernel.seq_read import (
        check_stream,
        expected_stream,
        find_stream_counterexample,
    )

    total = len(expected_stream(src.records))
    cases = 0
    try:
        for sizes, reposition in _patterns(bufsizes, total):
            cases += 1
            found = check_stream(src.records, behaviour, sizes, None, reposition, CHECK_MAX_READS)
            if found is not None:
                found.update(records=src.label, read_sizes=sizes, reposition=reposition, behaviour=behaviour)
                return _divergent(behaviour, cases, found)
        outcome = find_stream_counterexample(behaviour, seed=seed, max_examples=max_examples)
    except LimitExceeded as limit:
        return Result(
            subject=f"stream property ({behaviour})",
            verdict="inconclusive",
            cases=cases,
            reason=f"{limit.what}: the check stopped at its read-call limit, not at a wrong byte",
            extra={"behaviour": behaviour, "seed": seed},
        )
    cases += outcome.cases
    if outcome.counterexample is not None:
        return _divergent(behaviour, cases, outcome.counterexample)
    return Result(
        subject=f"stream property ({behaviour})",
        verdict="equivalent",
        method="tested",
        cases=cases,
        classes=[
            "the given records at each --bufsize (plain, 1 byte first, reread from 0, pread mid-stream)",
            "record lengths 0, S-1, S, S+1 (S = 4096, 8192) and random up to 9000",
            "skipped (SEQ_SKIP) records",
            "write/puts/putc/printf/ull/hex overflow rules",
            "read sizes 1 byte to 256 KiB",
            "lseek/pread to offset 0 and mid-stream",
        ],
        extra={"behaviour": behaviour, "seed": seed},
    )


def _divergent(behaviour: str, cases: int, found: dict[str, Any]) -> Result:
    return Result(
        subject=f"stream property ({behaviour})",
        verdict="divergent",
        method="tested",
        cases=cases,
        divergences=[stream_divergence(found)],
        extra={"behaviour": behaviour},
    )


def stream_divergence(found: dict[str, Any]) -> Divergence:
    """The first byte where the handed-out stream differs, as a line/column divergence."""
    expected, actual = found.pop("expected"), found.pop("actual")
    first = found["first_difference"]
    line = expected.count(b"\n", 0, first) + 1
    column = first - (expected.rfind(b"\n", 0, first) + 1) + 1
    exp_line = _line_at(expected, line)
    act_line = _line_at(actual, line)
    kind = "missing-text" if len(actual) < len(expected) else "extra-text" if len(actual) > len(expected) else "value"
    return Divergence(
        line=line,
        column=column,
        expected=exp_line[0],
        actual=act_line[0],
        severity="breaking",
        kind=kind,
        counterexample=found,
        expected_has_newline=exp_line[1],
        actual_has_newline=act_line[1],
    )


def _line_at(data: bytes, line: int) -> tuple[bytes, bool]:
    lines = data.split(b"\n")
    if line > len(lines):
        return b"", False
    return lines[line - 1], line < len(lines)


# ---------------------------------------------------------------------------------------------
# Live


def live_read(path: str, bufsize: int) -> tuple[bytes, list[int]]:
    """Open PATH and os.read(BUFSIZE) until EOF: the bytes and each call's size (ending with 0)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as err:
        raise InputError(path, err.strerror or str(err)) from None
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            chunk = os.read(fd, bufsize)
            chunks.append(chunk)
            total += len(chunk)
            if not chunk:
                break
            if total > MAX_LIVE_BYTES:
                raise LimitExceeded(path, f"more than {MAX_LIVE_BYTES} bytes without EOF")
            if len(chunks) > MAX_MODEL_READS:
                raise LimitExceeded(path, f"more than {MAX_MODEL_READS} read() calls without EOF")
    except OSError as err:
        raise InputError(path, err.strerror or str(err)) from None
    finally:
        os.close(fd)
    return b"".join(chunks), [len(c) for c in chunks]


@dataclass
class LiveVerdict:
    """Which behaviour the observed sizes show, the model predictions, and why."""

    behaviour: str  # "kernel" | "fill" | "indistinguishable" | "unknown"
    reason: str
    kernel: list[int]
    fill: list[int]
    notes: list[str] = field(default_factory=list)


def classify_live(src: RecordSource, observed: list[int], bufsize: int) -> LiveVerdict:
    """Compare observed read() sizes with the model's kernel and fill predictions."""
    from fmtcheck.kernel.seq_read import fill_prediction, read_sizes

    fill = fill_prediction(len(src.data), bufsize)
    kernel = read_sizes(src.records, bufsize, "kernel")
    if observed == fill and observed == kernel:
        return LiveVerdict("indistinguishable", _same_prediction_reason(len(src.data), bufsize), kernel, fill)
    if observed != fill:
        return _not_fill(src, observed, bufsize, kernel, fill)
    reason = (f"every read returned min(N, bytes left), as buffer-filling reads do; whole-record reads would "
              f"give {show_sizes(kernel)}")
    verdict = LiveVerdict("fill", reason, kernel, fill)
    if not src.unit_known:
        verdict.notes.append(
            "this assumes records no larger than a line: a single-record (single_open) file over "
            f"{PAGE_SIZE - 1} bytes gives the same sizes under the kernel behaviour; use --split to say"
        )
    return verdict


def _same_prediction_reason(total: int, bufsize: int) -> str:
    if total < PAGE_SIZE:
        return (
            f"both models predict these sizes: the whole file ({total} bytes) fits in one {PAGE_SIZE}-byte "
            "buffer, so it cannot tell them apart (a file larger than one buffer can)"
        )
    if bufsize < PAGE_SIZE:
        return f"both models predict these sizes: with N = {bufsize} below the buffer size every read is full either way"
    return "both models predict these sizes"


def _not_fill(src: RecordSource, observed: list[int], bufsize: int, kernel: list[int], fill: list[int]) -> LiveVerdict:
    """A short read rules fill out; it is the kernel behaviour if the reads look like whole records."""
    k, left = _first_short_read(observed, bufsize, len(src.data))
    evidence = (
        f"read {k + 1} returned {observed[k]} bytes with {left} left and N = {bufsize}; "
        "fill always returns min(N, bytes left)"
    )
    if observed == kernel:
        return LiveVerdict("kernel", f"{evidence}; whole-record reads give exactly these sizes", kernel, fill)
    if _short_reads_end_lines(src.data, observed, bufsize):
        verdict = LiveVerdict("kernel", f"{evidence}; each short read ends at a line end, as whole records do", kernel, fill)
        verdict.notes.append(
            f"whole-record reads with {_unit_name(src)} would give {show_sizes(kernel)}: the file's records are not "
            "cut that way (e.g. smaps: one per VMA; --split re:REGEX gives exact sizes)"
        )
        return verdict
    return LiveVerdict("unknown", f"{evidence}, yet the reads do not end on record (line) boundaries", kernel, fill)


def _unit_name(src: RecordSource) -> str:
    return "records split by lines" if not src.unit_known else src.unit


def _first_short_read(observed: list[int], bufsize: int, total: int) -> tuple[int, int]:
    left = total
    for k, n in enumerate(observed):
        if n < min(bufsize, left):
            return k, left
        left -= n
    return len(observed) - 1, left


def _short_reads_end_lines(data: bytes, observed: list[int], bufsize: int) -> bool:
    pos = 0
    for n in observed:
        pos += n
        if 0 < n < bufsize and pos < len(data) and data[pos - 1 : pos] != b"\n":
            return False
    return True


def live_result(path: str, bufsize: int, split: str | None) -> tuple[Result, RecordSource, LiveVerdict, list[int]]:
    """Read PATH live with one buffer size and say which behaviour it shows."""
    data, observed = live_read(path, bufsize)
    src = records_from_capture(data, path, split)
    verdict = classify_live(src, observed, bufsize)
    result = Result(
        subject=f"{path} read({bufsize})",
        verdict="inconclusive" if verdict.behaviour == "unknown" else "nothing-to-check",
        reason=verdict.reason if verdict.behaviour == "unknown" else None,
        notes=list(verdict.notes),
        extra={
            "mode": "live",
            "bufsize": bufsize,
            "bytes": len(data),
            "sizes": observed,
            "read_calls": len(observed),
            "behaviour": verdict.behaviour,
            "why": verdict.reason,
            "predicted": {"kernel": verdict.kernel, "fill": verdict.fill},
            "record_unit": src.unit,
            "records": len(src.records),
            "kernel_release": platform.release(),
        },
    )
    return result, src, verdict, observed


def overall_behaviour(behaviours: Sequence[str]) -> str:
    """One answer over several buffer sizes: a decided behaviour wins over indistinguishable."""
    decided = {b for b in behaviours if b != "indistinguishable"}
    if not decided:
        return "indistinguishable"
    return decided.pop() if len(decided) == 1 else "unknown"


# ---------------------------------------------------------------------------------------------
# Text


def show_sizes(sizes: Sequence[int], limit: int = 12) -> str:
    """Sizes with runs folded ("4000 x2, 2000, 0") and long lists elided in the middle."""
    runs: list[str] = []
    i = 0
    while i < len(sizes):
        j = i
        while j < len(sizes) and sizes[j] == sizes[i]:
            j += 1
        runs.append(f"{sizes[i]} x{j - i}" if j - i > 1 else str(sizes[i]))
        i = j
    if len(runs) > limit:
        runs = runs[: limit - 3] + ["..."] + runs[-2:]
    return ", ".join(runs)


def _model_text(src: RecordSource, runs_by_n: list[tuple[int, list[BehaviourRun]]]) -> list[str]:
    from fmtcheck.kernel.seq_read import expected_stream

    total = len(expected_stream(src.records))
    lines = [f"{src.label}: {len(src.records)} records, {total} bytes; {src.unit}; buffer starts at {PAGE_SIZE} bytes",
             BEHAVIOURS_LEGEND]
    for n, runs in runs_by_n:
        lines.append(f"read({n}):")
        for r in runs:
            lines.append(
                f"  {r.behaviour:<7} {show_sizes(r.sizes)}  ({len(r.sizes)} read() calls, {r.sessions} start/stop "
                f"sessions, {r.show_calls} show() calls, buffer {r.buffer_size})"
            )
        saved = len(runs[0].sizes) - len(runs[-1].sizes)
        same = all(r.stream_identical for r in runs)
        lines.append(
            f"  {runs[-1].behaviour} saves {saved} read() call(s); streams "
            + ("byte-identical to the records" if same else "DIFFER from the records")
        )
    return lines


def _check_text(results: Sequence[Result]) -> list[str]:
    from fmtcheck.common.text import format_divergence

    lines = []
    for r in results:
        if r.verdict == "inconclusive":
            lines.append(f"{r.subject}: inconclusive ({r.cases} cases): {r.reason}")
            continue
        lines.append(f"{r.subject}: {r.verdict}, {r.method} ({r.cases} cases)")
        for d in r.divergences:
            lines.extend(format_divergence(d))
    return lines


def _live_text(path: str, rows: list[tuple[int, RecordSource, LiveVerdict, list[int]]], overall: str) -> list[str]:
    lines = []
    for n, src, verdict, observed in rows:
        lines.append(f"{path}: {len(src.data)} bytes, {len(src.records)} records; {src.unit}")
        lines.append(f"read({n}) live:   {show_sizes(observed)}  ({len(observed)} read() calls)")
        lines.append(f"  whole records per read (kernel): {show_sizes(verdict.kernel)}")
        lines.append(f"  buffer filled per read (fill):   {show_sizes(verdict.fill)}")
        lines.append(f"  behaviour: {verdict.behaviour}: {verdict.reason}")
        lines.extend(f"  note: {note}" for note in verdict.notes)
    lines.append(f"running kernel {platform.release()}: {overall}" + _overall_gloss(overall))
    return lines


def _overall_gloss(overall: str) -> str:
    return {
        "kernel": " (at most one buffer of whole records per read(), not the buffer-filling change)",
        "fill": " (read() fills the user buffer: the buffer-filling change)",
        "indistinguishable": " on this file (both behaviours give the same sizes)",
        "unknown": " (the sizes match neither model)",
    }[overall]


# ---------------------------------------------------------------------------------------------
# Command


def reads_command(args: argparse.Namespace) -> int:
    """`fmtcheck reads`: print read() sizes (model or live) and return the exit status."""
    bufsizes = check_bufsizes(args.bufsize)
    if args.source and args.records:
        raise InputError("reads", "give a SOURCE or --records, not both")
    if not args.source and not args.records:
        raise InputError("reads", "give a /proc path, a capture file, or --records SIZES")
    if getattr(args, "max_examples", 200) < 1:
        raise InputError("--max-examples", "must be at least 1")
    if args.split:
        if args.records:
            raise InputError("--split", "cuts a capture or /proc file into records; --records already gives them")
        split_records(b"", args.split)  # reject a bad MODE before reading anything
    if is_live(args.source, args.model):
        return _live_command(args, bufsizes)
    return _model_command(args, bufsizes)


def _model_source(args: argparse.Namespace) -> RecordSource:
    from fmtcheck.kernel.seq_read import records_from_specs

    if args.records:
        specs = parse_records(args.records)
        return RecordSource(records_from_specs(specs), f"--records {args.records}", "synthetic records", True)
    data = read_capture(args.source)
    if len(data) > MAX_TOTAL_BYTES:
        raise InputError(args.source, f"larger than {MAX_TOTAL_BYTES} bytes")
    return records_from_capture(data, args.source, args.split)


def _model_command(args: argparse.Namespace, bufsizes: list[int]) -> int:
    src = _model_source(args)
    _refuse_too_many_reads(src, bufsizes)
    report = Report(command="reads")
    runs_by_n = []
    for n in bufsizes:
        result, runs = model_result(src, n)
        report.results.append(result)
        runs_by_n.append((n, runs))
    checks = check_results(src, bufsizes, args.seed, args.max_examples) if args.check else []
    report.results.extend(checks)
    if not src.unit_known:
        report.notes.append(src.unit)
    lines = _model_text(src, runs_by_n) + _check_text(checks)
    return _emit(report, args, lines)


def _refuse_too_many_reads(src: RecordSource, bufsizes: Sequence[int]) -> None:
    """Modelling millions of read() calls takes minutes; say so instead."""
    from fmtcheck.kernel.seq_read import expected_stream

    total = len(expected_stream(src.records))
    for n in bufsizes:
        if total // n > MAX_MODEL_READS:
            raise LimitExceeded("--bufsize", f"{n}: {total} bytes would take over {MAX_MODEL_READS} read() calls to model")


def _live_command(args: argparse.Namespace, bufsizes: list[int]) -> int:
    report = Report(command="reads")
    rows = []
    for n in bufsizes:
        result, src, verdict, observed = live_result(args.source, n, args.split)
        report.results.append(result)
        rows.append((n, src, verdict, observed))
    overall = overall_behaviour([v.behaviour for _, _, v, _ in rows])
    report.notes.append(f"running kernel {platform.release()}: {overall}")
    checks = check_results(rows[-1][1], bufsizes, args.seed, args.max_examples) if args.check else []
    report.results.extend(checks)
    lines = _live_text(args.source, rows, overall) + _check_text(checks)
    extra = {"behaviour": overall, "kernel_release": platform.release()}
    code = _emit(report, args, lines, extra, summary=bool(checks))
    return 3 if overall == "unknown" and code == 0 else code


def _emit(
    report: Report, args: argparse.Namespace, lines: list[str], extra: dict[str, Any] | None = None, summary: bool = True
) -> int:
    """Print the report (JSON) or LINES (text, with the verdict summary when there is a verdict);
    nothing with --quiet."""
    if getattr(args, "quiet", False):
        return report.exit_code()
    if args.format == "json":
        import json

        from fmtcheck.common.result import RunInfo, json_document

        options = {"max_examples": args.max_examples}
        inputs = [args.source] if args.source else []
        data = json_document(report, RunInfo(report.exit_code(), args.seed, options, inputs))
        data.update(jsonable(extra or {}))
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        from fmtcheck.common.text import summary_line

        sys.stdout.write("\n".join(lines + ([summary_line(report)] if summary else [])) + "\n")
    return report.exit_code()
