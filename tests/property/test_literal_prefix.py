"""A line's regex refuses a line that does not start with the line's leading literals
(`compiler.literal_prefix`, `Compiled.prefix`) before it is compiled: the lines a rejected variant's
option is explained on (the 3.x field order of smaps) no longer cost a compile each. It only says
no where the regex says no: `check` gives the same results with and without it, on every
grammar's example rendering and on real captures, mutated the ways a capture goes wrong (twice, so
that a line the variant's other option reads is changed too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _mutations import MUTATIONS, mutate
from _paths import readable_captures
from fmtcheck.layout import explain, matcher
from fmtcheck.layout.capture import check_bytes
from fmtcheck.layout.compiler import literal_prefix
from fmtcheck.layout.language import all_grammars
from fmtcheck.layout.model import Lit
from fmtcheck.layout.render import example_rendering

ROOT = Path(__file__).resolve().parents[2]
JC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"
FILES = [JC / n for n in ("pid_smaps", "pid_status", "meminfo", "net_dev", "diskstats", "interrupts", "vmstat")]
FILES += [Path(p) for p in ("/proc/self/smaps", "/proc/self/status", "/proc/meminfo", "/proc/net/dev")]
CAPTURES = readable_captures(FILES) + [(g.name, b"".join(text for _, text in example_rendering(g)))
                                       for g in all_grammars()]


def strip_or_glue(data: bytes, where: int, pick: int) -> bytes:
    """DATA with one line's trailing blanks stripped (a copy through an editor), or the blanks
    before one of its tokens removed (a name glued to its counter): the lines `stripped_line` and
    `missing_blank` repair by trying candidates against the line's regex."""
    lines = data.split(b"\n")
    i = where % max(1, len(lines) - 1)
    line = lines[i]
    if pick % 2 and line.rstrip(b" \t") != line:
        lines[i] = line.rstrip(b" \t")
    else:
        gaps = [m.span() for m in re.finditer(rb"(?<=\S)[ \t]+(?=\S)", line)]
        if gaps:
            a, b = gaps[pick % len(gaps)]
            lines[i] = line[:a] + line[b:]
    return b"\n".join(lines)


def _results(grammar: str, data: bytes, monkeypatch, prefixes: bool) -> tuple:
    if not prefixes:
        for module in (matcher, explain):
            monkeypatch.setattr(module, "literal_prefix", lambda items: b"")
    try:
        r = check_bytes(data, grammar)
    finally:
        monkeypatch.undo()
    return r.verdict, r.divergences, r.notes, r.cases


@settings(max_examples=200)
@given(which=st.integers(0, 1 << 16), kind=st.sampled_from(MUTATIONS + ["strip-or-glue"]),
       where=st.integers(0, 1 << 20), pick=st.integers(0, 1 << 16), more=st.sampled_from(MUTATIONS))
def test_check_gives_the_same_results_with_and_without_literal_prefixes(which, kind, where, pick, more):
    grammar, data = CAPTURES[which % len(CAPTURES)]
    first = strip_or_glue(data, where, pick) if kind == "strip-or-glue" else mutate(data, kind, where, pick)
    data = mutate(first, more, where // 7, pick // 3)
    with pytest.MonkeyPatch.context() as mp:
        assert _results(grammar, data, mp, True) == _results(grammar, data, mp, False)


def test_the_literal_prefix_is_the_leading_literals_only():
    assert literal_prefix((Lit(b"Rss:"), Lit(b"   "), "a field", Lit(b" kB"))) == b"Rss:   "
    assert literal_prefix(("a field", Lit(b"x"))) == b""
    assert literal_prefix(()) == b""


def test_every_grammar_line_accepts_its_example_with_its_literal_prefix():
    """Each line of each grammar, compiled with the grammar's example parameters, accepts its
    example rendering with the prefix as without it (the prefix is never more than the line's
    regex requires); most of those lines start with a label, so the prefix is tried on them."""
    from fmtcheck.layout.compiler import Compiled, LineCompiler, Unbound
    from fmtcheck.layout.render import example_params

    tried = 0
    for g in all_grammars():
        params = example_params(g)
        for node, text in example_rendering(g):
            try:
                comp = LineCompiler(g, dict(params))
                pattern = comp.items(node.items, b"\n") + node.end_pattern
            except Unbound:
                continue
            with_prefix = Compiled(pattern, comp.checks, comp.groups, prefix=literal_prefix(node.items))
            without = Compiled(pattern, comp.checks, comp.groups)
            accepted = without.line_fullmatch(g, text, dict(params))
            assert with_prefix.line_fullmatch(g, text, dict(params)) == accepted, (g.name, node.name)
            tried += accepted and bool(with_prefix.prefix)
    assert tried >= 100
