"""Matching repeated records: one record at a time, or in bulk with one regex per block of lines.
"""

from __future__ import annotations

import functools
import re

from fmtcheck.layout import dfa, halves, native, reader
from fmtcheck.layout.compiler import Compiled, LineCompiler, Unbound, run_checks
from fmtcheck.layout.lookahead import (
    as_key,
    block_params,
    first_lines,
    key_text,
    leading_keys,
    line_params,
)
from fmtcheck.layout.matchstate import KeyRun, State
from fmtcheck.layout.model import (
    Choice,
    Line,
    Optional,
    Records,
    Variant,
)


DFA_MIN_BYTES = 1 << 20  # bytes ahead from which records are matched by the DFA (its setup costs ~50 ms)


@functools.lru_cache(maxsize=64)
def bulk_regex(pattern: str) -> re.Pattern | None:
    """PATTERN (one record) repeated possessively, compiled once per process (diff matches two
    captures with the same records)."""
    try:
        return re.compile(b"(?:(" + pattern.encode("latin-1") + b"))*+", re.S)
    except (re.error, UnicodeEncodeError, RecursionError, OverflowError):
        return None


class RecordMatcher:
    """Record-loop matching of `Matcher`."""

    def records_loop(self, node: Records, st: State, rest) -> bool:
        top = self.committed
        while not self.r.at_eof(st.pos):
            if top:
                self.r.keep = st.pos
            if self.bulk and self.fast_records(node, st, top):
                continue
            before = set(st.params)
            trial = self.speculate(node.body, st, ([node], rest))
            if trial is not None and trial.state.pos > st.pos:
                self.note_record(node, st)
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
            self.note_record(node, st)
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

    def note_record(self, node: Records, st: State) -> None:
        if self.collect:
            self.records.append((node.name, self.record_key(node, st)))

    def record_key(self, node: Records, st: State) -> tuple:
        """The record's key: the key fields of its first line, read from the capture."""
        text, _ = self.r.line_at(st.pos)
        firsts = first_lines(node.body, st)
        for line in firsts:
            if self.exact(line, st) is None:
                continue
            comp, m = self.bound_key
            if m is None:  # matched by the DFA (`dfa_line`): no match object
                key = self.leading_key(node, comp, st.pos)
                if key is not None:
                    return key
                m = comp.regex.match(self.r.buf, st.pos - self.r.base)
            key = []
            for name in node.key:
                g = comp.groups.get(name)
                if g and m.group(g) is not None:
                    key.append(key_text(m.group(g)))
            return tuple(key) or (line.name.encode(),)
        res = self.loose(firsts[0], st.pos, text) if firsts else None
        if res is not None:
            key = tuple(as_key(res.values.get(k)) for k in node.key if res.values.get(k) is not None)
            if key:
                return key
        return (text.split(b" ")[0] if text.strip() else b"?",)

    def fast_records(self, node: Records, st: State, top: bool) -> bool:
        """Match as many whole records as possible, back to back, once the record's layout is
        settled: all of a window's records in one call of the repeated regex when nothing is
        collected per record, else one call each. True when at least one record matched."""
        comp = self.fast_regex(node, st)
        if comp is None:
            return False
        checks = comp.checks
        if not checks and (not self.collect or self.dfa_keys(node, comp) is not None):
            for bulk_lines in (native.match_records, RecordMatcher.dfa_lines):  # C, else RE2, else re below
                matched, refused = bulk_lines(self, comp, st, top, node)
                if matched or refused:
                    return matched
        keys = [comp.groups[k] for k in node.key if k in comp.groups] if self.collect else None
        name = node.name
        nkeys = len(keys or ())
        unnamed = (name.encode(),)
        append = self.records.append
        params = st.params
        if keys is None and not checks:
            bulk = self.bulk_regex(comp)
            if bulk is not None:
                return self.bulk_records(bulk, st, top, comp)
        match = comp.regex.match

        def one_call_each(buf: bytes, rel: int, limit: int) -> tuple[int, bool]:
            while rel < len(buf):
                m = match(buf, rel)
                if m is None:
                    return rel, rel > limit  # perhaps cut short by the end of the window
                end = m.end()
                if end == rel:
                    break
                if end > limit:
                    return rel, True  # too close to the end of the window to be sure: read on
                if checks and run_checks(self.g, comp, m, buf, params, bind=False) is not None:
                    break
                if keys is not None:
                    if nkeys == 1:
                        key = (key_text(m.group(keys[0]) or b""),)
                    elif nkeys:
                        key = tuple([key_text(v or b"") for v in m.group(*keys)])
                    else:
                        key = unnamed
                    append((name, key))
                rel = end
            return rel, False

        return self.over_windows(st, top, one_call_each)

    def over_windows(self, st: State, top: bool, step) -> bool:
        """Run STEP(buf, start, limit) -> (end, need_more) over the window from st.pos, reading
        on while it needs more: records are accepted up to LIMIT, MARGIN bytes short of the
        window's end (unless the file ends there). Moves st past what matched; True if anything did."""
        r = self.r
        matched = False
        while True:
            if top:
                r.keep = st.pos
            r.ensure(st.pos, reader.MARGIN + 1)
            buf, base = r.buf, r.base
            start = st.pos - base
            limit = len(buf) if r.eof else len(buf) - reader.MARGIN
            end, need_more = step(buf, start, limit)
            if end > start:
                matched = True
                st.line += buf.count(b"\n", start, end)
                st.pos = base + end
            if not need_more:
                return matched
            if top:
                r.keep = st.pos
            r.ensure(st.pos, r.end - st.pos + 1)  # one more chunk

    def dfa_keys(self, node: Records, comp: Compiled) -> int | None:
        """When records are collected with their keys: the byte that ends the key at the start of
        each line (`dfa.leading_key_end`), or None (the DFA is then not used)."""
        if len(node.key) != 1 or node.key[0] not in comp.groups:
            return None
        return dfa.leading_key_end(comp.pattern, comp.groups[node.key[0]])

    def leading_key(self, node: Records, comp: Compiled, pos: int) -> tuple | None:
        """The key of the one-line record at POS that COMP matched, read as the text before the
        byte that ends the key (`dfa.leading_key_end`): what the key's group holds. None when the
        pattern is not of that form."""
        stop = self.dfa_keys(node, comp)
        if stop is None:
            return None
        rel = pos - self.r.base
        return (key_text(self.r.buf[rel:self.r.buf.index(bytes([stop]), rel)]),)

    def note_lines(self, node: Records, buf: bytes, start: int, end: int, stop_byte: int) -> None:
        """Collect the one-line records of buf[start:end], keyed by the text before STOP_BYTE."""
        keys = native.line_keys(buf, start, end, stop_byte)
        if keys is None:  # every line has STOP_BYTE (it matched)
            found = leading_keys(stop_byte).findall(buf, start, end)
            keys = b"\n".join(found) + b"\n" if found else b""
        self.records.append(KeyRun(node.name, keys))

    def dfa_lines(self, comp: Compiled, st: State, top: bool, node: Records) -> tuple[bool, bool]:
        """Match one-line records by the DFA (`dfa`), a window of whole lines per call, while
        DFA_MIN_BYTES or more are ahead. Returns (whether at least one record matched, whether the
        line now at st.pos is one the record regex refuses: the DFA's answer is exact, so that
        line is left to the line-by-line matcher, which explains it). Otherwise (no DFA, a last
        line without its newline) the regex loop of fast_records goes on from st.pos."""
        r = self.r
        r.ensure(st.pos, DFA_MIN_BYTES)
        if r.end - st.pos < DFA_MIN_BYTES:
            return False, False
        plan = comp.line_plan
        if plan is None:
            return False, False
        matched = False
        while True:
            if top:
                r.keep = st.pos
            r.ensure(st.pos, DFA_MIN_BYTES)
            buf, base = r.buf, r.base
            start = st.pos - base
            stop = len(buf) if r.eof and buf.endswith(b"\n") else buf.rfind(b"\n", start) + 1
            if stop <= start:
                return matched, False
            end = plan.end(buf, start, stop)
            if end > start:
                matched = True
                if self.collect:
                    self.note_lines(node, buf, start, end, self.dfa_keys(node, comp))
                st.line += buf.count(b"\n", start, end)
                st.pos = base + end
            if end < stop or r.eof:
                return matched, end < stop
            r.ensure(st.pos, r.end - st.pos + 1)  # every whole line matched: one more chunk

    def bulk_records(self, bulk: re.Pattern, st: State, top: bool, comp: Compiled | None = None) -> bool:
        """fast_records when nothing is checked or collected per record: the repeated regex alone,
        so that the record's own regex is never compiled (a 16 kB smaps record takes 30-40 ms).

        Per window, the records matched with the view cut at LIMIT are kept but the last (it may
        have been read short of a line beyond LIMIT); from that one's start the repeated regex runs
        again with the whole window in view. Each repetition takes the record regex's first match
        where the previous one ended (nothing follows the repeat, so it never gives one back), so
        these are the records one call per record finds. When they all end by LIMIT, the next
        record does not match with MARGIN bytes in view: the records stop there, as one call per
        record would stop. When they run past LIMIT, the window is read on and they are matched
        again from that start, which the loop one call per record would reach after its records
        ending by LIMIT: the same records and the same stop, found a little later. A large capture's
        second half may be matched by a child meanwhile (`second_half_records`)."""
        start_pos = st.pos
        if top and comp is not None:
            met = self.second_half_records(bulk, st, comp)
            if met is not None:
                return met

        def repeated(buf: bytes, start: int, limit: int) -> tuple[int, bool]:
            rel = self.bulk_skip(bulk, buf, start, limit) if start < limit else start
            m = bulk.match(buf, rel)
            end = rel if m is None else m.end()
            if end > limit:
                return rel, True  # records beyond LIMIT: matched again once the window holds more
            return end, False

        return self.over_windows(st, top, repeated) or st.pos != start_pos

    def second_half_records(self, bulk: re.Pattern, st: State, comp: Compiled) -> bool | None:
        """Records matched in bulk up to where a child's (`halves`) meet them: True when they met,
        st then at the child's stop; None when there is no child for these records or they did
        not meet (the caller matches on from st, which may have moved to a record start)."""
        half = self.half
        if half is None:
            middle = None if self.half_tried else halves.can_split(self.r.f, st.pos)
            self.half_tried = True
            if middle is None:
                return None
            where = self.r.where
            half = self.half = halves.SecondHalf.start(
                self.r.f, middle, comp.pattern, lambda f, mid: second_half(where, f, mid, comp.regex, bulk))
            if half is None:
                return None
        if half.pattern != comp.pattern:
            return None  # other records (another binding): the child's may come later
        if st.pos >= half.meet:
            self.drop_half()
            return None
        if not self.over_windows_to(bulk, st, half.meet):
            return None  # the records stopped before MEET: the child's may still be met later
        self.half = None
        res = half.result()
        if res is None or st.pos not in res.starts:
            return None
        st.line += res.stop_line - res.starts[st.pos]
        self.r.skip_to(res.stop)
        st.pos = res.stop
        return True

    def over_windows_to(self, bulk: re.Pattern, st: State, meet: int) -> bool:
        """Match in bulk from st.pos and stop at the last record start before MEET (True), or where
        the records stop before it (False): `bulk_records` with the view cut at MEET as well."""
        reached = False

        def upto(buf: bytes, start: int, limit: int) -> tuple[int, bool]:
            nonlocal reached
            cut = min(limit, meet - self.r.base)
            rel = self.bulk_skip(bulk, buf, start, cut) if start < cut else start
            m = bulk.match(buf, rel)
            end = rel if m is None else m.end()
            if end <= cut:
                return end, False  # the records stop before MEET (or read on, as bulk_records does)
            if cut < limit:
                reached = True  # REL: the last record start before MEET
                return rel, False
            return rel, True

        self.over_windows(st, True, upto)
        return reached

    def drop_half(self) -> None:
        if self.half is not None:
            self.half.cancel()
            self.half = None

    def bulk_regex(self, comp: Compiled) -> re.Pattern | None:
        """The record's regex repeated: one call matches every record of a window back to back
        (no per-record Python work); group 1 is the last record it matched."""
        return bulk_regex(comp.pattern)

    @staticmethod
    def bulk_skip(bulk: re.Pattern, buf: bytes, rel: int, limit: int) -> int:
        """Where the records matched in bulk from REL end, the last one excepted: the view ends at
        LIMIT, so the last record may have been read short of a line beyond it (the per-record loop
        matches it again with the whole window in view)."""
        m = bulk.match(buf, rel, limit)
        if m is None or m.start(1) < 0:
            return rel
        return m.start(1)

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
            c = LineCompiler(self.g, st.params, "f", keep=frozenset(node.key) if self.collect else frozenset())
            pattern = self.block_pattern(node.body, c, st, names)
            if pattern is not None:
                comp = Compiled(pattern, c.checks, c.groups)
                if any(ch.kind in ("bindstar", "bind") or ch.kind == "count" and ch.item.count for ch in comp.checks):
                    comp = None
        except Unbound:
            comp = None
        self._fast[key] = comp
        return comp

    def block_pattern(self, nodes: list, c: LineCompiler, st: State, names) -> str | None:
        parts = []
        for node in nodes:
            if isinstance(node, Line):
                for n in line_params(node):
                    if n not in st.params:
                        return None
                parts.append(c.items(node.items, b"\n") + node.end_pattern)
            elif isinstance(node, Optional):
                inner = self.block_pattern(node.body, c, st, names)
                if inner is None:
                    return None
                parts.append(f"(?:{inner})?")
            elif isinstance(node, Variant):
                inner = self.variant_pattern(node, c, st, names)
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

    def variant_pattern(self, node: Variant, c: LineCompiler, st: State, names) -> str | None:
        """The pattern of a variant inside a record: its option once decided; while several are
        still possible (the short counters of a first net/dev row print the same bytes in both
        layouts), a record that every one of them matches, so that bulk matching keeps them all
        possible as the line-by-line matcher would. Only options of single lines are combined, so
        that the options end where the line does."""
        cands = st.variants.get(node.uid)
        if cands is None:
            return None
        if len(cands) == 1:
            return self.block_pattern(node.options[cands[0]], c, st, names)
        options = [node.options[i] for i in cands]
        if not all(len(o) == 1 and isinstance(o[0], Line) for o in options):
            return None
        patterns = [self.block_pattern(o, c, st, names) for o in options]
        if any(p is None for p in patterns):
            return None
        return "".join(f"(?={p})" for p in patterns[:-1]) + patterns[-1]


class HalfMatcher(RecordMatcher):
    """The child's side of `halves`: the same window loops on a reader of its own."""

    def __init__(self, r: reader.Reader) -> None:
        self.r = r
        self.half = None
        self.half_tried = True  # a child forks no other

    def first_start(self, middle: int, regex: re.Pattern) -> int | None:
        """The first line start at or after MIDDLE where the record regex matches."""
        r = self.r
        r.ensure_line(middle - 1)
        nl = r.buf.find(b"\n", middle - 1 - r.base)
        if nl < 0:
            return None
        pos = r.base + nl + 1
        for _ in range(halves.SEARCH_LINES):
            r.keep = pos
            if r.at_eof(pos):
                return None
            text, has_nl = r.line_at(pos)
            if regex.match(r.buf, pos - r.base):
                return pos
            if not has_nl:
                return None
            pos += len(text) + 1
        return None

    def listed_starts(self, regex: re.Pattern, st: State, until: int) -> dict:
        """Record starts from st.pos, one regex call each, up to UNTIL: start -> lines before it."""
        starts = {st.pos: st.line}

        def one_each(buf: bytes, rel: int, limit: int) -> tuple[int, bool]:
            line, base = st.line, self.r.base
            while base + rel < until:
                m = regex.match(buf, rel)
                if m is None or m.end() == rel:
                    return rel, m is None and rel > limit
                end = m.end()
                if end > limit:
                    return rel, True
                line += buf.count(b"\n", rel, end)
                rel = end
                starts[base + rel] = line
            return rel, False

        self.over_windows(st, True, one_each)
        return starts


def second_half(where: str, f: halves.PreadFile, middle: int, regex: re.Pattern,
                bulk: re.Pattern) -> halves.HalfResult | None:
    """In the child: from the first record start after MIDDLE, the starts within SPAN bytes, then
    the records in bulk to where they stop (the parent's own loops, on F read from MIDDLE - 1)."""
    half = HalfMatcher(reader.Reader(f, where, start=middle - 1))
    first = half.first_start(middle, regex)
    if first is None:
        return None
    st = State(pos=first, line=0)
    starts = half.listed_starts(regex, st, middle + halves.SPAN)
    half.bulk_records(bulk, st, True)
    return halves.HalfResult(starts, st.pos, st.line)
