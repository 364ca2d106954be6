"""`fmtcheck reads`: model mode, --check, bad input, and live mode on this machine's /proc."""

from __future__ import annotations

import json
import os

import pytest

from fmtcheck.cli import main
from fmtcheck.common.errors import InputError
from fmtcheck.kernel.seq_read import records_from_chunks
from fmtcheck.reads.command import RecordSource, classify_live, parse_records, show_sizes, split_records

SMAPS_VMA = "re:^[0-9a-f]+-[0-9a-f]+ "


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["reads", *argv, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


# -- model mode ----------------------------------------------------------------------------


def test_seed_002_sizes_in_text(capsys):
    assert main(["reads", "--records", "61x66,56,44x66,32", "--bufsize", "131072"]) == 0
    out = capsys.readouterr().out
    assert "107 records, 7018 bytes" in out
    assert "kernel  4082, 2936, 0  (3 read() calls" in out
    assert "fill    7018, 0  (2 read() calls" in out
    assert "fill saves 1 read() call(s); streams byte-identical to the records" in out


def test_model_json_for_several_buffer_sizes(capsys):
    code, data = run_json(capsys, "--records", "100x100", "--bufsize", "65536", "--bufsize", "4050")
    assert code == 0 and data["command"] == "reads" and data["verdict"] == "equivalent"
    big, near_page = data["results"]
    assert big["behaviours"]["kernel"]["sizes"] == [4000, 4000, 2000, 0]
    assert big["behaviours"]["fill"]["sizes"] == [10000, 0]
    assert near_page["behaviours"]["kernel"]["sizes"] == [4000, 4000, 2000, 0]
    assert near_page["behaviours"]["fill"]["sizes"] == [4050, 4050, 1900, 0]
    assert big["behaviours"]["kernel"]["sessions"] == 4


def test_model_of_a_capture_split_by_lines_or_as_one_record(tmp_path, capsys):
    capture = tmp_path / "meminfo"
    capture.write_bytes(b"x" * 2999 + b"\n")
    code, data = run_json(capsys, str(capture), "--bufsize", "1024", "--split", "file")
    assert code == 0
    assert data["results"][0]["behaviours"]["kernel"]["sizes"] == [1024, 1024, 952, 0]
    capture.write_bytes(b"".join(b"%03d" % i + b"y" * 96 + b"\n" for i in range(100)))
    code, data = run_json(capsys, str(capture), "--bufsize", "65536")
    assert data["results"][0]["behaviours"]["kernel"]["sizes"] == [4000, 4000, 2000, 0]
    assert data["results"][0]["record_unit"].startswith("records split by lines")


def test_proc_path_with_model_is_treated_as_a_capture(capsys):
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc/self/status")
    code, data = run_json(capsys, "/proc/self/status", "--model", "--split", "file")
    assert code == 0 and data["results"][0]["mode"] == "model"


def test_check_finds_no_counterexample_for_both_behaviours(capsys):
    argv = ["reads", "--records", "3x4095,0,4096,1:skip,4097", "--bufsize", "1", "--bufsize", "4096"]
    assert main([*argv, "--check", "--max-examples", "25", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "stream property (kernel): equivalent, tested" in out
    assert "stream property (fill): equivalent, tested" in out


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, where",
    [
        (["/nonexistent/capture"], "/nonexistent/capture"),
        (["--records", "1y2"], "--records"),
        (["--records", "10x"], "--records"),
        (["--records", ""], "reads"),
        (["--records", "0x5"], "--records"),
        (["--records", "5", "--bufsize", "0"], "--bufsize"),
        (["--records", "5", "--bufsize", "-4096"], "--bufsize"),
        ([], "reads"),
        (["--records", "5", "--split", "lines"], "--split"),
        (["/proc/self/status", "--split", "words"], "--split"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, where):
    assert main(["reads", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fmtcheck: error: {where}: ")
    assert err.count("\n") == 1


def test_records_syntax():
    specs = parse_records("2x10, 0,5:skip")
    assert [(s.length, s.skip) for s in specs] == [(10, False), (10, False), (0, False), (5, True)]
    with pytest.raises(InputError):
        parse_records("10,,20")


def test_split_by_record_start_keeps_multi_line_records_together():
    data = b"7f00-7f01 r\nA: 1\nB: 2\n7f02-7f03 r\nA: 3\n"
    assert split_records(data, "re:^[0-9a-f]+-") == [b"7f00-7f01 r\nA: 1\nB: 2\n", b"7f02-7f03 r\nA: 3\n"]
    assert split_records(data, "file") == [data]
    assert len(split_records(data, "lines")) == 5


def test_sizes_are_folded_for_reading():
    assert show_sizes([4000, 4000, 2000, 0]) == "4000 x2, 2000, 0"


# -- live classification on made-up observations ---------------------------------------------


def _source(chunks: list[bytes], known: bool) -> RecordSource:
    return RecordSource(records_from_chunks(chunks), "x", "test", known, b"".join(chunks))


def test_full_reads_of_a_multi_record_file_are_fill():
    src = _source([b"a" * 65 + b"\n"] * 100, known=True)
    verdict = classify_live(src, [6600, 0], 131072)
    assert verdict.behaviour == "fill" and verdict.kernel == [4092, 2508, 0]


def test_fill_claim_says_its_assumption_when_records_are_only_lines():
    src = _source([b"a" * 65 + b"\n"] * 100, known=False)
    verdict = classify_live(src, [6600, 0], 131072)
    assert verdict.behaviour == "fill" and "single_open" in verdict.notes[0]


def test_short_read_is_the_kernel():
    src = _source([b"a" * 65 + b"\n"] * 100, known=True)
    assert classify_live(src, [4092, 2508, 0], 131072).behaviour == "kernel"


def test_file_smaller_than_a_buffer_is_indistinguishable():
    src = _source([b"a" * 99 + b"\n"] * 20, known=True)
    verdict = classify_live(src, [2000, 0], 131072)
    assert verdict.behaviour == "indistinguishable" and "fits in one 4096-byte buffer" in verdict.reason


def test_sizes_matching_neither_model_are_unknown():
    src = _source([b"a" * 65 + b"\n"] * 100, known=True)
    assert classify_live(src, [3000, 3600, 0], 131072).behaviour == "unknown"


# -- live mode on this machine -------------------------------------------------------------


@pytest.mark.parametrize("path", ["/proc/interrupts", "/proc/self/smaps", "/proc/vmstat"])
def test_live_mode_reports_sizes_and_behaviour(capsys, path):
    if not os.path.exists(path):
        pytest.skip(f"{path} is absent")
    assert main(["reads", path, "--bufsize", "131072"]) == 0
    out = capsys.readouterr().out
    assert "read(131072) live:" in out and "whole records per read (kernel):" in out and "buffer filled per read (fill):" in out
    assert "running kernel " in out
    code, data = run_json(capsys, path, "--bufsize", "131072")
    assert code == 0
    result = data["results"][0]
    assert result["mode"] == "live" and result["sizes"][-1] == 0
    assert sum(result["sizes"]) == result["bytes"]
    assert data["behaviour"] in ("kernel", "fill", "indistinguishable")
    if result["bytes"] < 4096:
        assert data["behaviour"] == "indistinguishable"


def test_live_smaps_cut_per_vma_matches_one_model_exactly(capsys):
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("/proc/self/smaps is absent")
    code, data = run_json(capsys, "/proc/self/smaps", "--bufsize", "131072", "--split", SMAPS_VMA)
    result = data["results"][0]
    if result["bytes"] < 4096:
        pytest.skip("smaps too small to tell the behaviours apart")
    assert data["behaviour"] in ("kernel", "fill")
    assert result["predicted"][data["behaviour"]] == result["sizes"]


def test_live_missing_file_is_exit_2(capsys):
    assert main(["reads", "/proc/no-such-file"]) == 2
    assert capsys.readouterr().err == "fmtcheck: error: /proc/no-such-file: no such file\n"


# -- record units and limits -----------------------------------------------------------------


def test_grammar_is_no_option_of_reads_and_no_message_suggests_it(tmp_path, capsys):
    """No grammar knows which show() call printed which bytes, so `reads` has no --grammar (it
    used to offer one that always failed); --split gives the unit, and the note says so."""
    capture = tmp_path / "stat"
    capture.write_bytes(b"".join(b"%04d" % i + b"z" * 95 + b"\n" for i in range(60)))
    with pytest.raises(SystemExit) as usage:
        main(["reads", str(capture), "--grammar", "net_dev"])
    assert usage.value.code == 2
    assert "unrecognized arguments: --grammar" in capsys.readouterr().err
    code, data = run_json(capsys, str(capture), "--bufsize", "131072")
    assert "--grammar" not in json.dumps(data) and "--split" in " ".join(data["notes"])
    code, data = run_json(capsys, str(capture), "--bufsize", "131072", "--split", "file")
    result = data["results"][0]
    assert result["record_unit"] == "records split by --split file"
    assert result["behaviours"]["kernel"]["sizes"] == [6000, 0]  # one record: the buffer grows


def test_check_at_its_read_call_limit_is_inconclusive_not_divergent(tmp_path, capsys, monkeypatch):
    """A --check pattern that reaches CHECK_MAX_READS before EOF proves nothing either way: exit 3,
    the reason names the limit, no divergence (it used to be reported divergent)."""
    from fmtcheck.reads import command

    monkeypatch.setattr(command, "CHECK_MAX_READS", 50)
    capture = tmp_path / "lines"
    capture.write_bytes(b"".join(b"%09d\n" % i for i in range(10)))  # 100 bytes: 100 read(1) calls
    code, data = run_json(capsys, str(capture), "--bufsize", "1", "--check", "--max-examples", "1")
    checks = [r for r in data["results"] if r["subject"].startswith("stream property")]
    assert code == 3 and data["verdict"] == "inconclusive"
    assert checks and all(r["verdict"] == "inconclusive" and not r["divergences"] for r in checks)
    assert all("read-call limit" in r["reason"] and "50 read() calls" in r["reason"] for r in checks)


def test_check_writes_nothing_in_the_working_directory_or_the_temporary_one(tmp_path):
    """--check searches with Hypothesis, which keeps a cache in its home (`.hypothesis/` in the
    working directory by default): the search has a private home, removed afterwards. (A
    subprocess: under pytest, Hypothesis has already fixed its directory.)"""
    import subprocess
    import sys

    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.run([sys.executable, "-m", "fmtcheck", "reads", "--records", "100x100", "--check",
                           "--max-examples", "20"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (sorted(p.name for p in cwd.iterdir()), sorted(p.name for p in tmp.iterdir())) == ([], [])
