"""2-D/3-D convolutions with a bias and a relu/relu6 in Keras's compiled functions: the
fused oneDNN kernel makes a NaN 0 (recorded with Keras 3.15.1 on TensorFlow 2.21,
/tmp/probe16/nan_conv2.py: counts of NaN and zero outputs in `predict`)."""
import numpy as np
import pytest

import kerasish as keras

L = keras.layers
X2 = np.ones((1, 4, 4, 2), "float32")
X2[0, 1, 1, 0] = np.nan
X3 = np.ones((1, 4, 4, 4, 1), "float32")
X3[0, 1, 1, 1, 0] = np.nan
X1 = np.ones((1, 4, 2), "float32")
X1[0, 1, 0] = np.nan

# (name, input, layer, NaN outputs, zero outputs) from Keras's predict
CASES = [
    ("conv2d", X2, lambda: L.Conv2D(2, 3, activation="relu"), 0, 8),
    ("conv2d_nobias", X2, lambda: L.Conv2D(2, 3, activation="relu", use_bias=False), 8, 0),
    ("conv2d_same", X2, lambda: L.Conv2D(2, 3, padding="same", activation="relu"), 0, 23),
    ("conv2d_relu6", X2, lambda: L.Conv2D(2, 3, activation="relu6"), 0, 8),
    ("conv3d", X3, lambda: L.Conv3D(2, 3, activation="relu"), 0, 16),
    ("depthwise", X2, lambda: L.DepthwiseConv2D(3, activation="relu"), 0, 4),
    ("separable", X2, lambda: L.SeparableConv2D(2, 3, activation="relu"), 0, 8),
    ("conv1d", X1, lambda: L.Conv1D(2, 3, activation="relu"), 4, 0),
    ("conv2d_elu", X2, lambda: L.Conv2D(2, 3, activation="elu"), 8, 0),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, x, layer, nans, zeros", CASES, ids=[c[0] for c in CASES])
def test_predict_of_a_nan_input_is_kerass(name, x, layer, nans, zeros):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(x.shape[1:]), layer()])
    predicted = model.predict(x, verbose=0)
    assert (int(np.isnan(predicted).sum()), int((predicted == 0).sum())) == (nans, zeros)
    if name == "conv2d":
        assert np.isnan(model(x).numpy()).all()   # eagerly the relu keeps the NaN
