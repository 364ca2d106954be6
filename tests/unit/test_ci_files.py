"""The shipped CI files do what they say: the composite GitHub Action's judging step (action.yml)
run as GitHub would run it, over the commits of a pull request in a throw-away git repository,
and the pre-commit hook's entry (.pre-commit-hooks.yaml) on a fixture patch.

Both run the `fmtcheck` of this checkout (a shim on PATH runs ``python -m fmtcheck``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from _paths import FIXTURES, ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML reads action.yml and .pre-commit-hooks.yaml")
pytestmark = pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                                reason="git and bash are needed")

OLD = b"""static int demo_show(struct seq_file *m, void *v)
{
\tstruct demo *d = m->private;

\tseq_printf(m, "count: %8lu\\n", d->count);
\treturn 0;
}
"""
NEW = OLD.replace(b'seq_printf(m, "count: %8lu\\n", d->count);',
                  b'seq_puts(m, "count:");\n\tseq_put_decimal_ull_width(m, " ", d->count, 7);\n\tseq_putc(m, \'\\n\');')


@pytest.fixture
def shim(tmp_path):
    """A PATH on which `fmtcheck` is this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "fmtcheck"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fmtcheck "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


def git(repo, env, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, check=True,
                          text=True).stdout.strip()


def judging_step() -> dict:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    return next(step for step in action["runs"]["steps"] if step.get("id") == "judge")


def test_the_action_judges_a_pull_requests_commits_with_annotations_and_sarif(tmp_path, shim) -> None:
    repo = tmp_path / "repo"
    (repo / "fs" / "demo").mkdir(parents=True)
    git(repo, shim, "init", "-q", "-b", "main")
    (repo / "fs" / "demo" / "stat.c").write_bytes(OLD)
    git(repo, shim, "add", "-A")
    git(repo, shim, "commit", "-q", "-m", "base")
    base = git(repo, shim, "rev-parse", "HEAD")
    (repo / "fs" / "demo" / "stat.c").write_bytes(NEW)
    git(repo, shim, "commit", "-q", "-am", "demo: seq_put_decimal_ull_width for the count")
    head = git(repo, shim, "rev-parse", "HEAD")
    output, sarif = tmp_path / "github_output", tmp_path / "fmtcheck.sarif"
    env = dict(shim, BASE=base, HEAD=head, FAIL_ON="any", TREE="", SARIF=str(sarif),
               GITHUB_OUTPUT=str(output), GITHUB_ACTIONS="true")
    done = subprocess.run(["bash", "-c", judging_step()["run"]], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)
    width_line = NEW.split(b"\n").index(b'\tseq_put_decimal_ull_width(m, " ", d->count, 7);') + 1
    assert done.returncode == 1, done.stderr
    assert output.read_text() == "status=1\n"
    assert f"::warning file=fs/demo/stat.c,line={width_line},title=fmtcheck width::" in done.stdout
    log = json.loads(sarif.read_text())
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "fs/demo/stat.c" and location["region"]["startLine"] == width_line


def test_the_action_refuses_a_missing_base(tmp_path, shim) -> None:
    output = tmp_path / "github_output"
    env = dict(shim, BASE="", HEAD="", FAIL_ON="any", TREE="", SARIF="", GITHUB_OUTPUT=str(output))
    done = subprocess.run(["bash", "-c", judging_step()["run"]], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and output.read_text() == "status=2\n"
    assert done.stderr.startswith("fmtcheck: error: action: ") and done.stderr.count("\n") == 1


def test_the_pre_commit_hook_runs_fmtcheck_patch_on_the_patch_files(shim) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    patch = FIXTURES / "patches" / "03-port-separator.patch"
    assert hook["id"] == "fmtcheck-patch" and __import__("re").search(hook["files"], patch.name)
    done = subprocess.run([*hook["entry"].split(), str(patch), "--max-examples", "10"], env=shim,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout.startswith("drivers/fake/fakestat.c:")
    assert ": error: " in done.stdout.splitlines()[0]
