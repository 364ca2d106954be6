"""Branchy pairs: show functions whose output rows sit under conditions on their inputs.

Each pair is an old show function and a rewrite of it. The rewrite turns every `seq_printf` of a
row into `seq_puts` + `seq_put_decimal_ull` + `seq_putc` (the same bytes); a divergent pair also
carries one slip, placed by the seed: in the body of one branch of one row (an extra space, which
shows whenever that branch runs) or in one condition (a threshold moved by one, `>` for `>=`),
which shows only at the boundary. Row conditions are thresholds, else-if chains, nested ifs and
correlated conditions (two inputs compared with each other, one input used by several rows).

`python -m benchmarks.branchy [--rows 1,4,16,32,64] [--pairs N] [--seed S] [--load 2]` judges
every pair and prints, per row count, how many divergent pairs were found divergent, inconclusive
or (the bug this guards against) equivalent, and what the equivalent rewrites got, beside a naive
baseline measured in the same run (uniform random inputs through the same interpreter). `--load N`
runs N CPU-bound processes beside it: the verdicts must not change.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

KINDS = ("threshold", "chain", "nested", "correlated", "equality")


@dataclass
class Branch:
    """One output row body: `label: value` (optionally with a suffix)."""

    label: str
    value: str
    suffix: str = ""
    slipped: bool = False

    def old(self) -> str:
        return f'seq_printf(m, "{self.label}: %llu{self.suffix}\\n", {self.value});'

    def new(self) -> str:
        delim = ":  " if self.slipped else ": "
        parts = [f'seq_puts(m, "{self.label}");', f'seq_put_decimal_ull(m, "{delim}", {self.value});']
        if self.suffix:
            parts.append(f'seq_puts(m, "{self.suffix}");')
        parts.append("seq_putc(m, '\\n');")
        return " ".join(parts)


@dataclass
class Row:
    """A condition (old and new text) choosing between branches."""

    kind: str
    conditions: list[tuple[str, str]]  # (old, new) per if / else-if
    branches: list[Branch]  # len(conditions) + 1, the last one the else
    nested: "Row | None" = None  # for "nested": the inner row in place of branch 0

    def emit(self, side: str, indent: str = "\t") -> list[str]:
        out = []
        for i, (old_cond, new_cond) in enumerate(self.conditions):
            keyword = "if" if i == 0 else "} else if"
            out.append(f"{indent}{keyword} ({old_cond if side == 'old' else new_cond}) {{")
            if i == 0 and self.nested is not None:
                out.extend(self.nested.emit(side, indent + "\t"))
            else:
                out.append(indent + "\t" + _body(self.branches[i], side))
        out.append(f"{indent}}} else {{")
        out.append(indent + "\t" + _body(self.branches[-1], side))
        out.append(f"{indent}}}")
        return out

    def all_branches(self) -> list[Branch]:
        inner = self.nested.all_branches() if self.nested is not None else []
        return inner + [b for i, b in enumerate(self.branches) if not (i == 0 and self.nested is not None)]


def _body(branch: Branch, side: str) -> str:
    return branch.old() if side == "old" else branch.new()


def _threshold(rng: random.Random) -> int:
    return rng.randrange(1, 10 ** rng.randint(1, 12))


class PairMaker:
    """Draws the rows of one pair from a seeded random source."""

    def __init__(self, rows: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rows = rows
        self.fields = [f"s->f{i}" for i in range(max(2, rows + rows // 2))]
        self.n_rows = 0

    def field(self) -> str:
        return self.rng.choice(self.fields)

    def branch(self) -> Branch:
        self.n_rows += 1
        suffix = self.rng.choice(["", " kB", " pages"])
        return Branch(f"r{self.n_rows}", self.field(), suffix)

    def row(self, kind: str, depth: int = 0) -> Row:
        rng = self.rng
        a = self.field()
        if kind == "threshold":
            op = rng.choice([">", ">=", "<", "<="])
            cond = f"{a} {op} {_threshold(rng)}"
            return Row(kind, [(cond, cond)], [self.branch(), self.branch()])
        if kind == "chain":
            bounds = sorted(rng.sample(range(1, 10 ** rng.randint(2, 10)), rng.randint(2, 4)))
            conds = [(f"{a} < {t}", f"{a} < {t}") for t in bounds]
            return Row(kind, conds, [self.branch() for _ in range(len(conds) + 1)])
        if kind == "nested" and depth < 2:
            inner = self.row(rng.choice(KINDS), depth + 1)
            cond = f"{a} > {_threshold(rng)}"
            return Row(kind, [(cond, cond)], [Branch("", ""), self.branch()], nested=inner)
        if kind == "correlated":
            b = self.rng.choice([f for f in self.fields if f != a])
            cond = rng.choice([f"{a} > {b}", f"{a} >= {b} && {b} != 0", f"{a} + {b} > {_threshold(rng)}",
                               f"({a} & 1) || {b} < {_threshold(rng)}"])
            return Row(kind, [(cond, cond)], [self.branch(), self.branch()])
        cond = f"{a} == {_threshold(rng)}"
        return Row("equality", [(cond, cond)], [self.branch(), self.branch()])

    def make(self) -> list[Row]:
        made: list[Row] = []
        while self.n_rows < self.rows:
            made.append(self.row(self.rng.choice(KINDS)))
        return made


def _slip_condition(cond: str, rng: random.Random) -> str | None:
    """One condition changed at its boundary only."""
    import re

    match = list(re.finditer(r"(>=|<=|==|>|<) (\d+)", cond))
    if match:
        m = rng.choice(match)
        op, t = m.group(1), int(m.group(2))
        if rng.random() < 0.5 and op in (">", "<", ">=", "<="):
            op = {">": ">=", ">=": ">", "<": "<=", "<=": "<"}[op]
            new = f"{op} {t}"
        else:
            new = f"{op} {t + rng.choice((-1, 1))}"
        return cond[:m.start()] + new + cond[m.end():]
    m = re.search(r"(>=|>) ", cond)
    if m:
        op = ">" if m.group(1) == ">=" else ">="
        return cond[:m.start()] + op + " " + cond[m.end():]
    return None


def _rows_flat(rows: list[Row]) -> list[Row]:
    out = []
    for row in rows:
        out.append(row)
        if row.nested is not None:
            out.extend(_rows_flat([row.nested]))
    return out


def branchy_pair(rows: int, seed: int, slip: bool = True) -> tuple[str, str, str]:
    """(old C, new C, where the slip is) for `rows` output rows; seeded, so the same every run."""
    maker = PairMaker(rows, seed)
    made = maker.make()
    where = "no slip"
    if slip:
        rng = maker.rng
        if rng.random() < 0.5:
            branch = rng.choice([b for r in made for b in r.all_branches()])
            branch.slipped = True
            where = f"body of row {branch.label}"
        else:
            candidates = [(r, i) for r in _rows_flat(made) for i in range(len(r.conditions))]
            rng.shuffle(candidates)
            for row, i in candidates:
                new = _slip_condition(row.conditions[i][0], rng)
                if new is not None:
                    row.conditions[i] = (row.conditions[i][0], new)
                    where = f"condition {row.conditions[i][0]!r} -> {new!r}"
                    break
    return _function(made, "old"), _function(made, "new"), where


def _function(rows: list[Row], side: str) -> str:
    lines = ["static int branchy_show(struct seq_file *m, void *v)", "{",
             "\tstruct branchy_stats *s = m->private;", ""]
    for row in rows:
        lines.extend(row.emit(side))
    lines += ["\treturn 0;", "}", ""]
    return "\n".join(lines)


# -- measuring ----------------------------------------------------------------------------------


def judge(old: str, new: str, seed: int = 0) -> tuple[str, str | None, int]:
    from fmtcheck.common.options import Options
    from fmtcheck.engine.verdict import verify_sources

    report = verify_sources(old, new, Options(seed=seed))
    result = report.results[0]
    return result.verdict, result.method, result.cases


def naive_random_finds(old: str, new: str, cases: int, seed: int) -> bool:
    """The baseline: uniform random values for every input (what a fuzzer without fmtcheck's
    input classes would try), through the same interpreter; True when a case differs."""
    from fmtcheck.c import cfront
    from fmtcheck.c.hints import InputSpace, collect_hints
    from fmtcheck.engine.inputs import VectorInputs, type_range
    from fmtcheck.engine.verdict import Runner, side_of

    old_unit, new_unit = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace()
    collect_hints(old_unit, space)
    collect_hints(new_unit, space)
    runner = Runner(side_of(old_unit, space, "branchy_show", "old"), side_of(new_unit, space, "branchy_show", "new"))
    discovery = VectorInputs()
    runner.run_case(discovery)
    kinds = dict(discovery.kinds)
    rng = random.Random(seed)
    for _ in range(cases):
        vector = {k: rng.randint(*type_range(kind)) for k, kind in kinds.items() if kind[0] == "int"}
        inputs = VectorInputs(vector)
        outcome = runner.run_case(inputs)
        kinds.update((k, v) for k, v in inputs.kinds.items() if k not in kinds)
        if outcome is not None and not outcome.same:
            return True
    return False


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10000))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.branchy")
    parser.add_argument("--rows", default="1,4,16,32,64")
    parser.add_argument("--pairs", type=int, default=10, help="divergent pairs per row count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes to run beside")
    parser.add_argument("--naive", type=int, default=2000, metavar="N",
                        help="baseline: N uniform random cases per divergent pair (0: skip)")
    args = parser.parse_args(argv)
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.load)]
    for p in burners:
        p.start()
    wrong = 0
    try:
        print(f"{'rows':>5} {'divergent':>10} {'inconcl.':>9} {'WRONG eq.':>10} | {'eq. tested':>10} "
              f"{'eq. inconcl.':>12} {'s/pair':>7} | naive random ({args.naive} cases) found")
        for rows in [int(r) for r in args.rows.split(",")]:
            div, eq_side = Counter(), Counter()
            naive = 0
            elapsed = 0.0
            for k in range(args.pairs):
                seed = args.seed * 1000 + rows * 100 + k
                start = time.perf_counter()
                verdict, _, _ = judge(*branchy_pair(rows, seed)[:2])
                div[verdict] += 1
                verdict, method, _ = judge(*branchy_pair(rows, seed, slip=False)[:2])
                eq_side[verdict if verdict != "equivalent" else f"equivalent {method}"] += 1
                elapsed += time.perf_counter() - start
                if args.naive:
                    naive += naive_random_finds(*branchy_pair(rows, seed)[:2], args.naive, seed)
            per = elapsed / (2 * args.pairs)
            wrong += div["equivalent"]
            print(f"{rows:>5} {div['divergent']:>10} {div['inconclusive']:>9} {div['equivalent']:>10} | "
                  f"{eq_side['equivalent tested'] + eq_side['equivalent proven']:>10} "
                  f"{eq_side['inconclusive']:>12} {per:>7.2f} | {naive} of {args.pairs}")
    finally:
        stop.set()
        for p in burners:
            p.join()
    print(f"load: {args.load} CPU-bound process(es); wrong 'equivalent' verdicts: {wrong}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
