"""Plain data classes for the modules `fmtcheck check` and `diff` import, without `dataclasses`.

Issue #17 measures `check` and `diff` whole-process beside `cmp`, and on a 14 MB /proc/net/dev
`cmp` takes about 8 ms of CPU: start-up is most of a check. `import dataclasses` alone costs about
13 ms (it imports `inspect`, hence `ast`, `dis`, `tokenize`), and each `@dataclass` 0.5-1.5 ms
more, because it writes the source of `__init__`, `__repr__`, `__eq__` (and `__hash__`,
`__setattr__` when frozen) and compiles it: some forty classes lie on that path. `plain` gives
those classes the same methods built from closures, with nothing compiled at import.

What it keeps of `dataclasses` (the subset these classes use): fields are the class's own
annotations in order; a class attribute is the field's default, `factory(f)` a default made by
calling F for each instance; `__init__` takes the fields by position or keyword, in that order
(`vars()` lists them in that order, as the JSON envelope's options do); `__repr__` is
``Name(a=1, b='x')``; `eq` compares the fields of two instances of the same class, and with `frozen`
instances cannot be changed and hash by their fields (eq without frozen: unhashable, as a
dataclass). A method the class defines itself is kept. `replace(obj, **changes)` is
`dataclasses.replace`. Instances pickle as any class does (their `__dict__`), so the grammar cache
reads them back without calling `__init__`.
"""

from __future__ import annotations

from operator import attrgetter

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """An attempt to change a field of a frozen instance."""


class factory:  # noqa: N801 - read as a marker in a class body: `notes: list = factory(list)`
    """A field's default made by calling MAKE for each instance (`dataclasses.field(default_factory=...)`)."""

    __slots__ = ("make",)

    def __init__(self, make) -> None:
        self.make = make


def plain(cls=None, *, frozen: bool = False, eq: bool = True):
    """The class decorator: `@plain`, `@plain(frozen=True)`, `@plain(eq=False)`."""

    def wrap(klass):
        return _build(klass, frozen, eq)

    return wrap if cls is None else wrap(cls)


def _build(cls, frozen: bool, eq: bool):
    names = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = {}
    for name in names:
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, factory):
            delattr(cls, name)  # as dataclasses does: no class attribute for a made default
        if value is not _MISSING:
            defaults[name] = value
    cls.__plain_fields__ = names
    own = cls.__dict__
    explicit_hash = not ("__hash__" not in own or (own["__hash__"] is None and "__eq__" in own))
    _put(cls, "__init__", _init(cls.__qualname__, names, defaults))
    _put(cls, "__repr__", _repr(names))
    if eq:
        _put(cls, "__eq__", _eq(names))
    if frozen:
        _put(cls, "__setattr__", _frozen_setattr(cls, names))
        _put(cls, "__delattr__", _frozen_delattr(cls, names))
    if eq and not explicit_hash:
        cls.__hash__ = _hash(names) if frozen else None
    return cls


def _put(cls, name: str, method) -> None:
    """Set METHOD unless the class body defines NAME itself."""
    if name not in cls.__dict__:
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)


def _init(qualname: str, names: tuple, defaults: dict):
    count = len(names)
    positions = {name: i for i, name in enumerate(names)}

    def __init__(self, *args, **kwargs):
        if len(args) == count and not kwargs:  # every field by position: the common call, in C
            self.__dict__.update(zip(names, args))
            return
        if len(args) > count:
            raise TypeError(f"{qualname}.__init__() takes {count + 1} positional arguments but "
                            f"{len(args) + 1} were given")
        for name in kwargs:
            at = positions.get(name)
            if at is None:
                raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument '{name}'")
            if at < len(args):
                raise TypeError(f"{qualname}.__init__() got multiple values for argument '{name}'")
        d = self.__dict__
        for i, name in enumerate(names):
            if i < len(args):
                d[name] = args[i]
            elif name in kwargs:
                d[name] = kwargs[name]
            else:
                value = defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{qualname}.__init__() missing required argument: '{name}'")
                d[name] = value.make() if isinstance(value, factory) else value

    return __init__


def _repr(names: tuple):
    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _astuple(names: tuple):
    """The fields of an instance as one tuple (what a dataclass compares and hashes)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(names: tuple):
    fields = _astuple(names)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields(self) == fields(other)

    return __eq__


def _hash(names: tuple):
    fields = _astuple(names)

    def __hash__(self) -> int:
        return hash(fields(self))

    return __hash__


def _frozen_setattr(cls, names: tuple):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field '{name}'")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls, names: tuple):
    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field '{name}'")
        super(cls, self).__delattr__(name)

    return __delattr__


def replace(obj, **changes):
    """A copy of OBJ with CHANGES (`dataclasses.replace`): made by the class's `__init__`."""
    values = {name: getattr(obj, name) for name in obj.__plain_fields__}
    for name in changes:
        if name not in values:
            raise TypeError(f"{obj.__class__.__qualname__} has no field '{name}'")
    values.update(changes)
    return obj.__class__(**values)
