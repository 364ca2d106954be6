"""Values of common kernel constants (x86_64, 4 KiB pages), for names the input uses but does
not define. An upper-case name not listed here becomes one more input shared by both sides."""

from __future__ import annotations

_U64 = ("int", 64, False)
_S64 = ("int", 64, True)
_S32 = ("int", 32, True)
_U32 = ("int", 32, False)

INT_CONSTANTS: dict[str, tuple[int, tuple]] = {
    "PAGE_SHIFT": (12, _S32),
    "PAGE_SIZE": (4096, _U64),
    "PSS_SHIFT": (12, _S32),
    "HPAGE_PMD_NR": (512, _S32),
    "HPAGE_PMD_SHIFT": (21, _S32),
    "BITS_PER_LONG": (64, _S32),
    "SEQ_SKIP": (1, _S32),
    "TASK_COMM_LEN": (16, _S32),
    "IFNAMSIZ": (16, _S32),
    "NR_SOFTIRQS": (10, _S32),
    # enum lru_list (include/linux/mmzone.h), the same from 2.6.28 to 6.x
    "LRU_BASE": (0, _S32),
    "LRU_ACTIVE": (1, _S32),
    "LRU_FILE": (2, _S32),
    "LRU_INACTIVE_ANON": (0, _S32),
    "LRU_ACTIVE_ANON": (1, _S32),
    "LRU_INACTIVE_FILE": (2, _S32),
    "LRU_ACTIVE_FILE": (3, _S32),
    "LRU_UNEVICTABLE": (4, _S32),
    "NR_LRU_LISTS": (5, _S32),
    "VM_READ": (0x1, _U64),
    "VM_WRITE": (0x2, _U64),
    "VM_EXEC": (0x4, _U64),
    "VM_SHARED": (0x8, _U64),
    "VM_MAYSHARE": (0x80, _U64),
    "VM_LOCKED": (0x2000, _U64),
    "CHAR_BIT": (8, _S32),
    "INT_MAX": (2**31 - 1, _S32),
    "INT_MIN": (-(2**31), _S32),
    "UINT_MAX": (2**32 - 1, _U32),
    "LONG_MAX": (2**63 - 1, _S64),
    "LONG_MIN": (-(2**63), _S64),
    "ULONG_MAX": (2**64 - 1, _U64),
    "LLONG_MAX": (2**63 - 1, _S64),
    "LLONG_MIN": (-(2**63), _S64),
    "ULLONG_MAX": (2**64 - 1, _U64),
    "U8_MAX": (255, _S32),
    "U16_MAX": (65535, _S32),
    "U32_MAX": (2**32 - 1, _U32),
    "U64_MAX": (2**64 - 1, _U64),
    "S64_MAX": (2**63 - 1, _S64),
    "S64_MIN": (-(2**63), _S64),
    "ESCAPE_SPACE": (0x01, _S32),
    "ESCAPE_SPECIAL": (0x02, _S32),
    "ESCAPE_NULL": (0x04, _S32),
    "ESCAPE_OCTAL": (0x08, _S32),
    "ESCAPE_ANY": (0x0F, _S32),
    "ESCAPE_NP": (0x10, _S32),
    "ESCAPE_ANY_NP": (0x1F, _S32),
    "ESCAPE_HEX": (0x20, _S32),
    "ESCAPE_NA": (0x40, _S32),
    "ESCAPE_NAP": (0x80, _S32),
    "ESCAPE_APPEND": (0x100, _S32),
}

# String macros the kernel defines and that output code splices into formats.
STRING_MACROS: dict[str, bytes] = {}
# strings the build defines, one value for the whole object file, so the same on both sides of a
# change, but not in the source: the module's name (kbuild's -DKBUILD_MODNAME, which a composite
# module shares among its files), the object's base name, and the path the compiler was given
BUILD_STRING_MACROS = frozenset({"KBUILD_MODNAME", "KBUILD_BASENAME", "__FILE__", "__BASE_FILE__"})
