"""Compiling a C `switch` to a closure: the labels matched in order, fallthrough, `break`, and
each label told to the search's coverage.

A `case` label is a comparison the code does not write as one: `value == label`. Two switches
that differ in one label print alike for every other value, so a search that never selects that
label has not compared them; each label is therefore a condition of the coverage
(`fmtcheck.c.coverage`), to be seen true, false and at its boundary, and the search aims cases
at it as at an `if`'s comparison. In a proof the switch's value may be a symbol: a label then
branches on `value == label` (`case_matches`).
"""

from __future__ import annotations

from typing import Any, Callable

from fmtcheck.c import symbolic
from fmtcheck.c.arith import as_int, branch
from fmtcheck.c.coverage import input_reads, reads_before
from fmtcheck.c.values import BREAK, Frame


def compile_switch(compiler: Any, node: Any, scope: Any) -> Callable[[Frame], Any]:
    """The closure of a `switch` statement compiled by COMPILER (a `StatementCompiler`)."""
    value = compiler.expr(node.child_by_field_name("condition"), scope)
    body = node.child_by_field_name("body")
    cases: list[tuple[Callable | None, list[Callable]]] = []
    labels: list[tuple[str, str]] = []
    for c in body.named_children:
        if c.type != "case_statement":
            s = compiler.stmt(c, scope)
            if s is not None and cases:
                cases[-1][1].append(s)
            continue
        v = c.child_by_field_name("value")
        matcher = compiler.expr(v, scope).fn if v is not None else None
        if v is not None:
            labels.append((compiler.site(v), f"{value.text} == {v.text.decode('latin-1')}"))
        body_nodes = c.named_children[1:] if v is not None else c.named_children
        stmts = [compiler.stmt(x, scope) for x in body_nodes if x.type != "comment"]
        cases.append((matcher, [s for s in stmts if s is not None]))
    vfn, vt = value.fn, value.type
    matchers = [m for m, _ in cases if m is not None]
    default = next((k for k, (m, _) in enumerate(cases) if m is None), None)

    def run_switch(f: Frame) -> Any:
        reads = input_reads(f.ctx.inputs) if f.ctx.coverage is not None else None
        begin = len(reads) if reads is not None else 0
        v = as_int(vfn(f), f, vt, value.text)
        if reads is not None and type(v) is int:
            observe_labels(f, matchers, labels, v, vt, reads, begin)
        start = next((k for k, (matcher, _) in enumerate(cases)
                      if matcher is not None and case_matches(f, as_int(matcher(f), f, vt, ""), v)), default)
        if start is None:
            return None
        for _, stmts in cases[start:]:
            for s in stmts:
                r = s(f)
                if r is BREAK:
                    return None
                if r is not None:
                    return r
        return None

    return run_switch


def observe_labels(f: Frame, matchers: list[Callable], labels: list[tuple[str, str]], value: int, vt: tuple,
                   reads: list[str], start: int) -> None:
    """Each label as the comparison `value == label`, with the inputs the value read."""
    keys = reads[start:]
    earlier = reads_before(reads, start)
    for matcher, (site, text) in zip(matchers, labels):
        label = as_int(matcher(f), f, vt, "")
        if type(label) is int:
            f.ctx.coverage.observe(site, text, label == value, None, keys, (value, label), earlier)


def case_matches(f: Frame, label: Any, value: Any) -> bool:
    """Whether a `case` label matches the switch's value. In a proof, a value of the inputs is a
    branch on `value == label` (the path source picks the way and keeps it as a path fact, as
    for an `if` outside a row), where Python's comparison of it would stop the proof."""
    if isinstance(value, symbolic.Sym) or isinstance(label, symbolic.Sym):
        return branch(symbolic.compare("==", value, label), f)
    return label == value
