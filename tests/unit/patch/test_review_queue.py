"""The review queue (fixtures/plugin/review-queue): twenty patches to real-sized /proc printers,
the default queue of benchmarks/plugin_xdist.py. Their verdicts are pinned here.

Judging the queue costs seconds, not milliseconds (that is its point: the plugin's ``-n 2`` must
have real judging to split), so every patch is judged once, per file as the plugin judges it, with
seed 0 and a small example budget, and the tests below read those reports; the tree is given only
to the patches whose verdict it changes.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from fmtcheck.common.options import Options
from fmtcheck.common.result import Report, json_document
from fmtcheck.patch.plan import check_patches
from _paths import FIXTURES, ROOT

QUEUE = FIXTURES / "plugin" / "review-queue"
TREE = FIXTURES / "plugin" / "review-tree"
MANIFEST = tomllib.loads((QUEUE / "EXPECTED.toml").read_text())["patch"]
NEEDS_TREE = [entry for entry in MANIFEST if "tree_verdict" in entry]


def judge(entry: dict, tree: str | None = None) -> Report:
    return check_patches([str(QUEUE / entry["file"])], Options(seed=0, max_examples=10, tree=tree))


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    """Every patch of the queue judged from its hunks alone, once for the module."""
    return {entry["file"]: judge(entry) for entry in MANIFEST}


@pytest.fixture(scope="module")
def tree_reports() -> dict[str, Report]:
    return {entry["file"]: judge(entry, str(TREE)) for entry in NEEDS_TREE}


def test_the_manifest_names_every_patch_of_the_queue() -> None:
    assert sorted(entry["file"] for entry in MANIFEST) == sorted(p.name for p in QUEUE.glob("*.patch"))
    assert len(MANIFEST) == 20


def test_every_patch_gets_its_expected_verdict(reports: dict[str, Report]) -> None:
    wrong = []
    for entry in MANIFEST:
        (result,) = reports[entry["file"]].results
        got = (result.subject, result.verdict)
        if got != (entry["subject"], entry["verdict"]):
            wrong.append(f"{entry['file']}: {got}, expected {(entry['subject'], entry['verdict'])}")
        elif "kind" in entry and result.divergences[0].kind != entry["kind"]:
            wrong.append(f"{entry['file']}: first divergence {result.divergences[0].kind}, expected {entry['kind']}")
        elif "reason" in entry and entry["reason"] not in (result.reason or ""):
            wrong.append(f"{entry['file']}: reason {result.reason!r} lacks {entry['reason']!r}")
    assert not wrong, "\n".join(wrong)


def test_the_queue_mixes_verdicts(reports: dict[str, Report]) -> None:
    """A reviewer's queue, not a row of passes: each verdict several times."""
    verdicts = [report.results[0].verdict for report in reports.values()]
    assert min(verdicts.count(v) for v in ("equivalent", "divergent", "inconclusive")) >= 4


def test_every_divergence_carries_a_counterexample_at_a_source_line(reports: dict[str, Report]) -> None:
    for name, report in reports.items():
        for divergence in report.results[0].divergences:
            assert divergence.counterexample, name
            assert divergence.old_source is not None or divergence.new_source is not None, name


def test_the_tree_decides_what_the_hunks_cannot(reports: dict[str, Report],
                                                tree_reports: dict[str, Report]) -> None:
    for entry in NEEDS_TREE:
        assert reports[entry["file"]].results[0].verdict == "inconclusive"
        (result,) = tree_reports[entry["file"]].results
        assert (result.subject, result.verdict) == (entry["subject"], entry["tree_verdict"]), entry["file"]


def test_the_reports_validate_against_the_json_schema(reports: dict[str, Report],
                                                      tree_reports: dict[str, Report]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads((ROOT / "docs" / "fmtcheck-report.schema.json").read_text()))
    for name, report in [*reports.items(), *tree_reports.items()]:
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(json_document(report))]
        assert not errors, (name, errors[:3])
