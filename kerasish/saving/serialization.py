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
    """Looks `name` up in custom_objects, active `custom_object_scope`s, the
    registry, then module_objects.

    Args:
        name: a class/function name or registered "package>Name".
        custom_objects: optional dict name -> object.
        module_objects: optional dict of built-in names.

    Returns:
        The object, or None.
    """
    scopes = reversed(_scopes)
    for source in (custom_objects or {}, *scopes, _REGISTRY, module_objects or {}):
        if name in source:
            return source[name]
    return None


_scopes = []            # dicts pushed by custom_object_scope


class CustomObjectScope:
    """Makes custom objects visible to deserialization by name, as Keras's.

    Args:
        custom_objects: dict name -> class/function (several dicts allowed).

    Example:
        >>> with keras.saving.CustomObjectScope({"MyLayer": MyLayer}):
        ...     model = keras.models.load_model("model.keras")
    """

    def __init__(self, *custom_objects):
        self.custom_objects = {}
        for objects in custom_objects:
            self.custom_objects.update(objects or {})

    def __enter__(self):
        _scopes.append(self.custom_objects)
        return self

    def __exit__(self, *exc):
        for i in range(len(_scopes) - 1, -1, -1):
            if _scopes[i] is self.custom_objects:
                del _scopes[i]
                break


custom_object_scope = CustomObjectScope


def get_custom_objects():
    """The global registry dict ("package>Name" -> object); entries added to it are found."""
    return _REGISTRY


def _public_module(cls):
    parts = cls.__module__.split(".")
    if parts[:3] == ["kerasish", "optimizers", "schedules"]:
        return "keras.optimizers.schedules"  # as Keras writes learning-rate schedules
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
    if isinstance(obj, type(lambda: None)) and obj in _NAMES:
        # a registered function, in Keras 3's form, so that it is found again by its
        # registered "package>name" on loading
        return {"module": "builtins", "class_name": "function", "config": _NAMES[obj],
                "registered_name": "function"}
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

    Classes are looked up in `custom_objects`, the registry, `module_objects`,
    the config's `module`, then kerasish's public namespaces by class name
    (so configs from Keras 3, from Keras 2.13-2.15 `keras.src.engine...`
    modules and legacy `{"class_name", "config"}` entries all resolve).

    Args:
        config: dict (Keras 3 or legacy `{"class_name", "config"}` form), or str.
        custom_objects: dict name -> class/function for user objects.
        module_objects: dict of the built-in names to search.
        safe_mode: False allows Python code (Lambda) while deserializing;
            an enclosing `safe_mode_scope` takes precedence when True.

    Returns:
        The object.

    Raises:
        ValueError: an unknown class, naming it (and the layer) and pointing
            to `custom_objects` / `register_keras_serializable`.

    Example:
        >>> layer = deserialize_keras_object(serialize_keras_object(keras.layers.Dense(2)))
    """
    if safe_mode is False and in_safe_mode():
        with safe_mode_scope(False):
            return deserialize_keras_object(config, custom_objects, module_objects)
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects, module_objects)
        if found is None:
            raise ValueError(_unknown(config, custom_objects, None))
        return found
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Cannot deserialize {config!r}: expected a dict with a 'class_name' "
                         "(and 'config') key, as written by `serialize_keras_object`.")
    if config["class_name"] == "function" and isinstance(config.get("config"), str):
        return deserialize_keras_object(config["config"], custom_objects, module_objects)
    cls = find_class(config, custom_objects, module_objects)
    inner = config.get("config", {})
    if cls is None:
        raise ValueError(_unknown(config["class_name"], custom_objects, inner))
    if hasattr(cls, "from_config"):
        if custom_objects and _accepts_custom_objects(cls):
            return cls.from_config(inner, custom_objects=custom_objects)
        return cls.from_config(inner)
    return cls(**inner)


def find_class(config, custom_objects=None, module_objects=None):
    """The class a `{"module", "class_name", "registered_name"}` entry names, or None."""
    class_name = config["class_name"]
    for name in (config.get("registered_name"), class_name):
        if name:
            cls = get_registered_object(name, custom_objects, module_objects)
            if cls is not None:
                return cls
    return _from_module(config.get("module"), class_name) or _builtin(class_name)


def _accepts_custom_objects(cls):
    import inspect
    try:
        return "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        return False


def _from_module(module, class_name):
    """A class from a Keras module path (mapped to kerasish). As in Keras, other
    modules named in a file are never imported: user classes must be
    registered or passed in `custom_objects`."""
    if not module or module.split(".")[0] not in ("keras", "kerasish"):
        return None
    name = module.replace("keras.src.", "kerasish.").replace("keras.", "kerasish.")
    if name == "keras":
        name = "kerasish"
    try:
        return getattr(importlib.import_module(name), class_name, None)
    except ImportError:
        return None


_BUILTIN_NAMESPACES = ("layers", "models", "optimizers", "losses", "metrics", "initializers",
                       "regularizers", "constraints", "activations", "dtype_policies")
_ALIASES = {"Functional": ("models", "Functional"), "Model": ("models", "Functional")}


def _builtin(class_name):
    """A public kerasish class by its Keras class name (legacy configs have no module)."""
    if class_name in _ALIASES:
        package, class_name = _ALIASES[class_name]
        return getattr(importlib.import_module(f"kerasish.{package}"), class_name, None)
    for package in _BUILTIN_NAMESPACES:
        try:
            found = getattr(importlib.import_module(f"kerasish.{package}"), class_name, None)
        except ImportError:
            continue
        if isinstance(found, type):
            return found
    return None


def _unknown(name, custom_objects, inner):
    known = sorted((custom_objects or {}).keys())
    layer = inner.get("name") if isinstance(inner, dict) else None
    return (
        f"Could not locate class '{name}'"
        + (f" (needed for the object named '{layer}')" if layer else "")
        + ". Make sure custom classes are decorated with "
        "`@keras.saving.register_keras_serializable()` or passed to the loading function in "
        "`custom_objects={'" + str(name).split(">")[-1] + "': " + str(name).split(">")[-1] + "}`"
        + (f" (custom_objects has: {known})." if known else ".")
    )
