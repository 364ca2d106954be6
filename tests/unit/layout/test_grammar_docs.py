"""grammars/README.md: its grammar examples are valid grammar text, and it ships with the grammars."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fmtcheck.layout.language import parse_grammar
from _paths import ROOT

README = ROOT / "grammars" / "README.md"
PYPROJECT = ROOT / "pyproject.toml"


def _examples() -> list[str]:
    blocks = re.findall(r"```\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    # command sessions and elided examples ("...") are not grammar text
    return [b for b in blocks if not b.startswith("$") and not re.search(r"(?<![|(])\.\.\.(?![|)])", b)]


def test_the_language_reference_exists_and_covers_every_construct():
    text = README.read_text(encoding="utf-8")
    for word in ("records", "optional", "choice", "variant", "config", "header", "pad(", "param",
                 "domain", "detect", "filename", "priority", "ullw(", "hex(", "ll(", "ull(", "*=@", "=NAME",
                 "]*", "]+@", "fmtcheck check", "fmtcheck diff", "Adding a grammar"):
        assert word in text, word


@pytest.mark.parametrize("block", _examples(), ids=lambda b: b.strip().splitlines()[0][:40])
def test_every_example_parses(block):
    try:
        parse_grammar(block, "example")
    except Exception:  # noqa: BLE001 - a fragment of items: it must parse as one line
        parse_grammar("line " + block, "example")


def test_the_readme_is_package_data():
    text = PYPROJECT.read_text(encoding="utf-8")
    section = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert '"fmtcheck.grammars"' in section and '"README.md"' in section and '"*.grammar"' in section
