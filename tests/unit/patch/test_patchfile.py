"""Reading patches: format-patch, plain diffs, mbox series, thread text, stdin, and bad input."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.common.errors import InputError
from fmtcheck.patch.patchfile import (
    STDIN_NAME,
    as_bytes,
    as_text,
    parse_patch_bytes,
    read_patches,
    subject_tags,
)
from _paths import FIXTURES, SHARED

SEEDS = SHARED / "seeds"
PATCHES = FIXTURES / "patches"
SEED_000 = str(SEEDS / "000_e93a77558fb991ae.txt")
SEED_002 = str(SEEDS / "002_d3455c854cef1a8c.txt")
SEED_003 = str(SEEDS / "003_9f0d7d148854009b.txt")

SMALL_DIFF = b"""diff --git a/fs/x.c b/fs/x.c
--- a/fs/x.c
+++ b/fs/x.c
@@ -1,3 +1,3 @@ static int x_show(struct seq_file *m, void *v)
 {
-\tseq_puts(m, "a\\n");
+\tseq_puts(m, "b\\n");
 }
"""


def only_patch(data: bytes, source: str = "t.patch"):
    patches = parse_patch_bytes(data, source)
    assert len(patches) == 1
    return patches[0]


# --- the seeds ---------------------------------------------------------------------------------


def test_seed_000_thread_gives_the_one_patch_with_its_function_context():
    (patch,) = read_patches(SEED_000)
    assert patch.label == ""
    (diff,) = patch.files
    assert diff.path == "net/core/net-procfs.c"
    (hunk,) = diff.hunks
    assert (hunk.old_start, hunk.old_len, hunk.new_start, hunk.new_len) == (46, 23, 46, 26)
    assert hunk.section.startswith(b"static void dev_seq_printf_stats(struct seq_file *seq")
    assert hunk.where == 46  # the @@ line in the seed file
    assert hunk.lines[0].text == b"\tstruct rtnl_link_stats64 temp;"
    assert hunk.lines[-1].text == b"/*"


def test_seed_000_quoted_replies_are_not_patches():
    # Paolo's reply quotes the commit message; David's quotes both: neither holds a diff
    assert len(read_patches(SEED_000)) == 1


def test_seed_003_patch_after_dashes_in_a_reply_stops_before_the_signature():
    (patch,) = read_patches(SEED_003)
    (diff,) = patch.files
    assert diff.path == "fs/proc/task_mmu.c"
    first, second = diff.hunks
    assert first.section.startswith(b"void __weak arch_show_smap(")
    assert len(second.side("old")) == 45 and len(second.side("new")) == 25
    # the signature "-- " after the last hunk is not read as a removed line
    assert all(line.text not in (b"- ", b"-") for line in second.lines)
    assert second.lines[-1].text == b"\tm_cache_vma(m, vma);"


def test_seed_003_blank_context_lines_stripped_by_mail_count_as_context():
    (patch,) = read_patches(SEED_003)
    lines = {line.where: line for line in patch.files[0].hunks[1].lines}
    assert lines[111].tag == " " and lines[111].text == b""  # an empty line in the mail
    assert lines[152].tag == "-" and lines[152].text == b""  # "-" alone: a removed blank line


def test_seed_002_thread_with_v1_and_v2_labels_each_version():
    patches = read_patches(SEED_002)
    assert [p.label for p in patches] == ["v1", "v2"]
    assert [p.version for p in patches] == [1, 2]
    assert all(p.files[0].path == "fs/seq_file.c" for p in patches)


# --- fixture formats ---------------------------------------------------------------------------


def test_format_patch_subject_and_paths():
    (patch,) = read_patches(str(PATCHES / "01-irq-put-decimal.patch"))
    assert patch.subject == "[PATCH] fakestat: avoid seq_printf() in fakestat_irq_show()"
    assert patch.version == 1 and patch.number is None and patch.label == ""
    assert patch.files[0].old_path == patch.files[0].new_path == "drivers/fake/fakestat.c"


def test_plain_git_diff_without_mail_headers():
    (patch,) = read_patches(str(PATCHES / "02-queue-width.diff"))
    assert patch.subject == ""
    assert patch.files[0].hunks[0].where == 5


def test_mbox_series_skips_the_cover_letter_and_decodes_base64_and_quoted_printable():
    patches = read_patches(str(PATCHES / "07-series.mbx"))
    assert [p.label for p in patches] == ["[1/3]", "[2/3]", "[3/3]"]
    assert [(p.number, p.total) for p in patches] == [(1, 3), (2, 3), (3, 3)]
    added_1 = [l.text for l in patches[0].files[0].hunks[0].lines if l.tag == "+"]  # base64 body
    assert b"\tseq_put_decimal_ull(m, \" \", a);" in added_1
    added_2 = [l.text for l in patches[1].files[0].hunks[0].lines if l.tag == "+"]  # quoted-printable
    assert b'\tfakestat_show_pair(m, "ring:", fd->ring_head, fd->ring_tail);' in added_2
    assert patches[0].files[0].hunks[0].section.endswith(b"const char *name,")  # git cut it there


def test_mbox_split_tolerates_a_missing_blank_line_before_git_from_line():
    one = (PATCHES / "01-irq-put-decimal.patch").read_bytes()
    three = (PATCHES / "03-port-separator.patch").read_bytes()
    patches = parse_patch_bytes(one.rstrip(b"\n") + b"\n" + three, "two.mbox")
    assert len(patches) == 2


def test_thread_text_with_quoted_review_and_v2():
    patches = read_patches(str(PATCHES / "08-link-thread-v1-v2.txt"))
    assert [p.label for p in patches] == ["v1", "v2"]
    assert [p.author for p in patches] == ["Ann Example", "Ann Example"]
    widths = [
        [l.text for l in p.files[0].hunks[0].lines if b"ull_width" in l.text][0] for p in patches
    ]
    assert widths[0].endswith(b"5);") and widths[1].endswith(b"6);")


def test_crlf_line_ends_and_latin1_bytes_survive():
    (patch,) = read_patches(str(PATCHES / "12-err-crlf-latin1.diff"))
    lines = patch.files[0].hunks[0].lines
    assert all(not line.text.endswith(b"\r") for line in lines)
    assert any(b'"d\xe9faut"' in line.text for line in lines)


def test_single_email_without_mbox_from_line():
    mail = b"From: Ann <ann@example.org>\nSubject: [PATCH net-next v3 2/5] x: y\nDate: today\n\nBody.\n---\n" + SMALL_DIFF
    patch = only_patch(mail)
    assert (patch.version, patch.number, patch.total) == (3, 2, 5)


def test_standard_input(monkeypatch):
    data = (PATCHES / "01-irq-put-decimal.patch").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    (patch,) = read_patches("-")
    assert patch.source == STDIN_NAME
    assert patch.files[0].path == "drivers/fake/fakestat.c"


def test_unified_diff_without_git_prefixes():
    data = b"--- fs/x.c.orig\n+++ fs/x.c\n@@ -1,2 +1,2 @@\n {\n-\tseq_puts(m, \"a\");\n+\tseq_puts(m, \"b\");\n"
    patch = only_patch(data)
    diff = patch.files[0]
    assert (diff.old_path, diff.new_path, diff.git_style) == ("fs/x.c.orig", "fs/x.c", False)


def test_no_newline_marker_is_not_a_line():
    data = SMALL_DIFF.rstrip(b"\n") + b"\n\\ No newline at end of file\n"
    patch = only_patch(data)
    assert [l.tag for l in patch.files[0].hunks[0].lines] == [" ", "-", "+", " "]


def test_new_and_deleted_files():
    data = (
        b"diff --git a/fs/new.c b/fs/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/fs/new.c\n"
        b"@@ -0,0 +1,1 @@\n+int x;\n"
        b"diff --git a/fs/old.c b/fs/old.c\ndeleted file mode 100644\n--- a/fs/old.c\n+++ /dev/null\n"
        b"@@ -1,1 +0,0 @@\n-int y;\n"
    )
    new, old = only_patch(data).files
    assert (new.old_path, new.new_path) == (None, "fs/new.c")
    assert (old.old_path, old.new_path) == ("fs/old.c", None)


@pytest.mark.parametrize(
    "subject, tags",
    [
        ("[PATCH] a", (1, None, None)),
        ("[PATCH v2] a", (2, None, None)),
        ("Re: [PATCH v4 3/7] a", (4, 3, 7)),
        ("[RFC PATCH net-next 1/2] a", (1, 1, 2)),
        ("[PATCH 0/3] cover", (1, 0, 3)),
    ],
)
def test_subject_tags(subject, tags):
    assert subject_tags(subject) == tags


def test_same_label_twice_gets_a_counter():
    data = b"[PATCH] a\n\n[A]\n\n" + SMALL_DIFF + b"\nRe: [PATCH] a\n\n[B]\n\nHow about:\n\n" + SMALL_DIFF
    assert [p.label for p in parse_patch_bytes(data, "t")] == ["", "#2"]


# --- bytes -------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(st.lists(st.binary(min_size=0, max_size=40).filter(lambda b: b"\n" not in b and b"\r" not in b), min_size=1, max_size=6))
def test_any_bytes_in_added_lines_come_back_exactly(lines):
    body = b"".join(b"+" + line + b"\n" for line in lines)
    data = b"--- a/x.c\n+++ b/x.c\n@@ -0,0 +1," + str(len(lines)).encode() + b" @@\n" + body
    patch = only_patch(data)
    assert [l.text for l in patch.files[0].hunks[0].lines] == lines


@given(st.binary(max_size=64))
def test_text_round_trip(data):
    assert as_bytes(as_text(data)) == data


# --- errors ------------------------------------------------------------------------------------


def error_of(path: str) -> InputError:
    with pytest.raises(InputError) as info:
        read_patches(path)
    return info.value


def test_missing_file():
    assert error_of("/nonexistent/x.patch").what == "no such file"


def test_directory(tmp_path):
    assert "directory" in error_of(str(tmp_path)).what


def test_empty_file(tmp_path):
    path = tmp_path / "e.patch"
    path.write_bytes(b"\n\n")
    err = error_of(str(path))
    assert err.where == str(path) and "empty" in err.what


def test_not_a_patch():
    err = error_of(str(PATCHES / "bad" / "not-a-patch.txt"))
    assert err.what.startswith("not a patch")


def test_only_a_quoted_diff_is_not_a_patch():
    data = b"On Mon, A wrote:\n" + b"".join(b"> " + l + b"\n" for l in SMALL_DIFF.split(b"\n"))
    with pytest.raises(InputError, match="quoted"):
        parse_patch_bytes(data, "q.txt")


def test_truncated_patch_names_the_hunk_line():
    path = str(PATCHES / "bad" / "truncated.patch")
    err = error_of(path)
    assert err.where == f"{path}:18" and "truncated" in err.what


def test_mangled_hunk_names_the_bad_line():
    path = str(PATCHES / "bad" / "mangled.patch")
    err = error_of(path)
    assert err.where == f"{path}:25" and "mangled" in err.what


def test_malformed_hunk_header():
    path = str(PATCHES / "bad" / "bad-hunk-header.patch")
    err = error_of(path)
    assert err.where == f"{path}:18" and "malformed hunk header" in err.what


def test_file_header_without_hunks_is_truncated():
    with pytest.raises(InputError, match="no hunk"):
        parse_patch_bytes(b"diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n+++ b/x.c\n", "t")


def test_hunk_longer_than_its_header():
    data = b"--- a/x.c\n+++ b/x.c\n@@ -1,1 +1,1 @@\n-a\n-b\n+c\n"
    with pytest.raises(InputError, match="more lines than its header"):
        parse_patch_bytes(data, "t")


def test_mode_only_and_binary_sections_are_not_truncated():
    data = (
        b"diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n"
        b"diff --git a/y.bin b/y.bin\nindex 1..2 100644\nBinary files a/y.bin and b/y.bin differ\n"
        + SMALL_DIFF
    )
    paths = [d.path for d in only_patch(data).files]
    assert paths[-1] == "fs/x.c" and "x.sh" in paths
