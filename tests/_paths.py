"""Where the tests find things. A plain module, not conftest: several conftest.py files exist, and
`from conftest import ...` would pick whichever was imported first."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"
