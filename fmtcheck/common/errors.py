"""Errors that end a run with a contract exit status instead of a traceback.

`InputError` is exit 2 (bad input or usage); `Inconclusive` is exit 3 (something could not be
modelled). Both carry WHERE (a file, file:line, or a construct) and WHAT, so the CLI can print the
one line the contract promises: ``fmtcheck: error: WHERE: WHAT``.
"""

from __future__ import annotations


class FmtcheckError(Exception):
    """Base of the errors the CLI turns into an exit status."""

    exit_code = 2

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


class InputError(FmtcheckError):
    """Malformed, unreadable or unusable input (exit 2)."""

    exit_code = 2


class Inconclusive(FmtcheckError):
    """A construct the models cannot interpret faithfully (exit 3)."""

    exit_code = 3


class LimitExceeded(Inconclusive):
    """A resource bound was reached (steps, recursion, output size)."""


def bare(error: BaseException) -> BaseException:
    """ERROR without its traceback and chained exceptions: kept for its message, it must not keep
    the frames of the case that raised it (a case ended by the step bound holds every value it
    made: eight of them took show_tty_driver past 1.5 GB)."""
    error.__traceback__ = None
    error.__context__ = error.__cause__ = None
    return error
