"""Shifts as GCC builds the kernel: the interpreter and the fast path agree on every case.

A left shift of a negative signed value, or one that moves bits into or past the sign bit, is
defined (two's-complement wrap to the promoted left operand's type: GCC documents that it does not
treat signed `<<` as undefined, and the kernel builds with -fno-strict-overflow). A count that is
negative or at least the promoted left operand's width stays undefined behaviour: the interpreter
raises it, and the fast path hands that case to the interpreter (Fallback), also when the count
is an input (the trace names the operand's width only through the conversion around the shift).
"""

from __future__ import annotations

import pytest

from _paths import FIXTURES
from _runners import traced_runner
from fmtcheck.c.outputs import ConcreteOutput
from fmtcheck.c.symbolic import canonical
from fmtcheck.c.values import UndefinedBehaviour
from fmtcheck.common.options import Options
from fmtcheck.engine.fastpath import Fallback
from fmtcheck.engine.inputs import VectorInputs
from fmtcheck.engine.verdict import Runner, verify_sources


def show(decl: str, fmt: str, expr: str) -> str:
    return (f"struct a {{ {decl}; int sh; }};\n"
            "static int t_show(struct seq_file *m, void *v)\n{\n\tstruct a *a = v;\n\n"
            f'\tseq_printf(m, "{fmt}\\n", {expr});\n\treturn 0;\n}}\n')


def runner_for(source: str, rewrite: str | None = None) -> Runner:
    """A runner of SOURCE against REWRITE (itself by default) with its traces compiled."""
    runner = traced_runner(source.encode(), (rewrite or source).encode())
    assert runner.fast is not None, "the sides are branch-free: their traces compile"
    return runner


def both_ways(runner: Runner, vector: dict) -> tuple[object, object]:
    """(what the interpreter prints or "UB", what the fast path renders or "fallback")."""
    out = ConcreteOutput()
    try:
        runner.run_side(runner.old, VectorInputs(vector), out)
        slow: object = out.data
    except UndefinedBehaviour:
        slow = "UB"
    env = runner._environment(VectorInputs(vector))
    try:
        fast: object = runner.fast[0].render(env)[0]
    except Fallback:
        fast = "fallback"
    return slow, fast


# (declaration, format, expression, {input: value}, what C compiled by GCC prints or "UB")
CASES = [
    ("s64 x", "%lld", "a->x << 2", {"v->x": -1}, b"-4\n"),
    ("s64 x", "%lld", "a->x << 2", {"v->x": -(1 << 62)}, b"0\n"),
    ("s64 x", "%lld", "a->x << 1", {"v->x": 1 << 62}, b"-9223372036854775808\n"),
    ("s64 x", "%llu", "(u64)(a->x << 2)", {"v->x": -3}, b"18446744073709551604\n"),
    ("int x", "%d", "a->x << 31", {"v->x": 1}, b"-2147483648\n"),
    ("int x", "%d", "a->x << 4", {"v->x": -7}, b"-112\n"),
    ("int x", "%d", "a->x << 1", {"v->x": -(1 << 31)}, b"0\n"),
    ("s8 x", "%d", "a->x << 4", {"v->x": -8}, b"-128\n"),  # promoted to int: no wrap at 8 bits
    ("int x", "%d", "a->x << a->sh", {"v->x": -1, "v->sh": 3}, b"-8\n"),
    ("int x", "%d", "a->x << a->sh", {"v->x": -1, "v->sh": 31}, b"-2147483648\n"),
    ("int x", "%d", "a->x << a->sh", {"v->x": 1, "v->sh": 32}, "UB"),
    ("int x", "%d", "a->x << a->sh", {"v->x": 1, "v->sh": 40}, "UB"),
    ("int x", "%d", "a->x << a->sh", {"v->x": 1, "v->sh": -1}, "UB"),
    ("u32 x", "%u", "a->x >> a->sh", {"v->x": 1 << 31, "v->sh": 31}, b"1\n"),
    ("u32 x", "%u", "a->x >> a->sh", {"v->x": 1 << 31, "v->sh": 32}, "UB"),
    ("u32 x", "%u", "a->x >> a->sh", {"v->x": 1 << 31, "v->sh": 100}, "UB"),
    ("u64 x", "%llu", "a->x >> a->sh", {"v->x": 1 << 63, "v->sh": 40}, b"8388608\n"),
    ("u64 x", "%llu", "a->x >> a->sh", {"v->x": 1 << 63, "v->sh": 64}, "UB"),
    ("u64 x", "%llu", "a->x << a->sh", {"v->x": 1, "v->sh": 63}, b"9223372036854775808\n"),
    ("u64 x", "%llu", "a->x << a->sh", {"v->x": 1, "v->sh": 64}, "UB"),
    ("s64 x", "%lld", "a->x >> a->sh", {"v->x": -1 << 40, "v->sh": 8}, b"-4294967296\n"),
    ("u64 x", "%llu", "(u32)a->x << a->sh", {"v->x": 1, "v->sh": 32}, "UB"),  # u32 operand
]


@pytest.mark.parametrize("decl,fmt,expr,vector,expected", CASES,
                         ids=[f"{c[0]}: {c[2]} at " + ",".join(f"{k}={v}" for k, v in c[3].items()) for c in CASES])
def test_interpreter_and_fast_path_agree_on_shifts(decl, fmt, expr, vector, expected):
    slow, fast = both_ways(runner_for(show(decl, fmt, expr)), vector)
    assert slow == expected
    assert fast == ("fallback" if expected == "UB" else expected)


def test_a_negative_left_shift_is_defined_on_both_sides():
    """`(s64)x << 2` against `x * 4`: the same bytes for every x, negative ones included, through
    the interpreter as through the fast path (no one-sided "left shift of a negative value"
    makes the pair inconclusive)."""
    runner = runner_for(show("s64 x", "%lld", "a->x << 2"), show("s64 x", "%lld", "a->x * 4"))
    for x in (-1, -(1 << 61), -(1 << 63), (1 << 62) - 1):
        for observed in (True, False):  # the interpreter, then the fast path
            assert runner.run_case(VectorInputs({"v->x": x}), observed=observed) is not None
    assert not runner.one_sided_ub
    result = verify_sources(show("s64 x", "%lld", "a->x << 2"), show("s64 x", "%lld", "a->x * 4"),
                            Options(max_examples=30)).results[0]
    assert result.verdict == "equivalent", (result.reason, result.notes)


def test_a_count_past_one_sides_width_is_not_hidden_by_the_fast_path():
    """`(u32)x << sh` is undefined for sh in 32..63 where `(u64)(u32)x << sh` is not; printed
    through %u both give 0 there, so a fast path that computed the shift would call the case the
    same, and the one-sided undefined behaviour (no "equivalent" may be claimed) would go unseen."""
    runner = runner_for(show("u64 x", "%u", "(u32)a->x << a->sh"),
                        show("u64 x", "%u", "(u32)((u64)(u32)a->x << a->sh)"))
    assert runner.run_case(VectorInputs({"v->x": 1, "v->sh": 40})) is None
    assert runner.one_sided_ub and "shift by 40 of a 32-bit value" in runner.one_sided_ub[0]
    assert runner.run_case(VectorInputs({"v->x": 1, "v->sh": 31})) is not None  # defined on both


def test_the_helper_whose_operand_type_is_undeclared_is_proven_in_every_type():
    """pool_info_show: `pages << 2` through an `unsigned long` parameter against `pc->total << 2`
    in %lu. Taken as s64 the traces differ by a conversion the value does not need
    ((u64)(s64)(x << 2) and (u64)(x << 2)); the proof sees through it, so no search runs."""
    pair = FIXTURES / "pairs" / "helper"
    result = verify_sources((pair / "old.c").read_text(), (pair / "new.c").read_text(), Options()).results[0]
    assert (result.verdict, result.method) == ("equivalent", "proven")
    assert result.cases < 10, result.cases


X64S, X64U = ("in", "x", 64, True), ("in", "x", 64, False)


@pytest.mark.parametrize("a,b,same", [
    # a wider or equal conversion inside a truncation changes no bit the truncation keeps
    (("wrap", 64, False, ("wrap", 64, True, ("<<", X64S, ("k", 2)))), ("wrap", 64, False, ("<<", X64U, ("k", 2))), True),
    (("wrap", 32, False, ("+", ("wrap", 64, True, X64S), ("k", -1))), ("wrap", 32, False, ("+", X64U, ("k", 4294967295))), True),
    (("wrap", 32, True, ("*", ("~", X64S), ("k", 3))), ("wrap", 32, True, ("*", ("~", ("in", "x", 32, True)), ("k", 3))), True),
    # a narrower one does, and so does any operator whose low bits read high ones
    (("wrap", 64, False, ("wrap", 32, True, ("<<", X64S, ("k", 2)))), ("wrap", 64, False, ("<<", X64U, ("k", 2))), False),
    (("wrap", 32, False, (">>", X64S, ("k", 1))), ("wrap", 32, False, (">>", X64U, ("k", 1))), False),
    (("wrap", 32, False, ("/", X64S, ("k", 3))), ("wrap", 32, False, ("/", X64U, ("k", 3))), False),
    (("wrap", 64, False, ("in", "x", 32, True)), ("wrap", 64, False, ("in", "x", 32, False)), False),
    # the conversion around a shift by an input names the width its count must stay under
    (("wrap", 32, False, ("wrap", 64, False, ("<<", X64U, ("in", "n", 32, True)))),
     ("wrap", 32, False, ("<<", X64U, ("in", "n", 32, True))), False),
])
def test_canonical_trees_are_equal_only_for_one_value(a, b, same):
    assert (canonical(a) == canonical(b)) == same
