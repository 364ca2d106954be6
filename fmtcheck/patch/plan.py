"""`fmtcheck patch`: judge every output function a kernel patch changes, old version against new.

A reviewer holds a patch, not old.c and new.c. This module rebuilds, for every function the patch
touches, the version before and the version after, finds out which of them are output code (they
print through seq_file), and hands each pair to the core engine (`fmtcheck.engine.compare_functions`).

Two ways to rebuild
-------------------
*From the patch alone* (the default). Each hunk is split, per side, into pieces that belong to a
function (the hunk header's function context names the function a hunk starts in; a brace-aware
scan and tree-sitter find the functions that start and end inside it) and top-level text, from
which ``#define``s and initialised declarations are taken. A function's pieces from all hunks are
joined into one syntactically complete function:

- the header comes from the function's own lines when the patch shows them, else from the hunk
  header's function context (a header git truncated is repaired by closing its parameter list);
- lines the patch does not show (before the first hunk, between two hunks, after the last one)
  become one marker line ``/* fmtcheck: hunk gap */``. Where the hunk headers put code there (the
  line numbers jump, or the function starts before or ends after what is shown), and the function
  has a seq_file, the marker is a call of an unknown function that receives the seq_file and the
  values the change computes: unchanged code that may print, an output event the engine keeps
  uninterpreted and the same on both sides when those values are. Every result rebuilt with a gap
  says so in a note and suggests ``--tree``;
- braces are balanced from the kernel's indentation (one tab per block) and from the closing brace
  of the function at column 0 when the hunk shows it;
- a local the hunks assign but whose declaration they do not show is an input of unknown type:
  the function is judged once per integer type it may have, and a verdict is given only when
  every type gives it (`fmtcheck.patch.untyped`);
- a hunk that starts or ends inside a statement (git's three lines of context cut a long
  ``seq_printf`` in two) drops those unchanged context lines; when that cannot be done (the change
  itself is inside the cut statement, or dropped context prints), the function is reported
  inconclusive with the reason and the advice to use ``--tree``.

Functions and macros the patch adds exist only on the new side, removed ones only on the old side,
context ones on both (seed 003's empty ``__weak arch_show_smap`` stub prints nothing on both).

*With ``--tree DIR``* the patch is applied in memory to the files it names (a series in order, each
version of a thread from the same base), so both sides are whole files: whole functions, and every
helper, macro and table the hunks do not show, including those of headers included with
``#include "..."``. Functions that use a changed macro or table are checked too.

What gets checked
-----------------
A touched function is output code when it calls a seq_file primitive, a helper or macro (from the
available text) that does, a ``SEQ_*`` macro wrapper, or passes its ``struct seq_file *`` parameter
to any call. Changes to the read path in fs/seq_file.c (seq_read, seq_read_iter, traverse,
seq_lseek) are reported as such, not checked; changes to a primitive's own implementation are
inconclusive (the engine models them from the specification).
"""

from __future__ import annotations

import os
from typing import Callable
from collections import Counter
from dataclasses import dataclass, field

from fmtcheck.common import plain
from fmtcheck.common.errors import Inconclusive, InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Report, Result
from fmtcheck.c.headers import includes_of, tree_build_values
from fmtcheck.patch.buildvalues import BUILD_CONSTANTS_LINE, judge_for_every_build
from fmtcheck.patch.configs import name_the_configuration
from fmtcheck.patch.literal import literal_stretches, stretch_function
from fmtcheck.patch.stretches import equivalent_by_stretches
from fmtcheck.patch.tokens import same_but_constants, same_program
from fmtcheck.patch.trees import build_constants
from fmtcheck.patch.untyped import judge_for_every_type, undeclared_local
from fmtcheck.patch.apply import (
    TreeState,
    apply_file_diff,
    including_unit_includes,
    tree_include_definitions,
    view_from_tree,
)
from fmtcheck.patch.ctext import Definition, called_names, identifiers
from fmtcheck.patch.output_code import (
    C_SUFFIXES,
    PRIMITIVES,
    PRINTF_MODEL,
    READ_PATH,
    is_output_code,
    seq_file_parameter,
    side_source_and_lines,
    unknown_output_calls,
)
from fmtcheck.patch.patchfile import (
    Patch,
    label_patches,
    read_patches,
    spread_base_commits,
)
from fmtcheck.patch.hunks import GAP_EVENT
from fmtcheck.patch.gaps import shared_names, values_flowing_into_gaps, with_gap_arguments
from fmtcheck.patch.locations import SideText, first_change, relocate
from fmtcheck.patch.trees import Tree, resolve_tree, state_for
from fmtcheck.patch.rebuild import FileView, view_from_hunks

MAX_TOUCHED_FUNCTIONS = 500


@dataclass
class Candidate:
    """A touched function: its two sides, why it is checked, and the subject for the report."""

    path: str
    name: str
    old: Definition | None
    new: Definition | None
    reasons: list[str] = field(default_factory=list)
    # per line of the text handed to the engine, on each side: (file, file line or None)
    lines: dict[str, list[tuple[str, int | None]]] = field(default_factory=dict)
    origin: str = "hunks"  # how its sides were rebuilt (`FileView.origin`)


@dataclass
class PatchPlan:
    """What one patch touches: the checks to run and what to say about the rest."""

    patch: Patch
    checks: list[tuple[Candidate, bytes, bytes]] = field(default_factory=list)  # candidate, old src, new src
    problems: list[tuple[Candidate, str]] = field(default_factory=list)  # inconclusive before the engine
    modelled: list[tuple[Candidate, str]] = field(default_factory=list)  # primitive implementations changed
    not_output: list[str] = field(default_factory=list)  # "file: fn" touched but not output code
    notes: list[str] = field(default_factory=list)
    read_path: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)  # output functions only one side has
    superseded_by: str | None = None  # "v3" when a newer version of the patch is in the input

    def subject(self, candidate: Candidate) -> str:
        return f"{self.patch.prefix()}{candidate.path}:{candidate.name}"


def check_patches(paths: list[str], options: Options, keep_going: bool = False) -> Report:
    """Judge every output function the patches touch (``fmtcheck patch``). With KEEP_GOING, a
    patch that cannot be read or applied is recorded in ``report.errors`` and the others are
    still judged; without, its error is raised."""
    report = Report(command="patch", inputs=list(paths))
    plans = plan_patches(paths, options, report.errors if keep_going else None)
    budget = WorkBudget(options.max_functions)
    for plan in plans:
        results = judge_plan(plan, options, budget)
        report.results.extend(results)
        add_plan_notes(report, plan, results)
    _add_read_path_notes(report, plans)
    return report


def add_plan_notes(report: Report, plan: PatchPlan, results: list[Result]) -> None:
    """A plan's notes join the report's, unless the patch had nothing to check (its result
    already says what it touched)."""
    quiet = all(result.verdict == "nothing-to-check" for result in results)
    for note in ([] if quiet else plan.notes + [plan.patch.prefix() + n for n in plan.added]):
        if note not in report.notes:
            report.notes.append(note)


def plan_patches(paths: list[str], options: Options, errors: list | None = None) -> list[PatchPlan]:
    """Read and rebuild every patch (no engine involved): what would be checked, with what text.

    With --tree, the patches of one version (from all the files given, e.g. the 0001..0003 files
    of ``git format-patch``) apply one after the other in series order; each version starts again
    from its own base: its ``base-commit:`` (or ``--base``) read with git in a checkout, else the
    tree as it is (see `fmtcheck.patch.trees`)."""
    if not paths:
        raise InputError("patch", "no patch given")
    patches = [patch for path in paths for patch in _read_or_record(path, errors)]
    spread_base_commits(patches)
    label_patches(patches)
    tree = resolve_tree(options.tree, patches) if options.tree is not None else None
    if options.base is not None and tree is None:
        raise InputError("--base", "needs --tree (a git checkout)")
    try:
        return _plan_in_order(patches, tree, options, errors)
    finally:
        if tree is not None:
            tree.close()


def _plan_in_order(patches: list[Patch], tree: Tree | None, options: Options,
                   errors: list | None = None) -> list[PatchPlan]:
    states: dict[int, TreeState] = {}
    carried: dict[int, Carried] = {}
    planned: dict[int, PatchPlan] = {}
    for patch in _in_application_order(patches):
        note = None
        if tree is not None and patch.version not in states:
            revision = options.base or patch.base_commit
            states[patch.version], note = state_for(tree, revision, options.base is not None)
        state = states.get(patch.version)
        try:
            planned[id(patch)] = plan = plan_patch(patch, state, carried.setdefault(patch.version, {}))
        except InputError as err:
            if errors is None:
                raise
            errors.append((patch.source, err.where, err.what, err.exit_code))
            continue
        if note:
            plan.notes.insert(0, note)
    plans = [planned[id(patch)] for patch in patches if id(patch) in planned]
    mark_superseded(plans)
    return plans


def _read_or_record(path: str, errors: list | None) -> list[Patch]:
    """The patches of one input; a bad input is raised, or recorded when ERRORS is a list."""
    try:
        return read_patches(path)
    except (InputError, Inconclusive) as err:
        if errors is None:
            raise
        errors.append((path, err.where, err.what, err.exit_code))
        return []


def mark_superseded(plans: list[PatchPlan]) -> None:
    """When the input holds several versions of a patch (a thread), the newest decides, as b4
    picks it: older versions are still judged and shown, but marked superseded."""
    newest = max((plan.patch.version for plan in plans), default=1)
    for plan in plans:
        if plan.patch.version < newest:
            plan.superseded_by = f"v{newest}"


Carried = dict  # path -> {name -> Definition}: what earlier patches of a series defined


def carry_forward(carried: "Carried", views: list["FileView"]) -> None:
    """Definitions a patch of a series adds or changes exist, whole, for the patches after it
    (seen from the patch alone, [2/3] may call a helper that only [1/3] shows)."""
    for view in views:
        if view.from_tree:
            continue
        known = carried.setdefault(view.path, {})
        for name, definition in view.new.items():
            if definition.changed and definition.complete and not definition.problem:
                known[name] = definition
        for name, definition in view.old.items():
            if definition.changed and name not in view.new:
                known.pop(name, None)


def _in_application_order(patches: list[Patch]) -> list[Patch]:
    """Within a version, a series applies in patch-number order; versions keep their file order."""
    return sorted(patches, key=lambda p: (p.version, p.number if p.number is not None else 0))


def plan_patch(patch: Patch, state: TreeState | None, carried: "Carried | None" = None) -> PatchPlan:
    """Rebuild one patch's touched files and decide what to check."""
    plan = PatchPlan(patch)
    carried = {} if carried is None else carried
    views: list[FileView] = []
    skipped: list[str] = []
    for diff in patch.files:
        if not diff.path.endswith(C_SUFFIXES):
            skipped.append(diff.path)
            continue
        if state is not None:
            view = view_from_tree(apply_file_diff(diff, state, patch.source))
            view.origin = state.origin
            views.append(view)
        else:
            views.append(view_from_hunks(diff, patch.source))
    if skipped:
        plan.not_output.append("not C: " + ", ".join(skipped))
    headers = _header_definitions(views)
    for view in views:
        plan.notes.extend(n for n in view.notes if n not in plan.notes)
        _plan_file(plan, view, headers, state, _carried_for(carried, view.path))
    carry_forward(carried, views)
    return plan


def _carried_for(carried: "Carried", path: str) -> dict[str, Definition]:
    """What earlier patches defined that PATH sees: its own file's, then every header's."""
    visible: dict[str, Definition] = {}
    for other, definitions in carried.items():
        if other.endswith(".h") and other != path:
            visible.update(definitions)
    visible.update(carried.get(path, {}))
    return visible


def _header_definitions(views: list[FileView]) -> dict[str, dict[str, Definition]]:
    """Definitions of the headers the patch itself touches, visible to every file of the patch."""
    merged: dict[str, dict[str, Definition]] = {"old": {}, "new": {}}
    for view in views:
        if view.path.endswith(".h"):
            for which in ("old", "new"):
                for name, definition in view.side(which).items():
                    merged[which].setdefault(name, definition)
    return merged


def _visible(
    view: FileView, which: str, headers: dict[str, dict[str, Definition]], extra: dict[str, Definition]
) -> dict[str, Definition]:
    """What one side of a file sees: its own definitions over the patch's headers over EXTRA."""
    visible = dict(extra)
    visible.update(headers[which])
    visible.update(view.side(which))
    return visible


def _plan_file(
    plan: PatchPlan,
    view: FileView,
    headers: dict[str, dict[str, Definition]],
    state: TreeState | None,
    carried: dict[str, Definition],
) -> None:
    extra_old: dict[str, Definition] = dict(carried)
    extra_new: dict[str, Definition] = dict(carried)
    if state is not None:
        old_text = b"\n".join(d.text for d in view.old.values())
        new_text = b"\n".join(d.text for d in view.new.values())
        extra_old = tree_include_definitions(view.path, _file_text(state, view.path, old_text), state)
        extra_new = tree_include_definitions(view.path, _file_text(state, view.path, new_text), state)
        for which in ("old", "new"):
            view.includes[which] = including_unit_includes(view.path, state) + view.includes.get(which, [])
    visible = {
        "old": _visible(view, "old", headers, extra_old),
        "new": _visible(view, "new", headers, extra_new),
    }
    memo: dict[str, bool] = {}
    for candidate in touched_functions(view, visible):
        candidate.origin = view.origin
        _classify(plan, view, candidate, visible, memo)
    _report_unnamed_output(plan, view)
    _note_unused_changes(plan, view, visible)


def _report_unnamed_output(plan: PatchPlan, view: FileView) -> None:
    """A change that prints, in code no hunk header names (``diff -u`` without ``-p``, or a macro
    cut at its start), cannot be judged: inconclusive rather than a silent nothing-to-check."""
    by_hunk: dict[int, tuple[int, set[str]]] = {}
    for hunk_where, where, text in view.unnamed:
        first, calls = by_hunk.get(hunk_where, (where, set()))
        by_hunk[hunk_where] = (min(first, where), calls | called_names(text))
    for _hunk_where, (where, calls) in sorted(by_hunk.items()):
        if not (calls & PRIMITIVES or any(c.startswith("SEQ_") for c in calls)):
            continue
        candidate = Candidate(view.path, f"(code at {plan.patch.source}:{where})", None, None)
        plan.problems.append(
            (
                candidate,
                "the change prints, but the patch does not say which function or macro it is in "
                "(no function context in the hunk header: a diff made without -p?); give --tree DIR",
            )
        )


def _file_text(state: TreeState, path: str, fallback: bytes) -> bytes:
    lines = state.lines(path)
    return b"\n".join(lines) + b"\n" if lines else fallback


def touched_functions(view: FileView, visible: dict[str, dict[str, Definition]]) -> list[Candidate]:
    """Functions with a changed line on either side, then functions whose text uses a changed
    macro or table (their output changes although none of their lines do)."""
    names: list[str] = []
    for which in ("old", "new"):
        for name, definition in view.side(which).items():
            if definition.kind == "function" and definition.changed and name not in names:
                names.append(name)
    candidates = [
        Candidate(view.path, name, view.old.get(name), view.new.get(name)) for name in names[:MAX_TOUCHED_FUNCTIONS]
    ]
    changed_data = {
        name
        for which in ("old", "new")
        for name, d in view.side(which).items()
        if d.kind != "function" and d.changed
    } | set(view.touched_declarations)
    if changed_data:
        candidates.extend(_users_of(view, changed_data, set(names)))
    return candidates


def _users_of(view: FileView, changed: set[str], already: set[str]) -> list[Candidate]:
    """Unchanged functions that use a changed macro or table (directly or through another macro)."""
    affected = set(changed)
    for _round in range(8):
        grew = False
        for which in ("old", "new"):
            for name, definition in view.side(which).items():
                uses = identifiers(definition.text) & affected
                if name not in affected and definition.kind == "macro" and uses:
                    affected.add(name)
                    grew = True
        if not grew:
            break
    users = []
    for name, definition in view.new.items():
        if definition.kind != "function" or name in already:
            continue
        used = sorted(identifiers(definition.text) & affected)
        if used:
            reason = f"uses changed {', '.join(used)}"
            users.append(Candidate(view.path, name, view.old.get(name), definition, [reason]))
    return users


def _classify(
    plan: PatchPlan,
    view: FileView,
    candidate: Candidate,
    visible: dict[str, dict[str, Definition]],
    memo: dict[str, bool],
) -> None:
    """Decide what to do with one touched function: check it, report it, or only mention it."""
    path, name = candidate.path, candidate.name
    label = f"{path}: {name}"
    if path.endswith("fs/seq_file.c") and name in READ_PATH:
        plan.read_path.append(f"read-path change: {name} ({path}); see `fmtcheck reads`")
        plan.not_output.append(label)
        return
    modelled = (path.endswith(("fs/seq_file.c", "include/linux/seq_file.h")) and name in PRIMITIVES) or (
        path.endswith("lib/vsprintf.c") and name in PRINTF_MODEL
    )
    if modelled:
        reason = (
            f"changes the implementation of {name}, which fmtcheck models from the specification "
            "(docs/kernel-model.md), not from the patch"
        )
        plan.modelled.append((candidate, reason))
        return
    output_old = candidate.old is not None and is_output_code(candidate.old, visible["old"], memo)
    output_new = candidate.new is not None and is_output_code(candidate.new, visible["new"], memo)
    problem = (candidate.old and candidate.old.problem) or (candidate.new and candidate.new.problem)
    if problem and any(d is not None and seq_file_parameter(d) for d in (candidate.old, candidate.new)):
        output_old = True  # a function cut too short to see its calls, but it has a seq_file
    if not (output_old or output_new) and any(
        d is not None and d.gaps and seq_file_parameter(d) for d in (candidate.old, candidate.new)
    ):
        output_old = True  # a seq_file parameter and code the patch does not show, which may print
    if not (output_old or output_new):
        plan.not_output.append(label)
        return
    if candidate.old is None or candidate.new is None:
        plan.added.append(_added_or_removed(candidate, visible))
        return
    problem = candidate.old.problem or candidate.new.problem
    if problem:
        plan.problems.append((candidate, problem))
        return
    try:
        unseen = _unseen_output_helpers(candidate, visible)
        if unseen:
            plan.problems.append((candidate, unseen))
            return
        old_src, candidate.lines["old"] = side_source_and_lines(candidate.old, visible["old"])
        new_src, candidate.lines["new"] = side_source_and_lines(candidate.new, visible["new"])
        old_src = _with_includes(view, "old", old_src, candidate.lines["old"])
        new_src = _with_includes(view, "new", new_src, candidate.lines["new"])
    except Inconclusive as err:
        plan.problems.append((candidate, f"{err.where}: {err.what}"))
        return
    plan.checks.append((candidate, old_src, new_src))


def _with_includes(view: FileView, side: str, src: bytes, lines: list[tuple[str, int | None]]) -> bytes:
    """SRC after the file's `#include` lines (a whole file from the tree), so the engine can take
    the constants of its headers from the tree; LINES, the origin of each line, grows with them."""
    included = view.includes.get(side)
    if not included:
        return src
    lines[:0] = [(view.path, None)] * (len(included) + 1)
    return b"\n".join([BUILD_CONSTANTS_LINE] + included) + b"\n" + src


def _unseen_output_helpers(candidate: Candidate, visible: dict[str, dict[str, Definition]]) -> str | None:
    """Why the sides cannot be compared when they make different calls to printing helpers the
    patch does not show (a rewrite onto an existing helper: ``--tree`` shows it), else None."""
    assert candidate.old is not None and candidate.new is not None
    old_calls = Counter(unknown_output_calls(candidate.old, visible["old"]))
    new_calls = Counter(unknown_output_calls(candidate.new, visible["new"]))
    if old_calls == new_calls:
        return None
    differing = sorted(name for name in old_calls | new_calls if old_calls[name] != new_calls[name])
    return (
        f"the two sides make different calls to {', '.join(differing)}, which print(s) to the seq_file "
        "but is not in the patch; give --tree DIR so that its definition is known"
    )


def _added_or_removed(candidate: Candidate, visible: dict[str, dict[str, Definition]]) -> str:
    """Say what an output function that exists on one side only means for the check."""
    which = "new" if candidate.old is None else "old"
    verb = "adds" if which == "new" else "removes"
    callers = sorted(
        name
        for name, definition in visible[which].items()
        if definition.kind == "function"
        and name != candidate.name
        and candidate.name in identifiers(definition.text)
    )
    if callers:
        return f"{candidate.path}: {verb} output helper {candidate.name}, checked through {', '.join(callers)}"
    return f"{candidate.path}: {verb} output function {candidate.name}: nothing to compare it with"


def _note_unused_changes(plan: PatchPlan, view: FileView, visible: dict[str, dict[str, Definition]]) -> None:
    """A changed macro or table no rebuilt function uses: its users are not in the patch."""
    if view.from_tree:
        return
    used: set[str] = set()
    for which in ("old", "new"):
        for definition in view.side(which).values():
            if definition.kind == "function":
                used |= identifiers(definition.text)
    for which in ("old", "new"):
        for name, definition in view.side(which).items():
            if definition.kind != "function" and definition.changed and name not in used:
                note = (
                    f"{view.path}: changes {name}, whose users the patch does not show; "
                    "give --tree DIR to check them"
                )
                if note not in plan.notes:
                    plan.notes.append(note)


class WorkBudget:
    """The overall work bound of one invocation: how many functions the engine may judge
    (``--max-functions``; each judgement is itself bounded in steps and time). Past it, the
    remaining functions are reported inconclusive, so the report is partial and exits 3."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self) -> bool:
        """Whether one more function may be judged (and count it)."""
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    @property
    def reached(self) -> bool:
        return self.used >= self.limit

    def reason(self) -> str:
        return (
            f"not judged: the work bound of {self.limit} function judgements for one run was reached "
            "(--max-functions N raises it)"
        )


@dataclass
class Job:
    """One result a plan will give: a function to run through the engine, or a verdict the plan
    already knows (a problem, a changed primitive, nothing to check). Listing jobs is cheap; the
    pytest plugin collects them as items and runs each in its own test."""

    plan: PatchPlan
    subject: str
    check: tuple[Candidate, bytes, bytes] | None = None
    known: Result | None = None

    def run(self, options: Options, budget: WorkBudget | None = None) -> Result:
        if self.check is not None and budget is not None and not budget.take():
            result = Result(self.subject, "inconclusive", reason=budget.reason())
        elif self.check is not None:
            candidate, old_src, new_src = self.check
            result = judge(candidate, old_src, new_src, self.subject, options)
            sides = [SideText(f"{self.subject} ({side})", side, candidate.lines.get(side, [])) for side in ("old", "new")]
            result = relocate(result, sides, self.plan.patch)
            result.extra["rebuilt"] = how_rebuilt(candidate)
            name_the_configuration(result, candidate.old, candidate.new, candidate.path)
        else:
            # a copy: the notes added below must not pile up when an item runs again
            known = plain.replace(self.known, notes=list(self.known.notes), extra=dict(self.known.extra))
            result = relocate(known, [], self.plan.patch)
        result.input = self.plan.patch.source
        result.extra.setdefault("patch", self.plan.patch.source)
        if self.plan.superseded_by:
            result.notes.insert(0, f"superseded by {self.plan.superseded_by}: the newest version decides the exit status")
            result.extra["superseded_by"] = self.plan.superseded_by
        return result


def plan_jobs(plan: PatchPlan) -> list[Job]:
    """The results a plan will give, in report order, without running the engine."""
    jobs = [Job(plan, plan.subject(c), check=(c, old, new)) for c, old, new in plan.checks]
    for candidate, reason in plan.problems:
        known = Result(plan.subject(candidate), "inconclusive", reason=reason, notes=list(candidate.reasons),
                       location=first_change(plan.patch, candidate.path, candidate.old, candidate.new, reason),
                       extra={"rebuilt": how_rebuilt(candidate)})
        jobs.append(Job(plan, known.subject, known=known))
    for candidate, reason in plan.modelled:
        known = Result(plan.subject(candidate), "inconclusive", reason=reason,
                       location=first_change(plan.patch, candidate.path, candidate.old, candidate.new, reason),
                       extra={"rebuilt": how_rebuilt(candidate)})
        jobs.append(Job(plan, known.subject, known=known))
    if not jobs:
        known = nothing_to_check(plan)
        jobs.append(Job(plan, known.subject, known=known))
    return jobs


def within_budget(jobs: list[Job], budget: WorkBudget) -> list[Job]:
    """JOBS with every engine check past BUDGET replaced by its known inconclusive result. The
    pytest plugin decides this when it lists the items, so how xdist spreads them over workers
    cannot change which functions are judged."""
    kept = []
    for job in jobs:
        if job.check is not None and not budget.take():
            job = Job(job.plan, job.subject, known=Result(job.subject, "inconclusive", reason=budget.reason()))
        kept.append(job)
    return kept


def job_report(job: Job, result: Result) -> Report:
    """The report of one job's RESULT with its plan's notes, as `check_patches` gives them (the
    pytest plugin reports each job in its own test item)."""
    report = Report(command="patch", results=[result], inputs=[job.plan.patch.source])
    add_plan_notes(report, job.plan, [result])
    _add_read_path_notes(report, [job.plan])
    return report


def how_rebuilt(candidate: Candidate) -> dict:
    """The report's ``rebuilt`` key: where the two sides the engine compared come from (whole
    files of the work tree or of a git commit, or the patch's hunks alone) and, for hunks, how
    many stretches of the function the patch does not show, so a bot can weigh the verdict."""
    sides = [side for side in (candidate.old, candidate.new) if side is not None]
    gaps = max((side.gaps for side in sides), default=0)
    return {"from": candidate.origin, "gaps": gaps if candidate.origin == "hunks" else 0}


def judge_plan(plan: PatchPlan, options: Options, budget: WorkBudget | None = None) -> list[Result]:
    """Run the engine on every planned check; report problems; say what a quiet patch touched."""
    budget = budget if budget is not None else WorkBudget(options.max_functions)
    return [job.run(options, budget) for job in plan_jobs(plan)]


def judge(candidate: Candidate, old_src: bytes, new_src: bytes, subject: str, options: Options) -> Result:
    """One function through the engine; engine errors become an inconclusive result, not a crash."""
    def engine(old: bytes, new: bytes) -> Result:
        return _engine_result(candidate.name, old, new, subject, options)

    if candidate.old is not None and candidate.new is not None and (candidate.old.gaps or candidate.new.gaps):
        flowing = shared_names(values_flowing_into_gaps(candidate.old.text, candidate.new.text),
                               candidate.old.text, candidate.new.text)
        old_src, new_src = with_gap_arguments(old_src, flowing), with_gap_arguments(new_src, flowing)
    if same_program(old_src, new_src):
        note = ("the two sides are the same C tokens (comments, whitespace and file-scope linkage aside): "
                "the same program, proven without running it")
        result = Result(subject, "equivalent", method="proven", notes=[note], extra={"decided_by": "tokens"})
    else:
        result = (_by_constants_written_out(candidate, old_src, new_src, subject, options)
                  or _by_literal_stretches(old_src, new_src, subject, options)
                  or _by_value_stretches(candidate, old_src, new_src, subject, options)
                  or _by_build_values(candidate, old_src, new_src, options, engine)
                  or engine(old_src, new_src))
    if undeclared_local(result) is not None and candidate.old is not None and candidate.new is not None:
        result = judge_for_every_type(result, (old_src, candidate.old.text), (new_src, candidate.new.text), engine)
    result.subject = subject
    result.notes.extend(note for note in _rebuild_notes(candidate) if note not in result.notes)
    return _unless_values_reach_gaps(result, candidate)


def _by_literal_stretches(old_src: bytes, new_src: bytes, subject: str, options: Options) -> Result | None:
    """Equivalent when the sides differ only in stretches of statements that print literals and
    each stretch prints the same on both sides (`fmtcheck.patch.literal`); None otherwise, and
    the whole function goes to the engine (which also gives a difference its counterexample)."""
    stretches = literal_stretches(old_src, new_src)
    if not stretches:
        return None
    for seq, old_body, new_body in stretches:
        one = _engine_result("__fmtcheck_stretch", stretch_function(seq, old_body), stretch_function(seq, new_body),
                             subject, options)
        if one.verdict != "equivalent" or one.method != "proven":
            return None
    note = (f"the two sides differ only in {len(stretches)} stretch(es) of statements that print literals, each "
            "proven to print the same bytes; the rest is the same C tokens")
    return Result(subject, "equivalent", method="proven", notes=[note], extra={"decided_by": "literal-stretches"})


def _by_constants_written_out(candidate: Candidate, old_src: bytes, new_src: bytes, subject: str,
                              options: Options) -> Result | None:
    """With --tree: the same tokens but for a header constant one side writes as its literal."""
    if options.tree is None:
        return None
    constants = same_but_constants(old_src, new_src, build_constants(options.tree, candidate.path, old_src))
    if not constants:
        return None
    note = (f"the two sides are the same C tokens but for {', '.join(constants)}, which one side writes where the "
            "other writes the literal of the value and type the tree's headers give it: the same program")
    return Result(subject, "equivalent", method="proven", notes=[note], extra={"decided_by": "tokens"})


def _by_value_stretches(candidate: Candidate, old_src: bytes, new_src: bytes, subject: str,
                        options: Options) -> Result | None:
    """`fmtcheck.patch.stretches`: cleanups of how a value is printed, judged stretch by stretch."""
    if candidate.old is None:
        return None

    def stretch(name: str, old: bytes, new: bytes) -> Result:
        return _engine_result(name, old, new, subject, options)

    return equivalent_by_stretches(old_src, new_src, candidate.old.text, stretch, subject)


def _by_build_values(candidate: Candidate, old_src: bytes, new_src: bytes, options: Options,
                     engine: Callable[[bytes, bytes], Result]) -> Result | None:
    """With --tree, constants the configuration decides are judged once per value
    (`fmtcheck.patch.buildvalues`)."""
    if options.tree is None:
        return None
    values = tree_build_values(options.tree, candidate.path, includes_of(old_src))
    return judge_for_every_build(old_src, new_src, values, engine) if values else None


def _engine_result(name: str, old_src: bytes, new_src: bytes, subject: str, options: Options) -> Result:
    from fmtcheck.engine.verdict import compare_functions

    try:
        return compare_functions(old_src, new_src, name, options, subject)
    except Inconclusive as err:
        return Result(subject, "inconclusive", reason=f"{err.where}: {err.what}")
    except InputError as err:
        reason = f"the rebuilt function is not understood: {err.where}: {err.what}"
        return Result(subject, "inconclusive", reason=reason)
    except Exception as err:  # noqa: BLE001 - one function's failure must not lose the others
        if os.environ.get("FMTCHECK_DEBUG"):
            raise
        return Result(subject, "inconclusive", reason=f"internal error while judging: {type(err).__name__}: {err}")


def _unless_values_reach_gaps(result: Result, candidate: Candidate) -> Result:
    """An "equivalent" of a function rebuilt from hunks holds only if no value the change computes
    can be printed by the code the patch does not show (`fmtcheck.patch.gaps`)."""
    if result.verdict not in ("equivalent", "inconclusive") or candidate.old is None or candidate.new is None:
        return result
    if not (candidate.old.gaps or candidate.new.gaps):
        return result
    names = values_flowing_into_gaps(candidate.old.text, candidate.new.text)
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    if result.verdict == "inconclusive" and GAP_EVENT.decode() in (result.reason or ""):
        # the engine names the gap's made-up call; say what it stands for
        reason = (f"the outputs differ only where code the patch does not show (a hunk gap of {candidate.name}) "
                  "may print" + (f", and the change computes {shown}, which it may print" if names else "")
                  + "; give --tree DIR")
    elif result.verdict == "equivalent" and names:
        reason = (
            f"no difference in what the patch shows, but the change computes {shown}, which code the patch "
            f"does not show (a hunk gap of {candidate.name}) may print; give --tree DIR"
        )
    else:
        return result
    return Result(result.subject, "inconclusive", cases=result.cases, reason=reason, notes=result.notes,
                  extra=result.extra)


def _rebuild_notes(candidate: Candidate) -> list[str]:
    notes = list(candidate.reasons)
    gaps = max(candidate.old.gaps if candidate.old else 0, candidate.new.gaps if candidate.new else 0)
    if gaps:
        notes.append(
            f"rebuilt from the patch's hunks: {gaps} stretch(es) of {candidate.name} the patch does not show "
            "are taken as unchanged code that may print, the same on both sides (/* fmtcheck: hunk gap */); "
            "give --tree DIR for whole functions"
        )
    return notes


def nothing_to_check(plan: PatchPlan) -> Result:
    """The result of a patch that touches no output code: it says what the patch touched."""
    files = ", ".join(dict.fromkeys(diff.path for diff in plan.patch.files))
    notes = []
    if plan.not_output:
        notes.append("touches no output code: " + "; ".join(plan.not_output))
    elif not plan.added:
        notes.append("touches no function")
    notes.extend(plan.added)
    notes.extend(plan.read_path)
    notes.extend(plan.notes)
    return Result(f"{plan.patch.prefix()}{files}", "nothing-to-check", notes=notes)


def _add_read_path_notes(report: Report, plans: list[PatchPlan]) -> None:
    """One report note per read-path change, naming the versions/patches that make it."""
    seen: dict[str, list[str]] = {}
    for plan in plans:
        for note in plan.read_path:
            seen.setdefault(note, [])
            if plan.patch.label and plan.patch.label not in seen[note]:
                seen[note].append(plan.patch.label)
    for note, labels in seen.items():
        report.notes.append(note + (f" ({', '.join(labels)})" if labels else ""))
