"""Interpreter for kernel output code: tree-sitter C compiled to Python closures.

Each function body is compiled once into nested closures (`_compile_*`), then run many times, once
per input vector: this is what lets the engine render tens of thousands of inputs per second
through both sides. The closures implement C integer semantics (8/16/32/64-bit, signed and
unsigned, the usual arithmetic conversions, wraparound, shifts), local arrays and string literals
as bytes, `sizeof`, control flow with a step bound, helpers defined in the input, and calls to the
seq_file primitives, which go to an output object (`fmtcheck.c.outputs`).

What the code does not define is an input shared by both sides:
- a free variable or struct member path (`stats->rx_bytes`, `mss.pss`) is an input keyed by its
  path; pointers returned by calls the input does not define are keyed by the call, so both sides
  see the same value for the same call;
- an uninterpreted call is a pure function of its name and argument values; if it receives the
  seq_file, it is an opaque output event that both sides must make in the same order;
- an undefined upper-case constant comes from `fmtcheck.kernel.constants` or is an input;
- a `for_each_*` loop runs an input-chosen number of times.

The same closures run on `fmtcheck.c.symbolic.Sym` values in proof mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from fmtcheck.c import cfront
from fmtcheck.common.errors import Inconclusive, InputError, LimitExceeded
from fmtcheck.kernel import constants
from fmtcheck.c.symbolic import NotProvable, Sym, wrap as sym_wrap

MAX_STEPS = 200_000
MAX_CALL_DEPTH = 48
MAX_LOCAL_ARRAY = 1 << 20

# C types are small tuples: ("int", bits, signed), ("ptr", elem), ("array", elem, n),
# ("struct", name), ("void",), ("free",) for a value whose type only its use decides.
U64 = ("int", 64, False)
S64 = ("int", 64, True)
U32 = ("int", 32, False)
S32 = ("int", 32, True)
U8 = ("int", 8, False)
S8 = ("int", 8, True)
CHAR = S8
VOID = ("void",)
FREE = ("free",)
CHAR_PTR = ("ptr", CHAR)

_BASE_TYPES = {
    "char": S8, "signed char": S8, "unsigned char": U8, "u8": U8, "s8": S8, "__u8": U8, "__s8": S8,
    "short": ("int", 16, True), "unsigned short": ("int", 16, False), "u16": ("int", 16, False),
    "s16": ("int", 16, True), "__u16": ("int", 16, False), "__s16": ("int", 16, True),
    "int": S32, "signed": S32, "unsigned": U32, "unsigned int": U32, "u32": U32, "s32": S32,
    "__u32": U32, "__s32": S32, "long": S64, "unsigned long": U64, "long long": S64,
    "unsigned long long": U64, "u64": U64, "s64": S64, "__u64": U64, "__s64": S64,
    "size_t": U64, "ssize_t": S64, "loff_t": S64, "off_t": S64, "ptrdiff_t": S64, "uintptr_t": U64,
    "bool": ("int", 8, False, "bool"), "_Bool": ("int", 8, False, "bool"), "pid_t": S32, "uid_t": U32, "gid_t": U32, "umode_t": ("int", 16, False),
    "atomic_long_t": S64, "atomic_t": S32, "time64_t": S64, "ktime_t": S64, "dev_t": U32,
    "sector_t": U64, "blkcnt_t": U64, "phys_addr_t": U64, "resource_size_t": U64, "gfp_t": U32,
    "vm_flags_t": U64, "pgoff_t": U64, "long int": S64, "unsigned long int": U64, "short int": ("int", 16, True),
}


def int_type(t: tuple) -> tuple:
    """The integer type a value of type t behaves as (pointers as u64, free values as u64)."""
    return t if t[0] == "int" else U64


def promote(t: tuple) -> tuple:
    t = int_type(t)[:3]
    return S32 if t[1] < 32 else t


def usual(a: tuple, b: tuple) -> tuple:
    """C's usual arithmetic conversions over (bits, signed) integer types."""
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a[2] == b[2]:
        return a if a[1] >= b[1] else b
    unsigned, signed = (a, b) if not a[2] else (b, a)
    if unsigned[1] >= signed[1]:
        return unsigned
    return signed


def conv(v: Any, t: tuple) -> Any:
    """Convert a value to integer type t (truncate, sign-extend; bool is 0 or 1)."""
    if len(t) > 3:
        return 1 if v else 0
    if type(v) is int:
        bits = t[1]
        v &= (1 << bits) - 1
        if t[2] and v >> (bits - 1):
            v -= 1 << bits
        return v
    if isinstance(v, Sym):
        return sym_wrap(v, t[1], t[2])
    raise TypeError(v)


def type_size(t: tuple) -> int:
    kind = t[0]
    if kind == "int":
        return t[1] // 8
    if kind == "ptr":
        return 8
    if kind == "array":
        return type_size(t[1]) * t[2]
    raise Inconclusive("sizeof", f"size of {t} is not known to the model")


# ---------------------------------------------------------------------------------------------
# runtime values


class Mem:
    """A byte array owned by the code (a local array or a string literal)."""

    __slots__ = ("data", "readonly", "elem")

    def __init__(self, data: bytearray, readonly: bool = False, elem: tuple = CHAR) -> None:
        self.data = data
        self.readonly = readonly
        self.elem = elem


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


class LocalStruct:
    """A struct declared in the code; fields it never set are inputs (filled by unknown code)."""

    __slots__ = ("key", "fields", "zeroed")

    def __init__(self, key: str) -> None:
        self.key = key
        self.fields: dict[str, Any] = {}
        self.zeroed = False


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


# ---------------------------------------------------------------------------------------------
# the run-time context


class Context:
    """One run of one side: the inputs, the output, the step budget."""

    __slots__ = ("inputs", "out", "steps", "depth", "aliases", "side", "bindings", "seq")

    def __init__(self, inputs: Any, out: Any, side: str = "") -> None:
        self.inputs = inputs
        self.out = out
        self.steps = 0
        self.depth = 0
        self.aliases: dict[str, str] = {}
        self.side = side
        self.bindings: list[dict[str, str]] = []  # helper parameter -> the caller's argument text
        self.seq: SeqHandle = SEQ


@dataclass
class Frame:
    ctx: Context
    vars: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# compiler


@dataclass
class Expr:
    fn: Callable[[Frame], Any]
    type: tuple
    text: str
    node: Any = None
    const: Any = None  # a compile-time value, when known


PRIMITIVES = {
    "seq_printf", "seq_puts", "seq_putc", "seq_write", "seq_put_decimal_ull", "seq_put_decimal_ull_width",
    "seq_put_decimal_ll", "seq_put_hex_ll", "seq_setwidth", "seq_pad", "seq_escape", "seq_escape_mem",
    "seq_escape_str", "seq_path", "__seq_puts", "seq_vprintf",
}

IDENTITY_CALLS = {"likely", "unlikely", "READ_ONCE", "data_race", "ACCESS_ONCE", "__builtin_expect"}


class Program:
    """The compiled functions of one side."""

    def __init__(self, unit: cfront.Unit, space: "InputSpace", label: str) -> None:
        self.unit = unit
        self.space = space
        self.label = label
        self.compiled: dict[str, Callable] = {}
        self.signatures: dict[str, list[tuple[str, tuple]]] = {}
        self.globals: dict[str, tuple[Callable[[Frame], Any], tuple]] = {}
        self.seq_names = _seq_file_names(unit)
        self.own_primitives = sorted(name for name in unit.functions if name in PRIMITIVES)
        self.unmodelled: dict[str, Inconclusive] = {}
        for decl in unit.globals:
            self._compile_global(decl)

    # -- locations ------------------------------------------------------------------------
    def where(self, node) -> str:
        return f"{self.unit.where}:{self.unit.user_line(node)}"

    def line(self, node) -> int:
        return self.unit.user_line(node)

    def unsupported(self, node, what: str) -> Inconclusive:
        return Inconclusive(self.where(node), what)

    # -- functions ------------------------------------------------------------------------
    def function(self, name: str) -> Callable:
        if name in self.compiled:
            return self.compiled[name]
        node = self.unit.functions.get(name)
        if node is None:
            raise KeyError(name)
        err = cfront.syntax_error_in(node, self.unit)
        if err:
            raise InputError(f"{self.unit.where}:{err[0]}", f"C syntax error near '{err[1]}'")
        placeholder: list[Callable] = []

        def trampoline(ctx: Context, args: list[Any]) -> Any:
            return placeholder[0](ctx, args)

        self.compiled[name] = trampoline
        params = self._params(node)
        self.signatures[name] = params
        body = self._compile_block(node.child_by_field_name("body"), dict(params))
        ret_type = self._declared_type(node, node.child_by_field_name("declarator"))

        def call(ctx: Context, args: list[Any]) -> Any:
            if ctx.depth >= MAX_CALL_DEPTH:
                raise LimitExceeded(self.where(node), f"recursion deeper than {MAX_CALL_DEPTH} calls")
            frame = Frame(ctx)
            for (pname, ptype), value in zip(params, args):
                frame.vars[pname] = _convert_arg(value, ptype)
            ctx.depth += 1
            try:
                signal = body(frame)
            finally:
                ctx.depth -= 1
            if isinstance(signal, Goto):
                raise Inconclusive(signal.where, f"goto {signal.label}: no such label in an enclosing block")
            if isinstance(signal, Return):
                value = signal.value
                return conv(value, ret_type) if ret_type[0] == "int" and isinstance(value, (int, Sym)) else value
            return 0

        placeholder.append(call)
        return trampoline

    def _params(self, node) -> list[tuple[str, tuple]]:
        decl = node.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        out: list[tuple[str, tuple]] = []
        if decl is None:
            return out
        plist = decl.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            if p.type != "parameter_declaration":
                continue
            d = p.child_by_field_name("declarator")
            if d is None:
                continue
            name = _declarator_name(d)
            if name:
                out.append((name, self._declared_type(p, d)))
        return out

    # -- types ----------------------------------------------------------------------------
    def _base_type(self, type_node) -> tuple:
        if type_node is None:
            return S32
        text = " ".join(type_node.text.decode("latin-1").split())
        if type_node.type == "struct_specifier":
            name = type_node.child_by_field_name("name")
            if text.startswith("struct seq_file") or (name is not None and name.text == b"seq_file"):
                return ("struct", "seq_file")
            return ("struct", name.text.decode("latin-1") if name is not None else "?")
        if type_node.type in ("enum_specifier",):
            return S32
        if text in _BASE_TYPES:
            return _BASE_TYPES[text]
        if text.startswith("unsigned ") and "long" in text:
            return U64
        if "long" in text:
            return U64 if "unsigned" in text else S64
        if type_node.type == "type_identifier":
            return FREE
        return FREE

    def _declared_type(self, decl_node, declarator) -> tuple:
        base = self._base_type(decl_node.child_by_field_name("type"))
        t = base
        d = declarator
        while d is not None:
            if d.type in ("pointer_declarator", "abstract_pointer_declarator"):
                t = ("ptr", t)
            elif d.type in ("array_declarator", "abstract_array_declarator"):
                size = d.child_by_field_name("size")
                n = None
                if size is not None:
                    n = self._const_int(size)
                t = ("array", t, n)
            elif d.type == "function_declarator":
                pass
            if d.type in ("identifier", "field_identifier"):
                break
            d = d.child_by_field_name("declarator")
        return t

    def _const_int(self, node) -> int | None:
        try:
            e = self.expr(node, {})
        except Inconclusive:
            return None
        if e.const is not None and isinstance(e.const, int):
            return e.const
        return None

    # -- globals --------------------------------------------------------------------------
    def _compile_global(self, decl) -> None:
        for child in decl.children:
            if child.type not in ("init_declarator", "identifier", "array_declarator"):
                continue
            d = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            name = _declarator_name(d)
            if not name:
                continue
            t = self._declared_type(decl, d)
            init = child.child_by_field_name("value") if child.type == "init_declarator" else None
            if t[0] == "array" and t[2] is None and init is not None and init.type == "initializer_list":
                t = ("array", t[1], len([c for c in init.named_children if c.type != "comment"]))
            try:
                self.globals[name] = (self._initializer(t, init, {}, name), t)
            except Inconclusive as err:
                self.unmodelled[name] = err

    # -- statements -----------------------------------------------------------------------
    def _compile_block(self, node, scope: dict[str, tuple]) -> Callable[[Frame], Any]:
        if node is None:
            return lambda f: None
        scope = dict(scope)
        children = [c for c in node.named_children if c.type != "comment"]
        labels: dict[str, int] = {}
        stmts = []
        for c in children:
            if c.type == "labeled_statement":
                labels[c.child_by_field_name("label").text.decode("latin-1")] = len(stmts)
            s = self.stmt(c, scope)
            if s is not None:
                stmts.append(s)
        if labels:
            return self._block_with_labels(stmts, labels, node)
        if len(stmts) == 1:
            return stmts[0]

        def run(f: Frame) -> Any:
            for s in stmts:
                r = s(f)
                if r is not None:
                    return r
            return None

        return run

    def _block_with_labels(self, stmts: list, labels: dict[str, int], node) -> Callable[[Frame], Any]:
        """A block holding labels: a goto to one of them continues from there (forward, as in the
        kernel's `goto overflow;`, or backward, under the step bound)."""
        step = self._step(node)

        def run(f: Frame) -> Any:
            i = 0
            while i < len(stmts):
                r = stmts[i](f)
                if r is None:
                    i += 1
                    continue
                if isinstance(r, Goto) and r.label in labels:
                    step(f)
                    i = labels[r.label]
                    continue
                return r
            return None

        return run

    def stmt(self, node, scope: dict[str, tuple]) -> Callable[[Frame], Any] | None:
        kind = node.type
        handler = getattr(self, "_stmt_" + kind, None)
        if handler is None:
            if kind == "ERROR":
                raise InputError(self.where(node), f"C syntax error near '{_snip(node)}'")
            raise self.unsupported(node, f"unsupported statement '{kind}'")
        return handler(node, scope)

    def _step(self, node) -> Callable[[Frame], None]:
        where = self.where(node)

        def step(f: Frame) -> None:
            ctx = f.ctx
            ctx.steps += 1
            if ctx.steps > MAX_STEPS:
                raise LimitExceeded(where, f"step limit reached ({MAX_STEPS} steps)")

        return step

    def _stmt_compound_statement(self, node, scope):
        return self._compile_block(node, scope)

    def _stmt_expression_statement(self, node, scope):
        if not node.named_children:
            return None
        e = self.expr(node.named_children[0], scope)
        fn = e.fn

        def run(f: Frame) -> None:
            fn(f)

        return run

    def _stmt_declaration(self, node, scope):
        actions: list[Callable[[Frame], None]] = []
        for child in node.children:
            if child.type not in ("init_declarator", "identifier", "array_declarator", "pointer_declarator"):
                continue
            d = child.child_by_field_name("declarator") if child.type == "init_declarator" else child
            name = _declarator_name(d)
            if not name:
                continue
            t = self._declared_type(node, d)
            init = child.child_by_field_name("value") if child.type == "init_declarator" else None
            if t[0] == "array" and t[2] is None and init is not None:
                if init.type in ("string_literal", "concatenated_string"):
                    t = ("array", t[1], len(self.string_bytes(init)) + 1)
                elif init.type == "initializer_list":
                    t = ("array", t[1], len([c for c in init.named_children if c.type != "comment"]))
            make = self._initializer(t, init, scope, name)
            scope[name] = t
            actions.append(_declare(name, make))
        if not actions:
            return None

        def run(f: Frame) -> None:
            for a in actions:
                a(f)

        return run

    def _initializer(self, t: tuple, init, scope: dict[str, tuple], name: str) -> Callable[[Frame], Any]:
        if t[0] == "array":
            return self._array_init(t, init, scope, name)
        if t[0] == "struct" and t[1] != "seq_file":
            if init is not None and init.type == "initializer_list":
                def make_struct(f: Frame) -> Any:
                    s = LocalStruct("&" + name)
                    s.zeroed = True
                    return s
                return make_struct
            if init is None:
                return lambda f: LocalStruct(name)
        if init is None:
            if t[0] == "int":
                return lambda f: 0
            return lambda f: Free(name)
        e = self.expr(init, scope)
        fn = e.fn
        if t[0] == "int":
            def init_int(f: Frame) -> Any:
                return conv(_as_int(fn(f), f, t, e.text), t)
            return init_int

        def init_other(f: Frame) -> Any:
            value = fn(f)
            if isinstance(value, Free):
                f.ctx.aliases.setdefault(value.key, name)
            return value

        return init_other

    def _array_init(self, t: tuple, init, scope: dict[str, tuple], name: str) -> Callable[[Frame], Any]:
        elem = t[1]
        n = t[2]
        esize = type_size(elem) if elem[0] == "int" else 8
        if init is not None and init.type in ("string_literal", "concatenated_string"):
            data = self.string_bytes(init) + b"\x00"
            size = n if n is not None else len(data)
            content = bytearray(data[:size].ljust(size, b"\x00"))
            return lambda f: Mem(bytearray(content), elem=elem)
        if init is not None and init.type == "initializer_list":
            items = [self.expr(c, scope) for c in init.named_children if c.type != "comment"]
            size = n if n is not None else len(items)
            if size * esize > MAX_LOCAL_ARRAY:
                raise LimitExceeded(self.where(init), "local array too large")
            fns = [i.fn for i in items]
            if elem[0] == "ptr":
                # a table of strings (state names, flag mnemonics): a list of pointers
                def make_table(f: Frame) -> list:
                    return [fn(f) for fn in fns] + [0] * (size - len(fns))
                return make_table
            if elem[0] != "int":
                raise self.unsupported(init, "arrays of non-integer elements are not modelled")

            def make_list(f: Frame) -> Mem:
                buf = bytearray(size * esize)
                for k, fn in enumerate(fns[:size]):
                    v = _as_int(fn(f), f, elem, "")
                    buf[k * esize:(k + 1) * esize] = (conv(v, (elem[0], elem[1], False)) & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
                return Mem(buf, elem=elem)

            return make_list
        if n is None:
            raise self.unsupported(init if init is not None else None, f"array {name} has no size")
        if n < 0:
            raise Inconclusive(name, f"array {name} has a negative size ({n})")
        if n * esize > MAX_LOCAL_ARRAY:
            raise LimitExceeded(name, f"local array of {n * esize} bytes is over the limit")
        return lambda f: Mem(bytearray(n * esize), elem=elem)

    def _stmt_if_statement(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope)
        then = self.stmt(node.child_by_field_name("consequence"), dict(scope)) or (lambda f: None)
        alt_node = node.child_by_field_name("alternative")
        if alt_node is not None and alt_node.type == "else_clause":
            alt_node = alt_node.named_children[0] if alt_node.named_children else None
        alt = self.stmt(alt_node, dict(scope)) if alt_node is not None else None

        if alt is None:
            def run_if(f: Frame) -> Any:
                if cond(f):
                    return then(f)
                return None
            return run_if

        def run_if_else(f: Frame) -> Any:
            if cond(f):
                return then(f)
            return alt(f)

        return run_if_else

    def _cond(self, node, scope) -> Callable[[Frame], Any]:
        if node is not None and node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        e = self.expr(node, scope)
        fn = e.fn
        t = e.type
        text = e.text

        def cond(f: Frame) -> Any:
            v = fn(f)
            if type(v) is int:
                return v != 0
            return _truth(v, f, t, text)

        return cond

    def _stmt_for_statement(self, node, scope):
        scope = dict(scope)
        init_node = node.child_by_field_name("initializer")
        cond_node = node.child_by_field_name("condition")
        update_node = node.child_by_field_name("update")
        if cond_node is not None and cond_node.type == "call_expression" and _callee(cond_node) == "__fc_each":
            return self._foreach(node, cond_node, scope)
        body = self.stmt(node.child_by_field_name("body"), scope) or (lambda f: None)
        init = None
        if init_node is not None:
            init = (self.stmt(init_node, scope) if init_node.type == "declaration"
                    else self.expr(init_node, scope).fn)
        cond = self._cond(cond_node, scope) if cond_node is not None else (lambda f: True)
        update = self.expr(update_node, scope).fn if update_node is not None else None
        step = self._step(node)

        def run_for(f: Frame) -> Any:
            if init is not None:
                init(f)
            while cond(f):
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
                if update is not None:
                    update(f)
            return None

        return run_for

    def _foreach(self, node, call, scope):
        args = call.child_by_field_name("arguments").named_children
        macro = self.string_bytes(args[0]).decode("latin-1")
        rest = args[1:]
        iterator = rest[0] if rest else None
        per_cpu = "cpu" in macro
        if iterator is not None and iterator.type == "identifier":
            scope.setdefault(iterator.text.decode("latin-1"), S32 if per_cpu else FREE)
        body = self.stmt(node.child_by_field_name("body"), scope) or (lambda f: None)
        setter = self.lvalue(iterator, scope)[1] if iterator is not None and iterator.type in (
            "identifier", "field_expression") else None
        others = ",".join(a.text.decode("latin-1") for a in rest[1:])
        loop_key = f"{macro}({others})" if others else macro
        step = self._step(node)

        def run_each(f: Frame) -> Any:
            count = f.ctx.inputs.loop_count(loop_key)
            for k in range(count):
                step(f)
                if setter is not None:
                    setter(f, k if per_cpu else Free(f"{loop_key}[{k}]"))
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
            return None

        return run_each

    def _stmt_while_statement(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope)
        body = self.stmt(node.child_by_field_name("body"), dict(scope)) or (lambda f: None)
        step = self._step(node)

        def run_while(f: Frame) -> Any:
            while cond(f):
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
            return None

        return run_while

    def _stmt_do_statement(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope)
        body = self.stmt(node.child_by_field_name("body"), dict(scope)) or (lambda f: None)
        step = self._step(node)

        def run_do(f: Frame) -> Any:
            while True:
                step(f)
                r = body(f)
                if r is not None and r is not CONTINUE:
                    return None if r is BREAK else r
                if not cond(f):
                    break
            return None

        return run_do

    def _stmt_break_statement(self, node, scope):
        return lambda f: BREAK

    def _stmt_continue_statement(self, node, scope):
        return lambda f: CONTINUE

    def _stmt_return_statement(self, node, scope):
        if not node.named_children:
            return lambda f: Return(0)
        fn = self.expr(node.named_children[0], scope).fn
        return lambda f: Return(fn(f))

    def _stmt_labeled_statement(self, node, scope):
        inner = [c for c in node.named_children if c.type != "statement_identifier"]
        return self.stmt(inner[0], scope) if inner else None

    def _stmt_goto_statement(self, node, scope):
        signal = Goto(node.child_by_field_name("label").text.decode("latin-1"), self.where(node))
        return lambda f: signal

    def _stmt_switch_statement(self, node, scope):
        value = self.expr(node.child_by_field_name("condition"), scope)
        body = node.child_by_field_name("body")
        cases: list[tuple[Callable | None, list[Callable]]] = []
        for c in body.named_children:
            if c.type != "case_statement":
                s = self.stmt(c, scope)
                if s is not None and cases:
                    cases[-1][1].append(s)
                continue
            v = c.child_by_field_name("value")
            matcher = self.expr(v, scope).fn if v is not None else None
            body_nodes = c.named_children[1:] if v is not None else c.named_children
            stmts = [self.stmt(x, scope) for x in body_nodes if x.type != "comment"]
            cases.append((matcher, [s for s in stmts if s is not None]))
        vfn = value.fn
        vt = value.type

        def run_switch(f: Frame) -> Any:
            v = _as_int(vfn(f), f, vt, value.text)
            start = None
            for k, (matcher, _) in enumerate(cases):
                if matcher is not None and _as_int(matcher(f), f, vt, "") == v:
                    start = k
                    break
            if start is None:
                start = next((k for k, (m, _) in enumerate(cases) if m is None), None)
            if start is None:
                return None
            for _, stmts in cases[start:]:
                for s in stmts:
                    r = s(f)
                    if r is BREAK:
                        return None
                    if r is not None:
                        return r
            return None

        return run_switch

    def _stmt_type_definition(self, node, scope):
        return None

    def _stmt_struct_specifier(self, node, scope):
        return None

    # -- expressions ----------------------------------------------------------------------
    def expr(self, node, scope: dict[str, tuple]) -> Expr:
        if node is None:
            raise InputError(self.unit.where, "missing expression")
        handler = getattr(self, "_expr_" + node.type, None)
        if handler is None:
            if node.type == "ERROR":
                raise InputError(self.where(node), f"C syntax error near '{_snip(node)}'")
            raise self.unsupported(node, f"unsupported expression '{node.type}'")
        return handler(node, scope)

    def _expr_parenthesized_expression(self, node, scope):
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            raise self.unsupported(node, "unsupported parenthesised expression")
        return self.expr(inner[0], scope)

    def _expr_number_literal(self, node, scope):
        text = node.text.decode("latin-1")
        try:
            value, t = _parse_number(text)
        except ValueError:
            raise InputError(self.where(node), f"malformed number literal '{text[:40]}'") from None
        if value is None:
            raise self.unsupported(node, f"floating-point literal {text}")
        return Expr(lambda f: value, t, text, node, value)

    def _expr_char_literal(self, node, scope):
        data = _unescape(node.text[1:-1])
        value = data[0] if data else 0
        value = value - 256 if value > 127 else value
        return Expr(lambda f: value, S32, node.text.decode("latin-1"), node, value)

    def _expr_true(self, node, scope):
        return Expr(lambda f: 1, S32, "true", node, 1)

    def _expr_false(self, node, scope):
        return Expr(lambda f: 0, S32, "false", node, 0)

    def _expr_null(self, node, scope):
        return Expr(lambda f: 0, ("ptr", VOID), "NULL", node, 0)

    def string_bytes(self, node) -> bytes:
        if node.type == "string_literal":
            content = b"".join(
                c.text if c.type in ("string_content", "escape_sequence") else b""
                for c in node.children
            )
            prefix = node.text[:1]
            if prefix in (b"L", b"u", b"U"):
                raise self.unsupported(node, "wide string literals are not modelled")
            return _unescape(content)
        if node.type == "concatenated_string":
            parts = []
            for c in node.named_children:
                if c.type == "string_literal":
                    parts.append(self.string_bytes(c))
                elif c.type == "identifier":
                    parts.append(self._string_constant(c))
                else:
                    raise self.unsupported(c, "unsupported piece of a concatenated string")
            return b"".join(parts)
        if node.type == "parenthesized_expression" and node.named_children:
            return self.string_bytes(node.named_children[0])
        raise self.unsupported(node, "expected a string literal")

    def _string_constant(self, node) -> bytes:
        name = node.text.decode("latin-1")
        value = constants.STRING_MACROS.get(name)
        if value is None:
            raise self.unsupported(node, f"string macro {name} is not defined in the input")
        return value

    def _expr_string_literal(self, node, scope):
        data = self.string_bytes(node)
        mem = Mem(bytearray(data + b"\x00"), readonly=True)
        return Expr(lambda f: Ptr(mem), ("array", CHAR, len(data) + 1), node.text.decode("latin-1"), node, data)

    _expr_concatenated_string = _expr_string_literal

    def _expr_identifier(self, node, scope):
        name = node.text.decode("latin-1")
        if name in scope:
            return Expr(lambda f: f.vars[name], scope[name], name, node)
        if name in self.unmodelled:
            raise self.unmodelled[name]
        if name in self.globals:
            make, t = self.globals[name]
            cache: list[Any] = []

            def read_global(f: Frame) -> Any:
                if not cache:
                    cache.append(make(f))
                return cache[0]

            return Expr(read_global, t, name, node)
        if name in ("NULL",):
            return Expr(lambda f: 0, ("ptr", VOID), name, node, 0)
        if name in ("true", "false"):
            v = int(name == "true")
            return Expr(lambda f: v, S32, name, node, v)
        if name in constants.INT_CONSTANTS:
            value, t = constants.INT_CONSTANTS[name]
            return Expr(lambda f: value, t, name, node, value)
        if name in self.unit.functions:
            return Expr(lambda f: Free(name), FREE, name, node)
        if name.isupper() or re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
            key = name
            hint = self.space.hint(name) or U64
            if hint[0] != "int":
                raise self.unsupported(node, f"macro {name} is not defined in the input")
            return Expr(lambda f: f.ctx.inputs.int_input(key, hint), hint, name, node)
        if name in self.seq_names:
            # a fragment's undeclared seq_file (`m` in a bare statement list)
            return Expr(lambda f: f.ctx.seq, ("ptr", ("struct", "seq_file")), name, node)
        # a free variable: the caller's data
        return Expr(lambda f: Free(name), FREE, name, node)

    def _expr_field_expression(self, node, scope):
        base = self.expr(node.child_by_field_name("argument"), scope)
        op = node.child_by_field_name("operator").text.decode()
        fname = node.child_by_field_name("field").text.decode("latin-1")
        bfn = base.fn
        text = node.text.decode("latin-1")
        where = self.where(node)

        def member(f: Frame) -> Any:
            obj = bfn(f)
            if isinstance(obj, Free):
                return Free(f"{obj.key}{op}{fname}")
            if isinstance(obj, LocalStruct):
                if fname in obj.fields:
                    return obj.fields[fname]
                if obj.zeroed:
                    return 0
                return Free(f"{obj.key}.{fname}")
            if isinstance(obj, CSeqFile):
                if fname in obj.fields:
                    return obj.fields[fname]
                raise Inconclusive(where, f"seq_file member '{fname}' is not modelled")
            if isinstance(obj, SeqHandle):
                if fname == "private":
                    return Free("m->private")  # the show function's data, an input like any other
                raise Inconclusive(where, f"direct access to seq_file member '{fname}' is not modelled")
            raise Inconclusive(where, f"member '{fname}' of a non-struct value")

        hint = self.space.hint(text)
        return Expr(member, hint or FREE, text, node)

    def _expr_subscript_expression(self, node, scope):
        base = self.expr(node.child_by_field_name("argument"), scope)
        index = self.expr(node.child_by_field_name("index"), scope)
        bfn, ifn = base.fn, index.fn
        elem = base.type[1] if base.type[0] in ("array", "ptr") else FREE
        text = node.text.decode("latin-1")
        where = self.where(node)

        def subscript(f: Frame) -> Any:
            obj = bfn(f)
            i = _as_int(ifn(f), f, index.type, index.text)
            if isinstance(i, Sym):
                raise NotProvable("an index depends on an input")
            if isinstance(obj, Free):
                return Free(f"{obj.key}[{i}]")
            if isinstance(obj, list):
                if not 0 <= i < len(obj):
                    raise Inconclusive(where, f"index {i} is outside the table")
                return obj[i]
            if isinstance(obj, Mem):
                obj = Ptr(obj)
            if isinstance(obj, Ptr):
                et = obj.mem.elem if elem == FREE else elem
                size = type_size(et) if et[0] == "int" else 1
                off = obj.off + i * size
                if i < 0 and obj.off + i * size < 0 or off + size > len(obj.mem.data) or off < 0:
                    raise Inconclusive(where, f"index {i} is outside the array")
                raw = int.from_bytes(obj.mem.data[off:off + size], "little")
                return conv(raw, et) if et[0] == "int" else raw
            raise Inconclusive(where, "subscript of a value that is not an array")

        return Expr(subscript, elem if elem != FREE else (self.space.hint(text) or FREE), text, node)

    def _expr_call_expression(self, node, scope):
        return self.call(node, scope)

    def _expr_sizeof_expression(self, node, scope):
        tnode = node.child_by_field_name("type")
        vnode = node.child_by_field_name("value")
        text = node.text.decode("latin-1")
        if tnode is not None:
            t = self._declared_type(tnode, tnode.child_by_field_name("declarator"))
            size = type_size(t)
        else:
            inner = vnode
            while inner.type == "parenthesized_expression" and inner.named_children:
                inner = inner.named_children[0]
            if inner.type in ("string_literal", "concatenated_string"):
                size = len(self.string_bytes(inner)) + 1
            elif inner.type == "identifier" and inner.text.decode("latin-1") in _BASE_TYPES and inner.text.decode("latin-1") not in scope:
                size = type_size(_BASE_TYPES[inner.text.decode("latin-1")])
            else:
                e = self.expr(inner, scope)
                if e.type[0] == "array" and e.type[2] is not None:
                    size = type_size(e.type)
                elif e.type[0] in ("int", "ptr"):
                    size = type_size(e.type)
                else:
                    raise self.unsupported(node, f"sizeof of '{e.text}' whose type is not known")
        return Expr(lambda f: size, U64, text, node, size)

    def _expr_cast_expression(self, node, scope):
        tnode = node.child_by_field_name("type")
        t = self._declared_type(tnode, tnode.child_by_field_name("declarator"))
        value = self.expr(node.child_by_field_name("value"), scope)
        return self._cast_to(t, value, node, node.text.decode("latin-1"))

    def _cast_to(self, t: tuple, value: Expr, node, text: str) -> Expr:
        vfn = value.fn
        if t[0] == "int":
            src_t = value.type if value.type[0] == "int" else (self.space.hint(value.text) or U64)

            def cast(f: Frame) -> Any:
                return conv(_as_int(vfn(f), f, src_t, value.text), t)

            const = conv(value.const, t) if isinstance(value.const, int) else None
            return Expr(cast, t, text, node, const)
        return Expr(vfn, t if t[0] != "void" else value.type, text, node)

    def _expr_unary_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        arg = self.expr(node.child_by_field_name("argument"), scope)
        afn = arg.fn
        t = promote(int_type(arg.type)) if arg.type[0] == "int" else (promote(self.space.hint(arg.text) or U64))
        text = node.text.decode("latin-1")
        src = arg.type if arg.type[0] == "int" else t
        if op == "!":
            def lnot(f: Frame) -> Any:
                v = afn(f)
                return int(not _truth(v, f, src, arg.text))
            return Expr(lnot, S32, text, node, (int(not arg.const) if isinstance(arg.const, int) else None))
        if op == "-":
            def neg(f: Frame) -> Any:
                return conv(-_as_int(afn(f), f, src, arg.text), t)
            return Expr(neg, t, text, node, conv(-arg.const, t) if isinstance(arg.const, int) else None)
        if op == "+":
            return Expr(lambda f: conv(_as_int(afn(f), f, src, arg.text), t), t, text, node, arg.const)
        if op == "~":
            def inv(f: Frame) -> Any:
                return conv(~_as_int(afn(f), f, src, arg.text), t)
            return Expr(inv, t, text, node, conv(~arg.const, t) if isinstance(arg.const, int) else None)
        raise self.unsupported(node, f"unary operator {op}")

    def _expr_pointer_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        argnode = node.child_by_field_name("argument")
        arg = self.expr(argnode, scope)
        afn = arg.fn
        text = node.text.decode("latin-1")
        if op == "&":
            def address(f: Frame) -> Any:
                v = afn(f)
                if isinstance(v, Free):
                    return Free("&" + v.key)
                if isinstance(v, LocalStruct):
                    return v
                if isinstance(v, (Mem, Ptr)):
                    return v if isinstance(v, Ptr) else Ptr(v)
                return Free("&" + arg.text)
            return Expr(address, ("ptr", arg.type), text, node)

        def deref(f: Frame) -> Any:
            v = afn(f)
            if isinstance(v, Free):
                return Free("*" + v.key)
            if isinstance(v, Ptr):
                et = v.mem.elem
                size = type_size(et)
                raw = int.from_bytes(v.read(size), "little")
                return conv(raw, et)
            if isinstance(v, LocalStruct):
                return v
            raise Inconclusive(self.where(node), "dereference of a value that is not a pointer")

        elem = arg.type[1] if arg.type[0] in ("ptr", "array") else FREE
        return Expr(deref, elem, text, node)

    def _expr_binary_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        left = self.expr(node.child_by_field_name("left"), scope)
        right = self.expr(node.child_by_field_name("right"), scope)
        text = node.text.decode("latin-1")
        if op in ("&&", "||"):
            return self._logical(op, left, right, node, text)
        if left.type[0] in ("ptr", "array") and op in ("+", "-") and right.type[0] == "int":
            return self._pointer_arith(op, left, right, node, text)
        lt = left.type if left.type[0] == "int" else (self.space.hint(left.text) or U64)
        rt = right.type if right.type[0] == "int" else (self.space.hint(right.text) or U64)
        fn, t = _binary(op, left, right, lt, rt, self.line(node), self.where(node))
        if left.type == FREE and op in ("+", "-"):
            # a member of unknown type may hold a pointer (m->buf + m->count)
            return self._maybe_pointer_arith(op, left, right, fn, t, node, text)
        const = None
        if isinstance(left.const, int) and isinstance(right.const, int) and not isinstance(left.const, bool):
            try:
                const = fn(None)
            except Exception:  # noqa: BLE001 - e.g. division by zero: leave it to run time
                const = None
        if const is not None:
            return Expr(lambda f: const, t, text, node, const)
        return Expr(fn, t, text, node)

    def _maybe_pointer_arith(self, op, left, right, int_fn, t, node, text):
        """`a + b` where a's type is unknown: pointer arithmetic when a holds a pointer at run
        time (m->buf + m->count), integer arithmetic otherwise."""
        lfn, rfn = left.fn, right.fn
        where = self.where(node)
        sign = 1 if op == "+" else -1

        def arith(f: Frame) -> Any:
            value = lfn(f)
            if isinstance(value, (Ptr, Mem)):
                n = _as_int(rfn(f), f, right.type, right.text)
                return _advance(value, sign * n, op, where)
            return int_fn(f)

        return Expr(arith, FREE, text, node)

    def _pointer_arith(self, op, left, right, node, text):
        lfn, rfn = left.fn, right.fn
        elem = left.type[1]
        sign = 1 if op == "+" else -1
        where = self.where(node)

        def padd(f: Frame) -> Any:
            n = _as_int(rfn(f), f, right.type, right.text)
            return _advance(lfn(f), sign * n, op, where)

        return Expr(padd, ("ptr", elem), text, node)

    def _logical(self, op, left, right, node, text):
        lfn, rfn = left.fn, right.fn
        lt, rt = left.type, right.type

        if op == "&&":
            def land(f: Frame) -> Any:
                return int(_truth(lfn(f), f, lt, left.text) and _truth(rfn(f), f, rt, right.text))
            return Expr(land, S32, text, node)

        def lor(f: Frame) -> Any:
            return int(_truth(lfn(f), f, lt, left.text) or _truth(rfn(f), f, rt, right.text))

        return Expr(lor, S32, text, node)

    def _expr_conditional_expression(self, node, scope):
        cond = self._cond(node.child_by_field_name("condition"), scope)
        a = self.expr(node.child_by_field_name("consequence"), scope)
        b = self.expr(node.child_by_field_name("alternative"), scope)
        afn, bfn = a.fn, b.fn
        if a.type[0] == "int" or b.type[0] == "int":
            at = a.type if a.type[0] == "int" else (self.space.hint(a.text) or U64)
            bt = b.type if b.type[0] == "int" else (self.space.hint(b.text) or U64)
            t = usual(at, bt)

            def tern_int(f: Frame) -> Any:
                if cond(f):
                    return conv(_as_int(afn(f), f, at, a.text), t)
                return conv(_as_int(bfn(f), f, bt, b.text), t)

            return Expr(tern_int, t, node.text.decode("latin-1"), node)

        def tern(f: Frame) -> Any:
            return afn(f) if cond(f) else bfn(f)

        return Expr(tern, a.type, node.text.decode("latin-1"), node)

    def _expr_comma_expression(self, node, scope):
        left = self.expr(node.child_by_field_name("left"), scope)
        right = self.expr(node.child_by_field_name("right"), scope)
        lfn, rfn = left.fn, right.fn

        def comma(f: Frame) -> Any:
            lfn(f)
            return rfn(f)

        return Expr(comma, right.type, node.text.decode("latin-1"), node)

    def lvalue(self, node, scope) -> tuple[tuple, Callable[[Frame, Any], None]]:
        """(type, setter) for an assignable expression."""
        while node.type == "parenthesized_expression" and node.named_children:
            node = node.named_children[0]
        if node.type == "identifier":
            name = node.text.decode("latin-1")
            if name not in scope:
                raise self.unsupported(node, f"assignment to '{name}', which the code does not declare")
            t = scope[name]

            def set_var(f: Frame, v: Any) -> None:
                f.vars[name] = v

            return t, set_var
        if node.type == "field_expression":
            base = self.expr(node.child_by_field_name("argument"), scope)
            fname = node.child_by_field_name("field").text.decode("latin-1")
            bfn = base.fn
            where = self.where(node)

            def set_field(f: Frame, v: Any) -> None:
                obj = bfn(f)
                if isinstance(obj, (LocalStruct, CSeqFile)):
                    obj.fields[fname] = v
                    return
                raise Inconclusive(where, f"assignment to member '{fname}' of data the code does not own")

            return FREE, set_field
        if node.type in ("subscript_expression", "pointer_expression"):
            if node.type == "subscript_expression":
                base = self.expr(node.child_by_field_name("argument"), scope)
                index = self.expr(node.child_by_field_name("index"), scope)
            else:
                base = self.expr(node.child_by_field_name("argument"), scope)
                index = Expr(lambda f: 0, S32, "0", None, 0)
            bfn, ifn = base.fn, index.fn
            elem = base.type[1] if base.type[0] in ("array", "ptr") else CHAR
            where = self.where(node)

            def set_elem(f: Frame, v: Any) -> None:
                obj = bfn(f)
                if isinstance(obj, Mem):
                    obj = Ptr(obj)
                if not isinstance(obj, Ptr):
                    raise Inconclusive(where, "store through a pointer the code does not own")
                i = _as_int(ifn(f), f, index.type, index.text)
                if isinstance(i, Sym) or isinstance(v, Sym):
                    raise NotProvable("a store depends on an input")
                et = obj.mem.elem
                size = type_size(et) if et[0] == "int" else 1
                off = obj.off + i * size
                if obj.mem.readonly:
                    raise Inconclusive(where, "store into a string literal")
                if off < 0 or off + size > len(obj.mem.data):
                    raise Inconclusive(where, f"store at index {i} outside the array")
                val = _as_int(v, f, et, "") & ((1 << (8 * size)) - 1)
                obj.mem.data[off:off + size] = val.to_bytes(size, "little")

            return elem, set_elem
        raise self.unsupported(node, f"assignment to {node.type}")

    def _expr_assignment_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        lnode = node.child_by_field_name("left")
        right = self.expr(node.child_by_field_name("right"), scope)
        t, setter = self.lvalue(lnode, scope)
        rfn = right.fn
        text = node.text.decode("latin-1")
        if op == "=":
            if t[0] == "int":
                rt = right.type if right.type[0] == "int" else (self.space.hint(right.text) or U64)

                def assign_int(f: Frame) -> Any:
                    v = conv(_as_int(rfn(f), f, rt, right.text), t)
                    setter(f, v)
                    return v

                return Expr(assign_int, t, text, node)

            def assign(f: Frame) -> Any:
                v = rfn(f)
                setter(f, v)
                return v

            return Expr(assign, t, text, node)
        binop = op[:-1]
        current = self.expr(lnode, scope)
        lt = t if t[0] == "int" else U64
        if current.type[0] in ("ptr", "array") and binop in ("+", "-"):
            combined = self._pointer_arith(binop, current, right, node, text)
            cfn = combined.fn
        else:
            rt = right.type if right.type[0] == "int" else (self.space.hint(right.text) or U64)
            cfn, _ = _binary(binop, current, right, lt, rt, self.line(node), self.where(node))

        def compound(f: Frame) -> Any:
            v = cfn(f)
            if t[0] == "int":
                v = conv(v, t)
            setter(f, v)
            return v

        return Expr(compound, t, text, node)

    def _expr_update_expression(self, node, scope):
        op = node.child_by_field_name("operator").text.decode()
        arg_node = node.child_by_field_name("argument")
        current = self.expr(arg_node, scope)
        t, setter = self.lvalue(arg_node, scope)
        cfn = current.fn
        prefix = node.children[0].type in ("++", "--")
        delta = 1 if op == "++" else -1
        it = t if t[0] == "int" else None

        def update(f: Frame) -> Any:
            old = cfn(f)
            if isinstance(old, Ptr):
                new: Any = Ptr(old.mem, old.off + delta * (type_size(old.mem.elem) if old.mem.elem[0] == "int" else 1))
            else:
                new = conv(_as_int(old, f, it or U64, current.text) + delta, it or U64)
            setter(f, new)
            return new if prefix else old

        return Expr(update, t, node.text.decode("latin-1"), node)

    def _expr_initializer_list(self, node, scope):
        raise self.unsupported(node, "initializer list outside a declaration")

    def _expr_compound_literal_expression(self, node, scope):
        raise self.unsupported(node, "compound literal")

    def _expr_gnu_asm_expression(self, node, scope):
        raise self.unsupported(node, "inline assembly")

    # -- calls ----------------------------------------------------------------------------
    def call(self, node, scope) -> Expr:
        fnode = node.child_by_field_name("function")
        args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
        name = fnode.text.decode("latin-1") if fnode.type == "identifier" else None
        text = node.text.decode("latin-1")
        cast_to = _typedef_cast(fnode)
        if cast_to is not None and len(args) == 1:
            return self._cast_to(cast_to, self.expr(args[0], scope), node, text)
        if name is None:
            raise self.unsupported(node, "call through a function pointer")
        if name in self.unit.functions:
            return self._call_defined(name, args, node, scope, text)
        if name in PRIMITIVES:
            from fmtcheck.c.outputs import compile_primitive

            return compile_primitive(self, name, args, node, scope, text)
        builtin = getattr(self, "_builtin_" + name, None)
        if builtin is not None:
            return builtin(args, node, scope, text)
        if name in IDENTITY_CALLS:
            if not args:
                raise self.unsupported(node, f"{name}() without an argument")
            return self.expr(args[0], scope)
        if name == "__fc_each":
            raise self.unsupported(node, f"{self.string_bytes(args[0]).decode('latin-1')} outside a loop head")
        return self._call_unknown(name, args, node, scope, text)

    def _call_defined(self, name, args, node, scope, text) -> Expr:
        arg_exprs = [self.expr(a, scope) for a in args]
        if name not in self.compiled:
            self.function(name)
        target = self.compiled[name]
        params = self.signatures.get(name, [])
        fns = [a.fn for a in arg_exprs]
        fnode = self.unit.functions[name]
        ret = self._declared_type(fnode, fnode.child_by_field_name("declarator"))
        where = self.where(node)
        arg_types = [a.type if a.type[0] == "int" else (self.space.hint(a.text) or U64) for a in arg_exprs]
        texts = [a.text for a in arg_exprs]
        binding = {p[0]: t for p, t in zip(params, texts)}

        def call_defined(f: Frame) -> Any:
            values = []
            for k, fn in enumerate(fns):
                v = fn(f)
                if k < len(params) and params[k][1][0] == "int":
                    v = _as_int(v, f, arg_types[k], texts[k])
                values.append(v)
            f.ctx.steps += 1
            if f.ctx.steps > MAX_STEPS:
                raise LimitExceeded(where, f"step limit reached ({MAX_STEPS} steps)")
            f.ctx.bindings.append(binding)
            try:
                return target(f.ctx, values)
            finally:
                f.ctx.bindings.pop()

        return Expr(call_defined, ret, text, node)

    def _call_unknown(self, name, args, node, scope, text) -> Expr:
        arg_exprs = [self.expr(a, scope) for a in args]
        fns = [a.fn for a in arg_exprs]
        types = [a.type for a in arg_exprs]
        texts = [a.text for a in arg_exprs]
        hint = self.space.hint(text)
        where = self.where(node)

        def call_unknown(f: Frame) -> Any:
            values = [fn(f) for fn in fns]
            keys = [_value_key(v, f, t, tx) for v, t, tx in zip(values, types, texts)]
            key = f"{name}({', '.join(keys)})"
            if any(isinstance(v, SeqHandle) for v in values):
                f.ctx.out.opaque(key, where)
                return 0
            if hint is not None and hint[0] == "int":
                return f.ctx.inputs.int_input(key, hint)
            return Free(key)

        return Expr(call_unknown, hint or FREE, text, node)

    # builtins the kernel provides and whose meaning is fixed
    def _builtin_num_to_str(self, args, node, scope, text):
        """num_to_str(buf, size, n[, width]) as lib/vsprintf.c has it (an input's own C body for
        num_to_str is found first, in `call`)."""
        from fmtcheck.kernel.seq_file import num_to_str

        if len(args) not in (3, 4):
            raise self.unsupported(node, "num_to_str takes 3 or 4 arguments")
        buf, size, n = (self.expr(a, scope) for a in args[:3])
        width = self.expr(args[3], scope) if len(args) == 4 else None
        where = self.where(node)

        def call_num_to_str(f: Frame) -> Any:
            p = buf.fn(f)
            sz = _as_int(size.fn(f), f, S32, size.text)
            v = conv(_as_int(n.fn(f), f, U64, n.text), U64)
            w = conv(_as_int(width.fn(f), f, S32, width.text), S32) if width is not None else 0
            if isinstance(v, Sym) or isinstance(w, Sym) or isinstance(sz, Sym):
                raise NotProvable("num_to_str of an input")
            data = num_to_str(sz, v, w)
            if isinstance(p, Mem):
                p = Ptr(p)
            if not isinstance(p, Ptr) or p.mem.readonly:
                raise Inconclusive(where, "num_to_str into memory the code does not own")
            if p.off + len(data) > len(p.mem.data):
                raise Inconclusive(where, "num_to_str writes past the end of its buffer")
            p.mem.data[p.off:p.off + len(data)] = data
            return len(data)

        return Expr(call_num_to_str, S32, text, node)

    def _builtin_ARRAY_SIZE(self, args, node, scope, text):
        e = self.expr(args[0], scope)
        if e.type[0] != "array" or e.type[2] is None:
            raise self.unsupported(node, f"ARRAY_SIZE of '{e.text}' whose size is not known")
        n = e.type[2]
        return Expr(lambda f: n, U64, text, node, n)

    def _builtin_strlen(self, args, node, scope, text):
        e = self.expr(args[0], scope)
        fn = e.fn

        def strlen(f: Frame) -> Any:
            v = fn(f)
            if isinstance(v, Mem):
                v = Ptr(v)
            if isinstance(v, Ptr):
                return len(v.bytes_until_nul())
            if isinstance(v, Free):
                return len(f.ctx.inputs.str_input(v.key, self.space.str_domain(e.text)))
            raise Inconclusive(self.where(node), "strlen of a value that is not a string")

        return Expr(strlen, U64, text, node)

    def _builtin_memset(self, args, node, scope, text):
        target = self.expr(args[0], scope)
        value = self.expr(args[1], scope)
        count = self.expr(args[2], scope)

        def memset(f: Frame) -> Any:
            p = target.fn(f)
            if isinstance(p, LocalStruct):
                p.fields.clear()
                p.zeroed = _as_int(value.fn(f), f, S32, value.text) == 0
                return p
            if isinstance(p, Mem):
                p = Ptr(p)
            if isinstance(p, Ptr):
                n = _as_int(count.fn(f), f, U64, count.text)
                b = _as_int(value.fn(f), f, S32, value.text) & 0xFF
                if p.off + n > len(p.mem.data):
                    raise Inconclusive(self.where(node), "memset past the end of an array")
                p.mem.data[p.off:p.off + n] = bytes([b]) * n
                return p
            raise Inconclusive(self.where(node), "memset of memory the code does not own")

        return Expr(memset, ("ptr", VOID), text, node)

    def _builtin_memcpy(self, args, node, scope, text):
        dst, src, count = (self.expr(a, scope) for a in args[:3])
        where = self.where(node)

        def memcpy(f: Frame) -> Any:
            d, s = dst.fn(f), src.fn(f)
            n = _as_int(count.fn(f), f, U64, count.text)
            d = Ptr(d) if isinstance(d, Mem) else d
            s = Ptr(s) if isinstance(s, Mem) else s
            if isinstance(n, Sym):
                raise NotProvable("memcpy length depends on an input")
            if not isinstance(d, Ptr) or not isinstance(s, Ptr) or d.mem.readonly:
                raise Inconclusive(where, "memcpy between memory the code does not own")
            data = s.read(n)
            if d.off + n > len(d.mem.data):
                raise Inconclusive(where, "memcpy past the end of its destination")
            d.mem.data[d.off:d.off + n] = data
            return d

        return Expr(memcpy, ("ptr", VOID), text, node)

    def _minmax(self, args, node, scope, text, pick):
        exprs = [self.expr(a, scope) for a in args[-2:]]
        types = [e.type if e.type[0] == "int" else (self.space.hint(e.text) or U64) for e in exprs]
        t = usual(types[0], types[1])
        fns = [e.fn for e in exprs]

        def minmax(f: Frame) -> Any:
            a = conv(_as_int(fns[0](f), f, types[0], exprs[0].text), t)
            b = conv(_as_int(fns[1](f), f, types[1], exprs[1].text), t)
            return pick(a, b)

        return Expr(minmax, t, text, node)

    def _builtin_min(self, args, node, scope, text):
        return self._minmax(args, node, scope, text, lambda a, b: a if a < b else b)

    def _builtin_max(self, args, node, scope, text):
        return self._minmax(args, node, scope, text, lambda a, b: a if a > b else b)

    _builtin_min_t = _builtin_min
    _builtin_max_t = _builtin_max


# ---------------------------------------------------------------------------------------------
# helpers


def _advance(p: Any, n: Any, op: str, where: str) -> Any:
    """A pointer moved by n elements of its array."""
    if isinstance(n, Sym):
        raise NotProvable("pointer arithmetic depends on an input")
    if isinstance(p, Mem):
        p = Ptr(p)
    if isinstance(p, Ptr):
        elem = p.mem.elem
        return Ptr(p.mem, p.off + n * (type_size(elem) if elem[0] == "int" else 1))
    if isinstance(p, Free):
        return Free(f"({p.key}{op}{abs(n)})")
    raise Inconclusive(where, "pointer arithmetic on a non-pointer")


def _typedef_cast(fnode) -> tuple | None:
    """`(u64)(x)` parses as a call of `(u64)`: with a known type name inside, it is a cast."""
    if fnode.type != "parenthesized_expression" or len(fnode.named_children) != 1:
        return None
    inner = fnode.named_children[0]
    if inner.type == "identifier":
        return _BASE_TYPES.get(inner.text.decode("latin-1"))
    return None


def _seq_file_names(unit: cfront.Unit) -> set[str]:
    """Identifiers passed as the seq_file to a primitive: in a fragment they are not declared."""
    names: set[str] = set()
    for fn in unit.functions.values():
        for node in cfront.walk(fn):
            if node.type == "call_expression" and _callee(node) in PRIMITIVES:
                args = node.child_by_field_name("arguments").named_children
                if args and args[0].type == "identifier":
                    names.add(args[0].text.decode("latin-1"))
    return names


def _declare(name: str, make: Callable[[Frame], Any]) -> Callable[[Frame], None]:
    def declare(f: Frame) -> None:
        f.vars[name] = make(f)

    return declare


def _declarator_name(d) -> str | None:
    while d is not None and d.type not in ("identifier", "field_identifier"):
        d = d.child_by_field_name("declarator")
    return d.text.decode("latin-1") if d is not None else None


def _callee(call) -> str | None:
    fnode = call.child_by_field_name("function")
    return fnode.text.decode("latin-1") if fnode is not None and fnode.type == "identifier" else None


def _snip(node) -> str:
    return node.text[:40].decode("latin-1", "replace").replace("\n", " ")


def _convert_arg(value: Any, ptype: tuple) -> Any:
    """An argument as the parameter receives it (integers converted to its type)."""
    if ptype[0] == "int" and isinstance(value, (int, Sym)):
        return conv(value, ptype)
    return value


def _as_int(v: Any, f: Frame, t: tuple, text: str) -> Any:
    """An integer from any value: a free path becomes an input of the hinted type."""
    if type(v) is int or isinstance(v, Sym):
        return v
    if isinstance(v, Free):
        return f.ctx.inputs.int_input(v.key, t if t[0] == "int" else U64)
    if isinstance(v, Ptr):
        return 0x1000_0000 + id(v.mem) % 0x1000_0000 * 16 + v.off
    if isinstance(v, (LocalStruct, SeqHandle, Mem)):
        return 0x2000_0000 + id(v) % 0x1000_0000 * 16
    if v is None:
        return 0
    raise Inconclusive(text or "expression", f"value of type {type(v).__name__} used as an integer")


def _truth(v: Any, f: Frame, t: tuple, text: str) -> Any:
    if type(v) is int:
        return v != 0
    if isinstance(v, Sym):
        return bool(v)  # raises NotProvable
    if isinstance(v, Free):
        # a value the code did not make, tested for truth: an input (a pointer may be NULL too)
        return f.ctx.inputs.int_input(v.key, t if t[0] == "int" else U64) != 0
    if isinstance(v, (Ptr, Mem, LocalStruct, SeqHandle)):
        return True
    return bool(v)


def _value_key(v: Any, f: Frame, t: tuple, text: str) -> str:
    """How an argument of an uninterpreted call is named in the call's input key."""
    if type(v) is int:
        return str(v)
    if isinstance(v, Free):
        return v.key
    if isinstance(v, Sym):
        raise NotProvable("an uninterpreted call takes an input")
    if isinstance(v, SeqHandle):
        return "m"
    if isinstance(v, LocalStruct):
        return "&_"
    if isinstance(v, (Ptr, Mem)):
        p = v if isinstance(v, Ptr) else Ptr(v)
        if p.mem.readonly:
            return '"' + p.bytes_until_nul().decode("latin-1") + '"'
        return "&_"
    return text


def _binary(op: str, left: Expr, right: Expr, lt: tuple, rt: tuple, line: int, where: str):
    lfn, rfn = left.fn, right.fn
    ltext, rtext = left.text, right.text
    if op in ("<<", ">>"):
        t = promote(lt)
        bits = t[1]
        rtp = promote(rt)

        if op == "<<":
            def shl(f: Frame) -> Any:
                a = conv(_as_int(lfn(f), f, lt, ltext), t)
                b = conv(_as_int(rfn(f), f, rt, rtext), rtp)
                if type(b) is int and (b < 0 or b >= bits):
                    raise UndefinedBehaviour(line, f"shift by {b} of a {bits}-bit value")
                if t[2] and type(a) is int and a < 0:
                    raise UndefinedBehaviour(line, "left shift of a negative value")
                return conv(a << b, t)
            return shl, t

        def shr(f: Frame) -> Any:
            a = conv(_as_int(lfn(f), f, lt, ltext), t)
            b = conv(_as_int(rfn(f), f, rt, rtext), rtp)
            if type(b) is int and (b < 0 or b >= bits):
                raise UndefinedBehaviour(line, f"shift by {b} of a {bits}-bit value")
            return a >> b
        return shr, t

    t = usual(lt, rt)
    if op in ("==", "!=", "<", ">", "<=", ">="):
        cmp = _COMPARE[op]

        def compare(f: Frame) -> Any:
            a = conv(_as_int(lfn(f), f, lt, ltext), t)
            b = conv(_as_int(rfn(f), f, rt, rtext), t)
            return int(cmp(a, b))
        return compare, S32

    arith = _ARITH.get(op)
    if arith is None:
        raise Inconclusive(where, f"unsupported operator {op}")
    signed = t[2]
    lo, hi = (-(1 << (t[1] - 1)), (1 << (t[1] - 1)) - 1) if signed else (0, (1 << t[1]) - 1)

    if op in ("/", "%"):
        def divide(f: Frame) -> Any:
            a = conv(_as_int(lfn(f), f, lt, ltext), t)
            b = conv(_as_int(rfn(f), f, rt, rtext), t)
            if isinstance(a, Sym) or isinstance(b, Sym):
                return conv(arith(a, b), t)
            if b == 0:
                raise UndefinedBehaviour(line, "division by zero")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            r = q if op == "/" else a - q * b
            if signed and not lo <= r <= hi:
                raise UndefinedBehaviour(line, "signed overflow in division")
            return conv(r, t)
        return divide, t

    if signed and op in ("+", "-", "*"):
        def signed_arith(f: Frame) -> Any:
            a = conv(_as_int(lfn(f), f, lt, ltext), t)
            b = conv(_as_int(rfn(f), f, rt, rtext), t)
            r = arith(a, b)
            if type(r) is int and not lo <= r <= hi:
                f.ctx.out.note_ub(line, f"signed overflow in '{ltext} {op} {rtext}' (the kernel wraps: -fno-strict-overflow)")
            return conv(r, t)
        return signed_arith, t

    mask = (1 << t[1]) - 1

    def unsigned_arith(f: Frame) -> Any:
        a = _as_int(lfn(f), f, lt, ltext)
        b = _as_int(rfn(f), f, rt, rtext)
        if type(a) is int and type(b) is int:
            return arith(conv(a, t), conv(b, t)) & mask
        return conv(arith(conv(a, t), conv(b, t)), t)
    return unsigned_arith, t


_ARITH = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "/": lambda a, b: a // b, "%": lambda a, b: a % b,
}
_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
}


def _parse_number(text: str) -> tuple[int | None, tuple]:
    """The value and C type of an integer literal (ValueError when it is not one)."""
    negative = text.startswith("-")
    if negative:
        value, t = _parse_number(text[1:].lstrip())
        return (None, t) if value is None else (-value, t)
    if len(text) > 64 or "_" in text or "'" in text:
        raise ValueError(text)
    t = text.lower()
    suffix = ""
    while t and t[-1] in "ul" and not (t.startswith("0x") and t[-1] in "abcdef"):
        suffix = t[-1] + suffix
        t = t[:-1]
    if "." in t or ("e" in t and not t.startswith("0x")) or "p" in t:
        return None, S32
    if t.startswith("0x"):
        value = int(t[2:] or "0", 16)
        base = 16
    elif t.startswith("0b"):
        value = int(t[2:], 2)
        base = 2
    elif t.startswith("0") and len(t) > 1:
        value = int(t, 8)
        base = 8
    else:
        value = int(t or "0")
        base = 10
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates: list[tuple] = []
    if longs == 0:
        candidates = [S32, U32, S64, U64] if base != 10 else [S32, S64, U64]
    else:
        candidates = [S64, U64]
    if unsigned:
        candidates = [U32, U64] if longs == 0 else [U64]
    for c in candidates:
        if value < (1 << (c[1] - (1 if c[2] else 0))):
            return value, c
    return value & ((1 << 64) - 1), U64


_ESCAPES = {b"n": 10, b"t": 9, b"r": 13, b"0": 0, b"\\": 92, b"'": 39, b'"': 34, b"a": 7, b"b": 8,
            b"f": 12, b"v": 11, b"e": 27, b"?": 63}


def _unescape(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i:i + 1]
        if c != b"\\":
            out += c
            i += 1
            continue
        nxt = data[i + 1:i + 2]
        if nxt == b"x":
            j = i + 2
            while j < len(data) and data[j:j + 1] in b"0123456789abcdefABCDEF" and data[j:j + 1]:
                j += 1
            out.append(int(data[i + 2:j] or b"0", 16) & 0xFF)
            i = j
        elif nxt and nxt in b"01234567":
            j = i + 1
            while j < len(data) and j < i + 4 and data[j:j + 1] in b"01234567" and data[j:j + 1]:
                j += 1
            out.append(int(data[i + 1:j], 8) & 0xFF)
            i = j
        elif nxt == b"\n":
            i += 2
        else:
            out.append(_ESCAPES.get(nxt, nxt[0] if nxt else 92))
            i += 2
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# the input space shared by both sides


class InputSpace:
    """What the two sides agree their inputs are: types inferred from how each path is used."""

    def __init__(self) -> None:
        self.hints: dict[str, tuple] = {}
        self.string_domains: dict[str, str] = {}

    def hint(self, text: str) -> tuple | None:
        return self.hints.get(_norm(text))

    def add_hint(self, text: str, t: tuple) -> None:
        """The narrowest integer use wins (a `%u` says the value is 32-bit), whichever side it
        is on, so the verdict does not depend on which side is called 'old'."""
        key = _norm(text)
        have = self.hints.get(key)
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
            if node.type != "call_expression":
                continue
            name = _callee(node)
            if name is None:
                continue
            args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
            for arg, kind in argument_kinds(name, args, unit):
                text = arg.text.decode("latin-1")
                if kind == "str":
                    space.add_string(text)
                    space.add_hint(text, CHAR_PTR)
                elif kind is not None:
                    space.add_hint(text, kind)
