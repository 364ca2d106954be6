"""The collector's thresholds while a command runs, and as they were after it."""

from __future__ import annotations

import gc

from fmtcheck import cli
from fmtcheck.common.collector import THRESHOLDS, fewer_collections


def test_the_thresholds_are_raised_inside_and_restored_after():
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == THRESHOLDS
    assert gc.get_threshold() == before


def test_a_command_run_in_process_leaves_the_hosts_thresholds(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(cli, "run_command", lambda argv: seen.append(gc.get_threshold()) or 0)
    host = gc.get_threshold()
    gc.set_threshold(123, 4, 5)
    try:
        assert cli.main(["--version"]) == 0
        assert gc.get_threshold() == (123, 4, 5)
    finally:
        gc.set_threshold(*host)
    assert seen == [THRESHOLDS]
