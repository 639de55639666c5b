import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops


class Linear(layers.Layer):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b",
                                 trainable=False)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


def test_builds_lazily_from_first_call():
    layer = Linear(3)
    assert not layer.built
    y = layer(np.ones((2, 5)))
    assert layer.built and y.shape == (2, 3)
    assert layer.w.shape == (5, 3)


def test_auto_names_and_clear_session():
    assert [layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert layers.Dense(1, name="mine").name == "mine"
    assert layers.Dense(1).name == "dense_3"
    keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"
    assert Linear().name == "linear"
    from kerasish.utils.naming import to_snake_case
    assert [to_snake_case(n) for n in ("MaxPooling2D", "ReLU", "LSTMCell", "ABCLayer")] == \
        ["max_pooling2d", "re_lu", "lstm_cell", "abc_layer"]


def test_weight_lists_and_trainable_toggle():
    layer = Linear()
    layer(np.ones((1, 2)))
    assert [w.name for w in layer.weights] == ["w", "b"]
    assert [w.name for w in layer.trainable_weights] == ["w"]
    assert [w.name for w in layer.non_trainable_weights] == ["b"]
    layer.trainable = False
    assert layer.trainable_weights == []
    assert len(layer.non_trainable_weights) == 2
    with keras.GradientTape() as tape:
        y = ops.sum(layer(np.ones((1, 2))))
    assert tape.gradient(y, layer.w) is None


def test_nested_layers_tracked_in_lists_and_dicts():
    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.first = layers.Dense(2)
            self.stack = [layers.Dense(2), layers.Dense(2)]
            self.by_name = {"out": layers.Dense(1)}

        def call(self, x):
            x = self.first(x)
            for layer in self.stack:
                x = layer(x)
            return self.by_name["out"](x)

    block = Block()
    block(np.ones((1, 3)))
    assert [l.name for l in block._layers] == ["dense", "dense_1", "dense_2", "dense_3"]
    assert len(block.weights) == 8


def test_training_flag_propagates_to_nested_layers():
    seen = []

    class Probe(layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, x):
            return self.probe(x)

    outer = Outer()
    outer(np.ones(2), training=True)
    outer(np.ones(2))
    outer(np.ones(2), training=False)
    # real Keras 3.15.1: [None, True, None, False] -- the first call builds `outer` by
    # tracing its call first (the probe is unbuilt), with `training` not yet resolved
    assert seen == [None, True, None, False]


def test_add_loss_is_cleared_on_each_outer_call():
    class Reg(layers.Layer):
        def call(self, x):
            self.add_loss(ops.sum(x))
            return x

    layer = Reg()
    layer(np.ones(3))
    layer(np.ones(3) * 2)
    assert [float(l) for l in layer.losses] == [6.0]


def test_set_weights_checks_count_and_shapes():
    layer = Linear(2)
    layer(np.ones((1, 3)))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.zeros((3, 2))])
    with pytest.raises(ValueError, match="not compatible"):
        layer.set_weights([np.zeros((3, 3)), np.zeros(2)])
    layer.set_weights([np.ones((3, 2)), np.ones(2)])
    np.testing.assert_array_equal(layer(np.ones((1, 3))).numpy(), [[4.0, 4.0]])


def test_count_params_requires_build():
    layer = Linear()
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()


def test_float_inputs_are_cast_to_the_compute_dtype():
    layer = layers.Dense(2)
    y = layer(np.ones((1, 3), dtype="float64"))
    assert y.dtype == "float32"


def test_float_inputs_are_cast_to_an_integer_compute_dtype_as_keras():
    # Keras 3.15.1's values (/tmp/probe15/dt1.py): `__call__` casts float inputs to any
    # compute dtype; the hashing/lookup/encoding/discretization layers keep them
    x = np.array([[0.3, 0.7, 1.6]], "float32")
    out = layers.Lambda(lambda t: t * 2, dtype="int32")(x)
    assert out.dtype == "int32" and out.numpy().tolist() == [[0, 0, 2]]
    assert layers.Flatten(dtype="int32")(x).numpy().tolist() == [[0, 0, 1]]
    images = np.full((1, 3, 4, 1), 7.9, "float32")
    resized = layers.Resizing(1, 2, dtype="uint8")(images)
    assert resized.dtype == "uint8" and resized.numpy().ravel().tolist() == [7, 7]
    assert layers.Discretization(bin_boundaries=[0.5, 1.0])(x).numpy().tolist() == [[0, 1, 2]]
    assert layers.Hashing(5)(x).numpy().tolist() == [[0, 0, 4]]


def test_variable_paths_follow_name_scopes():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)], name="cnn")
    assert [w.path for w in model.weights] == ["cnn/dense/kernel", "cnn/dense/bias"]
    layer = layers.Dense(2, name="solo")
    layer(np.ones((1, 3)))
    assert layer.kernel.path == "solo/kernel"


def test_user_layer_get_config_records_init_arguments():
    layer = Linear(7, name="lin")
    config = layer.get_config()
    assert config["units"] == 7 and config["name"] == "lin"
    assert Linear.from_config(config).units == 7


def test_masks_propagate_through_supporting_layers():
    x = ops.convert_to_tensor(np.ones((2, 3), dtype="float32"))
    x._keras_mask = ops.convert_to_tensor(np.array([True, False]))
    y = layers.Dense(4)(x)
    np.testing.assert_array_equal(y._keras_mask.numpy(), [True, False])


# --- Keras-3 behaviours checked against Keras 3.15.1 (guide code) -----------------------------

def test_metrics_assigned_as_attributes_are_tracked():
    class Scorer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.mean = keras.metrics.Mean(name="score")
            self.inner = layers.Dense(2)

        def call(self, x):
            self.mean.update_state(ops.sum(x))
            return self.inner(x)

    layer = Scorer()
    layer(np.ones((2, 3), "float32"))
    assert [m.name for m in layer.metrics] == ["score"]
    assert len(layer.metrics_variables) == 2           # Mean's total and count
    assert len(layer.weights) == 2                      # metric state is not a weight


def test_auto_config_follows_keras_rules():
    class Scaled(keras.layers.Layer):
        def __init__(self, units=3, act="relu", **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def call(self, x):
            return x

    class Wraps(keras.layers.Layer):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def call(self, x):
            return x

    class NoName(keras.layers.Layer):
        def __init__(self, units):
            super().__init__()
            self.units = units

        def call(self, x):
            return x

    # Defaults included, in signature order, before trainable/dtype (as Keras prints).
    assert list(Scaled(5, name="s").get_config()) == ["name", "units", "act", "trainable", "dtype"]
    assert Scaled(5).get_config()["act"] == "relu"
    assert list(NoName(4).get_config()) == ["units", "trainable", "dtype"]   # no name arg

    class ShortKw(keras.layers.Layer):
        def __init__(self, units, **kw):
            super().__init__(**kw)
            self.units = units

        def call(self, x):
            return x

    # Keras 3.15.1 keeps `name` only for `**kwargs` spelled so (or a `name` argument):
    # ShortKw(3, name="auto").get_config() printed {'units': 3, 'trainable': True, 'dtype': ...}
    assert list(ShortKw(3, name="auto").get_config()) == ["units", "trainable", "dtype"]
    with pytest.raises(NotImplementedError, match="non-serializable argument values"):
        Wraps(layers.Dense(3)).get_config()


def test_subclassed_model_auto_config_has_only_defaults_as_in_keras():
    class WithDefault(keras.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.d = layers.Dense(units)

        def call(self, x):
            return self.d(x)

    class Required(keras.Model):
        def __init__(self, units):
            super().__init__()
            self.d = layers.Dense(units)

        def call(self, x):
            return self.d(x)

    assert WithDefault(5).get_config()["units"] == 3      # Keras records no Model arguments
    with pytest.raises(NotImplementedError):
        Required(5).get_config()


def test_activity_regularizer_is_in_the_base_config():
    config = layers.Dense(2, activity_regularizer="l2").get_config()
    assert list(config)[:4] == ["name", "trainable", "dtype", "activity_regularizer"]
    assert config["activity_regularizer"]["class_name"] == "L2"
    assert "activity_regularizer" not in layers.Dense(2).get_config()


def test_activity_regularizer_can_be_set_after_construction():
    # A plain attribute in Keras (Layer.__init__ assigns it): setting it to None after a
    # call stops the penalty; Keras 3.15.1 gives len(layer.losses) == 0 on the next call.
    dense = layers.Dense(2, activity_regularizer="l1")
    x = np.ones((3, 4), "float32")
    dense(x)
    assert len(dense.losses) == 1
    dense.activity_regularizer = None
    dense(x)
    assert dense.activity_regularizer is None and len(dense.losses) == 0


def test_unknown_keyword_argument_is_a_value_error():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        layers.Dense(2, foo=3)


def test_list_masks_go_to_the_matching_outputs():
    class Split(keras.layers.Layer):
        def call(self, x):
            return ops.split(x, 2, axis=1)

        def compute_mask(self, x, mask=None):
            return None if mask is None else ops.split(mask, 2, axis=1)

    x = ops.convert_to_tensor(np.ones((2, 4, 3), "float32"))
    x._keras_mask = ops.convert_to_tensor(np.array([[1, 1, 0, 0], [1, 0, 1, 1]], bool))
    first, second = Split()(x)
    np.testing.assert_array_equal(first._keras_mask.numpy(), [[1, 1], [1, 0]])
    np.testing.assert_array_equal(second._keras_mask.numpy(), [[0, 0], [1, 1]])


def test_sublayers_added_after_a_scan_are_still_found():
    class Stack(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = []

        def call(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    stack = Stack()
    assert stack._layers == []
    stack.blocks.append(layers.Dense(2))       # mutation of a tracked list
    stack.extra = layers.Dense(2)              # a new attribute
    stack(np.ones((1, 2), "float32"))
    assert len(stack._layers) == 2 and len(stack.weights) == 2
    del stack.extra
    assert len(stack._layers) == 1


def test_stateless_layers_are_built_at_init_unless_build_is_overridden():
    assert layers.Dropout(0.5).built and layers.ReLU().built and layers.Activation("tanh").built
    assert not layers.Flatten().built  # as Keras: built on first call

    class Scaled(layers.Dropout):
        def build(self, input_shape):
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, inputs, training=None):
            return super().call(inputs, training=training) * self.scale

    layer = Scaled(0.5)
    assert not layer.built
    assert layer(np.ones((2, 3), "float32")).shape == (2, 3)
    assert layer.built and [w.name for w in layer.weights] == ["scale"]


# Issue 13 regressions: the trainable flag and input dtype conversion ---------------
def _frozen_before_build_model():
    base = layers.Dense(5, name="base")
    base.trainable = False
    inp = keras.Input((3,))
    model = keras.Model(inp, layers.Dense(2, name="head")(base(inp)))
    return model, base


def test_layer_frozen_before_build_creates_frozen_weights():
    model, base = _frozen_before_build_model()
    assert [v.path for v in model.trainable_weights] == ["head/kernel", "head/bias"]
    assert [v.trainable for v in base.weights] == [False, False]
    lines = []
    model.summary(print_fn=lines.append, show_trainable=True)
    text = "\n".join(lines)
    # Keras 3.15.1's figures for this model
    assert "Trainable params: 12 (48.00 B)" in text
    assert "Non-trainable params: 20 (80.00 B)" in text


def test_fit_does_not_move_weights_frozen_before_build():
    model, base = _frozen_before_build_model()
    kernel = base.kernel.numpy().copy()
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0)
    np.testing.assert_array_equal(base.kernel.numpy(), kernel)


def test_unfreezing_restores_trainable_weights_but_not_state_variables():
    bn = layers.BatchNormalization()
    bn.trainable = False
    bn.build((None, 3))
    assert bn.trainable_weights == []
    bn.trainable = True
    assert [v.name for v in bn.trainable_weights] == ["gamma", "beta"]
    assert [v.trainable for v in bn.weights] == [True, True, False, False]


@pytest.mark.parametrize("rnn", ["LSTM", "GRU", "SimpleRNN"])
@pytest.mark.parametrize("dtype", ["bool", "int32"])
def test_recurrent_layers_take_bool_and_int_inputs_as_floats(rnn, dtype):
    x = np.random.default_rng(0).integers(0, 2, size=(4, 5, 3)).astype(dtype)
    layer = getattr(layers, rnn)(2)
    out = layer(x)
    assert out.dtype == "float32"
    np.testing.assert_array_equal(out.numpy(), layer(x.astype("float32")).numpy())
    with keras.GradientTape() as tape:          # GRU used to crash in the backward
        loss = ops.sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_weights)
    with keras.GradientTape() as tape:
        loss = ops.sum(layer(x.astype("float32")))
    for g, want in zip(grads, tape.gradient(loss, layer.trainable_weights)):
        np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-6)


def test_one_sgd_step_on_bool_inputs_matches_keras():
    """keras-io's addition_rnn feeds bool one-hots to an LSTM; Keras 3.15.1's numbers."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(8, 5, 3)).astype(bool)
    y = rng.normal(size=(8, 2)).astype("float32")
    model = keras.Sequential([keras.Input((5, 3)), layers.LSTM(4), layers.Dense(2)])
    r = np.random.default_rng(1)
    model.set_weights([r.normal(size=w.shape).astype("float32") * 0.5
                       for w in model.get_weights()])
    model.compile(keras.optimizers.SGD(1.0), "mse")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    kernel, recurrent = model.get_weights()[:2]
    np.testing.assert_allclose(kernel.ravel()[:3], [0.1833, 0.41197, 0.17014], atol=1e-5)
    np.testing.assert_allclose(recurrent.ravel()[:3], [0.28256, 0.44391, 0.15814], atol=1e-5)


def test_layers_without_float_math_keep_integer_inputs():
    x = np.arange(6, dtype="int32").reshape(1, 2, 3)
    assert layers.Reshape((3, 2))(x).dtype == "int32"
    assert layers.Flatten()(x).dtype == "int32"
    assert layers.Dense(2)(x).dtype == "float32"


def test_revived_user_layer_config_round_trips():
    class Plain(keras.layers.Layer):
        def call(self, x):
            return x

    config = Plain(dtype="float16").get_config()
    revived = Plain.from_config(config)        # gets a DTypePolicy object as `dtype`
    assert revived.get_config() == config


def test_seed_generator_states_are_variables_not_weights():
    # As Keras 3.15.1: ['sequential/dense/kernel', 'sequential/dense/bias',
    # 'seed_generator_1/seed_generator_state'] and one non-trainable variable.
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2),
                              keras.layers.Dropout(0.5)])
    names = [v.path for v in model.variables]
    assert names[:2] == ["sequential/dense/kernel", "sequential/dense/bias"]
    assert names[2].endswith("seed_generator_state") and len(names) == 3
    assert [v.path for v in model.non_trainable_variables] == names[2:]
    assert len(model.weights) == 2 and model.non_trainable_weights == []
    model.trainable = False
    assert len(model.non_trainable_variables) == 3


def test_losses_list_add_loss_losses_before_weight_penalties_as_keras():
    # Keras 3.15.1's Layer.losses: add_loss losses (own, then sublayers'), then the
    # weight penalties in trainable_weights order. Printed by Keras for this model:
    # [6e-05 (activity, Dense(1)), 0.96009, 0.00026, 0.04424] (probe /tmp/probe5/tw2.py);
    # here with fixed weights: the activity penalty first, then early, late2, sub/kernel.
    class Block(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.early = self.add_weight(shape=(2,), initializer="ones", name="early",
                                         regularizer=keras.regularizers.L2(0.5))
            self.sub = layers.Dense(2, kernel_regularizer=keras.regularizers.L1(1.0),
                                    kernel_initializer="ones", name="sub")

        def build(self, shape):
            self.late2 = self.add_weight(shape=(2,), initializer="ones", name="late2",
                                         regularizer=keras.regularizers.L1(0.25))

        def call(self, x):
            return self.sub(x) * self.early + self.late2

    model = keras.Sequential([keras.Input((3,)), Block(),
                              layers.Dense(1, kernel_initializer="ones",
                                           activity_regularizer=keras.regularizers.L2(0.1))])
    model(np.ones((1, 3), "float32"))
    # activity: 0.1 * (2 * (3 + 1)) ** 2 / batch 1; early: 0.5 * 2; late2: 0.25 * 2; sub: 6
    np.testing.assert_allclose([float(v) for v in model.losses], [6.4, 1.0, 0.5, 6.0], rtol=1e-6)


def test_stateless_call_uses_the_given_values_and_returns_the_new_state():
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.BatchNormalization(),
                              layers.Dropout(0.5)])
    x = np.random.RandomState(0).randn(6, 4).astype("float32")
    kernel, bias = np.full((4, 3), 0.5, "float32"), np.arange(3, dtype="float32")
    trainable = [kernel, bias, np.ones(3, "float32"), np.zeros(3, "float32")]
    before = [v.numpy() for v in model.variables]
    non_trainable = [v.value for v in model.non_trainable_variables]
    outputs, new_state = model.stateless_call(trainable, non_trainable, x, training=False)
    dense = x @ kernel + bias
    np.testing.assert_allclose(outputs.numpy(), dense / np.sqrt(1 + 1e-3), rtol=1e-6)
    outputs, new_state = model.stateless_call(trainable, non_trainable, x, training=True)
    # moving mean 0.99 * 0 + 0.01 * batch mean; the dropout seed advanced (Keras's state
    # list holds the seed generator's state too)
    np.testing.assert_allclose(new_state[0].numpy(), 0.01 * dense.mean(0), rtol=1e-5)
    assert len(new_state) == 3 and not np.array_equal(new_state[2].numpy(), non_trainable[2])
    for variable, value in zip(model.variables, before):
        np.testing.assert_array_equal(variable.numpy(), value)   # nothing changed
    with pytest.raises(ValueError, match="corresponding 1:1 to Sequential\\(\\).trainable_variables"):
        model.stateless_call(trainable[:2], non_trainable, x)
    with pytest.raises(ValueError, match="To call stateless_call, Dense must be built"):
        layers.Dense(2).stateless_call([], [], x)


def test_stateless_call_returns_added_and_regularization_losses():
    layer = layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.5))
    layer.build((None, 4))
    x = np.ones((1, 4), "float32")
    outputs, _, losses = layer.stateless_call([np.ones((4, 2), "float32"), np.zeros(2, "float32")],
                                              [], x, return_losses=True)
    np.testing.assert_array_equal(outputs.numpy(), [[4.0, 4.0]])
    assert [float(v) for v in losses] == [4.0]    # 0.5 * sum of 8 squared ones


def test_layer_paths_input_dtype_and_add_metric_as_keras():
    # Printed by Keras 3.15.1: a layer's path is set when its build runs, in its
    # parents' name scopes; layers built when made (Dropout) keep None.
    dense = layers.Dense(2, name="dd")
    assert dense.path is None
    dense.build((None, 3))
    assert (dense.path, dense.input_dtype) == ("dd", "float32")
    dropout = layers.Dropout(0.5)
    dropout(np.ones((1, 2)))
    assert dropout.path is None
    model = keras.Sequential([layers.Dense(2, name="a"), layers.Dropout(0.1, name="b")], name="s")
    model.build((None, 3))
    assert (model.path, [layer.path for layer in model.layers]) == ("s", ["s/a", None])
    inputs = keras.Input((3,))
    functional = keras.Model(inputs, layers.Dense(1, name="f2")(inputs), name="fm")
    assert (functional.path, functional.layers[1].path) == ("fm", "f2")

    class Block(layers.Layer):
        def __init__(self):
            super().__init__(name="blk")
            self.inner = layers.Dense(2, name="in")

        def build(self, input_shape):
            self.inner.build(input_shape)

        def call(self, x):
            return self.inner(x)

    block = Block()
    block(np.ones((1, 3)))
    assert (block.path, block.inner.path) == ("blk", "blk/in")
    with pytest.raises(NotImplementedError, match=r"Layer `add_metric\(\)` method is deprecated"):
        dense.add_metric(1.0)


def test_input_spec_config_round_trip():
    spec = layers.InputSpec(ndim=2, axes={-1: 3})
    assert spec.get_config() == {"dtype": None, "shape": None, "ndim": 2, "max_ndim": None,
                                 "min_ndim": None, "axes": {-1: 3}, "optional": False}
    assert repr(layers.InputSpec.from_config(spec.get_config())) == "InputSpec(ndim=2, axes={-1: 3})"


def test_add_loss_accepts_only_tensors_and_flattens_like_keras():
    # Keras 3.15.1 (TF backend) message, printed by real Keras for add_loss(1.0):
    msg = ("`add_loss()` can only be called from inside `build()` or `call()`, on a "
           "tensor input. Received invalid value: 1.0")
    layer = keras.layers.Dense(2)
    with pytest.raises(ValueError) as info:
        layer.add_loss(1.0)
    assert str(info.value) == msg
    with pytest.raises(ValueError, match="Received invalid value: <KerasTensor"):
        layer.add_loss(keras.Input(()))
    with pytest.raises(ValueError, match="on a tensor input"):
        layer.add_loss(np.ones(()))
    layer.add_loss([keras.ops.ones(()), keras.ops.zeros(())])
    assert len(layer.losses) == 2   # Keras flattens a nested loss: 2


def test_weights_in_tracking_order_and_scoped_variable_paths_like_keras():
    # Printed by Keras 3.15.1: a layer's weights come in the order they were
    # tracked (attribute-assigned Variables and add_weight alike), and a
    # Variable made inside build() gets the layer's scope in its path.
    class WithVar(keras.layers.Dense):
        def __init__(self, units, **kwargs):
            super().__init__(units, **kwargs)
            self.my_variable = keras.Variable(np.zeros((units,)), name="my_variable",
                                              dtype="float32")
            self.nt = keras.Variable(np.zeros((units,)), name="nt", trainable=False)

    layer = WithVar(1, name="l")
    layer.build((None, 2))
    assert [w.path for w in layer.weights] == ["my_variable", "l/kernel", "l/bias", "nt"]
    assert [w.shape for w in layer.get_weights()] == [(1,), (2, 1), (1,), (1,)]

    class Mixed(keras.layers.Layer):
        def __init__(self):
            super().__init__(name="m")
            self.a = keras.Variable(1.0, name="a")
            self.d = keras.layers.Dense(2)
            self.b = self.add_weight(shape=(), name="b")

        def build(self, shape):
            self.c = self.add_weight(shape=(), name="c")
            self.e = keras.Variable(2.0, name="e")

        def call(self, x):
            return self.d(x) * self.a

    mixed = Mixed()
    mixed(np.ones((1, 2)))
    assert [w.path for w in mixed.weights] == ["a", "m/b", "m/c", "m/e", "m/dense/kernel",
                                              "m/dense/bias"]
    del mixed.e   # Keras untracks a deleted variable attribute
    assert "m/e" not in [w.path for w in mixed.weights]
    with keras.name_scope("outer"):
        assert keras.Variable(1.0, name="v").path == "outer/v"
    class Listed(keras.layers.Layer):
        def __init__(self):
            super().__init__(name="l")
            self.vs = [keras.Variable(1.0, name="x"),
                       keras.Variable(2.0, name="y", trainable=False)]
            self.w = self.add_weight(shape=(), name="w")
            self.vs.append(keras.Variable(3.0, name="z"))

    assert [w.path for w in Listed().weights] == ["x", "l/w", "z", "y"]   # Keras's order


@pytest.mark.parametrize("make, shape, expected_eager", [
    # Printed by Keras 3.15.1: built False before the first call, then the build config
    # records the input shape (None for Hashing/CategoryEncoding first called on an array).
    (lambda: layers.Rescaling(0.5), (3,), (1, 3)),
    (lambda: layers.Discretization(bin_boundaries=[0.5]), (3,), (1, 3)),
    (lambda: layers.Cropping3D(1), (4, 4, 4, 1), (1, 4, 4, 4, 1)),
    (lambda: layers.ZeroPadding3D(1), (4, 4, 4, 1), (1, 4, 4, 4, 1)),
    (lambda: layers.UpSampling3D(1), (4, 4, 4, 1), (1, 4, 4, 4, 1)),
    (lambda: layers.AdaptiveAveragePooling2D((2, 2)), (4, 4, 1), (1, 4, 4, 1)),
    (lambda: layers.Hashing(4), (1,), None),
    (lambda: layers.CategoryEncoding(4), (1,), None),
])
def test_stateless_layers_build_at_first_call_like_keras(make, shape, expected_eager):
    layer = make()
    assert layer.built is False and layer.get_build_config() is None
    layer(keras.Input(shape))
    assert layer.built is True
    assert layer.get_build_config() == {"input_shape": (None,) + shape}
    eager = make()
    eager(np.ones((1,) + shape))
    assert eager.get_build_config() == {"input_shape": expected_eager}


def test_missing_super_init_and_argless_build_like_keras():
    # Keras 3.15.1's RuntimeError text for a layer whose __init__ skips super().__init__():
    class NoSuper(layers.Layer):
        def __init__(self):
            self.x = 1

    with pytest.raises(RuntimeError) as info:
        NoSuper()(np.ones((1, 2)))
    assert str(info.value) == ("In layer 'NoSuper', you forgot to call `super().__init__()` "
                               "as the first statement in the `__init__()` method. Go add it!")

    class ArglessBuild(layers.Layer):   # Keras calls `build()` with no shape (output (1, 2))
        def build(self):
            self.w = self.add_weight(shape=(2,), initializer="ones")

        def call(self, x):
            return x * self.w

    assert ArglessBuild()(np.ones((1, 2))).shape == (1, 2)
    assert ArglessBuild()(keras.Input((2,))).shape == (None, 2)


def test_input_shape_argument_warns_like_keras():
    # Keras 3.15.1 warns for input_shape/input_dim (its text), not for a plain layer.
    text = ("Do not pass an `input_shape`/`input_dim` argument to a layer. When using "
            "Sequential models, prefer using an `Input(shape)` object as the first layer in "
            "the model instead.")
    for kwargs in ({"input_shape": (4,)}, {"input_dim": 4}):
        with pytest.warns(UserWarning) as record:
            layers.Dense(2, **kwargs)
        assert [str(w.message) for w in record] == [text]
