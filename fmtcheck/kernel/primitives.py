"""The names of the kernel's seq_file output primitives (fs/seq_file.c), the calls that print."""

from __future__ import annotations

PRIMITIVES = {
    "seq_printf", "seq_puts", "seq_putc", "seq_write", "seq_put_decimal_ull", "seq_put_decimal_ull_width",
    "seq_put_decimal_ll", "seq_put_hex_ll", "seq_setwidth", "seq_pad", "seq_escape", "seq_escape_mem",
    "seq_escape_str", "seq_path", "__seq_puts", "seq_vprintf",
}

