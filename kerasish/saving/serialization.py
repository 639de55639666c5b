"""Object <-> config dicts in Keras 3's format, and the custom-object registry.

A serialized object looks like Keras 3's:
`{"module": "keras.layers", "class_name": "Dense", "config": {...}, "registered_name": None}`.
"""
import contextlib
import importlib

_REGISTRY = {}          # "package>Name" -> class
_NAMES = {}             # class -> "package>Name"
_PUBLIC_MODULES = {     # our package -> the Keras module name written in configs
    "layers": "keras.layers", "initializers": "keras.initializers",
    "regularizers": "keras.regularizers", "constraints": "keras.constraints",
    "optimizers": "keras.optimizers", "losses": "keras.losses", "metrics": "keras.metrics",
    "activations": "keras.activations", "models": "keras.models",
    "dtype_policies": "keras", "random": "keras.random",
}


_safe_mode = [True]


@contextlib.contextmanager
def safe_mode_scope(safe_mode=True):
    """Within it, deserializing Python code (Lambda layers) is refused if `safe_mode`."""
    previous = _safe_mode[0]
    _safe_mode[0] = bool(safe_mode)
    try:
        yield
    finally:
        _safe_mode[0] = previous


def in_safe_mode():
    """True unless inside `safe_mode_scope(False)` or after
    `keras.config.enable_unsafe_deserialization()`."""
    from kerasish import config
    return _safe_mode[0] and not config.is_unsafe_deserialization_enabled()


def register_keras_serializable(package="Custom", name=None):
    """Class decorator registering a custom object for `load_model` and configs.

    Args:
        package: a namespace, "Custom" by default.
        name: the registered class name (the class's own name by default).

    Example:
        >>> @keras.saving.register_keras_serializable(package="MyLayers")
        ... class Scale(keras.layers.Layer): ...
    """
    def decorate(obj):
        key = f"{package}>{name or obj.__name__}"
        _REGISTRY[key] = obj
        _NAMES[obj] = key
        return obj
    return decorate


def get_registered_name(obj):
    """The registered "package>Name" of a class (or its plain name)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return _NAMES.get(cls, cls.__name__)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """Looks `name` up in custom_objects, the registry, then module_objects."""
    for source in (custom_objects or {}, _REGISTRY, module_objects or {}):
        if name in source:
            return source[name]
    return None


def _public_module(cls):
    parts = cls.__module__.split(".")
    if parts[0] == "kerasish" and len(parts) > 1 and parts[1] in _PUBLIC_MODULES:
        return _PUBLIC_MODULES[parts[1]]
    return cls.__module__


def serialize_dtype_policy(policy):
    """A DTypePolicy in Keras 3's nested-dict form."""
    return {"module": "keras", "class_name": "DTypePolicy",
            "config": {"name": policy.name}, "registered_name": None}


def serialize_keras_object(obj):
    """Returns a JSON-friendly config of `obj` (None, str, numbers pass through).

    Args:
        obj: an object with `get_config()`, a function, or a plain value.

    Returns:
        dict in Keras 3's `{"module", "class_name", "config", "registered_name"}` form.
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(o) for o in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, type(lambda: None)) or not hasattr(obj, "get_config"):
        name = getattr(obj, "__name__", None)
        if name is None:
            raise TypeError(f"Cannot serialize {obj!r}: it has no get_config() or name.")
        return name
    cls = type(obj)
    registered = _NAMES.get(cls)
    return {"module": _public_module(cls), "class_name": cls.__name__,
            "config": obj.get_config(), "registered_name": registered}


def deserialize_keras_object(config, custom_objects=None, module_objects=None,
                             safe_mode=True, **kwargs):
    """Rebuilds an object from `serialize_keras_object`'s output.

    Args:
        config: dict (Keras 3 or legacy `{"class_name", "config"}` form), or str.
        custom_objects: dict name -> class/function for user objects.
        module_objects: dict of the built-in names to search.

    Returns:
        The object.
    """
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects, module_objects)
        if found is None:
            raise ValueError(_unknown(config, custom_objects))
        return found
    class_name = config["class_name"]
    inner = config.get("config", {})
    registered = config.get("registered_name")
    cls = None
    for name in (registered, class_name):
        if name:
            cls = get_registered_object(name, custom_objects, module_objects)
            if cls is not None:
                break
    if cls is None:
        cls = _from_module(config.get("module"), class_name)
    if cls is None:
        raise ValueError(_unknown(class_name, custom_objects))
    if hasattr(cls, "from_config"):
        return cls.from_config(inner)
    return cls(**inner)


def _from_module(module, class_name):
    if not module:
        return None
    name = module.replace("keras.src.", "kerasish.").replace("keras.", "kerasish.")
    if name == "keras":
        name = "kerasish"
    try:
        return getattr(importlib.import_module(name), class_name, None)
    except ImportError:
        return None


def _unknown(name, custom_objects):
    known = sorted((custom_objects or {}).keys())
    return (
        f"Could not locate class '{name}'. Make sure custom classes are decorated with "
        "`@keras.saving.register_keras_serializable()` or passed in `custom_objects`"
        + (f" (custom_objects has: {known})." if known else ".")
    )
