"""The loops whose count is an input that the proof can align by induction.

- a counted loop, `for (i = 0; i < E; i++)`: the count is E (an input), the iteration's inputs are
  indexed by the counter (`s->v[i]`); also from any start and up to an inclusive bound,
  `for (i = A; i <= E; i++)` (the kernel's `for (g = ns->level; g <= pid->level; g++)`), whose
  count follows from A and E;
- a pointer-chain walk, `for (p = X; p; p = p->next)`: the count is the chain's length (an input),
  the iteration's inputs are the members of the node (`p->name`); `while (p) { ...; p = p->next; }`
  is the same walk when nothing in its body skips the advance.

And a read section, `do { seq = read_seqcount_begin(&s); ... } while (read_seqcount_retry(&s, seq));`
(`read_section_retry`), whose test the model does not draw (see `fmtcheck.kernel.lib`).

Only the syntax is recognised here; `fmtcheck.c.statements` decides at run time (in proof mode, when
the bound or the head is an input) and `fmtcheck.c.rows.symbolic_loop` checks what the body does
(no stores, no early exits, no state carried from one iteration to the next, the counter or the
cursor never assigned, the bound unchanged). Anything else runs as an ordinary loop, and the
engine tests it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmtcheck.kernel.lib import READ_SECTION_RETRIES

# what a counted loop's bound may be made of: reads and arithmetic, nothing with an effect
_PURE = frozenset({
    "identifier", "number_literal", "field_expression", "subscript_expression", "parenthesized_expression",
    "binary_expression", "cast_expression", "sizeof_expression", "type_descriptor", "primitive_type",
    "sized_type_specifier", "type_identifier", "field_identifier", "char_literal", "pointer_expression",
    "unary_expression",
})


@dataclass(frozen=True)
class Counted:
    counter: str
    bound: object  # the tree-sitter node of E
    inclusive: bool = False  # `i <= E` (or `E >= i`) rather than `i < E`


@dataclass(frozen=True)
class Chain:
    cursor: str
    member: str


def _strip(node):
    while node is not None and node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    return node


def _text(node) -> str:
    return node.text.decode("latin-1")


def _is_name(node, name: str) -> bool:
    node = _strip(node)
    return node is not None and node.type == "identifier" and _text(node) == name


def _initialised(init) -> tuple[str, object] | None:
    """`x = V` or a declaration of one variable `T x = V`: (x, V)."""
    if init is None:
        return None
    if init.type == "assignment_expression" and _text(init.child_by_field_name("operator")) == "=":
        left = _strip(init.child_by_field_name("left"))
        if left.type == "identifier":
            return _text(left), init.child_by_field_name("right")
        return None
    if init.type == "declaration":
        declarators = init.children_by_field_name("declarator")
        if len(declarators) != 1 or declarators[0].type != "init_declarator":
            return None
        d = declarators[0].child_by_field_name("declarator")
        while d is not None and d.type == "pointer_declarator":
            d = d.child_by_field_name("declarator")
        if d is None or d.type != "identifier":
            return None
        return _text(d), declarators[0].child_by_field_name("value")
    return None


def _mentions(node, name: str) -> bool:
    if node.type == "identifier" and _text(node) == name:
        return True
    return any(_mentions(c, name) for c in node.named_children)


def _pure(node) -> bool:
    if node.type not in _PURE:
        return False
    if node.type in ("unary_expression", "pointer_expression"):
        op = _text(node.child_by_field_name("operator"))
        if op not in ("-", "~", "*", "+"):
            return False
    return all(_pure(c) for c in node.named_children)


def _increments(update, name: str) -> bool:
    """`i++`, `++i`, `i += 1`, `i = i + 1`."""
    update = _strip(update)
    if update is None:
        return False
    if update.type == "update_expression":
        return _text(update.child_by_field_name("operator")) == "++" and _is_name(
            update.child_by_field_name("argument"), name)
    if update.type == "assignment_expression" and _is_name(update.child_by_field_name("left"), name):
        op = _text(update.child_by_field_name("operator"))
        right = _strip(update.child_by_field_name("right"))
        if op == "+=":
            return right.type == "number_literal" and _text(right) == "1"
        if op == "=" and right.type == "binary_expression" and _text(right.child_by_field_name("operator")) == "+":
            a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
            one = [x for x in (a, b) if _strip(x).type == "number_literal" and _text(_strip(x)) == "1"]
            return len(one) == 1 and any(_is_name(x, name) for x in (a, b))
    return False


def counted(init, cond, update) -> Counted | None:
    """`for (i = A; i < E; i++)` or `i <= E` (or `E > i`, `E >= i`), with A and E free of i and
    of effects (A is what the counter holds when the loop starts: `fmtcheck.c.rows.counted_loop`
    reads it then)."""
    start = _initialised(init)
    cond = _strip(cond)
    if start is None or cond is None or cond.type != "binary_expression":
        return None
    name, value = start
    value = _strip(value)
    if value is None or _mentions(value, name) or not _pure(value):
        return None
    op = _text(cond.child_by_field_name("operator"))
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op in ("<", "<=") and _is_name(left, name):
        bound = right
    elif op in (">", ">=") and _is_name(right, name):
        bound = left
    else:
        return None
    if _mentions(bound, name) or not _pure(bound) or not _increments(update, name):
        return None
    return Counted(name, bound, op in ("<=", ">="))


def guarded(init, cond, update) -> tuple[Counted, object] | None:
    """`for (i = A; G && i < E; i++)`, G free of the counter and of effects (the kernel's
    `for (k = 0; digi != NULL && k < digi->ndigi; k++)`): the counted loop, and G. While G holds
    throughout, it is the counted loop up to E when G holds at the start and no iteration when
    not, which is the counted loop up to (G ? E : A); `fmtcheck.c.rows.counted_loop` checks that
    the body leaves that bound, G included, unchanged. Not `i < E && G`: there E is read before G
    (through the pointer G tests), and G does not guard it."""
    cond = _strip(cond)
    if cond is None or cond.type != "binary_expression" or _text(cond.child_by_field_name("operator")) != "&&":
        return None
    start = _initialised(init)
    if start is None:
        return None
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    shape = counted(init, right, update)
    if shape is not None and not shape.inclusive and _pure_guard(left) and not _mentions(left, start[0]):
        return shape, left
    return None


_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "&&", "||"})


def _pure_guard(node) -> bool:
    """A condition made of reads, comparisons and `!`: no call, assignment or increment."""
    node = _strip(node)
    if node.type == "unary_expression" and _text(node.child_by_field_name("operator")) == "!":
        return _pure_guard(node.child_by_field_name("argument"))
    if node.type == "binary_expression" and _text(node.child_by_field_name("operator")) in _COMPARISONS:
        return _pure_guard(node.child_by_field_name("left")) and _pure_guard(node.child_by_field_name("right"))
    return node.type in ("identifier", "null", "true", "false") or _pure(node)


def chain(init, cond, update) -> Chain | None:
    """`for (p = X; p; p = p->next)` (the test may be `p != NULL`)."""
    start = _initialised(init)
    cond = _strip(cond)
    if start is None or cond is None:
        return None
    name = start[0]
    if not _tests_cursor(cond, name):
        return None
    member = _advance(update, name)
    return None if member is None else Chain(name, member)


def while_chain(cond, body) -> tuple[Chain, list] | None:
    """`while (p) { ...; p = p->next; }` (or `p != NULL`): the walk `for (; p; p = p->next)
    { ... }`, and the statements of its body but the last. The two are the same loop only when
    nothing in the body skips the last statement: no `continue` (in a `while` it skips the
    advance, in a `for` it does not), no label to jump to, and no declaration of another `p`
    that the last statement would advance instead."""
    cond = _strip(cond)
    if cond is None or body is None or body.type != "compound_statement":
        return None
    name = _cursor_tested(cond)
    statements = [c for c in body.named_children if c.type != "comment"]
    if name is None or not statements or statements[-1].type != "expression_statement":
        return None
    last = statements[-1].named_children
    member = _advance(last[0], name) if len(last) == 1 else None
    if member is None or any(_skips_the_advance(c, name) for c in statements[:-1]):
        return None
    return Chain(name, member), statements[:-1]


def while_advancing(cond) -> tuple[Chain, object] | None:
    """`while ((p = p->next) != NULL)` (or `while ((p = p->next))`): the walk from p->next, the
    advance done by the test before every iteration, and the assignment node. A `continue` in
    the body goes to the test, so it skips nothing."""
    cond = _strip(cond)
    if cond is not None and cond.type == "binary_expression" and _text(cond.child_by_field_name("operator")) == "!=":
        sides = [_strip(cond.child_by_field_name(side)) for side in ("left", "right")]
        nulls = [x for x in sides if _text(x) in ("NULL", "0", "(void *)0")]
        cond = next((x for x in sides if x not in nulls), None) if len(nulls) == 1 else None
    if cond is None or cond.type != "assignment_expression":
        return None
    left = _strip(cond.child_by_field_name("left"))
    if left is None or left.type != "identifier":
        return None
    member = _advance(cond, _text(left))
    return None if member is None else (Chain(_text(left), member), cond)


def _cursor_tested(cond) -> str | None:
    """The variable `p` of a test `p` or `p != NULL`."""
    if cond.type == "identifier":
        return _text(cond)
    if cond.type == "binary_expression":
        for side in (cond.child_by_field_name("left"), cond.child_by_field_name("right")):
            side = _strip(side)
            if side is not None and side.type == "identifier" and _tests_cursor(cond, _text(side)):
                return _text(side)
    return None


def _tests_cursor(cond, name: str) -> bool:
    """`p` or `p != NULL` (or `!= 0`)."""
    if _is_name(cond, name):
        return True
    if cond.type != "binary_expression" or _text(cond.child_by_field_name("operator")) != "!=":
        return False
    sides = [cond.child_by_field_name("left"), cond.child_by_field_name("right")]
    others = [_strip(s) for s in sides if not _is_name(s, name)]
    return len(others) == 1 and _text(others[0]) in ("NULL", "0", "(void *)0")


def _advance(update, name: str) -> str | None:
    """The member of `p = p->member`."""
    update = _strip(update)
    if update is None or update.type != "assignment_expression" or _text(update.child_by_field_name("operator")) != "=":
        return None
    if not _is_name(update.child_by_field_name("left"), name):
        return None
    right = _strip(update.child_by_field_name("right"))
    if right.type != "field_expression" or _text(right.child_by_field_name("operator")) != "->":
        return None
    if not _is_name(right.child_by_field_name("argument"), name):
        return None
    return _text(right.child_by_field_name("field"))


def _skips_the_advance(node, name: str) -> bool:
    """A `continue`, a label, or a declaration of `name` anywhere in a statement."""
    if node.type in ("continue_statement", "labeled_statement"):
        return True
    if node.type in ("declaration", "init_declarator", "pointer_declarator", "array_declarator") and any(
            c.type == "identifier" and _text(c) == name for c in node.named_children):
        return True
    return any(_skips_the_advance(c, name) for c in node.named_children)


_EXITS = frozenset({"break_statement", "return_statement", "goto_statement", "labeled_statement"})


def runs_to_its_bound(body, names: set[str]) -> bool:
    """Whether a counted loop's body surely runs every iteration: it has no break, return, goto
    or label (anywhere, nested loops included), and assigns, increments or takes the address of
    none of `names` (the counter and the variables its bound reads)."""
    if body is None:
        return True
    if body.type in _EXITS:
        return False
    if body.type == "assignment_expression" and _root(body.child_by_field_name("left")) in names:
        return False
    if body.type == "update_expression" and _root(body.child_by_field_name("argument")) in names:
        return False
    if body.type == "pointer_expression" and _text(body.child_by_field_name("operator")) == "&" \
            and _root(body.child_by_field_name("argument")) in names:
        return False
    if body.type == "call_expression" and body.child_by_field_name("function").type != "identifier":
        return False  # a call through a pointer: what it is, is not known here
    return all(runs_to_its_bound(c, names) for c in body.named_children)


def names_in(node) -> set[str]:
    if node.type == "identifier":
        return {_text(node)}
    return set().union(*(names_in(c) for c in node.named_children)) if node.named_children else set()


def _root(node) -> str | None:
    """The variable an lvalue writes through (`s->v[i].x`: s)."""
    node = _strip(node)
    while node is not None and node.type in ("field_expression", "subscript_expression", "pointer_expression",
                                             "parenthesized_expression", "cast_expression"):
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
        else:
            node = node.child_by_field_name("argument") or (node.named_children[0] if node.named_children else None)
    return _text(node) if node is not None and node.type == "identifier" else None


def read_section_retry(cond) -> str | None:
    """The callee of a do-while's test that ends a seqcount or u64_stats read section
    (`while (u64_stats_fetch_retry(&s->syncp, start))`), None for any other test."""
    cond = _strip(cond)
    if cond is None or cond.type != "call_expression":
        return None
    fnode = cond.child_by_field_name("function")
    name = _text(fnode) if fnode is not None and fnode.type == "identifier" else None
    return name if name in READ_SECTION_RETRIES else None
