"""Classify a divergence by what it does to the readers of /proc (docs/consumers.md).

The rule the consumers teach: a divergence that keeps every token and every separator is
"cosmetic" (only the number of spaces between tokens changed, which every whitespace-splitting
parser tolerates); one that merges, splits, adds, drops or respells a token, or changes a header,
a tab or the line structure, is "breaking".

Vocabulary used below, on one line of bytes:

* a *token* is a maximal run of non-whitespace bytes (what awk calls a field);
* a *word* is a maximal run of bytes that are neither whitespace nor separator punctuation;
* a *slot* is what stands between two words (or before the first / after the last one): a mix of
  whitespace and separator punctuation such as ``": "``, ``"\\t"``, ``"/"`` or ``""`` (glued).

Comparing words and slots, rather than raw bytes, is what lets ``"  5"`` vs ``"   5"`` be width
drift while ``"eth0: 4046496815"`` vs ``"eth0:4046496815"`` is a merged token: the words are the
same in both pairs, but in the second one a slot lost all of its whitespace.

Everything here works on bytes; nothing is decoded.
"""

from __future__ import annotations

import re
from itertools import compress, count
from operator import ne
from typing import Iterable
from fmtcheck.common.lazyre import lazy_compile

SEVERITY_RANK = {"cosmetic": 0, "breaking": 1}

# Most telling first: when one line pair shows several differences, the report names the first
# kind in this order that occurs (a merged token matters more than the width drift around it).
KIND_PRIORITY: tuple[str, ...] = (
    "nul-byte",
    "newline",
    "header",
    "token-merged",
    "token-split",
    "separator-lost",
    "separator-changed",
    "separator-moved",
    "field-dropped",
    "field-added",
    "fields-swapped",
    "value",
    "respelled",
    "tab",
    "trailing-space",
    "width",
)
COSMETIC_KINDS = frozenset({"width", "identical"})

_WHITESPACE = frozenset(b" \t\r\v\f")
# Punctuation that /proc files use between fields ("eth0:", "SigQ:\t0/63457", "08:01",
# "Inter-|", "a, b", "avg10=0.00"). '-' and '.' are not here: they belong to numbers and names
# ("-1", "0.52", "2-edge", "55d6c1a00000-55d6c1a22000") and are handled by respelling.
_SEPARATORS = frozenset(b":|/,;=")
_WHITESPACE_BYTES = bytes(sorted(_WHITESPACE))
_SEPARATOR_BYTES = bytes(sorted(_SEPARATORS))
_NOT_SEPARATORS = bytes(b for b in range(256) if b not in _SEPARATORS)
_WORD_RUN = lazy_compile(b"([^" + re.escape(bytes(sorted(_WHITESPACE | _SEPARATORS))) + b"]+)")
_EDGE_PUNCT = b":|/,;=()%"

_DEC = lazy_compile(rb"[+-]?[0-9]+")
_FLOAT = lazy_compile(rb"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)")
_HEX_PREFIXED = lazy_compile(rb"([+-]?)0[xX]([0-9a-fA-F]+)")
_HEX_RAW = lazy_compile(rb"[0-9a-fA-F]+")
_NUMERIC_TOKEN = lazy_compile(rb"[+-]?(?:0[xX])?[0-9a-fA-F]*[0-9][0-9a-fA-F]*(?:\.[0-9]+)?")
_CPU_COLUMN = lazy_compile(rb"CPU[0-9]+")


def severity_of(kind: str) -> str:
    """Only width drift (and no difference at all) is cosmetic; every other kind is breaking."""
    return "cosmetic" if kind in COSMETIC_KINDS else "breaking"


def worst_kind(kinds: Iterable[str]) -> str:
    """The most telling kind among several (KIND_PRIORITY order); "identical" when there are none."""
    found = [k for k in kinds if k and k != "identical"]
    if not found:
        return "identical"
    return min(found, key=_priority)


def _priority(kind: str) -> int:
    return KIND_PRIORITY.index(kind) if kind in KIND_PRIORITY else len(KIND_PRIORITY)


# --------------------------------------------------------------------------- one line pair


def classify_lines(expected: bytes, actual: bytes, *, header: bool | None = None) -> tuple[str, str]:
    """(kind, severity) for one rendered line pair, both without their newline.

    `header` says whether the reference line is a header (constant text that parsers match
    byte-exactly); the engine knows this from the format string, so it should pass it. When it is
    None the line is judged by `looks_like_header`. Identical lines give ("identical", "cosmetic").
    """
    if expected == actual:
        return "identical", "cosmetic"
    kind = _line_kind(expected, actual, header)
    return kind, severity_of(kind)


def _line_kind(expected: bytes, actual: bytes, header: bool | None) -> str:
    if expected.count(0) != actual.count(0):
        return "nul-byte"
    if expected.count(b"\n") != actual.count(b"\n"):
        return "newline"
    is_header = looks_like_header(expected) if header is None else header
    if is_header:
        return "header"
    same_words = _same_words_kind(expected, actual)
    if same_words is not None:
        return same_words
    words_e, slots_e = lex(expected)
    words_a, slots_a = lex(actual)
    if words_e == words_a:
        return worst_kind(_slot_kinds(slots_e, slots_a))
    if _non_whitespace(expected) == _non_whitespace(actual):
        return _boundary_kind(expected, actual)
    if _skeleton(expected) == _skeleton(actual):
        return _punctuation_kind(expected, actual)
    if len(words_e) == len(words_a):
        return _pairwise_kind(words_e, words_a, slots_e, slots_a)
    return _count_kind(words_e, words_a)


_RUN_BREAKS = bytes(sorted(_WHITESPACE | _SEPARATORS))
_BREAKS_TO_SPACE = bytes.maketrans(_RUN_BREAKS, b" " * len(_RUN_BREAKS))
_RUN_CLASSES = bytes(0x20 if b in _RUN_BREAKS else 0x77 for b in range(256))  # a break " ", else "w"


def _same_words_kind(expected: bytes, actual: bytes) -> str | None:
    """What `_line_kind` says of two lines with the same words (`lex`), from the bytes after their
    common prefix only; None when the words differ, or a line holds a newline (which `lex` keeps
    in a word and `bytes.split` would not). A width slip in the last field of a 256-field line
    cost two regex splits of 2,300 bytes per candidate the report judged (most of its search for
    a worse case).

    From the start C of the common prefix's last run (a boundary between a word and a slot in
    both lines, the bytes on both sides of it being common), the words and slots before C are the
    same on both sides: the words are equal when the tails' are, and the slots that differ are
    the tails' (their slot j is the line's slot K + j, K the words before C; a tail that starts
    with a word starts with an empty slot, the end of slot K, equal on both sides)."""
    if b"\n" in expected or b"\n" in actual:
        return None
    start = _run_start(expected, _common_prefix(expected, actual))
    tail_e, tail_a = expected[start:], actual[start:]
    if tail_e.translate(_BREAKS_TO_SPACE).split() != tail_a.translate(_BREAKS_TO_SPACE).split():
        return None
    classes = expected[:start].translate(_RUN_CLASSES)
    before = classes.count(b" w") + classes.startswith(b"w")  # the words before C
    slots_e, slots_a = _WORD_RUN.split(tail_e)[0::2], _WORD_RUN.split(tail_a)[0::2]
    last = before + len(slots_e) - 1
    kinds = []
    for j in compress(count(), map(ne, slots_e, slots_a)):
        at = before + j
        kind = _slot_kind(slots_e[j], slots_a[j], "trail" if at == last else ("lead" if at == 0 else "mid"))
        if kind:
            kinds.append(kind)
    return worst_kind(kinds)


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix (by halving, each probe one C-level compare)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _run_start(line: bytes, end: int) -> int:
    """Where the run (of word bytes, or of slot bytes) holding line[end - 1] begins (0 for end 0)."""
    if end == 0:
        return 0
    breaks = line[end - 1] in _RUN_BREAKS
    start = end - 1
    while start > 0 and (line[start - 1] in _RUN_BREAKS) == breaks:
        start -= 1
    return start


def lex(line: bytes) -> tuple[list[bytes], list[bytes]]:
    """Split a line into words and the slots around them (len(slots) == len(words) + 1).

    Joining slot0 + word0 + slot1 + ... + slotN gives the line back, so no byte is lost.
    (One regex split: a byte-by-byte loop cost most of judging a long line.)
    """
    parts = _WORD_RUN.split(line)
    return parts[1::2], parts[0::2]


def _non_whitespace(line: bytes) -> bytes:
    return line.translate(None, _WHITESPACE_BYTES)


def _skeleton(line: bytes) -> bytes:
    """The line without whitespace and separator punctuation: what is left when only
    separators differ."""
    return line.translate(None, _WHITESPACE_BYTES + _SEPARATOR_BYTES)


def _punctuation_kind(expected: bytes, actual: bytes) -> str:
    """Same words once separators are ignored, yet they are cut differently: a separator that
    vanished glued two words ("0/63457" -> "063457"); one that appeared cut a word."""
    punct_e, punct_a = _punct(expected), _punct(actual)
    if len(punct_a) < len(punct_e):
        return "separator-lost"
    if sorted(punct_a) == sorted(punct_e):
        return "separator-moved"
    return "separator-changed"


def _slot_kinds(slots_e: list[bytes], slots_a: list[bytes]) -> list[str]:
    """What changed in each slot that differs (found by one C-level pass: a 256-field line has
    257 slots, and the report judges hundreds of candidates of a line)."""
    last = len(slots_e) - 1
    kinds = []
    for i in compress(count(), map(ne, slots_e, slots_a)):
        se, sa = slots_e[i], slots_a[i]
        position = "trail" if i == last else ("lead" if i == 0 else "mid")
        kind = _slot_kind(se, sa, position)
        if kind:
            kinds.append(kind)
    return kinds


def _slot_kind(se: bytes, sa: bytes, position: str) -> str | None:
    """What changed in one slot. Leading and trailing slots separate nothing, so losing all their
    whitespace is width drift (leading) or a trailing-space change (trailing), never a merge."""
    if se == sa:
        return None
    punct_e, punct_a = _punct(se), _punct(sa)
    if punct_e != punct_a:
        return _separator_kind(se, sa, punct_e, punct_a)
    if position == "mid":
        ws_e, ws_a = _has_ws(se), _has_ws(sa)
        if ws_e and not ws_a:
            return "token-merged"
        if ws_a and not ws_e:
            return "token-split"
        if _arrangement(se) != _arrangement(sa):
            return "separator-moved"
    if _tab_changed(se, sa):
        return "tab"
    if position == "trail":
        return "trailing-space"
    return "width"


def _separator_kind(se: bytes, sa: bytes, punct_e: bytes, punct_a: bytes) -> str:
    """A punctuation separator that vanished is "lost"; one replaced (by another character or by
    whitespace where there was none) or added is "changed"."""
    if punct_e and not punct_a and not (_has_ws(sa) and not _has_ws(se)):
        return "separator-lost"
    return "separator-changed"


def _punct(slot: bytes) -> bytes:
    return slot.translate(None, _NOT_SEPARATORS)


def _has_ws(slot: bytes) -> bool:
    return any(b in _WHITESPACE for b in slot)


def _arrangement(slot: bytes) -> bytes:
    """The slot with each whitespace run collapsed to one space: ": " and ":   " agree, " :" not."""
    return re.sub(rb"[ \t\r\v\f]+", b" ", slot)


def _tab_changed(se: bytes, sa: bytes) -> bool:
    """Tabs are matched exactly (psutil's `Uid:\\t(\\d+)\\t`): a change in their number or order,
    or in whether a tab touches the neighbouring token, is a tab change; spaces added after a tab
    that was already followed by spaces ("VmRSS:\\t    123") are only width."""
    if b"\t" not in se and b"\t" not in sa:
        return False
    if se.replace(b" ", b"") != sa.replace(b" ", b""):
        return True
    return se.endswith(b"\t") != sa.endswith(b"\t") or se.startswith(b"\t") != sa.startswith(b"\t")


def _boundary_kind(expected: bytes, actual: bytes) -> str:
    """Same bytes apart from whitespace, but whitespace now cuts words elsewhere: a lost boundary
    glues two tokens (worse, listed first), a new one splits a token."""
    lost, gained = _boundaries(expected) - _boundaries(actual), _boundaries(actual) - _boundaries(expected)
    if lost:
        return "token-merged"
    if gained:
        return "token-split"
    return "width"


def _boundaries(line: bytes) -> set[int]:
    """Offsets, in the whitespace-free text, where one token ends and the next begins."""
    offsets, total = set(), 0
    for token in line.split()[:-1]:
        total += len(token)
        offsets.add(total)
    return offsets


def _pairwise_kind(
    words_e: list[bytes], words_a: list[bytes], slots_e: list[bytes], slots_a: list[bytes]
) -> str:
    kinds = _slot_kinds(slots_e, slots_a)
    if sorted(words_e) == sorted(words_a):
        kinds.append("fields-swapped")
    for we, wa in zip(words_e, words_a):
        if we != wa:
            kinds.append("respelled" if same_number(we, wa) else "value")
    return worst_kind(kinds)


def _count_kind(words_e: list[bytes], words_a: list[bytes]) -> str:
    if len(words_a) > len(words_e):
        return "field-added"
    return "field-dropped"


# --------------------------------------------------------------------------- numbers


def same_number(x: bytes, y: bytes) -> bool:
    """True when two different spellings denote the same number: zero padding ("00000740" vs
    "740"), a sign ("+5", "-0"), the base ("0x1f" vs "31"), hex case or padding ("0a" vs "A"),
    a trailing fraction zero ("0.50" vs "0.5"); also for compounds such as a maps address range
    whose parts are respelled ("00400000-00452000" vs "400000-452000")."""
    if x == y:
        return True
    if _same_scalar(x, y):
        return True
    return _same_compound(x, y)


def _same_scalar(x: bytes, y: bytes) -> bool:
    ix, iy = _as_int(x), _as_int(y)
    if ix is not None and iy is not None:
        return ix == iy
    fx, fy = _as_float(x), _as_float(y)
    if fx is not None and fy is not None:
        return fx == fy
    hx, hy = _as_hex(x), _as_hex(y)
    return hx is not None and hy is not None and hx == hy


def _same_compound(x: bytes, y: bytes) -> bool:
    parts_x, parts_y = x.split(b"-"), y.split(b"-")
    if len(parts_x) < 2 or len(parts_x) != len(parts_y) or not parts_x[0] or not parts_y[0]:
        return False
    return all(px == py or (px and py and _same_scalar(px, py)) for px, py in zip(parts_x, parts_y))


def _as_int(token: bytes) -> int | None:
    """Decimal, or hex written with its 0x prefix (a token of thousands of digits is compared as
    text: converting it would cost quadratic time)."""
    if len(token) > 1000:
        return None
    if _DEC.fullmatch(token):
        return int(token, 10)
    match = _HEX_PREFIXED.fullmatch(token)
    if match:
        value = int(match.group(2), 16)
        return -value if match.group(1) == b"-" else value
    return None


def _as_float(token: bytes) -> float | None:
    if _FLOAT.fullmatch(token) or _DEC.fullmatch(token):
        return float(token)
    return None


def _as_hex(token: bytes) -> int | None:
    """Bare hex digits (maps offsets, signal masks), or 0x-prefixed hex."""
    if _HEX_RAW.fullmatch(token):
        return int(token, 16)
    match = _HEX_PREFIXED.fullmatch(token)
    if match and not match.group(1):
        return int(match.group(2), 16)
    return None


# --------------------------------------------------------------------------- headers


def looks_like_header(line: bytes) -> bool:
    """Guess whether a line is a header (column titles that parsers match byte-exactly).

    A header holds no number: "Inter-|   Receive ...", " face |bytes ...", "TcpExt: SyncookiesSent
    ...", "major minor  #blocks  name", or only CPU column titles ("   CPU0   CPU1"). Not headers,
    although they hold no number either: "Label:\\tvalue" lines of /proc/PID/status ("State:\\tS
    (sleeping)", "Name:\\tbash") and the VmFlags line of smaps (two-letter mnemonics).
    """
    tokens = line.split()
    if tokens and all(_CPU_COLUMN.fullmatch(t) for t in tokens):
        return True
    if len(tokens) < 3 or any(_is_numeric_token(t) for t in tokens):
        return False
    first = tokens[0]
    if first.endswith(b":"):
        after = line[line.index(first) + len(first) :]
        if after.startswith(b"\t") or all(len(t) <= 2 for t in tokens[1:]):
            return False
    return True


def _is_numeric_token(token: bytes) -> bool:
    core = token.strip(_EDGE_PUNCT)
    return bool(core) and bool(_NUMERIC_TOKEN.fullmatch(core))


# --------------------------------------------------------------------------- whole outputs


def classify_outputs(expected: bytes, actual: bytes) -> tuple[str, str]:
    """(kind, severity) for two whole renderings, which may differ in line structure.

    Lines are aligned (difflib, on whole lines) so that an inserted or dropped line does not make
    every following line look changed. A lost or extra newline (two lines glued into one, one line
    cut in two, an empty line, or a missing final newline) is "newline"; a whole line added or
    dropped is "field-added" / "field-dropped"; changed lines are classified as line pairs. The
    result is the most telling kind found (KIND_PRIORITY).
    """
    if expected == actual:
        return "identical", "cosmetic"
    kind = _output_kind(expected, actual)
    return kind, severity_of(kind)


def _output_kind(expected: bytes, actual: bytes) -> str:
    if expected.count(0) != actual.count(0):
        return "nul-byte"
    lines_e, final_e = split_lines(expected)
    lines_a, final_a = split_lines(actual)
    kinds = [] if final_e == final_a else ["newline"]
    from difflib import SequenceMatcher  # (only reports of several differing lines align them)

    matcher = SequenceMatcher(None, lines_e, lines_a, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            kinds.extend(_block_kinds(lines_e[i1:i2], lines_a[j1:j2]))
    return worst_kind(kinds)


def split_lines(output: bytes) -> tuple[list[bytes], bool]:
    """Lines without their newline, and whether the output ends with one."""
    if not output:
        return [], True
    lines = output.split(b"\n")
    if lines[-1] == b"":
        return lines[:-1], True
    return lines, False


def _block_kinds(block_e: list[bytes], block_a: list[bytes]) -> list[str]:
    if len(block_e) == len(block_a):
        return [_line_kind(e, a, None) for e, a in zip(block_e, block_a) if e != a]
    if _non_whitespace(b"".join(block_e)) == _non_whitespace(b"".join(block_a)):
        return ["newline"]  # lines glued or cut, or blank lines added or removed
    return ["field-added" if len(block_a) > len(block_e) else "field-dropped"]
