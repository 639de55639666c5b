"""Programs whose first call builds a layer by tracing its `call` (Keras's
`Layer._maybe_build` for a layer without its own `build` and with unbuilt
sublayers). Each `case_*` takes the keras module (kerasish, or real Keras in
`tests/fixtures/make_build_by_tracing_fixture.py`) and returns JSON-able results.
"""
import numpy as np

X = np.ones((2, 4), "float32")


def _round(x):
    return np.round(np.asarray(x, dtype="float64"), 4).tolist()


def _classes(keras, seen):
    layers = keras.layers

    class Inner(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d = layers.Dense(3)

        def call(self, x, training=None):
            seen.append(["inner", training, list(x.shape)])
            return self.d(x)

    class Outer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.a = Inner()
            self.b = layers.Dense(2)

        def call(self, x, training=None):
            seen.append(["outer", training, list(x.shape), self.built])
            return self.b(self.a(x))

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.o = Outer()
            self.d = layers.Dense(1)

        def call(self, x, training=None):
            seen.append(["net", training, self.built, self.o.built])
            return self.d(self.o(x))

    class Siblings(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = Inner()
            self.b = Inner()

        def call(self, x):
            seen.append(["siblings"])
            return self.b(self.a(x, training=True))

    class Fails(layers.Layer):
        """Its `call` reads a value, so it cannot be traced."""

        def __init__(self):
            super().__init__()
            self.d = layers.Dense(2)
            self.e = layers.Dense(3)

        def call(self, x):
            seen.append(["fails", self.built, self.d.built, self.e.built])
            h = self.d(x)
            float(keras.ops.sum(h))
            return self.e(h)

    class Wraps(keras.Model):
        def __init__(self):
            super().__init__()
            self.f = Fails()
            self.g = layers.Dense(1)

        def call(self, x):
            seen.append(["wraps", self.built])
            return self.g(self.f(x))

    class Kw(layers.Layer):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(2)

        def call(self, x, **kwargs):
            seen.append(["kw", sorted(kwargs)])
            return self.d(x)

    return Inner, Outer, Net, Siblings, Fails, Wraps, Kw


def case_nested(keras):
    keras.backend.clear_session()
    keras.utils.set_random_seed(1)
    seen = []
    _, Outer, Net, Siblings, _, _, _ = _classes(keras, seen)
    net = Net()
    y = net(X)
    seen.append("second")
    net(X, training=True)
    seen.append("layer")
    Outer()(X, training=False)
    seen.append("siblings")
    Siblings()(X)
    seen.append("functional")
    Outer()(keras.Input((4,)))
    return {"seen": seen, "y": _round(y), "paths": [v.path for v in net.weights]}


def case_untraceable(keras):
    keras.backend.clear_session()
    seen = []
    _, _, _, _, Fails, Wraps, Kw = _classes(keras, seen)
    f = Fails()
    f(X)
    seen.append(["built", f.built])
    seen.append("model")
    w = Wraps()
    w(X)
    seen.append(["built", w.built, [v.path for v in w.weights]])
    seen.append("kwargs")
    Kw()(X)
    Kw()(X, foo=1)
    return {"seen": seen}


def case_random(keras):
    """Draws in the traced pass advance no seed generator; assignments are dropped."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(7)
    layers, ops = keras.layers, keras.ops

    class Noisy(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = layers.Dense(3)
            self.drop = layers.Dropout(0.5, seed=3)
            self.gen = keras.random.SeedGenerator(11)
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False,
                                         name="count")

        def call(self, x):
            h = self.drop(self.d(x), training=True)
            self.count.assign_add(1.0)
            return h + keras.random.normal(ops.shape(h), seed=self.gen) + \
                keras.random.uniform(ops.shape(h))

    m = Noisy()
    first, second = m(X), m(X)
    return {"first": _round(first), "second": _round(second), "count": float(m.count),
            "state": np.asarray(m.gen.state).tolist(),
            "after": _round(keras.random.uniform((2,))),
            "paths": [v.path for v in m.weights]}


def case_attention_masks(keras):
    """A MultiHeadAttention inside the traced pass deletes the caller's masks."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(3)
    layers = keras.layers
    seen = []

    class Block(layers.Layer):
        def __init__(self):
            super().__init__()
            self.att = layers.MultiHeadAttention(2, 2)
            self.pool = layers.GlobalAveragePooling1D()

        def call(self, x):
            seen.append(["in", getattr(x, "_keras_mask", None) is not None])
            a = self.att(x, x)
            return self.pool(x), self.pool(a)

    e = layers.Embedding(10, 4, mask_zero=True)
    p, q = Block()(e(np.array([[1, 2, 0, 0]])))
    return {"seen": seen, "p": _round(p), "q": _round(q)}


def case_updates_in_pass(keras):
    """Metric and BatchNormalization updates in the traced pass are dropped (the pass
    still succeeds: the call runs twice on the first call)."""
    keras.backend.clear_session()
    layers = keras.layers
    seen = []

    class Normed(layers.Layer):
        def __init__(self):
            super().__init__()
            self.bn = layers.BatchNormalization()
            self.mean = keras.metrics.Mean()

        def call(self, x):
            y = self.bn(x, training=True)
            self.mean.update_state(y)
            seen.append("call")
            return y

    n = Normed()
    n(np.arange(8, dtype="float32").reshape(4, 2))
    return {"seen": seen, "moving_mean": _round(n.bn.moving_mean),
            "metric": _round(n.mean.result())}


CASES = {name[5:]: fn for name, fn in dict(globals()).items() if name.startswith("case_")}
