"""The state a match carries (position, bound values, records seen) and its outcome.
"""

from __future__ import annotations

import itertools

from fmtcheck.common.plain import factory, plain
from fmtcheck.layout.model import (
    Grammar,
)

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Iterator

MAX_DIVERGENCES = 200  # per capture; the rest are counted in a note


MAX_REBINDS = 3  # alternative file-wide values noted from the first divergent lines


MAX_EXAMINED = 2000  # divergent lines after which a capture is not examined further


class GiveUp(Exception):
    """So many lines diverge that the rest of the capture would only repeat the verdict."""


class TooMany(Exception):
    """A second try of a capture reported more divergences than the first: give up on it."""


@plain
class State:
    pos: int = 0
    line: int = 1
    params: dict = factory(dict)
    variants: dict = factory(dict)  # Variant.uid -> candidate option indexes

    def __init__(self, pos: int = 0, line: int = 1, params: dict | None = None, variants: dict | None = None) -> None:
        """Written out (a speculation makes one per option tried): `plain`'s generic one is slower."""
        self.pos = pos
        self.line = line
        self.params = {} if params is None else params
        self.variants = {} if variants is None else variants

    def copy(self) -> "State":
        return State(self.pos, self.line, dict(self.params), dict(self.variants))


@plain
class Trial:
    """The outcome of trying one option: the state after it and what it reported."""

    state: State
    divs: list
    records: list
    truncated: int
    roles: dict  # line number -> the grammar line it matched, when collecting (`Matcher.line_roles`)

    def __init__(self, state: State, divs: list, records: list, truncated: int, roles: dict) -> None:
        self.state = state  # written out, as State's
        self.divs = divs
        self.records = records
        self.truncated = truncated
        self.roles = roles


RecordSeen = tuple  # (block name, key tuple): a record found in the capture, for diff's notes


@plain
class KeyRun:
    """Records of one block matched in bulk, whose key is one field: BLOCK and the keys' texts in
    order, each followed by a newline (one line of a row holds no newline before its key's end),
    standing for the RecordSeen (BLOCK, (key,)) of each. One bytes object per window, read by
    the extension (`native.line_keys`) or one findall, not a tuple or a bytes object per record
    (100,000 net/dev rows), and two runs that agree compare as two strings (`diff.record_notes`)."""

    block: str
    keys: bytes

    def key_list(self) -> list[bytes]:
        return self.keys.split(b"\n")[:-1]


def expanded_records(records: list) -> Iterator[RecordSeen]:
    """Each record as (block, key tuple), a KeyRun's one by one."""
    for r in records:
        if isinstance(r, KeyRun):
            yield from zip(itertools.repeat(r.block), zip(r.key_list()))
        else:
            yield r


@plain
class MatchOutcome:
    grammar: Grammar
    divergences: list
    notes: list
    records: list
    variants: dict
    lines: int
    truncated: int = 0
    snapshots: int = 1
    line_roles: dict = factory(dict)
    alternatives: list = factory(list)  # (params, variants) worth a second try
    params: dict = factory(dict)  # file-wide values as bound at the end
    cost: int = 0  # lines reported as divergent (what two readings of a capture are compared by)
