"""Cases of the search that need no run: the zero case again, or one that renders as it.

The `alone` stage moves each input through its boundaries with every other input at zero. Over a
loop's inputs most of those cases change only inputs that the zero case never reads (an element
of an array whose count is 0, a member of a node past the chain's end): they run exactly as the
zero case, which printed the same bytes on both sides. Such a case is passed over: not counted
when it is the zero case again (`fmtcheck.engine.bases`), counted as a case that ran when the
compiled traces take it as the zero case (`counted_as_zero`). A 64-field chain has 25,000 of
them; `alone_stage` decides them input by input, with the effects (counts, budget) one decision
per case would have, in the same order, without building a vector and an input source for each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from fmtcheck.engine import counts
from fmtcheck.engine.inputs import base_key
from fmtcheck.engine.fastpath import ZeroReads
from fmtcheck.engine.inputs import VectorInputs, axis_values, zero_value

if TYPE_CHECKING:
    from fmtcheck.engine.verdict import Runner

MAX_DIVERGENT_CASES = 500  # differing cases collected before the search stops (the report needs few)
MAX_OVER_BOUND = 8  # cases a per-case bound may end before the search stops (each costs a whole bound)

_PLAIN = (int, bytes)
_MISSING = object()


def renders_as_zero(runner: "Runner", zero: bool, named: dict | None) -> bool:
    """A zero-based vector (naming `named`) that changes only inputs the zero case does not read:
    the same as the zero case (`fastpath.ZeroReads`), which the compiled traces rendered equal."""
    if named is None or not zero:
        return False
    zeros = runner._zeros()
    if runner.zero_reads is None or runner.zero_reads.zeros is not zeros:
        runner.zero_reads = ZeroReads(runner.fast, zeros)
    return runner.zero_reads.renders_as_zero(named)


def counted_as_zero(runner: "Runner", vector: dict[str, Any]) -> bool:
    """`try_case(VectorInputs(vector, zero=True))` of a case the compiled traces take as the zero
    case (`renders_as_zero`), without building its input source (most of the `alone` stage over
    a loop's inputs: 22,801 of 23,304 cases of a 64-field chain): counted, and nothing learned, as
    it reads nothing. False where try_case decides (it then runs it)."""
    if any(type(v) not in _PLAIN for v in vector.values()):  # (VectorInputs converts a bytearray)
        return False
    if not _may_count(runner) or runner.budget.exhausted():
        return False
    if runner.divergent and counts.too_long_after_divergence(vector, runner.loop_bounds):
        return True  # passed over, as try_case does
    if not renders_as_zero(runner, True, vector):
        return False
    runner.cases += 1
    runner.budget.charge(1)
    return True


def _may_count(runner: "Runner") -> bool:
    """What `counted_as_zero` asks of the runner besides the budget: compiled traces, and a
    search not ended by its differences or its costly cases."""
    return (runner.fast is not None and len(runner.divergent) <= MAX_DIVERGENT_CASES
            and runner.costly_over_bound < MAX_OVER_BOUND)


def passed_over(runner: "Runner", vector: dict[str, Any]) -> bool:
    """An `alone` vector not run: the zero case again (`fmtcheck.engine.bases`: not counted), or
    one the compiled traces take as the zero case (`counted_as_zero`: counted)."""
    return runner.bases.is_base_again(vector, True) or counted_as_zero(runner, vector)


def alone_stage(runner: "Runner", fresh: dict[str, Any]) -> bool:
    """Stage 2 over the inputs FRESH: each alone at each of its boundaries (`inputs.alone`, in its
    order), every case `passed_over` passes over counted as it counts it, the others run by
    `try_case`. False once the search must stop (as try_case says)."""
    for key, kind in fresh.items():
        zero = zero_value(kind)
        values = [v for v in axis_values(kind) if v != zero]
        at = 0
        while at < len(values):
            at += passed_over_in_a_row(runner, key, values, at)
            if at < len(values):
                if not runner.try_case(VectorInputs({key: values[at]}, zero=True), "alone"):
                    return False
                at += 1
    return True


def passed_over_in_a_row(runner: "Runner", key: str, values: list[Any], start: int) -> int:
    """How many of the vectors `{key: v}`, v in values[start:], `passed_over` passes over one after
    the other, with its effects: each the zero case again counted in `bases.skipped`, each taken
    as the zero case counted as a case and charged to the budget. Decided once for KEY where the
    answer does not depend on v, and the budget's count bounds checked by arithmetic (its clock,
    a safety net far above any planned search, is read once per run of cases, not once per case)."""
    bases = runner.bases
    base = bases.bases.get(True)
    if base is not None and base_key(key) not in base[1]:
        bases.skipped += len(values) - start  # the zero case never read it: each is that case again
        return len(values) - start
    held = base[0].get(key, _MISSING) if base is not None else _MISSING
    budget = runner.budget
    room = None  # cases the budget's counts still allow (None: not yet asked)
    bounded = bool(runner.divergent) and key in runner.loop_bounds
    as_zero = None  # `renders_as_zero` of {key: v}, made once the traces' zero case is read
    done = 0
    for value in values[start:]:
        if type(held) is type(value) and held == value:
            bases.skipped += 1
            done += 1
            continue
        if type(value) not in _PLAIN or not _may_count(runner):
            return done
        if room is None:
            if budget.exhausted():
                return done
            room = min(budget.bounds.cases - budget.cases, budget.bounds.steps - budget.steps)
        if room <= 0:
            return done
        if bounded and counts.too_long_after_divergence({key: value}, runner.loop_bounds):
            done += 1  # passed over, not counted, as try_case does
            continue
        if as_zero is None:
            if not renders_as_zero(runner, True, {key: value}):
                return done
            as_zero = _renders_as_zero_for(runner.zero_reads, key)
        elif not as_zero(value):
            return done
        runner.cases += 1
        budget.charge(1)
        room -= 1
        done += 1
    return done


def _renders_as_zero_for(zero_reads: ZeroReads, key: str) -> Callable[[Any], bool]:
    """`zero_reads.renders_as_zero({key: v})` as a function of v, KEY's part of it decided once:
    a value of its zero's type, at the zero when the zero case reads KEY."""
    if zero_reads.keys is None:
        return lambda value: False
    zero = zero_reads.zeros.get(key, _MISSING)
    if key in zero_reads.keys:
        return lambda value: type(value) is type(zero) and value == zero
    return lambda value: type(value) is type(zero)
