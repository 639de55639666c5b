"""Keras's type promotion lattice (`kerasish.backend.result_type`)."""
import pytest

from kerasish.backend import result_type


@pytest.mark.parametrize("args, expected", [
    (("int32", "float32"), "float32"), (("int8", "uint8"), "int16"), (("uint8", "uint16"), "uint16"),
    (("int16", "uint32"), "int64"), (("uint64", "int64"), "float32"), (("bool", "int8"), "int8"),
    (("float16", "bfloat16"), "float32"), (("float32", "float64"), "float64"), (("int64", "float16"), "float16"),
    (("float16", float), "float16"), (("int32", float), "float32"), (("int8", int), "int8"),
    (("bool", int), "int32"), (("bool", bool), "bool"), ((int,), "int32"), ((float,), "float32"),
    ((int, float), "float32"), ((), "float32"), (("float64", int), "float64"),
])
def test_result_type(args, expected, monkeypatch):
    from kerasish.backend import dtypes
    if "bfloat16" in args:
        monkeypatch.setattr(dtypes.config, "standardize_dtype",
                            lambda d, _orig=dtypes.config.standardize_dtype: "bfloat16" if d == "bfloat16" else _orig(d))
    assert result_type(*args) == expected


def test_invalid_dtype():
    with pytest.raises(ValueError, match="dtype 'string' cannot take part"):
        result_type("string", "float32")


@pytest.mark.parametrize("args", [
    ("complex64", int), ("complex64", "float64"), ("complex128", "int8"), ("complex128",),
    ("complex128", "complex128"), (int, complex), (float, complex), (bool, complex), (complex,),
    ("uint8", "complex64"), ("float16", "complex128"),
])
def test_complex_results_are_complex64_as_keras(args):
    # Keras 3.15.1: result_type(z.dtype, int) with z complex64 (docstring) and every mix
    # with a complex type gives 'complex64' (complex128 narrowed)
    assert result_type(*args) == "complex64"
