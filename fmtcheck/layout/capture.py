"""`fmtcheck check`: is a captured /proc file exactly what its layout prints for the values in it?

The capture is matched (`matcher`, with `records` and `choices`) against its grammar as a PEG: lines in order, repeated
records greedily, choices in order, and kernel-version variants narrowed by the first records (a
variant that stops matching is a divergence, since one kernel prints one layout). Each grammar line
is a width-exact regex, so "the line matches" means "rendering the values it holds gives these very
bytes". Only a line that fails is explained the slow way: its values are read loosely, rendered
through the grammar, and the first differing column is reported with the field there; when one
blank inserted earlier makes the line exact (a name glued to the next number, "sda14200", which a
loose reading takes for one longer name), the divergence is reported there instead.

The first occurrence settles file-wide parameters (a column count) and variants. When that first
record is the odd one, every later record would be reported in its stead; so a capture that
diverges in two places or more gets a second try with the layout its divergent lines show (the
values they would bind, the other options of its variants): compared first on the lines up to the
third divergence, then on the whole capture, it is kept if it reports fewer divergent lines.

Captures are bytes and are streamed through a bounded window read in 8 MiB chunks: a record that
has matched is dropped, so memory stays at the size of the largest record plus a chunk or two (a
10 MB single line works; a line over MAX_LINE is refused). Once the layout of a repeated record is
settled (its parameters bound, its variants decided), the whole record compiles to one width-exact
regex and the records are matched back to back over the window, one regex call each, with no
Python work per line; a record is accepted only when at least MARGIN bytes follow it (or the file
ends there), so a chunk boundary never decides a match. The first record that does not match
leaves that loop for the line-by-line matcher, which explains it. This is what makes `check` run
at 100+ MB/s.

Two capture artefacts are tolerated with a note rather than a divergence: one empty line added at
the end (`cat f; echo`), and several snapshots of the same file in a row (`cat f f`), each checked
on its own.
"""


from __future__ import annotations

from fmtcheck.common.errors import InputError
from fmtcheck.common.options import Options
from fmtcheck.common.result import Report, Result
from fmtcheck.layout.keys import INVENTORY_BYTES, check_keys, inventory_of, take_inventory
from fmtcheck.layout.language import detect_grammar, load_grammar
from fmtcheck.layout.matcher import Matcher
from fmtcheck.layout.matchstate import MatchOutcome
from fmtcheck.layout.model import (
    Grammar,
)
from fmtcheck.layout.reader import Reader, open_capture, read_head

MAX_ALTERNATIVES = 16  # second tries of a divergent capture with another layout


PREFIX_DIVERGENCES = 3  # the alternatives are first compared on the lines up to this divergence


MAX_PREFIX = 1 << 20  # bytes; a longer prefix is not re-matched


def grammar_for(path: str, name: str | None) -> Grammar:
    """The named grammar, or the one detected from the start of the capture."""
    if name:
        return load_grammar(name)
    head = read_head(path)
    if not head:
        raise InputError(path, "empty capture: cannot detect its layout (give --grammar NAME)")
    g = detect_grammar(head, path)
    if g is None:
        raise InputError(path, "cannot detect which /proc file this is (give --grammar NAME)")
    return g


def match_capture(path: str, grammar: Grammar, variants: dict | None = None, collect: bool = False) -> MatchOutcome:
    """Match one capture file against a grammar (streaming)."""

    def opener() -> Reader:
        return Reader(open_capture(path), path)

    return _match(opener, grammar, variants, collect)


def match_bytes(data: bytes, grammar: Grammar, variants: dict | None = None, collect: bool = False) -> MatchOutcome:
    """The same for bytes already in memory (tests, and the engine's own captures)."""
    import io

    return _match(lambda: Reader(io.BytesIO(data), "<bytes>"), grammar, variants, collect)


def _match(opener, grammar: Grammar, variants: dict | None, collect: bool, **kw) -> MatchOutcome | None:
    reader = opener()
    try:
        out = Matcher(grammar, reader, variants, collect, **kw).run()
    finally:
        reader.f.close()
    if kw or out is None or out.cost < 2 or not out.alternatives:
        return out
    return _majority(opener, grammar, variants, collect, out)


def _majority(opener, grammar: Grammar, variants: dict | None, collect: bool, out: MatchOutcome) -> MatchOutcome:
    """The first record decides a capture's layout (its column counts, its kernel-version
    variants). When that record is the odd one, every later record is reported instead of it. So
    a capture that diverges in several places gets a second try with each alternative layout on
    the lines up to its third divergence; the one with the fewest divergences there, if better,
    is tried on the whole capture and kept if it reports fewer divergences in all."""
    import io

    lines = sorted(d.line for d in out.divergences)
    upto = lines[min(len(lines), PREFIX_DIVERGENCES) - 1] if lines else 0
    prefix = _prefix(opener, upto)
    if prefix is None:
        return out
    base = Matcher(grammar, Reader(io.BytesIO(prefix), "<prefix>"), variants, False).run()
    best, best_count = None, base.cost
    for params, forced in out.alternatives[:MAX_ALTERNATIVES]:
        if best_count == 0:
            break
        trial = Matcher(grammar, Reader(io.BytesIO(prefix), "<prefix>"), {**(variants or {}), **forced},
                        False, params=params, max_divs=best_count - 1).run()
        if trial is not None and trial.cost < best_count:
            best, best_count = (params, forced), trial.cost
    if best is None:
        return out
    params, forced = best
    full = _match(opener, grammar, {**(variants or {}), **forced}, collect, params=params,
                  max_divs=out.cost - 1)
    if full is None:
        return out
    if full.divergences and min(d.line for d in full.divergences) <= lines[0]:
        # said only when the lines that settled the first try are still reported
        full.notes.append("the first lines disagree with the layout the rest of the capture shows; "
                          "they are reported against it")
    return full


def _prefix(opener, lines: int) -> bytes | None:
    """The first LINES lines of the capture (None when that is more than MAX_PREFIX bytes)."""
    reader = opener()
    try:
        pos = 0
        for _ in range(lines):
            reader.ensure(pos, 1)
            if reader.eof and pos >= reader.end:
                break
            text, nl = reader.line_at(pos)
            pos += len(text) + (1 if nl else 0)
            if pos > MAX_PREFIX:
                return None
            reader.keep = 0
        reader.ensure(0, pos)
        return reader.buf[:pos] if reader.base == 0 else None
    finally:
        reader.f.close()


def outcome_result(subject: str, out: MatchOutcome) -> Result:
    verdict = "divergent" if out.divergences else "equivalent"
    notes = list(out.notes)
    if out.truncated:
        notes.append(f"{out.truncated} more divergences not shown")
    chosen = describe_variants(out.grammar, out.variants)
    if chosen:
        notes.append("layout: " + "; ".join(chosen))
    return Result(subject=subject, verdict=verdict, method="tested", cases=out.lines,
                  divergences=list(out.divergences), notes=notes,
                  extra={"grammar": out.grammar.name})


def describe_variants(g: Grammar, variants: dict) -> list[str]:
    out = []
    for v in g.variants:
        cands = variants.get(v.uid)
        if cands and len(cands) == 1 and v.labels[cands[0]] not in ("", "present"):
            out.append(f"{v.name} = {v.labels[cands[0]]}")
    return out


def with_keys(result: Result, g: Grammar, inventory) -> Result:
    """Add what the keys say: a key every kernel matching the capture prints, missing, is a
    divergence; a key no known kernel prints is a note."""
    divs, notes = check_keys(g, inventory)
    result.notes.extend(notes)
    if divs:
        result.divergences = sorted(result.divergences + divs, key=lambda d: d.line)
        result.verdict = "divergent"
    return result


def check_bytes(data: bytes, grammar: str | Grammar, subject: str = "<bytes>") -> Result:
    g = load_grammar(grammar) if isinstance(grammar, str) else grammar
    result = outcome_result(subject, match_bytes(data, g))
    if g.keys:
        head = data[:INVENTORY_BYTES]
        complete = len(head) == len(data)
        result = with_keys(result, g, take_inventory(head[: head.rfind(b"\n") + 1] if not complete else head,
                                                     g, complete))
    return result


def check_captures(paths: list[str], options: Options) -> Report:
    """`fmtcheck check CAPTURE... [--grammar NAME]`: one result per capture."""
    report = Report(command="check")
    for path in paths:
        g = grammar_for(path, options.grammar)
        result = outcome_result(path, match_capture(path, g))
        if g.keys:
            result = with_keys(result, g, inventory_of(path, g))
        report.results.append(result)
    return report
