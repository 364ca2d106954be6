"""The per-user cache of parsed grammars and DFA forms (fmtcheck.layout.gcache): a hit gives the
same grammar as a parse, and a stale, foreign, writable or hostile entry is parsed again."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from fmtcheck.layout import gcache
from fmtcheck.layout.language import parse_grammar

TEXT = (Path(__file__).resolve().parents[3] / "grammars" / "net_dev.grammar").read_text(encoding="utf-8")


class Counting:
    def __init__(self):
        self.calls = 0

    def __call__(self, text, name):
        self.calls += 1
        return parse_grammar(text, name)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FMTCHECK_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def test_a_second_load_reads_the_entry_and_gives_the_same_grammar(cache):
    parse = Counting()
    first = gcache.cached_grammar("net_dev", TEXT, parse)
    second = gcache.cached_grammar("net_dev", TEXT, parse)
    assert parse.calls == 1
    assert second is not first and repr(second.body) == repr(first.body) and second.text == TEXT
    (entry,) = cache.iterdir()
    assert entry.stat().st_mode & 0o077 == 0


def test_an_edited_grammar_is_parsed_again(cache):
    parse = Counting()
    gcache.cached_grammar("net_dev", TEXT, parse)
    gcache.cached_grammar("net_dev", TEXT + "\n# edited\n", parse)
    assert parse.calls == 2


def test_an_entry_others_can_write_is_ignored(cache):
    parse = Counting()
    gcache.cached_grammar("net_dev", TEXT, parse)
    for entry in cache.iterdir():
        entry.chmod(0o666)
    gcache.cached_grammar("net_dev", TEXT, parse)
    assert parse.calls == 2


class Hostile:
    def __reduce__(self):
        return (os.mkdir, (HOSTILE_DIR,))


HOSTILE_DIR = ""


def test_an_entry_that_would_call_anything_is_refused(cache, tmp_path):
    global HOSTILE_DIR
    HOSTILE_DIR = str(tmp_path / "made-by-the-cache")
    path = Path(gcache.entry_path(str(cache), "net_dev", TEXT))
    cache.mkdir(mode=0o700)
    path.write_bytes(pickle.dumps(Hostile()))
    path.chmod(0o600)
    parse = Counting()
    g = gcache.cached_grammar("net_dev", TEXT, parse)
    assert parse.calls == 1 and g.name == "net_dev"
    assert not os.path.exists(HOSTILE_DIR)


def test_off_parses_every_time_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("FMTCHECK_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    parse = Counting()
    gcache.cached_grammar("net_dev", TEXT, parse)
    gcache.cached_grammar("net_dev", TEXT, parse)
    assert parse.calls == 2 and not any(tmp_path.iterdir())


def test_an_unwritable_cache_still_parses(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("FMTCHECK_CACHE_DIR", str(blocker / "c"))
    assert gcache.cached_grammar("net_dev", TEXT, Counting()).name == "net_dev"


def test_cached_bytes_round_trip(cache):
    calls = []
    compute = lambda: calls.append(1) or b"abc"  # noqa: E731
    assert gcache.cached_bytes("t", b"key", ("gcache.py",), compute) == b"abc"
    assert gcache.cached_bytes("t", b"key", ("gcache.py",), compute) == b"abc"
    assert len(calls) == 1


def test_the_cache_stays_bounded(cache, monkeypatch):
    monkeypatch.setattr(gcache, "MAX_ENTRIES", 8)
    for i in range(30):
        gcache.cached_bytes("t", b"key%d" % i, ("gcache.py",), lambda: b"x")
    assert len([p for p in cache.iterdir() if not p.name.startswith(".")]) <= 9


def test_cached_values_round_trip_and_build_nothing_else(cache):
    calls = []
    compute = lambda: calls.append(1) or (("net_dev", b"Inter-", None, 50, 1 << 200),)  # noqa: E731
    first = gcache.cached_value("v", b"key", ("gcache.py",), compute)
    assert gcache.cached_value("v", b"key", ("gcache.py",), compute) == first and len(calls) == 1
    for entry in cache.iterdir():
        entry.write_bytes(pickle.dumps(Hostile()))
    global HOSTILE_DIR
    HOSTILE_DIR = str(cache / "made-by-the-cache")
    assert gcache.cached_value("v", b"key", ("gcache.py",), compute) == first and len(calls) == 2
    assert not os.path.exists(HOSTILE_DIR)
