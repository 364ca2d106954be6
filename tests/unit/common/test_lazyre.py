"""fmtcheck.common.lazyre: a module-level pattern compiled on its first use answers as re's does."""

from __future__ import annotations

import copy
import re

from fmtcheck.common.lazyre import LazyPattern, lazy_compile


def test_nothing_is_compiled_before_the_first_use():
    pattern = lazy_compile(rb"(unclosed")  # an invalid pattern raises only when first used
    assert isinstance(pattern, LazyPattern)
    try:
        pattern.match(b"x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern compiled")


def test_every_method_and_attribute_answers_as_the_compiled_pattern():
    source, flags = rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M
    lazy, real = lazy_compile(source, flags), re.compile(source, flags)
    text = b"#define A 1\n  # define B_2(x) x\nint c;\n#define\n"
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.findall(text) == real.findall(text) == [b"A", b"B_2"]
    assert lazy.sub(b"-", text) == real.sub(b"-", text)
    assert lazy.subn(b"-", text) == real.subn(b"-", text)
    assert lazy.split(text) == real.split(text)
    assert lazy.search(text).group(1) == b"A"
    assert lazy.match(b"int") is None and lazy.fullmatch(b"#define Z").group(1) == b"Z"
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (real.pattern, real.flags, real.groups,
                                                                      real.groupindex)


def test_copies_and_special_lookups_do_not_compile_or_recurse():
    pattern = lazy_compile(r"a+")
    assert not hasattr(pattern, "__wrapped__")
    twin = copy.copy(pattern)
    assert twin.fullmatch("aaa") and pattern.fullmatch("aa")
