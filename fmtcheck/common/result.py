"""The result objects every command produces, and their JSON form (cli-contract.md).

Lines are bytes end to end; escaping happens only here, when a result becomes JSON, and in
`fmtcheck.report` for text.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
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


@dataclass
class Divergence:
    """One place where the reference and the rewrite (or grammar and capture) differ."""

    line: int  # 1-based line in the rendered output
    column: int  # 1-based byte column
    expected: bytes  # whole reference line, without its newline
    actual: bytes  # whole rewritten line, without its newline
    field: str | None = None
    severity: str = "breaking"  # "breaking" | "cosmetic"
    kind: str = "value"
    counterexample: dict[str, Any] = dc_field(default_factory=dict)
    expected_has_newline: bool = True
    actual_has_newline: bool = True
    note: str | None = None  # e.g. the worst-case input when it differs from the minimal one
    worst: dict[str, Any] | None = None  # extra report for the worst-case input
    rendered: tuple[bytes, bytes] | None = None  # whole old/new outputs of the counterexample (not in JSON)

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
        }
        if self.note:
            data["note"] = self.note
        if self.worst:
            data["worst"] = jsonable(self.worst)
        return data


@dataclass
class Result:
    """The verdict on one subject: a function, a capture, or a pair of captures."""

    subject: str
    verdict: str  # one of VERDICT_ORDER
    method: str | None = None  # "proven" | "tested" | None
    cases: int = 0
    reason: str | None = None
    divergences: list[Divergence] = dc_field(default_factory=list)
    notes: list[str] = dc_field(default_factory=list)
    classes: list[str] = dc_field(default_factory=list)  # input classes covered when tested
    extra: dict[str, Any] = dc_field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {
            "subject": self.subject,
            "verdict": self.verdict,
            "method": self.method,
            "cases": self.cases,
            "reason": self.reason,
            "divergences": [d.to_json() for d in self.divergences],
        }
        if self.notes:
            data["notes"] = list(self.notes)
        if self.classes:
            data["classes"] = list(self.classes)
        data.update(jsonable(self.extra))
        return data


@dataclass
class Report:
    """All results of one command; the overall verdict is the worst of them."""

    command: str
    results: list[Result] = dc_field(default_factory=list)
    notes: list[str] = dc_field(default_factory=list)

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
        data: dict[str, Any] = {
            "command": self.command,
            "verdict": self.verdict,
            "results": [r.to_json() for r in self.results],
        }
        if self.notes:
            data["notes"] = list(self.notes)
        return data
