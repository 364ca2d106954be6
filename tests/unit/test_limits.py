"""Every resource limit of fmtcheck is reached by a test, which checks the message (issue #6).

Each case runs `fmtcheck` in a subprocess (so that a runaway allocation cannot take the test run
down with it: the child's address space is capped) and checks the exit status, the one-line error
of exit 2 (never a traceback, never ``internal:``), the reason of an exit 3 and the child's peak
resident memory (PEAK_MB, from resource.getrusage in the child). No test asserts a time: the
bounds are counted in work; KILL_AFTER only turns a hang into a failure.

Also the awkward inputs every command must survive: CRLF line ends, no final newline, empty files,
directories, missing paths, /dev/null, non-UTF-8 bytes, very long lines, a 10 MB single-line capture.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from _paths import ROOT  # noqa: E402
HOSTILE = ROOT / "fixtures" / "hostile"
EXAMPLE = ROOT / "fixtures" / "example"
PROC = ROOT.parent / "shared" / "fixtures" / "jc-linux-proc"

PEAK_MB = 500  # peak RSS of the child, per run
AS_CAP = 3 << 30  # the child's address-space cap: a runaway allocation fails instead of swapping
KILL_AFTER = 300.0  # a child still running after this is killed (a hang, and the test fails)
FAST = ["--max-examples", "20", "--color", "never"]

MODULES = {
    "verify": "fmtcheck.engine.verdict",
    "patch": "fmtcheck.patch.plan",
    "check": "fmtcheck.layout.capture",
    "diff": "fmtcheck.layout.diff",
    "reads": "fmtcheck.reads.command",
}


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(command: str) -> None:
    if not _have(MODULES[command]):
        pytest.skip(f"{MODULES[command]} has not landed yet")


_CHILD = r"""
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(os.environ["FC_AS_CAP"]),) * 2)
from fmtcheck.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code if isinstance(exc.code, int) else 2
sys.stdout.flush()
sys.stderr.flush()
# VmHWM, this program's own peak (ru_maxrss would count the forking pytest process too)
with open("/proc/self/status") as proc_status:
    peak_kb = next(line.split()[1] for line in proc_status if line.startswith("VmHWM:"))
with open(os.environ["FC_RUSAGE"], "w") as fh:
    fh.write(peak_kb)
os._exit(status if isinstance(status, int) else 99)
"""


@dataclass
class Run:
    argv: list
    status: int
    out: str
    err: str
    seconds: float
    peak_mb: float

    def __str__(self) -> str:
        return (f"fmtcheck {' '.join(map(str, self.argv))[:300]} -> {self.status} in {self.seconds:.1f} s, "
                f"{self.peak_mb:.0f} MB\nstdout: {self.out[-1500:]}\nstderr: {self.err[-1500:]}")


def fmtcheck(tmp_path: Path, *argv, stdin: bytes | None = None) -> Run:
    rusage = tmp_path / f"rusage.{time.monotonic_ns()}"
    env = dict(os.environ, FC_AS_CAP=str(AS_CAP), FC_RUSAGE=str(rusage), PYTHONIOENCODING="utf-8")
    env.pop("FMTCHECK_DEBUG", None)
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, argv)], input=stdin or b"",
                              capture_output=True, timeout=KILL_AFTER, env=env, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"fmtcheck {' '.join(map(str, argv))[:300]}: still running after {KILL_AFTER} s (hang)")
    seconds = time.monotonic() - start
    peak = float(rusage.read_text()) / 1024 if rusage.exists() else float("nan")
    return Run(list(argv), proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"), seconds, peak)


def assert_contract(run: Run, statuses=(0, 1, 2, 3)) -> None:
    assert "Traceback" not in run.err, str(run)
    assert "fmtcheck: error: internal:" not in run.err, f"internal error\n{run}"
    assert run.status in statuses, f"expected exit {statuses}\n{run}"
    if run.status == 2:
        lines = run.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("fmtcheck: error: "), f"exit 2 must print one line\n{run}"
    assert not run.peak_mb > PEAK_MB, f"too much memory\n{run}"


def error_line(run: Run, *words: str) -> str:
    """The one stderr line of an exit 2, which must contain each of WORDS (case-insensitive)."""
    assert_contract(run, (2,))
    line = run.err.strip()
    for word in words:
        assert word.lower() in line.lower(), f"expected {word!r} in the error\n{run}"
    return line


def inconclusive(run: Run, *words: str) -> None:
    """An exit 3 whose report names the limit (each of WORDS appears in stdout, case-insensitive)."""
    assert_contract(run, (3,))
    for word in words:
        assert word.lower() in run.out.lower(), f"expected {word!r} in the report\n{run}"


def show(body: str, name: str = "show") -> bytes:
    return (f"static int {name}(struct seq_file *m, void *v)\n{{\n\tint x = v->x;\n\tunsigned int i;\n"
            f"{body}\n\treturn 0;\n}}\n").encode()


PLAIN = show('\tseq_printf(m, "%d\\n", x);')


def verify_against_plain(tmp_path: Path, new: bytes, *extra) -> Run:
    require("verify")
    (tmp_path / "old.c").write_bytes(PLAIN)
    (tmp_path / "new.c").write_bytes(new)
    return fmtcheck(tmp_path, "verify", tmp_path / "old.c", tmp_path / "new.c", *FAST, *extra)


# --------------------------------------------------------------------------------------------------
# The interpreter's limits: steps, recursion, local arrays


@pytest.mark.parametrize("body", [
    "\twhile (1)\n\t\tseq_putc(m, 'a');",
    "\tfor (;;) {\n\t}",
    "\tdo { x++; } while (x != x + 1);",
    "again:\n\tx++;\n\tgoto again;",
    "\tfor (i = 0; i < 4000000000U; i++)\n\t\tx += i;\n\tseq_printf(m, \"%d\", x);",
], ids=["while1-putc", "for-ever", "do-while", "goto", "4e9-iterations"])
def test_step_limit(tmp_path, body):
    run = verify_against_plain(tmp_path, show(body))
    if "goto" in body and run.status == 3 and "step limit" not in run.out:
        inconclusive(run, "goto")  # goto may be refused as a construct before it loops
        return
    inconclusive(run, "step limit")


def test_step_limit_names_the_line(tmp_path):
    run = verify_against_plain(tmp_path, show("\tfor (;;) {\n\t}"))
    inconclusive(run, "step limit", "new.c:5")


def test_recursion_limit(tmp_path):
    src = (b"static void emit(struct seq_file *m, int n)\n{\n\tseq_putc(m, 'x');\n\temit(m, n + 1);\n}\n\n"
           + show("\temit(m, 0);"))
    inconclusive(verify_against_plain(tmp_path, src), "recursion")


def test_mutual_recursion_limit(tmp_path):
    src = (b"static void b(struct seq_file *m, int n);\n"
           b"static void a(struct seq_file *m, int n) { seq_putc(m, 'a'); b(m, n); }\n"
           b"static void b(struct seq_file *m, int n) { a(m, n + 1); }\n\n" + show("\ta(m, 0);"))
    inconclusive(verify_against_plain(tmp_path, src), "recursion")


@pytest.mark.parametrize("decl", ["char buf[1UL << 40];", "char buf[0x7fffffff];", "u64 big[1 << 28];"])
def test_local_array_limit(tmp_path, decl):
    run = verify_against_plain(tmp_path, show(f"\t{decl}\n\tbuf[0] = 0;\n\tseq_printf(m, \"%d\\n\", x);"))
    inconclusive(run, "array")


@pytest.mark.parametrize("decl", ["char buf[-1];", "char buf[-2147483647 - 1];", "char buf[0];"])
def test_local_array_negative_or_zero(tmp_path, decl):
    """A negative size is not C: exit 2 (or 3), never an internal error."""
    run = verify_against_plain(tmp_path, show(f"\t{decl}\n\tseq_printf(m, \"%d\\n\", x);"))
    assert_contract(run, (0, 1, 2, 3) if decl == "char buf[0];" else (1, 2, 3))


# --------------------------------------------------------------------------------------------------
# printf: width and precision caps, the output cap


@pytest.mark.parametrize("call", [
    'seq_printf(m, "%2147483647d", x);',
    'seq_printf(m, "%-2147483647d", x);',
    'seq_printf(m, "%2147483647s", "a");',
    'seq_printf(m, "%2147483647llu", (unsigned long long)x);',
    'seq_printf(m, "%99999999999999999999d", x);',
    'seq_printf(m, "%*d", 2147483647, x);',
    'seq_printf(m, "%*d", -2147483647, x);',
    'seq_printf(m, "%.*d", 2147483647, x);',
    'seq_printf(m, "%2000000d", x);',
], ids=["width", "left-width", "string-width", "ull-width", "20-digit-width", "star-width",
        "negative-star-width", "star-precision", "width-over-max-field"])
def test_printf_field_caps(tmp_path, call):
    """A huge width or precision is refused (exit 3) at once: no gigabyte of padding."""
    run = verify_against_plain(tmp_path, show("\t" + call))
    inconclusive(run, "limit")


def test_printf_width_cap_message(tmp_path):
    run = verify_against_plain(tmp_path, show('\tseq_printf(m, "%2147483647d", x);'))
    inconclusive(run, "width", "2147483647")


def test_printf_literal_precision_wraps_like_the_kernel(tmp_path):
    """A literal precision is 16-bit in the kernel (%.2147483647d is %.0d... after wrapping): no cap
    is needed, but it must still finish quickly."""
    assert_contract(verify_against_plain(tmp_path, show('\tseq_printf(m, "%.2147483647d", x);')), (1, 3))


@pytest.mark.parametrize("body", [
    '\tfor (i = 0; i < 64; i++)\n\t\tseq_printf(m, "%1000000d", x);',
    '\tfor (i = 0; i < 64; i++)\n\t\tseq_put_decimal_ull_width(m, " ", x, 1000000);',
    '\tchar buf[1 << 20];\n\tmemset(buf, \'a\', sizeof(buf));\n\tfor (i = 0; i < 64; i++)\n\t\tseq_write(m, buf, sizeof(buf));',
    '\tseq_setwidth(m, 2147483647);\n\tseq_puts(m, "a");\n\tseq_pad(m, \' \');',
], ids=["printf-loop", "put-width-loop", "write-loop", "pad"])
def test_output_cap(tmp_path, body):
    """More than the output cap (16 MiB) of rendered output is refused (exit 3), quickly."""
    run = verify_against_plain(tmp_path, show(body))
    inconclusive(run)
    assert "output" in run.out.lower() or "limit" in run.out.lower(), str(run)


def test_put_width_huge(tmp_path):
    run = verify_against_plain(tmp_path, show('\tseq_put_decimal_ull_width(m, " ", x, 2147483647);'))
    inconclusive(run)
    assert "width" in run.out or "output" in run.out, str(run)


def test_snprintf_into_small_buffer_with_huge_size(tmp_path):
    body = '\tchar buf[16];\n\tsnprintf(buf, 1UL << 40, "%2147483647d", x);\n\tseq_puts(m, buf);'
    assert_contract(verify_against_plain(tmp_path, show(body)), (1, 2, 3))


def test_huge_shift_and_division_by_zero(tmp_path):
    body = '\tseq_printf(m, "%llu %d %d", 1ULL << 100000000, x / 0, x % 0);'
    assert_contract(verify_against_plain(tmp_path, show(body)), (1, 2, 3))


def test_long_decimal_literal_in_output(tmp_path):
    """An integer literal or rendered number of more than 4300 digits (Python's str/int limit)."""
    body = '\tseq_printf(m, "%d\\n", ' + "9" * 5000 + ");"
    assert_contract(verify_against_plain(tmp_path, show(body)), (1, 2, 3))


def test_many_arguments(tmp_path):
    body = '\tseq_printf(m, "' + "%d" * 10000 + '\\n", ' + ", ".join(["x"] * 10000) + ");"
    assert_contract(verify_against_plain(tmp_path, show(body)), (0, 1, 2, 3))


# --------------------------------------------------------------------------------------------------
# Preprocessor and parser limits


def test_source_size_limit(tmp_path):
    big = show("\tseq_putc(m, 'a');\n" * 300000)  # about 6 MB, over the 4 MiB source limit
    error_line(verify_against_plain(tmp_path, big), "new.c", "limit")


def test_macro_expansion_exponential(tmp_path):
    defs = "".join(f"#define M{i} M{i + 1} M{i + 1}\n" for i in range(40)) + "#define M40 1\n"
    run = verify_against_plain(tmp_path, defs.encode() + show('\tseq_printf(m, "%d", M0);'))
    assert_contract(run, (2, 3))


def test_macro_self_and_mutual_reference(tmp_path):
    src = b"#define A A A\n#define F(x) G(x)\n#define G(x) F(x)\n" + show('\tseq_printf(m, "%d %d", A, F(1));')
    assert_contract(verify_against_plain(tmp_path, src), (1, 2, 3))


@pytest.mark.parametrize("depth", [1000, 5000])
def test_nesting_depth(tmp_path, depth):
    body = "\tseq_printf(m, \"%d\\n\", " + "(" * depth + "x" + ")" * depth + ");\n" + "{" * depth + "}" * depth
    assert_contract(verify_against_plain(tmp_path, show(body)), (0, 1, 2, 3))


# --------------------------------------------------------------------------------------------------
# Awkward files, for every command that reads one


def _c_file(tmp_path: Path) -> Path:
    path = tmp_path / "ok.c"
    path.write_bytes(PLAIN)
    return path


def _capture(tmp_path: Path) -> Path:
    path = tmp_path / "ok.cap"
    src = PROC / "meminfo"
    path.write_bytes(src.read_bytes() if src.exists() else b"MemTotal:       16384 kB\n")
    return path


def _argv(command: str, tmp_path: Path, target) -> list:
    """COMMAND with TARGET as its (last) input and good files elsewhere."""
    if command == "verify":
        return ["verify", _c_file(tmp_path), target, *FAST]
    if command == "verify-old":
        return ["verify", target, _c_file(tmp_path), *FAST]
    if command == "patch":
        return ["patch", target, *FAST]
    if command == "check":
        return ["check", target, *FAST]
    if command == "diff":
        return ["diff", _capture(tmp_path), target, *FAST]
    if command == "reads":
        return ["reads", target, "--model"]
    raise AssertionError(command)


COMMANDS = ["verify", "verify-old", "patch", "check", "diff", "reads"]


def _need(command: str) -> None:
    require("verify" if command.startswith("verify") else command)


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_path(tmp_path, command):
    _need(command)
    error_line(fmtcheck(tmp_path, *_argv(command, tmp_path, tmp_path / "no-such-file")), "no-such-file")


@pytest.mark.parametrize("command", COMMANDS)
def test_directory(tmp_path, command):
    _need(command)
    (tmp_path / "adir").mkdir()
    error_line(fmtcheck(tmp_path, *_argv(command, tmp_path, tmp_path / "adir")), "adir", "director")


@pytest.mark.parametrize("command", COMMANDS)
def test_empty_file(tmp_path, command):
    _need(command)
    (tmp_path / "empty").write_bytes(b"")
    run = fmtcheck(tmp_path, *_argv(command, tmp_path, tmp_path / "empty"))
    if command in ("check", "diff", "reads") and run.status != 2:
        assert_contract(run, (0, 1, 3))  # an empty capture may be a (trivial) valid one
    else:
        error_line(run, "empty")


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_null(tmp_path, command):
    _need(command)
    run = fmtcheck(tmp_path, *_argv(command, tmp_path, "/dev/null"))
    assert_contract(run, (0, 1, 2, 3))
    if command.startswith("verify") or command == "patch":
        error_line(run, "/dev/null")


@pytest.mark.parametrize("command", COMMANDS)
def test_unreadable_file(tmp_path, command):
    _need(command)
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "secret"
    path.write_bytes(PLAIN)
    path.chmod(0)
    error_line(fmtcheck(tmp_path, *_argv(command, tmp_path, path)), "secret")


@pytest.mark.parametrize("command", COMMANDS)
def test_binary_random_bytes(tmp_path, command):
    _need(command)
    path = tmp_path / "random.bin"
    path.write_bytes(bytes(range(256)) * 64 + os.urandom(4096))
    assert_contract(fmtcheck(tmp_path, *_argv(command, tmp_path, path)))


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_is_bounded(tmp_path, command):
    """An endless input (/dev/zero) must be refused after a bounded read, not read until OOM."""
    _need(command)
    run = fmtcheck(tmp_path, *_argv(command, tmp_path, "/dev/zero"))
    assert_contract(run, (2,))


# C sources: CRLF, no final newline, non-UTF-8, very long lines: the same verdict as the clean file.


@pytest.mark.parametrize("variant", ["crlf", "cr-only", "no-final-newline", "latin1-comment",
                                     "latin1-string", "bom", "long-line", "tabs-and-ff"])
def test_c_source_variants(tmp_path, variant):
    require("verify")
    base = show('\tseq_printf(m, "%d\\n", x); /* plain */')
    data = {
        "crlf": base.replace(b"\n", b"\r\n"),
        "cr-only": base.replace(b"\n", b"\r"),
        "no-final-newline": base.rstrip(b"\n"),
        "latin1-comment": base.replace(b"plain", b"caf\xe9 \xff\xfe"),
        "latin1-string": show('\tseq_printf(m, "%d\\n", x); seq_puts(m, "");').replace(b'""', b'"\xe9"'),
        "bom": b"\xef\xbb\xbf" + base,
        "long-line": base.replace(b"/* plain */", b"/* " + b"x" * 2_000_000 + b" */"),
        "tabs-and-ff": base.replace(b"\t", b"\t\f\v "),
    }[variant]
    run = verify_against_plain(tmp_path, data)
    if variant in ("latin1-string", "cr-only"):
        assert_contract(run, (0, 1, 2, 3))
    else:
        assert_contract(run, (0,))


@pytest.mark.parametrize("variant", ["crlf", "no-final-newline", "latin1", "mixed-line-ends"])
def test_patch_variants(tmp_path, variant):
    """The hostile seed patch in every line-end and encoding gets the clean patch's verdict."""
    require("patch")
    clean = (HOSTILE / "seed_patch.patch").read_bytes()
    data = {
        "crlf": clean.replace(b"\n", b"\r\n"),
        "no-final-newline": clean.rstrip(b"\n"),
        "latin1": (HOSTILE / "seed_patch_latin1.patch").read_bytes(),
        "mixed-line-ends": b"".join(line + (b"\r\n" if i % 2 else b"\n")
                                    for i, line in enumerate(clean.split(b"\n")[:-1])),
    }[variant]
    (tmp_path / "clean.patch").write_bytes(clean)
    (tmp_path / "v.patch").write_bytes(data)
    want = fmtcheck(tmp_path, "patch", tmp_path / "clean.patch", *FAST)
    assert_contract(want, (0,))
    got = fmtcheck(tmp_path, "patch", tmp_path / "v.patch", *FAST)
    assert_contract(got, (want.status,))


def test_patch_stdin(tmp_path):
    require("patch")
    run = fmtcheck(tmp_path, "patch", "-", *FAST, stdin=(HOSTILE / "seed_patch.patch").read_bytes())
    assert_contract(run, (0,))


def test_patch_empty_stdin(tmp_path):
    require("patch")
    error_line(fmtcheck(tmp_path, "patch", "-", *FAST, stdin=b""), "empty")


def test_patch_very_long_line(tmp_path):
    require("patch")
    clean = (HOSTILE / "seed_patch.patch").read_bytes()
    data = clean.replace(b"Subject: [PATCH]", b"Subject: [PATCH] " + b"x" * 5_000_000)
    (tmp_path / "long.patch").write_bytes(data)
    assert_contract(fmtcheck(tmp_path, "patch", tmp_path / "long.patch", *FAST))


def test_patch_size_limit(tmp_path):
    require("patch")
    path = tmp_path / "huge.patch"
    with open(path, "wb") as fh:
        fh.write((HOSTILE / "seed_patch.patch").read_bytes())
        fh.write(b"x" * (40 << 20))
    error_line(fmtcheck(tmp_path, "patch", path, *FAST), "limit")


# Captures


def test_check_10mb_single_line(tmp_path):
    require("check")
    path = tmp_path / "one-line"
    path.write_bytes(b"MemTotal: " + b"1" * (10 << 20) + b" kB\n")
    assert_contract(fmtcheck(tmp_path, "check", path, *FAST))
    assert_contract(fmtcheck(tmp_path, "check", path, "--grammar", "meminfo", *FAST))


def test_check_10mb_single_line_no_newline(tmp_path):
    require("check")
    path = tmp_path / "one-line"
    path.write_bytes(b"x" * (10 << 20))
    assert_contract(fmtcheck(tmp_path, "check", path, *FAST))


def test_diff_10mb_single_line(tmp_path):
    require("diff")
    path = tmp_path / "one-line"
    path.write_bytes(b"MemTotal: " + b"1" * (10 << 20) + b" kB\n")
    assert_contract(fmtcheck(tmp_path, "diff", _capture(tmp_path), path, *FAST))


@pytest.mark.parametrize("variant", ["crlf", "no-final-newline", "latin1", "nul"])
def test_capture_variants(tmp_path, variant):
    require("check")
    clean = _capture(tmp_path).read_bytes()
    data = {
        "crlf": clean.replace(b"\n", b"\r\n"),
        "no-final-newline": clean.rstrip(b"\n"),
        "latin1": clean.replace(b"MemTotal", b"M\xe9mTotal", 1),
        "nul": clean.replace(b"MemTotal", b"Mem\x00Total", 1),
    }[variant]
    (tmp_path / "v").write_bytes(data)
    assert_contract(fmtcheck(tmp_path, "check", tmp_path / "v", *FAST))
    if _have(MODULES["diff"]):
        assert_contract(fmtcheck(tmp_path, "diff", _capture(tmp_path), tmp_path / "v", *FAST))


def test_reads_model_long_line(tmp_path):
    require("reads")
    path = tmp_path / "one-line"
    path.write_bytes(b"x" * (10 << 20) + b"\n")
    assert_contract(fmtcheck(tmp_path, "reads", path, "--model", "--bufsize", "4096"))


@pytest.mark.parametrize("records", ["1" * 5000, ",".join(["1"] * 50000), "999999999999", "-1", "1,,2", "x"],
                         ids=["5000-digits", "50000-records", "huge", "negative", "empty-item", "letter"])
def test_reads_records_limits(tmp_path, records):
    require("reads")
    assert_contract(fmtcheck(tmp_path, "reads", "--records", records, "--bufsize", "4096"))


@pytest.mark.parametrize("bufsize", ["0", "-1", "1", "99999999999999999999", "x"])
def test_reads_bufsize_limits(tmp_path, bufsize):
    require("reads")
    assert_contract(fmtcheck(tmp_path, "reads", "--records", "10,20", "--bufsize", bufsize))


def test_max_examples_huge_is_bounded(tmp_path):
    """--max-examples is a user knob, but a silly value must not run for ever."""
    require("verify")
    (tmp_path / "a.c").write_bytes(show('\tif (x > 5) seq_printf(m, "%d\\n", x); else seq_puts(m, "small\\n");'))
    run = fmtcheck(tmp_path, "verify", tmp_path / "a.c", tmp_path / "a.c", "--max-examples", "-5")
    assert_contract(run, (0, 2))


def test_json_report_is_one_object(tmp_path):
    """A hostile input still gives one JSON object on stdout (exit 3 here)."""
    (tmp_path / "old.c").write_bytes(PLAIN)
    (tmp_path / "new.c").write_bytes(show("\tfor (;;) {\n\t}"))
    require("verify")
    run = fmtcheck(tmp_path, "verify", tmp_path / "old.c", tmp_path / "new.c", "--format", "json", *FAST)
    assert_contract(run, (3,))
    report = json.loads(run.out)
    assert report["verdict"] == "inconclusive"
    assert "step limit" in json.dumps(report["results"])
