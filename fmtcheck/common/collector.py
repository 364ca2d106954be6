"""Fewer runs of CPython's cyclic garbage collector while one command runs.

A verdict builds hundreds of thousands of small objects that live as long as it does: the
closures of both compiled sides, the parse trees' wrappers, the expression trees of a proof, the
input views of every case. With CPython's default thresholds (700, 10, 10) the collector walks
them again and again, and its full collections alone took a third of a proven 256-field verdict
(the four rule-6 judgements of `fmtcheck.engine.assumed` each compile a side of 1,040 statements).
Raised thresholds keep every collection (young cycles are still freed at each generation-0 run)
but run them far less often; memory stays bounded by the same per-case and input limits.
Collection decides nothing a verdict says: no verdict, count or byte depends on it.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Iterator

# a young collection per 50,000 net allocations, a middle one per 20 of those, a full one per
# 100 middle ones (CPython also waits until a full one would visit 25% new objects)
THRESHOLDS = (50_000, 20, 100)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The collector at THRESHOLDS inside, as it was after (a command run in-process, by a test
    or a host program, leaves the host's settings as they were)."""
    before = gc.get_threshold()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
