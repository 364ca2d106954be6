"""A per-user cache of parsed grammars (and of the DFA forms of record regexes, `dfa`), so that a
run does not pay the grammar parse (50-200 ms with pyparsing, more than matching a 10 MB capture
takes) and the regex translation (40-80 ms for a net/dev row) each time.

The cache lives in the user's cache directory ($FMTCHECK_CACHE_DIR, else $XDG_CACHE_HOME/fmtcheck,
else ~/.cache/fmtcheck), never in the working directory. An entry is named by a hash of the
grammar's text and of the source of the modules that parse and model it, so an edited grammar or
a new release of fmtcheck never reads a stale entry. Entries are pickles of the grammar model and
are read back with an unpickler that builds only the model's own classes: nothing else can be
created, let alone run, from a cache file, and a file that is not the user's own or that others can
write is ignored. Any failure (no home, a read-only disk, a broken entry) falls back to parsing:
the cache changes how fast a grammar loads, never what it is. FMTCHECK_CACHE_DIR=off disables it.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import stat
import sys

try:  # CPython's own SHA-256: hashlib would load OpenSSL first (milliseconds of every check's start-up)
    from _sha256 import sha256
except ImportError:  # pragma: no cover - another interpreter, or Python 3.12+ (_sha2)
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

from fmtcheck.layout import model

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Callable

_ALLOWED_MODULE = "fmtcheck.layout.model"
_ALLOWED_BUILTINS = {"frozenset", "set", "bytes", "bytearray", "slice", "tuple", "list", "dict"}


class _ModelUnpickler(pickle.Unpickler):
    """Builds the grammar model's classes and a few builtin containers, nothing else."""

    def find_class(self, module: str, name: str):
        if module == _ALLOWED_MODULE and isinstance(getattr(model, name, None), type):
            return getattr(model, name)
        if module == "builtins" and name in _ALLOWED_BUILTINS:
            return __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a grammar")


def cache_dir() -> str | None:
    """Where entries go, or None when caching is off or there is no home to put them in (paths are
    strings: pathlib costs milliseconds of start-up, issue #17)."""
    forced = os.environ.get("FMTCHECK_CACHE_DIR")
    if forced:
        return None if forced == "off" else forced
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return os.path.join(base, "fmtcheck")
    home = os.path.expanduser("~")
    return None if home == "~" else os.path.join(home, ".cache", "fmtcheck")


@functools.lru_cache(maxsize=4)
def code_version(modules: tuple = ("model.py", "language.py", "gcache.py")) -> str:
    """A hash of the modules whose code decides what an entry holds."""
    h = sha256(sys.version.encode())  # Python's regex parser and pickle are part of it
    here = os.path.dirname(os.path.realpath(__file__))
    for name in modules:
        try:
            with open(os.path.join(here, name), "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()[:16]


def entry_path(directory: str, name: str, text: str) -> str:
    digest = sha256((code_version() + "\0" + text).encode("utf-8")).hexdigest()[:24]
    return os.path.join(directory, f"{name}-{digest}.grammar.pickle")


def cached_grammar(name: str, text: str, parse: Callable[[str, str], model.Grammar]) -> model.Grammar:
    """The grammar NAME with source TEXT: read from the cache, or parsed and stored there."""
    directory = cache_dir()
    if directory is None:
        return parse(text, name)
    path = entry_path(directory, name, text)
    grammar = _read(path)
    if isinstance(grammar, model.Grammar) and grammar.text == text:
        return grammar
    grammar = parse(text, name)
    _write(directory, path, grammar)
    return grammar


def cached_bytes(kind: str, key: bytes, modules: tuple, compute: Callable[[], bytes]) -> bytes:
    """COMPUTE()'s bytes for KEY, from the cache when an entry of KIND was stored by the same code
    (MODULES: the files whose code decides them), else computed and stored."""
    directory = cache_dir()
    if directory is None:
        return compute()
    digest = sha256(code_version(modules).encode() + b"\0" + key).hexdigest()[:24]
    path = os.path.join(directory, f"{kind}-{digest}")
    data = _read_bytes(path)
    if data is not None:
        return data
    data = compute()
    _write_bytes(directory, path, data)
    return data


def cached_value(kind: str, key: bytes, modules: tuple, compute: Callable[[], object]):
    """COMPUTE()'s value, made of builtin containers, strings, bytes and numbers, for KEY: the
    `cached_bytes` of its pickle, read back with the unpickler that builds nothing else."""
    made = []

    def pickled() -> bytes:
        made.append(compute())
        try:
            return pickle.dumps(made[0], protocol=4)
        except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
            return b""  # not kept: read back, it is computed again

    data = cached_bytes(kind, key, modules, pickled)
    if made:
        return made[0]
    value = _loads(data)
    return compute() if value is None else value


def _read(path: str):
    data = _read_bytes(path)
    return None if data is None else _loads(data)


def _loads(data: bytes):
    try:
        return _ModelUnpickler(io.BytesIO(data)).load()
    except Exception:  # noqa: BLE001 - a broken or foreign entry is parsed again, whatever its fault
        return None


def _read_bytes(path: str) -> bytes | None:
    """The entry's bytes, when it is a regular file of this user that no one else can write."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) or not stat.S_ISREG(st.st_mode):
                return None
            return f.read()
    except OSError:
        return None


def _write(directory: str, path: str, grammar: model.Grammar) -> None:
    try:
        data = pickle.dumps(grammar, protocol=4)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
        return
    _write_bytes(directory, path, data)


MAX_ENTRIES = 512  # beyond this many entries, the older half is removed when one is written


def _prune(directory: str) -> None:
    """Keep the cache bounded: entries of an older fmtcheck or grammar are never read again."""
    with os.scandir(directory) as found:
        entries = [e.path for e in found if not e.name.startswith(".")]
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort(key=_mtime)
    for old in entries[: len(entries) // 2]:
        try:
            os.unlink(old)
        except FileNotFoundError:
            pass


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:
        return 0.0


def _write_bytes(directory: str, path: str, data: bytes) -> None:
    import tempfile  # only a run that fills the cache pays its import (shutil, random...)

    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        _prune(directory)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
