"""A private Hypothesis home for one search: Hypothesis writes into its home directory (a cache of
the constants it found in the code under test, its example database), by default `.hypothesis/` in
the working directory. A run of fmtcheck must leave nothing in the user's directory, so each search
gets a temporary home, removed afterwards, also when SIGINT or SIGTERM ends the run."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from fmtcheck.common.termination import temporary_directory


@contextmanager
def private_hypothesis_home() -> Iterator[str]:
    """Within the block Hypothesis's home is a fresh temporary directory (its path is yielded);
    the previous home comes back and the directory is removed afterwards."""
    from hypothesis import configuration

    with temporary_directory("fmtcheck-hypothesis-") as home:
        previous = getattr(configuration, "_configuration__hypothesis_home_directory", None)
        previous = vars(configuration).get("__hypothesis_home_directory", previous)
        configuration.set_hypothesis_home_dir(home)
        try:
            yield home
        finally:
            configuration.set_hypothesis_home_dir(previous)
