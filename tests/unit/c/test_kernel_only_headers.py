"""With `--tree`, headers are read as the kernel compiles them, with __KERNEL__ defined (issue 15):
a uapi header defines for user space, under `#ifndef __KERNEL__`, its own MAJOR, MINOR and MKDEV;
read as a second definition, it made the kernel's (include/linux/kdev_t.h) a conflict, dropped,
and every `MAJOR(dev)` of /proc/consoles or /proc/PID/maps an uninterpreted call keyed by the
value of `dev`: a new input for every value the search gave `dev`. Headers and C here are
written for these tests in the kernel's style."""

from __future__ import annotations

from fmtcheck import verify_sources
from fmtcheck.c.cfront import header_macros
from fmtcheck.c.headers import kernel_text
from fmtcheck.common.options import Options

KERNEL_HEADER = """#ifndef _LINUX_DEVNUM_H
#define _LINUX_DEVNUM_H
#include <uapi/linux/devnum.h>
#define DEVBITS 20
#define DEVMASK ((1U << DEVBITS) - 1)
#define DEV_MAJOR(dev) ((unsigned int) ((dev) >> DEVBITS))
#define DEV_MINOR(dev) ((unsigned int) ((dev) & DEVMASK))
#endif
"""

UAPI_HEADER = """#ifndef _UAPI_LINUX_DEVNUM_H
#define _UAPI_LINUX_DEVNUM_H
#ifndef __KERNEL__
/* what user space calls these */
#define DEV_MAJOR(dev) ((dev) >> 8)
#define DEV_MINOR(dev) ((dev) & 0xff)
#endif /* __KERNEL__ */
#ifdef __KERNEL__
#define DEV_SPAN(x) ((x) << 1)
#else
#define DEV_SPAN(x) ((x) << 2)
#endif
#endif
"""

ROW = """#include <linux/devnum.h>

static int dev_show(struct seq_file *m, void *v)
{
	unsigned int dev = dev_of(v);

	seq_printf(m, "%u:%u %u\\n", DEV_MAJOR(dev), DEV_MINOR(dev), DEV_SPAN(dev));
	return 0;
}
"""


def tree(tmp_path) -> str:
    (tmp_path / "include/linux").mkdir(parents=True)
    (tmp_path / "include/uapi/linux").mkdir(parents=True)
    (tmp_path / "include/linux/devnum.h").write_text(KERNEL_HEADER)
    (tmp_path / "include/uapi/linux/devnum.h").write_text(UAPI_HEADER)
    return str(tmp_path)


def judge(old: str, new: str, root: str):
    return verify_sources(old, new, Options(tree=root, max_examples=20),
                          old_label="drivers/devnum.c", new_label="drivers/devnum.c").results[0]


def test_the_kernels_definition_is_taken_not_user_spaces(tmp_path):
    taken = header_macros(ROW.encode(), "drivers/devnum.c", tree(tmp_path))
    assert {"DEV_MAJOR", "DEV_MINOR", "DEV_SPAN"} <= set(taken)
    assert b"DEVBITS" in b" ".join(taken["DEV_MAJOR"].body) and b"2" not in b" ".join(taken["DEV_SPAN"].body)


def test_a_row_over_the_kernels_macros_means_their_kernel_bodies(tmp_path):
    """Against the shifts the kernel compiles: equivalent; against user space's: divergent."""
    root = tree(tmp_path)
    kernel = ROW.replace("DEV_MAJOR(dev), DEV_MINOR(dev), DEV_SPAN(dev)",
                         "dev >> 20, dev & 0xfffff, dev << 1")
    result = judge(ROW, kernel, root)
    assert result.verdict == "equivalent", result.reason
    user = ROW.replace("DEV_MAJOR(dev), DEV_MINOR(dev), DEV_SPAN(dev)",
                       "dev >> 8, dev & 0xff, dev << 2")
    assert judge(ROW, user, root).verdict == "divergent"


def test_only_the_user_space_branches_are_blanked():
    text = b"\n".join([
        b"#ifndef __KERNEL__", b"#define U 1", b"#ifdef X", b"#define UX 1", b"#endif",
        b"#else", b"#define K 1", b"#endif /* __KERNEL__ */",
        b"#if !defined(__KERNEL__)", b"#define U2 1", b"#elif defined(CONFIG_Y)", b"#define Y 1", b"#endif",
        b"#ifdef __KERNEL__", b"#define K2 1", b"#else", b"#define U3 1", b"#endif",
        b"#ifndef __KERNEL_STRICT_NAMES", b"#define OTHER 1", b"#endif", b"#define LAST 1",
    ])
    kept = kernel_text(text)
    assert kept.count(b"\n") == text.count(b"\n")  # line numbers kept
    for name in (b"K", b"Y", b"K2", b"OTHER", b"LAST"):
        assert b"#define " + name + b" 1" in kept
    for name in (b"U", b"UX", b"U2", b"U3"):
        assert b"#define " + name + b" 1" not in kept
    assert kept.count(b"#if") == kept.count(b"#endif") == 4  # the conditionals stay balanced
