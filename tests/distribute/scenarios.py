"""Models, data and training runs shared by the in-process and MPI tests.

Every run starts from the same explicit weights (`initial_weights`), so a
distributed run and the single-device reference can be compared exactly.
"""
import numpy as np

import kerasish as keras

FEATURES, HIDDEN, OUTPUTS = 6, 16, 3
SAMPLES, BATCH, EPOCHS = 96, 16, 2


def data():
    """A small regression problem (float32 x, y)."""
    rng = np.random.default_rng(42)
    x = rng.normal(size=(SAMPLES, FEATURES)).astype("float32")
    y = (x @ rng.normal(size=(FEATURES, OUTPUTS)) + 0.1).astype("float32")
    return x, y


def initial_weights():
    """Fixed starting weights of `make_model` (kernel/bias of both Dense layers)."""
    rng = np.random.default_rng(7)
    return [rng.normal(0, 0.3, (FEATURES, HIDDEN)).astype("float32"),
            rng.normal(0, 0.1, (HIDDEN,)).astype("float32"),
            rng.normal(0, 0.3, (HIDDEN, OUTPUTS)).astype("float32"),
            rng.normal(0, 0.1, (OUTPUTS,)).astype("float32")]


def make_optimizer(name):
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
    return keras.optimizers.Adam(learning_rate=0.01)


def make_model(optimizer="sgd", weights=True):
    """A Dense MLP (Dropout off), compiled with MSE and an MAE metric."""
    model = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(HIDDEN, activation="tanh"),
                              keras.layers.Dropout(0.0),
                              keras.layers.Dense(OUTPUTS)])
    model.compile(optimizer=make_optimizer(optimizer), loss="mse", metrics=["mae"])
    if weights:
        model.set_weights(initial_weights())
    return model


def fit(model, batch_size=BATCH, epochs=EPOCHS):
    """Trains on `data()` without shuffling; returns the History dict."""
    x, y = data()
    return model.fit(x, y, batch_size=batch_size, epochs=epochs, shuffle=False,
                     verbose=0).history


def fit_dataset(model):
    """Trains on a batched `keras.data.Dataset` of `data()`."""
    x, y = data()
    ds = keras.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    return model.fit(ds, epochs=EPOCHS, verbose=0).history


def custom_loop(model, strategy=None, steps=4):
    """A TF-style custom loop: strategy.run + GradientTape + apply_gradients.

    Returns:
        list of the global mean loss of each step.
    """
    x, y = data()
    optimizer = model.optimizer
    strategy = strategy or keras.distribute.get_strategy()
    ds = keras.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).take(steps)
    dist = strategy.experimental_distribute_dataset(ds)

    def step_fn(batch):
        bx, by = batch
        with keras.GradientTape() as tape:
            pred = model(bx, training=True)
            per_example = keras.ops.mean(keras.ops.square(pred - by), axis=-1)
            loss = keras.ops.sum(per_example) / BATCH  # global-batch mean, per replica
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for batch in dist:
        per_replica = strategy.run(step_fn, args=(batch,))
        losses.append(float(strategy.reduce("SUM", per_replica, axis=None)))
    return losses


def flat_weights(model):
    return np.concatenate([w.ravel() for w in model.get_weights()])
