"""diff collects the keys of one-line records matched by the DFA with one findall
(`lookahead.leading_keys`): for every line, the very key `key_text` gives of the text before the
line's first stop byte."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fmtcheck.layout.lookahead import key_text, leading_keys

TEXT = st.binary(max_size=12).map(lambda b: bytes(b" \t-:/ax\n"[c % 8] for c in b))


@given(lines=st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=6), stop=st.sampled_from(b": \t-/x"))
def test_leading_keys_is_key_text_of_the_text_before_the_stop_byte(lines, stop):
    sep = bytes([stop])
    heads = [h.replace(b"\n", b"").replace(sep, b"") for h, _ in lines]
    data = b"".join(h + sep + t.replace(b"\n", b"") + b"\n" for h, (_, t) in zip(heads, lines))
    assert leading_keys(stop).findall(data) == [key_text(h) for h in heads]
