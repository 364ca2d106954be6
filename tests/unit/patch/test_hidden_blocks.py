"""Soundness of functions rebuilt from hunks: what the patch does not show may not hide a change."""

from __future__ import annotations

from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources
from fmtcheck.patch.plan import check_patches

# The kernel's style: the hunk starts inside an `if` whose condition git's context does not show.
PATCH = b"""\
diff --git a/net/demo/stats.c b/net/demo/stats.c
index 1111111..2222222 100644
--- a/net/demo/stats.c
+++ b/net/demo/stats.c
@@ -40,8 +40,8 @@ static int demo_pool_show(struct seq_file *m, void *p)
 		return 0;
 	}
 
-	seq_printf(m, "%u %lu %lu\\n",
-		pool->id, pool->packets, pool->queued);
+	seq_printf(m, "%u %lu 0\\n",
+		   pool->id, pool->packets);
 
 	return 0;
 }
"""


def test_a_return_in_a_block_opened_in_a_gap_does_not_make_a_change_invisible(tmp_path):
    patch = tmp_path / "demo.patch"
    patch.write_bytes(PATCH)
    report = check_patches([str(patch)], Options())
    assert [r.verdict for r in report.results] != ["equivalent"]
    assert report.verdict in ("divergent", "inconclusive")


def test_a_buffer_filled_by_different_calls_is_not_proven_equal():
    old = b"""static int show(struct seq_file *m, void *v)
{
	char *buf = kmalloc(PAGE_SIZE, GFP_KERNEL);

	format_stats(v, buf, PAGE_SIZE);
	seq_puts(m, buf);
	return 0;
}
"""
    new = old.replace(b"format_stats(v, buf, PAGE_SIZE);", b"format_other_stats(v, buf);")
    assert verify_sources(old, new, Options()).verdict != "equivalent"
    assert verify_sources(old, old, Options()).verdict == "equivalent"
