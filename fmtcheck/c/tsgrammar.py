"""tree-sitter's parser of C, made once per process (`fmtcheck.c.cfront` parses every input with it).
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def c_parser():
    """The parser, with the C grammar of tree_sitter_c."""
    from tree_sitter import Language, Parser

    return Parser(Language(c_grammar().language()))


def c_grammar():
    """The compiled C grammar of tree_sitter_c (its `_binding` extension module), loaded by its
    import spec without the package's `__init__`, which imports importlib.resources (tempfile,
    random...: ~3 ms of every verdict's start-up) for query files the parser never reads. The
    module is registered under its own name, so a later `import tree_sitter_c` uses it. Any
    other layout of the package is imported as usual."""
    import importlib.machinery
    import importlib.util
    import os
    import sys

    name = "tree_sitter_c._binding"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("tree_sitter_c")
    for location in (package.submodule_search_locations or ()) if package is not None else ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(location, "_binding" + suffix)
            if os.path.isfile(path):
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[name] = module
                return module
    import tree_sitter_c

    return tree_sitter_c
