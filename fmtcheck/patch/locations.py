"""Where a finding of `fmtcheck patch` is, in the files a reviewer reads.

The engine names lines of the text it was handed for one side: the function (rebuilt from the
hunks, or cut from the patched tree) after the helpers and macros it needs, labelled
``SUBJECT (old)`` and ``SUBJECT (new)``. A reviewer reads the file the patch changes and the patch
itself. `relocate` turns every place of a result (its location, each divergence's source on both
sides, and the ``LABEL:LINE`` its reason and notes name) into the file's line (the pre-image line
for the old side, the post-image line for the new side) and, where the patch shows that line, the
patch's own line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmtcheck.common.result import Result, SourceLine
from fmtcheck.patch.ctext import Definition
from fmtcheck.patch.patchfile import Patch

# a line of the engine's text that the rebuild made up (a brace, a gap marker) is named by the
# nearest line before it that the file has (else after it)


@dataclass
class SideText:
    """One side's text as the engine saw it: its label and, per line, (file, file line or None)."""

    label: str
    side: str  # "old" | "new"
    lines: list[tuple[str, int | None]]

    def file_line(self, line: int) -> tuple[str, int] | None:
        """The file and line of the engine's 1-based LINE (a made-up line: the nearest real one)."""
        if not self.lines:
            return None
        index = min(max(line, 1), len(self.lines)) - 1
        order = list(range(index, -1, -1)) + list(range(index + 1, len(self.lines)))
        for k in order:
            file, number = self.lines[k]
            if number is not None:
                return file, number
        return None


class PatchLines:
    """Which line of the patch shows a given line of a file, on either side."""

    def __init__(self, patch: Patch) -> None:
        self.source = patch.source
        self.shown: dict[tuple[str, str, int], int] = {}
        self.by_patch_line: dict[int, tuple[str, int]] = {}
        for diff in patch.files:
            for hunk in diff.hunks:
                self.by_patch_line.setdefault(hunk.where, (diff.path, max(hunk.new_start, 1)))
                for line in hunk.lines:
                    if line.old_no is not None and line.tag in " -":
                        self.shown.setdefault((diff.path, "old", line.old_no), line.where)
                    if line.new_no is not None and line.tag in " +":
                        self.shown.setdefault((diff.path, "new", line.new_no), line.where)
                    number = line.new_no if line.new_no is not None else line.old_no
                    if number is not None:
                        self.by_patch_line.setdefault(line.where, (diff.path, number))

    def place(self, file: str, side: str, line: int) -> SourceLine:
        own = self.shown.get((file, side, line))
        return SourceLine(file, line, None, self.source if own else None, own)

    def from_patch_line(self, patch_line: int) -> SourceLine | None:
        """The file line a line of the patch shows (a hunk header: the hunk's first new line)."""
        found = self.by_patch_line.get(patch_line)
        if found is None:
            return None
        return SourceLine(found[0], found[1], None, self.source, patch_line)


def relocate(result: Result, sides: list[SideText], patch: Patch) -> Result:
    """RESULT with every place it names moved from the engine's text to the patched file and the
    patch (see the module doc)."""
    lines = PatchLines(patch)
    by_label = {side.label: side for side in sides}

    def move(place: SourceLine | None) -> SourceLine | None:
        side = by_label.get(place.file) if place is not None else None
        if side is None:
            return place
        found = side.file_line(place.line)
        return lines.place(found[0], side.side, found[1]) if found else place

    if result.location is None and result.verdict == "inconclusive":
        result.location = SourceLine.first_in(result.reason, list(by_label))
    result.location = move(result.location)
    for divergence in result.divergences:
        divergence.old_source = move(divergence.old_source)
        divergence.new_source = move(divergence.new_source)
    result.reason = _rewrite(result.reason, sides) if result.reason else result.reason
    result.notes = [_rewrite(note, sides) for note in result.notes]
    if result.verdict == "inconclusive" and result.location is None:
        result.location = _first_patch_line(result.reason or "", lines) or _first_patch_line(result.subject, lines)
    return result


def _rewrite(text: str, sides: list[SideText]) -> str:
    """``SUBJECT (new):5`` in a message as ``drivers/x.c:42`` (the patch's line is in the
    result's location; a message stays short enough for a summary line)."""
    for side in sides:
        pattern = re.escape(side.label) + r":(\d+)(?::\d+)?"

        def named(match: re.Match, side: SideText = side) -> str:
            found = side.file_line(int(match.group(1)))
            return f"{found[0]}:{found[1]}" if found else match.group(0)

        text = re.sub(pattern, named, text)
    return text


def _first_patch_line(text: str, lines: PatchLines) -> SourceLine | None:
    """The file line of the first ``PATCH:LINE`` a message names (a problem found before the
    engine ran names the hunk or the line of the patch)."""
    for match in re.finditer(re.escape(lines.source) + r":(\d+)", text):
        place = lines.from_patch_line(int(match.group(1)))
        if place is not None:
            return place
    return None


def first_change(patch: Patch, path: str, old: Definition | None, new: Definition | None,
                 reason: str = "") -> SourceLine | None:
    """Where a function judged before the engine runs is shown: the line of the patch its reason
    names, else the function's first added line (new side), else its first removed one."""
    lines = PatchLines(patch)
    named = _first_patch_line(reason, lines)
    if named is not None:
        return named
    for side, definition, tag in (("new", new, "+"), ("old", old, "-")):
        if definition is None:
            continue
        own = set(definition.file_lines(definition.text.count(b"\n") + 1)) - {None}
        for diff in patch.files:
            for hunk in diff.hunks if diff.path == path else []:
                for line in hunk.lines:
                    number = line.new_no if side == "new" else line.old_no
                    if line.tag == tag and number in own:
                        return SourceLine(path, number, None, patch.source, line.where)
    return None


def without_patch_lines(result: Result) -> Result:
    """RESULT with its places naming the file's lines only: a commit of `fmtcheck range` is not a
    patch file an editor could open, so a line of git's diff of it would name nothing."""
    def plain(place: SourceLine | None) -> SourceLine | None:
        return SourceLine(place.file, place.line, place.column) if place is not None else None

    result.location = plain(result.location)
    for divergence in result.divergences:
        divergence.old_source, divergence.new_source = plain(divergence.old_source), plain(divergence.new_source)
    return result
