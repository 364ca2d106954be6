"""Run-time values and state of the interpreter: memory, pointers, free inputs, the seq_file handle,
control-flow signals, frames and the bounds that keep a run finite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.types import CHAR, conv, type_size
from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.common.lazyre import lazy_compile

MAX_STEPS = 200_000

# bytes of arrays the interpreter may allocate in one run of one side; with the step bound and the
# bound on input bytes it keeps every run far below the memory of a CI runner
MAX_RUN_BYTES = 64 << 20

# an input path longer than this comes from a walk the code cannot end (p = p->next over free data)
MAX_KEY_BYTES = 1024

# in testing, a pointer chain over free data (p->next->next...) ends after this many links: the
# pointer one further is NULL, as the loops of the sweep run at most MAX_LOOP times
MAX_CHAIN = 4


MAX_CALL_DEPTH = 48


MAX_LOCAL_ARRAY = 1 << 20


def short_digest(data: bytes) -> str:
    """16 hex digits of DATA's SHA-1, a name for contents; hashlib is imported at the first use
    (loading OpenSSL costs every verdict some milliseconds, and most never need a digest)."""
    import hashlib

    return hashlib.sha1(data).hexdigest()[:16]


class Mem:
    """A byte array owned by the code (a local array or a string literal)."""

    __slots__ = ("data", "readonly", "elem", "file_scope", "sized_by")

    def __init__(self, data: bytearray, readonly: bool = False, elem: tuple = CHAR) -> None:
        self.data = data
        self.readonly = readonly
        self.elem = elem
        self.file_scope: str | None = None  # the global's name: the caller's data may point at it
        # the macro sizing a local array (`pages[NR_LRU_LISTS]`): an index past it is undefined
        # behaviour, as past a table, not memory the model lacks
        self.sized_by: str | None = None


class SymbolicText:
    """What a local char buffer holds after an uninterpreted call wrote a string into it, in proof
    mode: that string (an input, `text`, cut to the buffer) from the start. Printing it from its
    start and naming the buffer in another call's key are modelled; any other read or write of its
    bytes ends the proof (`NotProvable`), so no byte of it is ever taken for a value it may not hold."""

    __slots__ = ("size", "text")

    def __init__(self, size: int, text: Any) -> None:
        self.size = size
        self.text = text

    def __len__(self) -> int:
        return self.size

    def string_at(self, off: int) -> Any:
        if off != 0:
            self._refuse()
        return self.text

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise NotProvable("the bytes of a string an uninterpreted call wrote into a buffer are read")

    __getitem__ = __setitem__ = __iter__ = __bytes__ = __contains__ = _refuse

    def __getattr__(self, name: str) -> Any:
        self._refuse()


class SymbolicCells:
    """What a local array of integers holds in a proof once an element was set to a value of the
    inputs (`pages[lru] = global_node_page_state(NR_LRU_BASE + lru)`): its bytes, and the cells
    that hold symbols, by offset. An element read back whole, at the type it was stored with,
    is that symbol; a read or write of one at a constant index elsewhere is plain bytes. Any other
    access that meets a symbol's bytes, and every byte-level use of the array (a copy, a string
    read, a call given it), ends the proof (`NotProvable`), as for `SymbolicText`."""

    __slots__ = ("raw", "cells")

    def __init__(self, raw: bytearray) -> None:
        self.raw = raw
        self.cells: dict[int, tuple[int, tuple, Any]] = {}  # offset: (size, type, symbol)

    def __len__(self) -> int:
        return len(self.raw)

    def load(self, off: int, size: int, t: tuple) -> Any:
        cell = self.cells.get(off)
        if cell is not None and cell[0] == size and cell[1] == t:
            return cell[2]
        if self._overlaps(off, size):
            self._refuse()
        return conv(int.from_bytes(self.raw[off:off + size], "little"), t)

    def store(self, off: int, size: int, t: tuple, value: Any) -> None:
        for start in [start for start in self.cells if self._meet(start, off, size)]:
            del self.cells[start]
        if isinstance(value, Sym):
            self.cells[off] = (size, t, value)
        else:
            self.raw[off:off + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def _overlaps(self, off: int, size: int) -> bool:
        return any(self._meet(start, off, size) for start in self.cells)

    def _meet(self, start: int, off: int, size: int) -> bool:
        return start < off + size and off < start + self.cells[start][0]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise NotProvable("the bytes of a local array that holds values of the inputs are read")

    __getitem__ = __setitem__ = __iter__ = __bytes__ = __contains__ = _refuse

    def __getattr__(self, name: str) -> Any:
        self._refuse()


class Ptr:
    """A pointer into a Mem, at a byte offset."""

    __slots__ = ("mem", "off")

    def __init__(self, mem: Mem, off: int = 0) -> None:
        self.mem = mem
        self.off = off

    def bytes_until_nul(self) -> bytes:
        data = self.mem.data
        end = data.find(0, self.off)
        return bytes(data[self.off:] if end < 0 else data[self.off:end])

    def read(self, n: int) -> bytes:
        if n < 0 or self.off + n > len(self.mem.data):
            raise Inconclusive("memory", f"read of {n} bytes past the end of a {len(self.mem.data)}-byte array")
        return bytes(self.mem.data[self.off:self.off + n])


class Free:
    """An object the code does not define: its fields and elements are inputs keyed by path."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"Free({self.key})"


class ScalarRef:
    """The address of a local integer as a %p extension receives it (`%pa` of `&end`): the
    value the local holds at the call and its declared type; never an address (see
    `fmtcheck.c.extensions`)."""

    __slots__ = ("value", "type")

    def __init__(self, value: Any, t: tuple) -> None:
        self.value = value
        self.type = t


class Unset(Free):
    """A pointer local not yet given a value: named by its position, never by its name, so that
    renaming a local changes nothing (an iterator macro gives it a value per iteration)."""

    __slots__ = ()


class Table(list):
    """A table the code defines (state names, struct rows). `sized_by` names the size expression
    when the model cannot fold it (a macro the input does not define): the table may then be longer
    than the entries it shows, and a read past them is unknown data, not undefined behaviour."""

    __slots__ = ("sized_by", "constant_name")

    def __init__(self, items, sized_by: str | None = None) -> None:
        super().__init__(items)
        self.sized_by = sized_by
        self.constant_name: str | None = None  # see LocalStruct.constant_name


def outside_sized_array(mem: Mem, i: int, line: int, text: str) -> UndefinedBehaviour:
    """The undefined behaviour of an index outside an array sized by a macro (see Mem.sized_by)."""
    return UndefinedBehaviour(line, f"index {i} is outside the array {text} ({mem.sized_by} elements)")


class TablePtr:
    """A pointer into a table the code defines (`sd = tbl; sd++; sd->mask`, a table passed to a
    helper that walks it): the table and an element index. Moving it moves the index; reading
    through it reads that element, and an element outside the table is read only by undefined
    behaviour, as a subscript past it is."""

    __slots__ = ("table", "index")

    def __init__(self, table: list, index: int = 0) -> None:
        self.table = table
        self.index = index


def table_entry(obj: Any, i: int, line: int, text: str, where: str) -> Any:
    """Element i of a table, or of the table a `TablePtr` points into (counted from it)."""
    if isinstance(obj, TablePtr):
        obj, i = obj.table, obj.index + i
    if not 0 <= i < len(obj):
        sized_by = getattr(obj, "sized_by", None)
        if sized_by is not None:
            raise Inconclusive(where, f"index {i} is past the {len(obj)} entries shown of a table sized by {sized_by}")
        # C reads past a table of known size only by undefined behaviour: the kernel's own bounds
        # keep such an index out, so the case is no input (both sides alike)
        raise UndefinedBehaviour(line, f"index {i} is outside the table {text}")
    return obj[i]


class LocalStruct:
    """A struct declared in the code. Fields it never set are zero (an initializer or memset),
    values of the unknown call that filled it (`key` names that call's out-parameter), or, while
    `indeterminate`, what the stack held: inputs of this side alone (`uninitialised_key`), never
    named after the local alone (the other side names its local differently, and two locals of one
    name in two scopes are different objects)."""

    __slots__ = ("key", "fields", "zeroed", "indeterminate", "file_scope", "view", "constant_name")

    def __init__(self, key: str, indeterminate: bool = False) -> None:
        self.key = key
        self.fields: dict[str, Any] = {}
        self.zeroed = False
        self.indeterminate = indeterminate
        self.file_scope: str | None = None  # the global's name: the caller's data may point at it
        # the caller's object a whole memcpy copied in (see `fmtcheck.c.copies`): a field not
        # set since reads as that object's
        self.view: Free | None = None
        # a global the file never writes, by its name and its declaration's text: how an
        # uninterpreted call that receives it names it (`&blkcg_policy_bfq`, a table of rows)
        self.constant_name: str | None = None


class Unreadable:
    """A field of a struct the input does not define, initialised to a value whose type the model
    cannot know (`.flags = -1`, `.size = SOME_MACRO`): reading it is ERROR, never a guess at the
    type it converts to."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class OpaqueGlobal:
    """A file-scope object whose initializer the model cannot read (its struct is defined in a
    header the input lacks: `static struct p9_trans_module p9_tcp_trans = {...}`), reached only
    by its address: the address is the global's (`&p9_tcp_trans` compared with the caller's
    pointer is an input named by the global, as for any global), and reading anything through it
    is the error that stopped its initializer, never a made-up content."""

    __slots__ = ("file_scope", "error", "constant_name")

    def __init__(self, name: str, error: Exception, constant_name: str | None = None) -> None:
        self.file_scope = name
        self.error = error
        self.constant_name = constant_name  # see LocalStruct.constant_name


def uninitialised_key(side: str, name: str) -> str:
    """The input key of a local read before anything set it: one side's own, so a difference that
    hangs on it is never taken for a difference of shared inputs."""
    return f"(uninitialised {name} of the {side or 'one'} side)"


class SeqHandle:
    """The `struct seq_file *` the show function writes to."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "m"


SEQ = SeqHandle()


C_SEQ_BUFFER = 1 << 16


class CSeqFile(SeqHandle):
    """A byte-buffer struct seq_file, for a side that gives its own C body for a primitive: that
    body reads and writes m->buf, m->count and m->size like the kernel's, and the built-in
    primitives of the same side write into the same buffer."""

    __slots__ = ("fields", "mem")

    def __init__(self) -> None:
        self.mem = Mem(bytearray(C_SEQ_BUFFER))
        self.fields: dict[str, Any] = {
            "buf": Ptr(self.mem), "size": C_SEQ_BUFFER, "count": 0, "pad_until": 0, "from": 0,
            "index": 0, "private": Free("m->private"),
        }

    @property
    def data(self) -> bytes:
        count = self.fields["count"]
        if type(count) is not int or not 0 <= count <= C_SEQ_BUFFER:
            raise Inconclusive("seq_file", f"m->count is {count!r}, outside the buffer")
        return bytes(self.mem.data[:count])


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


BREAK = _Signal("break")


CONTINUE = _Signal("continue")


class Goto:
    __slots__ = ("label", "where")

    def __init__(self, label: str, where: str) -> None:
        self.label = label
        self.where = where


class Return:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class UndefinedBehaviour(Exception):
    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"line {line}: {what}")
        self.line = line
        self.what = what


class Context:
    """One run of one side: the inputs, the output, the step budget."""

    __slots__ = ("inputs", "out", "steps", "limit", "depth", "aliases", "side", "bindings", "seq", "allocated",
                 "coverage", "writes", "loop_depth", "store_state", "result_states", "traced_loop", "refilled")

    def __init__(self, inputs: Any, out: Any, side: str = "", coverage: Any = None,
                 limit: int | None = None) -> None:
        self.inputs = inputs
        self.out = out
        self.steps = 0
        self.limit = MAX_STEPS if limit is None else limit  # a proof's trace takes fewer (engine.proofs)
        self.allocated = 0
        self.coverage = coverage  # a `fmtcheck.c.coverage.Coverage` while testing, else None
        self.depth = 0
        self.aliases: dict[str, str] = {}
        self.side = side
        self.bindings: list[dict[str, str]] = []  # helper parameter -> the caller's argument text
        self.seq: SeqHandle = SEQ
        self.writes = 0  # stores into memory, so that a branch traced as a row can tell it wrote none
        self.loop_depth = 0
        self.traced_loop: object | None = None  # the token of the loop whose body a proof traces (rows.break_row)
        self.store_state: str | None = None  # the stores into the caller's data so far (see c/stores.py)
        self.result_states: dict[str, str | None] = {}  # an unknown call's value -> the state it was made in
        self.refilled: dict[str, str] = {}  # a local struct's key before an unknown call filled it -> after


    def allocate(self, size: int, where: str) -> None:
        """Count bytes the run allocates; past MAX_RUN_BYTES the run ends, inconclusive."""
        self.allocated += size
        if self.allocated > MAX_RUN_BYTES:
            raise LimitExceeded(where, f"memory limit reached ({MAX_RUN_BYTES >> 20} MiB in one run)")


def past_chain_bound(key: str) -> bool:
    """Is this free path further down a pointer chain (the same member repeated: p->next->next)
    than testing follows?"""
    cut = key.rfind("->")
    if cut < 0:
        return False
    link = key[cut:]
    return key.count(link) > MAX_CHAIN


def free_path(f: "Frame", key: str, where: str, noted: Callable[[str], None] | None = None) -> Free:
    """A free value at a new path; an over-long path ends the run (the inputs it names are
    counted by the input source, `fmtcheck.engine.inputs.MAX_INPUT_BYTES`). NOTED, if any,
    records the type the code reads it as (`fmtcheck.c.expressions.typed_reads`)."""
    if f.ctx.refilled:
        key = refilled_path(f.ctx.refilled, key)
    if noted is not None:
        noted(key)
    if len(key) > MAX_KEY_BYTES:
        raise LimitExceeded(where, f"an input path grew past {MAX_KEY_BYTES} bytes ({key[:40]}...): "
                                   "a walk over data the code does not define")
    return Free(key)


def refill(ctx: Context, before: str, after: str) -> None:
    """An unknown call filled a local struct keyed BEFORE (what the stack held, or an earlier
    call's out-parameter); it is now AFTER. A pointer the code took into it before the call
    (`u64 *args = &info.data.args[0]; fill(task, &info); args[0]`) reads what the call left, as a
    path of the struct read after the call does: `free_path` renames its paths. A struct with no
    key (zeroed, or set field by field) has no paths of its own to rename."""
    if not before:
        return
    for old, new in ctx.refilled.items():
        if new == before:
            ctx.refilled[old] = after
    ctx.refilled[before] = after


def refilled_path(refilled: dict[str, str], key: str) -> str:
    """KEY with the path of a struct an unknown call filled since (`refill`) put as after it."""
    for before, after in refilled.items():
        if key.startswith(before) and (len(key) == len(before) or key[len(before)] in ".[-"):
            return after + key[len(before):]
    return key


@dataclass
class Frame:
    ctx: Context
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass
class Expr:
    fn: Callable[[Frame], Any]
    type: tuple
    text: str
    node: Any = None
    const: Any = None  # a compile-time value, when known
    logical: Any = None  # (op, left Expr, right Expr) of `a && b`, `a || b`: an `if` may trace it as a row


# One name per object of the caller's data, whichever way the code reaches it: `p->f`,
# `p[0].f`, `(*p).f` and `(p + 0)->f` are the same input, `(p + 2)->f` and `p[2].f` too.
_ELEMENT_KEY = lazy_compile(r"(.*)\[(-?\d+)\]")


def pointer_parts(key: str) -> tuple[str, int]:
    """A pointer key as (array, index): `&a[2]` is (a, 2), any other pointer (key, 0)."""
    if key.startswith("&"):
        m = _ELEMENT_KEY.fullmatch(key[1:])
        if m:
            return m.group(1), int(m.group(2))
    return key, 0


def element(p: Free, i: int) -> Free:
    base, j = pointer_parts(p.key)
    return Free(f"{base}[{j + i}]")


def iteration_element(p: Free, index: Any) -> Free:
    """`s->v[i]` where i is the iteration a loop body is traced for (exactly the placeholder, at
    the start of the array): the element of that iteration, `s->v[#0]`. Any other symbolic index
    (`v[i + 1]`, `v[n]`, a moved pointer) names no fixed element: not provable."""
    tree = getattr(index, "tree", None)
    if tree is None or tree[0] != "in" or not tree[1].startswith("#"):
        raise NotProvable("an index depends on an input")
    base, j = pointer_parts(p.key)
    if j != 0:
        raise NotProvable("an index depends on an input")
    return Free(f"{base}[{tree[1]}]")


def member_of(obj: Free, op: str, name: str) -> Free:
    """The key of `obj->name` (`obj.name`). `(&K)->name` is `K.name`, one object under one name
    whichever way the code reaches it (`p = &o->s; p->u` reads `o->s.u`)."""
    if op == "->":
        base, j = pointer_parts(obj.key)
        if j == 0 and base.startswith("&"):
            return Free(f"{base[1:]}.{name}")
        return Free(f"{base}->{name}") if j == 0 else Free(f"{base}[{j}].{name}")
    m = _ELEMENT_KEY.fullmatch(obj.key)
    if m and m.group(2) == "0":
        return Free(f"{m.group(1)}->{name}")
    return Free(f"{obj.key}.{name}")


def address_of(v: Free) -> Free:
    m = _ELEMENT_KEY.fullmatch(v.key)
    if m:
        return Free(m.group(1)) if m.group(2) == "0" else Free(f"&{v.key}")
    return Free("&" + v.key)


_LINK = lazy_compile(r"(->\w+)\1*\Z")


def chain_depth(key: str) -> int:
    """How many times the last member repeats at the end of a path (`h->next->next`: 2)."""
    m = _LINK.search(key)
    if not m:
        return 0
    return len(m.group(0)) // len(m.group(1))


def advance(p: Any, n: Any, op: str, where: str) -> Any:
    """A pointer moved by n elements of its array."""
    if isinstance(n, Sym):
        raise NotProvable("pointer arithmetic depends on an input")
    if isinstance(p, list):
        p = TablePtr(p)
    if isinstance(p, TablePtr):
        return TablePtr(p.table, p.index + n)
    if isinstance(p, Mem):
        p = Ptr(p)
    if isinstance(p, Ptr):
        elem = p.mem.elem
        return Ptr(p.mem, p.off + n * (type_size(elem) if elem[0] == "int" else 1))
    if isinstance(p, Free):
        base, j = pointer_parts(p.key)
        j += n  # n is signed already
        return Free(base) if j == 0 else Free(f"&{base}[{j}]")
    raise Inconclusive(where, "pointer arithmetic on a non-pointer")


def convert_arg(value: Any, ptype: tuple) -> Any:
    """An argument as the parameter receives it (integers converted to its type)."""
    if ptype[0] == "int" and isinstance(value, (int, Sym)):
        return conv(value, ptype)
    return value


def value_key(v: Any, f: Frame, t: tuple, text: str, where: str = "") -> str:
    """How an argument of an uninterpreted call (or an iterator's list head) is named in the
    call's input key: by what it denotes, never by the text or the local names that reach it,
    so that a renamed local names the same value and a reassigned one a different value."""
    if type(v) is int:
        return str(v)
    if isinstance(v, Free):
        return v.key
    if isinstance(v, Sym):
        if v.tree[0] == "in":
            # a loop's placeholder, or an input by its key and type: concrete runs name the call
            # by the value, which is the same on both sides for the same input and type
            key, bits, signed = v.tree[1], v.tree[2], v.tree[3]
            return key if key.startswith("#") else f"@{key}:{'s' if signed else 'u'}{bits}"
        return symbolic_name(v)
    if isinstance(v, SeqHandle):
        return "m"
    if isinstance(v, (LocalStruct, Table, OpaqueGlobal)) and v.constant_name is not None:
        return v.constant_name
    if isinstance(v, TablePtr) and getattr(v.table, "constant_name", None) is not None:
        return f"{v.table.constant_name}+{v.index}"  # the table passed on by a helper's parameter
    if isinstance(v, LocalStruct):
        return struct_state_key(v, f, text, where)
    if isinstance(v, (Ptr, Mem)):
        p = v if isinstance(v, Ptr) else Ptr(v)
        if p.mem.readonly:
            return '"' + p.bytes_until_nul().decode("latin-1") + '"'
        return memory_state_key(p)
    raise Inconclusive(where or text or "expression",
                       f"'{text}' is passed to a call the code does not define, as a value the model cannot name")


def symbolic_name(v: Sym) -> str:
    """A name for a value computed from inputs (`MINOR(dev) + n - 1`, a row's choice) in proof
    mode: the same expression names the same value, so an uninterpreted function of it, or a
    table read at it, is one symbol on both sides (congruence: equal arguments, equal result).
    Such a name is no input of a concrete run: a fast rendering that meets it falls back to the
    interpreter. An expression over a loop body's iteration stands for a different value in every
    iteration: its name ends in `#`, so that what keeps per-iteration values apart sees it as one
    (a branch on it is no path fact and cannot be forked on: `fmtcheck.engine.paths`), while
    two sides computing the same expression of the same iteration still read one symbol."""
    text = repr((v.tree, v.bits, v.signed))
    name = "=" + short_digest(text.encode("utf-8", "surrogateescape"))
    return name + "#" if "#" in text else name


def content_name(obj: Any) -> str | None:
    """A name for the contents of a table or array the code holds (a string table, `hex_asc`, a
    local buffer), by what it holds now: two sides reading equal contents at equal positions read
    equal values. None for contents the model cannot name by value, or a table sized by a macro
    the input does not define (it may hold more than the entries it shows)."""
    if getattr(obj, "sized_by", None) is not None:
        return None
    parts = []
    for item in (obj if isinstance(obj, list) else [obj]):
        part = _content_part(item)
        if part is None:
            return None
        parts.append(part)
    return short_digest(repr(parts).encode("utf-8", "surrogateescape"))


def _content_part(item: Any) -> Any:
    if item is None or type(item) is int:
        return item
    if isinstance(item, Mem):
        return ("mem", bytes(item.data), item.elem)
    if isinstance(item, Ptr):
        return ("ptr", bytes(item.mem.data), item.mem.elem, item.off)
    if isinstance(item, LocalStruct) and not item.indeterminate:
        fields = []
        for name in sorted(item.fields):
            value = item.fields[name]
            part = _content_part(value)
            if part is None and value is not None:
                return None
            fields.append((name, part))
        return ("struct", item.key, item.zeroed, tuple(fields))
    return None


def symbolic_element(obj: Any, i: Sym, elem: tuple, where: str, noted: Callable[[str], None] | None = None) -> Any:
    """`tbl[i]` for an index computed from inputs, in proof mode: an uninterpreted value named by
    the table's contents and the index's expression (see `symbolic_name`, `content_name`), so the
    proof covers every value the table could hold there. Reading outside the table is undefined
    behaviour, the same on both sides for the same index. NOTED as for `free_path`."""
    if isinstance(obj, Free) and i.tree[0] == "in" and i.tree[1].startswith("#"):
        element = iteration_element(obj, i)  # s->v[i] in a loop traced by induction
        if noted is not None:
            noted(element.key)
        return element
    index = symbolic_name(i)
    if isinstance(obj, Free):
        if index.endswith("#"):  # `s->v[n - 1 - i]`: the caller's element of another iteration
            raise NotProvable("an index depends on an input and the loop's iteration")
        base, j = pointer_parts(obj.key)
        key = f"{base}[{j}+{index}]"
        if len(key) > MAX_KEY_BYTES:
            raise NotProvable("an index depends on an input (a path too long to name)")
        if noted is not None:
            noted(key)
        return Free(key)
    if isinstance(obj, Mem):
        obj = Ptr(obj)
    contents = content_name(obj.mem if isinstance(obj, Ptr) else obj) if isinstance(obj, (list, Ptr)) else None
    if contents is None:
        raise NotProvable("an index depends on an input")
    if isinstance(obj, list):
        return Free(f"{{table {contents}}}[{index}]")
    et = obj.mem.elem if elem[0] != "int" else elem
    if et[0] != "int":
        raise NotProvable("an index depends on an input")
    return Sym.input(f"{{array {contents}+{obj.off}:{et[1]}}}[{index}]", et[1], et[2])


def memory_state_key(p: Ptr) -> str:
    """A pointer into the code's own memory, by the bytes it holds (a callee may read them):
    `&_` while they are all zero, so an out-parameter buffer is named the same on both sides."""
    if isinstance(p.mem.data, SymbolicText):
        return f"&[{p.off}:{len(p.mem.data)}:{{{p.mem.data.text.key}}}]"
    data = bytes(p.mem.data)
    if not any(data):
        return "&_" if p.off == 0 else f"&_[{p.off}]"
    digest = short_digest(data)
    return f"&[{p.off}:{len(data)}:{digest}]"


def struct_state_key(s: LocalStruct, f: Frame, text: str, where: str) -> str:
    """A local struct passed by address, by what it holds: `&_` while nothing is known of it
    (an out-parameter), else the call that filled it, whether it was zeroed, and its set fields."""
    parts = [] if s.indeterminate or not s.key else [s.key]
    if s.indeterminate and s.fields:
        parts.append("_")
    if s.zeroed:
        parts.append("0")
    for name in sorted(s.fields):
        # a field holding an input is named by its expression, as an argument is (`value_key`)
        parts.append(f"{name}={value_key(s.fields[name], f, CHAR, text, where)}")
    return "&{" + "|".join(parts) + "}" if parts else "&_"
