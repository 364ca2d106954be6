"""Symbolic values for the proof mode.

The interpreter's compiled closures compute with Python ints. Running them on `Sym` values instead
builds expression trees, with no second interpreter: arithmetic operators return new trees, and
anything that would let the output depend on an input in a way a trace cannot express (a branch,
a comparison, a value used as a length or an index) raises `NotProvable`. When both sides of a
rewrite run to the end this way and print the same sequence of literal bytes and formatted fields
over equal trees, the rewrite is proven equivalent for every input.

Trees are canonical tuples so that equality is structural: ("in", key), ("+", a, b) with the
operands of commutative operators sorted, ("wrap", bits, signed, x) for C truncation, which is
idempotent and vanishes on an input already as narrow as the truncation.
"""

from __future__ import annotations

from typing import Any
from fmtcheck.common.lazyre import lazy_compile


class NotProvable(Exception):
    """The trace cannot be kept symbolic (a branch or an index depends on an input)."""


def raised_at(exc: BaseException) -> str | None:
    """The `file:line` of the innermost construct whose compiled closure the exception passed
    through: the compilers' closures hold their construct's `where` (fmtcheck.c.program.where),
    so the reason a proof stopped can name a line without any cost on the way there."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        where = tb.tb_frame.f_locals.get("where")
        if isinstance(where, str) and _WHERE.fullmatch(where):
            found = where
        tb = tb.tb_next
    return found


_WHERE = lazy_compile(r".+:\d+")


def located(exc: Any) -> str:
    """Where a bound (an error with `where`) was reached, as a line of the code: one named by an
    input path (`input limit reached ... at v->routes[60905].obs_count`) gets the line of the
    innermost construct the exception passed through, the path kept beside it."""
    if _WHERE.fullmatch(exc.where):
        return exc.where
    line = raised_at(exc)
    return f"{line} ({exc.where})" if line else exc.where


_COMMUTATIVE = {"+", "*", "&", "|", "^"}
MAX_DEPTH = 200  # a deeper tree comes from a loop over an input; trace comparison would not scale
# Trees share their subtrees, but everything that reads one (repr for the commutative order, hash,
# equality of two equal copies, rendering, `canonical`) walks it unfolded: a variable a row assigns
# in each of n iterations (`if (a[i]) sum += a[i];`) is a choice over two copies of the previous
# sum, 2^n nodes unfolded at a depth of only 2n. Counting the unfolded size bounds that work.
MAX_SIZE = 4096


def _tree(x: Any) -> Any:
    if isinstance(x, Sym):
        return x.tree
    if isinstance(x, bool):
        return ("k", int(x))
    if isinstance(x, int):
        return ("k", x)
    raise NotProvable(f"non-integer operand {type(x).__name__}")


def _size(x: Any) -> int:
    return x.size if isinstance(x, Sym) else 1


class Sym:
    """An integer whose value is an expression over the inputs."""

    __slots__ = ("tree", "bits", "signed", "depth", "size")

    def __init__(self, tree: Any, bits: int = 64, signed: bool = False, depth: int = 1, size: int = 1) -> None:
        if depth > MAX_DEPTH:
            raise NotProvable(f"an expression over the inputs is more than {MAX_DEPTH} operations deep")
        if size > MAX_SIZE:
            raise NotProvable(f"an expression over the inputs has more than {MAX_SIZE} operations unfolded "
                              "(a value assigned under a branch in each of many iterations)")
        self.tree = tree
        self.bits = bits
        self.signed = signed
        self.depth = depth
        self.size = size

    @classmethod
    def input(cls, key: str, bits: int, signed: bool) -> "Sym":
        return cls(("in", key, bits, signed), bits, signed)

    def _bin(self, op: str, other: Any, swap: bool = False) -> "Sym":
        a, b = _tree(self), _tree(other)
        depth = max(self.depth, other.depth if isinstance(other, Sym) else 0) + 1
        size = self.size + _size(other) + 1
        if swap:
            a, b = b, a
        if op in _COMMUTATIVE and repr(a) > repr(b):
            a, b = b, a
        if op == ">>" and a[0] == ">>" and b[0] == "k" and a[2][0] == "k":
            return Sym((">>", a[1], ("k", a[2][1] + b[1])), depth=depth, size=size)
        return Sym((op, a, b), depth=depth, size=size)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("/", o)
    def __rfloordiv__(self, o): return self._bin("/", o, True)
    def __mod__(self, o): return self._bin("%", o)
    def __rmod__(self, o): return self._bin("%", o, True)
    def __lshift__(self, o): return self._bin("<<", o)
    def __rlshift__(self, o): return self._bin("<<", o, True)
    def __rshift__(self, o): return self._bin(">>", o)
    def __rrshift__(self, o): return self._bin(">>", o, True)
    def __or__(self, o): return self._bin("|", o)
    def __ror__(self, o): return self._bin("|", o, True)
    def __xor__(self, o): return self._bin("^", o)
    def __rxor__(self, o): return self._bin("^", o, True)
    def __invert__(self): return Sym(("~", self.tree), depth=self.depth + 1, size=self.size + 1)
    def __neg__(self): return Sym(("neg", self.tree), depth=self.depth + 1, size=self.size + 1)

    def __and__(self, o):
        if isinstance(o, int) and o > 0 and (o + 1) & o == 0:
            return wrap(self, o.bit_length(), False)
        return self._bin("&", o)

    def __rand__(self, o):
        return self.__and__(o)

    def __bool__(self):
        raise NotProvable("a branch depends on an input")

    def __index__(self):
        raise NotProvable("an input is used as a size, count or index")

    def _cmp(self, o):
        raise NotProvable("a comparison depends on an input")

    __lt__ = __le__ = __gt__ = __ge__ = _cmp

    def __eq__(self, o):  # type: ignore[override]
        raise NotProvable("a comparison depends on an input")

    __ne__ = __eq__

    def __hash__(self) -> int:
        return hash(self.tree)

    def __repr__(self) -> str:
        return f"Sym({render_tree(self.tree)})"


def wrap(x: Any, bits: int, signed: bool) -> Any:
    """C conversion to a `bits`-wide integer, symbolic when x is."""
    if not isinstance(x, Sym):
        raise TypeError("wrap() of a concrete value belongs to the interpreter")
    t = x.tree
    if t[0] == "in" and t[2] <= bits and (t[3] == signed or (not t[3] and t[2] < bits)):
        return Sym(t, bits, signed)
    if t[0] == "in" and bits <= t[2]:
        # a narrower view of an input is the input at that width: a concrete run reads every
        # view of a key as its one stored value converted (`(unsigned int)x` against `%u` of x)
        return Sym(("in", t[1], bits, signed), bits, signed)
    if t[0] == "wrap" and t[1] == bits and t[2] == signed:
        return x
    return Sym(("wrap", bits, signed, t), bits, signed, x.depth + 1, x.size + 1)


def render_tree(t: Any) -> str:
    """A readable C-like rendering of a tree, for notes."""
    kind = t[0]
    if kind == "in":
        return t[1]
    if kind == "k":
        return str(t[1])
    if kind == "wrap":
        return f"({'s' if t[2] else 'u'}{t[1]})({render_tree(t[3])})"
    if kind in ("~", "neg"):
        return ("~" if kind == "~" else "-") + render_tree(t[1])
    return f"({render_tree(t[1])} {kind} {render_tree(t[2])})"


# ---------------------------------------------------------------------------------------------
# branches and loops on inputs (see fmtcheck.engine.paths)


class Unstructured(NotProvable):
    """A branch on an input could not be kept as a row (an arm returns, jumps or writes memory):
    the engine runs the side again, following that branch one way and then the other."""

    def __init__(self, site: tuple, why: str) -> None:
        super().__init__(why)
        self.site = site


SYMBOLIC_LOOP = object()  # loop_count() in path mode: run the body once, on placeholder inputs


def loop_placeholder(depth: int) -> str:
    """The name of the iteration a loop body is traced for (keys holding it are per-iteration)."""
    return f"#{depth}"


def compare(op: str, a: Any, b: Any) -> "Sym":
    """A comparison of which one operand is symbolic: a 0/1 value over the inputs."""
    depth = max(a.depth if isinstance(a, Sym) else 0, b.depth if isinstance(b, Sym) else 0) + 1
    return Sym((op, _tree(a), _tree(b)), 32, True, depth, _size(a) + _size(b) + 1)


def choose(cond: "Sym", a: Any, b: Any) -> "Sym":
    """The value a variable holds after a branch on an input assigned it differently per arm."""
    depth = max(cond.depth, a.depth if isinstance(a, Sym) else 0, b.depth if isinstance(b, Sym) else 0) + 1
    bits = a.bits if isinstance(a, Sym) else (b.bits if isinstance(b, Sym) else 64)
    signed = a.signed if isinstance(a, Sym) else (b.signed if isinstance(b, Sym) else False)
    folded = _fold_update(cond, a, b) or _fold_update(cond, b, a, then_updates=False)
    if folded is not None:
        tree, size = folded
        return Sym(tree, bits, signed, depth + 1, size)
    return Sym(("ite", cond.tree, _tree(a), _tree(b)), bits, signed, depth, cond.size + _size(a) + _size(b) + 1)


_UPDATES = {"+", "-", "|", "^"}  # y OP 0 is y


def _fold_update(cond: "Sym", updated: Any, kept: Any, then_updates: bool = True) -> tuple | None:
    """`if (c) y += d;` leaves ite(c, y + d, y): two copies of y, so n such rows in a loop
    (`if (a[i]) sum += a[i];`) unfold to 2^n nodes. Written y + ite(c, d, 0) instead, the value
    is the same for every input (y + 0 is y; under a truncation, only when y already holds a value
    of the truncated type) and the tree grows by one arm per row. None when it is not that shape."""
    if not isinstance(updated, Sym):
        return None
    t, y = updated.tree, _tree(kept)
    wrapped = t[0] == "wrap"
    inner = t[3] if wrapped else t
    if inner[0] not in _UPDATES or y not in (inner[1], inner[2]):
        return None
    if inner[0] == "-" and inner[1] != y:
        return None
    if wrapped and not _holds(y, t[1], t[2]):
        return None
    d = inner[2] if inner[1] == y else inner[1]
    zero = ("k", 0)
    arm = ("ite", cond.tree, d, zero) if then_updates else ("ite", cond.tree, zero, d)
    a, b = y, arm
    if inner[0] in _COMMUTATIVE and repr(a) > repr(b):
        a, b = b, a
    tree = (inner[0], a, b)
    size = updated.size + cond.size + 2
    return (("wrap", t[1], t[2], tree) if wrapped else tree), size


def _holds(t: Any, bits: int, signed: bool) -> bool:
    """Whether the value of tree t is always one of the `bits`-wide (signed) type's values."""
    if t[0] == "wrap":
        return t[1] == bits and t[2] == signed
    if t[0] == "in":
        return t[2] <= bits and (t[3] == signed or (not t[3] and t[2] < bits))
    if t[0] == "k":
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return low <= t[1] <= high
    return False


def same_value(a: Any, b: Any) -> bool:
    """Identity for values a branch may have left alone (never a symbolic comparison)."""
    if a is b:
        return True
    if isinstance(a, Poison) or isinstance(b, Poison):
        return isinstance(a, Poison) and isinstance(b, Poison)  # neither can be read
    if isinstance(a, Sym) or isinstance(b, Sym):
        return isinstance(a, Sym) and isinstance(b, Sym) and a.tree == b.tree and a.bits == b.bits \
            and a.signed == b.signed
    if type(a) is int and type(b) is int:
        return a == b
    return False


POISON_READ = ("a value a loop over an input leaves behind (its iterator, or what its body assigns) "
               "is read in a later iteration or after the loop")


class Poison(Sym):
    """A loop's iterator after a symbolic loop: its value is the last iteration's, unknown here."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(("poison",))

    def _bin(self, op, other, swap=False):
        raise NotProvable(POISON_READ)

    def __getattribute__(self, name):
        if name == "tree":
            raise NotProvable(POISON_READ)
        return object.__getattribute__(self, name)


# ---------------------------------------------------------------------------------------------
# equal values written differently: wraps a narrower wrap makes redundant


# operators whose result's low w bits depend only on the low w bits of their operands (a ring
# mod 2^w, and bitwise); `<<` by a constant is one of them for its left operand
_LOW_BITS_OPS = {"+", "-", "*", "&", "|", "^"}


def canonical(tree: Any) -> Any:
    """The tree with every conversion its value does not need removed, so that two ways of
    computing the same value compare equal: `(u64)(s64)(x << 2)` and `(u64)(x << 2)` of the same
    input are one value (a truncation to w bits depends only on the low w bits of a sum, product,
    bitwise operation or left shift, and of a wider conversion of an input). The same tree for
    two inputs' values means the same value for every input; a different one means nothing."""
    if not isinstance(tree, tuple) or not tree or not isinstance(tree[0], str):
        return tree
    if tree[0] == "wrap":
        return ("wrap", tree[1], tree[2], _low_bits(tree[3], tree[1]))
    if tree[0] in ("in", "k"):
        return tree
    return (tree[0], *(canonical(t) for t in tree[1:]))


def _counted_shift(tree: Any) -> bool:
    return tree[0] in ("<<", ">>") and tree[2][0] != "k"


def _low_bits(tree: Any, bits: int) -> Any:
    """A tree whose low `bits` bits equal TREE's for every input (used only under a truncation
    to `bits`)."""
    kind = tree[0]
    if kind == "wrap":
        if tree[1] >= bits and not _counted_shift(tree[3]):
            return _low_bits(tree[3], bits)
        return canonical(tree)  # around a shift by an input, it names the width the count must stay under
    if kind == "in":
        return ("in", tree[1], bits, False) if tree[2] >= bits else tree
    if kind == "k":
        return ("k", tree[1] & ((1 << bits) - 1))
    if kind in _LOW_BITS_OPS:
        a, b = _low_bits(tree[1], bits), _low_bits(tree[2], bits)
        if kind in _COMMUTATIVE and repr(a) > repr(b):
            a, b = b, a
        return (kind, a, b)
    if kind in ("~", "neg"):
        return (kind, _low_bits(tree[1], bits))
    if kind == "<<" and tree[2][0] == "k":
        return ("<<", _low_bits(tree[1], bits), tree[2])
    if kind == "ite":
        return ("ite", canonical(tree[1]), _low_bits(tree[2], bits), _low_bits(tree[3], bits))
    return canonical(tree)
