"""The report's output formats: text (from `fmtcheck.common.text`) and JSON.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO

from fmtcheck.common.result import Report
from fmtcheck.common.text import format_result, summary_line


def _use_color(color: str, stream: IO[str]) -> bool:
    if color == "always":
        return True
    if color == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def render_text(report: Report, stream: IO[str] | None = None, color: str = "auto") -> str:
    stream = stream or sys.stdout
    use = _use_color(color, stream)
    lines: list[str] = []
    for r in report.results:
        lines.extend(format_result(r, use))
    for note in report.notes:
        lines.append(f"note: {note}")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def emit(report: Report, fmt: str = "text", color: str = "auto", stream: IO[str] | None = None) -> None:
    stream = stream or sys.stdout
    stream.write(render_json(report) if fmt == "json" else render_text(report, stream, color))
