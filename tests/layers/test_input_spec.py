"""InputSpec texts as Keras 3.15.1 prints them."""
import kerasish as keras
from kerasish.layers.input_spec import InputSpec


def test_repr_lists_only_the_fields_that_are_set():
    # Keras 3.15.1 printed InputSpec(min_ndim=2, axes={-1: 4}) for a built Dense(3) on 4 features.
    dense = keras.layers.Dense(3)
    dense.build((None, 4))
    assert repr(dense.input_spec) == "InputSpec(min_ndim=2, axes={-1: 4})"
    assert repr(InputSpec(ndim=3, dtype="float32")) == "InputSpec(dtype=float32, ndim=3)"
    assert repr(InputSpec()) == "InputSpec()"
