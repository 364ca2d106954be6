"""A divergence of the default parse (the first branch of every #if) that takes a macro both ways
is no configuration's; it is judged again in the build that takes every macro one way, the way
its first test did (mm/slab.c of 6.1: `#ifndef CONFIG_NUMA` among the definitions, `#ifdef
CONFIG_NUMA` further on, and a width slip in slabinfo_show_stats's `#if STATS` rows was
"inconclusive: a parse that takes CONFIG_NUMA both ways"). C written for these tests.
"""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

HEAD = """struct cache { unsigned long allocs; };

#ifndef CONFIG_NUMA
#define LEVEL 1
#else
#define LEVEL 2
#endif

#ifdef CONFIG_NUMA
static int numa_nodes = 4;
#endif

#ifdef CONFIG_DEBUG_CACHE
#define STATS 1
#else
#define STATS 0
#endif

"""


def show(body: str) -> str:
    return HEAD + f"static int show(struct seq_file *m, void *v)\n{{\n\tstruct cache *c = v;\n\n{body}\treturn 0;\n}}\n"


def verdict(old: str, new: str):
    report = verify_sources(old, new, Options(max_examples=30))
    assert len(report.results) == 1
    return report.results[0]


def test_a_width_slip_in_a_file_whose_default_parse_takes_a_macro_both_ways_is_divergent() -> None:
    body = '#if STATS\n\tseq_printf(m, " : globalstat %7lu\\n", c->allocs);\n#endif\n'
    result = verdict(show(body), show(body.replace("%7lu", "%8lu")))
    assert result.verdict == "divergent", result.reason
    assert "takes `CONFIG_NUMA` one way" in result.notes[0]


def test_a_difference_no_configuration_shows_stays_inconclusive() -> None:
    """In the default parse LEVEL is 1 and the CONFIG_NUMA row is compiled: "1" against "2". In a
    real build either the row is not compiled (NUMA off) or LEVEL is 2 (NUMA on): never divergent."""
    old = show('#ifdef CONFIG_NUMA\n\tseq_printf(m, "%d\\n", LEVEL);\n#endif\n')
    new = show('#ifdef CONFIG_NUMA\n\tseq_puts(m, "2\\n");\n#endif\n')
    result = verdict(old, new)
    assert result.verdict == "inconclusive", result.verdict
    assert "both ways" in (result.reason or "")
