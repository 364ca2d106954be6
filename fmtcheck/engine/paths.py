"""Proof beyond straight lines: traces with conditions and loops, compared row by row.

A proof-mode trace (see `fmtcheck.c.outputs.TraceOutput`) may hold, besides literal bytes and
fields, two structured items the interpreter emits when a side branches or loops on its inputs:

- ``("if", cond, then_items, else_items)``: the side printed `then_items` when the expression tree
  `cond` is non-zero, `else_items` otherwise;
- ``("loop", key, body_items)``: the body printed `body_items` once per iteration of the loop whose
  count is the input `key`; the body's per-iteration inputs are named with a `#` placeholder. A
  counted loop (`for (i = 0; i < E; i++)`) carries a fourth element, how its count follows from
  the inputs: ``(E's tree, E's type, the counter's type, the comparison's type)``.

`traces_equal` decides whether two such traces print the same bytes for every input. It walks both
traces together, stripping what they share byte by byte. Two `if` rows on the same condition are
compared arm by arm (64 independent rows are 64 small proofs), two loops on the same count are
compared body by body (induction: equal bodies for the same iteration inputs print equal bytes for
every count), and a loop whose body starts with constant bytes that also follow the loop is
rotated ((y x)^n y = y (x y)^n), which is how a separator moves from after a field to before it.
Anything else is split on the first undecided condition, both ways, under the path condition.

A "no" is never a counterexample: it only means "not proven", and the engine tests instead. So
the conditions need only be refuted exactly: `feasible` answers False only for a conjunction it
has shown to be unsatisfiable (intervals of single terms compared with constants, which is what
printers test: flags, masks, zero checks, limits), with z3 for conjunctions that relate terms.
All bounds are counted in work, never in time.
"""

from __future__ import annotations

from typing import Any

MAX_PROOF_STEPS = 20000
_SMALL_DOMAIN = 64


class ProofBudget(Exception):
    """The comparison needed more splits than its bound: not proven."""


def is_if(item: Any) -> bool:
    return isinstance(item, tuple) and item[0] == "if"


def is_loop(item: Any) -> bool:
    return isinstance(item, tuple) and item[0] == "loop"


def _same_field(x: Any, y: Any) -> bool:
    """Two fields of the same conversion whose values are one value written differently
    (`symbolic.canonical`): `%lu` of `(u64)(s64)(x << 2)` and of `(u64)(x << 2)`."""
    if not (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) == 6 and x[0] == y[0] == "int"):
        return False
    from fmtcheck.c.symbolic import canonical
    return x[:5] == y[:5] and canonical(x[5]) == canonical(y[5])


def is_structured(items: list) -> bool:
    """Whether a trace holds a condition or a loop (a straight trace is compared by equality)."""
    return any(is_if(i) or is_loop(i) for i in items)


# ---------------------------------------------------------------------------------------------
# conditions


_FLIP = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}
_COMPARISONS = frozenset(_FLIP)


def literal(tree: tuple, positive: bool) -> tuple[tuple, bool]:
    """A condition in canonical form: ``(atom, ">" | "==", constant)`` or a bare atom (true when
    non-zero), with its polarity. Equivalent conditions written differently (`x > 5`, `5 < x`,
    `!(x <= 5)`, `x >= 6`) get the same form, so that two sides' rows align."""
    while True:
        kind = tree[0]
        if kind == "wrap" and tree[3][0] in _COMPARISONS and tree[1] >= 2:
            tree = tree[3]
            continue
        if kind in _COMPARISONS:
            op, left, right = kind, tree[1], tree[2]
            if left[0] == "k" and right[0] != "k":
                op, left, right = _FLIP[op], right, left
            if right[0] != "k":
                return (op, left, right), positive
            c = right[1]
            if c == 0 and op in ("==", "!="):
                tree, positive = left, positive == (op == "!=")
                continue
            if op == "!=":
                return ("==", left, ("k", c)), not positive
            if op == ">=":
                return (">", left, ("k", c - 1)), positive
            if op == "<":
                return (">", left, ("k", c - 1)), not positive
            if op == "<=":
                return (">", left, ("k", c)), not positive
            return (op, left, ("k", c)), positive
        return tree, positive


def _range(tree: tuple) -> tuple[float, float]:
    """Bounds every value of the tree lies in (wider is always safe)."""
    kind = tree[0]
    if kind == "in" or kind == "wrap":
        bits, signed = (tree[2], tree[3]) if kind == "in" else (tree[1], tree[2])
        return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if kind in _COMPARISONS:
        return 0, 1
    if kind == "&":
        for side in (tree[1], tree[2]):
            if side[0] == "k" and side[1] >= 0:
                return 0, side[1]
    return float("-inf"), float("inf")


class _Atom:
    __slots__ = ("lo", "hi", "excluded")

    def __init__(self, tree: tuple) -> None:
        self.lo, self.hi = _range(tree)
        self.excluded: set[int] = set()

    def empty(self) -> bool:
        if self.lo > self.hi:
            return True
        if self.hi - self.lo < _SMALL_DOMAIN:
            return all(v in self.excluded for v in range(int(self.lo), int(self.hi) + 1))
        return False


def _constrain(atoms: dict, lit: tuple[tuple, bool]) -> bool:
    """Adds one literal; False when it is refuted (by a constant or by its atom's bounds)."""
    tree, positive = lit
    if tree[0] == "k":
        return (tree[1] != 0) == positive
    if tree[0] in (">", "==") and tree[2][0] == "k":
        atom_tree, c = tree[1], tree[2][1]
        if atom_tree[0] == "k":
            value = atom_tree[1] > c if tree[0] == ">" else atom_tree[1] == c
            return value == positive
        atom = atoms.setdefault(atom_tree, _Atom(atom_tree))
        if tree[0] == ">":
            if positive:
                atom.lo = max(atom.lo, c + 1)
            else:
                atom.hi = min(atom.hi, c)
        elif positive:
            atom.lo, atom.hi = max(atom.lo, c), min(atom.hi, c)
        else:
            atom.excluded.add(c)
        return not atom.empty()
    atom = atoms.setdefault(tree, _Atom(tree))
    if positive:
        atom.excluded.add(0)
    else:
        atom.lo, atom.hi = max(atom.lo, 0), min(atom.hi, 0)
    return not atom.empty()


class Conditions:
    """Feasibility of path conditions, cached (the same prefixes recur across rows)."""

    def __init__(self) -> None:
        self.cache: dict[frozenset, bool] = {}
        self.solver_calls = 0

    def feasible(self, lits: frozenset) -> bool:
        """False only when the conjunction is proven unsatisfiable."""
        known = self.cache.get(lits)
        if known is None:
            known = self._decide(lits)
            self.cache[lits] = known
        return known

    def _decide(self, lits: frozenset) -> bool:
        atoms: dict = {}
        for lit in sorted(lits, key=repr):
            if not _constrain(atoms, lit):
                return False
        if _needs_solver(atoms) and not _satisfied_by_example(lits, atoms):
            self.solver_calls += 1
            from fmtcheck.engine import solver

            return solver.satisfiable(lits) is not False
        return True

    def witness(self, lits: frozenset) -> dict[str, int] | None:
        """Input values that satisfy the path condition, when simple choices do (each input at the
        smallest value its interval and exclusions leave, flags set or clear as required); checked
        by evaluating every literal. The engine tests these first: where a proof failed is where
        the sides are most likely to differ."""
        from fmtcheck.engine.fastpath import Fallback, compile_tree, tree_keys

        lits = frozenset(lit for lit in lits if not any("#" in k for k in tree_keys(lit[0])))
        atoms: dict = {}
        for lit in sorted(lits, key=repr):
            if not _constrain(atoms, lit):
                return None
        env: dict[str, int] = {}
        for tree, atom in atoms.items():
            _choose(tree, atom, env)
        values = {key: env.get(key, 0) for lit in lits for key in tree_keys(lit[0])}
        try:
            if all((compile_tree(tree)(values) != 0) == positive for tree, positive in lits):
                return values
        except (Fallback, ValueError, KeyError, TypeError):
            return None
        return None

    def decided(self, lits: frozenset, lit: tuple[tuple, bool]) -> bool | None:
        """True/False when the path condition fixes the literal, None when both ways are open."""
        tree, positive = lit
        if not self.feasible(lits | {(tree, not positive)}):
            return True
        if not self.feasible(lits | {lit}):
            return False
        return None


def _satisfied_by_example(lits: frozenset, atoms: dict) -> bool:
    """Whether simple values satisfy every literal: then the conjunction is satisfiable, shown
    exactly by evaluating it, and z3 (~0.1 s to load) is not needed. The values tried: each input
    at what its own atom picks (else 0), every input at -1 (the top of an unsigned type) and at 1.
    A literal over a loop's per-iteration input is left to the solver."""
    from fmtcheck.engine.fastpath import Fallback, compile_tree, tree_keys

    keys = {key for tree, _ in lits for key in tree_keys(tree)}
    if any("#" in key for key in keys):
        return False
    small: dict[str, int] = {}
    for tree, atom in atoms.items():
        _choose(tree, atom, small)
    try:
        tests = [(compile_tree(tree), positive) for tree, positive in lits]
    except (ValueError, KeyError, TypeError):
        return False
    for values in ({key: small.get(key, 0) for key in keys}, dict.fromkeys(keys, -1), dict.fromkeys(keys, 1)):
        try:
            if all((test(values) != 0) == positive for test, positive in tests):
                return True
        except (Fallback, ValueError, KeyError, TypeError):
            continue
    return False


def _pick(atom: _Atom) -> int | None:
    candidates = [0, 1, -1, atom.lo, atom.lo + 1, atom.hi, atom.hi - 1]
    fits = [int(v) for v in candidates
            if v not in (float("inf"), float("-inf")) and atom.lo <= v <= atom.hi and v not in atom.excluded]
    return min(fits, key=abs) if fits else None


def _choose(tree: tuple, atom: _Atom, env: dict) -> None:
    """A value for the input under one atom (an input, a truncated input, or an input's mask)."""
    value = _pick(atom)
    if value is None:
        return
    if tree[0] == "in":
        env.setdefault(tree[1], value)
    elif tree[0] == "wrap" and tree[3][0] == "in":
        env.setdefault(tree[3][1], value)
    elif tree[0] == "&" and tree[1][0] == "in" and tree[2][0] == "k" and value:
        env[tree[1][1]] = env.get(tree[1][1], 0) | (value & tree[2][1])
    elif tree[0] == "&" and tree[2][0] == "in" and tree[1][0] == "k" and value:
        env[tree[2][1]] = env.get(tree[2][1], 0) | (value & tree[1][1])


def _needs_solver(atoms: dict) -> bool:
    """Several atoms over one input (`x + y > 3` and `x < 2`): intervals alone cannot relate them.
    An atom that shares no input with another is decided by its own bounds (wider than its true
    values at worst, which only ever leaves a path in)."""
    from fmtcheck.engine.fastpath import tree_keys

    seen: set[str] = set()
    for tree in atoms:
        keys = tree_keys(tree)
        if keys & seen:
            return True
        seen |= keys
    return False


# ---------------------------------------------------------------------------------------------
# comparing traces


class TraceProof:
    """`equal(a, b)`: do two traces print the same bytes under every input? (sound, incomplete)"""

    def __init__(self, max_steps: int = MAX_PROOF_STEPS) -> None:
        self.conditions = Conditions()
        self.steps = 0
        self.max_steps = max_steps
        self.rows = 0
        self.loops = 0
        self.mismatches: list[frozenset] = []  # path conditions where the traces differed

    def traces_equal(self, a: list, b: list) -> bool:
        try:
            return self._equal(frozenset(), list(a), list(b))
        except ProofBudget:
            return False

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise ProofBudget()

    def _equal(self, lits: frozenset, a: list, b: list) -> bool:
        while True:
            self._tick()
            a = self._settle(lits, a)
            b = self._settle(lits, b)
            if not a and not b:
                return True
            x = a[0] if a else None
            y = b[0] if b else None
            if isinstance(x, bytes) and isinstance(y, bytes):
                n = _common_prefix(x, y)
                if n == 0:
                    if len(self.mismatches) < 8 and lits not in self.mismatches:
                        self.mismatches.append(lits)
                    return False
                a = _drop_bytes(a, n)
                b = _drop_bytes(b, n)
                continue
            if x is not None and (x == y or _same_field(x, y)):
                a, b = a[1:], b[1:]
                continue
            if is_if(x) and is_if(y) and self._rows_equal(lits, x, y):
                a, b = a[1:], b[1:]
                continue
            if is_loop(x) and is_loop(y) and x[1] == y[1] and self._equal(lits, list(x[2]), list(y[2])):
                self.loops += 1
                a, b = a[1:], b[1:]
                continue
            head = x if is_if(x) else (y if is_if(y) else None)
            if head is None:
                if len(self.mismatches) < 8 and lits not in self.mismatches:
                    self.mismatches.append(lits)
                return False
            return self._split(lits, head[1], a, b)

    def _rows_equal(self, lits: frozenset, x: tuple, y: tuple) -> bool:
        """Two rows on the same condition: each arm against its counterpart."""
        cx, px = literal(x[1], True)
        cy, py = literal(y[1], True)
        if cx != cy:
            return False
        xt, xe = (x[2], x[3]) if px else (x[3], x[2])
        yt, ye = (y[2], y[3]) if py else (y[3], y[2])
        on, off = lits | {(cx, True)}, lits | {(cx, False)}
        ok = ((not self.conditions.feasible(on) or self._equal(on, list(xt), list(yt)))
              and (not self.conditions.feasible(off) or self._equal(off, list(xe), list(ye))))
        if ok:
            self.rows += 1
        return ok

    def _split(self, lits: frozenset, cond: tuple, a: list, b: list) -> bool:
        tree, _ = literal(cond, True)
        for positive in (True, False):
            branch = lits | {(tree, positive)}
            if self.conditions.feasible(branch) and not self._equal(branch, a, b):
                return False
        return True

    def _settle(self, lits: frozenset, items: list) -> list:
        """The head of a trace in normal form: decided conditions inlined, empty rows and loops
        dropped, adjacent literals joined, loops rotated to put constant bytes first."""
        while items:
            head = items[0]
            if isinstance(head, bytes):
                if not head:
                    items = items[1:]
                    continue
                if len(items) > 1 and isinstance(items[1], bytes):
                    items = [head + items[1]] + items[2:]
                    continue
                return items
            if is_if(head):
                if not head[2] and not head[3]:
                    items = items[1:]
                    continue
                if head[2] == head[3]:
                    items = list(head[2]) + items[1:]
                    continue
                decided = self.conditions.decided(lits, literal(head[1], True))
                if decided is None:
                    return items
                items = list(head[2] if decided else head[3]) + items[1:]
                continue
            if is_loop(head):
                if not head[2]:
                    items = items[1:]
                    continue
                rotated = _rotate(items)
                if rotated is not None:
                    items = rotated
                    continue
            return items
        return items


def _common_prefix(x: bytes, y: bytes) -> int:
    n = min(len(x), len(y))
    i = 0
    while i < n and x[i] == y[i]:
        i += 1
    return i


def _drop_bytes(items: list, n: int) -> list:
    rest = items[0][n:]
    return ([rest] if rest else []) + items[1:]


def _rotate(items: list) -> list | None:
    """[loop(y x), y ...] -> [y, loop(x y), ...] for constant bytes y: (y x)^n y = y (x y)^n.
    Not for a body that can end the loop (`rows.BREAK_MARK`): the y after it then follows a
    partial iteration, and no rotation moves it."""
    from fmtcheck.c.rows import ends_early

    loop = items[0]
    body = _join(list(loop[2]))
    if len(items) < 2 or not body or not isinstance(body[0], bytes) or ends_early(body):
        return None
    after = items[1]
    if not isinstance(after, bytes):
        return None
    n = _common_prefix(body[0], after)
    if n == 0:
        return None
    y = body[0][:n]
    new_body = _join(([body[0][n:]] if len(body[0]) > n else []) + body[1:] + [y])
    rest = ([after[n:]] if len(after) > n else []) + items[2:]
    return [y, ("loop", loop[1], tuple(new_body)) + tuple(loop[3:])] + rest


def _join(items: list) -> list:
    out: list = []
    for item in items:
        if isinstance(item, bytes) and out and isinstance(out[-1], bytes):
            out[-1] = out[-1] + item
        elif not (isinstance(item, bytes) and not item):
            out.append(item)
    return out


# ---------------------------------------------------------------------------------------------
# tracing a side path by path

MAX_PATHS = 256
MAX_RESTARTS = 16
MAX_DECISIONS = 32  # per path: a loop that branches on an input at every iteration is not traced


class PathInputs:
    """Proof mode with branches: every input is a symbol; a branch on an input that could not be
    traced as a row (see `fmtcheck.c.interp`) follows the decisions of `prefix`, then takes the
    true way, recording each decision so that the engine can run the other ways too."""

    symbolic = True  # a model bound (the end of a pointer chain) is no fact to prove from

    def __init__(self, conditions: Conditions, prefix: list[bool], fork_sites: set) -> None:
        self.conditions = conditions
        self.prefix = prefix
        self.fork_sites = fork_sites
        self.lits: frozenset = frozenset()
        self.decisions: list[tuple[tuple, bool]] = []

    def int_input(self, key: str, t: tuple):
        from fmtcheck.c.symbolic import Sym

        return Sym.input(key, t[1], t[2])

    def str_input(self, key: str, domain: str):
        from fmtcheck.c.outputs import SymStr

        return SymStr(key, domain)

    def loop_count(self, key: str):
        from fmtcheck.c.symbolic import SYMBOLIC_LOOP

        return SYMBOLIC_LOOP

    def branch(self, value) -> bool:
        from fmtcheck.c.symbolic import NotProvable
        from fmtcheck.engine.fastpath import tree_keys

        tree = value.tree
        if any("#" in key for key in tree_keys(tree)):
            raise NotProvable("a branch that leaves a loop body early depends on the iteration")
        if len(self.lits) >= MAX_DECISIONS:
            raise NotProvable(f"more than {MAX_DECISIONS} branches on inputs along one path")
        lit = literal(tree, True)
        choice = self.conditions.decided(self.lits, lit)
        if choice is None:
            index = len(self.decisions)
            choice = self.prefix[index] if index < len(self.prefix) else True
            self.decisions.append((tree, choice))
        self.lits = self.lits | {(lit[0], lit[1] == choice)}
        return choice


def trace_side(run, conditions: Conditions) -> list:
    """A side's whole trace: rows and loops where the code allows, the other branches on inputs
    as one `if` per decision over the paths' traces. `run(inputs, out)` runs the side once."""
    from fmtcheck.c.symbolic import NotProvable, Unstructured

    fork_sites: set = set()
    for _ in range(MAX_RESTARTS):
        try:
            return _all_paths(run, conditions, fork_sites)
        except Unstructured as why:
            if why.site in fork_sites:
                raise NotProvable(str(why)) from None
            fork_sites.add(why.site)
    raise NotProvable(f"more than {MAX_RESTARTS} branches on inputs that return, jump or store")


def _all_paths(run, conditions: Conditions, fork_sites: set) -> list:
    from fmtcheck.c.outputs import TraceOutput
    from fmtcheck.c.symbolic import NotProvable

    pending: list[list[bool]] = [[]]
    paths: list[tuple[list, list]] = []
    while pending:
        if len(paths) >= MAX_PATHS:
            raise NotProvable(f"more than {MAX_PATHS} paths through branches on inputs")
        prefix = pending.pop()
        inputs = PathInputs(conditions, prefix, fork_sites)
        out = TraceOutput()
        run(inputs, out)
        decisions = inputs.decisions
        for i in range(len(decisions) - 1, len(prefix) - 1, -1):
            if decisions[i][1]:
                pending.append([c for _, c in decisions[:i]] + [False])
        paths.append((decisions, out.result()))
    return _decision_tree(paths, 0)


def _decision_tree(paths: list, depth: int) -> list:
    if len(paths) == 1 and len(paths[0][0]) == depth:
        return list(paths[0][1])
    tree = paths[0][0][depth][0]
    taken = [p for p in paths if p[0][depth][1]]
    other = [p for p in paths if not p[0][depth][1]]
    return [("if", tree, tuple(_decision_tree(taken, depth + 1)), tuple(_decision_tree(other, depth + 1)))]


def may_be_undefined(traces) -> bool:
    """Whether a trace divides by, or shifts by, an input: the sweep then still runs after the
    proof, to name the inputs where that is undefined behaviour."""
    def tree_risky(tree) -> bool:
        if not isinstance(tree, tuple) or not tree or not isinstance(tree[0], str):
            return False
        if tree[0] in ("/", "%", "<<", ">>") and tree[2][0] != "k":
            return True
        return any(tree_risky(t) for t in tree[1:] if isinstance(t, tuple))

    def items_risky(items) -> bool:
        for item in items:
            if is_if(item):
                if tree_risky(item[1]) or items_risky(item[2]) or items_risky(item[3]):
                    return True
            elif is_loop(item):
                if items_risky(item[2]):
                    return True
            elif isinstance(item, tuple) and item and isinstance(item[-1], tuple) and tree_risky(item[-1]):
                return True
        return False

    return traces is not None and any(items_risky(t) for t in traces)
