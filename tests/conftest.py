"""Test configuration shared by every kind of test.

CI sets CI=true: Hypothesis then runs derandomized with no deadline, so a run is repeatable.
Locally the default profile keeps Hypothesis's randomness (with the deadline off, since the
models are timed by benchmarks, not by tests).
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI", "").lower() not in ("", "0", "false") else "dev")
