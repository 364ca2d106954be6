"""`fmtcheck.common.plain` behaves as `dataclasses` does for what the check/diff path uses of it."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from fmtcheck.common.plain import FrozenInstanceError, factory, plain, replace


def _pair(frozen: bool = False, eq: bool = True):
    """The same class made by `dataclasses` and by `plain`."""

    def body(ns_field):
        class C:
            a: int
            b: str = "x"
            c: list = ns_field(list)
            d: tuple = ()
        return C

    dc = dataclasses.dataclass(frozen=frozen, eq=eq)(body(lambda f: dataclasses.field(default_factory=f)))
    pl = plain(frozen=frozen, eq=eq)(body(factory))
    return dc, pl


@pytest.mark.parametrize("frozen,eq", [(False, True), (True, True), (False, False)])
def test_init_repr_eq_hash_as_dataclasses(frozen, eq):
    dc, pl = _pair(frozen, eq)
    for args, kwargs in [((1,), {}), ((1, "y"), {"d": (2,)}), ((), {"a": 3, "c": [4]}), ((1, "b", [2], (3,)), {})]:
        x, y = dc(*args, **kwargs), pl(*args, **kwargs)
        assert vars(x) == vars(y) and list(vars(x)) == list(vars(y))  # the same fields, in order
        assert repr(x) == repr(y)
        assert (x == dc(*args, **kwargs)) == (y == pl(*args, **kwargs))
        assert (x == dc(9)) == (y == pl(9))
        assert (dc.__hash__ is None) == (pl.__hash__ is None)
        if dc.__hash__ is not None and frozen:
            assert _hash_or_error(x) == _hash_or_error(y)
    assert pl(1).c is not pl(1).c  # a made default is made per instance
    assert not hasattr(pl, "c") and pl.b == "x"
    for bad_args, bad_kwargs in [((), {}), ((1,), {"a": 2}), ((1,), {"e": 2}), ((1, 2, 3, 4, 5), {})]:
        with pytest.raises(TypeError):
            pl(*bad_args, **bad_kwargs)


def _hash_or_error(obj):
    try:
        return hash(obj)
    except TypeError as err:  # a list field: unhashable both ways
        return str(err)


def test_frozen_and_replace_and_pickle():
    _, pl = _pair(frozen=True)
    x = pl(1, c=[1])
    with pytest.raises(FrozenInstanceError):
        x.a = 2
    with pytest.raises(AttributeError):
        del x.b
    y = replace(x, b="z")
    assert (y.a, y.b, y.c) == (1, "z", [1]) and x.b == "x"
    with pytest.raises(TypeError):
        replace(x, zz=1)
    globals()["Frozen"] = pl
    pl.__qualname__ = "Frozen"
    assert pickle.loads(pickle.dumps(x, protocol=4)) == x


def test_methods_the_class_defines_are_kept():
    @plain
    class C:
        a: int

        def __repr__(self) -> str:
            return "mine"

    assert repr(C(1)) == "mine" and C(1) == C(1)
