"""window: elements are datasets (tf.data's outputs)."""
import numpy as np

from kerasish.data import Dataset, DatasetSpec, TensorSpec


def windows(ds):
    return [[int(x) for x in w] for w in ds]


def test_window_doc_examples():
    r = Dataset.range(7)
    assert windows(r.window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert windows(r.window(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert windows(r.window(3, 2, 1, True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert windows(r.window(3, 1, 2, True)) == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]


def test_window_partial_windows_at_the_end():
    assert windows(Dataset.range(7).window(3, 1)) == \
        [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6], [5, 6], [6]]
    assert windows(Dataset.range(7).window(3, 1, 2)) == \
        [[0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5], [4, 6], [5], [6]]


def test_window_shift_larger_than_size_skips_elements():
    assert windows(Dataset.range(10).window(2, 4)) == [[0, 1], [4, 5], [8, 9]]


def test_window_of_tuples_is_tuple_of_datasets_and_flat_map_batches():
    ds = Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 10)).window(2)
    assert ds.element_spec == (DatasetSpec(TensorSpec((), "int64")),
                               DatasetSpec(TensorSpec((), "int64")))
    batched = ds.flat_map(lambda x, y: Dataset.zip(x.batch(2), y.batch(2)))
    assert [(x.tolist(), y.tolist()) for x, y in batched] == \
        [([0, 1], [0, 10]), ([2, 3], [20, 30]), ([4], [40])]


def test_window_of_empty_dataset():
    assert windows(Dataset.range(0).window(3)) == []
    assert windows(Dataset.range(2).window(3, drop_remainder=True)) == []
