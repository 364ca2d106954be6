"""The builds a verdict holds for: every branch of `#if` in which the two sides differ is judged.

The front end compiles one branch of each conditional (`fmtcheck.c.cfront`: the first that may be
compiled), which stands for "the kernel built with the feature on". A change made only in an
`#else` branch, or a line the new side moves under a new `#ifdef`, is invisible in that build:
judged there alone, `seq_printf(m, "up: %lu\\n", x)` -> `"up: %5lu\\n"` under `#ifdef CONFIG_SMP
... #else` was "equivalent, proven", the worst kind of wrong answer. So the verdict of the default
build is only the first: every other build in which the text the default build drops differs
between the sides is judged too (one per differing branch, each conditional with the same
opening line taking the same branch, as one configuration does), and

- a divergence in any judged build is the verdict (the build is named: it is realizable for
  kernels built that way, as a divergence of the default build is for kernels built with it);
- "equivalent" needs every judged build equivalent, and "proven" every one proven and a single
  differing conditional (with several, their combinations are not all judged: "tested");
- otherwise the first build that is not decided makes the answer inconclusive, naming it.

At most `MAX_OTHER_BUILDS` other builds are judged; past them an "equivalent" is inconclusive,
naming the first conditional left unjudged and its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from fmtcheck.c.cfront import Conditional, Unit, never_compiled
from fmtcheck.common.result import Result, SourceLine
from fmtcheck.common.lazyre import lazy_compile

MAX_OTHER_BUILDS = 4


@dataclass(frozen=True)
class Build:
    """A configuration other than the default: which branch each named conditional takes."""

    world: tuple[tuple[bytes, int], ...]
    conditional: Conditional
    branch: int

    def choices(self) -> dict[bytes, int]:
        return dict(self.world)

    def describe(self) -> str:
        key = self.conditional.key.decode("latin-1")
        where = f"line {self.conditional.line}"
        if self.branch < len(self.conditional.openers):
            opener = self.conditional.openers[self.branch].decode("latin-1")
            if self.branch == 0:
                return f"the build that compiles `{key}` ({where}) inside its enclosing branches"
            return f"the build that compiles the `{opener}` branch of `{key}` ({where})"
        return f"the build in which no branch of `{key}` ({where}) holds"


def _by_key(conditionals: list[Conditional]) -> dict[bytes, list[Conditional]]:
    grouped: dict[bytes, list[Conditional]] = {}
    for conditional in conditionals:
        grouped.setdefault(conditional.key, []).append(conditional)
    return grouped


def _branch_texts(group: list[Conditional], branch: int) -> list[bytes | None]:
    return [c.branches[branch] if branch < len(c.branches) else None for c in group]


def _reachable(path: tuple[tuple[bytes, int], ...], closed: set[bytes]) -> bool:
    """False when an enclosing branch is the never-compiled body of an `#if 0` (CLOSED: the keys
    that are one, found once: 5,000 nested conditionals asked it of every enclosing one, 12.5
    million regular-expression matches, 35 s)."""
    return not closed or not any(branch == 0 and key in closed for key, branch in path)


def other_builds(old: list[Conditional], new: list[Conditional]) -> list[Build]:
    """The builds other than the default in which the sides' conditionals OLD and NEW differ, in
    file order."""
    old_groups, new_groups = _by_key(old), _by_key(new)
    builds: dict[tuple[tuple[bytes, int], ...], Build] = {}
    keys = set(old_groups) | set(new_groups)
    for c in old + new:
        keys.update(dict(c.path))  # (the enclosing ones, which are these keys in a whole file)
    closed = {key for key in keys if never_compiled(key)}
    for key in sorted(set(old_groups) | set(new_groups)):
        before, after = old_groups.get(key, []), new_groups.get(key, [])
        if never_compiled(key) or [c.branches for c in before] == [c.branches for c in after]:
            continue
        widest = max(len(c.branches) for c in before + after)
        for branch in range(widest):
            if _branch_texts(before, branch) == _branch_texts(after, branch):
                continue
            # each place the key stands (enclosing branches) is a build of its own
            for anchor in after + before:
                if not _reachable(anchor.path, closed):
                    continue
                world = dict(anchor.path)
                world[key] = branch
                if all(choice == 0 for choice in world.values()):
                    continue  # the default build, judged first
                frozen = tuple(sorted(world.items()))
                builds.setdefault(frozen, Build(frozen, anchor, branch))
    return sorted(builds.values(), key=lambda b: (b.conditional.line, b.branch, b.world))


def conditionals_of(unit: Unit, name: str) -> list[Conditional]:
    """The conditionals of UNIT that can change what function NAME prints: those outside every
    function (definitions, declarations), and those inside NAME or a function whose name its text
    mentions, transitively (a helper it calls). A conditional inside an unrelated function of the
    file cannot, and judging every build of it would multiply the cost of a file-wide rewrite."""
    if unit.source.wrapped:
        return list(unit.source.conditionals)
    spans = {fname: (node.start_point[0] + 1, node.end_point[0] + 1) for fname, node in unit.functions.items()}
    texts = {fname: node.text for fname, node in unit.functions.items()}
    reached, todo = {name}, [name]
    while todo:
        text = texts.get(todo.pop(), b"")
        for other in texts:
            if other not in reached and re.search(rb"\b" + re.escape(other.encode()) + rb"\b", text):
                reached.add(other)
                todo.append(other)
    unrelated = [span for fname, span in spans.items() if fname not in reached]
    return [c for c in unit.source.conditionals
            if not any(start <= c.line and c.end <= end for start, end in unrelated)]


_IFDEF = lazy_compile(rb"#(ifdef|ifndef) (\w+)")
_IF_TEST = lazy_compile(rb"#(?:el)?if (!?) ?(defined|IS_ENABLED|IS_BUILTIN|IS_MODULE|IS_REACHABLE)? ?\(? ?(\w+) ?\)?")


def macro_test(key: bytes) -> tuple[str, bool] | None:
    """What a conditional tests, when it tests one thing: `#ifdef X` / `#if defined(X)` -> ("X",
    True); `#ifndef X` / `#if !defined(X)` -> ("X", False); `#if IS_ENABLED(X)` ->
    ("IS_ENABLED(X)", True) (a module option makes it differ from `defined`); `#if !N` -> ("N",
    False) for a macro tested by value."""
    match = _IFDEF.fullmatch(key)
    if match is not None:
        return match.group(2).decode("latin-1"), match.group(1) == b"ifdef"
    match = _IF_TEST.fullmatch(key)
    if match is None or match.group(3).isdigit():
        return None
    name = match.group(3).decode("latin-1")
    test = match.group(2)
    if test and test != b"defined":
        name = f"{test.decode()}({name})"
    elif not test:
        name = f"value of {name}"
    return name, not match.group(1)


def impossible_build(conditionals: list[Conditional]) -> tuple[str, int] | None:
    """The test a parse took both ways, true and false (`#ifdef X` and `#ifndef X` both
    compiled: the default build does that, first branches everywhere), with the line of the
    second test; None when the parse is a configuration."""
    seen: dict[str, bool] = {}
    for conditional in sorted(conditionals, key=lambda c: c.line):
        test = macro_test(conditional.key)
        if test is None or conditional.compiled is None:
            continue
        macro, polarity = test
        defined = (conditional.compiled == 0) == polarity
        if seen.setdefault(macro, defined) != defined:
            return macro, conditional.line
    return None


def consistent_build(conditionals: list[Conditional]) -> Build | None:
    """The build that takes every macro the parse tests one way: the way its first test took it
    (`#ifndef CONFIG_NUMA` among the definitions, then `#ifdef CONFIG_NUMA` in a function, both
    compiled by the default parse: the second is flipped to its other branch). It is a
    configuration as far as these tests go (`impossible_build` checks it again), so a divergence
    there is one, where the default parse's is none. None when the parse takes none both ways."""
    seen: dict[str, bool] = {}
    world: dict[bytes, int] = {}
    flipped: tuple[Conditional, int] | None = None
    for conditional in sorted(conditionals, key=lambda c: c.line):
        test = macro_test(conditional.key)
        if test is None or conditional.compiled is None or conditional.key in world:
            continue
        macro, polarity = test
        defined = (conditional.compiled == 0) == polarity
        wanted = seen.setdefault(macro, defined)
        if wanted != defined:
            world[conditional.key] = 0 if wanted == polarity else 1
            flipped = flipped or (conditional, world[conditional.key])
    if flipped is None:
        return None
    return Build(tuple(sorted(world.items())), flipped[0], flipped[1])


def judge_builds(first: Result, builds: list[Build], judge_in: Callable[[Build], Result], file: str,
                 first_impossible: tuple[str, int] | None = None) -> Result:
    """FIRST (the default build's verdict) combined with the verdict of each other build.
    FIRST_IMPOSSIBLE names the macro the default build took both ways, if it did: its divergence
    is then no configuration's and cannot be reported (another build's may)."""
    if first.verdict == "divergent" and first_impossible is None:
        return first
    if first.verdict == "divergent":
        macro, line = first_impossible
        first = Result(first.subject, "inconclusive", cases=first.cases,
                       reason=(f"the sides differ only in a parse that takes `{macro}` both ways (true and false) "
                               f"(line {line}), which no build does"),
                       location=SourceLine(file, line))
    if not builds:
        return first
    judged: list[tuple[Build, Result]] = []
    for build in builds[:MAX_OTHER_BUILDS]:
        result = judge_in(build)
        if result.verdict == "divergent":
            impossible = result.extra.pop("impossible_build", None)
            if impossible is None:
                result.notes.insert(0, f"divergent in {build.describe()}; the default build (the first branch "
                                       f"of every #if) gives {first.verdict}")
                return result
            result = Result(first.subject, "inconclusive", cases=result.cases,
                            reason=f"in {build.describe()} the sides differ, but it takes `{impossible[0]}` "
                                   f"both ways (true and false) (line {impossible[1]})",
                            location=SourceLine(file, impossible[1]))
        judged.append((build, result))
    if first.verdict != "equivalent":
        return first
    for build, result in judged:
        if result.verdict != "equivalent":
            result.verdict = "inconclusive"
            result.reason = f"in {build.describe()}: {result.reason or 'not decided'}"
            if result.location is None:
                result.location = SourceLine(file, build.conditional.line)
            return result
    if len(builds) > MAX_OTHER_BUILDS:
        left = builds[MAX_OTHER_BUILDS]
        return Result(first.subject, "inconclusive", cases=first.cases,
                      reason=(f"the sides differ in {left.describe()}, which was not judged "
                              f"(at most {MAX_OTHER_BUILDS} builds besides the default one)"),
                      location=SourceLine(file, left.conditional.line))
    first.notes.append("also equivalent in " + "; ".join(build.describe() for build, _ in judged))
    first.cases += sum(result.cases for _, result in judged)
    if any(result.method != "proven" for _, result in judged):
        first.method = "tested"
    if len({build.conditional.key for build in builds}) > 1:
        first.method = "tested"
        first.notes.append("not proven: each differing conditional was judged flipped on its own, not "
                           "every combination of them")
    return first
