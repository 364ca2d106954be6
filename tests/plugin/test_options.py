"""Seeds, determinism and start-up cost: the plugin is loaded into every pytest run, so it must be
cheap to import and must not make a CI run differ from the last one."""

from __future__ import annotations

import subprocess
import sys
import zlib

import pytest

from fmtcheck.plugin import seed_from

HEAVY = ("tree_sitter", "tree_sitter_c", "fmtcheck.engine.verdict", "fmtcheck.c.program", "fmtcheck.patch.plan",
         "fmtcheck.layout.capture", "fmtcheck.layout.diff", "fmtcheck.c.cfront", "hypothesis.core")

SHOW_SEED = """
def test_seed(fmtcheck):
    print("SEED", fmtcheck.settings.seed, fmtcheck.settings.seed_source)
"""


def test_importing_the_plugin_loads_no_engine() -> None:
    """A fresh interpreter: only the plugin and its light helpers may appear."""
    code = "import sys, fmtcheck.plugin; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    assert not loaded & set(HEAVY)


def test_a_pytest_run_without_questions_loads_no_engine(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(f"""
        import sys

        def test_nothing_heavy():
            assert not set(sys.modules) & {set(HEAVY)!r}
    """)
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_ci_fixes_the_seed_at_zero(workdir: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    workdir.makepyfile(SHOW_SEED)
    workdir.runpytest("-s").stdout.fnmatch_lines(["*SEED 0 CI is set*"])


def test_hypothesis_seed_wins(workdir: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    workdir.makepyfile(SHOW_SEED)
    result = workdir.runpytest("-s", "--hypothesis-seed=42")
    result.stdout.fnmatch_lines(["*SEED 42 --hypothesis-seed*"])


def test_text_seeds_hash_stably() -> None:
    assert seed_from("42") == 42
    assert seed_from("review") == zlib.crc32(b"review")


def test_local_seed_is_random_and_reported(workdir: pytest.Pytester) -> None:
    """Outside CI each session explores new inputs; the failure says how to replay them."""
    workdir.makeini("[pytest]\nfmtcheck_patches = queue/0002-divergent.patch\n")
    result = workdir.runpytest()
    result.stdout.fnmatch_lines([
        "fmtcheck: patches queue/0002-divergent.patch; seed * (random), max examples 200, fail on any",
        "fmtcheck seed * (random); reproduce with --hypothesis-seed=*",
    ])


def test_xdist_workers_share_the_controllers_seed(workdir: pytest.Pytester) -> None:
    workdir.makeconftest("""
        from pathlib import Path
        from fmtcheck.plugin import SETTINGS_KEY

        def pytest_sessionstart(session):
            worker = getattr(session.config, "workerinput", {}).get("workerid", "controller")
            Path("seed-" + worker).write_text(str(session.config.stash[SETTINGS_KEY].seed))
    """)
    workdir.makepyfile("def test_a(): pass\ndef test_b(): pass\n")
    workdir.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider").assert_outcomes(passed=2)
    seeds = {p.name: p.read_text() for p in workdir.path.glob("seed-*")}
    assert len(seeds) == 3 and len(set(seeds.values())) == 1, seeds


def test_ini_defaults(workdir: pytest.Pytester) -> None:
    workdir.makeini("[pytest]\nfmtcheck_max_examples = 9\nfmtcheck_fail_on = breaking\nfmtcheck_strict = true\n")
    workdir.makepyfile("""
        def test_settings(fmtcheck):
            s = fmtcheck.settings
            assert (s.max_examples, s.fail_on, s.strict) == (9, "breaking", True)
    """)
    workdir.runpytest().assert_outcomes(passed=1)


def test_bad_option_values_are_usage_errors(workdir: pytest.Pytester) -> None:
    result = workdir.runpytest("--fmtcheck-max-examples=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fmtcheck-max-examples must be at least 1*"])
