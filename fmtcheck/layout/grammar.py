"""Grammars of real /proc layouts: the facade over the model (`model`), the `.grammar` language
(`language`), the renderer (`render`), the regex compiler (`compiler`, `regexes`) and loose
matching (`loose`) that `check` and `diff` use.

A grammar says, as data, how one /proc file is laid out: literal bytes, fields written the way the
kernel writes them (a printf directive or a seq_file primitive), repeated records, per-CPU columns,
optional lines and kernel-version variants. The language is documented in `grammars/README.md`;
the files ship in the package `fmtcheck.grammars` and are read from its directory (`language._grammar_root`).

API for the core engine (everything is bytes; nothing is decoded):

    load_grammar(name: str) -> Grammar                      # InputError if unknown or malformed
    grammar_names() -> list[str]
    Grammar.name, .path, .printer, .source, .about          # str
    Grammar.body: list[Node]                                # the layout, in order
    Grammar.lines: list[Line]                               # every Line, depth first, in order
    Grammar.records: list[Records]                          # every repeated-record block
    Grammar.line(name: str) -> Line                         # a Line by its name ("dev", "Rss"...)
    Line.name: str; Line.header: bool; Line.items: list[Item]
    Item = Lit(data: bytes) | Field(name, domain: str, spec: Printf | Prim, ...) | Pad(column, char)
         | Group(items, repeat: "?"|"*"|"+", count: str|None) | Alt(options: list[list[Item]])
    Printf.directive: bytes (e.g. b"%7llu"), Printf.parsed: kernel.vsprintf.Directive
    Prim.kind: "ull"|"ullw"|"ll"|"hex", Prim.delim: bytes, Prim.width: int
    line_fields(line: Line) -> list[Field]                  # every field, depth first
    render_line(line: Line, values: dict[str, int|bytes|list], params: dict|None = None) -> bytes
        # the line as the kernel prints it, trailing b"
" included; a field inside a repeated
        # group takes a list; missing values take the domain's example
    field_domain(field: Field) -> Domain                    # kind, bits, min, max, signed,
        # charset/min_len/max_len (strings), pattern (regex over bytes), examples, description
    example_values(line: Line) -> dict                      # one valid value per field
    grammars_command(name: str | None, fmt: str) -> int     # `fmtcheck grammars [NAME]`

Rendering goes through `fmtcheck.kernel.vsprintf.format_directive` and `fmtcheck.kernel.seq_file`
so that a grammar line and a C function are rendered by the same model. Matching goes the other way:
each line compiles to a width-exact regular expression over bytes (`compile_items`), so that a
capture conforms exactly when every line matches (seq_pad columns included, by fixed-width
look-behinds); the few constructs a regex cannot express exactly (a padded string of a pattern
domain, unusual printf flag mixes) are compiled loosely and re-checked by rendering the parsed
value. Detection (`detect_grammar`) reads only the `detect`, `filename` and `priority` entries
(`grammar_meta`) and parses the one grammar it picks.
"""

from __future__ import annotations

from fmtcheck.layout.compiler import compile_items
from fmtcheck.layout.language import (
                                   detect_grammar,
                                   grammar_meta,
                                   grammar_names,
                                   load_grammar,
                                   parse_grammar,
)
from fmtcheck.layout.model import (
                                   Alt,
                                   Choice,
                                   Domain,
                                   Field,
                                   Grammar,
                                   GrammarError,
                                   Group,
                                   Item,
                                   Line,
                                   Lit,
                                   Optional,
                                   Pad,
                                   Prim,
                                   Printf,
                                   Records,
                                   Variant,
                                   line_fields,
)
from fmtcheck.layout.render import example_values, field_domain, render_line
from fmtcheck.layout.show import grammars_command

__all__ = [
    "Alt", "Choice", "Domain", "Field", "Grammar", "GrammarError", "Group", "Item", "Line", "Lit", "Optional",
    "Pad", "Prim", "Printf", "Records", "Variant", "compile_items", "detect_grammar", "example_values",
    "field_domain", "grammar_meta", "grammar_names", "grammars_command", "line_fields", "load_grammar",
    "parse_grammar", "render_line",
]
