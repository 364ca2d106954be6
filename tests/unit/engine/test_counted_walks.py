"""Loops over the caller's arrays whose size the code does not give (issue #15's corpus: ax25's
digipeater lists, can's receive lists, the zones of a node walked by pointer).

Drawn over its whole type, such a loop's count named a new input per iteration until every case
at the count's extremes went over a per-case bound, and the verdict was inconclusive. Two rules:

- a loop counter that indexes an array of the caller's data of unknown size, in a `for` whose
  bound is data (a member, a variable), reads at most --star-max elements: a count past them
  reads past the array's end, undefined behaviour, and such a case is skipped (the note says so);
- two pointers into one array (`zone - node_zones`) are as many elements apart as C says, so a
  macro the input does not define bounds a walk by pointer as it bounds a counter (0..star_max).

Every snippet is C written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.common.options import Options

HOPS = """struct digi { unsigned int ndigi; unsigned long *hops; };

static void digi_show(struct seq_file *seq, struct digi *d)
{
	int k;

	for (k = 0; k < d->ndigi; k++) {
		PRINT
	}
	seq_putc(seq, '\\n');
}
"""
HOP = 'seq_printf(seq, " %lu", d->hops[k]);'
SPLIT = 'seq_put_decimal_ull(seq, " ", d->hops[k]);'


def searched(old: str, new: str):
    """The search alone (what the corpus's unproven printers get)."""
    (result,) = verify_sources(old, new, Options(max_examples=30, proof=False)).results
    return result


def hops(body: str, template: str = HOPS) -> str:
    return template.replace("PRINT", body)


def test_a_walk_over_an_array_of_unknown_size_is_tested_up_to_star_max() -> None:
    result = searched(hops(HOP), hops(SPLIT))
    assert result.verdict == "equivalent", result.reason
    assert any("d->hops, an array of unknown size taken to hold 16 elements (--star-max)" in n
               for n in result.notes), result.notes


def test_a_separator_moved_inside_the_walk_stays_divergent() -> None:
    slip = SPLIT.replace('seq_put_decimal_ull(seq, " ",', 'seq_put_decimal_ull(seq, k ? " " : "",')
    assert searched(hops(HOP), hops(slip)).verdict == "divergent"


def test_a_walk_the_other_side_stops_short_of_is_not_equivalent() -> None:
    """Past the assumed size one side is undefined and the other is not: no "equivalent"."""
    short = HOPS.replace("k < d->ndigi", "k < d->ndigi && k < 16")
    result = searched(hops(HOP), hops(HOP, short))
    assert result.verdict != "equivalent"


def test_an_array_of_known_size_keeps_its_size() -> None:
    sized = HOPS.replace("unsigned long *hops;", "unsigned long hops[8];").replace("k < d->ndigi", "k < d->ndigi && k < 8")
    result = searched(hops(HOP, sized), hops(SPLIT, sized))
    assert result.verdict == "equivalent", result.reason
    assert not any("unknown size" in n for n in result.notes)


def test_a_constant_bound_reads_every_element() -> None:
    """A loop to a constant is no count of the caller's: its 20 elements are all read, so a
    difference at the 19th is found."""
    old = hops(HOP, HOPS.replace("k < d->ndigi", "k < 20"))
    late = 'if (k == 18) seq_putc(seq, \' \');\n\t\t' + SPLIT
    result = searched(old, hops(late, HOPS.replace("k < d->ndigi", "k < 20")))
    assert result.verdict == "divergent"


def test_an_index_that_is_no_counter_is_read_at_every_value() -> None:
    """`names[r->state]` with the state printed: a state past 16 is a case like any other, so
    `%u` against `%d` still differs from 2^31 on."""
    old = 'static void state_show(struct seq_file *m, struct route *r)\n{\n' \
          '\tseq_printf(m, "%s %u\\n", r->names[r->state], r->state);\n}\n'
    result = searched(old, old.replace("%s %u", "%s %d"))
    assert result.verdict == "divergent"


ZONES = """static void zones_show(struct seq_file *m, pg_data_t *pgdat)
{
	struct zone *zone;
	struct zone *node_zones = pgdat->node_zones;
	long i = 0;

	for (zone = node_zones; zone - node_zones < MAX_NR_ZONES; ++zone) {
		if (!populated_zone(zone))
			continue;
		PRINT
	}
}
"""
BY_DISTANCE = 'seq_printf(m, "zone %ld %s\\n", (long)(zone - node_zones), zone->name);'
BY_COUNTER = 'seq_printf(m, "zone %ld %s\\n", i, zone->name);\n\t\ti++;'


def test_a_walk_by_pointer_to_a_config_macro_is_tested_over_a_stated_range() -> None:
    split = 'seq_puts(m, "zone ");\n\t\tseq_put_decimal_ll(m, "", (long)(zone - node_zones));\n' \
            '\t\tseq_printf(m, " %s\\n", zone->name);'
    result = searched(ZONES.replace("PRINT", BY_DISTANCE), ZONES.replace("PRINT", split))
    assert result.verdict == "equivalent", result.reason
    assert any("MAX_NR_ZONES bounding a loop range over 0..16" in n for n in result.notes), result.notes


def test_the_distance_of_two_pointers_into_one_array_is_their_index() -> None:
    """`zone - node_zones` is the zone's index: the same as a counter of every zone, and not
    the same as one of the zones printed (the `continue` skips the counter)."""
    every = ZONES.replace("\t\tif (!populated_zone(zone))\n\t\t\tcontinue;\n", "")
    result = searched(every.replace("PRINT", BY_DISTANCE), every.replace("PRINT", BY_COUNTER))
    assert result.verdict == "equivalent", result.reason
    assert searched(ZONES.replace("PRINT", BY_DISTANCE), ZONES.replace("PRINT", BY_COUNTER)).verdict == "divergent"


def test_pointers_into_two_arrays_are_no_fixed_distance_apart() -> None:
    old = 'static void gap_show(struct seq_file *m, struct pair *p)\n{\n' \
          '\tstruct item *a = p->left, *b = p->right;\n\n\tseq_printf(m, "%ld\\n", (long)(a - b));\n}\n'
    result = searched(old, old.replace('(long)(a - b)', '0L'))
    assert result.verdict != "equivalent"  # (inconclusive: only one side reads a and b)
