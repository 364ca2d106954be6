"""Constants the kernel's configuration decides (an enumerator after an `#ifdef` block of its
enum) are judged once per value a build gives them (`fmtcheck.patch.buildvalues`)."""

from __future__ import annotations

from fmtcheck.c.headers import config_enumerators
from fmtcheck.common.options import Options
from fmtcheck.patch.plan import check_patches

ENUM = (b"enum demo_res_type {\n#ifdef CONFIG_DEMO_SEV\n\tDEMO_RES_SEV,\n\tDEMO_RES_SEV_ES,\n#endif\n"
        b"#ifdef CONFIG_DEMO_X\n\tDEMO_RES_X,\n#else\n\tDEMO_RES_Y,\n#endif\n\tDEMO_RES_TYPES\n};\n")


def test_an_enumerator_after_config_blocks_takes_every_value_a_build_gives():
    assert config_enumerators(ENUM) == {"DEMO_RES_TYPES": (1, 3)}
    assert config_enumerators(b"enum e {\n#if A\n\tX = 4,\n#endif\n\tY\n};\n") == {}  # a value: not read
    assert config_enumerators(b"enum e {\n\tA,\n\tB\n};\n") == {}  # certain: the headers' own constants


SOURCE = b"""#include <linux/demo_res.h>

static const unsigned long demo_capacity[DEMO_RES_TYPES] = { 7 };

static int demo_max_show(struct seq_file *sf, void *v)
{
\tint i;
\tunsigned long max;

\tfor (i = 0; i < DEMO_RES_TYPES; i++) {
\t\tmax = READ_ONCE(demo_capacity[i]);
\t\tseq_printf(sf, "%d %lu\\n", i, max);
\t}
\treturn 0;
}
"""


def _judged(tmp_path, old: bytes, new: bytes):
    (tmp_path / "include" / "linux").mkdir(parents=True, exist_ok=True)
    (tmp_path / "include" / "linux" / "demo_res.h").write_bytes(ENUM)
    (tmp_path / "kernel").mkdir(exist_ok=True)
    (tmp_path / "kernel" / "demo.c").write_bytes(SOURCE)
    patch = tmp_path / "p.patch"
    patch.write_bytes(b"diff --git a/kernel/demo.c b/kernel/demo.c\n--- a/kernel/demo.c\n+++ b/kernel/demo.c\n"
                      b"@@ -11,1 +11,1 @@ static int demo_max_show(struct seq_file *sf, void *v)\n-" + old + b"\n+" + new + b"\n")
    [result] = check_patches([str(patch)], Options(tree=str(tmp_path), max_examples=5)).results
    return result


def test_a_loop_to_a_config_dependent_bound_is_judged_for_each_build(tmp_path):
    line = b"\t\tmax = READ_ONCE(demo_capacity[i]);"
    result = _judged(tmp_path, line, line.replace(b"]);", b"]) | 0;"))
    assert result.verdict == "equivalent", result.reason
    assert any("DEMO_RES_TYPES in 1, 3" in note for note in result.notes)
    result = _judged(tmp_path, line, line.replace(b"]);", b"]) + 1;"))
    assert result.verdict == "divergent" and any("counterexample is for DEMO_RES_TYPES = 1" in n for n in result.notes)
