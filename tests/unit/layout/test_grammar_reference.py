"""`fmtcheck verify --grammar NAME NEW.c`: a grammar line is the reference side."""

from __future__ import annotations

import json

from _paths import FIXTURES
from fmtcheck.cli import main

EXAMPLE = FIXTURES / "example"


def verify(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["verify", *args, "--format", "json", "--max-examples", "30"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_rewrite_that_prints_the_net_dev_layout_is_proven(capsys):
    code, report, _ = verify(capsys, "--grammar", "net_dev", str(EXAMPLE / "new.c"))
    assert code == 0
    assert report["results"][0]["verdict"] == "equivalent"
    assert report["results"][0]["method"] == "proven"


def test_a_width_slip_is_found_against_the_grammar(capsys):
    code, report, _ = verify(capsys, "--grammar", "net_dev", str(EXAMPLE / "new-divergent.c"))
    assert code == 1
    d = report["results"][0]["divergences"][0]
    assert (d["line"], d["column"], d["field"], d["severity"]) == (1, 38, "c->rx_fifo", "cosmetic")


def test_a_named_line_selects_the_old_layout(capsys):
    """The glued rewrite prints exactly the 2.6-era `%6s:%8llu` line, and not the current one."""
    code, _, _ = verify(capsys, "--grammar", "net_dev:device_old", str(EXAMPLE / "new-glued.c"))
    assert code == 0
    code, report, _ = verify(capsys, "--grammar", "net_dev:device", str(EXAMPLE / "new-glued.c"))
    assert code == 1
    assert report["results"][0]["divergences"][0]["kind"] == "token-merged"


def test_a_grammar_whose_lines_do_not_fit_is_bad_input(capsys):
    code, report, err = verify(capsys, "--grammar", "meminfo", str(EXAMPLE / "new.c"))
    assert code == 2 and report["verdict"] == "error" and report["results"] == []
    assert err.startswith("fmtcheck: error: --grammar meminfo:") and err.count("\n") == 1
