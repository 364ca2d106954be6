"""The search for a counterexample, in a fixed order, under a budget counted in work.

Order (the same every run, so the same seed gives the same report):

1. the all-zero vector: every input 0 or empty, no loop iterations;
2. each input alone at each of its boundaries, every other input 0 or empty;
3. the sweep of `fmtcheck.engine.inputs` (one input moving, the others small and distinct; then
   every column filled at each digit length); an input a later case reveals (read only under a
   condition that case made true) is swept again from that case (`sweep_where_revealed`);
4. Hypothesis, seeded, over the same input classes (only when the proof failed);
5. aimed cases: every condition over the inputs that has not yet been true, false and at its
   boundary (`fmtcheck.c.coverage`) gets cases built from the first case that reached it, with
   the inputs it read moved to the values that close the gap (the other operand, one either side,
   the digit-length boundaries).

A search that ends on a budget, or leaves a condition open, has not covered the code: its verdict
is inconclusive and says what it covered. Counterexamples are shrunk to the fewest non-zero inputs
and then to the smallest values.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from fmtcheck.c.coverage import Site
from fmtcheck.engine.inputs import VectorInputs, axis_values, sweep, type_range, zero_value

MAX_AIM_ROUNDS = 8  # rounds of aimed cases: a round can open conditions nested one level deeper
MAX_AIMED_PER_SITE = 160  # cases aimed at one condition per round
MAX_AIMED_KEYS = 16  # inputs moved per condition when it read none itself
MAX_AIMED_CASES = 8000  # aimed cases in all: what they leave open is reported as a coverage gap
SHIFTS = (1, 2, 3, 4, 10, 12)  # the shifts printers apply to an input (pages to kB, bytes to pages)


def aimed_values(value: Any, kind: Any, operands: tuple[int, int] | None) -> list[Any]:
    """Values for one input that may move a condition it feeds to the other side of its boundary:
    where the operands meet (for `x + y > T` as for `x > T`), one either side, and the
    proportional value (for a shifted or scaled input, `pages << 2 < T`; from an input at 0, the
    other operand shifted up by the usual shifts)."""
    if kind[0] != "int" or not isinstance(value, int) or operands is None:
        return []
    a, b = operands
    gap = b - a
    out: list[int] = []
    for base in (value + gap, value - gap, b, a):
        out += [base, base + 1, base - 1]
    if a and value and a != b:
        scaled = value * b // a
        step = max(value // abs(a), 1)
        out += [scaled, scaled + 1, scaled - 1, scaled + step, scaled - step]
    elif b and not a:
        out += [b << shift for shift in SHIFTS]  # `x >> 2 == 9` from x = 0: the operand scaled up
    return _in_range(out, kind, value)


def entry_cases(site: Site, kinds: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(entry, case) for each entry of a table indexed by an input that no case has read yet:
    the first case that reached the table with one input it read moved by the distance from that
    case's index to the entry (an index that is the input plus a constant, or the input modulo
    the table's size, then selects it)."""
    base = site.case or {}
    index = site.operands[0] if site.operands is not None else 0
    for entry in site.unread_entries():
        for key in site.keys:
            value = base.get(key, zero_value(kinds[key])) if key in kinds else None
            if isinstance(value, int) and kinds[key][0] == "int":
                for moved in _in_range([value + entry - index], kinds[key], value):
                    yield entry, {**base, key: moved}


def aim_at_entries(runner: Any, site: Site, limit: int) -> bool:
    """Run a case aimed at each table entry no case has read (`entry_cases`). An entry is done
    when a case reads it, or when the case aimed at it ran without reaching the table (a guard
    keeps that index out, on that side, for the input that selects it); an aimed case that read
    another entry leaves it open, and the verdict names it. False once the search must stop."""
    for entry, trial in entry_cases(site, runner.kinds):
        if entry not in site.unread_entries():
            continue
        hits, cases = site.hits, runner.cases
        if runner.cases >= limit or not runner.try_case(VectorInputs(trial, zero=True), "aimed", observed=True):
            return False
        if runner.divergent:
            return False
        if runner.cases > cases and site.hits == hits:
            site.entries_tried.add(entry)
    return True


def _in_range(values: list[int], kind: Any, current: Any) -> list[int]:
    lo, hi = type_range(kind)
    seen: set[int] = set()
    ordered = []
    for v in values:
        if lo <= v <= hi and v != current and v not in seen:
            seen.add(v)
            ordered.append(v)
    return ordered


def aimed_cases(site: Site, kinds: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Cases aimed at one open condition, built from the first case that reached it: first every
    input it read (or read last before it) moved to where the operands meet, then each of them
    through its boundaries."""
    base = site.case or {}
    keys = ([k for k in site.keys if k in kinds] or [k for k in site.recent if k in kinds]
            + [k for k in reversed(list(base)) if k in kinds and k not in site.recent][:MAX_AIMED_KEYS])
    current = {k: base.get(k, zero_value(kinds[k])) for k in keys}
    moves = [(k, v) for k in keys for v in aimed_values(current[k], kinds[k], site.operands)]
    moves += [(k, v) for k in keys for v in ([0, 1] + axis_values(kinds[k]) if kinds[k][0] == "int"
                                                 else axis_values(kinds[k])) if v != current[k]]
    seen: set[tuple[str, Any]] = set()
    for key, v in moves:
        if len(seen) >= MAX_AIMED_PER_SITE:
            return
        if (key, v) in seen:
            continue
        seen.add((key, v))
        trial = dict(base)
        trial[key] = v
        yield trial


def sweep_where_revealed(runner: Any, fresh: dict[str, Any]) -> bool:
    """The sweep (stage 3) of inputs a later case revealed, run in that case's context: an input
    read only under a condition the case made true (an iterator equal to a global's address, a
    flag set) is never read with the other inputs at their zeros or small defaults, so its
    extremes are tried on the case that reached it, the other inputs as that case had them.
    False once the budget is spent."""
    contexts: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    for key, kind in fresh.items():
        case = runner.revealed_in.get(key)
        if case is not None:
            contexts.setdefault(id(case), (case, {}))[1][key] = kind
    for case, kinds in contexts.values():
        for vector in sweep(kinds):
            if not runner.try_case(VectorInputs({**case, **vector}, zero=True), "revealed"):
                return False
    return True


def nonzero_count(inputs: dict[str, Any]) -> int:
    """How many inputs are not 0 nor empty (by two C-level counts: a case of a wide loop holds
    thousands, and the report sizes hundreds of cases; a value equal to 0, or to b"", is one)."""
    values = list(inputs.values())
    return len(values) - values.count(0) - values.count(b"")


def case_size(inputs: dict[str, Any]) -> tuple[int, int]:
    """How big a case is, to order candidates smallest first: its non-zero inputs, then the
    length of its values' texts."""
    return nonzero_count(inputs), text_length(inputs)


def text_length(inputs: dict[str, Any]) -> int:
    """The length of a case's values' texts (the second key of `case_size`)."""
    return sum(map(len, map(str, inputs.values())))


def _zero_trial(key: str, value: Any, kinds: dict[str, Any], zeros: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """The first trial for one input: its zero (none when it is at it, or its kind is unknown)."""
    kind = kinds.get(key)
    if kind is None:
        return []
    zero = zeros[key] if zeros is not None and key in zeros else zero_value(kind)
    return [(key, zero)] if value != zero else []


def _smaller_trials(key: str, value: Any, kinds: dict[str, Any]) -> list[tuple[str, Any]]:
    """The next trials for one input: ever smaller values, smallest first (a string no shorter
    than its kind's empty value)."""
    if type(value) is int and value == 0:
        return []  # nothing is smaller (most inputs of a case being shrunk are at their zero)
    shortest = len(zero_value(kinds[key])) if kinds.get(key, ("",))[0] == "str" else 0
    return [(key, smaller) for smaller in _smaller(value) if not isinstance(smaller, bytes) or len(smaller) >= shortest]


def shrink_trials(inputs: dict[str, Any], kinds: dict[str, Any],
                  zeros: dict[str, Any] | None = None) -> Iterator[tuple[str, Any]]:
    """(key, smaller value) to try, in order: each input to its 0 first (the fewest non-zero
    inputs), then each remaining one to ever smaller values (`zeros`: the zero of each input of
    `kinds`, when the caller computed them once for many calls)."""
    for key, value in inputs.items():
        yield from _zero_trial(key, value, kinds, zeros)
    for key, value in inputs.items():
        yield from _smaller_trials(key, value, kinds)


def shrink(inputs: dict[str, Any], kinds: dict[str, Any], still_fails: Callable[[dict[str, Any]], Any],
           out_of_budget: Callable[[], bool], zeros: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
    """The smallest failing inputs found from `inputs`: `still_fails(trial)` returns the outcome
    when the trial still shows the difference, else None. Greedy, deterministic, and bounded by
    the budget (it stops with the smallest case so far).

    Greedy in the order of `shrink_trials`, each trial tried once against the smallest case so
    far, in one pass: after a success, a scan of `shrink_trials` from the start would find every
    earlier trial done (or no longer smaller: the inputs before it are unchanged, and the values
    below the one taken were tried before it, smallest first), so the pass goes on from there;
    the rest of a ladder whose value was taken is larger than it, so the pass moves to the next
    input. (Scanning again from the start cost O(inputs) per success: 300,000 skipped trials for
    a chain of 5 nodes of 65 fields.) `zeros`: the zero of each input of `kinds`, when the
    caller computed them once for many calls."""
    best, best_outcome = dict(inputs), None
    zeros = zeros or {}
    zero = {k: zeros[k] if k in zeros else zero_value(kinds[k]) for k in best if k in kinds}
    if zero != best:
        outcome = still_fails(zero)
        if outcome is not None:
            return zero, outcome
    done: set[tuple[str, Any]] = set()

    def attempt(key: str, value: Any) -> bool | None:
        """True when the trial still fails (then taken), False when not, None when not tried."""
        nonlocal best, best_outcome
        if (key, repr(value)) in done or best.get(key) == value:
            return None
        done.add((key, repr(value)))
        trial = dict(best)
        trial[key] = value
        outcome = still_fails(trial)
        if outcome is None:
            return False
        best, best_outcome = trial, outcome
        return True

    if out_of_budget():
        return best, best_outcome
    # Only the inputs that have trials are visited (a wide case holds thousands at their zero;
    # the lists are made by C-level passes): a trial changes only the input being visited, so
    # the values of the inputs after it are those the lists were made from.
    for key in [k for k, v in best.items() if k in zero and v != zero[k]]:  # (`_zero_trial`'s)
        for trial_key, value in _zero_trial(key, best[key], kinds, zero):
            if out_of_budget():
                return best, best_outcome
            attempt(trial_key, value)
    for key in [k for k, v in best.items() if type(v) is not int or v != 0]:  # (`_smaller_trials`')
        for trial_key, value in _smaller_trials(key, best[key], kinds):
            if out_of_budget():
                return best, best_outcome
            if attempt(trial_key, value):
                break
    return best, best_outcome


def _smaller(value: Any) -> list[Any]:
    """Smaller values of the same kind, smallest first: for a string, the empty string, each
    single byte of it (the one byte two escapings print differently), then longer prefixes."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        ladder = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000, 999999, 1000000,
                  9999999, 10000000]
        out = [v for v in ladder if abs(v) < abs(value)]
        if value < 0:
            out = [v if v == 0 else -v for v in out]
        return out
    if isinstance(value, bytes):
        prefixes = [value[:n] for n in range(0, len(value))]
        return prefixes[:2] + [value[i:i + 1] for i in range(1, len(value))] + prefixes[2:]
    return []
