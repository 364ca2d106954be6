"""What a function rebuilt from hunks may print in the stretches the patch does not show.

A hunk gap (``/* fmtcheck: hunk gap */``) is unchanged code, the same on both sides, but it runs
on the state the changed code leaves: ``anon = get_mm_counter_sum(...)`` in a hunk and the
``seq_printf`` of ``anon`` forty lines further on, outside every hunk, is a change of output the
rebuilt function cannot show. So when a changed line computes a value (an assignment, an
increment, a declaration with an initialiser) and a gap comes after it, "no difference" in what
the patch shows does not mean "no difference": such a result is inconclusive, naming the values.
"""

from __future__ import annotations

import difflib
import re

from fmtcheck.patch.ctext import code_only, identifiers
from fmtcheck.patch.hunks import GAP_EVENT, GAP_MARKER

_ASSIGNED = re.compile(
    rb"(?:^|[;{(,]\s*|\b(?:int|long|unsigned|u8|u16|u32|u64|s32|s64|size_t|bool|char)\s+\**\s*)"
    rb"([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*|\s*\[[^\]]*\])*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"
)
_STEPPED = re.compile(rb"(?:\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?:\+\+|--)")


def values_flowing_into_gaps(old_text: bytes, new_text: bytes) -> list[str]:
    """Names a changed line of either side assigns when a hunk gap comes after it on that side."""
    old_lines, new_lines = old_text.split(b"\n"), new_text.split(b"\n")
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    found: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for lines, start, end in ((old_lines, i1, i2), (new_lines, j1, j2)):
            if not any(line.strip().endswith(GAP_MARKER) for line in lines[end:]):
                continue
            for line in lines[start:end]:
                for name in assigned_names(line):
                    if name not in found:
                        found.append(name)
    return found


def assigned_names(line: bytes) -> list[str]:
    """What one line of C assigns or steps (``x = ``, ``p->a += ``, ``i++``), literals ignored."""
    code = code_only(line).strip()
    if not code or code.startswith(b"#"):
        return []
    names = [m.group(1) for m in _ASSIGNED.finditer(code)]
    names += [m.group(1) or m.group(2) for m in _STEPPED.finditer(code)]
    return [re.sub(rb"\s+", b"", name).decode("ascii", "replace") for name in names]


_GAP_CALL = re.compile(rb"(" + re.escape(GAP_EVENT) + rb"_\w+\()([A-Za-z_]\w*)\);")


def with_gap_arguments(src: bytes, names: list[str]) -> bytes:
    """SRC with NAMES (what the change computes, `values_flowing_into_gaps`) passed to every
    gap's output event: the unshown code may print them, so the two sides' events are the same
    only when those values are (else the engine cannot compare what the gaps print)."""
    if not names:
        return src
    extra = b"".join(b", " + name.encode("latin-1") for name in names)
    return _GAP_CALL.sub(lambda m: m.group(1) + m.group(2) + extra + b");", src)


def shared_names(names: list[str], old_text: bytes, new_text: bytes) -> list[str]:
    """The NAMES (``x``, ``p->a``) whose variable both sides mention. One that only one side
    mentions is a local that side alone declares (``u32 qlen = ...`` added): the code of a gap,
    the same on both sides, compiles on the other side too, where that local does not exist, so
    it cannot read it."""
    old_ids, new_ids = identifiers(old_text), identifiers(new_text)
    return [name for name in names if re.match(r"[A-Za-z_]\w*", name).group() in old_ids & new_ids]
