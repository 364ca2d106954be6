"""The report's output formats: text (from `fmtcheck.common.text`), JSON (the envelope of
docs/fmtcheck-report.schema.json), and, from `fmtcheck.findings`, gcc, SARIF and GitHub
workflow annotations.
"""

from __future__ import annotations

import os
import sys

from fmtcheck.common.result import Report, RunInfo, json_document
from fmtcheck.common.text import format_result, one_line, summary_line

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import IO


def _use_color(color: str, stream: IO[str]) -> bool:
    if color == "always":
        return True
    if color == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def render_text(report: Report, stream: IO[str] | None = None, color: str = "auto") -> str:
    """The text report; empty when no input could be judged (the errors are on stderr)."""
    if report.errors and not report.results:
        return ""
    stream = stream or sys.stdout
    use = _use_color(color, stream)
    lines: list[str] = []
    for item in in_input_order(report):
        if isinstance(item, tuple):
            lines.append(f"{item[0] or item[1]}: error: {one_line(item[1])}: {one_line(item[2])}")
        else:
            lines.extend(format_result(item, use))
    for note in report.notes:
        lines.append(f"note: {note}")
    lines.append(summary_line(report) + (f", {len(report.errors)} not judged (error)" if report.errors else ""))
    return "\n".join(lines) + "\n"


def in_input_order(report: Report) -> list:
    """Results and errors (tuples) in the order of the inputs they come from, so a bad input is
    reported where it stands on the command line."""
    order = {name: index for index, name in reversed(list(enumerate(report.inputs)))}
    keyed = [(order.get(r.input, 0), 0, n, r) for n, r in enumerate(report.results)]
    keyed += [(order.get(e[0], len(order)), 1, n, e) for n, e in enumerate(report.errors)]
    if not any(r.input for r in report.results):
        keyed = [(0, kind, n, item) for _, kind, n, item in keyed]
    return [item for *_, item in sorted(keyed, key=lambda k: k[:3])]


def render_json(report: Report, info: RunInfo | None = None) -> str:
    import json  # (only the JSON format needs it: not imported by every text report)

    return json.dumps(json_document(report, info), indent=2, ensure_ascii=False) + "\n"


FORMATS = ("text", "json", "gcc", "sarif", "github")


def render(report: Report, fmt: str = "text", color: str = "auto", stream: IO[str] | None = None,
           info: RunInfo | None = None) -> str:
    """The report in one of FORMATS."""
    from fmtcheck import findings

    if fmt == "json":
        return render_json(report, info)
    if fmt == "gcc":
        return findings.render_gcc(report)
    if fmt == "sarif":
        from fmtcheck import __version__

        return findings.render_sarif(report, __version__)
    if fmt == "github":
        return findings.render_github(report) + summary_line(report) + "\n"
    text = render_text(report, stream, color)
    if in_github_actions():
        text += findings.render_github(report)
    return text


def in_github_actions() -> bool:
    """GitHub Actions sets GITHUB_ACTIONS=true: the text report then carries annotations too."""
    return os.environ.get("GITHUB_ACTIONS", "").lower() == "true"


def emit(report: Report, fmt: str = "text", color: str = "auto", stream: IO[str] | None = None,
         info: RunInfo | None = None) -> None:
    stream = stream or sys.stdout
    stream.write(render(report, fmt, color, stream, info))
