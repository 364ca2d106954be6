"""Every subcommand's JSON output, on every fixture, validates against docs/fmtcheck-report.schema.json.

The runs go through `fmtcheck.cli.main` as a user would run them; errors in JSON mode are JSON on
stdout too, so the bad fixtures are validated as well.
"""

from __future__ import annotations

import json
import tomllib

import pytest

jsonschema = pytest.importorskip("jsonschema")

from fmtcheck.cli import main  # noqa: E402
from _paths import FIXTURES, ROOT  # noqa: E402

SCHEMA = json.loads((ROOT / "docs" / "fmtcheck-report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PATCHES = FIXTURES / "patches"
TREE = FIXTURES / "tree"
MANIFEST = tomllib.loads((PATCHES / "EXPECTED.toml").read_text())
FAST = ["--max-examples", "10"]


def run_json(capsys, *argv: object) -> tuple[int, dict]:
    code = main([str(a) for a in argv] + ["--format", "json"])
    out = capsys.readouterr().out
    document = json.loads(out)
    errors = sorted(VALIDATOR.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    assert document["exit_status"] == code
    return code, document


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def _pairs() -> list:
    pairs = sorted(p for p in (FIXTURES / "pairs").iterdir() if (p / "old.c").exists())
    return [pytest.param(p / "old.c", p / "new.c", id=p.name) for p in pairs] + [
        pytest.param(FIXTURES / "example" / "old.c", FIXTURES / "example" / new, id=f"example-{new}")
        for new in ("new.c", "new-divergent.c", "new-glued.c")
    ]


@pytest.mark.parametrize(("old", "new"), _pairs())
def test_verify(capsys, old, new) -> None:
    code, document = run_json(capsys, "verify", old, new, *FAST)
    assert document["command"] == "verify" and document["seed"] == 0
    assert document["inputs"] == [str(old), str(new)]
    assert code in (0, 1, 3)


def test_verify_keeps_every_key_when_proven(capsys) -> None:
    code, document = run_json(capsys, "verify", FIXTURES / "example" / "old.c", FIXTURES / "example" / "new.c")
    result = document["results"][0]
    assert code == 0 and result["method"] == "proven"
    assert result["notes"] == [] and result["location"] is None and result["divergences"] == []


@pytest.mark.parametrize("entry", MANIFEST["patch"], ids=lambda e: e["file"])
def test_patch(capsys, entry) -> None:
    tree = ["--tree", TREE] if entry.get("tree") else []
    code, document = run_json(capsys, "patch", PATCHES / entry["file"], *tree, *FAST)
    assert code == entry["exit"] and document["verdict"] == entry["verdict"]
    assert all(r["patch"] == str(PATCHES / entry["file"]) for r in document["results"])


@pytest.mark.parametrize("entry", MANIFEST["error"], ids=lambda e: e["file"])
def test_patch_errors(capsys, entry) -> None:
    tree = ["--tree", TREE] if entry.get("tree") else []
    code, document = run_json(capsys, "patch", PATCHES / entry["file"], *tree)
    assert code == 2 and document["verdict"] == "error" and document["results"] == []
    assert document["errors"][0]["exit_status"] == 2 and entry["where"] in document["errors"][0]["where"]


def test_patch_with_a_bad_input_among_good_ones(capsys) -> None:
    good, bad = PATCHES / "02-queue-width.diff", PATCHES / "bad" / "empty.patch"
    code, document = run_json(capsys, "patch", good, bad, *FAST)
    assert code == 2 and document["verdict"] == "divergent"
    assert [e["input"] for e in document["errors"]] == [str(bad)]
    assert {r["input"] for r in document["results"]} == {str(good)}


@pytest.mark.parametrize("capture", sorted(p.name for p in (FIXTURES / "captures").iterdir()))
def test_check(capsys, capture) -> None:
    code, document = run_json(capsys, "check", FIXTURES / "captures" / capture)
    assert code in (0, 1, 2, 3) and document["seed"] is None


@pytest.mark.parametrize("capture", sorted(p.name for p in (FIXTURES / "consumers").iterdir() if p.suffix == ".txt"))
def test_check_consumer_captures(capsys, capture) -> None:
    run_json(capsys, "check", FIXTURES / "consumers" / capture)


@pytest.mark.parametrize(("old", "new"), [("net_dev_current", "net_dev_added_iface"),
                                          ("net_dev_old_layout", "net_dev_current"),
                                          ("net_dev_current", "net_dev_current")])
def test_diff(capsys, old, new) -> None:
    code, document = run_json(capsys, "diff", FIXTURES / "captures" / old, FIXTURES / "captures" / new)
    assert all(r["grammar"] for r in document["results"])


def test_grammars(capsys) -> None:
    code, document = run_json(capsys, "grammars")
    names = [g["name"] for g in document["grammars"]]
    assert code == 0 and "net_dev" in names
    for name in names:
        code, shown = run_json(capsys, "grammars", name)
        assert code == 0 and shown["grammars"][0]["name"] == name


@pytest.mark.parametrize("extra", [["--bufsize", "64", "--check", "--max-examples", "5"],
                                   ["--bufsize", "7", "--bufsize", "4096", "--split", "file"],
                                   ["--records", "10,20,4000", "--bufsize", "64", "--model"]],
                         ids=["check", "split-file", "records"])
def test_reads(capsys, extra) -> None:
    code, document = run_json(capsys, "reads", FIXTURES / "captures" / "net_dev_current", *extra)
    assert document["command"] == "reads" and document["seed"] == 0


# --- the fixtures the tests above do not name --------------------------------------------------------

HOSTILE = FIXTURES / "hostile"
PLUGIN = FIXTURES / "plugin"


@pytest.mark.parametrize("source", sorted(p.name for p in HOSTILE.glob("*.c")))
def test_verify_hostile_sources(capsys, source) -> None:
    code, document = run_json(capsys, "verify", HOSTILE / source, HOSTILE / "plain.c", *FAST)
    assert (code == 2) == (document["verdict"] == "error")


@pytest.mark.parametrize(("old", "new"), [("old.c", "new.c"), ("old.c", "new-bad.c")])
def test_verify_own_primitives(capsys, old, new) -> None:
    run_json(capsys, "verify", FIXTURES / "own_primitive" / old, FIXTURES / "own_primitive" / new, *FAST)


@pytest.mark.parametrize(("old", "new"), [("foo_old.c", "foo_new.c"), ("foo_old.c", "foo_new_width8.c")])
def test_verify_plugin_sources(capsys, old, new) -> None:
    run_json(capsys, "verify", PLUGIN / "sources" / old, PLUGIN / "sources" / new, *FAST)


@pytest.mark.parametrize("patch", [*sorted(HOSTILE.glob("*.patch")), PLUGIN / "bad.patch",
                                   *sorted((PLUGIN / "queue").iterdir())], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_patch_other_fixtures(capsys, patch) -> None:
    code, document = run_json(capsys, "patch", patch, *FAST)
    assert (code == 2) == bool(document["errors"])


def test_every_patch_fixture_is_validated() -> None:
    """The manifest-driven tests above cover every file in fixtures/patches and its bad/."""
    named = {entry["file"] for entry in MANIFEST["patch"] + MANIFEST["error"]}
    present = {str(p.relative_to(PATCHES)) for p in PATCHES.rglob("*")
               if p.is_file() and p.name not in ("EXPECTED.toml", "regenerate.py", ".gitattributes")}
    assert present <= named, sorted(present - named)


@pytest.mark.parametrize("capture", sorted(p.name for p in (FIXTURES / "captures" / "real").iterdir()
                                           if p.name not in ("CREDITS.md", "INDEX.tsv")))
def test_check_real_captures(capsys, capture) -> None:
    run_json(capsys, "check", FIXTURES / "captures" / "real" / capture)


@pytest.mark.parametrize("capture", sorted((PLUGIN / "captures").iterdir()), ids=lambda p: p.name)
def test_check_plugin_captures(capsys, capture) -> None:
    run_json(capsys, "check", capture)


def test_range(capsys, tmp_path) -> None:
    """`range` over a throw-away repository: a divergent commit after an equivalent one."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": __import__("os").environ["PATH"]}
    source = (PLUGIN / "sources" / "foo_old.c").read_bytes()

    def commit(text: bytes, message: str) -> str:
        (tmp_path / "foo.c").write_bytes(text)
        subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], env=env, check=True)
        subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "-m", message], env=env, check=True)
        return subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    subprocess.run(["git", "-C", str(tmp_path), "init", "-q", "-b", "main"], env=env, check=True)
    base = commit(source, "base")
    commit((PLUGIN / "sources" / "foo_new.c").read_bytes(), "rewrite")
    commit((PLUGIN / "sources" / "foo_new_width8.c").read_bytes(), "wider")
    code, document = run_json(capsys, "range", f"{base}..HEAD", "--tree", tmp_path, *FAST)
    assert document["command"] == "range" and len(document["results"]) >= 2
    (divergence,) = [d for r in document["results"] for d in r["divergences"]]
    for side in ("old", "new"):  # the file's lines; a commit is no patch file to name lines of
        assert divergence["source"][side]["file"] == "foo.c" and divergence["source"][side]["patch"] is None
    code, document = run_json(capsys, "range", "no-such-revision..HEAD", "--tree", tmp_path)
    assert code == 2 and document["verdict"] == "error"


@pytest.mark.parametrize("argv", [["verify"], ["patch", "--no-such-option", "x"], ["check", "/nonexistent"],
                                  ["diff", "/nonexistent", "/nonexistent2"], ["grammars", "no_such_grammar"]])
def test_errors_are_json_on_stdout(capsys, argv) -> None:
    try:
        code = main(argv + ["--format", "json"])
    except SystemExit as exit:  # argparse's usage errors end the process
        code = exit.code
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert not list(VALIDATOR.iter_errors(document))
    assert code == 2 == document["exit_status"] and document["verdict"] == "error"
    assert captured.err.startswith("fmtcheck: error: ") and captured.err.count("\n") == 1
