"""keras.Operation and keras.Function against Keras 3.15.1 (fixtures/ops/function.json,
written by fixtures/ops/make_function.py in the oracle venv)."""
import json
import os
import re

import numpy as np
import pytest

import kerasish as keras
from kerasish import ops

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "ops", "function.json")) as f:
    FIX = json.load(f)


def _base(name):
    return re.sub(r"_\d+$", "", name)


class Scale(keras.Operation):
    def __init__(self, factor=2.0, name=None):
        super().__init__(name=name)
        self.factor = factor

    def call(self, x):
        return ops.reshape(x, (-1,)) * self.factor


class Square(keras.Operation):
    def call(self, x):
        return x * x

    def compute_output_spec(self, x):
        return keras.KerasTensor(x.shape, x.dtype)


def test_function_of_bare_keras_tensors():
    fix = FIX["bare"]
    a = keras.KerasTensor(shape=(None, 2, 3))
    b = keras.KerasTensor(shape=(None, 2, 3))
    fn = keras.Function(inputs=[a, b], outputs=ops.sigmoid(a + b))
    # Auto names carry a process-wide counter ("add_3"): compared without it.
    assert [_base(repr(o)[:-1]) + ">" for o in fn.operations] == fix["operations"]
    assert [type(o).__name__ for o in fn.operations] == ["Add", "Sigmoid"]
    assert fn.name.startswith("function")
    value = fn([np.array(fix["a"], "float32"), np.array(fix["b"], "float32")])
    np.testing.assert_allclose(np.asarray(value), fix["value"], rtol=1e-6, atol=1e-7)
    spec = fn.compute_output_spec([keras.KerasTensor((7, 2, 3)), keras.KerasTensor((7, 2, 3))])
    assert list(spec.shape) == fix["spec"]
    assert fn.inputs == [a, b] and len(fn.outputs) == 1


def _graph():
    i = keras.Input((3,), name="x")
    dense = keras.layers.Dense(2, name="d")
    y = dense(i)
    dense.set_weights([np.arange(6, dtype="float32").reshape(3, 2) / 10 - 0.2,
                       np.array([0.1, -0.3], "float32")])
    sq, scale = Square(name="sq"), Scale(3.0, name="scale")
    z = ops.relu(sq(y) - 0.5)
    w = scale(z)
    return i, y, z, w, sq, scale


def test_function_of_layers_ops_and_operations():
    fix = FIX["graph"]
    i, y, z, w, sq, scale = _graph()
    fn = keras.Function(i, {"z": z, "w": w, "y": y}, name="g")
    assert fn.name == "g"
    names = [o.name for o in fn.operations]
    assert [_base(n) for n in names] == fix["operations"]
    assert [type(o).__name__ for o in fn.operations] == fix["types"]
    value = fn(np.array(fix["x"], "float32"))
    for key in ("z", "w", "y"):
        np.testing.assert_allclose(np.asarray(value[key]), fix["value"][key], rtol=1e-5,
                                   atol=1e-6)
    spec = fn.compute_output_spec(keras.KerasTensor((4, 3)))
    assert {k: list(v.shape) for k, v in spec.items()} == fix["spec"]
    assert {k: list(v) for k, v in fn.compute_output_shape((6, 3)).items()} == \
        fix["output_shape"]
    assert list(w.shape) == fix["scale_spec"] and list(sq.output.shape) == fix["sq_spec"]
    assert scale.get_config() == fix["scale_config"]
    assert sq.get_config() == fix["sq_config"]
    assert Scale.from_config(scale.get_config()).factor == 3.0


def test_operation_eager_and_symbolic():
    sq = Square()
    np.testing.assert_allclose(np.asarray(sq(np.array([2.0, -3.0], "float32"))),
                               FIX["graph"]["sq_eager"])
    x = keras.Input((3,))
    out = sq(x)
    assert isinstance(out, keras.KerasTensor) and out.shape == (None, 3)
    assert sq.input is x and sq.output is out
    assert repr(sq).startswith("<Operation name=square")
    # Layers are Operations, and functional models are Functions, as in Keras.
    assert isinstance(keras.layers.Dense(2), keras.Operation)
    assert isinstance(keras.Model(x, out), keras.Function)


def test_operation_is_differentiable_through_its_ops():
    x = keras.Variable(np.array([1.5, -2.0]), dtype="float64")
    with keras.GradientTape() as tape:
        y = ops.sum(Square()(x))
    np.testing.assert_allclose(np.asarray(tape.gradient(y, x)), [3.0, -4.0])


def test_function_nested_in_a_function():
    fix = FIX["nested"]
    i, y, z, w, sq, scale = _graph()
    inner = keras.Function(i, z, name="inner")
    j = keras.Input((3,), name="j")
    outer = keras.Function(j, ops.sum(inner(j), axis=-1), name="outer")
    names = [o.name for o in outer.operations]
    assert [_base(n) for n in names] == fix["operations"]
    assert len(inner._inbound_nodes) == fix["inbound"]
    np.testing.assert_allclose(np.asarray(outer(np.array(FIX["graph"]["x"], "float32"))),
                               fix["value"], rtol=1e-5, atol=1e-6)


def _message(key):
    text = FIX["errors"][key][1]
    return text.split("\x1b[1m")[-1].split("\x1b[0m")[0]


def test_errors_read_as_keras():
    i, y, z, w, sq, scale = _graph()
    fn = keras.Function(i, z)
    with pytest.raises(ValueError) as e:
        fn(np.ones((2, 4), "float32"))
    assert str(e.value) == _message("shape")
    with pytest.raises(ValueError, match="Function was called with an invalid input structure"):
        fn([np.ones((2, 3), "float32")])
    with pytest.raises(ValueError, match="`inputs` argument cannot be empty"):
        keras.Function([], z)
    with pytest.raises(ValueError) as e:
        Square(name="a/b")
    assert str(e.value) == _message("name")
    with pytest.raises(ValueError, match="not connected to `inputs`"):
        keras.Function(keras.Input((3,)), z)


def test_intermediate_inputs_leave_their_producers_out():
    # As Keras's map_graph: the op that made an intermediate input is outside the graph.
    x = keras.Input(batch_shape=(None, 3), name="x")
    b = x * 2 + 1
    fn = keras.Function(b, b ** 2)
    assert [type(op).__name__ for op in fn.operations] == ["Power"]
    np.testing.assert_allclose(np.asarray(fn(np.full((2, 3), 3.0))), np.full((2, 3), 9.0))


class _Split(keras.Operation):
    def call(self, x):
        return x, x + 1


def test_outputs_of_a_multi_output_operation_are_a_list():
    split = _Split()
    out = split(keras.KerasTensor((2, 3)))
    assert isinstance(out, tuple) and split.output == list(out)   # Keras's flat list
    eager = split(np.ones((2, 3)))
    np.testing.assert_allclose(np.asarray(eager[1]), np.full((2, 3), 2.0))
