"""Divergent cases and their report: a case found on the fast path stays bytes until reported.

The search needs only the bytes of a case whose compiled renderings differ: which lines differ and
how badly (severity is a function of the bytes). Running every such case through the interpreter
as it was found cost most of a divergent verdict (up to 2,000 interpreter runs for one slip). So a
fast-path difference is kept as a `PendingOutcome`: the two renderings and the untouched input
source. The report asks the interpreter, the reference, only for the cases it describes (the
smallest per differing line, the first breaking one); a case the interpreter does not confirm is
passed over, as if it had run there when found. Nothing reported comes from the fast path alone:
every counterexample is confirmed, shrunk and replayed by the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.common.result import Divergence
from fmtcheck.engine.budget import WorkBudget
from fmtcheck.engine.compare import Outcome, ShownInputs, describe, line_labels, severity_of
from fmtcheck.engine.fastpath import Fallback, ZeroDefaults
from fmtcheck.engine.inputs import NUMBER_VIEW, VectorInputs
from fmtcheck.engine.search import nonzero_count, shrink, text_length
from fmtcheck.engine.sharing import hangs_on, unwritten_case

MAX_REPORTED_LINES = 12  # differing lines described per function; the rest are counted
MAX_WORST_CANDIDATES = 400  # cases of one line looked at for a worse (breaking) difference


class RenderedOutput:
    """One side's bytes as the fast path rendered them: no field spans, call sites or events (a
    trace with opaque calls is never kept pending)."""

    __slots__ = ("data",)
    events: tuple = ()
    event_sites: dict = {}
    ub: tuple = ()

    def __init__(self, data: bytes) -> None:
        self.data = data

    def field_at(self, offset: int) -> None:
        return None

    def site_at(self, offset: int) -> None:
        return None


@dataclass
class PendingOutcome(Outcome):
    """A fast-path difference not yet run through the interpreter. `inputs` are the values the
    renderings read (to order candidates by size); `source` is the input source itself."""

    source: Any = None
    confirmed: Outcome | None = None
    tried: bool = False


def pending_outcome(renderers: tuple[Any, Any], env: dict, rendered: tuple[bytes, bytes],
                    inputs: VectorInputs, known: dict[str, Any]) -> PendingOutcome:
    """The pending outcome of a case whose renderings differ; `known` are the discovered inputs."""
    read: dict[str, None] = {}
    for renderer in renderers:
        renderer.reads(type(env)(env), read)
    # (the values in the order read, by C-level passes when every key read is a discovered input)
    keys = list(read) if read.keys() <= known.keys() else [key for key in read if key in known]
    values = dict(zip(keys, map(env.__getitem__, keys)))
    return PendingOutcome(RenderedOutput(rendered[0]), RenderedOutput(rendered[1]), values, source=inputs)


class ShrinkTrial:
    """A shrinking trial whose compiled renderings differ (`fast_trial`). The shrinker
    keeps only the last one that still fails, and only its inputs are replayed: the keys the
    renderings read are listed once, for that one, not for every trial on the way."""

    same = False

    def __init__(self, renderers: tuple[Any, Any], env: dict, rendered: tuple[bytes, bytes],
                 known: dict[str, Any], named: dict[str, Any]) -> None:
        self.old, self.new = RenderedOutput(rendered[0]), RenderedOutput(rendered[1])
        self._renderers, self._env, self._known, self._named = renderers, env, known, named
        self._inputs: dict[str, Any] | None = None

    @property
    def inputs(self) -> dict[str, Any]:
        """The values the renderings read: of the discovered inputs, and of those the trial named."""
        if self._inputs is None:
            read: dict[str, None] = {}
            for renderer in self._renderers:
                renderer.reads(type(self._env)(self._env), read)
            self._inputs = {key: self._env[key] for key in read if key in self._known or key in self._named}
        return self._inputs


class _SameTrial:
    same = True


SAME_TRIAL = _SameTrial()  # a shrinking trial whose compiled renderings are equal


def fast_trial(runner: Any, trial: dict[str, Any]) -> Any:
    """A shrinking trial (inputs named, the rest zero) through the compiled traces alone, counted
    as no case (`Runner.fast_outcome`): SAME, a `divergences.ShrinkTrial` when the bytes differ,
    None when they cannot take it (the interpreter runs it). Unlike a search case, a trial may name
    inputs the search never discovered (the elements a counterexample's loop read past
    MAX_INPUT_KEYS): the traces read them as named, as the interpreter does."""
    if runner.fast is None:
        return None
    if NUMBER_VIEW in "\n".join(trial):  # (one C-level scan; a key holding it anywhere is taken as one)
        return runner._run_fast(VectorInputs(dict(trial), zero=True))
    zeros = runner._zeros()
    env = ZeroDefaults(zeros)
    env.update(trial)
    # a value of its zero's type is taken as named, and so is a number or string of an input the
    # search never discovered; the others (a bytearray, a value of another type) are checked one
    # by one (the keys picked by C-level passes: a trial of a wide case names thousands)
    for key in _checked_keys(trial, zeros):
        value = trial[key]
        value = bytes(value) if type(value) is bytearray else value
        if key in zeros:
            if type(value) is not type(zeros[key]):
                return None
        elif type(value) not in (int, bytes):
            return None
        env[key] = value
    try:
        old, new = runner.fast[0].render(env), runner.fast[1].render(env)
    except Fallback:
        return None
    if old == new:
        return SAME_TRIAL
    if old[1] or new[1]:
        return None
    return ShrinkTrial(runner.fast, env, (old[0], new[0]), runner.kinds, trial)


_UNKNOWN = object()  # the zero of an input the search never discovered (no value has its type)
_PLAIN = {int, bytes}


def _checked_keys(trial: dict[str, Any], zeros: dict[str, Any]) -> list[str]:
    """The keys of TRIAL whose value `fast_trial` checks one by one: those not of their zero's
    type, but for inputs the search never discovered whose value is a number or bytes (taken as
    named). When every value is one (the rule), only the discovered inputs are looked at: by one
    C-level intersection, in no fixed order, which the checks do not depend on."""
    if set(map(type, trial.values())) <= _PLAIN:
        return [key for key in trial.keys() & zeros.keys() if type(trial[key]) is not type(zeros[key])]
    return [key for key, value in trial.items() if type(value) is not type(zeros.get(key, _UNKNOWN))]


def confirm(runner: Any, outcome: Outcome, label: int) -> Outcome | None:
    """The interpreter's outcome for a reported case: itself when it came from the interpreter;
    for a pending one, the interpreter's run of its input source, or None when that shows no
    difference on `label` (then the fast path was wrong about it and it is passed over)."""
    if not isinstance(outcome, PendingOutcome):
        return outcome
    if not outcome.tried:
        outcome.tried = True
        outcome.confirmed = runner.run_slow(outcome.source)
    again = outcome.confirmed
    if again is None or again.same or label not in line_labels(again):
        return None
    return again


def report(runner: Any, divergent: list[Outcome]) -> list[Divergence]:
    """One divergence per differing output line, each with its smallest counterexample and,
    when that is only cosmetic, the worst case found for the same line. Only the cases described
    run through the interpreter."""
    by_label: dict[int, list[Outcome]] = {}
    for outcome in divergent:
        for label in line_labels(outcome):
            by_label.setdefault(label, []).append(outcome)
    out: list[Divergence] = []
    labels = sorted(by_label)
    sizes = CandidateSizes()
    replayed = Replays(runner.run_slow)
    shown = ShownInputs()
    for label in labels:
        if len(out) == MAX_REPORTED_LINES:
            runner.more_lines = len(labels) - labels.index(label)
            break
        outcomes = by_label[label]
        found = _first_confirmed(runner, sizes.smallest_first(outcomes), label)
        if found is None:
            continue
        candidate, smallest = found
        shrunk = shrink_case(runner, smallest, label)
        # nothing smaller found: the interpreter's run of the candidate's source is the case reported
        best = replayed(shrunk, getattr(candidate, "source", None) if shrunk is smallest else None)
        if runner.side_reads.one_sided() and hangs_on(runner, best):
            best = replayed(smallest)  # the shrunk case hangs on a one-sided key
        best = unwritten_case(runner, best) or replayed(smallest)  # shrunk into a case where a call wrote
        div = describe(best, runner.aliases, label, shown)
        div.rendered = (best.old.data, best.new.data)
        worst_div = div if div.severity != "cosmetic" else _worst(runner, outcomes, label, shown) or div
        if div.severity == "cosmetic" and worst_div.severity == "breaking":
            div.severity = "breaking"
            div.note = (f"cosmetic at the smallest input, but {worst_div.kind} when values fill their "
                        "columns: see the worst case")
            div.worst = {
                "kind": worst_div.kind, "severity": worst_div.severity,
                "expected": worst_div.expected, "actual": worst_div.actual,
                "line": worst_div.line, "column": worst_div.column,
                "counterexample": worst_div.counterexample,
            }
        if shows_a_difference(div) and not echoes_a_reported_line(div, best, out):
            out.append(div)
    if divergent and not out:
        raise Inconclusive("engine", "the fast path and the interpreter disagree on every differing case, or "
                                     "no output line shows the difference (model error)")
    out.sort(key=lambda d: (d.line, d.column))
    return out


def echoes_a_reported_line(div: Divergence, best: Outcome, out: list[Divergence]) -> bool:
    """A difference already reported, moved to a later line by a string input that holds a
    newline (the search tries every byte value of a string): the same field and kind as a
    reported line, so describing it again says nothing new."""
    if not any(isinstance(v, (bytes, bytearray)) and b"\n" in v for v in best.inputs.values()):
        return False
    return any(d.field == div.field and d.kind == div.kind for d in out)


class CandidateSizes:
    """The candidates of a line in the order a stable sort by `case_size` of their inputs gives,
    made as they are taken: grouped by their count of non-zero inputs, and only the groups reached
    sorted by the length of their values' texts (the interpreter confirms the first candidate of a
    line as a rule, and a wide case's texts are thousands of `str` calls). Each group keeps the
    order the candidates were found in, as the stable sort does. A candidate's counts are made
    once, for every line it is on."""

    def __init__(self) -> None:
        self.nonzero: dict[int, int] = {}
        self.text: dict[int, int] = {}

    def smallest_first(self, outcomes: list[Outcome]) -> Iterator[Outcome]:
        groups: dict[int, list[Outcome]] = {}
        for outcome in outcomes:
            groups.setdefault(self._nonzero(outcome), []).append(outcome)
        for count in sorted(groups):
            yield from sorted(groups[count], key=self._text)

    def _nonzero(self, outcome: Outcome) -> int:
        key = id(outcome)
        if key not in self.nonzero:
            self.nonzero[key] = nonzero_count(outcome.inputs)
        return self.nonzero[key]

    def _text(self, outcome: Outcome) -> int:
        key = id(outcome)
        if key not in self.text:
            self.text[key] = text_length(outcome.inputs)
        return self.text[key]


def shows_a_difference(div: Divergence) -> bool:
    """A line shown the same on both sides (`<seq_user_ns(m)>` against itself) is no difference
    to report: the report never shows identical expected and actual lines."""
    return (div.expected, div.expected_has_newline) != (div.actual, div.actual_has_newline)


def _first_confirmed(runner: Any, outcomes: Iterable[Outcome], label: int) -> tuple[Outcome, Outcome] | None:
    """(the candidate, the interpreter's outcome of it) for the first candidate it confirms."""
    for outcome in outcomes:
        real = confirm(runner, outcome, label)
        if real is not None:
            return outcome, real
    return None


def _worst(runner: Any, outcomes: list[Outcome], label: int, shown: ShownInputs) -> Divergence | None:
    """The first breaking difference on `label` among the first candidates, judged on bytes and
    described from the interpreter's run."""
    for candidate in outcomes[:MAX_WORST_CANDIDATES]:
        if severity_of(candidate, label) != "breaking":
            continue
        real = confirm(runner, candidate, label)
        if real is not None:
            return describe(real, runner.aliases, label, shown)
    return None


def shrink_case(runner: Any, outcome: Outcome, label: int) -> Outcome:
    """The fewest non-zero inputs and the smallest values that still differ on `label` (from the
    compiled traces where they take the trials: `replay` it before reporting it)."""

    def still_fails(trial: dict[str, Any]) -> Outcome | None:
        # the compiled traces decide a trial where they can (the smallest one found is replayed
        # through the interpreter below, which must print the same bytes)
        fast = runner.fast_outcome(trial)
        if fast is not None:
            return fast if not fast.same and label in line_labels(fast) else None
        try:
            again = runner.run_slow(VectorInputs(trial, zero=True))
        except LimitExceeded:
            return None  # a trial over the per-case bound shows nothing
        if again is not None and not again.same and label in line_labels(again):
            return again
        return None

    spare = WorkBudget(runner.budget.bounds)  # shrinking has its own budget: a found slip stays found
    known = runner.kinds
    kinds = {k: known.get(k) or _kind_of(v) for k, v in outcome.inputs.items()}  # (a kind is a non-empty tuple)
    counted = runner.budget
    runner.budget = spare
    try:
        # (the runner's zeros are those of its kinds, which the kinds here take where they know)
        _, best = shrink(outcome.inputs, kinds, still_fails, spare.exhausted, runner._zeros())
    finally:
        runner.budget = counted
    return best or outcome


def replay(run_slow: Callable[[VectorInputs], Outcome | None], outcome: Outcome) -> Outcome:
    """Every reported counterexample runs through both sides once more."""
    again = run_slow(VectorInputs(outcome.inputs, zero=True))
    if again is None or again.same or again.old.data != outcome.old.data or again.new.data != outcome.new.data:
        raise Inconclusive("engine", "a counterexample did not replay identically (non-deterministic model)")
    return again


class Replays:
    """`replay` once per counterexample: the lines of one loop often shrink to the same inputs
    (every line of a slip in iterations 2..9 to the same 9 iterations), and the interpreter run of
    the same inputs, in the same order, is the same outcome (it is deterministic; what it records
    on the runner, the keys each side read, aliases and notes, it records again unchanged)."""

    def __init__(self, run_slow: Callable[[VectorInputs], Outcome | None]) -> None:
        self.run_slow = run_slow
        self.done: dict[tuple, Outcome] = {}
        self.keys: dict[int, tuple[dict, tuple]] = {}  # id(inputs) -> (inputs, its key): made once each

    def __call__(self, outcome: Outcome, source: Any = None) -> Outcome:
        """The replay of OUTCOME; SOURCE, when given, is the input source the interpreter ran to
        give OUTCOME itself: when `ran_as_replayed(source, outcome)`, that run is its replay."""
        key = self._key(outcome.inputs)
        if key not in self.done and source is not None and ran_as_replayed(source, outcome):
            self.done[key] = outcome
        if key not in self.done:
            self.done[key] = replay(self.run_slow, outcome)
        again = self.done[key]
        if again.old.data != outcome.old.data or again.new.data != outcome.new.data:
            raise Inconclusive("engine", "a counterexample did not replay identically (non-deterministic model)")
        return again

    def _key(self, inputs: dict[str, Any]) -> tuple:
        """The inputs as a key, made once per inputs dict (the lines of a loop that shrink to the
        same case pass the same outcome; no case's inputs change once made)."""
        kept = self.keys.get(id(inputs))
        if kept is None or kept[0] is not inputs:
            key = tuple((k, type(v), bytes(v) if type(v) is bytearray else v) for k, v in inputs.items())
            kept = self.keys[id(inputs)] = (inputs, key)
        return kept[1]


def ran_as_replayed(source: Any, outcome: Outcome) -> bool:
    """Whether the interpreter's run of SOURCE, which gave OUTCOME, is a run of the inputs its
    replay names: `VectorInputs(outcome.inputs, zero=True)` gives every read the value SOURCE gave it.

    It does when SOURCE is a zero-based vector (no loop counts given, no number view named: a key
    read both as a string and as a number names its views by the order of the reads) and OUTCOME
    is its own run: by induction over the reads, which take the same keys in the same order while
    the values read so far are the same. A read of a key SOURCE names returns the named value in
    both (the assignment records it as named); a first read of a key it does not name returns the
    key's zero (the empty string, no iterations), which the assignment records and the replay
    returns unchanged (a zero is in its type's range); a later read returns what the first one
    stored, the recorded value again. The interpreter is a function of the values it reads (the
    premise of `Replays`), so the replay would print the same bytes and record the same keys, and
    the run the report describes is one of exactly the inputs it lists."""
    if type(source) is not VectorInputs or not source.zero or source.loops or source.number_views:
        return False
    if outcome.inputs != source.assignment() or any(NUMBER_VIEW in name for name in outcome.inputs):
        return False
    return True


def _kind_of(value: Any) -> tuple:
    if isinstance(value, (bytes, bytearray)):
        return ("str", "text")
    return ("int", 64, False)
