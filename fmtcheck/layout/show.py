"""`fmtcheck grammars [NAME]`: the list of grammars, or one grammar with an annotated example.
"""

from __future__ import annotations

import json
import sys

from fmtcheck.layout.language import all_grammars, load_grammar
from fmtcheck.layout.model import Field, Grammar, Group, Lit, Pad, escape_text
from fmtcheck.layout.render import example_rendering


def describe_items(items) -> str:
    """A grammar line written back in the grammar language."""
    out = []
    for item in items:
        if isinstance(item, Lit):
            out.append(f'"{escape_text(item.data)}"')
        elif isinstance(item, Field):
            star = f" *=@{item.star[0]}" + (f"+{item.star[1]}" if item.star[1] else "") if item.star else ""
            same = f" ={item.same_as}" if item.same_as else ""
            out.append(f"<{item.name}:{item.domain} {item.spec}{star}{same}>")
        elif isinstance(item, Pad):
            out.append(f'pad({item.column}, "{escape_text(item.char)}")')
        elif isinstance(item, Group):
            suffix = "" if item.repeat == "?" else item.repeat
            count = f"@{item.count}" if item.count else ""
            out.append(f"[ {describe_items(item.items)} ]{suffix}{count}")
        else:
            out.append("( " + " | ".join(describe_items(o) for o in item.options) + " )")
    return " ".join(out)


def _grammar_summary(g: Grammar) -> dict:
    return {
        "name": g.name,
        "path": g.path,
        "printer": g.printer,
        "source": g.source,
        "about": g.about,
        "variants": {v.name: v.labels for v in g.variants},
        "variant_versions": {v.name: [{"label": lab, "versions": ver, "source": src}
                                      for lab, ver, src in zip(v.labels, v.versions, v.sources)]
                             for v in g.variants},
        "records": [{"name": r.name, "key": list(r.key)} for r in g.records],
    }


def _write_json(grammars: list[dict], inputs: list[str]) -> None:
    """The report envelope of every command (docs/fmtcheck-report.schema.json), with `grammars`."""
    from fmtcheck.common.result import Report, RunInfo, json_document

    data = json_document(Report("grammars"), RunInfo(exit_status=0, inputs=inputs))
    data["grammars"] = grammars
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def grammars_command(name: str | None, fmt: str = "text") -> int:
    """List the grammars, or show one with an annotated example rendering. Returns the exit code."""
    from fmtcheck.common.text import visible

    if name is None:
        grammars = all_grammars()
        if fmt == "json":
            _write_json([_grammar_summary(g) for g in grammars], [])
        else:
            width = max(len(g.name) for g in grammars)
            for g in grammars:
                sys.stdout.write(f"{g.name:<{width}}  {g.path:<24} {g.printer}\n")
        return 0
    g = load_grammar(name)
    example = example_rendering(g)
    if fmt == "json":
        data = _grammar_summary(g)
        data["lines"] = [
            {"name": line.name, "header": line.header, "grammar": describe_items(line.items),
             "example": visible(text.rstrip(b"\n"))}
            for line, text in example
        ]
        _write_json([data], [name])
        return 0
    out = [f"{g.name}: {g.path}", f"  printed by {g.printer}" + (f" ({g.source})" if g.source else "")]
    if g.about:
        out.append(f"  {g.about}")
    for v in g.variants:
        out.append(f"  variant {v.name}: " + " | ".join(lab or f"option {i + 1}" for i, lab in enumerate(v.labels)))
        for lab, ver, src in zip(v.labels, v.versions, v.sources):
            if ver or src:
                out.append(f"    {lab}: " + "; ".join(x for x in (ver, src) if x))
    out.append("")
    out.append("example rendering (space '·', tab '→'):")
    for line, text in example:
        tag = "header" if line.header else line.name
        shown = visible(text.rstrip(b"\n"))
        out.append(f"  {tag:<18} {shown}")
        out.append(f"  {'':<18} = {describe_items(line.items)}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
