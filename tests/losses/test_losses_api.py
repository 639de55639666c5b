"""The Loss base class (reductions, weights, masks, dtype), lookup and serialization."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-5, atol=tol)


class AbsError(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return ops.abs(y_pred - y_true)


Y_TRUE = np.zeros((2, 3), "float32")
Y_PRED = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32")


def test_reductions_of_a_custom_loss():
    close(AbsError()(Y_TRUE, Y_PRED), 21.0 / 6)
    close(AbsError(reduction="sum")(Y_TRUE, Y_PRED), 21.0)
    close(AbsError(reduction=None)(Y_TRUE, Y_PRED), Y_PRED)


def test_loss_names_are_unique_snake_case_by_default():
    assert AbsError().name == "abs_error" and AbsError().name == "abs_error_1"
    assert AbsError(name="l1").name == "l1"


def test_sample_weight_does_not_change_the_divisor_of_the_default_reduction():
    weights = np.array([[0.5], [0.0]], "float32")
    # (2, 1) weights broadcast over the last axis: (0.5 * 6 + 0) / 6 elements
    close(AbsError()(Y_TRUE, Y_PRED, sample_weight=weights), 3.0 / 6)
    # ... while "mean_with_sample_weight" divides by the sum of the weights given
    close(AbsError(reduction="mean_with_sample_weight")(Y_TRUE, Y_PRED, sample_weight=weights),
          3.0 / 0.5)
    with pytest.raises(ValueError, match=r"Incompatible shapes: \[2,3\] vs. \[2\]"):
        AbsError()(Y_TRUE, Y_PRED, sample_weight=[0.5, 0.0])   # (2, 3) vs (2,), as in Keras
    close(AbsError(reduction="sum")(Y_TRUE, Y_PRED, sample_weight=2.0), 42.0)
    elementwise = np.array([[1, 0, 0], [0, 0, 1]], "float32")
    close(AbsError()(Y_TRUE, Y_PRED, sample_weight=elementwise), 7.0 / 6)


def test_mse_with_per_sample_weights_of_shape_batch_by_one():
    loss = keras.losses.MeanSquaredError()
    y_true, y_pred = [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]
    close(loss(y_true, y_pred, sample_weight=[[2.0], [0.0]]), (2 * 0.5) / 2)
    close(loss(y_true, y_pred, sample_weight=[2.0, 0.0]), (2 * 0.5) / 2)


def test_keras_mask_on_predictions_averages_over_valid_entries():
    y_pred = ops.convert_to_tensor([[1.0], [3.0], [100.0]])
    y_pred._keras_mask = ops.convert_to_tensor([True, True, False])
    loss = keras.losses.MeanAbsoluteError()
    close(loss(np.zeros((3, 1)), y_pred), 2.0)
    close(keras.losses.MeanAbsoluteError(reduction="sum")(np.zeros((3, 1)), y_pred), 4.0)


def test_inputs_are_cast_to_the_loss_dtype():
    value = keras.losses.MeanSquaredError()(np.zeros(2), np.ones(2, "float64"))
    assert value.dtype == "float32"
    value = keras.losses.MeanSquaredError(dtype="float64")([0.0, 0.0], [1.0, 3.0])
    assert value.dtype == "float64"
    close(value, 5.0)


def test_result_is_a_tensor_on_the_inputs_device():
    value = keras.losses.CategoricalCrossentropy()([[0.0, 1.0]], [[0.3, 0.7]])
    assert keras.ops.is_tensor(value) and value.shape == ()


def test_invalid_reduction_names_the_argument_and_value():
    with pytest.raises(ValueError, match="reduction=average"):
        keras.losses.MeanSquaredError(reduction="average")


def test_categorical_crossentropy_axis_must_be_an_int():
    with pytest.raises(ValueError, match="axis"):
        keras.losses.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.5]], axis=True)


def test_categorical_crossentropy_warns_for_a_single_class():
    with pytest.warns(SyntaxWarning, match="binary_crossentropy"):
        keras.losses.categorical_crossentropy([[1.0]], [[0.7]])


def test_get_resolves_names_aliases_and_classes():
    assert keras.losses.get("mse") is keras.losses.mean_squared_error
    assert keras.losses.get("MAE") is keras.losses.mean_absolute_error
    assert keras.losses.get("bce") is keras.losses.binary_crossentropy
    assert keras.losses.get("KLD") is keras.losses.kl_divergence
    assert keras.losses.get("sparse_categorical_crossentropy") is \
        keras.losses.sparse_categorical_crossentropy
    loss = keras.losses.get("SparseCategoricalCrossentropy")
    assert isinstance(loss, keras.losses.SparseCategoricalCrossentropy)
    assert keras.losses.get(None) is None
    assert keras.losses.get(keras.losses.huber) is keras.losses.huber
    configured = keras.losses.get({"class_name": "CategoricalCrossentropy",
                                   "config": {"from_logits": True}})
    assert configured.from_logits is True


def test_get_unknown_name_gives_kerass_message():
    with pytest.raises(ValueError, match="^Could not interpret loss identifier: msee$"):
        keras.losses.get("msee")
    with pytest.raises(ValueError, match="^Could not interpret loss identifier: 42$"):
        keras.losses.get(42)


@pytest.mark.parametrize("loss", [
    keras.losses.Huber(delta=2.5, reduction="sum", name="h"),
    keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.4, gamma=3.0),
    keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1, axis=1),
    keras.losses.SparseCategoricalCrossentropy(ignore_class=255),
    keras.losses.CosineSimilarity(axis=0),
    keras.losses.Tversky(alpha=0.2, beta=0.8),
])
def test_config_round_trip(loss):
    config = loss.get_config()
    rebuilt = type(loss).from_config(config)
    assert rebuilt.get_config() == config
    serialized = keras.losses.serialize(loss)
    assert serialized["class_name"] == type(loss).__name__
    assert serialized["module"] == "keras.losses"
    assert keras.losses.deserialize(serialized).get_config() == config


def test_keras_config_keys():
    assert keras.losses.MeanSquaredError().get_config() == {
        "name": "mean_squared_error", "reduction": "sum_over_batch_size"}
    assert keras.losses.BinaryCrossentropy().get_config() == {
        "name": "binary_crossentropy", "reduction": "sum_over_batch_size",
        "from_logits": False, "label_smoothing": 0.0, "axis": -1}


def test_loss_function_wrapper_config_round_trip():
    wrapper = keras.losses.LossFunctionWrapper(keras.losses.huber, name="h", delta=3.0)
    config = wrapper.get_config()
    assert config["delta"] == 3.0
    rebuilt = keras.losses.LossFunctionWrapper.from_config(config)
    assert rebuilt.fn is keras.losses.huber
    close(rebuilt([[0.0]], [[5.0]]), 3.0 * 5.0 - 4.5)


def test_deserialize_a_function_by_name():
    assert keras.losses.deserialize("mean_squared_error") is keras.losses.mean_squared_error
    assert keras.losses.deserialize(keras.losses.serialize(keras.losses.poisson)) is \
        keras.losses.poisson


def test_functions_serialize_in_keras_function_form():
    # Keras 3.15.1 prints these (losses/metrics.serialize are serialize_keras_object) and
    # writes the same form into get_compile_config().
    def my_loss(y, p):
        return keras.ops.mean((y - p) ** 2)

    def form(name):
        return {"module": "builtins", "class_name": "function", "config": name,
                "registered_name": "function"}

    assert keras.losses.serialize(keras.losses.mean_squared_error) == form("mean_squared_error")
    assert keras.losses.serialize(my_loss) == form("my_loss")
    assert keras.metrics.serialize(keras.metrics.binary_accuracy) == form("binary_accuracy")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("adam", loss=keras.losses.mean_squared_error,
                  metrics=[keras.metrics.mean_absolute_error, "mse"])
    config = model.get_compile_config()
    assert config["loss"] == form("mean_squared_error")
    assert config["metrics"] == [form("mean_absolute_error"), "mse"]


@pytest.mark.parametrize("y_true_shape,y_pred_shape,kind", [
    ((8, 1), (8, 1), "binary"), ((8,), (8, 1), "binary"),
    ((8,), (8, 4), "sparse_categorical"), ((8, 1), (8, 4), "sparse_categorical"),
    ((8, 4), (8, 4), "categorical"), ((2, 5), (2, 5, 7), "sparse_categorical"),
])
def test_crossentropy_kind_follows_keras_shape_rule(y_true_shape, y_pred_shape, kind):
    assert keras.losses.crossentropy_kind(y_true_shape, y_pred_shape) == kind


def test_get_for_compile_wraps_functions_and_picks_crossentropy():
    loss = keras.losses.get_for_compile("mse")
    assert isinstance(loss, keras.losses.LossFunctionWrapper) and loss.name == "mse"
    close(loss([[0.0, 1.0]], [[1.0, 1.0]], sample_weight=[2.0]), 1.0)
    named = keras.losses.get_for_compile(keras.losses.mean_absolute_error)
    assert named.name == "mean_absolute_error"
    instance = keras.losses.Huber()
    assert keras.losses.get_for_compile(instance) is instance
    picked = keras.losses.get_for_compile("crossentropy", np.zeros(4), np.zeros((4, 3)))
    assert picked.fn is keras.losses.sparse_categorical_crossentropy and picked.name == "crossentropy"
    picked = keras.losses.get_for_compile("ce", (4, 1), (4, 1))
    assert picked.fn is keras.losses.binary_crossentropy
    assert keras.losses.get_for_compile(None) is None
    with pytest.raises(ValueError, match="y_true"):
        keras.losses.get_for_compile("crossentropy")


def test_mismatched_target_and_output_shapes_raise_tensorflows_error_eagerly():
    # Keras 3.15.1 eagerly: TensorFlow's InvalidArgumentError of `y_true - y_pred` (recorded)
    import kerasish
    with pytest.raises(ValueError) as info:
        kerasish.losses.MeanSquaredError()(np.ones((4, 3)), np.ones((4, 2)))
    assert type(info.value).__name__ == "InvalidArgumentError"
    assert str(info.value) == (
        "{{function_node __wrapped__Sub_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
        "Incompatible shapes: [4,3] vs. [4,2] [Op:Sub] name: ")


def test_configs_that_keras_leaves_parameters_out_of():
    # Keras 3.15.1 printed exactly these configs (delta/axis left out).
    assert keras.losses.Huber(delta=2.0).get_config() == {
        "name": "huber_loss", "reduction": "sum_over_batch_size"}
    assert keras.losses.CosineSimilarity(axis=0).get_config() == {
        "name": "cosine_similarity", "reduction": "sum_over_batch_size"}
    assert keras.metrics.CosineSimilarity(axis=0).get_config() == {
        "name": "cosine_similarity", "dtype": "float32"}
    assert keras.losses.deserialize(keras.losses.serialize(keras.losses.Huber(delta=2.0))).delta == 1.0


def test_bad_reduction_message_ends_like_keras():
    # Keras 3.15.1 ends with "Received: reduction=bad" (the value unquoted; its
    # allowed values are a set, printed in hash order, so only the end is compared).
    with pytest.raises(ValueError) as info:
        keras.losses.MeanSquaredError(reduction="bad")
    assert str(info.value).startswith("Invalid value for argument `reduction`. Expected one of ")
    assert str(info.value).endswith("Received: reduction=bad")


def test_bad_reduction_lists_the_allowed_values_as_a_set():
    # Keras 3.15.1 formats its `allowed` set: braces, the six values in hash order
    with pytest.raises(ValueError) as info:
        keras.losses.MeanSquaredError(reduction="bad")
    listed = str(info.value).split("Expected one of ")[1].split(". Received")[0]
    assert listed.startswith("{") and listed.endswith("}")
    assert set(eval(listed)) == {"sum_over_batch_size", "sum", "mean",
                                 "mean_with_sample_weight", "none", None}
