"""The kernel's macros as fmtcheck reads them before parsing: annotations that are no C to a
parser, iterator macros (`for_each_*`, `*_foreach*`) that are loops, and calls that are the
identity on values (`likely`, `READ_ONCE`, ...).

The C front end (`fmtcheck.c.cfront`) and the patch front end's lexer (`fmtcheck.patch.ctext`)
both ask this module, so that a construct is known to both or to neither.
"""

from __future__ import annotations

import re

# Attribute-like words that carry no meaning for output; blanked (same length) before parsing.
ANNOTATIONS = re.compile(
    rb"\b(?:__(?:always_inline|weak|maybe_unused|init|exit|cold|hot|user|rcu|percpu|iomem|"
    rb"must_check|pure|noreturn|used|ro_after_init|read_mostly|initdata|initconst|force|bitwise|kernel|"
    rb"noinline_for_stack|noinline|always_unused|visible|latent_entropy|ref|meminit|sched)"
    rb"|noinline|notrace|asmlinkage|inline)\b"
)

# Annotations that take an argument list; blanked with their parentheses.
ANNOTATIONS_WITH_ARGS = re.compile(
    rb"\b(?:__aligned|__printf|__section|__attribute__|__acquires|__releases|__must_hold|"
    rb"__cacheline_aligned_in_smp|__counted_by|__nonstring|__guarded_by)\s*\("
)

# An iterator macro call: rewritten into a loop whose count and elements are inputs.
FOR_EACH = re.compile(rb"\b(\w*for_each\w*|\w*_foreach\w*)\s*\(")

# Calls that return their (first) argument.
IDENTITY_CALLS = {"likely", "unlikely", "READ_ONCE", "data_race", "ACCESS_ONCE", "__builtin_expect"}
