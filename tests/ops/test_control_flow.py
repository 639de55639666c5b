"""kerasish.ops.control_flow: eager cond/loops/scan/map and custom_gradient."""
import json

import numpy as np
import pytest

import kerasish as keras
from kerasish import GradientTape, ops


def test_cond_and_switch():
    assert ops.cond(ops.convert_to_tensor(True), lambda: 1, lambda: 2) == 1
    assert ops.cond(0, lambda: 1, lambda: 2) == 2
    branches = [lambda x: x + 1, lambda x: x * 10]
    assert ops.switch(1, branches, 3) == 30
    assert ops.switch(-5, branches, 3) == 4 and ops.switch(9, branches, 3) == 30
    with pytest.raises(ValueError, match="ops.switch"):
        ops.switch(0, [], 1)


def test_while_loop_structures_and_maximum_iterations():
    assert int(ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0)) == 10
    i, total = ops.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), (0, 0))
    assert (int(i), int(total)) == (4, 6)
    out = ops.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=7)
    assert isinstance(out, tuple) and int(out[0]) == 7


def test_fori_loop_and_gradient_through_it():
    assert ops.fori_loop(0, 4, lambda i, acc: acc + i, 0) == 6
    x = ops.convert_to_tensor(1.5)
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.fori_loop(0, 3, lambda i, acc: acc * x, ops.convert_to_tensor(1.0))
    assert float(tape.gradient(y, x)) == pytest.approx(3 * 1.5 ** 2)


def test_scan_matches_jax_semantics():
    carry, ys = ops.scan(lambda c, x: (c + x, c * 2), 0.0, ops.arange(4.0))
    assert float(carry) == 6.0
    np.testing.assert_allclose(ys.numpy(), [0.0, 0.0, 2.0, 6.0])
    carry, ys = ops.scan(lambda c, x: (c + x, c + x), 0.0, ops.arange(4.0), reverse=True)
    np.testing.assert_allclose(ys.numpy(), [6.0, 6.0, 5.0, 3.0])
    carry, ys = ops.scan(lambda c, x: (c + 1, None), 0, None, length=5)
    assert int(carry) == 5 and ys is None
    xs = {"a": ops.ones((3, 2)), "b": ops.arange(3.0)}
    carry, ys = ops.scan(lambda c, x: (c + x["b"], {"s": ops.sum(x["a"]) + c}), 0.0, xs)
    np.testing.assert_allclose(ys["s"].numpy(), [2.0, 2.0, 3.0])
    w = ops.convert_to_tensor(0.5)
    with GradientTape() as tape:
        tape.watch(w)
        carry, _ = ops.scan(lambda c, x: (c * w + x, c), 0.0, ops.ones((3,)))
    assert float(tape.gradient(carry, w)) == pytest.approx(1 + 2 * 0.5)
    with pytest.raises(ValueError, match="ops.scan.*length"):
        ops.scan(lambda c, x: (c, x), 0.0)


def test_map_vectorized_map_associative_scan():
    np.testing.assert_array_equal(ops.map(lambda x: x * 2, ops.arange(3)).numpy(), [0, 2, 4])
    out = ops.map(lambda x: (x, x + 1), ops.arange(3.0))
    np.testing.assert_array_equal(out[1].numpy(), [1.0, 2.0, 3.0])
    vm = ops.vectorized_map(lambda ab: ops.dot(ab[0], ab[1]), (ops.ones((4, 3)), ops.ones((4, 3))))
    np.testing.assert_array_equal(vm.numpy(), [3.0] * 4)
    np.testing.assert_array_equal(ops.vectorized_map(ops.sum, ops.ones((2, 5))).numpy(), [5.0, 5.0])
    np.testing.assert_array_equal(ops.associative_scan(ops.add, ops.arange(1.0, 5.0)).numpy(), [1, 3, 6, 10])
    np.testing.assert_array_equal(ops.associative_scan(ops.add, ops.arange(1.0, 5.0), reverse=True).numpy(),
                                  [10, 9, 7, 4])
    m = ops.associative_scan(ops.maximum, ops.convert_to_tensor([[1.0, 3.0], [2.0, 0.0]]), axis=1)
    np.testing.assert_array_equal(m.numpy(), [[1.0, 3.0], [2.0, 2.0]])


def test_custom_gradient_replaces_the_derivative():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad

    x = ops.convert_to_tensor(np.array(100.0))  # float64: exp(100) fits
    with GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(y) == pytest.approx(100.0)
    assert float(tape.gradient(y, x)) == pytest.approx(1.0)

    @ops.custom_gradient
    def clip_grad(a, b):
        return a * b, lambda g: (ops.clip(g * b, -1.0, 1.0), g * a)

    a, b = ops.convert_to_tensor([2.0]), ops.convert_to_tensor([5.0])
    with GradientTape() as tape:
        tape.watch([a, b])
        z = clip_grad(a, b)
    ga, gb = tape.gradient(z, [a, b])
    assert ga.numpy().tolist() == [1.0] and gb.numpy().tolist() == [2.0]
    assert float(log1pexp(ops.convert_to_tensor(0.0))) == pytest.approx(np.log(2))


@keras.saving.register_keras_serializable(package="test_control_flow")
def _doubled(x):
    return x + x


def test_vectorized_map_in_a_functional_model_round_trips_as_keras(tmp_path):
    # Keras 3.15.1 records a VectorizedMap op (module keras.src.ops.core) with the
    # registered function in its config
    inputs = keras.Input((10,), dtype="float32")
    model = keras.Model(inputs, ops.vectorized_map(_doubled, inputs))
    entry = model.get_config()["layers"][1]
    assert (entry["module"], entry["class_name"]) == ("keras.src.ops.core", "VectorizedMap")
    assert entry["config"]["function"] == {"module": "builtins", "class_name": "function",
                                           "config": "test_control_flow>_doubled",
                                           "registered_name": "function"}
    x = np.random.default_rng(0).random((5, 10)).astype("float32")
    for revived in (model.from_config(model.get_config()),
                    keras.Model.from_config(json.loads(json.dumps(model.get_config())))):
        np.testing.assert_allclose(revived(x).numpy(), 2 * x)
    model.save(str(tmp_path / "m.keras"))
    np.testing.assert_allclose(keras.saving.load_model(str(tmp_path / "m.keras"))(x).numpy(), 2 * x)
