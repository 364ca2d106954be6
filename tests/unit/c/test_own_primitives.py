"""A side that defines a seq_file primitive itself runs that C body, not the built-in model."""

from __future__ import annotations

from _paths import FIXTURES
from fmtcheck.engine.verdict import verify_sources
from fmtcheck.common.options import Options

PAIR = FIXTURES / "own_primitive"


def judge(new_name: str):
    old = (PAIR / "old.c").read_bytes()
    new = (PAIR / new_name).read_bytes()
    return verify_sources(old, new, Options(max_examples=30), function="show").results[0]


def test_a_faithful_c_body_is_equivalent_but_not_proven():
    result = judge("new.c")
    assert result.verdict == "equivalent" and result.method == "tested"
    assert any("own body for seq_put_decimal_ull_width" in n for n in result.notes)


def test_a_slip_in_the_c_body_is_found():
    result = judge("new-bad.c")
    assert result.verdict == "divergent"
    d = result.divergences[0]
    assert (d.line, d.column, d.kind) == (1, 7, "nul-byte")
    assert d.actual == b" " + str(d.counterexample["v->a"]).rjust(5).encode() + b"\x00"
