"""The exact DFA of a record regex, as a table the native matcher (`native`) runs over a capture.

A record regex R (Python's `re`, compiled with re.S) is turned into a nondeterministic automaton
from its parse tree, then into a DFA by the subset construction over the byte classes the pattern
tells apart, only when every construct in it has an exact regular meaning, under the same
conditions as the RE2 plan (`dfa`):

- an atomic group or a possessive repeat is a plain group when what must follow it is a byte it
  can never consume (`dfa.require_settled`: every match of it then ends at the same place);
- a negative look-ahead of one byte ("no more digits", seq_pad's "no blank next") constrains the
  next byte consumed, whatever consumes it (the automaton carries the refused bytes with the thread);
- a look-behind is allowed only in seq_pad's column forms, `(?<=[^\\n]{k})` (at column k or
  beyond) and `(?<=\\n[^\\n]{k})` / `(?<=\\A[^\\n]{k})` (at column k, on a line after a newline /
  on the buffer's first line): the automaton counts the column (capped past the largest k, and
  only where a look-behind can still be reached on the line), and the run starts at a line start;
- look-aheads only at the start of a one-line record (an undecided kernel-version variant), each a
  whole line: the record is the intersection of them (a product of their DFAs);
- nothing else: a back-reference, an anchor outside those look-behinds, flags, a repeat count over
  `dfa.MAX_COUNT` raise Untranslatable and the records are matched by RE2 or `re` as before.

Bulk matching needs more than the language of R: Python's `(?:(R))*+` takes R's first match at
each record start and never gives one back. The two agree when L(R) is prefix-free (no match of R
is a proper prefix of another: from any start R has at most one end) and R cannot match empty:
the records are then the unique chain of R-matches from the start, and the longest prefix of the
buffer in R* ends where that chain stops. Both are checked on the DFA (`Untranslatable` if not);
one-line records ending at their newline always pass. R must end with its newline, so that the
next record starts in the start state at a line start: each accepting state's row is the start
state's row (the next record's first byte), and a state from which no accepting state can be
reached is the dead state, so that the run stops at the first byte that rules out any further
record. The run's answer, the end of the last whole record, is where `re` stops: the record there
is matched again, and explained, by the line-by-line matcher.
"""

from __future__ import annotations

import re
from array import array

from fmtcheck.layout import dfa
from fmtcheck.layout.dfa import ALL, NEWLINE, Untranslatable

from re import _constants as C  # noqa: N812 - the opcodes of Python's own regex parse tree
from re import _parser as sre_parse

MAX_NODES = 400_000  # automaton nodes (counted repeats are unrolled)
MAX_STATES = 30_000  # DFA states; a larger DFA is not built
NOT_NEWLINE = ALL & ~NEWLINE


class Nfa:
    """Nodes with byte edges, empty edges, look-behind (column) edges and one-byte look-ahead guards."""

    def __init__(self) -> None:
        self.edges: list[list] = []  # node -> [(byte set, target)]
        self.eps: list[list] = []  # node -> [target]
        self.cond: list[list] = []  # node -> [((kind, k), target)]: kind "ge", "eqnl" or "eqA"
        self.guard: list[list] = []  # node -> [(refused byte set, target)]

    def node(self) -> int:
        if len(self.edges) >= MAX_NODES:
            raise Untranslatable("too many automaton nodes")
        for part in (self.edges, self.eps, self.cond, self.guard):
            part.append([])
        return len(self.edges) - 1

    # -- building from the parse tree (entry node in, exit node out) -------------------------------

    def seq(self, items: list, entry: int, follow: int | None) -> int:
        follows = []
        for item in reversed(items):
            follows.append(follow)
            first, empty = dfa.first_of(item)
            follow = first if not empty else None if follow is None else first | follow
        for item, after in zip(items, reversed(follows)):
            entry = self.item(item, entry, after)
        return entry

    def item(self, item, entry: int, follow: int | None) -> int:
        op, av = item
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            out = self.node()
            self.edges[entry].append((dfa.chars_of(item), out))
            return out
        if op is C.BRANCH:
            out = self.node()
            for alt in av[1]:
                start = self.node()
                self.eps[entry].append(start)
                self.eps[self.seq(alt, start, follow)].append(out)
            return out
        if op is C.SUBPATTERN:
            if av[1] or av[2]:
                raise Untranslatable("flags in a group")
            return self.seq(av[3], entry, follow)
        if op is C.ATOMIC_GROUP:
            dfa.require_settled(av, follow)
            return self.seq(av, entry, follow)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            return self.repeat(op, av, entry, follow)
        if op is C.ASSERT_NOT:
            return self.never_next(av, entry)
        if op is C.ASSERT:
            return self.column(av, entry)
        raise Untranslatable(str(op))

    def repeat(self, op, av, entry: int, follow: int | None) -> int:
        lo, hi, body = av
        if op is C.POSSESSIVE_REPEAT:
            dfa.require_settled(body, follow)
        if lo > dfa.MAX_COUNT or (hi != C.MAXREPEAT and hi > dfa.MAX_COUNT):
            raise Untranslatable("repeat count")
        inner = None if follow is None else dfa.first_of_seq(body)[0] | follow
        for _ in range(lo):
            entry = self.seq(body, entry, inner)
        if hi == C.MAXREPEAT:
            loop = self.node()
            self.eps[entry].append(loop)
            self.eps[self.seq(body, loop, inner)].append(loop)
            return loop
        out = self.node()
        for _ in range(hi - lo):
            self.eps[entry].append(out)
            entry = self.seq(body, entry, inner)
        self.eps[entry].append(out)
        return out

    def never_next(self, av, entry: int) -> int:
        """A negative look-ahead of one byte: the next byte consumed must not be one it refuses."""
        direction, body = av
        if direction != 1 or len(body) != 1 or body[0][0] not in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY):
            raise Untranslatable("a look-ahead")
        out = self.node()
        self.guard[entry].append((dfa.chars_of(body[0]), out))
        return out

    def column(self, av, entry: int) -> int:
        """seq_pad's look-behinds: a condition on the column (bytes since the line's start)."""
        direction, body = av
        if direction != -1:
            raise Untranslatable("a look-ahead inside a record")
        body = list(body)
        kind = "ge"
        if len(body) == 2 and body[0] == (C.LITERAL, 10):
            kind, body = "eqnl", body[1:]
        elif len(body) == 2 and body[0] == (C.AT, C.AT_BEGINNING_STRING):
            kind, body = "eqA", body[1:]
        if len(body) != 1:
            raise Untranslatable("a look-behind")
        op, arg = body[0]
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and arg[0] == arg[1] and len(arg[2]) == 1:
            k, unit = arg[0], arg[2][0]
        else:
            k, unit = 1, body[0]
        if unit[0] not in (C.NOT_LITERAL, C.IN, C.LITERAL, C.ANY) or dfa.chars_of(unit) != NOT_NEWLINE:
            raise Untranslatable("a look-behind")
        out = self.node()
        self.cond[entry].append(((kind, k), out))
        return out

    # -- what the subset construction needs ---------------------------------------------------------

    def column_nodes(self) -> set:
        """Nodes whose column matters: a look-behind is reachable from them within the line."""
        back: list[list] = [[] for _ in self.edges]
        for n in range(len(self.edges)):
            for t in self.eps[n]:
                back[t].append(n)
            for _, t in self.cond[n] + self.guard[n]:
                back[t].append(n)
            for chars, t in self.edges[n]:
                if chars & NOT_NEWLINE:
                    back[t].append(n)
        return _reached(back, [n for n in range(len(self.edges)) if self.cond[n]])

    def byte_sets(self) -> set:
        sets = {NEWLINE}
        for n in range(len(self.edges)):
            sets.update(chars for chars, _ in self.edges[n])
            sets.update(chars for chars, _ in self.guard[n])
        return sets


def byte_classes(sets) -> list[int]:
    """The coarsest partition of the 256 bytes that every set in SETS is a union of."""
    classes = [ALL]
    for s in sets:
        classes = [part for c in classes for part in (c & s, c & ~s) if part]
    return classes


class Dfa:
    """A DFA over byte classes: state 0 is dead; `accepting` is a set of states."""

    def __init__(self, classes: list[int], rows: list[list[int]], accepting: set, start: dict) -> None:
        self.classes = classes
        self.rows = rows
        self.accepting = accepting
        self.start = start  # "nl" (a line after a newline) / "A" (the buffer's first line) -> state


def subset_dfa(nfa: Nfa, start: int, final: int) -> Dfa:
    """The DFA of the automaton from START to FINAL (threads: node, column, refused next bytes)."""
    classes = byte_classes(nfa.byte_sets())
    reps = [(c & -c).bit_length() - 1 for c in classes]
    colnodes = nfa.column_nodes()
    cap = 1 + max((k for n in colnodes for (_, k), _ in nfa.cond[n]), default=0)
    moves = [[[t for chars, t in nfa.edges[n] if chars >> b & 1] for b in reps] for n in range(len(nfa.edges))]
    closures: dict = {}

    def closure(thread: tuple) -> frozenset:
        got = closures.get(thread)
        if got is None:
            got = closures[thread] = frozenset(_closure(nfa, thread, cap, final, colnodes))
        return got

    def col_after(col: int, b: int, target: int) -> int:
        if target not in colnodes:
            return -1
        if b == 10:
            return 0
        if col < 0:
            raise Untranslatable("a column lost")  # cannot happen: see Nfa.column_nodes
        return min(col % (cap + 1) + 1, cap) + (cap + 1 if col > cap else 0)

    starts = {"nl": closure((start, 0 if start in colnodes else -1, 0))}
    if colnodes:
        starts["A"] = closure((start, cap + 1 if start in colnodes else -1, 0))
    ids = {frozenset(): 0}
    order = [frozenset()]
    for s in starts.values():
        if s not in ids:
            ids[s] = len(order)
            order.append(s)
    rows: list[list[int]] = [[0] * len(classes)]
    i = 1
    while i < len(order):
        state = order[i]
        row = []
        for ci, b in enumerate(reps):
            nxt = set()
            for node, col, refused in state:
                if refused >> b & 1:
                    continue
                for t in moves[node][ci]:
                    nxt |= closure((t, col_after(col, b, t), 0))
            row.append(_state_id(ids, order, frozenset(nxt)))
        rows.append(row)
        i += 1
    accepting = {ids[s] for s in order if any(node == final for node, _, _ in s)}
    return Dfa(classes, rows, accepting, {k: ids[v] for k, v in starts.items()})


def _state_id(ids: dict, order: list, key) -> int:
    """The number of the DFA state KEY, a new one (appended to ORDER, to be explored) if unseen."""
    got = ids.get(key)
    if got is None:
        if len(order) >= MAX_STATES:
            raise Untranslatable("too many DFA states")
        got = ids[key] = len(order)
        order.append(key)
    return got


def _closure(nfa: Nfa, thread: tuple, cap: int, final: int, colnodes: set) -> set:
    out = set()
    todo = [thread]
    while todo:
        t = todo.pop()
        if t in out:
            continue
        out.add(t)
        node, col, refused = t
        if node == final and refused:
            raise Untranslatable("a look-ahead at the record's end")
        for m in nfa.eps[node]:
            todo.append((m, col if m in colnodes else -1, refused))
        for chars, m in nfa.guard[node]:
            todo.append((m, col if m in colnodes else -1, refused | chars))
        for (kind, k), m in nfa.cond[node]:
            if _column_holds(kind, k, col, cap):
                todo.append((m, col if m in colnodes else -1, refused))
    return out


def _column_holds(kind: str, k: int, col: int, cap: int) -> bool:
    if col < 0:
        raise Untranslatable("a column lost")
    first_line = col > cap
    value = col - (cap + 1) if first_line else col
    if kind == "ge":
        return value >= k
    return value == k and first_line == (kind == "eqA")


def product(a: Dfa, b: Dfa) -> Dfa:
    """The intersection of two DFAs of one-line records (both without column counting)."""
    classes = byte_classes(set(a.classes) | set(b.classes))
    ca = [_class_of(a.classes, c) for c in classes]
    cb = [_class_of(b.classes, c) for c in classes]
    start = (a.start["nl"], b.start["nl"])
    ids = {(0, 0): 0, start: 1}
    order = [(0, 0), start]
    rows = [[0] * len(classes)]
    i = 1
    while i < len(order):
        x, y = order[i]
        row = []
        for k in range(len(classes)):
            pair = (a.rows[x][ca[k]], b.rows[y][cb[k]])
            row.append(_state_id(ids, order, (0, 0) if 0 in pair else pair))
        rows.append(row)
        i += 1
    accepting = {ids[p] for p in order if p[0] in a.accepting and p[1] in b.accepting}
    return Dfa(classes, rows, accepting, {"nl": 1})


def _class_of(classes: list[int], part: int) -> int:
    return next(i for i, c in enumerate(classes) if c & part)


def record_dfa(pattern: bytes) -> Dfa:
    """The DFA of one record of PATTERN (see the module's docstring). Raises Untranslatable."""
    tree = sre_parse.parse(pattern, re.S)
    if tree.state.flags & dfa.REFUSED_FLAGS:
        raise Untranslatable("flags")
    items = list(tree)
    lines = []
    while items and items[0][0] is C.ASSERT and items[0][1][0] == 1:
        lines.append(list(items.pop(0)[1][1]))
    if not items or items[-1] != (C.LITERAL, 10):
        raise Untranslatable("a record that does not end with its newline")
    if lines:
        for line in lines + [items]:
            dfa.check_one_line(line)
        out = _one(items)
        for line in lines:
            out = product(out, _one(line))
        return out
    return _one(items)


def _one(items: list) -> Dfa:
    nfa = Nfa()
    start = nfa.node()
    final = nfa.seq(items, start, None)
    return subset_dfa(nfa, start, final)


def repeated_table(d: Dfa) -> tuple[array, bytes, int, dict]:
    """The table the native matcher runs for records back to back: (transitions, byte -> class,
    the first non-accepting offset, start offsets). States are renumbered: dead 0, the accepting
    ones next, so that `offset < limit` tells both; each entry is the next state's row offset (the
    state times the number of classes). Raises Untranslatable when R is not prefix-free or matches
    empty, or when a start state accepts."""
    live = _reaching_accept(d)
    if any(s in d.accepting for s in d.start.values()):
        raise Untranslatable("a record that can be empty")
    if _accept_after_accept(d):
        raise Untranslatable("a record that can be a prefix of another")
    keep = [s for s in range(1, len(d.rows)) if s in live]
    order = [0] + sorted(keep, key=lambda s: s not in d.accepting)
    new = {s: i for i, s in enumerate(order)}
    width = len(d.classes)
    nl_start = d.start["nl"]
    table = array("i")
    for s in order:
        row = d.rows[nl_start] if s in d.accepting else d.rows[s]  # a record ended: the next one starts
        table.extend(new.get(t, 0) * width if t in live else 0 for t in row)
    if not keep:
        table = array("i", [0] * width)
    cls = bytearray(256)
    for i, c in enumerate(d.classes):
        for b in range(256):
            if c >> b & 1:
                cls[b] = i
    limit = (1 + sum(1 for s in keep if s in d.accepting)) * width
    starts = {k: new.get(v, 0) * width if v in live else 0 for k, v in d.start.items()}
    return table, bytes(cls), limit, starts


def _reaching_accept(d: Dfa) -> set:
    back: list[set] = [set() for _ in d.rows]
    for s, row in enumerate(d.rows):
        for t in row:
            back[t].add(s)
    seen = _reached(back, list(d.accepting))
    seen.discard(0)
    return seen


def _reached(edges: list, todo: list) -> set:
    """The nodes reached from TODO along EDGES (node -> the nodes it leads to), TODO included."""
    seen = set(todo)
    while todo:
        for m in edges[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen


def _accept_after_accept(d: Dfa) -> bool:
    """Can an accepting state reach an accepting state again (one byte or more)?"""
    todo = [t for s in d.accepting for t in d.rows[s]]
    seen = set()
    while todo:
        s = todo.pop()
        if s in seen or s == 0:
            continue
        if s in d.accepting:
            return True
        seen.add(s)
        todo.extend(d.rows[s])
    return False


def one_line(pattern: bytes) -> int:
    """1 when every record of PATTERN is one line (its newline last, none before), else 0."""
    try:
        items = list(sre_parse.parse(pattern, re.S))
        while items and items[0][0] is C.ASSERT and items[0][1][0] == 1:
            dfa.check_one_line(list(items.pop(0)[1][1]))
        dfa.check_one_line(items)
        return 1
    except (Untranslatable, re.error, RecursionError, OverflowError):
        return 0
