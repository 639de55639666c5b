"""Config compatibility for files written by other Keras versions.

Keras versions add constructor arguments whose default value changes
nothing (Keras 3.15's `quantization_config=None`, `input_axes=None` on
initializers, InputLayer's `ragged=False`; tf.keras 2's `time_major=False`,
`implementation=2`). Before a config from a file is deserialized, such
entries are removed when they hold their neutral value, so a file loads
whether or not a kerasish class lists the argument. A non-neutral value
(e.g. `time_major=True`) is kept, and the class then refuses it clearly.
Keras 3's own legacy fix (`axis=[3]` -> `axis=3`) is applied as well.
"""

_ANY = object()
NEUTRAL_VALUES = {
    "ragged": (False, None),               # InputLayer (Keras 3 and tf.keras 2)
    "quantization_config": (None,),        # Dense / Embedding / EinsumDense (Keras 3.14+)
    "lora_rank": (None,),
    "lora_alpha": (None,),
    "input_axes": (None,),                 # VarianceScaling initializers (Keras 3.15)
    "output_axes": (None,),
    "time_major": (False,),                # tf.keras 2 recurrent layers
    "implementation": _ANY,                # tf.keras 2 / Keras 3 RNN kernel choice (speed only)
    "synchronized": (False,),              # BatchNormalization (Keras 3)
    "renorm": (False,),                    # BatchNormalization (tf.keras 2)
    "renorm_clipping": (None,),
    "fused": (None, True, False),          # tf.keras 2 BatchNormalization kernel choice
    "virtual_batch_size": (None,),
    "adjustment": (None,),
}


def _neutral(key, value, inner):
    allowed = NEUTRAL_VALUES.get(key)
    if allowed is None:
        return key == "renorm_momentum" and not inner.get("renorm")
    return allowed is _ANY or any(value is v or (v is not None and value == v
                                                 and type(value) is type(v)) for v in allowed)


def normalize(config, legacy=False):
    """A copy of `config` with neutral version-specific arguments removed.

    Args:
        config: a serialized object (any nesting of dicts and lists).
        legacy: also apply Keras 3's legacy-HDF5 fixes (`axis=[3]` -> 3).

    Returns:
        The cleaned copy.

    Example:
        >>> normalize({"class_name": "InputLayer", "config": {"ragged": False, "name": "a"}})
        {'class_name': 'InputLayer', 'config': {'name': 'a'}}
    """
    if isinstance(config, list):
        return [normalize(c, legacy) for c in config]
    if not isinstance(config, dict):
        return config
    config = {k: normalize(v, legacy) for k, v in config.items()}
    inner = config.get("config")
    if "class_name" in config and isinstance(inner, dict):
        config["config"] = _clean(inner, legacy)
    return config


def _clean(inner, legacy):
    cleaned = {k: v for k, v in inner.items() if not _neutral(k, v, inner)}
    axis = cleaned.get("axis")
    if legacy and isinstance(axis, list) and len(axis) == 1:
        cleaned["axis"] = int(axis[0])
    return cleaned
