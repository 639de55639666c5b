"""The one float test: bfloat16 (numpy kind 'V' via ml_dtypes) counts as a float."""
import numpy as np
import pytest

from kerasish.backend import config

ml_dtypes = pytest.importorskip("ml_dtypes", reason="bfloat16 needs the ml_dtypes package")
BF16 = np.dtype(ml_dtypes.bfloat16)


def test_bfloat16_is_a_float_although_numpy_says_kind_v():
    assert BF16.kind == "V"
    assert config.is_float(BF16) and config.is_inexact(BF16)
    assert config.is_float_array(np.zeros(2, BF16))


@pytest.mark.parametrize("name, expected", [("float16", True), ("float64", True),
                                            ("int32", False), ("bool", False),
                                            ("complex64", False), ("V2", False)])
def test_other_dtypes(name, expected):
    assert config.is_float(np.dtype(name)) is expected


def test_complex_is_inexact_but_not_float():
    assert config.is_inexact(np.dtype("complex64")) and not config.is_float(np.dtype("complex64"))


def test_finfo_covers_bfloat16():
    assert float(config.finfo(BF16).max) == pytest.approx(3.3895e38, rel=1e-3)
    assert config.finfo(np.dtype("float32")).max == np.finfo(np.float32).max
