"""Compiling grammar lines to regular expressions, and the checks a regex cannot express (counts,
re-rendering of loosely matched values).
"""

from __future__ import annotations

import functools
import re

from fmtcheck.common.plain import plain
from fmtcheck.layout import dfa
from fmtcheck.layout.model import (
    Domain,
    Field,
    Grammar,
    GrammarError,
    Group,
    Lit,
    Pad,
    Prim,
    line_fields,
)
from fmtcheck.layout.regexes import (
    DIGITS,
    as_bytes,
    atomic_number,
    number_regex,
    pad_regex,
    rx_lit,
    string_regex,
)
from fmtcheck.layout.render import field_domain, render_field

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Any


class Unbound(Exception):
    """A line refers to a parameter that has no value yet and cannot be bound by this line."""


@plain
class Check:
    """A constraint the regex could not express, checked on the match: a pad column, a field to
    re-render, a count to bind or compare, a field value to bind."""

    kind: str  # pad | verify | count | bindstar | bind
    group: str
    item: Any
    extra: Any = None


@plain
class Compiled:
    pattern: str
    checks: list
    groups: dict  # field name -> group name (top-level, non-repeated fields)
    dfa_uses: int = 0  # single lines decided by the DFA (matcher.dfa_line)
    prefix: bytes = b""  # the bytes every match starts with (`literal_prefix`), b"" when not known

    @functools.cached_property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern.encode("latin-1"), re.S)

    def line_fullmatch(self, grammar: Grammar, line: bytes, params: dict) -> bool:
        """Does LINE (one whole line, its newline last) match this regex and its checks? PARAMS
        gets what the checks bind. Answered by the DFA when there are no checks and this
        process has already built the line's plan (`dfa.plan_built`): the same answer (a plan
        exists only for a one-line regex with exactly the same matches, and a match of one line
        ends at its newline), without compiling the regex, which a rejected variant's lines
        (explained while it is tried) would otherwise each cost. A LINE that does not start with
        the literal text every match starts with is refused before anything is compiled (the
        first smaps record tries its 3.x field order, whose lines are each explained: ~20 regex
        compiles for lines that never start with their label)."""
        if not line.startswith(self.prefix):
            return False  # no match can start otherwise: the regex need not be compiled to say so
        if (not self.checks and "regex" not in self.__dict__ and line.find(b"\n") == len(line) - 1
                and dfa.plan_built(self.pattern)):
            plan = self.line_plan
            if plan is not None:
                return plan.end(line, 0, len(line)) == len(line)
        m = self.regex.fullmatch(line)
        return m is not None and run_checks(grammar, self, m, line, params, bind=True) is None

    @functools.cached_property
    def line_plan(self) -> dfa.LinePlan | None:
        """The DFA form of a one-line regex (`dfa.plan_for`), kept with it: a capture with many
        distinct lines never translates or compiles one twice."""
        return dfa.plan_for(self.pattern)


class LineCompiler:
    """Builds the exact regex of item sequences under the current parameter bindings."""

    def __init__(self, grammar: Grammar, params: dict, prefix: str = "g", capture: bool = True,
                 keep: frozenset | set | None = None) -> None:
        self.g = grammar
        self.keep = keep  # None: a named group for every field; else only for these (and checks)
        self.params = params
        self.prefix = prefix
        self.n = 0
        self.checks: list[Check] = []
        self.groups: dict[str, str] = {}
        self.capture = capture
        self.bind_names = binding_names(grammar)

    def gname(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n}"

    def items(self, items, follow: bytes | None) -> str:
        parts = []
        for i, item in enumerate(items):
            nxt = _first_byte(items[i + 1 :], follow)
            parts.append(self.item(item, nxt))
        return "".join(parts)

    def item(self, item, follow: bytes | None) -> str:
        if isinstance(item, Lit):
            return rx_lit(item.data)
        if isinstance(item, Field):
            return self.field(item, follow)
        if isinstance(item, Pad):
            if not self.capture:
                raise Unbound("pad in a repeated group")
            return pad_regex(item.column, item.char)
        if isinstance(item, Group):
            return self.group(item, follow)
        options = [self.items(o, follow) for o in item.options]
        return "(?:" + "|".join(options) + ")"

    def group(self, group: Group, follow: bytes | None) -> str:
        if group.repeat == "?":
            return "(?:" + self.items(group.items, follow) + ")?"
        inner = LineCompiler(self.g, self.params, self.prefix + "r", capture=False)
        body = inner.items(group.items, _repeat_follow(group.items, follow))
        count = self.params.get(group.count) if group.count else None
        # Possessive when what follows the group (a fixed byte, not a letter or digit) cannot start
        # another repetition: giving repetitions back could not help then, and a possessive repeat
        # keeps no backtracking state per repetition (a 10 MB line of counters stays small).
        again = _first_byte(group.items, None)
        possessive = "+" if again is not None and follow is not None and not follow.isalnum() and follow != again else ""
        if count is not None:
            rx = f"(?:{body}){{{int(count)}}}{possessive}"
        else:
            rx = f"(?:{body})" + ("*" if group.repeat == "*" else "+") + possessive
        if (group.count and count is None) or inner.checks:
            if not self.capture:
                raise Unbound(f"count {group.count} inside a repeated group")
            g = self.gname()
            self.checks.append(Check("count", g, group, body))
            return f"(?P<{g}>{rx})"
        return rx

    def field(self, f: Field, follow: bytes | None) -> str:
        if f.same_as is not None:
            if f.same_as in self.params:
                return rx_lit(as_bytes(self.params[f.same_as]))
            if f.same_as in self.groups:
                return f"(?P={self.groups[f.same_as]})"
            raise Unbound(f"{f.name} refers to {f.same_as}")
        rx, verify = self.field_regex(f, follow)
        if rx is None:
            raise Unbound(f"{f.name}: width parameter {f.star[0]} unbound")
        if not self.capture and verify:
            raise Unbound(f"{f.name} needs a check inside a repeated group")
        if not self.capture:
            return rx
        if (self.keep is not None and f.name not in self.keep and not verify
                and f.star is None and f.name not in self.bind_names):
            return rx  # a field nobody reads back: no group, which matches faster
        g = self.gname()
        self.groups[f.name] = g
        if verify:
            self.checks.append(Check("verify", g, f))
        if f.star is not None and f.star[0] not in self.params:
            self.checks.append(Check("bindstar", g, f))
        if f.name in self.bind_names:
            self.checks.append(Check("bind", g, f))
        return f"(?P<{g}>{rx})"

    def field_regex(self, f: Field, follow: bytes | None) -> tuple[str | None, bool]:
        """(regex, needs_verify) for one field under the current bindings."""
        dom = field_domain(f, self.g)
        spec = f.spec
        if isinstance(spec, Prim):
            mode = "zero" if spec.kind == "hex" else "right"
            base = 16 if spec.kind == "hex" else 10
            width = max(spec.width, 1) if spec.kind in ("ullw", "hex") else 1
            rx = number_regex(base, False, dom.min, dom.max, width, mode)
            return rx_lit(spec.delim) + atomic_number(rx, follow, DIGITS[base], not self.capture), False
        d = spec.parsed
        if d.conversion == "p":  # %*pb, %*pbl: the '*' is a bit count, the text is the domain
            return "(?:" + dom.regex.decode("latin-1") + ")", False
        width = d.width if d.width is not None else 0
        if d.width_star:
            if f.star is None:
                raise GrammarError(self.g.name, f"field {f.name}: '*' width needs *=@param")
            if f.star[0] not in self.params:
                if d.conversion == "s" and dom.max_len == 0:
                    return " *", False
                return None, False
            width = int(self.params[f.star[0]]) + f.star[1]
        left = bool(d.flags & 2)
        if d.conversion in "diuoxX":
            return self.integer_regex(d, dom, width, left, follow)
        if d.conversion == "p":
            return "(?:" + dom.regex.decode("latin-1") + ")", False
        if d.conversion == "%":
            return "%", False
        rx = string_regex(dom, width, left, d.precision)
        if rx is None:
            return _loose_string(dom, left), True
        cs = dom.charset
        atomic = cs is not None and follow is not None and not re.fullmatch(cs, follow)
        return (f"(?>{rx})" if atomic else rx), False

    def integer_regex(self, d, dom: Domain, width: int, left: bool, follow) -> tuple[str, bool]:
        flags = d.flags
        base = d.base
        upper = d.conversion == "X"
        simple = d.precision is None and not flags & (4 | 8)  # no precision, PLUS, SPACE
        if simple and flags & 64:  # SPECIAL: only "%#x" with no width is common ("0x" + digits)
            if base == 16 and width <= 2 and dom.min >= 0:
                prefix = "0X" if upper else "0x"
                rx = number_regex(16, upper, 0, dom.max, 1, "right")
                return prefix + atomic_number(rx, follow, DIGITS[16], not self.capture), False
            simple = False
        if not simple:
            return _loose_number(left), True
        mode = "left" if left else ("zero" if flags & 16 else "right")
        rx = number_regex(base, upper, dom.min, dom.max, max(width, 1), mode)
        return atomic_number(rx, follow, DIGITS[base] + ("ABCDEF" if upper else ""), not self.capture), False


def _loose_number(left: bool) -> str:
    return r" *[-+ ]?(?:0[xX])?[0-9a-fA-F]+" + (" *" if left else "")


def _loose_string(dom: Domain, left: bool) -> str:
    core = dom.regex.decode("latin-1")
    return f" *(?:{core})" + (" *" if left else "")


def _repeat_follow(items, follow: bytes | None) -> bytes | None:
    """What follows the last item of a repeated group: its own first byte again, or what follows
    the group. Only a byte that is the same kind (not a letter or digit) in both cases will do."""
    again = _first_byte(items, None)
    if again is None or follow is None or again.isalnum() or follow.isalnum():
        return None
    return again


def _first_byte(items, follow: bytes | None) -> bytes | None:
    """The byte that must come right after an item, when a literal fixes it."""
    for item in items:
        if isinstance(item, Lit):
            if item.data:
                return item.data[:1]
            continue
        if isinstance(item, Field) and isinstance(item.spec, Prim) and item.spec.delim:
            return item.spec.delim[:1]
        return None
    return follow


@functools.lru_cache(maxsize=None)
def binding_names(grammar: Grammar) -> frozenset:
    """Fields other fields refer to with `=name`: their values are bound when matched."""
    names = set()
    for line in grammar.lines:
        for f in line_fields(line):
            if f.same_as:
                names.add(f.same_as)
    return frozenset(names)


def literal_prefix(items) -> bytes:
    """The bytes every rendering of ITEMS starts with: its leading literals (`Lit`, matched as
    they are, `rx_lit`), up to the first item of another kind."""
    out = []
    for item in items:
        if not isinstance(item, Lit):
            break
        out.append(item.data)
    return b"".join(out)


def compile_items(grammar: Grammar, items, params: dict, prefix: str = "g") -> Compiled:
    """The exact regex of a line's items (newline included) under PARAMS. Raises Unbound."""
    comp = LineCompiler(grammar, params, prefix)
    pattern = comp.items(items, b"\n") + r"\n"
    return Compiled(pattern, comp.checks, comp.groups)


def run_checks(grammar: Grammar, compiled: Compiled, m: re.Match, buf: bytes, params: dict,
               bind: bool) -> str | None:
    """Apply the checks the regex could not express. Returns the failing field name, or None.
    With BIND, parameters and referenced values found on this match are stored in PARAMS."""
    for check in compiled.checks:
        start = m.start(check.group)
        if start < 0:
            continue
        text = m.group(check.group)
        if check.kind == "pad":
            col = start - (buf.rfind(b"\n", 0, start) + 1)
            if len(text) != max(0, check.item.column - col):
                return "pad"
        elif check.kind == "verify":
            if not _verify_field(grammar, check.item, text, params):
                return check.item.name
        elif check.kind == "count":
            failed = _check_count(grammar, check, text, params, bind)
            if failed:
                return failed
        elif check.kind == "bindstar" and bind:
            param, offset = check.item.star
            params[param] = len(text) - offset
        elif check.kind == "bind" and bind:
            params[check.item.name] = text
    return None


def _check_count(grammar: Grammar, check: Check, text: bytes, params: dict, bind: bool) -> str | None:
    group: Group = check.item
    # each repetition must be followed by another one or by the end of the group's text: the
    # repeated body need not be self-delimiting (a number may stop early, see atomic_number)
    rx = _compiled_rx(f"(?:{check.extra})(?=(?:{check.extra})|\\Z)")
    pos = n = 0
    while pos < len(text):
        m = rx.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        n += 1
    if group.count:
        if group.count in params and int(params[group.count]) != n:
            return group.count
        if bind:
            params[group.count] = n
    return None


@functools.lru_cache(maxsize=256)
def _compiled_rx(pattern: str) -> re.Pattern:
    return re.compile(pattern.encode("latin-1"), re.S)


def parse_value(f: Field, text: bytes, grammar: Grammar | None = None):
    """The value a field's rendered text stands for (ints for numbers, bytes otherwise)."""
    dom = field_domain(f, grammar)
    spec = f.spec
    if isinstance(spec, Prim):
        text = text[len(spec.delim):] if text.startswith(spec.delim) else text
        return _parse_int(text, 16 if spec.kind == "hex" else 10)
    d = spec.parsed
    if d.conversion in "diuoxX":
        return _parse_int(text, d.base)
    if d.conversion == "c":
        t = text.strip(b" ")
        return t[0] if t else 0
    if d.conversion == "s" and dom.charset is not None and not re.fullmatch(dom.charset, b" "):
        return text.strip(b" ")
    if d.conversion == "s" and d.width_star and dom.max_len == 0:
        return text  # padding only (%*s of ""): its width is the parameter's, or sets it
    if d.conversion == "s" and (d.width or d.width_star):
        return text.lstrip(b" ") if not d.flags & 2 else text.rstrip(b" ")
    return text


def _parse_int(text: bytes, base: int) -> int:
    t = text.strip(b" \t")
    neg = t.startswith(b"-")
    t = t.lstrip(b"+- ")
    if t[:2] in (b"0x", b"0X"):
        t = t[2:]
    if not t:
        raise ValueError("no digits")
    n = int(t, base)
    return -n if neg else n


def _verify_field(grammar: Grammar, f: Field, text: bytes, params: dict) -> bool:
    """A loosely matched field conforms if rendering its parsed value gives the same bytes."""
    try:
        value = parse_value(f, text, grammar)
        return render_field(f, value, params) == text
    except (ValueError, TypeError, IndexError):
        return False
