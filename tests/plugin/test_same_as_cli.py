"""The plugin and the command line share one search: the same seed gives the same report (#12)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest

from fmtcheck import cli


def _cli_report(path: str, seed: int) -> list[str]:
    out = io.StringIO()
    with redirect_stdout(out):
        cli.main(["patch", path, "--seed", str(seed), "--color", "never"])
    return [line.strip() for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("seed", [5, 91])
def test_a_divergent_patch_reports_the_same_under_pytest_and_the_cli(workdir: pytest.Pytester, seed: int) -> None:
    patch = "queue/0002-divergent.patch"
    expected = _cli_report(str(workdir.path / patch), seed)
    block = [line for line in expected if line.startswith(("line ", "expected:", "actual:", "counterexample:"))]
    assert block, expected
    result = workdir.runpytest("--fmtcheck-patches", patch, f"--hypothesis-seed={seed}", "-p", "no:cacheprovider")
    got = [line.strip() for line in result.stdout.lines]
    assert [line for line in got if line in block] == block
    head = next(line for line in expected if ": divergent (" in line)
    assert any(head in line for line in got), (head, got)
