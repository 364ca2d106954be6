"""Never a wrong-way verdict (issue 15): keys of uninterpreted values name what they denote, never
local names; a difference that hangs on an input only one side reads is inconclusive; memory an
unknown call receives holds values of that call. Every snippet is C written for these tests in
the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options


def show(body: str, before: str = "", params: str = "struct seq_file *m, void *v") -> str:
    return f"{before}static int t_show({params})\n{{\n{body}\treturn 0;\n}}\n"


def run(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def verdict_and_reason(old: str, new: str) -> tuple[str, str]:
    result = run(old, new)
    return result.verdict, result.reason or ""


STATS = "struct foo_stats { int nr; unsigned long sp; };\n"


# -- keys never name locals --------------------------------------------------------------------


def test_an_uninitialised_local_struct_is_not_an_input_named_after_the_local():
    """proc_pid_syscall's shape: renaming the local must not make the sides read different
    inputs (was divergent); what an uninitialised struct holds is shared by no one."""
    old = show('\tstruct foo_stats info;\n\n\tseq_printf(m, "%d\\n", info.nr);\n', STATS)
    new = show('\tstruct foo_stats info_rw;\n\n\tseq_printf(m, "%d\\n", info_rw.nr);\n', STATS)
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "uninitialised info" in reason


def test_a_pointer_into_a_struct_taken_before_a_call_fills_it_is_never_divergent():
    old = show('\tstruct foo_stats info;\n\tint *nr = &info.nr;\n\n\tif (get_syscall(v, &info))\n'
               '\t\treturn 0;\n\tseq_printf(m, "%d\\n", *nr);\n', STATS)
    new = show('\tstruct foo_stats info_rw;\n\tint *nr_rw = &info_rw.nr;\n\n\tif (get_syscall(v, &info_rw))\n'
               '\t\treturn 0;\n\tseq_printf(m, "%d\\n", *nr_rw);\n', STATS)
    assert run(old, new).verdict != "divergent"


SYSCALL = ('\tstruct foo_syscall info;\n\tu64 *args = &info.data.args[0];\n\n'
           '\tif (get_syscall(v, &info))\n\t\treturn 0;\n')


def test_a_pointer_into_a_struct_reads_what_the_call_that_filled_it_left():
    """proc_pid_syscall: `args` points into `info` before the call fills it; `args[1]` read after
    the call is the call's value, as `info.data.args[1]` is (was one-sided: the pointer kept the
    name of what the stack held, which names the local and the side), also when the struct's
    type is not in the input."""
    old = show(SYSCALL + '\tseq_printf(m, "%d 0x%llx\\n", info.data.nr, args[1]);\n')
    new = show(SYSCALL.replace("info", "si").replace("*args", "*a")
               + '\tseq_put_decimal_ll(m, "", si.data.nr);\n\tseq_printf(m, " 0x%llx\\n", a[1]);\n')
    assert run(old, new).verdict == "equivalent"
    other = new.replace("a[1]", "a[0]")  # another element of the call's output
    assert run(old, other).verdict != "equivalent"


def test_a_pointer_into_a_struct_read_before_the_call_fills_it_reads_the_stack():
    early = show('\tstruct foo_syscall info;\n\tu64 *args = &info.data.args[0];\n\tu64 first = args[1];\n\n'
                 '\tif (get_syscall(v, &info))\n\t\treturn 0;\n'
                 '\tseq_printf(m, "%d 0x%llx\\n", info.data.nr, first);\n')
    late = show(SYSCALL + '\tseq_printf(m, "%d 0x%llx\\n", info.data.nr, args[1]);\n')
    assert run(early, late).verdict == "inconclusive"


def test_a_list_head_the_model_cannot_evaluate_does_not_name_the_loop_by_its_text():
    """cgroup_css_links_read's shape: `&css->cgroup->links` and `&css_rw->...` are one list."""
    old = show('\tstruct foo *css = foo_of(v);\n\tstruct foo_link *l;\n\n'
               '\tlist_for_each_entry(l, &css->group->links, node)\n\t\tseq_printf(m, "%d\\n", l->nr);\n')
    new = show('\tstruct foo *css_rw = foo_of(v);\n\tstruct foo_link *l_rw;\n\n'
               '\tlist_for_each_entry(l_rw, &css_rw->group->links, node) {\n'
               '\t\tseq_put_decimal_ll(m, "", l_rw->nr);\n\t\tseq_putc(m, \'\\n\');\n\t}\n')
    assert run(old, new).verdict == "equivalent"
    broken = old.replace("foo_of(v)", "0")  # css is a number: its members are not data
    assert run(broken, new.replace("foo_of(v)", "0")).verdict == "inconclusive"


def test_seq_css_is_a_value_of_the_seq_file_not_an_output_event():
    old = show('\tstruct cgroup_subsys_state *css = seq_css(m);\n\tstruct foo_link *l;\n\n'
               '\tlist_for_each_entry(l, &css->cgroup->cset_links, cset_link)\n'
               '\t\tseq_printf(m, "css_set %d\\n", l->nr);\n')
    new = show('\tstruct cgroup_subsys_state *css_rw = seq_css(m);\n\tstruct foo_link *l_rw;\n\n'
               '\tlist_for_each_entry(l_rw, &css_rw->cgroup->cset_links, cset_link)\n'
               '\t\tseq_printf(m, "css_set %d\\n", l_rw->nr);\n')
    assert run(old, new).verdict == "equivalent"


def test_one_loop_head_reassigned_between_two_loops_is_two_lists():
    """The same text `&c->items` names two lists when `c` changes in between: the rewrite that
    walks the first list twice prints other bytes (never "equivalent")."""
    old = show('\tstruct foo *c = first_foo(v);\n\tstruct foo_item *it;\n\n'
               '\tlist_for_each_entry(it, &c->items, node)\n\t\tseq_printf(m, "%d\\n", it->nr);\n'
               '\tc = next_foo(c);\n'
               '\tlist_for_each_entry(it, &c->items, node)\n\t\tseq_printf(m, "%d\\n", it->nr);\n')
    new = show('\tstruct foo *c = first_foo(v);\n\tstruct foo_item *it;\n\n'
               '\tlist_for_each_entry(it, &c->items, node)\n\t\tseq_printf(m, "%d\\n", it->nr);\n'
               '\tlist_for_each_entry(it, &c->items, node)\n\t\tseq_printf(m, "%d\\n", it->nr);\n')
    assert run(old, new).verdict != "equivalent"


def test_the_same_local_name_in_two_scopes_holding_other_values_is_not_one_input():
    old = show('\tint i;\n\n\tfor (i = 0; i < 2; i++) {\n\t\tint x = i;\n\n'
               '\t\tseq_printf(m, "%d\\n", foo_hash(&x));\n\t}\n')
    new = show('\tint i;\n\n\tfor (i = 0; i < 2; i++) {\n\t\tint x = 0;\n\n'
               '\t\tseq_printf(m, "%d\\n", foo_hash(&x));\n\t}\n')
    assert run(old, new).verdict != "equivalent"


def test_a_struct_passed_to_an_unknown_call_is_named_by_what_it_holds():
    old = show('\tstruct foo_stats st = {};\n\n\tst.nr = 1;\n\tseq_printf(m, "%d\\n", foo_hash(&st));\n', STATS)
    new = show('\tstruct foo_stats st = {};\n\n\tst.nr = 2;\n\tseq_printf(m, "%d\\n", foo_hash(&st));\n', STATS)
    assert run(old, new).verdict == "inconclusive"  # was "equivalent": one key for both
    renamed = show('\tstruct foo_stats s2 = {};\n\n\ts2.nr = 1;\n\tseq_printf(m, "%d\\n", foo_hash(&s2));\n', STATS)
    assert run(old, renamed).verdict == "equivalent"


# -- pointers of the code's own objects ----------------------------------------------------------


def test_pointers_to_the_codes_own_objects_compare_by_identity():
    old = show('\tchar a[4] = "ab";\n\tchar b[4] = "cd";\n\tchar *p = a;\n\n'
               '\tseq_printf(m, "%d %d %d\\n", p == a, a == b, p != v);\n')
    new = show('\tseq_puts(m, "1 0 1\\n");\n')
    assert run(old, new).verdict == "equivalent"


def test_the_address_of_a_local_used_as_a_number_is_inconclusive():
    old = show('\tchar buf[8];\n\n\tseq_printf(m, "%lu\\n", (unsigned long)buf);\n')
    new = show('\tchar buf_rw[8];\n\n\tseq_printf(m, "%lu\\n", (unsigned long)buf_rw);\n')
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "address of a local object" in reason


# -- memory an unknown call receives -------------------------------------------------------------


def test_a_local_struct_filled_by_a_call_holds_values_of_that_call_not_stale_contents():
    old = show('\tstruct foo_stats st;\n\n\tst.nr = 1;\n\tget_foo(v, &st);\n\tseq_printf(m, "%d\\n", st.nr);\n', STATS)
    assert run(old, show('\tseq_printf(m, "%d\\n", 1);\n', STATS)).verdict == "inconclusive"
    same = show('\tstruct foo_stats s2;\n\n\ts2.nr = 1;\n\tget_foo(v, &s2);\n\tseq_put_decimal_ll(m, "", s2.nr);\n'
                '\tseq_putc(m, \'\\n\');\n', STATS)
    assert run(old, same).verdict == "equivalent"


def test_a_char_buffer_filled_by_a_call_is_a_string_of_that_call():
    old = show('\tchar name[16];\n\n\tget_name(v, name);\n\tseq_printf(m, "%s\\n", name);\n')
    assert run(old, show('\tseq_puts(m, "\\n");\n')).verdict == "inconclusive"  # was "equivalent"
    same = show('\tchar buf[16];\n\n\tget_name(v, buf);\n\tseq_puts(m, buf);\n\tseq_putc(m, \'\\n\');\n')
    assert run(old, same).verdict == "equivalent"


# -- a difference from inputs one side reads ------------------------------------------------------


def test_a_non_printing_helper_called_on_one_side_and_inlined_on_the_other_is_inconclusive():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "rx %lu\\n", foo_rx_packets(f));\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "rx %lu\\n", f->stats.rx_packets);\n')
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "foo_rx_packets(v)" in reason and "old:5" in reason


def test_a_line_only_one_side_prints_stays_divergent_whatever_the_one_sided_field_holds():
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "rx %lu\\n", f->rx);\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "rx %lu\\n", f->rx);\n\tseq_printf(m, "tx %lu\\n", f->tx);\n')
    result = run(old, new)
    assert result.verdict == "divergent"
    assert all(d.expected != d.actual for d in result.divergences)


# -- assumed types --------------------------------------------------------------------------------

UNDECLARED_PATCH = b"""diff --git a/fs/demo/stat.c b/fs/demo/stat.c
--- a/fs/demo/stat.c
+++ b/fs/demo/stat.c
@@ -1,5 +1,6 @@
 static int demo_show(struct seq_file *m, void *v)
 {
-\tseq_printf(m, "%u\\n", stats->rx);
+\tseq_put_decimal_ull(m, "", stats->rx);
+\tseq_putc(m, '\\n');
 \treturn 0;
 }
"""


def test_an_undeclared_input_through_u_against_a_64_bit_primitive_is_not_proven_by_patch(tmp_path, capsys):
    """The same rule as `verify` (tests/unit/c/test_kernel_c.py), from a patch without a tree."""
    import json

    from fmtcheck import cli

    patch = tmp_path / "p.patch"
    patch.write_bytes(UNDECLARED_PATCH)
    code = cli.main(["patch", str(patch), "--format", "json"])
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert result["verdict"] == "inconclusive" and "stats->rx" in result["reason"], result
    assert "not declared" in result["reason"] and code == 3


def test_parameters_renamed_by_the_rewrite_are_the_same_inputs():
    """The caller's data is named by the parameter's position: `v` and `p` are one input (was
    divergent: two inputs named after the parameters)."""
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%d %u\\n", f->nr, n);\n', params="struct seq_file *m, void *v, unsigned int n")
    new = show('\tstruct foo *f = p;\n\n\tseq_printf(seq, "%d %u\\n", f->nr, count);\n',
               params="struct seq_file *seq, void *p, unsigned int count")
    assert run(old, new).verdict == "equivalent"


def test_a_line_shown_the_same_on_both_sides_is_never_reported():
    from fmtcheck.common.result import Divergence
    from fmtcheck.engine.divergences import shows_a_difference

    same = Divergence(line=1, column=1, expected=b"<seq_user_ns(m)>", actual=b"<seq_user_ns(m)>", field=None,
                      severity="breaking", kind="output-event", counterexample={})
    other = Divergence(line=2, column=1, expected=b"rx 1", actual=b"rx 2", field=None, severity="breaking",
                       kind="value", counterexample={})
    newline = Divergence(line=3, column=1, expected=b"rx 1", actual=b"rx 1", field=None, severity="breaking",
                         kind="missing-newline", counterexample={}, actual_has_newline=False)
    assert not shows_a_difference(same)
    assert shows_a_difference(other) and shows_a_difference(newline)


def test_strlen_of_an_input_string_is_no_internal_error_in_the_proof():
    """cgroup1_show_options' shape: the proof meets strlen of a caller's string (was TypeError)."""
    old = show('\tstruct foo *f = v;\n\n\tif (strlen(f->name))\n\t\tseq_printf(m, ",name=%s", f->name);\n')
    new = show('\tstruct foo *f = v;\n\n\tif (strlen(f->name)) {\n\t\tseq_puts(m, ",name=");\n'
               '\t\tseq_puts(m, f->name);\n\t}\n')
    assert run(old, new).verdict == "equivalent"


def test_an_unset_pointer_local_handed_out_is_an_out_parameter_of_the_call():
    """ct_show_secctx's shape: `char *ctx; if (get_ctx(x, &ctx, &len)) return; print ctx`."""
    old = show('\tchar *ctx;\n\tu32 len;\n\n\tif (get_ctx(v, &ctx, &len))\n\t\treturn 0;\n'
               '\tseq_printf(m, "ctx=%s ", ctx);\n')
    new = show('\tchar *ctx_rw;\n\tu32 len_rw;\n\n\tif (get_ctx(v, &ctx_rw, &len_rw))\n\t\treturn 0;\n'
               '\tseq_puts(m, "ctx=");\n\tseq_puts(m, ctx_rw);\n\tseq_putc(m, \' \');\n')
    assert run(old, new).verdict == "equivalent"


def test_file_scope_data_without_an_initializer_is_the_kernels_state_by_name():
    """pn_res_seq_show's shape: a file-scope struct and int the file does not initialise are
    inputs named by the global (shared by both sides), never zero and never one side's own."""
    before = "static struct { int nr[4]; } table;\nstatic int nr_widgets;\n"
    old = show('\tseq_printf(m, "%d %d\\n", table.nr[1], nr_widgets);\n', before)
    new = show('\tseq_printf(m, "%d", table.nr[1]);\n\tseq_printf(m, " %d\\n", nr_widgets);\n', before)
    assert run(old, new).verdict == "equivalent"
    zero = show('\tseq_printf(m, "%d %d\\n", table.nr[1], 0);\n', before)
    assert run(old, zero).verdict != "equivalent"


def test_the_callers_pointer_may_point_at_a_files_global():
    """p9_fd_show_options' shape: `clnt->trans == &foo_tcp_trans` is an input named by the
    global, the same on both sides (was a Python object id: divergent at random)."""
    before = "struct foo_trans { int port; };\nstatic struct foo_trans foo_tcp_trans = { .port = 1 };\n"
    old = show('\tstruct foo *clnt = v;\n\n\tif (clnt->trans == &foo_tcp_trans)\n\t\tseq_printf(m, ",port=%u", clnt->port);\n',
               before)
    new = show('\tstruct foo *c = v;\n\n\tif (c->trans == &foo_tcp_trans) {\n\t\tseq_puts(m, ",port=");\n'
               '\t\tseq_printf(m, "%u", c->port);\n\t}\n', before)
    assert run(old, new).verdict == "equivalent"
    never = show('\tstruct foo *clnt = v;\n\n\tseq_printf(m, ",port=%u", clnt->port);\n', before)
    assert run(old, never).verdict != "equivalent"


# -- the kernel's state: file-scope variables other code changes ---------------------------------

QOS = "struct foo_qos { struct foo_qos *next; int pcr; };\n"
WALK = ('\tstruct foo_qos *q = foo_qos_head;\n\n\twhile (q != NULL) {\n\t\tseq_printf(m, "%-7d\\n", q->pcr);\n'
        '\t\tq = q->next;\n\t}\n')


def test_a_static_pointer_initialised_to_null_is_not_null_when_the_printer_runs():
    """atm_mpoa_disp_qos's shape (j15b's mutants): `static struct qos *head = NULL;` that other
    functions of the file fill; taken as its initializer, a width change was "proven"."""
    for declared in ("static struct foo_qos *foo_qos_head = NULL;\n", "static struct foo_qos *foo_qos_head;\n"):
        old, new = show(WALK, QOS + declared), show(WALK.replace("%-7d", "%-8d"), QOS + declared)
        verdict, reason = verdict_and_reason(old, new)
        assert verdict == "inconclusive" and "foo_qos_head" in reason and "kernel's state" in reason, reason


def test_a_static_counter_array_is_not_zero_when_the_printer_runs():
    before = "static unsigned long foo_counts[4];\n"
    old = show('\tseq_printf(m, "%lu %lu\\n", foo_counts[0], foo_counts[1]);\n', before)
    new = show('\tseq_printf(m, "%ld %lu\\n", foo_counts[0], foo_counts[1]);\n', before)
    assert verdict_and_reason(old, new)[0] != "equivalent"


def test_a_static_int_with_an_initializer_is_state_but_a_faithful_rewrite_is_still_equivalent():
    before = "static int foo_level = 3;\n"
    old = show('\tseq_printf(m, "level %d\\n", foo_level);\n', before)
    assert run(old, show('\tseq_printf(m, "level %u\\n", foo_level);\n', before)).verdict != "equivalent"
    new = show('\tseq_puts(m, "level");\n\tseq_put_decimal_ll(m, " ", foo_level);\n\tseq_putc(m, \'\\n\');\n', before)
    result = run(old, new)
    assert result.verdict == "equivalent", result.reason


def test_a_const_global_keeps_its_initializer():
    before = "static const int foo_level = 3;\n"
    old = show('\tseq_printf(m, "level %d\\n", foo_level);\n', before)
    assert run(old, show('\tseq_printf(m, "level %u\\n", foo_level);\n', before)).verdict == "equivalent"


def test_a_prototype_returning_a_pointer_is_no_variable_of_the_kernels_state():
    before = "struct foo { int x; };\nstatic struct foo *foo_get(int i);\n"
    old = show('\tseq_printf(m, "%d\\n", foo_get(1)->x);\n', before)
    new = show('\tseq_printf(m, "%d\\n", foo_get(2)->x);\n', before)
    verdict, reason = verdict_and_reason(old, new)
    assert verdict != "equivalent" and "kernel's state" not in reason, reason


def test_a_static_list_head_the_file_fills_points_at_data_when_the_printer_runs():
    """atm_mpoa_disp_qos's file also adds to the list (`qos_head = entry;`): the head then points
    at data, so a width change of a row is realizable (was inconclusive, 36 of j15b's mutants);
    a head only ever set to NULL proves nothing either way."""
    adder = ("void foo_qos_add(struct foo_qos *entry)\n{\n\tentry->next = foo_qos_head;\n"
             "\tfoo_qos_head = entry;\n}\n\n")
    declared = "static struct foo_qos *foo_qos_head = NULL;\n"
    old, new = show(WALK, QOS + declared + adder), show(WALK.replace("%-7d", "%-8d"), QOS + declared + adder)
    assert run(old, new).verdict == "divergent"
    cleared = adder.replace("foo_qos_head = entry;", "foo_qos_head = NULL;")
    old, new = show(WALK, QOS + declared + cleared), show(WALK.replace("%-7d", "%-8d"), QOS + declared + cleared)
    assert verdict_and_reason(old, new)[0] == "inconclusive"


def test_a_static_array_of_list_heads_the_file_fills_points_at_data():
    """aarp_seq_show's shape: `static struct entry *resolved[16];` filled by `resolved[h] = a;`."""
    walk = WALK.replace("= foo_qos_head;", "= foo_qos_heads[0];")
    adder = "void foo_qos_add(struct foo_qos *entry, int h)\n{\n\tfoo_qos_heads[h] = entry;\n}\n\n"
    declared = "static struct foo_qos *foo_qos_heads[16];\n"
    old, new = show(walk, QOS + declared + adder), show(walk.replace("%-7d", "%-8d"), QOS + declared + adder)
    assert run(old, new).verdict == "divergent"
    old, new = show(walk, QOS + declared), show(walk.replace("%-7d", "%-8d"), QOS + declared)
    assert run(old, new).verdict == "inconclusive"


def test_a_member_of_an_undefined_struct_through_u_against_a_64_bit_primitive_is_not_proven():
    """`struct foo *f = v;` with struct foo defined nowhere in the input: f->bar is of undeclared
    type as much as an undeclared `stats->rx` is. The width conflict was keyed by the text
    (`f->bar`) and looked up by the input it denotes (`v->bar`), so this was "equivalent, proven"."""
    old = show('\tstruct foo *f = v;\n\n\tseq_printf(m, "%u\\n", f->bar);\n')
    new = show('\tstruct foo *f = v;\n\n\tseq_put_decimal_ull(m, "", f->bar);\n\tseq_putc(m, \'\\n\');\n')
    result = run(old, new)
    assert result.verdict == "inconclusive" and "the type of f->bar is not declared" in result.reason


def test_an_undeclared_input_printed_only_on_a_path_the_replayed_case_misses_is_not_proven():
    """`if (c->mod == 0 && c->port != 564)`: the one case a proof replays takes the other way, so
    `c->port` was never among the inputs it read and its `%u` against a 64-bit primitive was
    "equivalent, proven"; a c->port of 2^32 + 5 prints 5 on one side, 4294967301 on the other."""
    cond = "\tstruct clnt *c = v;\n\n\tif (c->mod == 0 && c->port != 564)"
    old = show(cond + ' seq_printf(m, ",port=%u", c->port);\n')
    new = show(cond + ' {\n\t\tseq_puts(m, ",port=");\n\t\tseq_put_decimal_ull(m, "", c->port);\n\t}\n')
    result = run(old, new)
    assert result.verdict == "inconclusive" and "the type of c->port is not declared" in result.reason
    declared = "struct clnt { void *mod; unsigned int port; };\n"
    assert run(declared + old, declared + new).verdict == "equivalent"


P9_TRANS = ("struct clnt { void *mod; unsigned int port; };\n"
            "static struct foo_trans_module foo_tcp_trans = {\n\t.name = \"tcp\",\n\t.def = 0,\n\t.maxsize = -1,\n};\n")
P9_COND = "\tstruct clnt *c = v;\n\n\tif (c->mod == &foo_tcp_trans && c->port != 564)"


def test_the_address_of_a_global_whose_struct_is_not_defined_is_the_globals_address():
    """p9_fd_show_options' shape with the module struct defined in a header the input lacks:
    `&foo_tcp_trans` is an address the caller's pointer may equal (was inconclusive: "struct ...
    of a table is not defined"), with positional initializers as much as designated ones."""
    for before in (P9_TRANS, P9_TRANS.replace('.name = "tcp",', '"tcp", 0,')):
        old = show(P9_COND + ' seq_printf(m, ",port=%u", c->port);\n', before)
        new = show(P9_COND + ' {\n\t\tseq_puts(m, ",port=");\n\t\tseq_put_decimal_ull(m, "", c->port);\n\t}\n',
                   before)
        assert run(old, new).verdict == "equivalent"
        assert run(old, new.replace("564", "565")).verdict == "divergent"


def test_a_designated_field_of_an_undefined_struct_holds_its_value_only_where_no_type_changes_it():
    """`.name = "tcp"` is that string in a field of any type, and a field not named is zero; `-1`
    depends on the field's type (255, 65535, ...), so reading it is inconclusive, naming it; a
    positional initializer says nothing without the struct's field order."""
    def printing(what: str, before: str = P9_TRANS) -> str:
        return show(P9_COND + f' seq_printf(m, ",%s=%u", {what}, c->port);\n', before)

    old = printing("foo_tcp_trans.name")
    assert run(old, old.replace('seq_printf(m, ",%s=%u", foo_tcp_trans.name,', 'seq_printf(m, ",tcp=%u",')
               ).verdict == "equivalent"
    assert run(old, old.replace(",%s", ", %s")).verdict == "divergent"
    zero = printing("foo_tcp_trans.owner ? \"x\" : \"y\"")
    assert run(zero, zero.replace('foo_tcp_trans.owner ? "x" : "y"', '"y"')).verdict == "equivalent"
    for read, field in ((printing("foo_tcp_trans.maxsize ? \"x\" : \"y\""), "field .maxsize"),
                        (printing("foo_tcp_trans.name", P9_TRANS.replace('.name = "tcp",', '"tcp", 0,')),
                         "struct foo_trans_module of a table is not defined")):
        verdict, reason = verdict_and_reason(read, read.replace(",%s", ", %s"))
        assert verdict == "inconclusive" and field in reason, reason


def test_a_list_in_a_global_of_an_undefined_struct_is_walked_and_its_lock_only_addressed():
    """iso_debugfs_show's shape: `static struct foo_sock_list foo_sk_list = { .lock = ... };` with
    the struct in a header: `read_lock(&foo_sk_list.lock)` takes the address of a field whose
    value is not known (reading nothing), `sk_for_each(sk, &foo_sk_list.head)` walks rows of the
    caller's data."""
    before = "static struct foo_sock_list foo_sk_list = {\n\t.lock = __RW_LOCK_UNLOCKED(foo_sk_list.lock)\n};\n"
    body = ('\tstruct sock *sk;\n\n\tread_lock(&foo_sk_list.lock);\n\tsk_for_each(sk, &foo_sk_list.head) {\n'
            '\t\tseq_printf(m, "%pMR %d\\n", &sk->src, sk->sk_state);\n\t}\n\tread_unlock(&foo_sk_list.lock);\n')
    old = show(body, before)
    split = old.replace('seq_printf(m, "%pMR %d\\n", &sk->src, sk->sk_state);',
                        'seq_printf(m, "%pMR ", &sk->src);\n\t\tseq_printf(m, "%d\\n", sk->sk_state);')
    assert run(old, split).verdict == "equivalent"
    assert run(old, old.replace("%pMR %d", "%pMR %3d")).verdict == "divergent"


def test_a_call_whose_prototype_gives_its_type_is_no_undeclared_input():
    """`unsigned int foo_count(int cpu);` declares what the call returns: `%10u` of it against a
    64-bit primitive is proven (was inconclusive: "the type of foo_count(3) is not declared");
    without the prototype it is not."""
    proto = "unsigned int foo_count(int cpu);\n\n"
    old = show('\tseq_printf(m, "%10u\\n", foo_count(3));\n')
    new = show('\tseq_put_decimal_ull_width(m, "", foo_count(3), 10);\n\tseq_putc(m, \'\\n\');\n')
    assert run(proto + old, proto + new).verdict == "equivalent"
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive" and "the type of foo_count(3) is not declared" in reason, reason


# -- the caller's data read through two struct types -------------------------------------------

TWO_TYPES = ("struct foo_stats { int nr; int cnt; unsigned int total; };\n"
             "struct bar_stats { unsigned int total; unsigned int extra; };\n")


def test_one_pointer_read_as_two_struct_types_is_never_equivalent():
    """`v->total` through a foo_stats is 8 bytes in, through a bar_stats 0: the model's path
    names both `v->total`, and once named it was "equivalent, proven"."""
    old = show('\tstruct foo_stats *s = v;\n\n\tseq_printf(m, "%u\\n", s->total);\n', TWO_TYPES)
    new = show('\tstruct bar_stats *b = v;\n\n\tseq_printf(m, "%u\\n", b->total);\n', TWO_TYPES)
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "struct foo_stats" in reason and "struct bar_stats" in reason
    verdict, _ = verdict_and_reason(new, old)
    assert verdict == "inconclusive"


def test_a_local_copied_whole_from_another_struct_type_is_never_equivalent():
    old = show('\tstruct foo_stats s;\n\n\tmemcpy(&s, v, sizeof(s));\n\tseq_printf(m, "%u\\n", s.total);\n',
               TWO_TYPES)
    new = show('\tstruct bar_stats *b = v;\n\n\tseq_printf(m, "%u\\n", b->total);\n', TWO_TYPES)
    assert run(old, new).verdict == "inconclusive"


def test_the_same_struct_through_a_typedef_a_cast_or_a_member_address_stays_equivalent():
    """The check compares struct tags, so the spellings of one type agree; `p = &o->s; p->total`
    reads `o->s.total`, one object under one name."""
    defs = TWO_TYPES + "typedef struct foo_stats foo_stats_t;\nstruct outer { int a; struct foo_stats s; };\n"
    plain = show('\tstruct foo_stats *s = v;\n\n\tseq_printf(m, "%u\\n", s->total);\n', defs)
    for body in ('\tfoo_stats_t *t = v;\n\n\tseq_put_decimal_ull(m, "", t->total);\n\tseq_putc(m, \'\\n\');\n',
                 '\tseq_printf(m, "%u\\n", ((struct foo_stats *)v)->total);\n'):
        assert run(plain, show(body, defs)).verdict == "equivalent"
    outer = show('\tstruct outer *o = v;\n\n\tseq_printf(m, "%d %u\\n", o->a, o->s.total);\n', defs)
    inner = show('\tstruct outer *o = v;\n\tstruct foo_stats *p = &o->s;\n\n'
                 '\tseq_printf(m, "%d %u\\n", o->a, p->total);\n', defs)
    assert run(outer, inner).verdict == "equivalent"


def test_elements_of_two_widths_at_one_index_are_never_equivalent():
    """`a[1]` of a `u32 *` is bytes 4..7, of a `u64 *` bytes 8..15; both are `v[1]` to the model."""
    old = show('\tu32 *a = v;\n\n\tseq_printf(m, "%u\\n", a[1]);\n')
    new = show('\tu64 *b = v;\n\n\tseq_printf(m, "%u\\n", (u32)b[1]);\n')
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "32-bit" in reason and "64-bit" in reason
    wide = show('\tseq_printf(m, "%llu\\n", *(u64 *)v);\n')
    narrow = show('\tseq_printf(m, "%llu\\n", (unsigned long long)*(u32 *)v);\n')
    assert run(narrow, wide).verdict == "inconclusive"
    signed = show('\ts32 *b = v;\n\n\tseq_printf(m, "%u\\n", (u32)b[1]);\n')
    assert run(old, signed).verdict == "equivalent"  # one width, the same bytes


def test_a_loop_over_elements_of_two_widths_is_never_proven():
    """The proof reads the elements at a placeholder index (`v[#0]`), the check with them."""
    old = show('\tu32 *a = v;\n\tint i, n = nr_foo();\n\n\tfor (i = 0; i < n; i++)\n'
               '\t\tseq_printf(m, " %u", a[i]);\n\tseq_putc(m, \'\\n\');\n')
    new = show('\tu64 *b = v;\n\tint i, n = nr_foo();\n\n\tfor (i = 0; i < n; i++)\n'
               '\t\tseq_printf(m, " %u", (u32)b[i]);\n\tseq_putc(m, \'\\n\');\n')
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive" and "64-bit" in reason  # was "equivalent, proven"


def test_a_type_dependent_verdict_names_the_operand_whose_type_changed():
    """`v->x << 1` printed by %lu is 64 bits wide in every judgement; the verdict changes with
    v->y's type, and the reason must say so (it said 'equivalent when it is u64, divergent when
    it is u64' of v->x: shmem_show_options)."""
    old = show('\tseq_printf(m, "%lu %llu\\n", v->x << 1, (u64)v->y * 2);\n')
    new = show('\tseq_put_decimal_ull(m, "", v->x << 1);\n\tseq_put_decimal_ull(m, " ", v->y * 2);\n'
               '\tseq_putc(m, \'\\n\');\n')
    verdict, reason = verdict_and_reason(old, new)
    assert verdict == "inconclusive"
    assert "the type of v->y" in reason and "when it is u64" in reason and "when it is u32" in reason



# p9_fd_show_options' shape, as the mutants found it (n15m): a d-for-u mutant of an int member of
# a member struct was "equivalent, tested"; the member was typed by the `%u` printing it (u32),
# whose sweep never holds a negative value other than the -1 the row leaves out
FD_SHOW = """struct foo_mod { int x; };
struct foo_fds { int rfd; int wfd; };
struct foo_client { struct foo_mod *mod; FDS_MEMBER; };
static struct foo_mod tcp_mod;
static struct foo_mod fd_mod;

static int t_show(struct seq_file *m, struct foo_client *clnt)
{
	if (clnt->mod == &tcp_mod) {
		seq_printf(m, ",port");
	} else if (clnt->mod == &fd_mod) {
		if (clnt->opts.rfd != ~0)
			seq_printf(m, ",rfd=%u", clnt->opts.rfd);
		if (clnt->opts.wfd != ~0)
			seq_printf(m, ",wfd=%u", clnt->opts.wfd);
	}
	return 0;
}
"""


def test_a_member_of_a_nested_struct_has_its_declared_type():
    old = FD_SHOW.replace("FDS_MEMBER", "struct foo_fds opts")
    assert run(old, old.replace(",rfd=%u", ",rfd=%d")).verdict == "divergent"
    assert run(old, old).verdict == "equivalent"


def test_an_undeclared_value_printed_signed_on_one_side_and_unsigned_on_the_other_is_not_equivalent():
    """The member struct is anonymous, which the model does not type: the `%u`/`%d` pair must
    not be equivalent on the unsigned hint alone."""
    old = FD_SHOW.replace("FDS_MEMBER", "struct { int rfd; int wfd; } opts")
    verdict, reason = verdict_and_reason(old, old.replace(",rfd=%u", ",rfd=%d"))
    assert verdict != "equivalent"
    if verdict == "inconclusive":
        assert "signed on one side and unsigned on the other" in reason
