"""Where the tests find things. A plain module, not conftest: several conftest.py files exist, and
`from conftest import ...` would pick whichever was imported first."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"


def readable_captures(files) -> list[tuple[str, bytes]]:
    """(grammar name, bytes) of each of FILES that can be read here, is not empty, and whose
    grammar is detected."""
    from fmtcheck.layout.language import detect_grammar

    out = []
    for path in files:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue
        g = detect_grammar(data[:65536], Path(path).name)
        if g is not None and data:
            out.append((g.name, data))
    return out
