"""One printer written as a template with words each side fills in (`PRINT`, `CASES`): the
one result of verify_sources on the two fillings, and the check that a proof decided it."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources


def judge(template: str, old: dict[str, str], new: dict[str, str]):
    """The one result of the template with each side's words put in."""
    def fill(words: dict[str, str]) -> str:
        text = template
        for word, code in words.items():
            text = text.replace(word, code)
        return text

    report = verify_sources(fill(old), fill(new), Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def assert_proven(result) -> None:
    assert result.verdict == "equivalent", result.reason
    assert result.extra.get("decided_by") == "proof"
