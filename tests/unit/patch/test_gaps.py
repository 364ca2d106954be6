"""Hunk gaps are unchanged code that may print what the change computed (fmtcheck.patch.gaps)."""

from __future__ import annotations

import json

from fmtcheck import cli
from fmtcheck.patch.gaps import assigned_names, values_flowing_into_gaps
from fmtcheck.patch.hunks import GAP_MARKER

# A value changed in the first hunk and printed in code the patch does not show (a gap).
PATCH_VALUE_INTO_GAP = b"""diff --git a/fs/demo/mem.c b/fs/demo/mem.c
--- a/fs/demo/mem.c
+++ b/fs/demo/mem.c
@@ -10,7 +10,7 @@ static void demo_mem(struct seq_file *m, struct mm_struct *mm)
 \tunsigned long anon, file;
 
-\tanon = get_counter(mm, 0);
+\tanon = get_counter_sum(mm, 0);
 \tfile = get_counter(mm, 1);
 \tseq_puts(m, "demo\\n");
 \tseq_puts(m, "--\\n");
 \tseq_puts(m, "mem:\\n");
@@ -40,6 +40,6 @@ static void demo_mem(struct seq_file *m, struct mm_struct *mm)
 \tseq_puts(m, "VmFile:\\t");
 \tseq_put_decimal_ull_width(m, "", file, 8);
-\tseq_puts(m, " kB\\n");
+\tseq_printf(m, " kB\\n");
 \tseq_puts(m, "VmEnd:\\t");
 \tseq_put_decimal_ull_width(m, "", file, 8);
 \tseq_puts(m, " kB\\n");
"""


def test_a_changed_value_before_a_gap_is_not_equivalent(tmp_path, capsys):
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_VALUE_INTO_GAP)
    code = cli.main(["patch", str(patch), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    (result,) = report["results"]
    assert result["verdict"] == "inconclusive" and "anon" in result["reason"], result
    assert code == 3


def test_an_output_only_change_before_a_gap_stays_equivalent(tmp_path, capsys):
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_VALUE_INTO_GAP.replace(b"-\tanon = get_counter(mm, 0);\n+\tanon = get_counter_sum(mm, 0);\n",
                                                   b" \tanon = get_counter(mm, 0);\n"))
    code = cli.main(["patch", str(patch), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in report["results"]] == ["equivalent"] and code == 0


def test_values_flowing_into_gaps_needs_a_gap_after_the_change():
    old = b"f()\n{\n\tx = a;\n" + GAP_MARKER + b"\n}\n"
    new = b"f()\n{\n\tx = b;\n" + GAP_MARKER + b"\n}\n"
    assert values_flowing_into_gaps(old, new) == ["x"]
    old_tail = b"f()\n{\n" + GAP_MARKER + b"\n\tx = a;\n}\n"
    new_tail = b"f()\n{\n" + GAP_MARKER + b"\n\tx = b;\n}\n"
    assert values_flowing_into_gaps(old_tail, new_tail) == []


def test_assigned_names():
    assert assigned_names(b"\tp->count += 2;") == ["p->count"]
    assert assigned_names(b"\tunsigned long x = 3;") == ["x"]
    assert assigned_names(b"\tif (a == b)") == []
    assert assigned_names(b'\tseq_printf(m, "a=%d", x);') == []
    assert assigned_names(b"\ti++;") == ["i"]


PATCH_STARTING_AT_IFDEF = b"""diff --git a/fs/demo/stats.c b/fs/demo/stats.c
--- a/fs/demo/stats.c
+++ b/fs/demo/stats.c
@@ -57,6 +57,7 @@ static int demo_stats_show(struct seq_file *seq, void *v)
 #ifdef CONFIG_DEMO_V4
 \t/* one count per operation */
 \tseq_printf(seq, "ops %u", 4);
+\tseq_printf(seq, "\\nextra %u", 5);
 
 \tseq_putc(seq, '\\n');
 #endif
"""


def test_a_hunk_starting_with_a_directive_inside_a_function_is_judged(tmp_path, capsys):
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_STARTING_AT_IFDEF)
    code = cli.main(["patch", str(patch), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert [(r["subject"], r["verdict"]) for r in report["results"]] == [
        ("fs/demo/stats.c:demo_stats_show", "divergent")
    ]
    assert code == 1


PATCH_RENAMED_FIELD = b"""diff --git a/fs/demo/cpu.c b/fs/demo/cpu.c
--- a/fs/demo/cpu.c
+++ b/fs/demo/cpu.c
@@ -1,5 +1,5 @@
 static void demo_cpu(struct seq_file *m, struct cpu *c)
 {
-\tseq_printf(m, "physical id\\t: %d\\n", c->phys_proc_id);
+\tseq_printf(m, "physical id\\t: %d\\n", c->topo.pkg_id);
 \tseq_printf(m, "siblings\\t: %d\\n", c->siblings);
 }
"""


def test_a_counterexample_from_an_input_one_side_does_not_read_is_inconclusive(tmp_path, capsys):
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_RENAMED_FIELD)
    code = cli.main(["patch", str(patch), "--format", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "inconclusive" and "c->phys_proc_id" in result["reason"], result
    assert code == 3


def test_a_counterexample_from_shared_inputs_stays_divergent(tmp_path, capsys):
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_RENAMED_FIELD.replace(b"c->topo.pkg_id);", b"c->phys_proc_id + 1);"))
    code = cli.main(["patch", str(patch), "--format", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "divergent" and code == 1


PATCH_PRINT_MOVED_ACROSS_A_GAP = b"""diff --git a/fs/demo/m.c b/fs/demo/m.c
--- a/fs/demo/m.c
+++ b/fs/demo/m.c
@@ -10,4 +10,3 @@ static int demo_show(struct seq_file *m, void *v)
 {
 \tstruct demo *d = v;
 \tseq_printf(m, "a %d\\n", d->a);
-\tseq_puts(m, "head\\n");
@@ -30,2 +29,3 @@ static int demo_show(struct seq_file *m, void *v)
+\tseq_puts(m, "head\\n");
 \treturn 0;
 }
"""


def test_a_print_moved_across_code_the_patch_does_not_show_is_not_equivalent(tmp_path, capsys):
    """Lines 14-29 are not shown and may print: "head" before them and "head" after them are not
    the same output unless they print nothing (taking the gap as printing nothing made the two
    look equivalent)."""
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_PRINT_MOVED_ACROSS_A_GAP)
    cli.main(["patch", str(patch), "--format", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "inconclusive", result
    assert "a hunk gap of demo_show" in result["reason"]


def test_text_added_beside_code_the_patch_does_not_show_is_divergent_whatever_it_prints(tmp_path, capsys):
    """The gap prints the same on both sides, so an output one line longer differs whatever it is."""
    patch = tmp_path / "p.patch"
    patch.write_bytes(PATCH_PRINT_MOVED_ACROSS_A_GAP.replace(b'-\tseq_puts(m, "head\\n");\n', b"")
                      .replace(b"@@ -10,4 +10,3 @@", b"@@ -10,3 +10,3 @@"))
    cli.main(["patch", str(patch), "--format", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "divergent", result
