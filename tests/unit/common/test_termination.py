"""SIGTERM and temporary directories: a signal that arrives while a directory is being made or
removed is let through only once the directory is gone (the signal, sent by the process to itself
at the worst moment, is the real one, raised by the real handler)."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

import pytest

from fmtcheck.common.termination import Terminated, sigterm_raises, temporary_directory


def _terminate_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def test_sigterm_while_removing_waits_until_the_directory_is_gone(monkeypatch, tmp_path):
    """The signal lands inside the removal, after the directory's own finalizer was detached (a
    directory left then stays for good)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a failure leaves its directory there
    made: list[str] = []
    rmtree = tempfile.TemporaryDirectory._rmtree

    def rmtree_after_a_signal(name, *args, **kwargs):
        _terminate_self()  # the handler runs at the next bytecode: here, before anything is removed
        return rmtree(name, *args, **kwargs)

    monkeypatch.setattr(tempfile.TemporaryDirectory, "_rmtree", staticmethod(rmtree_after_a_signal))
    with sigterm_raises(), pytest.raises(Terminated):
        with temporary_directory("fmtcheck-test-") as path:
            made.append(path)
            Path(path, "a", "b").mkdir(parents=True)
    assert made and not os.path.exists(made[0])


def test_sigterm_while_making_is_raised_once_the_directory_is_owned(monkeypatch, tmp_path):
    """The signal lands between `mkdtemp` and the finalizer that would remove the directory."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a failure leaves its directory there
    made: list[str] = []
    mkdtemp = tempfile.mkdtemp

    def mkdtemp_then_signal(*args, **kwargs):
        made.append(mkdtemp(*args, **kwargs))
        _terminate_self()
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp_then_signal)
    with sigterm_raises(), pytest.raises(Terminated):
        with temporary_directory("fmtcheck-test-"):
            pass
    assert made and not os.path.exists(made[0])
