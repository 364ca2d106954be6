"""A divergent result names the build options its first differing output is printed under
(`fmtcheck.patch.configs`): a line only one side prints under `#ifdef CONFIG_X` is a change for
kernels built with CONFIG_X, and the reviewer is told so."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.patch.configs import conditions_at
from fmtcheck.patch.ctext import Definition
from fmtcheck.patch.plan import check_patches

TEXT = b"""int show(struct seq_file *p)
{
#ifdef CONFIG_A
\tseq_puts(p, "a\\n");
#ifndef CONFIG_B
\tseq_puts(p, "not b\\n");
#endif
#else
\tseq_puts(p, "no a\\n");
#endif
#if defined(CONFIG_C) /* c */
\tseq_puts(p, "c\\n");
#endif
\treturn 0;
}
"""


def test_conditions_are_the_first_branches_around_a_line():
    definition = Definition("show", "function", TEXT, "x.c", line=10)
    assert conditions_at(definition, 13) == ["CONFIG_A"]
    assert conditions_at(definition, 15) == ["CONFIG_A", "!CONFIG_B"]
    assert conditions_at(definition, 18) == []  # an #else branch: not the configuration fmtcheck takes
    assert conditions_at(definition, 21) == ["defined(CONFIG_C)"]
    assert conditions_at(definition, 23) == []


def test_a_line_added_under_an_option_is_divergent_and_the_report_names_the_option(tmp_path):
    patch = tmp_path / "p.patch"
    patch.write_bytes(
        b"diff --git a/arch/x86/kernel/irq.c b/arch/x86/kernel/irq.c\n--- a/arch/x86/kernel/irq.c\n"
        b"+++ b/arch/x86/kernel/irq.c\n@@ -20,5 +20,8 @@ int arch_show_interrupts(struct seq_file *p, int prec)\n"
        b" \tseq_puts(p, \"ERR\\n\");\n"
        b"+#ifdef CONFIG_X86_POSTED_MSI\n+\tseq_puts(p, \"PMN\\n\");\n+#endif\n"
        b" \treturn 0;\n }\n \n"
    )
    [result] = check_patches([str(patch)], Options(max_examples=20)).results
    assert result.verdict == "divergent"
    assert any("on the new side under `CONFIG_X86_POSTED_MSI`" in note for note in result.notes), result.notes
