"""The input space shared by both sides: type hints and string domains gathered from the code.
"""

from __future__ import annotations

import re

from fmtcheck.c import cfront
from fmtcheck.c.nodes import callee
from fmtcheck.c.types import CHAR_PTR


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

    def hint(self, text: str) -> tuple | None:
        return self.hints.get(_norm(text))

    def add_hint(self, text: str, t: tuple, where: str = "") -> None:
        """The narrowest integer use wins (a `%u` says the value is 32-bit), whichever side it
        is on, so the verdict does not depend on which side is called 'old'; uses at two widths
        are remembered, since an equivalence found at the narrower one is not one for every type
        the path may have. A `*` width argument ranges over 0..star_max."""
        key = _norm(text)
        have = self.hints.get(key)
        self.hint_sites.setdefault(key, where)
        if t[0] == "int" and len(t) > 3 and t[3] in ("width", "size"):
            if have is None or len(have) <= 3 or have[3] != "width":
                self.hints[key] = t + (self.star_max,)
            return
        if have is not None and len(have) > 3 and have[3] in ("width", "size"):
            return
        if have is not None and have[0] == t[0] == "int" and have[1] != t[1]:
            narrow, wide = (have, t) if have[1] < t[1] else (t, have)
            self.width_conflicts.setdefault(key, (narrow, wide, where or self.hint_sites.get(key, "")))
        if have is None or (have[0] == "int" and t[0] == "int" and (t[1], t[2]) < (have[1], have[2])):
            self.hints[key] = t

    def str_domain(self, text: str) -> str:
        return self.string_domains.get(_norm(text), _guess_domain(text))

    def add_string(self, text: str) -> None:
        self.string_domains.setdefault(_norm(text), _guess_domain(text))


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


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
        for node in cfront.walk(fn):
            if node.type == "array_declarator":
                _hint_size_macros(node, space)
            if node.type != "call_expression":
                continue
            name = callee(node)
            if name is None:
                continue
            args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            for arg, kind in argument_kinds(name, args, unit):
                text = arg.text.decode("latin-1")
                if kind == "str":
                    space.add_string(text)
                    space.add_hint(text, CHAR_PTR)
                elif kind is not None:
                    space.add_hint(text, kind, f"{unit.where}:{unit.user_line(arg)}")


ARRAY_SIZE_MACRO = ("int", 32, False, "size")


def _hint_size_macros(decl, space: InputSpace) -> None:
    """A macro the input does not define that sizes a local array (`pages[NR_LRU_LISTS]`) is one
    positive value shared by both sides, drawn from 1..star_max (the verdict states the range):
    the array then has exactly as many elements as its other uses (a loop bound) count."""
    size = decl.child_by_field_name("size")
    if size is None:
        return
    for n in cfront.walk(size):
        if n.type == "identifier" and re.fullmatch(r"[A-Z][A-Z0-9_]*", n.text.decode("latin-1")):
            space.add_hint(n.text.decode("latin-1"), ARRAY_SIZE_MACRO)
