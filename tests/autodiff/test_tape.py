"""GradientTape with TensorFlow semantics."""
import sys
import time

import numpy as np
import pytest

from kerasish import GradientTape, Variable, ops
from kerasish.autodiff import tape as tape_mod
from kerasish.autodiff.tensor import Tensor


def test_simple_gradient_and_tf_guide_example():
    x = Variable(3.0)
    with GradientTape() as tape:
        y = x ** 2
    assert float(tape.gradient(y, x)) == 6.0


def test_nested_tapes_give_second_derivatives():
    x = ops.convert_to_tensor(3.0)
    with GradientTape() as t2:
        t2.watch(x)
        with GradientTape() as t1:
            t1.watch(x)
            y = x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    assert float(dy_dx) == 6.0 and float(d2y_dx2) == 2.0


def test_third_derivative_with_three_tapes():
    x = ops.convert_to_tensor(2.0)
    with GradientTape() as t3:
        t3.watch(x)
        with GradientTape() as t2:
            t2.watch(x)
            with GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            g1 = t1.gradient(y, x)
        g2 = t2.gradient(g1, x)
    assert (float(g1), float(g2), float(t3.gradient(g2, x))) == (12.0, 12.0, 6.0)


def test_persistent_and_non_persistent():
    x = ops.convert_to_tensor(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y, z = x * x, x * x * x
    assert float(tape.gradient(y, x)) == 6.0 and float(tape.gradient(z, x)) == 27.0
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape.*persistent=True"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="jacobian"):
        tape.jacobian(y, x)


def test_watch_accessed_variables_and_non_trainable_variables():
    v = Variable(2.0)
    frozen = Variable(5.0, trainable=False)
    with GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0
    with GradientTape() as tape:
        y = v * frozen
    g_v, g_f = tape.gradient(y, [v, frozen])
    assert float(g_v) == 5.0 and g_f is None
    with GradientTape() as tape:
        _ = v * frozen
    assert tape.watched_variables() == (v,)


def test_stop_recording_and_stop_gradient():
    x = ops.convert_to_tensor(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            hidden = x * x
        y = x * hidden + ops.stop_gradient(x * x)
    assert float(tape.gradient(y, x)) == 4.0
    with pytest.raises(ValueError, match="stop_recording"):
        with tape.stop_recording():
            pass


def test_unconnected_gradients():
    x, z = ops.convert_to_tensor(1.0), ops.convert_to_tensor([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.gradient(y, z) is None
    zeros = tape.gradient(y, z, unconnected_gradients="zero")
    assert zeros.shape == (2,) and zeros.numpy().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, z, unconnected_gradients="nan")


def test_nested_structures_of_sources_and_targets():
    w, b = Variable([[1.0, 2.0]]), Variable([0.5])
    x = ops.convert_to_tensor([[3.0], [4.0]])
    with GradientTape() as tape:
        out = ops.matmul(x, w) + b
        targets = {"sum": ops.sum(out), "parts": [ops.sum(w), b * 2.0]}
    grads = tape.gradient(targets, {"kernel": w, "extra": [b, (w,)]})
    assert set(grads) == {"kernel", "extra"} and isinstance(grads["extra"][1], tuple)
    np.testing.assert_allclose(grads["kernel"].numpy(), [[8.0, 8.0]])
    np.testing.assert_allclose(grads["extra"][0].numpy(), [6.0])
    np.testing.assert_allclose(grads["extra"][1][0].numpy(), [[8.0, 8.0]])


def test_non_scalar_target_is_the_gradient_of_its_sum():
    x = ops.linspace(-2.0, 2.0, 5)
    with GradientTape() as tape:
        tape.watch(x)
        y = ops.sigmoid(x)
    s = 1 / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), s * (1 - s), rtol=1e-6)


def test_output_gradients():
    x = ops.convert_to_tensor([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=ops.convert_to_tensor([10.0, 0.5]))
    np.testing.assert_allclose(g.numpy(), [20.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match=r"output_gradients entry has shape \(3,\)"):
        tape.gradient(y, x, output_gradients=ops.ones((3,)))


def test_jacobian_and_batch_jacobian():
    x = ops.convert_to_tensor([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0, 6.0]))
    w = ops.convert_to_tensor(np.arange(6.0).reshape(3, 2))
    with GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        z = ops.matmul(ops.reshape(x, (1, 3)), w)
    jac = tape.jacobian(z, [x, w])
    assert jac[0].shape == (1, 2, 3) and jac[1].shape == (1, 2, 3, 2)
    np.testing.assert_allclose(jac[0].numpy()[0], w.numpy().T)
    xb = ops.convert_to_tensor(np.arange(6.0).reshape(2, 3))
    with GradientTape() as tape:
        tape.watch(xb)
        yb = ops.square(xb)[:, :2]
    bj = tape.batch_jacobian(yb, xb)
    assert bj.shape == (2, 2, 3)
    np.testing.assert_allclose(bj.numpy()[1], [[6.0, 0, 0], [0, 8.0, 0]])


def test_long_chain_has_no_recursion_limit():
    x = ops.convert_to_tensor(np.ones(4, "float32"))
    c = ops.convert_to_tensor(np.full(4, 1.0001, "float32"))
    n = max(10_000, sys.getrecursionlimit() * 5)
    start = time.perf_counter()
    with GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = y * c
    g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), 1.0001 ** n, rtol=1e-3)
    assert time.perf_counter() - start < 20


def test_gradients_of_intermediates_sources_targets_and_int_tensors():
    x = ops.convert_to_tensor(2.0)
    i = ops.convert_to_tensor([1, 2])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, i])
        y = x * 3.0
        z = y * y
        k = i * 2
    assert float(tape.gradient(z, y)) == 12.0
    assert float(tape.gradient(z, x)) == 36.0
    assert float(tape.gradient(x, x)) == 1.0
    assert float(tape.gradient([z, y], x)) == 39.0
    assert tape.gradient(k, i) is None


def test_tape_bookkeeping():
    x = ops.convert_to_tensor(1.0)
    tape = GradientTape()
    with tape:
        tape.watch(x)
        with pytest.raises(ValueError, match="already recording"):
            tape.__enter__()
        y = x * 2.0
        assert float(tape.gradient(y, x)) == 2.0  # inside the block, like TF
    assert tape._nodes == []
    tape.reset()
    with tape:
        tape.watch(x)
        y = x * 5.0
    assert float(tape.gradient(y, x)) == 5.0
    with pytest.raises(ValueError, match="watch expects Tensors"):
        GradientTape().watch(1.0)
    with pytest.raises(ValueError, match="sources must be Tensors"):
        with GradientTape() as t:
            pass
        t.gradient(x, [1.0])
    assert tape_mod._active == []


def test_fused_raw_backward_refuses_second_order_but_first_order_works():
    def raw_square(x):
        out = Tensor(x._value ** 2, x._device)
        if tape_mod._active:
            tape_mod.record("raw_square", (x,), (out,),
                            lambda g: (Tensor(2 * x._value * g._value, x._device),), raw=True)
        return out

    x = ops.convert_to_tensor(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = raw_square(x)
    assert float(tape.gradient(y, x)) == 6.0
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = raw_square(x)
        with pytest.raises(NotImplementedError, match="Op 'raw_square' has a fused backward"):
            inner.gradient(y, x)


def test_engine_fused_ops_support_second_order():
    x = ops.convert_to_tensor(np.array([[0.5, -1.0]]))
    w = ops.convert_to_tensor(np.array([[1.0], [2.0]]))
    with GradientTape() as outer:
        outer.watch(w)
        with GradientTape() as inner:
            inner.watch(w)
            loss = ops.sum(ops.dense(x, w, activation="relu") ** 2)
            loss = loss + ops.sum(ops.sparse_categorical_crossentropy([0], ops.dense(x, w) * w[0], from_logits=True))
        g = inner.gradient(loss, w)
    assert outer.gradient(g, w) is not None


# Issue 13 regression: second order from ONE persistent tape --------------------------
def test_persistent_tape_differentiates_its_own_gradient_inside_the_with():
    x = Variable(np.array([1.5, -2.0], "float32"))
    with GradientTape(persistent=True) as tape:
        y = ops.sum(x ** 3)
        g = tape.gradient(y, x)          # taken inside the same `with`
    np.testing.assert_allclose(g.numpy(), [6.75, 12.0])
    np.testing.assert_allclose(tape.gradient(g, x).numpy(), [9.0, -12.0])   # 6 x


def test_persistent_tape_second_order_through_a_dense_layer_matches_keras():
    import kerasish
    dense = kerasish.layers.Dense(3, activation="tanh")
    dense.build((None, 2))
    dense.set_weights([np.array([[.1, .2, .3], [-.4, .5, .6]], "float32"),
                       np.array([.1, -.1, .2], "float32")])
    x = Variable(np.array([[1.0, 2.0]], "float32"))
    with GradientTape(persistent=True) as tape:
        y = ops.sum(dense(x) ** 2)
        g = tape.gradient(y, x)
        gs = ops.sum(g * g)
    # tf.GradientTape(persistent=True) with Keras 3.15.1 gives these numbers
    np.testing.assert_allclose(g.numpy(), [[0.10874686, 0.73358476]], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(gs, dense.kernel).numpy(),
                               [[-0.27459103, -0.38985932, -0.33328763],
                                [-1.338084, -0.18613076, -0.425178]], rtol=1e-5)


def test_non_persistent_tape_inside_its_with_still_gives_first_order():
    x = Variable(np.array([2.0], "float32"))
    with GradientTape() as tape:
        y = x * x
        g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [4.0])
