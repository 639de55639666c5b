"""`run_layer_test`: the checks every layer should pass, as Keras's `TestCase.run_layer_test`.

Construction and config round trip, symbolic and eager calls with the
expected output shapes, weight counts after building, masking, a training
step through `Model.fit`, mixed precision, and a `.keras`-style
serialization round trip of a model holding the layer.
"""
import numpy as np

from kerasish import backend, layers, models, ops
from kerasish.dtype_policies import DTypePolicy
from kerasish.utils import registry, tree


def _fresh(init_kwargs):
    """The kwargs with serialized layers ({"class_name", "config"}) made into new instances."""
    def revive(value):
        if isinstance(value, dict) and "class_name" in value and "config" in value:
            return registry.deserialize_keras_object(value)
        return value
    return {key: revive(value) for key, value in init_kwargs.items()}


def _shapes(shape_or_shapes):
    """One input shape or a list of them -> (list of shapes, whether it was a list)."""
    if shape_or_shapes and isinstance(shape_or_shapes[0], (list, tuple)):
        return [tuple(s) for s in shape_or_shapes], True
    return [tuple(shape_or_shapes)], False


def _random_inputs(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(np.dtype(dtype), np.integer):
        return [rng.integers(0, 5, size=s).astype(dtype) for s in shapes]
    return [rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes]


def _output_shapes(outputs):
    return [tuple(o.shape) for o in tree.flatten(outputs)]


def _expect(condition, layer, what):
    if not condition:
        raise AssertionError(f"run_layer_test({type(layer).__name__}): {what}")


def _check_config_round_trip(layer_cls, layer):
    config = layer.get_config()
    revived = layer_cls.from_config(config)
    _expect(revived.get_config() == config, layer,
            f"from_config(get_config()) changed the config:\n{config}\n!=\n{revived.get_config()}")
    serialized = registry.serialize_keras_object(layer)
    again = registry.deserialize_keras_object(serialized)
    _expect(type(again) is type(layer), layer, "serialize/deserialize gave another class")


def _call(layer, inputs, is_list, call_kwargs, spread=False):
    if spread:
        return layer(*inputs, **call_kwargs)
    return layer(inputs if is_list else inputs[0], **call_kwargs)


def _check_training_step(layer_cls, init_kwargs, shapes, is_list, dtype, call_kwargs, seed,
                         spread):
    """One `fit` step of Input -> layer -> (flatten, Dense(1)) moves the layer's weights."""
    inputs = [layers.Input(batch_shape=s, dtype=dtype) for s in shapes]
    layer = layer_cls(**_fresh(init_kwargs))
    out = _call(layer, inputs, is_list, call_kwargs, spread)
    first = tree.flatten(out)[0]
    head = layers.Flatten()(first) if len(first.shape) > 2 else first
    if len(head.shape) == 1:
        head = layers.Reshape((1,))(head)
    model = models.Model(inputs if is_list else inputs[0], layers.Dense(1)(head))
    model.compile(optimizer="sgd", loss="mse")
    data = _random_inputs(shapes, dtype, seed)
    before = [w.numpy().copy() for w in layer.trainable_weights]
    history = model.fit(data if is_list else data[0], np.ones((shapes[0][0], 1), "float32"),
                        epochs=1, batch_size=shapes[0][0], verbose=0, shuffle=False)
    _expect(np.isfinite(history.history["loss"][0]), layer, "the training loss is not finite")
    moved = [not np.array_equal(b, w.numpy()) for b, w in zip(before, layer.trainable_weights)]
    _expect(not before or any(moved), layer, "one training step changed no trainable weight")


def _check_mixed_precision(layer_cls, init_kwargs, shapes, is_list, dtype, call_kwargs, seed,
                           spread, expected_output_dtypes, expected_weight_dtypes):
    """Under "mixed_float16": float outputs float16 (or as expected), variables float32."""
    layer = layer_cls(**_fresh(init_kwargs), dtype=DTypePolicy("mixed_float16"))
    outputs = tree.flatten(_call(layer, _random_inputs(shapes, dtype, seed), is_list,
                                 call_kwargs, spread))
    got = [backend.standardize_dtype(o.dtype) for o in outputs]
    if expected_output_dtypes is None:
        expected_output_dtypes = ["float16" if backend.is_float_dtype(d) else d for d in got]
    _expect(got == list(expected_output_dtypes), layer,
            f"mixed_float16 output dtypes {got}, expected {list(expected_output_dtypes)}")
    weights = sorted({backend.standardize_dtype(w.dtype) for w in layer.weights})
    if expected_weight_dtypes is None:
        expected_weight_dtypes = [d for d in weights if not backend.is_float_dtype(d)] + \
            (["float32"] if any(backend.is_float_dtype(d) for d in weights) else [])
    _expect(weights == sorted(expected_weight_dtypes), layer,
            f"mixed_float16 variable dtypes {weights}, expected {sorted(expected_weight_dtypes)}")


def run_layer_test(layer_cls, init_kwargs=None, input_shape=None, input_dtype="float32",
                   call_kwargs=None, expected_output_shape=None,
                   expected_num_trainable_weights=None, expected_num_non_trainable_weights=None,
                   supports_masking=None, run_training_check=True,
                   run_mixed_precision_check=True, inputs_as_args=False,
                   expected_mixed_output_dtypes=None, expected_mixed_weight_dtypes=None,
                   expected_symbolic_output_shape=None, seed=0):
    """Runs the standard checks on a layer class; raises AssertionError naming the failure.

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments; a serialized layer
            (`{"class_name": ..., "config": ...}`, e.g. a wrapper's inner layer)
            is made into a new instance for every construction.
        input_shape: full input shape with batch size, or a list of shapes for
            layers called on a list.
        input_dtype: dtype of the random inputs.
        call_kwargs: extra call arguments.
        expected_output_shape: the output shape, or a list of shapes for
            several outputs (None: not checked).
        expected_symbolic_output_shape: the output shape(s) when called on
            `keras.Input`s of the input shape(s) (None: `expected_output_shape`).
        expected_num_trainable_weights: count after building (None: not checked).
        expected_num_non_trainable_weights: count after building (None: not checked).
        supports_masking: expected `layer.supports_masking` (None: not checked).
        run_training_check: also fit one step of a model holding the layer.
        run_mixed_precision_check: also call it under the "mixed_float16" policy.
        expected_mixed_output_dtypes: output dtypes under "mixed_float16"
            (None: float16 for every float output).
        expected_mixed_weight_dtypes: the set of variable dtypes under
            "mixed_float16" (None: float32 for float variables).
        inputs_as_args: call `layer(*inputs)` (e.g. attention's query, value)
            instead of `layer(inputs)` with the list.
        seed: seed of the random inputs.

    Returns:
        the eagerly called layer instance (for further checks).

    Example:
        >>> run_layer_test(keras.layers.Dense, {"units": 3}, input_shape=(2, 4),
        ...                expected_output_shape=(2, 3), expected_num_trainable_weights=2)
    """
    init_kwargs, call_kwargs = dict(init_kwargs or {}), dict(call_kwargs or {})
    shapes, is_list = _shapes(input_shape)
    layer = layer_cls(**_fresh(init_kwargs))
    _check_config_round_trip(layer_cls, layer)
    if supports_masking is not None:
        _expect(bool(layer.supports_masking) == supports_masking, layer,
                f"supports_masking is {layer.supports_masking}, expected {supports_masking}")
    expected = None
    if expected_output_shape is not None:
        expected, _ = _shapes(expected_output_shape)

    symbolic_layer = layer_cls(**_fresh(init_kwargs))
    symbolic_in = [layers.Input(batch_shape=s, dtype=input_dtype) for s in shapes]
    symbolic_out = _call(symbolic_layer, symbolic_in, is_list, call_kwargs, inputs_as_args)
    symbolic_expected = expected if expected_symbolic_output_shape is None else \
        _shapes(expected_symbolic_output_shape)[0]
    if symbolic_expected is not None:
        _expect(_output_shapes(symbolic_out) == symbolic_expected, layer,
                f"symbolic output shapes {_output_shapes(symbolic_out)}, expected "
                f"{symbolic_expected}")

    data = _random_inputs(shapes, input_dtype, seed)
    outputs = _call(layer, data, is_list, call_kwargs, inputs_as_args)
    if expected is not None:
        _expect(_output_shapes(outputs) == expected, layer,
                f"eager output shapes {_output_shapes(outputs)}, expected {expected}")
    if expected_num_trainable_weights is not None:
        _expect(len(layer.trainable_weights) == expected_num_trainable_weights, layer,
                f"{len(layer.trainable_weights)} trainable weights, expected "
                f"{expected_num_trainable_weights}")
    if expected_num_non_trainable_weights is not None:
        _expect(len(layer.non_trainable_weights) == expected_num_non_trainable_weights, layer,
                f"{len(layer.non_trainable_weights)} non-trainable weights, expected "
                f"{expected_num_non_trainable_weights}")
    for out in tree.flatten(outputs):
        if backend.is_float_dtype(out.dtype):
            _expect(bool(np.all(np.isfinite(ops.convert_to_numpy(out)))), layer,
                    "the output has non-finite values")
    if run_training_check and layer.trainable_weights:
        _check_training_step(layer_cls, init_kwargs, shapes, is_list, input_dtype, call_kwargs,
                             seed, inputs_as_args)
    if run_mixed_precision_check and backend.is_float_dtype(input_dtype):
        _check_mixed_precision(layer_cls, init_kwargs, shapes, is_list, input_dtype,
                               call_kwargs, seed, inputs_as_args, expected_mixed_output_dtypes,
                               expected_mixed_weight_dtypes)
    return layer
