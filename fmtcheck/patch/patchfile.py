"""Read kernel patches in the forms reviewers receive them, into hunks with line numbers.

Accepted inputs (one path each, or ``-`` for standard input):

- ``git format-patch`` output and any mbox / ``.mbx`` file (``b4 am``, a lore thread export): the
  stdlib ``email`` parser splits headers from bodies and undoes quoted-printable and base64;
- a plain ``git diff`` / ``diff -u`` text;
- mailing-list thread text as archived in ``shared/seeds`` (``[PATCH v2] subject`` / ``[Author]``
  headers, replies quoting the patch with ``>``);
- a single e-mail saved with its headers but without an mbox ``From`` line.

From every message the patch is taken from the body: lines quoted with ``>`` are ignored (a reply
that quotes the patch is not a new patch) and the body ends at the ``-- `` signature. Where a
patch starts and ends is decided by the hunk headers' line counts, so a signature line such as
``-- `` right after the last hunk is never mistaken for a removed line; the hunks themselves are
parsed by ``unidiff``.

Patches are bytes from strangers. Text is decoded with ``surrogateescape``, so any byte survives
and `HunkLine.text` gives back exactly the bytes of the patch (CRLF line ends become LF). Anything
malformed or truncated raises `InputError` naming ``FILE:LINE``.
"""

from __future__ import annotations

import email
import email.header
import email.message
import email.policy
import mailbox
import re
from dataclasses import dataclass, field

import unidiff

from fmtcheck.common import inputfile
from fmtcheck.common.errors import InputError

MAX_PATCH_BYTES = 32 * 1024 * 1024
MAX_MESSAGES = 5000
MAX_FILES_PER_PATCH = 2000
STDIN_NAME = "<stdin>"

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: ?(.*))?$")
_MBOX_FROM = re.compile(rb"^From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ")
_MBOX_SEPARATOR = re.compile(rb"(?<=\n)From ")
# git format-patch's own separator, recognised even when a tool dropped the blank line before it
_GIT_MAGIC_FROM = re.compile(rb"From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n")
_EMAIL_HEADER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:[ \t]")
_THREAD_SUBJECT = re.compile(
    r"^(?:(?:Re|RE|re|Fwd|FW|Fw|AW|Aw|SV|Sv)\s*:\s*)*\[[^\]\n]*(?:PATCH|RFC)[^\]\n]*\]\s*\S.*$"
)
_BASE_COMMIT = re.compile(r"^base-commit:\s*([0-9a-f]{7,64})\s*$")
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_THREAD_AUTHOR = re.compile(r"^\[[^\[\]\n]{1,200}\]\s*$")
_SUBJECT_TAGS = re.compile(r"\[([^\]]*(?:PATCH|RFC)[^\]]*)\]", re.I)
_VERSION = re.compile(r"(?:^|\s)v(\d{1,4})(?=\s|$)", re.I)
_NUMBER = re.compile(r"(?:^|\s)(\d{1,4})/(\d{1,4})(?=\s|$)")
_GIT_QUIET_HEADERS = ("index ", "new file mode ", "deleted file mode ")
_GIT_FILE_HEADERS = (
    "old mode ",
    "new mode ",
    "similarity index ",
    "dissimilarity index ",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "Binary files ",
)


# --------------------------------------------------------------------------------------------
# Data model


@dataclass
class HunkLine:
    """One line of a hunk: its tag, its exact bytes, and where it is on each side and in the patch."""

    tag: str  # " " context, "-" removed, "+" added
    text: bytes  # without the newline
    old_no: int | None  # line number in the old file (context and removed lines)
    new_no: int | None  # line number in the new file (context and added lines)
    where: int  # 1-based line in the patch file (approximate inside encoded e-mail bodies)

    @property
    def changed(self) -> bool:
        return self.tag != " "


@dataclass
class Hunk:
    """A hunk with its function context (the text after the second ``@@``)."""

    old_start: int
    old_len: int
    new_start: int
    new_len: int
    section: bytes
    lines: list[HunkLine]
    where: int  # line of the @@ header in the patch file

    def side(self, which: str) -> list[HunkLine]:
        """The lines one side sees: context and removed for "old", context and added for "new"."""
        keep = " -" if which == "old" else " +"
        return [line for line in self.lines if line.tag in keep]

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_len} +{self.new_start},{self.new_len} @@"


@dataclass
class FileDiff:
    """The hunks of one file. A path is None on the side where the file does not exist."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk]
    where: int
    binary: bool = False
    git_style: bool = True  # paths had a/ and b/ prefixes (already stripped)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or "?"


@dataclass
class Patch:
    """One patch: the diff of one message (a series or a thread gives several)."""

    source: str  # the path given by the user, or <stdin>
    subject: str
    files: list[FileDiff]
    where: int  # line where the message starts
    version: int = 1
    number: int | None = None
    total: int | None = None
    author: str = ""
    label: str = ""  # "v2 [2/3]" when the input holds several versions / a series; set by label_patches
    base_commit: str | None = None  # the ``base-commit:`` trailer of git format-patch --base / b4

    def prefix(self) -> str:
        """The label as a subject prefix ("" or "v2 [2/3] ")."""
        return f"{self.label} " if self.label else ""


@dataclass
class Message:
    """One message of a thread or mbox: its subject and body lines with their file line numbers."""

    subject: str
    lines: list[tuple[int, str]]  # (line in the file, text without newline)
    where: int
    author: str = ""
    exact_lines: bool = True  # False when the body was decoded (quoted-printable, base64, parts)


@dataclass
class _Block:
    """A contiguous run of diff lines found in a message body."""

    lines: list[tuple[int, str]] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Entry points


def read_patches(path: str) -> list[Patch]:
    """Read every patch in PATH (``-`` is standard input), labelled for reports."""
    source, data = read_input(path)
    return parse_patch_bytes(data, source)


def parse_patch_bytes(data: bytes, source: str) -> list[Patch]:
    """Every patch held by DATA, in file order, labelled (see `label_patches`)."""
    if len(data) > MAX_PATCH_BYTES:
        raise InputError(source, f"{len(data)} bytes, over the {MAX_PATCH_BYTES}-byte limit")
    data = normalise_line_ends(data)
    if not data.strip():
        raise InputError(source, "empty file: no patch in it")
    patches: list[Patch] = []
    cover_bases: dict[int, str] = {}
    for message in split_messages(data, source):
        patch = patch_from_message(message, source)
        if patch is not None:
            patches.append(patch)
        elif subject_tags(message.subject)[1] == 0 and message_base_commit(message):
            cover_bases.setdefault(subject_tags(message.subject)[0], message_base_commit(message) or "")
    if not patches:
        raise InputError(source, _why_no_patch(data))
    spread_base_commits(patches, cover_bases)
    label_patches(patches)
    return patches


def read_input(path: str) -> tuple[str, bytes]:
    """The bytes of PATH, with a name for messages; every failure is an `InputError`."""
    data = inputfile.read_input(path, MAX_PATCH_BYTES, "patch file")
    if len(data) > MAX_PATCH_BYTES:
        raise InputError(path, f"over the {MAX_PATCH_BYTES}-byte limit")
    return (STDIN_NAME if path == "-" else path), data


def normalise_line_ends(data: bytes) -> bytes:
    """CRLF (mail gateways, Windows editors) to LF; a UTF-8 byte-order mark is dropped."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.replace(b"\r\n", b"\n")


def as_text(data: bytes) -> str:
    """Bytes to str without loss: undecodable bytes survive as surrogates."""
    return data.decode("utf-8", "surrogateescape")


def as_bytes(text: str) -> bytes:
    """The inverse of `as_text`."""
    return text.encode("utf-8", "surrogateescape")


def _why_no_patch(data: bytes) -> str:
    text = as_text(data)
    if re.search(r"^>+ ?(?:diff --git|@@ -\d)", text, re.M):
        return "not a patch: the only diff in it is quoted ('>') in a reply"
    return "not a patch: no unified diff ('diff --git', or '---'/'+++' followed by '@@') in it"


# --------------------------------------------------------------------------------------------
# Messages


def split_messages(data: bytes, source: str) -> list[Message]:
    """Split an input into messages, whatever its form (mbox, e-mail, thread text, bare diff)."""
    if _MBOX_FROM.match(data):
        return mbox_messages(data, source)
    if _looks_like_email(data):
        return [_email_message(data, 1, source)]
    return thread_messages(as_text(data))


def _looks_like_email(data: bytes) -> bool:
    """Headers first (``Name: value`` lines, one of them Subject), then a blank line."""
    head = as_text(data[:16384]).split("\n\n", 1)[0].split("\n")
    if not head or not _EMAIL_HEADER.match(head[0]):
        return False
    fields = [line for line in head if not line[:1].isspace()]
    return all(_EMAIL_HEADER.match(line) for line in fields) and any(
        line.lower().startswith("subject:") for line in fields
    )


def mbox_messages(data: bytes, source: str) -> list[Message]:
    """Messages of an mbox: split at ``From `` lines, each parsed with the stdlib e-mail parser."""
    starts = [0]
    for match in _MBOX_SEPARATOR.finditer(data, 1):
        begin = match.start()
        blank_before = data.startswith(b"\n\n", begin - 2)
        if blank_before and _MBOX_FROM.match(data, begin) or _GIT_MAGIC_FROM.match(data, begin):
            starts.append(begin)
    if len(starts) > MAX_MESSAGES:
        raise InputError(source, f"{len(starts)} messages, over the {MAX_MESSAGES} limit")
    messages = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(data)
        chunk = data[start:end]
        from_end = chunk.find(b"\n") + 1 or len(chunk)
        first_line = data.count(b"\n", 0, start) + 2  # the line after "From "
        messages.append(_email_message(chunk[from_end:], first_line, source))
    return messages


def _email_message(raw: bytes, first_line: int, source: str) -> Message:
    """One e-mail (headers and body) as a Message with the body decoded to raw bytes."""
    try:
        msg = mailbox.mboxMessage(email.message_from_bytes(raw, policy=email.policy.compat32))
    except Exception as err:  # noqa: BLE001 - the e-mail parser is lenient; be safe anyway
        raise InputError(f"{source}:{first_line}", f"unreadable e-mail message: {err}") from None
    subject = _header_text(msg.get("Subject", ""))
    author = _header_text(msg.get("From", ""))
    parts = _text_parts(msg)
    split = raw.find(b"\n\n")
    body_line = first_line + (raw.count(b"\n", 0, split) + 2 if split >= 0 else 0)
    exact = len(parts) == 1 and parts[0][1]
    lines: list[tuple[int, str]] = []
    for payload, _plain in parts:
        text = as_text(normalise_line_ends(payload))
        for offset, line in enumerate(text.split("\n")):
            lines.append((body_line + offset if exact else first_line, line))
    return Message(subject, lines, first_line, author, exact_lines=exact)


def _header_text(value: object) -> str:
    """A header as text, RFC 2047 encoded words decoded, folding undone."""
    raw = str(value or "")
    try:
        text = str(email.header.make_header(email.header.decode_header(raw)))
    except Exception:  # noqa: BLE001 - a broken encoded word: keep it as it is
        text = raw
    return " ".join(text.split())


def _text_parts(msg: email.message.Message) -> list[tuple[bytes, bool]]:
    """Bodies that can hold a patch: text parts and attached .patch/.diff files.

    The flag says whether the bytes are the body as written (no transfer encoding, one part), so
    that line numbers in the file can be given exactly.
    """
    parts: list[tuple[bytes, bool]] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        name = (part.get_filename() or "").lower()
        if ctype == "text/html":
            continue
        if part.get_content_maintype() != "text" and not name.endswith((".patch", ".diff")):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        parts.append((payload, cte in ("", "7bit", "8bit", "binary") and not msg.is_multipart()))
    return parts


def thread_messages(text: str) -> list[Message]:
    """Messages of thread text: each starts with a ``[PATCH ...]`` subject line and ``[Author]``.

    Text without such headers (a bare diff, a commit message with a diff) is one message.
    """
    lines = text.split("\n")
    starts = [i for i in range(len(lines)) if _is_thread_header(lines, i)]
    if not starts:
        return [Message(_first_subject(lines), [(i + 1, line) for i, line in enumerate(lines)], 1)]
    messages = []
    if starts[0] > 0:
        head = [(i + 1, lines[i]) for i in range(starts[0])]
        messages.append(Message(_first_subject(lines), head, 1))
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        author_at = _next_nonblank(lines, start + 1)
        body = [(i + 1, lines[i]) for i in range(author_at + 1, end)]
        author = lines[author_at].strip()[1:-1]
        messages.append(Message(lines[start].strip(), body, start + 1, author))
    return messages


def _is_thread_header(lines: list[str], i: int) -> bool:
    if not _THREAD_SUBJECT.match(lines[i]):
        return False
    j = _next_nonblank(lines, i + 1)
    return j < len(lines) and j - i <= 3 and bool(_THREAD_AUTHOR.match(lines[j]))


def _next_nonblank(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _first_subject(lines: list[str]) -> str:
    """The subject of a headerless text: a leading [PATCH ...] line if there is one."""
    for line in lines[:5]:
        if _THREAD_SUBJECT.match(line):
            return line.strip()
    return ""


# --------------------------------------------------------------------------------------------
# Patches out of messages


def patch_from_message(message: Message, source: str) -> Patch | None:
    """The patch in one message body, or None when it holds none (a review, a cover letter)."""
    version, number, total = subject_tags(message.subject)
    if number == 0:
        return None  # a cover letter: an interdiff there is not a patch of its own
    body = [(no, text) for no, text in message.lines if not text.startswith(">")]
    files: list[FileDiff] = []
    for block in find_diff_blocks(body, source):
        files.extend(parse_block(block, source))
    if not files:
        return None
    if len(files) > MAX_FILES_PER_PATCH:
        raise InputError(f"{source}:{message.where}", f"{len(files)} files in one patch, over the limit")
    patch = Patch(source, message.subject, files, message.where, version, number, total, message.author)
    patch.base_commit = message_base_commit(message)
    return patch


def message_base_commit(message: Message) -> str | None:
    """The commit a message says its patch (or series) applies to: ``base-commit: SHA``, which
    ``git format-patch --base`` and b4 write after the diff (or in the cover letter)."""
    for _no, text in message.lines:
        match = _BASE_COMMIT.match(text)
        if match:
            return match.group(1)
    return None


def spread_base_commits(patches: list[Patch], messages_bases: dict[int, str] | None = None) -> None:
    """Give every patch of a version the base its series names (in its cover letter or in one of
    its patches, as format-patch puts it in the first message only)."""
    bases: dict[int, str] = dict(messages_bases or {})
    for patch in patches:
        if patch.base_commit:
            bases.setdefault(patch.version, patch.base_commit)
    for patch in patches:
        if patch.base_commit is None and patch.version in bases:
            patch.base_commit = bases[patch.version]


def subject_tags(subject: str) -> tuple[int, int | None, int | None]:
    """(version, number, total) from ``[PATCH v2 2/3]``; version 1 and no number by default."""
    version, number, total = 1, None, None
    for tags in _SUBJECT_TAGS.findall(subject):
        found = _VERSION.search(tags)
        if found:
            version = int(found.group(1))
        numbered = _NUMBER.search(tags)
        if numbered:
            number, total = int(numbered.group(1)), int(numbered.group(2))
    return version, number, total


def label_patches(patches: list[Patch]) -> None:
    """Label each patch for result subjects: the version when several are present ("v2"), the
    position in a series ("[2/3]"), and "#2", "#3"... when the same label comes again (a resend, or
    a diff posted in a reply)."""
    several_versions = len({p.version for p in patches}) > 1
    seen: dict[str, int] = {}
    for patch in patches:
        parts = []
        if several_versions:
            parts.append(f"v{patch.version}")
        if patch.number is not None and (patch.total or 0) > 1:
            parts.append(f"[{patch.number}/{patch.total}]")
        label = " ".join(parts)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label}#{seen[label]}" if label else f"#{seen[label]}"
        patch.label = label


# --------------------------------------------------------------------------------------------
# Finding diffs in a body: where they start and end (the hunks themselves are left to unidiff)


def find_diff_blocks(lines: list[tuple[int, str]], source: str) -> list[_Block]:
    """Runs of diff lines in a message body, which ends at a ``-- `` signature line."""
    blocks = []
    i = 0
    while i < len(lines):
        text = lines[i][1]
        if text in ("-- ", "--"):
            break
        if _starts_diff(lines, i):
            block, i = _read_block(lines, i, source)
            blocks.append(block)
            continue
        i += 1
    return blocks


def _starts_diff(lines: list[tuple[int, str]], i: int) -> bool:
    text = lines[i][1]
    if text.startswith("diff --git ") or re.match(r"^diff -\S*[uU]", text):
        return True
    return text.startswith("--- ") and i + 1 < len(lines) and lines[i + 1][1].startswith("+++ ")


def _read_block(lines: list[tuple[int, str]], i: int, source: str) -> tuple[_Block, int]:
    """Consume one diff (all its files) from line i; return it and the index after it."""
    block = _Block()
    file_open = False  # a ---/+++ pair was seen for the current file
    file_hunks = 0
    file_start = lines[i][0]
    file_other = False  # the file section holds something other than hunks (mode, rename, binary)
    while i < len(lines):
        no, text = lines[i]
        if text.startswith("diff "):
            _check_file_section(file_open, file_hunks, file_other, file_start, source)
            file_open, file_hunks, file_other, file_start = False, 0, False, no
            block.lines.append(lines[i])
            i += 1
        elif text.startswith("--- ") and i + 1 < len(lines) and lines[i + 1][1].startswith("+++ "):
            if file_open:
                _check_file_section(file_open, file_hunks, file_other, file_start, source)
                file_hunks, file_other, file_start = 0, False, no
            file_open = True
            block.lines.extend(lines[i : i + 2])
            i += 2
        elif text.startswith("--- ") or text.startswith("+++ "):
            raise InputError(f"{source}:{no}", "malformed patch: '---' and '+++' file lines must come in pairs")
        elif text.startswith("@@"):
            if not file_open:
                what = "malformed patch: hunk without '---'/'+++' file lines before it"
                raise InputError(f"{source}:{no}", what)
            i = _read_hunk(lines, i, block, source)
            file_hunks += 1
        elif text.startswith(_GIT_FILE_HEADERS) or text.startswith(_GIT_QUIET_HEADERS):
            file_other = file_other or text.startswith(_GIT_FILE_HEADERS)
            block.lines.append(lines[i])
            i += 1
        elif text.startswith("GIT binary patch"):
            file_other = True
            i = _skip_binary(lines, i)
        elif text.startswith("Index: ") or re.fullmatch(r"={20,}", text):
            block.lines.append(lines[i])
            i += 1
        else:
            break
    _check_file_section(file_open, file_hunks, file_other, file_start, source)
    return block, i


def _check_file_section(file_open: bool, hunks: int, other: bool, where: int, source: str) -> None:
    """A file section with ---/+++ lines but no hunk was cut off (unless it is binary/mode-only)."""
    if file_open and hunks == 0 and not other:
        raise InputError(f"{source}:{where}", "truncated patch: file header with no hunk after it")


def _skip_binary(lines: list[tuple[int, str]], i: int) -> int:
    """Skip a ``GIT binary patch`` section: it ends at the second blank line."""
    blanks = 0
    i += 1
    while i < len(lines) and blanks < 2:
        if not lines[i][1].strip():
            blanks += 1
        i += 1
    return i


def _read_hunk(lines: list[tuple[int, str]], i: int, block: _Block, source: str) -> int:
    """Consume one hunk by its header's line counts; a short or mangled hunk is an error."""
    no, header = lines[i]
    match = _HUNK_HEADER.match(header)
    if not match:
        raise InputError(f"{source}:{no}", f"malformed hunk header {header[:60]!r}")
    old_left = int(match.group(2)) if match.group(2) is not None else 1
    new_left = int(match.group(4)) if match.group(4) is not None else 1
    block.lines.append(lines[i])
    i += 1
    while old_left > 0 or new_left > 0:
        if i >= len(lines):
            raise InputError(
                f"{source}:{no}",
                f"truncated patch: hunk {_short(header)} lacks {old_left} old / {new_left} new "
                "line(s) at the end",
            )
        line_no, text = lines[i]
        tag = text[:1]
        if tag in ("", " "):
            old_left, new_left = old_left - 1, new_left - 1
        elif tag == "-":
            old_left -= 1
        elif tag == "+":
            new_left -= 1
        elif tag != "\\":
            raise InputError(
                f"{source}:{line_no}",
                f"truncated or mangled patch: hunk {_short(header)} (line {no}) still expects "
                f"{old_left} old / {new_left} new line(s), found {text[:40]!r}",
            )
        if old_left < 0 or new_left < 0:
            raise InputError(
                f"{source}:{line_no}",
                f"malformed patch: hunk {_short(header)} (line {no}) has more lines than its header says",
            )
        block.lines.append(lines[i] if text else (line_no, " "))
        i += 1
    if i < len(lines) and lines[i][1].startswith("\\"):
        block.lines.append(lines[i])
        i += 1
    return i


def _short(header: str) -> str:
    end = header.find("@@", 2)
    return header[: end + 2] if end > 0 else header[:40]


# --------------------------------------------------------------------------------------------
# Hunks, through unidiff


def parse_block(block: _Block, source: str) -> list[FileDiff]:
    """Parse one delimited diff with unidiff and attach patch-file line numbers to every line."""
    text = "\n".join(line for _no, line in block.lines) + "\n"
    try:
        patch_set = unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as err:
        raise InputError(f"{source}:{block.lines[0][0]}", f"malformed patch: {' '.join(str(err).split())}") from None
    files = []
    for patched in patch_set:
        files.append(_file_diff(patched, block, source))
    return files


def _file_diff(patched: unidiff.PatchedFile, block: _Block, source: str) -> FileDiff:
    def where(diff_line_no: int | None) -> int:
        if diff_line_no is None or not 1 <= diff_line_no <= len(block.lines):
            return block.lines[0][0]
        return block.lines[diff_line_no - 1][0]

    old_path, new_path, git_style = _paths(patched)
    hunks = []
    first_where = block.lines[0][0]
    for hunk in patched:
        lines = []
        for line in hunk:
            if line.line_type not in (" ", "-", "+"):
                continue  # "\ No newline at end of file"
            value = line.value[:-1] if line.value.endswith("\n") else line.value
            lines.append(
                HunkLine(
                    line.line_type,
                    as_bytes(value),
                    line.source_line_no,
                    line.target_line_no,
                    where(line.diff_line_no),
                )
            )
        header_where = where(_header_diff_line(hunk))
        hunks.append(
            Hunk(
                hunk.source_start,
                hunk.source_length,
                hunk.target_start,
                hunk.target_length,
                as_bytes(hunk.section_header or ""),
                lines,
                header_where,
            )
        )
    if hunks:
        first_where = hunks[0].where
    return FileDiff(old_path, new_path, hunks, first_where, bool(patched.is_binary_file), git_style)


def _header_diff_line(hunk: unidiff.Hunk) -> int | None:
    """The diff line number of a hunk's @@ header: the line before its first line."""
    for line in hunk:
        if line.diff_line_no is not None:
            return line.diff_line_no - 1
    return None


def _paths(patched: unidiff.PatchedFile) -> tuple[str | None, str | None, bool]:
    """Old and new paths without git's a/ and b/ prefixes; None for /dev/null."""
    source = unquote_git_path((patched.source_file or "").strip())
    target = unquote_git_path((patched.target_file or "").strip())
    git_style = source.startswith("a/") or target.startswith("b/")

    def clean(path: str, prefix: str) -> str | None:
        if path == "/dev/null" or not path:
            return None
        if git_style and path.startswith(prefix):
            return path[len(prefix) :]
        return path

    return clean(source, "a/"), clean(target, "b/"), git_style


def unquote_git_path(path: str) -> str:
    """A path as git means it. Git writes a name with unusual bytes (control characters, ``"``,
    ``\\``, bytes over 0x7f unless core.quotePath is off) C-quoted: in double quotes, with
    ``\\t``, ``\\n``, ``\\"``, ``\\\\`` and three-digit octal escapes for each byte. Other text is
    returned as it is; a malformed quoted name is kept literally (it then matches no file)."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        following = body[i + 1 : i + 2]
        if following in _C_ESCAPES:
            out.append(_C_ESCAPES[following])
            i += 2
        elif len(body) >= i + 4 and all(c in "01234567" for c in body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            return path
    return out.decode("utf-8", "surrogateescape")
