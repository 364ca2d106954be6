"""Hostile inputs at every entry point: nothing hangs, nothing foreign runs, nothing crashes.

Each class of input the issue names has a test: a named pipe with no writer, a character device, a
file that would block, a --tree link to a procfs file and one leaving the tree, unreadable and
vanishing files, a module planted in the working directory under --consumers, a line just over the
64 MiB bound, and SIGTERM during a run. Hangs are caught by a generous subprocess guard
(`HANG_GUARD`), never by asserting how fast something ran.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fmtcheck.common import inputfile
from fmtcheck.common.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "fixtures" / "example"
PATCH = ROOT / "fixtures" / "patches" / "01-irq-put-decimal.patch"
HANG_GUARD = 120.0  # seconds: only a hang gets anywhere near this


def fmtcheck(*argv, cwd: Path | None = None, env: dict | None = None, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    """Run the installed command line in a child process (a hang fails the test, it does not block it)."""
    environment = dict(os.environ if env is None else env)
    environment.pop("FMTCHECK_DEBUG", None)
    try:
        return subprocess.run([sys.executable, "-m", "fmtcheck", *map(str, argv)], capture_output=True, text=True,
                              errors="replace", timeout=HANG_GUARD, cwd=cwd, env=environment, stdin=stdin)
    except subprocess.TimeoutExpired:
        pytest.fail(f"fmtcheck {' '.join(map(str, argv))}: still running after {HANG_GUARD} s (hang)")


def one_error_line(proc: subprocess.CompletedProcess, *words: str) -> str:
    """The single `fmtcheck: error:` line of an exit 2, containing each of WORDS."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-800:], proc.stderr[-800:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fmtcheck: error: "), proc.stderr
    assert "internal" not in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word.lower() in lines[0].lower(), lines[0]
    return lines[0]


# Every entry point that reads a path, with PATH standing for the hostile one.
ENTRY_POINTS = {
    "check": lambda p: ["check", p],
    "check --grammar": lambda p: ["check", p, "--grammar", "net_dev"],
    "diff old": lambda p: ["diff", p, EXAMPLE / "old.c"],
    "diff new": lambda p: ["diff", EXAMPLE / "old.c", p],
    "reads": lambda p: ["reads", p, "--model"],
    "patch": lambda p: ["patch", p],
    "verify old": lambda p: ["verify", p, EXAMPLE / "new.c"],
    "verify new": lambda p: ["verify", EXAMPLE / "old.c", p],
}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_named_pipe_without_writer_is_refused(entry, fifo):
    one_error_line(fmtcheck(*ENTRY_POINTS[entry](fifo)), str(fifo), "no writer")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_character_device_is_refused(entry):
    one_error_line(fmtcheck(*ENTRY_POINTS[entry]("/dev/zero")), "/dev/zero", "character device")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_directory_is_refused(entry, tmp_path):
    one_error_line(fmtcheck(*ENTRY_POINTS[entry](tmp_path)), str(tmp_path), "directory")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_procfs_file_that_fails_at_offset_0(entry):
    """/proc/self/mem answers EIO at offset 0, for root too."""
    one_error_line(fmtcheck(*ENTRY_POINTS[entry]("/proc/self/mem")), "/proc/self/mem", "cannot read")


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_missing_and_dangling_paths(entry, tmp_path):
    one_error_line(fmtcheck(*ENTRY_POINTS[entry](tmp_path / "gone")), "no such file")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    one_error_line(fmtcheck(*ENTRY_POINTS[entry](tmp_path / "dangling")), "broken symbolic link")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_unreadable_file(entry, tmp_path):
    path = tmp_path / "secret"
    path.write_bytes(b"x\n")
    path.chmod(0)
    one_error_line(fmtcheck(*ENTRY_POINTS[entry](path)), "permission denied")


def test_process_substitution_with_a_slow_writer_is_read(tmp_path):
    """A pipe whose writer holds it open and writes late (ssh) is waited for, past the bounded wait."""
    capture = ROOT / "fixtures" / "captures" / "net_dev_current"
    script = f"sleep {inputfile.WRITER_WAIT_SECONDS + 0.5}; cat {capture}"
    writer = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE)
    try:
        fd = writer.stdout.fileno()
        proc = subprocess.run([sys.executable, "-m", "fmtcheck", "diff", f"/dev/fd/{fd}", str(capture)],
                              capture_output=True, text=True, timeout=HANG_GUARD, pass_fds=[fd])
    finally:
        writer.stdout.close()
        writer.wait(timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    assert "internal" not in proc.stderr


def test_pipe_whose_writer_already_left_is_an_empty_input():
    read, write = os.pipe()
    os.close(write)
    try:
        assert inputfile.read_input(f"/dev/fd/{read}", 100) == b""
    finally:
        os.close(read)


def test_regular_file_that_would_block_is_refused(tmp_path, monkeypatch):
    """/proc/kmsg (root only, and reading it consumes the kernel log) answers EAGAIN under O_NONBLOCK;
    any regular file that does is refused instead of waited on. Simulated, not read for real."""
    path = tmp_path / "kmsg"
    path.write_bytes(b"")

    def would_block(fd, n):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(inputfile.os, "read", would_block)
    with pytest.raises(InputError) as caught:
        inputfile.read_input(str(path), 100)
    assert caught.value.where == str(path) and "would block" in caught.value.what


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_regular_file_that_would_block_is_refused_at_every_entry_point(entry, tmp_path, monkeypatch, capsys):
    """The same, through each command (in process): a procfs file such as /proc/kmsg looks like
    every capture (regular, size 0) and answers EAGAIN to a non-blocking read. Simulated for that
    one file; every other read is real."""
    from fmtcheck import cli

    path = tmp_path / "kmsg"
    path.write_bytes(b"")
    blocking = os.stat(path)
    real_read = os.read

    def read(fd, n):
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) == (blocking.st_dev, blocking.st_ino):
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_read(fd, n)

    monkeypatch.setattr(inputfile.os, "read", read)
    assert cli.main([str(a) for a in ENTRY_POINTS[entry](path)]) == 2
    err = capsys.readouterr().err
    assert err == f"fmtcheck: error: {path}: cannot read: it would block (it waits for data that may never come)\n"


def test_standard_input_from_dev_null_is_empty_not_a_device():
    proc = fmtcheck("patch", "-", stdin=subprocess.DEVNULL)
    one_error_line(proc, "empty")


OVER_THE_BOUND = {
    "check --grammar": lambda p: ["check", p, "--grammar", "net_dev"],
    "check": lambda p: ["check", p],
    "diff": lambda p: ["diff", p, p],
    "diff, no grammar": lambda p: ["diff", p, p],  # token by token: its own line reader
    "reads": lambda p: ["reads", p, "--model"],
    "patch": lambda p: ["patch", p],
    "verify old": lambda p: ["verify", p, EXAMPLE / "new.c"],
    "verify new": lambda p: ["verify", EXAMPLE / "old.c", p],
}


@pytest.mark.parametrize("entry", sorted(OVER_THE_BOUND))
def test_line_just_over_the_bound_is_refused(entry, tmp_path):
    """A line of 64 MiB + 1 byte, then a newline and more: refused by every reader of captures, and
    by `patch` and `verify`, whose whole inputs are bounded lower (32 and 4 MiB). The line is a
    hole in a sparse file, and each reader stops at its bound, so no run holds much more than it."""
    from fmtcheck.layout.reader import MAX_LINE

    header = b"no layout known\n" if "no grammar" in entry else b"Inter-|   Receive\n face |bytes\n"
    path = tmp_path / "long"
    with open(path, "wb") as handle:
        handle.write(header)
        handle.seek(len(header) + MAX_LINE + 1)  # a hole: NUL bytes on disk for free
        handle.write(b"\n    lo: 1 2\n")
    one_error_line(fmtcheck(*OVER_THE_BOUND[entry](path)), str(path), "MiB" if "check" in entry or "diff" in entry else "")


# --- --tree ------------------------------------------------------------------------------------


def test_tree_link_leaving_the_tree_is_refused(tmp_path):
    outside = tmp_path / "outside.c"
    outside.write_text("int x;\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.c").symlink_to(outside)
    with pytest.raises(InputError) as caught:
        inputfile.read_tree_file(str(tree), "a.c", 1 << 20)
    assert "out of the tree" in caught.value.what


def test_tree_link_to_a_procfs_file_is_refused(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "status.c").symlink_to("/proc/self/status")
    with pytest.raises(InputError):
        inputfile.read_tree_file(str(tree), "status.c", 1 << 20)


def test_tree_on_procfs_is_refused():
    """A tree inside procfs: the path stays in the tree and the file is regular, yet it is procfs."""
    with pytest.raises(InputError) as caught:
        inputfile.read_tree_file("/proc/self", "status", 1 << 20)
    assert "procfs" in caught.value.what


def test_tree_special_files_are_refused(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / "fifo.c")
    with pytest.raises(InputError) as caught:
        inputfile.read_tree_file(str(tree), "fifo.c", 1 << 20)
    assert "not a regular file" in caught.value.what


def test_tree_missing_file_is_absent(tmp_path):
    assert inputfile.read_tree_file(str(tmp_path), "nope.c", 100) is None
    assert inputfile.read_tree_file(str(tmp_path), "../x.c", 100) is None


def test_patch_with_tree_link_to_proc_is_one_line(tmp_path):
    """End to end: --tree whose patched file is a link to a procfs file that fails at offset 0."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures" / "tree", tree)
    patched = tree / "drivers" / "fake" / "fakestat.c"
    patched.unlink()
    patched.symlink_to("/proc/self/mem")
    proc = fmtcheck("patch", ROOT / "fixtures" / "patches" / "09-mem-needs-tree.patch", "--tree", tree)
    one_error_line(proc, str(patched), "cannot read", "out of the tree")


def test_patch_with_tree_link_leaving_the_tree_is_one_line(tmp_path):
    """End to end: --tree whose patched file links to a readable regular file outside the tree."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "fixtures" / "tree", tree)
    patched = tree / "drivers" / "fake" / "fakestat.c"
    outside = tmp_path / "outside.c"
    shutil.copy(patched, outside)
    patched.unlink()
    patched.symlink_to(outside)
    proc = fmtcheck("patch", ROOT / "fixtures" / "patches" / "09-mem-needs-tree.patch", "--tree", tree)
    one_error_line(proc, str(patched), "cannot read", "out of the tree", str(outside))


# --- --consumers -------------------------------------------------------------------------------

PLANTED = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


def _glued_patch(tmp_path: Path) -> Path:
    """The example's glued rewrite as a patch of net/core/net-procfs.c (a file the consumers know)."""
    import difflib

    old, new = ((EXAMPLE / name).read_text().splitlines(keepends=True) for name in ("old.c", "new-glued.c"))
    path = tmp_path / "glued.patch"
    path.write_text("".join(difflib.unified_diff(old, new, "a/net/core/net-procfs.c", "b/net/core/net-procfs.c")))
    return path


def _glued_capture(tmp_path: Path) -> Path:
    """/proc/net/dev with its first counter glued to the interface name."""
    current = (ROOT / "fixtures" / "captures" / "net_dev_current").read_bytes()
    glued = current.replace(b"lo:    3193", b"lo:3193", 1)
    assert glued != current
    path = tmp_path / "glued"
    path.write_bytes(glued)
    return path


CONSUMER_RUNS = {
    "verify": lambda tmp: ["verify", EXAMPLE / "old.c", EXAMPLE / "new-glued.c", "--consumers"],
    "diff": lambda tmp: ["diff", ROOT / "fixtures" / "captures" / "net_dev_current", _glued_capture(tmp), "--consumers"],
    "patch": lambda tmp: ["patch", _glued_patch(tmp), "--consumers"],
}


@pytest.mark.parametrize("entry", sorted(CONSUMER_RUNS))
def test_planted_modules_never_run_under_consumers(entry, tmp_path):
    """Modules named like what --consumers imports, in the working directory: none may run, in
    fmtcheck itself (`python -m fmtcheck`) or in the psutil probe child, which must have run. The
    child gets neither the caller's environment nor PYTHON* variables: a psutil planted on the
    caller's PYTHONPATH (fmtcheck itself only looks psutil up there, it does not import it) stays
    out of it too."""
    planted, on_path = tmp_path / "cwd", tmp_path / "pythonpath"
    planted.mkdir()
    on_path.mkdir()
    marker = tmp_path / "MARKER"
    for name in ("jc", "psutil", "argparse", "json", "encodings_planted"):
        (planted / f"{name}.py").write_text(PLANTED.format(marker=str(marker)))
    (on_path / "psutil.py").write_text(PLANTED.format(marker=str(marker)))
    env = dict(os.environ, PYTHONSTARTUP=str(planted / "jc.py"), PYTHONPATH=str(on_path))
    proc = fmtcheck(*CONSUMER_RUNS[entry](tmp_path), cwd=planted, env=env)
    assert proc.returncode == 1, proc.stderr
    assert not marker.exists(), "a module planted in the working directory ran"
    psutil_row = next((line for line in proc.stdout.splitlines() if "psutil  " in line), "")
    assert "values" in psutil_row, proc.stdout[-1500:]  # the probe child ran, and read the rendering


def test_consumer_child_runs_isolated():
    from fmtcheck.impact.consumers import probe_command

    argv, env = probe_command(["virtual_memory"], [Path("/a"), Path("/b")])
    assert argv[1] == "-I"
    assert set(env) <= {"LC_ALL", "LANG", "PATH"}


# --- signals -----------------------------------------------------------------------------------


def _whole_file_patch(tmp_path: Path, old: Path, new: Path, name: str) -> Path:
    """A patch rewriting OLD into NEW as NAME, with the whole file as context."""
    import difflib

    lines = [p.read_text().splitlines(keepends=True) for p in (old, new)]
    path = tmp_path / "rewrite.patch"
    path.write_text("".join(difflib.unified_diff(*lines, f"a/{name}", f"b/{name}", n=10_000)))
    return path


# Runs whose search keeps a temporary directory (its private Hypothesis home) for a while.
SEARCHING_RUNS = {
    "verify": lambda tmp: ["verify", EXAMPLE / "old.c", EXAMPLE / "new-divergent.c", "--max-examples", "100000"],
    "patch": lambda tmp: ["patch", _whole_file_patch(tmp, EXAMPLE / "old.c", EXAMPLE / "new-divergent.c",
                                                      "net/core/net-procfs.c"), "--max-examples", "100000"],
    "reads": lambda tmp: ["reads", "--records", "100x100", "--check", "--max-examples", "100000"],
}


@pytest.mark.parametrize("entry", sorted(SEARCHING_RUNS))
def test_sigterm_leaves_no_temporary_directory(entry, tmp_path):
    """SIGTERM while the run searches (its Hypothesis home is a temporary directory): exit 143 and
    nothing left in TMPDIR."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    env.pop("FMTCHECK_DEBUG", None)
    argv = [sys.executable, "-m", "fmtcheck", *map(str, SEARCHING_RUNS[entry](tmp_path))]
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + HANG_GUARD
        while not any(tmp.iterdir()) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if child.poll() is not None:
            pytest.skip("the run ended before it made its temporary directory")
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=HANG_GUARD)
    finally:
        if child.poll() is None:
            child.kill()
    if child.returncode in (0, 1):  # Python's own SIGTERM death would be -15: this is a finished run
        pytest.skip("the run ended between making its temporary directory and the signal")
    assert child.returncode == 128 + signal.SIGTERM, err
    assert err.decode() == "fmtcheck: error: terminated\n"
    assert list(tmp.iterdir()) == [], "temporary directory left behind"


def _handler_that_swallows_sigterm(outcome):
    """A command whose library caught the Terminated that SIGTERM raised and made OUTCOME of it
    (raised if an exception, returned if a report)."""
    from fmtcheck.common.termination import STATE, Terminated

    def handler(args):
        try:
            STATE.received = True  # what the SIGTERM handler does before it raises
            raise Terminated()
        except Terminated:
            if isinstance(outcome, BaseException):
                raise outcome from None
            return outcome

    return handler


@pytest.mark.parametrize("outcome", ["runtime error", "input error", "report"])
def test_sigterm_turned_into_a_library_error_ends_as_terminated_alone(outcome, monkeypatch, capsys):
    """One line, `terminated`, exit 143: never a second `internal:` or `cannot read` line, nor a report."""
    from fmtcheck import cli
    from fmtcheck.common.result import Report
    from fmtcheck.common.termination import EXIT_STATUS, STATE

    monkeypatch.setattr(STATE, "received", False)  # restored afterwards: later in-process runs start clean
    made = {"runtime error": RuntimeError("interrupted system call"),
            "input error": InputError("old.c", "cannot read: interrupted system call"),
            "report": Report("verify")}[outcome]
    monkeypatch.setitem(cli._HANDLERS, "verify", _handler_that_swallows_sigterm(made))
    status = cli.main(["verify", str(EXAMPLE / "old.c"), str(EXAMPLE / "new.c"), "--format", "json"])
    out, err = capsys.readouterr()
    assert (status, err, out) == (EXIT_STATUS, "fmtcheck: error: terminated\n", "")


def _terminated_while(check_first):
    """A stand-in that, once CHECK_FIRST(*args) has looked at what the run holds at that point,
    does what SIGTERM does there: the handler's flag, then `Terminated` from where the run stands."""
    from fmtcheck.common.termination import STATE, Terminated

    def stand_in(*args, **kwargs):
        check_first(*args)
        STATE.received = True
        raise Terminated()

    return stand_in


def _tmpdir_holds(tmp: Path, prefix: str):
    def check(*args) -> None:
        assert any(p.name.startswith(prefix) for p in tmp.iterdir()), "the run holds no temporary directory yet"

    return check


@pytest.mark.parametrize("command", ["check", "diff"])
def test_sigterm_while_standard_input_is_held_leaves_no_temporary_directory(command, tmp_path, monkeypatch):
    """`-` for a capture goes through a temporary directory; SIGTERM while the capture is judged
    (simulated at that point, in process) removes it, and the run ends `terminated`, exit 143."""
    import io
    import tempfile

    from fmtcheck import cli
    from fmtcheck.common.termination import EXIT_STATUS, STATE
    from fmtcheck.layout import capture, diff

    monkeypatch.setattr(STATE, "received", False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    capture_bytes = (ROOT / "fixtures" / "captures" / "net_dev_current").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(capture_bytes)))
    judged = _terminated_while(_tmpdir_holds(tmp_path, "fmtcheck-stdin-"))
    monkeypatch.setattr(capture, "check_captures", judged)
    monkeypatch.setattr(diff, "diff_captures", judged)
    argv = ["check", "-"] if command == "check" else ["diff", "-", str(ROOT / "fixtures" / "captures" / "net_dev_current")]
    assert cli.main(argv) == EXIT_STATUS
    assert list(tmp_path.iterdir()) == [], "temporary directory left behind"


def test_sigterm_while_the_psutil_probe_runs_leaves_no_procfs_directory(tmp_path, monkeypatch, capsys):
    """diff --consumers renders both captures into a temporary procfs root for the psutil child;
    SIGTERM while the child runs (simulated there, in process) removes the root."""
    import tempfile

    from fmtcheck import cli
    from fmtcheck.common.termination import EXIT_STATUS, STATE
    from fmtcheck.impact import consumers

    monkeypatch.setattr(STATE, "received", False)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    glued = _glued_capture(tmp_path)
    monkeypatch.setattr(consumers.subprocess, "run", _terminated_while(_tmpdir_holds(tmp, "fmtcheck-procfs-")))
    status = cli.main(["diff", str(ROOT / "fixtures" / "captures" / "net_dev_current"), str(glued), "--consumers"])
    assert (status, capsys.readouterr().err) == (EXIT_STATUS, "fmtcheck: error: terminated\n")
    assert list(tmp.iterdir()) == [], "temporary directory left behind"
