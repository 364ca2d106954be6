"""With --tree, what a patch is judged on includes the constants of the headers the file
includes (`#include <linux/...>` in the tree), and a function with a seq_file parameter whose body
the patch does not show is output code (its unseen code may print)."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.patch.plan import check_patches

HEADER = b"enum {\n\tDEMO_S_STOPPED = 0,\n\tDEMO_S_ACTIVE = 1,\n};\n"
SOURCE = b"""#include <linux/demo.h>

static const char *const demo_state_name[] = {
\t[DEMO_S_STOPPED] = "STOPPED",
\t[DEMO_S_ACTIVE] = "ACTIVE",
};

static int demo_state_show(struct seq_file *m, unsigned long state)
{
\tint i;

\tfor (i = 0; i < ARRAY_SIZE(demo_state_name); i++)
\t\tif (state & (1UL << i))
\t\t\tseq_printf(m, "%s ", demo_state_name[i]);
\treturn 0;
}
"""
PATCH = b"""diff --git a/block/demo.c b/block/demo.c
--- a/block/demo.c
+++ b/block/demo.c
@@ -11,6 +11,7 @@ static int demo_state_show(struct seq_file *m, unsigned long state)
 {
 \tint i;
 
+\tBUILD_BUG_ON(ARRAY_SIZE(demo_state_name) != 2);
 \tfor (i = 0; i < ARRAY_SIZE(demo_state_name); i++)
 \t\tif (state & (1UL << i))
 \t\t\tseq_printf(m, "%s ", demo_state_name[i]);
"""


def tree_of(root, header=True):
    (root / "include" / "linux").mkdir(parents=True)
    if header:
        (root / "include" / "linux" / "demo.h").write_bytes(HEADER)
    (root / "block").mkdir()
    (root / "block" / "demo.c").write_bytes(SOURCE)
    patch = root / "p.patch"
    patch.write_bytes(PATCH)
    return patch


def test_a_table_designated_by_a_header_enum_is_read_with_the_tree(tmp_path):
    for name, header, meant in (("with", True, "equivalent"), ("without", False, "inconclusive")):
        root = tmp_path / name
        patch = tree_of(root, header)
        [result] = check_patches([str(patch)], Options(tree=str(root), max_examples=20)).results
        assert result.verdict == meant, (name, result.verdict, result.reason)
    assert "DEMO_S_STOPPED" in result.reason


def test_a_linkage_change_of_a_function_whose_body_the_patch_does_not_show_is_equivalent(tmp_path):
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/block/demo.c b/block/demo.c\n--- a/block/demo.c\n+++ b/block/demo.c\n"
        b"@@ -8,4 +8,4 @@ static const char *const demo_state_name[] = {\n"
        b"-static int demo_state_show(struct seq_file *m, unsigned long state)\n"
        b"+int demo_state_show(struct seq_file *m, unsigned long state)\n"
        b" {\n \tint i;\n \n"
    )
    [result] = check_patches([str(patch)], Options(max_examples=20)).results
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.verdict, result.reason)
    assert result.extra["rebuilt"] == {"from": "hunks", "gaps": 1}


FLAGS_SOURCE = b"""static struct { unsigned flag; char opt_char; } opts[] = { { 1, 'p' }, { 2, 'm' } };
struct flagsbuf { char buf[ARRAY_SIZE(opts) + 1]; };

static char *describe(unsigned int flags, struct flagsbuf *fb)
{
\tchar *p = fb->buf;
\tint i;

\tfor (i = 0; i < ARRAY_SIZE(opts); ++i)
\t\tif (flags & opts[i].flag)
\t\t\t*p++ = opts[i].opt_char;
\t*p = '\\0';
\treturn fb->buf;
}

static int demo_show(struct seq_file *m, void *v)
{
\tstruct flagsbuf flags;

\tseq_printf(m, "=%s", describe(*(unsigned int *)v, &flags));
\tseq_puts(m, "\\"");
\treturn 0;
}
"""


def test_a_struct_defined_outside_the_hunks_is_handed_to_the_engine_with_the_tree(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "demo.c").write_bytes(FLAGS_SOURCE)
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/lib/demo.c b/lib/demo.c\n--- a/lib/demo.c\n+++ b/lib/demo.c\n"
        b"@@ -20,4 +20,4 @@ static int demo_show(struct seq_file *m, void *v)\n"
        b" \tseq_printf(m, \"=%s\", describe(*(unsigned int *)v, &flags));\n"
        b"-\tseq_puts(m, \"\\\"\");\n+\tseq_putc(m, '\"');\n \treturn 0;\n }\n"
    )
    [result] = check_patches([str(patch)], Options(tree=str(tmp_path), max_examples=20)).results
    assert result.verdict == "equivalent", (result.verdict, result.reason)


def test_a_string_macro_of_a_header_is_its_text_with_the_tree(tmp_path):
    (tmp_path / "include" / "linux").mkdir(parents=True)
    (tmp_path / "include" / "linux" / "demo_iostat.h").write_bytes(b'#define DEMO_IOSTAT_VERS\t"1.1"\n')
    (tmp_path / "fs").mkdir()
    (tmp_path / "fs" / "demo.c").write_bytes(
        b'#include <linux/demo_iostat.h>\n\nstatic int demo_show(struct seq_file *m, void *v)\n{\n'
        b'\tseq_printf(m, "statvers=%s\\n", DEMO_IOSTAT_VERS);\n\treturn 0;\n}\n')
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/fs/demo.c b/fs/demo.c\n--- a/fs/demo.c\n+++ b/fs/demo.c\n"
        b"@@ -4,4 +4,4 @@ static int demo_show(struct seq_file *m, void *v)\n {\n"
        b'-\tseq_printf(m, "statvers=%s\\n", DEMO_IOSTAT_VERS);\n+\tseq_printf(m, "statvers=1.1\\n");\n'
        b" \treturn 0;\n }\n")
    [result] = check_patches([str(patch)], Options(tree=str(tmp_path), max_examples=20)).results
    assert result.verdict == "equivalent", (result.verdict, result.reason)


def test_a_struct_of_a_quoted_header_with_a_trailing_attribute_is_known(tmp_path):
    """`struct nfs_iostats {...} ____cacheline_aligned;` in "iostat.h": tree-sitter takes the
    attribute for a declarator; the layout still reaches the engine, so `totals.events[i]` of a
    `totals = { }` local is an array of the struct's own."""
    (tmp_path / "fs").mkdir()
    (tmp_path / "fs" / "demo_iostat.h").write_bytes(
        b"struct demo_iostats {\n\tunsigned long long bytes[2];\n\tunsigned long events[2];\n} ____cacheline_aligned;\n")
    (tmp_path / "fs" / "demo.c").write_bytes(
        b'#include "demo_iostat.h"\n\nstatic int demo_show(struct seq_file *m, void *v)\n{\n'
        b"\tstruct demo_iostats totals = { };\n\tint i;\n\n\tfor (i = 0; i < 2; i++)\n"
        b"\t\ttotals.events[i] += i;\n\tfor (i = 0; i < 2; i++)\n"
        b'\t\tseq_printf(m, "%lu ", totals.events[i]);\n\treturn 0;\n}\n')
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/fs/demo.c b/fs/demo.c\n--- a/fs/demo.c\n+++ b/fs/demo.c\n"
        b"@@ -10,4 +10,4 @@ static int demo_show(struct seq_file *m, void *v)\n"
        b"\t\ttotals.events[i] += i;\n".replace(b"\t\ttotals", b" \t\ttotals") +
        b" \tfor (i = 0; i < 2; i++)\n"
        b'-\t\tseq_printf(m, "%lu ", totals.events[i]);\n+\t\tseq_printf(m, "%lu  ", totals.events[i]);\n'
        b" \treturn 0;\n")
    [result] = check_patches([str(patch)], Options(tree=str(tmp_path), max_examples=20)).results
    assert result.verdict == "divergent", (result.verdict, result.reason)


def _stats_tree(tmp_path, with_unit: bool):
    (tmp_path / "kernel" / "demo").mkdir(parents=True)
    (tmp_path / "kernel" / "demo" / "demo.h").write_bytes(b"enum demo_idle_type {\n\tDEMO_IDLE,\n\tDEMO_BUSY,\n\tDEMO_TYPES\n};\n")
    if with_unit:
        (tmp_path / "kernel" / "demo" / "build_utility.c").write_bytes(b'#include "demo.h"\n\n#include "stats.c"\n')
    (tmp_path / "kernel" / "demo" / "stats.c").write_bytes(
        b"static int show_demo(struct seq_file *seq, void *v)\n{\n\tint t;\n\n"
        b"\tfor (t = DEMO_IDLE; t < DEMO_TYPES; t++)\n\t\tseq_printf(seq, \" %u\", t);\n\treturn 0;\n}\n")


def _stats_patch(tmp_path, literal: bytes):
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/kernel/demo/stats.c b/kernel/demo/stats.c\n--- a/kernel/demo/stats.c\n+++ b/kernel/demo/stats.c\n"
        b"@@ -4,3 +4,3 @@ static int show_demo(struct seq_file *seq, void *v)\n \n"
        b"-\tfor (t = DEMO_IDLE; t < DEMO_TYPES; t++)\n+\tfor (t = " + literal + b"; t < DEMO_TYPES; t++)\n"
        b"\t\tseq_printf(seq, \" %u\", t);\n".replace(b"\t\tseq", b" \t\tseq"))
    return str(patch)


def test_a_file_the_build_compiles_inside_another_reads_that_files_headers(tmp_path):
    """kernel/sched/stats.c includes nothing: build_utility.c includes its headers, then it. Its
    CPU_IDLE is the header's 0, so `CPU_IDLE` -> `0` is the same program, proven from the tokens."""
    _stats_tree(tmp_path, with_unit=True)
    [result] = check_patches([_stats_patch(tmp_path, b"0")], Options(tree=str(tmp_path), max_examples=20)).results
    assert (result.verdict, result.extra.get("decided_by")) == ("equivalent", "tokens"), result.reason
    [result] = check_patches([_stats_patch(tmp_path, b"1")], Options(tree=str(tmp_path), max_examples=20)).results
    assert result.verdict == "divergent", result.reason


def test_a_constant_is_taken_for_a_literal_only_with_its_value_type_and_no_other_meaning():
    from fmtcheck.c.types import S32, U32
    from fmtcheck.patch.tokens import same_but_constants

    old, new = b"x = DEMO_IDLE + y;", b"x = 0 + y;"
    assert same_but_constants(old, new, {"DEMO_IDLE": (0, S32)}.get) == ["DEMO_IDLE"]
    assert same_but_constants(old, new, {}.get) is None  # no header gives it
    assert same_but_constants(old, new, {"DEMO_IDLE": (0, U32)}.get) is None  # 0u, not 0
    assert same_but_constants(old, b"x = 1 + y;", {"DEMO_IDLE": (0, S32)}.get) is None
    defined = b"#define DEMO_IDLE 1\n" + old
    assert same_but_constants(defined, b"#define DEMO_IDLE 1\n" + new, {"DEMO_IDLE": (0, S32)}.get) is None
