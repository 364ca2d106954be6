"""Branchy rewrites: a slip under a condition is never reported equivalent (#12).

benchmarks/branchy.py generates the pairs (B output rows under thresholds, else-if chains, nested
and correlated conditions; the slip's place and kind drawn from the seed) and measures the rate
over B = 1..64, idle and under load; these tests pin B = 32 and B = 64.
"""

from __future__ import annotations

import pytest

from benchmarks.branchy import branchy_pair
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_slip_among_32_branchy_rows_is_never_called_equivalent(seed: int) -> None:
    old, new, where = branchy_pair(32, 3200 + seed)
    result = verify_sources(old, new, Options(seed=0)).results[0]
    assert result.verdict in ("divergent", "inconclusive"), f"{where}: {result.to_json()}"


def test_the_same_32_rows_without_a_slip_are_not_divergent() -> None:
    old, new, _ = branchy_pair(32, 3201, slip=False)
    result = verify_sources(old, new, Options(seed=0)).results[0]
    assert result.verdict in ("equivalent", "inconclusive"), result.to_json()


@pytest.mark.parametrize("seed", [6400, 6402, 6404])
def test_64_branchy_rows_are_proven_and_their_slip_is_divergent(seed: int) -> None:
    """Issue 16 pins B = 64: the rewrite without a slip is proven (rows aligned and proven one by
    one, not 2^64 paths), the same rows with the seed's slip are divergent (not only 'not
    equivalent'), with a counterexample."""
    old, new, _ = branchy_pair(64, seed, slip=False)
    clean = verify_sources(old, new, Options(seed=0)).results[0]
    assert (clean.verdict, clean.method) == ("equivalent", "proven"), clean.to_json()
    old, new, where = branchy_pair(64, seed, slip=True)
    slipped = verify_sources(old, new, Options(seed=0)).results[0]
    assert slipped.verdict == "divergent", f"{where}: {slipped.to_json()}"
    assert slipped.divergences and slipped.divergences[0].counterexample, slipped.to_json()
