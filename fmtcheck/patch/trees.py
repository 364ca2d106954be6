"""Which tree a patch applies to: ``--tree`` as users type it, and the base commit in a checkout.

``--tree .`` from the top of a kernel checkout, ``--tree ..`` or ``--tree .`` from a
subdirectory (``fs/proc``), a relative or absolute path, a symlink to a checkout: all name the
same tree. Paths in a patch are relative to the top of the tree, so when the directory given is
below the top of a git work tree (or of a tree that is no checkout) and more of the patch's files
are found from the top than from the directory, the top is used, as ``git apply`` does.

In a git checkout the files before the patch come from git, not from the work tree, when the
patch says what it applies to (``base-commit:``, written by ``git format-patch --base`` and b4)
or ``--base REV`` says it: the work tree may be at a later commit, or hold the patch already.
A ``base-commit:`` the repository does not hold is noted and the work tree used; an unknown
``--base`` is an error (the user asked for it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from fmtcheck.c.headers import includes_of, tree_constants
from fmtcheck.common.errors import InputError
from fmtcheck.kernel.constants import INT_CONSTANTS
from fmtcheck.patch import git
from fmtcheck.patch.apply import TreeState
from fmtcheck.patch.patchfile import Patch


@dataclass
class Tree:
    """The resolved ``--tree``: its real root, and the git repository there (if any)."""

    root: str
    repository: str | None = None  # the work tree's top when ROOT is it
    readers: list[git.BlobReader] = field(default_factory=list)

    def close(self) -> None:
        for reader in self.readers:
            reader.close()
        self.readers.clear()


def resolve_tree(given: str, patches: list[Patch]) -> Tree:
    """The tree ``--tree GIVEN`` names, for PATCHES (see the module doc)."""
    if not os.path.isdir(given):
        raise InputError(given, "--tree is not a directory")
    root = os.path.realpath(given)
    top = git.toplevel(root)
    best, found = root, _found_under(root, patches)
    for candidate in ([top] if top is not None else []) + _ancestors(root):
        count = _found_under(candidate, patches)
        if count > found:
            best, found = candidate, count
    return Tree(best, top if top == best else None)


def _ancestors(root: str, limit: int = 12) -> list[str]:
    """The directories above ROOT, nearest first (a subdirectory of a tree that is no checkout)."""
    found = []
    current = root
    for _level in range(limit):
        parent = os.path.dirname(current)
        if parent == current:
            break
        found.append(parent)
        current = parent
    return found


def _found_under(root: str, patches: list[Patch]) -> int:
    """How many of the files the patches change exist under ROOT (bounded)."""
    count = 0
    for patch in patches[:50]:
        for diff in patch.files[:50]:
            path = diff.old_path or diff.new_path
            if path and not os.path.isabs(path) and os.path.isfile(os.path.join(root, path)):
                count += 1
    return count


def state_for(tree: Tree, revision: str | None, forced: bool) -> tuple[TreeState, str | None]:
    """The tree state a version of the patches applies to, and a note when its base is not used.

    REVISION is the base (FORCED when it came from ``--base``). Without one, or outside a git
    checkout, the work tree is read."""
    if revision is None:
        return TreeState(tree.root), None
    if tree.repository is None:
        if forced:
            raise InputError("--base", f"{tree.root} is not the top of a git checkout")
        return TreeState(tree.root), f"base-commit {revision[:12]}: --tree is not a git checkout, the files there are used"
    if not forced and not git.has_commit(tree.repository, revision):
        note = f"base-commit {revision[:12]} is not in the repository at {tree.root}: the work tree is used"
        return TreeState(tree.root), note
    sha = git.resolve(tree.repository, revision, "--base" if forced else "base-commit")
    reader = git.BlobReader(tree.repository)
    tree.readers.append(reader)

    def read(path: str) -> bytes | None:
        if not path or os.path.isabs(path) or path.startswith("../") or "/../" in path:
            return None
        return reader.read(sha, path)

    return TreeState(tree.root, reader=read, label=f"{tree.root} at {sha[:12]}", origin="git"), None


def build_constants(tree: str, path: str, src: bytes) -> Callable[[str], tuple | None]:
    """A name's (value, C type) as the engine reads it for the file PATH judged with SRC in TREE:
    a constant fmtcheck knows, else the enumerator or integer macro the headers SRC includes give
    it (`fmtcheck.c.headers`); None when neither is certain. The headers are read on first use."""

    def value_of(name: str) -> tuple | None:
        if name in INT_CONSTANTS:
            return INT_CONSTANTS[name]
        return tree_constants(tree, path, includes_of(src)).get(name)

    return value_of
