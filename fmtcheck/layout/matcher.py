"""Matching one capture against one grammar as a PEG: lines in order, repeated records, optional
lines, choices and version variants, with divergences collected where the capture departs.

`Matcher` holds the walk over the grammar and the exact/loose matching of single lines; repeated
records are matched by `records.RecordMatcher` (in bulk, one regex per block, where it can) and
options, choices and variants by `choices.ChoiceMatcher`.
"""

from __future__ import annotations

from fmtcheck.common.result import Divergence
from fmtcheck.layout.choices import ChoiceMatcher
from fmtcheck.layout.compiler import Compiled, LineCompiler, Unbound, literal_prefix, run_checks
from fmtcheck.layout.lookahead import first_lines, line_params
from fmtcheck.layout.loose import loose_walk
from fmtcheck.layout.matchstate import (
    MAX_DIVERGENCES,
    MAX_EXAMINED,
    MAX_REBINDS,
    GiveUp,
    MatchOutcome,
    RecordSeen,
    State,
    TooMany,
    Trial,
)
from fmtcheck.layout.model import (
    Grammar,
    Line,
    Optional,
    Records,
    Variant,
)
from fmtcheck.layout.reader import Reader
from fmtcheck.layout import dfa, native, records
from fmtcheck.layout.records import RecordMatcher

DFA_LINE_USES = 1024  # single lines a line regex leaves to the DFA before Python compiles it: a
# compile (1-5 ms for a 600-byte smaps line) costs what a thousand calls of the DFA cost more


class Matcher(RecordMatcher, ChoiceMatcher):
    """Matches one capture against one grammar; collects divergences, records and variants."""

    def __init__(self, grammar: Grammar, reader: Reader, variants: dict | None = None,
                 collect: bool = False, params: dict | None = None, max_divs: int | None = None,
                 bulk: bool = True) -> None:
        self.g = grammar
        self.bulk = bulk  # match settled records in bulk (False: line by line, naming every line)
        self.r = reader
        self.divs: list[Divergence] = []
        self.records: list[RecordSeen] = []  # (block, key) of each record, when collecting
        self.collect = collect
        self.committed = True
        self.initial_variants = dict(variants or {})
        self.initial_params = dict(params or {})
        self.max_divs = max_divs  # give up (run() returns None) beyond this many divergences
        self.depth = 0  # speculation depth: divergences found there may be dropped
        self.rebinds: list[dict] = []  # file-wide values that divergent lines would bind instead
        self.penalty = 0  # lines reported together in one divergence, beyond the first
        self._cache: dict = {}
        self._fast: dict = {}
        self._block_params: dict = {}
        self._miss_pos, self._misses = -1, set()
        self._loose_pos, self._loose_memo = -1, {}
        self.params_decl = set(grammar.params)
        self.truncated = 0
        self.line_roles: dict[int, str] = {}
        self.half = None  # a child matching the second half's records (`halves`), while it runs
        self.half_tried = False

    # -- driver -------------------------------------------------------------------------------------

    def run(self) -> MatchOutcome | None:
        """Match the whole capture. None when max_divs was given and exceeded."""
        try:
            return self._run()
        except TooMany:
            return None
        except GiveUp:
            note = f"stopped after {self.cost} divergent lines: the rest of the capture was not examined"
            return MatchOutcome(self.g, self.divs, [note], self.records, dict(self.initial_variants), self.cost,
                                self.truncated, 1, self.line_roles, alternatives=[],
                                params=dict(self.initial_params), cost=self.cost)
        finally:
            self.drop_half()

    def _run(self) -> MatchOutcome:
        st = State(params=dict(self.initial_params), variants=dict(self.initial_variants))
        notes: list[str] = []
        snapshots = 1
        self.seq(self.g.body, st, None)
        while not self.r.at_eof(st.pos):
            text, has_nl = self.r.line_at(st.pos)
            if not text and has_nl and self.r.at_eof(st.pos + 1):
                notes.append(f"line {st.line}: an empty line after the end of the layout (a capture "
                             "artefact, not kernel output) was ignored")
                st.pos += 1
                break
            fresh = State(st.pos, st.line, dict(self.initial_params), dict(self.initial_variants))
            if self.starts_body(fresh):
                snapshots += 1
                st = fresh
                self.seq(self.g.body, st, None)
                continue
            self.extra_lines(st)
            break
        if snapshots > 1:
            notes.append(f"the capture holds {snapshots} snapshots of the file; each was checked on its own")
        return MatchOutcome(self.g, self.divs, notes, self.records, st.variants, st.line - 1,
                            self.truncated, snapshots, self.line_roles,
                            alternatives=self.alternatives(st), params=dict(st.params), cost=self.cost)

    # -- the layout most of the capture shows --------------------------------------------------------

    def alternatives(self, st: State) -> list[tuple[dict, dict]]:
        """Other file-wide bindings worth a try when the capture diverges in several places, as
        (params, variants): the values the first divergent lines would bind on their own (a count
        of columns), and the other options of each kernel-version variant the capture narrowed."""
        if self.cost < 2:
            return []
        out: list[tuple[dict, dict]] = [(alt, {}) for alt in self.rebinds]
        for v in self.g.variants:
            cands = st.variants.get(v.uid)
            if v.uid in self.initial_variants or cands is None or len(cands) == len(v.options):
                continue
            out.extend(({}, {v.uid: (i,)}) for i in range(len(v.options)) if i not in cands)
        return out

    def note_rebind(self, node: Line, st: State) -> None:
        """Before reporting NODE at st.pos: would the line match if the file-wide values it depends
        on (bound by an earlier line) were its own? Keep those values as an alternative."""
        if len(self.rebinds) >= MAX_REBINDS or self.depth:
            return
        bound = [n for n in line_params(node)
                 if n in self.params_decl and n in st.params and n not in self.initial_params]
        if not bound:
            return
        free = {k: v for k, v in st.params.items() if k not in bound}
        comp = self.compiled(node, free)
        if comp is None:
            return
        m = comp.regex.match(self.r.buf, st.pos - self.r.base)
        params = dict(free)
        if m is None or run_checks(self.g, comp, m, self.r.buf, params, bind=True) is not None:
            return
        alt = {n: params[n] for n in bound if n in params and params[n] != st.params[n]}
        if alt and alt not in self.rebinds:
            self.rebinds.append(alt)

    def starts_body(self, st: State) -> bool:
        """Does a new snapshot of the file start here (its first line matches exactly)?"""
        first = first_lines(self.g.body, st)
        return any(self.exact(line, st) is not None for line in first)

    def extra_lines(self, st: State) -> None:
        text, has_nl = self.r.line_at(st.pos)
        count = 0
        pos = st.pos
        while not self.r.at_eof(pos):
            t, nl = self.r.line_at(pos)
            pos += len(t) + (1 if nl else 0)
            count += 1
            self.r.keep = pos
        more = f" ({count - 1} more lines follow)" if count > 1 else ""
        self.penalty += count - 1  # one report, but as many lines as it covers when comparing layouts
        self.add(Divergence(st.line, 1, b"", text, None, "breaking", "extra-line",
                            expected_has_newline=False, actual_has_newline=has_nl,
                            note=f"text after the end of the layout{more}"))
        st.line += count
        st.pos = pos

    def add(self, d: Divergence) -> None:
        if len(self.divs) < MAX_DIVERGENCES:
            self.divs.append(d)
        else:
            self.truncated += 1
        self.check_limit()

    @property
    def cost(self) -> int:
        return len(self.divs) + self.truncated + self.penalty

    def check_limit(self) -> None:
        if self.max_divs is not None and not self.depth and self.cost > self.max_divs:
            raise TooMany
        if self.max_divs is None and not self.depth and self.cost > MAX_EXAMINED:
            raise GiveUp

    # -- nodes --------------------------------------------------------------------------------------

    def seq(self, nodes: list, st: State, follow) -> bool:
        for i, node in enumerate(nodes):
            rest = (nodes[i + 1 :], follow)
            if not self.node(node, st, rest):
                return False
        return True

    def node(self, node, st: State, rest) -> bool:
        if isinstance(node, Line):
            return self.line(node, st, rest)
        if isinstance(node, Records):
            return self.records_loop(node, st, rest)
        if isinstance(node, Optional):
            return self.optional(node, st, rest)
        if isinstance(node, Variant):
            return self.variant(node, st, rest)
        return self.choice(node, st, rest)

    def speculate(self, body: list, st: State, rest) -> "Trial | None":
        """Try BODY from a copy of ST, keeping what it reports aside: a Trial, or None. The roles
        of the lines it reads are the trial's too: an option tried and dropped (a variant whose
        other option matched cleanly) must not leave its line names to the key inventory."""
        state = st.copy()
        saved = (self.committed, len(self.divs), len(self.records), self.truncated)
        roles, self.line_roles = self.line_roles, {}
        self.committed = False
        self.depth += 1
        try:
            ok = self.seq(body, state, rest)
        finally:
            self.depth -= 1
            roles, self.line_roles = self.line_roles, roles
        self.committed = saved[0]
        trial = Trial(state, self.divs[saved[1]:], self.records[saved[2]:], self.truncated - saved[3], roles)
        del self.divs[saved[1]:]
        del self.records[saved[2]:]
        self.truncated = saved[3]
        return trial if ok else None

    def adopt(self, st: State, trial: "Trial") -> None:
        t = trial.state
        st.pos, st.line, st.params, st.variants = t.pos, t.line, t.params, t.variants
        self.divs.extend(trial.divs)
        self.records.extend(trial.records)
        self.line_roles.update(trial.roles)
        self.truncated += trial.truncated
        if trial.divs or trial.truncated:
            self.check_limit()

    def line(self, node: Line, st: State, rest) -> bool:
        m = self.exact(node, st)
        if m is not None:
            self.advance(node, st, m)
            self.committed = True
            return True
        if not self.committed:
            return False
        self.tolerate(node, st, rest)
        return True

    def advance(self, node: Line, st: State, result) -> None:
        end, params = result
        if self.collect:
            self.line_roles[st.line] = node.name
        st.line += self.r.buf.count(b"\n", st.pos - self.r.base, end - self.r.base)
        st.pos = end
        st.params = params

    def exact(self, node: Line, st: State):
        """(end, params) when the line matches exactly at st.pos, else None."""
        if st.pos != self._miss_pos:  # lines that did not match here (speculation retries them)
            self._miss_pos, self._misses = st.pos, set()
        miss = (node.uid, tuple(st.params.get(n) for n in line_params(node)))
        if miss in self._misses:
            return None
        self.r.ensure_line(st.pos)
        comp = self.compiled(node, st.params)
        if comp is not None and not comp.checks:
            end = self.dfa_line(comp, st.pos)
            if end is not None:  # the DFA's answer is exact: no Python regex to compile
                if end < 0:
                    self._misses.add(miss)
                    return None
                self.bound_key = (comp, None)  # record_key reads the key from the line's text
                return end, dict(st.params)
        m = comp.regex.match(self.r.buf, st.pos - self.r.base) if comp is not None else None
        params = dict(st.params)
        if m is None or run_checks(self.g, comp, m, self.r.buf, params, bind=True) is not None:
            self._misses.add(miss)
            return None
        self.bound_key = (comp, m)
        return self.r.base + m.end(), params

    def dfa_line(self, comp: Compiled, pos: int) -> int | None:
        """Does the one-line regex COMP match the line at POS, by the DFA (`dfa`): its end, -1 for
        no; None when the DFA is not used (a small capture whose plans are not built, no RE2 form)."""
        r = self.r
        if comp.dfa_uses >= DFA_LINE_USES or "regex" in comp.__dict__:
            return None  # once a line's regex is used often, Python's compiled regex is cheaper per call
        pattern = comp.pattern
        if r.ahead(pos) < records.DFA_MIN_BYTES and not dfa.plan_built(pattern) and not native.line_table_built(pattern):
            return None  # a small capture: not worth a translation and an RE2 compile
        comp.dfa_uses += 1
        table = native.line_table(pattern)
        if table is not None:  # the same DFA's answer, one call of the extension
            end = native.line_end(table, r.buf, pos - r.base)
            if end is not None:
                return end if end < 0 else r.base + end
        plan = comp.line_plan
        if plan is None:
            return None
        rel = pos - r.base
        nl = r.buf.find(b"\n", rel)
        if nl < 0:  # the window holds the line to the end of the file (ensure_line): no newline
            return -1  # comes, and a regex with an RE2 plan ends with one (`dfa.translate_line_record`)
        return r.base + nl + 1 if plan.end(r.buf, rel, nl + 1) == nl + 1 else -1

    def loose(self, node: Line, pos: int, text: bytes):
        """loose_walk of the line at POS (TEXT), remembered while the matcher stays at POS."""
        if pos != self._loose_pos:
            self._loose_pos, self._loose_memo = pos, {}
        res = self._loose_memo.get(node.uid)
        if res is None:
            res = self._loose_memo[node.uid] = loose_walk(node, text, self.g)
        return res

    def compiled(self, node: Line, params: dict) -> Compiled | None:
        names = line_params(node)
        key = (node.uid, tuple(params.get(n) for n in names))
        if key not in self._cache:
            try:
                comp = LineCompiler(self.g, params)
                pattern = comp.items(node.items, b"\n") + node.end_pattern
                self._cache[key] = Compiled(pattern, comp.checks, comp.groups, prefix=literal_prefix(node.items))
            except Unbound:
                self._cache[key] = None
        return self._cache[key]

    # -- repetition, options, variants --------------------------------------------------------------













    # -- tolerance: reporting a line that does not match ---------------------------------------------
