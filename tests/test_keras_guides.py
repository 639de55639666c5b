"""Compact versions of the keras.io guides, run with `import kerasish as keras`.

Every expected value (shapes, names, texts, and the numbers of runs that start from
fixed weights) was printed by real Keras 3.15.1 (TensorFlow 2.21 backend) running this
same code (with `keras.GradientTape` -> `tf.GradientTape`). Guides: sequential_model,
functional_api, making_new_layers_and_models_via_subclassing, training_with_built_in_methods,
custom_train_step_in_tensorflow, writing_a_custom_training_loop_in_tensorflow,
understanding_masking_and_padding, working_with_rnns, writing_your_own_callbacks, and the
mnist_convnet / bidirectional_lstm_imdb examples.
"""
import io
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import kerasish as keras
from kerasish import layers, ops

MNIST = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mnist_subset.npz"
needs_mnist = pytest.mark.skipif(not MNIST.exists(), reason="shared MNIST subset not present")


def fixed_weights(model, scale=0.1):
    """The same start in both libraries: weight i ~ U(-scale, scale) from RandomState(i)."""
    for i, w in enumerate(model.weights):
        w.assign(np.random.RandomState(i).uniform(-scale, scale, tuple(w.shape)).astype("float32"))


def mnist(n, n_test):
    (x, y), (xt, yt) = keras.datasets.mnist.load_data(path=str(MNIST))
    return (x[:n], y[:n]), (xt[:n_test], yt[:n_test])


def summary_text(model):
    lines = []
    model.summary(print_fn=lambda s, **k: lines.append(s))
    return "".join(lines)


def total_params(model):
    return next(l for l in summary_text(model).splitlines() if l.startswith(" Total params"))


# --- sequential_model.py -------------------------------------------------------------------------

def test_sequential_model_guide():
    model = keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(3, activation="relu"),
                              layers.Dense(4)])
    assert [l.name for l in model.layers] == ["dense", "dense_1", "dense_2"]
    model.pop()
    assert len(model.layers) == 2
    layer = layers.Dense(3)
    assert layer.weights == []
    layer(np.ones((1, 4)))
    assert [(w.path, tuple(w.shape)) for w in layer.weights] == [("dense_3/kernel", (4, 3)),
                                                                  ("dense_3/bias", (3,))]
    model = keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(3, activation="relu"),
                              layers.Dense(4)])
    model(np.ones((1, 4)))
    assert len(model.weights) == 6 and model.input_shape == (1, 4)

    model = keras.Sequential()
    model.add(keras.Input(shape=(250, 250, 3)))
    model.add(layers.Conv2D(32, 5, strides=2, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    assert model.output_shape == (None, 40, 40, 32)

    initial = keras.Sequential([keras.Input(shape=(250, 250, 3)),
                                layers.Conv2D(32, 5, strides=2, activation="relu"),
                                layers.Conv2D(32, 3, activation="relu", name="my_intermediate_layer"),
                                layers.Conv2D(32, 3, activation="relu")])
    extractor = keras.Model(inputs=initial.inputs, outputs=[l.output for l in initial.layers])
    assert [tuple(f.shape) for f in extractor(np.ones((1, 250, 250, 3)))] == [
        (1, 123, 123, 32), (1, 121, 121, 32), (1, 119, 119, 32)]
    assert extractor.name == "functional_5"      # Keras numbers the inner functional models too
    one = keras.Model(inputs=initial.inputs,
                      outputs=initial.get_layer(name="my_intermediate_layer").output)
    assert one(np.ones((1, 250, 250, 3))).shape == (1, 121, 121, 32)

    model = keras.Sequential([keras.Input(shape=(784,)), layers.Dense(32, activation="relu"),
                              layers.Dense(32, activation="relu"), layers.Dense(10)])
    for layer in model.layers[:-1]:
        layer.trainable = False
    assert (len(model.trainable_weights), len(model.non_trainable_weights)) == (2, 4)


# --- functional_api.py ---------------------------------------------------------------------------

def test_functional_api_guide_structure():
    inputs = keras.Input(shape=(784,))
    assert inputs.shape == (None, 784) and inputs.dtype == "float32"
    x = layers.Dense(64, activation="relu")(inputs)
    x = layers.Dense(64, activation="relu")(x)
    model = keras.Model(inputs=inputs, outputs=layers.Dense(10)(x), name="mnist_model")
    assert total_params(model) == " Total params: 55,050 (215.04 KB)"

    encoder_input = keras.Input(shape=(28, 28, 1), name="original_img")
    x = layers.Conv2D(16, 3, activation="relu")(encoder_input)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.MaxPooling2D(3)(x)
    x = layers.Conv2D(32, 3, activation="relu")(x)
    x = layers.Conv2D(16, 3, activation="relu")(x)
    encoder = keras.Model(encoder_input, layers.GlobalMaxPooling2D()(x), name="encoder")
    decoder_input = keras.Input(shape=(16,), name="encoded_img")
    x = layers.Reshape((4, 4, 1))(decoder_input)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    x = layers.Conv2DTranspose(32, 3, activation="relu")(x)
    x = layers.UpSampling2D(3)(x)
    x = layers.Conv2DTranspose(16, 3, activation="relu")(x)
    decoder = keras.Model(decoder_input, layers.Conv2DTranspose(1, 3, activation="relu")(x),
                          name="decoder")
    autoencoder_input = keras.Input(shape=(28, 28, 1), name="img")
    autoencoder = keras.Model(autoencoder_input, decoder(encoder(autoencoder_input)),
                              name="autoencoder")
    assert [l.name for l in autoencoder.layers] == ["img", "encoder", "decoder"]
    assert total_params(autoencoder) == " Total params: 28,241 (110.32 KB)"
    features = keras.Model(inputs=encoder.input, outputs=[l.output for l in encoder.layers])
    assert [tuple(f.shape) for f in features(np.zeros((1, 28, 28, 1), "float32"))] == [
        (1, 28, 28, 1), (1, 26, 26, 16), (1, 24, 24, 32), (1, 8, 8, 32), (1, 6, 6, 32),
        (1, 4, 4, 16), (1, 16)]

    def get_model():
        inputs = keras.Input(shape=(128,))
        return keras.Model(inputs, layers.Dense(1)(inputs))

    models = [get_model(), get_model(), get_model()]
    inputs = keras.Input(shape=(128,))
    ensemble = keras.Model(inputs, layers.average([m(inputs) for m in models]))
    assert [l.name for l in ensemble.layers][1:] == ["functional_1", "functional_2",
                                                     "functional_3", "average"]

    class CustomDense(layers.Layer):
        def __init__(self, units=32):
            super().__init__()
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                     initializer="random_normal", trainable=True)
            self.b = self.add_weight(shape=(self.units,), initializer="random_normal",
                                     trainable=True)

        def call(self, inputs):
            return ops.matmul(inputs, self.w) + self.b

        def get_config(self):
            return {"units": self.units}

    inputs = keras.Input((4,))
    model = keras.Model(inputs, CustomDense(10)(inputs))
    new_model = keras.Model.from_config(model.get_config(),
                                        custom_objects={"CustomDense": CustomDense})
    assert total_params(new_model) == " Total params: 50 (200.00 B)"


def test_functional_api_multi_io_training_from_fixed_weights():
    num_tags, num_words, num_departments = 12, 10000, 4
    title_input = keras.Input(shape=(None,), name="title")
    body_input = keras.Input(shape=(None,), name="body")
    tags_input = keras.Input(shape=(num_tags,), name="tags")
    title = layers.LSTM(128)(layers.Embedding(num_words, 64)(title_input))
    body = layers.LSTM(32)(layers.Embedding(num_words, 64)(body_input))
    x = layers.concatenate([title, body, tags_input])
    priority = layers.Dense(1, name="priority")(x)
    department = layers.Dense(num_departments, name="department")(x)
    model = keras.Model([title_input, body_input, tags_input], [priority, department])
    assert total_params(model) == " Total params: 1,392,097 (5.31 MB)"
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss={"priority": keras.losses.BinaryCrossentropy(from_logits=True),
                        "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
                  loss_weights={"priority": 1.0, "department": 0.2})
    rs = np.random.RandomState(0)
    title_data = rs.randint(num_words, size=(64, 10))
    body_data = rs.randint(num_words, size=(64, 20))
    tags_data = rs.randint(2, size=(64, num_tags)).astype("float32")
    priority_targets = rs.random_sample(size=(64, 1))
    dept_targets = rs.randint(2, size=(64, num_departments))
    fixed_weights(model)
    history = model.fit({"title": title_data, "body": body_data, "tags": tags_data},
                        {"priority": priority_targets, "department": dept_targets},
                        epochs=1, batch_size=32, verbose=0, shuffle=False)
    assert sorted(history.history) == ["department_loss", "loss", "priority_loss"]
    assert model.metrics_names == ["loss", "priority_loss", "department_loss"]
    np.testing.assert_allclose(history.history["loss"], [1.243], atol=1e-3)


# --- making_new_layers_and_models_via_subclassing.py ---------------------------------------------

def test_subclassing_guide():
    class ComputeSum(keras.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(initializer="zeros", shape=(input_dim,), trainable=False)

        def call(self, inputs):
            self.total.assign_add(ops.sum(inputs, axis=0))
            return self.total

    my_sum = ComputeSum(2)
    my_sum(ops.ones((2, 2)))
    np.testing.assert_array_equal(ops.convert_to_numpy(my_sum(ops.ones((2, 2)))), [4.0, 4.0])
    assert (len(my_sum.weights), len(my_sum.non_trainable_weights), my_sum.trainable_weights) == \
        (1, 1, [])

    class ActivityRegularizationLayer(keras.layers.Layer):
        def __init__(self, rate=1e-2):
            super().__init__()
            self.rate = rate

        def call(self, inputs):
            self.add_loss(self.rate * ops.mean(inputs))
            return inputs

    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, ActivityRegularizationLayer()(inputs))
    assert len(model.losses) == 0
    model.compile(optimizer="adam")
    history = model.fit(np.random.random((2, 3)), np.random.random((2, 3)), verbose=0)
    assert list(history.history) == ["loss"] and model.metrics_names == ["loss"]

    class Linear(keras.layers.Layer):
        def __init__(self, units=32, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], self.units), trainable=True)

        def call(self, inputs):
            return ops.matmul(inputs, self.w)

        def get_config(self):
            config = super().get_config()
            config.update({"units": self.units})
            return config

    config = Linear(64).get_config()
    assert config == {"name": "linear", "trainable": True,
                      "dtype": {"module": "keras", "class_name": "DTypePolicy",
                                "config": {"name": "float32"}, "registered_name": None},
                      "units": 64}

    class Encoder(layers.Layer):
        def __init__(self, name="encoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.dense_proj = layers.Dense(16, activation="relu")
            self.dense_mean = layers.Dense(4)

        def call(self, inputs):
            return self.dense_mean(self.dense_proj(inputs))

    class AutoEncoder(keras.Model):
        def __init__(self, name="autoencoder", **kwargs):
            super().__init__(name=name, **kwargs)
            self.encoder = Encoder()
            self.decoder = layers.Dense(8, activation="sigmoid")

        def call(self, inputs):
            z = self.encoder(inputs)
            self.add_loss(0.01 * ops.mean(ops.square(z)))
            return self.decoder(z)

    ae = AutoEncoder()
    ae.compile(keras.optimizers.Adam(1e-3), loss=keras.losses.MeanSquaredError())
    history = ae.fit(np.random.rand(32, 8), np.random.rand(32, 8), epochs=1, batch_size=16,
                     verbose=0)
    assert list(history.history) == ["loss"] and len(ae.losses) == 1
    assert "│ encoder (Encoder)               │ ?" in summary_text(ae)   # as Keras: no shape
    assert list(ae.get_config()) == ["name", "trainable", "dtype"]   # defaults-only auto-config


# --- custom_train_step_in_tensorflow.py (tf.GradientTape -> keras.GradientTape) ----------------

def test_custom_train_step_guide_numbers():
    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            with keras.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            self.optimizer.apply(tape.gradient(loss, trainable_vars), trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
    fixed_weights(model)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    rs = np.random.RandomState(0)
    x, y = rs.random_sample((256, 32)), rs.random_sample((256, 1))
    history = model.fit(x, y, epochs=3, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [0.1281, 0.0947, 0.0890], atol=2e-4)
    np.testing.assert_allclose(history.history["mae"], [0.2975, 0.2598, 0.2531], atol=2e-4)
    assert model.metrics_names == ["loss", "compile_metrics"]
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), [0.0906, 0.2547], atol=2e-4)


def test_gan_train_step_guide_runs():
    discriminator = keras.Sequential([keras.Input(shape=(8, 8, 1)),
                                      layers.Conv2D(8, 3, strides=2, padding="same"),
                                      layers.LeakyReLU(negative_slope=0.2),
                                      layers.GlobalMaxPooling2D(), layers.Dense(1)],
                                     name="discriminator")
    generator = keras.Sequential([keras.Input(shape=(4,)), layers.Dense(8 * 8),
                                  layers.Reshape((8, 8, 1))], name="generator")

    class GAN(keras.Model):
        def __init__(self, discriminator, generator, latent_dim):
            super().__init__()
            self.discriminator = discriminator
            self.generator = generator
            self.latent_dim = latent_dim
            self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
            self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
            self.seed_generator = keras.random.SeedGenerator(1337)

        @property
        def metrics(self):
            return [self.d_loss_tracker, self.g_loss_tracker]

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

        def train_step(self, real_images):
            batch_size = ops.shape(real_images)[0]
            noise = keras.random.normal(shape=(batch_size, self.latent_dim),
                                        seed=self.seed_generator)
            combined = ops.concatenate([self.generator(noise), real_images], axis=0)
            labels = ops.concatenate([ops.ones((batch_size, 1)), ops.zeros((batch_size, 1))], axis=0)
            with keras.GradientTape() as tape:
                d_loss = self.loss_fn(labels, self.discriminator(combined))
            grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
            self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
            with keras.GradientTape() as tape:
                g_loss = self.loss_fn(ops.zeros((batch_size, 1)),
                                      self.discriminator(self.generator(noise)))
            grads = tape.gradient(g_loss, self.generator.trainable_weights)
            self.g_optimizer.apply(grads, self.generator.trainable_weights)
            self.d_loss_tracker.update_state(d_loss)
            self.g_loss_tracker.update_state(g_loss)
            return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}

    gan = GAN(discriminator, generator, latent_dim=4)
    gan.compile(keras.optimizers.Adam(3e-4), keras.optimizers.Adam(3e-4),
                keras.losses.BinaryCrossentropy(from_logits=True))
    history = gan.fit(np.random.rand(32, 8, 8, 1).astype("float32"), epochs=2, batch_size=16,
                      verbose=0)
    assert sorted(history.history) == ["d_loss", "g_loss"] and gan.metrics_names == [
        "d_loss", "g_loss"]


# --- writing_a_custom_training_loop_in_tensorflow.py ---------------------------------------------

@needs_mnist
def test_custom_training_loop_guide_numbers():
    inputs = keras.Input(shape=(784,), name="digits")
    x = keras.layers.Dense(64, activation="relu")(inputs)
    x = keras.layers.Dense(64, activation="relu")(x)
    model = keras.Model(inputs=inputs, outputs=keras.layers.Dense(10, name="predictions")(x))
    fixed_weights(model)
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    (x_train, y_train), _ = mnist(640, 1)
    x_train = np.reshape(x_train, (-1, 784)).astype("float32") / 255
    x_val, y_val, x_train, y_train = x_train[-128:], y_train[-128:], x_train[:-128], y_train[:-128]
    train_acc, val_acc = keras.metrics.SparseCategoricalAccuracy(), \
        keras.metrics.SparseCategoricalAccuracy()
    logged, accs = [], []
    for epoch in range(2):
        for step in range(0, len(x_train) // 32):
            xb, yb = x_train[step * 32:(step + 1) * 32], y_train[step * 32:(step + 1) * 32]
            with keras.GradientTape() as tape:
                logits = model(xb, training=True)
                loss_value = loss_fn(yb, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply(grads, model.trainable_weights)
            train_acc.update_state(yb, logits)
            if step % 5 == 0:
                logged.append(float(loss_value))
        for i in range(0, len(x_val), 64):
            val_acc.update_state(y_val[i:i + 64], model(x_val[i:i + 64], training=False))
        accs.append((float(train_acc.result()), float(val_acc.result())))
        train_acc.reset_state()
        val_acc.reset_state()
    np.testing.assert_allclose(logged, [2.2869, 2.2661, 2.2220, 2.2385,
                                        2.0838, 2.0132, 1.8845, 2.0223], atol=2e-4)
    np.testing.assert_allclose(accs, [(0.2246, 0.2656), (0.5117, 0.4922)], atol=2e-4)


# --- training_with_built_in_methods.py -----------------------------------------------------------

@needs_mnist
def test_training_with_built_in_methods_guide_numbers():
    def get_uncompiled_model():
        inputs = keras.Input(shape=(784,), name="digits")
        x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
        x = layers.Dense(64, activation="relu", name="dense_2")(x)
        outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
        model = keras.Model(inputs=inputs, outputs=outputs)
        fixed_weights(model)
        return model

    (x_train, y_train), (x_test, y_test) = mnist(1200, 200)
    x_train = x_train.reshape(1200, 784).astype("float32") / 255
    x_test = x_test.reshape(200, 784).astype("float32") / 255
    y_train, y_test = y_train.astype("float32"), y_test.astype("float32")
    x_val, y_val, x_train, y_train = x_train[-200:], y_train[-200:], x_train[:-200], y_train[:-200]
    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.RMSprop(),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[keras.metrics.SparseCategoricalAccuracy()])
    history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_data=(x_val, y_val),
                        verbose=0, shuffle=False)
    expected = {"loss": [2.135, 1.564], "sparse_categorical_accuracy": [0.334, 0.699],
                "val_loss": [1.917, 1.402], "val_sparse_categorical_accuracy": [0.63, 0.655]}
    assert sorted(history.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(history.history[key], values, atol=1e-3)
    np.testing.assert_allclose(model.evaluate(x_test, y_test, batch_size=128, verbose=0),
                               [1.377, 0.695], atol=1e-3)
    assert model.predict(x_test[:3], verbose=0).shape == (3, 10)

    class CategoricalTruePositives(keras.metrics.Metric):
        def __init__(self, name="categorical_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(shape=(), name="ctp", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            y_pred = ops.reshape(ops.argmax(y_pred, axis=1), (-1, 1))
            values = ops.cast(ops.cast(y_true, "int32") == ops.cast(y_pred, "int32"), "float32")
            self.true_positives.assign_add(ops.sum(values))

        def result(self):
            return self.true_positives

        def reset_state(self):
            self.true_positives.assign(0.0)

    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[CategoricalTruePositives()])
    history = model.fit(x_train, y_train, batch_size=64, epochs=3, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["categorical_true_positives"],
                               [6223.0, 6815.0, 6907.0])
    np.testing.assert_allclose(history.history["loss"], [2.1353, 1.5640, 1.0582], atol=2e-4)
    assert model.metrics_names == ["loss", "compile_metrics"]


def test_built_in_methods_endpoint_layer_and_multi_io():
    class LogisticEndpoint(keras.layers.Layer):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

        def call(self, targets, logits, sample_weights=None):
            self.add_loss(self.loss_fn(targets, logits, sample_weights))
            return ops.softmax(logits)

    inputs = keras.Input(shape=(3,), name="inputs")
    targets = keras.Input(shape=(10,), name="targets")
    predictions = LogisticEndpoint(name="predictions")(targets, layers.Dense(10)(inputs))
    model = keras.Model(inputs=[inputs, targets], outputs=predictions)
    fixed_weights(model)
    model.compile(optimizer="adam")
    rs = np.random.RandomState(0)
    data = {"inputs": rs.random_sample((3, 3)), "targets": rs.random_sample((3, 10))}
    np.testing.assert_allclose(model.fit(data, verbose=0).history["loss"], [0.6935], atol=1e-4)

    image_input = keras.Input(shape=(32, 32, 3), name="img_input")
    timeseries_input = keras.Input(shape=(None, 10), name="ts_input")
    x1 = layers.GlobalMaxPooling2D()(layers.Conv2D(3, 3)(image_input))
    x2 = layers.GlobalMaxPooling1D()(layers.Conv1D(3, 3)(timeseries_input))
    x = layers.concatenate([x1, x2])
    model = keras.Model(inputs=[image_input, timeseries_input],
                        outputs=[layers.Dense(1, name="score_output")(x),
                                 layers.Dense(5, name="class_output")(x)])
    assert total_params(model) == " Total params: 219 (876.00 B)"
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss={"score_output": keras.losses.MeanSquaredError(),
                        "class_output": keras.losses.CategoricalCrossentropy()},
                  metrics={"score_output": [keras.metrics.MeanAbsolutePercentageError(),
                                            keras.metrics.MeanAbsoluteError()],
                           "class_output": [keras.metrics.CategoricalAccuracy()]},
                  loss_weights={"score_output": 2.0, "class_output": 1.0})
    history = model.fit([rs.random_sample((20, 32, 32, 3)), rs.random_sample((20, 20, 10))],
                        [rs.random_sample((20, 1)), rs.random_sample((20, 5))],
                        batch_size=10, epochs=1, verbose=0)
    assert sorted(history.history) == [
        "class_output_categorical_accuracy", "class_output_loss", "loss", "score_output_loss",
        "score_output_mean_absolute_error", "score_output_mean_absolute_percentage_error"]
    assert model.metrics_names == ["loss", "compile_metrics", "score_output_loss",
                                   "class_output_loss"]


# --- understanding_masking_and_padding.py --------------------------------------------------------

def test_masking_and_padding_guide():
    raw_inputs = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]
    padded_inputs = keras.utils.pad_sequences(raw_inputs, padding="post")
    assert padded_inputs.tolist() == [[711, 632, 71, 0, 0, 0], [73, 8, 3215, 55, 927, 0],
                                      [83, 91, 1, 645, 1253, 927]]
    masked_output = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(padded_inputs)
    expected = [[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1]]
    np.testing.assert_array_equal(ops.convert_to_numpy(masked_output._keras_mask), expected)
    unmasked = ops.cast(ops.tile(ops.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), "float32")
    masked_embedding = layers.Masking()(unmasked)
    np.testing.assert_array_equal(ops.convert_to_numpy(masked_embedding._keras_mask), expected)

    class TemporalSplit(keras.layers.Layer):
        def call(self, inputs):
            return ops.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            return None if mask is None else ops.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(masked_embedding)
    np.testing.assert_array_equal(ops.convert_to_numpy(first_half._keras_mask), np.ones((3, 3)))
    np.testing.assert_array_equal(ops.convert_to_numpy(second_half._keras_mask),
                                  [[0, 0, 0], [1, 1, 0], [1, 1, 1]])

    class MyActivation(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs):
            return ops.relu(inputs)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = MyActivation()(layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs))
    assert x._keras_mask is not None                    # "Mask found: True"
    model = keras.Model(inputs, layers.LSTM(32)(x))
    assert model(np.random.randint(0, 5000, size=(32, 100))).shape == (32, 32)
    assert total_params(model) == " Total params: 86,272 (337.00 KB)"
    assert "(NotEqual)" in summary_text(model)          # the mask op is listed, as in Keras

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=20, output_dim=4, mask_zero=True)(inputs)
    x = layers.LSTM(3, return_sequences=True)(x)
    model = keras.Model(inputs, layers.Dense(1)(layers.GRU(2)(x)))
    fixed_weights(model, 0.5)
    seqs = [[3, 4, 5], [7, 8], [1, 2, 3, 4, 5, 6]]
    for padding in ("pre", "post"):
        out = model.predict(keras.utils.pad_sequences(seqs, maxlen=6, padding=padding), verbose=0)
        np.testing.assert_allclose(out.ravel(), [0.5963, 0.5338, 0.6347], atol=1e-4)


# --- working_with_rnns.py ------------------------------------------------------------------------

def test_working_with_rnns_guide():
    model = keras.Sequential([layers.Embedding(input_dim=1000, output_dim=64),
                              layers.GRU(256, return_sequences=True), layers.SimpleRNN(128),
                              layers.Dense(10)])
    assert total_params(model) == " Total params: 0 (0.00 B)"      # unbuilt, as Keras prints
    model(np.ones((2, 7), "int32"))
    assert total_params(model) == " Total params: 361,866 (1.38 MB)"

    encoder_input = layers.Input(shape=(None,))
    embedded = layers.Embedding(input_dim=1000, output_dim=64)(encoder_input)
    output, state_h, state_c = layers.LSTM(64, return_state=True, name="encoder")(embedded)
    decoder_input = layers.Input(shape=(None,))
    decoded = layers.Embedding(input_dim=2000, output_dim=64)(decoder_input)
    decoder_output = layers.LSTM(64, name="decoder")(decoded, initial_state=[state_h, state_c])
    model = keras.Model([encoder_input, decoder_input], layers.Dense(10)(decoder_output))
    assert total_params(model) == " Total params: 258,698 (1010.54 KB)"

    paragraph = np.random.random((20, 10, 50)).astype(np.float32)
    lstm_layer = layers.LSTM(64, stateful=True)
    lstm_layer(paragraph)
    lstm_layer(paragraph)
    existing_state = lstm_layer.states
    assert layers.LSTM(64)(paragraph, initial_state=existing_state).shape == (20, 64)
    lstm_layer.reset_states()
    assert float(ops.sum(ops.abs(lstm_layer.states[0]))) == 0.0

    model = keras.Sequential()
    model.add(layers.Bidirectional(layers.LSTM(64, return_sequences=True), input_shape=(5, 10)))
    model.add(layers.Bidirectional(layers.LSTM(32)))
    model.add(layers.Dense(10))
    assert total_params(model) == " Total params: 80,266 (313.54 KB)"
    assert [w.path for w in model.weights][:2] == [
        "sequential_1/bidirectional/forward_lstm_2/lstm_cell/kernel",
        "sequential_1/bidirectional/forward_lstm_2/lstm_cell/recurrent_kernel"]

    model = keras.Sequential([layers.RNN(layers.LSTMCell(64), input_shape=(None, 28)),
                              layers.BatchNormalization(), layers.Dense(10)])
    assert total_params(model) == " Total params: 24,714 (96.54 KB)"


# --- writing_your_own_callbacks.py ---------------------------------------------------------------

@needs_mnist
def test_writing_your_own_callbacks_guide():
    def get_model():
        model = keras.Sequential()
        model.add(keras.layers.Dense(1))
        model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
                      loss="mean_squared_error", metrics=["mean_absolute_error"])
        return model

    (x_train, y_train), (x_test, y_test) = mnist(1000, 300)
    x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
    x_test = x_test.reshape(-1, 784).astype("float32") / 255.0

    class KeysCallback(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.seen = []

        def on_train_batch_end(self, batch, logs=None):
            self.seen.append(("train_batch_end", sorted(logs)))

        def on_epoch_end(self, epoch, logs=None):
            self.seen.append(("epoch_end", list(logs)))

        def on_test_end(self, logs=None):
            self.seen.append(("test_end", list(logs)))

        def on_predict_batch_end(self, batch, logs=None):
            self.seen.append(("predict_batch_end", list(logs)))

    callback = KeysCallback()
    model = get_model()
    model.fit(x_train, y_train, batch_size=128, epochs=1, verbose=0, validation_split=0.5,
              callbacks=[callback])
    model.predict(x_test, batch_size=128, callbacks=[callback], verbose=0)
    assert callback.seen[0] == ("train_batch_end", ["loss", "mean_absolute_error"])
    assert ("test_end", ["loss", "mean_absolute_error"]) in callback.seen
    assert ("epoch_end", ["loss", "mean_absolute_error", "val_loss",
                          "val_mean_absolute_error"]) in callback.seen
    assert callback.seen[-1] == ("predict_batch_end", ["outputs"])

    class LossAndErrorPrintingCallback(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print("The average loss for epoch {} is {:7.2f} and mean absolute error is {:7.2f}."
                  .format(epoch, logs["loss"], logs["mean_absolute_error"]))

    model = get_model()
    model.build((None, 784))
    fixed_weights(model, 0.01)
    out = io.StringIO()
    with redirect_stdout(out):
        model.fit(x_train, y_train, batch_size=128, epochs=2, verbose=0, shuffle=False,
                  callbacks=[LossAndErrorPrintingCallback()])
    assert out.getvalue().splitlines() == [
        "The average loss for epoch 0 is  122.18 and mean absolute error is    5.97.",
        "The average loss for epoch 1 is    4.66 and mean absolute error is    1.73."]


# --- examples: mnist_convnet.py and bidirectional_lstm_imdb.py -----------------------------------

def test_example_model_summaries():
    model = keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(10, activation="softmax"),
    ])
    assert total_params(model) == " Total params: 34,826 (136.04 KB)"
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(200, 128)(inputs)
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(64))(x)
    model = keras.Model(inputs, layers.Dense(1, activation="sigmoid")(x))
    assert total_params(model) == " Total params: 223,361 (872.50 KB)"
