"""The fast path for lookup gradients (dense kernel, then the repeated rows) against
the row rules themselves (the reference, checked against real Keras in
test_sparse_embedding_gradients.py): identical arrays."""
import numpy as np
import pytest

from kerasish.autodiff.indexed_slices import IndexedSlices
from kerasish.backend import devices
from kerasish.optimizers import row_updates

F32 = np.float32
SHAPE = (9, 4)


def _rows(rng):
    ids = np.array([[3, 1, 3, 0], [8, 3, 0, 5]])  # 3 three times, 0 twice, others once
    return IndexedSlices(rng.normal(size=ids.shape + SHAPE[1:]).astype(F32), ids, SHAPE)


def _positive(rng):
    return rng.uniform(0.1, 1.0, SHAPE).astype(F32)


CASES = {
    "adam": ("adam_update", lambda r: [r.normal(size=SHAPE).astype(F32), _positive(r),
                                       F32(0.01), 0.9, 0.999, 1e-7]),
    "amsgrad": ("adam_update", lambda r: [r.normal(size=SHAPE).astype(F32), _positive(r),
                                          F32(0.01), 0.9, 0.999, 1e-7, _positive(r)]),
    "nadam": ("nadam_update", lambda r: [r.normal(size=SHAPE).astype(F32), _positive(r),
                                         F32(0.01), 0.9, 0.999, 1e-7, F32(0.88), F32(0.89),
                                         F32(0.5), F32(0.45), F32(0.01)]),
    "adamax": ("adamax_update", lambda r: [r.normal(size=SHAPE).astype(F32), _positive(r),
                                           F32(0.01), 0.9, 0.999, 1e-7, F32(0.81)]),
    "rmsprop": ("rmsprop_update", lambda r: [_positive(r), F32(0.01), 0.9, 1e-7]),
    "rmsprop_centered_momentum": (
        "rmsprop_update", lambda r: [_positive(r) + 1, F32(0.01), 0.9, 1e-7,
                                     r.normal(size=SHAPE).astype(F32), 0.5,
                                     r.normal(size=SHAPE).astype(F32) * F32(0.1)]),
    "adagrad": ("adagrad_update", lambda r: [_positive(r), F32(0.1), 1e-7]),
    "adadelta": ("adadelta_update", lambda r: [_positive(r), _positive(r), F32(1.0), 0.95, 1e-7]),
    "sgd": ("sgd_update", lambda r: [None, F32(0.1)]),
    "sgd_nesterov": ("sgd_update", lambda r: [r.normal(size=SHAPE).astype(F32), F32(0.1), 0.9,
                                              True]),
}
RULES = {"amsgrad": "adam", "rmsprop_centered_momentum": "rmsprop", "sgd_nesterov": "sgd"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_path_equals_the_row_rule(case):
    kernel_name, make_args = CASES[case]
    rule = getattr(row_updates, RULES.get(case, case))
    kernel = devices.get_device("cpu").kernel(kernel_name)
    rng = np.random.default_rng(0)
    rows = _rows(rng)
    param = rng.normal(size=SHAPE).astype(F32)
    args = make_args(rng)
    copy = lambda a: a.copy() if isinstance(a, np.ndarray) and a.shape == SHAPE else a  # noqa
    ref_param, ref_args = param.copy(), [copy(a) for a in args]
    rule(ref_param, rows.dense(), *ref_args, rows=rows)
    row_updates.dense_then_repeated_rows(kernel, rule, param, rows.dense(), *args, rows=rows)
    np.testing.assert_array_equal(param, ref_param)
    for a, ref in zip(args, ref_args):
        if isinstance(a, np.ndarray) and a.shape == SHAPE:
            np.testing.assert_array_equal(a, ref)


def test_the_kernel_alone_would_differ_on_repeated_rows():
    rng = np.random.default_rng(0)
    rows = _rows(rng)
    param = rng.normal(size=SHAPE).astype(F32)
    m, v = rng.normal(size=SHAPE).astype(F32), _positive(rng)
    dense = param.copy()
    devices.get_device("cpu").kernel("adam_update")(dense, rows.dense(), m.copy(), v.copy(),
                                                    F32(0.01), 0.9, 0.999, 1e-7)
    row_updates.adam(param, rows.dense(), m, v, F32(0.01), 0.9, 0.999, 1e-7, rows=rows)
    assert not np.array_equal(dense[3], param[3])      # id 3 repeats
    np.testing.assert_array_equal(dense[1], param[1])  # id 1 does not
