"""Reading a capture in bounded chunks, line by line, without holding more than a window in memory.
"""

from __future__ import annotations

import os
import stat

from fmtcheck.common.errors import InputError
from fmtcheck.common.inputfile import InputStream, MemoryStream, open_input

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import BinaryIO

CHUNK = 8 << 20  # bytes read at a time, at most
FIRST_CHUNK = 256 << 10  # the first read; each next one doubles, up to CHUNK (see Reader._read)
PIECE = 1 << 20  # bytes asked of the file per read call (InputStream reads 1 MiB at a time)


MARGIN = 64 << 10  # bytes kept beyond the current line (a field such as comm may hold '\n')


MAX_LINE = 64 << 20  # a longer line is refused rather than held in memory (no /proc line comes near)


HEAD_BYTES = 64 << 10  # what grammar detection looks at


def open_capture(path: str) -> InputStream | MemoryStream:
    """Open a capture for reading bytes (without blocking), or raise InputError with a one-line reason."""
    return open_input(path, "capture")


def read_head(path: str) -> bytes:
    with open_capture(path) as f:
        return f.read(HEAD_BYTES)


class Reader:
    """A sliding window over a file: positions are absolute, bytes before `keep` may be dropped."""

    def __init__(self, f: BinaryIO, where: str, start: int = 0) -> None:
        self.f = f
        self.where = where
        self.buf = b""
        self.base = start  # the position of F's next byte (0 unless F starts inside the file)
        self.eof = False
        self.keep = start
        self._scan = start  # where the last newline search stopped
        self.step = FIRST_CHUNK  # bytes the next read asks for (CHUNK at most)
        self.size_hint = regular_size(f) or 0  # a regular file's size, else 0 (/proc files say 0 too)

    @property
    def end(self) -> int:
        return self.base + len(self.buf)

    def ahead(self, pos: int) -> int:
        """Bytes known to lie ahead of POS: to the window's end, or to a regular file's end."""
        return max(self.end, self.size_hint) - pos

    def _read(self) -> None:
        """Read up to CHUNK more bytes, in PIECE reads joined once with what the window keeps (one
        copy of each byte, not one per slice and concatenation). The first read asks FIRST_CHUNK
        bytes and each next one twice as many: a check of a large capture matches its first lines
        here, then its records from the file itself (`native._match_file`), so an 8 MiB first
        window was read twice (~13 ms of CPU, issue #17)."""
        cut = self.keep - self.base
        parts = [self.buf]
        if cut > 0 and cut >= len(self.buf) // 2:
            parts[0] = memoryview(self.buf)[cut:]
            self.base += cut
        got = 0
        want = min(CHUNK, self.step)
        self.step = want * 2
        while got < want:
            try:
                data = self.f.read(min(PIECE, want - got))
            except OSError as err:
                raise InputError(self.where, err.strerror or "read error") from None
            if not data:
                self.eof = True
                break
            parts.append(data)
            got += len(data)
        self.buf = b"".join(parts)

    def ensure_line(self, pos: int) -> None:
        """Make the window hold the line at POS, its newline, and MARGIN bytes more (or to EOF)."""
        while not self.eof:
            rel = pos - self.base
            nl = self.buf.find(b"\n", max(rel, self._scan - self.base))
            if (nl if nl >= 0 else len(self.buf)) - rel > MAX_LINE:
                raise InputError(self.where, f"a line longer than {MAX_LINE >> 20} MiB")
            if nl >= 0 and len(self.buf) - nl > MARGIN:
                return
            if nl < 0:
                self._scan = self.end
            self._read()
        rel = pos - self.base
        nl = self.buf.find(b"\n", rel)
        if (nl if nl >= 0 else len(self.buf)) - rel > MAX_LINE:
            raise InputError(self.where, f"a line longer than {MAX_LINE >> 20} MiB")

    def skip_to(self, pos: int) -> None:
        """Go on reading at POS, beyond the window, without reading what lies between (one seek:
        only for a regular file read by an InputStream, see `halves.can_split`)."""
        if pos <= self.end:  # within the window (a small file may be in it whole)
            self.keep = pos
            return
        os.lseek(self.f.fd, pos, os.SEEK_SET)
        self.buf, self.base, self.keep, self._scan, self.eof = b"", pos, pos, pos, False

    def ensure(self, pos: int, n: int) -> None:
        while not self.eof and self.end < pos + n:
            self._read()

    def line_at(self, pos: int) -> tuple[bytes, bool]:
        """The physical line at POS (without newline) and whether it had one."""
        self.ensure_line(pos)
        rel = pos - self.base
        nl = self.buf.find(b"\n", rel)
        if nl < 0:
            return self.buf[rel:], False
        return self.buf[rel:nl], True

    def at_eof(self, pos: int) -> bool:
        self.ensure(pos, 1)
        return self.eof and pos >= self.end



def regular_size(f) -> int | None:
    """The size of F when it is a regular file read by an InputStream (positions are its offsets;
    a /proc file says 0), else None."""
    if not isinstance(f, InputStream) or f.is_pipe or f.fd < 0:
        return None
    try:
        st = os.fstat(f.fd)
    except OSError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None
