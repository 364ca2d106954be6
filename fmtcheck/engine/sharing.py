"""Soundness of a divergence: is it realizable from what both sides share?

The engine names every value the code does not define by an input key (a field path, an unknown
call with its arguments, an iterator's length). A key that only one side reads over the whole
search (a call only one side makes, a field or table the other never touches, a local read
before anything set it) is not shared: the two sides may read different state, and a value the
model draws for it is no fact about the caller. A difference that hangs on such a key (other
values of the one-sided keys make the two outputs equal) is inconclusive, naming the key and its
line, never divergent. A difference that stays whatever values the one-sided keys take (a line
printed by one side only) is realizable and stays divergent.

This rule runs in the engine, so every front end (verify, patch, range, the plugin) has it.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from fmtcheck.c import cfront
from fmtcheck.c.stores import stateless, stored_key, written_path
from fmtcheck.common.errors import LimitExceeded
from fmtcheck.engine.compare import Outcome, display_key
from fmtcheck.engine.inputs import MAX_LOOP, VectorInputs
from fmtcheck.engine.search import case_size
from fmtcheck.common.lazyre import lazy_compile

# divergent outcomes checked for a realizable difference, smallest first, when every one reads a
# one-sided key
MAX_CHECKED_OUTCOMES = 6
# alternative assignments of the one-sided keys tried per outcome
MAX_ALTERNATIVES = 64
# the climb of `climbs_to_equal`: rounds over the keys, runs per verdict, values taken from the outputs
CLIMB_ROUNDS = 4
MAX_CLIMB_RUNS = 128
MAX_CLIMB_NUMBERS = 32
MAX_CLIMB_WORDS = 16
# interpreter steps all of a verdict's re-runs of cases with other values may take (five cases at
# the per-case step limit): each re-run of a side with a loop to an input count can run to that
# limit, and a report makes hundreds of them
MAX_RERUN_STEPS = 1_000_000

_NAME = lazy_compile(r"[A-Za-z_]\w*")


class SideReads:
    """The input keys each side read, over every case the search ran."""

    def __init__(self) -> None:
        self.old: set[str] = set()
        self.new: set[str] = set()

    def record(self, log: list[str], start: int, middle: int) -> tuple[list[str], list[str]]:
        """The keys of one case, from an input source's read log: the old side's from `start`,
        the new side's from `middle`."""
        reads = (log[start:middle], log[middle:])
        self.old.update(reads[0])
        self.new.update(reads[1])
        return reads

    def one_sided(self) -> set[str]:
        """Keys not shared: read by one side only, or read after a store into the caller's data
        (whose value the store may or may not have changed: see `fmtcheck.c.stores`)."""
        return (self.old ^ self.new) | {k for k in self.old | self.new if stored_key(k)}


def needed_one_sided(outcome: Outcome, one_sided: set[str], rerun: Callable[[dict], Outcome | None],
                     kinds: dict[str, Any], climb: list[int] | None = None) -> list[str]:
    """The one-sided keys the outcome's difference hangs on: [] when it reads none, or when no
    other values of them tried make the outputs equal; else the keys it read. `rerun(trial)` is
    the outcome of the case with other values (None when it goes over a per-case bound);
    `climb` holds the runs `climbs_to_equal` may still make (shared by a verdict's calls)."""
    read = [k for k in outcome_reads(outcome) if k in one_sided]
    if not read:
        return []
    tried = alternatives(outcome.inputs, read, kinds)
    for trial in tried:
        again = rerun(trial)
        if again is not None and again.same:
            return read
    return read if climbs_to_equal(outcome, read, rerun, kinds, tried, climb) else []


def climbs_to_equal(outcome: Outcome, keys: list[str], rerun: Callable[[dict], Outcome | None],
                    kinds: dict[str, Any], tried: list[dict[str, Any]],
                    climb: list[int] | None = None) -> bool:
    """Whether moving the one-sided keys one at a time, each to the value that lengthens the
    outputs' common beginning most, makes them equal. A helper one side calls and the other
    inlines (`n = pending_of(t, &flags)` against `n = flags + 1`) prints values that must all be
    right at once; `alternatives` moves them all to one value or one alone and misses that, and
    the difference then looked realizable where it hangs on what the helper returns. The values
    tried include those of `alternatives` (TRIED) and the numbers and words either output shows
    (what the other side printed)."""
    values = _climb_values(outcome, keys, kinds, tried)
    best, score = dict(outcome.inputs), _agreement(outcome)
    left = [MAX_CLIMB_RUNS] if climb is None else climb
    for _ in range(CLIMB_ROUNDS):
        moved = False
        for key in keys:
            for value in values[key]:
                if best.get(key) == value or left[0] <= 0:
                    continue
                left[0] -= 1
                again = rerun({**best, key: value})
                if again is None:
                    continue
                if again.same:
                    return True
                agreement = _agreement(again)
                if agreement > score:
                    best, score, moved = {**best, key: value}, agreement, True
        if not moved:
            return False
    return False


def _agreement(outcome: Outcome) -> tuple[int, int]:
    """How far two outputs agree: the length of their common beginning, then how close their
    lengths are."""
    a, b = bytes(outcome.old.data), bytes(outcome.new.data)
    common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return common, -abs(len(a) - len(b))


def _climb_values(outcome: Outcome, keys: list[str], kinds: dict[str, Any],
                  tried: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The values each key is tried at: those it took in `alternatives` (TRIED), and the numbers
    (decimal and hex) and words either output shows."""
    text = bytes(outcome.old.data) + b" " + bytes(outcome.new.data)
    numbers = list(dict.fromkeys([int(t) for t in re.findall(rb"\d{1,20}", text)]
                                 + [int(t, 16) for t in re.findall(rb"[0-9a-fA-F]{1,16}", text)]))
    words = list(dict.fromkeys(re.findall(rb"[^\s]{1,64}", text)))[:MAX_CLIMB_WORDS]
    out: dict[str, list[Any]] = {}
    for key in keys:
        kind = _kind(key, outcome.inputs, kinds)
        seen = [trial[key] for trial in tried if key in trial]
        if kind[0] == "str":
            candidates = seen + [b""] + words
        elif kind[0] == "loop":
            candidates = seen + list(range(0, MAX_LOOP + 1))
        else:
            candidates = seen + numbers[:MAX_CLIMB_NUMBERS] + [-n for n in numbers[:MAX_CLIMB_NUMBERS] if n]
        out[key] = list(dict.fromkeys(candidates))
    return out


def outcome_reads(outcome: Outcome) -> list[str]:
    reads = getattr(outcome, "reads", None)
    if reads is None:
        return list(outcome.inputs)
    return list(dict.fromkeys(list(reads[0]) + list(reads[1])))


def _kind(key: str, inputs: dict[str, Any], kinds: dict[str, Any]) -> Any:
    """An input's kind, or what its value shows when the search did not record one."""
    return kinds.get(key) or (("str",) if isinstance(inputs.get(key), (bytes, bytearray)) else ("int",))


def alternatives(inputs: dict[str, Any], keys: list[str], kinds: dict[str, Any]) -> list[dict[str, Any]]:
    """Assignments that keep every shared input and move the one-sided ones: all of them to one
    value, then each alone, over 0..16, the ends of the integer types and the values the case
    already holds."""
    ints = sorted({v for v in inputs.values() if type(v) is int})[:8]
    ints = sorted(set(ints) | set(range(0, 17)) | {-1, (1 << 31) - 1, (1 << 32) - 1, (1 << 64) - 1})
    strs = sorted({bytes(v) for v in inputs.values() if isinstance(v, (bytes, bytearray))} | {b""})[:4]
    out: list[dict[str, Any]] = []

    loops = list(range(0, MAX_LOOP + 1))

    def values_for(key: str) -> list[Any]:
        kind = _kind(key, inputs, kinds)
        return strs if kind[0] == "str" else loops if kind[0] == "loop" else ints

    for v in ints:
        trial = dict(inputs)
        for k in keys:
            choices = values_for(k)
            if choices is ints or (choices is loops and v in loops):
                trial[k] = v
        out.append(trial)
    for s in strs:
        trial = dict(inputs)
        for k in keys:
            if values_for(k) is strs:
                trial[k] = s
        out.append(trial)
    for k in keys:
        for v in values_for(k):
            if inputs.get(k) != v:
                trial = dict(inputs)
                trial[k] = v
                out.append(trial)
    unique: list[dict[str, Any]] = []
    for trial in out:
        if trial != inputs and trial not in unique:
            unique.append(trial)
    return unique[:MAX_ALTERNATIVES]


def key_line(key: str, units: list[tuple[cfront.Unit, list[str]]]) -> str | None:
    """Where a side reads an input key: the first line of its functions naming the key's call or
    last member (`get_mm_counter(mm, 0)`: get_mm_counter; `c->topo.pkg_id`: pkg_id)."""
    name = _key_name(key)
    if name is None:
        return None
    for unit, functions in units:
        for fname in functions:
            node = unit.functions.get(fname)
            if node is None:
                continue
            for n in cfront.walk(node):
                if n.type in ("identifier", "field_identifier") and n.text.decode("latin-1") == name:
                    return f"{unit.where}:{unit.user_line(n)}"
    return None


def _key_name(key: str) -> str | None:
    key = stateless(key)
    if key.startswith("(uninitialised "):
        m = _NAME.match(key, len("(uninitialised "))
        return m.group(0) if m else None
    call = re.match(r"\(?([A-Za-z_]\w*)\(", key)
    if call:
        return call.group(1)
    names = _NAME.findall(key.split("(")[0]) or _NAME.findall(key)
    return names[-1] if names else None


def one_sided_reason(keys: list[str], where: str | None, state: list[str] | None = None) -> str:
    place = f"{where}: " if where else ""
    bases = list(dict.fromkeys(written_path(k) for k in keys))
    if keys and None not in bases:
        shown = ", ".join(bases[:4]) + (", ..." if len(bases) > 4 else "")
        return (f"{place}the outputs differ only if an unknown call that receives a pointer to the caller's "
                f"data writes it: {shown} is read after such a call on one side and before it (or after "
                "another) on the other")
    shown = ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "")
    if state:
        return (f"{place}the outputs differ only for some values of {shown}, read from "
                f"{', '.join(state)}: the kernel's state (a file-scope variable that other code may "
                "change; its value when the printer runs is not known, and the file's initial value may be "
                "the only one it ever holds): no difference from inputs both sides share is shown")
    return (f"{place}the outputs differ only for some values of {shown}, which one side reads and the "
            "other never does (a call, field or table of one side, or a local read before it is set): "
            "no difference from inputs both sides share is shown")


def unshared_keys(runner: Any) -> set[str]:
    """Keys no difference may hang on: those one side alone reads, and the kernel's state that
    both read (a file-scope variable other code changes: the value the model draws is no fact
    about the kernel, and the file's initializer may be the only value it ever holds), unless it
    is a pointer the file itself sets to data (`filled_state`)."""
    reads = runner.side_reads
    state = kernel_state(runner) - filled_state(runner)
    held = {k for k in reads.old | reads.new if _root(k) in state} if state else set()
    return reads.one_sided() | held


def kernel_state(runner: Any) -> set[str]:
    """The file-scope variables either side holds as the kernel's state (`Program.kernel_state`)."""
    return runner.old.program.kernel_state | runner.new.program.kernel_state


def filled_state(runner: Any) -> set[str]:
    """Pointers of the kernel's state that the file's code sets to data (`Program.filled_state`):
    a difference that needs one to point at data is realizable."""
    return runner.old.program.filled_state | runner.new.program.filled_state


def state_roots(runner: Any, keys: list[str]) -> list[str]:
    """The file-scope variables of the kernel's state that KEYS are read from."""
    state = kernel_state(runner)
    return sorted({root for root in map(_root, keys) if root in state})


def _root(key: str) -> str | None:
    match = _NAME.match(key)
    return match.group(0) if match else None


def shared_only(runner: Any, outcomes: list[Outcome]) -> tuple[list[Outcome], list[str]]:
    """The outcomes of a `Runner` whose difference does not hang on a key only one side reads,
    and the one-sided keys the first of the others needs."""
    outcomes, written = unwritten(runner, outcomes)
    if not outcomes:
        return [], written
    unshared = unshared_keys(runner)
    if not unshared:
        return outcomes, []
    kept = [o for o in outcomes if o.reads is not None and not any(k in unshared for k in outcome_reads(o))]
    needed: list[str] = []
    if kept:
        return kept, needed
    for candidate in sorted(outcomes, key=_size)[:MAX_CHECKED_OUTCOMES]:
        outcome = _interpreted(runner, candidate)
        if outcome is None:
            continue
        unshared = unshared_keys(runner)
        keys = hangs_on(runner, outcome, unshared)
        if not keys:
            return [outcome], needed  # one realizable difference decides; the report shows it
        if not needed:
            needed = keys
    return kept, needed


def without_writes(inputs: dict[str, Any]) -> dict[str, Any] | None:
    """The case as it is when no unknown call wrote the caller's data: every read of a path after
    such calls (`s->x@cN`) holds what the path held before them (or, when the path was not read
    before them, what its first such read holds). None when the case is already so (at once when
    no key holds `@c`: one C-level scan of the keys joined by NULs, which puts no `@c` between two)."""
    if "@c" not in "\x00".join(inputs):
        return None
    groups: dict[str, list[str]] = {}
    for key in inputs:
        path = written_path(key)
        if path is not None:
            groups.setdefault(path, []).append(key)
    if not groups:
        return None
    trial = dict(inputs)
    for base, keys in groups.items():
        value = inputs[base] if base in inputs else inputs[min(keys)]
        for key in keys:
            trial[key] = value
    return None if trial == inputs else trial


def unwritten(runner: Any, outcomes: list[Outcome]) -> tuple[list[Outcome], list[str]]:
    """The outcomes whose difference shows when no unknown call wrote the caller's data (a callee
    that writes nothing is realizable; one that writes is only possible), each re-run as that case
    where it was not one; and, when none is left, the reads the differences hung on. A read moved
    across such a call is a read of another value, so a difference that needs the call to have
    written is no counterexample: the answer is inconclusive naming the reads."""
    kept: list[Outcome] = []
    needed: list[str] = []
    checked = 0
    for outcome in sorted(outcomes, key=_size):
        trial = without_writes(outcome.inputs)
        if trial is None:
            kept.append(outcome)
            continue
        if kept or checked == MAX_CHECKED_OUTCOMES:
            continue
        checked += 1
        again = _unwritten_run(runner, trial)
        if again is not None:
            kept.append(again)
        elif not needed:
            needed = sorted(k for k in outcome.inputs if written_path(k) is not None)
    return kept, needed


def unwritten_case(runner: Any, outcome: Outcome) -> Outcome | None:
    """`outcome` if no unknown call needs to have written for it, else its case without writes
    when that still differs, else None."""
    trial = without_writes(outcome.inputs)
    return outcome if trial is None else _unwritten_run(runner, trial)


def _unwritten_run(runner: Any, trial: dict[str, Any]) -> Outcome | None:
    """The run of a case without writes, if it differs and read nothing that breaks that (a key
    the case did not name reads 0, which may differ from the path before the calls)."""
    again = _run_within_bounds(runner, VectorInputs(trial, zero=True))
    if again is None or again.same or without_writes(again.inputs) is not None:
        return None
    return again


def _interpreted(runner: Any, outcome: Outcome) -> Outcome | None:
    """An outcome with the keys each side read: a case the fast path found (no read log) runs
    through the interpreter first; None when the interpreter shows no difference."""
    source = getattr(outcome, "source", None)
    if outcome.reads is not None or source is None:
        return outcome
    again = _run_within_bounds(runner, source)
    return again if again is not None and not again.same else None


def hangs_on(runner: Any, outcome: Outcome, unshared: set[str] | None = None) -> list[str]:
    """The one-sided keys an outcome's difference hangs on ([] when it is realizable)."""
    unshared = runner.side_reads.one_sided() if unshared is None else unshared

    def rerun(trial: dict[str, Any]) -> Outcome | None:
        return _run_within_bounds(runner, VectorInputs(trial, zero=True))

    keys = needed_one_sided(outcome, unshared, rerun, runner.kinds, getattr(runner, "climb_runs", None))
    left = getattr(runner, "rerun_steps", None)
    if not keys and left is not None and left[0] <= 0:
        # the re-runs stopped before trying every value: the difference may still hang on the
        # keys, so it is not shown realizable (never divergent on an unfinished check)
        return [k for k in outcome_reads(outcome) if k in unshared]
    return keys


def _run_within_bounds(runner: Any, inputs: VectorInputs) -> Outcome | None:
    """A re-run of the search's case with other values; None when that run goes over a per-case
    bound (an alternative count of 2**32 - 1 for a loop), or when the verdict's re-runs have spent
    their steps (`Runner.rerun_steps`, counted in work so the answer never hangs on the machine's
    speed): it shows nothing either way, and the search it serves has a verdict to give."""
    left = getattr(runner, "rerun_steps", None)
    if left is not None and left[0] <= 0:
        return None
    before = getattr(runner, "steps_spent", 0)
    try:
        return runner.run_slow(inputs)
    except LimitExceeded:
        return None
    finally:
        if left is not None:
            left[0] -= runner.steps_spent - before


def key_where(runner: Any, keys: list[str]) -> str | None:
    """The first line where a side of the `Runner` reads one of the keys."""
    units = [(runner.old.program.unit, list(runner.old.program.compiled)),
             (runner.new.program.unit, list(runner.new.program.compiled))]
    for key in keys:
        where = key_line(key, units)
        if where is not None:
            return where
    return None


def _size(outcome: Outcome) -> tuple[int, int]:
    return case_size(outcome.inputs)


def struct_pun(runner: Any) -> str | None:
    """Why no verdict holds when the two sides read one input key as different types (`struct
    st *p = v; p->u` against `struct ot *q = v; q->u`; a local `struct st` copied whole from a
    `struct ot *`; `((u32 *)v)[1]` against `((u64 *)v)[1]`): the model names the caller's data by
    path, not by offset, so it would give both reads one value where the kernel reads two places."""
    old, new = runner.old.program.read_types, runner.new.program.read_types
    for key, old_types in old.items():
        new_types = new.get(key)
        if new_types is None or len(old_types.keys() | new_types.keys()) < 2:
            continue
        type_a, where_a = next(iter(old_types.items()))
        type_b, where_b = next((t, w) for t, w in list(new_types.items()) + list(old_types.items()) if t != type_a)
        shown = display_key(key, runner.aliases)
        return (f"{shown} is read as {type_a} at {where_a} and as {type_b} at {where_b}: "
                "the two sides read the caller's data through different types")
    return None
