"""Matching optional lines, choices and kernel-version variants, and tolerating extra or missing lines.
"""

from __future__ import annotations

from fmtcheck.common.result import Divergence
from fmtcheck.layout.explain import MAX_REPAIR_LINE, exact_with_newline, explain, render_expected
from fmtcheck.layout.lookahead import first_lines, follow_first
from fmtcheck.layout.matchstate import MAX_DIVERGENCES, State
from fmtcheck.layout.model import (
    Choice,
    Line,
    Optional,
    Variant,
)
from fmtcheck.layout.render import example_values

MAX_STRIPPED = 64  # trailing blanks a stripped header line may have lost


class ChoiceMatcher:
    """Option, choice and variant matching of `Matcher`."""

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

    def follow_matches(self, rest, st: State) -> bool:
        """Does what comes after the current node match exactly here (or is the capture over)?"""
        lines, nullable = follow_first(rest, st)
        if nullable and self.r.at_eof(st.pos):
            return True
        return any(self.exact(line, st) is not None for line in lines) or self.last_line_follows(lines, st)

    def last_line_follows(self, lines: list, st: State) -> bool:
        """Is the line at st.pos the capture's last, without its newline, and one of LINES once
        the newline is put back? Then it is what follows (reported as a missing newline there),
        not one more record or option read against placeholder values."""
        text, nl = self.r.line_at(st.pos)
        if nl or not self.r.at_eof(st.pos + len(text)):
            return False
        return any(line.newline and exact_with_newline(self.g, line, text, st.params, self.compiled(line, st.params))
                   for line in lines)

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
        what = "an empty line" if not text else "a line"
        self.add(Divergence(st.line, 1, b"", text, None, "breaking", "extra-line",
                            expected_has_newline=False, actual_has_newline=nl,
                            note=f"{what} the layout does not print here: the next line is the layout's"))
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
        if self.stripped_line(node, st, text, nl):
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

    def stripped_line(self, node: Line, st: State, text: bytes, nl: bool) -> bool:
        """A line that is exact once the trailing blanks it lost are put back (a copy through a
        tool that strips lines): report it on that line, as a header divergence for a header and as
        a cosmetic width for a row (readers split on whitespace), and bind what the line sets (a
        header's column count, its width) so that what follows is still checked against it."""
        comp = self.compiled(node, st.params)
        if comp is None or text[-1:] in (b" ", b"\t") or len(text) > MAX_REPAIR_LINE:
            return False
        for n in range(1, MAX_STRIPPED + 1):
            cand = text + b" " * n + b"\n"
            params = dict(st.params)
            if not comp.line_fullmatch(self.g, cand, params):
                continue
            if node.header:
                self.add(Divergence(st.line, len(text) + 1, cand[:-1], text, None, "breaking", "header",
                                    actual_has_newline=nl,
                                    note=f"the header's {n} trailing blank(s) were stripped; the rows are "
                                         "checked against the header with them"))
            else:
                self.add(Divergence(st.line, len(text) + 1, cand[:-1], text, None, "cosmetic", "width",
                                    actual_has_newline=nl,
                                    note=f"the line's {n} trailing blank(s) were stripped (by an editor or a "
                                         "copy?): with them it is exact"))
            if self.collect:
                self.line_roles[st.line] = node.name
            st.params = params
            st.pos += len(text) + (1 if nl else 0)
            st.line += 1
            return True
        return False

    def missing(self, node: Line, st: State, text: bytes, nl: bool) -> Divergence:
        expected = render_expected(self.g, node, example_values(node, self.g), st.params)
        return Divergence(st.line, 1, expected.rstrip(b"\n"), text, node.name, "breaking", "missing-line",
                          actual_has_newline=nl, note=f"line {node.name!r} of the layout is missing here")
