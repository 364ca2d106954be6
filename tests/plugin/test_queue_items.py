"""A patch queue that scales (#18): collection only lists the items, each item judges its own
function when it runs (so ``-n N`` splits the work and junit times are the judging times), a kernel
tree from ``--fmtcheck-tree`` or ``fmtcheck_tree``, the first divergence line in the short summary,
and the patch file as the junit classname."""

from __future__ import annotations

import os
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NEEDS_TREE = "09-mem-needs-tree.patch"
DIVERGENT_ID = "queue/0002-divergent.patch::drivers/foo/foo_proc.c:foo_show"


def _testcases(path: Path) -> dict[str, ET.Element]:
    """The junit test cases by node id (classname is the patch file, name the item)."""
    return {f"{case.get('classname')}::{case.get('name')}": case for case in ET.parse(path).getroot().iter("testcase")}


def test_judging_happens_in_the_item_and_its_junit_time_covers_it(
        workdir: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every engine judgement runs inside the call phase of the item it belongs to (none at
    collection), so pytest's duration of that item, which junit writes, includes it."""
    import fmtcheck.patch.plan

    judged: list[tuple[str, float]] = []
    real_judge = fmtcheck.patch.plan.judge

    def timed_judge(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        result = real_judge(*args, **kwargs)
        judged.append((os.environ.get("PYTEST_CURRENT_TEST", "(collection)"), time.perf_counter() - start))
        return result

    monkeypatch.setattr(fmtcheck.patch.plan, "judge", timed_judge)
    workdir.runpytest("--fmtcheck-patches=queue/", "--hypothesis-seed=0", "--junitxml=out.xml")
    cases = _testcases(workdir.path / "out.xml")
    assert len(judged) == 3, judged  # equivalent, divergent, inconclusive; nothing-to-check needs no engine
    for where, seconds in judged:
        assert where.endswith(" (call)"), where
        assert float(cases[where[: -len(" (call)")]].get("time", "0")) >= seconds - 0.0005  # junit rounds to 1 ms


def test_collection_runs_no_engine(workdir: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    import fmtcheck.patch.plan

    def no_judging(*args: object, **kwargs: object) -> None:
        raise AssertionError("judged at collection")

    monkeypatch.setattr(fmtcheck.patch.plan, "judge", no_judging)
    result = workdir.runpytest("--co", "-q", "--fmtcheck-patches=queue/")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([DIVERGENT_ID, "4 tests collected*"])


@pytest.fixture
def tree_queue(workdir: pytest.Pytester) -> pytest.Pytester:
    """A patch whose rewrite calls a helper only the tree defines, and that tree."""
    (workdir.path / "needs-tree").mkdir()
    shutil.copy(FIXTURES / "patches" / NEEDS_TREE, workdir.path / "needs-tree" / NEEDS_TREE)
    shutil.copytree(FIXTURES / "tree", workdir.path / "tree")
    return workdir


def test_a_tree_decides_a_patch_the_hunks_cannot(tree_queue: pytest.Pytester) -> None:
    without = tree_queue.runpytest("--fmtcheck-patches=needs-tree/", "--hypothesis-seed=0", "-rx")
    without.assert_outcomes(xfailed=1)
    without.stdout.fnmatch_lines(["*fakestat_show_kb*give --tree DIR*"])
    given = tree_queue.runpytest("--fmtcheck-tree", "tree", "--fmtcheck-patches=needs-tree/", "--hypothesis-seed=0")
    given.assert_outcomes(passed=1)
    given.stdout.fnmatch_lines(["fmtcheck: patches needs-tree; seed 0 (--hypothesis-seed), *, tree tree"])


def test_the_ini_names_the_tree_relative_to_the_rootdir(tree_queue: pytest.Pytester,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Started from a subdirectory, as ``testpaths`` and ``fmtcheck_patches`` are."""
    tree_queue.makeini("[pytest]\nfmtcheck_patches = needs-tree/\nfmtcheck_tree = tree\n")
    (tree_queue.path / "elsewhere").mkdir()
    monkeypatch.chdir(tree_queue.path / "elsewhere")
    tree_queue.runpytest("--hypothesis-seed=0").assert_outcomes(passed=1)


def test_a_tree_that_is_no_directory_is_a_usage_error(workdir: pytest.Pytester) -> None:
    result = workdir.runpytest("--fmtcheck-tree=no-such-tree", "--fmtcheck-patches=queue/")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fmtcheck-tree: not a directory: *no-such-tree*"])


def test_short_summary_and_junit_name_the_divergence_and_the_patch(workdir: pytest.Pytester,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the summary line is cut to the terminal's width
    result = workdir.runpytest("--fmtcheck-patches=queue/", "--hypothesis-seed=0", "-rf", "--junitxml=out.xml")
    result.stdout.fnmatch_lines([f"FAILED {DIVERGENT_ID} - line 1, column 15, *"])
    cases = _testcases(workdir.path / "out.xml")
    assert sorted(case.get("classname") for case in cases.values()) == [
        "queue/0001-equivalent.patch", "queue/0002-divergent.patch", "queue/0003-nothing-to-check.patch",
        "queue/0004-inconclusive.patch"]
    failures = [case.find("failure") for case in cases.values() if case.find("failure") is not None]
    assert [f.get("message", "").splitlines()[0] for f in failures] == [
        "line 1, column 15, field f->count: cosmetic (width)"]
