"""The input space shared by both sides: type hints and string domains gathered from the code.
"""

from __future__ import annotations

import re
from functools import lru_cache

from fmtcheck.c import cfront
from fmtcheck.c.nodes import callee, stepped_name
from fmtcheck.c.types import CHAR_PTR, FREE, U64
from fmtcheck.common.lazyre import lazy_compile


class InputSpace:
    """What the two sides agree their inputs are: types inferred from how each path is used."""

    def __init__(self, star_max: int = 16) -> None:
        self.hints: dict[str, tuple] = {}
        self.string_domains: dict[str, str] = {}
        self.star_max = star_max
        # undeclared paths used at two integer widths (`%u` here, a 64-bit primitive there):
        # path -> (the narrower use, the wider use, where the wider one is)
        self.width_conflicts: dict[str, tuple[tuple, tuple, str]] = {}
        self.hint_sites: dict[str, str] = {}
        # undeclared paths printed as signed on one side and unsigned on the other: path -> where
        self.sign_conflicts: dict[str, str] = {}
        self.signs_used: dict[str, str] = {}  # those whose hint typed an operand (see `hint`)
        # an operand whose type the input does not declare is computed in `assumed_type`; each
        # one is remembered (text -> FILE:LINE), since a verdict must then hold for every
        # integer type it may have (fmtcheck.engine.assumed judges it again in the others)
        self.assumed_type: tuple = U64
        self.assumed: dict[str, str] = {}
        self.untyped_macros: set[str] = set()  # macros the input does not define, read as u64
        self.printed_width: dict[str, int] = {}  # operand -> the width a printf conversion gives it
        self.declared_paths: set[str] = set()  # members whose type a struct definition of the input gives
        # while a statement compiles (fmtcheck.c.reuse): what it asked that a kept closure must replay
        self.journal: list[tuple[str, str]] | None = None

    def copy(self) -> "InputSpace":
        """A space that holds what this one holds and changes apart from it: a pair's hints are
        gathered once (`collect_hints` reads only the code) and copied into the space of every
        rule-6 rerun (fmtcheck.engine.assumed), which then records its own assumptions."""
        other = InputSpace.__new__(InputSpace)
        for name, value in vars(self).items():
            setattr(other, name, type(value)(value) if isinstance(value, (dict, set, list)) else value)
        return other

    def operand_type(self, text: str, where: str, t: tuple) -> tuple:
        """The integer type an operand of type T is computed in: T when it is an integer type
        the code declares; else the type its uses hint; else, for a value of undeclared type
        (a member of an unknown struct, an unknown call, a macro the input does not define),
        `assumed_type`, recorded as an assumption about that operand (an address is a u64)."""
        if t[0] == "int" and text not in self.untyped_macros:
            return t
        hint = self.hint(text)
        if hint is not None:
            return hint
        if t != FREE and text not in self.untyped_macros:
            return U64
        self.assumed.setdefault(_norm(text), where)
        if self.journal is not None:
            self.journal.append(("assumed", text))
        return self.assumed_as(_norm(text), self.assumed_type)

    def assumed_as(self, key: str, t: tuple) -> tuple:
        """T for the undeclared operand KEY, at the width its printing demands, if any: in
        `seq_printf(m, "%lu", x << 2)` the conversion reads a long, and `<<` keeps x's type, so
        x is 64 bits wide whatever its signedness (`printed_width`)."""
        bits = self.printed_width.get(key)
        return ("int", bits, t[2]) if bits is not None and bits != t[1] else t

    def assumed_types(self, t: tuple) -> tuple:
        """The types the assumed operands take when `assumed_type` is T, in order."""
        return tuple(self.assumed_as(key, t) for key in self.assumed)

    def hint(self, text: str) -> tuple | None:
        """The type the uses of TEXT hint, for a value the input does not declare. A hint taken
        from uses of two signednesses is remembered (`signs_used`): it decided nothing."""
        key = _norm(text)
        if key in self.sign_conflicts:
            self.signs_used.setdefault(key, self.sign_conflicts[key])
            if self.journal is not None:
                self.journal.append(("hint", text))
        return self.hints.get(key)

    def declare_path(self, text: str) -> None:
        """TEXT (`f->bar`) has the type a struct definition of the input gives it."""
        self.declared_paths.add(_norm(text))
        if self.journal is not None:
            self.journal.append(("declare", text))

    def replay(self, entries: list[tuple[str, str]]) -> None:
        """Record what a statement compiled in an earlier judgement recorded (its `journal`),
        in the same order, as compiling it here would have (fmtcheck.c.reuse)."""
        for kind, text in entries:
            if kind == "hint":
                self.hint(text)
            elif kind == "declare":
                self.declare_path(text)
            else:
                raise AssertionError(f"a statement that asked for an assumed type is never kept: {text}")

    def undeclared_conflict(self, key: str, shown: str) -> tuple[tuple, tuple, str] | None:
        """The width conflict of an input, named by its KEY (what it denotes: `v->bar`) or as the
        code SHOWN writes it (`f->bar`, whose hints the conflict was found by), unless a struct
        definition declares the type of what the code wrote."""
        conflict = self.width_conflicts.get(_norm(key)) or self.width_conflicts.get(_norm(shown))
        return None if conflict is None or _norm(shown) in self.declared_paths else conflict

    def undeclared_sign(self, key: str, shown: str) -> str | None:
        """Where an undeclared input is printed as signed on one side and unsigned on the other
        (None when it is not, or a struct definition declares it)."""
        where = self.signs_used.get(_norm(key)) or self.signs_used.get(_norm(shown))
        return None if where is None or _norm(shown) in self.declared_paths else where

    def add_hint(self, text: str, t: tuple, where: str = "") -> None:
        """The narrowest integer use wins (a `%u` says the value is 32-bit), whichever side it
        is on, so the verdict does not depend on which side is called 'old'; uses at two widths
        are remembered, since an equivalence found at the narrower one is not one for every type
        the path may have. A `*` width argument ranges over 0..star_max."""
        key = _norm(text)
        have = self.hints.get(key)
        self.hint_sites.setdefault(key, where)
        if t[0] == "int" and len(t) > 3 and t[3] in ("width", "size", "bound"):
            # precedence: a `*` width (0..), then an array's size (never 0), then a loop's bound
            ranks = ("width", "size", "bound")
            if (have is None or len(have) <= 3 or have[3] not in ranks
                    or ranks.index(t[3]) <= ranks.index(have[3])):
                self.hints[key] = t + (self.star_max,)
            return
        if have is not None and len(have) > 3 and have[3] in ("width", "size", "bound"):
            return
        if have is not None and have[0] == t[0] == "int" and have[1] != t[1]:
            narrow, wide = (have, t) if have[1] < t[1] else (t, have)
            self.width_conflicts.setdefault(key, (narrow, wide, where or self.hint_sites.get(key, "")))
        elif have is not None and have[0] == t[0] == "int" and have[2] != t[2]:
            # `%u` here, `%d` there: one width, two signednesses; the hint keeps the unsigned one
            self.sign_conflicts.setdefault(key, where or self.hint_sites.get(key, ""))
        if have is None or (have[0] == "int" and t[0] == "int" and (t[1], t[2]) < (have[1], have[2])):
            self.hints[key] = t

    def str_domain(self, text: str) -> str:
        return self.string_domains.get(_norm(text), _guess_domain(text))

    def add_string(self, text: str) -> None:
        self.string_domains.setdefault(_norm(text), _guess_domain(text))


@lru_cache(maxsize=8192)
def _norm(text: str) -> str:
    """TEXT without whitespace (cached: a wide side asks it of the same few thousand texts in
    every compile, and a rule-6 rerun compiles the side again)."""
    return _SPACES.sub("", text)


_SPACES = lazy_compile(r"\s+")


def _guess_domain(text: str) -> str:
    t = text.lower()
    if re.search(r"(dev|netdev|ndev)\w*->name$", t) or "ifname" in t:
        return "ifname"
    if t.endswith("comm"):
        return "comm"
    return "text"


def collect_hints(unit: cfront.Unit, space: InputSpace) -> None:
    """Pre-pass: how each free path is used as an argument of a primitive decides its type."""
    from fmtcheck.c.outputs import argument_kinds

    for fn in unit.functions.values():
        for node in unit.nodes_of(fn, ("array_declarator", "call_expression", "for_statement")):
            if node.type == "array_declarator":
                _hint_size_macros(node, space)
            if node.type == "for_statement":
                _hint_bound_macros(node, space)
            if node.type != "call_expression":
                continue
            name = callee(node)
            if name is None:
                continue
            args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            for arg, kind in argument_kinds(name, args, unit):
                text = arg.text.decode("latin-1")
                if name == "seq_printf" and isinstance(kind, tuple) and kind[0] == "int":
                    _note_printed_width(arg, kind[1], space)
                if kind == "str":
                    space.add_string(text)
                    space.add_hint(text, CHAR_PTR)
                elif kind is not None:
                    space.add_hint(text, kind, f"{unit.where}:{unit.user_line(arg)}")


# operators whose result has the type of their left operand (shifts), or of the wider operand
_SHIFTS = ("<<", ">>")
_ARITHMETIC = ("+", "-", "*", "/", "%", "&", "|", "^")


def _note_printed_width(arg, bits: int, space: InputSpace) -> None:
    """A printf argument has the width its conversion reads (the kernel builds with -Wformat):
    so has the operand it keeps the type of, through parentheses, `-`/`~`, the left side of a
    shift, and arithmetic with an int literal (no `L` suffix, so it widens nothing)."""
    node = arg
    while True:
        if node.type == "parenthesized_expression" and len(node.named_children) == 1:
            node = node.named_children[0]
        elif node.type == "unary_expression" and node.child_by_field_name("operator").type in ("-", "~", "+"):
            node = node.child_by_field_name("argument")
        elif node.type == "binary_expression" and node.child_by_field_name("operator").type in _SHIFTS:
            node = node.child_by_field_name("left")
        elif node.type == "binary_expression" and node.child_by_field_name("operator").type in _ARITHMETIC:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if _int_literal(right):
                node = left
            elif _int_literal(left):
                node = right
            else:
                return
        else:
            break
    if node is not arg:
        space.printed_width.setdefault(_norm(node.text.decode("latin-1")), bits)


def _int_literal(node) -> bool:
    """An expression of int literals only (`10`, `'0'`, `(PAGE_SHIFT - 10)` is not one)."""
    if node.type == "number_literal":
        return "l" not in node.text.decode("latin-1").lower() and "." not in node.text.decode("latin-1")
    if node.type == "char_literal":
        return True
    if node.type == "parenthesized_expression" and len(node.named_children) == 1:
        return _int_literal(node.named_children[0])
    return node.type == "binary_expression" and all(
        _int_literal(node.child_by_field_name(side)) for side in ("left", "right"))


ARRAY_SIZE_MACRO = ("int", 32, False, "size")
LOOP_BOUND_MACRO = ("int", 32, False, "bound")
_MACRO = lazy_compile(r"[A-Z][A-Z0-9_]*")


def _hint_bound_macros(loop, space: InputSpace) -> None:
    """A macro the input does not define that bounds a counted loop (`order < MAX_ORDER`, whose
    value the build's configuration chooses) is one value shared by both sides, drawn from
    0..star_max (the verdict states the range), as a macro sizing an array is: drawn over its
    whole type, the loop ran 2^31 times and every such case went over the per-case bound."""
    cond = loop.child_by_field_name("condition")
    if cond is None or cond.type != "binary_expression":
        return
    op = cond.child_by_field_name("operator").text.decode()
    counter, bound = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op in (">", ">="):
        counter, bound = bound, counter  # `MAX_FOO > i`
    elif op not in ("<", "<="):
        return
    if bound.type != "identifier" or not _counts(counter, loop.child_by_field_name("update")):
        return
    name = bound.text.decode("latin-1")
    if _MACRO.fullmatch(name):
        space.add_hint(name, LOOP_BOUND_MACRO)


def _counts(counter, update) -> bool:
    """Whether COUNTER is what the loop's UPDATE steps: the counter itself (`i < N; i++`), or the
    distance of a stepped pointer from its start (`zone - node_zones < MAX_NR_ZONES; ++zone`)."""
    if counter.type == "identifier":
        return True
    if counter.type != "binary_expression" or counter.child_by_field_name("operator").type != "-":
        return False
    pointer = counter.child_by_field_name("left")
    if pointer.type != "identifier" or update is None:
        return False
    return any(stepped_name(n) == pointer.text for n in cfront.walk(update))


def _hint_size_macros(decl, space: InputSpace) -> None:
    """A macro the input does not define that sizes a local array (`pages[NR_LRU_LISTS]`) is one
    positive value shared by both sides, drawn from 1..star_max (the verdict states the range):
    the array then has exactly as many elements as its other uses (a loop bound) count."""
    size = decl.child_by_field_name("size")
    if size is None:
        return
    for n in cfront.walk(size):
        if n.type == "identifier" and _MACRO.fullmatch(n.text.decode("latin-1")):
            space.add_hint(n.text.decode("latin-1"), ARRAY_SIZE_MACRO)
