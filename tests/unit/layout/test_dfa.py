"""The DFA form of record regexes (fmtcheck.layout.dfa): translated only where RE2 matches exactly
the same lines, and `check` gives the same results with it as without it."""

from __future__ import annotations

import re

import pytest

from fmtcheck.layout import dfa, records
from fmtcheck.layout.capture import check_bytes

re2 = pytest.importorskip("re2", reason="google-re2 is not installed: the DFA path is not used")


def _plan_accepts(pattern: str, line: bytes) -> bool:
    plan = dfa.plan_for(pattern)
    assert plan is not None
    return plan.end(line, 0, len(line)) == len(line)


def _python_accepts(pattern: str, line: bytes) -> bool:
    m = re.compile(pattern.encode("latin-1"), re.S).match(line)
    return m is not None and m.end() == len(line)


@pytest.mark.parametrize("pattern", [
    r"(?>a*)a\n",  # giving back would let `aa` match: Python refuses it
    r"(?:a)*+a\n",
    r"(?<=x)a\n",  # look-behind
    r"(a)(?P=g)\n" if False else r"(?P<g>a)(?P=g)\n",  # back-reference
    r"a(?!b)[a-z]\n",  # a look-ahead inside the line
    r"a\Z",  # not a line
    r"a\nb\n",  # two lines
    r"(?i)a\n",  # a flag
])
def test_constructs_without_an_exact_dfa_form_are_not_translated(pattern):
    assert dfa.plan_for(pattern) is None


@pytest.mark.parametrize("pattern, lines", [
    # an atomic name column followed by a byte it cannot hold: one possible end, so no giving back
    (r"(?>(?: {2}[a-z]{1}| [a-z]{2}|[a-z]{3,5})):(?: {3}[0-9]|[1-9][0-9]{3,})\n",
     [b"  a:   7\n", b"abc:1234\n", b"abcde:   0\n", b" ab:12\n", b"abcdef:   1\n", b"  a:  17\n", b"a:   7\n"]),
    (r"(?: [0-9]+)*+\n", [b" 1 2 3\n", b"\n", b" 1  2\n", b"1\n"]),
    (r"(?=[a-z]+ [0-9]{1,3}\n)[a-z]+ [0-9]+\n", [b"ab 12\n", b"ab 1234\n", b"ab\n"]),
])
def test_translated_patterns_accept_the_lines_python_accepts(pattern, lines):
    assert dfa.plan_for(pattern) is not None
    for line in lines:
        assert _plan_accepts(pattern, line) == _python_accepts(pattern, line), line


def test_the_bulk_stops_at_the_first_line_that_does_not_match():
    plan = dfa.plan_for(r"(?=[a-z]+ [0-9]{1,3}\n)[a-z]+ [0-9]+\n")
    text = b"ab 1\ncd 22\nef 3333\ngh 4\n"
    assert plan.end(text, 0, len(text)) == text.index(b"ef")
    assert plan.end(text, text.index(b"gh"), len(text)) == len(text)


NETDEV_HEAD = (b"Inter-|   Receive                                                |  Transmit\n"
               b" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
               b"drop fifo colls carrier compressed\n")


def _netdev(rows: int, odd: int | None = None, odd_line: bytes = b"") -> bytes:
    out = [NETDEV_HEAD]
    for i in range(rows):
        if i == odd:
            out.append(odd_line)
            continue
        vals = [(i * 7919 + k * 104729) % (10 ** (1 + (i + k) % 11)) for k in range(16)]
        out.append(b"%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d %10d\n"
                   % (b"e%x" % i, *vals))
    return b"".join(out)


def _both_ways(monkeypatch, data: bytes, grammar: str):
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 0)
    with_dfa = check_bytes(data, grammar)
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 1 << 62)
    without = check_bytes(data, grammar)
    return with_dfa, without


ROW = b"    e5:       1       2    3    4    5     6          7         8        9      10   11   12   13    14      15         16\n"
MUTANTS = {
    "none": None,
    "a blank less": ROW.replace(b"   3", b"  3", 1),
    "a blank more": ROW.replace(b"   3", b"    3", 1),
    "a column dropped": ROW[: ROW.rindex(b" ", 0, len(ROW) - 3)] + b"\n",
    "no final newline": ROW[:-1],
    "a letter": ROW.replace(b"16", b"x6"),
    "a tab": ROW.replace(b" 5 ", b"\t5 ", 1),
}


@pytest.mark.parametrize("kind", MUTANTS)
def test_check_gives_the_same_result_with_and_without_the_dfa(monkeypatch, kind):
    odd_line = MUTANTS[kind]
    rows = 300
    odd = rows - 1 if kind == "no final newline" else 150
    data = _netdev(rows, None if odd_line is None else odd, odd_line or b"")
    with_dfa, without = _both_ways(monkeypatch, data, "net_dev")
    assert with_dfa.verdict == without.verdict
    assert with_dfa.divergences == without.divergences
    assert with_dfa.notes == without.notes
    assert (with_dfa.verdict == "equivalent") == (kind == "none")


def test_the_dfa_is_used_for_net_dev_rows(monkeypatch):
    used = []
    real = dfa.plan_for

    def spy(pattern):
        plan = real(pattern)
        used.append(plan is not None)
        return plan

    monkeypatch.setattr(dfa, "plan_for", spy)
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 0)
    assert check_bytes(_netdev(50), "net_dev").verdict == "equivalent"
    assert any(used)


def test_records_collected_by_the_dfa_are_the_ones_python_collects(monkeypatch):
    """diff collects every record with its key: the DFA reads the key before the ':' of a row."""
    from fmtcheck.layout.capture import match_bytes
    from fmtcheck.layout.language import load_grammar
    from fmtcheck.layout.matchstate import KeyRun, expanded_records

    g = load_grammar("net_dev")
    data = _netdev(400, 200, ROW.replace(b"    e5:", b"  eth0:"))
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 0)
    with_dfa = match_bytes(data, g, collect=True)
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 1 << 62)
    without = match_bytes(data, g, collect=True)
    collected = list(expanded_records(with_dfa.records))
    assert collected == list(expanded_records(without.records)) and len(collected) == 400
    assert any(isinstance(r, KeyRun) for r in with_dfa.records)  # the rows the DFA matched: keys in bulk
    assert with_dfa.divergences == without.divergences == []


def test_diff_gives_the_same_result_with_and_without_the_dfa(monkeypatch, tmp_path):
    from fmtcheck.common.options import Options
    from fmtcheck.layout.diff import diff_captures

    old, new = tmp_path / "old", tmp_path / "new"
    old.write_bytes(_netdev(300))
    new.write_bytes(_netdev(300, 100, ROW.replace(b"    e5:", b"  wlan:")))
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 0)
    a = diff_captures(str(old), str(new), Options()).results[0]
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 1 << 62)
    b = diff_captures(str(old), str(new), Options()).results[0]
    assert (a.verdict, a.divergences, a.notes) == (b.verdict, b.divergences, b.notes)
    assert any("only in NEW" in n for n in b.notes)


def test_a_conjunction_is_matched_a_slice_at_a_time(monkeypatch):
    monkeypatch.setattr(dfa, "SLICE", 16)
    plan = dfa.plan_for(r"(?=[a-z]+ [0-9]{1,3}\n)[a-z]+ [0-9]+\n")
    text = b"ab 1\ncd 22\nef 333\ngh 4\nij 5555\nkl 6\n"
    assert plan.end(text, 0, len(text)) == text.index(b"ij")
    assert plan.end(text, text.index(b"kl"), len(text)) == len(text)


def test_a_line_regex_used_often_goes_back_to_python(monkeypatch):
    """Single lines are left to the DFA only for their first uses: per call, Python's compiled
    regex is cheaper, and a capture of many snapshots would otherwise pay the DFA on every line."""
    from fmtcheck.layout import matcher

    from pathlib import Path

    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc/self/status")
    status = Path("/proc/self/status").read_bytes()
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 0)
    monkeypatch.setattr(matcher, "DFA_LINE_USES", 3)
    seen = []
    real = matcher.Matcher.dfa_line

    def spy(self, comp, pos):
        before = comp.dfa_uses
        end = real(self, comp, pos)
        seen.append((comp, before, end is not None))
        return end

    monkeypatch.setattr(matcher.Matcher, "dfa_line", spy)
    result = check_bytes(status * 10, "status")
    assert any(used for _, _, used in seen)
    assert max(comp.dfa_uses for comp, _, _ in seen) <= 3
    assert any(before == 3 and not used for _, before, used in seen)  # then Python's regex
    monkeypatch.setattr(records, "DFA_MIN_BYTES", 1 << 62)
    assert check_bytes(status * 10, "status").divergences == result.divergences
