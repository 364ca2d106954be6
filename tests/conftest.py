"""Test configuration shared by every kind of test.

CI sets CI=true: Hypothesis then runs derandomized with no deadline, so a run is repeatable.
Locally the default profile keeps Hypothesis's randomness (with the deadline off, since the
models are timed by benchmarks, not by tests).
"""

from __future__ import annotations

import os
from hypothesis import HealthCheck, settings

# pytester drives the plugin tests (tests/plugin); it may only be enabled here, at the top.
pytest_plugins = ["pytester"]

from _paths import FIXTURES, ROOT, SHARED  # noqa: F401 - re-exported for older tests

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


# Known engine bugs, each pinned by a test that is right per the spec. They run as strict xfail:
# the suite fails the day one of them starts passing, so the list cannot go stale silently.
KNOWN_BUGS = {
    "tests/unit/test_cfront.py::test_undefined_string_macro_in_a_format_is_named":
        "the reason names the format, not the undefined macro in it",
    "tests/unit/test_engine_pairs.py::test_an_output_line_is_reported_once":
        "a line whose template changes with a loop count is reported once per template",
    "tests/unit/test_engine_pairs.py::test_divergent_pair[separator_moved]":
        "same cause: the breaking worst case lands on one of several per-template reports",
    "tests/unit/test_interp.py::test_integer_semantics[10u + -11 wraps in 32 bits]":
        "the test's helper is called through a function pointer, which is not modelled",
    "tests/unit/test_interp.py::test_field_is_the_callers_input_when_the_value_goes_through_a_helper":
        "inside a helper the field is named by the helper's parameter",
    "tests/unit/test_interp.py::test_constant_text_is_not_a_field[\\tseq_puts(m, \"ab\");\\n\\tseq_write(m, \"!\", sizeof(\"!\") - 1);\\n]":
        "seq_write of a literal still credits the byte range to its length expression",
}


# Found by a property test: under CI's derandomized profile the example is fixed and it fails
# every time; elsewhere Hypothesis may not draw it, so it is not strict there.
KNOWN_PROPERTY_BUGS = {
    "tests/property/test_capture_exact.py::test_one_change_is_found_where_it_is":
        "a name glued to the next number (diskstats 'sda14200') is reported at the line's end",
}


def pytest_collection_modifyitems(config, items):
    import pytest

    ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
    for item in items:
        reason = KNOWN_BUGS.get(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.xfail(reason=f"known bug: {reason}", strict=True))
        reason = KNOWN_PROPERTY_BUGS.get(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.xfail(reason=f"known bug: {reason}", strict=ci))
