"""pytest plugin: fmtcheck's questions as tests, and a queue of kernel patches as test items.

The entry point (``pytest11``) loads this module into *every* pytest run of an environment where
fmtcheck is installed, so importing it must stay cheap: the engine (tree-sitter, Hypothesis,
``fmtcheck.engine.verdict``/``interp``/``patchcheck``, ``capture``, ``layoutdiff``) is imported inside the
functions that use it, never at module level. ``benchmarks/plugin_import.py`` measures the cost.
The module holds no ``assert``, so PYTEST_DONT_REWRITE spares it pytest's assertion rewriting.

Three pieces:

- the ``fmtcheck`` fixture, one method per question: ``patch(path)``, ``verify(old, new)``,
  ``check(capture)``, ``diff(old, new)``. Each returns the `Report` when it passes and raises
  `FmtcheckFailure` (an ``AssertionError``) whose text, and pytest representation, is the fmtcheck
  text report;
- collection: ``--fmtcheck-patches PATH...`` and the ini option ``fmtcheck_patches`` turn every
  patch file into a `PatchFile` whose items are the functions the patch touches
  (``0001-x.patch::net/core/net-procfs.c:dev_seq_printf_stats``): equivalent passes, divergent
  fails with the report, nothing-to-check is skipped, inconclusive is xfail (fails with
  ``--fmtcheck-strict``), unreadable input is one failing item. Collection only reads and
  rebuilds the patches (`fmtcheck.patch.plan.plan_jobs`); each item runs the engine in its own
  ``runtest``, so ``-n N`` splits the judging and durations and junit times are the judging times.
  ``--fmtcheck-tree DIR`` (ini ``fmtcheck_tree``) gives the kernel tree the patches apply to;
- options and the ``fmtcheck`` marker that choose the seed, the example budget, ``fail_on`` and
  strictness. Seeds follow ``--hypothesis-seed``; with ``CI`` set the seed is 0 unless one is given;
  otherwise each session draws one (shown in every failure) and hands it to its xdist workers.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Union

import pytest

if TYPE_CHECKING:
    from fmtcheck.common.options import Options
    from fmtcheck.common.result import Report, Result

PATCH_SUFFIXES = frozenset({".patch", ".diff", ".mbx", ".mbox", ".eml", ".txt"})
MARKER_KEYS = frozenset({"max_examples", "seed", "fail_on", "strict", "tree"})
FAIL_ON = ("any", "breaking")
DEFAULT_MAX_EXAMPLES = 200
MARKER_SOURCE = "@pytest.mark.fmtcheck"

Source = Union[str, bytes, "os.PathLike[str]"]

_SERIES_PREFIX = r"^\[[^\]]*\]\s+"  # "[2/4] " before a subject; re caches the compiled form


# --------------------------------------------------------------------------------------------
# Settings: one value per session, adjusted per test by the marker


@dataclasses.dataclass(frozen=True)
class Settings:
    """Everything the plugin decides once per session (a marker may override per test)."""

    seed: int
    seed_source: str  # where the seed came from, so a failure says how to reproduce it
    max_examples: int
    fail_on: str
    strict: bool
    roots: tuple[Path, ...] = ()  # patch files and directories to collect
    tree: str | None = None

    def options(self, **extra: Any) -> "Options":
        """A fresh `Options` per question: the engine may mutate it (``function``)."""
        from fmtcheck.common.options import Options

        return Options(seed=self.seed, max_examples=self.max_examples, fail_on=self.fail_on,
                       tree=self.tree, **extra)

    def reproduce_hint(self) -> str:
        """How to replay the inputs that found a divergence (a marker's seed needs no option)."""
        if self.seed_source == MARKER_SOURCE:
            return f"fmtcheck seed {self.seed} ({self.seed_source})"
        return f"fmtcheck seed {self.seed} ({self.seed_source}); reproduce with --hypothesis-seed={self.seed}"


SETTINGS_KEY = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("fmtcheck", "fmtcheck (does a /proc rewrite print the same bytes?)")
    group.addoption("--fmtcheck-patches", action="extend", nargs="+", default=[], metavar="PATH",
                    help="collect these patch files / directories of patches as test items "
                         "(put the option last, or use --fmtcheck-patches=PATH)")
    group.addoption("--fmtcheck-max-examples", type=int, default=None, metavar="N",
                    help="inputs tried per function when a rewrite is not proven (default 200)")
    group.addoption("--fmtcheck-fail-on", choices=FAIL_ON, default=None,
                    help="fail on any divergence (default) or only on breaking ones")
    group.addoption("--fmtcheck-strict", action="store_true", default=None,
                    help="an inconclusive verdict fails instead of xfailing")
    group.addoption("--fmtcheck-tree", default=None, metavar="DIR",
                    help="kernel tree the patches apply to: whole functions, helpers and macros "
                         "instead of the hunks alone (as fmtcheck patch --tree)")
    parser.addini("fmtcheck_patches", type="args", default=[],
                  help="patch files or directories, relative to rootdir, collected as tests")
    parser.addini("fmtcheck_max_examples", type="string", default="",
                  help="default for --fmtcheck-max-examples")
    parser.addini("fmtcheck_fail_on", type="string", default="", help="any | breaking")
    parser.addini("fmtcheck_strict", type="bool", default=False, help="default for --fmtcheck-strict")
    parser.addini("fmtcheck_tree", type="string", default="",
                  help="default for --fmtcheck-tree, relative to rootdir")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fmtcheck(max_examples=None, seed=None, fail_on=None, strict=None, tree=None): "
        "configure the fmtcheck fixture for this test",
    )
    settings = session_settings(config)
    config.stash[SETTINGS_KEY] = settings
    _add_patch_args(config)
    if getattr(config.option, "xmlpath", None) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(JunitClassnames(config), "fmtcheck-junit-classnames")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker must use the controller's seed, or a random seed would differ."""
    settings = node.config.stash[SETTINGS_KEY]
    node.workerinput["fmtcheck_seed"] = settings.seed
    node.workerinput["fmtcheck_seed_source"] = settings.seed_source


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None or not settings.roots:
        return None  # installed everywhere: stay silent unless patches are being checked
    where = ", ".join(_relative(p, config.rootpath) for p in settings.roots)
    tree = f", tree {_relative(Path(settings.tree), config.rootpath)}" if settings.tree else ""
    return (f"fmtcheck: patches {where}; seed {settings.seed} ({settings.seed_source}), "
            f"max examples {settings.max_examples}, fail on {settings.fail_on}{tree}")


def session_settings(config: pytest.Config) -> Settings:
    """Command line over ini over defaults."""
    seed, source = _session_seed(config)
    return Settings(
        seed=seed,
        seed_source=source,
        max_examples=_max_examples(config),
        fail_on=_fail_on(config),
        strict=bool(_first(config.getoption("fmtcheck_strict", None), config.getini("fmtcheck_strict"))),
        roots=tuple(_patch_roots(config)),
        tree=_tree(config),
    )


def _first(*values: Any) -> Any:
    return next((v for v in values if v not in (None, "")), None)


def _max_examples(config: pytest.Config) -> int:
    raw = _first(config.getoption("fmtcheck_max_examples", None), config.getini("fmtcheck_max_examples"))
    try:
        value = int(raw) if raw is not None else DEFAULT_MAX_EXAMPLES
    except ValueError:
        raise pytest.UsageError(f"fmtcheck_max_examples: not a number: {raw!r}") from None
    if value < 1:
        raise pytest.UsageError(f"--fmtcheck-max-examples must be at least 1, not {value}")
    return value


def _tree(config: pytest.Config) -> str | None:
    """--fmtcheck-tree (relative to where pytest was started) over fmtcheck_tree (relative to the
    rootdir); a path that is no directory is a usage error, not one failing item per patch."""
    given = config.getoption("fmtcheck_tree", None)
    base = config.invocation_params.dir
    if given in (None, ""):
        given, base = config.getini("fmtcheck_tree") or None, config.rootpath
    if given is None:
        return None
    path = _absolute(base, given)
    if not path.is_dir():
        raise pytest.UsageError(f"--fmtcheck-tree: not a directory: {path}")
    return str(path)


def _fail_on(config: pytest.Config) -> str:
    value = _first(config.getoption("fmtcheck_fail_on", None), config.getini("fmtcheck_fail_on")) or "any"
    if value not in FAIL_ON:
        raise pytest.UsageError(f"fmtcheck_fail_on must be one of {', '.join(FAIL_ON)}, not {value!r}")
    return value


def _session_seed(config: pytest.Config) -> tuple[int, str]:
    """--hypothesis-seed, else the xdist controller's seed, else 0 in CI, else a fresh one."""
    given = config.getoption("hypothesis_seed", None)
    if given not in (None, ""):
        return seed_from(given), "--hypothesis-seed"
    workerinput = getattr(config, "workerinput", None)
    if workerinput and "fmtcheck_seed" in workerinput:
        return int(workerinput["fmtcheck_seed"]), str(workerinput.get("fmtcheck_seed_source", "controller"))
    from fmtcheck.common.options import in_ci

    if in_ci():
        return 0, "CI is set"
    return int.from_bytes(os.urandom(4), "big"), "random"


def seed_from(value: object) -> int:
    """Hypothesis accepts any seed text; a non-number is hashed stably (not by hash())."""
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        import zlib

        return zlib.crc32(text.encode("utf-8"))


# --------------------------------------------------------------------------------------------
# Which paths are patches to collect


def _patch_roots(config: pytest.Config) -> list[Path]:
    return _cli_roots(config) + _ini_roots(config)


def _cli_roots(config: pytest.Config) -> list[Path]:
    base = config.invocation_params.dir
    return [_absolute(base, p) for p in config.getoption("fmtcheck_patches", None) or []]


def _ini_roots(config: pytest.Config) -> list[Path]:
    return [_absolute(config.rootpath, p) for p in config.getini("fmtcheck_patches") or []]


def _absolute(base: Path, path: str) -> Path:
    return Path(os.path.abspath(base / os.path.expanduser(path)))


def _add_patch_args(config: pytest.Config) -> None:
    """Make pytest walk the patch paths.

    Patches named on the command line are collected in any case, and alone when no test paths
    were given (``pytest --fmtcheck-patches queue/`` runs the queue, not the whole suite). Patches
    from the ini file join the default collection, like ``testpaths``, but do not intrude when the
    user names what to run.
    """
    cli, ini = _cli_roots(config), _ini_roots(config)
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if cli and not explicit:
        config.args[:] = [str(p) for p in cli]
        return
    extra = cli if cli else ([] if explicit else ini)
    base = config.invocation_params.dir
    covered = [_absolute(base, arg.split("::")[0]) for arg in config.args]
    config.args.extend(str(p) for p in extra if not _under(p, covered))


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base)) or "."
    except ValueError:
        return str(path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash.get(SETTINGS_KEY, None)
    if settings is None or not settings.roots or file_path.suffix.lower() not in PATCH_SUFFIXES:
        return None
    if not _under(Path(os.path.abspath(file_path)), settings.roots):
        return None
    return PatchFile.from_parent(parent, path=file_path)


# --------------------------------------------------------------------------------------------
# Failures and verdicts


class FmtcheckFailure(AssertionError):
    """A question answered "no": its text is the fmtcheck report a reviewer reads."""

    def __init__(self, text: str, report: "Report | None" = None, question: str | None = None) -> None:
        super().__init__(text)
        self.text = text.rstrip("\n")
        self.report = report
        self.question = question

    def __str__(self) -> str:
        return self.text


def report_text(report: "Report", settings: Settings) -> str:
    """The CLI's text report, never coloured (it also lands in --junitxml), plus the seed."""
    from fmtcheck.report import render_text

    text = render_text(report, color="never")
    if report.verdict == "divergent":
        text += settings.reproduce_hint() + "\n"
    return text


def settle(report: "Report", settings: Settings, question: str | None = None) -> "Report":
    """Pass (return the report), fail, or xfail, by the CLI's exit code for this report."""
    __tracebackhide__ = True
    code = report.exit_code(settings.fail_on)
    if code == 0:
        return report
    if code == 3 and not settings.strict:
        pytest.xfail("fmtcheck inconclusive: " + _reasons(report))
    raise FmtcheckFailure(report_text(report, settings), report, question)


def _reasons(report: "Report") -> str:
    reasons = [r.reason or r.verdict for r in report.results if r.verdict == "inconclusive"]
    return "; ".join(reasons) or report.verdict


# --------------------------------------------------------------------------------------------
# Collection of patches


class PatchFile(pytest.File):
    """One patch file (or mbox/thread); each result its plan will give becomes one item."""

    def collect(self) -> list[pytest.Item]:
        """List the items without judging: reading and rebuilding the patch is cheap, the engine
        runs in each item's `runtest`, so ``-n N`` splits the judging and pytest's durations and
        junit times are the judging times.

        Under xdist each worker collects (pytest requires identical collections): item names
        depend on the subjects only, never on verdicts, and the work bound is spent here, in
        file order, so the workers agree on every item and every verdict.
        """
        from fmtcheck.common.errors import Inconclusive, InputError
        from fmtcheck.common.result import Result
        from fmtcheck.patch.plan import WorkBudget, plan_jobs, plan_patches, within_budget

        settings = self.config.stash[SETTINGS_KEY]
        options = settings.options()
        try:
            plans = plan_patches([str(self.path)], options)
        except InputError as err:
            return [PatchErrorItem.from_parent(self, name="input-error",
                                               message=f"fmtcheck: error: {err.where}: {err.what}")]
        except Inconclusive as err:
            known = Result(self.path.name, "inconclusive", reason=str(err))
            return [KnownItem.from_parent(self, name=self.path.name, result=known)]
        except Exception as err:  # noqa: BLE001 - a collection error would stop the whole queue
            return [PatchErrorItem.from_parent(self, name="internal-error", error=err)]
        jobs = within_budget([job for plan in plans for job in plan_jobs(plan)], WorkBudget(options.max_functions))
        if not jobs:
            known = Result(self.path.name, "nothing-to-check", reason="no output code touched")
            return [KnownItem.from_parent(self, name=self.path.name, result=known)]
        return [JobItem.from_parent(self, name=name, job=job)
                for name, job in zip(item_names([job.subject for job in jobs]), jobs)]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Load the engine once the items are listed and before the first runs: its import (about a
    second) would otherwise count in the time of the first item each process judges."""
    if any(isinstance(item, JobItem) and item.job.check is not None for item in session.items):
        import fmtcheck.engine.verdict  # noqa: F401
        import hypothesis.strategies  # noqa: F401


def item_names(subjects: list[str]) -> list[str]:
    """Subjects as item names: a series prefix such as ``[2/4] `` is dropped when the names stay
    unique, ``::`` (pytest's node-id separator) is defused, and duplicates get a counter."""
    plain = [re.sub(_SERIES_PREFIX, "", s) or s for s in subjects]
    names = plain if len(set(plain)) == len(plain) else list(subjects)
    seen: dict[str, int] = {}
    unique = []
    for name in (n.replace("::", ":") for n in names):
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return unique


class _FmtcheckItem(pytest.Item):
    """Shared reporting: a FmtcheckFailure is shown as its report, nothing else, and the short
    summary (and the junit message) starts at the report's first divergence line."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, FmtcheckFailure):
            return failure_repr(excinfo.value, self.path)
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # an inconclusive verdict: pytest reports only its reason, so spare it the traceback
            # with source that it would format first (most of an xfailed item's time)
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.parent.name}::{self.name}"


class JobItem(_FmtcheckItem):
    """One function of a patch (or a verdict its plan already knows), judged when it runs."""

    def __init__(self, *, job: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.job = job

    def runtest(self) -> None:
        from fmtcheck.patch.plan import job_report

        settings = self.config.stash[SETTINGS_KEY]
        result = self.job.run(settings.options())
        settle_item(self, job_report(self.job, result), settings)


class KnownItem(_FmtcheckItem):
    """A patch whose verdict was decided while reading it (an input fmtcheck cannot model)."""

    def __init__(self, *, result: "Result", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result = result

    def runtest(self) -> None:
        from fmtcheck.common.result import Report

        settle_item(self, Report("patch", [self.result], inputs=[str(self.path)]), self.config.stash[SETTINGS_KEY])


def settle_item(item: pytest.Item, report: "Report", settings: Settings) -> None:
    """An item's outcome from its one-result report: skip, pass, xfail or fail; a divergence
    tolerated by ``--fmtcheck-fail-on`` passes with the report kept for ``-rA``."""
    __tracebackhide__ = True
    result = report.results[0]
    if result.verdict == "nothing-to-check":
        _skip_here(result.reason or "; ".join(result.notes + report.notes) or "nothing to check")
    settle(report, settings)
    if result.verdict != "equivalent":
        item.add_report_section("call", "fmtcheck", report_text(report, settings))


def failure_repr(failure: FmtcheckFailure, path: Path, text: str | None = None) -> Any:
    """The report (or TEXT) as pytest's failure representation. Its crash message, which the
    short test summary shows (its first line) and junit writes as the failure message, starts at
    the first divergence line, not at the subject the node id already names. pytest's own
    classes, so that xdist carries it from a worker unchanged."""
    text = failure.text if text is None else text
    try:
        from _pytest._code.code import ReprEntryNative, ReprExceptionInfo, ReprFileLocation, ReprTraceback
    except ImportError:  # a pytest that moved them: the report alone, summarised by its first line
        return text
    entry = ReprEntryNative([text + "\n"])
    traceback = ReprTraceback([entry], None, "native")
    return ReprExceptionInfo(reprtraceback=traceback,
                             reprcrash=ReprFileLocation(str(path), 0, crash_message(failure)))


def crash_message(failure: FmtcheckFailure) -> str:
    """What a reader of the one-line summary needs first: the first divergence (its line, both
    sides, the counterexample) and the seed; for an inconclusive result its reason; else the
    failure's text."""
    report = failure.report
    result = report.results[0] if report is not None and report.results else None
    if result is None or not (result.divergences or result.reason):
        return failure.text
    if not result.divergences:
        return f"reason: {result.reason}"
    import textwrap

    from fmtcheck.common.text import format_divergence

    lines = format_divergence(result.divergences[0])
    if len(result.divergences) > 1:
        lines.append(f"  (and {len(result.divergences) - 1} more divergence(s))")
    hint = [line for line in failure.text.splitlines()[-1:] if line.startswith("fmtcheck seed ")]
    return textwrap.dedent("\n".join(lines)) + "".join("\n" + line for line in hint)


def _skip_here(reason: str) -> None:
    """Skip, reported at the patch rather than at this plugin's source line."""
    __tracebackhide__ = True
    try:
        exc = pytest.skip.Exception(reason, _use_item_location=True)  # type: ignore[call-arg]
    except TypeError:  # a pytest without the keyword
        exc = pytest.skip.Exception(reason)
    raise exc


class PatchErrorItem(_FmtcheckItem):
    """A patch fmtcheck could not judge, as one failing item: bad input carries the CLI's one-line
    error; a crash carries its traceback, so the rest of the queue still runs."""

    def __init__(self, *, message: str = "", error: BaseException | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message
        self.error = error

    def runtest(self) -> None:
        if self.error is not None:
            raise self.error
        raise FmtcheckFailure(self.message)


# --------------------------------------------------------------------------------------------
# The fixture


class Fmtcheck:
    """The ``fmtcheck`` fixture: each method asks fmtcheck one question.

    Sources and captures are files (a ``Path``, or a ``str`` that names one) or text (``bytes``, or
    a ``str`` with a newline; for C, also a one-line ``str`` containing ``(``, ``;`` or ``{``).
    """

    def __init__(self, node: pytest.Item, settings: Settings) -> None:
        self.node = node
        self.settings = settings

    def patch(self, path: "str | os.PathLike[str]", *, tree: str | None = None) -> "Report":
        """Does this patch (git format-patch, git diff, mbox, thread) keep the output bytes?"""
        __tracebackhide__ = True
        from fmtcheck.patch.plan import check_patches

        options = self.settings.options()
        options.tree = tree or options.tree
        return self._settle("patch", check_patches([os.fspath(path)], options))

    def verify(self, old: Source, new: Source, function: str | None = None) -> "Report":
        """Do these two C sources print the same bytes (every shared output function, or one)?"""
        __tracebackhide__ = True
        from fmtcheck.engine.verdict import verify_files, verify_sources

        options = self.settings.options(function=function)
        if _is_path(old, code=True) and _is_path(new, code=True):
            if options.grammar:
                from fmtcheck.layout.reference import verify_against_grammar

                return self._settle("verify", verify_against_grammar(options.grammar, os.fspath(new), options))
            return self._settle("verify", verify_files(os.fspath(old), os.fspath(new), options))
        report = verify_sources(_c_text(old), _c_text(new), options, function=function)
        return self._settle("verify", report)

    def check(self, capture: Source, grammar: str | None = None) -> "Report":
        """Is this capture exactly what the grammar (detected, or named) prints for its values?"""
        __tracebackhide__ = True
        from fmtcheck.layout.capture import check_captures

        with _CaptureFiles(capture=capture) as files:
            report = check_captures([files["capture"]], self.settings.options(grammar=grammar))
            files.relabel(report)
        return self._settle("check", report)

    def diff(self, old: Source, new: Source, grammar: str | None = None) -> "Report":
        """Do two captures of the same /proc file have the same layout (values may differ)?"""
        __tracebackhide__ = True
        from fmtcheck.layout.diff import diff_captures

        with _CaptureFiles(old=old, new=new) as files:
            report = diff_captures(files["old"], files["new"], self.settings.options(grammar=grammar))
            files.relabel(report)
        return self._settle("diff", report)

    def _settle(self, question: str, report: "Report") -> "Report":
        """Settle, and keep a passing answer's report for ``-rA`` (a failure already shows it)."""
        __tracebackhide__ = True
        settle(report, self.settings, question)
        self.node.add_report_section("call", f"fmtcheck {question}", report_text(report, self.settings))
        return report


@pytest.fixture
def fmtcheck(request: pytest.FixtureRequest) -> Fmtcheck:
    """Ask fmtcheck questions (patch, verify, check, diff); configure with @pytest.mark.fmtcheck."""
    return Fmtcheck(request.node, marked_settings(request.node))


def marked_settings(node: pytest.Item) -> Settings:
    """Session settings overridden by ``@pytest.mark.fmtcheck`` (closest marker wins)."""
    settings = node.config.stash[SETTINGS_KEY]
    overrides: dict[str, Any] = {}
    for marker in reversed(list(node.iter_markers("fmtcheck"))):
        overrides.update(marker.kwargs)
    unknown = set(overrides) - MARKER_KEYS
    if unknown:
        pytest.fail(f"fmtcheck marker: unknown argument(s) {', '.join(sorted(unknown))}; "
                    f"known: {', '.join(sorted(MARKER_KEYS))}", pytrace=False)
    if overrides.get("fail_on", "any") not in FAIL_ON:
        pytest.fail(f"fmtcheck marker: fail_on must be one of {', '.join(FAIL_ON)}", pytrace=False)
    if "seed" in overrides:
        overrides["seed_source"] = MARKER_SOURCE
    return dataclasses.replace(settings, **overrides)


def _is_path(value: Source, code: bool = False) -> bool:
    """Path-like or a one-line str naming a file; text has a newline (or, for C, code chars)."""
    if isinstance(value, os.PathLike):
        return True
    if isinstance(value, (bytes, bytearray)):
        return False
    if "\n" in value:
        return False
    return not (code and any(c in value for c in "(;{"))


def _c_text(value: Source) -> bytes:
    if _is_path(value, code=True):
        from fmtcheck.engine.verdict import read_source

        return read_source(os.fspath(value))
    return bytes(value) if isinstance(value, (bytes, bytearray)) else value.encode("utf-8", "surrogateescape")


class _CaptureFiles:
    """Captures given as text go through temporary files (the capture APIs take paths); their
    names in the report are then replaced by ``<capture>``, ``<old>``, ``<new>``."""

    def __init__(self, **captures: Source) -> None:
        self.captures = captures
        self.paths: dict[str, str] = {}
        self.labels: dict[str, str] = {}

    def __enter__(self) -> "_CaptureFiles":
        import tempfile

        self._tmp = tempfile.TemporaryDirectory(prefix="fmtcheck-")
        for role, value in self.captures.items():
            if _is_path(value):
                self.paths[role] = os.fspath(value)
                continue
            path = os.path.join(self._tmp.name, role)
            data = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else bytes(value)
            Path(path).write_bytes(data)
            self.paths[role] = path
            self.labels[path] = f"<{role}>"
        return self

    def __getitem__(self, role: str) -> str:
        return self.paths[role]

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    def relabel(self, report: "Report") -> None:
        for result in report.results:
            for path, label in self.labels.items():
                result.subject = result.subject.replace(path, label)
                result.notes = [n.replace(path, label) for n in result.notes]
                if result.reason:
                    result.reason = result.reason.replace(path, label)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """A fixture question that failed is shown as its report and the test line that asked it
    (the Python traceback says nothing a reviewer needs; ``--tb=long``/``native`` keep it)."""
    report = yield
    if isinstance(item, _FmtcheckItem):
        report.fmtcheck_classname = _relative(item.path, item.config.rootpath)  # travels with xdist
    exc = call.excinfo.value if call.excinfo is not None else None
    if (isinstance(exc, FmtcheckFailure) and report.failed and not isinstance(item, _FmtcheckItem)
            and item.config.getoption("tbstyle", "auto") not in ("long", "native")):
        report.longrepr = failure_repr(exc, item.path, exc.text + "\n\n" + _asked_at(item, call.excinfo, exc))
    return report


def _asked_at(item: pytest.Item, excinfo: Any, exc: FmtcheckFailure) -> str:
    """``tests/test_x.py:12: fmtcheck.verify() failed``: the last frame in the test's file."""
    path = getattr(item, "path", None)
    lines = [e.lineno + 1 for e in excinfo.traceback if path is not None and Path(e.path) == path]
    where = _relative(path, item.config.rootpath) if path is not None else item.nodeid
    line = f":{lines[-1]}" if lines else ""
    return f"{where}{line}: fmtcheck.{exc.question or 'question'}() failed"


class JunitClassnames:
    """junit ``classname`` of a patch's items: the patch file as the node id names it
    (``queue/0001-x.patch``), where pytest would turn every ``/`` into a dot
    (``queue.0001-x.patch``, which junit readers split into package and class). Registered on
    the process that writes the junit file (the xdist controller); the name comes with the report.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        classname = getattr(report, "fmtcheck_classname", None)
        if classname is None:
            return
        try:
            from _pytest.junitxml import xml_key  # pytest's own junit writer; its attributes win
        except ImportError:
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is not None:
            xml.node_reporter(report).add_attribute("classname", classname)
