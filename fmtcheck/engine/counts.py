"""Loop counts in the search: which inputs bound a counted loop, and which cases are not worth
running once the rewrite is known to differ.

A counted loop (`for (i = 0; i < s->n; i++)`) that the proof could not take by induction is
tested, and the planned search gives its bound every digit length up to the type's maximum.
Past the step bound such a case ends at once (`fmtcheck.c.rows.past_the_step_bound`); below it,
a case of 100,000 iterations costs about a second even compiled. Once a difference is found,
the verdict is settled (divergent) and the smallest counterexample comes from the small cases;
a case that runs a loop more than `MAX_COUNT_AFTER_DIVERGENCE` times (nested: in all) would print the same
body again, so it is left out (a difference only such a count shows, as a counter printed in a
too narrow field, may then go unreported beside the one found; the verdict stays the same).
"""

from __future__ import annotations

from typing import Any

from fmtcheck.engine.fastpath import tree_keys

MAX_COUNT_AFTER_DIVERGENCE = 16


def loop_bounds(traces: tuple[list, list] | None) -> frozenset[str]:
    """The inputs the count of a counted loop reads, in either trace."""
    found: set[str] = set()

    def walk(items) -> None:
        for item in items:
            if not isinstance(item, tuple) or not item:
                continue
            if item[0] == "loop":
                if len(item) > 3 and item[3][0] != "chain":
                    found.update(tree_keys(item[3][0]))
                walk(item[2])
            elif item[0] == "if":
                walk(item[2])
                walk(item[3])

    for trace in traces or ():
        walk(trace)
    return frozenset(found)


def too_long_after_divergence(values: dict[str, Any], bounds: frozenset[str]) -> bool:
    """Whether the counts a case gives the loops' bounds multiply past MAX_COUNT_AFTER_DIVERGENCE
    (loops may nest), or one is negative (which an unsigned comparison reads as huge)."""
    product = 1
    for key in bounds:
        value = values.get(key)
        if type(value) is int:
            if value < 0:
                return True
            product *= max(value, 1)
            if product > MAX_COUNT_AFTER_DIVERGENCE:
                return True
    return False
