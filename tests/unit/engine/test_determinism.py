"""Same seed, same bytes: no report depends on hash seeds, scheduling or the machine's load (#12)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.branchy import branchy_pair
from fmtcheck.common.options import Options
from fmtcheck.engine.verdict import verify_sources

ROOT = Path(__file__).resolve().parents[3]
PAIRS = sorted(p for p in (ROOT / "fixtures" / "pairs").iterdir() if (p / "old.c").exists())

_CHILD = """
import sys
from fmtcheck.cli import main
for pair in sys.argv[1:]:
    main(["verify", pair + "/old.c", pair + "/new.c", "--format", "json", "--seed", "7"])
    sys.stdout.flush()
"""


def _json_of_every_pair(hash_seed: str) -> subprocess.Popen:
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", _CHILD, *map(str, PAIRS)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_every_fixture_pair_gives_the_same_json_across_hash_seeds_and_parallel_runs() -> None:
    """Three processes at once (they compete for the CPUs), each with its own PYTHONHASHSEED."""
    procs = [_json_of_every_pair(seed) for seed in ("0", "1", "4242")]
    outputs = [proc.communicate(timeout=900) for proc in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode in (0, 1, 3) and out, err.decode()[-2000:]
    assert outputs[0][0].count(b'"command"') == len(PAIRS)
    assert outputs[1][0] == outputs[0][0]
    assert outputs[2][0] == outputs[0][0]


@pytest.mark.parametrize("seed", [3, 11])
def test_a_branchy_pair_gives_the_same_report_twice_in_a_row(seed: int) -> None:
    old, new, _ = branchy_pair(16, seed)
    first = verify_sources(old, new, Options(seed=5)).to_json()
    assert verify_sources(old, new, Options(seed=5)).to_json() == first


def test_the_time_net_counts_cpu_time_so_waiting_on_a_loaded_machine_does_not_end_a_search():
    """A wall-clock net fired before the step budget under load (task_sig of 6.1 at load 8:
    301 s of wall time, 45 s of CPU), so the answer depended on the load; only CPU time counts."""
    import time

    from fmtcheck.common.options import Bounds
    from fmtcheck.engine.budget import CLOCK_PERIOD, WorkBudget

    budget = WorkBudget(Bounds(seconds=0.05))
    time.sleep(0.1)
    assert not budget.exhausted()
    spin_until = time.process_time() + 0.1
    while time.process_time() < spin_until:
        pass
    time.sleep(CLOCK_PERIOD)  # the CPU clock is read at most every CLOCK_PERIOD of wall time
    assert budget.exhausted() and budget.ended_by == "time limit (0 s of CPU, a safety net)"
