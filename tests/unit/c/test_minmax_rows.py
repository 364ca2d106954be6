"""min/max/clamp (and the _t forms) of a value of the inputs, in the proof (issue 15): the choice
over the comparison (`calls.pick_value`, an `ite` tree), where a Python comparison of a symbol
stopped the proof ('a comparison depends on an input': /proc/net/tcp rows' rx_queue =
max_t(int, rcv_nxt - copied_seq, 0)). Look-alikes in another type or with min for max stay
divergent. C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

ROW = """struct tsk { int state; unsigned int backlog, rcv_nxt, copied_seq; };

static void get_row(struct seq_file *f, struct tsk *sk)
{
	int rx_queue;
	int state = READ_ONCE(sk->state);

	if (state == 10)
		rx_queue = READ_ONCE(sk->backlog);
	else
		rx_queue = max_t(int, READ_ONCE(sk->rcv_nxt) - READ_ONCE(sk->copied_seq), 0);
	seq_printf(f, "%02X %08X\\n", state, rx_queue);
}

static int rows_show(struct seq_file *m, void *v)
{
	get_row(m, v);
	return 0;
}
"""

SPLIT = ROW.replace('\tseq_printf(f, "%02X %08X\\n", state, rx_queue);',
                    '\tseq_printf(f, "%02X ", state);\n\tseq_printf(f, "%08X\\n", rx_queue);')


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_max_of_inputs_is_proven():
    assert SPLIT != ROW
    result = judge(ROW, SPLIT)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_a_max_in_another_type_or_a_min_is_divergent():
    unsigned = SPLIT.replace("max_t(int,", "max_t(unsigned int,")
    smaller = SPLIT.replace("max_t(int,", "min_t(int,")
    assert unsigned != SPLIT and smaller != SPLIT
    assert judge(ROW, unsigned).verdict == "divergent"
    assert judge(ROW, smaller).verdict == "divergent"


def test_a_clamp_of_an_input_is_proven_and_its_bounds_matter():
    clamped = ROW.replace("max_t(int, READ_ONCE(sk->rcv_nxt) - READ_ONCE(sk->copied_seq), 0)",
                          "clamp_t(int, READ_ONCE(sk->rcv_nxt), 0, 100)")
    split = SPLIT.replace("max_t(int, READ_ONCE(sk->rcv_nxt) - READ_ONCE(sk->copied_seq), 0)",
                          "clamp_t(int, READ_ONCE(sk->rcv_nxt), 0, 100)")
    wider = split.replace("0, 100)", "0, 101)")
    assert clamped != ROW and split != SPLIT and wider != split
    result = judge(clamped, split)
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)
    assert judge(clamped, wider).verdict == "divergent"
