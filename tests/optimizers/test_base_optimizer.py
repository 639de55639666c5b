"""The shared pipeline: clipping, decay, constraints, EMA, accumulation, config, get."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops, optimizers
from kerasish.optimizers import schedules
from optimizer_helpers import make_variables

ALL = [optimizers.SGD, optimizers.Adam, optimizers.AdamW, optimizers.RMSprop, optimizers.Adagrad,
       optimizers.Adadelta, optimizers.Adamax, optimizers.Nadam, optimizers.Lion]


def f32(values):
    return np.array(values, np.float32)


def apply(opt, pairs):
    opt.apply_gradients([(f32(g), v) for g, v in pairs])


# Clipping ---------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(clipnorm=1.0, clipvalue=1.0),
                                    dict(clipnorm=1.0, global_clipnorm=1.0),
                                    dict(clipvalue=1.0, global_clipnorm=1.0)])
def test_clip_options_are_exclusive(kwargs):
    with pytest.raises(ValueError, match="Only one of"):
        optimizers.SGD(**kwargs)


def test_clipvalue():
    w = keras.Variable(f32([0.0, 0.0, 0.0]))
    apply(optimizers.SGD(learning_rate=1.0, clipvalue=0.5), [([2.0, -0.1, -3.0], w)])
    np.testing.assert_allclose(w.numpy(), [-0.5, 0.1, 0.5])


def test_clipnorm_is_per_tensor():
    a, b = keras.Variable(f32([0.0, 0.0])), keras.Variable(f32([0.0]))
    apply(optimizers.SGD(learning_rate=1.0, clipnorm=1.0), [([3.0, 4.0], a), ([0.5], b)])
    np.testing.assert_allclose(a.numpy(), [-0.6, -0.8], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.5])  # already within the norm


def test_global_clipnorm_non_finite_gives_nan():
    w = keras.Variable(f32([0.0, 0.0]))
    apply(optimizers.SGD(learning_rate=1.0, global_clipnorm=1.0), [([np.inf, 1.0], w)])
    assert np.isnan(w.numpy()).all()


# Pipeline -----------------------------------------------------------------------
def test_constraint_applied_after_update():
    w = keras.Variable(f32([0.5, 0.5]), constraint=lambda x: ops.clip(x, 0.0, 1.0))
    apply(optimizers.SGD(learning_rate=1.0), [([-5.0, 5.0], w)])
    np.testing.assert_array_equal(w.numpy(), [1.0, 0.0])


def test_weight_decay_on_any_optimizer():
    w = keras.Variable(f32([2.0]))
    apply(optimizers.SGD(learning_rate=0.1, weight_decay=0.5), [([1.0], w)])
    np.testing.assert_allclose(w.numpy(), [2.0 - 2.0 * 0.5 * 0.1 - 0.1], rtol=1e-6)


def test_loss_scale_factor_unscales_gradients():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=1.0, loss_scale_factor=4.0)
    apply(opt, [([4.0], w)])
    np.testing.assert_allclose(w.numpy(), [-1.0])
    assert float(opt.scale_loss(ops.convert_to_tensor(2.0))) == 8.0


def test_gradient_accumulation_updates_every_n_steps_with_the_mean():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=2)
    apply(opt, [([1.0], w)])
    np.testing.assert_array_equal(w.numpy(), [0.0])
    apply(opt, [([3.0], w)])
    np.testing.assert_allclose(w.numpy(), [-2.0])
    assert int(opt._iterations) == 2 and int(opt.iterations) == 1
    assert [v.name for v in opt.variables] == ["iteration", "learning_rate",
                                                 f"{w.path}_gradient_accumulator"]


def test_gradient_accumulation_rejects_small_values():
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        optimizers.Adam(gradient_accumulation_steps=1)


def test_ema_average_and_finalize():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=1.0, use_ema=True, ema_momentum=0.5)
    apply(opt, [([1.0], w)])  # w = -1; first step: average = w
    apply(opt, [([1.0], w)])  # w = -2; average = 0.5 * -1 + 0.5 * -2
    assert opt.variables[2].path == f"sgd/{w.path}_average"
    np.testing.assert_allclose(opt.variables[2].numpy(), [-1.5])
    np.testing.assert_allclose(w.numpy(), [-2.0])
    opt.finalize_variable_values([w])
    np.testing.assert_allclose(w.numpy(), [-1.5])


def test_ema_overwrite_frequency():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=1.0, use_ema=True, ema_momentum=0.5,
                         ema_overwrite_frequency=2)
    apply(opt, [([1.0], w)])
    apply(opt, [([1.0], w)])
    np.testing.assert_allclose(w.numpy(), [-1.5])  # overwritten by the average


def test_none_gradients_are_dropped_with_a_warning():
    a, b = keras.Variable(f32([1.0])), keras.Variable(f32([1.0]), name="unused")
    opt = optimizers.SGD(learning_rate=1.0)
    with pytest.warns(UserWarning, match="unused"):
        opt.apply_gradients([(f32([1.0]), a), (None, b)])
    np.testing.assert_array_equal((a.numpy(), b.numpy()), ([0.0], [1.0]))
    with pytest.raises(ValueError, match="No gradients"):
        opt.apply_gradients([(None, a), (None, b)])


def test_apply_with_built_variables_and_unknown_variable():
    a, b = make_variables()
    opt = optimizers.SGD(learning_rate=1.0)
    with pytest.raises(ValueError, match="must already be built"):
        opt.apply([np.ones((2, 3), np.float32)])
    opt.build([a, b])
    opt.apply([np.ones((2, 3), np.float32), np.ones(3, np.float32)])
    assert int(opt.iterations) == 1
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(f32([1.0]), keras.Variable(f32([0.0])))])


def test_apply_gradients_returns_iterations():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.Adam()
    for _ in range(3):
        iterations = opt.apply_gradients([(f32([1.0]), w)])
    assert iterations is opt.iterations and int(iterations) == 3


def test_unknown_and_deprecated_arguments():
    with pytest.raises(ValueError, match="not recognized"):
        optimizers.Adam(betas=0.9)
    with pytest.warns(UserWarning, match="decay"):
        optimizers.Adam(decay=0.1)


def test_custom_optimizer_with_ops_update_step():
    class SignSGD(optimizers.Optimizer):
        def update_step(self, gradient, variable, learning_rate):
            self.assign_sub(variable, ops.multiply(ops.sign(gradient), learning_rate))

    w = keras.Variable(f32([0.0, 0.0]))
    opt = SignSGD(learning_rate=0.5)
    apply(opt, [([3.0, -0.1], w)])
    np.testing.assert_allclose(w.numpy(), [-0.5, 0.5])
    assert opt.name == "sign_sgd"


# Learning rate --------------------------------------------------------------------
def test_learning_rate_is_a_settable_variable():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=0.1)
    lr_variable = opt.learning_rate
    assert isinstance(lr_variable, keras.Variable) and lr_variable.path == "sgd/learning_rate"
    opt.learning_rate = 0.5
    assert opt.learning_rate is lr_variable and float(lr_variable) == 0.5
    opt.learning_rate.assign(2.0)
    apply(opt, [([1.0], w)])
    np.testing.assert_allclose(w.numpy(), [-2.0])


def test_schedule_learning_rate():
    w = keras.Variable(f32([0.0]))
    opt = optimizers.SGD(learning_rate=schedules.ExponentialDecay(1.0, 1, 0.5))
    assert [v.name for v in opt.variables] == ["iteration"]
    for _ in range(3):
        apply(opt, [([1.0], w)])
    np.testing.assert_allclose(w.numpy(), [-1.75])
    assert float(opt.learning_rate) == 0.125
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.1


def test_replacing_variable_learning_rate_by_schedule_untracks_it():
    opt = optimizers.SGD()
    opt.learning_rate = schedules.ExponentialDecay(1.0, 1, 0.5)
    assert [v.name for v in opt.variables] == ["iteration"]
    assert isinstance(opt.get_config()["learning_rate"], dict)


def test_callable_learning_rate():
    w = keras.Variable(f32([0.0]))
    apply(optimizers.SGD(learning_rate=lambda: 0.25), [([1.0], w)])
    np.testing.assert_allclose(w.numpy(), [-0.25])


def test_invalid_learning_rate():
    with pytest.raises(ValueError, match="learning_rate"):
        optimizers.SGD(learning_rate="fast")


@pytest.mark.parametrize("lr", [1, np.float32(0.5), True])
def test_learning_rate_must_be_a_python_float_like_keras(lr):
    # Keras 3.15.1 checks `isinstance(learning_rate, float)`: SGD(learning_rate=1) fails.
    with pytest.raises(ValueError, match="should be float"):
        optimizers.SGD(learning_rate=lr)
    assert optimizers.SGD(learning_rate=np.float64(0.5)).get_config()["learning_rate"] == 0.5


def test_argument_checks_run_in_kerass_order_after_naming():
    # Keras checks gradient_accumulation_steps, then the EMA arguments, then the clip
    # arguments, after the optimizer took its auto name (recorded from Keras 3.15.1:
    # three rejected Adams, then Adam().name == "adam_3" in a fresh process).
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        optimizers.Adam(gradient_accumulation_steps=1, clipnorm=1.0, clipvalue=2.0)
    with pytest.raises(ValueError, match="ema_momentum"):
        optimizers.Adam(use_ema=True, ema_momentum=2.0, clipnorm=1, global_clipnorm=2)
    first = optimizers.Adam().name
    with pytest.raises(ValueError, match="Only one of"):
        optimizers.Adam(clipnorm=1.0, clipvalue=2.0)
    number = int(first.rpartition("_")[2]) if first != "adam" else 0
    assert optimizers.Adam().name == f"adam_{number + 2}"


# Variables, state, config ----------------------------------------------------------
def test_variables_order_with_ema_and_accumulation():
    opt = optimizers.Adam(use_ema=True, gradient_accumulation_steps=2)
    opt.build(make_variables())
    assert [v.name for v in opt.variables] == [
        "iteration", "learning_rate", "dense_kernel_average", "dense_bias_average",
        "dense_kernel_gradient_accumulator", "dense_bias_gradient_accumulator",
        "dense_kernel_momentum", "dense_kernel_velocity", "dense_bias_momentum",
        "dense_bias_velocity"]
    assert all(not v.trainable for v in opt.variables)


def test_save_and_load_own_variables_round_trip():
    src = optimizers.Adam()
    variables = make_variables()
    src.apply_gradients([(np.ones(v.shape, np.float32), v) for v in variables])
    store = {}
    src.save_own_variables(store)
    dst = optimizers.Adam()
    dst.build(make_variables())
    dst.load_own_variables(store)
    for a, b in zip(src.variables, dst.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(dst.iterations) == 1


@pytest.mark.parametrize("cls", ALL)
def test_config_round_trip(cls):
    opt = cls(learning_rate=0.05, clipnorm=2.0, name="opt")
    config = opt.get_config()
    assert list(config)[:11] == [
        "name", "learning_rate", "weight_decay", "clipnorm", "global_clipnorm", "clipvalue",
        "use_ema", "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
        "gradient_accumulation_steps"]
    assert config["learning_rate"] == float(np.float32(0.05))
    assert cls.from_config(config).get_config() == config


def test_config_round_trip_with_schedule():
    opt = optimizers.Adam(learning_rate=schedules.CosineDecay(0.1, 100))
    config = opt.get_config()
    assert config["learning_rate"]["class_name"] == "CosineDecay"
    clone = optimizers.Adam.from_config(config)
    assert isinstance(clone._learning_rate, schedules.CosineDecay)


@pytest.mark.parametrize("identifier,cls", [("adam", optimizers.Adam), ("SGD", optimizers.SGD),
                                            ("RmsProp", optimizers.RMSprop),
                                            ("adamw", optimizers.AdamW), ("lion", optimizers.Lion)])
def test_get_by_name_is_case_insensitive(identifier, cls):
    assert type(optimizers.get(identifier)) is cls


def test_get_instance_dict_and_none():
    opt = optimizers.Nadam()
    assert optimizers.get(opt) is opt and optimizers.get(None) is None
    clone = optimizers.get(optimizers.serialize(opt))
    assert type(clone) is optimizers.Nadam and clone.get_config() == opt.get_config()


def test_get_unknown_name_gives_kerass_message():
    with pytest.raises(ValueError, match="^Could not interpret optimizer identifier: adamm$"):
        optimizers.get("adamm")


def test_serialize_format():
    data = optimizers.serialize(optimizers.Adam())
    assert data["module"] == "keras.optimizers" and data["class_name"] == "Adam"
    assert data["registered_name"] is None and data["config"]["amsgrad"] is False
    restored = optimizers.deserialize(data)
    assert type(restored) is optimizers.Adam


# Training ----------------------------------------------------------------------------
@pytest.mark.parametrize("name,lr,steps", [
    ("sgd", 0.1, 200), ("adam", 0.05, 200), ("adamw", 0.05, 200), ("rmsprop", 0.02, 200),
    ("adagrad", 0.5, 200), ("adadelta", 10.0, 300), ("adamax", 0.1, 200), ("nadam", 0.05, 200),
    ("lion", 0.01, 400)])
def test_least_squares_converges(name, lr, steps):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = x @ f32([[1.5], [-2.0], [0.5]]) + 0.3
    x, y = ops.convert_to_tensor(x), ops.convert_to_tensor(y)
    w, b = keras.Variable(np.zeros((3, 1), np.float32)), keras.Variable(f32([0.0]))
    opt = optimizers.get({"class_name": name, "config": {"learning_rate": lr}})

    def loss_fn():
        return ops.mean(ops.square(ops.matmul(x, w) + b - y))

    initial = float(loss_fn())
    for _ in range(steps):
        with keras.GradientTape() as tape:
            loss = loss_fn()
        opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
    assert float(loss_fn()) < 0.01 * initial


def test_overwrite_with_gradient_sets_the_variable_to_its_gradient():
    v = keras.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v.overwrite_with_gradient is False
    v.overwrite_with_gradient = True
    v2 = keras.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = keras.optimizers.SGD(learning_rate=1.0)
    optimizer.apply_gradients([(np.full((2, 2), 1.5, "float32"), v),
                               (np.ones((2, 2), "float32"), v2)])
    np.testing.assert_array_equal(v.numpy(), np.full((2, 2), 1.5))
    np.testing.assert_array_equal(v2.numpy(), [[0.0, 1.0], [2.0, 3.0]])
    assert int(optimizer.iterations) == 1
    layer = keras.layers.Dense(2)
    scale = layer.add_weight(shape=(), initializer="ones", overwrite_with_gradient=True)
    assert scale.overwrite_with_gradient is True


def test_overwrite_with_gradient_under_accumulation_keeps_the_maximum():
    # Keras: between update steps the accumulator keeps max(grad, accumulator);
    # on the update step the variable becomes that maximum and the accumulator 0.
    v = keras.Variable([[1.0, 2.0], [3.0, 4.0]])
    v.overwrite_with_gradient = True
    v2 = keras.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = keras.optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=2)
    ones, twos = np.ones((2, 2), "float32"), np.full((2, 2), 2.0, "float32")
    optimizer.apply_gradients([(twos, v), (ones, v2)])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(optimizer._accumulated_gradients[0].numpy(), twos)
    optimizer.apply_gradients([(ones, v), (twos, v2)])
    np.testing.assert_array_equal(v.numpy(), twos)
    np.testing.assert_array_equal(optimizer._accumulated_gradients[0].numpy(), np.zeros((2, 2)))
    np.testing.assert_allclose(v2.numpy(), [[-0.5, 0.5], [1.5, 2.5]])


def test_clip_gradients_accepts_tensors():
    grad = ops.convert_to_tensor([100.0, 100.0])
    clipped = optimizers.SGD(clipnorm=1)._clip_gradients([grad])
    np.testing.assert_allclose(np.asarray(clipped[0]), [2 ** 0.5 / 2, 2 ** 0.5 / 2], rtol=1e-6)
    clipped = optimizers.SGD(clipvalue=1)._clip_gradients([grad])
    np.testing.assert_allclose(np.asarray(clipped[0]), [1.0, 1.0])
    clipped = optimizers.SGD(global_clipnorm=1)._clip_gradients(
        [ops.convert_to_tensor([50.0, 100.0])])
    np.testing.assert_allclose(np.asarray(clipped[0]), np.array([50.0, 100.0]) / np.sqrt(12500),
                               rtol=1e-6)


def test_stateless_apply_returns_new_values_and_changes_nothing():
    variable = keras.Variable(np.array([1.0, 2.0], "float32"))
    optimizer = keras.optimizers.SGD(learning_rate=0.5, momentum=0.5)
    optimizer.build([variable])
    state = [v.value for v in optimizer.variables]
    new_values, new_state = optimizer.stateless_apply(state, [np.array([1.0, 1.0], "float32")],
                                                      [np.array([10.0, 20.0], "float32")])
    np.testing.assert_array_equal(new_values[0].numpy(), [9.5, 19.5])
    np.testing.assert_array_equal(variable.numpy(), [1.0, 2.0])
    assert int(optimizer.iterations.numpy()) == 0
    assert int(new_state[0].numpy()) == 1             # iterations, in the returned state
    with pytest.raises(ValueError, match="`optimizer_variables` must be a list of tensors"):
        optimizer.stateless_apply(state[:1], [np.ones(2)], [np.ones(2)])


def test_get_does_not_know_lamb_like_keras(tmp_path):
    # Keras 3.15.1: optimizers.get("lamb") / get("Lamb") / get({"class_name": "lamb", ...})
    # raise "Could not interpret optimizer identifier: ..." (Lamb is not in its
    # ALL_OBJECTS); compile(optimizer=Lamb()) and loading such a model work.
    for identifier in ("lamb", "Lamb", {"class_name": "lamb", "config": {}}):
        with pytest.raises(ValueError) as info:
            keras.optimizers.get(identifier)
        assert str(info.value) == f"Could not interpret optimizer identifier: {identifier}"
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Lamb(), loss="mse")
    model.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)
    model.save(str(tmp_path / "lamb.keras"))
    loaded = keras.models.load_model(str(tmp_path / "lamb.keras"))
    assert type(loaded.optimizer).__name__ == "Lamb"


def test_setting_a_float_over_a_schedule_or_a_callable_fails_as_keras():
    # Keras 3.15.1: a schedule refuses with TypeError; a plain callable has no `assign`.
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)
    with pytest.raises(TypeError) as info:
        keras.optimizers.SGD(schedule).learning_rate = 0.3
    assert str(info.value) == (
        "This optimizer was created with a `LearningRateSchedule` object as its "
        "`learning_rate` constructor argument, hence its learning rate is not settable. "
        "If you need the learning rate to be settable, you should instantiate the "
        "optimizer with a float `learning_rate` argument.")

    def rate():
        return 0.1

    opt = keras.optimizers.SGD(rate)
    with pytest.raises(AttributeError, match="^'function' object has no attribute 'assign'$"):
        opt.learning_rate = 0.3
    opt.learning_rate = schedule  # a schedule may replace it
    with pytest.raises(TypeError, match="LearningRateSchedule"):
        opt.learning_rate = 0.3


def test_apply_without_variables_errors_as_keras():
    v = keras.Variable(np.ones(2, "float32"))
    w = keras.Variable(np.ones(3, "float32"))
    opt = keras.optimizers.Adam()
    with pytest.raises(ValueError) as info:
        opt.apply([np.ones(2, "float32")])
    assert str(info.value) == (  # Keras 3.15.1's text, trailing space included
        "When passing `grads` without `variables`, the optimizer must already be built on "
        "a list of variables. Call `optimizer.build(trainable_variables)` first. ")
    opt.build([v, w])
    with pytest.raises(ValueError) as info:
        opt.apply([np.ones(2, "float32")])
    assert str(info.value) == (
        "When passing `grads` as a list of gradient tensors, the gradients must match "
        "`optimizer.variables` one-to-on. Received a list of 1 gradients, but the optimizer "
        "is tracking 2 trainable variables.")
