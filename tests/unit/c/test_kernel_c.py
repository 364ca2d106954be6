"""The kernel's C as the kernel writes it (issue 15): macros, library, uninterpreted calls, data,
and the soundness rule. Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

import json

import pytest

from fmtcheck import verify_sources
from fmtcheck.common.options import Options
from fmtcheck.kernel import lib, macros


def show(body: str, before: str = "", params: str = "struct seq_file *m, void *v") -> str:
    return f"{before}static int t_show({params})\n{{\n{body}\treturn 0;\n}}\n"


def run(old: str, new: str, **options):
    report = verify_sources(old, new, Options(max_examples=30, **options))
    assert len(report.results) == 1
    return report.results[0]


def assert_equivalent(old: str, new: str, **options):
    result = run(old, new, **options)
    assert result.verdict == "equivalent", (result.verdict, result.reason, result.divergences[:1])
    return result


def assert_inconclusive(old: str, new: str, needle: str, **options):
    result = run(old, new, **options)
    assert result.verdict == "inconclusive", (result.verdict, result.reason, result.divergences[:1])
    assert needle in result.reason, result.reason
    return result


# -- macros the kernel writes ----------------------------------------------------------------


TYPED = show('\tstruct foo_stats *s = list_entry(v, struct foo_stats, list);\n'
             '\tunsigned int n = min_t(unsigned int, s->used, 100);\n'
             '\tunsigned long c = clamp_t(unsigned long, s->cap, 1, 9);\n\n'
             '\tseq_printf(m, "%u %lu\\n", n, c);\n')
TYPED_NEW = show('\tstruct foo_stats *st = container_of(v, struct foo_stats, list);\n'
                 '\tunsigned int used = min((unsigned int)st->used, 100U);\n\n'
                 '\tseq_put_decimal_ull(m, "", used);\n'
                 '\tseq_put_decimal_ull(m, " ", clamp((unsigned long)st->cap, 1UL, 9UL));\n'
                 '\tseq_putc(m, \'\\n\');\n')


def test_typed_minmax_and_entry_macros_parse_and_mean_what_they_say():
    assert_equivalent(TYPED, TYPED_NEW)


def test_min_t_truncates_to_its_type():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%llu\\n", (unsigned long long)min_t(u8, f->big, 1000));\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%llu\\n", (unsigned long long)min(f->big, 1000ULL));\n',
               params="struct seq_file *m, void *v")
    result = run(old, new)
    assert result.verdict == "divergent"


SCOPED = show('\tstruct foo *f = v;\n\tint i;\n\n\tguard(mutex)(&f->lock);\n'
              '\tscoped_guard (spinlock_irqsave, &f->slock) {\n\t\tseq_printf(m, "%d\\n", f->a);\n\t}\n'
              '\tscoped_seqlock_read (&f->seq, ss_lock) {\n\t\tseq_printf(m, "%d\\n", f->b);\n\t}\n'
              '\tdo_each_subsys_mask(ss, i, f->mask) {\n\t\tseq_puts(m, ss->name);\n\t} while_each_subsys_mask();\n'
              '\tBUILD_BUG_ON(sizeof(int) != 4);\n')
SCOPED_NEW = show('\tstruct foo *f = v;\n\tint i;\n\n\tmutex_lock(&f->lock);\n'
                  '\tseq_put_decimal_ll(m, "", (int)f->a);\n\tseq_putc(m, \'\\n\');\n'
                  '\tseq_put_decimal_ll(m, "", (int)f->b);\n\tseq_putc(m, \'\\n\');\n'
                  '\tdo_each_subsys_mask(ss, i, f->mask) {\n\t\tseq_puts(m, ss->name);\n\t} while_each_subsys_mask();\n')


def test_guards_scoped_blocks_and_do_each_loops():
    assert_equivalent(SCOPED, SCOPED_NEW)


FILE_SCOPE = ('static DEFINE_MUTEX(foo_lock);\nDEFINE_PER_CPU(struct sock *, foo_sk);\n'
              'static DEFINE_PER_CPU(unsigned long, foo_count);\n')


@pytest.mark.parametrize("tail", ["EXPORT_SYMBOL(t_show);\n", "DEFINE_SHOW_ATTRIBUTE(t);\nmodule_init(t_init);\n"])
def test_file_scope_macros_are_not_a_syntax_error_and_keep_lines(tail):
    old = show('\tseq_printf(m, "%d\\n", 5);\n\tseq_printf(m, "%ps\\n", v);\n', before=FILE_SCOPE) + tail
    new = show('\tseq_puts(m, "5\\n");\n\tseq_printf(m, "%pS\\n", v);\n', before=FILE_SCOPE) + tail
    result = assert_inconclusive(old, new, "%ps")
    assert result.reason.startswith("old:7:"), result.reason


def test_rewrites_keep_every_line_number():
    text = (FILE_SCOPE + "EXPORT_SYMBOL(x);\n" + SCOPED).encode()
    out = macros.rewrite(text)
    assert out.count(b"\n") == text.count(b"\n")


# -- the kernel's library ----------------------------------------------------------------------


HEX_OLD = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%02x:%llu\\n", f->b & 0xff, f->n);\n')
HEX_NEW = show('\tstruct foo *f = v;\n\tchar buf[4];\n\tunsigned long long n = f->n;\n'
               '\tint digits = n ? 64 - __builtin_clzll(n) : 0;\n\n'
               '\tbuf[0] = hex_asc[(f->b >> 4) & 0xf];\n\tbuf[1] = hex_asc_lo(f->b);\n\tbuf[2] = \':\';\n'
               '\tbuf[3] = 0;\n\tseq_puts(m, buf);\n\tif (digits)\n\t\tseq_put_decimal_ull(m, "", n);\n'
               '\telse\n\t\tseq_putc(m, \'0\');\n'
               '\tseq_putc(m, \'\\n\');\n')


def test_hex_table_and_clzll_rewrite_is_equivalent():
    assert_equivalent(HEX_OLD, HEX_NEW)


def test_library_functions_have_their_values():
    assert lib.clz(1, 64) == 63 and lib.ctz(8, 32) == 3 and lib.fls(0, 32) == 0 and lib.fls(0x80, 32) == 8
    assert lib.ilog2(4096) == 12 and lib.hex_byte(0xAB) == b"ab" and lib.hex_byte(0xAB, True) == b"AB"
    assert lib.clamp(20, 1, 9) == 9


def test_hex_byte_pack():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%02x\\n", f->b & 0xff);\n')
    new = show('\tstruct foo *f = v;\n\tchar buf[3];\n\tchar *p = buf;\n\n'
               '\tp = hex_byte_pack(p, f->b & 0xff);\n\t*p = 0;\n\tseq_puts(m, buf);\n\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)


OWN_BODY = (
    "void seq_put_decimal_ull(struct seq_file *m, const char *delimiter, unsigned long long num)\n{\n"
    "\tint len;\n\n\tif (m->count + 2 >= m->size)\n\t\tgoto overflow;\n"
    "\tif (delimiter && delimiter[0]) {\n\t\tif (delimiter[1] == 0)\n\t\t\tseq_putc(m, delimiter[0]);\n"
    "\t\telse\n\t\t\tseq_puts(m, delimiter);\n\t}\n"
    "\tif (m->count + 1 >= m->size)\n\t\tgoto overflow;\n"
    "\tif (num < 10) {\n\t\tm->buf[m->count++] = num + '0';\n\t\treturn;\n\t}\n"
    "\tlen = num_to_str(m->buf + m->count, m->size - m->count, num, 0);\n"
    "\tif (!len)\n\t\tgoto overflow;\n\tm->count += len;\n\treturn;\noverflow:\n\tm->count = m->size;\n}\n\n"
)


def test_own_primitive_body_is_equivalent_and_deterministic():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "n %llu\\n", f->n);\n')
    new = OWN_BODY + show('\tstruct foo *f = v;\n\n\tseq_put_decimal_ull(m, "n ", f->n);\n\tseq_putc(m, \'\\n\');\n')
    outputs = set()
    for _ in range(20):
        report = verify_sources(old, new, Options(max_examples=30))
        assert report.results[0].verdict == "equivalent", report.results[0].reason
        outputs.add(json.dumps(report.to_json(), sort_keys=True))
    assert len(outputs) == 1


# -- uninterpreted but consistent ----------------------------------------------------------------


def test_seq_user_ns_is_a_value_not_an_output_event():
    old = show('\tstruct sock *sk = v;\n\n\tseq_printf(m, "%5u %lu\\n", from_kuid_munged(seq_user_ns(m), sock_i_uid(sk)),'
               ' sock_i_ino(sk));\n')
    new = show('\tstruct sock *sk = v;\n\n\tseq_put_decimal_ull_width(m, "", (unsigned int)from_kuid_munged('
               'seq_user_ns(m), sock_i_uid(sk)), 5);\n\tseq_put_decimal_ull(m, " ", (unsigned long)sock_i_ino(sk));\n'
               '\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)


def test_out_parameters_of_unknown_calls_are_values_of_the_call_not_of_the_local_name():
    old = show('\tunsigned long shared, text;\n\tunsigned long size = task_statm(v, &shared, &text);\n\n'
               '\tseq_printf(m, "%lu %lu %lu\\n", size, shared, text);\n')
    new = show('\tunsigned long sh, tx;\n\tunsigned long sz = task_statm(v, &sh, &tx);\n\n'
               '\tseq_put_decimal_ull(m, "", sz);\n\tseq_put_decimal_ull(m, " ", sh);\n'
               '\tseq_put_decimal_ull(m, " ", tx);\n\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)


def test_iterator_with_a_renamed_cursor_is_the_same_loop():
    old = show('\tstruct mm_struct *mm = v;\n\tstruct vm_area_struct *vma;\n\tunsigned long bytes = 0;\n\n'
               '\tfor_each_vma(vmi, vma)\n\t\tbytes += kobjsize(vma);\n\tseq_printf(m, "Mem: %8lu\\n", bytes);\n')
    new = show('\tstruct mm_struct *mm = v;\n\tstruct vm_area_struct *area;\n\tunsigned long total = 0;\n\n'
               '\tfor_each_vma(vmi, area)\n\t\ttotal += kobjsize(area);\n\tseq_puts(m, "Mem: ");\n'
               '\tseq_put_decimal_ull_width(m, "", total, 8);\n\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)


CHIP = ('\tstruct irq_desc *desc = v;\n\n\tseq_printf(m, "%3d: ", desc->irq);\n'
        '\tif (desc->irq_data.chip->irq_print_chip)\n\t\tdesc->irq_data.chip->irq_print_chip(&desc->irq_data, m);\n'
        '\tseq_putc(m, \'\\n\');\n')
CHIP_NEW = ('\tstruct irq_desc *desc = v;\n\n\tseq_put_decimal_ull_width(m, "", (unsigned int)desc->irq, 3);\n\tseq_puts(m, ": ");\n'
            '\tif (desc->irq_data.chip->irq_print_chip)\n\t\tdesc->irq_data.chip->irq_print_chip(&desc->irq_data, m);\n'
            '\tseq_putc(m, \'\\n\');\n')


def test_function_pointer_callback_on_both_sides_is_equivalent():
    old = show(CHIP.replace("%3d", "%3u"))
    assert_equivalent(old, show(CHIP_NEW))


def test_function_pointer_callback_on_one_side_only_is_inconclusive():
    new = show(CHIP_NEW.replace("\tif (desc->irq_data.chip->irq_print_chip)\n"
                                "\t\tdesc->irq_data.chip->irq_print_chip(&desc->irq_data, m);\n", ""))
    result = assert_inconclusive(show(CHIP.replace("%3d", "%3u")), new, "function pointer")
    assert "old:7" in result.reason


def test_helper_inlined_on_one_side_is_inconclusive_never_divergent():
    old = show('\tstruct foo *f = v;\n\n\tfoo_show_rx(m, f);\n\tseq_putc(m, \'\\n\');\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "rx %lu", f->rx);\n\tseq_putc(m, \'\\n\');\n')
    result = assert_inconclusive(old, new, "foo_show_rx(m, v)")
    assert not result.divergences


def test_seq_file_members_are_inputs():
    old = show('\tseq_printf(m, "%llu %p\\n", (unsigned long long)m->index, m->file);\n')
    new = show('\tseq_put_decimal_ull(m, "", m->index);\n\tseq_printf(m, " %p\\n", m->file);\n')
    assert_equivalent(old, new)


def test_pointer_extension_is_an_opaque_token_equal_on_both_sides():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-16pI4 %*pbl\\n", &f->addr, f->nbits, f->mask);\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-16pI4", &f->addr);\n\tseq_putc(m, \' \');\n'
               '\tseq_printf(m, "%*pbl", f->nbits, f->mask);\n\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)


def test_pointer_extension_with_another_width_is_inconclusive_not_divergent():
    """%pI4 prints 6 to 15 bytes: %-15pI4 and %-14pI4 print the same for a 15-byte address."""
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-15pI4\\n", &f->addr);\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-14pI4\\n", &f->addr);\n')
    assert_inconclusive(old, new, "%-15pI4")


def test_pointer_extension_with_a_width_past_its_longest_text_is_divergent():
    """%-16pI4 is always 16 bytes and %-15pI4 always 15 (fmtcheck.kernel.vsprintf.extension_text_lengths)."""
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-16pI4\\n", &f->addr);\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%-15pI4\\n", &f->addr);\n')
    assert verify_sources(old, new, Options(max_examples=30)).results[0].verdict == "divergent"


def test_star_width_from_an_int_parameter_is_proven_for_every_width():
    old = show('\tseq_printf(p, "%*s: ", prec, "NMI");\n', params="struct seq_file *p, int prec")
    new = show('\tseq_printf(p, "%*s:", prec, "NMI");\n\tseq_putc(p, \' \');\n', params="struct seq_file *p, int prec")
    assert assert_equivalent(old, new).method == "proven"


def test_star_width_from_an_int_parameter_ranges_over_0_to_16():
    """What the proof cannot show is tested with the width over 0..16 (the verdict says so):
    `prec & 0xff` is prec there, not for every int."""
    old = show('\tseq_printf(p, "%*s: ", prec, "NMI");\n', params="struct seq_file *p, int prec")
    new = show('\tseq_printf(p, "%*s:", prec & 0xff, "NMI");\n\tseq_putc(p, \' \');\n',
               params="struct seq_file *p, int prec")
    result = assert_equivalent(old, new)
    assert any("0..16" in n for n in result.notes), result.notes
    result = assert_equivalent(old, new, star_max=40)
    assert any("0..40" in n for n in result.notes), result.notes


def test_sizeless_local_array_sized_by_an_unknown_macro():
    body = ('\tunsigned long pages[NR_FOO_LISTS];\n\tint i;\n\n\tfor (i = 0; i < 3; i++)\n'
            '\t\tpages[i] = foo_page_state(i);\n\tseq_printf(m, "%lu %lu\\n", pages[0], pages[2]);\n')
    new = body.replace('\tseq_printf(m, "%lu %lu\\n", pages[0], pages[2]);\n',
                       '\tseq_put_decimal_ull(m, "", pages[0]);\n\tseq_put_decimal_ull(m, " ", pages[2]);\n'
                       '\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(show(body), show(new))


def test_sizeof_a_sizeless_array_is_inconclusive_naming_it():
    # sized by a plain macro, sizeof is that macro (tests/unit/c/test_kernel_coverage.py); a size
    # expression the model does not fold is named
    body = '\tunsigned long pages[NR_FOO_LISTS + 1];\n\n\tseq_printf(m, "%zu\\n", sizeof(pages));\n'
    result = run(show(body), show(body.replace("%zu\\n", "%zu \\n")))
    assert result.verdict == "inconclusive" and "pages" in result.reason and "old:5" in result.reason


# -- data the printers read ----------------------------------------------------------------------


TABLE = ('\tstatic const struct {\n\t\tconst char *name;\n\t\tunsigned int shift;\n\t} tbl[] = {\n'
         '\t\t{ "Kernel", 10 },\n\t\t{ .name = "User", .shift = 20 },\n\t};\n\tstruct foo *f = v;\n\tint i;\n\n'
         '\tfor (i = 0; i < ARRAY_SIZE(tbl); i++)\n')


def test_static_const_struct_table():
    old = show(TABLE + '\t\tseq_printf(m, "%s: %lu\\n", tbl[i].name, f->pages >> tbl[i].shift);\n')
    new = show(TABLE + '\t{\n\t\tseq_puts(m, tbl[i].name);\n\t\tseq_put_decimal_ull(m, ": ", f->pages >> tbl[i].shift);\n'
               '\t\tseq_putc(m, \'\\n\');\n\t}\n')
    assert_equivalent(old, new)


GOTO = ('\tstruct foo *f = v;\n\tint i;\n\n\tfor (i = 0; i < 4; i++) {\n\t\tif (f->stop == i) {\n'
        '\t\t\tseq_puts(m, "stop");\n\t\t\tgoto out;\n\t\t}\n\t\tseq_printf(m, "%d ", i);\n\t}\nout:\n'
        '\tseq_putc(m, \'\\n\');\n')


def test_goto_out_of_a_nested_block():
    new = GOTO.replace('seq_printf(m, "%d ", i);', 'seq_put_decimal_ll(m, "", i);\n\t\tseq_putc(m, \' \');')
    assert_equivalent(show(GOTO), show(new))
    wrong = GOTO.replace('seq_puts(m, "stop");', 'seq_puts(m, "stop ");')
    assert run(show(GOTO), show(wrong)).verdict == "divergent"


def test_switch_fall_through():
    body = ('\tstruct foo *f = v;\n\tint n = 0;\n\n\tswitch (f->kind & 3) {\n\tcase 0:\n\t\tn++;\n'
            '\t\tfallthrough;\n\tcase 1:\n\t\tn++;\n\t\tbreak;\n\tdefault:\n\t\tn = 7;\n\t}\n'
            '\tseq_printf(m, "%d\\n", n);\n')
    assert_equivalent(show(body), show(body.replace('\tseq_printf(m, "%d\\n", n);\n',
                                                    '\tseq_put_decimal_ll(m, "", n);\n\tseq_putc(m, \'\\n\');\n')))


# -- the soundness rule -------------------------------------------------------------------------


def test_undeclared_input_through_u_against_a_64_bit_primitive_is_not_proven():
    old = show('\tseq_printf(m, "%u\\n", stats->rx);\n')
    new = show('\tseq_put_decimal_ull(m, "", stats->rx);\n\tseq_putc(m, \'\\n\');\n')
    result = assert_inconclusive(old, new, "stats->rx")
    assert "not declared" in result.reason


def test_declared_input_through_u_against_a_64_bit_primitive_is_proven():
    before = "struct foo_stats { unsigned int rx; };\n"
    old = show('\tstruct foo_stats *stats = v;\n\n\tseq_printf(m, "%u\\n", stats->rx);\n', before=before)
    new = show('\tstruct foo_stats *stats = v;\n\n\tseq_put_decimal_ull(m, "", (unsigned int)stats->rx);\n'
               '\tseq_putc(m, \'\\n\');\n', before=before)
    assert_equivalent(old, new)


def test_no_report_shows_identical_expected_and_actual_lines():
    old = show('\tseq_puts(m, "a ");\n\tfoo_extra(m, v);\n\tseq_puts(m, "b\\n");\n')
    new = show('\tseq_puts(m, "a ");\n\tseq_puts(m, "b\\n");\n\tfoo_extra(m, v);\n')
    result = run(old, new)
    assert result.verdict == "inconclusive"
    assert all(d.expected != d.actual for d in result.divergences)


def test_pointer_chain_loop_is_a_list_of_input_length():
    old = show('\tstruct foo *f = v;\n\tstruct foo_entry *e;\n\n'
               '\tfor (e = f->head; e; e = e->next)\n\t\tseq_printf(m, "%lu\\n", e->val);\n')
    new = show('\tstruct foo *f = v;\n\tstruct foo_entry *p;\n\n'
               '\tfor (p = f->head; p; p = p->next) {\n\t\tseq_put_decimal_ull(m, "", p->val);\n'
               '\t\tseq_putc(m, \'\\n\');\n\t}\n')
    assert_equivalent(old, new)


def test_walking_the_callers_array_with_a_pointer():
    old = show('\tstruct foo *f = v;\n\tstruct foo_slot *k = f->slots;\n\tint i;\n\n'
               '\tfor (i = 0; i < 3; i++, k++)\n\t\tseq_printf(m, "%d ", k->state);\n')
    new = show('\tstruct foo *f = v;\n\tstruct foo_slot *slots = f->slots;\n\tint i;\n\n'
               '\tfor (i = 0; i < 3; i++) {\n\t\tseq_put_decimal_ll(m, "", i ? slots[i].state : (*slots).state);\n'
               '\t\tseq_putc(m, \' \');\n\t}\n')
    assert_equivalent(old, new)


def test_sizeof_a_struct_the_input_does_not_define_is_an_opaque_positive_size():
    old = show('\tstruct foo_stats st;\n\n\tmemset(&st, 0, sizeof(st));\n\tfoo_fill(v, &st);\n'
               '\tseq_printf(m, "%lu %zu\\n", st.pages, sizeof(struct foo_stats));\n')
    new = show('\tstruct foo_stats s;\n\n\tmemset(&s, 0, sizeof(s));\n\tfoo_fill(v, &s);\n'
               '\tseq_put_decimal_ull(m, "", s.pages);\n\tseq_put_decimal_ull(m, " ", sizeof(s));\n'
               '\tseq_putc(m, \'\\n\');\n')
    assert_equivalent(old, new)
