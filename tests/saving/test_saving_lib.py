"""The weights walk of `kerasish.saving.saving_lib` (which object goes to which path)."""
import numpy as np
import pytest

import kerasish as keras
class _PlainDense(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)

    def call(self, x):
        return self.dense(x)


class _AliasedDense(keras.Model):
    def __init__(self):
        super().__init__()
        self.a_dense = keras.layers.Dense(3)

    @property
    def dense(self):
        return self.a_dense

    def call(self, x):
        return self.dense(x)


def test_a_layer_reached_through_a_property_loads_from_its_other_path(tmp_path):
    # Keras 3.15.1 walks dir(): `a_dense` first (saved there), then the `dense` property;
    # loading tries the next path when the first does not fit.
    import h5py
    plain, aliased = _PlainDense(), _AliasedDense()
    plain(np.ones((2, 2))), aliased(np.ones((2, 2)))
    plain.save_weights(str(tmp_path / "plain.weights.h5"))
    aliased.load_weights(str(tmp_path / "plain.weights.h5"))
    np.testing.assert_array_equal(aliased.a_dense.kernel.numpy(), plain.dense.kernel.numpy())
    aliased.save_weights(str(tmp_path / "aliased.weights.h5"))
    with h5py.File(str(tmp_path / "aliased.weights.h5")) as f:
        names = []
        f.visit(names.append)
    assert names == ["a_dense", "a_dense/vars", "a_dense/vars/0", "a_dense/vars/1", "vars"]
    with pytest.raises(ValueError, match="1 objects could not be loaded"):  # as Keras
        plain.load_weights(str(tmp_path / "aliased.weights.h5"))


def test_subclassed_model_sublayers_after_layers_go_under_layers_as_keras(tmp_path):
    # Keras 3.15.1 walks dir(model): Model's `layers` property sorts between "alpha" and
    # "zeta", so `zeta` is saved in the layers list as "layers/dense_1" (the file Keras
    # wrote for this model had exactly these datasets; probe /tmp/probe5/t/h5b.py).
    import h5py

    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.alpha = keras.layers.Dense(2, name="first")
            self.zeta = keras.layers.Dense(1, name="second")

        def call(self, x):
            return self.zeta(self.alpha(x))

    net = Net()
    net(np.zeros((1, 3), "float32"))
    path = str(tmp_path / "n.weights.h5")
    net.save_weights(path)
    with h5py.File(path) as f:
        datasets = []
        f.visititems(lambda k, v: datasets.append(k) if hasattr(v, "shape") else None)
    assert datasets == ["alpha/vars/0", "alpha/vars/1", "layers/dense_1/vars/0",
                        "layers/dense_1/vars/1"]
    twin = Net()
    twin(np.zeros((1, 3), "float32"))
    twin.load_weights(path)
    np.testing.assert_allclose(twin.zeta.kernel.numpy(), net.zeta.kernel.numpy())


def test_spec_layers_save_only_kernel_and_bias_like_keras(tmp_path):
    # Keras 3.15.1 (printed by real Keras): Dense/Embedding/Conv save only their
    # spec variables, so a Dense subclass's extra Variable is not in the file,
    # and loading that file back fails the count check (3 variables, 2 stored).
    import h5py

    class WithExtra(keras.layers.Dense):
        def __init__(self, units, **kwargs):
            super().__init__(units, **kwargs)
            self.my_variable = keras.Variable(np.arange(units, dtype="float32"),
                                              name="my_variable")

    model = keras.Sequential([keras.Input((3,)), WithExtra(2, name="lv"),
                              keras.layers.Embedding(4, 2, name="embedding"),
                              keras.layers.Conv1D(2, 1, name="conv1d")])
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    with h5py.File(path) as f:
        shapes = {k: [f[k][i].shape for i in sorted(f[k].keys())]
                  for k in ("layers/with_extra/vars", "layers/embedding/vars", "layers/conv1d/vars")}
    assert shapes == {"layers/with_extra/vars": [(3, 2), (2,)], "layers/embedding/vars": [(4, 2)],
                      "layers/conv1d/vars": [(1, 2, 2), (2,)]}
    with pytest.raises(ValueError, match="expected 3 variables, but received 2"):
        model.load_weights(path)
    store = {}
    model.layers[0].save_own_variables(store)
    assert [v.shape for v in store.values()] == [(3, 2), (2,)]
    with pytest.raises(ValueError, match="Layer 'lv' expected 3 variables, but received 2 "
                       r"variables during loading. Expected: \['my_variable', 'kernel', 'bias'\]"):
        model.layers[0].load_own_variables(store)
    store = {}
    keras.layers.Dense(2).save_own_variables(store)   # not built: nothing
    assert store == {}


def test_list_appended_variable_saved_in_keras_order(tmp_path):
    # Keras 3.15.1 writes [1.0, 0.0, 3.0, 2.0] here: x, w, then z (appended to
    # the list later, trainable) before the non-trainable y.
    import h5py

    class Listed(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.vs = [keras.Variable(1.0, name="x"),
                       keras.Variable(2.0, name="y", trainable=False)]
            self.w = self.add_weight(shape=(), name="w", initializer="zeros")
            self.vs.append(keras.Variable(3.0, name="z"))

        def call(self, x):
            return x

    model = keras.Sequential([keras.Input((1,)), Listed(name="l")])
    path = str(tmp_path / "l.weights.h5")
    model.save_weights(path)
    with h5py.File(path) as f:
        group = f["layers/listed/vars"]
        assert [float(group[k][()]) for k in sorted(group.keys())] == [1.0, 0.0, 3.0, 2.0]


def test_optimizer_count_mismatch_warning_is_keras_text(tmp_path):
    # Keras 3.15.1 (printed by real Keras for this case): "Skipping variable loading
    # for optimizer 'rm_sprop', because it has 4 variables whereas the saved
    # optimizer has 2 variables. " (no file name; the "not built" sentence only for 0).
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer="rmsprop", loss="mse")
    path = str(tmp_path / "m.keras")
    model.save(path)
    with pytest.warns(UserWarning) as record:
        keras.models.load_model(path)
    assert ("Skipping variable loading for optimizer 'rm_sprop', because it has 4 variables "
            "whereas the saved optimizer has 2 variables. ") in [str(w.message) for w in record]
