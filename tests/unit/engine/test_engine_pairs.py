"""`fmtcheck verify OLD NEW` on the acceptance pairs of fixtures/pairs (issue #2), and the CLI
contract around it: exit codes, --seed determinism, bad input (exit 2), unsupported constructs
(exit 3), never a traceback.

Every pair runs through `fmtcheck.cli.main` exactly as a user would run it, with --format json,
and is checked against fixtures/pairs/EXPECTED.toml.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from _paths import FIXTURES
from fmtcheck.cli import main

PAIRS = FIXTURES / "pairs"
MANIFEST = tomllib.loads((PAIRS / "EXPECTED.toml").read_text())
NAMES = sorted(MANIFEST)
EQUIVALENT = [n for n in NAMES if MANIFEST[n]["verdict"] == "equivalent"]
DIVERGENT = [n for n in NAMES if MANIFEST[n]["verdict"] == "divergent"]
MAX_EXAMPLES = "50"


def verify(capsys, old: Path | str, new: Path | str, *extra: str) -> tuple[int, dict | None, str]:
    """(exit code, the JSON report or None, stderr)."""
    code = main(["verify", str(old), str(new), "--format", "json", *extra])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    report = json.loads(captured.out) if captured.out.strip() else None
    return code, report, captured.err


def run_pair(capsys, name: str, *extra: str) -> tuple[int, dict, str]:
    code, report, err = verify(capsys, PAIRS / name / "old.c", PAIRS / name / "new.c",
                               "--max-examples", MAX_EXAMPLES, *extra)
    assert report is not None, f"{name}: no JSON report (exit {code}, stderr {err!r})"
    return code, report, err


# -- the manifest itself -------------------------------------------------------------------


def test_manifest_lists_every_pair_directory_and_nothing_else():
    dirs = {p.name for p in PAIRS.iterdir() if p.is_dir() and not p.name.startswith(".")}
    assert dirs == set(MANIFEST)
    for name in dirs:
        assert (PAIRS / name / "old.c").is_file() and (PAIRS / name / "new.c").is_file()


def test_manifest_covers_the_required_cases():
    assert len(MANIFEST) >= 14
    assert len(EQUIVALENT) >= 7 and len(DIVERGENT) >= 7
    for name in EQUIVALENT:
        entry = MANIFEST[name]
        assert entry["methods"] and set(entry["methods"]) <= {"proven", "tested"}
    for name in DIVERGENT:
        entry = MANIFEST[name]
        assert entry["severity"] in ("breaking", "cosmetic")
        assert isinstance(entry["line"], int) and isinstance(entry["column"], int)
        assert {"kind", "field"} <= set(entry)
    kinds = {MANIFEST[n]["kind"] for n in DIVERGENT} | {MANIFEST[n].get("worst_kind") for n in DIVERGENT}
    assert {"width", "respelled", "newline", "nul-byte", "fields-swapped", "value", "token-merged"} <= kinds


# -- every pair ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", EQUIVALENT)
def test_equivalent_pair(capsys, name):
    entry = MANIFEST[name]
    code, report, err = run_pair(capsys, name)
    result = report["results"][0]
    assert (report["verdict"], result["verdict"]) == ("equivalent", "equivalent"), result
    assert result["method"] in entry["methods"], result
    assert result["divergences"] == []
    assert result["cases"] > 0
    assert code == 0 and err == ""
    assert report["command"] == "verify" and len(report["results"]) == 1


@pytest.mark.parametrize("name", DIVERGENT)
def test_divergent_pair(capsys, name):
    entry = MANIFEST[name]
    code, report, err = run_pair(capsys, name)
    result = report["results"][0]
    assert (report["verdict"], result["verdict"]) == ("divergent", "divergent"), result
    assert result["method"] is None
    assert result["divergences"], result
    first = result["divergences"][0]
    got = {k: first[k] for k in ("line", "column", "severity", "kind", "field")}
    want = {k: entry[k] for k in ("line", "column", "severity", "kind")}
    want["field"] = entry["field"] or None
    assert got == want, json.dumps(first, indent=1)
    if "worst_kind" in entry:
        assert (first.get("worst") or {}).get("kind") == entry["worst_kind"], json.dumps(first, indent=1)
    assert code == 1 and err == ""


@pytest.mark.parametrize("name", DIVERGENT)
def test_every_divergence_is_well_formed(capsys, name):
    """Each divergence: 1-based position inside the longer of the two lines, lines that differ,
    a counterexample, and a severity that only width drift can make cosmetic."""
    _, report, _ = run_pair(capsys, name)
    for d in report["results"][0]["divergences"]:
        assert d["line"] >= 1 and d["column"] >= 1
        assert d["expected"] != d["actual"], d
        assert isinstance(d["counterexample"], dict)
        assert d["severity"] in ("breaking", "cosmetic")
        if d["severity"] == "cosmetic":
            assert d["kind"] == "width", d


def test_an_output_line_is_reported_once(capsys):
    """One divergence per differing line, whatever the loop count: the label of a line (its text
    with values masked) must not change with the number of CPUs, or the same line is reported
    several times and only one copy carries the worst-case severity. (Same shape as the
    separator_moved pair, with uninterpreted calls that do not take an input.)"""
    old = (PAIRS / "separator_moved" / "old.c").read_text().replace("(i, j)", "(row, j)").replace("label(i)", "label(row)")
    new = (PAIRS / "separator_moved" / "new.c").read_text().replace("(i, j)", "(row, j)").replace("label(i)", "label(row)")
    from fmtcheck.engine.verdict import verify_sources
    from fmtcheck.common.options import Options

    result = verify_sources(old, new, Options(max_examples=50)).results[0]
    assert result.verdict == "divergent"
    lines = [d.line for d in result.divergences]
    assert lines == [1], [(d.line, d.column, d.severity, d.kind) for d in result.divergences]
    assert result.divergences[0].severity == "breaking"


# -- determinism ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fields_swapped", "separator_moved", "cpu_loop_braces"])
def test_same_seed_same_report(capsys, name):
    first = run_pair(capsys, name, "--seed", "1234")
    second = run_pair(capsys, name, "--seed", "1234")
    assert first == second


def test_equivalent_pair_stays_equivalent_across_seeds(capsys):
    pair = PAIRS / "cpu_loop_nobraces"
    for seed in range(20):
        code, report, _ = verify(capsys, pair / "old.c", pair / "new.c", "--seed", str(seed), "--max-examples", "20")
        assert code == 0 and report["verdict"] == "equivalent", (seed, report)


def test_divergence_is_found_whatever_the_seed(capsys):
    """The deterministic sweep finds the LLONG_MIN case even when Hypothesis does not."""
    pair = PAIRS / "llong_min"
    for seed in (0, 1, 99):
        code, report, _ = verify(capsys, pair / "old.c", pair / "new.c", "--seed", str(seed), "--max-examples", "5")
        assert code == 1, (seed, report)
        assert report["results"][0]["divergences"][0]["counterexample"] == {"di->offset": -(1 << 63)}


# -- --function and text output ------------------------------------------------------------


def test_function_option_picks_one_of_several(tmp_path, capsys):
    old = (PAIRS / "straight" / "old.c").read_text() + (PAIRS / "zero_padding" / "old.c").read_text()
    new = (PAIRS / "straight" / "new.c").read_text() + (PAIRS / "zero_padding" / "new.c").read_text()
    (tmp_path / "old.c").write_text(old)
    (tmp_path / "new.c").write_text(new)
    code, report, _ = verify(capsys, tmp_path / "old.c", tmp_path / "new.c")
    assert code == 1 and {r["subject"]: r["verdict"] for r in report["results"]} == {
        "blkq_stats_show": "equivalent", "cache_info_show": "divergent"}
    code, report, _ = verify(capsys, tmp_path / "old.c", tmp_path / "new.c", "--function", "blkq_stats_show")
    assert code == 0 and [r["subject"] for r in report["results"]] == ["blkq_stats_show"]
    code, report, err = verify(capsys, tmp_path / "old.c", tmp_path / "new.c", "--function", "no_such_show")
    assert code == 2 and report["verdict"] == "error" and report["results"] == []
    assert err.startswith("fmtcheck: error: ") and err.count("\n") == 1 and "no_such_show" in err


CHAIN_OLD = b"""static int chain_show(struct seq_file *m, void *v)
{
	struct item *p, *q;

	p = first_item(m);
	while (p) {
		q = p;
		p = p->next;
		seq_printf(m, "%u\\n", q->value);
	}
	return 0;
}
"""
CHAIN_NEW = CHAIN_OLD.replace(b'seq_printf(m, "%u\\n", q->value);',
                              b'seq_put_decimal_ull(m, "", q->value); seq_putc(m, \'\\n\');')


def test_verify_writes_nothing_in_the_working_directory(tmp_path):
    """A check is read-only: no Hypothesis cache (.hypothesis/) or other file appears in the
    directory the user runs fmtcheck from. The pair is a pointer-chain walk written as a while
    loop that advances before it prints, which is tested, not proven (`for (p = X; p; p = p->next)`
    and a while loop that advances last are proven by induction), so the Hypothesis search runs (without its private home it writes .hypothesis/ there).
    (A subprocess: under pytest, Hypothesis has already fixed its directory.)"""
    src, cwd = tmp_path / "src", tmp_path / "cwd"
    src.mkdir()
    cwd.mkdir()
    (src / "old.c").write_bytes(CHAIN_OLD)
    (src / "new.c").write_bytes(CHAIN_NEW)
    assert CHAIN_NEW != CHAIN_OLD
    proc = subprocess.run([sys.executable, "-m", "fmtcheck", "verify", str(src / "old.c"), str(src / "new.c"),
                           "--max-examples", "10"], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Hypothesis-generated" in proc.stdout, proc.stdout  # the search this test is about ran
    assert sorted(p.name for p in cwd.iterdir()) == []


def test_text_report_of_a_divergent_pair(capsys):
    pair = PAIRS / "zero_padding"
    code = main(["verify", str(pair / "old.c"), str(pair / "new.c"), "--color", "never", "--max-examples", "20"])
    out = capsys.readouterr().out
    assert code == 1
    assert "line 1, column 17, field ci->total: breaking (respelled)" in out
    assert "CacheTotal:·····00000000·kB" in out
    assert out.rstrip().endswith("divergent: 1 divergent")


# -- bad input: exit 2, one line on stderr -------------------------------------------------

PROSE = (
    "This file describes how the statistics are printed. The show function walks every\n"
    "device and prints one line for each of them, with the counters in a fixed order.\n"
    "Nothing here is code; it is only an English paragraph.\n"
)


def _bad_inputs(tmp_path: Path) -> dict[str, Path]:
    prose = tmp_path / "prose.c"
    prose.write_text(PROSE)
    empty = tmp_path / "empty.c"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.c"
    blank.write_bytes(b"\n  \n\t\n")
    binary = tmp_path / "binary.c"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    noisy = tmp_path / "noise.c"
    noisy.write_bytes(bytes((i * 37 + 11) % 256 for i in range(1, 2000) if (i * 37 + 11) % 256))
    directory = tmp_path / "adir.c"
    directory.mkdir()
    return {"prose": prose, "empty": empty, "blank": blank, "binary": binary, "noise": noisy,
            "directory": directory, "missing": tmp_path / "does-not-exist.c"}


@pytest.mark.parametrize("kind", ["prose", "empty", "blank", "binary", "noise", "directory", "missing"])
@pytest.mark.parametrize("side", ["old", "new"])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, kind, side):
    bad = _bad_inputs(tmp_path)[kind]
    good = PAIRS / "straight" / "old.c"
    old, new = (bad, good) if side == "old" else (good, bad)
    code, report, err = verify(capsys, old, new)
    assert code == 2, (code, report, err)
    assert report["verdict"] == "error" and report["exit_status"] == 2 and report["results"] == []
    assert err.startswith("fmtcheck: error: "), err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert bad.name in err
    assert "internal" not in err, err


def test_usage_errors_exit_2_with_one_line(capsys):
    for argv in (["verify"], ["verify", "a.c", "b.c", "--format", "xml"], ["verify", "a.c", "b.c", "--seed", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith("fmtcheck: error: ") and err.count("\n") == 1, (argv, err)


def test_function_that_does_not_print_is_bad_input(tmp_path, capsys):
    (tmp_path / "a.c").write_text("static int add(int a, int b)\n{\n\treturn a + b;\n}\n")
    code, report, err = verify(capsys, tmp_path / "a.c", PAIRS / "straight" / "new.c")
    assert code == 2 and report["verdict"] == "error" and err.startswith("fmtcheck: error: ") and err.count("\n") == 1


# -- unsupported constructs: exit 3, the report names the construct and where ---------------

UNSUPPORTED = {
    "%pI4": (
        "static int peer_show(struct seq_file *m, void *v)\n{\n\tstruct peer *p = v;\n\n"
        "\tseq_printf(m, \"peer: %pI4 port %u\\n\", &p->addr, p->port);\n\treturn 0;\n}\n",
        "%pI4", 5,
    ),
    "fnptr": (
        "static int gstat_show(struct seq_file *m, void *v)\n{\n\tstruct gstat *g = v;\n\n"
        "\tg->ops->show_extra(m, g);\n\tseq_printf(m, \"g: %lu\\n\", g->count);\n\treturn 0;\n}\n",
        "function pointer", 5,
    ),
    "asm": (
        "static int tsc_show(struct seq_file *m, void *v)\n{\n\tunsigned long lo;\n\n"
        "\tasm volatile(\"rdtsc\" : \"=a\" (lo));\n\tseq_printf(m, \"tsc: %lu\\n\", lo);\n\treturn 0;\n}\n",
        "assembl", 5,
    ),
}
REWRITES = {
    "%pI4": "static int peer_show(struct seq_file *m, void *v)\n{\n\tstruct peer *p = v;\n\n"
            "\tseq_puts(m, \"peer: \");\n\tpeer_print_addr(m, &p->addr);\n\tseq_put_decimal_ull(m, \" port \", p->port);\n"
            "\tseq_putc(m, '\\n');\n\treturn 0;\n}\n",
    "fnptr": "static int gstat_show(struct seq_file *m, void *v)\n{\n\tstruct gstat *g = v;\n\n"
             "\tseq_put_decimal_ull(m, \"g: \", g->count);\n\tseq_putc(m, '\\n');\n\treturn 0;\n}\n",
    "asm": "static int tsc_show(struct seq_file *m, void *v)\n{\n\tunsigned long lo = rdtsc_lo();\n\n"
           "\tseq_put_decimal_ull(m, \"tsc: \", lo);\n\tseq_putc(m, '\\n');\n\treturn 0;\n}\n",
}


@pytest.mark.parametrize("construct", sorted(UNSUPPORTED))
@pytest.mark.parametrize("side", ["old", "new"])
def test_unsupported_construct_exits_3_naming_it(tmp_path, capsys, construct, side):
    text, needle, line = UNSUPPORTED[construct]
    (tmp_path / "unsupported.c").write_text(text)
    (tmp_path / "plain.c").write_text(REWRITES[construct])
    files = ("unsupported.c", "plain.c") if side == "old" else ("plain.c", "unsupported.c")
    code, report, err = verify(capsys, tmp_path / files[0], tmp_path / files[1])
    assert code == 3, (code, report, err)
    result = report["results"][0]
    assert report["verdict"] == result["verdict"] == "inconclusive"
    assert needle in result["reason"], result["reason"]
    assert f"unsupported.c:{line}" in result["reason"], result["reason"]
    assert err == ""


def test_unsupported_construct_in_text_mode(tmp_path, capsys):
    text, _, _ = UNSUPPORTED["fnptr"]
    (tmp_path / "a.c").write_text(text)
    (tmp_path / "b.c").write_text(REWRITES["fnptr"])
    code = main(["verify", str(tmp_path / "a.c"), str(tmp_path / "b.c")])
    out = capsys.readouterr().out
    assert code == 3 and "call through a function pointer" in out and "a.c:5" in out


GOTO_OLD = ("static int gstat_show(struct seq_file *m, void *v)\n{\n\tstruct gstat *g = v;\n\n"
            "\tif (!g->valid)\n\t\tgoto out;\n\tseq_printf(m, \"g: %lu\\n\", g->count);\nout:\n\treturn 0;\n}\n")


@pytest.mark.parametrize("new_body,verdict", [
    ("\tif (g->valid) {\n\t\tseq_put_decimal_ull(m, \"g: \", g->count);\n\t\tseq_putc(m, '\\n');\n\t}\n", "equivalent"),
    ("\tif (g->valid)\n\t\tseq_put_decimal_ull(m, \"g: \", g->count);\n", "divergent"),
])
def test_goto_to_a_label_is_modelled(tmp_path, capsys, new_body, verdict):
    """`goto out;` to a label of the same function (the kernel's error-exit idiom) runs as C."""
    new = "static int gstat_show(struct seq_file *m, void *v)\n{\n\tstruct gstat *g = v;\n\n" + new_body + "\treturn 0;\n}\n"
    (tmp_path / "a.c").write_text(GOTO_OLD)
    (tmp_path / "b.c").write_text(new)
    code, report, _ = verify(capsys, tmp_path / "a.c", tmp_path / "b.c")
    assert report["results"][0]["verdict"] == verdict, report
