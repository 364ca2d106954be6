"""The core question: do two versions of a show function print the same bytes for every input?

Stages, each in its own module: `cfront` parses, `interp` compiles both sides to closures over
a shared `InputSpace`, `outputs` renders or traces, `inputs` chooses values, `compare` locates and
classifies a difference. This module runs them in order:

1. proof: run both sides on symbols; if neither branches on an input and both print the same
   sequence of literal bytes and normalised fields, the rewrite is `proven` for all inputs;
2. test: the deterministic sweep, then Hypothesis (only when the proof failed and the sweep found
   no difference), each case through the compiled traces when it can take them, else through the
   interpreter;
3. report (`divergences`): the cases it describes are run through the interpreter, shrunk,
   replayed once more, located (line, column, field) and classified (kind, severity), and the
   worst case found beside the minimal one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.c.outputs import ConcreteOutput
from fmtcheck.c.program import Program
from fmtcheck.c.types import U64
from fmtcheck.c.rows import StepsForeseen
from fmtcheck.c.coverage import Coverage, where_the_search_stayed
from fmtcheck.c.symbolic import NotProvable, located
from fmtcheck.c.values import Context, CSeqFile, Free, UndefinedBehaviour
from fmtcheck.common.errors import FmtcheckError, Inconclusive, InputError, LimitExceeded, bare
from fmtcheck.common.inputfile import read_input
from fmtcheck.common.options import Options
from fmtcheck.common.result import Report, Result, SourceLine
from fmtcheck.engine.compare import Outcome, display_key, unshared_call
from fmtcheck.engine import builds
from fmtcheck.engine import divergences
from fmtcheck.engine import paths
from fmtcheck.engine import counts
from fmtcheck.engine.fastpath import Fallback, InOrderDefaults, ZeroDefaults, ZeroReads, array_of, compile_trace
from fmtcheck.engine.budget import WorkBudget
from fmtcheck.engine.bases import CaseBases
from fmtcheck.engine.inputs import (
    HypothesisInputs,
    VectorInputs,
    classes_covered,
    default_string,
    range_notes,
    small_value,
    sweep,
    zero_value,
)
from fmtcheck.engine.sharing import (MAX_CLIMB_RUNS, MAX_RERUN_STEPS, SideReads, key_where, one_sided_reason,
                                     shared_only, state_roots, struct_pun)
from fmtcheck.engine.assumed import judged_in_every_type, undeclared_width
from fmtcheck.engine.hypothesis_stage import hypothesis_search
from fmtcheck.engine.proofs import prove_in_two_rounds
from fmtcheck.engine.zerolike import MAX_DIVERGENT_CASES, MAX_OVER_BOUND, alone_stage, renders_as_zero
from fmtcheck.engine.search import MAX_AIM_ROUNDS, MAX_AIMED_CASES, aim_at_entries, aimed_cases, sweep_where_revealed

MAX_INPUT_KEYS = 512


class _Same:
    """The outcome of a case whose two renderings were equal (no need to keep them)."""

    same = True


SAME = _Same()


def read_source(path: str) -> bytes:
    """A C source named on the command line (the front end refuses one over its size limit)."""
    return read_input(path, cfront.MAX_SOURCE_BYTES, "C source file")


def verify_files(old_path: str, new_path: str, options: Options) -> Report:
    """`fmtcheck verify OLD NEW` (with a grammar as the reference: `fmtcheck.layout.reference`)."""
    new = read_source(new_path)
    old = read_source(old_path)
    return verify_sources(old, new, options, old_label=old_path, new_label=new_path)


def verify_sources(old: bytes | str, new: bytes | str, options: Options | None = None, *,
                   function: str | None = None, subject: str | None = None,
                   old_label: str = "old", new_label: str = "new") -> Report:
    """Compare every output function the two sources share (or the one named)."""
    options = options or Options()
    if function:
        options.function = function
    old, new = _as_bytes(old), _as_bytes(new)
    old_unit = cfront.parse_unit(old, old_label, tree=options.tree)
    new_unit = cfront.parse_unit(new, new_label, tree=options.tree)
    pairs = pair_functions(old_unit, new_unit, options.function)
    report = Report("verify")
    for old_name, new_name in pairs:
        name = new_name if new_name != cfront.FRAGMENT_NAME else (old_name if old_name != cfront.FRAGMENT_NAME else "fragment")
        report.results.append(judge_every_build((old, old_unit, old_name), (new, new_unit, new_name),
                                                options, subject or name))
    return report


def compare_functions(old_src: bytes, new_src: bytes, function: str, options: Options, subject: str) -> Result:
    """One function, old text against new text (the entry point `fmtcheck patch` uses)."""
    old_src, new_src = _as_bytes(old_src), _as_bytes(new_src)
    old_unit = cfront.parse_unit(old_src, f"{subject} (old)", tree=options.tree)
    new_unit = cfront.parse_unit(new_src, f"{subject} (new)", tree=options.tree)
    old_name = function if function in old_unit.functions else _single(old_unit, function)
    new_name = function if function in new_unit.functions else _single(new_unit, function)
    return judge_every_build((old_src, old_unit, old_name), (new_src, new_unit, new_name), options, subject)


def judge_every_build(old: tuple[bytes, cfront.Unit, str], new: tuple[bytes, cfront.Unit, str],
                      options: Options, subject: str) -> Result:
    """The verdict on one pair of functions (each side: its text, its unit in the default build,
    the function's name) in the default build and in every build where the sides' texts differ
    (`fmtcheck.engine.builds`)."""
    (old_text, old_unit, old_name), (new_text, new_unit, new_name) = old, new
    first = judge(old_unit, new_unit, old_name, new_name, options, subject)

    def judge_in(build: builds.Build) -> Result:
        try:
            old_built = cfront.parse_unit(old_text, old_unit.where, build.choices(), options.tree)
            new_built = cfront.parse_unit(new_text, new_unit.where, build.choices(), options.tree)
        except InputError as err:
            return Result(subject, "inconclusive", reason=f"{err.what} at {err.where}")
        for unit, name in ((old_built, old_name), (new_built, new_name)):
            if name not in unit.functions:
                return Result(subject, "inconclusive", reason=f"{name} is not compiled at {unit.where}")
        result = judge(old_built, new_built, old_name, new_name, options, subject)
        if result.verdict == "divergent":
            result.extra["impossible_build"] = builds.impossible_build(
                builds.conditionals_of(old_built, old_name) + builds.conditionals_of(new_built, new_name))
        return result

    old_conditionals = builds.conditionals_of(old_unit, old_name)
    new_conditionals = builds.conditionals_of(new_unit, new_name)
    impossible = builds.impossible_build(old_conditionals + new_conditionals) if first.verdict == "divergent" else None
    consistent = builds.consistent_build(old_conditionals + new_conditionals) if impossible else None
    if consistent is not None:
        result = judge_in(consistent)
        if result.verdict == "divergent" and result.extra.pop("impossible_build", None) is None:
            result.notes.insert(0, f"divergent in {consistent.describe()}, which takes `{impossible[0]}` one way "
                                   f"(the default parse takes it both ways)")
            return result
    others = builds.other_builds(old_conditionals, new_conditionals)
    return builds.judge_builds(first, others, judge_in, new_unit.where, impossible)


def _single(unit: cfront.Unit, wanted: str) -> str:
    if cfront.FRAGMENT_NAME in unit.functions:
        return cfront.FRAGMENT_NAME
    raise InputError(unit.where, f"function {wanted} not found")


def _as_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


def pair_functions(old: cfront.Unit, new: cfront.Unit, wanted: str | None) -> list[tuple[str, str]]:
    """Which old function is compared with which new one."""
    if wanted:
        missing = [u.where for u in (old, new) if wanted not in u.functions]
        if missing:
            raise InputError(missing[0], f"no function named {wanted}")
        return [(wanted, wanted)]
    old_entries = entry_points(old)
    new_entries = entry_points(new)
    common = [n for n in old_entries if n in new_entries]
    if common:
        return [(n, n) for n in common]
    if len(old_entries) == 1 and len(new_entries) == 1:
        return [(old_entries[0], new_entries[0])]
    if not old_entries or not new_entries:
        side = old if not old_entries else new
        raise InputError(side.where, "no function that writes to a seq_file")
    raise InputError(new.where, "several output functions and none in common: name one with --function")


def entry_points(unit: cfront.Unit) -> list[str]:
    """Output functions that no other function of the unit calls."""
    prints = {name for name in unit.functions if _writes_output(unit, name, set())}
    called: set[str] = set()
    for name, node in unit.functions.items():
        for n in unit.nodes_of(node, ("call_expression",)):
            callee = n.child_by_field_name("function")
            if callee is not None and callee.text.decode("latin-1") in unit.functions and callee.text.decode("latin-1") != name:
                called.add(callee.text.decode("latin-1"))
    return [n for n in unit.functions if n in prints and n not in called]


def _writes_output(unit: cfront.Unit, name: str, seen: set[str]) -> bool:
    from fmtcheck.kernel.primitives import PRIMITIVES

    if name in seen:
        return False
    seen.add(name)
    node = unit.functions[name]
    for n in cfront.walk(node):
        if n.type == "call_expression":
            callee = n.child_by_field_name("function").text.decode("latin-1")
            if callee in PRIMITIVES:
                return True
            if callee in unit.functions and _writes_output(unit, callee, seen):
                return True
        if n.type == "parameter_declaration" and b"seq_file" in n.text:
            return True
    return False


# ---------------------------------------------------------------------------------------------


@dataclass
class Side:
    program: Program
    function: str
    params: list

    @property
    def file(self) -> str:
        """The label its call sites are named by (`FILE:LINE`)."""
        return self.program.unit.where


def judge(old_unit: cfront.Unit, new_unit: cfront.Unit, old_name: str, new_name: str,
          options: Options, subject: str) -> Result:
    """The verdict on one pair of functions, for every type its undeclared operands may have."""
    hinted = InputSpace(options.star_max)
    collect_hints(old_unit, hinted)
    collect_hints(new_unit, hinted)

    programs: dict[str, Program] = {}  # each side's, compiled again in each judgement (fmtcheck.c.reuse)

    def judge_as(t: tuple) -> tuple[Result, InputSpace]:
        return judged_once(old_unit, new_unit, old_name, new_name, options, subject, t, hinted, programs)

    first, space = judge_as(U64)
    return judged_in_every_type(first, space, judge_as)


def judged_once(old_unit: cfront.Unit, new_unit: cfront.Unit, old_name: str, new_name: str,
                options: Options, subject: str, assumed_type: tuple,
                hinted: InputSpace | None = None, programs: dict[str, Program] | None = None
                ) -> tuple[Result, InputSpace]:
    """The verdict with every operand of undeclared type computed in ASSUMED_TYPE, and the input
    space that says which operands those were (a copy of HINTED, the pair's hints, when given).
    PROGRAMS: the sides' Programs of the pair's earlier judgements, compiled again here."""
    if hinted is None:
        hinted = InputSpace(options.star_max)
        collect_hints(old_unit, hinted)
        collect_hints(new_unit, hinted)
    files = (old_unit.where, new_unit.where)
    while True:
        space = hinted.copy()
        space.assumed_type = assumed_type
        try:
            old = side_of(old_unit, space, old_name, "old", options.tree, programs)
            new = side_of(new_unit, space, new_name, "new", options.tree, programs)
        except Inconclusive as err:
            if _spoiled(programs):
                continue
            return Result(subject, "inconclusive", reason=f"{err.what} at {err.where}",
                          location=SourceLine.from_where(err.where, files)), space
        if not _spoiled(programs):
            break
    runner = Runner(old, new, WorkBudget(options.bounds))
    try:
        result = runner.decide(options, subject)
        pun = struct_pun(runner)  # whatever the cases showed, they gave two places one value
        if pun is not None and result.verdict != "inconclusive":
            result = Result(subject, "inconclusive", cases=runner.cases, reason=pun,
                            extra={"decided_by": "construct"})
    except Inconclusive as err:
        reason = f"{err.what} at {located(err)}"
        return Result(subject, "inconclusive", cases=runner.cases, reason=reason,
                      extra={"decided_by": "bound" if isinstance(err, LimitExceeded) else "construct"},
                      location=SourceLine.from_where(err.where, files) or SourceLine.first_in(reason, files)), space
    if result.verdict == "inconclusive" and result.location is None:
        # every reason the runner gives names the construct's FILE:LINE (the first place it names)
        result.location = SourceLine.first_in(result.reason, files)
    return result, space


def _spoiled(programs: dict[str, Program] | None) -> bool:
    """Whether a side served kept statements in this judgement before it was found unsafe to
    (fmtcheck.c.reuse): the judgement then compiles both sides again, without them."""
    return programs is not None and any(p.reuse.spoiled for p in programs.values())


def side_of(unit: cfront.Unit, space: InputSpace, name: str, label: str, tree: str | None = None,
            programs: dict[str, Program] | None = None) -> Side:
    """Side LABEL compiled in SPACE; in the Program PROGRAMS holds for it, if any (a later
    judgement of the pair: `Program.judge_in`), kept there otherwise."""
    program = programs.get(label) if programs is not None else None
    if program is None:
        program = Program(unit, space, label, tree)
        if programs is not None:
            programs[label] = program
    else:
        program.judge_in(space)
    program.function(name)
    return Side(program, name, program.signatures[name])


def default_env(runner: "Runner") -> dict[str, Any]:
    """The fast path's values of a default-based case: every discovered input at its default;
    once the search keeps no more inputs (MAX_INPUT_KEYS, so that no case would teach it one),
    elements past those get theirs as the rendering meets them (`fastpath.InOrderDefaults`),
    so that a sweep case over a loop's count runs there rather than in the interpreter."""
    if len(runner.kinds) < MAX_INPUT_KEYS:
        return dict(runner._defaults())
    if runner.element_kinds is None:
        runner.element_kinds = {}
        for key, kind in runner.kinds.items():
            if "[" in key:
                runner.element_kinds.setdefault(array_of(key), kind)
    return InOrderDefaults(runner._defaults(), runner.element_kinds, len(runner.kinds))


class Runner:
    """Runs cases through both sides, in the planned order, and collects what differs."""

    def __init__(self, old: Side, new: Side, budget: WorkBudget | None = None) -> None:
        self.old = old
        self.new = new
        self.cases = 0
        self.ub_notes: list[str] = []
        self.aliases: dict[str, str] = {}
        self.kinds: dict[str, Any] = {}
        self.more_lines = 0
        self.traces: tuple[list, list] | None = None
        self.proof_traces: tuple[list, list] | None = None  # the traces a proof compared
        self.budget = budget or WorkBudget()
        self.fast: tuple[Any, Any] | None = None
        self.defaults: dict[str, Any] = {}
        self.witnesses: list[dict[str, int]] = []  # inputs where a failed proof saw the sides differ
        self.coverage = (Coverage(), Coverage())
        self.divergent: list[Outcome] = []
        self.decided_by: str | None = None  # the stage whose case first showed a difference
        self.hypothesis_cases = 0
        self.side_reads = SideReads()
        self.climb_runs = [MAX_CLIMB_RUNS]  # the one-sided rule's climb: one allowance per verdict
        self.rerun_steps = [MAX_RERUN_STEPS]  # the report's re-runs with other values (sharing)
        self.over_bound: list[LimitExceeded] = []  # cases a per-case bound ended (see try_case)
        self.costly_over_bound = 0
        self.one_sided_ub: list[str] = []  # undefined behaviour on one side only (see run_slow)
        self.revealed_in: dict[str, dict[str, Any]] = {}  # input -> the case that first read it
        self.swept: set[str] = set()  # inputs the planned sweep has moved
        self.bases = CaseBases()  # the zero and default cases, to pass over vectors equal to them

    # -- one case -------------------------------------------------------------------------
    def run_side(self, side: Side, inputs, out, coverage: Coverage | None = None,
                 limit: int | None = None) -> Context:
        ctx = Context(inputs, out, side.program.label, coverage, limit)
        try:
            if side.program.own_primitives:
                if not isinstance(out, ConcreteOutput):
                    raise NotProvable(f"the code gives its own body for {side.program.own_primitives[0]}")
                ctx.seq = CSeqFile()
                out.attach(ctx.seq)
            args = []
            for index, (pname, ptype) in enumerate(side.params):
                key = parameter_key(self.old, index, pname)
                if ptype in (("ptr", ("struct", "seq_file")), ("struct", "seq_file")):
                    args.append(ctx.seq)
                elif ptype[0] == "int":
                    hint = side.program.space.hint(pname)
                    if hint is not None and len(hint) > 4 and hint[3] == "width":
                        ptype = hint  # `int prec` used as a `*` width: 0..star_max
                    args.append(inputs.int_input(key, ptype))
                else:
                    args.append(Free(key))
            side.program.compiled[side.function](ctx, args)
            if side.program.own_primitives:
                out.detach()
        finally:
            self.steps_spent += ctx.steps
        return ctx

    steps_spent = 0

    def run_case(self, inputs, observed: bool = False) -> Outcome | None:
        """Both sides on one input source; None when the case has undefined behaviour. An
        `observed` case runs through the interpreter, the only path that tells the coverage
        which way each condition went (the compiled traces print the same bytes silently)."""
        outcome = None
        if self.fast is not None and not observed:
            named = inputs.values if isinstance(inputs, VectorInputs) else None  # (built once per case)
            outcome = SAME if renders_as_zero(self, named is not None and inputs.zero, named) else self._run_fast(inputs, named)
        if outcome is not None:
            self.cases += 1
            self.budget.charge(1)
            return outcome
        return self.run_slow(inputs)

    def _run_fast(self, inputs, named: dict | None = None) -> Outcome | None:
        """Both sides through their compiled traces: SAME when the bytes are equal, a pending
        outcome (the interpreter confirms it if reported) when a vector's bytes differ and no
        opaque call printed; else None (the interpreter runs it). `named`: the vector's values."""
        env = self._environment(inputs, named)
        if env is None:
            return None
        try:
            old, new = self.fast[0].render(env), self.fast[1].render(env)
        except Fallback:
            return None
        if old == new:
            return SAME
        if old[1] or new[1] or not isinstance(inputs, VectorInputs):
            return None
        return divergences.pending_outcome(self.fast, env, (old[0], new[0]), inputs, self.kinds)

    def _environment(self, inputs, named: dict | None = None) -> dict | None:
        if isinstance(inputs, VectorInputs):
            env = ZeroDefaults(self._zeros()) if inputs.zero else default_env(self)
            for key, value in (inputs.values if named is None else named).items():
                if key not in env or type(value) is not type(env[key]):
                    return None
                env[key] = value
            return env
        if isinstance(inputs, HypothesisInputs):
            for key, kind in self.kinds.items():
                if kind[0] == "int":
                    inputs.int_input(key, kind)
                elif kind[0] == "str":
                    inputs.str_input(key, kind[1])
                else:
                    return None
            return dict(inputs.values)
        return None

    def _zeros(self) -> dict[str, Any]:
        """Every discovered input at its zero, built again only when an input was discovered."""
        if len(self.zeros) != len(self.kinds):
            self.zeros = {k: zero_value(kind) for k, kind in self.kinds.items()}
        return self.zeros

    zeros: dict[str, Any] = {}

    def enable_fast_path(self) -> None:
        """Compile both traces once the inputs are known (after the discovery run)."""
        if self.traces is None or any(k[0] not in ("int", "str", "loop") for k in self.kinds.values()):
            return
        old, new = compile_trace(self.traces[0]), compile_trace(self.traces[1])
        if old is None or new is None:
            return
        for key, kind in old.keys | new.keys:
            if self.kinds.get(key, (kind,))[0] != kind:
                return  # one input used both as a number and as a string: the interpreter decides
        self.fast = (old, new)
        self._defaults()

    def _defaults(self) -> dict[str, Any]:
        """The fast path's values for the inputs a vector does not name: small distinct ones, as
        the interpreter gives; an input discovered later (by a case the interpreter ran) gets its
        own, so that later vectors naming it still take the fast path."""
        items = list(self.kinds.items()) if len(self.kinds) > self.defaulted else []
        for index, (key, kind) in enumerate(items[self.defaulted:], self.defaulted):
            if kind[0] == "loop":
                self.defaults[key] = VectorInputs().default_loop
            elif kind[0] in ("int", "str"):
                self.defaults[key] = small_value(index, kind) if kind[0] == "int" else default_string(kind[1])
        self.defaulted = max(self.defaulted, len(items))
        return self.defaults

    defaulted = 0
    element_kinds: dict[str, tuple] | None = None  # array -> a discovered element's kind (default_env)
    zero_reads: ZeroReads | None = None
    loop_bounds: frozenset[str] = frozenset()
    fast_outcome = divergences.fast_trial

    def run_slow(self, inputs) -> Outcome | None:
        """Both sides through the interpreter, the reference."""
        old_out, new_out = ConcreteOutput(), ConcreteOutput()
        before = self.steps_spent
        log = getattr(inputs, "reads", [])
        start = len(log)
        try:
            try:
                old_ctx = self.run_side(self.old, inputs, old_out, self.coverage[0])
            except UndefinedBehaviour:
                cover_after_undefined(self, inputs)
                raise
            middle = len(log)
            self.run_side(self.new, inputs, new_out, self.coverage[1])
        except UndefinedBehaviour as ub:
            if len(self.ub_notes) < 4:
                self.ub_notes.append(f"undefined behaviour at line {ub.line}: {ub.what}; such inputs were skipped")
            note_one_sided(self, inputs, ub)
            return None
        finally:
            self.budget.charge(self.steps_spent - before)
            # (a new dict each call, which finish_case copies: the outcome below takes it as its own)
            assignment = inputs.assignment() if hasattr(inputs, "assignment") else {}
            for coverage in self.coverage:
                coverage.finish_case(assignment)
        self.cases += 1
        for k, v in old_ctx.aliases.items():
            self.aliases.setdefault(k, v)
        for line, what in old_out.ub + new_out.ub:
            note = f"line {line}: {what}"
            if note not in self.ub_notes and len(self.ub_notes) < 4:
                self.ub_notes.append(note)
        reads = self.side_reads.record(log, start, middle)
        self.budget.read_keys(len(self.side_reads.old) + len(self.side_reads.new))
        outcome = Outcome(old_out, new_out, assignment, (self.old.file, self.new.file), reads)
        self.bases.record(inputs, outcome.same)
        return outcome

    def try_case(self, inputs, stage: str, observed: bool = False) -> bool:
        """One case of the search; False once the budget is spent or too many differences."""
        if (self.budget.exhausted() or len(self.divergent) > MAX_DIVERGENT_CASES
                or self.costly_over_bound >= MAX_OVER_BOUND):
            return False
        if self.divergent and counts.too_long_after_divergence(getattr(inputs, "values", {}), self.loop_bounds):
            return True
        try:
            outcome = self.run_case(inputs, observed)
        except LimitExceeded as over:
            # one case too big to run (a loop over an input count near its maximum): the others
            # still count, a difference they show stays realizable, but "equivalent" is not claimed
            over.where = located(over)
            self.over_bound.append(bare(over))  # its traceback would keep the whole case alive
            self.costly_over_bound += not isinstance(over, StepsForeseen)
            return True
        self._learn_kinds(inputs)
        if outcome is not None and not outcome.same:
            self.divergent.append(outcome)
            self.decided_by = self.decided_by or stage
        return True

    # -- the whole decision ---------------------------------------------------------------
    def decide(self, options: Options, subject: str) -> Result:
        proven, proof_note = self.prove() if options.proof else (False, "the proof was not run")
        discovery = VectorInputs()
        first = self.run_case(discovery)
        self.kinds = dict(discovery.kinds)
        if proven and first is not None and not paths.may_be_undefined(self.proof_traces):
            ambiguous = undeclared_width(self, every_path=True)
            if ambiguous is not None:
                return Result(subject, "inconclusive", cases=self.cases, reason=ambiguous)
            return self._proven(first, subject)
        self.enable_fast_path()
        for witness in self.witnesses:
            if not self.try_case(VectorInputs(witness, zero=True), "witness"):
                break
        self.planned_search()
        if not proven and not self.divergent:
            self.hypothesis_search(options)  # a divergence found needs no more search (nor its import)
        if not proven and not self.divergent:
            self.aimed_search()
            self.sweep_late_reveals()
        return self.verdict(options, subject, proven, proof_note)

    def _proven(self, replay: Outcome, subject: str) -> Result:
        """A proof needs no testing: one small case replayed through both sides, as a check."""
        if not replay.same:
            raise Inconclusive("engine", "a proven rewrite printed different bytes on a small case (model error)")
        result = Result(subject, "equivalent", cases=self.cases)
        result.notes.extend(dict.fromkeys(self.ub_notes))
        result.method = "proven"
        result.classes = ["every input (symbolic proof), replayed once on small values"]
        result.extra["decided_by"] = "proof"
        return result

    def planned_search(self) -> None:
        """Stages 1-3 of `fmtcheck.engine.search`, repeated for inputs later cases reveal, until one differs."""
        if not self.try_case(VectorInputs(zero=True), "zero"):
            return
        swept = self.swept
        while len(swept) < len(self.kinds) and not (swept and self.divergent):
            fresh = {k: v for k, v in self.kinds.items() if k not in swept}
            swept.update(fresh)
            if not alone_stage(self, fresh):
                return
            for vector in sweep(fresh):
                if not self.bases.is_base_again(vector, False) and not self.try_case(VectorInputs(vector), "sweep"):
                    return
            if not sweep_where_revealed(self, fresh):
                return

    def sweep_late_reveals(self) -> None:
        """Inputs that Hypothesis or the aimed cases revealed, swept where they were revealed
        (`sweep_where_revealed`), and the conditions they open aimed at, until none is new."""
        for _ in range(MAX_AIM_ROUNDS):
            fresh = {k: v for k, v in self.kinds.items() if k not in self.swept}
            if not fresh or self.divergent:
                return
            self.swept.update(fresh)
            if not sweep_where_revealed(self, fresh) or self.divergent:
                return
            self.aimed_search()

    def aimed_search(self) -> None:
        """Stage 5: cases aimed at the conditions the search has not yet covered."""
        limit = self.cases + MAX_AIMED_CASES
        for _ in range(MAX_AIM_ROUNDS):
            sites = [site for coverage in self.coverage for site in coverage.open_sites()]
            if not sites:
                return
            before = self.cases
            for site in sites:
                if site.unread_entries() and not aim_at_entries(self, site, limit):
                    return
                for trial in aimed_cases(site, self.kinds):
                    if not site.open():
                        break
                    # aimed at a condition: the case must be seen by the coverage it aims at
                    if self.cases >= limit or not self.try_case(VectorInputs(trial, zero=True), "aimed", observed=True):
                        return
                    if self.divergent:
                        return
            if self.cases == before:
                return

    def verdict(self, options: Options, subject: str, proven: bool, proof_note: str | None) -> Result:
        result = Result(subject, "equivalent", cases=self.cases)
        result.notes.extend(dict.fromkeys(self.ub_notes))
        if self.cases == 0:
            result.verdict = "inconclusive"
            result.reason = "every input tried hit undefined behaviour: " + "; ".join(dict.fromkeys(self.ub_notes))
            return result
        covered = classes_covered(self.kinds)
        if self.hypothesis_cases:
            covered.append(f"{self.hypothesis_cases} Hypothesis-generated vectors (seed {options.seed})")
        realizable, hanging = _realizable(self.divergent)
        realizable, one_sided = shared_only(self, realizable)
        if not realizable and hanging is not None:
            return _hanging_result(result, hanging)
        if not realizable and one_sided:
            return one_sided_result(self, result, one_sided)
        if realizable:
            result.verdict = "divergent"
            result.divergences = divergences.report(self, realizable)
            result.extra["decided_by"] = self.decided_by
            if self.more_lines:
                result.notes.append(f"{self.more_lines} more differing line(s) not shown")
            return result
        ambiguous = undeclared_width(self)
        if ambiguous is not None:
            result.verdict, result.reason = "inconclusive", ambiguous
            return result
        if self.one_sided_ub and not proven:
            result.verdict = "inconclusive"
            result.reason = (f"undefined behaviour on one side only ({self.one_sided_ub[0]}), where the other "
                             "side is defined: skipping such inputs could hide a difference")
            result.extra["decided_by"] = "construct"
            return result
        if self.over_bound and not proven:
            first = self.over_bound[0]
            result.verdict = "inconclusive"
            result.reason = (f"{len(self.over_bound)} case(s) went over a per-case bound ({first.what} at "
                             f"{first.where}); no difference in the {self.cases} case(s) that ran")
            result.classes = covered
            result.extra["decided_by"] = "bound"
            return result
        result.notes += range_notes(self.kinds, options.star_max)
        if proven:
            result.method = "proven"
            result.classes = covered
            result.extra["decided_by"] = "proof"
            return result
        if proof_note:
            result.notes.append(f"not proven: {proof_note}")
        if self.budget.ended_by:
            result.verdict = "inconclusive"
            result.reason = (f"search ended by the {self.budget.ended_by} after {self.cases} cases "
                             "with no difference found" + where_the_search_stayed(self.coverage)
                             + (f"; not proven: {proof_note}" if proof_note else ""))
            result.classes = covered
            result.extra["decided_by"] = "bound"
            return result
        gaps = [site for coverage in self.coverage for site in coverage.open_sites(obligations=True)]
        if gaps:
            result.verdict = "inconclusive"
            first = gaps[0]
            result.reason = (f"no case made the condition '{first.text}' at {first.where} {first.missing()} "
                             f"({len(gaps)} condition(s) not covered over {self.cases} cases)")
            result.notes.extend(f"condition '{g.text}' at {g.where} never {g.missing()}" for g in gaps[1:4])
            result.classes = covered
            result.extra["decided_by"] = "coverage"
            return result
        result.method = "tested"
        result.classes = covered
        sites = sum(1 for coverage in self.coverage for site in coverage.sites.values() if site.dependent)
        if sites:
            result.classes.append(f"{sites} condition(s) over the inputs each true, false and at its boundary")
        result.extra["decided_by"] = "search"
        return result

    def _learn_kinds(self, inputs) -> None:
        case = None
        for k, v in inputs.kinds.items():
            if k not in self.kinds and len(self.kinds) < MAX_INPUT_KEYS:
                self.kinds[k] = v
                case = dict(inputs.assignment()) if case is None else case
                self.revealed_in[k] = case

    def prove(self) -> tuple[bool, str | None]:
        return prove_in_two_rounds(self)

    def hypothesis_search(self, options: Options) -> None:
        """Stage 4 (`hypothesis_search`)."""
        hypothesis_search(self, options)


def parameter_key(old: Side, index: int, name: str) -> str:
    """The input a parameter of the compared functions holds: named by its position (as the old
    side calls it), so that a parameter the rewrite renamed is the same input."""
    if index < len(old.params):
        return old.params[index][0]
    return name


def one_sided_result(runner: "Runner", result: Result, keys: list[str]) -> Result:
    """Inconclusive: every difference found hangs on inputs only one side reads."""
    shown = [display_key(k, runner.aliases) for k in keys]
    state = state_roots(runner, keys)
    result.verdict, result.reason = "inconclusive", one_sided_reason(shown, key_where(runner, keys), state)
    result.extra["decided_by"] = "construct"
    return result


def _realizable(divergent: list[Outcome]) -> tuple[list[Outcome], tuple[str, str] | None]:
    """The divergent cases whose difference is realizable whatever the unknown printing calls
    print, and the call the first of the others hangs on."""
    kept: list[Outcome] = []
    hanging: tuple[str, str] | None = None
    for outcome in divergent:
        call = unshared_call(outcome)
        if call is None:
            kept.append(outcome)
        elif hanging is None:
            hanging = call
    return kept, hanging


def _hanging_result(result: Result, hanging: tuple[str, str]) -> Result:
    """Inconclusive: the outputs differ only where an unknown printing call may print."""
    call, where = hanging
    result.verdict = "inconclusive"
    if ") or " in call:
        result.reason = (f"{where}: the outputs differ only in what {call} print(s), which the model "
                         f"cannot render or compare")
    else:
        what = f"the call through a function pointer {call}" if call.startswith("(") else f"the call {call}"
        result.reason = (f"{where}: the outputs differ only where {what} may print: it receives the "
                         f"seq_file, is not modelled, and is not made the same way on both sides")
    return result


def cover_after_undefined(runner: "Runner", inputs) -> None:
    """The old side's behaviour is undefined for INPUTS: the new side still runs them, for its
    coverage only, so that a branch that leads to undefined behaviour on both sides (`p ? ...
    : NULL` then `->f`) counts as reached on both, not as a condition no case covered."""
    try:
        runner.run_side(runner.new, inputs, ConcreteOutput(), runner.coverage[1])
    except (UndefinedBehaviour, LimitExceeded, FmtcheckError):
        pass


def note_one_sided(runner: "Runner", inputs, ub: UndefinedBehaviour) -> None:
    """An input where one side's behaviour is undefined is no input of the kernel when both
    sides are undefined there; when the other side is defined, the rewrite changed what the
    code does with it, and skipping it could hide a difference: remembered, so that no
    "equivalent" is claimed (`Runner.verdict`)."""
    if len(runner.one_sided_ub) >= 4 or not hasattr(inputs, "assignment"):
        return
    again = VectorInputs(inputs.assignment(), zero=True)
    defined = 0
    for side in (runner.old, runner.new):
        try:
            runner.run_side(side, again, ConcreteOutput())
            defined += 1
        except (UndefinedBehaviour, FmtcheckError):
            pass
    if defined:
        runner.one_sided_ub.append(f"line {ub.line}: {ub.what}")
