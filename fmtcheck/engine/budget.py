"""Work budgets: every bound that can end a search is counted in work, never in time.

A search stops when it has run its planned cases, or when a budget counted in cases or interpreter
steps runs out: the same point on every machine and under any load, so the same `--seed` gives
the same report. Time is only a safety net far above any planned search; reaching it makes the
verdict inconclusive ("time limit"), never "equivalent". It is the process's CPU time, not the
wall clock: on a loaded machine the wall time of the same work grows with the load (6.6x at a
load of 8 on 2 cores was measured), so a wall-clock net fired before the step budget and the
answer depended on the load; CPU time grows only by cache effects, far inside the margin.
"""

from __future__ import annotations

import time
from fmtcheck.common.options import Bounds

CLOCK_PERIOD = 0.02  # seconds of wall time between readings of the CPU clock


class WorkBudget:
    """What one search has spent, and which bound (if any) ended it."""

    def __init__(self, bounds: Bounds | None = None) -> None:
        self.bounds = bounds or Bounds()
        self.cases = 0
        self.steps = 0
        self.started = time.process_time()
        self.ended_by: str | None = None

    def charge(self, steps: int) -> None:
        """One case run, with the interpreter steps it took."""
        self.cases += 1
        self.steps += steps

    def read_keys(self, count: int) -> None:
        """The search has read `count` distinct input paths so far: past the bound, it ends."""
        if self.ended_by is None and count > self.bounds.keys:
            self.ended_by = f"input budget ({self.bounds.keys:,} distinct input paths read)"

    def exhausted(self) -> bool:
        """True once any bound is reached; `ended_by` names the first one."""
        if self.ended_by is None:
            if self.cases >= self.bounds.cases:
                self.ended_by = f"case budget ({self.bounds.cases:,} cases)"
            elif self.steps >= self.bounds.steps:
                self.ended_by = f"step budget ({self.bounds.steps:,} interpreter steps)"
            elif self._clock_due() and time.process_time() - self.started > self.bounds.seconds:
                self.ended_by = f"time limit ({self.bounds.seconds:.0f} s of CPU, a safety net)"
        return self.ended_by is not None

    polled = 0.0

    def _clock_due(self) -> bool:
        """Whether to read the CPU clock on this check: at most every CLOCK_PERIOD seconds of
        wall time (reading it is a system call, 5 us and far more under load, which cost more
        than a compiled case; a wall-clock read is a few ns). Which check reads it changes
        nothing but when the time net, far above any planned search, is seen."""
        now = time.perf_counter()
        if now - self.polled < CLOCK_PERIOD:
            return False
        self.polled = now
        return True
