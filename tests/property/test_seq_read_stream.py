"""Stream properties of seq_read(): both behaviours hand out exactly the records' bytes, for every
sequence of read sizes; fill returns min(N, bytes left); the kernel returns greedy groups of whole
records within one buffer (kernel-seq-semantics.md §d.3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fmtcheck.kernel.seq_read import (
    BEHAVIOURS,
    FILL,
    KERNEL,
    PAGE_SIZE,
    PRIMITIVES,
    RecordSpec,
    check_stream_case,
    expected_stream,
    fill_prediction,
    read_sizes,
    records_from_specs,
    stream_cases,
)

pytestmark = pytest.mark.slow

RECORD_LENGTHS = st.one_of(
    st.sampled_from([0, 1, 4094, 4095, 4096, 4097, 8191, 8192, 8193]), st.integers(0, 300), st.integers(0, 9000)
)
RECORDS = st.lists(
    st.builds(RecordSpec, RECORD_LENGTHS, st.sampled_from([False, False, False, True]), st.sampled_from(PRIMITIVES)),
    max_size=10,
)


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
@settings(max_examples=150)
@given(case=stream_cases())
def test_stream_is_the_records_concatenation(behaviour, case):
    assert check_stream_case(case, behaviour) is None


@settings(max_examples=100)
@given(specs=RECORDS, bufsize=st.one_of(st.integers(1, 300), st.integers(1, 262144)))
def test_fill_returns_min_of_n_and_bytes_left(specs, bufsize):
    records = records_from_specs(specs)
    assert read_sizes(records, bufsize, FILL) == fill_prediction(len(expected_stream(records)), bufsize)


@settings(max_examples=100)
@given(specs=RECORDS)
def test_kernel_returns_greedy_groups_of_whole_records(specs):
    records = records_from_specs(specs)
    visible = [s.length for s in specs if s.length and not s.skip]
    assert read_sizes(records, 262144, KERNEL) == greedy_groups(visible)


def greedy_groups(lengths: list[int], size: int = PAGE_SIZE) -> list[int]:
    """§d.3 oracle, written independently of the model: a read starts with one record (the buffer
    doubles until it holds it with a byte to spare), then adds records while the total stays <= S-1."""
    groups, i = [], 0
    while i < len(lengths):
        while lengths[i] >= size:
            size *= 2
        group = lengths[i]
        i += 1
        while i < len(lengths) and group + lengths[i] <= size - 1:
            group += lengths[i]
            i += 1
        groups.append(group)
    return groups + [0]
