"""A subclassed model whose `build` makes functional sub-models (keras-io Perceiver).

Expected values: this program under Keras 3.15.1 (TF backend, CPU), probe12 session
(subbuild.py): `fit` builds the model once, on the first batch's shape.
"""
import numpy as np

import kerasish as keras
from kerasish import layers, ops


def test_build_runs_once_and_its_sub_model_is_a_real_graph():
    keras.utils.set_random_seed(23)
    builds = []

    class Model(keras.Model):
        def build(self, input_shape):
            builds.append(tuple(input_shape))
            self.latent = self.add_weight(shape=(2, 3), initializer="random_normal")
            inputs = keras.Input((2, 3))
            self.block = keras.Model(inputs, layers.Dense(3)(layers.LayerNormalization()(inputs)))
            self.head = layers.Dense(1)

        def call(self, x):
            h = self.block(ops.expand_dims(self.latent, 0) + ops.expand_dims(x, 1))
            return self.head(ops.mean(h, axis=1))

    model = Model(name="m")
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    history = model.fit(x, x.sum(1, keepdims=True), epochs=2, batch_size=4, verbose=0)
    assert builds == [(4, 3)]
    assert [w.path for w in model.weights] == [
        "m/variable", "m/layer_normalization/gamma", "m/layer_normalization/beta",
        "m/dense/kernel", "m/dense/bias", "m/dense_1/kernel", "m/dense_1/bias"]
    np.testing.assert_allclose(history.history["loss"], [2.5327529907226562, 3.0508439540863037],
                               rtol=2e-6)
    np.testing.assert_allclose(model.predict(x[:2], verbose=0).ravel(), [1.5783917, 1.5674577],
                               rtol=2e-6)
