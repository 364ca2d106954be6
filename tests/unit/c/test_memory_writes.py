"""Memory the printer writes or points at (issue 15, coverage of real printers; family "writes to
memory"): locals whose address a %p extension receives, memory the code owns, and the writes the
model must refuse because another input may be the same object. Every snippet is C written for
these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

PHYS = "typedef unsigned long long phys_addr_t;\nstruct foo_region { phys_addr_t base; phys_addr_t size; };\n"


def show(body: str, before: str = "", params: str = "struct seq_file *m, struct foo_region *reg") -> str:
    return f"{before}static void foo_show_range({params})\n{{\n{body}}}\n"


def verdict_of(old: str, new: str, **options) -> tuple[str, str | None]:
    report = verify_sources(old, new, Options(max_examples=30, function="foo_show_range", **options))
    assert len(report.results) == 1
    result = report.results[0]
    return result.verdict, result.reason


# -- %pa of a local: the extension prints the object, read when the call is made ---------------

RANGE = show("\tphys_addr_t end;\n\n\tend = reg->base + reg->size - 1;\n"
             "\tseq_printf(m, \"%pa..%pa\\n\", &reg->base, &end);\n", PHYS)
RANGE_SPLIT = show("\tphys_addr_t last;\n\n\tlast = reg->base + reg->size - 1;\n"
                   "\tseq_printf(m, \"%pa\", &reg->base);\n\tseq_puts(m, \"..\");\n"
                   "\tseq_printf(m, \"%pa\", &last);\n\tseq_putc(m, '\\n');\n", PHYS)


def test_pa_of_a_local_is_the_value_it_holds():
    """memblock_debug_show's shape: `%pa` of `&end`, a local the code computed (was inconclusive:
    "the address of 'end' is not modelled")."""
    assert verdict_of(RANGE, RANGE_SPLIT) == ("equivalent", None)


def test_pa_of_a_local_holding_another_value_is_never_equivalent():
    for changed in (RANGE_SPLIT.replace("reg->size - 1", "reg->size"),
                    RANGE_SPLIT.replace("&last", "&reg->size"),
                    RANGE_SPLIT.replace("phys_addr_t last", "unsigned int last")):
        assert verdict_of(RANGE, changed)[0] != "equivalent", changed


def test_pa_reads_the_local_when_it_prints():
    """The local changed after the call prints its old value; changed before, the new one."""
    later = RANGE_SPLIT.replace("\tseq_putc(m, '\\n');\n", "\tlast = 0;\n\tseq_putc(m, '\\n');\n")
    assert verdict_of(RANGE, later) == ("equivalent", None)
    sooner = RANGE_SPLIT.replace("\tseq_printf(m, \"%pa\", &last);", "\tlast = 0;\n\tseq_printf(m, \"%pa\", &last);")
    assert verdict_of(RANGE, sooner)[0] != "equivalent"


def test_plain_p_of_a_local_stays_unknown():
    """Plain %p prints the address itself, which no model can know."""
    old = show("\tphys_addr_t end = reg->base;\n\n\tseq_printf(m, \"%p\\n\", &end);\n", PHYS)
    new = old.replace("%p\\n", "%p\\n\\0")
    verdict, reason = verdict_of(old, new)
    assert verdict == "inconclusive" and "address of" in reason


# -- %pUb of a local array the code filled ---------------------------------------------------

UUID = "typedef unsigned char u8;\nstruct foo_uuid { u8 mac[6]; };\n"
REVERSED = show("\tu8 i, val[6];\n\n\tfor (i = 0; i < 6; i++)\n\t\tval[i] = id->mac[5 - i];\n"
                "\tseq_printf(m, \"%pM\\n\", val);\n", UUID, "struct seq_file *m, struct foo_uuid *id")


def test_an_extension_of_a_local_array_prints_what_it_holds():
    """uuids_show's shape: a local byte array filled from the input, printed with `%pUb` (was
    inconclusive: "%p of 'val', the address of a local object, is not known")."""
    split = REVERSED.replace("\tseq_printf(m, \"%pM\\n\", val);",
                             "\tseq_printf(m, \"%pM\", val);\n\tseq_putc(m, '\\n');")
    assert verdict_of(REVERSED, split) == ("equivalent", None)
    assert verdict_of(REVERSED, split.replace("[5 - i]", "[i]"))[0] != "equivalent"


def test_pa_of_a_local_computed_in_a_loop_body():
    """The whole of memblock_debug_show's shape: the local is computed from the iteration's
    element, so its value in the key is an expression of the iteration."""
    before = PHYS + "struct foo_type { unsigned long cnt; struct foo_region *regions; };\n"
    params = "struct seq_file *m, struct foo_type *type"
    old = show("\tstruct foo_region *reg;\n\tphys_addr_t end;\n\tint i;\n\n"
               "\tfor (i = 0; i < type->cnt; i++) {\n\t\treg = &type->regions[i];\n"
               "\t\tend = reg->base + reg->size - 1;\n\t\tseq_printf(m, \"%4d: \", i);\n"
               "\t\tseq_printf(m, \"%pa..%pa\\n\", &reg->base, &end);\n\t}\n", before, params)
    new = old.replace("\t\tseq_printf(m, \"%pa..%pa\\n\", &reg->base, &end);",
                      "\t\tseq_printf(m, \"%pa\", &reg->base);\n\t\tseq_puts(m, \"..\");\n"
                      "\t\tseq_printf(m, \"%pa\", &end);\n\t\tseq_putc(m, '\\n');")
    assert verdict_of(old, new) == ("equivalent", None)
    assert verdict_of(old, new.replace("reg->size - 1", "reg->size - i"))[0] != "equivalent"


# -- a whole memcpy of the caller's object into a local: the local reads as that object -------

VEC = "struct foo_vec { unsigned int vector; unsigned int cpu; };\nstruct foo_irq { void *chip_data; };\n"
VEC_PARAMS = "struct seq_file *m, struct foo_irq *irqd"
COPIED = show("\tstruct foo_vec apicd;\n\n\tmemcpy(&apicd, irqd->chip_data, sizeof(apicd));\n"
              "\tseq_printf(m, \"Vector: %5u\\nTarget: %5u\\n\", apicd.vector, apicd.cpu);\n", VEC, VEC_PARAMS)
COPIED_SPLIT = show("\tstruct foo_vec v1;\n\n\tmemcpy(&v1, irqd->chip_data, sizeof(struct foo_vec));\n"
                    "\tseq_puts(m, \"Vector: \");\n\tseq_printf(m, \"%5u\", v1.vector);\n"
                    "\tseq_puts(m, \"\\nTarget: \");\n\tseq_printf(m, \"%5u\", v1.cpu);\n\tseq_putc(m, '\\n');\n",
                    VEC, VEC_PARAMS)


def test_a_struct_copied_whole_from_the_callers_data_reads_as_it():
    """x86_vector_debug_show's shape (was inconclusive: "memcpy between memory the code does not
    own"); the copy is the object itself, as a read through the pointer names it."""
    assert verdict_of(COPIED, COPIED_SPLIT) == ("equivalent", None)
    direct = show("\tconst struct foo_vec *d = irqd->chip_data;\n\n"
                  "\tseq_printf(m, \"Vector: %5u\\nTarget: %5u\\n\", d->vector, d->cpu);\n", VEC, VEC_PARAMS)
    assert verdict_of(COPIED, direct) == ("equivalent", None)


def test_a_copy_that_prints_another_field_or_is_partial_is_never_equivalent():
    assert verdict_of(COPIED, COPIED_SPLIT.replace("v1.cpu", "v1.vector"))[0] != "equivalent"
    # four bytes copied: the rest of the local is what the stack held
    partial = COPIED_SPLIT.replace("sizeof(struct foo_vec)", "sizeof(unsigned int)")
    assert verdict_of(COPIED, partial)[0] == "inconclusive"


def test_the_copy_is_the_locals_own_after_it_is_made():
    """A store into the copy changes the copy, not the caller's object; a pointer taken to the
    local before the copy reads the copy."""
    stored = COPIED_SPLIT.replace("\tseq_puts(m, \"Vector: \");", "\tv1.cpu = 7;\n\tseq_puts(m, \"Vector: \");")
    assert verdict_of(COPIED, stored)[0] != "equivalent"
    seven = COPIED.replace("apicd.vector, apicd.cpu", "apicd.vector, 7")
    assert verdict_of(seven, stored) == ("equivalent", None)
    pointed = COPIED_SPLIT.replace("\tstruct foo_vec v1;\n", "\tstruct foo_vec v1;\n\tstruct foo_vec *p = &v1;\n")
    pointed = pointed.replace("v1.vector)", "p->vector)")
    assert verdict_of(COPIED, pointed) == ("equivalent", None)


LIMITS = "struct foo_limit { unsigned long cur; unsigned long max; };\nstruct foo_task { struct foo_limit limits[16]; };\n"
LIMITS_PARAMS = "struct seq_file *m, struct foo_task *task"
TABLE = show("\tstruct foo_limit lim[FOO_NLIMITS];\n\tunsigned int i;\n\n"
             "\tmemcpy(lim, task->limits, sizeof(struct foo_limit) * FOO_NLIMITS);\n"
             "\tfor (i = 0; i < FOO_NLIMITS; i++)\n\t\tseq_printf(m, \"%-10lu %lu\\n\", lim[i].cur, lim[i].max);\n",
             LIMITS, LIMITS_PARAMS)
TABLE_SPLIT = TABLE.replace("seq_printf(m, \"%-10lu %lu\\n\", lim[i].cur, lim[i].max);",
                            "{\n\t\tseq_printf(m, \"%-10lu \", lim[i].cur);\n"
                            "\t\tseq_put_decimal_ull(m, \"\", lim[i].max);\n\t\tseq_putc(m, '\\n');\n\t}")


def test_an_array_of_structs_copied_whole_reads_as_the_callers_array():
    """proc_pid_limits's shape: `struct rlimit rlim[RLIM_NLIMITS]` filled by one memcpy of
    `sizeof(struct rlimit) * RLIM_NLIMITS` bytes, sized by a macro the input does not define
    (was inconclusive: "memcpy between memory the code does not own")."""
    assert verdict_of(TABLE, TABLE_SPLIT) == ("equivalent", None)
    defined = "#define FOO_NLIMITS 2\n"
    assert verdict_of(defined + TABLE, defined + TABLE_SPLIT) == ("equivalent", None)
    direct = TABLE.replace("lim[i].cur, lim[i].max", "task->limits[i].cur, task->limits[i].max")
    assert verdict_of(defined + TABLE, defined + direct) == ("equivalent", None)


def test_an_array_copied_in_part_or_reached_by_a_pointer_is_not_a_view():
    partial = TABLE_SPLIT.replace("sizeof(struct foo_limit) * FOO_NLIMITS", "sizeof(struct foo_limit) * (FOO_NLIMITS - 1)")
    assert verdict_of(TABLE, partial)[0] != "equivalent"
    kept = TABLE_SPLIT.replace("\tunsigned int i;\n", "\tunsigned int i;\n\tstruct foo_limit *first = lim;\n")
    kept = kept.replace("seq_putc(m, '\\n');\n\t}", "seq_putc(m, '\\n');\n\t}\n\tseq_printf(m, \"%lu\", first->cur);\n")
    assert verdict_of(TABLE, kept)[0] != "equivalent"


# -- writes to the caller's data: another input may be the same object -------------------------

ALIAS = "struct foo_stat { unsigned int updated; unsigned int level; };\n"
ALIAS_PARAMS = "struct seq_file *m, struct foo_stat *a, struct foo_stat *b"


def test_a_write_to_one_input_then_a_read_of_another_is_never_equivalent():
    """a and b may be one object: old clears a->updated then prints b->updated, new prints
    b->updated alone."""
    old = show("\ta->updated = 0;\n\tseq_printf(m, \"%u\\n\", b->updated);\n", ALIAS, ALIAS_PARAMS)
    new = show("\tseq_printf(m, \"%u\\n\", b->updated);\n", ALIAS, ALIAS_PARAMS)
    assert verdict_of(old, new)[0] != "equivalent"
    after = show("\tseq_printf(m, \"%u\\n\", b->updated);\n\ta->updated = 0;\n", ALIAS, ALIAS_PARAMS)
    assert verdict_of(old, after)[0] != "equivalent"


# -- a local array sized by a macro the input does not define, with an initializer ------------

COUNTS = show("\tunsigned long count[FOO_TYPES] = { 0, };\n\tint mtype = foo_type_of(zone);\n\n"
              "\tif (mtype >= 0 && mtype < FOO_TYPES)\n\t\tcount[mtype]++;\n"
              "\tfor (mtype = 0; mtype < FOO_TYPES; mtype++)\n\t\tseq_printf(m, \"%12lu \", count[mtype]);\n"
              "\tseq_putc(m, '\\n');\n",
              "struct foo_zone { unsigned long nr; };\nint foo_type_of(struct foo_zone *zone);\n",
              "struct seq_file *m, struct foo_zone *zone")


def test_an_initialized_array_sized_by_an_unknown_macro_has_the_macros_length():
    """pagetypeinfo_showblockcount_print's shape: `unsigned long count[MIGRATE_TYPES] = { 0, };`
    is MIGRATE_TYPES long, zero after its initializer (was inconclusive: "index 1 is outside the
    array", the initializer's one element taken for the length)."""
    split = COUNTS.replace("seq_printf(m, \"%12lu \", count[mtype]);",
                           "{\n\t\tseq_printf(m, \"%12lu\", count[mtype]);\n\t\tseq_putc(m, ' ');\n\t}")
    assert verdict_of(COUNTS, split) == ("equivalent", None)
    assert verdict_of(COUNTS, split.replace("= { 0, }", "= { 1, }"))[0] == "divergent"
    assert verdict_of(COUNTS, split.replace("count[mtype]++", "count[0]++"))[0] == "divergent"


def test_an_initializer_longer_than_the_macro_drops_its_excess_elements():
    """As GCC does: `{ 0, 0, 0 }` into fewer elements keeps the first ones."""
    three = COUNTS.replace("= { 0, }", "= { 0, 0, 0 }")
    assert verdict_of(COUNTS, three) == ("equivalent", None)
    assert verdict_of(COUNTS, three.replace("{ 0, 0, 0 }", "{ 0, 0, 1 }"))[0] == "divergent"


WIRELESS = show("\tseq_printf(m, \"%3d%c\\n\", a->level, a->updated & 1 ? '.' : ' ');\n"
                "\tif (a != b)\n\t\ta->updated &= ~7;\n", ALIAS, ALIAS_PARAMS)
WIRELESS_SPLIT = show("\tseq_printf(m, \"%3d\", a->level);\n\tseq_putc(m, a->updated & 1 ? '.' : ' ');\n"
                      "\tseq_putc(m, '\\n');\n\tif (a != b)\n\t\ta->updated &= ~7;\n", ALIAS, ALIAS_PARAMS)


def test_the_same_stores_at_the_same_points_are_equivalent():
    """wireless_seq_printf_stats's shape: the flags cleared after the row is printed (was
    inconclusive: "assignment to member 'updated' of data the code does not own")."""
    assert verdict_of(WIRELESS, WIRELESS_SPLIT) == ("equivalent", None)


def test_a_store_dropped_moved_or_changed_is_never_equivalent():
    dropped = WIRELESS_SPLIT.replace("\t\ta->updated &= ~7;\n", "\t\t;\n")
    moved = WIRELESS_SPLIT.replace("\tseq_putc(m, '\\n');\n\tif (a != b)\n\t\ta->updated &= ~7;\n",
                                   "\tif (a != b)\n\t\ta->updated &= ~7;\n\tseq_putc(m, '\\n');\n")
    changed = WIRELESS_SPLIT.replace("~7", "~3")
    other = WIRELESS_SPLIT.replace("a->updated &= ~7", "b->updated &= ~7")
    for new in (dropped, moved, changed, other):
        assert verdict_of(WIRELESS, new)[0] != "equivalent", new


def test_a_read_after_a_store_is_not_the_read_before_it():
    """b->level read after a store to a->updated may be the stored memory (a and b one object,
    a union): never the value read before the store."""
    before = show("\tunsigned int l = b->level;\n\n\ta->updated = 0;\n\tseq_printf(m, \"%u\\n\", l);\n",
                  ALIAS, ALIAS_PARAMS)
    after = show("\ta->updated = 0;\n\tseq_printf(m, \"%u\\n\", b->level);\n", ALIAS, ALIAS_PARAMS)
    assert verdict_of(before, after)[0] == "inconclusive"
    assert verdict_of(after, after.replace("\tseq_printf", "\tseq_puts(m, \"\");\n\tseq_printf")) == ("equivalent", None)


def test_a_scratch_buffer_of_the_callers_cleared_and_filled():
    """show_numa_info's shape: the caller's buffer zeroed with memset, counted into, printed
    (an index computed from the inputs is not proven: the search decides it when it can)."""
    old = show("\tunsigned int nr, *counters = m->private;\n\n\tif (!counters)\n\t\treturn;\n"
               "\tmemset(counters, 0, 4 * sizeof(unsigned int));\n\tcounters[1] += foo_pages(a);\n"
               "\tfor (nr = 0; nr < 4; nr++)\n\t\tif (counters[nr])\n\t\t\tseq_printf(m, \" N%u=%u\", nr, counters[nr]);\n",
               ALIAS + "int foo_pages(struct foo_stat *a);\n", ALIAS_PARAMS)
    new = old.replace("seq_printf(m, \" N%u=%u\", nr, counters[nr]);",
                      "{\n\t\t\tseq_puts(m, \" N\");\n\t\t\tseq_put_decimal_ull(m, \"\", nr);\n"
                      "\t\t\tseq_printf(m, \"=%u\", counters[nr]);\n\t\t}")
    assert verdict_of(old, new) == ("equivalent", None)
    assert verdict_of(old, new.replace("counters[1] +=", "counters[2] +="))[0] != "equivalent"
    assert verdict_of(old, new.replace("4 * sizeof", "3 * sizeof"))[0] != "equivalent"
    # a macro the input does not define is the same before a store and after it
    by_macro = old.replace("nr < 4", "nr < FOO_NODES")
    assert verdict_of(by_macro, new.replace("nr < 4", "nr < FOO_NODES")) == ("equivalent", None)


def test_a_helper_dereferences_the_array_it_was_given():
    """arp_seq_show's shape: a helper writes a local buffer through a moving pointer, then reads
    `*buf` of the array it received (was inconclusive: "dereference of a value that is not a
    pointer")."""
    helper = ("struct foo_addr { unsigned char call[7]; };\n"
              "static void foo_asc(struct foo_addr *a, char *buf)\n{\n\tchar *s = buf;\n\tint n;\n\n"
              "\tfor (n = 0; n < 2; n++)\n\t\tif (a->call[n] != ' ')\n\t\t\t*s++ = a->call[n];\n\t*s = '\\0';\n"
              "\tif (*buf == '\\0') {\n\t\tbuf[0] = '*';\n\t\tbuf[1] = '\\0';\n\t}\n}\n")
    old = show("\tchar tbuf[16];\n\n\tfoo_asc(a, tbuf);\n\tseq_printf(m, \"%-9s\\n\", tbuf);\n",
               helper, "struct seq_file *m, struct foo_addr *a")
    new = old.replace("seq_printf(m, \"%-9s\\n\", tbuf);", "seq_printf(m, \"%-9s\", tbuf);\n\tseq_putc(m, '\\n');")
    assert verdict_of(old, new) == ("equivalent", None)
    assert verdict_of(old, new.replace("buf[0] = '*'", "buf[0] = '-'"))[0] == "divergent"


# -- a struct zeroed by memset keeps its arrays ----------------------------------------------------

STATS = ("struct foo_stats {\n\tunsigned long ios[2];\n\tunsigned long ticks;\n\tlocal_t inflight[2];\n};\n\n"
         "static void foo_read_all(struct foo_dev *d, struct foo_stats *stat)\n{\n\tint cpu, g;\n\n"
         "\tmemset(stat, 0, sizeof(struct foo_stats));\n\tfor_each_possible_cpu(cpu) {\n"
         "\t\tstruct foo_stats *ptr = per_cpu_ptr(d->stats, cpu);\n\n"
         "\t\tfor (g = 0; g < 2; g++)\n\t\t\tstat->ios[g] += ptr->ios[g];\n"
         "\t\tstat->ticks += ptr->ticks;\n\t}\n}\n\n")
DEV = "struct seq_file *m, struct foo_dev *d"


def test_a_struct_zeroed_by_memset_keeps_its_arrays_as_storage():
    """part_stat_read_all's shape (diskstats_show): memset of the struct, then sums into its array
    members (was inconclusive: "subscript of a value that is not an array"; an array member of a
    struct with a non-integer array beside it was not storage either)."""
    old = show('\tstruct foo_stats stat;\n\n\tfoo_read_all(d, &stat);\n'
               '\tseq_printf(m, "%lu %lu %lu\\n", stat.ios[0], stat.ios[1], stat.ticks);\n', STATS, DEV)
    new = show('\tstruct foo_stats st;\n\n\tfoo_read_all(d, &st);\n\tseq_put_decimal_ull(m, "", st.ios[0]);\n'
               '\tseq_put_decimal_ull(m, " ", st.ios[1]);\n\tseq_put_decimal_ull(m, " ", st.ticks);\n'
               '\tseq_putc(m, \'\\n\');\n', STATS, DEV)
    assert verdict_of(old, new)[0] == "equivalent"
    swapped = new.replace("st.ios[0]", "st.ios[9]").replace("st.ios[1]", "st.ios[0]").replace("st.ios[9]", "st.ios[1]")
    assert verdict_of(old, swapped)[0] == "divergent"


def test_memset_zeroes_the_arrays_of_a_struct():
    old = show('\tstruct foo_stats stat;\n\n\tstat.ios[1] = 7;\n\tmemset(&stat, 0, sizeof(stat));\n'
               '\tseq_printf(m, "%lu\\n", stat.ios[1]);\n', STATS, DEV)
    assert verdict_of(old, show('\tseq_puts(m, "0\\n");\n', STATS, DEV))[0] == "equivalent"
    assert verdict_of(old, show('\tseq_puts(m, "7\\n");\n', STATS, DEV))[0] == "divergent"
