"""The seq_read() model: read sizes before and after seed 002, buffer growth, traverse, mutant."""

from __future__ import annotations

import os

import pytest

from fmtcheck.kernel.seq_read import (
    BEHAVIOURS,
    EINVAL,
    FILL,
    FILL_DROP_LEFTOVER,
    KERNEL,
    PRIMITIVES,
    RecordSpec,
    SeqFileReader,
    SeqReadError,
    StreamCase,
    check_stream,
    check_stream_case,
    error_record,
    expected_stream,
    fill_prediction,
    find_stream_counterexample,
    read_all,
    read_sizes,
    records_from_sizes,
    records_from_specs,
    skipped_record,
    synthetic_record_bytes,
    text_record,
)

# /proc/interrupts on 8 CPUs (seed 002): 7018 bytes whose first group of whole records
# within 4095 bytes holds 4082 (61 rows of 66 bytes, one of 56; the next 66-byte row would not fit).
INTERRUPTS_LIKE = [66] * 61 + [56] + [66] * 44 + [32]


def test_seed_002_interrupts_reads_before_and_after_the_change():
    records = records_from_sizes(INTERRUPTS_LIKE)
    assert sum(INTERRUPTS_LIKE) == 7018
    assert read_sizes(records, 131072, KERNEL) == [4082, 2936, 0]
    assert read_sizes(records, 131072, FILL) == [7018, 0]


def test_two_records_of_the_seed_sizes_give_the_same_reads():
    records = records_from_sizes([4082, 2936])
    assert read_sizes(records, 131072, KERNEL) == [4082, 2936, 0]
    assert read_sizes(records, 131072, FILL) == [7018, 0]


def test_large_user_buffer_gets_one_buffer_of_whole_records_per_read():
    # The 41st 100-byte record would reach 4100 > 4095.
    records = records_from_sizes([100] * 100)
    assert read_sizes(records, 65536, KERNEL) == [4000, 4000, 2000, 0]
    assert read_sizes(records, 65536, FILL) == [10000, 0]


def test_single_open_file_is_handed_out_in_user_buffer_pieces():
    records = records_from_sizes([3000])
    assert read_sizes(records, 1024, KERNEL) == [1024, 1024, 952, 0]
    assert read_sizes(records, 1024, FILL) == [1024, 1024, 952, 0]


def test_user_buffer_just_under_the_page_returns_less_than_asked():
    # N + largest record > S - 1: the records added in one call are capped at S - 1 bytes.
    records = records_from_sizes([100] * 100)
    assert read_sizes(records, 4050, KERNEL) == [4000, 4000, 2000, 0]
    assert read_sizes(records, 4050, FILL) == [4050, 4050, 1900, 0]


def test_small_user_buffer_reads_are_exactly_n_under_the_kernel():
    # N + largest record <= S - 1: the leftover plus new records always cover N.
    records = records_from_sizes([100] * 100)
    sizes = read_sizes(records, 1000, KERNEL)
    assert sizes == [1000] * 10 + [0]


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_record_of_exactly_one_page_doubles_the_buffer(primitive):
    reader = SeqFileReader(records_from_sizes([4096, 10], primitive))
    chunks = read_all(reader, [131072])
    assert [len(c) for c in chunks] == [4106, 0]
    assert reader.size == 8192
    assert reader.show_calls == 3  # the big record twice (4096, then 8192), the small one once


@pytest.mark.parametrize("primitive", PRIMITIVES)
def test_record_one_byte_under_the_page_fits(primitive):
    reader = SeqFileReader(records_from_sizes([4095, 10], primitive))
    assert [len(c) for c in read_all(reader, [131072])] == [4095, 10, 0]
    assert reader.size == 4096


def test_record_larger_than_the_buffer_keeps_the_grown_buffer():
    reader = SeqFileReader(records_from_sizes([10000, 3000, 3000]))
    assert [len(c) for c in read_all(reader, [131072])] == [16000, 0]
    assert reader.size == 16384  # 4096 -> 8192 -> 16384, never shrinks


def test_record_larger_than_the_buffer_with_a_small_user_buffer():
    records = records_from_sizes([10000])
    assert read_sizes(records, 4096, KERNEL) == [4096, 4096, 1808, 0]


def test_empty_and_skipped_records_are_invisible():
    plain = records_from_sizes([100] * 50)
    mixed: list = []
    for i, show in enumerate(plain):
        mixed.append(show)
        mixed.append(text_record(b""))
        if i % 7 == 0:
            mixed.append(skipped_record(b"hidden\n"))
    assert expected_stream(mixed) == expected_stream(plain)
    for behaviour in BEHAVIOURS:
        reader = SeqFileReader(mixed, behaviour)
        assert b"".join(read_all(reader, [65536])) == expected_stream(plain)
        assert read_sizes(mixed, 65536, behaviour) == read_sizes(plain, 65536, behaviour)


def test_skipped_record_that_overflows_does_not_grow_the_buffer():
    records = [skipped_record(b"x" * 5000), text_record(b"a\n")]
    reader = SeqFileReader(records)
    assert read_all(reader, [4096]) == [b"a\n", b""]
    assert reader.size == 4096


def test_kernel_runs_one_session_per_read_fill_may_run_several():
    records = records_from_sizes(INTERRUPTS_LIKE)
    kernel = SeqFileReader(records, KERNEL)
    read_all(kernel, [131072])
    assert [c.sessions for c in kernel.calls] == [1, 1, 1]
    fill = SeqFileReader(records, FILL)
    read_all(fill, [131072])
    assert fill.calls[0].sessions == 3  # 4082 bytes, then 2936, then start() at EOF
    assert kernel.start_calls == kernel.stop_calls and fill.start_calls == fill.stop_calls


def test_fill_renders_one_extra_record_when_the_user_buffer_is_filled_exactly():
    records = records_from_sizes([100, 100])
    kernel, fill = SeqFileReader(records, KERNEL), SeqFileReader(records, FILL)
    assert len(kernel.read(100)) == 100 and len(fill.read(100)) == 100
    assert kernel.show_calls == 1
    assert fill.show_calls == 2  # the second record waits as leftover


def test_error_from_show_is_returned_when_nothing_was_copied():
    records = [text_record(b"one\n"), error_record(5), text_record(b"two\n")]
    reader = SeqFileReader(records)
    assert reader.read(4096) == b"one\n"
    with pytest.raises(SeqReadError) as info:
        reader.read(4096)
    assert info.value.errno == 5


def test_reading_after_eof_keeps_returning_nothing():
    reader = SeqFileReader(records_from_sizes([10]))
    assert read_all(reader, [4096])[-1] == b""
    assert reader.read(4096) == b""


def test_lseek_to_zero_renders_everything_again():
    records = records_from_sizes([100] * 60)
    reader = SeqFileReader(records)
    first = reader.read(150)
    shows = reader.show_calls
    assert reader.lseek(0) == 0
    again = b"".join(read_all(reader, [4096]))
    assert again == expected_stream(records)
    assert again.startswith(first)
    assert reader.show_calls - shows >= 60


def test_lseek_into_the_middle_of_a_record_keeps_that_record_as_leftover():
    records = records_from_sizes([100] * 10)
    full = expected_stream(records)
    reader = SeqFileReader(records)
    assert reader.lseek(250) == 250
    assert reader.index == 3  # records 0..2 walked, record 2 (bytes 200..299) held
    assert b"".join(read_all(reader, [64])) == full[250:]


def test_lseek_seek_cur_and_bad_whence():
    reader = SeqFileReader(records_from_sizes([100] * 3))
    reader.read(10)
    assert reader.lseek(5, os.SEEK_CUR) == 15
    assert reader.read(5) == expected_stream(reader.records)[15:20]
    with pytest.raises(SeqReadError) as info:
        reader.lseek(0, os.SEEK_END)
    assert info.value.errno == EINVAL
    with pytest.raises(SeqReadError):
        reader.lseek(-1)


def test_lseek_past_the_end_reads_nothing():
    reader = SeqFileReader(records_from_sizes([100] * 3))
    assert reader.lseek(1000) == 1000
    assert reader.read(4096) == b""


def test_pread_does_not_move_the_file_position():
    records = records_from_sizes([100] * 5)
    full = expected_stream(records)
    reader = SeqFileReader(records)
    assert reader.read(30) == full[:30]
    assert reader.pread(20, 0) == full[:20]
    assert reader.pread(50, 420) == full[420:470]
    assert reader.f_pos == 30
    assert reader.read(10) == full[30:40]  # read_pos != 30 again, so this walks from record 0


def test_traverse_doubles_the_buffer_and_starts_the_walk_again():
    records = records_from_sizes([100, 5000, 100])
    reader = SeqFileReader(records)
    assert reader.lseek(5050) == 5050
    assert reader.size == 8192
    assert b"".join(read_all(reader, [4096])) == expected_stream(records)[5050:]


def test_read_sizes_end_with_the_zero_of_eof():
    assert read_sizes([], 4096) == [0]
    assert read_sizes(records_from_sizes([0, 0]), 4096) == [0]


def test_fill_prediction_is_min_n_and_bytes_left():
    assert fill_prediction(7018, 131072) == [7018, 0]
    assert fill_prediction(3000, 1024) == [1024, 1024, 952, 0]
    assert fill_prediction(0, 10) == [0]


def test_synthetic_records_have_the_asked_length_and_end_lines():
    for length in range(0, 40):
        data = synthetic_record_bytes(7, length)
        assert len(data) == length
        assert length == 0 or data.endswith(b"\n")


def test_unknown_behaviour_is_refused():
    with pytest.raises(ValueError):
        SeqFileReader([], "faster")


# -- the deliberately wrong variant --------------------------------------------------------


def test_mutant_loses_bytes_on_a_partly_copied_record():
    case = StreamCase(records=(RecordSpec(2),), read_sizes=(1,), tail=512)
    found = check_stream_case(case, FILL_DROP_LEFTOVER)
    assert found is not None
    assert found["actual_bytes"] < found["expected_bytes"]
    for behaviour in BEHAVIOURS:
        assert check_stream_case(case, behaviour) is None


def test_mutant_is_caught_on_the_seed_records_with_a_small_buffer():
    records = records_from_sizes(INTERRUPTS_LIKE)
    assert check_stream(records, FILL_DROP_LEFTOVER, [1000]) is not None
    assert check_stream(records, FILL, [1000]) is None


def test_property_search_finds_a_counterexample_for_the_mutant():
    outcome = find_stream_counterexample(FILL_DROP_LEFTOVER, seed=0, max_examples=100)
    assert outcome.counterexample is not None
    assert outcome.counterexample["behaviour"] == FILL_DROP_LEFTOVER
    assert outcome.counterexample["part"] in ("stream", "before reposition")


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_property_search_finds_nothing_for_the_real_behaviours(behaviour):
    outcome = find_stream_counterexample(behaviour, seed=1, max_examples=60)
    assert outcome.counterexample is None
    assert outcome.cases >= 60


def test_records_from_specs_mark_skipped_records_invisible():
    records = records_from_specs([RecordSpec(10), RecordSpec(10, skip=True), RecordSpec(10)])
    assert len(expected_stream(records)) == 20
