"""`fmtcheck diff`: layout differences only (fmtcheck.layout.diff)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fmtcheck.cli import main
from fmtcheck.layout.diff import diff_captures
from fmtcheck.common.options import Options
from _paths import ROOT

CAPTURES = ROOT / "fixtures" / "captures"


def _diff(old, new, **kw):
    return diff_captures(str(old), str(new), Options(**kw))


def test_net_dev_seconds_apart_is_the_same_layout(tmp_path):
    if not os.path.exists("/proc/net/dev"):
        pytest.skip("no /proc/net/dev")
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(Path("/proc/net/dev").read_bytes())
    time.sleep(0.5)
    b.write_bytes(Path("/proc/net/dev").read_bytes())
    assert main(["diff", str(a), str(b)]) == 0


def test_old_net_dev_layout_diverges_where_the_name_is_glued():
    report = _diff(CAPTURES / "net_dev_current", CAPTURES / "net_dev_old_layout")
    assert report.exit_code() == 1
    spots = [(d.line, d.column) for d in report.results[0].divergences]
    assert spots == [(4, 8), (5, 8)]  # eth0:145561510 and wlan0:1234567890, right after ':'
    assert main(["diff", str(CAPTURES / "net_dev_current"), str(CAPTURES / "net_dev_old_layout")]) == 1


def test_added_interface_is_a_note_only():
    report = _diff(CAPTURES / "net_dev_current", CAPTURES / "net_dev_added_iface")
    assert report.exit_code() == 0
    assert any("only in NEW" in n and "docker0" in n for n in report.results[0].notes)


def test_smaps_of_two_processes_is_the_same_layout(tmp_path):
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("no smaps")
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(Path("/proc/self/smaps").read_bytes())
    out = subprocess.run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(open('/proc/self/smaps','rb').read())"],
                         capture_output=True, check=True).stdout
    b.write_bytes(out)
    report = _diff(a, b)
    assert report.exit_code() == 0, report.results[0].divergences[:3]


def test_a_missing_variant_line_is_a_difference(tmp_path):
    data = (CAPTURES / "smaps_small").read_bytes()
    import re

    b = tmp_path / "b"
    b.write_bytes(re.sub(rb"Pss_Dirty: +[0-9]+ kB\n", b"", data))
    report = _diff(CAPTURES / "smaps_small", b)
    [d] = report.results[0].divergences
    assert report.exit_code() == 1 and (d.kind, d.field) == ("key-removed", "Pss_Dirty")
    assert "Pss_Dirty (6.0+)" in d.note  # the config option its line is in
    [back] = _diff(b, CAPTURES / "smaps_small").results[0].divergences
    assert (back.kind, back.severity) == ("key-added", "cosmetic")


def test_token_diff_without_grammar(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    a.write_bytes(b"alpha:    7 kB\nbeta:\t3\n")
    b.write_bytes(b"alpha:   17 kB\nbeta:\t12345\n")  # values changed, right-aligned column kept
    c.write_bytes(b"alpha:  17 kB\nbeta: 3\n")  # padding off by one, tab became a space
    assert _diff(a, b).exit_code() == 0
    report = _diff(a, c)
    assert report.exit_code() == 1
    assert [d.line for d in report.results[0].divergences] == [1, 2]


def test_diff_bad_input(tmp_path, capsys):
    assert main(["diff", str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    assert capsys.readouterr().err.startswith("fmtcheck: error: ")
