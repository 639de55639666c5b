"""kerasish.ops.dense: the fused matmul + bias + activation op."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import GradientTape, Variable, ops
from kerasish.testing import check_gradients, check_second_order

RNG = np.random.default_rng(11)
X, W, B = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 2)), RNG.standard_normal(2)


@pytest.mark.parametrize("activation", [None, "linear", "relu", ops.tanh, ops.sigmoid])
def test_matches_unfused_maths(activation):
    z = X @ W + B
    ref = {None: z, "linear": z, "relu": np.maximum(z, 0), ops.tanh: np.tanh(z)}.get(activation)
    if ref is None:
        ref = 1 / (1 + np.exp(-z))
    out = ops.dense(X, W, B, activation=activation)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("activation", [None, "relu"])
def test_gradients_first_and_second_order(activation):
    check_gradients(lambda x, w, b: ops.dense(x, w, b, activation), [X, W, B])
    check_gradients(lambda x, w: ops.dense(x, w, None, activation), [X[None], W])
    check_second_order(lambda x, w, b: ops.dense(x, w, b, activation), [X[:2], W, B])


def test_raw_fast_path_matches_op_path():
    x, w, b = (ops.convert_to_tensor(v.astype("float32")) for v in (X, W, B))
    with GradientTape() as tape:
        tape.watch([x, w, b])
        y = ops.sum(ops.dense(x, w, b, "relu") ** 2)
    fast = tape.gradient(y, [x, w, b])
    with GradientTape() as tape:
        tape.watch([x, w, b])
        y = ops.sum(ops.relu(ops.matmul(x, w) + b) ** 2)
    slow = tape.gradient(y, [x, w, b])
    for f, s in zip(fast, slow):
        assert f.dtype == "float32"
        np.testing.assert_allclose(f.numpy(), s.numpy(), rtol=1e-5, atol=1e-6)


def test_trainable_variables_are_watched_automatically():
    w = Variable(W)
    with GradientTape() as tape:
        y = ops.sum(ops.dense(X, w))
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), np.repeat(X.sum(0)[:, None], 2, 1), rtol=1e-6)


def test_other_activation_names_must_be_resolved_by_the_caller():
    with pytest.raises(ValueError, match=r"ops.dense: activation must be.*'tanh'"):
        ops.dense(X, W, B, "tanh")


def test_shape_errors_name_the_op():
    with pytest.raises(ValueError, match=r"ops.dense: input shape \(4, 3\) float64.*kernel shape \(2, 2\)"):
        ops.dense(X, W[:2])
    with pytest.raises(ValueError, match=r"ops.dense: bias shape \(3,\).*\(2,\)"):
        ops.dense(X, W, np.ones(3))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("activation", ["relu", "relu6"])
def test_dense_relu_in_compiled_functions_makes_nan_zero_as_onednn(activation):
    # Keras 3.15.1 (TF 2.21): `predict` fuses MatMul + BiasAdd + Relu/Relu6 (oneDNN), which
    # gives 0 for a NaN pre-activation, while the eager call (and a Dense without bias,
    # which is not fused) keeps the NaN: predict -> [[0, 0, 0], ...], model(x) -> NaN row.
    x = np.array([[np.nan, 1.0], [0.5, -2.0], [np.inf, 1.0]], "float32")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation=activation)])
    predicted = model.predict(x, verbose=0)
    eager = model(x).numpy()
    np.testing.assert_array_equal(predicted[0], [0.0, 0.0, 0.0])
    assert np.isnan(eager[0]).all()
    np.testing.assert_array_equal(predicted[1:], eager[1:])
    no_bias = keras.Sequential([keras.Input((2,)),
                                keras.layers.Dense(3, activation=activation, use_bias=False)])
    assert np.isnan(no_bias.predict(x, verbose=0)[0]).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_fit_through_a_nan_input_row_stays_finite_as_keras():
    # Keras 3.15.1: the NaN row reaches the kernel's gradient (NaN kernel), after which the
    # fused relu outputs 0 and the loss stays finite: TerminateOnNaN never stops the fit.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 4)).astype("float32")
    y = (x[:, :1] * 0.7 - x[:, 1:2] * 0.2).astype("float32")
    x[20] = np.nan
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                              keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0,
                        callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(history.history["loss"]) == 3
    assert np.isfinite(history.history["loss"]).all()
    assert np.isnan(model.layers[0].kernel.numpy()).all()
