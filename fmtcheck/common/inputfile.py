"""Reading an input file named on the command line: one place for every command's failures.

Inputs come from strangers, so reading one must never hang, never follow a tree out of itself, and
never end in a traceback. Every failure is an `InputError` naming the path (exit 2, one line):

- a path is opened with O_NONBLOCK (opening a named pipe does not wait for a writer) after it has
  been checked not to be a directory, a character or block device, or a socket;
- a regular file that would block (a procfs file such as /proc/kmsg answers EAGAIN) is refused;
- a pipe gets one bounded wait (`WRITER_WAIT_SECONDS`) for its first byte or its end. A pipe that
  still has nothing and no writer is refused; a pipe whose writer is there but slow (process
  substitution: ``diff <(ssh host cat /proc/net/dev) local.txt``) is then read to its end;
- at most `limit` + 1 bytes are read, so an oversized input is refused without being loaded whole
  (the caller sees more than `limit` bytes and says so); ``-`` is standard input, read as given;
- a pipe cannot be read twice, yet a command may open its input twice (layout detection reads the
  head, the check reads it all): a pipe is read once, up to `MAX_PIPE_BYTES`, and kept for the run.

`read_tree_file` adds what a ``--tree`` needs: the file's real path stays inside the tree's real
path, it is a regular file, and it is not on a kernel pseudo filesystem (procfs, sysfs, devtmpfs...),
where files look like regular empty files yet read as anything.
"""

from __future__ import annotations

import errno
import os
import select
import stat as stat_mod
import sys

from fmtcheck.common.errors import InputError

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import BinaryIO

WRITER_WAIT_SECONDS = 1.0  # how long a pipe may stay silent before we ask whether it has a writer
READ_CHUNK = 1 << 20
MAX_PIPE_BYTES = 256 << 20  # a pipe is held in memory; a larger stream should be saved to a file
_PIPES: dict[str, bytes] = {}  # path -> what its pipe gave, for reopening it in the same run

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)

_SPECIAL_KINDS = (
    (stat_mod.S_ISCHR, "a character device"),
    (stat_mod.S_ISBLK, "a block device"),
    (stat_mod.S_ISSOCK, "a socket"),
)


class InputStream:
    """An opened input: `read(n)` returns up to N bytes (fewer only at the end), `read()` all of it.

    OSError never escapes: each becomes an `InputError` naming the path.
    """

    def __init__(self, fd: int, where: str, is_pipe: bool = False) -> None:
        self.fd = fd
        self.where = where
        self.is_pipe = is_pipe
        self._writer_known = False  # a pipe's writer has shown itself (data, or EAGAIN)
        self._at_end = False

    def read(self, n: int = -1) -> bytes:
        """Up to N bytes (all, if N < 0), looping over short reads as procfs and pipes give them."""
        parts: list[bytes] = []
        wanted = n if n >= 0 else None
        got = 0
        while not self._at_end and (wanted is None or got < wanted):
            chunk = self._read_some(READ_CHUNK if wanted is None else min(READ_CHUNK, wanted - got))
            if not chunk:
                self._at_end = True
                break
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def _read_some(self, n: int) -> bytes:
        try:
            if self.is_pipe:
                return self._read_pipe(n)
            return os.read(self.fd, n)
        except BlockingIOError:
            raise InputError(self.where, "cannot read: it would block (it waits for data that may never come)") from None
        except OSError as err:
            raise InputError(self.where, f"cannot read: {reason(err)}") from None

    def _read_pipe(self, n: int) -> bytes:
        """One read from a pipe: the first waits a bounded time for data, an end, or a writer."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        if self._writer_known:
            while True:
                poller.poll()
                try:
                    return os.read(self.fd, n)
                except BlockingIOError:
                    continue  # woken without data (a spurious wake-up)
        events = poller.poll(int(WRITER_WAIT_SECONDS * 1000))
        try:
            data = os.read(self.fd, n)
        except BlockingIOError:
            self._writer_known = True  # a writer holds the pipe open and is slow: wait for it
            return self._read_pipe(n)
        if not data and not events:
            raise InputError(self.where, "cannot read: a pipe with no writer (nothing will ever arrive)")
        self._writer_known = True
        return data

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "InputStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MemoryStream:
    """What a pipe gave, read again from memory."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self.data) if n < 0 else self.pos + n
        chunk = self.data[self.pos : end]
        self.pos += len(chunk)
        return chunk

    def close(self) -> None:
        pass

    def __enter__(self) -> "MemoryStream":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class _StdinStream:
    """Standard input as given (a terminal, a pipe, /dev/null): the user chose it, so it is read
    blocking, like cat(1) does."""

    where = "<stdin>"

    def read(self, n: int = -1) -> bytes:
        stream = getattr(sys.stdin, "buffer", None)
        try:
            if stream is None:
                return sys.stdin.read(n).encode("utf-8", "surrogateescape")
            return stream.read(n)
        except OSError as err:
            raise InputError("-", f"cannot read: {reason(err)}") from None

    def close(self) -> None:
        pass

    def __enter__(self) -> "_StdinStream":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def reason(err: OSError) -> str:
    """An OSError as the few words a user needs ("permission denied", "input/output error")."""
    if isinstance(err, FileNotFoundError):
        return "no such file"
    if isinstance(err, PermissionError):
        return "permission denied"
    text = err.strerror or (errno.errorcode.get(err.errno or 0) if err.errno else None) or type(err).__name__
    return text[:1].lower() + text[1:]


def open_input(path: str, kind: str = "input file") -> InputStream | MemoryStream | _StdinStream:
    """Open PATH for reading without blocking, or raise InputError with a one-line reason."""
    if path == "-":
        return _StdinStream()
    if path in _PIPES:
        return MemoryStream(_PIPES[path])
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "broken symbolic link" if os.path.islink(path) else "no such file") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {reason(err)}") from None
    refuse_special(path, st.st_mode, kind)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise InputError(path, "no such file" if isinstance(err, FileNotFoundError) else f"cannot read: {reason(err)}") from None
    try:
        mode = os.fstat(fd).st_mode
        refuse_special(path, mode, kind)  # it may have been replaced between stat and open
    except BaseException:
        os.close(fd)
        raise
    if not stat_mod.S_ISFIFO(mode):
        return InputStream(fd, path)
    with InputStream(fd, path, is_pipe=True) as pipe:
        data = pipe.read(MAX_PIPE_BYTES + 1)
    if len(data) > MAX_PIPE_BYTES:
        raise InputError(path, f"cannot read: a pipe giving more than {MAX_PIPE_BYTES >> 20} MiB (save it to a file)")
    _PIPES[path] = data
    return MemoryStream(data)


def refuse_special(path: str, mode: int, kind: str) -> None:
    """A directory, device or socket is not an input file: say which it is."""
    if stat_mod.S_ISDIR(mode):
        raise InputError(path, f"is a directory, not {_a(kind)}")
    for test, name in _SPECIAL_KINDS:
        if test(mode):
            raise InputError(path, f"cannot read: {name}, not {_a(kind)}")


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def read_input(path: str, limit: int, kind: str = "input file") -> bytes:
    """The bytes of PATH (at most limit + 1 of them)."""
    with open_input(path, kind) as stream:
        return stream.read(limit + 1)


def read_tree_file(root: str, relpath: str, limit: int) -> bytes | None:
    """The bytes of RELPATH inside the tree ROOT, None if the tree has no such file.

    At most limit + 1 bytes are read. A file whose real path leaves the tree's real path, that is
    not a regular file, or that lives on a kernel pseudo filesystem is an InputError.
    """
    from fmtcheck.common.pseudofs import pseudo_filesystem

    rel = os.path.normpath(relpath)
    if os.path.isabs(rel) or rel == os.curdir or rel.split(os.sep, 1)[0] == os.pardir:
        return None  # a name a patch gives that is not below the tree: no such tree file
    real_root = os.path.realpath(root)
    full = os.path.join(root, rel)
    if not os.path.lexists(full):
        return None
    real = os.path.realpath(full)
    if os.path.commonpath([real_root, real]) != real_root:
        raise InputError(full, f"cannot read: it leads out of the tree (to {real})")
    try:
        fd = os.open(real, _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InputError(full, f"cannot read: {reason(err)}") from None
    with InputStream(fd, full, False) as stream:
        try:
            st = os.fstat(fd)
        except OSError as err:
            raise InputError(full, f"cannot read: {reason(err)}") from None
        if stat_mod.S_ISDIR(st.st_mode):
            return None
        if not stat_mod.S_ISREG(st.st_mode):
            raise InputError(full, "cannot read: not a regular file")
        fs = pseudo_filesystem(fd, st.st_dev)
        if fs:
            raise InputError(full, f"cannot read: on {fs}, not a source file")
        if st.st_size > limit:
            raise InputError(full, f"over the {limit}-byte limit for a tree file")
        return stream.read(limit + 1)
