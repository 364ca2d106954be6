"""The house rules of the package layout (README, "How it works"), checked rather than hoped for.

Layers are import-linter contracts in pyproject.toml; these tests run them, show that a deliberate
back-import breaks them, and check the rules import-linter does not express: no private name
imported across modules, and modules and classes small enough to read.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys

import pytest

from _paths import ROOT

PACKAGE = ROOT / "fmtcheck"
MAX_MODULE_LINES = 800
MAX_CLASS_LINES = 400


def lint_imports(tree=ROOT) -> subprocess.CompletedProcess:
    """Run the contracts of pyproject.toml over the package in TREE (import-linter looks in its cwd)."""
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([exe, "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120)


def test_the_layer_contracts_hold():
    run = lint_imports()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_kernel_module_importing_the_engine_breaks_the_contracts(tmp_path):
    copy = tmp_path / "fmtcheck"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = copy / "kernel" / "constants.py"
    target.write_text(target.read_text() + "\nfrom fmtcheck.engine import verdict  # noqa: F401\n")
    run = lint_imports(tmp_path)
    assert run.returncode != 0
    assert "fmtcheck.kernel.constants -> fmtcheck.engine.verdict" in run.stdout


def python_modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_private_name_is_imported_across_modules():
    offenders = []
    for path in python_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fmtcheck"):
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert not offenders, "make these public where they are defined:\n" + "\n".join(offenders)


def test_modules_and_classes_stay_readable():
    too_big = []
    for path in python_modules():
        text = path.read_text()
        if text.count("\n") > MAX_MODULE_LINES:
            too_big.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines (> {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                too_big.append(f"{path.relative_to(ROOT)}: class {node.name} has "
                               f"{node.end_lineno - node.lineno + 1} lines (> {MAX_CLASS_LINES})")
    assert not too_big, "split by concern:\n" + "\n".join(too_big)


def test_the_facade_is_small_and_lazy():
    code = "import sys, fmtcheck; print(sorted(m for m in sys.modules if m.startswith('fmtcheck')))"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "['fmtcheck']", run.stdout + run.stderr


def test_the_check_and_diff_paths_import_no_parser():
    """A run whose grammar comes from the cache never parses one: pyparsing (50-60 ms to import,
    more than cmp takes on 100,000 net/dev lines) stays out of the check and diff paths."""
    code = ("import sys; import fmtcheck.cli, fmtcheck.layout.capture, fmtcheck.layout.diff; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pyparsing'))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "[]", run.stdout + run.stderr


def test_the_check_and_diff_paths_import_only_what_matching_needs():
    """`fmtcheck check` / `diff` start in what cmp takes for a few MB (issue #17): their modules
    import no RE2 (imported when a plan is first built: the native matcher or a small capture never
    needs it), no DFA builder (`automaton`: only when a record table is built for the cache), no
    solver, C parser or search library, and no other front end."""
    heavy = ("re2", "fmtcheck.layout.automaton", "z3", "tree_sitter", "tree_sitter_c", "hypothesis", "unidiff",
             "tqdm", "fmtcheck.engine", "fmtcheck.c", "fmtcheck.patch", "fmtcheck.impact", "fmtcheck.reads")
    code = ("import sys; import fmtcheck.cli, fmtcheck.layout.capture, fmtcheck.layout.diff; "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "[]", run.stdout + run.stderr


def test_the_check_and_diff_paths_import_no_file_utilities():
    """importlib.resources (tempfile, shutil, zipfile, ~13 ms of start-up) stays out of the check
    and diff paths: grammars are read from their directory, and tempfile is imported only to fill
    the cache. Run without site (-S), which may import them itself (a certifi .pth does)."""
    code = ("import sys; import fmtcheck.cli, fmtcheck.layout.capture, fmtcheck.layout.diff; "
            "print(sorted(m for m in ('tempfile', 'shutil', 'zipfile', 'importlib.resources') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env=env)
    assert run.stdout.strip() == "[]", run.stdout + run.stderr


def test_a_check_and_a_diff_start_without_dataclasses_typing_argparse_or_pathlib(tmp_path):
    """What a check or a diff imports once its grammar is cached (issue #17: start-up is most of a
    check of 14 MB, where cmp takes ~8 ms of CPU): no `dataclasses` (with `inspect`, ~13 ms, and
    0.5-1.5 ms per class: the path's classes are `fmtcheck.common.plain`), no `typing`, no
    `argparse` (`cli.quick_args`), no `pathlib` or `hashlib` (OpenSSL)."""
    capture = str(ROOT / "fixtures" / "captures" / "net_dev_current")
    code = ("import sys; from fmtcheck.cli import main; main(sys.argv[1:]); print(sorted(m for m in "
            "('dataclasses', 'typing', 'argparse', 'inspect', 'pathlib', 'hashlib') if m in sys.modules), "
            "file=sys.stderr)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), FMTCHECK_CACHE_DIR=str(tmp_path / "cache"))
    for argv in (["check", capture], ["diff", capture, capture]):
        # the first run fills the grammar cache (a parse imports pyparsing, which imports typing); the
        # second runs without site (-S), whose .pth files (an editable finder) may import them themselves
        for flags in ([], ["-S"]):
            run = subprocess.run([sys.executable, *flags, "-c", code, *argv], cwd=tmp_path, capture_output=True,
                                 text=True, timeout=60, env=env)
        assert run.returncode == 0 and run.stderr.strip() == "[]", run.stdout + run.stderr
