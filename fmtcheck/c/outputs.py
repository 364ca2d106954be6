"""Where the interpreter's seq_file calls go: a concrete byte buffer, or a symbolic trace.

`compile_primitive` turns a call such as `seq_put_decimal_ull_width(m, " ", x, 7)` into a closure
that evaluates the arguments with the C parameter types and hands them to `ctx.out`:

- `ConcreteOutput` renders through the kernel models (`fmtcheck.kernel.seq_file`,
  `fmtcheck.kernel.vsprintf`) and remembers, for every byte range, which argument produced it
  (so a report can name the field at a column) and every opaque event (a call the input does not
  define that receives the seq_file);
- `TraceOutput` records the proof-mode trace: literal bytes and *normalised* formatted fields, so
  that `" %7llu"` and `seq_put_decimal_ull_width(m, " ", x, 7)` are the same trace.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from fmtcheck.c.arith import as_int
from fmtcheck.c.literals import unescape
from fmtcheck.c import formats
from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.symbolic import wrap as sym_wrap
from fmtcheck.c.types import conv
from fmtcheck.c.extensions import local_scalar_address
from fmtcheck.c.fields import norm_int_field, star_tree, unsigned_width
from fmtcheck.c.opaqueformats import compile_opaque_printf
from fmtcheck.c.values import Expr, Free, Mem, Ptr, ScalarRef, SeqHandle, SymbolicText, symbolic_name
from fmtcheck.common.errors import Inconclusive, LimitExceeded
from fmtcheck.kernel import vsprintf
from fmtcheck.kernel.constants import STRING_MACROS
from fmtcheck.kernel.seq_file import SeqFile, escaped_name
from fmtcheck.common.lazyre import lazy_compile

U64 = ("int", 64, False)
S64 = ("int", 64, True)
S32 = ("int", 32, True)
U32 = ("int", 32, False)
U8 = ("int", 8, False)

# primitive -> kinds of its arguments after the seq_file: an int type, "str" (a C string),
# "bytes" (pointer + length follows), "fmt" (a format string), "delim" (a C string or NULL)
SIGNATURES: dict[str, tuple] = {
    "seq_puts": ("str",),
    "__seq_puts": ("str",),
    "seq_putc": (S32,),
    "seq_write": ("ptr", U64),
    "seq_put_decimal_ull": ("delim", U64),
    "seq_put_decimal_ull_width": ("delim", U64, U32),
    "seq_put_decimal_ll": ("delim", S64),
    "seq_put_hex_ll": ("delim", U64, U32),
    "seq_setwidth": (U64,),
    "seq_pad": (S32,),
    "seq_escape": ("str", "str"),
    "seq_escape_str": ("str", U32, "str"),
    "seq_escape_mem": ("ptr", U64, U32, "str"),
    "seq_path": ("str", "str"),
}


class SymStr:
    """A string input in proof mode."""

    __slots__ = ("key", "domain")

    def __init__(self, key: str, domain: str) -> None:
        self.key = key
        self.domain = domain


def literal_bytes(node) -> bytes | None:
    """The bytes of a string literal node (adjacent literals joined), or None."""

    if node.type == "string_literal":
        if node.text[:1] in (b"L", b"u", b"U"):
            return None
        return unescape(b"".join(c.text for c in node.children if c.type in ("string_content", "escape_sequence")))
    if node.type == "concatenated_string":
        parts = []
        for c in node.named_children:
            if c.type == "identifier" and c.text.decode("latin-1") in STRING_MACROS:
                parts.append(STRING_MACROS[c.text.decode("latin-1")])
                continue
            piece = literal_bytes(c)
            if piece is None:
                return None
            parts.append(piece)
        return b"".join(parts)
    if node.type == "parenthesized_expression" and node.named_children:
        return literal_bytes(node.named_children[0])
    return None


def directive_kind(d: vsprintf.Directive) -> Any:
    if d.conversion == "s":
        return "str"
    if d.conversion == "p":
        return "extension" if vsprintf.renders_opaque(d) else "ptr"
    if d.conversion == "c":
        return S32
    if d.conversion in "diuoxX":
        bits = d.bits if d.bits >= 32 else 32
        return ("int", bits, d.conversion in "di")
    return None


# the kind of a `*` width or precision argument: an int whose input range is 0..star_max
STAR = ("int", 32, True, "width")


def printf_kinds(fmt: bytes) -> list[Any]:
    """The kinds of the varargs a format consumes, in order."""
    return list(_printf_kinds(bytes(fmt)))


@functools.lru_cache(maxsize=4096)
def _printf_kinds(fmt: bytes) -> tuple[Any, ...]:
    """`printf_kinds`, once per format (a side may print one 100 times; rule-6 reruns compile it again)."""
    kinds: list[Any] = []
    for item in vsprintf.parse_format(fmt):
        if isinstance(item, vsprintf.InvalidDirective):
            break
        if not isinstance(item, vsprintf.Directive) or item.conversion == "%":
            continue
        if item.width_star:
            kinds.append(STAR)
        if item.precision_star:
            kinds.append(STAR)
        kinds.append(directive_kind(item))
    return tuple(kinds)


def argument_kinds(name: str, args: list, unit) -> list[tuple[Any, Any]]:
    """(argument node, kind) for the arguments of a primitive call, for type inference."""
    if name == "seq_printf" and len(args) >= 2:
        fmt = formats.resolve(args[1], literal_bytes)
        if fmt is None:
            return []
        out = []
        for each in formats.literals_of(fmt):
            try:
                kinds = printf_kinds(each)
            except Exception:  # noqa: BLE001 - a bad format is reported when compiled
                return []
            out += [(a, k if k not in ("ptr", "extension") else None) for a, k in zip(args[2:], kinds)]
        return out
    sig = SIGNATURES.get(name)
    if sig is None:
        return []
    out = []
    for a, k in zip(args[1:], sig):
        if k in ("str",) and literal_bytes(a) is None:
            out.append((a, "str"))
        elif isinstance(k, tuple):
            out.append((a, k))
    return out


# ---------------------------------------------------------------------------------------------
# compiling a primitive call


def compile_primitive(prog, name: str, args: list, node, scope: dict, text: str):
    """An Expr whose closure performs the primitive on ctx.out."""
    args = [prog.overridden(a) for a in args]  # one arm of a choice argument (a literal format)

    if name == "seq_vprintf":
        raise prog.unsupported(node, "seq_vprintf with a va_list is not modelled")
    if not args:
        raise prog.unsupported(node, f"{name}() without arguments")
    seq = prog.expr(args[0], scope)
    seqfn = seq.fn
    where = prog.where(node)
    if name == "seq_printf":
        body = _compile_printf(prog, args, node, scope)
    else:
        body = _compile_call(prog, name, args[1:], node, scope)

    def primitive(f) -> Any:

        if not isinstance(seqfn(f), SeqHandle):
            raise Inconclusive(where, f"{name} writes to a seq_file other than the one being shown")
        body(f)
        return 0

    return Expr(primitive, ("void",), text, node)


def _arg_getter(prog, node, kind, scope) -> Callable:
    """A closure computing one argument converted to what the primitive receives."""
    if kind == "extension":
        return _extension_getter(prog, node, scope)
    e = prog.expr(node, scope)
    fn = e.fn
    text = e.text
    where = prog.where(node)
    if isinstance(kind, tuple):
        src = e.type if e.type[0] == "int" else (prog.space.hint(text) or kind)
        if e.node is not None and e.node.type == "number_literal" and type(e.const) is int:
            value = conv(e.const, kind)  # what get_int computes from a number literal, every time
            return lambda f: value

        def get_int(f) -> Any:
            return conv(as_int(fn(f), f, src, text), kind)

        return get_int
    if (kind in ("str", "delim") and e.node is not None and e.node.type in ("string_literal", "concatenated_string")
            and type(e.const) is bytes and e.type[0] == "array"):  # a literal: read-only memory holding its bytes
        data = fn(None).bytes_until_nul()  # read once (as get_str would)
        return lambda f: data
    domain = prog.space.str_domain(text)

    def get_str(f) -> Any:
        v = fn(f)
        if kind == "pointer":
            return _pointer_value(v, where, text)
        if isinstance(v, Mem):
            v = Ptr(v)
        if isinstance(v, Ptr):
            if kind != "ptr" and isinstance(v.mem.data, SymbolicText):
                return v.mem.data.string_at(v.off)  # the string a call wrote there (proof mode)
            return v.bytes_until_nul() if kind != "ptr" else v
        if isinstance(v, Free):
            return f.ctx.inputs.str_input(v.key, domain) if kind != "ptr" else v
        if type(v) is int and v == 0 and kind == "delim":
            return None
        if type(v) is int and kind in ("str",):
            if text.isidentifier() and text.isupper():
                raise Inconclusive(where, f"string macro {text} is not defined in the input")
            return v  # a raw pointer value: %s prints (null) / (efault)
        if isinstance(v, (SymStr, Sym)):
            return v
        raise Inconclusive(where, f"argument '{text}' is not a string")

    return get_str


def _extension_getter(prog, node, scope) -> Callable:
    """The argument of a %p extension printed as an opaque event: the pointer as it is, or the
    value of a local integer whose address it is (see `fmtcheck.c.extensions`)."""
    snapshot = local_scalar_address(prog, node, scope)
    if snapshot is not None:
        return snapshot
    e = prog.expr(node, scope)
    fn, where, text = e.fn, prog.where(node), e.text

    def get_pointer(f) -> Any:
        v = fn(f)
        return v if isinstance(v, (Mem, Ptr)) else _pointer_value(v, where, text)

    return get_pointer


def _pointer_value(v: Any, where: str, text: str) -> Any:
    """What %p prints from: a pointer the code did not make (its key), or a plain number. The
    address of a local object differs from run to run in the kernel, so no model can say it."""

    if type(v) is int or isinstance(v, Free) or v is None:
        return v
    if isinstance(v, Sym):
        return v
    raise Inconclusive(where, f"%p of '{text}', the address of a local object, is not known")


def _compile_call(prog, name: str, args: list, node, scope: dict) -> Callable:
    sig = SIGNATURES[name]
    if len(args) != len(sig):
        raise prog.unsupported(node, f"{name} expects {len(sig) + 1} arguments, got {len(args) + 1}")
    getters = [_arg_getter(prog, a, k, scope) for a, k in zip(args, sig)]
    field = _field_name(args[:1] if name in ("seq_write", "seq_escape_mem") else args, sig)
    where = prog.where(node)
    method = name.lstrip("_")

    if name == "seq_write":
        get_ptr, get_len = getters

        def write(f) -> None:
            p = get_ptr(f)
            n = get_len(f)
            if isinstance(n, Sym):
                raise NotProvable("seq_write length depends on an input")

            if isinstance(p, Ptr):
                f.ctx.out.call("seq_write", (p.read(n),), resolve_field(field, f.ctx), where)
            elif isinstance(p, Free):
                data = f.ctx.inputs.str_input(p.key, "text")
                f.ctx.out.call("seq_write", (_fixed(data, n),), resolve_field(field, f.ctx), where)
            else:
                raise Inconclusive(where, "seq_write of memory the model does not know")

        return write

    if name == "seq_escape_mem":
        get_ptr, get_len, get_flags, get_esc = getters

        def escape_mem(f) -> None:

            p = get_ptr(f)
            n = get_len(f)
            if isinstance(n, Sym):
                raise NotProvable("seq_escape_mem length depends on an input")
            data = p.read(n) if isinstance(p, Ptr) else _fixed(f.ctx.inputs.str_input(p.key, "text"), n)
            f.ctx.out.call("seq_escape_mem", (data, n, get_flags(f), get_esc(f)), field, where)

        return escape_mem

    # most primitives take 2 or 3 arguments: their tuple is built without a comprehension, and
    # resolve_field's test is inlined (outside a helper the field is as written)
    if len(getters) == 3:
        first, second, third = getters
        return lambda f: f.ctx.out.call(method, (first(f), second(f), third(f)), field if not f.ctx.bindings
                                        or field is None else resolve_field(field, f.ctx), where)
    if len(getters) == 2:
        first, second = getters
        return lambda f: f.ctx.out.call(method, (first(f), second(f)), field if not f.ctx.bindings
                                        or field is None else resolve_field(field, f.ctx), where)

    def call(f) -> None:
        f.ctx.out.call(method, tuple([g(f) for g in getters]), resolve_field(field, f.ctx), where)

    return call


_WORD = lazy_compile(r"[A-Za-z_]\w*")


def resolve_field(name: str | None, ctx) -> str | None:
    """A field named inside a helper (`val`) as the caller wrote it (`mss.swap`), through every
    level of helper calls."""
    if name is None or not ctx.bindings:
        return name
    for binding in reversed(ctx.bindings):
        name = _WORD.sub(lambda m: _paren(binding[m.group(0)]) if m.group(0) in binding else m.group(0), name)
    return name


def _paren(text: str) -> str:
    return text if _WORD.fullmatch(text) or all(c not in text for c in " +-*/%&|^<>?") else f"({text})"


def _fixed(data: "bytes | SymStr", n: int) -> bytes:
    """N bytes of a string input, then NULs; a proof's string has none to cut (testing decides)."""
    if isinstance(data, SymStr):
        raise NotProvable("a fixed-length write of a string input")
    return (data + b"\x00" * n)[:n]


def _field_name(args: list, sig: tuple) -> str | None:
    """The argument that carries the value, for reports (the number, or the string)."""
    for a, k in zip(args, sig):
        if k in ("delim",):
            continue
        if literal_bytes(a) is not None or a.type in ("char_literal", "number_literal", "sizeof_expression"):
            continue
        if isinstance(k, tuple) or k in ("str", "ptr"):
            return a.text.decode("latin-1")
    return None


def _compile_printf(prog, args: list, node, scope: dict) -> Callable:
    fmt = literal_bytes(args[1]) if len(args) > 1 else None
    if fmt is None and len(args) > 1 and args[1].type == "concatenated_string":

        unknown = [c.text.decode("latin-1") for c in args[1].named_children
                   if c.type == "identifier" and c.text.decode("latin-1") not in STRING_MACROS]
        if unknown:
            raise prog.unsupported(node, f"string macro {unknown[0]} in the format is not defined in the input")
    if fmt is None:
        resolved = formats.resolve(args[1], literal_bytes) if len(args) > 1 else None
        if resolved is None:
            return compile_opaque_printf(prog, args, node, scope)
        return _compile_choice(prog, resolved, args, node, scope)
    return _compile_format(prog, fmt, args, node, scope)


def _compile_choice(prog, fmt, args: list, node, scope: dict) -> Callable:
    """A format that is one of several literals (see `fmtcheck.c.formats`): each compiled, the
    one its condition picks printed."""
    if not isinstance(fmt, formats.Choice):
        return _compile_format(prog, fmt, args, node, scope)
    cond = prog.operand_truth(prog.expr(fmt.condition, scope))
    then = _compile_choice(prog, fmt.then, args, node, scope)
    other = _compile_choice(prog, fmt.other, args, node, scope)
    return lambda f: then(f) if cond(f) else other(f)


def _compile_format(prog, fmt: bytes, args: list, node, scope: dict) -> Callable:
    kinds = printf_kinds(fmt)
    values = args[2:]
    if len(values) < len(kinds):
        raise prog.unsupported(node, f"format expects {len(kinds)} arguments, got {len(values)}")
    getters = [_arg_getter(prog, a, k if k != "ptr" else "pointer", scope) if k is not None else None
               for a, k in zip(values, kinds)]
    fields = [None if literal_bytes(a) is not None or a.type in ("char_literal", "number_literal", "sizeof_expression")
              else a.text.decode("latin-1") for a in values[: len(kinds)]]
    where = prog.where(node)
    plan = _plan_of(bytes(fmt))
    # the line of the format (its literal text) and of each argument (its field), for reports
    sites = (prog.where(args[1]), tuple(prog.where(a) for a in values[: len(kinds)]))

    def printf(f) -> None:
        vals = [g(f) if g is not None else None for g in getters]
        names = fields if not f.ctx.bindings else [resolve_field(n, f.ctx) for n in fields]
        f.ctx.out.printf(plan, vals, names, where, sites)

    return printf


@dataclass(frozen=True)
class Step:
    """One piece of a printf: literal bytes, or a directive with the indices of its arguments."""

    literal: bytes | None
    directive: vsprintf.Directive | None = None
    width_arg: int | None = None
    precision_arg: int | None = None
    value_arg: int | None = None
    fast: bool = False  # plain "%Nd"/"%Nu"/"%Ns" with no flags: Python's % gives the same bytes
    opaque: bool = False  # a %p extension printed as an opaque event (see opaque_pointer_key)


def opaque_pointer_key(step: Step, values: list, where: str) -> str:
    """`%-16pI4` of `&sk->addr` as the key of an output event: the directive as written (flags,
    width, precision) with the values of `*` arguments, and the argument's value. Equal on both
    sides exactly when both print the same extension of the same thing the same way; a difference
    in anything else is a difference the model cannot render (inconclusive, never divergent),
    unless only a width or precision of an extension whose text the kernel bounds differs and
    the outputs' lengths then differ whatever it prints (compare.lengths_always_differ)."""
    d = step.directive
    spec = d.text.decode("latin-1")
    stars = [values[i] for i in (step.width_arg, step.precision_arg) if i is not None]
    if stars:
        # in a proof, a `*` width computed from the inputs is named by its expression: the same
        # expression on both sides is the same width (`symbolic_name`); any other is no proof
        spec += "[" + ",".join(symbolic_name(x) if isinstance(x, Sym) else str(x) for x in stars) + "]"
    return f"{spec}({_pointer_key(values[step.value_arg], where, spec)})"


def _pointer_key(v: Any, where: str, spec: str) -> str:


    if isinstance(v, Free):
        return v.key
    if type(v) is int:
        return hex(v)
    if isinstance(v, Sym):
        # in a proof, a pointer computed from the inputs (`(void *)lr->bt[q]`) is named by its
        # expression, as a `*` width is: the same expression on both sides, the same pointer
        return symbolic_name(v)
    if isinstance(v, (Mem, Ptr)):
        p = v if isinstance(v, Ptr) else Ptr(v)
        return f"local[{p.off}:{bytes(p.mem.data).hex()}]"
    if isinstance(v, ScalarRef):
        return f"*{'s' if v.type[2] else 'u'}{v.type[1]}={_scalar_name(v.value)}"
    raise Inconclusive(where, f"{spec} of a local object is not modelled")


def _scalar_name(value: Any) -> str:
    """A local integer's value in an opaque key: the number, or in a proof the expression (equal
    expressions of the inputs are equal values). Unlike `symbolic_name` this names no new input,
    so an expression of a loop's iteration is fine: the key is compared, iteration by iteration,
    with the other side's, as `&v[#0].addr` is."""
    if type(value) is int:
        return str(value)
    if isinstance(value, Sym):
        text = repr((value.tree, value.bits, value.signed))
        import hashlib  # (on first use: its OpenSSL binding costs ~2.5 ms of start-up)
        return "=" + hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    raise NotProvable("a %p extension of a local that holds no number")


@functools.lru_cache(maxsize=4096)
def _plan_of(fmt: bytes) -> tuple[Step, ...]:
    """A format's plan, once per format (2 ms for a 256-field line's; its steps are frozen, shared)."""
    return _printf_plan(vsprintf.parse_format(fmt))


def _printf_plan(items) -> tuple[Step, ...]:
    plan: list[Step] = []
    k = 0
    for item in items:
        if isinstance(item, (bytes, bytearray)):
            plan.append(Step(bytes(item)))
            continue
        if isinstance(item, vsprintf.InvalidDirective):
            break
        if item.conversion == "%":
            plan.append(Step(b"%"))
            continue
        width_arg = precision_arg = None
        if item.width_star:
            width_arg = k
            k += 1
        if item.precision_star:
            precision_arg = k
            k += 1
        fast = (item.flags == 0 and not item.width_star and not item.precision_star
                and item.precision is None and item.conversion in "diu" and item.bits >= 32
                and (item.width is None or item.width <= vsprintf.MAX_FIELD))
        plan.append(Step(None, item, width_arg, precision_arg, k, fast, vsprintf.renders_opaque(item)))
        k += 1
    return tuple(plan)


# ---------------------------------------------------------------------------------------------
# concrete output


_DELIMITED = {"seq_put_decimal_ull", "seq_put_decimal_ull_width", "seq_put_decimal_ll", "seq_put_hex_ll"}


class ConcreteOutput:
    """The bytes one side prints, with the field and the call site that produced each byte range."""

    def __init__(self) -> None:
        self.seq = SeqFile(None)
        self.spans: list[tuple[int, int, str | None]] = []
        # (start, end, where) per call that wrote bytes: where a report says the bytes come from
        self.sites: list[tuple[int, int, str]] = []
        self.events: list[tuple[int, str]] = []
        self.event_sites: dict[str, str] = {}  # event key -> where the call is
        self.ub: list[tuple[int, str]] = []

    @property
    def data(self) -> bytes:
        return bytes(self.seq.buf)

    # a side with its own C primitives writes into a CSeqFile; the built-ins join it there
    cseq = None

    def attach(self, cseq) -> None:
        self.cseq = cseq

    def detach(self) -> None:
        self.seq.buf[:] = self.cseq.data
        self.cseq = None

    def _pull(self) -> None:
        if self.cseq is not None:
            self.seq.buf[:] = self.cseq.data

    def _push(self) -> None:
        if self.cseq is not None:
            n = len(self.seq.buf)
            if n > len(self.cseq.mem.data):
                raise Inconclusive("seq_file", "output is larger than the modelled seq_file buffer")
            self.cseq.mem.data[:n] = self.seq.buf
            self.cseq.fields["count"] = n

    def mark(self) -> tuple:
        """Where the output stands: any later print moves it (`fmtcheck.c.statements.read_section`)."""
        count = self.cseq.fields.get("count") if self.cseq is not None else None
        return len(self.seq.buf), len(self.events), len(self.spans), len(self.sites), len(self.ub), count

    def call(self, method: str, args: tuple, field: str | None, where: str) -> None:
        if self.cseq is not None:
            self._pull()
        buf = self.seq.buf
        start = len(buf)
        try:
            getattr(self.seq, method)(*args)
        except LimitExceeded as err:
            raise LimitExceeded(where, err.what) from None
        if self.cseq is not None:
            self._push()
        end = len(self.seq.buf)
        if end > start:
            self.sites.append((start, end, where))
        if method in _DELIMITED and isinstance(args[0], (bytes, bytearray)):
            nul = args[0].find(0)  # the delimiter's bytes before its NUL are not the field's
            start += len(args[0]) if nul < 0 else nul
        if field is not None and end > start:
            self.spans.append((start, end, field))

    def printf(self, plan, values, fields, where: str, sites: tuple | None = None) -> None:
        """`sites`: where the format is and where each argument is (else the call's `where`)."""
        self._pull()
        try:
            self._printf(plan, values, fields, where, sites or (where, ()))
        except LimitExceeded as err:
            raise LimitExceeded(where, err.what) from None
        self._push()

    def _site(self, start: int, where: str) -> None:
        if len(self.seq.buf) > start:
            self.sites.append((start, len(self.seq.buf), where))

    def site_at(self, offset: int) -> str | None:
        """Where the call is that printed the byte at `offset` (None past the end, or for a byte
        the side's own C code wrote into the buffer)."""
        for start, end, where in reversed(self.sites):
            if start <= offset < end:
                return where
        return None

    def _printf(self, plan, values, fields, where: str, sites: tuple) -> None:
        buf = self.seq.buf
        format_site, argument_sites = sites
        for step in plan:
            if step.literal is not None:
                start = len(buf)
                buf += step.literal
                self._site(start, format_site)
                continue
            d = step.directive
            v = values[step.value_arg]
            start = len(buf)
            if step.opaque:
                self.opaque(opaque_pointer_key(step, values, where), where)
                continue
            if step.fast and type(v) is int:
                w = d.width
                buf += (b"%*d" % (w, v)) if w is not None else (b"%d" % v)
            else:
                w = values[step.width_arg] if step.width_arg is not None else None
                p = values[step.precision_arg] if step.precision_arg is not None else None
                buf += vsprintf.format_directive(d, v, w, p)
            if len(buf) > vsprintf.MAX_OUTPUT:
                raise LimitExceeded(where, "rendered output exceeds the output limit")
            self.spans.append((start, len(buf), fields[step.value_arg]))
            arg = step.value_arg
            self._site(start, argument_sites[arg] if arg < len(argument_sites) else where)

    def opaque(self, key: str, where: str) -> None:
        self.events.append((len(self.seq.buf), key))
        self.event_sites.setdefault(key, where)

    def note_ub(self, line: int, what: str) -> None:
        if len(self.ub) < 8:
            self.ub.append((line, what))

    def field_at(self, offset: int) -> str | None:
        for start, end, name in self.spans:
            if start <= offset < end:
                return name
        return None


# ---------------------------------------------------------------------------------------------
# symbolic trace


class TraceOutput:
    """Proof mode: the sequence of literal bytes and normalised fields one side prints."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.setwidth_at: int | None = None
        self.arms = 0

    # rows and loops (fmtcheck.c.rows): an arm or a loop body prints into its own list
    def begin_arm(self) -> list:
        saved = self.items
        self.items = []
        self.arms += 1
        return saved

    def end_arm(self, saved: list) -> list:
        items = self.result()
        self.items = saved
        self.arms -= 1
        return items

    def mark(self) -> tuple:
        """Where the trace stands: any later print moves it (`fmtcheck.c.statements.read_section`)."""
        last = self.items[-1] if self.items else None
        return len(self.items), len(last) if isinstance(last, bytearray) else -1, self.setwidth_at

    def add_item(self, item: tuple) -> None:
        self.items.append(item)

    def _lit(self, data: bytes) -> None:
        if not data:
            return
        if self.items and isinstance(self.items[-1], bytearray):
            self.items[-1] += data
        else:
            self.items.append(bytearray(data))

    def result(self) -> list:
        """The trace, literal runs as bytes."""
        return [bytes(i) if isinstance(i, bytearray) else i for i in self.items]

    def _field(self, item: tuple) -> None:
        self.items.append(item)

    def _concrete(self, method: str, args: tuple) -> None:
        seq = SeqFile(None)
        getattr(seq, method)(*args)
        self._lit(bytes(seq.buf))

    def call(self, method: str, args: tuple, field: str | None, where: str) -> None:
        symbolic = any(isinstance(a, (Sym, SymStr)) for a in args)
        if method in ("seq_setwidth", "seq_pad"):
            self._pad(method, args)
            return
        if not symbolic:
            self._concrete(method, args)
            return
        if method in ("seq_put_decimal_ull", "seq_put_decimal_ull_width", "seq_put_hex_ll", "seq_put_decimal_ll"):
            delim = args[0]
            if isinstance(delim, (Sym, SymStr)):
                raise NotProvable("a delimiter depends on an input")
            self._lit(delim or b"")
            value = args[1]
            if method == "seq_put_decimal_ll":
                # seq_put_decimal_ll prints LLONG_MIN as "-0": it is not "%lld"
                self._field(("ll", sym_wrap(value, 64, True).tree))
                return
            width = args[2] if len(args) > 2 else None
            hexa = method == "seq_put_hex_ll"
            field = norm_int_field("x" if hexa else "u", vsprintf.ZEROPAD if hexa else 0, width, None, value, 64, False)
            self._field(unsigned_width(field, width))
            return
        if method in ("seq_puts", "seq_write") and isinstance(args[0], SymStr):
            self._field(("str", None, None, 0, args[0].key))
            return
        if method == "seq_putc":
            self._field(("char", None, 0, sym_wrap(args[0], 8, False).tree))
            return
        escaped = escaped_name(method, args[1:]) if isinstance(args[0], SymStr) else None
        if escaped is not None:  # the escaping of a string input: one field (see escaped_name)
            self._field(("str", None, None, 0, f"{escaped}({args[0].key})"))
            return
        raise NotProvable(f"{method} of an input")

    def _pad(self, method: str, args: tuple) -> None:
        if self.arms:
            raise NotProvable(f"{method} under a branch or loop on an input")
        if isinstance(args[0], Sym):
            raise NotProvable("padding depends on an input")
        if method == "seq_setwidth":
            self.setwidth_at = len(self.items)
            self._setwidth_base = self._literal_length()
            self._setwidth_n = args[0]
            return
        if self.setwidth_at is None:
            return
        if any(not isinstance(i, bytearray) for i in self.items):
            raise NotProvable("seq_pad after a field whose width depends on an input")
        seq = SeqFile(None)
        seq.buf += b"".join(self.items)
        seq.seq_setwidth(self._setwidth_n)
        seq.pad_until = self._setwidth_base + self._setwidth_n
        seq.seq_pad(args[0])
        self.items = [bytearray(seq.buf)] if seq.buf else []

    def _literal_length(self) -> int:
        if any(not isinstance(i, bytearray) for i in self.items):
            return -1
        return sum(len(i) for i in self.items)

    def printf(self, plan, values, fields, where: str, sites: tuple | None = None) -> None:
        for step in plan:
            if step.literal is not None:
                self._lit(step.literal)
                continue
            d = step.directive
            v = values[step.value_arg]
            if step.opaque:
                self.opaque(opaque_pointer_key(step, values, where), where)
                continue
            w = values[step.width_arg] if step.width_arg is not None else d.width
            p = values[step.precision_arg] if step.precision_arg is not None else d.precision
            if not isinstance(v, (Sym, SymStr)) and not isinstance(w, Sym) and not isinstance(p, Sym):
                wa = values[step.width_arg] if step.width_arg is not None else None
                pa = values[step.precision_arg] if step.precision_arg is not None else None
                self._lit(vsprintf.format_directive(d, v, wa, pa))
                continue
            if d.conversion in "diuoxX":
                bits = d.bits if d.bits >= 8 else 32
                self._field(norm_int_field(d.conversion, d.flags, w, p, v, bits, d.conversion in "di"))
            elif d.conversion == "s" and isinstance(w, Sym) and not isinstance(p, Sym) \
                    and isinstance(v, (SymStr, bytes, bytearray)):
                # `" %*s", prec, ""`: the string (an input or literal bytes) at the width's tree
                text = ("sym", v.key) if isinstance(v, SymStr) else ("lit", bytes(v))
                self._field(("str*", text, p, d.flags & vsprintf.LEFT, star_tree(w)))
            elif d.conversion == "s" and isinstance(v, SymStr):
                if isinstance(w, Sym) or isinstance(p, Sym):
                    raise NotProvable("a string width depends on an input")
                flags = d.flags & vsprintf.LEFT
                width = w if w is not None and w > 0 else None
                self._field(("str", width, p, flags if width else 0, v.key))
            elif d.conversion == "c":
                width = w if w is not None and w > 1 else None
                self._field(("char", width, d.flags & vsprintf.LEFT if width else 0, sym_wrap(v, 8, False).tree))
            else:
                raise NotProvable(f"%{d.conversion} of an input")

    def opaque(self, key: str, where: str) -> None:
        self.items.append(("event", key))

    def note_ub(self, line: int, what: str) -> None:
        pass
