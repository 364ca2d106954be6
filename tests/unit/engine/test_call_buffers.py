"""A local char buffer an uninterpreted call writes a string into (`ax2asc(buf, &node->callsign)`),
in the proof: the buffer holds that call's string, cut to the buffer (fmtcheck.c.values.SymbolicText),
so printing it, or naming it in the next call's key, is proven instead of ending the proof ("the
string ax2asc writes is an input": net/netrom/nr_route.c nr_node_show, net/rose/rose_route.c
rose_node_show, then tested to the input limit). Any other read of its bytes ends the proof."""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.c.hints import InputSpace, collect_hints
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import Runner, side_of, verify_sources


def node_show(body: str, size: int = 11) -> str:
    return ("static int foo_node_show(struct seq_file *seq, void *v)\n{\n"
            f"\tstruct foo_node *node = v;\n\tchar buf[{size}];\n\n{body}\treturn 0;\n}}\n")


def proof(old: str, new: str) -> tuple[bool, str | None]:
    units = cfront.parse_unit(old.encode(), "old"), cfront.parse_unit(new.encode(), "new")
    space = InputSpace(16)
    for unit in units:
        collect_hints(unit, space)
    sides = [side_of(unit, space, "foo_node_show", label) for unit, label in zip(units, ("old", "new"))]
    return Runner(*sides).prove()


FILLED = "\tfoo2asc(buf, &node->callsign);\n"
ONE = '\tseq_printf(seq, "%-9s %d\\n", buf, node->count);\n'
SPLIT = '\tseq_printf(seq, "%-9s", buf);\n\tseq_printf(seq, " %d", node->count);\n\tseq_putc(seq, \'\\n\');\n'
RETURNED = ('\tseq_printf(seq, "%-9s", foo2asc(buf, &node->callsign));\n'
            '\tseq_printf(seq, " %s\\n", foo2asc(buf, &node->alias));\n')


def test_printing_the_buffer_a_call_filled_is_proven():
    result = verify_sources(node_show(FILLED + ONE), node_show(FILLED + SPLIT), Options(max_examples=20)).results[0]
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.reason, result.notes)


def test_a_second_call_on_the_filled_buffer_is_named_by_the_first_string():
    old = node_show(RETURNED)
    new = node_show(RETURNED.replace('" %s\\n", foo2asc(buf, &node->alias)', '" %s", foo2asc(buf, &node->alias)')
                    + "\tseq_putc(seq, '\\n');\n")
    assert proof(old, new) == (True, None)


def test_a_buffer_of_another_size_cuts_the_string_elsewhere():
    assert proof(node_show(FILLED + ONE), node_show(FILLED + SPLIT, size=8))[0] is False


def test_the_buffer_filled_by_another_call_is_another_string():
    second = "\tfoo2asc(buf, &node->alias);\n"
    old = node_show(FILLED + second + '\tseq_puts(seq, buf);\n')
    new = node_show(FILLED + '\tseq_puts(seq, buf);\n' + second)
    assert proof(old, new)[0] is False


def test_a_byte_of_the_filled_buffer_is_never_read_as_a_value():
    old = node_show(FILLED + "\tif (buf[0] == '*')\n\t\tseq_putc(seq, '*');\n" + ONE)
    new = node_show(FILLED + SPLIT)
    ok, why = proof(old, new)
    assert ok is False and "an uninterpreted call wrote into a buffer" in why, why
