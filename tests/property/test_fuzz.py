"""Bounded fuzz tests of every fmtcheck entry point that reads untrusted input (issue #6).

Every example runs in-process through `fmtcheck.cli.main([...])` with its files written to a
temporary directory, and must keep the command-line contract (../shared/docs/cli-contract.md):

- the exit status is 0, 1, 2 or 3;
- on exit 2, stderr is exactly one line starting ``fmtcheck: error: ``, and no Python traceback;
- ``fmtcheck: error: internal: ...`` is a bug (an unexpected exception), even though it is exit 2;
- no example hangs (HARD_LIMIT interrupts one; speed is measured by benchmarks/fuzz_campaign.py, and
  every search is bounded in work, never in time).

Inputs: random bytes, mutated real patches (../shared/seeds, fixtures/hostile) and captures
(../shared/fixtures/jc-linux-proc), random C-like token soup, random structured C statements, and
deeply nested or very long constructs. Commands whose module has not landed yet are skipped (they
run as soon as it exists). benchmarks/fuzz_campaign.py reuses the strategies below for long runs.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import signal
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fmtcheck import cli

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
HOSTILE = ROOT / "fixtures" / "hostile"
EXAMPLE = ROOT / "fixtures" / "example"
PROC = SHARED / "fixtures" / "jc-linux-proc"

# Time is measured by benchmarks/fuzz_campaign.py, never asserted here: the engine's bounds are
# counted in work. HARD_LIMIT only turns a hang into a failure instead of a stuck test run.
HARD_LIMIT = 120.0  # CPU seconds: an example still running after this is interrupted (and fails)
WALL_LIMIT = 10 * HARD_LIMIT  # wall seconds: the backstop for an example blocked without using the CPU
MEMORY_HEADROOM = 2 << 30  # bytes of address space one example may add (a small input needs far less)
ERROR_PREFIX = "fmtcheck: error: "
FAST = ["--max-examples", "10", "--color", "never"]

# The module each command needs; a command whose module is missing is skipped.
MODULES = {
    "verify": ("fmtcheck.engine.verdict",),
    "patch": ("fmtcheck.patch.plan", "fmtcheck.patch.patchfile"),
    "check": ("fmtcheck.layout.capture", "fmtcheck.layout.grammar"),
    "diff": ("fmtcheck.layout.diff",),
    "grammars": ("fmtcheck.layout.grammar", "fmtcheck.grammars"),
    "reads": ("fmtcheck.reads.command",),
}


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_module(command: str) -> str | None:
    for module in MODULES[command]:
        if not _have(module):
            return module
    return None


def require(command: str) -> None:
    module = missing_module(command)
    if module is not None:
        pytest.skip(f"{module} has not landed yet")


# --------------------------------------------------------------------------------------------------
# Running the CLI and checking the contract


class Hang(BaseException):
    """Raised by SIGPROF (SIGALRM) when an example runs past HARD_LIMIT of CPU (WALL_LIMIT of wall
    time). A BaseException: main() must not swallow it as an internal error."""


def _on_alarm(signum, frame):  # pragma: no cover - only on a hang
    clock = "of CPU" if signum == signal.SIGPROF else "of wall time"
    raise Hang(f"still running after {HARD_LIMIT if signum == signal.SIGPROF else WALL_LIMIT} s {clock}")


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def invoke(argv: list[str]) -> tuple[int, str, str, float]:
    """Run `fmtcheck argv` in-process; returns (status, stdout, stderr, seconds). Output goes to
    whatever sys.stdout/sys.stderr are (capsys in tests, a StringIO in the campaign).

    While it runs, the address space may grow by at most MEMORY_HEADROOM (soft RLIMIT_AS, restored
    afterwards), so a runaway allocation ends as a MemoryError instead of taking the machine down."""
    # the hang limit counts the process's CPU time: under a machine's load the wall time of the
    # same work grows several times (a load of 9 on 2 cores failed an example of 50 s of CPU)
    old = signal.signal(signal.SIGALRM, _on_alarm)
    old_prof = signal.signal(signal.SIGPROF, _on_alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    vm = _vm_size()
    if vm:
        cap = vm + MEMORY_HEADROOM
        resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_PROF, HARD_LIMIT)
    signal.setitimer(signal.ITIMER_REAL, WALL_LIMIT)
    start = time.monotonic()
    try:
        try:
            status = cli.main(argv)
        except SystemExit as exc:  # argparse usage errors
            status = exc.code if isinstance(exc.code, int) else 2
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    return status, "", "", time.monotonic() - start


def _inputs_given(argv: list[str]) -> int:
    """How many inputs `patch` and `check` were given (each bad one gets its own error line)."""
    if not argv or argv[0] not in ("patch", "check"):
        return 1
    count, skip = 0, False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg.startswith("-") and arg != "-":
            skip = "=" not in arg and arg not in ("-q", "--quiet", "--consumers")
        else:
            count += 1
    return count


def contract_violation(argv: list[str], status, stdout: str, stderr: str, seconds: float,
                       time_limit: float | None = None) -> str | None:
    """What is wrong with one run, or None if it keeps the contract."""
    if "Traceback" in stderr or "Traceback (most recent call last)" in stdout:
        return "traceback printed"
    if status not in (0, 1, 2, 3):
        return f"exit status {status!r} is not 0/1/2/3"
    if "fmtcheck: error: internal:" in stderr:
        return "internal error: " + stderr.strip().splitlines()[0]
    if "too large to analyse in memory" in stderr:
        return "ran out of memory (MemoryError): " + stderr.strip().splitlines()[0]
    if status == 2:
        lines = stderr.splitlines()
        allowed = max(_inputs_given(argv), 1)  # one line per input that cannot be read
        if not 1 <= len(lines) <= allowed or not stderr.endswith("\n"):
            return f"exit 2 with {len(lines)} stderr line(s), expected one per bad input (<= {allowed}): {stderr[:300]!r}"
        bad = [line for line in lines if not line.startswith(ERROR_PREFIX)]
        if bad:
            return f"exit 2 stderr does not start with {ERROR_PREFIX!r}: {bad[0][:200]!r}"
        raw = sorted({c for c in stderr.rstrip("\n") if ord(c) < 32 and c not in "\t\n" or ord(c) == 127})
        if raw:  # input bytes echoed unescaped: a CR rewrites the line, an ESC drives the terminal
            return f"exit 2 stderr echoes raw control characters {raw!r}: {stderr[:200]!r}"
    if time_limit is not None and seconds > time_limit:
        return f"took {seconds:.1f} s (limit {time_limit} s)"
    return None


def pending_module(stderr: str) -> str | None:
    """A fmtcheck module that is imported lazily and has not landed yet (not a fuzz finding)."""
    marker = "internal: ModuleNotFoundError: No module named '"
    if marker in stderr:
        name = stderr.split(marker, 1)[1].split("'", 1)[0]
        if name.startswith("fmtcheck"):
            return name
    return None


def run_cli(capsys, argv: list[str], time_limit: float | None = None) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        status, _, _, seconds = invoke(argv)
    except Hang:
        out, err = capsys.readouterr()
        pytest.fail(f"fmtcheck {' '.join(argv)}: hang (> {HARD_LIMIT} s of CPU or {WALL_LIMIT} s of wall time)")
    out, err = capsys.readouterr()
    module = pending_module(err)
    if module is not None:
        pytest.skip(f"{module} has not landed yet")
    problem = contract_violation(argv, status, out, err, seconds, time_limit)
    assert problem is None, f"fmtcheck {' '.join(argv)}: {problem}\nstderr: {err[:2000]}"
    return status, out, err


# --------------------------------------------------------------------------------------------------
# Seeds


def _read_all(paths) -> list[bytes]:
    out = []
    for p in sorted(paths):
        try:
            if p.is_file():
                out.append(p.read_bytes())
        except OSError:
            pass
    return out


PATCH_SEEDS = _read_all(list((SHARED / "seeds").glob("*")) + list(HOSTILE.glob("*.patch"))
                        + list((ROOT / "fixtures" / "patches").glob("*"))) or [b"diff --git a/x b/x\n"]
CAPTURE_SEEDS = _read_all(p for p in PROC.glob("*") if p.suffix != ".md"
                          and p.name != "LICENSE.md") or [b"MemTotal:       16384 kB\n"]
CAPTURE_SEEDS += _read_all((ROOT / "fixtures" / "consumers").glob("*.txt"))
C_SEEDS = _read_all(list(EXAMPLE.glob("*.c")) + list(HOSTILE.glob("*.c"))) or [b"int x;\n"]


# --------------------------------------------------------------------------------------------------
# Strategies


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    """A seed with a few byte- and line-level mutations."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["flip", "delete", "dup", "insert", "truncate", "swaplines",
                                   "crlf", "dropline", "dupline", "interesting"]))
        n = len(data)
        if op == "flip" and n:
            i = draw(st.integers(0, n - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "delete" and n:
            i = draw(st.integers(0, n - 1))
            del data[i:i + draw(st.integers(1, 64))]
        elif op == "dup" and n:
            i = draw(st.integers(0, n - 1))
            chunk = data[i:i + draw(st.integers(1, 256))]
            data[i:i] = chunk * draw(st.integers(1, 8))
        elif op == "insert":
            i = draw(st.integers(0, n))
            data[i:i] = draw(st.binary(max_size=32))
        elif op == "truncate" and n:
            del data[draw(st.integers(0, n - 1)):]
        elif op in ("swaplines", "dropline", "dupline", "crlf"):
            lines = bytes(data).split(b"\n")
            if op == "crlf":
                data = bytearray(b"\r\n".join(lines))
                continue
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if op == "swaplines":
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "dropline":
                del lines[i]
            else:
                lines[i:i] = [lines[j]] * draw(st.integers(1, 20))
            data = bytearray(b"\n".join(lines))
        elif op == "interesting" and n:
            i = draw(st.integers(0, n))
            data[i:i] = draw(st.sampled_from(INTERESTING))
    return bytes(data)


INTERESTING = [
    b"\x00", b"\xff\xfe", b"\xc3\x28", b"\r", b"\r\n", b"\\\n", b"\t", b"\x1b[31m", b"%n", b"%s%s%s",
    b"%2147483647d", b"%.2147483647s", b"%*d", b"%-99999999d", b"4294967295", b"18446744073709551616",
    b"-9223372036854775808", b"@@ -1,0 +1,0 @@\n", b"@@ -0,0 +0,0 @@\n", b"@@ -99999999999,1 +1 @@\n",
    b"diff --git a/x b/x\n", b"--- a/x\n+++ b/x\n", b"--- /dev/null\n", b"+++ /dev/null\n",
    b"GIT binary patch\n", b"\\ No newline at end of file\n", b"From 0 Mon Sep 17 00:00:00 2001\n",
    b"Content-Transfer-Encoding: base64\n", b"Content-Type: multipart/mixed; boundary=x\n",
    b"=?utf-8?b?////?=", b"{" * 64, b"}" * 64, b"(" * 64, b"#define A A A\n", b"#if 0\n", b"#endif\n",
    b"for_each_cpu(i, m) {\n", b"seq_printf(m, \"%d\\n\", x);\n", b"\n" * 50, b" " * 5000,
]

FMT_PIECES = [
    "%d", "%u", "%ld", "%lu", "%lld", "%llu", "%x", "%lx", "%llx", "%X", "%o", "%c", "%s", "%p",
    "%pK", "%pI4", "%pI6c", "%pM", "%ps", "%pS", "%pV", "%pd", "%pOF", "%%", "%", "%n", "%hhd", "%hu",
    "%zu", "%zd", "%td", "%*d", "%-*d", "%.*s", "%*.*s", "%-8s", "%08llx", "%+d", "% d", "%#x",
    "%#o", "%2147483647d", "%-2147483648d", "%.99999s", "%99999999999999999999d", "%65537s",
    "%.65537s", "%5$d", "%'d", "%e", "%f", "%q", "%ll", "%.", "%-", "\\n", "\\t", "\\0", "\\x41",
    "\\\\", "\\\"", " ", ":", "abc", "    ", "\t",
]

IDENTS = [
    "m", "seq", "v", "x", "y", "i", "n", "p", "s", "dev", "stats", "buf", "len", "foo", "bar", "NULL",
    "sizeof", "int", "unsigned", "long", "char", "u64", "u32", "s64", "bool", "static", "void",
    "return", "if", "else", "while", "for", "do", "switch", "case", "default", "break", "continue",
    "struct", "const", "goto", "out", "seq_file", "true", "false", "PAGE_SIZE", "ULLONG_MAX",
    "INT_MIN", "typeof", "__builtin_expect", "likely", "unlikely", "min", "max", "ARRAY_SIZE",
    "for_each_online_cpu", "list_for_each_entry", "rcu_read_lock", "__weak", "__aligned",
]

CALL_HEADS = [
    "seq_printf(m, ", "seq_puts(m, ", "seq_putc(m, ", "seq_put_decimal_ull(m, ",
    "seq_put_decimal_ull_width(m, ", "seq_put_decimal_ll(m, ", "seq_put_hex_ll(m, ", "seq_write(m, ",
    "seq_pad(m, ", "seq_escape(m, ", "seq_escape_str(m, ", "seq_printf(seq, ", "snprintf(buf, ",
    "sprintf(buf, ", "scnprintf(buf, sizeof(buf), ", "seq_setwidth(m, ", "seq_vprintf(m, ",
    "helper(m, ", "strlen(", "memset(buf, ", "memcpy(buf, ",
]

PUNCT = [
    "(", ")", "{", "}", "[", "]", ";", ",", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~",
    "!", "=", "==", "!=", "<", ">", "<=", ">=", "?", ":", "->", ".", "++", "--", "&&", "||", "+=",
    "<<=", "#", "##", "...", "\\\n", "\n", "#define X(a) a\n", "#define Y(a, ...) a ## __VA_ARGS__\n",
    "#if 1\n", "#ifdef X\n", "#else\n", "#endif\n", "#include <x.h>\n", "/*", "*/", "//", "'", "\"",
]

NUMBERS = [
    "0", "1", "-1", "7", "0x7fffffff", "0xffffffff", "0xffffffffffffffff", "0xFFFFFFFFFFFFFFFFULL",
    "18446744073709551616", "4294967296", "2147483648", "-2147483648", "9223372036854775807LL",
    "1ULL << 63", "1 << 31", "1 << 64", "1 >> 200", "-1 >> 1", "077", "08", "0b101", "1e10", "1.5",
    "'a'", "'\\0'", "'\\n'", "'\\xff'", "'\\777'", "'ab'", "10000000000000000000000000000000000000",
]


@st.composite
def fmt_string(draw) -> str:
    return '"' + "".join(draw(st.lists(st.sampled_from(FMT_PIECES), max_size=8))) + '"'


@st.composite
def token_soup(draw) -> bytes:
    """Random C-like tokens: identifiers, seq_* calls, braces, format strings, numbers, operators."""
    toks = draw(st.lists(st.one_of(
        st.sampled_from(IDENTS), st.sampled_from(CALL_HEADS), st.sampled_from(PUNCT),
        st.sampled_from(NUMBERS), fmt_string(),
        st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True),
    ), max_size=120))
    body = " ".join(toks)
    if draw(st.booleans()):
        body = "static int show(struct seq_file *m, void *v)\n{\n" + body + "\n}\n"
    return body.encode("utf-8", "surrogatepass")


# Structured C: statements that mostly parse, so that the interpreter (not only the parser) runs.

_LEAF = st.one_of(
    st.sampled_from(["x", "y", "i", "n", "v->a", "v->b.c", "stats->rx_bytes", "p[1]", "buf[0]",
                     "s->name", "len", "*p", "&x", "get_val(v)", "sizeof(buf)", "(u8)x", "(s64)y"]),
    st.sampled_from(NUMBERS),
)


def _binop(children):
    return st.tuples(children, st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
                                                "<", "==", "!=", "&&", "||"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")


EXPR = st.recursive(_LEAF, lambda c: st.one_of(
    _binop(c),
    st.tuples(st.sampled_from(["-", "!", "~", "(int)", "(unsigned long long)", "(char)", "(u16)"]), c)
    .map(lambda t: f"{t[0]}{t[1]}"),
    st.tuples(c, c, c).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    st.tuples(st.sampled_from(["min", "max", "helper", "foo", "abs", "DIV_ROUND_UP"]), c, c)
    .map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
), max_leaves=12)

STRING = st.one_of(fmt_string(), st.sampled_from(['"x"', '""', '" "', '"\\n"', "buf", "s->name", "NULL", "p"]))


def _call(fmt, args, exprs):
    return st.one_of(
        st.tuples(fmt, st.lists(args, max_size=5)).map(
            lambda t: "seq_printf(m, " + ", ".join([t[0]] + t[1]) + ");"),
        st.tuples(STRING).map(lambda t: f"seq_puts(m, {t[0]});"),
        st.tuples(exprs).map(lambda t: f"seq_putc(m, {t[0]});"),
        st.tuples(STRING, exprs, exprs).map(lambda t: f"seq_put_decimal_ull_width(m, {t[0]}, {t[1]}, {t[2]});"),
        st.tuples(STRING, exprs).map(lambda t: f"seq_put_decimal_ull(m, {t[0]}, {t[1]});"),
        st.tuples(STRING, exprs).map(lambda t: f"seq_put_decimal_ll(m, {t[0]}, {t[1]});"),
        st.tuples(STRING, exprs, exprs).map(lambda t: f"seq_put_hex_ll(m, {t[0]}, {t[1]}, {t[2]});"),
        st.tuples(STRING, exprs).map(lambda t: f"seq_write(m, {t[0]}, {t[1]});"),
        st.tuples(exprs).map(lambda t: f"seq_pad(m, {t[0]});"),
        st.tuples(exprs).map(lambda t: f"seq_setwidth(m, {t[0]});"),
        st.tuples(fmt, st.lists(args, max_size=4)).map(
            lambda t: "snprintf(buf, sizeof(buf), " + ", ".join([t[0]] + t[1]) + ");"),
        st.tuples(exprs).map(lambda t: f"x = {t[0]};"),
        st.tuples(exprs).map(lambda t: f"i += {t[0]};"),
        st.just("return 0;"), st.just("break;"), st.just("continue;"), st.just(";"),
    )


SIMPLE_STMT = _call(fmt_string(), st.one_of(EXPR, STRING), EXPR)

STMT = st.recursive(SIMPLE_STMT, lambda c: st.one_of(
    st.tuples(EXPR, c).map(lambda t: f"if ({t[0]}) {{ {t[1]} }}"),
    st.tuples(EXPR, c, c).map(lambda t: f"if ({t[0]}) {{ {t[1]} }} else {{ {t[2]} }}"),
    st.tuples(EXPR, c).map(lambda t: f"for (i = 0; i < {t[0]}; i++) {{ {t[1]} }}"),
    st.tuples(EXPR, c).map(lambda t: f"while ({t[0]}) {{ {t[1]} }}"),
    st.tuples(c, EXPR).map(lambda t: f"do {{ {t[0]} }} while ({t[1]});"),
    st.tuples(c).map(lambda t: f"for_each_online_cpu(i) {{ {t[0]} }}"),
    st.tuples(EXPR, c, c).map(lambda t: f"switch ({t[0]}) {{ case 0: {t[1]} break; default: {t[2]} }}"),
    st.lists(c, min_size=1, max_size=4).map(lambda ss: "{ " + " ".join(ss) + " }"),
), max_leaves=8)

DECLS = ("\tint x = 0, y = 1; unsigned int i = 0; long n = 3; char buf[64] = \"\"; "
         "const char *p = \"abc\"; size_t len = 4;\n")


@st.composite
def c_function(draw, name: str = "show") -> bytes:
    """A seq_file show function built from random statements (plus an optional helper)."""
    stmts = draw(st.lists(STMT, min_size=1, max_size=8))
    helper = ""
    if draw(st.booleans()):
        helper = ("static int helper(struct seq_file *m, int a)\n{\n\t" + draw(STMT)
                  + "\n\treturn a;\n}\n\n")
    text = (helper + f"static int {name}(struct seq_file *m, void *v)\n{{\n" + DECLS + "\t"
            + "\n\t".join(stmts) + "\n\treturn 0;\n}\n")
    return text.encode()


C_INPUT = st.one_of(c_function(), token_soup(), mutated(C_SEEDS), st.binary(max_size=512))
PATCH_INPUT = st.one_of(mutated(PATCH_SEEDS), st.binary(max_size=2048),
                        token_soup().map(lambda b: b"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n"
                                         + b"\n".join(b"-+ "[i % 3:i % 3 + 1] + l for i, l in enumerate(b.split(b"\n")))))
CAPTURE_INPUT = st.one_of(mutated(CAPTURE_SEEDS), st.binary(max_size=2048),
                          st.text(alphabet=st.sampled_from(list(" \t\n:0123456789abcdefkBx-_()/|")),
                                  max_size=2048).map(str.encode))
GRAMMAR_NAMES = st.one_of(
    st.sampled_from(["net_dev", "meminfo", "NET_DEV", "", " ", "../net_dev", "/etc/passwd", "a" * 5000,
                     "net_dev\x00", "net-dev", "x.grammar", "-", "--format", "\u00e9"]),
    st.text(max_size=40).filter(lambda s: "\x00" not in s),
)
COMMON_OPTS = st.lists(st.sampled_from([
    ["--format", "json"], ["--format", "text"], ["--seed", "1"], ["--seed", "-1"],
    ["--fail-on", "breaking"], ["--consumers"],
]), max_size=2).map(lambda xs: [a for x in xs for a in x])

# Shrinking a failure re-runs fmtcheck hundreds of times (minutes): opt in with FMTCHECK_FUZZ_SHRINK=1.
_PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + (
    [Phase.shrink] if os.environ.get("FMTCHECK_FUZZ_SHRINK") else [])
SETTINGS = settings(max_examples=int(os.environ.get("FMTCHECK_FUZZ_EXAMPLES", "40")), deadline=None,
                    database=None, phases=_PHASES,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large]
                    # the engine runs its own Hypothesis search inside each example
                    + ([HealthCheck.nested_given] if hasattr(HealthCheck, "nested_given") else []))


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# --------------------------------------------------------------------------------------------------
# verify


@SETTINGS
@given(old=C_INPUT, new=C_INPUT, opts=COMMON_OPTS)
def test_verify_fuzz(tmp_path, capsys, old, new, opts):
    require("verify")
    run_cli(capsys, ["verify", _write(tmp_path, "old.c", old), _write(tmp_path, "new.c", new), *FAST, *opts])


@SETTINGS
@given(new=c_function(), opts=COMMON_OPTS)
def test_verify_structured_against_example(tmp_path, capsys, new, opts):
    """A random rewrite of a real seq_file function must get a verdict, not a crash."""
    require("verify")
    old = (EXAMPLE / "old.c").read_bytes() if (EXAMPLE / "old.c").exists() else b"int x;\n"
    run_cli(capsys, ["verify", _write(tmp_path, "old.c", old), _write(tmp_path, "new.c", new), *FAST, *opts])


@SETTINGS
@given(body=c_function(), function=st.sampled_from(["show", "helper", "nope", "", "a" * 300, "show\n"]))
def test_verify_same_function(tmp_path, capsys, body, function):
    """Both sides the same random function (also with --function)."""
    require("verify")
    path = _write(tmp_path, "a.c", body)
    run_cli(capsys, ["verify", path, path, "--function", function, *FAST])


@SETTINGS
@given(new=C_INPUT, name=GRAMMAR_NAMES)
def test_verify_grammar_reference(tmp_path, capsys, new, name):
    require("verify")
    if not _have("fmtcheck.layout.reference"):
        pytest.skip("fmtcheck.layout.reference has not landed yet")
    run_cli(capsys, ["verify", "--grammar", name, _write(tmp_path, "new.c", new), *FAST])


# --------------------------------------------------------------------------------------------------
# patch


@SETTINGS
@given(patches=st.lists(PATCH_INPUT, min_size=1, max_size=3), opts=COMMON_OPTS)
def test_patch_fuzz(tmp_path, capsys, patches, opts):
    require("patch")
    paths = [_write(tmp_path, f"p{i}.patch", p) for i, p in enumerate(patches)]
    run_cli(capsys, ["patch", *paths, *FAST, *opts])


# --------------------------------------------------------------------------------------------------
# check / diff


@SETTINGS
@given(captures=st.lists(CAPTURE_INPUT, min_size=1, max_size=3),
       grammar=st.one_of(st.none(), GRAMMAR_NAMES))
def test_check_fuzz(tmp_path, capsys, captures, grammar):
    require("check")
    paths = [_write(tmp_path, f"c{i}", c) for i, c in enumerate(captures)]
    argv = ["check", *paths, *FAST]
    if grammar is not None:
        argv += ["--grammar", grammar]
    run_cli(capsys, argv)


@SETTINGS
@given(old=CAPTURE_INPUT, new=CAPTURE_INPUT, grammar=st.one_of(st.none(), GRAMMAR_NAMES),
       consumers=st.booleans())
def test_diff_fuzz(tmp_path, capsys, old, new, grammar, consumers):
    require("diff")
    argv = ["diff", _write(tmp_path, "old", old), _write(tmp_path, "new", new), *FAST]
    if grammar is not None:
        argv += ["--grammar", grammar]
    if consumers:
        argv.append("--consumers")
    run_cli(capsys, argv)


# --------------------------------------------------------------------------------------------------
# grammars, reads


@SETTINGS
@given(name=st.one_of(st.none(), GRAMMAR_NAMES), fmt=st.sampled_from(["text", "json"]))
def test_grammars_fuzz(capsys, name, fmt):
    require("grammars")
    run_cli(capsys, ["grammars", *([name] if name is not None else []), "--format", fmt])


@SETTINGS
@given(capture=CAPTURE_INPUT,
       bufsizes=st.lists(st.one_of(st.integers(-5, 70000), st.sampled_from([0, 1, 4096, 2**31, 2**64])),
                         max_size=3),
       split=st.one_of(st.none(), st.sampled_from(["lines", "file", "re:\\n", "re:(", "re:", "re:(a*)*b",
                                                     "re:.", "bogus", "re:(?=x)"])),
       check=st.booleans())
def test_reads_model_fuzz(tmp_path, capsys, capture, bufsizes, split, check):
    require("reads")
    argv = ["reads", _write(tmp_path, "cap", capture), "--model", "--max-examples", "10"]
    for b in bufsizes:
        argv += ["--bufsize", str(b)]
    if split is not None:
        argv += ["--split", split]
    if check:
        argv.append("--check")
    run_cli(capsys, argv)


@SETTINGS
@given(records=st.one_of(
    st.lists(st.integers(-3, 100000), min_size=1, max_size=20).map(lambda xs: ",".join(map(str, xs))),
    st.text(alphabet=st.sampled_from(list("0123456789,x*-+ .e")), max_size=40)),
    bufsize=st.integers(-1, 1 << 20))
def test_reads_records_fuzz(capsys, records, bufsize):
    require("reads")
    run_cli(capsys, ["reads", "--records", records, "--bufsize", str(bufsize), "--max-examples", "10"])


# --------------------------------------------------------------------------------------------------
# Deep nesting and very long constructs (fixed, not random)


def _fn(body: str) -> bytes:
    return ("static int show(struct seq_file *m, void *v)\n{\n\tint x = 1;\n" + body
            + "\n\treturn 0;\n}\n").encode()


DEEP = {
    "parens_5000": _fn("\tseq_printf(m, \"%d\\n\", " + "(" * 5000 + "x" + ")" * 5000 + ");"),
    "braces_5000": _fn("{" * 5000 + "seq_putc(m, 'a');" + "}" * 5000),
    "if_5000": _fn("if (x) " * 5000 + "seq_putc(m, 'a');"),
    "unary_5000": _fn("\tseq_printf(m, \"%d\\n\", " + "-" * 5000 + "x);"),
    "ternary_3000": _fn("\tseq_printf(m, \"%d\\n\", " + "x ? " * 3000 + "1" + " : 0" * 3000 + ");"),
    "sum_10000": _fn("\tseq_printf(m, \"%d\\n\", " + " + ".join(["x"] * 10000) + ");"),
    "sum_ops_10000": _fn("\tx = " + " ^ ".join(f"v->f{i}" for i in range(10000)) + ";\n\tseq_printf(m, \"%d\", x);"),
    "concat_10000": _fn("\tseq_puts(m, " + " ".join(['"ab"'] * 10000) + ");"),
    "args_10000": _fn("\tseq_printf(m, \"" + "%d" * 10000 + "\\n\", " + ", ".join(["x"] * 10000) + ");"),
    "stmts_20000": _fn("\tseq_putc(m, 'a');\n" * 20000),
    "unbalanced_open_5000": b"{" * 5000 + b"seq_putc(m, 'a');",
    "unbalanced_close_5000": b"seq_putc(m, 'a');" + b"}" * 5000,
    "open_parens_only": b"(" * 10000,
    "macro_self": b"#define A A A\n" + _fn("\tseq_printf(m, \"%d\", A);"),
    "macro_exponential": ("".join(f"#define M{i} M{i + 1} M{i + 1}\n" for i in range(40)) + "#define M40 1\n").encode()
    + _fn("\tseq_printf(m, \"%d\", M0);"),
    "macro_nested_calls": b"#define F(a) (a + 1)\n" + _fn("\tseq_printf(m, \"%d\", " + "F(" * 3000 + "x" + ")" * 3000 + ");"),
    "macro_mutual": b"#define A(x) B(x)\n#define B(x) A(x)\n" + _fn("\tseq_printf(m, \"%d\", A(1));"),
    "macro_continuation_5000": b"#define LONG \\\n" + b"1 + \\\n" * 5000 + b"1\n" + _fn("\tseq_printf(m, \"%d\", LONG);"),
    "ifdef_5000": b"#if 1\n" * 5000 + _fn("\tseq_putc(m, 'a');") + b"#endif\n" * 5000,
    "for_each_5000": _fn("\tint i;\n" + "\tfor_each_cpu(i, m) " * 5000 + "seq_putc(m, 'a');"),
    "comment_unterminated": _fn("\t/* " + "x" * 100000),
    "string_unterminated": _fn("\tseq_puts(m, \"" + "x" * 100000),
    "long_line_1mb": _fn("\tseq_puts(m, \"" + "x" * (1 << 20) + "\");"),
    "long_ident": _fn("\tseq_printf(m, \"%d\", v->" + "a" * 200000 + ");"),
    "many_functions_2000": "".join(
        f"static int f{i}(struct seq_file *m, void *v)\n{{\n\tseq_printf(m, \"%d\\n\", v->x);\n\treturn 0;\n}}\n"
        for i in range(2000)).encode(),
    "call_chain_500": "".join(f"static void f{i}(struct seq_file *m) {{ f{i + 1}(m); }}\n" for i in range(500)).encode()
    + b"static void f500(struct seq_file *m) { seq_putc(m, 'a'); }\n",
    "array_decl_huge": _fn("\tchar buf[1UL << 62];\n\tseq_puts(m, buf);"),
    "array_negative": _fn("\tchar buf[-1];\n\tseq_puts(m, buf);"),
    "shift_huge": _fn("\tseq_printf(m, \"%llu\", 1ULL << 100000000);"),
    "div_zero": _fn("\tseq_printf(m, \"%d\", x / 0);\n\tseq_printf(m, \"%d\", x % 0);"),
    "int_min_div": _fn("\tint a = -2147483647 - 1;\n\tseq_printf(m, \"%d\", a / -1);"),
    "loop_huge_count": _fn("\tunsigned long long i;\n\tfor (i = 0; i < 1ULL << 60; i++)\n\t\tx++;\n\tseq_printf(m, \"%d\", x);"),
    "seq_write_huge_len": _fn("\tseq_write(m, \"abc\", 1UL << 40);"),
    "pad_huge": _fn("\tseq_setwidth(m, 2147483647);\n\tseq_puts(m, \"a\");\n\tseq_pad(m, ' ');"),
    "put_width_huge": _fn("\tseq_put_decimal_ull_width(m, \" \", x, 2147483647);"),
    "put_width_negative": _fn("\tseq_put_decimal_ull_width(m, \" \", x, -1);"),
    "star_width_huge": _fn("\tseq_printf(m, \"%*d\", 2147483647, x);"),
    "star_width_min": _fn("\tseq_printf(m, \"%*d\", -2147483647 - 1, x);"),
    "prec_huge": _fn("\tseq_printf(m, \"%.2147483647d\", x);"),
    "width_huge": _fn("\tseq_printf(m, \"%2147483647d\", x);"),
    "width_over_max_field": _fn("\tseq_printf(m, \"%2000000d\", x);"),
    "width_20_digits": _fn("\tseq_printf(m, \"%99999999999999999999llu\", x);"),
    "snprintf_huge": _fn("\tchar buf[16];\n\tsnprintf(buf, 1UL << 40, \"%2147483647d\", x);\n\tseq_puts(m, buf);"),
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_verify_deep(tmp_path, capsys, name):
    """Deeply nested or huge constructs: a verdict or a one-line error, within the time bound."""
    require("verify")
    data = DEEP[name]
    plain = _fn('\tseq_printf(m, "%d\\n", x);')
    run_cli(capsys, ["verify", _write(tmp_path, "old.c", plain), _write(tmp_path, "new.c", data), *FAST])


@pytest.mark.parametrize("name", ["braces_5000", "parens_5000", "unbalanced_open_5000", "long_line_1mb"])
def test_patch_deep(tmp_path, capsys, name):
    """The same constructs arriving through a patch (added lines)."""
    require("patch")
    body = DEEP[name].split(b"\n")
    patch = (b"diff --git a/fs/proc/x.c b/fs/proc/x.c\n--- a/fs/proc/x.c\n+++ b/fs/proc/x.c\n"
             + b"@@ -1,0 +1,%d @@\n" % len(body) + b"".join(b"+" + line + b"\n" for line in body))
    run_cli(capsys, ["patch", _write(tmp_path, "deep.patch", patch), *FAST])


@pytest.mark.parametrize("name", ["long_line", "many_lines", "many_columns", "deep_parens"])
def test_check_deep(tmp_path, capsys, name):
    require("check")
    data = {
        "long_line": b"MemTotal: " + b"9" * 200000 + b" kB\n",
        "many_lines": b"MemTotal:       16384 kB\n" * 100000,
        "many_columns": b"cpu " + b" 1" * 100000 + b"\n",
        "deep_parens": b"1 (" + b"(" * 5000 + b"comm" + b")" * 5000 + b") S 1 1\n",
    }[name]
    run_cli(capsys, ["check", _write(tmp_path, "cap", data), *FAST])
    run_cli(capsys, ["diff", _write(tmp_path, "a", data), _write(tmp_path, "b", data), *FAST]) \
        if not missing_module("diff") else None


# --------------------------------------------------------------------------------------------------
# Minimal crashers found by fuzzing (regressions: each must keep the contract once fixed)

_OCTAL = _fn('\tseq_printf(m, "%d\\n", 08);')
_LONG_LITERAL = _fn('\tseq_printf(m, "%d\\n", ' + "9" * 5000 + ");")
_RENAME_PATCH = b"diff --git a/foo.c b/foo.c\n--- a/foo.c\n+++ b/bar.c\n@@ -1 +1 @@\n-a\n+b\n"
_PLAIN = _fn('\tseq_printf(m, "%d\\n", x);')

KNOWN = {
    "verify-octal-08": ("verify", {"a.c": _OCTAL}, ["verify", "{a.c}", "{a.c}"]),
    "verify-5000-digit-literal": ("verify", {"a.c": _PLAIN, "b.c": _LONG_LITERAL}, ["verify", "{a.c}", "{b.c}"]),
    "verify-negative-array": ("verify", {"a.c": _PLAIN, "b.c": DEEP["array_negative"]}, ["verify", "{a.c}", "{b.c}"]),
    "verify-10000-args": ("verify", {"a.c": _PLAIN, "b.c": DEEP["args_10000"]}, ["verify", "{a.c}", "{b.c}"]),
    "verify-loop-accumulates": ("verify", {"a.c": _PLAIN, "b.c": _fn(
        "\tunsigned int i;\n\tx = v->x;\n\tfor (i = 0; i < 4000000000U; i++)\n\t\tx += i;\n\tseq_printf(m, \"%d\", x);")},
        ["verify", "{a.c}", "{b.c}"], (3,)),  # a step limit, not "nesting too deep" (exit 2)
    "verify-star-precision-32767": ("verify", {"a.c": _PLAIN, "b.c": _fn('\tseq_printf(m, "%.*d", 2147483647, x);')},
                                    ["verify", "{a.c}", "{b.c}"]),
    "verify-negative-hex-literal": ("verify", {"a.c": _fn('\tseq_printf(m, "%d\\n", ~-0xffffffff);')},
                                    ["verify", "{a.c}", "{a.c}"]),
    "verify-20-digit-width": ("verify", {"a.c": _PLAIN, "b.c": DEEP["width_20_digits"]}, ["verify", "{a.c}", "{b.c}"]),
    "verify-syntax-error-lone-cr": ("verify", {"a.c": b"static int s(struct seq_file *m, void *v)\x1d\r\n{\r\r\n{\r\r"},
                                    ["verify", "{a.c}", "{a.c}"]),  # line -5, and raw \x1d echoed
    "grammars-long-name": ("grammars", {}, ["grammars", "a" * 300]),
    "check-long-grammar-name": ("check", {"c": b"MemTotal:       16384 kB\n"}, ["check", "{c}", "--grammar", "a" * 300]),
    "patch-rename-mismatch": ("patch", {"p.patch": _RENAME_PATCH}, ["patch", "{p.patch}"]),
    "reads-5000-digit-record": ("reads", {}, ["reads", "--records", "1" * 5000]),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_crashers(tmp_path, capsys, name):
    command, files, argv, *expected = KNOWN[name]
    require(command)
    paths = {n: _write(tmp_path, n, data) for n, data in files.items()}
    status, _out, err = run_cli(capsys, [paths.get(a[1:-1], a) if a.startswith("{") else a for a in argv] + (
        FAST if command in ("verify", "patch", "check") else []))
    if expected:
        assert status in expected[0], f"exit {status}, expected {expected[0]}: {err}"
