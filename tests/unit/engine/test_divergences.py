"""Divergent verdicts without the slow paths (issue 16): a difference the compiled traces find is
kept as bytes, and only the cases the report describes run through the interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import loops
from fmtcheck.common.errors import Inconclusive
from fmtcheck.common.options import Options
from fmtcheck.engine import divergences
from fmtcheck.engine.divergences import PendingOutcome, RenderedOutput
from fmtcheck.engine.fastpath import key_of
from fmtcheck.engine.inputs import VectorInputs
from fmtcheck.engine.verdict import verify_sources

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "fixtures" / "example"


def test_loop_keys_are_built_for_each_iteration_and_value():
    env = {"#0": 3, "#1": -2, "n": 0xFFFFFFFF, "m": 5}
    assert key_of("e[#0]->c5")(env) == "e[3]->c5"
    assert key_of("kstat(@n:s32,#0)")(env) == "kstat(-1,3)"
    assert key_of("x(@n:u32,@m:s8,#0)")(env) == "x(4294967295,5,3)"
    assert key_of("a%b[#0][#1]")(env) == "a%b[3][-2]"
    assert key_of("plain->key") is None and key_of("#0") is None


class _Refuting:
    """A runner whose interpreter shows no difference on any case."""

    aliases: dict = {}
    more_lines = 0

    def run_slow(self, inputs):
        return None


def test_a_difference_the_interpreter_does_not_confirm_is_never_reported():
    pending = PendingOutcome(RenderedOutput(b"a 1\n"), RenderedOutput(b"a  1\n"), {"x": 1},
                             source=VectorInputs({"x": 1}))
    with pytest.raises(Inconclusive):
        divergences.report(_Refuting(), [pending])


def test_a_divergent_sweep_is_reported_from_interpreter_runs_without_hypothesis():
    """The 16-field line with a width slip: divergent, its counterexample confirmed and replayed
    by the interpreter (field and source line known), and Hypothesis never imported."""
    code = (
        "import sys\n"
        "from fmtcheck.common.options import Options\n"
        "from fmtcheck.engine.verdict import verify_files\n"
        f"r = verify_files({str(EXAMPLE / 'old.c')!r}, {str(EXAMPLE / 'new-glued.c')!r}, Options()).results[0]\n"
        "d = r.divergences[0]\n"
        "print(r.verdict, d.field, d.severity, 'hypothesis' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["divergent", "c->rx_bytes", "breaking", "False"]


def test_a_list_walk_slip_is_divergent_at_every_reported_line_with_a_minimal_counterexample():
    old, new = loops.list_walk(4, True)
    result = verify_sources(old, new, Options()).results[0]
    assert result.verdict == "divergent"
    for number, div in enumerate(result.divergences, 1):
        assert div.line == number
        nonzero = {k: v for k, v in div.counterexample.items() if v not in (0, b"")}
        assert list(nonzero.values()) == [number]  # the walk's length alone: the fewest entries
        assert "[" not in next(iter(nonzero))  # that reach the line, every entry's fields 0
