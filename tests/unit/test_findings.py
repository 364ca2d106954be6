"""`--format gcc`, `--format sarif` and `--format github` place every finding at the source line of
the call that printed the differing byte (new side; the old side's line as a related place), and an
inconclusive result at the line of its construct. The SARIF log validates against the official
SARIF 2.1.0 JSON schema (tests/data, with its OASIS notice).

The expected lines are read from the fixtures themselves (the line holding the argument or the
format that prints the byte), not written down here.
"""

from __future__ import annotations

import json
import re

import pytest

from fmtcheck.cli import main
from _paths import FIXTURES, ROOT

EXAMPLE = FIXTURES / "example"
PATCHES = FIXTURES / "patches"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
FAST = ["--max-examples", "10"]


def line_of(path, needle: bytes, start: int = 1) -> int:
    """The 1-based number of the first line at or after START that holds NEEDLE."""
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if number >= start and needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def run(capsys, *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text()))


def valid_sarif(text: str) -> dict:
    log = json.loads(text)
    errors = sorted(sarif_validator().iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
    return log


def region(location: dict) -> tuple[str, int]:
    physical = location["physicalLocation"]
    return physical["artifactLocation"]["uri"], physical["region"]["startLine"]


# --- verify: the bundled divergent example ---------------------------------------------------------


def test_gcc_places_the_divergence_at_the_new_call_and_notes_the_old_argument(capsys) -> None:
    old, new = EXAMPLE / "old.c", EXAMPLE / "new-divergent.c"
    code, out = run(capsys, "verify", old, new, "--format", "gcc", *FAST)
    lines = out.splitlines()
    assert code == 1
    new_line = line_of(new, b"c->rx_fifo")  # the rewrite pads rx_fifo to 5 columns
    old_line = line_of(old, b"c->rx_fifo")  # an argument line of the multi-line seq_printf
    assert lines[0].startswith(f"{new}:{new_line}:1: warning: ") and lines[0].endswith("[width]")
    assert lines[1] == f"{old}:{old_line}:1: note: the old side printed this byte here"


def test_gcc_names_the_format_line_for_a_literal_byte(capsys) -> None:
    """new-glued.c glues the name to rx_bytes: the old side's byte is the format's literal space."""
    old, new = EXAMPLE / "old.c", EXAMPLE / "new-glued.c"
    code, out = run(capsys, "verify", old, new, "--format", "gcc", *FAST)
    lines = out.splitlines()
    assert code == 1 and "[token-merged]" in lines[0]
    glued = line_of(new, b'seq_printf(seq, "%6s:%8llu"')
    assert lines[0].startswith(f"{new}:{glued}:1: error: ")
    assert lines[1].startswith(f"{old}:{line_of(old, b'seq_printf(seq')}:1: note: ")


def test_sarif_of_the_divergent_example_validates_and_has_the_source_lines(capsys) -> None:
    old, new = EXAMPLE / "old.c", EXAMPLE / "new-divergent.c"
    code, out = run(capsys, "verify", old, new, "--format", "sarif", *FAST)
    log = valid_sarif(out)
    run_ = log["runs"][0]
    (result,) = run_["results"]
    assert code == 1 and log["version"] == "2.1.0"
    assert result["ruleId"] == "width" and run_["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "width"
    assert region(result["locations"][0]) == (str(new), line_of(new, b"c->rx_fifo"))
    assert region(result["relatedLocations"][0]) == (str(old), line_of(old, b"c->rx_fifo"))


def test_json_source_keys_name_both_sides(capsys) -> None:
    old, new = EXAMPLE / "old.c", EXAMPLE / "new-divergent.c"
    _, out = run(capsys, "verify", old, new, "--format", "json", *FAST)
    source = json.loads(out)["results"][0]["divergences"][0]["source"]
    assert source["old"] == {"file": str(old), "line": line_of(old, b"c->rx_fifo"), "column": None,
                             "patch": None, "patch_line": None}
    assert source["new"]["file"] == str(new) and source["new"]["line"] == line_of(new, b"c->rx_fifo")


def test_github_annotations_at_the_source_line(capsys) -> None:
    new = EXAMPLE / "new-divergent.c"
    code, out = run(capsys, "verify", EXAMPLE / "old.c", new, "--format", "github", *FAST)
    assert out.startswith(f"::warning file={new},line={line_of(new, b'c->rx_fifo')},title=fmtcheck width::")


# --- verify: an inconclusive result at its construct -------------------------------------------------

OLD_VPRINTF = b"""static int foo_show(struct seq_file *m, void *v)
{
\tstruct foo *f = m->private;

\tseq_printf(m, "a %lu\\n", f->a);
\tseq_vprintf(m, "b", f->args);
\treturn 0;
}
"""


def test_an_inconclusive_result_is_placed_at_its_construct(capsys, tmp_path) -> None:
    old, new = tmp_path / "old.c", tmp_path / "new.c"
    old.write_bytes(OLD_VPRINTF)
    new.write_bytes(OLD_VPRINTF.replace(b'"a %lu\\n", f->a', b'"a %lu\\n", f->a + 0'))
    code, out = run(capsys, "verify", old, new, "--format", "json", *FAST)
    location = json.loads(out)["results"][0]["location"]
    assert code == 3 and location["file"] == str(old) and location["line"] == line_of(old, b"seq_vprintf")
    _, out = run(capsys, "verify", old, new, "--format", "sarif", *FAST)
    (result,) = valid_sarif(out)["runs"][0]["results"]
    assert result["ruleId"] == "inconclusive" and region(result["locations"][0]) == (str(old), location["line"])
# --- patch: the patched file's line and the patch's own line -------------------------------------------


def patch_lines(patch, needle: bytes, tag: bytes = b"+") -> tuple[int, int]:
    """(line in the patched file, line in the patch) of the first added (TAG "+": post-image
    line) or removed (TAG "-": pre-image line) line holding NEEDLE."""
    number_of_side = None
    for number, line in enumerate(patch.read_bytes().split(b"\n"), 1):
        header = re.match(rb"@@ -(\d+)(?:,\d+)? \+(\d+)", line)
        if header:
            number_of_side = int(header.group(1 if tag == b"-" else 2))
            continue
        if number_of_side is None or line[:1] not in (b" ", b"-", b"+"):
            continue
        if line.startswith(tag) and needle in line:
            return number_of_side, number
        if line[:1] in (b" ", tag):
            number_of_side += 1
    raise AssertionError(f"no {tag!r} line with {needle!r} in {patch}")


def test_gcc_of_a_patch_names_the_patched_file_and_the_patch_line(capsys) -> None:
    """02 moves the queue length to seq_put_decimal_ull_width, one column narrower."""
    patch = PATCHES / "02-queue-width.diff"
    code, out = run(capsys, "patch", patch, "--format", "gcc", *FAST)
    lines = out.splitlines()
    new_line, new_own = patch_lines(patch, b"seq_put_decimal_ull_width")
    old_line, _ = patch_lines(patch, b"seq_printf", b"-")
    assert code == 1 and "(new)" not in out and "(old)" not in out
    assert lines[0].startswith(f"drivers/fake/fakestat.c:{new_line}:1: warning: ")
    assert lines[1] == f"drivers/fake/fakestat.c:{old_line}:1: note: the old side printed this byte here"
    assert lines[2] == f"{patch}:{new_own}: note: the patch's line"


def test_sarif_of_a_patch_validates_and_points_into_the_patched_file(capsys) -> None:
    patch = PATCHES / "04-mode-lost-newline.patch"  # the new side prints nothing where "\n" was
    code, out = run(capsys, "patch", patch, "--format", "sarif", *FAST)
    (result,) = valid_sarif(out)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "newline"
    assert region(result["locations"][0]) == ("drivers/fake/fakestat.c", patch_lines(patch, b"seq_printf", b"-")[0])


def test_json_of_a_patch_gives_both_the_file_line_and_the_patch_line(capsys) -> None:
    patch = PATCHES / "02-queue-width.diff"
    _, out = run(capsys, "patch", patch, "--format", "json", *FAST)
    source = json.loads(out)["results"][0]["divergences"][0]["source"]
    old_line, old_own = patch_lines(patch, b"seq_printf", b"-")
    new_line, new_own = patch_lines(patch, b"seq_put_decimal_ull_width")
    assert source["old"] == {"file": "drivers/fake/fakestat.c", "line": old_line, "column": None,
                             "patch": str(patch), "patch_line": old_own}
    assert source["new"] == {"file": "drivers/fake/fakestat.c", "line": new_line, "column": None,
                             "patch": str(patch), "patch_line": new_own}


def test_an_inconclusive_patch_result_names_the_patched_file_not_the_rebuilt_text(capsys) -> None:
    """13 changes a statement the hunk cuts: inconclusive before the engine, at the hunk."""
    patch = PATCHES / "13-pool-mid-statement.patch"
    code, out = run(capsys, "patch", patch, "--format", "json", *FAST)
    (result,) = json.loads(out)["results"]
    assert code == 3 and result["location"]["file"] == "drivers/fake/fakestat.c"
    assert result["location"]["patch"] == str(patch) and f"{patch}:{result['location']['patch_line']}" in result["reason"]


VPRINTF_PATCH = b"""diff --git a/fs/x.c b/fs/x.c
--- a/fs/x.c
+++ b/fs/x.c
@@ -10,6 +10,6 @@ static int foo_show(struct seq_file *m, void *v)
 {
 \tstruct foo *f = m->private;
 
-\tseq_printf(m, "a %lu\\n", f->a);
+\tseq_printf(m, "a %lu\\n", f->a + 0);
 \tseq_vprintf(m, "b", f->args);
 \treturn 0;
"""


def test_an_engine_inconclusive_in_a_rebuilt_function_names_the_file_and_patch_lines(capsys, tmp_path) -> None:
    patch = tmp_path / "vprintf.patch"
    patch.write_bytes(VPRINTF_PATCH)
    code, out = run(capsys, "patch", patch, "--format", "json", *FAST)
    (result,) = json.loads(out)["results"]
    file_line = 10 + 4  # the hunk starts at line 10; seq_vprintf is its fifth line on both sides
    own_line = line_of(patch, b"seq_vprintf")
    assert code == 3 and result["location"] == {"file": "fs/x.c", "line": file_line, "column": None,
                                                "patch": str(patch), "patch_line": own_line}
    assert "(old)" not in result["reason"] and f"fs/x.c:{file_line}" in result["reason"]
    _, out = run(capsys, "patch", patch, "--format", "gcc", *FAST)
    assert out.startswith(f"fs/x.c:{file_line}:1: warning: ") and f"{patch}:{own_line}: note: the patch's line" in out


def test_a_function_judged_before_the_engine_is_placed_at_its_first_added_line(capsys) -> None:
    """09 calls a helper the patch does not show: inconclusive without the engine."""
    patch = PATCHES / "09-mem-needs-tree.patch"
    code, out = run(capsys, "patch", patch, "--format", "json", *FAST)
    (result,) = json.loads(out)["results"]
    file_line, own_line = patch_lines(patch, b"fakestat_show_kb")
    assert code == 3 and result["location"] == {"file": "drivers/fake/fakestat.c", "line": file_line,
                                                "column": None, "patch": str(patch), "patch_line": own_line}
