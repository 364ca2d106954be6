"""Edges of the printf and seq_file model where a verdict went the wrong way or the engine failed
(session 9's red team): a fixed-length write of a string input inside a proof, a primitive's
`unsigned int` width against a `*` width, and the sign boundary of a narrower signed view of a
wide unsigned input. Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

REC = "struct rec { unsigned long long q; const char *name; };\n"


def judged(old_body: str, new_body: str, params: str = "struct seq_file *m, struct rec *r"):
    sources = [f"{REC}static int rec_show({params})\n{{\n{body}\treturn 0;\n}}\n" for body in (old_body, new_body)]
    report = verify_sources(sources[0], sources[1], Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


# -- seq_write of a string input ------------------------------------------------------------------


def test_seq_write_of_a_string_input_is_judged_not_an_internal_error():
    """seq_write takes 4 bytes whatever the string's length; %.4s stops at its end. The proof has
    no bytes to cut from a symbolic string: it must stop and let testing decide (it raised a
    TypeError that reached the user as an internal error)."""
    result = judged('\tseq_write(m, r->name, 4);\n', '\tseq_printf(m, "%.4s", r->name);\n')
    assert result.verdict == "divergent"


def test_seq_write_of_a_string_input_on_both_sides_stays_equivalent():
    result = judged('\tseq_write(m, r->name, 4);\n\tseq_putc(m, \'\\n\');\n',
                    '\tseq_write(m, r->name, 4);\n\tseq_puts(m, "\\n");\n')
    assert result.verdict == "equivalent"


# -- a primitive's width is unsigned --------------------------------------------------------------


STAR_PARAMS = "struct seq_file *m, struct rec *r, int prec"


def test_a_star_width_against_a_primitive_width_is_not_proven_for_every_int():
    """`%*llu` left-justifies a negative width; seq_put_decimal_ull_width takes it as an unsigned
    int of about 4e9 and overflows the record. The two agree only over the width range the verdict
    states, so the answer is tested over that range, never 'proven' for every input."""
    result = judged('\tseq_printf(m, "%*llu|", prec, r->q);\n',
                    '\tseq_put_decimal_ull_width(m, "", r->q, prec);\n\tseq_putc(m, \'|\');\n', STAR_PARAMS)
    assert result.verdict == "equivalent"
    assert result.method == "tested"
    assert any("prec range over 0..16" in note for note in result.notes)


def test_the_same_primitive_at_the_same_input_width_stays_proven():
    result = judged('\tseq_put_decimal_ull_width(m, " ", r->q, prec);\n',
                    '\tseq_putc(m, \' \');\n\tseq_put_decimal_ull_width(m, "", r->q, prec);\n', STAR_PARAMS)
    assert (result.verdict, result.method) == ("equivalent", "proven")


def test_a_primitive_at_another_input_width_is_divergent():
    result = judged('\tseq_put_decimal_ull_width(m, " ", r->q, prec);\n',
                    '\tseq_put_decimal_ull_width(m, " ", r->q, prec + 1);\n', STAR_PARAMS)
    assert result.verdict == "divergent"


# -- sign boundaries of a narrower signed view ----------------------------------------------------


def test_a_u64_printed_signed_against_seq_put_decimal_ll_is_divergent_at_two_to_the_63():
    """seq_put_decimal_ll prints LLONG_MIN as "-0" while %lld prints -9223372036854775808: for a
    u64 input that is 2^63, which no digit-length boundary or extreme of a u64 reaches (the search
    called the pair 'equivalent, tested')."""
    result = judged('\tseq_printf(m, "%lld\\n", (long long)r->q);\n',
                    '\tseq_put_decimal_ll(m, "", r->q);\n\tseq_putc(m, \'\\n\');\n')
    assert result.verdict == "divergent"
    assert "9223372036854775808" in str(result.divergences[0])


def test_the_same_signed_view_of_a_u64_stays_equivalent():
    result = judged('\tseq_printf(m, "%lld\\n", (long long)r->q);\n',
                    '\tseq_printf(m, "%lld\\n", (s64)r->q);\n')
    assert result.verdict == "equivalent"


def test_a_u32_shown_as_a_short_is_divergent_at_its_sign_boundary():
    """`%hd` against `%d` of a 16-bit value differ from 32768 on: a look-alike that the sign
    boundaries keep divergent."""
    result = judged('\tseq_printf(m, "%hd\\n", (int)(r->q & 0xffff));\n',
                    '\tseq_printf(m, "%d\\n", (int)(r->q & 0xffff));\n')
    assert result.verdict == "divergent"


# -- a table indexed by an input: every entry is compared -----------------------------------------

TABLE_REC = "struct rec { int kind; unsigned int idx; };\n"
NAMES = '\tstatic const char * const names[] = { "zero", "one", "two" };\n'
NAMES_SLIP = NAMES.replace('"two"', '"tw0"')


def judged_table(old_body: str, new_body: str):
    sources = [f"{TABLE_REC}static int rec_show(struct seq_file *m, struct rec *r)\n{{\n{body}\treturn 0;\n}}\n"
               for body in (old_body, new_body)]
    report = verify_sources(sources[0], sources[1], Options(max_examples=30))
    return report.results[0]


def test_a_table_that_differs_in_its_last_entry_is_divergent():
    """The search's boundaries (0, 1, 9, 10, ...) select entries 0 and 1 of a 3-entry table and
    read past it at 9 (undefined, skipped): the pair was 'equivalent, tested' on 10 cases."""
    result = judged_table(NAMES + '\tseq_printf(m, "%s\\n", names[r->kind]);\n',
                          NAMES_SLIP + '\tseq_puts(m, names[r->kind]);\n\tseq_putc(m, \'\\n\');\n')
    assert result.verdict == "divergent"
    assert "tw0" in str(result.divergences[0])


def test_a_table_indexed_modulo_its_size_is_divergent_at_the_entry_that_differs():
    body = '\tseq_printf(m, "%s\\n", names[r->idx % 3]);\n'
    assert judged_table(NAMES + body, NAMES_SLIP + body).verdict == "divergent"


def test_an_entry_a_guard_keeps_out_is_not_an_obligation():
    """Entry 2 is never printed (idx < 2): the tables may differ there. The case aimed at it ran
    and did not read the table, so the search is complete."""
    body = '\tif (r->idx < 2)\n\t\tseq_printf(m, "%s\\n", names[r->idx]);\n'
    result = judged_table(NAMES + body, NAMES_SLIP + body)
    assert (result.verdict, result.method) == ("equivalent", "tested")


def test_an_entry_one_side_prints_from_a_literal_stays_equivalent():
    new = (NAMES + '\tif (r->kind == 1) {\n\t\tseq_puts(m, "one\\n");\n\t} else {\n'
           '\t\tseq_puts(m, names[r->kind]);\n\t\tseq_putc(m, \'\\n\');\n\t}\n')
    result = judged_table(NAMES + '\tseq_printf(m, "%s\\n", names[r->kind]);\n', new)
    assert result.verdict == "equivalent"


def test_an_index_the_search_cannot_steer_is_never_equivalent():
    body = '\tseq_printf(m, "%s\\n", names[(r->idx / 5) % 3]);\n'
    assert judged_table(NAMES + body, NAMES_SLIP + body).verdict != "equivalent"
