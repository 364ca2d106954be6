"""Reading a git checkout with git itself: blobs at a revision, commits of a range, their files.

fmtcheck never writes to the repository and never runs anything from it: every command is
``git -C ROOT ...`` with a fixed argument list (no shell), read-only plumbing (``rev-parse``,
``cat-file --batch``, ``rev-list``, ``diff-tree``), hooks and pagers out of play, and its output
bounded. A missing git, a directory that is not a checkout or an unknown revision is an
`InputError` naming what was asked.

Many blobs are read through one ``git cat-file --batch`` process (one round trip per file, no
process per file), which is what makes judging a long commit range affordable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from fmtcheck.common.errors import InputError

MAX_BLOB_BYTES = 8 * 1024 * 1024
MAX_GIT_OUTPUT = 64 * 1024 * 1024
MAX_RANGE_COMMITS = 20000
_REVISION = re.compile(r"^[A-Za-z0-9_./~^@{}:+-]{1,200}$")
_SHA = re.compile(rb"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_GIT_ENV = {
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(_GIT_ENV)
    return env


def git_available() -> bool:
    """Whether a git executable is on PATH."""
    return shutil.which("git") is not None


def run_git(root: str, args: list[str], what: str, stdin: bytes | None = None) -> bytes:
    """Run ``git -C ROOT ARGS`` and return its output; a failure is an `InputError` about WHAT."""
    if not git_available():
        raise InputError(what, "git is not installed (needed to read the checkout)")
    try:
        done = subprocess.run(
            ["git", "-C", root, "-c", "core.quotePath=true", *args],
            input=stdin,
            capture_output=True,
            env=_environment(),
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise InputError(what, f"git failed: {err}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(what, (message[-1] if message else f"git exited {done.returncode}")[:300])
    if len(done.stdout) > MAX_GIT_OUTPUT:
        raise InputError(what, f"git printed over {MAX_GIT_OUTPUT} bytes")
    return done.stdout


def toplevel(directory: str) -> str | None:
    """The root of the git work tree DIRECTORY is in, or None when it is not in one."""
    if not git_available():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", directory, "rev-parse", "--show-toplevel"],
            capture_output=True,
            env=_environment(),
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    top = done.stdout.decode("utf-8", "surrogateescape").strip()
    return os.path.realpath(top) if top else None


def check_revision(revision: str, what: str) -> str:
    """A revision as the user or a patch gave it, refused when it could be read as an option."""
    if not _REVISION.match(revision) or revision.startswith("-"):
        raise InputError(what, f"not a revision: {revision[:60]!r}")
    return revision


def resolve(root: str, revision: str, what: str) -> str:
    """The full commit id REVISION names in the repository at ROOT."""
    check_revision(revision, what)
    out = run_git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"], what)
    sha = out.strip()
    if not _SHA.match(sha):
        raise InputError(what, f"unknown revision {revision!r} in {root}")
    return sha.decode("ascii")


def has_commit(root: str, revision: str) -> bool:
    """Whether the repository at ROOT holds the commit REVISION (a patch's base may be absent)."""
    try:
        resolve(root, revision, "base-commit")
    except InputError:
        return False
    return True


class BlobReader:
    """Blobs by ``REV:PATH`` through one ``git cat-file --batch`` process; None for absent ones."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._process: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self._process is None:
            if not git_available():
                raise InputError(self.root, "git is not installed (needed to read the checkout)")
            self._process = subprocess.Popen(
                ["git", "-C", self.root, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_environment(),
            )
        return self._process

    def read(self, revision: str, path: str) -> bytes | None:
        """The bytes of PATH at REVISION, or None when it is absent there (or not a file)."""
        if "\n" in path or "\n" in revision:
            return None
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(f"{revision}:{path}\n".encode("utf-8", "surrogateescape"))
        process.stdin.flush()
        header = process.stdout.readline()
        if not header:
            raise InputError(self.root, "git cat-file stopped answering")
        parts = header.split()
        if len(parts) < 3 or parts[1] == b"missing":
            return None
        kind, size = parts[1], int(parts[2])
        data = _read_exactly(process.stdout, size)
        process.stdout.read(1)  # the newline after the object
        if kind != b"blob":
            return None
        if size > MAX_BLOB_BYTES:
            raise InputError(f"{revision}:{path}", f"over the {MAX_BLOB_BYTES}-byte limit for a file")
        return data

    def close(self) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.wait(timeout=60)
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._process = None

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_exactly(stream, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            raise InputError("git cat-file", "output cut short")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# --------------------------------------------------------------------------------------------
# Commits of a range


@dataclass
class FileChange:
    """One file a commit changes: status letter (A, D, M, R, C, T) and its old and new paths."""

    status: str
    old_path: str | None
    new_path: str | None

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or "?"


@dataclass
class Commit:
    """A commit of a range: its id, first parent (None for a root), subject and changed files."""

    sha: str
    parent: str | None
    subject: str
    changes: list[FileChange] = field(default_factory=list)

    @property
    def short(self) -> str:
        return self.sha[:12]


def range_commits(root: str, spec: str, paths: list[str]) -> list[Commit]:
    """The commits of SPEC (``A..B``, or one revision for its history), oldest first, with the
    files each changes (renames and copies detected), limited to PATHS when given. Merges are
    left out: their changes are their parents' commits, already in the range."""
    for part in spec.split(".."):
        if part:
            check_revision(part, "range")
    args = ["rev-list", "--reverse", "--no-merges", "--topo-order", f"--max-count={MAX_RANGE_COMMITS + 1}",
            "--end-of-options", spec, "--", *paths]
    shas = run_git(root, args, f"range {spec}").split()
    if len(shas) > MAX_RANGE_COMMITS:
        raise InputError(f"range {spec}", f"over {MAX_RANGE_COMMITS} commits; give a smaller range")
    return [commit_details(root, sha.decode("ascii"), paths) for sha in shas]


def commit_details(root: str, sha: str, paths: list[str] | None = None) -> Commit:
    """Subject, first parent and changed files of one commit."""
    head = run_git(root, ["show", "-s", "--format=%P%x00%s", sha], f"commit {sha[:12]}")
    parents, _, subject = head.decode("utf-8", "surrogateescape").rstrip("\n").partition("\x00")
    parent = parents.split()[0] if parents.split() else None
    args = ["diff-tree", "-r", "-z", "--no-commit-id", "-M", "-C", "--name-status"]
    args += [sha] if parent is None else [parent, sha]
    if parent is None:
        args.insert(1, "--root")
    listing = run_git(root, args + ["--", *(paths or [])], f"commit {sha[:12]}")
    return Commit(sha, parent, subject, parse_name_status(listing))


def parse_name_status(listing: bytes) -> list[FileChange]:
    """``diff-tree -z --name-status`` output: status, then one path (two for R and C), NUL-ended."""
    fields = [as_text(item) for item in listing.split(b"\0")]
    changes, i = [], 0
    while i < len(fields) and fields[i]:
        status = fields[i][:1]
        if status in ("R", "C") and i + 2 < len(fields):
            changes.append(FileChange(status, fields[i + 1], fields[i + 2]))
            i += 3
            continue
        if i + 1 >= len(fields):
            break
        path = fields[i + 1]
        old = None if status == "A" else path
        new = None if status == "D" else path
        changes.append(FileChange(status, old, new))
        i += 2
    return changes


def as_text(data: bytes) -> str:
    """A path from git as str without loss (undecodable bytes survive as surrogates)."""
    return data.decode("utf-8", "surrogateescape")
