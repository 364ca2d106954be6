"""The proof of a pair: both sides traced on symbols and the traces compared (`fmtcheck.engine.paths`),
in two rounds: as the model traces every loop, then, failing that, with each loop both sides spell
alike one event of the state it starts in (`fmtcheck.c.sameloops`). A mixin-free pair of functions
of `fmtcheck.engine.verdict.Runner`, which holds the traces the testing uses after a proof."""

from __future__ import annotations

from typing import Any

from fmtcheck.c.symbolic import NotProvable, raised_at
from fmtcheck.c.values import UndefinedBehaviour
from fmtcheck.common.errors import FmtcheckError
from fmtcheck.engine import counts, paths

# interpreter steps a proof may spend tracing one path of a side: the proof traces a loop as one
# iteration, so a path that runs longer unrolls a loop it cannot summarise (a `while` on an unknown
# call), and testing, which has the whole MAX_STEPS per case, decides the pair instead
TRACE_STEPS = 20_000


def prove_in_two_rounds(runner: Any) -> tuple[bool, str | None]:
    """`prove_once`; failing, again with each loop both sides spell alike one event (c/sameloops)."""
    proven, note = prove_once(runner, same_loops=False)
    runner.proof_traces = runner.traces
    if proven:
        return proven, note
    saved = runner.traces, runner.loop_bounds, runner.witnesses  # testing's: an event renders no bytes
    same = prove_once(runner, same_loops=True)[0]
    runner.proof_traces = runner.traces if same else saved[0]
    runner.traces, runner.loop_bounds, runner.witnesses = saved
    return (True, None) if same else (False, note)


def prove_once(runner: Any, same_loops: bool) -> tuple[bool, str | None]:
    """Both sides traced on symbols, branches as rows or paths and loops as one iteration;
    traces the prover shows equal (fmtcheck.engine.paths) are a proof for every input."""
    conditions = paths.Conditions()
    run = lambda side: lambda i, o: (setattr(i, "same_loops", same_loops)  # noqa: E731
                                     or runner.run_side(side, i, o, limit=TRACE_STEPS))
    try:
        old_trace = paths.trace_side(run(runner.old), conditions)
        new_trace = paths.trace_side(run(runner.new), conditions)
    except NotProvable as why:
        return False, f"{why} at {raised_at(why)}" if raised_at(why) else str(why)
    except (UndefinedBehaviour, FmtcheckError) as why:
        return False, str(why)
    runner.traces = (old_trace, new_trace)
    runner.loop_bounds = counts.loop_bounds(runner.traces)
    proof = paths.TraceProof()
    if old_trace == new_trace or proof.traces_equal(old_trace, new_trace):
        return True, None
    runner.witnesses = [w for w in (conditions.witness(lits) for lits in proof.mismatches) if w]
    return False, "the two sides print different sequences of literal text and fields"

