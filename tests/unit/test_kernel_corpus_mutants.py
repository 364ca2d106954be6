"""Mutants of the kernel corpus benchmark: made wherever they apply, excluded only for a reason
the script shows itself from the code (never from fmtcheck's verdict).

Why: a kill rate is only honest if a mutant that survives is listed as a survivor unless it cannot
change bytes, and "cannot" must come from the code (types, vsprintf rules), not from a list of
known survivors. The C below is written for these tests in the kernel's style.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.kernel_corpus import _parser, find_printers
from benchmarks.kernel_mutants import make_mutants
from benchmarks.kernel_rewrite import function_node

SHOW = """
typedef unsigned long long u64;
typedef u64 sector_t;
typedef long long loff_t;
struct part;

static inline sector_t part_sectors(struct part *p)
{
	return p->nr;
}

static inline loff_t part_offset(struct part *p)
{
	return p->off;
}

static int show(struct seq_file *m, void *v)
{
	struct part *p = v;
	unsigned short small = p->s;

	seq_printf(m, "%10llu %10llu %u %hu %u\\n", part_sectors(p) >> 1, part_offset(p) >> 1,
		   small, p->h, p->flags & 0xff);
	seq_printf(m, "%-5d %08.3d %*d\\n", p->a, p->b, 4, p->c);
	return 0;
}
"""


def _mutants(tmp_path: Path, source: str):
    (tmp_path / "show.c").write_text(source)
    printer = next(p for p in find_printers(tmp_path, ["show.c"]) if p.name == "show")
    src = source.encode()
    return make_mutants(src, printer, function_node(_parser().parse(src).root_node, printer), str(tmp_path))


def _by(mutants, op: str, conversion: str) -> list:
    return [m for m in mutants if m.operator == op and f": {conversion} (" in m.site]


def test_d_for_u_of_an_unsigned_call_shifted_right_cannot_change_bytes(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    shifted = [m for m in mutants if m.operator == "d-for-u" and "(conversion 1)" in m.site]
    assert shifted and "part_sectors returns sector_t = u64" in shifted[0].cannot_change
    assert shifted[0].text is not None  # still made and judged


def test_d_for_u_of_a_signed_call_shifted_right_is_a_real_mutant(tmp_path: Path) -> None:
    signed = [m for m in _mutants(tmp_path, SHOW) if m.operator == "d-for-u" and "(conversion 3)" in m.site]
    assert signed and signed[0].cannot_change is None


def test_narrow_unsigned_locals_and_masks_cannot_change_but_a_short_conversion_can(tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    reasons = {m.site.split(": ", 1)[1]: m.cannot_change for m in mutants if m.operator == "d-for-u"}
    assert "unsigned 16-bit" in reasons["%u (conversion 5)"]  # `unsigned short small`
    assert reasons["%hu (conversion 7)"] is None  # %hd of 40000 is -25536
    assert "masked by 0xff" in reasons["%u (conversion 9)"]


def test_a_signed_typedef_declared_twice_differently_is_not_trusted(tmp_path: Path) -> None:
    source = SHOW.replace("typedef u64 sector_t;", "typedef u64 sector_t;\ntypedef long sector_t;")
    shifted = [m for m in _mutants(tmp_path, source) if m.operator == "d-for-u" and "(conversion 1)" in m.site]
    assert shifted[0].cannot_change is None


def test_zero_padding_is_made_with_a_precision_and_a_star_width_and_excluded_when_left_justified(
        tmp_path: Path) -> None:
    mutants = _mutants(tmp_path, SHOW)
    assert [m.cannot_change for m in _by(mutants, "zero-padding", "%-5d")] == [
        "left-justified: '-' cancels '0' (lib/vsprintf.c number())"]
    assert _by(mutants, "zero-padding", "%08.3d") == []  # already zero-padded: no mutant
    star = _by(mutants, "zero-padding", "%*d")
    assert star and star[0].cannot_change is None and b'"%-5d %08.3d %0*d\\n"' in star[0].text
