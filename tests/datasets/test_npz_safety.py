"""Data files are read without letting a pickle inside run code."""
import os
import pickle

import numpy as np
import pytest

from kerasish.datasets import _download, cifar10


class _Gadget:
    def __reduce__(self):
        return (os.getcwd, ())


def test_object_arrays_of_lists_load(tmp_path):
    path = tmp_path / "ragged.npz"
    ragged = np.empty(2, dtype=object)
    ragged[0], ragged[1] = [1, 2], [3]
    np.savez(path, x=ragged, y=np.arange(3))
    arrays = _download.load_npz(path)
    assert arrays["x"].tolist() == [[1, 2], [3]]
    assert arrays["y"].tolist() == [0, 1, 2]


def test_npz_with_code_in_pickle_is_refused(tmp_path):
    path = tmp_path / "evil.npz"
    evil = np.empty(1, dtype=object)
    evil[0] = _Gadget()
    np.savez(path, x_train=evil)
    with pytest.raises(pickle.UnpicklingError, match="Refusing to deserialize"):
        _download.load_npz(path)


def test_cifar_batch_with_code_is_refused(tmp_path):
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps({b"data": _Gadget(), b"labels": []}, protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="Refusing to deserialize"):
        cifar10.load_batch(path)
