"""The compiled-trace renderer must print exactly what the interpreter prints, for every input.

The engine trusts the fast path to say "same bytes" for most cases, so it is checked here against
the reference interpreter, side by side, on the project's fixture pairs and on boundary-heavy
inputs drawn by Hypothesis."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _paths import FIXTURES
from _runners import traced_runner
from fmtcheck.engine.verdict import Runner
from fmtcheck.engine.fastpath import Fallback
from fmtcheck.engine.inputs import VectorInputs, int_strategy, str_strategy
from fmtcheck.c.outputs import ConcreteOutput

PAIRS = sorted(p for p in (FIXTURES / "pairs").iterdir() if p.is_dir()) + [FIXTURES / "example"]


def runner_for(old_path: Path, new_path: Path) -> Runner:
    return traced_runner(old_path.read_bytes(), new_path.read_bytes(), str(old_path), str(new_path))


def traced_sides() -> list:
    cases = []
    for pair in PAIRS:
        for new in sorted(pair.glob("new*.c")):
            runner = runner_for(pair / "old.c", new)
            if runner.fast is not None:
                cases.append(pytest.param(runner, id=f"{pair.name}/{new.name}"))
    return cases


TRACED = traced_sides()


def test_some_fixtures_take_the_fast_path():
    assert len(TRACED) >= 5


@pytest.mark.parametrize("runner", TRACED)
@settings(max_examples=60)
@given(data=st.data())
def test_fast_path_prints_what_the_interpreter_prints(runner, data):
    vector = {}
    for key, kind in runner.kinds.items():
        if kind[0] == "loop":
            vector[key] = data.draw(st.integers(0, 3), label=key)
        else:
            vector[key] = data.draw(int_strategy(kind) if kind[0] == "int" else str_strategy(kind[1]), label=key)
    env = runner._environment(VectorInputs(vector))
    assert env is not None
    for side, renderer in zip((runner.old, runner.new), runner.fast):
        out = ConcreteOutput()
        try:
            runner.run_side(side, VectorInputs(vector), out)
        except Exception:  # undefined behaviour: the fast path must not claim a rendering either
            with pytest.raises(Fallback):
                renderer.render(env)
            continue
        try:
            rendered = renderer.render(env)
        except Fallback:
            continue  # a case the fast path hands to the interpreter (an input it has not seen)
        assert rendered == (out.data, out.events)
