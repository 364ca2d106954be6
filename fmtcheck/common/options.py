"""Options shared by every command, as one value passed down the stages."""

from __future__ import annotations

import os

from fmtcheck.common.plain import factory, plain


def in_ci() -> bool:
    """CI sets CI=true; runs there must be deterministic."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@plain(frozen=True)
class Bounds:
    """The budgets of testing one function, both sides together, counted in work so that they
    end a search at the same point on every machine (`fmtcheck.engine.budget`)."""

    cases: int = 25_000  # cases run: sweep, Hypothesis, aimed cases (shrinking has its own)
    steps: int = 20_000_000  # interpreter steps over all those cases
    # distinct input paths the two sides read over all those cases: each is kept (kinds, reads,
    # notes), and a loop that stores into the caller's data names every later read anew (the
    # per-cpu sums of rt_acct_proc_show: 2,048 new paths per cpu per case, past 1 GB at 60 s)
    keys: int = 250_000
    seconds: float = 300.0  # CPU seconds, a safety net only: a search it ends is inconclusive ("time limit")


@plain
class Options:
    seed: int = 0
    max_examples: int = 200
    function: str | None = None
    grammar: str | None = None
    tree: str | None = None
    fail_on: str = "any"  # "any" | "breaking"
    consumers: bool = False
    bounds: Bounds = factory(Bounds)
    # `patch --base REV`: read the files before the patch from this commit of the --tree checkout
    base: str | None = None
    # overall work bound of one invocation: functions judged by the engine (README, "Limits")
    max_functions: int = 2000
    # the symbolic proof runs first; off, the search alone decides (its own tests and benchmarks)
    proof: bool = True
    # a `*` width or precision argument the code does not compute ranges over 0..star_max
    star_max: int = 16
