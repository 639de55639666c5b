"""parallel_map and the user-function wrapper."""
import pytest

from kerasish.data import workers


def test_apply_user_fn_unpacks_and_normalises():
    assert workers.apply_user_fn(lambda a, b: [a, b], (1, 2)) == (1, 2)


def test_parallel_map_order_and_input_error(no_leaked_threads):
    def source():
        yield from range(5)
        raise LookupError("input broke")

    outcomes = workers.parallel_map(source(), lambda x: x * 10, 2)
    results = []
    with pytest.raises(LookupError):
        for _, value in outcomes:
            results.append(value)
    assert results == [0, 10, 20, 30, 40]  # earlier results arrive before the error


def test_function_errors_are_outcomes_not_exceptions(no_leaked_threads):
    outcomes = list(workers.parallel_map(iter([1, 0, 2]), lambda x: 1 // x, 2))
    assert [ok for ok, _ in outcomes] == [True, False, True]
    assert isinstance(outcomes[1][1], ZeroDivisionError)


def test_chunk_size_follows_measured_cost():
    size = workers._ChunkSize()
    size.update(10, 10 * 1e-5)          # cheap: 10 us per item
    assert size.value == min(workers.MAX_CHUNK, int(workers.TARGET_TASK_SECONDS / 1e-5))
    assert size.value > 1
    size.update(1, 1.0)                 # expensive: one item per task
    assert size.value == 1
    size.update(5, 0.0)
    assert size.value == workers.MAX_CHUNK


def test_closing_parallel_map_joins_pool(no_leaked_threads):
    outcomes = workers.parallel_map(iter(range(100)), lambda x: x, 3)
    assert next(outcomes) == (True, 0)
    outcomes.close()
