"""Reports where reviewers look: `--format gcc` (editors, checkpatch --emacs users), `--format
sarif` (SARIF 2.1.0, GitHub code scanning) and GitHub workflow annotations (``::error ...::``).

All three flatten a `Report` into `Finding`s: one per divergence, placed at the source line of the
call that printed the differing byte on the new side (the old side's line is a related location),
and one per inconclusive result, placed at the line of its construct. A capture's divergence is
placed at its line and column in the capture.
"""

from __future__ import annotations

from fmtcheck.common.plain import factory, plain
from fmtcheck.common.result import Divergence, Report, Result, SourceLine, escape_bytes

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Iterable

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

# what each rule (a divergence kind) means, for SARIF's rule descriptions; unknown kinds get a
# generic text
RULE_TEXT = {
    "inconclusive": "A construct fmtcheck cannot model: neither equivalence nor a divergence is shown.",
    "nul-byte": "The output gains or loses a NUL byte.",
    "newline": "A line break is added, lost or moved: every later line shifts.",
    "header": "A header line differs.",
    "token-merged": "Two tokens lose the whitespace between them and read as one.",
    "token-split": "One token is split in two by new whitespace.",
    "separator-lost": "A separator (':', '|', '/', ',', ';', '=') is lost.",
    "separator-changed": "A separator is replaced by another.",
    "separator-moved": "A separator moves to another place in the line.",
    "field-dropped": "A field is no longer printed.",
    "field-added": "A field is printed that was not before.",
    "fields-swapped": "Two fields are printed in the other order.",
    "value": "A value is printed differently (base, sign, digits).",
    "respelled": "The same value is spelled differently.",
    "tab": "A tab is replaced by spaces or the reverse.",
    "trailing-space": "Whitespace at the end of the line differs.",
    "width": "A column is padded to another width (same values).",
    "output-event": "A call that writes to the seq_file, not modelled, happens differently.",
    "missing-text": "Text is missing.",
    "extra-text": "Text is printed that was not before.",
}


@plain
class Finding:
    """One thing to show at one place: a divergence or an inconclusive result."""

    rule: str
    level: str  # "error" | "warning" | "note"
    message: str
    location: SourceLine
    related: list[tuple[SourceLine, str]] = factory(list)


def findings(report: Report) -> list[Finding]:
    """Every divergence and every inconclusive result of the report, each at one place."""
    out: list[Finding] = []
    for result in report.results:
        for divergence in result.divergences:
            out.append(divergence_finding(result, divergence))
        if result.verdict == "inconclusive":
            out.append(inconclusive_finding(result))
    return out


def divergence_finding(result: Result, d: Divergence) -> Finding:
    where = f"output line {d.line}, column {d.column}" + (f", field {d.field}" if d.field else "")
    message = (f"{result.subject}: {d.severity} divergence ({d.kind}) at {where}: "
               f"expected \"{escape_bytes(d.expected)}\", actual \"{escape_bytes(d.actual)}\"")
    if d.counterexample:
        message += "; counterexample " + ", ".join(f"{k}={_value(v)}" for k, v in d.counterexample.items())
    related = []
    primary = d.new_source or d.old_source
    if d.new_source is not None and d.old_source is not None:
        related.append((d.old_source, "the old side printed this byte here"))
    if primary is None:
        primary = SourceLine(result.input or result.subject, max(d.line, 1), max(d.column, 1))
    level = "error" if d.severity == "breaking" else "warning"
    return Finding(d.kind, level, message, primary, related)


def inconclusive_finding(result: Result) -> Finding:
    location = result.location or SourceLine(result.input or result.subject, 1)
    return Finding("inconclusive", "warning", f"{result.subject}: inconclusive: {result.reason or 'not decided'}",
                   location)


def _value(value: object) -> str:
    if isinstance(value, (bytes, bytearray)):
        return '"' + escape_bytes(bytes(value)) + '"'
    return repr(value)


# --------------------------------------------------------------------------------------------
# gcc


def render_gcc(report: Report) -> str:
    """``FILE:LINE:COL: error: MESSAGE`` per finding, with ``note:`` lines for related places."""
    lines: list[str] = []
    for f in findings(report):
        lines.append(f"{_gcc_place(f.location)}: {f.level}: {f.message} [{f.rule}]")
        for place, text in f.related:
            lines.append(f"{_gcc_place(place)}: note: {text}")
        if f.location.patch and f.location.patch_line:
            lines.append(f"{f.location.patch}:{f.location.patch_line}: note: the patch's line")
    return "".join(line + "\n" for line in lines)


def _gcc_place(place: SourceLine) -> str:
    return f"{place.file}:{place.line}:{place.column or 1}"


# --------------------------------------------------------------------------------------------
# GitHub workflow commands


def render_github(report: Report) -> str:
    """``::error file=F,line=L,col=C,title=T::MESSAGE`` per finding (workflow command syntax:
    properties and message escaped so a value cannot end the command or start another)."""
    lines = []
    for f in findings(report):
        props = [f"file={_gh_property(f.location.file)}", f"line={f.location.line}"]
        if f.location.column:
            props.append(f"col={f.location.column}")
        props.append(f"title={_gh_property('fmtcheck ' + f.rule)}")
        lines.append(f"::{f.level if f.level != 'note' else 'notice'} {','.join(props)}::{_gh_message(f.message)}")
    return "".join(line + "\n" for line in lines)


def _gh_message(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_message(text).replace(":", "%3A").replace(",", "%2C")


# --------------------------------------------------------------------------------------------
# SARIF 2.1.0


def render_sarif(report: Report, version: str) -> str:
    import json  # (only SARIF needs it: not imported by every text report)

    return json.dumps(sarif_log(report, version), indent=2, ensure_ascii=False) + "\n"


def sarif_log(report: Report, version: str) -> dict:
    """One run; one rule per divergence kind that occurs (and ``inconclusive``)."""
    found = findings(report)
    rules = list(dict.fromkeys(f.rule for f in found))
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "fmtcheck",
                "version": version,
                "rules": [_sarif_rule(rule) for rule in rules],
            }},
            "results": [_sarif_result(f, rules.index(f.rule)) for f in found],
            "properties": {"command": report.command, "verdict": report.verdict},
        }],
    }


def _sarif_rule(rule: str) -> dict:
    return {
        "id": rule,
        "name": "".join(part.capitalize() for part in rule.split("-")),
        "shortDescription": {"text": RULE_TEXT.get(rule, f"The output differs ({rule}).")},
        "defaultConfiguration": {"level": "warning" if rule in ("inconclusive", "width") else "error"},
    }


def _sarif_result(f: Finding, index: int) -> dict:
    result = {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": f.level,
        "message": {"text": f.message},
        "locations": [_sarif_location(f.location)],
    }
    if f.related:
        result["relatedLocations"] = [
            dict(_sarif_location(place), id=i, message={"text": text}) for i, (place, text) in enumerate(f.related)
        ]
    return result


def _sarif_location(place: SourceLine) -> dict:
    region = {"startLine": place.line}
    if place.column:
        region["startColumn"] = place.column
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(place.file)}, "region": region}}


def _uri(path: str) -> str:
    """A relative path stays relative (code scanning resolves it against the checkout)."""
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/:@-._~!$&'()*+,;=")


def rules_of(found: Iterable[Finding]) -> list[str]:
    return list(dict.fromkeys(f.rule for f in found))
