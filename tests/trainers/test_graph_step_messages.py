"""Errors raised inside fit/evaluate/predict read as Keras 3.15.1's on TensorFlow,
whose steps run as graphs: the step's inputs are the graph tensors `data:0`,
`data_1:0`, ..., fit and evaluate show the dataset's batch dimension (None unless
every batch has the same size), list inputs arrive as tuples, and the call-error
summary lists Functional.call's `**kwargs` and the mask structure Keras fills in.
The expected texts were printed by Keras 3.15.1 for the same calls.
"""
import numpy as np
import pytest

import kerasish as keras

B, E = "\x1b[1m", "\x1b[0m"


def sequential():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("sgd", "mse")
    return model


def two_inputs():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    model = keras.Model([a, b], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    model.compile("sgd", "mse")
    return model


def sequential_message(shape, training):
    return ("Exception encountered when calling Sequential.call().\n\n"
            f'{B}Invalid input shape for input Tensor("data:0", shape={shape}, dtype=float32) '
            "with name 'keras_tensor' and path ''. Expected shape (None, 4), but input has "
            f"incompatible shape {shape}{E}\n\n"
            "Arguments received by Sequential.call():\n"
            f"  • inputs=tf.Tensor(shape={shape}, dtype=float32)\n"
            f"  • training={training}\n"
            "  • mask=None\n"
            "  • kwargs=<class 'inspect._empty'>")


def message_of(run):
    with pytest.raises(ValueError) as info:
        run()
    return str(info.value)


def test_predict_names_the_graph_input_with_its_real_shape():
    model = sequential()
    assert message_of(lambda: model.predict(np.ones((6,)), verbose=0)) == \
        sequential_message("(6,)", False)


def test_fit_and_evaluate_show_the_traced_batch_dimension():
    model = sequential()
    x, y = np.ones((6,)), np.ones((6, 3))
    assert message_of(lambda: model.fit(x, y, verbose=0)) == sequential_message("(None,)", True)
    assert message_of(lambda: model.evaluate(x, y, verbose=0)) == \
        sequential_message("(None,)", False)


def test_an_eager_call_shows_the_values():
    model = sequential()
    assert f"{B}Invalid input shape for input [1. 1. 1. 1.] with name" in \
        message_of(lambda: model(np.ones((4,))))


@pytest.mark.parametrize("how, name, shape, shapes, training", [
    ("predict", "data_1", "(6,)", ("(6, 4)", "(6,)"), False),
    ("fit", "data_1", "(None,)", ("(None, 4)", "(None,)"), True),
])
def test_two_inputs_as_a_tuple_with_a_filled_mask(how, name, shape, shapes, training):
    model = two_inputs()
    x = [np.ones((6, 4)), np.ones((6,))]
    run = (lambda: model.predict(x, verbose=0)) if how == "predict" else \
        (lambda: model.fit(x, np.ones((6, 1)), verbose=0))
    assert message_of(run) == (
        "Exception encountered when calling Functional.call().\n\n"
        f'{B}Invalid input shape for input Tensor("{name}:0", shape={shape}, dtype=float32) '
        "with name 'b' and path '1'. Expected shape (None, 3), but input has incompatible "
        f"shape {shape}{E}\n\n"
        "Arguments received by Functional.call():\n"
        f"  • inputs=('tf.Tensor(shape={shapes[0]}, dtype=float32)', "
        f"'tf.Tensor(shape={shapes[1]}, dtype=float32)')\n"
        f"  • training={training}\n"
        "  • mask=('None', 'None')\n"
        "  • kwargs=<class 'inspect._empty'>")


def test_dict_inputs_are_named_in_their_own_order():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    model = keras.Model({"a": a, "b": b},
                        keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    text = message_of(lambda: model.predict({"b": np.ones((6,)), "a": np.ones((6, 4))},
                                            verbose=0))
    assert 'Tensor("data:0", shape=(6,), dtype=float32) with name \'b\' and path \'b\'' in text
    assert "  • mask={'b': 'None', 'a': 'None'}" in text
    text = message_of(lambda: model.predict({"a": np.ones((6, 4)), "b": np.ones((6,))},
                                            verbose=0))
    assert 'Tensor("data_1:0", shape=(6,), dtype=float32) with name \'b\'' in text


def test_fit_gives_a_subclassed_model_list_inputs_as_a_tuple():
    seen = []

    class TwoInputs(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, inputs):
            seen.append(type(inputs).__name__)
            return self.dense(keras.ops.concatenate(list(inputs), axis=-1))

    model = TwoInputs()
    model.compile("sgd", "mse")
    model.fit([np.ones((4, 2), "float32"), np.ones((4, 3), "float32")], np.ones((4, 1)),
              verbose=0)
    assert set(seen) == {"tuple"}


def test_an_eager_functional_call_gets_the_numpy_inputs_as_given():
    # Keras's functional model converts none of its inputs in __call__: the summary
    # lists the numpy arrays and no mask is filled in (Keras 3.15.1's print)
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    model = keras.Model({"a": a, "b": b},
                        keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    text = message_of(lambda: model({"b": np.ones((6,)), "a": np.ones((6, 4))}))
    assert text.endswith(
        "Arguments received by Functional.call():\n"
        "  • inputs={'b': 'array([1., 1., 1., 1., 1., 1.])', 'a': 'array([[1., 1., 1., 1.],\\n"
        "       [1., 1., 1., 1.],\\n       [1., 1., 1., 1.],\\n       [1., 1., 1., 1.],\\n"
        "       [1., 1., 1., 1.],\\n       [1., 1., 1., 1.]])'}\n"
        "  • training=None\n"
        "  • mask=None\n"
        "  • kwargs=<class 'inspect._empty'>")


def test_float64_arrays_reach_the_step_as_floatx():
    # Keras's array adapter casts float arrays other than floatx (x, y, sample weights);
    # ints stay ints
    from kerasish.data.data_adapters import ArrayAdapter
    adapter = ArrayAdapter({"a": np.ones((4, 2)), "n": np.arange(4)}, np.ones((4, 1), "float16"),
                           sample_weight=np.ones(4), batch_size=2)
    x, y, sw = next(iter(adapter.batches()))
    assert (x["a"].dtype, x["n"].dtype, y.dtype, sw.dtype) == (
        np.float32, np.arange(1).dtype, np.float32, np.float32)
