"""`fmtcheck patch`: rebuilding functions from hunks (or a tree), finding output code, verdicts.

The first part checks the rebuilt old/new texts and needs no engine. The acceptance part at the end
goes through `fmtcheck.cli.main` and the core engine (`fmtcheck.engine.compare_functions`).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tempfile
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fmtcheck import cli
from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.patch.hunks import GAP_MARKER, scan_side
from fmtcheck.patch.ctext import Definition, parses_cleanly, repair_header
from fmtcheck.patch.apply import apply_file_diff, TreeState
from fmtcheck.patch.output_code import is_output_code, unknown_output_calls
from fmtcheck.patch.plan import plan_patches
from fmtcheck.patch.patchfile import HunkLine, parse_patch_bytes
from _paths import FIXTURES, SHARED

SEEDS = SHARED / "seeds"
PATCHES = FIXTURES / "patches"
TREE = FIXTURES / "tree"
SEED_000 = str(SEEDS / "000_e93a77558fb991ae.txt")
SEED_002 = str(SEEDS / "002_d3455c854cef1a8c.txt")
SEED_003 = str(SEEDS / "003_9f0d7d148854009b.txt")
MANIFEST = tomllib.loads((PATCHES / "EXPECTED.toml").read_text())


def plans_of(path, tree=None):
    return plan_patches([str(path)], Options(tree=str(tree) if tree else None))


def only_check(path, tree=None):
    """(subject, old text, new text) of the one function a patch checks."""
    (plan,) = [p for p in plans_of(path, tree) if p.checks]
    ((candidate, old, new),) = plan.checks
    return plan.subject(candidate), old, new


def lines_of(texts):
    return [HunkLine(" ", t, i + 1, i + 1, i + 1) for i, t in enumerate(texts)]


# --- rebuilding from hunks: the seeds ----------------------------------------------------------


def test_seed_000_rebuilds_dev_seq_printf_stats_on_both_sides():
    subject, old, new = only_check(SEED_000)
    assert subject == "net/core/net-procfs.c:dev_seq_printf_stats"
    header = b"static void dev_seq_printf_stats(struct seq_file *seq, struct net_device *dev)\n{\n"
    assert old.startswith(header) and new.startswith(header)
    assert b'seq_printf(seq, "%6s: %7llu %7llu' in old and b"seq_put_decimal_ull_width" not in old
    assert b"seq_put_decimal_ull_width(seq, \" \", stats->tx_compressed, 10);" in new
    assert b"seq_putc(seq, '\\n');" in new and b"seq_putc" not in old
    # what precedes the hunk in the function is unknown: one gap marker stands for it
    assert old.count(GAP_MARKER) == new.count(GAP_MARKER) == 1
    assert parses_cleanly(old) and parses_cleanly(new)


def test_seed_003_sides_see_the_helper_the_patch_adds_and_the_context_stub():
    subject, old, new = only_check(SEED_003)
    assert subject == "fs/proc/task_mmu.c:show_smap"
    stub = b"void __weak arch_show_smap(struct seq_file *m, struct vm_area_struct *vma)\n{\n}"
    assert stub in old and stub in new  # a context function: both sides, prints nothing
    assert b"static void print_name_value_kb(" in new and b"print_name_value_kb" not in old
    assert b'"Private_Hugetlb: %7lu kB\\n"' in old
    assert b'print_name_value_kb(m, "Private_Hugetlb: ", mss.private_hugetlb);' in new
    # show_smap: its first line from hunk 1, a gap, hunk 2, and a gap for the unseen end
    function = new[new.index(b"static int show_smap(") :]
    assert function.index(b"struct vm_area_struct *vma = v;") < function.index(GAP_MARKER)
    assert function.count(GAP_MARKER) == 2
    assert parses_cleanly(old) and parses_cleanly(new)


def test_seed_003_notes_the_added_helper_as_checked_through_its_caller():
    (plan,) = plans_of(SEED_003)
    assert plan.added == ["fs/proc/task_mmu.c: adds output helper print_name_value_kb, checked through show_smap"]


def test_seed_002_is_a_read_path_change_in_both_versions():
    plans = plans_of(SEED_002)
    assert [p.patch.label for p in plans] == ["v1", "v2"]
    for plan in plans:
        assert not plan.checks and not plan.problems
        assert plan.read_path == ["read-path change: seq_read_iter (fs/seq_file.c); see `fmtcheck reads`"]


# --- rebuilding from hunks: shapes -------------------------------------------------------------


def test_two_hunks_of_one_function_are_joined_with_a_gap():
    _subject, old, new = only_check(PATCHES / "11-summary-two-hunks.patch")
    for text in (old, new):
        assert text.count(GAP_MARKER) == 1
        assert text.index(b'"reads:  %u\\n"') < text.index(GAP_MARKER) < text.index(b'"errors: %u\\n"')
        assert parses_cleanly(text)
    assert b'seq_puts(m, "last:  ");' in new and b'"last:   %lu\\n"' in old


def test_hunk_starting_inside_a_statement_is_inconclusive_without_the_tree():
    (plan,) = plans_of(PATCHES / "13-pool-mid-statement.patch")
    assert not plan.checks
    ((candidate, reason),) = plan.problems
    assert candidate.name == "fakestat_pool_show"
    assert "inside a statement" in reason and "--tree" in reason and "13-pool-mid-statement.patch:17" in reason


def test_hunk_starting_inside_a_statement_is_whole_with_the_tree():
    _subject, old, new = only_check(PATCHES / "13-pool-mid-statement.patch", TREE)
    assert GAP_MARKER not in old and GAP_MARKER not in new
    assert b'"pool_peak:    %8lu\\n"' in old and b'"pool_peak:   %8lu\\n"' in new


def test_unchanged_context_cut_mid_statement_is_dropped():
    data = b"""--- a/x.c
+++ b/x.c
@@ -10,7 +10,7 @@ static int x_show(struct seq_file *m, void *v)
 \t\t   a, b,
 \t\t   c);
 \tseq_puts(m, "x");
-\tseq_printf(m, "%d\\n", d);
+\tseq_printf(m, "%u\\n", d);
 \treturn 0;
 }
"""
    (plan,) = plan_patches_from_bytes(data)
    ((_c, old, new),) = plan.checks
    assert b"a, b," not in old and b"c);" not in new
    assert any("left out" in note for note in plan.notes)


def test_header_cut_by_git_is_repaired():
    name, header = repair_header(b"static void fakestat_show_kb(struct seq_file *m, const char *name,")
    assert name == "fakestat_show_kb"
    assert header == b"static void fakestat_show_kb(struct seq_file *m, const char *name)"
    assert repair_header(b"static const struct seq_operations ops = {") is None


def test_a_hunk_starting_in_a_file_scope_comment_is_file_scope():
    scan = scan_side(
        lines_of([b" * helpers", b" */", b"#define W 8", b"", b"static int f(void)", b"{", b"\treturn W;", b"}"]),
        b"static int g(struct seq_file *m)",
    )
    assert [p.name for p in scan.pieces] == ["f"]
    assert scan.pieces[0].depth_in == 0 and scan.pieces[0].depth_out == 0


def test_labels_at_column_zero_stay_inside_the_function():
    scan = scan_side(lines_of([b"out:", b"\treturn 0;", b"}", b"", b"int x = 1;"]), b"static int g(struct seq_file *m)")
    (piece,) = scan.pieces
    assert piece.name == "g" and [l.text for l in piece.lines] == [b"out:", b"\treturn 0;", b"}"]
    assert [l.text for l in scan.top] == [b"", b"int x = 1;"]


def test_nested_depth_comes_from_the_closing_brace_when_in_view():
    scan = scan_side(
        lines_of([b"\t\tseq_puts(m, \"a\");", b"\t}", b"\tseq_putc(m, '\\n');", b"}"]),
        b"static void g(struct seq_file *m)",
    )
    (piece,) = scan.pieces
    assert (piece.depth_in, piece.depth_out) == (2, 0)


def plan_patches_from_bytes(data: bytes, tmp_name: str = "inline.patch"):
    """Plan a patch given as bytes (written to a temporary file, as a user would hand it)."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, tmp_name)
        with open(path, "wb") as handle:
            handle.write(data)
        return plan_patches([path], Options())


# --- output code -------------------------------------------------------------------------------


def test_unknown_helpers_handed_the_seq_file_are_listed():
    target = definition(
        b"static int f(struct seq_file *m, void *v)\n{\n\tshow_map_vma(m, v);\n\tput_kb(m->private);\n"
        b"\tSEQ_PUT_DEC(\"x\", 1);\n\tif (known(m))\n\t\treturn 0;\n\treturn 1;\n}\n"
    )
    known = {"known": definition(b"static int known(struct seq_file *m) { return 0; }", name="known")}
    assert unknown_output_calls(target, known) == ["show_map_vma", "SEQ_PUT_DEC"]


def definition(text: bytes, kind: str = "function", name: str = "f") -> Definition:
    return Definition(name, kind, text, "x.c")


@pytest.mark.parametrize(
    "body, expected",
    [
        (b"static void f(struct seq_file *s) { seq_puts(s, \"x\"); }", True),
        (b"static void f(void *p) { struct seq_file *s = p; seq_printf(s, \"%d\", 1); }", True),
        (b"static void f(struct seq_file *s) { show_header(s, 1); }", True),  # passes its seq_file
        (b"static void f(struct seq_file *s) { SEQ_PUT_DEC(\"x\", 1); }", True),  # a SEQ_ wrapper
        (b"static void f(struct seq_file *s) { put_kb(1); }", True),  # a helper that prints
        (b"static void f(struct seq_file *s) { struct x *p = s->private; p->n++; }", False),
        (b"static void f(struct x *p) { p->n += count(p->m); }", False),
        (b"static void f(struct seq_file *s) { /* seq_puts(s, \"x\"); */ }", False),
    ],
)
def test_output_code(body, expected):
    helpers = {"put_kb": definition(b"#define put_kb(v) seq_put_decimal_ull(m, \" \", v)", "macro", "put_kb")}
    assert is_output_code(definition(body), helpers) is expected


def test_series_helper_from_an_earlier_patch_is_seen_by_the_next():
    plans = plans_of(PATCHES / "07-series.mbx")
    assert [p.patch.label for p in plans] == ["[1/3]", "[2/3]", "[3/3]"]
    assert plans[0].added == ["drivers/fake/fakestat.c: adds output function fakestat_show_pair: nothing to compare it with"]
    ((candidate, old, new),) = plans[1].checks
    assert plans[1].subject(candidate) == "[2/3] drivers/fake/fakestat.c:fakestat_ring_show"
    assert b"static void fakestat_show_pair(" in new and b"fakestat_show_pair" not in old
    assert plans[2].not_output == ["drivers/fake/fakestat.c: fakestat_reset"]


def test_macro_wrapper_added_in_another_hunk_is_on_the_new_side_only():
    _subject, old, new = only_check(PATCHES / "10-pages-macro.patch")
    assert new.startswith(b"#define FAKESTAT_KB(m, s, v) seq_put_decimal_ull_width(m, s, (v) << 2, 8)")
    assert b"FAKESTAT_KB" not in old


def test_non_output_change_is_nothing_to_check():
    (plan,) = plans_of(PATCHES / "05-update-nothing.patch")
    assert not plan.checks and plan.not_output == ["drivers/fake/fakestat.c: fakestat_update"]


# --- with --tree -------------------------------------------------------------------------------


def test_tree_gives_the_helper_the_hunks_do_not_show():
    (alone,) = plans_of(PATCHES / "09-mem-needs-tree.patch")
    ((candidate, reason),) = alone.problems  # without the tree the helper's output is unknown
    assert candidate.name == "fakestat_mem_show" and "fakestat_show_kb" in reason
    _s, old, new = only_check(PATCHES / "09-mem-needs-tree.patch", TREE)
    assert b"static void fakestat_show_kb(" in new and b"fakestat_show_kb" not in old
    assert GAP_MARKER not in new


def test_tree_applies_hunks_at_an_offset(tmp_path):
    shutil.copytree(TREE, tmp_path / "tree")
    source = tmp_path / "tree" / "drivers" / "fake" / "fakestat.c"
    source.write_bytes(b"/* three */\n/* new */\n/* lines */\n" + source.read_bytes())
    _s, old, new = only_check(PATCHES / "01-irq-put-decimal.patch", tmp_path / "tree")
    assert b'seq_puts(m, "irqs:");' in new


def test_tree_series_applies_in_order():
    plans = plans_of(PATCHES / "07-series.mbx", TREE)
    ((_c, _old, new),) = plans[1].checks
    assert b"static void fakestat_show_pair(" in new


def test_tree_checks_unchanged_users_of_a_changed_macro(tmp_path):
    tree = tmp_path / "tree"
    (tree / "fs").mkdir(parents=True)
    (tree / "fs" / "w.c").write_bytes(
        b"#define W_FMT \"%8lu\\n\"\n\n/* one */\n/* two */\n/* three */\n/* four */\n\n"
        b"static int w_show(struct seq_file *m, void *v)\n{\n\tseq_printf(m, W_FMT, 1UL);\n\treturn 0;\n}\n"
    )
    data = b"--- a/fs/w.c\n+++ b/fs/w.c\n@@ -1,3 +1,3 @@\n-#define W_FMT \"%8lu\\n\"\n+#define W_FMT \"%7lu\\n\"\n \n /* one */\n"
    patch_path = tmp_path / "w.patch"
    patch_path.write_bytes(data)
    (plan,) = plan_patches([str(patch_path)], Options(tree=str(tree)))
    ((candidate, old, new),) = plan.checks
    assert candidate.name == "w_show" and candidate.reasons == ["uses changed W_FMT"]
    assert b'"%8lu\\n"' in old and b'"%7lu\\n"' in new
    # without the tree the users are not visible: the report says so
    (alone,) = plan_patches([str(patch_path)], Options())
    assert any("W_FMT" in note and "--tree" in note for note in alone.notes)


def test_hunk_that_does_not_apply_names_the_patch_line():
    (patch,) = parse_patch_bytes((PATCHES / "bad" / "does-not-apply.patch").read_bytes(), "p")
    with pytest.raises(InputError) as info:
        apply_file_diff(patch.files[0], TreeState(str(TREE)), "p")
    assert info.value.where == "p:18" and "does not apply" in info.value.what


def test_tree_path_escaping_the_tree_is_not_read(tmp_path):
    data = b"--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1,1 +1,1 @@\n-a\n+b\n"
    (patch,) = parse_patch_bytes(data, "p")
    with pytest.raises(InputError, match="not found"):
        apply_file_diff(patch.files[0], TreeState(str(tmp_path)), "p")


# --- errors through the command line -----------------------------------------------------------


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("entry", MANIFEST["error"], ids=lambda e: e["file"])
def test_bad_input_exits_2_with_one_line_naming_file_and_line(capsys, entry):
    path = str(PATCHES / entry["file"])
    argv = ["patch", path] + (["--tree", str(TREE)] if entry.get("tree") else [])
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"fmtcheck: error: {PATCHES / entry['where']}")
    assert entry["what"] in err


@pytest.mark.parametrize("argv_tail", [["/nonexistent.patch"], [str(PATCHES)]], ids=["missing", "directory"])
def test_missing_path_or_directory_exits_2(capsys, argv_tail):
    code, _out, err = run_cli(capsys, "patch", *argv_tail)
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"fmtcheck: error: {argv_tail[0]}:")


def test_tree_that_is_not_a_directory_exits_2(capsys):
    code, _out, err = run_cli(capsys, "patch", SEED_000, "--tree", "/nonexistent-tree")
    assert code == 2 and "--tree is not a directory" in err


# --- acceptance: verdicts (through the engine) -------------------------------------------------


def report_of(capsys, *argv):
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert "Traceback" not in err
    return code, json.loads(out) if out else None, err


def test_seed_000_is_proven_equivalent(capsys):
    code, report, err = report_of(capsys, "patch", SEED_000)
    assert code == 0, err
    (result,) = report["results"]
    assert result["subject"] == "net/core/net-procfs.c:dev_seq_printf_stats"
    assert result["verdict"] == "equivalent" and result["method"] == "proven"


def test_seed_003_diverges_on_private_hugetlb_only(capsys):
    code, report, err = report_of(capsys, "patch", SEED_003)
    assert code == 1, err
    (result,) = [r for r in report["results"] if r["subject"] == "fs/proc/task_mmu.c:show_smap"]
    assert result["verdict"] == "divergent"
    assert result["divergences"]
    for divergence in result["divergences"]:
        assert divergence["expected"].startswith("Private_Hugetlb:")
        assert divergence["actual"].startswith("Private_Hugetlb:")
        assert len(divergence["actual"]) == len(divergence["expected"]) + 1  # 7 columns -> 8
        assert divergence["severity"] == "cosmetic"
        assert divergence["counterexample"]


def test_seed_002_is_nothing_to_check_and_names_the_read_path_change(capsys):
    code, report, err = report_of(capsys, "patch", SEED_002)
    assert code == 0, err
    assert report["verdict"] == "nothing-to-check"
    assert [r["subject"] for r in report["results"]] == ["v1 fs/seq_file.c", "v2 fs/seq_file.c"]
    expected = "read-path change: seq_read_iter (fs/seq_file.c); see `fmtcheck reads`"
    assert any(note.startswith(expected) for note in report["notes"])
    assert all(expected in r["notes"] for r in report["results"])


def check_report_against(entry, code, report, err, verdict_key="verdict"):
    verdict = entry.get(verdict_key, entry["verdict"])
    assert report is not None, err
    assert report["verdict"] == verdict, json.dumps(report, indent=1)
    if verdict_key == "verdict":
        assert code == entry["exit"], err
        by_subject = {r["subject"]: r for r in report["results"]}
        for subject, expected in entry.get("results", {}).items():
            assert subject in by_subject, sorted(by_subject)
            assert by_subject[subject]["verdict"] == expected, json.dumps(by_subject[subject], indent=1)
        for subject, kinds in entry.get("kinds", {}).items():
            found = {d["kind"] for d in by_subject[subject]["divergences"]}
            assert set(kinds) & found, found
        for subject, severity in entry.get("severity", {}).items():
            assert {d["severity"] for d in by_subject[subject]["divergences"]} == {severity}
        if "note" in entry:
            notes = report.get("notes", []) + [n for r in report["results"] for n in r.get("notes", [])]
            assert any(entry["note"] in note for note in notes), notes


@pytest.mark.parametrize("entry", MANIFEST["patch"], ids=lambda e: e["file"])
def test_fixture_verdicts(capsys, entry):
    argv = ["patch", str(PATCHES / entry["file"])] + (["--tree", str(TREE)] if entry.get("tree") else [])
    check_report_against(entry, *report_of(capsys, *argv))


@pytest.mark.parametrize("entry", MANIFEST["patch"], ids=lambda e: e["file"])
def test_fixture_verdicts_with_the_tree(capsys, entry):
    argv = ["patch", str(PATCHES / entry["file"]), "--tree", str(TREE)]
    check_report_against(entry, *report_of(capsys, *argv), verdict_key="tree_verdict")


def test_helper_only_in_the_tree_is_inconclusive_without_it(capsys):
    code, report, err = report_of(capsys, "patch", str(PATCHES / "09-mem-needs-tree.patch"))
    assert code == 3, err
    (result,) = report["results"]
    assert result["verdict"] == "inconclusive"
    assert "fakestat_show_kb" in result["reason"] and "--tree" in result["reason"]


def test_several_patch_files_and_stdin(capsys, monkeypatch):
    data = (PATCHES / "05-update-nothing.patch").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, report, err = report_of(capsys, "patch", "-", str(PATCHES / "05-update-nothing.patch"))
    assert code == 0, err
    assert [r["verdict"] for r in report["results"]] == ["nothing-to-check", "nothing-to-check"]
    assert [r["patch"] for r in report["results"]] == ["<stdin>", str(PATCHES / "05-update-nothing.patch")]


# --- robustness --------------------------------------------------------------------------------


def test_diff_without_function_context_that_prints_is_inconclusive():
    data = b"""--- x.c.orig
+++ x.c
@@ -10,4 +10,4 @@
 \tstruct foo *f = v;
 
-\tseq_printf(m, "%d\\n", f->n);
+\tseq_printf(m, "%u\\n", f->n);
 \treturn 0;
"""
    (plan,) = plan_patches_from_bytes(data)
    ((candidate, reason),) = plan.problems
    assert candidate.name.startswith("(code at ") and "no function context" in reason


def test_diff_without_function_context_that_does_not_print_is_a_note():
    data = b"--- x.c.orig\n+++ x.c\n@@ -10,3 +10,3 @@\n \tint a;\n-\ta = 1;\n+\ta = 2;\n \treturn a;\n"
    (plan,) = plan_patches_from_bytes(data)
    assert not plan.problems and not plan.checks
    assert any("code the patch does not name" in note for note in plan.notes)


def test_hunk_starting_inside_a_multi_line_macro():
    data = b"""--- a/x.c
+++ b/x.c
@@ -3,6 +3,6 @@ static int other(void)
 \t\tseq_put_decimal_ull(m, " ", (v)); \\
-\t\tseq_putc(m, ' '); \\
+\t\tseq_putc(m, '\\t'); \\
 \t} while (0)
 
 static int x_show(struct seq_file *m, void *v)
 {
"""
    (plan,) = plan_patches_from_bytes(data)
    assert [c.name for c, _r in plan.problems] == ["(code at " + plan.patch.source + ":5)"]
    assert not plan.checks


def _mutations():
    sources = sorted(p for p in PATCHES.iterdir() if p.is_file() and p.suffix not in (".toml", ".py"))
    return st.tuples(
        st.sampled_from(sources),
        st.sampled_from(["drop", "duplicate", "junk", "truncate", "swap"]),
        st.integers(min_value=0, max_value=400),
        st.binary(max_size=30),
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_mutations())
def test_mutated_patches_rebuild_or_fail_cleanly(mutation):
    """Whatever a stranger's patch looks like, reading and rebuilding it ends with plans or an
    InputError (exit 2), never another exception."""
    source, how, at, junk = mutation
    lines = source.read_bytes().split(b"\n")
    at %= max(len(lines), 1)
    if how == "drop":
        del lines[at]
    elif how == "duplicate":
        lines.insert(at, lines[at])
    elif how == "junk":
        lines.insert(at, junk.replace(b"\n", b""))
    elif how == "truncate":
        lines = lines[:at]
    elif how == "swap" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    try:
        plan_patches_from_bytes(b"\n".join(lines), source.name)
    except InputError as err:
        assert err.where and err.what and "\n" not in err.what


def test_an_engine_failure_on_one_function_does_not_lose_the_report(capsys, monkeypatch):
    import fmtcheck.engine.verdict

    def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.delenv("FMTCHECK_DEBUG", raising=False)
    monkeypatch.setattr(fmtcheck.engine.verdict, "compare_functions", broken)
    code, report, _err = report_of(capsys, "patch", SEED_000)
    assert code == 3
    assert report["results"][0]["reason"] == "internal error while judging: RuntimeError: boom"
