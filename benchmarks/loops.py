"""Generated loop rewrites: every pair fmtcheck must prove, or refute with a small counterexample.

Shapes (each written for this benchmark, after the layouts of /proc/interrupts, /proc/softirqs,
/proc/stat and list-walking show functions):

- `cpu`: a K-column per-CPU row, `"%10u "` per CPU rewritten as
  `seq_put_decimal_ull_width(p, " ", v, 10)` with the row prefix adjusted (equivalent), or with the
  prefix adjusted but the last separator lost (divergent);
- `list`: a loop over an input-bound list (`list_for_each_entry`), one line per entry;
- `nested`: a per-CPU loop inside a list walk;
- `counted`: `for (i = 0; i < s->n; i++)` over an input-bound array, K counters per element
  (`s->v0[i]`...), `" %8llu"` rewritten as `seq_put_decimal_ull_width(m, " ", v, 8)`; the
  divergent variant has one width slip;
- `chain`: a pointer-chain walk `for (e = t->first; e; e = e->next)`, K counters per node, the
  divergent variant loses the separator before the last counter; `while` rewrites the walk as
  `while (e) { ...; e = e->next; }` (a head from a call that takes
  the seq_file, `head_of(m)`, is proven alike, but such an opaque call keeps every differing
  case of the search in the interpreter);
- `grid`: a counted loop inside a counted loop (`s->v[i][j]`), the divergent variant swaps the
  indices (`s->v[j][i]`);
- `rows`: B independent `if` rows (flags), each rewritten field by field; the divergent variant has
  one width slip in one row.

`python -m benchmarks.loops [--size N]` prints the verdict, method and time of every pair; the
sizes are the K of `cpu` and the B of `rows`. `pairs(size)` gives (name, old, new, expected).
"""

from __future__ import annotations

import argparse
import time


def _show(name: str, body: list[str]) -> str:
    lines = [f"static int {name}(struct seq_file *p, void *v)", "{"] + body + ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def cpu_row(cpus: int, lose_separator: bool = False) -> tuple[str, str]:
    """One /proc/interrupts row; `cpus` columns of the fixed part are printed before the loop."""
    head = [f"\tint i = irq_of(v), j;", ""]
    fixed_old = [f'\tseq_printf(p, "%10u ", fixed_count(i, {c}));' for c in range(cpus)]
    fixed_new = [f'\tseq_put_decimal_ull_width(p, " ", fixed_count(i, {c}), 10);' for c in range(cpus)]
    old = head + ['\tseq_printf(p, "%*d: ", 3, i);'] + fixed_old + [
        "\tfor_each_online_cpu(j)",
        '\t\tseq_printf(p, "%10u ", kstat_irqs_cpu(i, j));',
        "\tseq_puts(p, irq_name(i));",
        "\tseq_putc(p, '\\n');",
    ]
    new = head + ['\tseq_printf(p, "%*d:", 3, i);'] + fixed_new + [
        "\tfor_each_online_cpu(j)",
        '\t\tseq_put_decimal_ull_width(p, " ", kstat_irqs_cpu(i, j), 10);',
    ] + ([] if lose_separator else ["\tseq_putc(p, ' ');"]) + [
        "\tseq_puts(p, irq_name(i));",
        "\tseq_putc(p, '\\n');",
    ]
    # the counters' type, as include/linux/kernel_stat.h declares it: printed with %u here and a
    # 64-bit primitive there, an undeclared call would be judged for every integer type
    protos = "unsigned int kstat_irqs_cpu(unsigned int irq, int cpu);\nunsigned int fixed_count(int i, int c);\n"
    return protos + _show("irq_row_show", old), protos + _show("irq_row_show", new)


def list_walk(fields: int, slip: bool = False) -> tuple[str, str]:
    """One line per entry of an input-bound list, `fields` counters per line."""
    head = ["\tstruct entry *e;", ""]
    fmt = "%-16s" + "".join(" %8llu" for _ in range(fields)) + "\\n"
    args = ", ".join(["e->name"] + [f"e->c{k}" for k in range(fields)])
    old = head + ["\tlist_for_each_entry(e, &table_head, list)", f'\t\tseq_printf(p, "{fmt}", {args});']
    body = ['\t\tseq_printf(p, "%-16s", e->name);']
    for k in range(fields):
        width = 7 if slip and k == fields - 1 else 8
        body.append(f'\t\tseq_put_decimal_ull_width(p, " ", e->c{k}, {width});')
    body.append("\t\tseq_putc(p, '\\n');")
    new = head + ["\tlist_for_each_entry(e, &table_head, list) {"] + body + ["\t}"]
    return _show("table_show", old), _show("table_show", new)


def nested(cpus_fixed: int, lose_separator: bool = False) -> tuple[str, str]:
    """A per-CPU row for every entry of a list (a loop inside a loop)."""
    head = ["\tstruct entry *e;", "\tint cpu;", ""]
    old = head + ["\tlist_for_each_entry(e, &table_head, list) {",
                  '\t\tseq_printf(p, "%s: ", e->name);',
                  "\t\tfor_each_possible_cpu(cpu)",
                  '\t\t\tseq_printf(p, "%10llu ", per_cpu_hits(e, cpu));',
                  "\t\tseq_putc(p, '\\n');", "\t}"]
    new = head + ["\tlist_for_each_entry(e, &table_head, list) {",
                  "\t\tseq_puts(p, e->name);",
                  "\t\tseq_putc(p, ':');",
                  "\t\tfor_each_possible_cpu(cpu)",
                  '\t\t\tseq_put_decimal_ull_width(p, " ", per_cpu_hits(e, cpu), 10);',
                  "\t\tseq_puts(p, \"" + ("" if lose_separator else " ") + "\\n\");", "\t}"]
    return _show("hits_show", old), _show("hits_show", new)


def counted(fields: int, slip: bool = False) -> tuple[str, str]:
    """One line of `fields` counters per element of an array whose length is an input."""
    head = ["\tstruct stats *s = p->private;", "\tunsigned int i;", ""]
    old = head + ["\tfor (i = 0; i < s->n; i++) {"]
    new = head + ["\tfor (i = 0; i < s->n; i++) {"]
    old.append('\t\tseq_printf(p, "%u:' + "".join(" %8llu" for _ in range(fields)) + '\\n", i'
               + "".join(f", s->v{k}[i]" for k in range(fields)) + ");")
    new.append("\t\tseq_put_decimal_ull(p, \"\", i);")
    new.append("\t\tseq_putc(p, ':');")
    for k in range(fields):
        width = 7 if slip and k == fields - 1 else 8
        new.append(f'\t\tseq_put_decimal_ull_width(p, " ", s->v{k}[i], {width});')
    new.append("\t\tseq_putc(p, '\\n');")
    return _show("stats_show", old + ["\t}"]), _show("stats_show", new + ["\t}"])


def chain(fields: int, lose_separator: bool = False, while_loop: bool = False) -> tuple[str, str]:
    """One line per node of a pointer chain, `fields` counters per node (`while_loop`: the new
    side walks it as `e = t->first; while (e) { ...; e = e->next; }`)."""
    head = ["\tstruct table *t = p->private;", "\tstruct node *e;", ""]
    fmt = "%s" + "".join(" %lu" for _ in range(fields)) + "\\n"
    args = ", ".join(["e->name"] + [f"e->c{k}" for k in range(fields)])
    old = head + ["\tfor (e = t->first; e; e = e->next)", f'\t\tseq_printf(p, "{fmt}", {args});']
    body = ["\t\tseq_puts(p, e->name);"]
    for k in range(fields):
        sep = "" if lose_separator and k == fields - 1 else " "
        body.append(f'\t\tseq_put_decimal_ull(p, "{sep}", e->c{k});')
    body.append("\t\tseq_putc(p, '\\n');")
    if while_loop:
        new = head + ["\te = t->first;", "\twhile (e) {"] + body + ["\t\te = e->next;", "\t}"]
    else:
        new = head + ["\tfor (e = t->first; e != NULL; e = e->next) {"] + body + ["\t}"]
    return _show("nodes_show", old), _show("nodes_show", new)


def grid(swap: bool = False) -> tuple[str, str]:
    """A counted loop inside a counted loop: one row of s->cols numbers per row."""
    head = ["\tstruct grid *s = p->private;", "\tint i, j;", ""]
    loop = ["\tfor (i = 0; i < s->rows; i++) {", "\t\tfor (j = 0; j < s->cols; j++)"]
    cell = "s->v[j][i]" if swap else "s->v[i][j]"
    old = head + loop + ['\t\t\tseq_printf(p, "%6u ", s->v[i][j]);', "\t\tseq_putc(p, '\\n');", "\t}"]
    new = head + loop[:1] + [loop[1] + " {", f'\t\t\tseq_put_decimal_ull_width(p, "", {cell}, 6);',
                             "\t\t\tseq_putc(p, ' ');", "\t\t}", "\t\tseq_putc(p, '\\n');", "\t}"]
    return _show("grid_show", old), _show("grid_show", new)


def flag_rows(rows: int, slip_row: int | None = None) -> tuple[str, str]:
    """`rows` independent rows, each printed when its flag bit is set."""
    old = ["\tstruct stats *s = p->private;", ""]
    new = list(old)
    for k in range(rows):
        flag = f"s->flags{k // 32} & {1 << (k % 32)}u"
        old += [f"\tif ({flag})", f'\t\tseq_printf(p, "row{k}: %8lu kB\\n", s->v{k});']
        width = 7 if k == slip_row else 8
        new += [f"\tif ({flag}) {{", f'\t\tseq_put_decimal_ull_width(p, "row{k}: ", s->v{k}, {width});',
                '\t\tseq_puts(p, " kB\\n");', "\t}"]
    return _show("rows_show", old), _show("rows_show", new)


def pairs(size: int) -> list[tuple[str, str, str, str]]:
    """(name, old, new, expected verdict) for one size."""
    out = []
    for lose in (False, True):
        old, new = cpu_row(size, lose)
        out.append((f"cpu K={size}{' lost separator' if lose else ''}", old, new, "divergent" if lose else "equivalent"))
    for slip in (False, True):
        old, new = list_walk(min(size, 64), slip)
        out.append((f"list N={min(size, 64)}{' width slip' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = nested(size, slip)
        out.append((f"nested{' lost separator' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = flag_rows(size, size // 2 if slip else None)
        out.append((f"rows B={size}{' width slip' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = counted(min(size, 64), slip)
        out.append((f"counted N={min(size, 64)}{' width slip' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = chain(min(size, 64), slip)
        out.append((f"chain N={min(size, 64)}{' lost separator' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = chain(min(size, 64), slip, while_loop=True)
        out.append((f"while N={min(size, 64)}{' lost separator' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
        old, new = grid(slip)
        out.append((f"grid{' swapped' if slip else ''}", old, new, "divergent" if slip else "equivalent"))
    return out


def main() -> None:
    from fmtcheck.common.options import Options
    from fmtcheck.engine.verdict import verify_sources

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append", help="K and B (repeatable); default 4, 32, 64")
    args = parser.parse_args()
    for size in args.size or [4, 32, 64]:
        for name, old, new, expected in pairs(size):
            start = time.perf_counter()
            result = verify_sources(old, new, Options()).results[0]
            took = time.perf_counter() - start
            ok = "ok " if result.verdict == expected and (expected != "equivalent" or result.method == "proven") else "BAD"
            print(f"{ok} {name:28} {result.verdict:11} {result.method or '':7} {result.cases:6} cases {took * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
