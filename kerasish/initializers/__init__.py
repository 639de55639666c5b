"""Weight initializers (`keras.initializers`).

    init = keras.initializers.get("glorot_uniform")
    w = init((784, 128), dtype="float32")

`get` accepts a name ("glorot_uniform", "GlorotUniform", "zeros", ...), a
config dict, a class, an instance or any callable `(shape, dtype) -> Tensor`.
"""
import inspect

import numpy as np

from kerasish.autodiff import tensor as _tensor
from kerasish.backend import config as _backend_config
from kerasish.ops import core as _ops_core
from kerasish.initializers.constant_initializers import (Constant, Identity,
                                                         IdentityInitializer,
                                                         Ones, Zeros)
from kerasish.initializers.initializer import Initializer
from kerasish.initializers.orthogonal import Orthogonal, OrthogonalInitializer
from kerasish.initializers.stft_initializer import STFT
from kerasish.initializers.random_initializers import (GlorotNormal,
                                                       GlorotUniform, HeNormal,
                                                       HeUniform, LecunNormal,
                                                       LecunUniform,
                                                       RandomInitializer,
                                                       RandomNormal,
                                                       RandomUniform,
                                                       TruncatedNormal,
                                                       VarianceScaling,
                                                       compute_fans)
from kerasish.utils import registry

# snake_case aliases, as exported by Keras 3 (each is the class itself)
constant = Constant
identity = Identity
ones = Ones
zeros = Zeros
glorot_normal = GlorotNormal
glorot_uniform = GlorotUniform
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
orthogonal = Orthogonal
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
stft = STFT
STFTInitializer = STFT

_SNAKE = {
    "Initializer": "initializer", "Constant": "constant", "Identity": "identity",
    "Ones": "ones", "Zeros": "zeros", "GlorotNormal": "glorot_normal",
    "GlorotUniform": "glorot_uniform", "HeNormal": "he_normal", "HeUniform": "he_uniform",
    "LecunNormal": "lecun_normal", "LecunUniform": "lecun_uniform",
    "RandomNormal": "random_normal", "RandomUniform": "random_uniform",
    "TruncatedNormal": "truncated_normal", "VarianceScaling": "variance_scaling",
    "Orthogonal": "orthogonal", "STFT": "stft",
}
ALL_OBJECTS_DICT = {name: globals()[name] for name in _SNAKE}
ALL_OBJECTS_DICT.update({snake: globals()[name] for name, snake in _SNAKE.items()})
ALL_OBJECTS_DICT.update({
    "uniform": RandomUniform, "normal": RandomNormal, "one": Ones, "zero": Zeros,
    "OrthogonalInitializer": Orthogonal, "orthogonal_initializer": Orthogonal,
    "IdentityInitializer": Identity, "identity_initializer": Identity,
    "STFTInitializer": STFT,
})

_CATALOG = registry.InstanceCatalog("initializer", ALL_OBJECTS_DICT)
registry.REGISTRY.add_namespace("initializers", globals(), _CATALOG)


def serialize(initializer):
    """Returns the Keras 3 config dict of an initializer.

    Args:
        initializer: an Initializer instance (None passes through).

    Returns:
        `{"module": "keras.initializers", "class_name": ..., "config": {...},
        "registered_name": ...}`.

    Example:
        >>> keras.initializers.serialize(keras.initializers.Zeros())["class_name"]
        'Zeros'
    """
    return _CATALOG.serialize(initializer)


def deserialize(config, custom_objects=None):
    """Rebuilds an initializer from `serialize`'s output (or a legacy config dict).

    Args:
        config: dict with "class_name" and "config", or a name string.
        custom_objects: optional dict name -> class for user initializers.

    Returns:
        An Initializer instance (a class when `config` is a bare name).

    Example:
        >>> keras.initializers.deserialize({"class_name": "Ones", "config": {}})
    """
    return _CATALOG.deserialize(config, custom_objects)


def get(identifier):
    """Returns an initializer for `identifier`.

    Args:
        identifier: None, a name ("he_normal"), a config dict, an Initializer
            class or instance, a callable `(shape, dtype=None) -> Tensor`, or a
            tensor / numpy array (returned, cast, for exactly its shape).

    Returns:
        A callable initializer, or None for None.

    Raises:
        ValueError: unknown name or an identifier of another kind.

    Example:
        >>> keras.initializers.get("zeros")((2,)).numpy()
        array([0., 0.], dtype=float32)
    """
    if _ops_core.is_tensor(identifier) or isinstance(identifier, (np.generic, np.ndarray)):
        return _direct_value(identifier)
    return _CATALOG.get(identifier)


def _direct_value(value):
    """As Keras: a tensor or array is an initializer that returns it, cast to `dtype`
    (floatx by default), for exactly its own shape."""
    def initialize_fn(shape, dtype=None):
        if tuple(shape) != tuple(value.shape):
            raise ValueError(f"Expected `shape` to be {tuple(value.shape)} for direct tensor "
                             f"as initializer. Received shape={shape}")
        return _ops_core.cast(value, _backend_config.standardize_dtype(dtype))
    return initialize_fn


__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
    "IdentityInitializer", "Initializer", "LecunNormal", "LecunUniform", "Ones",
    "Orthogonal", "OrthogonalInitializer", "RandomInitializer", "RandomNormal",
    "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros", "compute_fans",
    "constant", "deserialize", "get", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "identity", "lecun_normal", "lecun_uniform", "ones", "orthogonal",
    "random_normal", "random_uniform", "serialize", "truncated_normal",
    "variance_scaling", "zeros", "STFT", "STFTInitializer", "stft",
]


_tensor.set_initializer_lookup(get)  # Variable("zeros", shape=...) resolves names here
