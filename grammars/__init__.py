"""Grammar files of real /proc layouts (installed as the package `fmtcheck.grammars`).

Data only: `fmtcheck.layout.grammar` reads the `*.grammar` files here with importlib.resources. This file
makes the directory a regular package, so editable and non-editable installs both find it.
"""
