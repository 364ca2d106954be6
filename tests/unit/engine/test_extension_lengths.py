"""A %p extension whose text the kernel bounds (lib/vsprintf.c: %pM 17 bytes, %pI6 39, %pI4 7-15,
%pI6c 2-44, "(null)"/"(efault)" for a bad pointer) is still an opaque token, but a width past its
longest text pads it to a known length: two sides that print the same extension of the same
address with such widths differ in length whatever the address is, so they are divergent. Where
some text would fill both widths (`%39pI6c` against `%40pI6c`: an ISATAP address with an IPv4
tail is 44 bytes) the difference hangs on the address and stays inconclusive. C written for these
tests in the kernel's style.
"""

from __future__ import annotations

import pytest

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources
from fmtcheck.kernel import vsprintf

STRUCT = "struct peer { unsigned char mac[6]; struct in6_addr a6; __be32 a4; void *fn; int n; };\n\n"


def show(fmt: str, arg: str = "&p->mac") -> str:
    return (f"{STRUCT}static int t_show(struct seq_file *m, void *v)\n{{\n\tstruct peer *p = v;\n\n"
            f'\tseq_printf(m, "{fmt}|%d\\n", {arg}, p->n);\n\treturn 0;\n}}\n')


def verdict(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


@pytest.mark.parametrize("old_fmt, new_fmt, arg", [
    ("%17pM", "%18pM", "&p->mac"),  # a MAC address is 17 bytes (or 6/8 for a bad pointer)
    ("%pM", "%18pM", "&p->mac"),
    ("%39pI6", "%40pI6", "&p->a6"),
    ("%45pI6c", "%46pI6c", "&p->a6"),  # past the longest compressed address (44)
    ("%16pI4", "%15pI4", "&p->a4"),  # %15pI4 is always 15 bytes, %16pI4 always 16
    ("%-37pU", "%36pU", "&p->mac"),
])
def test_a_width_past_the_longest_text_of_the_same_extension_is_divergent(old_fmt, new_fmt, arg) -> None:
    result = verdict(show(old_fmt, arg), show(new_fmt, arg))
    assert result.verdict == "divergent", (result.verdict, result.reason)


@pytest.mark.parametrize("old_fmt, new_fmt, arg, why", [
    ("%39pI6c", "%40pI6c", "&p->a6", "an ISATAP address with an IPv4 tail fills both"),
    ("%38pI6c", "%39pI6c", "&p->a6", "a 39-byte address fills both"),
    ("%15pI4", "%14pI4", "&p->a4", "255.255.255.255 fills both"),
    ("%.10pM", "%.11pM", "&p->mac", "a bad pointer prints 6 or 8 bytes: both precisions keep them"),
    ("%20ps", "%21ps", "p->fn", "a symbol name has no bound"),
    ("%18pM ", "%17pM  ", "&p->mac", "one more space in the literal text: the lengths can be equal"),
])
def test_a_width_some_text_fills_or_an_unbounded_extension_stays_inconclusive(old_fmt, new_fmt, arg, why) -> None:
    result = verdict(show(old_fmt, arg), show(new_fmt, arg))
    assert result.verdict == "inconclusive", why


def test_the_same_width_on_two_different_addresses_is_not_decided_by_length() -> None:
    old = show("%18pM", "&p->mac")
    new = show("%17pM", "&p->a6")
    assert verdict(old, new).verdict == "inconclusive"


def test_the_kernels_bounds_include_the_bad_pointer_texts() -> None:
    assert vsprintf.extension_text_lengths(b"M") == range(6, 18)
    assert vsprintf.extension_text_lengths(b"I6c") == range(2, 45)
    assert vsprintf.extension_text_lengths(b"i4") == range(6, 16)
    assert vsprintf.extension_text_lengths(b"s") is None and vsprintf.extension_text_lengths(b"ISpc") is None
