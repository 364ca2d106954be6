"""`fmtcheck check`: is a captured /proc file exactly what its layout prints for the values in it?

The capture is matched against its grammar (fmtcheck.layout.grammar) as a PEG: lines in order, repeated
records greedily, choices in order, and kernel-version variants narrowed by the first records (a
variant that stops matching is a divergence, since one kernel prints one layout). Each grammar line
is a width-exact regex, so "the line matches" means "rendering the values it holds gives these very
bytes". Only a line that fails is explained the slow way: its values are read loosely, rendered
through the grammar, and the first differing column is reported with the field there; when one
blank inserted earlier makes the line exact (a name glued to the next number, "sda14200", which a
loose reading takes for one longer name), the divergence is reported there instead.

The first occurrence settles file-wide parameters (a column count) and variants. When that first
record is the odd one, every later record would be reported in its stead; so a capture that
diverges in two places or more gets a second try with the layout its divergent lines show (the
values they would bind, the other options of its variants): compared first on the lines up to the
third divergence, then on the whole capture, it is kept if it reports fewer divergent lines.

Captures are bytes and are streamed through a bounded window read in 8 MiB chunks: a record that
has matched is dropped, so memory stays at the size of the largest record plus a chunk or two (a
10 MB single line works; a line over MAX_LINE is refused). Once the layout of a repeated record is
settled (its parameters bound, its variants decided), the whole record compiles to one width-exact
regex and the records are matched back to back over the window, one regex call each, with no
Python work per line; a record is accepted only when at least MARGIN bytes follow it (or the file
ends there), so a chunk boundary never decides a match. The first record that does not match
leaves that loop for the line-by-line matcher, which explains it. This is what makes `check` run
at 100+ MB/s.

Two capture artefacts are tolerated with a note rather than a divergence: one empty line added at
the end (`cat f; echo`), and several snapshots of the same file in a row (`cat f f`), each checked
on its own.
"""

from __future__ import annotations

import functools
import os
import re
import stat as stat_mod
from dataclasses import dataclass, field
from typing import BinaryIO

from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Divergence, Report, Result
from fmtcheck.layout.compiler import Compiled, Unbound, _Compiler, run_checks
from fmtcheck.layout.language import detect_grammar, load_grammar
from fmtcheck.layout.loose import loose_walk
from fmtcheck.layout.model import (
    Choice,
    Field,
    Grammar,
    Group,
    Line,
    Optional,
    Records,
    Variant,
    line_fields,
    walk_items,
)
from fmtcheck.layout.render import example_values, field_domain, render_line_spans

CHUNK = 8 << 20  # bytes read at a time
MARGIN = 64 << 10  # bytes kept beyond the current line (a field such as comm may hold '\n')
MAX_DIVERGENCES = 200  # per capture; the rest are counted in a note
MAX_LINE = 64 << 20  # a longer line is refused rather than held in memory (no /proc line comes near)
HEAD_BYTES = 64 << 10  # what grammar detection looks at
MAX_REBINDS = 3  # alternative file-wide values noted from the first divergent lines
MAX_ALTERNATIVES = 16  # second tries of a divergent capture with another layout
PREFIX_DIVERGENCES = 3  # the alternatives are first compared on the lines up to this divergence
MAX_PREFIX = 1 << 20  # bytes; a longer prefix is not re-matched


MAX_EXAMINED = 2000  # divergent lines after which a capture is not examined further


class _GiveUp(Exception):
    """So many lines diverge that the rest of the capture would only repeat the verdict."""


class _TooMany(Exception):
    """A second try of a capture reported more divergences than the first: give up on it."""


# --------------------------------------------------------------------------------------------------
# Input


def open_capture(path: str) -> BinaryIO:
    """Open a capture for reading bytes, or raise InputError with a one-line reason."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as err:
        raise InputError(path, err.strerror or "cannot read") from None
    if stat_mod.S_ISDIR(st.st_mode):
        raise InputError(path, "is a directory, not a capture")
    try:
        return open(path, "rb")
    except OSError as err:
        raise InputError(path, err.strerror or "cannot read") from None


def read_head(path: str) -> bytes:
    with open_capture(path) as f:
        try:
            return f.read(HEAD_BYTES)
        except OSError as err:
            raise InputError(path, err.strerror or "cannot read") from None


def grammar_for(path: str, name: str | None) -> Grammar:
    """The named grammar, or the one detected from the start of the capture."""
    if name:
        return load_grammar(name)
    head = read_head(path)
    if not head:
        raise InputError(path, "empty capture: cannot detect its layout (give --grammar NAME)")
    g = detect_grammar(head, path)
    if g is None:
        raise InputError(path, "cannot detect which /proc file this is (give --grammar NAME)")
    return g


class Reader:
    """A sliding window over a file: positions are absolute, bytes before `keep` may be dropped."""

    def __init__(self, f: BinaryIO, where: str) -> None:
        self.f = f
        self.where = where
        self.buf = b""
        self.base = 0
        self.eof = False
        self.keep = 0
        self._scan = 0  # where the last newline search stopped

    @property
    def end(self) -> int:
        return self.base + len(self.buf)

    def _read(self) -> None:
        cut = self.keep - self.base
        if cut > 0 and cut >= len(self.buf) // 2:
            self.buf = self.buf[cut:]
            self.base += cut
        try:
            data = self.f.read(CHUNK)
        except OSError as err:
            raise InputError(self.where, err.strerror or "read error") from None
        if not data:
            self.eof = True
        else:
            self.buf += data

    def ensure_line(self, pos: int) -> None:
        """Make the window hold the line at POS, its newline, and MARGIN bytes more (or to EOF)."""
        while not self.eof:
            rel = pos - self.base
            nl = self.buf.find(b"\n", max(rel, self._scan - self.base))
            if nl >= 0 and len(self.buf) - nl > MARGIN:
                return
            if nl < 0:
                self._scan = self.end
                if self.end - pos > MAX_LINE:
                    raise InputError(self.where, f"a line longer than {MAX_LINE >> 20} MiB")
            self._read()

    def ensure(self, pos: int, n: int) -> None:
        while not self.eof and self.end < pos + n:
            self._read()

    def line_at(self, pos: int) -> tuple[bytes, bool]:
        """The physical line at POS (without newline) and whether it had one."""
        self.ensure_line(pos)
        rel = pos - self.base
        nl = self.buf.find(b"\n", rel)
        if nl < 0:
            return self.buf[rel:], False
        return self.buf[rel:nl], True

    def at_eof(self, pos: int) -> bool:
        self.ensure(pos, 1)
        return self.eof and pos >= self.end


# --------------------------------------------------------------------------------------------------
# Matching


@dataclass
class State:
    pos: int = 0
    line: int = 1
    params: dict = field(default_factory=dict)
    variants: dict = field(default_factory=dict)  # Variant.uid -> candidate option indexes

    def copy(self) -> "State":
        return State(self.pos, self.line, dict(self.params), dict(self.variants))


@dataclass
class Trial:
    """The outcome of trying one option: the state after it and what it reported."""

    state: State
    divs: list
    records: list
    truncated: int


@dataclass(slots=True)
class RecordSeen:
    """A record found in the capture: which block, its key, where it starts (for diff)."""

    block: str
    key: tuple
    line: int


@dataclass
class MatchOutcome:
    grammar: Grammar
    divergences: list
    notes: list
    records: list
    variants: dict
    lines: int
    truncated: int = 0
    snapshots: int = 1
    line_roles: dict = field(default_factory=dict)
    alternatives: list = field(default_factory=list)  # (params, variants) worth a second try
    params: dict = field(default_factory=dict)  # file-wide values as bound at the end
    cost: int = 0  # lines reported as divergent (what two readings of a capture are compared by)


class Matcher:
    """Matches one capture against one grammar; collects divergences, records and variants."""

    def __init__(self, grammar: Grammar, reader: Reader, variants: dict | None = None,
                 collect: bool = False, params: dict | None = None, max_divs: int | None = None) -> None:
        self.g = grammar
        self.r = reader
        self.divs: list[Divergence] = []
        self.records: list[RecordSeen] = []
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

    # -- driver -------------------------------------------------------------------------------------

    def run(self) -> MatchOutcome | None:
        """Match the whole capture. None when max_divs was given and exceeded."""
        try:
            return self._run()
        except _TooMany:
            return None
        except _GiveUp:
            note = f"stopped after {self.cost} divergent lines: the rest of the capture was not examined"
            return MatchOutcome(self.g, self.divs, [note], self.records, dict(self.initial_variants), self.cost,
                                self.truncated, 1, self.line_roles, alternatives=[],
                                params=dict(self.initial_params), cost=self.cost)

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
            raise _TooMany
        if self.max_divs is None and not self.depth and self.cost > MAX_EXAMINED:
            raise _GiveUp

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
        """Try BODY from a copy of ST, keeping what it reports aside: a Trial, or None."""
        state = st.copy()
        saved = (self.committed, len(self.divs), len(self.records), self.truncated)
        self.committed = False
        self.depth += 1
        try:
            ok = self.seq(body, state, rest)
        finally:
            self.depth -= 1
        self.committed = saved[0]
        trial = Trial(state, self.divs[saved[1]:], self.records[saved[2]:], self.truncated - saved[3])
        del self.divs[saved[1]:]
        del self.records[saved[2]:]
        self.truncated = saved[3]
        return trial if ok else None

    def adopt(self, st: State, trial: "Trial") -> None:
        t = trial.state
        st.pos, st.line, st.params, st.variants = t.pos, t.line, t.params, t.variants
        self.divs.extend(trial.divs)
        self.records.extend(trial.records)
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
        m = comp.regex.match(self.r.buf, st.pos - self.r.base) if comp is not None else None
        params = dict(st.params)
        if m is None or run_checks(self.g, comp, m, self.r.buf, params, bind=True) is not None:
            self._misses.add(miss)
            return None
        self.bound_key = (comp, m)
        return self.r.base + m.end(), params

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
                comp = _Compiler(self.g, params)
                pattern = comp.items(node.items, b"\n") + r"\n"
                self._cache[key] = Compiled(pattern, comp.checks, comp.groups)
            except Unbound:
                self._cache[key] = None
        return self._cache[key]

    # -- repetition, options, variants --------------------------------------------------------------

    def records_loop(self, node: Records, st: State, rest) -> bool:
        top = self.committed
        while not self.r.at_eof(st.pos):
            if top:
                self.r.keep = st.pos
            if self.fast_records(node, st, top):
                continue
            start_line = st.line
            before = set(st.params)
            trial = self.speculate(node.body, st, ([node], rest))
            if trial is not None and trial.state.pos > st.pos:
                self.note_record(node, st, start_line)
                self.adopt(st, trial)
                self.drop_record_params(st, before)
                continue
            if not top or self.follow_matches(rest, st):
                break
            if not self.loosely_starts(node.body, st):
                if self.next_line_starts(node.body, st):
                    self.extra_line(st)
                    continue
                break
            saved_pos = st.pos
            self.committed = True
            self.note_record(node, st, start_line)
            self.seq(node.body, st, ([node], rest))
            self.drop_record_params(st, before)
            if st.pos == saved_pos:
                break
        return True

    def drop_record_params(self, st: State, before: set) -> None:
        """Values bound inside a record live until its end, unless declared file-wide (`param`)."""
        for name in list(st.params):
            if name not in before and name not in self.params_decl:
                del st.params[name]

    def note_record(self, node: Records, st: State, line: int) -> None:
        if self.collect:
            self.records.append(RecordSeen(node.name, self.record_key(node, st), line))

    def record_key(self, node: Records, st: State) -> tuple:
        """The record's key: the key fields of its first line, read from the capture."""
        text, _ = self.r.line_at(st.pos)
        firsts = first_lines(node.body, st)
        for line in firsts:
            if self.exact(line, st) is None:
                continue
            comp, m = self.bound_key
            key = []
            for name in node.key:
                g = comp.groups.get(name)
                if g and m.group(g) is not None:
                    key.append(_key_text(m.group(g)))
            return tuple(key) or (line.name.encode(),)
        res = self.loose(firsts[0], st.pos, text) if firsts else None
        if res is not None:
            key = tuple(_as_key(res.values.get(k)) for k in node.key if res.values.get(k) is not None)
            if key:
                return key
        return (text.split(b" ")[0] if text.strip() else b"?",)

    def fast_records(self, node: Records, st: State, top: bool) -> bool:
        """Match as many whole records as possible, back to back, one regex call each, once the
        record's layout is settled. True when at least one record matched."""
        comp = self.fast_regex(node, st)
        if comp is None:
            return False
        match = comp.regex.match
        checks = comp.checks
        keys = [comp.groups[k] for k in node.key if k in comp.groups] if self.collect else None
        name = node.name
        nkeys = len(keys or ())
        unnamed = (name.encode(),)
        append = self.records.append
        params = st.params
        r = self.r
        matched = False
        while True:
            if top:
                r.keep = st.pos
            r.ensure(st.pos, MARGIN + 1)
            buf, base = r.buf, r.base
            rel = start = st.pos - base
            limit = len(buf) if r.eof else len(buf) - MARGIN
            need_more = False
            line = st.line
            while rel < len(buf):
                m = match(buf, rel)
                if m is None:
                    need_more = rel > limit  # perhaps cut short by the end of the window
                    break
                end = m.end()
                if end == rel:
                    break
                if end > limit:
                    need_more = True  # too close to the end of the window to be sure: read on
                    break
                if checks and run_checks(self.g, comp, m, buf, params, bind=False) is not None:
                    break
                if keys is not None:
                    if nkeys == 1:
                        key = (_key_text(m.group(keys[0]) or b""),)
                    elif nkeys:
                        key = tuple([_key_text(v or b"") for v in m.group(*keys)])
                    else:
                        key = unnamed
                    append(RecordSeen(name, key, line))
                    line += buf.count(b"\n", rel, end)
                rel = end
            if rel > start:
                matched = True
                st.line = line if keys is not None else st.line + buf.count(b"\n", start, rel)
                st.pos = base + rel
            if not need_more:
                return matched
            if top:
                r.keep = st.pos
            r.ensure(st.pos, r.end - st.pos + 1)  # one more chunk

    def fast_regex(self, node: Records, st: State) -> Compiled | None:
        names = self._block_params.get(node.uid)
        if names is None:
            names = self._block_params[node.uid] = block_params(node.body)
        key = (node.uid, tuple(st.params.get(n) for n in names),
               tuple(sorted((k, v) for k, v in st.variants.items())))
        if key in self._fast:
            return self._fast[key]
        comp = None
        try:
            c = _Compiler(self.g, st.params, "f", keep=frozenset(node.key) if self.collect else frozenset())
            pattern = self.block_pattern(node.body, c, st, names)
            if pattern is not None:
                comp = Compiled(pattern, c.checks, c.groups)
                if any(ch.kind in ("bindstar", "bind") or ch.kind == "count" and ch.item.count for ch in comp.checks):
                    comp = None
        except Unbound:
            comp = None
        self._fast[key] = comp
        return comp

    def block_pattern(self, nodes: list, c: _Compiler, st: State, names) -> str | None:
        parts = []
        for node in nodes:
            if isinstance(node, Line):
                for n in line_params(node):
                    if n not in st.params:
                        return None
                parts.append(c.items(node.items, b"\n") + r"\n")
            elif isinstance(node, Optional):
                inner = self.block_pattern(node.body, c, st, names)
                if inner is None:
                    return None
                parts.append(f"(?:{inner})?")
            elif isinstance(node, Variant):
                cands = st.variants.get(node.uid)
                if cands is None or len(cands) != 1:
                    return None
                inner = self.block_pattern(node.options[cands[0]], c, st, names)
                if inner is None:
                    return None
                parts.append(inner)
            elif isinstance(node, Choice):
                options = [self.block_pattern(o, c, st, names) for o in node.options]
                if any(o is None for o in options):
                    return None
                parts.append("(?:" + "|".join(options) + ")")
            else:
                return None
        return "".join(parts)

    def optional(self, node: Optional, st: State, rest) -> bool:
        trial = self.speculate(node.body, st, rest)
        if trial is not None:
            self.adopt(st, trial)
        elif self.committed and not self.follow_matches(rest, st) and self.loosely_fits(node.body, st):
            self.seq(node.body, st, rest)
        return True

    def loosely_fits(self, body: list, st: State) -> bool:
        """Does the current line read completely as a (divergent) first line of BODY?"""
        if self.r.at_eof(st.pos):
            return False
        text, _ = self.r.line_at(st.pos)
        for line in first_lines(body, st):
            res = self.loose(line, st.pos, text)
            if res.complete and res.end == len(text):
                return True
        return False

    def choice(self, node: Choice, st: State, rest) -> bool:
        fallback = None
        for body in node.options:
            trial = self.speculate(body, st, rest)
            if trial is not None and trial.state.pos > st.pos:
                self.adopt(st, trial)
                return True
            fallback = fallback or trial
        if fallback is not None:
            self.adopt(st, fallback)
            return True
        if not self.committed:
            return False
        best = self.best_option(node.options, st)
        return self.seq(best, st, rest)

    def variant(self, node: Variant, st: State, rest) -> bool:
        """Try every option still possible; keep those that match like the first one that does."""
        cands = st.variants.get(node.uid, tuple(range(len(node.options))))
        results = []
        for i in cands:
            trial = self.speculate(node.options[i], st, rest)
            if trial is not None:
                results.append((i, trial))
        if self.committed and all(t.state.pos == st.pos for _, t in results):
            # only an empty option ("absent") matched, but the line looks like a divergent form
            # of a present option: report it there instead of locking the variant to "absent"
            for i in cands:
                if node.options[i] and self.loosely_fits(node.options[i], st):
                    st.variants[node.uid] = (i,)
                    return self.seq(node.options[i], st, rest)
        if results:
            # prefer a clean option, then one that consumes input over an empty one ("absent")
            results.sort(key=lambda it: (bool(it[1].divs), it[1].state.pos == st.pos))
            first = results[0][1]
            keep = tuple(i for i, t in results
                         if t.state.pos == first.state.pos and bool(t.divs) == bool(first.divs))
            self.adopt(st, first)
            st.variants[node.uid] = keep
            return True
        if not self.committed:
            return False
        best = self.best_option([node.options[i] for i in cands], st)
        return self.seq(best, st, rest)

    def best_option(self, options: list, st: State) -> list:
        """The option whose first line explains the most of the current line (for reporting): a
        reading of the whole line first, then the longest one."""
        text, _ = self.r.line_at(st.pos)
        scored = []
        for body in options:
            lines = first_lines(body, st)
            readings = [self.loose(line, st.pos, text) for line in lines]
            score = max(((r.complete, r.end) for r in readings), default=(False, -1))
            scored.append((score, body))
        return max(scored, key=lambda sb: sb[0])[1]

    # -- tolerance: reporting a line that does not match ---------------------------------------------

    def follow_matches(self, rest, st: State) -> bool:
        """Does what comes after the current node match exactly here (or is the capture over)?"""
        lines, nullable = follow_first(rest, st)
        if nullable and self.r.at_eof(st.pos):
            return True
        return any(self.exact(line, st) is not None for line in lines)

    def loosely_starts(self, body: list, st: State) -> bool:
        text, _ = self.r.line_at(st.pos)
        for line in first_lines(body, st):
            res = self.loose(line, st.pos, text)
            if res.complete or res.end >= max(1, len(text) // 2):
                return True
        return False

    def next_line_starts(self, body: list, st: State) -> bool:
        text, nl = self.r.line_at(st.pos)
        if not nl:
            return False
        nxt = State(st.pos + len(text) + 1, st.line + 1, st.params, st.variants)
        if self.r.at_eof(nxt.pos):
            return False
        return any(self.exact(line, nxt) is not None for line in first_lines(body, st))

    def extra_line(self, st: State) -> None:
        text, nl = self.r.line_at(st.pos)
        self.add(Divergence(st.line, 1, b"", text, None, "breaking", "extra-line",
                            expected_has_newline=False, actual_has_newline=nl))
        st.pos += len(text) + (1 if nl else 0)
        st.line += 1

    def tolerate(self, node: Line, st: State, rest) -> None:
        """A line that must be here does not match: report a missing line, an extra line, or the
        first divergence in it, and move on as if it had matched."""
        if self.r.at_eof(st.pos):
            self.add(self.missing(node, st, b"", False))
            return
        text, nl = self.r.line_at(st.pos)
        res = self.loose(node, st.pos, text)
        if not res.complete:
            if self.follow_matches(rest, st):
                self.add(self.missing(node, st, text, nl))
                return
            nxt = State(st.pos + len(text) + 1, st.line + 1, st.params, st.variants)
            if nl and not self.r.at_eof(nxt.pos) and self.exact(node, nxt) is not None:
                self.extra_line(st)
                self.advance(node, st, self.exact(node, st))
                return
        if len(self.divs) < MAX_DIVERGENCES:
            self.note_rebind(node, st)
            self.add(explain(self.g, node, text, nl, st.line, st.params, self.compiled(node, st.params)))
        else:
            self.truncated += 1  # the report is full: count the line, do not explain it
            self.check_limit()
        if self.collect:
            self.line_roles[st.line] = node.name
        st.pos += len(text) + (1 if nl else 0)
        st.line += 1

    def missing(self, node: Line, st: State, text: bytes, nl: bool) -> Divergence:
        expected = render_expected(self.g, node, example_values(node, self.g), st.params)
        return Divergence(st.line, 1, expected.rstrip(b"\n"), text, node.name, "breaking", "missing-line",
                          actual_has_newline=nl, note=f"line {node.name!r} of the layout is missing here")


def _key_text(raw: bytes) -> bytes:
    """A key field's text without its padding and primitive delimiter ("-55d6..." -> "55d6...")."""
    return raw.strip(b" \t").lstrip(b"-:/").strip(b" ")


def _as_key(v):
    if isinstance(v, list):
        v = v[0] if v else b""
    return v if isinstance(v, bytes) else str(v).encode()


# --------------------------------------------------------------------------------------------------
# Static helpers over the grammar


@functools.lru_cache(maxsize=None)
def line_params(line: Line) -> tuple:
    """Parameters and bound values a line's regex depends on."""
    names = []
    for item in walk_items(line.items):
        if isinstance(item, Group) and item.count:
            names.append(item.count)
        elif isinstance(item, Field):
            if item.star:
                names.append(item.star[0])
            if item.same_as:
                names.append(item.same_as)
    return tuple(dict.fromkeys(names))


def block_params(nodes: list) -> tuple:
    names = []
    for node in nodes:
        if isinstance(node, Line):
            names.extend(line_params(node))
        elif isinstance(node, (Optional, Records)):
            names.extend(block_params(node.body))
        else:
            for body in node.options:
                names.extend(block_params(body))
    return tuple(dict.fromkeys(names))


def first_lines(nodes: list, st: State) -> list[Line]:
    lines, _ = _first(nodes, st)
    return lines


def _first(nodes: list, st: State) -> tuple[list[Line], bool]:
    """The lines that can come first in NODES, and whether NODES can match nothing."""
    out: list[Line] = []
    for node in nodes:
        if isinstance(node, Line):
            out.append(node)
            return out, False
        if isinstance(node, (Records, Optional)):
            out.extend(_first(node.body, st)[0])
            continue
        options = node.options
        if isinstance(node, Variant):
            options = [node.options[i] for i in st.variants.get(node.uid, range(len(node.options)))]
        nullable = False
        for body in options:
            lines, empty = _first(body, st)
            out.extend(lines)
            nullable = nullable or empty
        if not nullable:
            return out, False
    return out, True


def follow_first(rest, st: State) -> tuple[list[Line], bool]:
    out: list[Line] = []
    while rest is not None:
        nodes, rest = rest
        lines, nullable = _first(nodes, st)
        out.extend(lines)
        if not nullable:
            return out, False
    return out, True


# --------------------------------------------------------------------------------------------------
# Explaining one divergent line


def render_expected(g: Grammar, node: Line, values: dict, params: dict) -> bytes:
    try:
        return render_line_spans(node, values, params, g)[0]
    except Exception:  # noqa: BLE001 - a value the loose reading got wrong: fall back to examples
        return render_line_spans(node, example_values(node, g), params, g)[0]


MAX_REPAIR_LINE = 4096  # longer divergent lines are not searched for a missing blank


def missing_blank(g: Grammar, node: Line, text: bytes, params: dict, before: int,
                  compiled: Compiled | None = None) -> int | None:
    """The leftmost offset, before BEFORE, where one inserted space makes TEXT a line that NODE
    prints exactly: the place of a blank that went missing between two tokens, such as a disk
    name glued to its first counter ("sda14200"), which a loose reading takes for one longer name.
    Offsets between two digits are not tried (any split of a number would do there)."""
    if len(text) > MAX_REPAIR_LINE:
        return None
    if compiled is None:
        try:
            comp = _Compiler(g, dict(params))
            compiled = Compiled(comp.items(node.items, b"\n") + r"\n", comp.checks, comp.groups)
        except Unbound:
            return None
    rx = compiled.regex
    for p in range(1, min(before, len(text))):
        a, b = text[p - 1], text[p]
        if a in b" \t" or b in b" \t" or (48 <= a <= 57 and 48 <= b <= 57):
            continue
        cand = text[:p] + b" " + text[p:] + b"\n"
        m = rx.fullmatch(cand)
        if m is not None and run_checks(g, compiled, m, cand, dict(params), bind=True) is None:
            return p
    return None


def explain(g: Grammar, node: Line, text: bytes, has_nl: bool, line_no: int, params: dict,
            compiled: Compiled | None = None) -> Divergence:
    """The first divergence of TEXT from what NODE prints for the values TEXT holds. When one
    missing blank earlier in the line explains it exactly, that is the divergence reported."""
    d = _explain(g, node, text, has_nl, line_no, params)
    if d.kind == "missing-newline":
        return d
    p = missing_blank(g, node, text, params, d.column - 1, compiled)
    if p is None:
        return d
    repaired = text[:p] + b" " + text[p:]
    res = loose_walk(node, repaired, g)
    try:
        _, spans = render_line_spans(node, res.values, params, g)
        fname = field_at(spans, p)
    except Exception:  # noqa: BLE001 - the field name is a courtesy
        fname = None
    kind, severity = classify(repaired, text, p + 1, node.header)
    return Divergence(line_no, p + 1, repaired, text, fname, severity, kind, actual_has_newline=has_nl,
                      note="a blank is missing here: with one space inserted the line is exact")


def _explain(g: Grammar, node: Line, text: bytes, has_nl: bool, line_no: int, params: dict) -> Divergence:
    res = loose_walk(node, text, g)
    values = res.values
    try:
        expected, spans = render_line_spans(node, values, params, g)
    except Exception:  # noqa: BLE001
        values = example_values(node, g)
        values.update({k: v for k, v in res.values.items() if not isinstance(v, list)})
        try:
            expected, spans = render_line_spans(node, values, params, g)
        except Exception:  # noqa: BLE001
            expected, spans = render_line_spans(node, example_values(node, g), params, g)
    expected = expected[:-1]  # without its newline
    col = first_difference(expected, text)
    if col is None:
        if not has_nl:
            return Divergence(line_no, len(text) + 1, expected, text, None, "breaking", "missing-newline",
                              actual_has_newline=False, note="the last line has no newline")
        name, col = domain_violation(g, node, values, spans)
        return Divergence(line_no, col, expected, text, name, "breaking", "value",
                          note="a value outside its field's domain")
    fname = field_at(spans, col - 1)
    kind, severity = classify(expected, text, col, node.header)
    return Divergence(line_no, col, expected, text, fname, severity, kind, actual_has_newline=has_nl)


def first_difference(a: bytes, b: bytes) -> int | None:
    """1-based column of the first differing byte, or None when equal."""
    if a == b:
        return None
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i + 1
    return n + 1


def field_at(spans, offset: int) -> str | None:
    """The field rendered at OFFSET, or the one just before it (the value whose padding is off)."""
    before = None
    for sp in spans:
        if sp.start <= offset < sp.end and sp.field:
            return sp.field
        if sp.start <= offset < sp.end and not sp.field:
            return before if offset == sp.start and before else None
        if sp.field:
            before = sp.field
    return before


def domain_violation(g: Grammar, node: Line, values: dict, spans) -> tuple[str | None, int]:
    for f in line_fields(node):
        v = values.get(f.name)
        dom = field_domain(f, g)
        for x in v if isinstance(v, list) else [v]:
            if dom.numeric and isinstance(x, int) and not dom.min <= x <= dom.max:
                start = next((sp.start for sp in spans if sp.field and sp.field.split("[")[0] == f.name), 0)
                return f.name, start + 1
    return None, 1


_SPACES = re.compile(rb" +")


def classify(expected: bytes, actual: bytes, col: int, header: bool) -> tuple[str, str]:
    """(kind, severity) of a divergence. Only a change in how many spaces separate the same tokens
    is cosmetic (consumers split on whitespace); headers, tabs, glued or split tokens, zero padding
    and anything else is breaking (../shared/docs/consumers.md)."""
    i = col - 1
    e = expected[i : i + 1]
    a = actual[i : i + 1]
    same_tokens = _SPACES.sub(b" ", expected).strip(b" ") == _SPACES.sub(b" ", actual).strip(b" ")
    if header:
        return "header", "breaking"
    if same_tokens:
        return "width", "cosmetic"
    if {e, a} == {b" ", b"\t"}:
        return "separator", "breaking"
    if not a and e:
        return "missing-text", "breaking"
    if not e and a:
        return "extra-text", "breaking"
    if expected.replace(b" ", b"") == actual.replace(b" ", b"") or e in (b" ", b"\t") or a in (b" ", b"\t"):
        if e.isdigit() and a == b"0" or a.isdigit() and e == b" " and _zero_padded(actual, i):
            return "value", "breaking"
        return "separator", "breaking"
    return "value", "breaking"


def _zero_padded(actual: bytes, i: int) -> bool:
    return actual[i : i + 1] == b"0" and actual[i + 1 : i + 2].isdigit()


# --------------------------------------------------------------------------------------------------
# The command


def match_capture(path: str, grammar: Grammar, variants: dict | None = None, collect: bool = False) -> MatchOutcome:
    """Match one capture file against a grammar (streaming)."""

    def opener() -> Reader:
        return Reader(open_capture(path), path)

    return _match(opener, grammar, variants, collect)


def match_bytes(data: bytes, grammar: Grammar, variants: dict | None = None, collect: bool = False) -> MatchOutcome:
    """The same for bytes already in memory (tests, and the engine's own captures)."""
    import io

    return _match(lambda: Reader(io.BytesIO(data), "<bytes>"), grammar, variants, collect)


def _match(opener, grammar: Grammar, variants: dict | None, collect: bool, **kw) -> MatchOutcome | None:
    reader = opener()
    try:
        out = Matcher(grammar, reader, variants, collect, **kw).run()
    finally:
        reader.f.close()
    if kw or out is None or out.cost < 2 or not out.alternatives:
        return out
    return _majority(opener, grammar, variants, collect, out)


def _majority(opener, grammar: Grammar, variants: dict | None, collect: bool, out: MatchOutcome) -> MatchOutcome:
    """The first record decides a capture's layout (its column counts, its kernel-version
    variants). When that record is the odd one, every later record is reported instead of it. So
    a capture that diverges in several places gets a second try with each alternative layout on
    the lines up to its third divergence; the one with the fewest divergences there, if better,
    is tried on the whole capture and kept if it reports fewer divergences in all."""
    import io

    lines = sorted(d.line for d in out.divergences)
    upto = lines[min(len(lines), PREFIX_DIVERGENCES) - 1] if lines else 0
    prefix = _prefix(opener, upto)
    if prefix is None:
        return out
    base = Matcher(grammar, Reader(io.BytesIO(prefix), "<prefix>"), variants, False).run()
    best, best_count = None, base.cost
    for params, forced in out.alternatives[:MAX_ALTERNATIVES]:
        if best_count == 0:
            break
        trial = Matcher(grammar, Reader(io.BytesIO(prefix), "<prefix>"), {**(variants or {}), **forced},
                        False, params=params, max_divs=best_count - 1).run()
        if trial is not None and trial.cost < best_count:
            best, best_count = (params, forced), trial.cost
    if best is None:
        return out
    params, forced = best
    full = _match(opener, grammar, {**(variants or {}), **forced}, collect, params=params,
                  max_divs=out.cost - 1)
    if full is None:
        return out
    full.notes.append("the first lines disagree with the layout the rest of the capture shows; "
                      "they are reported against it")
    return full


def _prefix(opener, lines: int) -> bytes | None:
    """The first LINES lines of the capture (None when that is more than MAX_PREFIX bytes)."""
    reader = opener()
    try:
        pos = 0
        for _ in range(lines):
            reader.ensure(pos, 1)
            if reader.eof and pos >= reader.end:
                break
            text, nl = reader.line_at(pos)
            pos += len(text) + (1 if nl else 0)
            if pos > MAX_PREFIX:
                return None
            reader.keep = 0
        reader.ensure(0, pos)
        return reader.buf[:pos] if reader.base == 0 else None
    finally:
        reader.f.close()


def outcome_result(subject: str, out: MatchOutcome) -> Result:
    verdict = "divergent" if out.divergences else "equivalent"
    notes = list(out.notes)
    if out.truncated:
        notes.append(f"{out.truncated} more divergences not shown")
    chosen = describe_variants(out.grammar, out.variants)
    if chosen:
        notes.append("layout: " + "; ".join(chosen))
    return Result(subject=subject, verdict=verdict, method="tested", cases=out.lines,
                  divergences=list(out.divergences), notes=notes,
                  extra={"grammar": out.grammar.name})


def describe_variants(g: Grammar, variants: dict) -> list[str]:
    out = []
    for v in g.variants:
        cands = variants.get(v.uid)
        if cands and len(cands) == 1 and v.labels[cands[0]] not in ("", "present"):
            out.append(f"{v.name} = {v.labels[cands[0]]}")
    return out


def check_bytes(data: bytes, grammar: str | Grammar, subject: str = "<bytes>") -> Result:
    g = load_grammar(grammar) if isinstance(grammar, str) else grammar
    return outcome_result(subject, match_bytes(data, g))


def check_captures(paths: list[str], options: Options) -> Report:
    """`fmtcheck check CAPTURE... [--grammar NAME]`: one result per capture."""
    report = Report(command="check")
    for path in paths:
        g = grammar_for(path, options.grammar)
        report.results.append(outcome_result(path, match_capture(path, g)))
    return report
