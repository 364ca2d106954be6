"""How seq_read() slices seq_file output into read(2) results (kernel-seq-semantics.md §d).

The model follows §d.2 step by step, over records rendered by the seq_file model
(`fmtcheck.kernel.seq_file.SeqFile`): a record is a callable ``show(m) -> int`` returning 0,
`SEQ_SKIP` or a negative errno, so overflow and buffer doubling follow each primitive's own rule.

Behaviours:

- ``"kernel"``: seq_read_iter as the kernel has it (6.17): one start()...stop() session per
  read(), at most one buffer's worth of whole records handed out per call.
- ``"fill"``: the seed-002 patch ("copy as much as possible to user buffer", §d.5): when the
  buffer has been drained and the user buffer still has room, start another session.
- ``"fill-drop-leftover"``: a TEST MUTANT, deliberately wrong. It is the fill behaviour, except
  that the unread rest of a partly copied buffer is thrown away. It exists only so tests can
  show the stream property catches a broken rewrite; never use it as a model of anything.

The stream property (every behaviour must hand out exactly the records' concatenation, for every
sequence of read sizes, including rereads from offset 0 and seeks) is checked by
`check_stream_case` and searched with Hypothesis by `find_stream_counterexample`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from random import Random
from typing import Any, Callable, Iterable, Sequence

from fmtcheck.common.errors import LimitExceeded
from fmtcheck.kernel.seq_file import SeqFile
from fmtcheck.common.lazyre import lazy_compile

SEQ_SKIP = 1  # what show() returns to have its output discarded (the kernel's value)
PAGE_SIZE = 4096
EAGAIN, EFAULT, EINVAL = 11, 14, 22

KERNEL = "kernel"
FILL = "fill"
FILL_DROP_LEFTOVER = "fill-drop-leftover"  # TEST MUTANT: deliberately wrong, see module doc
BEHAVIOURS = (KERNEL, FILL)
TEST_MUTANTS = (FILL_DROP_LEFTOVER,)
ALL_BEHAVIOURS = BEHAVIOURS + TEST_MUTANTS

Show = Callable[[SeqFile], int]

# How synthetic or captured record bytes are written into the buffer. The bytes are the same
# for every primitive; only the overflow rule differs (§a, §e.6).
PRIMITIVES = ("write", "puts", "putc", "printf", "ull", "hex")

DEFAULT_MAX_READS = 5_000_000
MAX_CALLS_KEPT = 10_000  # per-call records kept by a reader (the counters keep counting)


class SeqReadError(Exception):
    """A read() or lseek() that the kernel would fail with -errno."""

    def __init__(self, errno: int, what: str = "") -> None:
        super().__init__(f"-{errno}" + (f" ({what})" if what else ""))
        self.errno = errno


# ---------------------------------------------------------------------------------------------
# Records


def render_bytes(m: SeqFile, data: bytes, primitive: str = "write") -> None:
    """Write DATA into M with one family of primitives, so that family's overflow rule applies.

    "ull" and "hex" render a trailing " <digits>\\n" with seq_put_decimal_ull /
    seq_put_hex_ll (as vmstat-like lines do) and the rest with seq_puts; data that does not end
    that way falls back to seq_write.
    """
    if primitive == "write":
        m.seq_write(data)
    elif primitive == "puts":
        m.seq_puts(data)
    elif primitive == "putc":
        for c in data:
            m.seq_putc(c)
    elif primitive == "printf":
        m.seq_printf(b"%s", data)
    elif primitive in ("ull", "hex"):
        _render_number_line(m, data, primitive)
    else:
        raise ValueError(f"unknown primitive {primitive!r}")


_DECIMAL_TAIL = lazy_compile(rb"(.*) (0|[1-9][0-9]{0,18})\n\Z", re.DOTALL)
_HEX_TAIL = lazy_compile(rb"(.*) ([0-9a-f]{1,16})\n\Z", re.DOTALL)


def _render_number_line(m: SeqFile, data: bytes, primitive: str) -> None:
    """Prefix with seq_puts, " N" with the number primitive, then seq_putc('\\n')."""
    match = (_DECIMAL_TAIL if primitive == "ull" else _HEX_TAIL).match(data)
    if match is None or (primitive == "ull" and int(match.group(2)) >= 1 << 64):
        m.seq_write(data)
        return
    prefix, digits = match.group(1), match.group(2)
    if prefix:
        m.seq_puts(prefix)
    if primitive == "ull":
        m.seq_put_decimal_ull(b" ", int(digits))
    else:
        m.seq_put_hex_ll(b" ", int(digits, 16), len(digits))
    m.seq_putc(0x0A)


def text_record(data: bytes, primitive: str = "write") -> Show:
    """A record whose show() writes DATA (through PRIMITIVE) and returns 0."""

    def show(m: SeqFile) -> int:
        render_bytes(m, data, primitive)
        return 0

    show.data = data  # type: ignore[attr-defined]
    return show


def skipped_record(data: bytes = b"", primitive: str = "write") -> Show:
    """A record that writes DATA and then returns SEQ_SKIP: its output must never be seen."""

    def show(m: SeqFile) -> int:
        render_bytes(m, data, primitive)
        return SEQ_SKIP

    show.data = b""  # type: ignore[attr-defined]
    return show


def error_record(errno: int = 5) -> Show:
    """A record whose show() fails with -ERRNO (default EIO)."""

    def show(m: SeqFile) -> int:
        return -errno

    show.data = b""  # type: ignore[attr-defined]
    return show


def synthetic_record_bytes(index: int, length: int) -> bytes:
    """LENGTH bytes that identify record INDEX and end like a counter line: "r7:ggg 7777\\n".

    Distinct records get distinct bytes, so a reordered, repeated or lost record changes the
    stream; the " <digits>\\n" tail lets the "ull"/"hex" primitives render it.
    """
    if length <= 0:
        return b""
    digits = min(max(length - 2, 0), 4)
    if digits == 0:
        return b"r" * (length - 1) + b"\n"
    filler_len = length - 2 - digits
    tag = f"r{index}:".encode() + bytes([0x61 + index % 26]) * filler_len
    return tag[:filler_len] + b" " + str(index % 9 + 1).encode() * digits + b"\n"


@dataclass(frozen=True)
class RecordSpec:
    """A synthetic record: LENGTH bytes, shown (or skipped) through PRIMITIVE."""

    length: int
    skip: bool = False
    primitive: str = "write"


def records_from_specs(specs: Iterable[RecordSpec]) -> list[Show]:
    """Show callables for synthetic records (skipped ones write their bytes, then SEQ_SKIP)."""
    out: list[Show] = []
    for i, spec in enumerate(specs):
        data = synthetic_record_bytes(i, spec.length)
        out.append(skipped_record(data, spec.primitive) if spec.skip else text_record(data, spec.primitive))
    return out


def records_from_sizes(sizes: Iterable[int], primitive: str = "write") -> list[Show]:
    """Show callables for synthetic records of the given lengths."""
    return records_from_specs(RecordSpec(n, False, primitive) for n in sizes)


def records_from_chunks(chunks: Iterable[bytes], primitive: str = "write") -> list[Show]:
    """Show callables that print the given captured records verbatim."""
    return [text_record(bytes(c), primitive) for c in chunks]


def expected_stream(records: Sequence[Show]) -> bytes:
    """What every correct behaviour must hand out: the visible records, concatenated."""
    return b"".join(getattr(r, "data", b"") for r in records)


# ---------------------------------------------------------------------------------------------
# The reader


@dataclass
class ReadCall:
    """What one read()/pread() did: asked N, returned RETURNED bytes, in SESSIONS start()s."""

    asked: int
    returned: int
    sessions: int
    shows: int


@dataclass
class _Rendered:
    """Bytes rendered but not yet handed to the user: m->buf[from : from + count]."""

    data: bytes = b""
    start: int = 0

    @property
    def count(self) -> int:
        return len(self.data) - self.start

    def take(self, n: int) -> bytes:
        chunk = self.data[self.start : self.start + n]
        self.start += len(chunk)
        return chunk


def _overflowed(m: SeqFile) -> bool:
    """The kernel's own test: count == size (a primitive may leave count == size)."""
    return m.count >= m.size


def _rendered(m: SeqFile) -> bytes:
    return bytes(m.buf[: m.count])


@dataclass
class SeqFileReader:
    """One open /proc file: seq_read_iter (§d.2), seq_lseek and traverse (§d.4).

    RECORDS are show() callables at positions 0..len-1; start()/next() walk them in order. The
    buffer size S starts at INITIAL_SIZE on the first read and doubles on overflow; it never
    shrinks. Counters: `start_calls` (= start()...stop() sessions), `stop_calls`, `show_calls`,
    and `calls` (one `ReadCall` per read()/pread(), the first MAX_CALLS_KEPT of them).
    """

    records: Sequence[Show]
    behaviour: str = KERNEL
    initial_size: int = PAGE_SIZE
    size: int = 0
    index: int = 0
    read_pos: int = 0
    f_pos: int = 0
    start_calls: int = 0
    stop_calls: int = 0
    show_calls: int = 0
    calls: list[ReadCall] = field(default_factory=list)
    _pending: _Rendered = field(default_factory=_Rendered)

    def __post_init__(self) -> None:
        if self.behaviour not in ALL_BEHAVIOURS:
            raise ValueError(f"unknown behaviour {self.behaviour!r}; expected one of {ALL_BEHAVIOURS}")
        if self.initial_size <= 0:
            raise ValueError("initial_size must be positive")
        self.records = list(self.records)

    # -- the iterator (start/next/stop over positions) -----------------------------------------

    def _start(self) -> int | None:
        self.start_calls += 1
        return self.index if self.index < len(self.records) else None

    def _next(self, p: int) -> int | None:
        self.index = p + 1
        return self.index if self.index < len(self.records) else None

    def _stop(self) -> None:
        self.stop_calls += 1

    def _show(self, m: SeqFile, p: int) -> int:
        self.show_calls += 1
        return self.records[p](m)

    def _double_buffer(self) -> None:
        """Overflow: free the buffer, S *= 2 (the larger buffer stays for this fd)."""
        self.size *= 2

    # -- public operations ----------------------------------------------------------------------

    def read(self, n: int) -> bytes:
        """read(2) of N bytes at the file position, which advances by what is returned."""
        data = self._read_iter(n, self.f_pos)
        self.f_pos += len(data)
        return data

    def pread(self, n: int, pos: int) -> bytes:
        """pread(2): read N bytes at POS; the file position does not move."""
        if pos < 0:
            raise SeqReadError(EINVAL, "negative offset")
        return self._read_iter(n, pos)

    def lseek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """seq_lseek: SEEK_SET and SEEK_CUR only; a new offset re-renders from record 0 (§d.4)."""
        if whence == os.SEEK_CUR:
            offset += self.f_pos
        elif whence != os.SEEK_SET:
            raise SeqReadError(EINVAL, "whence")
        if offset < 0:
            raise SeqReadError(EINVAL, "negative offset")
        if offset != self.read_pos:
            err = self._traverse_until_it_fits(offset)
            if err:
                self._forget_position()
                self.f_pos = 0
                raise SeqReadError(-err, "traverse")
            self.read_pos = offset
        self.f_pos = offset
        return offset

    # -- seq_read_iter (§d.2) -----------------------------------------------------------------

    def _read_iter(self, n: int, pos: int) -> bytes:
        starts, shows = self.start_calls, self.show_calls
        data = self._read_iter_steps(n, pos)
        if len(self.calls) < MAX_CALLS_KEPT:
            self.calls.append(ReadCall(n, len(data), self.start_calls - starts, self.show_calls - shows))
        return data

    def _read_iter_steps(self, n: int, pos: int) -> bytes:
        if n < 0:
            raise SeqReadError(EINVAL, "negative count")
        if n == 0:  # step 1
            return b""
        if pos == 0:  # step 2: a read from offset 0 renders everything again
            self.index = 0
            self._pending = _Rendered()
        if pos != self.read_pos:  # step 3
            err = self._traverse_until_it_fits(pos)
            if err:
                self._forget_position()
                raise SeqReadError(-err, "traverse")
            self.read_pos = pos
        if not self.size:  # step 4
            self.size = self.initial_size
        out = bytearray()
        if self._pending.count:  # step 5: leftover first
            out += self._pending.take(n)
            if self._pending.count:
                return self._done(out, 0)
        err = self._sessions(out, n)
        return self._done(out, err)

    def _sessions(self, out: bytearray, n: int) -> int:
        """Steps 6-8, once (kernel) or again while the buffer drains and room is left (fill)."""
        while True:
            err, m = self._first_record()
            if m is None:
                return err
            m = self._fill(m, n - len(out))
            self._pending = _Rendered(_rendered(m))
            out += self._pending.take(n - len(out))  # step 8
            if self.behaviour == FILL_DROP_LEFTOVER and self._pending.count:
                self._pending = _Rendered()  # TEST MUTANT: loses the unread bytes
                return 0
            if self.behaviour == KERNEL or self._pending.count:
                return 0

    def _first_record(self) -> tuple[int, SeqFile | None]:
        """Step 6: get one non-empty record into the buffer, doubling S until it fits."""
        p = self._start()
        while p is not None:
            m = SeqFile(self.size)
            err = self._show(m, p)
            if err < 0:
                break
            if err > 0:  # SEQ_SKIP: discard what it wrote
                m.count = 0
            if m.count == 0:
                p = self._next(p)
                continue
            if not _overflowed(m):
                return 0, m
            self._stop()
            self._double_buffer()
            p = self._start()  # the same record, into a buffer twice as large
        else:
            err = 0
        self._stop()
        return err, None

    def _fill(self, m: SeqFile, space: int) -> SeqFile:
        """Step 7: add whole records while they fit and the user still has room; then stop()."""
        p: int | None = self.index
        while True:
            offs = m.count
            p = self._next(p)  # type: ignore[arg-type]
            if p is None or m.count >= space:
                break
            err = self._show(m, p)
            if err > 0:  # SEQ_SKIP: drop it, carry on
                m.count = offs
            elif err < 0 or _overflowed(m):  # the record waits for the next read
                m.count = offs
                break
        self._stop()
        return m

    def _done(self, out: bytearray, err: int) -> bytes:
        """Step 9: the bytes copied, or the error when nothing was copied."""
        if not out:
            if self._pending.count:
                raise SeqReadError(EFAULT)
            if err:
                raise SeqReadError(-err)
            return b""
        self.read_pos += len(out)
        return bytes(out)

    # -- traverse (§d.4) -----------------------------------------------------------------------

    def _forget_position(self) -> None:
        self.read_pos = 0
        self.index = 0
        self._pending = _Rendered()

    def _traverse_until_it_fits(self, offset: int) -> int:
        """Walk from record 0 to OFFSET, restarting the walk after each buffer doubling."""
        while True:
            err = self._traverse(offset)
            if err != -EAGAIN:
                return err

    def _traverse(self, offset: int) -> int:
        """Render records from 0, adding their lengths, until the one holding OFFSET."""
        self.index = 0
        self._pending = _Rendered()
        if offset == 0:
            return 0
        if not self.size:
            self.size = self.initial_size
        pos, err = 0, 0
        p = self._start()
        while p is not None:
            m = SeqFile(self.size)
            err = self._show(m, p)
            if err < 0:
                break
            if err > 0:
                m.count = 0
            if _overflowed(m):
                self._stop()
                self._double_buffer()
                return -EAGAIN
            p = self._next(p)
            data = _rendered(m)
            if pos + len(data) > offset:
                self._pending = _Rendered(data, offset - pos)
                break
            pos += len(data)
            if pos == offset:
                break
        self._stop()
        return err


# ---------------------------------------------------------------------------------------------
# Read sizes


def read_all(reader: SeqFileReader, sizes: Sequence[int], max_reads: int = DEFAULT_MAX_READS) -> list[bytes]:
    """read() with SIZES in turn (the last one repeated) until EOF; the chunks, ending with b""."""
    if not sizes or min(sizes) <= 0:
        raise ValueError("read sizes must be positive")
    chunks: list[bytes] = []
    while len(chunks) < max_reads:
        chunk = reader.read(sizes[min(len(chunks), len(sizes) - 1)])
        chunks.append(chunk)
        if not chunk:
            return chunks
    raise LimitExceeded("seq_read model", f"no EOF after {max_reads} read() calls")


def read_sizes(
    records: Sequence[Show],
    bufsize: int,
    behaviour: str = KERNEL,
    initial_size: int = PAGE_SIZE,
) -> list[int]:
    """Sizes that read(BUFSIZE) returns until EOF, ending with the 0 of EOF."""
    reader = SeqFileReader(records, behaviour, initial_size)
    return [len(c) for c in read_all(reader, [bufsize])]


def fill_prediction(total: int, bufsize: int) -> list[int]:
    """The sizes the fill behaviour gives for TOTAL bytes: min(N, bytes left), then 0."""
    sizes = [bufsize] * (total // bufsize)
    if total % bufsize:
        sizes.append(total % bufsize)
    return sizes + [0]


# ---------------------------------------------------------------------------------------------
# The stream property


@dataclass(frozen=True)
class StreamCase:
    """Records, then reads of READ_SIZES (then TAIL until EOF), maybe repositioned once.

    REPOSITION = (after_reads, offset, how): after that many reads, move to OFFSET (clamped to
    the stream length) with "lseek" (then read()) or "pread" (then pread() at explicit offsets).
    """

    records: tuple[RecordSpec, ...]
    read_sizes: tuple[int, ...]
    tail: int
    reposition: tuple[int, int, str] | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "records": [_describe_spec(r) for r in self.records],
            "read_sizes": list(self.read_sizes),
            "then_read_size": self.tail,
            "reposition": list(self.reposition) if self.reposition else None,
        }


def _describe_spec(spec: RecordSpec) -> str:
    return f"{spec.length}{':skip' if spec.skip else ''}/{spec.primitive}"


def check_stream_case(case: StreamCase, behaviour: str, max_reads: int = 100_000) -> dict[str, Any] | None:
    """None if BEHAVIOUR hands out exactly the records' bytes for CASE, else a counterexample."""
    found = check_stream(
        records_from_specs(case.records), behaviour, case.read_sizes, case.tail, case.reposition, max_reads
    )
    return None if found is None else {"behaviour": behaviour, **case.describe(), **found}


def check_stream(
    records: Sequence[Show],
    behaviour: str,
    read_sizes: Sequence[int],
    tail: int | None = None,
    reposition: tuple[int, int, str] | None = None,
    max_reads: int = 100_000,
) -> dict[str, Any] | None:
    """Read RECORDS with READ_SIZES (then TAIL, default the last size) until EOF, repositioning
    once if asked; None if every byte handed out is the records' own, else what went wrong."""
    full = expected_stream(records)
    reader = SeqFileReader(records, behaviour)
    sizes = list(read_sizes) + ([tail] if tail else [])
    after, target, how = reposition or (-1, 0, "lseek")
    before, got, offset, pos, returned = b"", bytearray(), 0, 0, []
    for i in range(max_reads):
        if i == after:
            before, got = bytes(got), bytearray()
            offset = min(target, len(full))
            pos = reader.lseek(offset) if how == "lseek" else offset
        n = sizes[min(i, len(sizes) - 1)]
        chunk = reader.read(n) if how == "lseek" else reader.pread(n, pos)
        pos += len(chunk)
        returned.append(len(chunk))
        got += chunk
        if not chunk and i >= after:
            break
    else:
        if not full[offset:].startswith(bytes(got)):
            return _mismatch("stream", full[offset:], bytes(got), returned)
        # Every byte so far is right; only the read-call budget ran out. Not a counterexample.
        raise LimitExceeded("seq_read model", f"no EOF within {max_reads} read() calls ({len(got)} of {len(full) - offset} bytes read)")
    if before != full[: len(before)]:
        return _mismatch("before reposition", full[: len(before)], before, returned)
    if bytes(got) != full[offset:]:
        return _mismatch("stream", full[offset:], bytes(got), returned)
    return None


def _mismatch(part: str, expected: bytes, actual: bytes, returned: list[int]) -> dict[str, Any]:
    """Where the handed-out bytes first differ from the records' bytes."""
    first = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
    return {
        "part": part,
        "returned": returned,
        "expected_bytes": len(expected),
        "actual_bytes": len(actual),
        "first_difference": first,
        "expected": expected,
        "actual": actual,
    }


def stream_cases(max_records: int = 10):  # -> SearchStrategy[StreamCase]
    """Hypothesis strategy: record lengths around S-1, S, S+1 (S = 4096, 8192), empty and skipped
    records, each primitive family, read sizes from 1 byte to 256 KiB, seeks and rereads."""
    from hypothesis import strategies as st

    near_buffer = st.sampled_from([0, 1, 2, 3, 100, 4094, 4095, 4096, 4097, 8191, 8192, 8193])
    lengths = st.one_of(near_buffer, st.integers(0, 300), st.integers(0, 9000))
    spec = st.builds(
        RecordSpec,
        lengths,
        st.sampled_from([False, False, False, True]),
        st.sampled_from(PRIMITIVES),
    )
    read_size = st.one_of(
        st.integers(1, 16),
        st.sampled_from([1, 4095, 4096, 4097, 8192, 65536, 131072, 262144]),
        st.integers(1, 262144),
    )
    reposition = st.none() | st.tuples(st.integers(0, 4), st.integers(0, 40000), st.sampled_from(["lseek", "pread"]))
    return st.builds(
        StreamCase,
        st.lists(spec, max_size=max_records).map(tuple),
        st.lists(read_size, min_size=1, max_size=6).map(tuple),
        st.integers(512, 262144),
        reposition,
    )


@dataclass
class SearchOutcome:
    """What `find_stream_counterexample` found: the cases tried and the minimal failure, if any."""

    cases: int
    counterexample: dict[str, Any] | None


def find_stream_counterexample(behaviour: str, seed: int = 0, max_examples: int = 200) -> SearchOutcome:
    """Search (Hypothesis, deterministic for a seed) for a StreamCase BEHAVIOUR gets wrong."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    tried = 0

    def wrong(case: StreamCase) -> bool:
        nonlocal tried
        tried += 1
        return check_stream_case(case, behaviour) is not None

    config = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    from fmtcheck.common.hypothesis_home import private_hypothesis_home

    try:
        with private_hypothesis_home():  # nothing written to the working directory
            case = find(stream_cases(), wrong, settings=config, random=Random(seed))
    except NoSuchExample:
        return SearchOutcome(tried, None)
    return SearchOutcome(tried, check_stream_case(case, behaviour))
