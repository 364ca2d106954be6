"""`fmtcheck verify --grammar NAME NEW.c`: a grammar line as the reference side.

A reviewer may hold only the rewrite, and the layout the kernel is known to print (a grammar in
`grammars/`). This module writes the reference as C: the rewritten function's own header and local
declarations (so the values are computed the same way), then one primitive per grammar item, in
the order the grammar gives (`<rx_bytes:u64 %7llu>` becomes a `seq_printf` of `%7llu`, a
`ullw(" ", 7)` field a `seq_put_decimal_ull_width`, a literal a `seq_write`). The k-th field of
the grammar line takes the value of the k-th value the rewrite prints. The engine then compares
the two as any other pair. Name a line with `NAME:LINE` (`net_dev:device_old`); otherwise the
first record line with as many fields as the rewrite prints is used.
"""

from __future__ import annotations

from fmtcheck.c import cfront
from fmtcheck.common.errors import Inconclusive, InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Report


def grammar_reference_source(name: str, new_src: bytes, options: Options) -> bytes:
    """C text of the reference side built from grammar `name` for the function in `new_src`."""
    from fmtcheck.engine.verdict import entry_points
    from fmtcheck.layout.language import load_grammar
    from fmtcheck.layout.model import Field, Lit, Prim, Printf, line_fields

    grammar_name, _, line_name = name.partition(":")
    grammar = load_grammar(grammar_name)
    unit = cfront.parse_unit(new_src, "new")
    function = _entry(unit, options.function, entry_points(unit))
    values = printed_values(unit, function)
    candidates = [line for line in grammar.lines if not line.header and (not line_name or line.name == line_name)]
    if not candidates:
        raise InputError(f"--grammar {name}", f"grammar {grammar_name} has no record line named {line_name!r}")
    fitting = [line for line in candidates if len(line_fields(line)) == len(values)]
    if not fitting:
        counts = ", ".join(f"{line.name}: {len(line_fields(line))}" for line in candidates)
        raise InputError(f"--grammar {name}", f"{function} prints {len(values)} values; the grammar's lines have {counts}")
    line = fitting[0]
    seq = _seq_param(unit, function)
    body: list[str] = []
    k = 0
    for item in line.items:
        if isinstance(item, Lit):
            body.append(f"\tseq_write({seq}, {_c_string(item.data)}, {len(item.data)});")
        elif isinstance(item, Field) and isinstance(item.spec, Printf):
            body.append(f"\tseq_printf({seq}, {_c_string(item.spec.directive)}, {values[k]});")
            k += 1
        elif isinstance(item, Field) and isinstance(item.spec, Prim):
            body.append(_primitive_call(seq, item.spec, values[k]))
            k += 1
        else:
            raise Inconclusive(f"grammar {grammar_name}:{line.name}",
                               f"{type(item).__name__} items cannot be a reference side yet")
    body.append(f"\tseq_putc({seq}, '\\n');")
    return _assemble(unit, function, body)


def _entry(unit: cfront.Unit, wanted: str | None, entries: list[str]) -> str:
    if wanted:
        if wanted not in unit.functions:
            raise InputError(unit.where, f"no function named {wanted}")
        return wanted
    if len(entries) != 1:
        raise InputError(unit.where, "name the function to check with --function")
    return entries[0]


def printed_values(unit: cfront.Unit, function: str) -> list[str]:
    """The expressions whose values the function prints, in output order (one discovery run)."""
    from fmtcheck.c.hints import InputSpace, collect_hints
    from fmtcheck.c.outputs import ConcreteOutput
    from fmtcheck.engine.inputs import VectorInputs
    from fmtcheck.engine.verdict import Runner, side_of

    space = InputSpace()
    collect_hints(unit, space)
    side = side_of(unit, space, function, "new")
    runner = Runner(side, side)
    out = ConcreteOutput()
    runner.run_side(side, VectorInputs(), out)
    return [name for _, _, name in sorted(out.spans) if name is not None]


def _seq_param(unit: cfront.Unit, function: str) -> str:
    node = unit.functions[function]
    for n in cfront.walk(node.child_by_field_name("declarator")):
        if n.type == "parameter_declaration" and b"seq_file" in n.text:
            declarator = n.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "identifier":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is not None:
                return declarator.text.decode("latin-1")
    return "m"


def _primitive_call(seq: str, prim, value: str) -> str:
    delim = _c_string(prim.delim) if prim.delim else "NULL"
    if prim.kind == "ull":
        return f"\tseq_put_decimal_ull({seq}, {delim}, {value});"
    if prim.kind == "ullw":
        return f"\tseq_put_decimal_ull_width({seq}, {delim}, {value}, {prim.width});"
    if prim.kind == "ll":
        return f"\tseq_put_decimal_ll({seq}, {delim}, {value});"
    if prim.kind == "hex":
        return f"\tseq_put_hex_ll({seq}, {delim}, {value}, {prim.width});"
    raise Inconclusive("grammar", f"primitive {prim.kind} cannot be a reference side")


def _c_string(data: bytes) -> str:
    out = []
    for b in data:
        if b in (0x22, 0x5C):
            out.append("\\" + chr(b))
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _assemble(unit: cfront.Unit, function: str, body: list[str]) -> bytes:
    """Globals and helpers of the rewrite, then its function's header and declarations, then the
    grammar's primitives."""
    text = unit.source.text
    node = unit.functions[function]
    parts = [text[g.start_byte:g.end_byte] for g in unit.globals]
    parts += [text[f.start_byte:f.end_byte] for name, f in unit.functions.items() if name != function]
    block = node.child_by_field_name("body")
    head = text[node.start_byte:block.start_byte]
    decls = [text[c.start_byte:c.end_byte] for c in block.named_children if c.type == "declaration"]
    if function == cfront.FRAGMENT_NAME:
        head = b"static void __fc_grammar_reference(struct seq_file *m)"
    parts.append(head + b"\n{\n" + b"\n".join(b"\t" + d for d in decls) + b"\n"
                 + "\n".join(body).encode("latin-1") + b"\n}\n")
    return b"\n".join(parts)


def verify_against_grammar(name: str, new_path: str, options: Options) -> Report:
    """`fmtcheck verify --grammar NAME NEW`: the grammar's line, rendered as C, is the old side."""
    from fmtcheck.engine.verdict import read_source, verify_sources

    new = read_source(new_path)
    old = grammar_reference_source(name, new, options)
    return verify_sources(old, new, options, old_label=f"grammar:{name}", new_label=new_path)
