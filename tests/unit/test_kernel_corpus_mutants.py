"""Mutants of the kernel corpus benchmark: made wherever they apply, excluded only for a reason
the script shows itself from the code (never from fmtcheck's verdict).

Why: a kill rate is only honest if a mutant that survives is listed as a survivor unless it cannot
change bytes, and "cannot" must come from the code (types, vsprintf rules), not from a list of
known survivors. The C below is written for these tests in the kernel's style.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.kernel_corpus import _parser, find_printers
from benchmarks.kernel_mutants import make_mutants
from benchmarks.kernel_rewrite import function_node

SHOW = """
typedef unsigned long long u64;
typedef u64 sector_t;
typedef long long loff_t;
struct part;

static inline sector_t part_sectors(struct part *p)
{
	return p->nr;
}

static inline loff_t part_offset(struct part *p)
{
	return p->off;
}

static int show(struct seq_file *m, void *v)
{
	struct part *p = v;
	unsigned short small = p->s;

	seq_printf(m, "%10llu %10llu %u %hu %u\\n", part_sectors(p) >> 1, part_offset(p) >> 1,
		   small, p->h, p->flags & 0xff);
	seq_printf(m, "%-5d %08.3d %*d\\n", p->a, p->b, 4, p->c);
	return 0;
}
"""


def _mutants(tmp_path: Path, source: str):
    (tmp_path / "show.c").write_text(source)
    printer = next(p for p in find_printers(tmp_path, ["show.c"]) if p.name == "show")
    src = source.encode()
    return make_mutants(src, printer, function_node(_parser().parse(src).root_node, printer), str(tmp_path))


def _by(mutants, op: str, conversion: str) -> list:
    return [m for m in mutants if m.operator == op and f": {conversion} (" in m.site]


def test_d_for_u_of_an_unsigned_call_shifted_right_cannot_change_bytes(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    shifted = [m for m in mutants if m.operator == "d-for-u" and "(conversion 1)" in m.site]
    assert shifted and "part_sectors returns sector_t = u64" in shifted[0].cannot_change
    assert shifted[0].text is not None  # still made and judged


def test_d_for_u_of_a_signed_call_shifted_right_is_a_real_mutant(tmp_path: Path) -> None:
    signed = [m for m in _mutants(tmp_path, SHOW) if m.operator == "d-for-u" and "(conversion 3)" in m.site]
    assert signed and signed[0].cannot_change is None


def test_narrow_unsigned_locals_and_masks_cannot_change_but_a_short_conversion_can(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in mutants if m.operator == "d-for-u"}
    assert "unsigned 16-bit" in reasons["%u (conversion 5)"]  # `unsigned short small`
    assert reasons["%hu (conversion 7)"] is None  # %hd of 40000 is -25536
    assert "masked by 0xff" in reasons["%u (conversion 9)"]


def test_a_signed_typedef_declared_twice_differently_is_not_trusted(tmp_path: Path) -> None:
    source = SHOW.replace("typedef u64 sector_t;", "typedef u64 sector_t;\ntypedef long sector_t;")
    shifted = [m for m in _mutants(tmp_path, source) if m.operator == "d-for-u" and "(conversion 1)" in m.site]
    assert shifted[0].cannot_change is None


def test_zero_padding_is_made_with_a_precision_and_a_star_width_and_excluded_when_left_justified(
        tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    assert [m.cannot_change for m in _by(mutants, "zero-padding", "%-5d")] == [
        "left-justified: '-' cancels '0' (lib/vsprintf.c number())"]
    assert _by(mutants, "zero-padding", "%08.3d") == []  # already zero-padded: no mutant
    star = _by(mutants, "zero-padding", "%*d")
    assert star and star[0].cannot_change is None and b'"%-5d %08.3d %0*d\\n"' in star[0].text


TRUTHS = """
#define SZ_1K 0x00000400
#define ONE 1
#define TWICE 2
#define TWICE 3
struct node { struct node *next; };

static int truths(struct seq_file *m, void *v)
{
	struct node *n = v;
	unsigned long total = n->t;
	long signed_total = n->s;
	unsigned int small = n->u;

	seq_printf(m, "%10u %u %lu %u %u\\n", !n->next, small == 3, !n->next, small > 2 ? 1 : 0,
		   small > 2 ? 1 : n->u);
	seq_printf(m, "%8lu %8lu %8lu %8lu %8lu\\n", total / SZ_1K, total / ONE, signed_total / SZ_1K,
		   total / TWICE, total >> 1);
	seq_printf(m, "%3s|%2s|%3s|%3s|%3.2s|%2s|%s\\n", "cid", n->next ? "yes" : "no", n->name,
		   n->next ? "yes" : "no", "cid", "a\\0bc", "x");
	return 0;
}
"""


def _reasons(tmp_path: Path, op: str) -> dict[str, str | None]:
    mutants = _mutants(tmp_path, TRUTHS.replace("static int truths", "static int show"))
    return {m.site.split(": ", 1)[1]: m.cannot_change for m in mutants if m.operator == op}


def test_d_for_u_of_a_not_a_comparison_or_a_choice_of_small_literals_cannot_change_bytes(tmp_path: Path) -> None:
    reasons = _reasons(tmp_path, "d-for-u")
    assert "logical not" in reasons["%10u (conversion 1)"]
    assert "comparison '=='" in reasons["%u (conversion 3)"]
    assert "either arm of ?:" in reasons["%u (conversion 7)"]


def test_d_for_u_of_a_not_read_as_64_bits_or_a_choice_with_an_input_arm_is_a_real_mutant(tmp_path: Path) -> None:
    reasons = _reasons(tmp_path, "d-for-u")
    assert reasons["%lu (conversion 5)"] is None  # an int read as 64 bits: not shown below 2^63
    assert reasons["%u (conversion 9)"] is None  # n->u may be 2^31 or more


def test_d_for_u_of_an_unsigned_divided_by_a_macro_of_two_or_more_cannot_change_bytes(tmp_path: Path) -> None:
    reasons = _reasons(tmp_path, "d-for-u")
    assert "divided by 1024" in reasons["%8lu (conversion 1)"]
    assert "shifted right by 1" in reasons["%8lu (conversion 9)"]


def test_d_for_u_divided_by_one_of_a_signed_value_or_by_a_macro_defined_twice_is_a_real_mutant(
        tmp_path: Path) -> None:
    reasons = _reasons(tmp_path, "d-for-u")
    assert reasons["%8lu (conversion 3)"] is None  # / 1 keeps every value
    assert reasons["%8lu (conversion 5)"] is None  # a long: negative values print differently
    assert reasons["%8lu (conversion 7)"] is None  # TWICE is 2 or 3: not one number


def test_a_width_on_a_string_literal_at_least_as_long_as_both_widths_cannot_change_bytes(tmp_path: Path) -> None:
    minus, plus = _reasons(tmp_path, "width-1"), _reasons(tmp_path, "width+1")
    assert "at least 3 bytes" in minus["%3s (conversion 1)"]  # "cid": %2s and %3s print it whole
    assert "either string literal" in minus["%2s (conversion 3)"]  # "yes"/"no" against %1s
    assert plus["%3s (conversion 1)"] is None  # %4s pads "cid"


def test_a_width_a_literal_does_not_fill_is_a_real_mutant(tmp_path: Path) -> None:
    minus, plus = _reasons(tmp_path, "width-1"), _reasons(tmp_path, "width+1")
    assert minus["%3s (conversion 5)"] is None  # n->name: any length
    assert minus["%3s (conversion 7)"] is None  # "no" is padded by %3s, not by %2s
    assert minus["%3.2s (conversion 9)"] is None  # the precision prints 2 bytes: %3s pads, %2s does not
    assert minus["%2s (conversion 11)"] is None  # "a\0bc" prints one byte


COUNTS = """
struct item { struct list_head list; int flag; };
struct box { struct list_head a, b; int n; };

static int show(struct seq_file *m, void *v)
{
	struct box *bx = v;
	struct item *it, *jt;
	unsigned long plain = 0, flagged, nested = 0, twice = 0, byloop = 0, addr = 0, rcu = 0, paren = 0;
	unsigned int narrow = 0;
	unsigned long unset;
	static unsigned long kept;

	flagged = 0;
	list_for_each_entry(it, &bx->a, list)
		plain++;
	list_for_each_entry(it, &bx->a, list) {
		if (it->flag)
			flagged += 1;
		list_for_each_entry(jt, &bx->b, list)
			nested++;
		twice += 2;
		narrow++;
		unset++;
		kept++;
		(paren)++;
	}
	for (int i = 0; i < bx->n; i++)
		byloop++;
	list_for_each_entry(it, &bx->b, list)
		note(&addr);
	list_for_each_entry_rcu(it, &bx->b, list)
		rcu++;
	seq_printf(m, "%lu %lu %lu %lu %lu %lu %lu %u %lu %lu %lu\\n", plain, flagged, nested, twice, byloop,
		   addr, rcu, narrow, unset, kept, paren);
	return 0;
}
"""


def test_d_for_u_of_a_count_of_list_entries_from_zero_cannot_change_bytes(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, COUNTS)
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in mutants if m.operator == "d-for-u"}
    assert "a count from 0 of list entries" in reasons["%lu (conversion 1)"]  # plain++ in a walk
    assert "a count from 0 of list entries" in reasons["%lu (conversion 3)"]  # set to 0 first, += 1 under an if


def test_d_for_u_of_counts_that_can_grow_past_the_walk_or_be_written_is_a_real_mutant(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, COUNTS)
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in mutants if m.operator == "d-for-u"}
    for conversion, why in ((5, "a walk inside a walk"), (7, "+= 2"), (9, "a for loop over an input"),
                            (11, "its address escapes"), (13, "an RCU walk"), (15, "a 32-bit count"),
                            (17, "never set to 0"), (19, "a static local"), (21, "written through parentheses")):
        key = f"%{'u' if conversion == 15 else 'lu'} (conversion {conversion})"
        assert reasons[key] is None, why


def test_a_goto_in_the_function_stops_the_count_rule(tmp_path: Path) -> None:
    source = COUNTS.replace("\treturn 0;\n}", "\tgoto out;\nout:\n\treturn 0;\n}")
    mutants = _mutants(tmp_path, source)
    assert all(m.cannot_change is None for m in mutants if m.operator == "d-for-u" and "(conversion 1)" in m.site)


MEMBERS = """
typedef unsigned char u8;
struct item { struct list_head list; u8 kind; int fd; unsigned short port; };
struct twice { u8 a; struct { unsigned long a; } inner; };

static int show(struct seq_file *m, void *v)
{
	struct item *it = v;
	struct twice *t = v;
	struct item copy = *it;

	seq_printf(m, "%u %u %u %u %u\\n", it->kind, it->fd, copy.port, t->a, copy.kind);
	return 0;
}
"""


def test_d_for_u_of_a_narrow_unsigned_member_of_a_struct_the_file_defines_cannot_change_bytes(tmp_path: Path) -> None:
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in _mutants(tmp_path, MEMBERS) if m.operator == "d-for-u"}
    assert "struct item member kind is u8" in reasons["%u (conversion 1)"]
    assert "struct item member port is unsigned short" in reasons["%u (conversion 5)"]  # `.` of a local struct


def test_d_for_u_of_a_signed_member_or_a_name_two_members_share_is_a_real_mutant(tmp_path: Path) -> None:
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in _mutants(tmp_path, MEMBERS) if m.operator == "d-for-u"}
    assert reasons["%u (conversion 3)"] is None  # int fd: -2 prints differently
    assert reasons["%u (conversion 7)"] is None  # `a` is u8 and unsigned long in the body: not one type
