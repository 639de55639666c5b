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
    ("sparse_categorical_crossentropy", (8, 2), (8, 3)),
    ("binary_crossentropy", (8, 2), (8, 3)),
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
