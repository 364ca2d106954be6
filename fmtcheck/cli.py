"""The `fmtcheck` command line (docs/cli-contract.md).

Every command returns a `Report` (or prints its own output and returns an exit status). Errors in
the input end as exit 2 with one line ``fmtcheck: error: WHERE: WHAT``; anything the models cannot
interpret ends as exit 3. No traceback ever reaches the user: an unexpected exception is reported
as an internal error on one line (exit 2) unless FMTCHECK_DEBUG is set.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Callable, Sequence

from fmtcheck.common.errors import FmtcheckError

if TYPE_CHECKING:  # imported where used: `--help` and `--version` load almost nothing
    from fmtcheck.common.options import Options


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in the contract's one-line form."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"fmtcheck: error: usage: {message}\n")
        raise SystemExit(2)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--max-examples", type=int, default=200, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="N")
    p.add_argument("--tree", metavar="DIR", default=None)
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--fail-on", choices=("any", "breaking"), default="any")


def build_parser() -> argparse.ArgumentParser:
    from fmtcheck import __version__

    parser = _Parser(prog="fmtcheck", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"fmtcheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("verify", help="compare two C sources (old, new)")
    p.add_argument("old", nargs="?", help="reference C source (omit with --grammar)")
    p.add_argument("new")
    p.add_argument("--function", metavar="NAME")
    p.add_argument("--grammar", metavar="NAME", help="use a grammar line as the reference side")
    p.add_argument("--consumers", action="store_true")
    _common(p)

    p = sub.add_parser("patch", help="judge a kernel patch, mbox or thread")
    p.add_argument("patches", nargs="+", metavar="PATCH")
    p.add_argument("--consumers", action="store_true")
    p.add_argument("--base", metavar="REV", help="with --tree in a git checkout: the commit the patches apply to")
    p.add_argument("--max-functions", type=int, default=2000, metavar="N", help="work bound: functions judged per run")
    _common(p)

    p = sub.add_parser("range", help="judge every commit of a range in a git checkout")
    p.add_argument("spec", metavar="A..B", help="a revision range (or one revision: its history)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="after --: only commits touching these paths")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="judge N commits at a time")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--max-functions", type=int, default=2000, metavar="N", help="work bound: functions judged per run")
    p.add_argument("--format", choices=("text", "json", "jsonl"), default="text")
    p.add_argument("--max-examples", type=int, default=200, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="N")
    p.add_argument("--tree", metavar="DIR", default=None, help="the checkout (default: the current directory)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--fail-on", choices=("any", "breaking"), default="any")

    p = sub.add_parser("check", help="check captures against a grammar")
    p.add_argument("captures", nargs="+", metavar="CAPTURE")
    p.add_argument("--grammar", metavar="NAME")
    _common(p)

    p = sub.add_parser("diff", help="compare the layout of two captures")
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--grammar", metavar="NAME")
    p.add_argument("--consumers", action="store_true")
    _common(p)

    p = sub.add_parser("grammars", help="list grammars or show one")
    p.add_argument("name", nargs="?")
    p.add_argument("--format", choices=("text", "json"), default="text")

    p = sub.add_parser("reads", help="model or measure how read() slices seq_file output")
    p.add_argument("source", nargs="?", help="a /proc path (live mode) or a capture (model mode)")
    p.add_argument("--bufsize", type=int, action="append", metavar="N")
    p.add_argument("--records", metavar="SIZES", help="comma-separated synthetic record sizes")
    p.add_argument("--grammar", metavar="NAME")
    p.add_argument("--model", action="store_true", help="treat SOURCE as a capture even under /proc")
    p.add_argument("--check", action="store_true", help="property-check the byte stream")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--split", metavar="MODE", help="record unit: lines, file (one record), re:REGEX")
    p.add_argument("--max-examples", type=int, default=200, metavar="N")
    return parser


def options_from(args: argparse.Namespace) -> Options:
    from fmtcheck.common.options import Options

    return Options(
        seed=getattr(args, "seed", 0),
        max_examples=getattr(args, "max_examples", 200),
        function=getattr(args, "function", None),
        grammar=getattr(args, "grammar", None),
        tree=getattr(args, "tree", None),
        fail_on=getattr(args, "fail_on", "any"),
        consumers=getattr(args, "consumers", False),
        base=getattr(args, "base", None),
        max_functions=getattr(args, "max_functions", 2000),
    )


def _run_verify(args: argparse.Namespace):
    from fmtcheck.engine.verdict import verify_files

    if args.old is None and not args.grammar:
        raise FmtcheckError("verify", "give OLD and NEW, or --grammar NAME and NEW")
    if args.grammar:
        from fmtcheck.layout.reference import verify_against_grammar

        return verify_against_grammar(args.grammar, args.new, options_from(args))
    return verify_files(args.old, args.new, options_from(args))


def _run_patch(args: argparse.Namespace):
    from fmtcheck.patch.plan import check_patches

    return check_patches(args.patches, options_from(args))


def _run_range(args: argparse.Namespace):
    from fmtcheck.patch.revrange import check_range, emit_jsonl

    if args.jobs < 1 or args.max_functions < 1:
        raise FmtcheckError("range", "--jobs and --max-functions take a number of 1 or more")
    report = check_range(args.spec, args.paths, options_from(args), args.jobs, args.progress)
    if args.format != "jsonl":
        return report
    emit_jsonl(report)
    return report.exit_code(args.fail_on)


def _run_check(args: argparse.Namespace):
    from fmtcheck.layout.capture import check_captures

    return check_captures(args.captures, options_from(args))


def _run_diff(args: argparse.Namespace):
    from fmtcheck.layout.diff import diff_captures

    return diff_captures(args.old, args.new, options_from(args))


def _run_grammars(args: argparse.Namespace):
    from fmtcheck.layout.show import grammars_command

    return grammars_command(args.name, args.format)


def _run_reads(args: argparse.Namespace):
    from fmtcheck.layout import grammar
    from fmtcheck.reads.command import reads_command

    args.record_splitter = getattr(grammar, "split_records", None)
    return reads_command(args)


_HANDLERS: dict[str, Callable] = {
    "verify": _run_verify,
    "patch": _run_patch,
    "range": _run_range,
    "check": _run_check,
    "diff": _run_diff,
    "grammars": _run_grammars,
    "reads": _run_reads,
}


def _one_line(text: str) -> str:
    """An error message on one line (imported on the error path only: start-up stays small)."""
    from fmtcheck.common.text import one_line

    return one_line(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; SIGTERM, like SIGINT, cleans up before it ends the run."""
    from fmtcheck.common.termination import EXIT_STATUS, STATE, Terminated, sigterm_raises

    try:
        with sigterm_raises():
            status = run_command(argv)
    except Terminated:
        status = EXIT_STATUS
    if STATE.received:  # even where a library caught the exception and went on, or failed on it
        sys.stderr.write("fmtcheck: error: terminated\n")
        return EXIT_STATUS
    return status


def run_command(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        outcome = _HANDLERS[args.command](args)
    except FmtcheckError as err:
        sys.stderr.write(f"fmtcheck: error: {_one_line(err.where)}: {_one_line(err.what)}\n")
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("fmtcheck: error: interrupted\n")
        return 2
    except BrokenPipeError:
        return _reader_went_away(0)
    except RecursionError:
        sys.stderr.write("fmtcheck: error: input: nesting too deep to analyse\n")
        return 2
    except MemoryError:
        sys.stderr.write("fmtcheck: error: input: too large to analyse in memory\n")
        return 2
    except Exception as err:  # noqa: BLE001 - the contract forbids tracebacks
        if os.environ.get("FMTCHECK_DEBUG"):
            raise
        sys.stderr.write(f"fmtcheck: error: internal: {type(err).__name__}: {_one_line(str(err))}\n")
        return 2
    if isinstance(outcome, int):
        return outcome
    if getattr(args, "consumers", False):
        from fmtcheck.impact.attach import attach_consumers

        try:
            attach_consumers(outcome, (args.old, args.new) if args.command == "diff" else None)
        except FmtcheckError as err:
            outcome.notes.append(f"--consumers: {err.what}")
    from fmtcheck.report import emit

    code = outcome.exit_code(getattr(args, "fail_on", "any"))
    try:
        emit(outcome, args.format, getattr(args, "color", "auto"))
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_went_away(code)
    return code


def _reader_went_away(code: int) -> int:
    """`fmtcheck ... | head`: the reader closed the pipe. Not an error of fmtcheck's; keep the
    verdict's exit status and let nothing more be written to the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
