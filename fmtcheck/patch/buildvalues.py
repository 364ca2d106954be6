"""Constants whose value depends on the kernel's configuration: judged once per value.

``for (i = 0; i < MISC_CG_RES_TYPES; i++)`` in kernel/cgroup/misc.c loops to an enumerator that
follows an ``#ifdef CONFIG_KVM_AMD_SEV`` block in its enum: 2 in a kernel built with SEV, 0
without. No one value is the kernel's, so the engine takes it as an input and the loop runs to
its per-case bounds. But every kernel build gives it one of few values
(`fmtcheck.c.headers.tree_build_values`), the same on both sides of a patch (the build is
shared). So with ``--tree`` a function that reads such a constant is judged once per value
(defined in the line `BUILD_CONSTANTS_LINE` every tree-rebuilt source starts with, so no line
moves): equivalent when every value gives equivalent; divergent when every value gives a difference
(two blocks may exclude each other, so not every combination is a real build: a difference
found for some values only is not shown); else the function is judged with the constants as
inputs, as before.
"""

from __future__ import annotations

import itertools
from typing import Callable

from fmtcheck.common.result import Result
from fmtcheck.patch.ctext import identifiers

BUILD_CONSTANTS_LINE = b"/* fmtcheck: build constants */"
MAX_BUILDS = 8  # combinations of values judged for one function

Judge = Callable[[bytes, bytes], Result]


def with_build_values(src: bytes, values: dict[str, int]) -> bytes | None:
    """SRC with VALUES defined in its first line (`BUILD_CONSTANTS_LINE`), or None when SRC
    does not start with it."""
    if not src.startswith(BUILD_CONSTANTS_LINE):
        return None
    enum = b"enum { " + b", ".join(f"{name} = {value}".encode() for name, value in sorted(values.items())) + b" };"
    return enum + src[len(BUILD_CONSTANTS_LINE):]


def judge_for_every_build(old_src: bytes, new_src: bytes, build_values: dict[str, tuple[int, ...]],
                          judge: Judge) -> Result | None:
    """The verdict over every build value of the config-dependent constants the sources read
    (module doc); None when they read none, or the values do not decide."""
    read = identifiers(old_src) | identifiers(new_src)
    names = sorted(name for name in build_values if name in read)
    combos = list(itertools.product(*(build_values[name] for name in names)))
    if not names or len(combos) > MAX_BUILDS:
        return None
    results = []
    for combo in combos:
        values = dict(zip(names, combo))
        old, new = with_build_values(old_src, values), with_build_values(new_src, values)
        if old is None or new is None:
            return None
        results.append((values, judge(old, new)))
    shown = ", ".join(names)
    if all(result.verdict == "divergent" for _, result in results):
        # every build differs, so a real one does (two #if blocks may exclude each other: a
        # value made of both may be no kernel's, and a difference found only there is not shown)
        values, result = results[0]
        built = ", ".join(f"{name} = {value}" for name, value in values.items())
        result.notes.append(f"{shown} depend(s) on the kernel's configuration: every value a build gives "
                            f"({_all(names, build_values)}) prints differently; the counterexample is for {built}")
        return result
    if all(result.verdict == "equivalent" for _, result in results):
        result = results[0][1]
        result.method = next((r.method for _, r in results if r.method != "proven"), "proven")
        result.notes.append(f"{shown} depend(s) on the kernel's configuration: equivalent for every value a build "
                            f"gives ({_all(names, build_values)})")
        return result
    return None


def _all(names: list[str], build_values: dict[str, tuple[int, ...]]) -> str:
    return "; ".join(f"{name} in {', '.join(map(str, build_values[name]))}" for name in names)
