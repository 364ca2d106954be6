"""The `fmtcheck` fixture: one method per question, a Report when it passes, the report as the
failure when it does not. Each test writes a small test module and runs it in an inner session."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

DIVERGENT_LINE = "actual:   ······:········0"

OLD_C = '''
static int foo_show(struct seq_file *m, void *v)
{
	struct foo *f = v;

	seq_printf(m, "%6s: %7llu\\n", f->name, f->count);
	return 0;
}
'''


def _run(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_questions=body)
    return pytester.runpytest(*args)


def test_verify_files_pass_and_return_the_report(workdir: pytest.Pytester) -> None:
    result = _run(workdir, """
        def test_equivalent(fmtcheck):
            report = fmtcheck.verify("sources/foo_old.c", "sources/foo_new.c")
            assert report.verdict == "equivalent"
            assert report.results[0].method == "proven"
    """)
    result.assert_outcomes(passed=1)


def test_verify_failure_is_the_report(workdir: pytest.Pytester) -> None:
    result = _run(workdir, """
        from pathlib import Path

        def test_divergent(fmtcheck):
            fmtcheck.verify(Path("sources/foo_old.c"), Path("sources/foo_new_width8.c"))
    """, "--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    assert DIVERGENT_LINE in (workdir.path / "out.xml").read_text(encoding="utf-8")
    failure = ET.parse(workdir.path / "out.xml").getroot().find(".//failure")
    assert failure is not None
    assert failure.get("message", "").splitlines()[0] == "line 1, column 15, field f->count: cosmetic (width)"
    result.stdout.fnmatch_lines(["FAILED test_questions.py::test_divergent - line 1, column 15, *"])
    text = result.stdout.str()
    assert DIVERGENT_LINE in text
    assert "line 1, column 15, field f->count: cosmetic (width)" in text
    assert "counterexample: all inputs 0" in text
    result.stdout.fnmatch_lines(["test_questions.py:4: fmtcheck.verify() failed"])
    assert "plugin.py" not in text


def test_verify_strings_and_function(workdir: pytest.Pytester) -> None:
    """C text given inline (str with newlines, bytes, or a one-line fragment)."""
    body = "from pathlib import Path\n\nOLD = " + repr(OLD_C) + """

def test_inline(fmtcheck):
    new = Path("sources/foo_new.c").read_bytes()
    report = fmtcheck.verify(OLD, new, function="foo_show")
    assert [r.subject for r in report.results] == ["foo_show"]

def test_fragments(fmtcheck):
    fmtcheck.verify('seq_printf(m, "%llu\\\\n", x);', 'seq_put_decimal_ull(m, "", x); seq_putc(m, 10);')
"""
    _run(workdir, body).assert_outcomes(passed=2)


def test_failure_is_an_assertion_error(workdir: pytest.Pytester) -> None:
    """So `pytest.raises(AssertionError)` and `FmtcheckFailure.report` both work."""
    result = _run(workdir, """
        import pytest
        from fmtcheck.plugin import FmtcheckFailure

        def test_raises(fmtcheck):
            with pytest.raises(AssertionError) as info:
                fmtcheck.verify("sources/foo_old.c", "sources/foo_new_width8.c")
            assert isinstance(info.value, FmtcheckFailure)
            assert info.value.report.verdict == "divergent"
            assert "········0" in str(info.value)
    """)
    result.assert_outcomes(passed=1)


def test_fail_on_option_and_marker(workdir: pytest.Pytester) -> None:
    body = """
        import pytest

        def test_option(fmtcheck):
            fmtcheck.verify("sources/foo_old.c", "sources/foo_new_width8.c")

        @pytest.mark.fmtcheck(fail_on="breaking")
        def test_marker(fmtcheck):
            report = fmtcheck.verify("sources/foo_old.c", "sources/foo_new_width8.c")
            assert report.verdict == "divergent"
    """
    _run(workdir, body).assert_outcomes(passed=1, failed=1)
    workdir.runpytest("--fmtcheck-fail-on=breaking").assert_outcomes(passed=2)


def test_inconclusive_is_xfail_unless_strict(workdir: pytest.Pytester) -> None:
    body = """
        OLD = 'seq_printf(m, "%pI4\\\\n", &addr);'
        NEW = 'seq_printf(m, "%pI6c\\\\n", &addr);'

        def test_peer(fmtcheck):
            fmtcheck.verify(OLD, NEW)
    """
    result = _run(workdir, body, "-rx")
    result.assert_outcomes(xfailed=1)
    result.stdout.fnmatch_lines(["*fmtcheck inconclusive: *%pI4*"])
    workdir.runpytest("--fmtcheck-strict").assert_outcomes(failed=1)


def test_marker_sets_examples_and_seed(workdir: pytest.Pytester) -> None:
    result = _run(workdir, """
        import pytest

        @pytest.mark.fmtcheck(max_examples=5, seed=1234)
        def test_marked(fmtcheck):
            assert fmtcheck.settings.max_examples == 5
            assert fmtcheck.settings.seed == 1234
            fmtcheck.verify("sources/foo_old.c", "sources/foo_new.c")

        def test_option(fmtcheck):
            assert fmtcheck.settings.max_examples == 17

        @pytest.mark.fmtcheck(colour="red")
        def test_unknown(fmtcheck):
            pass
    """, "--fmtcheck-max-examples=17")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*unknown argument(s) colour*"])


def test_patch(workdir: pytest.Pytester) -> None:
    result = _run(workdir, """
        def test_equivalent(fmtcheck):
            report = fmtcheck.patch("queue/0001-equivalent.patch")
            assert report.results[0].subject.endswith("drivers/foo/foo_proc.c:foo_show")

        def test_nothing(fmtcheck):
            assert fmtcheck.patch("queue/0003-nothing-to-check.patch").verdict == "nothing-to-check"

        def test_divergent(fmtcheck):
            fmtcheck.patch("queue/0002-divergent.patch")
    """)
    result.assert_outcomes(passed=2, failed=1)
    assert DIVERGENT_LINE in result.stdout.str()
    result.stdout.fnmatch_lines(["*fmtcheck.patch() failed"])


def test_check_capture_against_grammar(workdir: pytest.Pytester) -> None:
    result = _run(workdir, """
        from pathlib import Path

        def test_file(fmtcheck):
            assert fmtcheck.check("captures/net_dev.txt", grammar="net_dev").verdict != "divergent"

        def test_text(fmtcheck):
            text = Path("captures/net_dev.txt").read_text()
            report = fmtcheck.check(text, grammar="net_dev")
            assert all("fmtcheck-" not in r.subject for r in report.results)

        def test_text_one_space_short(fmtcheck):
            text = Path("captures/net_dev.txt").read_text()
            fmtcheck.check(text.replace("1234567   12345", "1234567  12345"), grammar="net_dev")
    """)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["<capture>: divergent*", "*····lo:·1234567··12345*", "*fmtcheck.check() failed"])


def test_diff_of_two_captures(workdir: pytest.Pytester) -> None:
    """Same layout passes; `%6s:%8llu` glueing the name to rx_bytes fails with the report."""
    result = _run(workdir, """
        from pathlib import Path

        def test_same(fmtcheck):
            fmtcheck.diff("captures/net_dev.txt", Path("captures/net_dev.txt").read_bytes())

        def test_glued(fmtcheck):
            fmtcheck.diff("captures/net_dev.txt", "captures/net_dev_glued.txt")
    """)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*divergent*", "*eth0:4046496815*", "*fmtcheck.diff() failed"])
