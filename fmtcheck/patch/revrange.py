"""`fmtcheck range A..B [-- PATH...]`: judge every commit of a range in a git checkout.

A maintainer reviews a branch or a merge window's commits where they are: in git. Each commit
(merges left out, oldest first) that changes a C file is judged from whole files read with git:
the parent's blob of each file it changes is the old side, and git's own diff of the commit
(renames and copies detected) applied to it gives the new side, so no function is rebuilt from
hunks and every helper, macro and table of the file is known. One result per commit and function,
subject ``COMMIT path:function``, with the commit id and subject in the JSON; the exit status is
the worst of them.

``--jobs N`` judges N commits at a time in worker processes; the report keeps the range's order,
so it is the same whatever N is. The overall work bound (``--max-functions``) is counted in that
order too: past it, the rest of the range is reported "not judged" and the run exits 3.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from dataclasses import dataclass
from typing import Iterator

from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Report, Result
from fmtcheck.patch import git
from fmtcheck.patch.apply import TreeState
from fmtcheck.patch.output_code import C_SUFFIXES
from fmtcheck.patch.patchfile import parse_patch_bytes
from fmtcheck.patch.locations import without_patch_lines
from fmtcheck.patch.plan import WorkBudget, judge_plan, plan_patch

@dataclass
class CommitOutcome:
    """What judging one commit gave: its results and how many of them the engine judged."""

    sha: str
    subject: str
    results: list[Result]
    judged: int


def check_range(spec: str, paths: list[str], options: Options, jobs: int = 1, progress: str = "auto") -> Report:
    """Judge every commit of SPEC that changes a C file (limited to PATHS); see the module doc."""
    root = repository_root(options.tree or ".")
    commits = git.range_commits(root, spec, paths)
    touched = [c for c in commits if any(change.path.endswith(C_SUFFIXES) for change in c.changes)]
    report = Report(command="range")
    if len(touched) < len(commits):
        report.notes.append(f"{len(commits) - len(touched)} of {len(commits)} commit(s) change no C file")
    if not commits:
        report.notes.append(f"no commit in {spec}")
    budget = WorkBudget(options.max_functions)
    for outcome in _outcomes(root, touched, paths, options, jobs, progress):
        report.results.extend(_within_budget(outcome, budget))
    if budget.reached and any(r.reason == budget.reason() for r in report.results):
        report.notes.append(budget.reason().replace("not judged: ", "partial report: "))
    return report


def repository_root(directory: str) -> str:
    """The top of the git work tree DIRECTORY is in (``range`` runs inside a checkout)."""
    if not os.path.isdir(directory):
        raise InputError(directory, "not a directory")
    top = git.toplevel(directory)
    if top is None:
        raise InputError(directory, "not inside a git checkout (range reads commits with git)")
    return top


def _outcomes(
    root: str, commits: list[git.Commit], paths: list[str], options: Options, jobs: int, progress: str
) -> Iterator[CommitOutcome]:
    """Outcomes in the range's order, from JOBS worker processes when JOBS > 1."""
    tasks = [(root, commit, paths, options) for commit in commits]
    bar = _progress_bar(len(tasks), progress)
    try:
        if jobs <= 1 or len(tasks) <= 1:
            for task in tasks:
                yield _judge_task(task)
                _advance(bar)
            return
        context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        with context.Pool(min(jobs, len(tasks))) as pool:
            for outcome in pool.imap(_judge_task, tasks, chunksize=1):
                yield outcome
                _advance(bar)
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(total: int, progress: str):
    """A tqdm bar on stderr when it is a terminal (or --progress always); None otherwise."""
    wanted = progress == "always" or (progress == "auto" and sys.stderr.isatty())
    if not wanted or total == 0:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="commit", file=sys.stderr, leave=False, desc="fmtcheck range")


def _advance(bar) -> None:
    if bar is not None:
        bar.update(1)


def _within_budget(outcome: CommitOutcome, budget: WorkBudget) -> list[Result]:
    """The commit's results, those the engine judged past the overall bound made "not judged"."""
    kept = []
    for result in outcome.results:
        if result.extra.get("judged") and not budget.take():
            result = Result(result.subject, "inconclusive", reason=budget.reason(), extra=_commit_extra(outcome))
        result.extra.pop("judged", None)
        kept.append(result)
    return kept


def _commit_extra(outcome: CommitOutcome) -> dict:
    return {"commit": outcome.sha, "commit_subject": outcome.subject}


def _judge_task(task: tuple[str, git.Commit, list[str], Options]) -> CommitOutcome:
    root, commit, paths, options = task
    return judge_commit(root, commit, paths, options)


def judge_commit(root: str, commit: git.Commit, paths: list[str], options: Options) -> CommitOutcome:
    """One commit: its diff from git applied to its parent's files, every output function judged."""
    outcome = CommitOutcome(commit.sha, commit.subject, [], 0)
    diff = commit_diff(root, commit, paths)
    try:
        patches = parse_patch_bytes(diff, commit.short) if diff.strip() else []
    except InputError as err:
        outcome.results.append(_commit_result(commit, "inconclusive", f"git's diff is not understood: {err.what}"))
        return outcome
    with git.BlobReader(root) as reader:
        state = TreeState(root, reader=_parent_reader(reader, commit), label=f"{root} at {commit.short}^", origin="git")
        for patch in patches:
            patch.label, patch.subject = commit.short, commit.subject
            try:
                plan = plan_patch(patch, state)
            except InputError as err:
                outcome.results.append(_commit_result(commit, "inconclusive", f"{err.where}: {err.what}"))
                continue
            judged = {id(candidate) for candidate, _old, _new in plan.checks}
            results = judge_plan(plan, options, budget=WorkBudget(options.max_functions))
            outcome.judged += len(judged)
            for index, result in enumerate(results):
                without_patch_lines(result)
                result.extra.update({"commit": commit.sha, "commit_subject": commit.subject})
                if index < len(plan.checks):
                    result.extra["judged"] = True
            outcome.results.extend(results)
    if not outcome.results:
        outcome.results.append(_commit_result(commit, "nothing-to-check", None))
    return outcome


def _parent_reader(reader: git.BlobReader, commit: git.Commit):
    def read(path: str) -> bytes | None:
        if commit.parent is None or not path or os.path.isabs(path):
            return None
        return reader.read(commit.parent, path)

    return read


def _commit_result(commit: git.Commit, verdict: str, reason: str | None) -> Result:
    extra = {"commit": commit.sha, "commit_subject": commit.subject}
    return Result(f"{commit.short} (commit)", verdict, reason=reason, extra=extra)


def commit_diff(root: str, commit: git.Commit, paths: list[str]) -> bytes:
    """git's own diff of COMMIT against its first parent (renames and copies found; C files only)."""
    wanted = [c.path for c in commit.changes if c.path.endswith(C_SUFFIXES)]
    olds = [c.old_path for c in commit.changes if c.old_path and c.path.endswith(C_SUFFIXES)]
    if not wanted:
        return b""
    args = ["diff-tree", "-p", "-M", "-C", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index"]
    args += ["--root", commit.sha] if commit.parent is None else [commit.parent, commit.sha]
    limit = sorted(set(wanted + olds)) if len(wanted) < 500 else list(paths)
    return git.run_git(root, args + ["--", *limit], f"commit {commit.short}")


# --------------------------------------------------------------------------------------------
# JSON lines for bots


def emit_jsonl(report: Report, out=None) -> None:
    """One JSON object per commit (in the range's order): id, subject, worst verdict, results;
    then one summary line with the overall verdict and the report's notes."""
    out = out if out is not None else sys.stdout
    by_commit: dict[str, list[Result]] = {}
    for result in report.results:
        by_commit.setdefault(str(result.extra.get("commit", "")), []).append(result)
    for sha, results in by_commit.items():
        commit_report = Report(command="range", results=results)
        line = {
            "commit": sha,
            "subject": results[0].extra.get("commit_subject", ""),
            "verdict": commit_report.verdict,
            "results": [r.to_json() for r in results],
        }
        out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
    summary = {"command": "range", "verdict": report.verdict, "commits": len(by_commit), "notes": report.notes}
    out.write(json.dumps(summary, sort_keys=True, ensure_ascii=False) + "\n")
