"""A sum a loop over constants adds to under a branch on an input (`if (n[i]) sum += f(n[i]);`,
the node-size histogram of a trie's statistics file), issue 15. In a proof each iteration is a
row; the sum after n rows was a choice over two copies of the sum before, 2^n nodes unfolded,
which anything that reads the tree (its repr, hash, rendering) walked: 32 rows ended in a
MemoryError above 1 GB. `symbolic.choose` now writes `if (c) y += d;` as y + (c ? d : 0) (the
same value for every input), and any tree is bounded in unfolded size (`symbolic.MAX_SIZE`), so
what still grows stops the proof, in work, and leaves the answer to the search. C written for
these tests in the kernel's style."""

from __future__ import annotations

import pytest

from fmtcheck.c import symbolic
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

HISTOGRAM = """#define DEPTH 32
struct tstat {
	unsigned int leaves;
	unsigned int sizes[DEPTH];
};

static void tstat_show(struct seq_file *seq, struct tstat *st)
{
	unsigned int i, top, slots;

	top = DEPTH;
	while (top > 0 && st->sizes[top - 1] == 0)
		top--;

	slots = 0;
	for (i = 1; i < top; i++)
		if (st->sizes[i] != 0) {
			seq_printf(seq, "  %u: %u", i, st->sizes[i]);
			slots += (1 << i) * st->sizes[i];
		}
	seq_printf(seq, "\\n\\tSlots: %u\\n", slots);
}
"""

SPLIT = HISTOGRAM.replace(
    'seq_printf(seq, "  %u: %u", i, st->sizes[i]);',
    'seq_put_decimal_ull(seq, "  ", i);\n\t\t\tseq_put_decimal_ull(seq, ": ", (unsigned int)st->sizes[i]);').replace(
    "slots", "ptrs")


def judge(old: str, new: str):
    return verify_sources(old, new, Options(max_examples=10)).results[0]


def test_a_sum_under_a_row_in_each_of_32_iterations_is_proven():
    assert SPLIT != HISTOGRAM
    result = judge(HISTOGRAM, SPLIT)
    assert result.verdict == "equivalent", result.reason
    assert result.method == "proven"


@pytest.mark.parametrize("change", [
    ("slots += (1 << i)", "slots += (2 << i)"),          # another addend
    ("if (st->sizes[i] != 0)", "if (st->sizes[i] > 1)"),  # another condition
    ("unsigned int i, top, slots;", "unsigned int i, top;\n\tunsigned char slots;"),  # a narrower sum
])
def test_a_sum_that_differs_is_divergent(change):
    old, new = change
    changed = HISTOGRAM.replace(old, new)
    assert changed != HISTOGRAM
    assert judge(HISTOGRAM, changed).verdict == "divergent"


def test_a_sum_that_only_the_other_arm_updates_is_divergent():
    """ite(c, y, y + d) is y + (c ? 0 : d), not y + (c ? d : 0)."""
    other_arm = HISTOGRAM.replace(
        '\t\t\tslots += (1 << i) * st->sizes[i];\n\t\t}',
        '\t\t} else {\n\t\t\tslots += (1 << i) * st->sizes[i];\n\t\t}')
    assert other_arm != HISTOGRAM
    both = other_arm.replace("} else {", "} else {\n\t\t\tseq_puts(seq, \"\");")
    assert judge(HISTOGRAM, other_arm).verdict == "divergent"
    assert judge(other_arm, both).verdict == "equivalent"


def test_a_choice_between_unrelated_values_is_not_folded():
    """Only `y OP d` against y folds: `y = d` against y keeps its choice (and y - d only with y
    on the left)."""
    c = symbolic.Sym.input("c", 32, False)
    y = symbolic.Sym.input("y", 32, False)
    d = symbolic.Sym.input("d", 32, False)
    assert symbolic.choose(c, d, y).tree[0] == "ite"
    assert symbolic.choose(c, d - y, y).tree[0] == "ite"
    folded = symbolic.choose(c, y - d, y).tree
    assert folded[0] == "-" and folded[1] == y.tree and folded[2][0] == "ite"


def test_a_sum_that_may_not_hold_its_type_is_not_folded():
    """Under a truncation y + 0 is y only when y already holds a value of the truncated type:
    a 64-bit y against a 32-bit sum keeps its choice."""
    c = symbolic.Sym.input("c", 32, False)
    y = symbolic.Sym.input("y", 64, False)
    d = symbolic.Sym.input("d", 32, False)
    narrow = symbolic.wrap(y + d, 32, False)
    assert symbolic.choose(c, narrow, y).tree[0] == "ite"


def test_a_tree_over_the_size_bound_stops_the_proof_not_the_machine():
    """Doubling a value 13 times unfolds to more than MAX_SIZE nodes: NotProvable, in work."""
    x = symbolic.Sym.input("x", 64, False)
    with pytest.raises(symbolic.NotProvable, match="unfolded"):
        for _ in range(13):
            x = x + x


def test_an_unsigned_count_down_to_zero_is_seen_false_by_the_search():
    """`top > 0` of an unsigned top is false exactly when top is 0: the search must see it so
    (it took `0 > x` and `x > 0` at x == 0 alike as a comparison that cannot change, and the
    all-zero case never closed the loop's condition). Judged without the proof."""
    small, split = (t.replace("#define DEPTH 32", "#define DEPTH 6") for t in (HISTOGRAM, SPLIT))
    result = verify_sources(small, split, Options(max_examples=10, proof=False)).results[0]
    assert result.verdict == "equivalent", result.reason
    assert result.method == "tested"
    shown = small.replace("\tslots = 0;", '\tseq_printf(seq, "top %u\\n", top);\n\tslots = 0;')
    assert shown != small
    at_zero = shown.replace('"top %u\\n", top)', '"top %u\\n", top + !top)')
    assert at_zero != shown
    assert verify_sources(shown, at_zero, Options(max_examples=10, proof=False)).results[0].verdict == "divergent"
