"""The kernel corpus report is a pure function of the JSON lines the benchmark writes.

Why: a whole-tree run outlives a session, so the report must be rebuilt from a partial file, say how
much of the plan it covers, and not depend on the order parallel children finished in. These tests
build records by hand (no engine, no kernel tree), so they are cheap.
"""

from __future__ import annotations

import json
import random

from benchmarks.kernel_report import mutant_class, quantile, read_records, render_report


def _plan(phase: str, ids: list[str]) -> dict:
    return {"kind": "plan", "phase": phase, "ids": ids, "tree": "linux-x", "paths": ["fs/proc"],
            "engine": "e1", "commit": "c1"}


def _fn(fid: str, status: str, reason: str | None = None, cpu: float = 1.0, rss: float = 50.0,
        engine: str = "e1") -> dict:
    return {"kind": "function", "id": fid, "status": status, "reason": reason, "seconds": cpu * 2,
            "cpu_seconds": cpu, "maxrss_mb": rss, "engine": engine, "commit": "c1", "split": 1, "kept": 0}


def test_a_partial_file_says_how_many_of_the_plan_are_judged() -> None:
    records = [_plan("functions", ["a.c:f", "a.c:g", "b.c:h"]), _fn("a.c:f", "equivalent"),
               _fn("b.c:h", "inconclusive", "loop bound at b.c:12")]
    text = render_report(records)
    assert "2 of 3 output functions judged (partial)" in text
    assert "| decided | 1 | 50.0% |" in text
    assert "| inconclusive | 1 | 50.0% |" in text


def test_the_report_does_not_depend_on_the_order_answers_came_in() -> None:
    answers = [_fn(f"a.c:f{i}", ["equivalent", "inconclusive", "timeout"][i % 3], f"x at a.c:{i + 2}",
                   cpu=i / 7, rss=40 + i) for i in range(12)]
    plan = _plan("functions", [r["id"] for r in answers])
    shuffled = answers[:]
    random.Random(4).shuffle(shuffled)
    assert render_report([plan] + answers) == render_report([plan] + shuffled)


def test_the_last_record_of_a_judgement_counts_and_an_engine_can_be_chosen() -> None:
    records = [_plan("functions", ["a.c:f"]), _fn("a.c:f", "timeout", "no answer", engine="e0"),
               _fn("a.c:f", "equivalent", engine="e1")]
    assert "| decided | 1 |" in render_report(records)
    assert "0 of 1 output functions judged" in render_report(records, engine="e2")
    assert "| timeout | 1 |" in render_report(records, engine="e0")


def test_time_and_memory_figures_come_from_the_records() -> None:
    records = [_plan("functions", [f"a.c:f{i}" for i in range(5)])]
    records += [_fn(f"a.c:f{i}", "equivalent", cpu=float(i), rss=100.0 * i) for i in range(5)]
    text = render_report(records)
    assert "CPU median 2.00 s" in text
    assert "Peak memory (max RSS of a child): 400 MB (a.c:f4)" in text
    assert quantile([1.0, 2.0, 3.0], 0.95) == 3.0


def test_an_undecided_mutant_counts_against_the_kill_rate_and_exclusions_need_a_reason() -> None:
    def mutant(i: int, status: str, cannot: str | None = None) -> dict:
        return {"kind": "mutant", "id": f"a.c:f d-for-u line {i}", "operator": "d-for-u", "status": status,
                "reason": "why" if status == "excluded" else None, "cannot_change": cannot,
                "engine": "e1", "commit": "c1", "seconds": 0.1, "cpu_seconds": 0.1, "maxrss_mb": 1.0}
    rows = [mutant(1, "divergent"), mutant(2, "inconclusive"), mutant(3, "equivalent"),
            mutant(4, "equivalent", "a value below 2^63"), mutant(5, "divergent", "a value below 2^63"),
            mutant(6, "excluded")]
    assert [mutant_class(r) for r in rows] == ["killed", "undecided", "survived", "excluded", "bug", "excluded"]
    text = render_report([_plan("mutants", [r["id"] for r in rows])] + rows)
    # 6 sites, 2 excluded, 4 counted (killed, undecided, survivor, bug): 1 of 4 killed
    assert "| d-for-u | 6 | 2 | 4 | 1 | 1 | 1 | 25.0% |" in text
    assert "a.c:f d-for-u line 4: a value below 2^63 (fmtcheck: equivalent)" in text


def test_a_line_cut_by_a_killed_run_is_ignored() -> None:
    text = json.dumps(_fn("a.c:f", "equivalent")) + "\n" + '{"kind": "function", "id": "a.c:g", "sta'
    assert [r["id"] for r in read_records(text)] == ["a.c:f"]


def test_a_held_judgement_is_relabelled_with_the_scripts_new_reason_and_keeps_its_verdict(tmp_path) -> None:
    from benchmarks.kernel_corpus import Journal, Task

    out = tmp_path / "run.jsonl"
    journal = Journal(out, False, "e1", "c1", False)
    record = {"kind": "mutant", "id": "f d-for-u line 3: %u (conversion 1)", "operator": "d-for-u",
              "cannot_change": None}
    journal.write({**record, "status": "equivalent", "reason": None})
    task = Task({**record, "cannot_change": "a logical not: 0 or 1 (an int)"}, b"a", b"b", "f", "o", "n", None)
    journal.relabel(task)
    journal.relabel(task)  # written once: the second time the file already agrees
    journal.file.close()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and rows[1]["status"] == "equivalent" and rows[1]["relabelled"]
    assert mutant_class(rows[1]) == "excluded" and mutant_class(rows[0]) == "survived"


def test_a_timeout_names_the_innermost_construct_of_the_code_it_was_running() -> None:
    """The child's SIGXCPU handler reads the stack it interrupted: the innermost frame holding a
    `where` of a C file (the engine's compiled closures hold their construct's) is named."""
    import sys

    from benchmarks.kernel_corpus import names_a_line_of_timeout, running_construct

    def construct(where):
        def inner():
            where_not = "engine"  # noqa: F841 - a frame without a file line is passed over
            return running_construct(sys._getframe())
        return inner()

    assert construct("net/ipv4/route.c (rewrite):327") == "net/ipv4/route.c (rewrite):327"
    assert construct("engine") is None
    assert names_a_line_of_timeout(60, "net/x.c:12") == "no answer within 60 s of CPU (running net/x.c:12 when the limit came)"
