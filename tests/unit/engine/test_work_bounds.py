"""Bounds counted in work: a proof's trace of one path stops at TRACE_STEPS interpreter steps (it
then leaves the pair to testing, which has the whole per-case limit), and the report's re-runs share
one allowance of steps per verdict (tests/unit/engine/test_sharing.py)."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine import proofs
from fmtcheck.engine.verdict import verify_sources

# a loop of a known count, which the proof's trace unrolls: a step per iteration
OLD = '\tfor (i = 0; i < 8; i++)\n\t\tseq_printf(m, " %lu", s->v[i]);\n\tseq_putc(m, \'\\n\');\n'
NEW = '\tfor (i = 0; i < 8; i++)\n\t\tseq_put_decimal_ull(m, " ", s->v[i]);\n\tseq_puts(m, "\\n");\n'


def judge():
    def show(body: str) -> str:
        return ("struct st { unsigned long v[8]; };\n"
                f"static int t_show(struct seq_file *m, struct st *s)\n{{\n\tint i;\n\n{body}\treturn 0;\n}}\n")

    report = verify_sources(show(OLD), show(NEW), Options(max_examples=10))
    assert len(report.results) == 1
    return report.results[0]


def test_a_trace_within_the_proofs_steps_is_proven():
    result = judge()
    assert (result.verdict, result.method) == ("equivalent", "proven"), (result.verdict, result.method, result.reason)


def test_a_trace_longer_than_the_proofs_steps_leaves_the_pair_to_testing(monkeypatch):
    monkeypatch.setattr(proofs, "TRACE_STEPS", 4)
    result = judge()
    assert result.verdict == "equivalent", (result.verdict, result.reason)
    assert result.method == "tested", result.method
