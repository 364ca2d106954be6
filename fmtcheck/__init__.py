"""fmtcheck: prove or refute that a rewrite of /proc output code prints the same bytes.

The public facade is small; everything else is internal and may change:

- `verify_sources(old, new, ...)`: two C sources (bytes or str) -> `Report`
- `verify_files(old_path, new_path, options)` -> `Report`
- `check_patches(paths, options)` -> `Report`
- `check_captures(paths, options)` / `diff_captures(old, new, options)` -> `Report`

Imports are lazy so that `import fmtcheck` (and the pytest plugin) costs almost nothing.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["verify_sources", "verify_files", "check_patches", "check_captures", "diff_captures"]

_LAZY = {
    "verify_sources": "fmtcheck.engine.verdict",
    "verify_files": "fmtcheck.engine.verdict",
    "check_patches": "fmtcheck.patch.plan",
    "check_captures": "fmtcheck.layout.capture",
    "diff_captures": "fmtcheck.layout.diff",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)
