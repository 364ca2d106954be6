"""The result objects every command produces, and their JSON form (cli-contract.md).

Lines are bytes end to end; escaping happens only here, when a result becomes JSON, and in
`fmtcheck.report` for text.
"""

from __future__ import annotations

from fmtcheck.common.plain import factory, plain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Any

VERDICT_ORDER = ("nothing-to-check", "equivalent", "inconclusive", "divergent")
EXIT_CODES = {"nothing-to-check": 0, "equivalent": 0, "inconclusive": 3, "divergent": 1}


def escape_bytes(data: bytes) -> str:
    """Printable ASCII as itself, everything else as a C-style escape (\\t, \\n, \\0, \\xHH)."""
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        elif b == 0x09:
            out.append("\\t")
        elif b == 0x0A:
            out.append("\\n")
        elif b == 0x0D:
            out.append("\\r")
        elif b == 0:
            out.append("\\0")
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def jsonable(value: Any) -> Any:
    """Counterexample values as JSON: ints stay ints, bytes become escaped strings."""
    if isinstance(value, (bytes, bytearray)):
        return escape_bytes(bytes(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


SCHEMA_VERSION = 2  # of docs/fmtcheck-report.schema.json; bumped when keys are added


@plain(frozen=True)
class SourceLine:
    """A line of a file the user gave: a C source, the file a patch changes (pre-image line for
    the old side, post-image line for the new side) or a capture. For a patch, `patch` and
    `patch_line` are the patch file and its own line; `column` is 1-based, in bytes."""

    file: str
    line: int
    column: int | None = None
    patch: str | None = None
    patch_line: int | None = None

    @classmethod
    def from_where(cls, where: str | None, files: "tuple[str, ...] | list[str]") -> "SourceLine | None":
        """The place an engine `where` names (``FILE:LINE`` or ``FILE:LINE:COLUMN``), for one of
        the given file labels; None when it names no line of them (``engine``, ``seq_file``)."""
        if not where:
            return None
        for name in sorted(files, key=len, reverse=True):
            if not where.startswith(name + ":"):
                continue
            parts = where[len(name) + 1:].split(":")
            if not parts[0].isdigit() or int(parts[0]) < 1:
                continue
            column = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and int(parts[1]) > 0 else None
            return cls(name, int(parts[0]), column)
        return None

    @classmethod
    def first_in(cls, text: str | None, files: "tuple[str, ...] | list[str]") -> "SourceLine | None":
        """The first ``FILE:LINE`` a message names, for one of the given file labels."""
        import re

        found = [m for name in files for m in re.finditer(re.escape(name) + r":\d+(?::\d+)?", text or "")]
        for match in sorted(found, key=lambda m: (m.start(), -len(m.group(0)))):
            place = cls.from_where(match.group(0), files)
            if place is not None:
                return place
        return None

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}"
        if self.patch and self.patch_line:
            text += f" ({self.patch}:{self.patch_line})"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column,
                "patch": self.patch, "patch_line": self.patch_line}


def _location_json(where: SourceLine | None) -> dict[str, Any] | None:
    return where.to_json() if where is not None else None


@plain
class Divergence:
    """One place where the reference and the rewrite (or grammar and capture) differ."""

    line: int  # 1-based line in the rendered output
    column: int  # 1-based byte column
    expected: bytes  # whole reference line, without its newline
    actual: bytes  # whole rewritten line, without its newline
    field: str | None = None
    severity: str = "breaking"  # "breaking" | "cosmetic"
    kind: str = "value"
    counterexample: dict[str, Any] = factory(dict)
    expected_has_newline: bool = True
    actual_has_newline: bool = True
    note: str | None = None  # e.g. the worst-case input when it differs from the minimal one
    worst: dict[str, Any] | None = None  # extra report for the worst-case input
    rendered: tuple[bytes, bytes] | None = None  # whole old/new outputs of the counterexample (not in JSON)
    # the source line of the call that printed the differing byte, on each side
    old_source: SourceLine | None = None
    new_source: SourceLine | None = None

    def to_json(self) -> dict[str, Any]:
        data = {
            "line": self.line,
            "column": self.column,
            "expected": escape_bytes(self.expected),
            "actual": escape_bytes(self.actual),
            "field": self.field,
            "severity": self.severity,
            "kind": self.kind,
            "counterexample": jsonable(self.counterexample),
            "note": self.note,
            "worst": jsonable(self.worst) if self.worst else None,
            "source": {"old": _location_json(self.old_source), "new": _location_json(self.new_source)},
        }
        return data


@plain
class Result:
    """The verdict on one subject: a function, a capture, or a pair of captures."""

    subject: str
    verdict: str  # one of VERDICT_ORDER
    method: str | None = None  # "proven" | "tested" | None
    cases: int = 0
    reason: str | None = None
    divergences: list[Divergence] = factory(list)
    notes: list[str] = factory(list)
    classes: list[str] = factory(list)  # input classes covered when tested
    extra: dict[str, Any] = factory(dict)
    location: SourceLine | None = None  # for an inconclusive result: the line of its construct
    input: str | None = None  # the command-line input it comes from

    def to_json(self) -> dict[str, Any]:
        data = {
            "subject": self.subject,
            "verdict": self.verdict,
            "method": self.method,
            "cases": self.cases,
            "reason": self.reason,
            "location": _location_json(self.location),
            "divergences": [d.to_json() for d in self.divergences],
            "notes": list(self.notes),
            "classes": list(self.classes),
            "input": self.input,
        }
        data.update(jsonable(self.extra))
        return data


@plain
class Report:
    """All results of one command; the overall verdict is the worst of them."""

    command: str
    results: list[Result] = factory(list)
    notes: list[str] = factory(list)
    # inputs that could not be read or judged: (input, where, what, exit status), in order
    errors: list[tuple[str | None, str, str, int]] = factory(list)
    inputs: list[str] = factory(list)

    @property
    def verdict(self) -> str:
        """The worst verdict; results of a superseded version of a patch do not count (the newest
        version of a thread decides) unless nothing else is there."""
        deciding = self.deciding_results()
        if not deciding:
            return "nothing-to-check"
        return max((r.verdict for r in deciding), key=VERDICT_ORDER.index)

    def deciding_results(self) -> list[Result]:
        """The results the exit status comes from: all but those of superseded patch versions."""
        return [r for r in self.results if not r.extra.get("superseded_by")] or self.results

    def exit_code(self, fail_on: str = "any") -> int:
        """As diff(1): trouble with an input (2) wins over a divergence, which wins over
        inconclusive (3)."""
        if any(status == 2 for *_, status in self.errors):
            return 2
        code = self._verdict_code(fail_on)
        if code == 0 and self.errors:
            return 3
        return code

    def _verdict_code(self, fail_on: str) -> int:
        verdict = self.verdict
        if verdict == "divergent" and fail_on == "breaking":
            breaking = any(
                d.severity == "breaking" for r in self.deciding_results() for d in r.divergences
            )
            if not breaking:
                others = [r.verdict for r in self.deciding_results() if r.verdict != "divergent"]
                return 3 if "inconclusive" in others else 0
        return EXIT_CODES[verdict]

    def to_json(self) -> dict[str, Any]:
        """The results and notes; `json_document` adds the envelope (schema,
        version, seed, options, exit status)."""
        verdict = self.verdict if self.results or not self.errors else "error"
        return {
            "command": self.command,
            "verdict": verdict,
            "results": [r.to_json() for r in self.results],
            "notes": list(self.notes),
            "errors": [{"input": i, "where": w, "what": t, "exit_status": c} for i, w, t, c in self.errors],
        }


@plain
class RunInfo:
    """What the JSON envelope says about the run besides its results."""

    exit_status: int = 0
    seed: int | None = None
    options: dict[str, Any] = factory(dict)
    inputs: list[str] = factory(list)


OPTION_KEYS = ("max_examples", "fail_on", "function", "grammar", "tree", "consumers")


def json_document(report: Report, info: RunInfo | None = None) -> dict[str, Any]:
    """The whole JSON report: schema version, tool version, seed, options, then the results."""
    from fmtcheck import __version__

    info = info or RunInfo(exit_status=report.exit_code())
    options = {key: info.options.get(key) for key in OPTION_KEYS}
    options["consumers"] = bool(options["consumers"])
    body = report.to_json()
    return {
        "schema": SCHEMA_VERSION,
        "fmtcheck": __version__,
        "command": body.pop("command"),
        "verdict": body.pop("verdict"),
        "exit_status": info.exit_status,
        "seed": info.seed,
        "options": options,
        "inputs": list(info.inputs or report.inputs),
        **body,
    }
