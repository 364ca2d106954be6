"""`diff OLD NEW` and `diff NEW OLD` agree: one real capture, mutated in one place (a key, a
column, a width, a separator), diffed both ways gives the same verdict with mirrored kinds, and
the mutant is a layout change both ways."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _paths import SHARED
from fmtcheck.common.options import Options
from fmtcheck.layout.diff import MIRROR, diff_captures

JC = SHARED / "fixtures" / "jc-linux-proc"

# capture name -> grammar; the jc captures (older kernels) and this machine's own
JC_FILES = {"meminfo": "meminfo", "vmstat": "vmstat", "diskstats": "diskstats", "net_dev": "net_dev",
            "net_netstat": "net_netstat", "pid_status": "status", "pid_stat": "pid_stat"}
LIVE_FILES = {"meminfo": "meminfo", "vmstat": "vmstat", "diskstats": "diskstats", "net/snmp": "net_snmp",
              "net/netstat": "net_netstat", "self/status": "status", "self/stat": "pid_stat"}
KEYED = {"meminfo", "vmstat", "status", "net_snmp", "net_netstat"}
COLUMNS = {"diskstats", "pid_stat", "net_snmp", "net_netstat"}


def _captures() -> list[tuple[str, str, bytes]]:
    out = []
    if JC.exists():
        for name, grammar in JC_FILES.items():
            data = (JC / name).read_bytes()
            out.append((f"jc:{name}", grammar, data.rstrip(b"\n") + b"\n"))
    for name, grammar in LIVE_FILES.items():
        path = Path("/proc") / name
        if path.exists():
            out.append((f"live:{name}", grammar, path.read_bytes()))
    return out


CAPTURES = _captures()


def mutate(grammar: str, data: bytes, kind: str, pick: int) -> bytes | None:
    """DATA with one layout change of KIND near line PICK (None when KIND does not apply)."""
    lines = data.split(b"\n")[:-1]
    i = pick % len(lines)
    line = lines[i]
    if kind == "key":
        if grammar not in KEYED:
            return None
        cut = line.find(b":") if b":" in line else line.find(b" ")
        if grammar in ("net_snmp", "net_netstat"):
            if i % 2:  # a values line: rename a column in the title line above it
                i -= 1
            names = lines[i].split(b" ")
            if len(names) < 2:
                return None
            names[-1] = b"Zz" + names[-1]
            lines[i] = b" ".join(names)
        elif cut <= 0:
            return None
        elif pick % 2:
            del lines[i]  # a key removed
        else:
            lines[i] = line[:cut] + b"Zz" + line[cut:]  # a key renamed
    elif kind == "column":
        if grammar not in COLUMNS:
            return None
        if grammar in ("net_snmp", "net_netstat"):
            i -= i % 2
            if i + 1 >= len(lines):
                return None
            lines[i] += b" ZzExtra"
            lines[i + 1] += b" 0"
        elif grammar == "pid_stat":
            lines[0] = lines[0].rsplit(b" ", 1)[0]  # the last field dropped
        else:
            lines = [x + b" 0" for x in lines]  # one more counter on every row
    elif kind == "width":
        at = line.find(b"  ")
        if at < 0:
            at = line.find(b" ")
        if at < 0:
            return None
        lines[i] = line[:at] + b" " + line[at:]
    else:
        at = line.find(b" ", len(line) // 2)
        if at < 0:
            at = line.find(b" ")
        if at < 0:
            return None
        lines[i] = line[:at] + b"\t" + line[at + 1:]
    return b"\n".join(lines) + b"\n"


def _diff(tmp: Path, old: bytes, new: bytes, grammar: str):
    a, b = tmp / "a", tmp / "b"
    a.write_bytes(old)
    b.write_bytes(new)
    return diff_captures(str(a), str(b), Options(grammar=grammar)).results[0]


@pytest.mark.skipif(not CAPTURES, reason="neither ../shared/fixtures/jc-linux-proc nor /proc is here")
@settings(max_examples=40)
@given(which=st.integers(0, 10**6), kind=st.sampled_from(["key", "column", "width", "separator"]),
       pick=st.integers(0, 10**6))
def test_diff_is_symmetric_on_a_mutated_real_capture(tmp_path_factory, which, kind, pick):
    name, grammar, data = CAPTURES[which % len(CAPTURES)]
    mutant = mutate(grammar, data, kind, pick)
    if mutant is None or mutant == data:
        return
    tmp = tmp_path_factory.mktemp("sym")
    forward = _diff(tmp, data, mutant, grammar)
    backward = _diff(tmp, mutant, data, grammar)
    assert forward.verdict == backward.verdict == "divergent", (name, kind, forward.divergences[:1],
                                                                 backward.divergences[:1])
    kinds = sorted(d.kind for d in forward.divergences)
    mirrored = sorted(MIRROR.get(d.kind, d.kind) for d in backward.divergences)
    assert kinds == mirrored, (name, kind)


@pytest.mark.skipif(not CAPTURES, reason="neither ../shared/fixtures/jc-linux-proc nor /proc is here")
def test_a_capture_against_itself_is_the_same_layout(tmp_path):
    for name, grammar, data in CAPTURES:
        assert _diff(tmp_path, data, data, grammar).verdict == "equivalent", name


def test_mirror_is_an_involution():
    assert all(MIRROR[MIRROR[k]] == k for k in MIRROR)
