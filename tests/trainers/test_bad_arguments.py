"""fit / evaluate / predict reject bad arguments with errors that name the argument and value."""
import numpy as np
import pytest

import kerasish as keras


def make_model(loss="mse"):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=loss)
    return model


X = np.ones((8, 4), "float32")
Y = np.ones((8, 3), "float32")


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(batch_size=0), r"`fit\(\)`: invalid `batch_size`; expected a positive integer or None"
                         r"\. Received: batch_size=0"),
    (dict(batch_size=-4), r"`fit\(\)`: invalid `batch_size`.*Received: batch_size=-4"),
    (dict(batch_size=2.5), r"Received: batch_size=2.5"),
    (dict(epochs=-1), r"`fit\(\)`: invalid `epochs`; expected an integer >= 0\. "
                      r"Received: epochs=-1"),
    (dict(epochs=None), r"`fit\(\)`: invalid `epochs`.*Received: epochs=None"),
    (dict(steps_per_epoch=0), r"`fit\(\)`: invalid `steps_per_epoch`.*"
                              r"Received: steps_per_epoch=0"),
    (dict(validation_batch_size=0), r"Received: validation_batch_size=0"),
    (dict(initial_epoch=-2), r"`fit\(\)`: invalid `initial_epoch`.*Received: initial_epoch=-2"),
])
def test_fit_counts(kwargs, pattern):
    model = make_model()
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(ValueError, match=pattern):
        model.fit(X, Y, verbose=0, **kwargs)
    for w, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(w, b)  # nothing trained


def test_epochs_zero_trains_nothing():
    model = make_model()
    before = model.get_weights()
    model.fit(X, Y, epochs=0, verbose=0)
    for w, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(w, b)


@pytest.mark.parametrize("method, kwargs, pattern", [
    ("predict", dict(batch_size=0), r"`predict\(\)`: invalid `batch_size`.*Received: "
                                    r"batch_size=0"),
    ("predict", dict(steps=-1), r"`predict\(\)`: invalid `steps`.*Received: steps=-1"),
    ("evaluate", dict(batch_size=-3), r"`evaluate\(\)`: invalid `batch_size`.*Received: "
                                      r"batch_size=-3"),
])
def test_predict_and_evaluate_counts(method, kwargs, pattern):
    model = make_model()
    args = (X,) if method == "predict" else (X, Y)
    with pytest.raises(ValueError, match=pattern):
        getattr(model, method)(*args, verbose=0, **kwargs)


@pytest.mark.parametrize("call, pattern", [
    (lambda m: m.fit("train.csv", Y, verbose=0),
     r"`fit\(\)`: `x` must be array-like data .* not a string\. Received: x='train.csv'"),
    (lambda m: m.fit(X, "labels", verbose=0),
     r"`fit\(\)`: `y` must be array-like data .* not a string\. Received: y='labels'"),
    (lambda m: m.fit(None, Y, verbose=0), r"`fit\(\)`: `x` is None; expected the input data"),
    (lambda m: m.predict(None), r"`predict\(\)`: `x` is None; expected the input data"),
    (lambda m: m.predict("x.npy"), r"`predict\(\)`: `x` must be array-like.*Received: "
                                   r"x='x.npy'"),
    (lambda m: m.evaluate(X, b"y", verbose=0), r"`evaluate\(\)`: `y` must be array-like"),
    (lambda m: m.fit(X, None, verbose=0),
     r"compiled with a loss, but the targets `y` are None: pass `y`"),
])
def test_strings_and_none_as_data(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call(make_model())


def test_string_arrays_are_still_data():
    # Only a bare Python string is refused: an array of strings is text data.
    from kerasish.trainers.epoch_loops import check_data
    check_data("fit", "x", np.array(["a", "b"]), required=True)
    check_data("fit", "y", ["a", "b"], required=False)


@pytest.mark.parametrize("loss, y_shape, out_shape", [
    ("mse", (8, 5), (8, 3)),
])
def test_loss_shape_mismatch_names_loss_and_shapes(loss, y_shape, out_shape):
    model = make_model(loss)
    y = np.zeros(y_shape, "float32")
    pattern = (rf"Loss '{loss}' cannot compare the targets `y` of shape "
               rf"{re_tuple(y_shape)} with the model's output of shape {re_tuple(out_shape)}")
    with pytest.raises(ValueError, match=pattern):
        model.fit(X, y, verbose=0)
    with pytest.raises(ValueError, match=pattern):
        model.evaluate(X, y, verbose=0)


def re_tuple(shape):
    return r"\(" + r", ".join(str(n) for n in shape) + r"\)"


# Keras 3.15.1's texts (its TensorFlow backend's checks), printed by Keras for these
# calls: fit/evaluate trace their step with the dataset's batch dimension, unknown
# (None) for 8 samples in batches of 32, 4 when 8 samples come in batches of 4.
@pytest.mark.parametrize("loss, y_shape, batch_size, message", [
    ("sparse_categorical_crossentropy", (8, 3), None,
     "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
     "target.shape=(None, 3), output.shape=(None, 3)"),
    ("sparse_categorical_crossentropy", (8, 3), 4,
     "Argument `output` must have rank (ndim) `target.ndim - 1`. Received: "
     "target.shape=(4, 3), output.shape=(4, 3)"),
    ("categorical_crossentropy", (8,), None,
     "Arguments `target` and `output` must have the same rank (ndim). Received: "
     "target.shape=(None,), output.shape=(None, 3)"),
    ("categorical_crossentropy", (8, 1), None,
     "Arguments `target` and `output` must have the same shape. Received: "
     "target.shape=(None, 1), output.shape=(None, 3)"),
    ("binary_crossentropy", (8, 2), None,
     "Arguments `target` and `output` must have the same shape. Received: "
     "target.shape=(None, 2), output.shape=(None, 3)"),
])
def test_crossentropy_target_mismatch_in_kerass_words(loss, y_shape, batch_size, message):
    model = make_model(loss)
    y = np.zeros(y_shape, "float32")
    for run in (lambda: model.fit(X, y, batch_size=batch_size, verbose=0),
                lambda: model.evaluate(X, y, batch_size=batch_size, verbose=0)):
        with pytest.raises(ValueError) as info:
            run()
        assert str(info.value) == message
    with pytest.raises(ValueError) as info:   # one batch, not traced: the real shapes
        model.train_on_batch(X, y)
    assert str(info.value) == message.replace("None", "8").replace("(4,", "(8,")
