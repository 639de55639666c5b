"""Saving behaviours Keras 3 has: unbuilt models, registered custom losses, Keras's
saving_lib entry points and error wording."""
import numpy as np
import pytest

import kerasish as keras
from kerasish import ops
from kerasish.saving import saving_lib


@keras.saving.register_keras_serializable(package="compat_tests")
def scaled_mse(y_true, y_pred):
    """A registered custom loss."""
    return ops.mean(ops.square(y_pred - y_true), axis=-1) * 2.0


class Unbuilt(keras.Model):
    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def _model():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("adam", loss=scaled_mse, metrics=["mae"])
    return model


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_registered_custom_loss_reloads(tmp_path, suffix):
    model = _model()
    x, y = np.random.rand(4, 3), np.random.rand(4, 2)
    model.fit(x, y, epochs=1, verbose=0)
    path = tmp_path / f"m{suffix}"
    model.save(path)
    restored = keras.saving.load_model(path)
    assert restored.loss is scaled_mse
    np.testing.assert_allclose(restored.evaluate(x, y, verbose=0), model.evaluate(x, y, verbose=0),
                               rtol=1e-6)


def test_registered_function_serializes_as_keras():
    assert keras.saving.serialize_keras_object(scaled_mse) == {
        "module": "builtins", "class_name": "function",
        "config": "compat_tests>scaled_mse", "registered_name": "function"}
    assert keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(scaled_mse)) is scaled_mse


def test_unbuilt_model_saves_and_loads_unbuilt(tmp_path):
    path = tmp_path / "unbuilt.keras"
    with keras.saving.custom_object_scope({"Unbuilt": Unbuilt}):
        Unbuilt(units=3).save(path)
        restored = keras.saving.load_model(path)
    assert not restored.built and restored.units == 3
    assert restored(np.ones((1, 4))).shape == (1, 3)


def test_saving_lib_entry_points(tmp_path):
    model = _model()
    model.fit(np.random.rand(4, 3), np.random.rand(4, 2), epochs=1, verbose=0)
    saving_lib.save_model(model, tmp_path / "a.keras")
    restored = saving_lib.load_model(tmp_path / "a.keras")
    np.testing.assert_allclose(restored.predict(np.ones((1, 3)), verbose=0),
                               model.predict(np.ones((1, 3)), verbose=0))
    saving_lib.save_weights_only(model, tmp_path / "a.weights.h5")
    other = _model()
    # Keras 3.15.1 warns "... because it has 2 variables whereas the saved optimizer has
    # 6 variables. " here (its "not built" sentence is only for an optimizer with 0)
    with pytest.warns(UserWarning, match="because it has 2 variables whereas the saved "
                      "optimizer has 6 variables. $"):
        saving_lib.load_weights_only(other, tmp_path / "a.weights.h5")
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def test_keras_error_wording(tmp_path):
    with pytest.raises(ValueError, match=r"The following argument\(s\) are not supported"):
        _model().save(tmp_path / "m.keras", invalid_arg=1)
    with pytest.raises(ValueError, match="Please ensure the file is an accessible"):
        keras.saving.load_model(tmp_path / "missing.keras")
    with pytest.raises(FileNotFoundError):
        keras.saving.load_model(tmp_path / "missing.keras")
    with pytest.raises(ValueError, match="You are saving a model that has not yet been built"):
        Unbuilt().save_weights(tmp_path / "u.weights.h5")


def test_schedule_serializes_under_keras_module_and_round_trips():
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9, name="my_ed")
    config = keras.saving.serialize_keras_object(schedule)
    assert config["module"] == "keras.optimizers.schedules"  # what Keras 3.15.1 writes
    restored = keras.saving.deserialize_keras_object(config)
    assert restored.get_config() == schedule.get_config()


def test_save_and_load_through_file_objects():
    import io
    model = _model()
    x = np.random.rand(4, 3)
    model.fit(x, np.random.rand(4, 2), epochs=1, verbose=0)
    buffer = io.BytesIO()
    saving_lib.save_model(model, buffer)
    buffer.seek(0)
    restored = saving_lib.load_model(buffer)
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0))
    assert restored.loss is scaled_mse


def test_custom_compile_is_not_called_on_load_with_keras_warning(tmp_path):
    class OwnCompile(keras.Sequential):
        def compile(self, *args, **kwargs):
            super().compile(*args, **kwargs)

    model = OwnCompile([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.save(tmp_path / "m.keras")
    with pytest.warns(UserWarning, match=r"`compile\(\)` was not called as part of model "
                                         r"loading because the model's `compile\(\)` method is custom"):
        loaded = keras.saving.load_model(tmp_path / "m.keras",
                                         custom_objects={"OwnCompile": OwnCompile})
    assert not loaded.compiled


class Halved(keras.layers.Layer):
    """Saves its kernel halved and doubles it back on load (an override of both hooks)."""

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

    def call(self, x):
        return ops.matmul(x, self.kernel)

    def save_own_variables(self, store):
        store["half"] = self.kernel.numpy() / 2

    def load_own_variables(self, store):
        self.kernel.assign(store["half"] * 2)


class Failing(keras.layers.Layer):
    def call(self, x):
        return x

    def load_own_variables(self, store):
        raise ValueError("cannot load")


def test_save_and_load_own_variables_overrides_are_used(tmp_path):
    model = keras.Sequential([keras.Input((3,)), Halved()])
    model.layers[0].kernel.assign(np.arange(6, dtype="float32").reshape(3, 2))
    model.save_weights(tmp_path / "w.weights.h5")
    import h5py
    with h5py.File(tmp_path / "w.weights.h5") as f:
        np.testing.assert_allclose(f["layers/halved/vars/half"][()],
                                   np.arange(6).reshape(3, 2) / 2)
    clone = keras.Sequential([keras.Input((3,)), Halved()])
    clone.load_weights(tmp_path / "w.weights.h5")
    np.testing.assert_allclose(clone.layers[0].kernel.numpy(), np.arange(6).reshape(3, 2))
    failing = keras.Sequential([keras.Input((3,)), Failing()])
    failing.save(tmp_path / "f.keras")
    with pytest.raises(ValueError, match="cannot load"):
        keras.saving.load_model(tmp_path / "f.keras", custom_objects={"Failing": Failing})


def test_default_own_variables_store_round_trips():
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    store = {}
    layer.save_own_variables(store)
    assert sorted(store) == ["0", "1"]
    other = keras.layers.Dense(2)
    other.build((None, 3))
    other.load_own_variables(store)
    np.testing.assert_array_equal(other.kernel.numpy(), layer.kernel.numpy())
    with pytest.raises(ValueError, match="expected 2 variables, but received 1"):
        other.load_own_variables({"0": store["0"]})


@keras.saving.register_keras_serializable(package="compat_tests")
class Scale(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@keras.saving.register_keras_serializable(package="compat_tests")
class Holder(keras.layers.Layer):
    """Returns a layer object from get_config and rebuilds it in from_config."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x):
        return self.inner(x)

    def get_config(self):
        return {**super().get_config(), "inner": self.inner}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["inner"] = keras.saving.deserialize_keras_object(config["inner"])
        return cls(**config)


@keras.saving.register_keras_serializable(package="compat_tests")
class NoFromConfig:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x):
        return x * self.factor

    def get_config(self):
        return {"factor": self.factor}


def test_objects_inside_a_config_are_serialized(tmp_path):
    inputs = keras.Input((3,))
    model = keras.Model(inputs, Holder(Scale(0.5))(inputs))
    entry = keras.saving.serialize_keras_object(model.layers[1])
    assert entry["config"]["inner"]["class_name"] == "Scale"
    assert entry["config"]["inner"]["config"]["factor"] == 0.5
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded(np.ones((1, 3))).numpy(), [[0.5, 0.5, 0.5]])


def test_deserialization_errors_use_keras_wording():
    config = keras.saving.serialize_keras_object(NoFromConfig(0.5))
    with pytest.raises(TypeError, match="Unable to reconstruct an instance of 'NoFromConfig'"):
        keras.saving.deserialize_keras_object(config)
    bad = {"module": "builtins", "class_name": "Scale", "registered_name": "compat_tests>Scale",
           "config": {"factor": 1.0, "units": 3}}
    with pytest.raises(TypeError, match="are explicitly deserialized in the model's"):
        keras.saving.deserialize_keras_object(bad)


def test_a_container_holding_itself_saves(tmp_path):
    class Cyclic(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.blocks = []
            self.blocks.append(self.blocks)
            self.out = keras.layers.Dense(2)

        def call(self, x):
            return self.out(x)

    model = Cyclic()
    model(np.ones((2, 4)))
    assert len(model.weights) == 2
    model.save_weights(tmp_path / "c.weights.h5")
    twin = Cyclic()
    twin(np.ones((2, 4)))
    twin.load_weights(tmp_path / "c.weights.h5")
    np.testing.assert_array_equal(twin.out.kernel.numpy(), model.out.kernel.numpy())
