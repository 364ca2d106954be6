"""Applying a patch in memory to a kernel tree (`--tree`), so both sides are whole files with every
helper, macro and table the hunks do not show.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable

from fmtcheck.common.errors import InputError
from fmtcheck.common.inputfile import read_tree_file
from fmtcheck.patch.ctext import INCLUDE, Definition, harvest_definitions
from fmtcheck.patch.patchfile import (
    FileDiff,
    Hunk,
)
from fmtcheck.patch.rebuild import FileView

MAX_TREE_FILE_BYTES = 8 * 1024 * 1024


MAX_INCLUDES = 32


class TreeState:
    """The files of a kernel tree as a series of patches leaves them (read lazily, kept in memory).

    The files before the patches come from READER: the work tree under ROOT by default, or a
    revision of the git repository at ROOT (`git_reader`) when the patch names its base commit."""

    def __init__(
        self,
        root: str,
        base: dict[str, list[bytes] | None] | None = None,
        reader: "Callable[[str], bytes | None] | None" = None,
        label: str | None = None,
        origin: str = "tree",
    ) -> None:
        self.root = root
        self.base: dict[str, list[bytes] | None] = base if base is not None else {}
        self.files: dict[str, list[bytes] | None] = {}
        self.reader = reader if reader is not None else worktree_reader(root)
        self.label = label or root  # how messages name the tree ("DIR", or "DIR at COMMIT")
        self.origin = origin  # where the pre-images come from: "tree" (the work tree) or "git" (a commit)

    def fork(self) -> "TreeState":
        """A fresh state on the same base (another version of a patch applies to the base)."""
        return TreeState(self.root, self.base, self.reader, self.label, self.origin)

    def exists(self, path: str) -> bool:
        return self.lines(path) is not None

    def lines(self, path: str) -> list[bytes] | None:
        if path in self.files:
            return self.files[path]
        if path not in self.base:
            data = self.reader(path)
            self.base[path] = None if data is None else split_lines(data)
        return self.base[path]


def split_lines(data: bytes) -> list[bytes]:
    """A file's lines without their ends (CRLF read as LF)."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def worktree_reader(root: str) -> "Callable[[str], bytes | None]":
    """Read PATH under ROOT (`read_tree_file`): ``..``, an absolute path or a missing file in a patch
    reads nothing; a file whose real path leaves the real ROOT, a special file or one on a kernel
    pseudo filesystem is an InputError naming it."""

    def read(path: str) -> bytes | None:
        if not path or "\0" in path:
            return None
        data = read_tree_file(root, path, MAX_TREE_FILE_BYTES)
        if data is not None and len(data) > MAX_TREE_FILE_BYTES:
            raise InputError(os.path.join(root, path), f"over the {MAX_TREE_FILE_BYTES}-byte limit for a tree file")
        return data

    return read


@dataclass
class Applied:
    """A file before and after a patch, with the line numbers the patch removed and added."""

    path: str
    old: list[bytes]
    new: list[bytes]
    removed: set[int]  # 1-based, in old
    added: set[int]  # 1-based, in new


def tree_path(diff: FileDiff, state: TreeState) -> str:
    """The path of DIFF inside the tree: git paths as they are; ``diff -u`` paths may name a
    backup (``foo.c.orig``) or carry one extra leading directory, so take the one that exists."""
    if diff.git_style:
        return diff.old_path or diff.new_path or ""
    names = [p for p in (diff.old_path, diff.new_path) if p]
    tries = names + [p.split("/", 1)[1] for p in names if "/" in p]
    for path in tries:
        if state.exists(path):
            return path
    return names[-1] if names else ""


def apply_file_diff(diff: FileDiff, state: TreeState, source: str) -> Applied:
    """Apply one file's hunks to the tree state (as ``patch`` would, allowing line offsets)."""
    path = tree_path(diff, state)
    current = state.lines(path)
    if diff.old_path is None:
        if current is not None:
            raise InputError(
                f"{source}:{diff.where}", f"{path}: the patch creates it but it already exists in {state.label}"
                + _applied_hint(diff, state, path)
            )
        current = []
    elif current is None:
        raise InputError(f"{source}:{diff.where}", f"{path}: not found in --tree {state.label}" + _missing_hint(diff, state))
    out: list[bytes] = []
    removed: set[int] = set()
    added: set[int] = set()
    cursor = 0
    offset = 0
    for hunk in diff.hunks:
        expected = [line.text for line in hunk.lines if line.tag in " -"]
        position = _find_hunk(current, expected, hunk, cursor, offset)
        if position is None:
            raise InputError(
                f"{source}:{hunk.where}",
                f"hunk {hunk.header} does not apply to {path} in --tree {state.label}"
                + _applied_hint(diff, state, path),
            )
        offset = position - (hunk.old_start - 1 if hunk.old_len else hunk.old_start)
        out += current[cursor:position]
        old_no = position
        for line in hunk.lines:
            if line.tag in " -":
                old_no += 1
            if line.tag == "-":
                removed.add(old_no)
            else:
                out.append(current[old_no - 1] if line.tag == " " else line.text)
                if line.tag == "+":
                    added.add(len(out))
        cursor = position + len(expected)
    out += current[cursor:]
    new_path = path
    if diff.new_path is None:
        state.files[path] = None
        out = []
    elif diff.git_style and diff.old_path and diff.new_path != diff.old_path:
        state.files[path] = None  # a rename
        new_path = diff.new_path
        state.files[new_path] = out
    else:
        state.files[path] = out
    return Applied(new_path, current, out, removed, added)


def _applied_hint(diff: FileDiff, state: TreeState, path: str) -> str:
    """patch(1)'s "Reversed (or previously applied) patch detected!": when every hunk's new side
    is already in the file (the reverse patch would apply), say so instead of a bare refusal."""
    target = diff.new_path or path
    current = state.lines(target) if diff.new_path is not None else None
    if current is None or not diff.hunks:
        return ""
    cursor = 0
    for hunk in diff.hunks:
        wanted = [line.text for line in hunk.lines if line.tag in " +"]
        flipped = Hunk(hunk.new_start, hunk.new_len, hunk.old_start, hunk.old_len, hunk.section, [], hunk.where)
        position = _find_hunk(current, wanted, flipped, cursor, 0)
        if position is None:
            return ""
        cursor = position + len(wanted)
    return (
        "; it looks already applied (the tree holds what the patch adds): give --tree a checkout "
        "from before it, or --base REV in a git checkout"
    )


def _missing_hint(diff: FileDiff, state: TreeState) -> str:
    """A patch deleting or renaming a file the tree no longer has may already be applied."""
    if diff.new_path and diff.new_path != diff.old_path and state.exists(diff.new_path):
        return f"; {diff.new_path} exists, so the patch looks already applied"
    return ""


def _find_hunk(current: list[bytes], expected: list[bytes], hunk: Hunk, cursor: int, offset: int) -> int | None:
    """Where EXPECTED sits in CURRENT at or after CURSOR, nearest to the header's line (+offset)."""
    if not expected:
        guess = hunk.old_start + offset
        return min(max(guess, cursor), len(current))
    guess = hunk.old_start - 1 + offset
    last = len(current) - len(expected)
    for same in (_same_exact, _same_loose):
        for distance in range(0, max(last, 0) + len(current) + 1):
            for position in (guess - distance, guess + distance) if distance else (guess,):
                if cursor <= position <= last and same(current, position, expected):
                    return position
            if guess - distance < cursor and guess + distance > last:
                break
    return None


def _same_exact(current: list[bytes], position: int, expected: list[bytes]) -> bool:
    return current[position : position + len(expected)] == expected


def _same_loose(current: list[bytes], position: int, expected: list[bytes]) -> bool:
    """Mail strips trailing whitespace from context lines: compare without it."""
    window = current[position : position + len(expected)]
    return all(a.rstrip() == b.rstrip() for a, b in zip(window, expected))


INCLUDE_LINE = re.compile(rb"[ \t]*#[ \t]*include[ \t]*[<\"]")


def view_from_tree(applied: Applied) -> FileView:
    """Both sides of a file as whole texts; a definition is changed when it holds a changed line."""
    view = FileView(applied.path, from_tree=True)
    for which, lines, changed in (("old", applied.old, applied.removed), ("new", applied.new, applied.added)):
        text = b"\n".join(lines) + b"\n"
        view.includes[which] = [line for line in lines if INCLUDE_LINE.match(line)]

        def row_changed(first: int, last: int, changed: set[int] = changed) -> bool:
            return any(first + 1 <= number <= last + 1 for number in changed)

        for definition in harvest_definitions(text, applied.path, row_changed, lambda row: row + 1):
            view.side(which).setdefault(definition.name, definition)
    return view


def tree_include_definitions(path: str, text: bytes, state: TreeState) -> dict[str, Definition]:
    """Definitions of the headers a file includes with ``#include "..."`` (one level, bounded)."""
    found: dict[str, Definition] = {}
    directory = os.path.dirname(path)
    for match in list(INCLUDE.finditer(text))[:MAX_INCLUDES]:
        name = match.group(1).decode("utf-8", "replace")
        header = os.path.normpath(os.path.join(directory, name))
        lines = state.lines(header)
        if lines is None:
            continue
        header_text = b"\n".join(lines) + b"\n"
        for definition in harvest_definitions(header_text, header, lambda a, b: False, lambda row: row + 1):
            found.setdefault(definition.name, definition)
    return found


MAX_SIBLINGS = 200  # .c files of one directory read to find the ones that include a file


def including_unit_includes(path: str, state: TreeState) -> list[bytes]:
    """The `#include` lines a .c file is compiled under when another .c file of its directory
    includes it (the kernel builds kernel/sched/stats.c inside build_utility.c, after
    ``#include "sched.h"``; stats.c itself includes nothing): every such file's include lines
    before it includes PATH. Headers two such files read differently give no value (a name
    defined differently is dropped, `fmtcheck.c.headers`)."""
    directory, name = os.path.split(path)
    try:
        siblings = sorted(os.listdir(os.path.join(state.root, directory)))[:MAX_SIBLINGS]
    except OSError:
        return []
    found: list[bytes] = []
    for sibling in siblings:
        if not sibling.endswith(".c") or sibling == name:
            continue
        lines = state.lines(os.path.join(directory, sibling)) or []
        before: list[bytes] = []
        for line in lines:
            match = INCLUDE.match(line)
            if match is not None and match.group(1) == name.encode():
                found.extend(b for b in before if b not in found)
                break
            if INCLUDE_LINE.match(line) and not line.rstrip().endswith(b'.c"'):
                before.append(line)
    return found
