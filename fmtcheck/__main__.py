"""`python -m fmtcheck`: the command line, without the working directory on sys.path.

`python -m` puts the working directory first on sys.path, so a file there named like a module
fmtcheck imports later (argparse, jc, psutil...) would run. The inputs fmtcheck judges come from
strangers and are often unpacked into the working directory: that entry is dropped before anything
else is imported (fmtcheck itself is already imported, and finds its submodules through its own
package path).
"""

import os
import sys


def _without_working_directory(paths: list[str]) -> list[str]:
    here = os.getcwd()
    return [p for p in paths if p not in ("", ".") and os.path.abspath(p) != here]


sys.path[:] = _without_working_directory(sys.path)

from fmtcheck.cli import main  # noqa: E402 - after sys.path is made safe

raise SystemExit(main())
