"""CLI manners: --version, -q, help for every option, the exit-status section, `-` for every file
argument, only the options that apply, several inputs each reported."""

from __future__ import annotations

import argparse
import io
import sys

import pytest

import fmtcheck
from fmtcheck.cli import build_parser, main
from _paths import FIXTURES

EXAMPLE = FIXTURES / "example"
CAPTURES = FIXTURES / "captures"
PATCHES = FIXTURES / "patches"


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0 and capsys.readouterr().out == f"fmtcheck {fmtcheck.__version__}\n"


@pytest.mark.parametrize("command", sorted(_subparsers()))
def test_every_option_has_help_and_the_exit_statuses_are_listed(command) -> None:
    parser = _subparsers()[command]
    for action in parser._actions:
        assert action.help, f"{command} {action.option_strings or action.dest} has no help"
    text = parser.format_help()
    assert "exit status" in text and "  3  inconclusive" in text and "  2  usage error" in text


def test_the_main_help_lists_the_exit_statuses() -> None:
    assert "exit status (as diff(1) and cmp(1))" in build_parser().format_help()


@pytest.mark.parametrize(("command", "hidden"), [("check", "--tree"), ("check", "--seed"), ("diff", "--max-examples"),
                                                 ("verify", "--tree")])
def test_options_that_do_not_apply_are_not_offered(command, hidden) -> None:
    assert hidden not in _subparsers()[command].format_help()


def test_options_that_do_not_apply_are_still_accepted(capsys) -> None:
    """The shared contract lists them as common options: scripts using them keep working."""
    code = main(["check", str(CAPTURES / "net_dev_current"), "--seed", "1", "--tree", "/nonexistent"])
    assert code == 0


def test_quiet_prints_nothing_and_keeps_the_status(capsys) -> None:
    assert main(["verify", str(EXAMPLE / "old.c"), str(EXAMPLE / "new-divergent.c"), "-q"]) == 1
    assert main(["verify", str(EXAMPLE / "old.c"), str(EXAMPLE / "new.c"), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_quiet_keeps_the_error_line(capsys) -> None:
    assert main(["check", "/nonexistent/capture", "-q"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("fmtcheck: error: ")


def _with_stdin(monkeypatch, path) -> None:
    data = path.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_dash_for_verify(monkeypatch, capsys) -> None:
    _with_stdin(monkeypatch, EXAMPLE / "new-divergent.c")
    assert main(["verify", str(EXAMPLE / "old.c"), "-"]) == 1
    assert "divergent" in capsys.readouterr().out


def test_dash_for_check(monkeypatch, capsys) -> None:
    _with_stdin(monkeypatch, CAPTURES / "net_dev_current")
    assert main(["check", "-", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"subject": "-"' in out and "fmtcheck-stdin" not in out


def test_dash_for_diff(monkeypatch, capsys) -> None:
    _with_stdin(monkeypatch, CAPTURES / "net_dev_added_iface")
    assert main(["diff", str(CAPTURES / "net_dev_current"), "-"]) == 0
    assert "fmtcheck-stdin" not in capsys.readouterr().out


def test_dash_twice_is_refused(monkeypatch, capsys) -> None:
    _with_stdin(monkeypatch, CAPTURES / "net_dev_current")
    assert main(["diff", "-", "-"]) == 2
    assert capsys.readouterr().err == "fmtcheck: error: -: standard input can be given once\n"


def test_several_patches_each_reported_and_the_bad_one_in_place(capsys) -> None:
    good, bad, other = PATCHES / "01-irq-put-decimal.patch", PATCHES / "bad" / "empty.patch", PATCHES / "02-queue-width.diff"
    code = main(["patch", str(good), str(bad), str(other), "--max-examples", "10"])
    captured = capsys.readouterr()
    assert code == 2  # trouble with one input wins, as diff(1)
    lines = captured.out.splitlines()
    where = [i for i, line in enumerate(lines) if "fakestat_irq_show" in line or "empty.patch: error" in line
             or "fakestat_queue_show" in line]
    assert len(where) == 3 and "empty.patch: error" in lines[where[1]]
    assert captured.err.count("\n") == 1 and "empty file" in captured.err


def test_several_captures_each_reported(capsys) -> None:
    code = main(["check", str(CAPTURES / "net_dev_current"), "/nonexistent/capture", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 2 and '"subject": "' + str(CAPTURES / "net_dev_current") in out and "/nonexistent/capture" in out


def _named_documents(text: str) -> set[str]:
    """Repository files a text names: Markdown link targets and `path/like.md` in backquotes or
    parentheses (URLs and anchors aside)."""
    import re

    links = re.findall(r"\]\(([^)#\s]+)", text)
    paths = re.findall(r"[`(]((?:[\w.-]+/)+[\w.-]+\.(?:md|json|toml|grammar))\b", text)
    return {p for p in links + paths if "://" not in p}


def test_every_document_the_readme_and_the_help_name_is_in_the_repository() -> None:
    """A fresh clone is whole: nothing points at ../shared or at a file left out of the repository."""
    root = FIXTURES.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    helps = [build_parser().format_help()] + [p.format_help() for p in _subparsers().values()]
    named = {doc for doc in _named_documents(readme)} | {doc for h in helps for doc in _named_documents(h)}
    assert "docs/cli-contract.md" in named and "docs/consumers.md" in named  # the scan sees them
    missing = sorted(doc for doc in named if not (root / doc).is_file())
    assert missing == [], missing


@pytest.mark.parametrize("argv", [["check"], ["check", "--bogus"], ["check", "-h"], ["diff", "--help"],
                                  ["check", "--format", "xml", "x"], ["diff", str(CAPTURES)], ["chek"],
                                  ["check", "/nonexistent", "--format=json"]])
def test_a_run_builds_its_commands_parser_alone_with_the_same_answers(argv, capsys, monkeypatch) -> None:
    """`fmtcheck check` / `diff` build only their own parser (start-up, issue #17): help, usage
    errors and reports are those of the whole parser."""
    import fmtcheck.cli as cli

    answers, word_of = [], cli.command_word
    for word in (word_of, lambda argv: None):
        monkeypatch.setattr(cli, "command_word", word)
        try:
            code = main(list(argv))
        except SystemExit as end:
            code = end.code
        answers.append((code, *capsys.readouterr()))
    assert answers[0] == answers[1]
    assert word_of(argv) == (argv[0] if argv[0] in ("check", "diff") else None)


_WORDS = ["a", "b", "-", "", "-q", "--quiet", "--grammar", "net_dev", "--format", "json", "jsonl", "--color",
          "never", "--fail-on", "breaking", "--consumers", "--seed", "1", "-x", "--", "--grammar=x", "--form", "-5"]


@pytest.mark.parametrize("command", ["check", "diff"])
def test_quick_arguments_are_the_parsers_or_none(command, capsys) -> None:
    """`quick_args` (check and diff without argparse, start-up of issue #17) gives exactly what the
    whole parser gives, for every command line of up to three words of this vocabulary, or leaves
    the line to the parser; and it takes the plain forms."""
    import itertools

    from fmtcheck.cli import quick_args

    taken, parser = 0, build_parser()
    lines = [list(words) for n in range(4) for words in itertools.product(_WORDS, repeat=n)]
    for words in lines:
        argv = [command, *words]
        quick = quick_args(argv)
        if quick is None:
            continue
        taken += 1
        parsed = parser.parse_args(argv)  # a usage error would raise SystemExit: a failure here
        assert vars(quick) == vars(parsed), argv
    assert taken > 100
    assert capsys.readouterr().err == ""
    plain_forms = [["a"], ["a", "b"], ["--grammar", "net_dev", "a", "b"], ["a", "b", "--format", "json", "-q"]]
    for words in plain_forms:
        if command == "check" or len(words) - sum(w.startswith("-") or w in ("net_dev", "json") for w in words) == 2:
            assert quick_args([command, *words]) is not None, words


def test_quick_arguments_leave_other_commands_to_the_parser() -> None:
    from fmtcheck.cli import quick_args

    assert quick_args([]) is None and quick_args(["verify", "a", "b"]) is None
    assert quick_args(["--version"]) is None and quick_args(["check", "-h"]) is None
