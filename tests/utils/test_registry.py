"""The Registry: custom objects, scopes, namespaces and the catalogs behind every `get`."""
import pytest

import kerasish as keras
from kerasish.utils import registry
from kerasish.utils.registry import REGISTRY, Registry


def test_registered_objects_scopes_and_order():
    reg = Registry()

    @reg.register(package="Pkg")
    class Thing:
        pass

    assert reg.registered_name(Thing) == "Pkg>Thing"
    # Keras 3.15.1: get_registered_name(Thing()) raises AttributeError ('Thing' object has
    # no attribute '__name__'): only classes and functions have names
    with pytest.raises(AttributeError):
        reg.registered_name(Thing())
    assert reg.registered_name(int) == "int"
    assert reg.registered_object("Pkg>Thing") is Thing
    # custom_objects, then scopes (innermost first), then registered, then module objects
    outer, inner = {"x": 1}, {"x": 2}
    reg.push_scope(outer)
    reg.push_scope(inner)
    assert reg.registered_object("x", module_objects={"x": 4}) == 2
    assert reg.registered_object("x", custom_objects={"x": 3}) == 3
    reg.pop_scope(inner)
    assert reg.registered_object("x") == 1
    reg.pop_scope(outer)
    assert reg.registered_object("x", module_objects={"x": 4}) == 4
    assert reg.registered_object("x") is None


def test_custom_object_scope_is_the_global_registry():
    with keras.saving.custom_object_scope({"Thing": int}):
        assert REGISTRY.registered_object("Thing") is int
        assert keras.utils.get_registered_object("Thing") is int
    assert REGISTRY.registered_object("Thing") is None


def test_module_paths_resolve_through_the_deepest_registered_namespace():
    reg = Registry()
    reg.add_namespace("layers", {"Dense": "layers.Dense"})
    reg.add_namespace("optimizers", {"schedules": object()})
    reg.add_namespace("optimizers.schedules", {"CosineDecay": "schedules.CosineDecay"})
    assert reg._from_module("keras.layers", "Dense") == "layers.Dense"
    assert reg._from_module("keras.src.layers.core.dense", "Dense") == "layers.Dense"
    assert reg._from_module("keras.optimizers.schedules", "CosineDecay") == \
        "schedules.CosineDecay"
    assert reg._from_module("my_project.layers", "Dense") is None   # never imported
    assert reg._from_module("keras.src.engine.functional", "Dense") is None
    reg.add_namespace("", {"Model": "top.Model"})
    assert reg._from_module("keras", "Model") == "top.Model"
    assert reg._from_module("keras.src.backend.common", "Model") is None   # not the top's


def test_legacy_class_names_search_the_builtin_namespaces_in_keras_order():
    # losses are searched before metrics: "MeanSquaredError" is the loss class
    found = REGISTRY.find_class({"class_name": "MeanSquaredError"})
    assert found is keras.losses.MeanSquaredError
    assert REGISTRY.find_class({"class_name": "Model"}) is keras.models.Functional
    assert REGISTRY.find_class({"module": "keras", "class_name": "Model"}) is keras.Model


def test_unknown_class_message_is_kerass():
    # Keras 3.15.1's message for this config, word for word (probe12 session, unk.py)
    with pytest.raises(TypeError) as info:
        keras.saving.deserialize_keras_object({"class_name": "Nope", "config": {"name": "x"}})
    assert str(info.value) == (
        "Could not locate class 'Nope'. Make sure custom classes and functions are decorated "
        "with `@keras.saving.register_keras_serializable()`. If they are already decorated, "
        "make sure they are all imported so that the decorator is run before trying to load "
        "them. Full object config: {'class_name': 'Nope', 'config': {'name': 'x'}}")


def test_safe_mode_scope_and_unsafe_switch():
    reg = Registry()
    assert reg.in_safe_mode()
    with reg.safe_mode_scope(False):
        assert not reg.in_safe_mode()
    assert reg.in_safe_mode()
    reg.unsafe_deserialization = True
    assert not reg.in_safe_mode()


def test_every_catalog_is_reachable_by_package_name():
    for name, kind in [("initializers", registry.InstanceCatalog),
                       ("regularizers", registry.InstanceCatalog),
                       ("constraints", registry.InstanceCatalog),
                       ("activations", registry.FunctionCatalog),
                       ("losses", registry.LossCatalog), ("metrics", registry.LossCatalog),
                       ("optimizers", registry.OptimizerCatalog),
                       ("optimizers.schedules", registry.ScheduleCatalog)]:
        assert isinstance(REGISTRY.catalog(name), kind), name


# Keras 3.15.1's exact messages (printed by the oracle).
@pytest.mark.parametrize("get,identifier,message", [
    (keras.initializers.get, "nope", "Could not interpret initializer identifier: nope"),
    (keras.initializers.get, 3, "Could not interpret initializer identifier: 3"),
    (keras.initializers.get, {"class_name": "Nope", "config": {}},
     "Could not interpret initializer identifier: {'class_name': 'Nope', 'config': {}}"),
    (keras.regularizers.get, "l1_l2", "Could not interpret regularizer identifier: l1_l2"),
    (keras.constraints.get, 1.5, "Could not interpret constraint identifier: 1.5"),
    (keras.activations.get, "nope", "Could not interpret activation function identifier: nope"),
    (keras.activations.get, 3, "Could not interpret activation function identifier: 3"),
    (keras.losses.get, "nope", "Could not interpret loss identifier: nope"),
    (keras.losses.get, 3, "Could not interpret loss identifier: 3"),
    (keras.losses.get, {"class_name": "Nope", "config": {}},
     "Could not interpret loss identifier: {'class_name': 'Nope', 'config': {}}"),
    (keras.metrics.get, "nope", "Could not interpret metric identifier: nope"),
    (keras.optimizers.get, "nope", "Could not interpret optimizer identifier: nope"),
    (keras.optimizers.get, 3, "Could not interpret optimizer identifier: 3"),
    (keras.optimizers.get, {"class_name": "Nope", "config": {}},
     "Could not interpret optimizer identifier: {'class_name': 'Nope', 'config': {}}"),
])
def test_get_errors_are_kerass_words(get, identifier, message):
    with pytest.raises(ValueError) as info:
        get(identifier)
    assert str(info.value) == message


def test_get_reads_names_classes_instances_dicts_and_none_as_keras_does():
    assert isinstance(keras.initializers.get("Zeros"), keras.initializers.Zeros)
    assert isinstance(keras.initializers.get(keras.initializers.Ones), keras.initializers.Ones)
    assert keras.initializers.get(None) is None
    assert keras.activations.get(None) is keras.activations.linear
    assert keras.activations.get({"class_name": "function", "config": "relu"}) \
        is keras.activations.relu
    assert keras.losses.get("MeanSquaredError").__class__ is keras.losses.MeanSquaredError
    assert type(keras.optimizers.get("ADAM")) is keras.optimizers.Adam
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
    config = keras.optimizers.schedules.serialize(schedule)
    assert config["module"] == "keras.optimizers.schedules" and config["registered_name"] is None
    assert keras.optimizers.schedules.deserialize(config).decay_rate == 0.9


def test_registered_activation_functions_serialize_by_registered_name():
    @keras.saving.register_keras_serializable(package="Test")
    def my_act(x):
        return x

    try:
        # Keras 3.15.1 prints this dict for a registered activation function
        assert keras.activations.serialize(my_act) == {
            "module": "builtins", "class_name": "function", "config": "Test>my_act",
            "registered_name": "function"}
        assert keras.saving.get_registered_name(my_act) == "Test>my_act"
        assert keras.activations.deserialize(keras.activations.serialize(my_act)) is my_act
        assert keras.activations.deserialize("Test>my_act") is my_act
    finally:
        keras.saving.get_custom_objects().pop("Test>my_act")
        REGISTRY._keys.pop(my_act)


class _UserLayer(keras.layers.Layer):
    def call(self, x):
        return x


def test_public_serialize_keras_object_matches_keras_3_15_1():
    # Values printed by Keras 3.15.1 (TensorFlow backend).
    import numpy as np
    ser = keras.saving.serialize_keras_object
    assert keras.utils.serialize_keras_object is ser
    assert ser(keras.activations.relu) == {"module": "builtins", "class_name": "function",
                                           "config": "relu", "registered_name": "function"}
    assert ser(len)["class_name"] == "builtin_function_or_method"
    assert ser([1, (2, 3), {"a": (4,)}]) == [1, (2, 3), {"a": (4,)}]
    assert isinstance(ser([1, (2, 3)])[1], tuple)
    assert ser(np.float32(1.5)) == 1.5
    assert ser(np.array([1, 2])) == {"class_name": "__numpy__",
                                     "config": {"value": [1, 2], "dtype": "int64"}}
    assert ser(keras.ops.convert_to_tensor([1.0, 2.0])) == {
        "class_name": "__tensor__", "config": {"value": [1.0, 2.0], "dtype": "float32"}}
    dense = keras.layers.Dense(2)
    assert "build_config" not in ser(dense)
    dense.build((None, 5))
    assert ser(dense)["build_config"] == {"input_shape": (None, 5)}
    inp = keras.Input((3,), name="i")
    model = keras.Model(inp, keras.layers.Dense(2, name="d")(inp), name="m")
    config = ser(model)
    assert (config["module"], config["registered_name"]) == ("keras.src.models.functional",
                                                              "Functional")
    assert config["build_config"] == {"input_shape": None} and config["compile_config"] == {}
    seq = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    config = ser(seq)
    assert (config["module"], config["registered_name"]) == ("keras", None)
    assert config["build_config"] == {"input_shape": (None, 3)}
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    config = ser(model)
    assert config["compile_config"]["loss"] == "mse" and config["compile_config"]["metrics"] == ["mae"]
    rebuilt = keras.saving.deserialize_keras_object(config)
    assert rebuilt.compiled and [layer.name for layer in rebuilt.layers] == ["i", "d"]
    # a user's unregistered class: named by its class name; module "__main__" -> None
    config = ser(_UserLayer())
    assert config["registered_name"] == "_UserLayer" and config["module"] == __name__
    main_class = type("MainLayer", (_UserLayer,), {"__module__": "__main__"})
    config = ser(main_class())
    assert config["module"] is None and config["registered_name"] == "MainLayer"


def test_public_deserialize_rebuilds_builtin_functions_and_plain_values():
    # Each result below is what Keras 3.15.1's keras.saving.deserialize_keras_object returns.
    ser, deser = keras.saving.serialize_keras_object, keras.saving.deserialize_keras_object
    for fn in (keras.activations.relu, keras.activations.gelu, keras.losses.mean_squared_error,
               keras.metrics.binary_accuracy):
        assert deser(ser(fn)) is fn     # saved as {"module": "builtins", "class_name": "function"}
    assert deser({"module": "keras.ops", "class_name": "function", "config": "relu",
                  "registered_name": None}) is keras.ops.relu
    assert deser("relu") == "relu" and deser("no_such_thing") == "no_such_thing"
    assert deser(["relu", 1, None]) == ["relu", 1, None]
    assert deser(("a", 2.5)) == ["a", 2.5]
    assert deser({"a": 1, "b": "x"}) == {"a": 1, "b": "x"}
    nested = deser({"a": ser(keras.layers.Dense(2))})
    assert isinstance(nested["a"], keras.layers.Dense) and nested["a"].units == 2
    array = deser({"class_name": "__numpy__", "config": {"value": [1, 2], "dtype": "int32"}})
    assert array.dtype == "int32" and array.tolist() == [1, 2]
    tensor = deser({"class_name": "__tensor__", "config": {"value": [1.0], "dtype": "float32"}})
    assert keras.ops.convert_to_numpy(tensor).tolist() == [1.0]
    assert deser(ser(b"ab")) == b"ab" and ser(b"ab") == {"class_name": "__bytes__",
                                                         "config": {"value": "ab"}}
    assert ser(slice(1, 3)) == {"class_name": "__slice__",
                                "config": {"start": 1, "stop": 3, "step": None}}
    assert deser(ser(slice(1, 3))) == slice(1, 3) and deser(ser(...)) is Ellipsis
    with pytest.raises(TypeError, match="Cannot serialize object {1, 2} of type <class 'set'>"):
        ser({1, 2})
    with pytest.raises(TypeError, match="Could not locate function 'nope'"):
        deser({"module": "builtins", "class_name": "function", "config": "nope",
               "registered_name": "function"})


def test_custom_layer_round_trips_a_builtin_activation_through_its_config():
    # The usual get_config/from_config pattern; Keras 3.15.1 prints "gelu 3".
    class Block(keras.layers.Layer):
        def __init__(self, act="relu", inner=None, **kwargs):
            super().__init__(**kwargs)
            self.act, self.inner = keras.activations.get(act), inner or keras.layers.Dense(3)

        def get_config(self):
            return {**super().get_config(), "act": keras.saving.serialize_keras_object(self.act),
                    "inner": keras.saving.serialize_keras_object(self.inner)}

        @classmethod
        def from_config(cls, config):
            for key in ("act", "inner"):
                config[key] = keras.saving.deserialize_keras_object(config[key])
            return cls(**config)

    block = Block.from_config(Block(keras.activations.gelu).get_config())
    assert block.act is keras.activations.gelu and block.inner.units == 3


@pytest.mark.parametrize("module, name, cls", [
    ("initializers", "zeros", "Zeros"), ("initializers", "he_normal", "HeNormal"),
    ("regularizers", "l2", "L2"), ("constraints", "max_norm", "MaxNorm")])
def test_instance_catalogs_deserialize_a_name_to_an_instance(module, name, cls):
    # Keras 3.15.1: keras.initializers.deserialize("zeros") is a Zeros() instance.
    obj = getattr(keras, module).deserialize(name)
    assert type(obj).__name__ == cls
