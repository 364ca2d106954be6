"""The `fmtcheck` command line (docs/cli-contract.md).

Every command returns a `Report` (or prints its own output and returns an exit status). Errors in
the input end as exit 2 with one line ``fmtcheck: error: WHERE: WHAT``; anything the models cannot
interpret ends as exit 3. No traceback ever reaches the user: an unexpected exception is reported
as an internal error on one line (exit 2) unless FMTCHECK_DEBUG is set.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys

from fmtcheck.common.errors import FmtcheckError
from fmtcheck.common.plain import plain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:  # imported where used: `--help` and `--version` load almost nothing
    import argparse
    from typing import Callable, Iterator, Sequence

    from fmtcheck.common.options import Options


EXIT_STATUS_HELP = """\
exit status (as diff(1) and cmp(1)):
  0  equivalent / conforms / same layout / nothing to check
  1  at least one divergence found
  2  usage error, or an input that cannot be read or is malformed: one line on stderr,
     fmtcheck: error: WHERE: WHAT (with several inputs, the others are still reported,
     and trouble with one input wins over a divergence in another)
  3  inconclusive: something could not be modelled; the report names the construct and its line
"""

REPORT_FORMATS = ("text", "json", "gcc", "sarif", "github")
FORMAT_HELP = ("report format: text (default), json (docs/fmtcheck-report.schema.json), gcc "
               "(FILE:LINE:COL: error: ...), sarif (SARIF 2.1.0), github (workflow annotations); "
               "text also carries annotations when GITHUB_ACTIONS=true")


@functools.lru_cache(maxsize=1)
def _parser_class() -> type:
    """argparse that reports usage errors in the contract's one-line form (JSON on stdout when
    --format json was asked for). Made when a parser is first built: `quick_args` answers the plain
    forms of check and diff without argparse."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            _report_error(Failure("usage", message, 2), wants_json(sys.argv[1:] if _ARGV is None else _ARGV),
                          "usage")
            raise SystemExit(2)

    return _Parser


_ARGV: list[str] | None = None


def wants_json(argv: Sequence[str]) -> bool:
    """--format json anywhere on the command line (known before it is parsed, for usage errors)."""
    argv = list(argv)
    return "--format=json" in argv or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:]))


def _format(p: argparse.ArgumentParser, choices: Sequence[str] = REPORT_FORMATS) -> None:
    p.add_argument("--format", choices=choices, default="text",
                   help=FORMAT_HELP + ("; jsonl: one result per line" if "jsonl" in choices else "")
                   if len(choices) > 2 else "report format: text (default) or json")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print nothing; the exit status is the answer (as cmp -s); errors still go to stderr")


def _color(p: argparse.ArgumentParser) -> None:
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text report: auto (a terminal, unless NO_COLOR is set), always, never")


def _search(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-examples", type=int, default=200, metavar="N",
                   help="Hypothesis inputs tried per function when a rewrite is not proven (default 200)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of every search: same seed, same report (default 0)")
    p.add_argument("--star-max", type=int, default=16, metavar="N",
                   help="a '*' width or precision input ranges over 0..N (default 16)")


def _fail_on(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fail-on", choices=("any", "breaking"), default="any",
                   help="exit 1 on any divergence (default) or only on one that breaks a parser")


def _consumers(p: argparse.ArgumentParser) -> None:
    p.add_argument("--consumers", action="store_true",
                   help="run real parsers (jc, psutil, awk's view, procps) on both outputs of the counterexample")


def _tree(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tree", metavar="DIR", default=None,
                   help="a kernel source tree: apply the patches to it and judge whole functions")


def _accepted_silently(p: argparse.ArgumentParser, *names: str) -> None:
    """The contract's common options a subcommand has no use for: still accepted (scripts
    written against the contract keep working), not offered in its help."""
    import argparse

    table = {"--max-examples": dict(type=int, default=200), "--seed": dict(type=int, default=0),
             "--tree": dict(default=None), "--color": dict(choices=("auto", "always", "never"), default="auto"),
             "--fail-on": dict(choices=("any", "breaking"), default="any")}
    for name in names:
        p.add_argument(name, help=argparse.SUPPRESS, **table[name])


def _subparser(sub, name: str, help_text: str, description: str) -> argparse.ArgumentParser:
    import argparse

    return sub.add_parser(name, help=help_text, description=description, epilog=EXIT_STATUS_HELP,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ONLY, the parser of that command alone (what a run of it needs: the
    others cost milliseconds of start-up that `check` and `diff` are measured on, issue #17)."""
    import argparse

    from fmtcheck import __version__

    _Parser = _parser_class()
    parser = _Parser(prog="fmtcheck", description=__doc__.splitlines()[0], epilog=EXIT_STATUS_HELP,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"fmtcheck {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return parser


def _add_verify(sub) -> None:
    p = _subparser(sub, "verify", "compare two C sources (old, new)",
                   "Do two versions of C output code print the same bytes? (- reads one of them from stdin)")
    p.add_argument("old", nargs="?", help="reference C source (omit with --grammar)")
    p.add_argument("new", help="the rewritten C source")
    p.add_argument("--function", metavar="NAME", help="judge only this function")
    p.add_argument("--grammar", metavar="NAME", help="use a grammar line as the reference side")
    _consumers(p)
    _format(p)
    _search(p)
    _fail_on(p)
    _color(p)
    _accepted_silently(p, "--tree")


def _add_patch(sub) -> None:
    p = _subparser(sub, "patch", "judge a kernel patch, mbox or thread",
                   "Does this kernel patch change the bytes any /proc (seq_file) output code prints? "
                   "Each PATCH gets its report; one that cannot be read is reported in its place.")
    p.add_argument("patches", nargs="+", metavar="PATCH",
                   help="git format-patch file, git diff, mbox or thread (- for stdin)")
    _tree(p)
    p.add_argument("--base", metavar="REV", help="with --tree in a git checkout: the commit the patches apply to")
    p.add_argument("--max-functions", type=int, default=2000, metavar="N", help="work bound: functions judged per run")
    _consumers(p)
    _format(p)
    _search(p)
    _fail_on(p)
    _color(p)


def _add_range(sub) -> None:
    p = _subparser(sub, "range", "judge every commit of a range in a git checkout",
                   "Judge every commit of a revision range in a git checkout, as `patch` judges one patch.")
    p.add_argument("spec", metavar="A..B", help="a revision range (or one revision: its history)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="after --: only commits touching these paths")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="judge N commits at a time")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress on stderr: auto (a terminal), always, never")
    p.add_argument("--max-functions", type=int, default=2000, metavar="N", help="work bound: functions judged per run")
    _format(p, REPORT_FORMATS + ("jsonl",))
    _search(p)
    p.add_argument("--tree", metavar="DIR", default=None, help="the checkout (default: the current directory)")
    _color(p)
    _fail_on(p)


def _add_check(sub) -> None:
    p = _subparser(sub, "check", "check captures against a grammar",
                   "Is this captured /proc text exactly what the kernel's layout prints for its values?")
    p.add_argument("captures", nargs="+", metavar="CAPTURE", help="a captured /proc file (- for stdin)")
    p.add_argument("--grammar", metavar="NAME", help="the grammar to check against (default: detected)")
    _format(p)
    _fail_on(p)
    _color(p)
    _accepted_silently(p, "--max-examples", "--seed", "--tree")


def _add_diff(sub) -> None:
    p = _subparser(sub, "diff", "compare the layout of two captures",
                   "Do two captures of the same /proc file have the same layout? Values may differ.")
    p.add_argument("old", help="the capture taken first (- for stdin)")
    p.add_argument("new", help="the capture to compare with it (- for stdin)")
    p.add_argument("--grammar", metavar="NAME", help="the grammar of both captures (default: detected)")
    _consumers(p)
    _format(p)
    _fail_on(p)
    _color(p)
    _accepted_silently(p, "--max-examples", "--seed", "--tree")


def _add_grammars(sub) -> None:
    p = _subparser(sub, "grammars", "list grammars or show one",
                   "List the grammars of /proc layouts, or show one with an annotated example rendering.")
    p.add_argument("name", nargs="?", help="the grammar to show")
    _format(p, ("text", "json"))


def _add_reads(sub) -> None:
    p = _subparser(sub, "reads", "model or measure how read() slices seq_file output",
                   "How read() slices seq_file output, in the model or on the live kernel.")
    p.add_argument("source", nargs="?", help="a /proc path (live mode) or a capture (model mode; - for stdin)")
    p.add_argument("--bufsize", type=int, action="append", metavar="N", help="read() size; repeat for several")
    p.add_argument("--records", metavar="SIZES", help="comma-separated synthetic record sizes")
    p.add_argument("--model", action="store_true", help="treat SOURCE as a capture even under /proc")
    p.add_argument("--check", action="store_true", help="property-check the byte stream")
    p.add_argument("--split", metavar="MODE", help="record unit: lines, file (one record), re:REGEX")
    _format(p, ("text", "json"))
    _search(p)

_COMMANDS: dict[str, Callable] = {"verify": _add_verify, "patch": _add_patch, "range": _add_range, "check": _add_check,
                                  "diff": _add_diff, "grammars": _add_grammars, "reads": _add_reads}


# check and diff in their plain forms, parsed without argparse (`quick_args`): each option's values
# (None: any value that does not look like an option), as the subcommands' parsers declare them
_QUICK_VALUES = {"--grammar": None, "--format": REPORT_FORMATS, "--fail-on": ("any", "breaking"),
                 "--color": ("auto", "always", "never")}
_QUICK_FLAGS = {"check": {"-q": "quiet", "--quiet": "quiet"},
                "diff": {"-q": "quiet", "--quiet": "quiet", "--consumers": "consumers"}}
_QUICK_DEFAULTS = {"check": dict(grammar=None, format="text", quiet=False, fail_on="any", color="auto",
                                 max_examples=200, seed=0, tree=None),
                   "diff": dict(grammar=None, consumers=False, format="text", quiet=False, fail_on="any",
                                color="auto", max_examples=200, seed=0, tree=None)}


def quick_args(argv: Sequence[str]):
    """The arguments of `check CAPTURE...` and `diff OLD NEW` with the options of _QUICK_VALUES and
    _QUICK_FLAGS, as the parser would give them, without importing argparse or building the parser
    (milliseconds of the start-up issue #17 measures against cmp). None for anything else (help, any
    other option or spelling, a value that looks like an option, positionals split by options, a
    usage error): the parser answers those, with its messages."""
    from types import SimpleNamespace

    command = argv[0] if argv else None
    if command not in _QUICK_FLAGS:
        return None
    values = dict(_QUICK_DEFAULTS[command])
    flags = _QUICK_FLAGS[command]
    positionals: list[str] = []
    runs = 0  # runs of positionals: argparse takes check's CAPTURE... from one run only
    i, previous_positional = 1, False
    while i < len(argv):
        word = argv[i]
        if word == "-" or not word.startswith("-"):
            runs += not previous_positional
            positionals.append(word)
            previous_positional = True
            i += 1
            continue
        previous_positional = False
        if word in flags:
            values[flags[word]] = True
            i += 1
        elif word in _QUICK_VALUES and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            allowed = _QUICK_VALUES[word]
            if allowed is not None and argv[i + 1] not in allowed:
                return None
            values[word[2:].replace("-", "_")] = argv[i + 1]
            i += 2
        else:
            return None
    if runs != 1 or (command == "diff" and len(positionals) != 2):
        return None
    named = {"captures": positionals} if command == "check" else {"old": positionals[0], "new": positionals[1]}
    return SimpleNamespace(command=command, **named, **values)


def command_word(argv: Sequence[str]) -> str | None:
    """The command ARGV starts with, or None (an option first, a mistyped command: the whole parser
    then answers, with every command in its help and its errors)."""
    return argv[0] if argv and argv[0] in _COMMANDS else None


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
        star_max=getattr(args, "star_max", 16),
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

    return check_patches(args.patches, options_from(args), keep_going=True)


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
    """Each capture on its own: one that cannot be read is reported in its place."""
    from fmtcheck.common.result import Report
    from fmtcheck.layout.capture import check_captures

    report = Report("check", inputs=list(args.captures))
    for path in args.captures:
        try:
            part = check_captures([path], options_from(args))
        except FmtcheckError as err:
            report.errors.append((path, err.where, err.what, err.exit_code))
            continue
        for result in part.results:
            result.input = path
        report.results.extend(part.results)
        report.notes.extend(n for n in part.notes if n not in report.notes)
    return report


def _run_diff(args: argparse.Namespace):
    from fmtcheck.layout.diff import diff_captures

    return diff_captures(args.old, args.new, options_from(args))


def _run_grammars(args: argparse.Namespace):
    from fmtcheck.layout.show import grammars_command

    if args.quiet:
        return 0
    return grammars_command(args.name, args.format)


def _run_reads(args: argparse.Namespace):
    from fmtcheck.reads.command import reads_command

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


@plain
class Failure:
    """An error that ends the run: WHERE, WHAT and the exit status."""

    where: str
    what: str
    exit_code: int


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; SIGTERM, like SIGINT, cleans up before it ends the run."""
    from fmtcheck.common.collector import fewer_collections
    from fmtcheck.common.termination import EXIT_STATUS, STATE, Terminated, sigterm_raises

    try:
        with sigterm_raises(), fewer_collections():
            status = run_command(argv)
    except Terminated:
        status = EXIT_STATUS
    if STATE.received:  # even where a library caught the exception and went on, or failed on it
        sys.stderr.write("fmtcheck: error: terminated\n")
        return EXIT_STATUS
    return status


def run_command(argv: Sequence[str] | None = None) -> int:
    global _ARGV
    _ARGV = list(sys.argv[1:] if argv is None else argv)
    args = quick_args(_ARGV) or build_parser(command_word(_ARGV)).parse_args(_ARGV)
    as_json = getattr(args, "format", "text") == "json"
    quiet = getattr(args, "quiet", False)
    try:
        with stdin_as_file(args) as relabel:
            outcome = _HANDLERS[args.command](args)
            if not isinstance(outcome, int):
                _attach_consumers(args, outcome)
                relabel(outcome)
    except FmtcheckError as err:
        return _report_error(Failure(err.where, err.what, err.exit_code), as_json, args.command, args)
    except KeyboardInterrupt:
        return _report_error(Failure("interrupted", "stopped by the user", 2), as_json, args.command, args)
    except BrokenPipeError:
        return _reader_went_away(0)
    except RecursionError:
        return _report_error(Failure("input", "nesting too deep to analyse", 2), as_json, args.command, args)
    except MemoryError:
        return _report_error(Failure("input", "too large to analyse in memory", 2), as_json, args.command, args)
    except Exception as err:  # noqa: BLE001 - the contract forbids tracebacks
        if os.environ.get("FMTCHECK_DEBUG"):
            raise
        return _report_error(Failure("internal", f"{type(err).__name__}: {err}", 2), as_json, args.command, args)
    if isinstance(outcome, int):
        return outcome
    code = outcome.exit_code(getattr(args, "fail_on", "any"))
    from fmtcheck.common.termination import STATE

    if STATE.received:  # a library caught SIGTERM and went on: no report, main() says "terminated"
        return code
    for where_input, where, what, _status in outcome.errors:
        sys.stdout.flush()
        sys.stderr.write(f"fmtcheck: error: {_one_line(where)}: {_one_line(what)}\n")
    if quiet:
        return code
    from fmtcheck.report import emit

    try:
        emit(outcome, args.format, getattr(args, "color", "auto"), info=run_info(args, code, outcome))
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_went_away(code)
    return code


def _attach_consumers(args: argparse.Namespace, outcome) -> None:
    if not getattr(args, "consumers", False):
        return
    from fmtcheck.impact.attach import attach_consumers

    try:
        attach_consumers(outcome, (args.old, args.new) if args.command == "diff" else None)
    except FmtcheckError as err:
        outcome.notes.append(f"--consumers: {err.what}")


def run_info(args: argparse.Namespace | None, code: int, report=None):
    """The JSON envelope's facts about this run."""
    from fmtcheck.common.result import RunInfo

    if args is None:
        return RunInfo(exit_status=code)
    options = vars(options_from(args))
    searches = args.command in ("verify", "patch", "reads")
    inputs = [getattr(args, name) for name in ("old", "new", "source", "name") if getattr(args, name, None)]
    inputs += list(getattr(args, "patches", None) or getattr(args, "captures", None) or [])
    return RunInfo(exit_status=code, seed=args.seed if searches else None,
                   options=options, inputs=list(getattr(report, "inputs", None) or inputs))


def _report_error(failure: Failure, as_json: bool, command: str, args: argparse.Namespace | None = None) -> int:
    """The contract's one line on stderr; in JSON mode also a JSON report on stdout. After SIGTERM
    nothing: a library may have turned it into its own error, and main() says "terminated" alone."""
    from fmtcheck.common.termination import STATE

    if STATE.received:
        return 2
    sys.stderr.write(f"fmtcheck: error: {_one_line(failure.where)}: {_one_line(failure.what)}\n")
    if as_json and not getattr(args, "quiet", False):
        import json

        from fmtcheck.common.result import Report, json_document

        report = Report(command, errors=[(None, failure.where, failure.what, failure.exit_code)])
        try:
            sys.stdout.write(json.dumps(json_document(report, run_info(args, failure.exit_code)), indent=2,
                                        ensure_ascii=False) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            return _reader_went_away(failure.exit_code)
    return failure.exit_code


@contextlib.contextmanager
def stdin_as_file(args: argparse.Namespace) -> Iterator[Callable]:
    """`-` for a capture: the capture readers take paths, so standard input goes through a
    temporary file, and the results are labelled `-` again. C sources, patches and `reads` read
    `-` themselves. Standard input can be read once: `-` may appear once."""
    names = [name for name in ("old", "new") if args.command == "diff" and getattr(args, name) == "-"]
    captures = [i for i, path in enumerate(getattr(args, "captures", None) or []) if path == "-"]
    all_paths = [getattr(args, n, None) for n in ("old", "new")] + list(getattr(args, "patches", None) or [])
    if len(names) + len(captures) > 1 or all_paths.count("-") > 1 or len(captures) > 1:
        raise FmtcheckError("-", "standard input can be given once")
    if not names and not captures:
        yield lambda report: None
        return
    from fmtcheck.common.inputfile import read_input
    from fmtcheck.common.termination import temporary_directory

    data = read_input("-", 1 << 30, "capture")
    with temporary_directory("fmtcheck-stdin-") as tmp:
        path = os.path.join(tmp, "stdin")
        with open(path, "wb") as handle:
            handle.write(data)
        for name in names:
            setattr(args, name, path)
        for index in captures:
            args.captures[index] = path
        try:
            yield lambda report: _relabel(report, path)
        finally:
            for name in names:
                setattr(args, name, "-")
            for index in captures:
                args.captures[index] = "-"


def _relabel(report, path: str) -> None:
    """The temporary file standing for standard input is `-` in the report."""
    def fix(text):
        return text.replace(path, "-") if isinstance(text, str) else text

    for result in report.results:
        result.subject, result.reason, result.input = fix(result.subject), fix(result.reason), fix(result.input)
        result.notes = [fix(n) for n in result.notes]
    report.notes = [fix(n) for n in report.notes]
    report.inputs = [fix(i) for i in report.inputs]
    report.errors = [(fix(i), fix(w), fix(t), c) for i, w, t, c in report.errors]


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
