"""Kernel constructs the corpus of real printers showed undecided (issue 15, coverage): each is
modelled or left uninterpreted but shared by both sides. Every snippet is C written for these
tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.c.coverage import RECENT_READS, reads_before
from fmtcheck.common.options import Options


def show(body: str, before: str = "", params: str = "struct seq_file *m, void *v") -> str:
    return f"{before}static int t_show({params})\n{{\n{body}\treturn 0;\n}}\n"


def run(old: str, new: str, **options):
    report = verify_sources(old, new, Options(max_examples=30, **options))
    assert len(report.results) == 1
    return report.results[0]


def verdict_of(old: str, new: str, **options) -> tuple[str, str | None]:
    result = run(old, new, **options)
    return result.verdict, result.reason


# -- a pointer from an unknown call that receives the seq_file -------------------------------

FROM_SEQ = show('\tstruct foo_group *grp = foo_group_from_seq(m);\n\n'
                '\tseq_printf(m, "%d\\n", READ_ONCE(grp->limit));\n')
FROM_SEQ_SPLIT = show('\tstruct foo_group *g = foo_group_from_seq(m);\n\n'
                      '\tseq_put_decimal_ll(m, "", READ_ONCE(g->limit));\n'
                      '\tseq_putc(m, \'\\n\');\n')
FROM_SEQ_WIDE = show('\tstruct foo_group *g = foo_group_from_seq(m);\n\n'
                     '\tseq_printf(m, "%4d\\n", READ_ONCE(g->limit));\n')


def test_a_struct_pointer_returned_by_a_call_on_the_seq_file_is_a_value_of_that_call():
    assert verdict_of(FROM_SEQ, FROM_SEQ_SPLIT)[0] == "equivalent"


def test_the_returned_pointer_still_tells_a_real_difference():
    assert verdict_of(FROM_SEQ, FROM_SEQ_WIDE)[0] == "divergent"


def test_the_reads_before_a_comparison_are_a_bounded_window():
    reads = [f"k{i}" for i in range(3 * RECENT_READS)]
    assert reads_before(reads, 2 * RECENT_READS) == reads[RECENT_READS:2 * RECENT_READS]
    assert reads_before(reads, 5) == reads[:5]
    assert reads_before(None, 5) is None


# -- enumerators and designated initializers -------------------------------------------------

ENUM = 'enum foo_state { FOO_IDLE, FOO_BUSY = 4, FOO_DEAD };\n\n'


def test_an_enumerator_the_input_defines_is_its_value_not_an_input():
    # it used to be an input: "divergent" with FOO_DEAD = 0, a counterexample no kernel realizes
    old = show('\tseq_printf(m, "%d %d\\n", FOO_IDLE, FOO_DEAD);\n', before=ENUM)
    assert verdict_of(old, show('\tseq_puts(m, "0 5\\n");\n', before=ENUM))[0] == "equivalent"
    assert verdict_of(old, show('\tseq_puts(m, "0 4\\n");\n', before=ENUM))[0] == "divergent"


NAMES = ('\tstatic const char * const names[] = {\n'
         '\t\t[FOO_BUSY] = "busy",\n\t\t[FOO_IDLE] = "idle",\n\t\t[FOO_DEAD] = "dead",\n\t};\n'
         '\tstruct foo *f = v;\n\n')


def test_a_string_table_with_designators_is_the_table_it_spells():
    old = show(NAMES + '\tseq_printf(m, "state: %s\\n", names[(f->state & 1) + FOO_BUSY]);\n', before=ENUM)
    new = show(NAMES + '\tseq_puts(m, "state: ");\n\tseq_puts(m, names[(f->state & 1) + FOO_BUSY]);\n'
               '\tseq_putc(m, \'\\n\');\n', before=ENUM)
    assert verdict_of(old, new)[0] == "equivalent"


def test_a_hole_of_a_designated_table_is_null():
    old = show(NAMES + '\tseq_printf(m, "%s\\n", names[1]);\n', before=ENUM)
    assert verdict_of(old, show('\tseq_puts(m, "(null)\\n");\n'))[0] == "equivalent"
    assert verdict_of(old, show('\tseq_puts(m, "busy\\n");\n'))[0] == "divergent"


def test_a_range_designator_fills_its_range_and_the_last_designator_wins():
    table = ('\tstatic const int width[] = { [0 ... 3] = 8, [2] = 16 };\n'
             '\tstruct foo *f = v;\n\n')
    old = show(table + '\tseq_printf(m, "%*d|\\n", width[2], f->x);\n')
    new = show(table + '\tseq_printf(m, "%16d|\\n", f->x);\n')
    assert verdict_of(old, new)[0] == "equivalent"
    assert verdict_of(old, show(table + '\tseq_printf(m, "%8d|\\n", f->x);\n'))[0] == "divergent"


def test_a_designator_the_input_does_not_define_is_named_with_its_line():
    table = ('static const char *const names[] = {\n\t[FOO_RUN] = "run",\n\t[FOO_STOP] = "stop",\n};\n\n')
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%s\\n", names[f->state & 1]);\n', before=table)
    new = show('\tstruct foo *f = v;\n\n\tseq_puts(m, names[f->state & 1]);\n\tseq_putc(m, 10);\n',
               before=table)
    verdict, reason = verdict_of(old, new)
    assert verdict == "inconclusive"
    assert "array designator [FOO_RUN]" in reason and ":2" in reason, reason


def test_a_struct_table_with_array_designators():
    before = ENUM + 'struct foo_desc {\n\tconst char *name;\n\tint shift;\n};\n\n'
    table = ('\tstatic const struct foo_desc descs[] = {\n'
             '\t\t[FOO_BUSY] = { "busy", 10 },\n\t\t[FOO_IDLE] = { .shift = 2, .name = "idle" },\n\t};\n\n')
    old = show(table + '\tseq_printf(m, "%s %d\\n", descs[FOO_BUSY].name, descs[0].shift);\n', before=before)
    assert verdict_of(old, show('\tseq_puts(m, "busy 2\\n");\n', before=before))[0] == "equivalent"


# -- macros that stand for several printf arguments ------------------------------------------

MASKS = show('\tstruct foo *f = v;\n\n'
             '\tseq_printf(m, "Cpus_allowed:\\t%*pb\\n", cpumask_pr_args(f->mask));\n'
             '\tseq_printf(m, "Mems_allowed_list:\\t%*pbl\\n", nodemask_pr_args(&f->mems));\n')


def test_cpumask_and_nodemask_pr_args_are_the_width_and_the_bitmap():
    new = show('\tstruct foo *g = v;\n\n\tseq_puts(m, "Cpus_allowed:\\t");\n'
               '\tseq_printf(m, "%*pb", cpumask_pr_args(g->mask));\n'
               '\tseq_puts(m, "\\nMems_allowed_list:\\t");\n'
               '\tseq_printf(m, "%*pbl\\n", nodemask_pr_args(&g->mems));\n')
    assert verdict_of(MASKS, new)[0] == "equivalent"


def test_another_bitmap_extension_is_not_claimed_equal():
    new = MASKS.replace("%*pbl", "%*pb")
    verdict, reason = verdict_of(MASKS, new)
    assert verdict == "inconclusive" and "%*pbl" in reason, (verdict, reason)


# -- sizeof an array sized by a macro the input does not define ------------------------------

NAMED_BUF = ('\tchar buf[FOO_NAMELEN];\n\tstruct foo *f = v;\n\n'
             '\tfoo_format_name(f, buf, sizeof(buf));\n')


def test_sizeof_an_array_sized_by_an_unknown_macro_is_that_macro():
    old = show(NAMED_BUF + '\tseq_printf(m, "%s %u\\n", buf, f->id);\n')
    new = show(NAMED_BUF + '\tseq_puts(m, buf);\n\tseq_put_decimal_ull(m, " ", (unsigned int)f->id);\n\tseq_putc(m, 10);\n')
    assert verdict_of(old, new)[0] == "equivalent"


def test_the_size_of_such_an_array_is_the_same_input_as_its_macro():
    old = show(NAMED_BUF.replace("\tfoo_format_name(f, buf, sizeof(buf));\n", "")
               + '\tseq_printf(m, "%lu\\n", sizeof(buf));\n')
    assert verdict_of(old, show('\tseq_printf(m, "%lu\\n", (unsigned long)FOO_NAMELEN);\n'))[0] == "equivalent"
    assert verdict_of(old, show('\tseq_printf(m, "%lu\\n", (unsigned long)FOO_NAMELEN + 1);\n'))[0] == "divergent"


# -- the address of an element of the file's array -------------------------------------------

COUNTERS = ('enum { FOO_A, FOO_B, FOO_COUNT };\nstatic atomic_long_t counters[FOO_COUNT];\n'
            'static const char *const names[] = { [FOO_A] = "a", [FOO_B] = "b" };\n\n')


def test_the_address_of_an_array_element_is_named_by_the_index_value_not_its_text():
    # `&counters[i]` was keyed by its text: renaming the local index made a wrong divergent
    old = show('\tint i;\n\n\tfor (i = 0; i < FOO_COUNT; i++)\n'
               '\t\tseq_printf(m, "%s: %ld\\n", names[i], atomic_long_read(&counters[i]));\n', before=COUNTERS)
    renamed = old.replace("int i;", "int k;").replace("(i = 0; i < FOO_COUNT; i++)", "(k = 0; k < FOO_COUNT; k++)")
    renamed = renamed.replace("names[i]", "names[k]").replace("&counters[i]", "&counters[k]")
    assert verdict_of(old, renamed)[0] == "equivalent"
    other = renamed.replace("&counters[k]", "&counters[FOO_B - k]")
    assert verdict_of(old, other)[0] == "divergent"


def test_the_address_of_an_element_of_a_local_array_is_not_named_by_its_text():
    old = show('\tstruct foo *f = v;\n\tstruct foo_ctr *ctrs = f->ctrs;\n\tint i = f->n;\n\n'
               '\tseq_printf(m, "%ld\\n", atomic_long_read(&ctrs[i]));\n')
    new = old.replace("int i = f->n;", "int j = f->n;").replace("[i]", "[j]")
    verdict, reason = verdict_of(old, new)
    assert verdict in ("equivalent", "inconclusive"), (verdict, reason)


# -- constants of the headers a file includes (--tree) ---------------------------------------

HEADER = ('#ifndef _FOO_H\n#define _FOO_H\n#include <uapi/linux/foo.h>\n'
          'enum foo_state {\n\tFOO_IDLE,\n\tFOO_RUN = 3,\n\tFOO_STOP,\n#ifdef CONFIG_FOO_EXTRA\n\tFOO_EXTRA,\n#endif\n'
          '\tFOO_LAST,\n};\n#ifdef CONFIG_64BIT\n#define FOO_WORD 64\n#else\n#define FOO_WORD 32\n#endif\n#endif\n')
UAPI = '#define FOO_NOTIFY_SIGNAL\t0\t/* by a signal */\n#define FOO_NOTIFY_NONE\t(FOO_NOTIFY_SIGNAL + 1)\n'
USER = ('#include <linux/foo.h>\n\nstatic int t_show(struct seq_file *m, void *v)\n{\n'
        '\tstatic const char * const how[] = {\n\t\t[FOO_NOTIFY_SIGNAL] = "signal",\n\t\t[FOO_NOTIFY_NONE] = "none",\n\t};\n'
        '\tstruct foo *f = v;\n\n\tseq_printf(m, "%s %d\\n", how[f->notify & 1], BODY);\n\treturn 0;\n}\n')


def kernel_tree(tmp_path):
    (tmp_path / "include/linux").mkdir(parents=True)
    (tmp_path / "include/uapi/linux").mkdir(parents=True)
    (tmp_path / "include/linux/foo.h").write_text(HEADER)
    (tmp_path / "include/uapi/linux/foo.h").write_text(UAPI)
    return str(tmp_path)


def test_with_a_tree_the_designators_and_enumerators_of_included_headers_are_their_values(tmp_path):
    tree = kernel_tree(tmp_path)
    old = USER.replace("BODY", "FOO_STOP")
    new = old.replace('\tseq_printf(m, "%s %d\\n", how[f->notify & 1], FOO_STOP);\n',
                      '\tseq_puts(m, how[f->notify & 1]);\n\tseq_puts(m, " 4\\n");\n')
    assert verdict_of(old, new, tree=tree)[0] == "equivalent"
    verdict, reason = verdict_of(old, new)
    assert verdict == "inconclusive" and "FOO_NOTIFY_SIGNAL" in reason, (verdict, reason)


def test_a_header_value_that_depends_on_the_configuration_is_not_taken(tmp_path):
    tree = kernel_tree(tmp_path)
    for name in ("FOO_LAST", "FOO_WORD"):
        old = USER.replace("BODY", name)
        for guess in ("5", "64"):
            new = old.replace(name, guess)
            verdict, reason = verdict_of(old, new, tree=tree)
            assert verdict != "equivalent", (name, guess, verdict)


def test_a_file_table_that_reads_inputs_is_made_again_for_every_case():
    # its value was cached across cases (and from the proof's symbols into concrete runs)
    before = ('struct foo_item {\n\tconst char *name;\n\tint idx;\n};\n'
              'static const struct foo_item items[] = {\n\t{ "anon", FOO_ANON },\n\t{ "file", 1 },\n};\n\n')
    body = ('\tstruct foo *f = v;\n\n\tseq_printf(m, "%s %lu\\n", items[0].name, f->stat[items[0].idx]);\n')
    new = ('\tstruct foo *f = v;\n\n\tseq_puts(m, items[0].name);\n'
           '\tseq_put_decimal_ull(m, " ", f->stat[items[0].idx]);\n\tseq_putc(m, 10);\n')
    assert verdict_of(show(body, before=before), show(new, before=before))[0] == "equivalent"


def test_the_address_of_a_file_struct_is_the_same_input_on_both_sides():
    # it was a Python object id: different on each side and in every run (a wobbling divergent)
    before = 'static struct foo_trans foo_tcp_trans;\n\n'
    old = show('\tstruct foo_client *c = v;\n\n\tif (c->trans == &foo_tcp_trans)\n'
               '\t\tseq_printf(m, ",port=%u", c->port);\n', before=before)
    new = show('\tstruct foo_client *cl = v;\n\n\tif (cl->trans == &foo_tcp_trans) {\n'
               '\t\tseq_puts(m, ",port=");\n\t\tseq_put_decimal_ull(m, "", cl->port);\n\t}\n', before=before)
    answers = {run(old, new).verdict for _ in range(3)}
    assert answers == {"equivalent"}, answers
    assert verdict_of(old, new.replace(",port=", ",p="))[0] == "divergent"
