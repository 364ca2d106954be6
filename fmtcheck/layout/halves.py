"""The records of a large capture's second half, matched in bulk by a forked child on the other core.

Matching settled records in bulk is one regex run over the whole capture (`records.bulk_records`);
on 100 MB of smaps that is 0.3 s of one core while the other waits. So when SPLIT_MIN_BYTES or
more are ahead, a child process (os.fork: it has the grammar, the regexes and the open file)
takes the second half: from the first line at or after the middle where the record regex matches,
it lists the record starts one call per record for SPAN bytes, then matches the rest in bulk, as
the parent would, to where the records stop. The parent matches its half up to the meeting point
(MEET bytes after the middle) and stops at the last record start before it, one of the starts of
its own sequence of records. The records found one after the other from a start depend only on
that start (each is the record regex's first match there), so when that start is one the child
listed, the parent's records from there on are the child's: the parent takes the child's stop and
its line count and goes on from there, as if it had matched them itself. Otherwise (the child
started inside a record, or found nothing, or failed) the child's answer is dropped and the
parent matches on alone. Either way the records, their stop and every result are the ones one
process finds; only the time differs.
"""

from __future__ import annotations

import os
import threading
from array import array

from fmtcheck.common.inputfile import InputStream
from fmtcheck.common.plain import plain

TYPE_CHECKING = False  # typing is imported by type checkers only (start-up, issue #17)
if TYPE_CHECKING:
    from typing import Callable

SPLIT_MIN_BYTES = 32 << 20  # bytes ahead from which the second half goes to a child
SPAN = 1 << 20  # bytes after the middle within which the child lists its record starts
MEET = SPAN // 2  # the parent stops at its last record start before middle + MEET
SEARCH_LINES = 4096  # lines after the middle the child tries for a record start


@plain
class HalfResult:
    """What the child found: record starts -> lines from its first start, where its records stop
    and the lines up to there."""

    starts: dict
    stop: int
    stop_line: int


class PreadFile:
    """A file read at its own offset (os.pread), so that the child never moves the parent's."""

    def __init__(self, fd: int, offset: int) -> None:
        self.fd = fd
        self.offset = offset

    def read(self, n: int) -> bytes:
        data = os.pread(self.fd, n, self.offset)
        self.offset += len(data)
        return data

    def close(self) -> None:
        pass


def can_split(f, pos: int) -> int | None:
    """The middle of what lies ahead of POS in F when a child is worth it and safe to fork: a
    regular file (not a pipe read from memory) with SPLIT_MIN_BYTES ahead, two CPUs or more, and
    no other thread in this process (a fork copies only the calling one). Else None."""
    if not isinstance(f, InputStream) or f.is_pipe or not forkable():
        return None
    try:
        size = os.fstat(f.fd).st_size
    except OSError:
        return None
    if size - pos < SPLIT_MIN_BYTES:
        return None
    return pos + (size - pos) // 2


def forkable() -> bool:
    """Can this process fork a child worth having: fork exists, this is the only thread (a fork
    copies the calling thread alone, whatever locks others hold), two CPUs or more are ours and
    one of them is free (the 1-minute load is below their number less a half). On a busy machine
    the child only competes for the same CPUs: measured at load 8 on 2 CPUs, check of 105 MB of
    smaps took 2.03 s with it and 1.55 s without; with the CPUs to itself, 0.49 s and 0.59 s.
    Only the time depends on this: the records and every result are the same either way."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        return False
    return cpus >= 2 and load < cpus - 0.5


class SecondHalf:
    """A running child and the pipe its answer comes through."""

    def __init__(self, pid: int, fd: int, middle: int, pattern: str) -> None:
        self.pid = pid
        self.fd = fd
        self.middle = middle
        self.pattern = pattern  # the record regex it matches (another one's answer is not this one's)
        self.meet = middle + MEET

    @classmethod
    def start(cls, f: InputStream, middle: int, pattern: str,
              work: Callable[[PreadFile, int], HalfResult | None]) -> "SecondHalf | None":
        """Fork a child running WORK(file, middle); None when the fork fails."""
        r, w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return None
        if pid == 0:  # the child: answer through the pipe, then leave without running any cleanup
            os.close(r)
            _answer(w, lambda: work(PreadFile(f.fd, middle - 1), middle))
        os.close(w)
        return cls(pid, r, middle, pattern)

    def result(self) -> HalfResult | None:
        """The child's answer (waiting for it), or None when it found nothing or failed."""
        chunks = []
        try:
            while chunk := os.read(self.fd, 1 << 16):
                chunks.append(chunk)
        finally:
            self._reap()
        return _decode(b"".join(chunks))

    def cancel(self) -> None:
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        self._reap()

    def _reap(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            try:
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0


def _answer(w: int, work: Callable[[], HalfResult | None]) -> None:
    """In the child: write WORK()'s result (nothing when it fails) and exit at once."""
    try:
        try:
            data = _encode(work())
        except BaseException:  # noqa: BLE001 - the parent then matches this half itself
            data = b""
        view = memoryview(data)
        while view:
            view = view[os.write(w, view):]
    finally:
        os._exit(0)


def _encode(res: HalfResult | None) -> bytes:
    if res is None:
        return b""
    flat = array("q", [res.stop, res.stop_line])
    for pos, line in res.starts.items():
        flat.append(pos)
        flat.append(line)
    return flat.tobytes()


def _decode(data: bytes) -> HalfResult | None:
    if not data or len(data) % 16:
        return None
    flat = array("q")
    flat.frombytes(data)
    starts = dict(zip(flat[2::2], flat[3::2]))
    return HalfResult(starts, flat[0], flat[1])
