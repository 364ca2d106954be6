"""`check` is exact: one changed byte of whitespace, a zero-padded value or two glued fields, at a
random place in a real capture, is reported on that line, at or before the changed column.

The changed column is where the mutated line first differs from the original. Two glues are valid
layouts and are accepted (see the test). One case cannot be pinned to a column: removing the only blank between two numbers glues them into one valid number,
and the line is then one field short, which shows at its end; there only the line is asserted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.capture import check_bytes, first_difference

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
    if kind == "glue" and result.verdict == "equivalent" and grammar in ("net_dev", "interrupts"):
        # two glues that are valid layouts: net/dev's name and rx_bytes ("%6s:%8llu", 2.6-era), and
        # an interrupts chip name glued to its hwirq (a longer chip name with no irq domain)
        return
    assert result.verdict == "divergent", (kind, line, new.split(b"\n")[line - 1])
    on_line = [d for d in result.divergences if d.line == line]
    assert on_line, (kind, line, [(d.line, d.kind) for d in result.divergences])
    if column_exact:
        orig_line = data.split(b"\n")[line - 1]
        new_line = new.split(b"\n")[line - 1]
        changed = first_difference(orig_line, new_line) or len(new_line) + 1
        assert on_line[0].column <= changed, (kind, on_line[0], orig_line, new_line)
