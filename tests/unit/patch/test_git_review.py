"""Git-native review: `fmtcheck range`, `--tree .` from anywhere in a checkout, base commits, the
already-applied hint and git's own spellings (C-quoted paths, renames, binary and mode changes).

Every test builds its own repository with `git init` in a temporary directory, from C files
written here; commits have fixed dates so that ids are the same on every run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from fmtcheck import cli
from fmtcheck.common.errors import InputError
from fmtcheck.patch import git
from fmtcheck.patch.patchfile import parse_patch_bytes, unquote_git_path

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SHOW_PRINTF = b"""/* demo counters */
struct demo { const char *name; unsigned long reads; unsigned long writes; };

static int demo_show(struct seq_file *m, void *v)
{
\tstruct demo *d = v;

\tseq_printf(m, "%s: %8lu %8lu\\n", d->name, d->reads, d->writes);
\treturn 0;
}
"""

SHOW_PUTS = b"""/* demo counters */
struct demo { const char *name; unsigned long reads; unsigned long writes; };

static int demo_show(struct seq_file *m, void *v)
{
\tstruct demo *d = v;

\tseq_puts(m, d->name);
\tseq_putc(m, ':');
\tseq_put_decimal_ull_width(m, " ", d->reads, 8);
\tseq_put_decimal_ull_width(m, " ", d->writes, 8);
\tseq_putc(m, '\\n');
\treturn 0;
}
"""

SHOW_NARROW = SHOW_PUTS.replace(b"d->writes, 8", b"d->writes, 7")

ODD = b"""static void odd_show(struct seq_file *m, unsigned int value)
{
\tseq_printf(m, "odd %u\\n", value);
}
"""
ODD_GLUED = ODD.replace(b'"odd %u', b'"odd%u')

UTIL = b"""static int demo_add(int a, int b)
{
\treturn a + b;
}
"""

ODD_PATH = 'fs/demo/we"ird\tname.c'


def run_git(root, *args, data=None):
    env = dict(os.environ)
    env.update(
        {
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org",
            "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
            "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(root),
        }
    )
    done = subprocess.run(["git", "-C", str(root), *args], input=data, capture_output=True, env=env, check=True)
    return done.stdout


def write(root, path, data):
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_bytes(data)


def commit(root, message, files=None):
    for path, data in (files or {}).items():
        write(root, path, data)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", message)
    return run_git(root, "rev-parse", "HEAD").decode().strip()


@pytest.fixture()
def repo(tmp_path):
    """A checkout with seven commits: see the names of `shas`."""
    root = tmp_path / "linux"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    shas = {}
    files = {"fs/demo/stat.c": SHOW_PRINTF, "lib/util.c": UTIL, ODD_PATH: ODD}
    shas["init"] = commit(root, "demo: counters and odd names", files)
    shas["rewrite"] = commit(root, "demo: print counters without seq_printf", {"fs/demo/stat.c": SHOW_PUTS})
    run_git(root, "mv", "fs/demo/stat.c", "fs/demo/counters.c")
    shas["rename"] = commit(root, "demo: move counters.c, narrower writes column", {"fs/demo/counters.c": SHOW_NARROW})
    shas["quoted"] = commit(root, "demo: glue odd's value to its label", {ODD_PATH: ODD_GLUED})
    os.chmod(root / "lib/util.c", 0o755)
    shas["binary"] = commit(root, "demo: firmware blob, util executable", {"fs/demo/blob.bin": bytes(range(256))})
    shas["docs"] = commit(root, "docs: readme", {"README": b"docs only\n"})
    shas["util"] = commit(root, "lib: commute", {"lib/util.c": UTIL.replace(b"a + b", b"b + a")})
    return root, shas


def main(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def range_json(capsys, root, *extra):
    code, out, err = main(capsys, "range", "--tree", str(root), "--format", "json", *extra)
    assert code in (0, 1, 3), err
    return code, json.loads(out)


# --- fmtcheck range ------------------------------------------------------------------------------


def test_range_judges_each_commit_with_the_right_verdict_and_exits_with_the_worst(repo, capsys):
    root, shas = repo
    code, report = range_json(capsys, root, f"{shas['init']}..HEAD")
    verdicts = {}
    for result in report["results"]:
        verdicts.setdefault(result["commit"], []).append((result["subject"].split(" ", 1)[1], result["verdict"]))
    assert verdicts[shas["rewrite"]] == [("fs/demo/stat.c:demo_show", "equivalent")]
    assert verdicts[shas["rename"]] == [("fs/demo/counters.c:demo_show", "divergent")]
    assert verdicts[shas["quoted"]] == [(f"{ODD_PATH}:odd_show", "divergent")]
    assert [v for _s, v in verdicts[shas["binary"]]] == ["nothing-to-check"]
    assert [v for _s, v in verdicts[shas["util"]]] == ["nothing-to-check"]
    assert shas["docs"] not in verdicts
    assert any("change no C file" in note for note in report["notes"])
    assert code == 1 and report["verdict"] == "divergent"
    subjects = {r["commit"]: r["commit_subject"] for r in report["results"]}
    assert subjects[shas["rename"]] == "demo: move counters.c, narrower writes column"


def test_range_of_an_equivalent_commit_exits_0(repo, capsys):
    root, shas = repo
    code, report = range_json(capsys, root, f"{shas['init']}..{shas['rewrite']}")
    assert code == 0 and report["verdict"] == "equivalent"


def test_range_with_two_jobs_gives_the_same_report_as_one(repo, capsys):
    root, shas = repo
    spec = f"{shas['init']}..HEAD"
    one = main(capsys, "range", spec, "--tree", str(root), "--format", "json", "--jobs", "1")
    two = main(capsys, "range", spec, "--tree", str(root), "--format", "json", "--jobs", "2")
    assert one == two and one[0] == 1


def test_range_limited_to_paths(repo, capsys):
    root, shas = repo
    code, report = range_json(capsys, root, f"{shas['init']}..HEAD", "--", "lib")
    assert {r["commit"] for r in report["results"]} == {shas["binary"], shas["util"]}
    assert code == 0


def test_range_jsonl_gives_one_line_per_commit_then_a_summary(repo, capsys):
    root, shas = repo
    code, out, _err = main(capsys, "range", f"{shas['init']}..HEAD", "--tree", str(root), "--format", "jsonl")
    lines = [json.loads(line) for line in out.splitlines()]
    commits = [line["commit"] for line in lines[:-1]]
    assert commits == [shas[k] for k in ("rewrite", "rename", "quoted", "binary", "util")]
    assert lines[1]["verdict"] == "divergent" and lines[0]["verdict"] == "equivalent"
    assert lines[-1]["verdict"] == "divergent" and lines[-1]["commits"] == 5
    assert code == 1


def test_range_work_bound_gives_a_partial_report_and_exit_3(repo, capsys):
    root, shas = repo
    code, report = range_json(capsys, root, f"{shas['init']}..HEAD", "--max-functions", "1")
    reasons = [r["reason"] or "" for r in report["results"]]
    assert [r["verdict"] for r in report["results"]][0] == "equivalent"
    assert any("work bound of 1 function" in reason for reason in reasons)
    assert code == 3 and any(note.startswith("partial report") for note in report["notes"])


def test_range_outside_a_checkout_is_a_one_line_error(tmp_path, capsys):
    code, out, err = main(capsys, "range", "HEAD~1..HEAD", "--tree", str(tmp_path))
    assert code == 2 and err.startswith("fmtcheck: error: ") and "not inside a git checkout" in err


def test_range_refuses_an_option_as_a_revision(repo):
    root, _shas = repo
    with pytest.raises(InputError, match="not a revision"):
        git.range_commits(str(root), "--output=x..HEAD", [])


# --- fmtcheck patch in a checkout ----------------------------------------------------------------


def format_patch(root, sha, *extra):
    return run_git(root, "format-patch", "-1", "--stdout", *extra, sha)


def test_patch_tree_dot_from_the_top_and_from_a_subdirectory(repo, capsys, monkeypatch, tmp_path):
    root, shas = repo
    write(root, "fs/demo/counters.c", SHOW_NARROW.replace(b"d->reads, 8", b"d->reads, 9"))
    patch = tmp_path / "p.patch"
    patch.write_bytes(run_git(root, "diff"))
    run_git(root, "checkout", "--", ".")
    for where in (root, root / "fs" / "demo", root / "lib"):
        monkeypatch.chdir(where)
        code, out, err = main(capsys, "patch", str(patch), "--tree", ".", "--format", "json")
        assert code == 1, (where, err)
        assert json.loads(out)["results"][0]["subject"] == "fs/demo/counters.c:demo_show"
    monkeypatch.chdir(root / "fs")
    assert main(capsys, "patch", str(patch), "--tree", "..")[0] == 1


def test_patch_tree_through_a_symlink_to_the_checkout(repo, capsys, tmp_path):
    root, shas = repo
    link = tmp_path / "link"
    link.symlink_to(root)
    patch = tmp_path / "p.patch"
    patch.write_bytes(format_patch(root, shas["util"]).replace(b"b + a", b"a + b + 0"))
    code, _out, err = main(capsys, "patch", str(patch), "--tree", str(link))
    assert code == 2 and "does not apply" in err  # read through the link, refused on its content


def test_base_commit_is_honoured_while_the_work_tree_is_later(repo, capsys, tmp_path):
    root, shas = repo
    patch = tmp_path / "rewrite.patch"
    patch.write_bytes(format_patch(root, shas["rewrite"], f"--base={shas['init']}"))
    assert b"base-commit: " + shas["init"].encode() in patch.read_bytes()
    code, out, err = main(capsys, "patch", str(patch), "--tree", str(root), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [(r["subject"], r["verdict"]) for r in report["results"]] == [("fs/demo/stat.c:demo_show", "equivalent")]


def test_each_result_says_how_its_sides_were_rebuilt(repo, capsys, tmp_path):
    """The `rebuilt` key (schema 2): whole files from a git commit (base-commit), from the work
    tree (--tree without a base), or the patch's hunks alone (no --tree), with their gaps (before and after the -U1 hunk)."""
    root, shas = repo
    patch = tmp_path / "rewrite.patch"
    patch.write_bytes(format_patch(root, shas["rewrite"], f"--base={shas['init']}"))
    code, out, err = main(capsys, "patch", str(patch), "--tree", str(root), "--format", "json")
    report = json.loads(out)
    assert report["schema"] == 2
    assert [r["rebuilt"] for r in report["results"]] == [{"from": "git", "gaps": 0}]
    write(root, "fs/demo/counters.c", SHOW_NARROW.replace(b"d->reads, 8", b"d->reads, 9"))
    patch.write_bytes(run_git(root, "diff", "-U1"))
    run_git(root, "checkout", "--", ".")
    for extra, meant in ((["--tree", str(root)], {"from": "tree", "gaps": 0}), ([], {"from": "hunks", "gaps": 2})):
        code, out, err = main(capsys, "patch", str(patch), "--format", "json", *extra)
        assert code == 1, err
        assert [r["rebuilt"] for r in json.loads(out)["results"]] == [meant]


def test_base_option_reads_the_files_at_that_revision(repo, capsys, tmp_path):
    root, shas = repo
    patch = tmp_path / "rename.patch"
    patch.write_bytes(format_patch(root, shas["rename"]))
    code, out, err = main(capsys, "patch", str(patch), "--tree", str(root), "--base", shas["rewrite"])
    assert code == 1, err
    assert "fs/demo/counters.c:demo_show: divergent" in out


def test_unknown_base_commit_falls_back_to_the_work_tree_with_a_note(repo, capsys, tmp_path):
    root, shas = repo
    data = format_patch(root, shas["util"], f"--base={shas['binary']}")
    patch = tmp_path / "p.patch"
    patch.write_bytes(data.replace(shas["binary"].encode(), b"0123456789abcdef0123456789abcdef01234567"))
    code, _out, err = main(capsys, "patch", str(patch), "--tree", str(root))
    assert code == 2 and "already applied" in err  # the work tree already holds it
    code, _out, err = main(capsys, "patch", str(patch), "--tree", str(root), "--base", "no-such-rev")
    assert code == 2 and "--base" in err


def test_already_applied_patch_gets_the_hint(repo, capsys, tmp_path):
    root, shas = repo
    patch = tmp_path / "util.patch"
    patch.write_bytes(format_patch(root, shas["util"]))
    code, _out, err = main(capsys, "patch", str(patch), "--tree", str(root))
    assert code == 2
    assert err.count("\n") == 1 and "looks already applied" in err and "--base" in err


def test_patch_with_a_quoted_path_is_read_as_git_means_it(repo, capsys, tmp_path):
    root, shas = repo
    data = format_patch(root, shas["quoted"])
    assert b'"a/fs/demo/we\\"ird\\tname.c"' in data  # git C-quotes the name
    (patch,) = parse_patch_bytes(data, "p")
    assert patch.files[0].path == ODD_PATH
    patch_file = tmp_path / "q.patch"
    patch_file.write_bytes(data)
    code, out, err = main(capsys, "patch", str(patch_file), "--tree", str(root), "--base", shas["rename"])
    assert code == 1, err
    code, out, err = main(capsys, "patch", str(patch_file))
    assert code == 1, err  # without a tree too: the quoted name is a C file


def test_a_thread_where_v2_fixes_v1_exits_with_v2s_verdict(repo, capsys, tmp_path):
    root, shas = repo
    v1 = format_patch(root, shas["rename"], "--subject-prefix=PATCH v1")
    v2 = format_patch(root, shas["rename"], "--subject-prefix=PATCH v2").replace(b"d->writes, 7", b"d->writes, 8")
    mbox = tmp_path / "thread.mbox"
    mbox.write_bytes(v1 + b"\n" + v2)
    code, out, err = main(capsys, "patch", str(mbox), "--tree", str(root), "--base", shas["rewrite"], "--format", "json")
    report = json.loads(out)
    assert [r["verdict"] for r in report["results"]] == ["divergent", "equivalent"]
    assert report["results"][0]["superseded_by"] == "v2"
    assert code == 0 and report["verdict"] == "equivalent"


# --- git's spellings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "quoted, meant",
    [
        ('"a/x\\ty.c"', "a/x\ty.c"),
        ('"a/q\\"uote.c"', 'a/q"uote.c'),
        ('"a/back\\\\slash.c"', "a/back\\slash.c"),
        ('"a/caf\\303\\251.c"', "a/café.c"),
        ('"a/nl\\n.c"', "a/nl\n.c"),
        ("a/plain.c", "a/plain.c"),
        ('"a/bad\\q.c"', '"a/bad\\q.c"'),
    ],
)
def test_unquote_git_path(quoted, meant):
    assert unquote_git_path(quoted) == meant


def test_name_status_parsing_keeps_renames_and_odd_bytes():
    listing = b"M\0a.c\0R087\0old.c\0new.c\0A\0we\"ird\tname.c\0D\0gone.c\0"
    changes = git.parse_name_status(listing)
    assert [(c.status, c.old_path, c.new_path) for c in changes] == [
        ("M", "a.c", "a.c"),
        ("R", "old.c", "new.c"),
        ("A", None, 'we"ird\tname.c'),
        ("D", "gone.c", None),
    ]


def test_blob_reader_reads_many_files_through_one_process(repo):
    root, shas = repo
    with git.BlobReader(str(root)) as reader:
        assert reader.read(shas["init"], "fs/demo/stat.c") == SHOW_PRINTF
        assert reader.read(shas["init"], ODD_PATH) == ODD
        assert reader.read(shas["init"], "fs/demo/none.c") is None
        assert reader.read(shas["init"], "fs/demo") is None  # a tree, not a file
        assert reader.read(shas["binary"], "fs/demo/blob.bin") == bytes(range(256))
