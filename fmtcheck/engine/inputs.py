"""Inputs: where layouts break, and how to draw them.

Random 64-bit values almost always have 19 or 20 digits, so they never exercise padding. The
inputs here are chosen by digit length instead: for every integer input 0, 1, 9, 10, every
10^k - 1 and 10^k, the hex digit boundaries, the type's maximum and minimum; for every string input
every length up to its bound, in its domain (an interface name is 1..15 bytes of anything but '/',
':' and whitespace). The deterministic sweep moves one input at a time through those values while
the others keep small distinct values (distinct, so that two swapped fields show), then moves all
inputs together through each digit length (so that a separator that only matters when columns fill
up is seen). Hypothesis then draws from the same classes and shrinks what fails.

Input sources give the interpreter values on demand, keyed by path; both sides of one case share
one source, so they see the same values.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.common.errors import LimitExceeded
from fmtcheck.c.types import conv

MAX_LOOP = 3

# bytes of input paths one case may name (each new input is kept for the report): a walk that
# names ever new inputs ends here, inconclusive, long before it could exhaust memory
MAX_INPUT_BYTES = 16 << 20
STRING_BOUNDS = {"ifname": (1, 15), "comm": (0, 15), "text": (0, 24)}
IFNAME_BYTES = bytes(
    sorted((b for b in range(1, 256) if b not in b"/: \t\n\r\x0b\x0c"),
           key=lambda b: (not chr(b).isalnum() or b > 127, b not in b"abcdefghijklmnopqrstuvwxyz", b))
)
BYTES_PER_STRING = 8  # bytes of each string that shows every byte value (`every_byte`)
_DEFAULT_STR = {"ifname": b"eth0", "comm": b"cat", "text": b"abc"}


def type_range(t: tuple) -> tuple[int, int]:
    """The values an input of type t can hold. A bool object holds only 0 or 1: the interpreter
    reads it through conv (any non-zero is 1) and a compiled trace as its stored value, so a
    drawn 5 would print as 1 on one path and 5 on the other."""
    if len(t) > 3 and t[3] == "bool":
        return 0, 1
    if len(t) > 4 and t[3] == "width":
        return 0, t[4]  # a `*` width or precision: 0..star_max (Options.star_max)
    if len(t) > 4 and t[3] == "size":
        return 1, t[4]  # a macro sizing a local array: 1..star_max
    if len(t) > 4 and t[3] == "bound":
        return 0, t[4]  # a macro bounding a counted loop: 0..star_max
    bits, signed = t[1], t[2]
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def boundary_values(t: tuple) -> list[int]:
    """0, 1, the decimal and hex digit-length boundaries, the extremes: ordered small first."""
    lo, hi = type_range(t)
    values = [0, 1]
    p = 10
    while p - 1 <= hi:
        values += [p - 1, p] if p <= hi else [p - 1]
        p *= 10
    p = 16
    while p - 1 <= hi:
        values += [p - 1, p] if p <= hi else [p - 1]
        p *= 16
    values.append(hi)
    values += sign_boundaries(lo, hi)
    if lo < 0:
        values += [-1, -9, -10, lo, lo + 1]
        p = 100
        while -p >= lo:
            values.append(-p)
            p *= 10
    seen: set[int] = set()
    ordered = []
    for v in values:
        if lo <= v <= hi and v not in seen:
            seen.add(v)
            ordered.append(v)
    return ordered


def sign_boundaries(lo: int, hi: int) -> list[int]:
    """Where a narrower signed view of a value changes sign: 2^(W-1)-1 and 2^(W-1) for every
    width W of 8, 16, 32 and 64 bits inside the range (and their negatives below -2^(W-1) when the
    range has them). A u64 cast to `long long` (`%lld` of `(long long)q`, seq_put_decimal_ll of a
    u64) prints differently only from 2^63 on, which no digit-length boundary reaches."""
    values = []
    for bits in (8, 16, 32, 64):
        half = 1 << (bits - 1)
        values += [v for v in (half - 1, half) if v <= hi]
        values += [v for v in (-half, -half - 1) if v >= lo]
    return values


def digit_length_values(t: tuple) -> list[int]:
    """One value of each decimal digit length (all nines), for filling every column at once."""
    _, hi = type_range(t)
    out = []
    d = 1
    while 10 ** (d - 1) <= hi:
        out.append(min(10**d - 1, hi))
        d += 1
    return out


def small_value(index: int, t: tuple) -> int:
    """Small, distinct per input: 1, 2, 3 ... 9, 1, 2 ..."""
    lo, hi = type_range(t)
    return min(index % 9 + 1, hi)


def default_string(domain: str) -> bytes:
    """The string an input takes when a case does not name it."""
    return _DEFAULT_STR.get(domain, b"abc")


def empty_string(domain: str) -> bytes:
    """The shortest string of a domain: empty, or one byte where the domain needs one."""
    return string_of_length(STRING_BOUNDS.get(domain, (0, 24))[0], domain)


@lru_cache(maxsize=256)
def zero_value(kind: Any) -> Any:
    """An input's 0: the number 0, the shortest string, no iterations."""
    if kind[0] == "str":
        return empty_string(kind[1])
    if kind[0] == "int":
        return max(type_range(kind)[0], 0)  # an array size's least is 1
    return 0


def string_of_length(n: int, domain: str, index: int = 0) -> bytes:
    if domain == "ifname":
        return (b"eth" + b"0123456789abcdef" * 2)[:n] if n else b""
    return (b"abcdefghijklmnopqrstuvwxyz" * 2)[index % 26:][:n] if n else b""


NUMBER_VIEW = " (as a number)"


class InputViews:
    """The values of one case, kept apart by view: a key the code reads both as a string (`%s` of
    `p->name`) and as a number (`p->name ? p->name : "unknown"`, a pointer tested for NULL) is two
    inputs, its contents and its number, each with its own value. Neither read ever overwrites the
    other, so both sides of one case see the same values whatever order they read them in (one
    shared slot was the non-determinism a replay caught), and the search moves both. The string
    view keeps the key's name; the number view of such a key is named `KEY (as a number)`."""

    def _init_views(self) -> None:
        self.ints: dict[str, Any] = {}  # numbers and loop counts
        self.strs: dict[str, bytes] = {}
        self.int_kinds: dict[str, Any] = {}
        self.str_kinds: dict[str, Any] = {}
        self.order: list[tuple[bool, str]] = []  # (is a string view, key), as first read
        self.number_views: set[str] = set()  # keys a fixed assignment named the number view of
        self.key_bytes = 0

    def _new_key(self, key: str) -> None:
        self.key_bytes += len(key) + 64
        if self.key_bytes > MAX_INPUT_BYTES:
            raise _input_limit(key)

    def _name(self, is_str: bool, key: str) -> str:
        if is_str or (key not in self.str_kinds and key not in self.number_views):
            return key
        return key + NUMBER_VIEW

    def _number_name(self, key: str) -> str:
        self.reads.append(self._name(False, key))
        return key

    def _place(self, fixed: dict[str, Any]) -> None:
        for name, value in fixed.items():
            if isinstance(value, (bytes, bytearray)):
                self.strs[name] = bytes(value)
            else:
                key = base_key(name)
                self.ints[key] = value
                if name != key:
                    self.number_views.add(key)

    @property
    def kinds(self) -> dict[str, Any]:
        return {self._name(is_str, key): (self.str_kinds if is_str else self.int_kinds)[key]
                for is_str, key in self.order}

    @property
    def values(self) -> dict[str, Any]:
        """Every value the case holds, read or only fixed, by name."""
        out = self.assignment()
        for is_str, store in ((False, self.ints), (True, self.strs)):
            for key, value in store.items():
                out.setdefault(self._name(is_str, key), value)
        return out

    def assignment(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for is_str, key in self.order:
            store = self.strs if is_str else self.ints
            if key in store:
                out[self._name(is_str, key)] = store[key]
        return out


def _input_limit(key: str) -> LimitExceeded:
    return LimitExceeded(key[:60], f"input limit reached ({MAX_INPUT_BYTES >> 20} MiB of input paths in one case)")


def base_key(name: str) -> str:
    """The key of an input's name (its number view named apart, see `InputViews`)."""
    return name[:-len(NUMBER_VIEW)] if name.endswith(NUMBER_VIEW) else name


class VectorInputs(InputViews):
    """A fixed assignment, with small distinct defaults for anything it does not name."""

    def __init__(self, fixed: dict[str, Any] | None = None, loops: dict[str, int] | None = None,
                 default_loop: int = 2, zero: bool = False) -> None:
        self._init_views()
        self._place(dict(fixed or {}))
        self.loops: dict[str, int] = dict(loops or {})
        self.default_loop = 0 if zero else default_loop
        self.zero = zero  # inputs the case does not name are 0, empty, no iterations
        self.plain = not fixed and not loops  # a base case: nothing named (`fmtcheck.engine.bases`)
        self.reads: list[str] = []  # every read, in order (coverage: which inputs a condition read)

    def _register(self, is_str: bool, key: str, kind: Any) -> None:
        kinds = self.str_kinds if is_str else self.int_kinds
        if key not in kinds:
            self._new_key(key)
            kinds[key] = kind
            self.order.append((is_str, key))

    def int_input(self, key: str, t: tuple) -> int:
        # (base_key, _number_name and _register inlined: every number an interpreter run reads)
        if key.endswith(NUMBER_VIEW):
            key = key[:-len(NUMBER_VIEW)]
        self.reads.append(key if key not in self.str_kinds and key not in self.number_views else key + NUMBER_VIEW)
        if key not in self.int_kinds:
            self.key_bytes += len(key) + 64
            if self.key_bytes > MAX_INPUT_BYTES:
                raise _input_limit(key)
            self.int_kinds[key] = t
            self.order.append((False, key))
        v = self.ints.get(key)
        if isinstance(v, int):
            return conv(v, t)
        v = zero_value(t) if self.zero else small_value(len(self.order) - 1, t)
        self.ints[key] = v
        return v

    def str_input(self, key: str, domain: str) -> bytes:
        self.reads.append(key)
        self._register(True, key, ("str", domain))
        v = self.strs.get(key)
        if isinstance(v, (bytes, bytearray)):
            return bytes(v)
        v = empty_string(domain) if self.zero else default_string(domain)
        self.strs[key] = v
        return v

    def loop_count(self, key: str) -> int:
        key = self._number_name(base_key(key))
        self._register(False, key, ("loop",))
        n = self.loops.get(key, self.ints.get(key))
        if not isinstance(n, int):
            n = self.default_loop
            self.ints[key] = n
        return n


class SymbolicInputs:
    """Proof mode: every input is a symbol."""

    symbolic = True  # a model bound (the end of a pointer chain) is no fact to prove from

    def int_input(self, key: str, t: tuple) -> Sym:
        return Sym.input(key, t[1], t[2])

    def str_input(self, key: str, domain: str):
        from fmtcheck.c.outputs import SymStr

        return SymStr(key, domain)

    def loop_count(self, key: str) -> int:
        raise NotProvable(f"the number of iterations of {key} is an input")


def axis_values(kind: Any) -> list[Any]:
    """The values one input takes when it moves alone: digit-length boundaries, every string
    length of its domain, 0..MAX_LOOP iterations."""
    if kind[0] == "int":
        return boundary_values(kind)
    if kind[0] == "str":
        return string_axis(kind[1])
    if kind[0] == "loop":
        return list(range(0, MAX_LOOP + 1))
    return []


def string_axis(domain: str) -> list[bytes]:
    """A string input's values when it moves alone: every length of its domain, then every byte
    value the domain allows (`every_byte`)."""
    lo, hi = STRING_BOUNDS.get(domain, (0, 24))
    return [string_of_length(n, domain) for n in range(lo, hi + 1)] + every_byte(domain)


def every_byte(domain: str) -> list[bytes]:
    """Every byte value a string of the domain may hold, in strings of BYTES_PER_STRING: two
    escapings of a string (`seq_escape_str` with one flag or one escaped byte less) print alike
    for letters and differ on one byte value, so lengths alone never compare them. A comm or a
    text is any bytes but NUL; an interface name has no '/', ':' or whitespace. The strings are
    short so that a copy into a small buffer or a precision keeps every byte."""
    alphabet = IFNAME_BYTES if domain == "ifname" else bytes(range(1, 256))
    step = min(BYTES_PER_STRING, STRING_BOUNDS.get(domain, (0, 24))[1])
    return [alphabet[i:i + step] for i in range(0, len(alphabet), step)]


def alone(kinds: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each input alone at each of its boundaries, every other input 0 or empty (run with
    `VectorInputs(..., zero=True)`): a slip that any one value shows is found here, with the
    smallest counterexample."""
    for key, kind in kinds.items():
        for v in axis_values(kind):
            if v != zero_value(kind):
                yield {key: v}


def sweep(kinds: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The deterministic sweep over the discovered inputs."""
    keys = list(kinds)
    yield {}
    for key in keys:
        kind = kinds[key]
        for v in axis_values(kind):
            yield {key: v}
    ints = [k for k in keys if kinds[k][0] == "int"]
    strs = [k for k in keys if kinds[k][0] == "str"]
    depth = max((len(digit_length_values(kinds[k])) for k in ints), default=0)
    for d in range(depth):
        vec: dict[str, Any] = {}
        for k in ints:
            vals = digit_length_values(kinds[k])
            vec[k] = vals[min(d, len(vals) - 1)]
        for k in strs:
            lo, hi = STRING_BOUNDS.get(kinds[k][1], (0, 24))
            vec[k] = string_of_length(min(hi, max(lo, d + 1)), kinds[k][1])
        yield vec
    yield {k: type_range(kinds[k])[0] for k in ints}
    yield {k: 0 for k in ints}


def classes_covered(kinds: dict[str, Any]) -> list[str]:
    ints = [k for k in kinds if kinds[k][0] == "int"]
    strs = [k for k in kinds if kinds[k][0] == "str"]
    loops = [k for k in kinds if kinds[k][0] == "loop"]
    out = []
    if ints:
        out.append(f"every decimal and hex digit length, zero and the extremes of {len(ints)} integer input(s)")
        out.append("all columns filled together at each digit length")
    if strs:
        out.append(f"every length and every byte value of {len(strs)} string input(s) in its domain")
    if loops:
        out.append(f"0..{MAX_LOOP} iterations of {len(loops)} loop(s)")
    return out


# ---------------------------------------------------------------------------------------------
# hypothesis


@lru_cache(maxsize=None)
def int_strategy(t: tuple):
    from hypothesis import strategies as st

    lo, hi = type_range(t)
    bounds = boundary_values(t)
    max_digits = len(str(hi))

    def of_length(d: int):
        low = 10 ** (d - 1) if d > 1 else max(lo, 0)
        return st.integers(low, min(10**d - 1, hi))

    by_length = st.integers(1, max_digits).flatmap(of_length)
    parts = [st.sampled_from(bounds), by_length]
    if lo < 0:
        parts.append(by_length.map(lambda v: -v if -v >= lo else lo))
    parts.append(st.integers(lo, hi))
    return st.one_of(*parts)


@lru_cache(maxsize=None)
def str_strategy(domain: str):
    from hypothesis import strategies as st

    lo, hi = STRING_BOUNDS.get(domain, (0, 24))
    if domain == "ifname":
        alphabet = st.sampled_from(list(IFNAME_BYTES)).map(lambda b: bytes([b]))
        return st.lists(alphabet, min_size=lo, max_size=hi).map(b"".join)
    return st.binary(min_size=lo, max_size=hi).map(lambda b: b.replace(b"\x00", b"a"))


class HypothesisInputs(InputViews):
    """Inputs drawn lazily from Hypothesis's `data`, so every draw can be shrunk (views kept
    apart as in `InputViews`)."""

    def __init__(self, data) -> None:
        self.data = data
        self._init_views()
        self.reads: list[str] = []

    def _draw(self, is_str: bool, key: str, kind: Any, strategy) -> Any:
        store, kinds = (self.strs, self.str_kinds) if is_str else (self.ints, self.int_kinds)
        if key not in store:
            self._new_key(key)
            kinds[key] = kind
            self.order.append((is_str, key))
            store[key] = self.data.draw(strategy, label=self._name(is_str, key))
        return store[key]

    def int_input(self, key: str, t: tuple) -> int:
        key = self._number_name(base_key(key))
        v = self._draw(False, key, t, int_strategy(t))
        return conv(v, t) if isinstance(v, int) else 0

    def str_input(self, key: str, domain: str) -> bytes:
        self.reads.append(key)
        v = self._draw(True, key, ("str", domain), str_strategy(domain))
        return v if isinstance(v, bytes) else b""

    def loop_count(self, key: str) -> int:
        from hypothesis import strategies as st

        key = self._number_name(base_key(key))
        v = self._draw(False, key, ("loop",), st.integers(0, MAX_LOOP))
        return v if isinstance(v, int) else 0


# the inputs drawn from 0..star_max (or 1..) instead of their whole type, as the verdict states them
_RANGED = (("width", "'*' width/precision input(s) {} range over 0..{}"),
           ("size", "macro(s) {} sizing a local array range over 1..{}"),
           ("bound", "macro(s) {} bounding a loop range over 0..{}"))


def range_notes(kinds: dict[str, Any], star_max: int) -> list[str]:
    """The notes of a tested verdict on inputs whose range is --star-max's, not their type's."""
    notes = []
    for tag, text in _RANGED:
        keys = sorted(k for k, kind in kinds.items() if len(kind) > 4 and kind[3] == tag)
        if keys:
            notes.append(text.format(", ".join(keys), star_max) + " (--star-max)")
    return notes
