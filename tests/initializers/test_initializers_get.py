"""get / serialize / deserialize of initializers."""
import json

import numpy as np
import pytest

import kerasish as keras
from kerasish import initializers as I

ALIASES = {
    "zeros": I.Zeros, "Zeros": I.Zeros, "zero": I.Zeros, "ones": I.Ones, "Ones": I.Ones,
    "one": I.Ones, "constant": I.Constant, "Constant": I.Constant,
    "identity": I.Identity, "Identity": I.Identity, "IdentityInitializer": I.Identity,
    "uniform": I.RandomUniform, "random_uniform": I.RandomUniform,
    "RandomUniform": I.RandomUniform, "normal": I.RandomNormal,
    "random_normal": I.RandomNormal, "RandomNormal": I.RandomNormal,
    "truncated_normal": I.TruncatedNormal, "TruncatedNormal": I.TruncatedNormal,
    "variance_scaling": I.VarianceScaling, "VarianceScaling": I.VarianceScaling,
    "glorot_uniform": I.GlorotUniform, "GlorotUniform": I.GlorotUniform,
    "glorot_normal": I.GlorotNormal, "GlorotNormal": I.GlorotNormal,
    "he_uniform": I.HeUniform, "HeUniform": I.HeUniform, "he_normal": I.HeNormal,
    "HeNormal": I.HeNormal, "lecun_uniform": I.LecunUniform, "LecunUniform": I.LecunUniform,
    "lecun_normal": I.LecunNormal, "LecunNormal": I.LecunNormal,
    "orthogonal": I.Orthogonal, "Orthogonal": I.Orthogonal,
    "OrthogonalInitializer": I.Orthogonal,
}


@pytest.mark.parametrize("name, cls", sorted(ALIASES.items()))
def test_get_every_alias(name, cls):
    init = I.get(name)
    assert type(init) is cls
    assert init((3, 3)).shape == (3, 3)


def test_module_level_snake_case_names_are_the_classes():
    assert I.glorot_uniform is I.GlorotUniform and I.he_normal is I.HeNormal
    assert I.zeros is I.Zeros and I.orthogonal is I.Orthogonal
    assert I.random_uniform is I.RandomUniform and I.variance_scaling is I.VarianceScaling


def test_get_passes_through_none_instances_and_callables():
    assert I.get(None) is None
    init = I.HeNormal(seed=1)
    assert I.get(init) is init
    assert type(I.get(I.Ones)) is I.Ones

    def halves(shape, dtype=None):
        return keras.ops.full(shape, 0.5, dtype=dtype)
    assert I.get(halves) is halves


def test_get_rejects_unknown_names_and_non_callables():
    # Keras 3.15.1's words
    with pytest.raises(ValueError, match="^Could not interpret initializer identifier: glorot$"):
        I.get("glorot")
    with pytest.raises(ValueError, match="^Could not interpret initializer identifier: 3$"):
        I.get(3)


def test_serialize_matches_keras3_dict():
    assert I.serialize(I.GlorotUniform()) == {
        "module": "keras.initializers", "class_name": "GlorotUniform",
        "config": {"seed": None, "input_axes": None, "output_axes": None},
        "registered_name": None}
    assert I.serialize(I.Orthogonal(gain=2.0, seed=3)) == {
        "module": "keras.initializers", "class_name": "Orthogonal",
        "config": {"seed": 3, "gain": 2.0}, "registered_name": None}


@pytest.mark.parametrize("init", [
    I.Zeros(), I.Ones(), I.Constant(1.5), I.Identity(gain=3.0),
    I.RandomNormal(1.0, 2.0, seed=1), I.RandomUniform(-1.0, 1.0, seed=2),
    I.TruncatedNormal(0.0, 0.5, seed=3), I.VarianceScaling(2.0, "fan_avg", "uniform", seed=4),
    I.GlorotUniform(seed=5), I.GlorotNormal(), I.HeNormal(seed=6), I.HeUniform(),
    I.LecunNormal(seed=7), I.LecunUniform(), I.Orthogonal(gain=0.5, seed=8),
], ids=lambda init: type(init).__name__)
def test_config_round_trips_through_json(init):
    config = json.loads(json.dumps(I.serialize(init)))
    restored = I.deserialize(config)
    assert type(restored) is type(init)
    assert restored.get_config() == init.get_config()
    assert type(I.get(config)) is type(init)
    assert type(init.clone()) is type(init)
    if init.get_config().get("seed") is not None:
        np.testing.assert_array_equal(restored((4, 4)).numpy(), init((4, 4)).numpy())


def test_legacy_config_and_seed_generator_configs():
    assert type(I.get({"class_name": "HeNormal", "config": {"seed": None}})) is I.HeNormal
    init = I.RandomNormal(seed=keras.random.SeedGenerator(11))
    restored = I.deserialize(json.loads(json.dumps(I.serialize(init))))
    assert isinstance(restored.seed, keras.random.SeedGenerator)
    assert restored.seed.get_config()["seed"] == 11
    assert restored.seed.state.numpy().tolist() == [11, 0]


def test_registered_custom_initializer_resolves_by_name():
    @keras.saving.register_keras_serializable(package="InitTests")
    class Twos(I.Initializer):
        def __call__(self, shape, dtype=None):
            return keras.ops.full(shape, 2.0, dtype=dtype)

    config = I.serialize(Twos())
    assert config["registered_name"] == "InitTests>Twos"
    assert type(I.get(config)) is Twos
    assert type(I.get("InitTests>Twos")) is Twos


def test_base_initializer_call_is_abstract():
    with pytest.raises(NotImplementedError, match="__call__"):
        I.Initializer()((2,))


def test_get_of_a_tensor_or_array_returns_it_for_its_shape():
    # Keras 3.15.1: get(tensor | ndarray | np.generic | Variable) is a function returning the
    # value cast to dtype (floatx default); another shape raises this ValueError
    init = I.get(keras.ops.ones((2, 2)))
    assert init((2, 2)).dtype == "float32" and init((2, 2)).numpy().tolist() == [[1, 1], [1, 1]]
    assert init((2, 2), "int32").dtype == "int32"
    with pytest.raises(ValueError, match=r"Expected `shape` to be \(2, 2\) for direct tensor "
                                         r"as initializer. Received shape=\(3,\)"):
        init((3,))
    scalar = I.get(np.float64(3.0))(())
    assert scalar.dtype == "float32" and float(scalar) == 3.0
    assert callable(I.get(keras.Variable(np.ones(2))))
    layer = keras.layers.Dense(2, kernel_initializer=np.full((3, 2), 0.5))
    layer.build((None, 3))
    assert layer.kernel.numpy().tolist() == [[0.5, 0.5]] * 3
