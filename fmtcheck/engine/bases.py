"""Cases the planned search need not run: those that differ from a base case only where it never read.

The interpreter takes a case's values only through its input source (`int_input`, `str_input`,
`loop_count`), and nothing else it does depends on the case: two cases that give the same value
to every input one of them read run the same way, read the same inputs and print the same bytes.
The search builds most of its vectors on two bases: the zero case (`alone`: one input moved, the
others 0 or empty) and the default case (`sweep`: one input moved, the others small and
distinct; the discovery run is that case). A vector that moves only inputs its base never read
(a member of a record the zero case returned before, `MAJOR(dev)` for a `dev` the default case
does not hold, every input a later case revealed under a condition the base did not make true)
is its base again: nothing is learned from running it, and it is not run or counted. So a later
round of the planned search, over inputs that a case other than the bases revealed, costs what
their own sweep in the case that revealed them costs (`search.sweep_where_revealed`), not a
pass of `alone` and `sweep` that would only repeat the bases.

Only a base that ran without undefined behaviour and printed the same bytes on both sides is
kept: a vector equal to it is then the same, and equal.
"""

from __future__ import annotations

from typing import Any

from fmtcheck.engine.inputs import VectorInputs, base_key


class CaseBases:
    """The zero case and the default case, by what each read and the values it read."""

    def __init__(self) -> None:
        self.bases: dict[bool, tuple[dict[str, Any], frozenset[str]]] = {}
        self.skipped = 0  # vectors found to be their base again (not run, not counted)

    def record(self, inputs: Any, same: bool) -> None:
        """Keep a plain vector case (nothing named, no loop counts given) that printed the same
        on both sides as the base of its kind (zero-based or default-based)."""
        if not same or not isinstance(inputs, VectorInputs) or not getattr(inputs, "plain", False):
            return
        if inputs.zero in self.bases:
            return
        read = frozenset(base_key(name) for name in inputs.reads)
        self.bases[inputs.zero] = (inputs.assignment(), read)

    def zero_reads(self) -> frozenset[str] | None:
        """The inputs the zero case read (by key, every view), once it is a base."""
        base = self.bases.get(True)
        return None if base is None else base[1]

    def is_base_again(self, vector: dict[str, Any], zero: bool) -> bool:
        """Whether `VectorInputs(vector, zero=zero)` would run as its base: every input it names
        that the base read holds the base's value (of the same type) there."""
        base = self.bases.get(zero)
        if base is None:
            return False
        assignment, read = base
        for name, value in vector.items():
            if base_key(name) not in read:
                continue
            held = assignment.get(name, _MISSING)
            if type(held) is not type(value) or held != value:
                return False
        self.skipped += 1
        return True


_MISSING = object()
