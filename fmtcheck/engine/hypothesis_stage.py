"""Stage 4 of the search (`fmtcheck.engine.search`): Hypothesis over the same input classes.

Apart from the runner's module so that Hypothesis is imported only when a search gets that far
(a proof or an early divergence never needs it).
"""

from __future__ import annotations

from typing import Any

from fmtcheck.common.options import Options
from fmtcheck.engine.inputs import HypothesisInputs


def hypothesis_search(runner: Any, options: Options) -> None:
    """Stage 4: Hypothesis over the same input classes, seeded, with settings of its own (no
    profile of the surrounding test run changes them); each example is one case of the budget."""
    from hypothesis import HealthCheck, Phase, given, seed, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    class _Diverged(Exception):
        pass

    @seed(options.seed)
    @settings(settings.get_profile("default"), max_examples=max(options.max_examples, 1),
              database=None, deadline=None, derandomize=False, phases=[Phase.generate],
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck), print_blob=False)
    @given(st.data())
    def probe(data) -> None:
        if runner.budget.exhausted():
            return
        inputs = HypothesisInputs(data)
        runner.hypothesis_cases += 1
        before = len(runner.divergent)
        runner.try_case(inputs, "hypothesis")
        if len(runner.divergent) > before:
            raise _Diverged()

    from fmtcheck.common.hypothesis_home import private_hypothesis_home

    with private_hypothesis_home():
        try:
            probe()
        except _Diverged:
            pass
        except HypothesisException:
            pass
