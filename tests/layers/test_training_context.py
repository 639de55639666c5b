"""`training` reaches layers by Keras's call-context rule.

Expected values: real Keras 3.15.1 on TensorFlow, running the same programs
(a layer that records the `training` it receives): the caller's argument,
else the value the previous layer call left in the call context (siblings
included), else `call`'s default; a non-None default is recorded in a
functional graph as if passed.
"""
import numpy as np

import kerasish as keras


class Probe(keras.layers.Layer):
    """Records the `training` each call receives."""

    def __init__(self, seen, tag, **kwargs):
        super().__init__(**kwargs)
        self.seen, self.tag = seen, tag

    def call(self, x, training=None):
        self.seen.append((self.tag, training))
        return x


X = np.ones((2, 3), "float32")


def _functional(seen):
    inputs = keras.Input((3,))
    h = Probe(seen, "a")(inputs, training=True)
    h = Probe(seen, "b")(h)
    h = keras.layers.Dropout(0.5)(h)   # its default training=False is recorded
    return keras.Model(inputs, Probe(seen, "c")(h))


def test_symbolic_calls_get_the_call_default():
    seen = []
    _functional(seen)
    assert seen == [("a", True), ("b", None), ("c", None)]


def test_functional_run_passes_the_context_on_to_later_layers():
    seen = []
    model = _functional(seen)
    del seen[:]
    model(X)
    # b inherits a's True; the Dropout node carries training=False, so c gets False.
    assert seen == [("a", True), ("b", True), ("c", False)]


def test_a_set_mode_overrides_every_layer():
    seen = []
    model = _functional(seen)
    for kwargs in ({"training": False}, {}):
        del seen[:]
        if kwargs:
            model(X, **kwargs)
        else:
            model.predict(X, verbose=0)
        assert seen == [("a", False), ("b", False), ("c", False)]


def test_explicit_training_reaches_the_siblings_called_after_it():
    seen = []

    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.a, self.b = Probe(seen, "a"), Probe(seen, "b")

        def call(self, x, training=None):
            return self.b(self.a(x, training=True))

    model = Model()
    model(X)
    del seen[:]
    model(X, training=False)
    assert seen == [("a", True), ("b", True)]
    del seen[:]
    model.predict(X, verbose=0)
    assert seen == [("a", True), ("b", True)]


def test_the_context_ends_with_the_outermost_call():
    seen = []
    Probe(seen, "a")(X, training=True)
    Probe(seen, "b")(X)
    assert seen == [("a", True), ("b", None)]


def test_mc_dropout_then_batch_norm_in_a_subclassed_model():
    """Keras: the explicit training=True of the first Dropout puts the BatchNormalization
    after it in training mode too (batch statistics), even in predict."""
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = keras.layers.Dropout(0.5, seed=1)
            self.norm = keras.layers.BatchNormalization()

        def call(self, x, training=None):
            return self.norm(self.drop(x, training=True))

    x = np.arange(12, dtype="float32").reshape(4, 3)
    out = Model().predict(x, verbose=0)
    np.testing.assert_allclose(out.mean(axis=0), 0.0, atol=1e-5)   # batch-normalized


def test_a_sequential_in_a_set_mode_passes_it_to_every_layer():
    """Keras's Sequential passes its `training` (when not None) to each layer, which
    overrides what a layer's inner calls left in the call context."""
    seen = []

    class Forces(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Probe(seen, "inner")

        def call(self, x):
            return self.inner(x, training=True)

    model = keras.Sequential([keras.Input((3,)), Forces(), Probe(seen, "after")])
    del seen[:]
    model.predict(X, verbose=0)
    assert seen == [("inner", True), ("after", False)]
    del seen[:]
    model(X)
    assert seen == [("inner", True), ("after", True)]


def test_a_call_with_only_kwargs_never_gets_training():
    """Keras 3.15.1 (probe12 session, kw.py): `call(self, x, **kwargs)` receives no
    `training`, neither passed explicitly nor inherited from the caller, in a
    subclassed or a functional model."""
    seen = []

    class Kwargs(keras.layers.Layer):
        def call(self, x, **kwargs):
            seen.append(sorted(kwargs))
            return x

    class Outer(keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Kwargs()

        def call(self, x, training=None):
            return self.inner(x)

    Kwargs()(X, training=True)
    Outer()(X, training=True)
    inputs = keras.Input((3,))
    keras.Model(inputs, Kwargs()(inputs))(X, training=True)
    assert seen and all(kwargs == [] for kwargs in seen)
