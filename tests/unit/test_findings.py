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
