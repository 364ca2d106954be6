"""Stores into the caller's data (`stats->qual.updated &= ~FLAGS`, `*pos = n`, a scratch buffer
the caller passed): memory the code does not own, which another input may be the same object as.

The model never guesses that two paths are different memory. A store is an output event of its
own (`store <path> = <value>`, opaque: both sides must make the same stores at the same points
of their output, else the verdict is inconclusive, never divergent), and every value read after
it, from any path or any call the code does not define, is named by the stores made so far (the
key gets `@N`, N a digest of the stores in order; `@cN` while only unknown calls that received
a pointer into the caller's data may have written it, see `call_may_write`). Two sides that made
the same stores read the same state, so they read equal values; a side that read a path before a
store and another after it read two names, which the engine treats as not shared (see
`fmtcheck.engine.sharing`): the store may or may not have changed it. What a path holds right after a store to it is not assumed
either (the path may be another path's memory too).
"""

from __future__ import annotations

from typing import Any

from fmtcheck.c.symbolic import NotProvable, Sym
from fmtcheck.c.values import Context, Free, symbolic_name
from fmtcheck.common.errors import Inconclusive
from fmtcheck.common.lazyre import lazy_compile

STORE_MARK = "@"

_CONSTANT = lazy_compile(r"[A-Z][A-Z0-9_]*")


_STATE = lazy_compile(r"@(c?)\d+$")  # the state a read was made in: after a store, or only after calls


def stored_key(key: str) -> bool:
    """Is this input key a read made after a store (whose value the store may have changed)?"""
    state = _STATE.search(key)
    return state is not None and state.start() > 0 and not state.group(1)


def written_path(key: str) -> str | None:
    """The path a read made after unknown calls that may have written the caller's data reads
    (`s->x` of `s->x@cN`); None for any other key (one without `@c` at once: a wide case's
    report asks it of thousands)."""
    if "@c" not in key:
        return None
    state = _STATE.search(key)
    return key[:state.start()] if state is not None and state.group(1) else None


def stateless(key: str) -> str:
    """KEY without the state of the caller's data it was read in (`s->x` of `s->x@N`)."""
    return _STATE.sub("", key)


class StoredInputs:
    """The input source of a side after its first store: every key named by the stores so far."""

    def __init__(self, inner: Any, ctx: Context) -> None:
        self.inner = inner
        self.ctx = ctx

    def _key(self, key: str) -> str:
        if _CONSTANT.fullmatch(key) or key.startswith("(uninitialised "):
            return key  # a macro the input does not define, a local's stack garbage: no memory a store reaches
        if key in self.ctx.result_states:
            return key  # what an unknown call returned: named by the state it was made in (`call_result`)
        return f"{key}{STORE_MARK}{self.ctx.store_state}"

    def int_input(self, key: str, t: tuple) -> Any:
        return self.inner.int_input(self._key(key), t)

    def str_input(self, key: str, domain: str) -> Any:
        return self.inner.str_input(self._key(key), domain)

    def loop_count(self, key: str) -> Any:
        return self.inner.loop_count(self._key(key))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def value_name(v: Any, where: str) -> str:
    """A stored value in the store's event: a number, an input path, or (in a proof) the
    expression of the inputs it is."""
    if type(v) is int:
        return str(v)
    if isinstance(v, Free):
        return "&" + v.key if not v.key.startswith("&") else v.key
    if isinstance(v, Sym):
        if "#" in repr(v.tree):
            raise NotProvable("a store of a value of the loop's iteration")
        return symbolic_name(v)
    raise Inconclusive(where, "a store of a value the model cannot name into data the code does not own")


def store(ctx: Context, path: str, what: str, where: str) -> None:
    """Record one store to `path` (`what`: `path = value`, `memset(path, byte, count)`): an
    output event, and a new state for every later read. The state is named by the paths stored
    to, in order, not by the values: a proof and a concrete run of one case name it alike, and
    two sides that stored different values differ in the store's event already."""
    if ctx.loop_depth:
        # a body traced once for every iteration would read, in each, the state before the
        # first iteration's store
        raise NotProvable("a store into the caller's data in a loop body traced by induction")
    if "#" in path and _proving(ctx):
        raise NotProvable("a store at a place of the loop's iteration")
    ctx.out.opaque(f"store {what}", where)
    _new_state(ctx, path, stored=True)


def call_result(ctx: Context, call: str) -> str:
    """The name of the value an unknown call returns, read now or later (a pointer, or a value
    whose type its use decides): the call's key in the state it is made in, so that a value
    converted after later calls is still the one the call returned."""
    name = call if ctx.store_state is None else f"{call}{STORE_MARK}{ctx.store_state}"
    ctx.result_states[name] = ctx.store_state
    return name


def call_may_write(ctx: Context, call: str, where: str) -> None:
    """An unknown call that received a pointer into the caller's data (`fill_stats(s)`,
    `update(&p->stats)`) may have written through it, or anywhere the pointer leads (a callee can
    reach the enclosing object with container_of): every later read is named by the calls so far,
    as after a store, so that a read moved across the call is a read of another value, not
    assumed equal. Not an output event: the call prints nothing that the model could compare."""
    if ctx.loop_depth:
        raise NotProvable(f"{call}, which may write the caller's data, in a loop body traced by induction")
    if "#" in call and _proving(ctx):
        raise NotProvable(f"{call}, which may write the caller's data, takes a value of the loop's iteration")
    _new_state(ctx, "call " + call, stored=False)


def _proving(ctx: Context) -> bool:
    """Is this run a proof? There `#N` names a loop's iteration; a concrete run's keys use `#`
    for nested iterations too (`for_each_process_thread(_)[0]#1`)."""
    return bool(getattr(ctx.inputs, "symbolic", False))


def _new_state(ctx: Context, change: str, stored: bool) -> None:
    """The state after one more change. It is named `N` once the code stored into the caller's
    data and `cN` while only calls may have written it: after a store the model does not know
    what the path holds, so a read then is shared by no one (`stored_key`); what a call may have
    written is any value, the same for two sides that made the same calls."""
    previous = ctx.store_state or "0"
    import hashlib  # (on first use: its OpenSSL binding costs ~2.5 ms of start-up)
    digest = str(int(hashlib.sha1(f"{previous}|{change}".encode("utf-8", "surrogateescape")).hexdigest()[:12], 16))
    after_store = stored or (previous != "0" and not previous.startswith("c"))
    ctx.store_state = digest if after_store else "c" + digest
    ctx.writes += 1
    if not isinstance(ctx.inputs, StoredInputs):
        ctx.inputs = StoredInputs(ctx.inputs, ctx)
