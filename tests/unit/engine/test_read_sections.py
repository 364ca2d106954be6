"""Read sections, `do { start = u64_stats_fetch_begin(&s->syncp); ... } while
(u64_stats_fetch_retry(&s->syncp, start));` (fmtcheck.c.statements.read_section): run once, as the
last pass the kernel keeps, instead of drawing the retry test (a drawn `true` retried forever, to
the step bound: net/netfilter/ipvs/ip_vs_ctl.c ip_vs_stats_percpu_show, block/blk-cgroup.c
blkcg_print_one_stat). A section whose passes are not all alike (it prints, stores, or carries
a value into its next pass) is named, never run once."""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import Runner, side_of, verify_sources


def percpu_show(section: str, out: str, retry: str = "u64_stats_fetch_retry_irq") -> str:
    return ("static int foo_stats_percpu_show(struct seq_file *seq, void *v)\n{\n"
            "\tstruct foo_stats *tot = seq->private;\n\tint i;\n\n"
            "\tfor_each_possible_cpu(i) {\n"
            "\t\tstruct foo_cpu_stats *u = per_cpu_ptr(tot->cpustats, i);\n"
            "\t\tunsigned int start;\n\t\tu64 conns, inpkts;\n\n"
            "\t\tdo {\n\t\t\tstart = u64_stats_fetch_begin_irq(&u->syncp);\n"
            f"{section}\t\t}} while ({retry}(&u->syncp, start));\n\n{out}\t}}\n\treturn 0;\n}}\n")


READS = "\t\t\tconns = u64_stats_read(&u->cnt.conns);\n\t\t\tinpkts = u64_stats_read(&u->cnt.inpkts);\n"
ONE = '\t\tseq_printf(seq, "%3X %8LX %8LX\\n", i, (u64)conns, (u64)inpkts);\n'
SPLIT = ('\t\tseq_printf(seq, "%3X", i);\n\t\tseq_printf(seq, " %8LX", (u64)conns);\n'
         '\t\tseq_printf(seq, " %8LX", (u64)inpkts);\n\t\tseq_putc(seq, \'\\n\');\n')


def proof(old: str, new: str) -> tuple[bool, str | None]:
    units = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace(16)
    for unit in units:
        collect_hints(unit, space)
    sides = [side_of(unit, space, "foo_stats_percpu_show", label) for unit, label in zip(units, ("old", "new"))]
    return Runner(*sides).prove()


def verdict(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=20)).results[0]


def test_a_read_section_in_a_cpu_loop_is_proven():
    old, new = percpu_show(READS, ONE), percpu_show(READS, SPLIT)
    assert proof(old, new) == (True, None)
    result = verdict(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_a_read_section_of_a_seqcount_outside_a_loop_is_tested_to_the_end():
    def show(out: str) -> str:
        return ("static void foo_print_stat(struct seq_file *s, struct foo_iostat *bis)\n{\n"
                "\tunsigned int seq;\n\tu64 rbytes, wbytes;\n\n"
                "\tdo {\n\t\tseq = read_seqcount_begin(&bis->seq);\n"
                "\t\trbytes = bis->cur.bytes[0];\n\t\twbytes = bis->cur.bytes[1];\n"
                "\t} while (read_seqcount_retry(&bis->seq, seq));\n\n"
                f"\tif (rbytes || wbytes)\n{out}}}\n")
    old = show('\t\tseq_printf(s, "rbytes=%llu wbytes=%llu", rbytes, wbytes);\n')
    new = show('\t{\n\t\tseq_put_decimal_ull(s, "rbytes=", rbytes);\n'
               '\t\tseq_put_decimal_ull(s, " wbytes=", wbytes);\n\t}\n')
    assert verdict(old, new).verdict == "equivalent"
    wrong = show('\t\tseq_printf(s, "rbytes=%llu wbytes=%llu", wbytes, rbytes);\n')
    assert verdict(old, wrong).verdict == "divergent"


def test_another_field_read_in_the_section_is_divergent():
    old, new = percpu_show(READS, ONE), percpu_show(READS, SPLIT.replace("(u64)conns", "(u64)inpkts"))
    assert verdict(old, new).verdict == "divergent"


def test_a_section_that_prints_is_named_never_run_once():
    printing = READS + '\t\t\tseq_puts(seq, "x");\n'
    result = verdict(percpu_show(printing, ONE), percpu_show(printing, SPLIT))
    assert result.verdict == "inconclusive"
    assert "read section retried by u64_stats_fetch_retry_irq() whose body prints" in result.reason
    assert result.location is not None and result.location.line == 11, result.reason


def test_a_section_that_carries_a_value_into_its_next_pass_is_named():
    """`conns += ...` in the section adds each retried pass: the last pass alone is not what
    the kernel prints, so running it once would be an assumption."""
    carried = READS.replace("conns = u64", "conns += u64")
    old = percpu_show(carried, ONE).replace("u64 conns, inpkts;", "u64 conns = 0, inpkts;")
    new = percpu_show(carried, SPLIT).replace("u64 conns, inpkts;", "u64 conns = 0, inpkts;")
    result = verdict(old, new)
    assert result.verdict == "inconclusive" and "carries a value into its next pass" in result.reason, result.reason


def test_a_do_while_on_another_call_is_no_read_section():
    old = percpu_show(READS, ONE, retry="foo_stats_busy")
    assert proof(old, percpu_show(READS, SPLIT, retry="foo_stats_busy"))[0] is False


# -- a local struct holding inputs, passed to an uninterpreted call (ip_vs_copy_stats) --------

def estimator_show(diff: str, out: str) -> str:
    return ("static int foo_stats_show(struct seq_file *seq, void *v)\n{\n"
            "\tstruct foo_stats *s = seq->private;\n\tstruct foo_kstats k;\n\n"
            f"\tk.conns = {diff};\n\tfoo_read_estimator(&k, s);\n{out}\treturn 0;\n}}\n")


def test_a_struct_holding_inputs_names_the_call_it_is_passed_to_by_their_expressions():
    old = estimator_show("s->kstats.conns - s->kstats0.conns", '\tseq_printf(seq, "%8LX %8LX\\n", k.conns, k.cps);\n')
    new = estimator_show("s->kstats.conns - s->kstats0.conns",
                         '\tseq_printf(seq, "%8LX", k.conns);\n\tseq_printf(seq, " %8LX\\n", k.cps);\n')
    result = verdict(old, new)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_a_struct_holding_other_inputs_is_another_argument():
    old = estimator_show("s->kstats.conns - s->kstats0.conns", '\tseq_printf(seq, "%8LX\\n", k.cps);\n')
    new = estimator_show("s->kstats0.conns - s->kstats.conns", '\tseq_printf(seq, "%8LX\\n", k.cps);\n')
    assert verdict(old, new).verdict == "divergent"
