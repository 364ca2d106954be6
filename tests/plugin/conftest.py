"""Plugin tests run inner pytest sessions with `pytester`, in a directory holding copies of
fixtures/plugin (patches, C sources, captures), so they never depend on this repository's own
pytest configuration."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "plugin"


@pytest.fixture
def workdir(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester directory with queue/, sources/, captures/ and bad.patch; CI unset so each test
    states the determinism it relies on."""
    monkeypatch.delenv("CI", raising=False)
    for entry in FIXTURES.iterdir():
        target = pytester.path / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target)
        else:
            shutil.copy(entry, target)
    return pytester
