"""Matching settled one-line records in bulk with a linear-time automaton (RE2), where the record's
regex can be written for it with the very same matches.

Python's `re` is a backtracking matcher: a width-exact record regex (a /proc/net/dev row is 8 kB of
alternatives) runs at 50-100 MB/s however it is written. RE2 (the `google-re2` package) runs a
DFA over the bytes, several times faster, and compiles a record's regex in milliseconds instead of
tens. It has no look-around, atomic groups, possessive repeats or back-references, so a record
pattern is translated only when every construct in it has an RE2 form that matches exactly the
same strings, and used only for records that are one line each:

- an atomic group or a possessive repeat is written as a plain group when the byte that must
  follow it is one it can never consume: then every match of it ends at the same place (the first
  such byte), and giving back could not change anything;
- a negative look-ahead of one byte (a number's "no more digits") is dropped when the byte that
  must follow is never one it refuses;
- look-aheads are allowed only at the start of a record, each being a whole line (the way an
  undecided kernel-version variant asks a row to fit every layout still possible): each is run as
  a bulk of its own and the records end where the first of them stops, since a one-line record
  matches the bulk of a line pattern exactly when its line does;
- a record is one line: its regex ends with the newline and nothing before can consume one, so a
  record's match depends on its own line only, and whole lines in the window decide whole records
  (no margin needed, no record cut short).

Anything else (look-behind, a back-reference, an anchor, a flag, a repeat count RE2 refuses) makes
`plan_for` return None and the records are matched by Python's `re` as before. The first record
that does not match in bulk is matched again, and explained, by the line-by-line matcher: verdicts
and messages do not depend on this module or on whether RE2 is installed.
"""

from __future__ import annotations

import functools
import re

from fmtcheck.common.plain import plain
from fmtcheck.layout.gcache import cached_bytes

from re import _constants as C  # noqa: N812 - the opcodes of Python's own regex parse tree
from re import _parser as sre_parse

ALL = (1 << 256) - 1
NEWLINE = 1 << 10
CACHED_FROM = 256  # pattern bytes from which a translation is kept in the per-user cache (`gcache`):
# a 600-byte smaps line takes ~4 ms to translate, ~0.1 ms to read back
RE2_MAX_MEM = 64 << 20  # bytes RE2 may use for one program and its DFA (re2 default: 8 MiB)
_CATEGORIES = {
    C.CATEGORY_DIGIT: sum(1 << b for b in b"0123456789"),
    C.CATEGORY_SPACE: sum(1 << b for b in b" \t\n\r\f\v"),
    C.CATEGORY_WORD: sum(1 << b for b in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}
_CATEGORIES[C.CATEGORY_NOT_DIGIT] = ALL & ~_CATEGORIES[C.CATEGORY_DIGIT]
_CATEGORIES[C.CATEGORY_NOT_SPACE] = ALL & ~_CATEGORIES[C.CATEGORY_SPACE]
_CATEGORIES[C.CATEGORY_NOT_WORD] = ALL & ~_CATEGORIES[C.CATEGORY_WORD]
REFUSED_FLAGS = re.I | re.M | re.X | re.L | re.U | re.A
MAX_COUNT = 1000  # RE2's largest repeat count


class Untranslatable(Exception):
    """The pattern uses a construct with no RE2 form of the same matches."""


SLICE = 1 << 20  # bytes a conjunction of several bulks is matched by at a time


@plain
class LinePlan:
    """Bulk matchers of a one-line record: the record matches where every one of them does."""

    bulks: list

    def end(self, buf: bytes, start: int, stop: int) -> int:
        """Where the run of whole matching lines from START ends (START <= result <= STOP); STOP
        must be a line end (after a newline)."""
        if len(self.bulks) == 1:
            m = self.bulks[0].match(buf, start, stop)
            return start if m is None else m.end()
        while start < stop:  # a slice at a time, so that one bulk does not run far past where another stops
            cut = buf.rfind(b"\n", start, min(stop, start + SLICE)) + 1 if start + SLICE < stop else stop
            cut = cut if cut > start else stop
            end = self._conjunction(buf, start, cut)
            if end < cut:
                return end
            start = cut
        return stop

    def _conjunction(self, buf: bytes, start: int, stop: int) -> int:
        end = stop
        for i, bulk in enumerate(self.bulks):
            m = bulk.match(buf, start, end)
            new = start if m is None else m.end()
            if new < end and i:
                self.bulks.insert(0, self.bulks.pop(i))  # the one that stops first, tried first next time
            end = new
            if end == start:
                break
        return end


@functools.lru_cache(maxsize=1)
def _re2():
    """The `re2` module, imported when a plan is first built (6-8 ms of start-up that a check whose
    records the native matcher takes, or a small capture, never needs); None when not installed
    (every record is then matched by Python's re)."""
    try:
        import re2
    except ImportError:  # pragma: no cover - the project depends on google-re2
        return None
    return re2


def available() -> bool:
    return _re2() is not None


_BUILT: set[str] = set()  # patterns plan_for has answered in this process (kept by its cache)


def plan_built(pattern: str) -> bool:
    """Has plan_for answered for PATTERN in this process? Then asking again costs nothing: no
    translation, no RE2 compile (the inventory of a capture reuses the plans of its check)."""
    return pattern in _BUILT


@functools.lru_cache(maxsize=128)  # a status has 60 lines; a DFA grows (to RE2_MAX_MEM) only as used
def plan_for(pattern: str) -> LinePlan | None:
    """The RE2 plan of a record PATTERN (latin-1 text, compiled with re.S by the matcher), or None
    when RE2 is not installed or the pattern is not a one-line record with exact RE2 forms."""
    if len(_BUILT) >= 128:  # the cache's size: what it may have dropped is no longer known built
        _BUILT.clear()
    _BUILT.add(pattern)
    re2 = _re2()
    if re2 is None:
        return None
    stored = _stored(pattern)
    if stored == UNTRANSLATABLE:
        return None
    conjuncts = stored.split(b"\0")
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False
    try:
        bulks = tuple(re2.compile(b"(?:" + c + b")*", options) for c in conjuncts)
    except re2.error:
        return None
    return LinePlan(list(bulks))


UNTRANSLATABLE = b"-"  # what the cache holds for a pattern with no exact RE2 form


def translatable(pattern: str) -> bool:
    """Has the one-line record PATTERN an exact RE2 form (what plan_for needs), without compiling
    it or importing RE2: the condition under which `matcher.dfa_line` decides a line by a DFA."""
    return _stored(pattern) != UNTRANSLATABLE


@functools.lru_cache(maxsize=128)
def _stored(pattern: str) -> bytes:
    """The RE2 conjuncts of PATTERN joined by NUL, or UNTRANSLATABLE (kept in the per-user cache
    from CACHED_FROM bytes: an smaps line is translated in milliseconds)."""
    try:
        raw = pattern.encode("latin-1")
    except UnicodeEncodeError:
        return UNTRANSLATABLE
    if len(raw) < CACHED_FROM:
        return _translated(raw)
    return cached_bytes("dfa", raw, ("dfa.py",), lambda: _translated(raw))


def _translated(pattern: bytes) -> bytes:
    """The RE2 conjuncts of PATTERN joined by NUL (they are ASCII: every byte is written \\xHH),
    or UNTRANSLATABLE."""
    try:
        return b"\0".join(translate_line_record(pattern))
    except (Untranslatable, re.error, RecursionError, OverflowError):
        return UNTRANSLATABLE


@functools.lru_cache(maxsize=64)
def leading_key_end(pattern: str, group: str) -> int | None:
    """The byte that ends the key of a one-line record whose regex PATTERN starts with the key's
    group GROUP followed by that byte, which the key can never hold: then, on a line the regex
    matches, the key is the text before the first such byte, whatever the rest of the line is.
    The pattern may start with look-aheads (an undecided variant: each a whole line the record's
    line must also match); the group may then start any one of them, since the line matches each.
    None when the pattern is not of that form. Kept in the per-user cache (`gcache`): parsing a
    17 kB net/dev row pattern costs ~10 ms."""
    try:
        raw = pattern.encode("latin-1")
    except UnicodeEncodeError:
        return None
    if len(raw) < CACHED_FROM:
        stored = _leading_key_end(raw, group)
    else:
        stored = cached_bytes("lkey", raw + b"\0" + group.encode(), ("dfa.py",), lambda: _leading_key_end(raw, group))
    return stored[0] if len(stored) == 1 else None


def _leading_key_end(raw: bytes, group: str) -> bytes:
    """leading_key_end's answer as bytes: the byte, or empty for None."""
    try:
        tree = sre_parse.parse(raw, re.S)
        items = list(tree)
        conjuncts = []
        while items and items[0][0] is C.ASSERT and items[0][1][0] == 1:
            conjuncts.append(list(items.pop(0)[1][1]))
        conjuncts.append(items)
        gid = tree.state.groupdict.get(group)
        for part in conjuncts:
            if len(part) < 2 or part[0][0] is not C.SUBPATTERN or part[1][0] is not C.LITERAL:
                continue
            if part[0][1][0] == gid:
                end = part[1][1]
                return b"" if chars_of(part[0]) & (1 << end) else bytes([end])
        return b""
    except (Untranslatable, re.error, RecursionError, OverflowError):
        return b""


def translate_line_record(pattern: bytes) -> list[bytes]:
    """The RE2 patterns whose conjunction matches a line exactly when PATTERN does (each one line,
    newline included). Raises Untranslatable."""
    tree = sre_parse.parse(pattern, re.S)
    if tree.state.flags & REFUSED_FLAGS:
        raise Untranslatable("flags")
    items = list(tree)
    lines = []
    while items and items[0][0] is C.ASSERT:
        direction, body = items.pop(0)[1]
        if direction != 1:
            raise Untranslatable("look-behind")
        lines.append(list(body))
    lines.append(items)
    for line in lines:
        check_one_line(line)
    return [_seq(line, None).encode("latin-1") for line in lines]


def check_one_line(items: list) -> None:
    """The items end with the newline, and nothing before it can consume one."""
    if not items or items[-1] != (C.LITERAL, 10):
        raise Untranslatable("not one line")
    if chars_of_seq(items[:-1]) & NEWLINE:
        raise Untranslatable("a newline inside the record")


# -- what items can consume and start with --------------------------------------------------------


def chars_of(item) -> int:
    """The bytes ITEM can consume (a bit set)."""
    op, av = item
    if op is C.LITERAL:
        return 1 << av
    if op is C.NOT_LITERAL:
        return ALL & ~(1 << av)
    if op is C.ANY:
        return ALL
    if op is C.IN:
        return _class_set(av)
    if op is C.BRANCH:
        out = 0
        for alt in av[1]:
            out |= chars_of_seq(alt)
        return out
    if op is C.SUBPATTERN:
        return chars_of_seq(av[3])
    if op is C.ATOMIC_GROUP:
        return chars_of_seq(av)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        return chars_of_seq(av[2]) if av[1] else 0
    if op in (C.ASSERT_NOT, C.ASSERT):  # a look-around consumes nothing (`_item` still refuses ASSERT)
        return 0
    raise Untranslatable(str(op))


def chars_of_seq(items) -> int:
    out = 0
    for item in items:
        out |= chars_of(item)
    return out


def first_of(item) -> tuple[int, bool]:
    """(the bytes a match of ITEM can start with, whether it can match empty)."""
    op, av = item
    if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
        return chars_of(item), False
    if op is C.BRANCH:
        first, empty = 0, False
        for alt in av[1]:
            f, e = first_of_seq(alt)
            first, empty = first | f, empty or e
        return first, empty
    if op is C.SUBPATTERN:
        return first_of_seq(av[3])
    if op is C.ATOMIC_GROUP:
        return first_of_seq(av)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        if not av[1]:
            return 0, True
        f, e = first_of_seq(av[2])
        return f, e or av[0] == 0
    if op in (C.ASSERT_NOT, C.ASSERT):
        return 0, True
    raise Untranslatable(str(op))


def first_of_seq(items) -> tuple[int, bool]:
    first = 0
    for item in items:
        f, empty = first_of(item)
        first |= f
        if not empty:
            return first, False
    return first, True


# -- writing RE2 syntax ---------------------------------------------------------------------------


def _seq(items, follow: int | None) -> str:
    """ITEMS in RE2 syntax; FOLLOW: the bytes that can come right after them all (None: anything,
    or the end of the match). Written from the end, so that each item knows what follows it."""
    out = []
    for item in reversed(items):
        out.append(_item(item, follow))
        first, empty = first_of(item)
        follow = first if not empty else None if follow is None else first | follow
    return "".join(reversed(out))


def _item(item, follow: int | None) -> str:
    op, av = item
    if op is C.LITERAL:
        return f"\\x{av:02x}"
    if op in (C.NOT_LITERAL, C.ANY, C.IN):
        return _class(chars_of(item))
    if op is C.BRANCH:
        return "(?:" + "|".join(_seq(alt, follow) for alt in av[1]) + ")"
    if op is C.SUBPATTERN:
        if av[1] or av[2]:
            raise Untranslatable("flags in a group")
        return "(?:" + _seq(av[3], follow) + ")"
    if op is C.ATOMIC_GROUP:
        require_settled(av, follow)
        return "(?:" + _seq(av, follow) + ")"
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, hi, body = av
        if op is C.POSSESSIVE_REPEAT:
            require_settled(body, follow)
        inner = _seq(body, None if follow is None else first_of_seq(body)[0] | follow)
        return "(?:" + inner + ")" + _count(lo, hi) + ("?" if op is C.MIN_REPEAT else "")
    if op is C.ASSERT_NOT:
        _never_next(av, follow)
        return ""
    raise Untranslatable(str(op))


def _never_next(av, follow: int | None) -> None:
    """A negative look-ahead of one byte (a number's "no more digits") holds by itself when the
    byte that must come next is never one it refuses; only then is it dropped."""
    direction, body = av
    if direction != 1 or len(body) != 1 or body[0][0] not in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY):
        raise Untranslatable("a look-ahead")
    if follow is None or chars_of(body[0]) & follow:
        raise Untranslatable("a look-ahead that what follows does not settle")


def require_settled(body, follow: int | None) -> None:
    """An atomic group (or possessive repeat) of BODY has one possible end wherever it starts when
    what must follow it is a byte BODY can never consume; else it is not translated."""
    if follow is None or chars_of_seq(body) & follow:
        raise Untranslatable("an atomic group whose end is not fixed by what follows")


def _count(lo: int, hi: int) -> str:
    if lo > MAX_COUNT or (hi != C.MAXREPEAT and hi > MAX_COUNT):
        raise Untranslatable("repeat count")
    if hi == C.MAXREPEAT:
        return {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
    if lo == hi:
        return f"{{{lo}}}"
    return "?" if (lo, hi) == (0, 1) else f"{{{lo},{hi}}}"


@functools.lru_cache(maxsize=1024)
def _class(chars: int) -> str:
    """A byte set as an RE2 class of \\xHH ranges."""
    if not chars:
        raise Untranslatable("an empty class")
    runs, b = [], 0
    while b < 256:
        if chars >> b & 1:
            start = b
            while b + 1 < 256 and chars >> (b + 1) & 1:
                b += 1
            runs.append(f"\\x{start:02x}" if start == b else f"\\x{start:02x}-\\x{b:02x}")
        b += 1
    return "[" + "".join(runs) + "]"


def _class_set(av) -> int:
    out, negate = 0, False
    for op, arg in av:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            out |= 1 << arg
        elif op is C.RANGE:
            lo, hi = arg
            out |= ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
        elif op is C.CATEGORY and arg in _CATEGORIES:
            out |= _CATEGORIES[arg]
        else:
            raise Untranslatable(f"class item {op}")
    return ALL & ~out if negate else out
