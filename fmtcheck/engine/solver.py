"""z3 for path conditions that relate several terms (imported only when a proof needs it).

Trees (fmtcheck.c.symbolic) are mathematical integers with explicit C truncations, so they map to
z3 integers: an input is an integer within its type's range, a truncation to `bits` is a modulo.
Operators with no exact integer form here (bitwise, shifts by a non-constant, C division) make the
answer "unknown", which the prover treats as satisfiable: a solver is only ever used to rule a path
out, never to rule it in. The solver's effort is bounded by its resource limit (work, not time).
"""

from __future__ import annotations

from typing import Any

RESOURCE_LIMIT = 200000


class _Untranslatable(Exception):
    pass


def satisfiable(lits) -> bool | None:
    """True, False, or None when z3 is absent, gives up, or a term has no exact form."""
    try:
        import z3
    except ImportError:
        return None
    try:
        solver = z3.Solver()
        solver.set("rlimit", RESOURCE_LIMIT)
        names: dict[str, Any] = {}
        for tree, positive in lits:
            value = _term(z3, tree, names, solver)
            solver.add(value != 0 if positive else value == 0)
        answer = solver.check()
    except _Untranslatable:
        return None
    if answer == z3.unsat:
        return False
    if answer == z3.sat:
        return True
    return None


def _bounds(bits: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def _wrap(z3, x, bits: int, signed: bool):
    m = 1 << bits
    if signed:
        return (x + (m >> 1)) % m - (m >> 1)
    return x % m


def _term(z3, tree: tuple, names: dict, solver):
    kind = tree[0]
    if kind == "k":
        return z3.IntVal(tree[1])
    if kind == "in":
        key, bits, signed = tree[1], tree[2], tree[3]
        if key not in names:
            names[key] = z3.Int(key)
            solver.add(names[key] >= -(1 << 127), names[key] < (1 << 128))
        return _wrap(z3, names[key], bits, signed)
    if kind == "wrap":
        return _wrap(z3, _term(z3, tree[3], names, solver), tree[1], tree[2])
    if kind == "neg":
        return -_term(z3, tree[1], names, solver)
    if kind in ("+", "-", "*"):
        a, b = _term(z3, tree[1], names, solver), _term(z3, tree[2], names, solver)
        return a + b if kind == "+" else a - b if kind == "-" else a * b
    if kind in ("<", ">", "<=", ">=", "==", "!="):
        a, b = _term(z3, tree[1], names, solver), _term(z3, tree[2], names, solver)
        test = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[kind]
        return z3.If(test, z3.IntVal(1), z3.IntVal(0))
    if kind == "<<" and tree[2][0] == "k" and 0 <= tree[2][1] < 128:
        return _term(z3, tree[1], names, solver) * (1 << tree[2][1])
    raise _Untranslatable(kind)
