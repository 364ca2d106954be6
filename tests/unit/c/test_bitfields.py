"""A bitfield of a struct the file defines holds its width's values (issue 15, soundness): a
1-bit `unsigned int on:1` printed by `seq_putc(m, '0' + s->on)` against `%u` was called
divergent with `s->on=10`, a value the field cannot hold. C written for these tests."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options


def pair(fields: str, old_body: str, new_body: str) -> str:
    def show(body: str) -> str:
        return (f"struct foo_flags {{ {fields} }};\nstatic int t_show(struct seq_file *m, void *v)\n{{\n"
                f"\tstruct foo_flags *s = v;\n\n{body}\treturn 0;\n}}\n")
    return verify_sources(show(old_body), show(new_body), Options(max_examples=30)).results[0]


DIGIT = "\tseq_putc(m, '0' + s->mode);\n\tseq_putc(m, '\\n');\n"


def test_a_narrow_unsigned_bitfield_is_one_digit():
    result = pair("unsigned int on:1, mode:3;", '\tseq_printf(m, "%u\\n", s->mode);\n', DIGIT)
    assert result.verdict == "equivalent", result.reason


def test_a_bitfield_wide_enough_for_two_digits_is_divergent_at_ten():
    result = pair("unsigned int on:1, mode:4;", '\tseq_printf(m, "%u\\n", s->mode);\n', DIGIT)
    assert result.verdict == "divergent"
    assert result.divergences[0].counterexample["s->mode"] >= 10


def test_a_one_bit_signed_bitfield_holds_minus_one():
    result = pair("int neg:1;", '\tseq_printf(m, "%d\\n", s->neg);\n', "\tseq_putc(m, '0' + s->neg);\n\tseq_putc(m, '\\n');\n")
    assert result.verdict == "divergent"
    assert result.divergences[0].counterexample["s->neg"] == -1


def test_a_bitfield_of_a_width_the_model_cannot_read_is_no_narrow_type():
    result = pair("unsigned int mode:FOO_BITS;", '\tseq_printf(m, "%u\\n", s->mode);\n', DIGIT)
    assert result.verdict != "equivalent"
