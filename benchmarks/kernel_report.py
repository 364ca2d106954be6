"""The report of benchmarks/kernel_corpus.py, built only from the JSON lines it writes.

Why a pure function of the records: a run of a whole tree takes longer than a session can wait, so
the script writes one JSON line per judgement as it is made and the report is rebuilt from that file
at any time, complete or not ("N of M judged"). The records are read in file order; for each
judgement the last record counts (a resumed run appends). Nothing here depends on the order in
which parallel children finished: every table is ordered by the plan (the order functions were
found) or by counts and names.

Record kinds (one JSON object per line):
- `plan`: `phase` ("functions", "mutants" or "pairs"), `ids` (the denominator, in order), and the
  run's `tree`, `paths`, `engine`, `commit`;
- `function`, `mutant`, `pair`: `id`, `engine`, `commit`, `status`, `reason`, `seconds` (wall),
  `cpu_seconds`, `maxrss_mb` (peak RSS of the child), and for divergent ones `results` with the
  rendered counterexamples.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter, defaultdict

OUTCOMES = ("decided", "inconclusive", "error", "internal", "divergent", "timeout", "memory", "crash",
            "nothing-to-check")
PROBLEMS = ("inconclusive", "error", "internal", "timeout", "memory", "crash")
OPERATORS = ("width+1", "width-1", "delimiter-moved", "separator-dropped", "zero-padding", "d-for-u",
             "helper-skips-padding")


def latest(records: list[dict], engine: str | None = None) -> tuple[dict[str, dict], dict[tuple, dict]]:
    """The last plan of each phase and the last record of each judgement (of `engine` if given)."""
    plans: dict[str, dict] = {}
    judged: dict[tuple, dict] = {}
    for r in records:
        if r.get("kind") == "plan":
            plans[r["phase"]] = r
        elif r.get("kind") in ("function", "mutant", "pair") and (engine is None or r.get("engine") == engine):
            judged[(r["kind"], r["id"])] = r
    return plans, judged


def outcome(record: dict) -> str:
    """`decided` for an equivalent answer; the status otherwise."""
    return "decided" if record["status"] == "equivalent" else record["status"]


def quantile(values: list[float], q: float) -> float:
    """The nearest-rank quantile (0 for no values)."""
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def construct_of(reason: str | None) -> str:
    """A short name for the construct an answer names (file names, numbers and quoted text blanked)."""
    if not reason:
        return "(no reason given)"
    text = re.sub(r"\S+\.[ch](?: \([^)]*\))?:\d+(?::\d+)?", "FILE:N", reason)
    text = re.sub(r"\S+\.[ch](?: \([^)]*\))?", "FILE", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'X'", text)
    text = re.sub(r"\b0x[0-9a-f]+\b|\b\d+\b", "N", text)
    text = re.sub(r"\b[A-Za-z_]\w*\(", "F(", text)
    return re.sub(r"^FILE(?::N)?: ", "", text)[:110]


def names_a_line(reason: str | None) -> bool:
    """Does the answer name a line of a C file (`path.c:N`), other than line 1 of it?"""
    return any(int(n) > 1 for n in re.findall(r"\.[ch](?: \([^)]*\))?:(\d+)", reason or ""))


def _cell(text: str | None, size: int = 160) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")[:size]


def divergence_lines(record: dict) -> list[str]:
    """The rendered counterexample of a divergent answer (first three divergences of each result)."""
    out: list[str] = []
    for r in record.get("results") or []:
        for d in (r.get("divergences") or [])[:3]:
            out.append(f"  - line {d.get('line')} col {d.get('column')} field {d.get('field')}: "
                       f"expected `{str(d.get('expected'))[:160]}` actual `{str(d.get('actual'))[:160]}`; "
                       f"counterexample {json.dumps(d.get('counterexample'))[:300]}")
            if d.get("expected") == d.get("actual"):
                out.append("    **identical expected and actual lines**")
    return out


def engines_line(records: list[dict]) -> str:
    """Which engine judged how many of the records (each figure says which engine it is from)."""
    by = Counter((r.get("engine"), r.get("commit")) for r in records)
    return "; ".join(f"{n} by engine {e} (commit {c})" for (e, c), n in sorted(by.items(), key=str)) or "none"


def timing_lines(records: list[dict]) -> list[str]:
    """Median, p95 and max of wall and CPU time, and the peak memory of a child."""
    if not records:
        return []
    wall = [r.get("seconds", 0.0) for r in records]
    cpu = [r.get("cpu_seconds", 0.0) for r in records]
    top = max(records, key=lambda r: r.get("maxrss_mb", 0.0))
    return [f"Time per judgement: CPU median {statistics.median(cpu):.2f} s, p95 {quantile(cpu, 0.95):.2f} s, "
            f"max {max(cpu):.2f} s; wall median {statistics.median(wall):.2f} s, p95 {quantile(wall, 0.95):.2f} s, "
            f"max {max(wall):.2f} s. Peak memory (max RSS of a child): {top.get('maxrss_mb', 0):.0f} MB "
            f"({top['id']}); median {statistics.median(r.get('maxrss_mb', 0.0) for r in records):.0f} MB.", ""]


def _by_construct(kind: str, group: list[dict]) -> list[str]:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in group:
        by[construct_of(r.get("reason"))].append(r)
    lines = [f"#### {kind} by construct ({len(group)})", "", "| count | construct | example |", "|---|---|---|"]
    for construct, rs in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {len(rs)} | {_cell(construct)} | {rs[0]['id']}: {_cell(rs[0].get('reason'))} |")
    lines.append("")
    if kind == "inconclusive":
        no_line = [r for r in group if not names_a_line(r.get("reason"))]
        lines += [f"Inconclusive answers that name no line of a C file: {len(no_line)}", ""]
        lines += [f"- {r['id']}: {_cell(r.get('reason'))}" for r in no_line]
        lines.append("")
    return lines


def functions_section(plan: dict | None, judged: dict[tuple, dict]) -> list[str]:
    """Functions found, judged, each outcome, inconclusive by construct, divergent with counterexamples."""
    if plan is None:
        return []
    ids = plan["ids"]
    rows = [judged[("function", i)] for i in ids if ("function", i) in judged]
    n, m = len(rows), len(ids)
    counts = Counter(outcome(r) for r in rows)
    lines = [f"### {plan.get('tree')}: {n} of {m} output functions judged"
             + ("" if n == m else " (partial)"), "",
             f"Paths: {' '.join(plan.get('paths') or [])}. Engines: {engines_line(rows)}.", "",
             "| outcome | functions | share of judged |", "|---|---|---|"]
    lines += [f"| {k} | {counts[k]} | {pct(counts[k], n)} |" for k in OUTCOMES if counts.get(k)]
    lines.append("")
    lines += timing_lines(rows)
    split = sum(r.get("split", 0) for r in rows)
    kept = sum(r.get("kept", 0) for r in rows)
    lines += [f"Rewrite: {split} seq_printf statements split, {kept} left whole "
              "(format not a literal, or arguments the script cannot count).", ""]
    for kind in PROBLEMS:
        group = [r for r in rows if outcome(r) == kind]
        if group:
            lines += _by_construct(kind, group)
    div = [r for r in rows if outcome(r) == "divergent"]
    if div:
        lines += [f"#### divergent ({len(div)}): each is a bug (the rewrite prints the same bytes)", ""]
        for r in div:
            lines.append(f"- {r['id']} (line {r.get('line')})")
            lines += divergence_lines(r)
        lines.append("")
    return lines


def mutant_class(record: dict) -> str:
    """killed, survived, undecided, excluded, or bug (divergent where the script shows no byte can change).

    A mutant is excluded only when the script itself shows it cannot change bytes: not made at all
    (status `excluded`), or made with a `cannot_change` reason of the script's own (a type or value
    bound read from the code, independent of fmtcheck); then any verdict but divergent is right."""
    status = record["status"]
    if status == "excluded":
        return "excluded"
    if record.get("cannot_change"):
        return "bug" if status == "divergent" else "excluded"
    if status == "divergent":
        return "killed"
    return "survived" if status == "equivalent" else "undecided"


def mutants_section(plan: dict | None, judged: dict[tuple, dict]) -> list[str]:
    """Per operator: mutants, killed, survivors, undecided, excluded and the kill rate; every
    mutant not killed and every excluded one listed with its reason."""
    if plan is None:
        return []
    rows = [judged[("mutant", i)] for i in plan["ids"] if ("mutant", i) in judged]
    lines = [f"### Mutants of real functions ({plan.get('tree')}): {len(rows)} of {len(plan['ids'])} judged"
             + ("" if len(rows) == len(plan["ids"]) else " (partial)"), "",
             f"Mutated: the first {len(plan.get('base') or [])} functions (by name) the file's latest records decide.", "",
             f"Engines: {engines_line([r for r in rows if r['status'] != 'excluded'])}.", "",
             "Kill rate = killed / (mutants - excluded); an undecided mutant counts against it.", "",
             "| operator | sites | excluded | mutants | killed | survived (equivalent) | undecided | kill rate |",
             "|---|---|---|---|---|---|---|---|"]
    classes = {r["id"]: mutant_class(r) for r in rows}
    for op in OPERATORS:
        c = Counter(classes[r["id"]] for r in rows if r["operator"] == op)
        live = c["killed"] + c["survived"] + c["undecided"] + c["bug"]
        lines.append(f"| {op} | {sum(c.values())} | {c['excluded']} | {live} | {c['killed']} | {c['survived']} | "
                     f"{c['undecided']} | {pct(c['killed'], live)} |")
    lines.append("")
    for title, wanted in (("Wrong-way: divergent where the script shows no byte can change", "bug"),
                          ("Survivors (judged equivalent, not shown unable to change bytes)", "survived"),
                          ("Undecided mutants", "undecided")):
        group = [r for r in rows if classes[r["id"]] == wanted]
        if group:
            lines += [f"{title} ({len(group)}):", ""]
            lines += [f"- {r['id']}: {r['status']}: {_cell(r.get('reason'), 200)}" for r in group]
            lines.append("")
    excl = [r for r in rows if classes[r["id"]] == "excluded"]
    if excl:
        lines += [f"Excluded mutants (cannot change bytes) ({len(excl)}):", ""]
        lines += [f"- {r['id']}: {r.get('cannot_change') or r.get('reason')}"
                  + (f" (fmtcheck: {r['status']})" if r["status"] != "excluded" else "") for r in excl]
        lines.append("")
    return lines


def pairs_section(plan: dict | None, judged: dict[tuple, dict]) -> list[str]:
    """Each cross-version pair's verdict and the rendered counterexample of every divergent one."""
    if plan is None:
        return []
    rows = [judged[("pair", i)] for i in plan["ids"] if ("pair", i) in judged]
    counts = Counter(r["status"] for r in rows)
    lines = [f"### Cross-version pairs {plan.get('tree')} -> {plan.get('pair_tree')}: {len(rows)} of "
             f"{len(plan['ids'])} printers whose text changed judged", "",
             ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "(none)", "",
             "| function | verdict | reason |", "|---|---|---|"]
    lines += [f"| {r['id']} | {r['status']} | {_cell(r.get('reason'), 140)} |" for r in rows]
    lines.append("")
    for r in rows:
        if r["status"] == "divergent":
            lines.append(f"- **{r['id']}** divergent:")
            lines += divergence_lines(r) or ["  - **no rendered counterexample**"]
    lines.append("")
    return lines


def render_report(records: list[dict], engine: str | None = None) -> str:
    """The whole markdown report of a (possibly partial) JSON-lines file's records."""
    plans, judged = latest(records, engine)
    md = functions_section(plans.get("functions"), judged)
    md += mutants_section(plans.get("mutants"), judged)
    md += pairs_section(plans.get("pairs"), judged)
    return "\n".join(md) + "\n"


def read_records(text: str) -> list[dict]:
    """The records of a JSON-lines text; a last line cut by a killed run is ignored."""
    out: list[dict] = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out
