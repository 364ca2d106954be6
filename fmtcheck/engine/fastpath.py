"""Fast rendering of a side that does not branch on its inputs.

When a side runs to the end in proof mode, its symbolic trace *is* the function: literal bytes
and fields over expression trees. This module compiles such a trace once into a plain renderer:
the fields that Python's own `bytes %` renders exactly as the kernel does (plain `%Nd`/`%Nu`,
zero-padded hex, `%Ns`, `%c`) are gathered into one format string, so a whole /proc line costs one
C-level formatting call plus the evaluation of its value trees. Nothing is generated as source
text and nothing is executed from the input: the renderer is a list of closures and a format.

The engine uses it to test many more inputs in the same time; the concrete interpreter remains the
reference: every case whose bytes differ is rendered again through it before it is reported, and a
tree that hits undefined behaviour (a shift by a width decided by an input, a division by zero)
falls back to it for that case.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any, Callable

from fmtcheck.c.folds import FOLD
from fmtcheck.c.values import MAX_STEPS, past_chain_bound
from fmtcheck.engine.inputs import small_value
from fmtcheck.kernel import vsprintf
from fmtcheck.common.lazyre import lazy_compile

LLONG_MIN = -(1 << 63)


class Fallback(Exception):
    """This case needs the interpreter (undefined behaviour or a value the fast path cannot take)."""


def _wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _c_div(a: int, b: int) -> int:
    if b == 0:
        raise Fallback("division by zero")
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _c_mod(a: int, b: int) -> int:
    return a - _c_div(a, b) * b


def _shl(a: int, b: int) -> int:
    if b < 0 or b > 127:
        raise Fallback("shift count out of range")
    return a << b


def _shr(a: int, b: int) -> int:
    if b < 0 or b > 127:
        raise Fallback("shift count out of range")
    return a >> b


NARROWEST_PROMOTED = 32  # a shift's left operand is promoted to at least int


def _counted_shift(kind: str, left: Callable[[dict], int], count: Callable[[dict], int],
                   width: int) -> Callable[[dict], int]:
    """A shift by a count read from the inputs: a count that is negative or at least `width` (the
    promoted left operand's, or the narrowest one when the tree does not say) is undefined
    behaviour, which only the interpreter reports: that case falls back to it. A negative left
    operand is no reason to (see fmtcheck.c.arith: GCC's signed `<<` wraps)."""
    def shifted(env: dict) -> int:
        a, b = left(env), count(env)
        if b < 0 or b >= width:
            raise Fallback("shift count out of range")
        return a << b if kind == "<<" else a >> b
    return shifted


_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "/": _c_div, "%": _c_mod, "<<": _shl, ">>": _shr,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}


def tree_keys(tree: tuple) -> set[str]:
    """The inputs an expression tree reads."""
    if tree[0] == "in":
        return {tree[1]}
    if tree[0] == "k":
        return set()
    return set().union(*(tree_keys(t) for t in tree[1:] if isinstance(t, tuple)))


_PLACEHOLDER = lazy_compile(r"#\d+")
_VALUE_KEYS = lazy_compile(r"@(.+?):[su]\d+(?=[,)])")  # inputs whose value names another input's key
_TOKEN = lazy_compile(r"#(\d+)|@(.+?):([su])(\d+)(?=[,)])")


def key_of(template: str) -> Callable[[dict], str] | None:
    """For an input key traced in a loop body or named by another input's value (see
    fmtcheck.c.values.value_key), the concrete key for the values in `env`; None for a plain key.
    A loop's placeholder itself (`#0`) is read from env as it is: the iteration's number."""
    template = _concrete_template(template)
    if template is None:
        return None
    pieces: list[str] = []
    getters: list[Callable[[dict], Any]] = []
    pos = 0
    for m in _TOKEN.finditer(template):
        pieces.append(template[pos:m.start()].replace("%", "%%"))
        pieces.append("%s")
        if m.group(1) is not None:
            getters.append(lambda env, name="#" + m.group(1): env[name])
        else:
            key, signed, bits = m.group(2), m.group(3) == "s", int(m.group(4))
            getters.append(lambda env, key=key, bits=bits, signed=signed: _wrap(env[key], bits, signed))
        pos = m.end()
    pieces.append(template[pos:].replace("%", "%%"))
    fmt = "".join(pieces)
    if len(getters) == 1:
        only = getters[0]
        return lambda env: fmt % only(env)
    if len(getters) == 2:
        first, second = getters
        return lambda env: fmt % (first(env), second(env))
    return lambda env: fmt % tuple(g(env) for g in getters)


def _concrete_template(template: str) -> str | None:
    """The template key_of fills in (chain nodes as placeholders), None for a plain key."""
    node = _chain_nodes_as_placeholders(template)
    if node != template:
        return node  # `#0` alone then is the node's own key
    if _PLACEHOLDER.fullmatch(template) or ("#" not in template and "@" not in template):
        return None
    return template


def placeholder_format(template: str) -> tuple[str, str] | None:
    """(`%`-format, placeholder) when the concrete key of `template` is the format filled with the
    one loop placeholder's value (`s->v[#0]` -> ("s->v[%s]", "#0")), the form most keys of a loop
    body take; None for a plain key or any other template (key_of handles those)."""
    form = _one_token_format(template)
    return None if form is None or form[1].group(1) is None else (form[0], "#" + form[1].group(1))


def _one_token_format(template: str) -> tuple[str, re.Match] | None:
    """The `%`-format `key_of` fills for a template of one token, and that token (else None)."""
    template = _concrete_template(template)
    tokens = list(_TOKEN.finditer(template)) if template is not None else []
    if len(tokens) != 1:
        return None
    m = tokens[0]
    return template[:m.start()].replace("%", "%%") + "%s" + template[m.end():].replace("%", "%%"), m


def _chain_nodes_as_placeholders(template: str) -> str:
    """`chain(H->next)[#0]->name` (a node of a pointer-chain walk, see fmtcheck.c.rows.chain_loop)
    as `#0->name`: while a chain loop renders, its placeholder holds the node's own key, the path
    the interpreter names it by (`H->next->next`)."""
    start = template.find("chain(")
    if start < 0:
        return template
    depth, i = 0, start + len("chain")
    while i < len(template):
        depth += {"(": 1, ")": -1}.get(template[i], 0)
        if depth == 0:
            break
        i += 1
    m = re.match(r"\[(#\d+)\]", template[i + 1:])
    if m is None:
        return template
    return template[:start] + m.group(1) + _chain_nodes_as_placeholders(template[i + 1 + m.end():])


def chain_walk(spec: tuple) -> Callable[[dict], tuple[list[str], list[str]]]:
    """The nodes `for (p = H; p; p = p->next)` visits for the values in env, as the interpreter
    walks them (`H`, `H->next`, ... each an input that is NULL when 0; past MAX_CHAIN links the
    next pointer is NULL), and the keys the walk reads."""
    _, head, member = spec
    concrete = key_of(head)  # a head inside another loop's body names that iteration's node
    link = "->" + member

    def walk(env: dict) -> tuple[list[str], list[str]]:
        nodes: list[str] = []
        key = head if concrete is None else concrete(env)
        if key.startswith("&"):
            raise Fallback("a pointer chain from an element of an array")
        while not past_chain_bound(key) and _element(env, key):
            nodes.append(key)
            key += link
        return nodes, nodes + ([key] if not past_chain_bound(key) else [])

    return walk


def compile_tree(tree: tuple) -> Callable[[dict], int]:
    """An expression tree (see fmtcheck.c.symbolic) as a closure over the input values."""
    kind = tree[0]
    if kind == "k":
        value = tree[1]
        return lambda env: value
    if kind == "in":
        key, bits, signed = tree[1], tree[2], tree[3]
        mask = (1 << bits) - 1
        concrete = key_of(key)
        if concrete is not None:
            return lambda env: _wrap(_element(env, concrete(env)), bits, signed)
        if not signed:
            return lambda env: env[key] & mask
        return lambda env: _wrap(env[key], bits, True)
    if kind == "wrap":
        bits, signed = tree[1], tree[2]
        shift = tree[3]
        if shift[0] in ("<<", ">>") and shift[2][0] != "k":
            # the interpreter wraps a shift by an input to the promoted left operand's type
            inner = _counted_shift(shift[0], compile_tree(shift[1]), compile_tree(shift[2]), bits)
        else:
            inner = compile_tree(tree[3])
        mask = (1 << bits) - 1
        if not signed:
            return lambda env: inner(env) & mask
        return lambda env: _wrap(inner(env), bits, True)
    if kind == "~":
        inner = compile_tree(tree[1])
        return lambda env: ~inner(env)
    if kind == "neg":
        inner = compile_tree(tree[1])
        return lambda env: -inner(env)
    if kind == "ite":
        cond, then, other = compile_tree(tree[1]), compile_tree(tree[2]), compile_tree(tree[3])
        return lambda env: then(env) if cond(env) else other(env)
    op = _BINARY.get(kind)
    if op is None:
        raise ValueError(f"unknown tree node {kind}")
    left, right = compile_tree(tree[1]), compile_tree(tree[2])
    if kind == ">>" and tree[2][0] == "k":
        shift = tree[2][1]
        return lambda env: left(env) >> shift
    if kind in ("<<", ">>") and tree[2][0] != "k":
        return _counted_shift(kind, left, right, NARROWEST_PROMOTED)
    return lambda env: op(left(env), right(env))


def _simple_int(item: tuple) -> bytes | None:
    """The Python %-spec that renders this integer field exactly as the kernel, if there is one."""
    _, conv, flags, width, precision, _tree = item
    if precision is not None or (width is not None and width > vsprintf.MAX_FIELD):
        return None
    w = b"" if width is None else str(width).encode()
    if conv in "du" and flags == 0:
        return b"%" + w + b"d"
    if conv in "xXo" and flags in (0, vsprintf.ZEROPAD):
        return b"%" + (b"0" if flags else b"") + w + conv.encode()
    return None


class Renderer:
    """A compiled trace: `render(env) -> (bytes, events)`."""

    def __init__(self, items: list, depth: int = 0) -> None:
        self.keys: set[tuple[str, str]] = set()  # (input, "int" or "str") the trace reads
        for item in items:
            if isinstance(item, tuple) and item[0] == "str":
                self.keys.add((item[4], "str"))
            elif isinstance(item, tuple) and item[0] == "if":
                self.keys.update((key, "int") for key in tree_keys(item[1]))
            elif isinstance(item, tuple) and item[0] == "loop" and len(item) > 3 and item[3][0] == "chain":
                self.keys.add((item[3][1], "int"))
            elif isinstance(item, tuple) and item[0] == "loop" and len(item) > 3:
                self.keys.update((key, "int") for key in tree_keys(item[3][0]))
            elif isinstance(item, tuple) and item[0] == "loop":
                self.keys.add((item[1], "loop"))
            elif isinstance(item, tuple) and item[0] != "event":
                tree = item[-1]
                self.keys.update((key, "int") for key in tree_keys(tree))
        self.key_makers = [(template, key_of(template), _VALUE_KEYS.findall(template))
                           for template in sorted({key for key, _ in self.keys})]
        self.reads_at_once = _batched_keys(self.key_makers)
        self.segments: list[tuple[bytes, Callable[[dict], tuple] | None] | tuple[str, Any]] = []
        fmt = bytearray()
        getters: list[Callable[[dict], Any]] = []
        plans: list[tuple | None] = []
        for item in items:
            if isinstance(item, bytes):
                fmt += item.replace(b"%", b"%%")
                continue
            spec = self._spec(item) if item[0] not in ("if", "loop") else None
            if spec is not None:
                fmt += spec[0]
                getters.append(spec[1])
                plans.append(spec[2])
                continue
            if fmt or getters:
                self.segments.append((bytes(fmt), field_values(getters, plans)))
                fmt, getters, plans = bytearray(), [], []
            self.segments.append(self._special(item, depth))
        if fmt or getters:
            self.segments.append((bytes(fmt), field_values(getters, plans)))

    @staticmethod
    def _spec(item: tuple):
        kind = item[0]
        if kind == "int":
            spec = _simple_int(item)
            if spec is None:
                return None
            value = compile_tree(item[5])
            tree = item[5]
            return spec, value, (_field_plan(tree[1], tree[2], tree[3]) if tree[0] == "in" else None)
        if kind == "str":
            _, width, precision, flags, key = item
            if (width or 0) > vsprintf.MAX_FIELD:
                return None
            spec = b"%" + (b"-" if flags & vsprintf.LEFT else b"") + (str(width).encode() if width else b"")
            if precision is not None:
                spec += b"." + str(max(precision, 0)).encode()
            concrete = key_of(key)
            plan = _field_plan(key, None, False)
            if concrete is not None:
                return spec + b"s", (lambda env: env[concrete(env)]), plan
            return spec + b"s", (lambda env, key=key: env[key]), plan
        if kind == "char":
            _, width, flags, tree = item
            if (width or 0) > vsprintf.MAX_FIELD:
                return None
            spec = b"%" + (b"-" if flags & vsprintf.LEFT else b"") + (str(width).encode() if width else b"") + b"c"
            return spec, compile_tree(tree), None
        return None

    @staticmethod
    def _special(item: tuple, depth: int):
        kind = item[0]
        if kind == "event":
            concrete = key_of(item[1])
            return ("event", concrete or (lambda env, key=item[1]: key))
        if kind == "if":
            return ("if", compile_tree(item[1]), Renderer(list(item[2]), depth), Renderer(list(item[3]), depth))
        if kind == "loop":
            body = Renderer(list(item[2]), depth + 1)
            # a body of one formatted segment (the usual `seq_printf` per element) renders inline
            only = body.segments[0] if len(body.segments) == 1 and type(body.segments[0][0]) is bytes else None
            repeats = same_every_iteration(list(item[2]), f"#{depth}")
            if len(item) > 3 and item[3][0] == "chain":
                walk = chain_walk(item[3])
                return ("loop", lambda env: walk(env)[0], body, f"#{depth}", True, walk, only, repeats)
            return ("loop", loop_iterations(item), body, f"#{depth}", len(item) > 3, None, only, repeats)
        if kind == "break":
            raise ValueError("a loop that ends early is rendered by the interpreter")
        if kind == "ll":
            value = compile_tree(item[1])

            def decimal_ll(env: dict) -> bytes:
                v = value(env)
                return b"-0" if v == LLONG_MIN else b"%d" % v

            return ("call", decimal_ll)
        if kind == "int":
            _, conv, flags, width, precision, tree = item
            value = compile_tree(tree)
            base = {"d": 10, "u": 10, "o": 8, "x": 16, "X": 16}[conv]

            def number(env: dict) -> bytes:
                return vsprintf.number(value(env), base, flags, width, precision,
                                       signed=conv == "d", upper=conv == "X")

            return ("call", number)
        raise ValueError(f"no fast rendering for {kind}")

    def render(self, env: dict) -> tuple[bytes, list]:
        out: list[bytes] = []
        events: list = []
        try:
            self._render_into(env, out, events, 0)
        except (KeyError, TypeError) as why:
            raise Fallback(f"an input this case names was not discovered: {why}") from None
        return b"".join(out), events

    def reads(self, env: dict, out: dict[str, None]) -> dict[str, None]:
        """The inputs a rendering for `env` reads (into `out`), without rendering: the keys of
        this level, then those of the row arms taken and of every loop iteration."""
        if self.reads_at_once is not None:
            out.update(dict.fromkeys(self.reads_at_once(env)))
        else:
            for template, concrete, value_keys in self.key_makers:
                out[template if concrete is None else concrete(env)] = None
                for key in value_keys:
                    out[key] = None
        for segment in self.segments:
            if segment[0] == "if":
                (segment[2] if segment[1](env) else segment[3]).reads(env, out)
            elif segment[0] == "loop":
                outer = _enter(env, segment[4])
                if segment[5] is not None:
                    out.update(dict.fromkeys(segment[5](env)[1]))
                for k in segment[1](env):
                    env[segment[3]] = k
                    segment[2].reads(env, out)
                env.pop(segment[3], None)
                _leave(env, outer)
        return out

    def _render_into(self, env: dict, out: list, events: list, size: int) -> int:
        """Appends this trace's pieces; a row renders the arm its condition picks, a loop its body
        once per iteration with the placeholder set to the iteration's number."""
        for segment in self.segments:
            head = segment[0]
            if head == "event":
                events.append((size, segment[1](env)))
                continue
            if head == "if":
                arm = segment[2] if segment[1](env) else segment[3]
                size = arm._render_into(env, out, events, size)
                continue
            if head == "loop":
                placeholder = segment[3]
                outer = _enter(env, segment[4])
                iterations = segment[1](env)
                if segment[7] is not None and len(iterations) > 1:
                    iterations, size = _repeated(segment, env, iterations, out, events, size)
                if segment[6] is not None:
                    fmt, values = segment[6]
                    for k in iterations:
                        env[placeholder] = k
                        piece = fmt % values(env) if values is not None else fmt.replace(b"%%", b"%")
                        out.append(piece)
                        size += len(piece)
                else:
                    for k in iterations:
                        env[placeholder] = k
                        size = segment[2]._render_into(env, out, events, size)
                env.pop(placeholder, None)
                _leave(env, outer)
                continue
            if head == "call":
                piece = segment[1](env)
            else:
                fmt, values = segment
                piece = fmt % values(env) if values is not None else fmt.replace(b"%%", b"%")
            out.append(piece)
            size += len(piece)
        return size


def loop_iterations(item: tuple) -> Callable[[dict], range]:
    """The iterations of a counted loop, or of a loop over an input count, for the values in env
    (a counted loop from another start or to an inclusive bound is the interpreter's)."""
    if len(item) > 3 and len(item[3]) > 4:
        raise ValueError("a counted loop from another start or to an inclusive bound")
    count = counted_iterations(item[3]) if len(item) > 3 else (lambda env, key=item[1]: env[key])
    return lambda env: range(count(env))


def same_every_iteration(items: list, placeholder: str) -> Callable[[dict], bool] | None:
    """When a loop body prints the same bytes in every iteration, for the values in env: it never
    reads the iteration's placeholder, or reads it only inside inner loops whose counts do not
    depend on it and are 0 (a grid of 100,000 rows and no columns prints 100,000 newlines).
    The rest of env is the same in every iteration (an inner loop sets and removes its own
    placeholder), so such a body renders as its first iteration did. None when that never holds."""
    mention = re.compile(re.escape(placeholder) + r"(?!\d)")
    inner = []
    for item in items:
        if not mention.search(repr(item)):
            continue
        if not (isinstance(item, tuple) and item[0] == "loop"):
            return None
        spec = item[3] if len(item) > 3 else item[1]
        if mention.search(repr(spec)):
            return None
        nodes = chain_walk(spec) if len(item) > 3 and spec[0] == "chain" else None
        inner.append((lambda env, walk=nodes: walk(env)[0]) if nodes is not None else loop_iterations(item))
        inner[-1] = (inner[-1], len(item) > 3)

    def repeats(env: dict) -> bool:
        for iterations, counted in inner:
            outer = _enter(env, counted)
            try:
                if len(iterations(env)):
                    return False
            finally:
                _leave(env, outer)
        return True

    return repeats


def _repeated(segment: tuple, env: dict, iterations: Any, out: list, events: list, size: int) -> tuple[Any, int]:
    """A loop's first iteration rendered; when the body prints the same in every iteration
    (`same_every_iteration`) and no event, its bytes for them all. The iterations left to render."""
    env[segment[3]] = iterations[0]
    if not segment[7](env):
        return iterations, size
    first: list[bytes] = []
    noted: list = []
    end = segment[2]._render_into(env, first, noted, size)
    if noted:
        out.extend(first)
        events.extend(noted)
        return iterations[1:], end
    piece = b"".join(first) * len(iterations)
    out.append(piece)
    return (), size + len(piece)


def _field_plan(key: str, bits: int | None, signed: bool) -> tuple | None:
    """How a field reads its input, when `field_values` can read it with the others of its
    segment at once: (key or key format, loop placeholder or None, bits or None for a string,
    signed). None for any other read (a key another input's value names)."""
    if key_of(key) is None:
        return (key, None, bits, signed)
    form = placeholder_format(key) or value_key_format(key)
    return None if form is None else (form[0], form[1], bits, signed)


def value_key_format(template: str) -> tuple[str, tuple] | None:
    """(`%`-format, ("@", key, signed, bits)) when `key_of` fills the format with one other input's
    value in that type (`fixed_count(@irq_of(v):s32, 0)`: calls made with a row's number)."""
    form = _one_token_format(template)
    if form is None or form[1].group(2) is None:
        return None
    m = form[1]
    return form[0], ("@", m.group(2), m.group(3) == "s", int(m.group(4)))


def field_values(getters: list[Callable[[dict], Any]], plans: list) -> Callable[[dict], tuple] | None:
    """The values of one segment's fields, as `tuple(g(env) for g in getters)` gives them.

    A wide /proc line is hundreds of fields; each getter is a chain of three or four closures
    (the key for this iteration, the read, the wrap into the field's type). When every field reads
    a plain input, or one whose key is a format of the same loop placeholder (`s->v7[#0]`), the
    segment computes its keys by one comprehension, reads them by one C-level item getter and
    wraps the numbers by one more; a read that misses (an element past the discovered ones) runs
    the getters themselves, which decide it as before."""
    if not getters:
        return None
    slow = lambda env: tuple(g(env) for g in getters)  # noqa: E731
    placeholders = {plan[1] for plan in plans if plan is not None and plan[1] is not None}
    if any(plan is None for plan in plans) or len(placeholders) > 1:
        return slow
    texts = [plan[0] for plan in plans]
    ints = [(i, 1 << (bits - 1) if signed else 0, (1 << bits) - 1)
            for i, (_, _, bits, signed) in enumerate(plans) if bits is not None]
    halves = [half for _, half, _ in ints]
    masks = [mask for _, _, mask in ints]
    only_ints = len(ints) == len(plans)
    # every field unsigned of one width (a row of u64 counters): one mask, ((v + 0) & m) - 0
    unsigned_mask = masks[0] if only_ints and not any(halves) and len(set(masks)) == 1 else None
    # the values every field's type holds as they are (-h .. m - h): wrapping changes none of them
    lowest = max((-half for half in halves), default=0)
    highest = min((mask - half for half, mask in zip(halves, masks)), default=0)
    placeholder = next(iter(placeholders), None)
    current = placeholder_value(placeholder)
    keyed = [plan[1] is not None for plan in plans]
    fetch_fixed = itemgetter(*texts) if placeholder is None else None
    single = len(plans) == 1
    fetchers = IterationCache(lambda k: itemgetter(*[text % k if t else text for text, t in zip(texts, keyed)]))
    listed = IterationCache(lambda k: list(zip([text % k if t else text for text, t in zip(texts, keyed)], keyed)))

    def in_order(env: dict) -> list:
        """The getters' reads, in order, when one misses (an element is `_element`'s, a plain input raises)."""
        keys = listed(current(env)) if placeholder is not None else list(zip(texts, keyed))
        get = env.get  # (most keys are there: no exception raised for them)
        return [v if (v := get(key, _MISSING)) is not _MISSING else _element(env, key) if element else env[key]
                for key, element in keys]

    def values(env: dict) -> tuple:
        try:
            if fetch_fixed is not None:
                got = fetch_fixed(env)
            else:
                got = fetchers(current(env))(env)
            if single:
                got = (got,)
        except KeyError:
            if not only_ints:
                return slow(env)
            got = in_order(env)  # (a segment of numbers: the getters would read these, in this order)
        if only_ints and lowest <= min(got) and max(got) <= highest:
            return tuple(got)  # (two C-level passes: in range, ((v + h) & m) - h is v for every field)
        if unsigned_mask is not None:
            return tuple([v & unsigned_mask for v in got])
        if only_ints:
            return tuple([((v + h) & m) - h for v, h, m in zip(got, halves, masks)])
        out = list(got)
        for i, h, m in ints:
            out[i] = ((out[i] + h) & m) - h
        return tuple(out)

    return values


def _batched_keys(key_makers: list) -> Callable[[dict], list[str]] | None:
    """`Renderer.reads`'s keys here, in its order, at once when each is plain or one placeholder's format."""
    texts, keyed, named, placeholders = [], [], [], set()
    for template, concrete, value_keys in key_makers:
        if concrete is None:
            if value_keys:
                return None
            texts.append(template)
            keyed.append(False)
            named.append(())
            continue
        form = placeholder_format(template)
        if form is None:
            form = value_key_format(template)
            if form is None or value_keys != [form[1][1]]:
                return None
        elif value_keys:
            return None
        texts.append(form[0])
        keyed.append(True)
        named.append(tuple(value_keys))
        placeholders.add(form[1])
    if len(placeholders) > 1:
        return None
    if not placeholders:
        return lambda env: texts
    current = placeholder_value(placeholders.pop())
    listed = IterationCache(lambda k: [key for text, t, more in zip(texts, keyed, named)
                                       for key in ((text % k if t else text),) + more])
    return lambda env: listed(current(env))


def placeholder_value(placeholder: Any) -> Callable[[dict], Any]:
    """What fills a key format: a loop's iteration for `#n`, else that input's value in that type."""
    if isinstance(placeholder, tuple):
        _, named_by, signed, bits = placeholder
        return lambda env: _wrap(env[named_by], bits, signed)
    return lambda env: env[placeholder]


class IterationCache:
    """What a loop body's keys are in one iteration (`make(k)`, k the placeholder's value: an
    element number, or a chain node's key), made once per iteration value rather than once per
    rendering: the search and the shrinking render the same iterations thousands of times."""

    def __init__(self, make: Callable[[Any], Any], size: int = 4096) -> None:
        self.make = make
        self.size = size
        self.made: dict[Any, Any] = {}

    def __call__(self, k: Any) -> Any:
        made = self.made.get(k)
        if made is None:
            if len(self.made) >= self.size:
                self.made.clear()
            made = self.made[k] = self.make(k)
        return made


# iterations a compiled counted loop renders at most: each costs the interpreter at least one step,
# so a case past the step bound goes to the interpreter, which ends it there (see counted_loop)
MAX_FAST_ITERATIONS = MAX_STEPS


def counted_iterations(spec: tuple) -> Callable[[dict], int]:
    """How often `for (i = 0; i < E; i++)` runs for the values in env: E in the comparison's type,
    none when that is not positive; a count the counter cannot reach without wrapping, or one past
    the step bound, is the interpreter's to decide."""
    tree, (_, bits, signed), counter, compared = spec
    value = compile_tree(tree)
    counter_max = (1 << (counter[1] - 1)) - 1 if counter[2] else (1 << counter[1]) - 1

    def count(env: dict) -> int:
        n = _wrap(_wrap(value(env), bits, signed), compared[1], compared[2])
        if n <= 0:
            return 0
        if n - 1 > counter_max or n > MAX_FAST_ITERATIONS:
            raise Fallback("a loop count the interpreter decides")
        return n

    return count


class ZeroDefaults(dict):
    """The values of a case that leaves unnamed inputs at zero: there, a number a counted loop's
    body reads from an element past the ones discovered (`s->v[5000]`) is 0, as the interpreter
    gives it, instead of a fall back to the interpreter (a string element still falls back)."""


class InOrderDefaults(dict):
    """The values of a case that gives unnamed inputs small distinct defaults (a default-based
    `VectorInputs`), once the search knows as many inputs as it keeps (MAX_INPUT_KEYS): a number a
    counted loop's body reads from an element past those (`s->v0[2]` when the discovered ones end
    at `s->v0[1]`) gets the value the interpreter gives an input it meets, `small_value` of the
    number of inputs met before it, in the type of a discovered element of the same array; instead
    of a fall back to the interpreter. Numbered from `first` (the inputs known), in the order the
    rendering reads them, which is the interpreter's for a loop whose body prints what it reads in
    that order (the generated counted loops); where the orders differ the case is another vector
    of small distinct values, as for the known inputs (numbered in the order they were discovered).
    An element of an array no discovered input names, or of a string, still falls back."""

    def __init__(self, values: Any = (), arrays: dict[str, tuple] | None = None, first: int = 0) -> None:
        super().__init__(values)
        self.arrays = arrays or {}
        self.met = first

    def default_of(self, key: str) -> int:
        """KEY's value, met now for the first time (KeyError when no discovered element types it)."""
        kind = self.arrays.get(array_of(key))
        if kind is None or kind[0] != "int":
            raise KeyError(key)
        value = self[key] = small_value(self.met, kind)
        self.met += 1
        return value


_INDEX = lazy_compile(r"\[\d+\]")


def array_of(key: str) -> str:
    """The array an element key belongs to (`s->v0[12]` -> `s->v0[]`); a key that indexes
    nothing is its own."""
    return _INDEX.sub("[]", key)


_COUNTED = "#counted"  # set in env while a counted loop's body renders


def _element(env: dict, key: str) -> int:
    try:
        return env[key]
    except KeyError:
        if _COUNTED in env:
            if type(env) is ZeroDefaults:
                return 0
            if type(env) is InOrderDefaults:
                return env.default_of(key)
        raise


def _enter(env: dict, counted: bool) -> Any:
    outer = env.get(_COUNTED)
    if counted:
        env[_COUNTED] = True
    return outer


def _leave(env: dict, outer: Any) -> None:
    if outer is None:
        env.pop(_COUNTED, None)


class ZeroReads:
    """What the all-zero case of two compiled traces reads, to know a case that changes nothing
    else without rendering it.

    A case that leaves every input at zero but some that the zero case's renderings never read
    (an element of an array whose count is 0, a member of a node past the chain's end: most of
    the `alone` stage over a loop's inputs) runs exactly as the zero case: every condition, count
    and field those renderings consult has its zero value, so they take the same way and print
    the same bytes. When the zero case printed the same bytes on both sides (without opaque
    calls), such a case is the same too. `Renderer.reads` lists every key a rendering consults."""

    def __init__(self, renderers: tuple[Renderer, Renderer], zeros: dict[str, Any]) -> None:
        self.zeros = zeros
        self.keys: dict[str, None] | None = None  # None: the zero case is no such baseline
        env = ZeroDefaults(zeros)
        try:
            old, new = renderers[0].render(env), renderers[1].render(env)
            if old == new and not old[1]:
                read: dict[str, None] = {}
                for renderer in renderers:
                    renderer.reads(ZeroDefaults(env), read)
                self.keys = read
        except (Fallback, KeyError, TypeError):
            self.keys = None

    def renders_as_zero(self, values: dict[str, Any]) -> bool:
        """Whether a zero-based case naming `values` renders as the zero case: every input it
        names is known (of the zero's type, as the fast path requires), and those the zero case
        reads are at their zero."""
        if self.keys is None:
            return False
        zeros, read = self.zeros, self.keys
        for key, value in values.items():
            zero = zeros.get(key, _MISSING)
            if type(value) is not type(zero) or (key in read and value != zero):
                return False
        return True


_MISSING = object()


def compile_trace(items: list) -> Renderer | None:
    """A Renderer for a trace (rows and loops of fmtcheck.engine.paths included), or None when
    some item has no exact fast form."""
    if FOLD in repr(items):
        return None  # what a loop accumulated is the interpreter's to compute (fmtcheck.c.folds)
    try:
        return Renderer(items)
    except (ValueError, KeyError):
        return None
