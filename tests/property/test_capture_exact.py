"""`check` is exact: one changed byte of whitespace, a zero-padded value or two glued fields, at a
random place in a real capture, is reported on that line, at or before the changed column.

The changed column is where the mutated line first differs from the original. One case cannot be
pinned to a column: removing the only blank between two numbers glues them into one valid number,
and the line is then one field short, which shows at its end; there only the line is asserted.

A few changes give a capture that is valid, or that departs from its layout elsewhere, and are
accepted as such (each is checked for, see `legitimate`):
- the changed line is a line of another kernel version's layout (net/dev's 2.6-era "%6s:%8llu",
  smaps' 15-byte "FilePmdMapped: " label): the first record decides the layout, so the capture is
  then either valid in the older layout or diverges where it stops following it;
- an interrupts chip name glued to its hwirq is a longer chip name with no irq domain;
- two numbers glued in a list of any length (/proc/stat's intr and softirq lines) are a list one
  number shorter;
- a zero before the first chunk of a %*pb bitmap (Cpus_allowed, Mems_allowed): that chunk is
  zero-padded to nr_cpu_ids (nr_node_ids) bits, which the capture does not tell.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.layout.capture import check_bytes
from fmtcheck.layout.explain import first_difference
from fmtcheck.layout.model import Group, Line, walk_items, walk_nodes
from fmtcheck.layout.compiler import Unbound, compile_items
from fmtcheck.layout.language import load_grammar

ROOT = Path(__file__).resolve().parents[2]
JC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"
SOURCES = {
    "net_dev": [Path("/proc/net/dev"), JC / "net_dev"],
    "meminfo": [Path("/proc/meminfo"), JC / "meminfo"],
    "smaps": [ROOT / "fixtures" / "captures" / "smaps_small"],
    "status": [Path("/proc/self/status"), JC / "pid_status"],
    "stat": [Path("/proc/stat")],
    "interrupts": [Path("/proc/interrupts"), JC / "interrupts"],
    "diskstats": [JC / "diskstats"],
    "maps": [JC / "pid_maps"],
}


def _captures() -> list[tuple[str, bytes]]:
    out = []
    for grammar, paths in SOURCES.items():
        for p in paths:
            if p.exists():
                data = p.read_bytes()
                if data.endswith(b"\n\n"):
                    data = data[:-1]  # the jc artefact: keep the capture exact
                out.append((grammar, data))
    return out


CAPTURES = _captures()


def mutate(data: bytes, kind: str, where: int) -> tuple[bytes, int, bool] | None:
    """Apply one mutation near offset WHERE: (new bytes, byte offset of the change, column-exact)."""
    if kind == "add":
        i = where % len(data)
        m = re.compile(rb"[ \t]").search(data, i) or re.compile(rb"[ \t]").search(data)
        if not m:
            return None
        return data[: m.start()] + data[m.start() : m.start() + 1] * 2 + data[m.end() :], m.start(), True
    runs = list(re.finditer(rb"[ \t]+", data))
    nums = list(re.finditer(rb"(?<![0-9A-Za-z_.(-])[0-9]+(?![0-9A-Za-z_:.)])", data))
    if kind == "remove" and runs:
        m = runs[where % len(runs)]
        glued = len(m.group()) == 1 and data[m.start() - 1 : m.start()].isdigit() and data[m.end() : m.end() + 1].isdigit()
        return data[: m.start()] + data[m.start() + 1 :], m.start(), not glued
    if kind == "tab" and runs:
        spaces = [m for m in runs if b" " in m.group()]
        if not spaces:
            return None
        m = spaces[where % len(spaces)]
        i = m.start() + m.group().index(b" ")
        return data[:i] + b"\t" + data[i + 1 :], i, True
    if kind == "zeropad" and nums:
        m = nums[where % len(nums)]
        return data[: m.start()] + b"0" + data[m.start() :], m.start(), True
    if kind == "glue" and runs:
        m = runs[where % len(runs)]
        left, right = data[m.start() - 1 : m.start()], data[m.end() : m.end() + 1]
        if right == b"\n" or left == b"\n" or not left:
            return None
        both_digits = left.isdigit() and right.isdigit()
        return data[: m.start()] + data[m.end() :], m.start(), not both_digits
    return None


def in_free_text(grammar: str, data: bytes, offset: int, kind: str) -> bool:
    """Is OFFSET inside a field whose domain is free text (a task name, a path, IRQ action names)?
    Blanks may legitimately change there. An interrupts header with one blank more or less is a
    valid header for another nr_irqs, and the rows are then the ones reported."""
    start = data.rfind(b"\n", 0, offset) + 1
    line = data[start : data.find(b"\n", offset) if data.find(b"\n", offset) >= 0 else len(data)]
    col = offset - start
    if grammar == "status":
        return line.startswith(b"Name:")
    if grammar in ("maps", "smaps"):
        return re.match(rb"[0-9a-f]+-[0-9a-f]+ ", line) is not None and col >= 72
    if grammar == "interrupts":
        letters = re.search(rb"[A-Za-z]", line[4:])
        return start == 0 or (letters is not None and col >= 4 + letters.start())
    return False


def _line_col(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _lines_matching(grammar: str, text: bytes) -> list[Line]:
    """The grammar's lines that print TEXT exactly (lines that need a bound parameter are skipped)."""
    g = load_grammar(grammar)
    out = []
    for line in g.lines:
        try:
            comp = compile_items(g, line.items, {})
        except Unbound:
            continue
        if comp.regex.fullmatch(text + b"\n"):
            out.append(line)
    return out


def _variant_option(grammar: str) -> dict[int, tuple[int, int]]:
    """Line uid -> (variant uid, option index), for the lines inside a kernel-version variant."""
    owner: dict[int, tuple[int, int]] = {}
    for v in load_grammar(grammar).variants:
        for i, body in enumerate(v.options):
            for node in walk_nodes(body):
                if isinstance(node, Line):
                    owner.setdefault(node.uid, (v.uid, i))
    return owner


def legitimate(grammar: str, kind: str, orig_line: bytes, new_line: bytes, column_exact: bool,
               result, line: int) -> bool:
    """Is this outcome one of the valid readings listed in the module docstring?"""
    on_line = any(d.line == line for d in result.divergences)
    if kind == "glue" and result.verdict == "equivalent" and grammar == "interrupts":
        return True
    if result.verdict == "equivalent" or not on_line:
        owner = _variant_option(grammar)
        for a in _lines_matching(grammar, orig_line):
            for b in _lines_matching(grammar, new_line):
                va, vb = owner.get(a.uid), owner.get(b.uid)
                if va and vb and va[0] == vb[0] and va[1] != vb[1]:
                    return True
    if result.verdict == "equivalent" and not column_exact and kind in ("remove", "glue"):
        # digits glued: fine in a list whose length nothing fixes
        for a in _lines_matching(grammar, orig_line):
            if any(isinstance(i, Group) and i.repeat != "?" and not i.count for i in walk_items(a.items)):
                return True
    if (kind == "zeropad" and result.verdict == "equivalent" and grammar == "status"
            and re.match(rb"(?:Cpus|Mems)_allowed:\t0[0-9a-f]{0,7}(?:,|$)", new_line)):
        return True
    return False


@pytest.mark.slow
@settings(max_examples=150)
@given(idx=st.integers(0, 10**6), kind=st.sampled_from(["add", "remove", "tab", "zeropad", "glue"]),
       where=st.integers(0, 10**9))
def test_one_change_is_found_where_it_is(idx, kind, where):
    if not CAPTURES:
        pytest.skip("no captures")
    grammar, data = CAPTURES[idx % len(CAPTURES)]
    assert check_bytes(data, grammar).verdict == "equivalent"
    mutated = mutate(data, kind, where)
    if mutated is None:
        return
    new, offset, column_exact = mutated
    if new == data or in_free_text(grammar, data, offset, kind):
        return
    line = _line_col(new, offset)
    result = check_bytes(new, grammar)
    orig_line = data.split(b"\n")[line - 1]
    new_line = new.split(b"\n")[line - 1]
    if legitimate(grammar, kind, orig_line, new_line, column_exact, result, line):
        return
    assert result.verdict == "divergent", (kind, line, new_line)
    on_line = [d for d in result.divergences if d.line == line]
    assert on_line, (kind, line, [(d.line, d.kind) for d in result.divergences])
    if column_exact:
        changed = first_difference(orig_line, new_line) or len(new_line) + 1
        assert on_line[0].column <= changed, (kind, on_line[0], orig_line, new_line)
