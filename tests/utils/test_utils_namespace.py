"""keras.utils helpers guide code calls, and the top-level names (vs Keras 3.15.1)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import layers


def test_utils_helpers():
    x = keras.Input((3,))
    y = layers.Dense(1)(layers.Dense(2)(x))
    assert keras.utils.get_source_inputs(y) == [x]
    assert keras.utils.is_keras_tensor(y) and not keras.utils.is_keras_tensor(np.ones(2))
    assert keras.utils.standardize_dtype("float32") == "float32"
    with keras.utils.custom_object_scope({"Thing": int}):
        assert keras.utils.get_registered_object("Thing") is int
    assert isinstance(keras.utils.get_custom_objects(), dict)
    assert keras.utils.get_registered_name(layers.Dense) == "Dense"


def test_clear_session_from_utils_restarts_names():
    layers.Dense(2)
    keras.utils.clear_session()
    assert layers.Dense(2).name == "dense"


def test_plot_model_without_pydot_raises_keras_error():
    try:
        import pydot  # noqa: F401
        pytest.skip("pydot is installed")
    except ImportError:
        pass
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    with pytest.raises(ImportError, match=r"You must install pydot \(`pip install pydot`\)"):
        keras.utils.plot_model(model, "model.png")


def test_top_level_names():
    for name in ("KerasTensor", "Loss", "Metric", "Optimizer", "Initializer", "Regularizer"):
        assert hasattr(keras, name)
    assert keras.tree.flatten([1, [2, (3,)]]) == [1, 2, 3]
    assert isinstance(keras.Input((2,)), keras.KerasTensor)
