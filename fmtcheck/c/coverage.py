"""Condition coverage: which outcomes each condition over the inputs has shown during a search.

A search that never made a condition false (or never put a comparison at its boundary, `a == b`)
has not looked at the code behind it, so "no difference found" says nothing about that code. The
engine asks this module which conditions are still open, aims cases at them (`Site.case`,
`Site.keys`, `Site.operands`), and calls a tested rewrite equivalent only when none is left.

A condition is an obligation only when it depends on the inputs: it read an input while it was
evaluated, or its value changed from case to case. A condition over constants (a loop counter
against a fixed bound, a local flag) shows what it shows and asks for nothing.
"""

from __future__ import annotations

from typing import Any

MAX_SITES = 4096  # conditions tracked per side; more are left to the case budget
MAX_SITE_KEYS = 8  # input keys remembered per condition, to aim cases at it
RECENT_READS = 64 * MAX_SITE_KEYS  # how far back the reads before a comparison of locals are looked at
MAX_TABLE_ENTRIES = 256  # entries of a table indexed by an input that a search must each read


class Site:
    """One condition (an `if`, a loop test, `&&`/`||` operands) or one comparison of the code."""

    __slots__ = ("where", "text", "compare", "outcomes", "boundary", "values", "keys", "case",
                 "operands", "dependent", "order", "recent", "aim_only", "entries", "entries_seen",
                 "entries_tried", "hits")

    def __init__(self, where: str, text: str, compare: bool, order: int) -> None:
        self.where = where.split("#", 1)[0]  # FILE:LINE:COLUMN; the byte offset only keeps names apart
        self.text = text
        self.compare = compare  # a comparison must also be seen at equality
        self.outcomes: set[bool] = set()
        self.boundary = not compare  # seen with a == b (or needs no boundary)
        self.values: set[Any] = set()  # up to two distinct values: did it vary?
        self.keys: list[str] = []  # inputs read while it was evaluated
        self.recent: list[str] = []  # when it read none: the last inputs read before it, newest first
        self.case: dict[str, Any] | None = None  # the first case that reached it
        self.operands: tuple[int, int] | None = None  # (a, b) in that case
        self.dependent = False
        self.order = order
        self.aim_only = False  # a target for aimed cases, not an obligation (a table's bound)
        self.entries = 0  # a table indexed by an input: how many entries it has (each must be read)
        self.entries_seen: set[int] = set()  # entries some case read
        self.entries_tried: set[int] = set()  # entries a case aimed at them left unread (a guard kept them out)
        self.hits = 0  # evaluations seen, over all cases

    def open(self) -> bool:
        """Still asks for a case: it depends on the inputs and has not shown everything."""
        return self.dependent and (len(self.outcomes) < 2 or not self.boundary or bool(self.unread_entries()))

    def unread_entries(self) -> list[int]:
        """The entries of a table indexed by an input that no case has read yet. Two tables that
        differ in one entry print alike for every other index, so a search that never selects
        that entry has not compared them: each entry is an obligation, not only the bound."""
        return [i for i in range(self.entries) if i not in self.entries_seen and i not in self.entries_tried]

    def missing(self) -> str:
        """What it has not shown, in words."""
        unread = self.unread_entries()
        if unread:
            return f"select entry {unread[0]} of the {self.entries} ({len(unread)} never read)"
        wanted = []
        if True not in self.outcomes:
            wanted.append("true")
        if False not in self.outcomes:
            wanted.append("false")
        if not self.boundary:
            wanted.append("at its boundary (both sides equal)")
        return " or ".join(wanted)


class Coverage:
    """The sites of one side, filled as cases run (`Context.coverage`)."""

    def __init__(self) -> None:
        self.sites: dict[str, Site] = {}
        self.touched: list[Site] = []  # sites reached by the current case and not yet given one

    def site(self, where: str, text: str, compare: bool) -> Site | None:
        site = self.sites.get(where)
        if site is None:
            if len(self.sites) >= MAX_SITES:
                return None
            site = self.sites[where] = Site(where, text, compare, len(self.sites))
        return site

    def observe(self, where: str, text: str, outcome: bool, value: Any, keys: list[str],
                operands: tuple[int, int] | None = None, earlier: list[str] | None = None) -> None:
        """One evaluation: its outcome, its value (or operands), the inputs it read and (`earlier`)
        the inputs the case read before it, the likeliest sources of a local it compares."""
        site = self.site(where, text, operands is not None)
        if site is None:
            return
        if not keys and not site.keys and earlier:
            site.recent = _last_distinct(earlier, MAX_SITE_KEYS)
        site.hits += 1
        site.outcomes.add(bool(outcome))
        if operands is not None and operands[0] == operands[1]:
            site.boundary = True
        if len(site.values) < 2:
            site.values.add(operands if operands is not None else value)
        if keys:
            for key in keys:
                if key not in site.keys and len(site.keys) < MAX_SITE_KEYS:
                    site.keys.append(key)
        site.dependent = site.dependent or bool(keys) or len(site.values) > 1
        if site.case is None:
            site.operands = operands if operands is not None else (int(bool(value)), 0)
            self.touched.append(site)

    def finish_case(self, assignment: dict[str, Any]) -> None:
        """The sites the case reached for the first time remember it (to aim later cases)."""
        for site in self.touched:
            if site.case is None:
                site.case = dict(assignment)
        self.touched.clear()

    def open_sites(self, obligations: bool = False) -> list[Site]:
        """Sites still asking for a case; with `obligations`, only those a verdict needs covered."""
        return sorted((s for s in self.sites.values()
                       if s.open() and not (obligations and s.aim_only and not s.unread_entries())),
                      key=lambda s: s.order)


def where_the_search_stayed(coverages: list[Coverage]) -> str:
    """What kept a search that a budget ended going, with its line: the first condition over the
    inputs still open (what further cases were for), else the condition evaluated most often over
    all cases (the loop the cases spent their steps in); '' when no condition was seen."""
    gaps = [site for coverage in coverages for site in coverage.open_sites(obligations=True)]
    if gaps:
        first = gaps[0]
        return (f"; the condition '{first.text}' at {first.where} was not yet {first.missing()} "
                f"({len(gaps)} condition(s) open)")
    sites = [site for coverage in coverages for site in coverage.sites.values()]
    if not sites:
        return ""
    hottest = max(sites, key=lambda s: (s.hits, -s.order))
    return f"; the cases spent their steps in '{hottest.text}' at {hottest.where} ({hottest.hits:,} evaluations)"


def _last_distinct(reads: list[str], n: int) -> list[str]:
    out: list[str] = []
    for key in reversed(reads[-RECENT_READS:]):
        if key not in out:
            out.append(key)
            if len(out) == n:
                break
    return out


def reads_before(reads: list[str] | None, start: int) -> list[str] | None:
    """The reads before `start` that `observe` may look at: a bounded window, so a loop that
    compares at every iteration does not copy the whole (growing) log each time."""
    if reads is None:
        return None
    return reads[max(0, start - RECENT_READS):start]


def observe_table_index(coverage: Coverage, site: str, index: str, table: str, i: int, size: int,
                        reads: list[str], start: int) -> None:
    """A table indexed by an input is a bounds check the code does not write: `index < size`,
    to be seen true, false and at its boundary, so that the search tries the index one past each
    side's last entry (a table that lost an entry reads past its end where the other side prints)."""
    coverage.observe(site, f"{index} < {size} (the entries of {table})", 0 <= i < size, None, reads[start:],
                     (i, size), reads_before(reads, start))
    found = coverage.sites.get(site)
    if found is not None:
        found.aim_only = True  # the code may keep the index in range by other means (`% 3`)
        if size <= MAX_TABLE_ENTRIES:
            found.entries = size
            if 0 <= i < size:
                found.entries_seen.add(i)


def input_reads(inputs: Any) -> list[str] | None:
    """The input source's log of keys read, when it keeps one."""
    return getattr(inputs, "reads", None)
