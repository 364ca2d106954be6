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

UUID = "typedef unsigned char u8;\nstruct foo_uuid { u8 uuid[16]; };\n"
REVERSED = show("\tu8 i, val[16];\n\n\tfor (i = 0; i < 16; i++)\n\t\tval[i] = id->uuid[15 - i];\n"
                "\tseq_printf(m, \"%pUb\\n\", val);\n", UUID, "struct seq_file *m, struct foo_uuid *id")


def test_an_extension_of_a_local_array_prints_what_it_holds():
    """uuids_show's shape: a local byte array filled from the input, printed with `%pUb` (was
    inconclusive: "%p of 'val', the address of a local object, is not known")."""
    split = REVERSED.replace("\tseq_printf(m, \"%pUb\\n\", val);",
                             "\tseq_printf(m, \"%pUb\", val);\n\tseq_putc(m, '\\n');")
    assert verdict_of(REVERSED, split) == ("equivalent", None)
    assert verdict_of(REVERSED, split.replace("[15 - i]", "[i]"))[0] != "equivalent"


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
