"""`--consumers`: run real /proc parsers on the old and the new rendering and attach the matrix.

For `verify` and `patch` the renderings are the whole outputs of each divergence's counterexample
(wrapped into a file the parsers accept, the same wrapping on both sides); for `diff` they are the
two captures. The consumers are an optional extra: without them the report says what to install.
"""

from __future__ import annotations

from pathlib import Path

from fmtcheck.common.inputfile import read_input
from fmtcheck.common.result import Report, Result

MAX_CAPTURE_BYTES = 256 << 20  # as `diff` without a grammar


def attach_consumers(report: Report, captures: tuple[str, str] | None = None) -> None:
    """Add a consumer matrix to every divergent result (or to the diff of two captures)."""
    from fmtcheck.impact.consumers import (
        consumers_available,
        format_matrix,
        guess_proc_file,
        run_consumers,
    )

    ok, why = consumers_available()
    if not ok:
        report.notes.append(f"--consumers: {why}")
        return
    if captures is not None:
        old, new = (read_input(p, MAX_CAPTURE_BYTES, "capture")[:MAX_CAPTURE_BYTES] for p in captures)
        proc_file = guess_proc_file(None, old) or _from_path(captures[0])
        for result in report.results:
            _attach(result, run_consumers(proc_file, old, new, wrap=False), format_matrix)
        return
    for result in report.results:
        if not result.divergences:
            continue
        div = result.divergences[0]
        if not div.rendered:
            continue
        old, new = div.rendered
        function = result.subject.rsplit(":", 1)[-1]
        proc_file = guess_proc_file(function, old)
        if proc_file is None:
            result.notes.append("consumers: could not tell which /proc file this output belongs to")
            continue
        _attach(result, run_consumers(proc_file, old, new), format_matrix)


def _attach(result: Result, outcomes, format_matrix) -> None:
    result.extra["consumers"] = [o.to_json() for o in outcomes]
    result.notes.append("consumers, on the counterexample:")
    result.notes.extend("  " + line for line in format_matrix(outcomes))


def _from_path(path: str) -> str | None:
    parts = Path(path).parts
    if "proc" in parts:
        rest = parts[parts.index("proc") + 1:]
        if rest and (rest[0].isdigit() or rest[0] == "self"):
            return "pid/" + "/".join(rest[1:])
        return "/".join(rest)
    return None
