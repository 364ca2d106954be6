"""`fmtcheck diff`: layout differences only (fmtcheck.layout.diff)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fmtcheck.cli import main
from fmtcheck.layout.diff import diff_captures
from fmtcheck.common.options import Options
from _paths import ROOT

CAPTURES = ROOT / "fixtures" / "captures"


def _diff(old, new, **kw):
    return diff_captures(str(old), str(new), Options(**kw))


def test_net_dev_seconds_apart_is_the_same_layout(tmp_path):
    if not os.path.exists("/proc/net/dev"):
        pytest.skip("no /proc/net/dev")
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(Path("/proc/net/dev").read_bytes())
    time.sleep(0.5)
    b.write_bytes(Path("/proc/net/dev").read_bytes())
    assert main(["diff", str(a), str(b)]) == 0


def test_old_net_dev_layout_diverges_where_the_name_is_glued():
    report = _diff(CAPTURES / "net_dev_current", CAPTURES / "net_dev_old_layout")
    assert report.exit_code() == 1
    spots = [(d.line, d.column) for d in report.results[0].divergences]
    assert spots == [(4, 8), (5, 8)]  # eth0:145561510 and wlan0:1234567890, right after ':'
    assert main(["diff", str(CAPTURES / "net_dev_current"), str(CAPTURES / "net_dev_old_layout")]) == 1


def test_added_interface_is_a_note_only():
    report = _diff(CAPTURES / "net_dev_current", CAPTURES / "net_dev_added_iface")
    assert report.exit_code() == 0
    assert any("only in NEW" in n and "docker0" in n for n in report.results[0].notes)


def test_smaps_of_two_processes_is_the_same_layout(tmp_path):
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("no smaps")
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(Path("/proc/self/smaps").read_bytes())
    out = subprocess.run([sys.executable, "-c", "import sys; sys.stdout.buffer.write(open('/proc/self/smaps','rb').read())"],
                         capture_output=True, check=True).stdout
    b.write_bytes(out)
    report = _diff(a, b)
    assert report.exit_code() == 0, report.results[0].divergences[:3]


def test_a_missing_variant_line_is_a_difference(tmp_path):
    data = (CAPTURES / "smaps_small").read_bytes()
    import re

    b = tmp_path / "b"
    b.write_bytes(re.sub(rb"Pss_Dirty: +[0-9]+ kB\n", b"", data))
    report = _diff(CAPTURES / "smaps_small", b)
    [d] = report.results[0].divergences
    assert report.exit_code() == 1 and (d.kind, d.field) == ("key-removed", "Pss_Dirty")
    assert "Pss_Dirty (6.0+)" in d.note  # the config option its line is in
    [back] = _diff(b, CAPTURES / "smaps_small").results[0].divergences
    assert (back.kind, back.severity) == ("key-added", "cosmetic")


def test_a_key_missing_from_a_one_vma_capture_is_named(tmp_path):
    """With one VMA the `order` variant's other option (KernelPageSize after Swap, 3.x) also reads
    the record, with divergences, and is dropped; the names of the lines it read must go with it,
    or the inventory keys the record's lines by that option's order and names the wrong key
    ("Anonymous" for a dropped Pss_Dirty)."""
    import re

    data = (CAPTURES / "smaps_small").read_bytes()
    second = re.compile(rb"^[0-9a-f]+-[0-9a-f]+ ", re.M).search(data, data.index(b"\n"))
    one = tmp_path / "one"
    one.write_bytes(data[: second.start()])
    assert b"Pss_Dirty:" in one.read_bytes()
    lost = tmp_path / "lost"
    lost.write_bytes(re.sub(rb"Pss_Dirty: +[0-9]+ kB\n", b"", one.read_bytes()))
    for old, new, kind in ((one, lost, "key-removed"), (lost, one, "key-added")):
        [d] = _diff(old, new).results[0].divergences
        assert (d.kind, d.field) == (kind, "Pss_Dirty"), d.note


def test_a_capture_detection_misses_is_diffed_by_the_other_sides_grammar(tmp_path):
    """An smaps capture without its first record's `Size:` line is not detected as smaps; as OLD
    it was diffed token by token and the removed key was only a note (exit 0), while the same
    pair the other way round was divergent. Either side's grammar now serves both directions."""
    import re

    data = (CAPTURES / "smaps_small").read_bytes()
    sizeless = tmp_path / "sizeless"
    sizeless.write_bytes(re.sub(rb"^Size: +[0-9]+ kB\n", b"", data, count=1, flags=re.M))
    assert sizeless.read_bytes() != data
    for old, new in ((CAPTURES / "smaps_small", sizeless), (sizeless, CAPTURES / "smaps_small")):
        result = _diff(old, new).results[0]
        assert result.verdict == "divergent", (old.name, result.notes)
        assert not any("token by token" in n for n in result.notes)


def test_token_diff_without_grammar(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    a.write_bytes(b"alpha:    7 kB\nbeta:\t3\n")
    b.write_bytes(b"alpha:   17 kB\nbeta:\t12345\n")  # values changed, right-aligned column kept
    c.write_bytes(b"alpha:  17 kB\nbeta: 3\n")  # padding off by one, tab became a space
    assert _diff(a, b).exit_code() == 0
    report = _diff(a, c)
    assert report.exit_code() == 1
    assert [d.line for d in report.results[0].divergences] == [1, 2]


def test_diff_bad_input(tmp_path, capsys):
    assert main(["diff", str(tmp_path / "nope"), str(tmp_path / "nope2")]) == 2
    assert capsys.readouterr().err.startswith("fmtcheck: error: ")


def _notes_one_by_one(old, new):
    """record_notes as specified: (block, key) of each record, in the order first seen."""
    import itertools

    from fmtcheck.layout.diff import MAX_KEYS_SHOWN, _show_key

    a, b = dict.fromkeys(old), dict.fromkeys(new)
    notes = []
    for label, x, y in (("only in OLD", a, b), ("only in NEW", b, a)):
        only = list(itertools.filterfalse(y.__contains__, x))
        if only:
            more = f" and {len(only) - MAX_KEYS_SHOWN} more" if len(only) > MAX_KEYS_SHOWN else ""
            shown = ", ".join(f"{blk} {_show_key(key)}" for blk, key in only[:MAX_KEYS_SHOWN])
            notes.append(f"{len(only)} record(s) {label}: {shown}{more}")
    return notes


@pytest.mark.parametrize("old, new", [
    ([("dev", (b"lo",)), ("dev", (b"eth0",))], [("dev", (b"lo",)), ("dev", (b"eth0",))]),
    ([("dev", (b"lo",)), ("dev", (b"eth0",)), ("dev", (b"lo",)), ("dev", (b"eth0",))],
     [("dev", (b"eth1",)), ("dev", (b"lo",))]),
    ([("dev", (b"v%d" % i,)) for i in range(9)], [("dev", (b"v%d" % i,)) for i in range(3, 20)]),
    ([("dev", (b"a",)), ("dev", (b"b", b"1"))], [("dev", (b"b", b"1"))]),  # a key of two fields
    ([("dev", (b"a",)), ("vma", (b"a",))], [("vma", (b"a",))]),  # two blocks, one key text
    ([], [("dev", (b"a",))]),
    ([("dev", (b"a\nb",)), ("dev", (b"a",))], [("dev", (b"a",)), ("dev", (b"b",))]),  # a key holding a newline
])
def test_record_notes_of_keys_read_in_bulk_are_those_of_the_records_one_by_one(old, new):
    """Keys collected in bulk (KeyRun: one list per window) give the notes the records one by one
    give, whether compared as keys (one block, one-field keys) or as (block, key) records."""
    from fmtcheck.layout.diff import record_notes
    from fmtcheck.layout.matchstate import KeyRun

    def in_bulk(records):  # the same records, the one-field keys of a block as runs of two
        out = []
        for i, (blk, key) in enumerate(records):
            if len(key) == 1 and i % 3:
                if out and isinstance(out[-1], KeyRun) and out[-1].block == blk and len(out[-1].key_list()) < 2:
                    out[-1].keys += key[0] + b"\n"
                else:
                    out.append(KeyRun(blk, key[0] + b"\n"))
            else:
                out.append((blk, key))
        return out

    expected = _notes_one_by_one(old, new)
    assert record_notes(old, new) == expected
    assert record_notes(in_bulk(old), in_bulk(new)) == expected
