"""A runner of two sources with both sides' traces compiled, as the engine has it after its
discovery case: for tests that compare the fast path with the interpreter case by case."""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.engine.inputs import VectorInputs
from fmtcheck.engine.verdict import Runner, pair_functions, side_of


def traced_runner(old_src: bytes, new_src: bytes, old_label: str = "old.c", new_label: str = "new.c") -> Runner:
    old = cfront.parse_unit(old_src, old_label)
    new = cfront.parse_unit(new_src, new_label)
    (old_name, new_name), = pair_functions(old, new, None)[:1]
    space = InputSpace()
    collect_hints(old, space)
    collect_hints(new, space)
    runner = Runner(side_of(old, space, old_name, "old"), side_of(new, space, new_name, "new"))
    runner.prove()
    discovery = VectorInputs()
    runner.run_slow(discovery)
    runner.kinds = dict(discovery.kinds)
    runner.enable_fast_path()
    return runner
