"""Patch files collected as tests: one item per checked function, verdicts as pytest outcomes.

The queue in fixtures/plugin/queue holds one patch per verdict (equivalent, divergent,
nothing-to-check, inconclusive); every test here runs a real pytest session over a copy of it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

QUEUE_OUTCOMES = {"passed": 1, "failed": 1, "skipped": 1, "xfailed": 1}
DIVERGENT_LINE = "actual:   ······:········0"  # the width-8 counter, spaces made visible
EQUIVALENT_ID = "queue/0001-equivalent.patch::drivers/foo/foo_proc.c:foo_show"
DIVERGENT_ID = "queue/0002-divergent.patch::drivers/foo/foo_proc.c:foo_show"


def _ini(pytester: pytest.Pytester, body: str = "fmtcheck_patches = queue/") -> None:
    pytester.makeini(f"[pytest]\n{body}\n")


def test_ini_queue_gives_one_outcome_per_verdict(workdir: pytest.Pytester) -> None:
    """The review workflow: pytest.ini names the queue, a bare `pytest` judges it."""
    _ini(workdir)
    result = workdir.runpytest("-rA")
    result.assert_outcomes(**QUEUE_OUTCOMES)
    result.stdout.fnmatch_lines([
        f"PASSED {EQUIVALENT_ID}",
        "SKIPPED * queue/0003-nothing-to-check.patch*touches no output code*",
        "XFAIL queue/0004-inconclusive.patch::drivers/foo/foo_peer.c:foo_peer_show*%pI4*",
        f"FAILED {DIVERGENT_ID}*",
    ])


def test_failure_is_the_report_with_visible_whitespace(workdir: pytest.Pytester) -> None:
    """A reviewer reads the fmtcheck report, not a Python traceback."""
    _ini(workdir)
    result = workdir.runpytest()
    text = result.stdout.str()
    assert DIVERGENT_LINE in text
    assert "expected: ······:·······0" in text
    assert "line 1, column 15, field f->count: cosmetic (width)" in text
    assert "counterexample: all inputs 0" in text
    assert "Traceback" not in text and "plugin.py" not in text


def test_item_names_are_patch_and_subject(workdir: pytest.Pytester) -> None:
    _ini(workdir)
    result = workdir.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines([
        EQUIVALENT_ID,
        DIVERGENT_ID,
        "queue/0003-nothing-to-check.patch::drivers/foo/foo_core.c",
        "queue/0004-inconclusive.patch::drivers/foo/foo_peer.c:foo_peer_show",
    ])


def test_one_item_can_be_selected_by_node_id(workdir: pytest.Pytester) -> None:
    _ini(workdir)
    workdir.runpytest(DIVERGENT_ID).assert_outcomes(failed=1)


def test_strict_makes_inconclusive_fail(workdir: pytest.Pytester) -> None:
    _ini(workdir)
    result = workdir.runpytest("--fmtcheck-strict")
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    result.stdout.fnmatch_lines(["*reason: *%pI4(&v->addr)*%pI6c(&v->addr)*cannot render*"])


def test_fail_on_breaking_tolerates_a_cosmetic_width_change(workdir: pytest.Pytester) -> None:
    """Width 7 -> 8 is cosmetic (consumers split on whitespace), so it passes under `breaking`."""
    _ini(workdir)
    workdir.runpytest("--fmtcheck-fail-on", "breaking").assert_outcomes(passed=2, skipped=1, xfailed=1)


def test_command_line_patches_run_alone(workdir: pytest.Pytester) -> None:
    """`pytest --fmtcheck-patches queue/` judges the queue, not the test suite beside it."""
    workdir.makepyfile(test_other="def test_other(): pass")
    workdir.runpytest("--fmtcheck-patches", "queue/").assert_outcomes(**QUEUE_OUTCOMES)


def test_command_line_patches_join_named_tests(workdir: pytest.Pytester) -> None:
    workdir.makepyfile(test_other="def test_other(): pass")
    result = workdir.runpytest("test_other.py", "--fmtcheck-patches=queue/0001-equivalent.patch")
    result.assert_outcomes(passed=2)


def test_ini_patches_stay_out_when_tests_are_named(workdir: pytest.Pytester) -> None:
    """Like testpaths: the ini queue is the default, not an addition to what the user asks for."""
    _ini(workdir)
    workdir.makepyfile(test_other="def test_other(): pass")
    workdir.runpytest("test_other.py").assert_outcomes(passed=1)


def test_unreadable_patch_is_one_failing_item(workdir: pytest.Pytester) -> None:
    result = workdir.runpytest("--fmtcheck-patches", "bad.patch", "-rf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*fmtcheck: error: *bad.patch:4: truncated patch*",
        "FAILED bad.patch::input-error*",
    ])


JUDGING_LOG = """
import os, time
import fmtcheck.patch.plan

_judge = fmtcheck.patch.plan.judge


def _logged_judge(*args, **kwargs):
    start = time.perf_counter()
    try:
        return _judge(*args, **kwargs)
    finally:
        with open(os.path.join(os.path.dirname(__file__), "judged.tsv"), "a") as log:
            log.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '(collection)')}\\t{time.perf_counter() - start}\\n")


fmtcheck.patch.plan.judge = _logged_judge
"""


def test_xdist_gives_the_same_outcomes_and_junit_report(workdir: pytest.Pytester) -> None:
    """Workers collect independently; names and the shared seed keep them in agreement, and the
    report, its first divergence line as the junit message and the patch file as the junit
    classname still reach --junitxml from a worker (one subprocess run: xdist start-up is slow).
    A conftest logs every engine judgement in the workers: each ran in the call phase of its item
    and the junit time of that item, written by the controller, covers it."""
    _ini(workdir)
    workdir.makeconftest(JUDGING_LOG)
    result = workdir.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "--junitxml=out.xml")
    result.assert_outcomes(**QUEUE_OUTCOMES)
    assert DIVERGENT_LINE in result.stdout.str()
    root = ET.parse(workdir.path / "out.xml").getroot()
    messages = [f.get("message", "") for f in root.iter("failure")]
    assert len(messages) == 1 and DIVERGENT_LINE in messages[0]
    classnames = {case.get("classname") for case in root.iter("testcase")}
    assert "queue/0002-divergent.patch" in classnames and len(classnames) == 4  # carried from the workers
    times = {f"{case.get('classname')}::{case.get('name')}": float(case.get("time", "0")) for case in root.iter("testcase")}
    judged = [line.split("\t") for line in (workdir.path / "judged.tsv").read_text().splitlines()]
    assert len(judged) == 3, judged  # equivalent, divergent, inconclusive; nothing-to-check needs no engine
    for where, seconds in judged:
        assert where.endswith(" (call)"), where
        assert times[where[: -len(" (call)")]] >= float(seconds) - 0.0005  # junit rounds to 1 ms


def test_junitxml_failure_message_carries_the_report(workdir: pytest.Pytester) -> None:
    _ini(workdir)
    workdir.runpytest("--junitxml=out.xml")
    root = ET.parse(workdir.path / "out.xml").getroot()
    failures = [case.find("failure") for case in root.iter("testcase") if case.find("failure") is not None]
    assert len(failures) == 1
    assert DIVERGENT_LINE in failures[0].get("message", "")
    assert DIVERGENT_LINE in (failures[0].text or "")


def test_a_crash_fails_its_patch_and_the_queue_goes_on(workdir: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A collection error would interrupt the session; one failing item per patch does not."""
    import fmtcheck.patch.plan

    def boom(paths: list[str], options: object) -> None:
        raise RuntimeError("boom in " + paths[0].rsplit("/", 1)[-1])

    monkeypatch.setattr(fmtcheck.patch.plan, "plan_patches", boom)
    result = workdir.runpytest("--fmtcheck-patches", "queue/0001-equivalent.patch", "queue/0002-divergent.patch")
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*RuntimeError: boom in 0001-equivalent.patch*"])
    workdir.runpytest("--co", "-q", "--fmtcheck-patches=queue/0001-equivalent.patch").stdout.fnmatch_lines(
        ["queue/0001-equivalent.patch::internal-error"])
