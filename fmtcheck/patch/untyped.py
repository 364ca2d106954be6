"""Locals a patch assigns but does not declare: inputs of unknown type.

A hunk shows ``i = 0;`` and ``for (...; i++)`` forty lines below the ``int i;`` that git's three
lines of context leave out. The engine refuses an assignment to a name the code does not declare
(it cannot know what the store converts to). The local's declaration is in code both sides share,
so its type is one and the same on both sides, but unknown: a verdict that holds for it must hold
for every type it may have. So the function is judged once per integer type the local may have
(declared, at the top of the body, with the value it holds on entry as a shared input: a gap
before the hunk may have set it), and a verdict is given only when every type gives it; else the
result is inconclusive and names the local and the types that disagree. A local that is a pointer
(``class = name_of(...)`` then ``%s``) makes every integer type fail, so it stays inconclusive,
named, rather than being guessed.
"""

from __future__ import annotations

import re
from typing import Callable

from fmtcheck.common.result import Result

# every integer type a kernel local may be declared with, narrow ones included: an equivalence
# found for `int` is not one for a u8 counter that wraps
INTEGER_TYPES = (
    "int",
    "unsigned int",
    "long",
    "unsigned long",
    "short",
    "unsigned short",
    "signed char",
    "unsigned char",
)
MAX_UNDECLARED = 1  # locals typed at once: each more multiplies the runs by len(INTEGER_TYPES)
_UNDECLARED = re.compile(r"assignment to '([A-Za-z_]\w*)', which the code does not declare")

Judge = Callable[[bytes, bytes], Result]


def undeclared_local(result: Result) -> str | None:
    """The local the engine refused to assign because the code does not declare it, if that is
    why RESULT is inconclusive."""
    if result.verdict != "inconclusive" or not result.reason:
        return None
    match = _UNDECLARED.search(result.reason)
    return match.group(1) if match else None


def declare_locals(src: bytes, function_text: bytes, declarations: list[tuple[str, str]]) -> bytes | None:
    """SRC with DECLARATIONS (name, type) put right after the opening brace of the function whose
    text is FUNCTION_TEXT, on the same line, so every line keeps its number. Each starts from a
    shared input (``__fmtcheck_entry_NAME``): the value the local holds when the shown code
    begins. None when the function is not found in SRC."""
    start = src.rfind(function_text)
    if start < 0:
        return None
    brace = src.find(b"{", start, start + len(function_text))
    if brace < 0:
        return None
    text = b"".join(f" {t} {name} = __fmtcheck_entry_{name};".encode() for name, t in declarations)
    return src[: brace + 1] + text + src[brace + 1 :]


def judge_for_every_type(
    first: Result,
    old: tuple[bytes, bytes],
    new: tuple[bytes, bytes],
    judge: Judge,
) -> Result:
    """FIRST is the engine's result without declarations; OLD and NEW are (source, function
    text). While the engine names an undeclared local, declare it; the verdict is the one every
    combination of integer types gives (`fmtcheck.patch.untyped`)."""
    names: list[str] = []
    result = first
    name = undeclared_local(result)
    while name is not None and name not in names and len(names) < MAX_UNDECLARED:
        names.append(name)
        result = _judged_as(names, ["int"] * len(names), old, new, judge)
        if result is None:
            return first
        name = undeclared_local(result)
    if not names or name is not None:
        return result
    return _every_combination(names, result, old, new, judge)


def _judged_as(names, types, old, new, judge) -> Result | None:
    declarations = list(zip(names, types))
    old_src = declare_locals(old[0], old[1], declarations)
    new_src = declare_locals(new[0], new[1], declarations)
    if old_src is None or new_src is None:
        return None
    return judge(old_src, new_src)


def _combinations(count: int) -> list[tuple[str, ...]]:
    combos: list[tuple[str, ...]] = [()]
    for _ in range(count):
        combos = [c + (t,) for c in combos for t in INTEGER_TYPES]
    return combos


def _every_combination(names: list[str], as_int: Result, old, new, judge) -> Result:
    """AS_INT is the result with every local an ``int``; the others must agree with it. The
    first that does not ends the search (its cost is the count of types tried)."""
    shown = ", ".join(f"'{n}'" for n in names)
    if as_int.verdict not in ("equivalent", "divergent"):
        as_int.reason = (f"{as_int.reason} (with {shown}, which the patch assigns but does not declare, "
                         "taken as int)")
        return as_int
    for types in _combinations(len(names))[1:]:
        other = _judged_as(names, list(types), old, new, judge)
        if other is None or other.verdict != as_int.verdict:
            typed = ", ".join(f"{n} as {t}" for n, t in zip(names, types))
            what = other.verdict if other is not None else "not judged"
            reason = (f"the patch assigns {shown} but does not declare {'it' if len(names) == 1 else 'them'}: "
                      f"the verdict is {as_int.verdict} with {shown} as int, {what} with {typed}, so it depends on the "
                      "declared type, which the patch does not show; give --tree DIR")
            if other is not None and other.reason and other.verdict == "inconclusive":
                reason += f" ({other.reason})"
            return Result(as_int.subject, "inconclusive", cases=as_int.cases, reason=reason,
                          notes=as_int.notes, extra=as_int.extra)
    as_int.notes.append(
        f"{shown}, which the patch assigns but does not declare, is an input of unknown type: the verdict "
        f"holds for each integer type ({', '.join(INTEGER_TYPES)})"
    )
    return as_int
