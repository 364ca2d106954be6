"""Loops both sides spell alike, in a proof: one uninterpreted function of the state they start in.

A rewrite often leaves a loop as it was (`while (gap > 0) { inc = min(gap, 16); seq_write(p,
zeros, 2 * inc); gap -= inc; }`, a `for_each_*` walk that only sums): the same C text run from
the same state prints the same bytes and leaves the same state, however often it iterates. The
proof's induction rule (`fmtcheck.c.rows`) cannot trace such a loop when its body carries state
from one iteration to the next; here it is one output event instead, keyed by

- the loop's text with its locals renamed by order of appearance (a renamed local is the same
  loop), every name it uses that the file defines (a helper it calls, with the helper's own
  locals renamed; a struct, typedef, enum, macro-free global) by that definition's text, the
  types of the locals it reads;
- the value of every local it reads (`value_key`: a number, an input's path, in a proof the
  expression of the inputs; a local buffer by its contents) and the state of the caller's data
  (`fmtcheck.c.stores`).

Afterwards every local the loop assigns holds a value named by that key and the local's place
in the text: the same on both sides exactly when the two loops are the same function of the
same state. Only a loop whose effects are all in that key qualifies: no return, goto or label,
no store into memory (an lvalue other than a local scalar, or a local aggregate declared inside
it), no address of a local taken, no write of a global, no call that writes through its
arguments, nothing that reads the seq_file's state (`seq_pad`, `seq_setwidth`, its count). The
engine uses this only when the proof failed without it (`Runner.prove`), and a concrete case is
still replayed through both sides.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from fmtcheck.c import cfront, symbolic
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.values import Frame, Free, Unset, value_key
from fmtcheck.common.errors import Inconclusive
from fmtcheck.common.lazyre import lazy_compile

# calls that write through an argument or read the seq_file's state: such a loop is no function
# of the values its key names
_WRITERS = frozenset({
    "memset", "memcpy", "memmove", "strcpy", "strncpy", "strscpy", "strlcpy", "strcat", "strlcat",
    "sprintf", "snprintf", "scnprintf", "vsnprintf", "vscnprintf", "sscanf", "kstrtoint", "kstrtouint",
    "kstrtoul", "kstrtoull", "swap", "seq_pad", "seq_setwidth", "seq_has_overflowed", "seq_get_buf",
    "seq_commit", "seq_buf_used", "seq_vprintf", "__fc_offsetof",
})
_SEQ_STATE = frozenset({"count", "size", "buf", "pad_until", "from", "index", "read_pos"})
_LOOPS = ("for_statement", "while_statement", "do_statement")
_FRESH = "sameloop"


class Signature:
    """What a loop's event is keyed by before it runs: the text part (static) and the locals."""

    __slots__ = ("digest", "reads", "assigned", "types")

    def __init__(self, digest: str, reads: list[str], assigned: list[str], types: dict[str, tuple]) -> None:
        self.digest = digest
        self.reads = reads  # free locals in order of first appearance (their values name the state)
        self.assigned = assigned  # free locals the loop may assign
        self.types = types


def signature(compiler, node, scope: dict[str, tuple], preassigned: frozenset[str] = frozenset()) -> Signature | None:
    """The loop's signature, or None when its effects are not all in a key (see the module).
    PREASSIGNED: locals the loop sets before it reads them (a for-initializer's counter, a
    `for_each_*` iterator): their value at entry is not part of the state."""
    unit = compiler.unit
    cached = unit.found.get(("sameloop", node.id, tuple(sorted(scope)), preassigned))
    if cached is not None:
        return cached or None
    sig = _signature(unit, node, scope, preassigned)
    unit.found[("sameloop", node.id, tuple(sorted(scope)), preassigned)] = sig or False
    return sig


def _signature(unit, node, scope: dict[str, tuple], preassigned: frozenset[str]) -> Signature | None:
    # the loop's nodes of the kinds each question looks at, in walk order, from one walk of the
    # loop per unit (`Unit.nodes_of`): a 256-field body is 8,500 nodes, walked once, not six times
    inner = _declared(node, unit.nodes_of(node, _DECLARATIONS))
    if inner & set(scope):
        return None  # a local declared inside that shadows one outside: one text, two objects
    if not _effects_in_key(node, set(scope), inner, True, seq_file_names(scope), unit.nodes_of(node, _EFFECTS)):
        return None
    free: list[str] = []
    tokens = _canonical(node, lambda name: name in scope, inner, free)
    assigned_inside = _assigned(node, unit.nodes_of(node, _ASSIGNMENTS))
    assigned = [name for name in free if name in assigned_inside or name in preassigned]
    reads = [name for name in free if name not in preassigned]
    definitions = _definitions(unit, _names_used(node, set(scope) | inner, unit.nodes_of(node, _NAMES)), scope, free)
    if definitions is None:
        return None
    types = {name: scope[name] for name in free}
    if any(not _scalar(types[name]) for name in assigned):
        return None
    text = " ".join(tokens) + "\n" + "\n".join(definitions) + "\n" + repr([types[n] for n in free])
    import hashlib  # (on first use: its OpenSSL binding costs ~2.5 ms of start-up)
    return Signature(hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16], reads, assigned, types)


def event(f: Frame, sig: Signature, where: str) -> None:
    """Run the loop as its event: the key, the output event, the locals it assigns renamed."""
    parts = []
    for name in sig.reads:
        v = f.vars.get(name)
        if type(v) is Unset or isinstance(v, symbolic.Poison) or v is None:
            raise NotProvable(f"a loop spelled alike on both sides reads '{name}', which holds no known value")
        try:
            parts.append(value_key(v, f, sig.types[name], name, where))
        except Inconclusive as why:
            raise NotProvable(f"a loop spelled alike on both sides reads '{name}': {why}") from None
    key = f"{_FRESH}[{sig.digest}]({', '.join(parts)}; state {f.ctx.store_state})"
    if "#" in key:
        raise NotProvable("a loop spelled alike on both sides reads a value of an enclosing loop's iteration")
    f.ctx.out.opaque(key, where)
    for k, name in enumerate(sig.assigned):
        t = sig.types[name]
        f.vars[name] = Sym.input(f"{key}->{k}", t[1], t[2]) if t[0] == "int" else Free(f"{key}->{k}")


def _scalar(t: tuple) -> bool:
    return t[0] in ("int", "ptr", "free")


def _ident(node) -> str:
    return node.text.decode("latin-1")


_DECLARATIONS = ("declaration", "parameter_declaration")
_ASSIGNMENTS = ("assignment_expression", "update_expression")
_EFFECTS = ("goto_statement", "labeled_statement", "return_statement", "declaration", "assignment_expression",
            "update_expression", "pointer_expression", "call_expression", "field_expression")
_NAMES = ("identifier", "type_identifier")


def _declared(node, nodes: Iterable | None = None) -> set[str]:
    """Names declared anywhere inside NODE (its locals, a nested function's parameters). NODES,
    when given: NODE's nodes in walk order (those of the kinds looked at suffice)."""
    names: set[str] = set()
    for n in cfront.walk(node) if nodes is None else nodes:
        if n.type in ("declaration", "parameter_declaration"):
            for d in n.children_by_field_name("declarator"):
                name = _declarator_name(d)
                if name is not None:
                    names.add(name)
    return names


def _declarator_name(d) -> str | None:
    while d is not None and d.type not in ("identifier",):
        if d.type in ("init_declarator", "pointer_declarator", "array_declarator", "function_declarator",
                      "parenthesized_declarator", "attributed_declarator"):
            d = d.child_by_field_name("declarator") or (d.named_children[0] if d.named_children else None)
        else:
            return None
    return _ident(d) if d is not None else None


def _root(node) -> tuple[str | None, bool]:
    """The variable an lvalue writes (`s->v[i].x`: s) and whether the write is to the variable
    itself (a plain name) rather than to memory it reaches."""
    plain = True
    while node is not None and node.type in ("parenthesized_expression", "field_expression", "subscript_expression",
                                              "pointer_expression", "cast_expression"):
        if node.type != "parenthesized_expression":
            plain = False
        if node.type == "field_expression" and _ident(node.child_by_field_name("operator")) == "->":
            return None, False  # through a pointer: memory the variable does not hold
        if node.type == "pointer_expression":
            return None, False
        node = node.child_by_field_name("argument") or (node.named_children[-1] if node.named_children else None)
    if node is None or node.type != "identifier":
        return None, False
    return _ident(node), plain


def _effects_in_key(node, outer: set[str], inner: set[str], loop: bool, seq_files: set[str],
                    nodes: Iterable | None = None) -> bool:
    """Whether every effect of NODE is a write of a local (see the module). NODES: as for `_declared`."""
    for n in cfront.walk(node) if nodes is None else nodes:
        if n.type in ("goto_statement", "labeled_statement") or (loop and n.type == "return_statement"):
            return False
        if n.type == "declaration" and _static_state(n):
            return False  # state kept from one call to the next: not in the key
        if n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left" if n.type == "assignment_expression" else "argument")
            name, plain = _root(target)
            if name is None or not plain:
                return False  # into memory: an aggregate, or what a pointer reaches
            if name not in outer and name not in inner:
                return False  # a global
        if n.type == "pointer_expression" and _ident(n.child_by_field_name("operator")) == "&":
            name, _ = _root(n.child_by_field_name("argument"))
            if name is None or name in outer or name in inner:
                return False
        if n.type == "call_expression":
            fn = n.child_by_field_name("function")
            if fn.type == "identifier" and _ident(fn) in _WRITERS:
                return False
            if fn.type == "identifier" and _ident(fn) == "do_div":
                return False
        if n.type == "field_expression" and _ident(n.child_by_field_name("field")) in _SEQ_STATE:
            base = n.child_by_field_name("argument")
            if base.type == "identifier" and _ident(base) in seq_files:
                return False  # the seq_file's own state, read or written
    return True


def _static_state(declaration) -> bool:
    """A `static` declaration that is not `const`."""
    words = [c.text for c in declaration.children if c.type in ("storage_class_specifier", "type_qualifier")]
    return b"static" in words and b"const" not in words


def seq_file_names(scope: dict[str, tuple]) -> set[str]:
    """The locals that are the seq_file."""
    return {name for name, t in scope.items() if "seq_file" in repr(t)}


def _seq_file_params(fn) -> set[str]:
    out = set()
    for n in cfront.walk(fn.child_by_field_name("declarator")):
        if n.type == "parameter_declaration" and b"seq_file" in n.text:
            name = _declarator_name(n.child_by_field_name("declarator"))
            if name:
                out.add(name)
    return out


def _assigned(node, nodes: Iterable | None = None) -> set[str]:
    out: set[str] = set()
    for n in cfront.walk(node) if nodes is None else nodes:
        if n.type in ("assignment_expression", "update_expression"):
            name, plain = _root(n.child_by_field_name("left" if n.type == "assignment_expression" else "argument"))
            if name is not None and plain:
                out.add(name)
    return out


def _canonical(node, is_local: Callable[[str], bool], inner: set[str], free: list[str]) -> list[str]:
    """NODE's tokens, locals renamed by order of appearance (`$fN` from outside, `$dN` inside)."""
    inside: list[str] = []
    tokens: list[str] = []
    for leaf in _leaves(node):
        text = _ident(leaf)
        if leaf.type == "identifier" and text in inner:
            if text not in inside:
                inside.append(text)
            tokens.append(f"$d{inside.index(text)}")
        elif leaf.type == "identifier" and is_local(text):
            if text not in free:
                free.append(text)
            tokens.append(f"$f{free.index(text)}")
        else:
            tokens.append(text)
    return tokens


def _leaves(node):
    if node.type == "comment":
        return
    if node.child_count == 0 or node.type in ("string_literal", "char_literal", "number_literal"):
        yield node
        return
    for c in node.children:
        yield from _leaves(c)


def _names_used(node, locals_: set[str], nodes: Iterable | None = None) -> set[str]:
    return {_ident(n) for n in (cfront.walk(node) if nodes is None else nodes)
            if n.type in _NAMES and _ident(n) not in locals_}


_STRUCT = lazy_compile(r"'(?:struct|union|enum)', '(\w+)'")


def _definitions(unit, names: set[str], scope: dict[str, tuple], free: list[str]) -> list[str] | None:
    """The text of every file-scope definition the loop's names reach, transitively (a helper
    with its locals renamed); None when a global it reaches is written anywhere in the file."""
    index = _index(unit)
    for name in free:
        names |= set(_STRUCT.findall(repr(scope[name])))
        names |= {w for w in re.findall(r"'(\w+)'", repr(scope[name]))}
    seen: set[str] = set()
    texts: list[str] = []
    work = sorted(names)
    while work:
        name = work.pop()
        if name in seen:
            continue
        seen.add(name)
        for top in index.get(name, ()):
            if top.type == "function_definition":
                params_locals = _declared(top)
                if not _effects_in_key(top.child_by_field_name("body"), set(), params_locals, False,
                                       _seq_file_params(top)):
                    return None
                tokens = _canonical(top, lambda n: False, params_locals, [])
                texts.append(f"{name}: " + " ".join(tokens))
                more = _names_used(top, params_locals)
            else:
                if _global_written(unit, name, top):
                    return None
                texts.append(f"{name}: " + top.text.decode("latin-1"))
                more = _names_used(top, set())
            work.extend(sorted(more - seen))
    return sorted(texts)


def _index(unit) -> dict[str, list]:
    """File-scope definitions by the names they declare (functions, globals, types, tags,
    enumerators)."""
    cached = unit.found.get(("sameloop index",))
    if cached is not None:
        return cached
    index: dict[str, list] = {}
    for top in unit.tree.root_node.children:
        for name in _top_names(top):
            index.setdefault(name, []).append(top)
    unit.found[("sameloop index",)] = index
    return index


def _top_names(top) -> set[str]:
    names: set[str] = set()
    if top.type == "function_definition":
        name = _declarator_name(top.child_by_field_name("declarator"))
        return {name} if name else set()
    for n in cfront.walk(top):
        if n.type in ("init_declarator", "pointer_declarator", "array_declarator", "function_declarator"):
            name = _declarator_name(n)
            if name:
                names.add(name)
        elif n.type == "identifier" and n.parent is not None and n.parent.type in ("declaration", "enumerator"):
            names.add(_ident(n))
        elif n.type == "type_identifier" and n.parent is not None and (n.parent.type == "type_definition" or (
                n.parent.type in ("struct_specifier", "union_specifier", "enum_specifier")
                and n.parent.child_by_field_name("body") is not None)):
            names.add(_ident(n))
    return names


def _global_written(unit, name: str, top) -> bool:
    """Whether a file-scope variable is assigned or has its address taken in any function."""
    if top.type != "declaration":
        return False
    key = ("sameloop written", name)
    if key in unit.found:
        return unit.found[key]
    written = False
    for fn in unit.functions.values():
        locals_ = _declared(fn)
        if name in locals_:
            continue
        for n in unit.nodes_of(fn, ("assignment_expression", "update_expression", "pointer_expression")):
            if n.type == "pointer_expression":
                if _ident(n.child_by_field_name("operator")) != "&":
                    continue
                target = n.child_by_field_name("argument")
            else:
                target = n.child_by_field_name("left" if n.type == "assignment_expression" else "argument")
            root, _ = _root(target)
            if root is None:
                # through a pointer: could be the global's memory; a pointer to it is taken only by `&`
                continue
            if root == name:
                written = True
                break
        if written:
            break
    unit.found[key] = written
    return written


def loop_nodes() -> tuple[str, ...]:
    return _LOOPS
