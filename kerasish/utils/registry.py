"""The registry: every name <-> object lookup of kerasish in one place.

One `Registry` object, `REGISTRY`, holds

- the custom objects (`register_keras_serializable`, `custom_object_scope`),
- the public namespaces (`layers`, `initializers`, `losses`, ...): each
  package hands its public names to `REGISTRY.add_namespace` when it is
  imported, so this module, on the lowest floor, imports nothing of kerasish,
- Keras 3's object <-> config format (`serialize` / `deserialize`).

Each `keras.xxx.get/serialize/deserialize` is served by a `Catalog` bound to
the registry (`InstanceCatalog` for initializers, regularizers and
constraints, `FunctionCatalog` for activations, `LossCatalog` for losses and
metrics, `OptimizerCatalog` / `ScheduleCatalog` for optimizers and
learning-rate schedules). `kerasish.saving` re-exports the Keras-facing
functions (`register_keras_serializable`, `serialize_keras_object`, ...).

Example:
    >>> from kerasish.utils.registry import REGISTRY
    >>> REGISTRY.lookup_public("initializers", "Zeros").__name__
    'Zeros'
"""
import contextlib
import importlib
import inspect
import types

import numpy as np

# our package -> the Keras module name written in configs
_PUBLIC_MODULES = {
    "layers": "keras.layers", "initializers": "keras.initializers",
    "regularizers": "keras.regularizers", "constraints": "keras.constraints",
    "optimizers": "keras.optimizers", "losses": "keras.losses", "metrics": "keras.metrics",
    "activations": "keras.activations", "models": "keras.models",
    "dtype_policies": "keras", "random": "keras.random", "distillation": "keras.distillation",
}
# where a class named in a config without a usable module is searched, in order
_BUILTIN_SEARCH = ("layers", "models", "optimizers", "losses", "metrics", "initializers",
                   "regularizers", "constraints", "activations", "dtype_policies")
_CLASS_ALIASES = {"Functional": ("models", "Functional"), "Model": ("models", "Functional")}
# where Keras looks up a function saved as {"module": "builtins", "class_name": "function"}
_FUNCTION_SEARCH = ("activations", "constraints", "initializers", "losses", "metrics",
                    "optimizers", "regularizers")


class Registry:
    """Custom objects, public namespaces and Keras 3's config format.

    There is one instance, `REGISTRY`; the public functions of
    `kerasish.saving` (`register_keras_serializable`, ...) are its methods.

    Example:
        >>> @REGISTRY.register(package="MyLayers")
        ... class Scale(keras.layers.Layer): ...
        >>> REGISTRY.registered_name(Scale)
        'MyLayers>Scale'
    """

    def __init__(self):
        self.custom_objects = {}     # "package>Name" -> object
        self._keys = {}              # object -> "package>Name"
        self._scopes = []            # dicts pushed by CustomObjectScope
        self._namespaces = {}        # "layers" -> that package's public names
        self._catalogs = {}          # "losses" -> its Catalog (get/serialize/deserialize)
        self._safe_mode = True
        self.unsafe_deserialization = False

    # custom objects -----------------------------------------------------------
    def register(self, package="Custom", name=None):
        """Class/function decorator registering a custom object for configs and loading.

        Args:
            package: a namespace, "Custom" by default.
            name: the registered name (the object's own `__name__` by default).

        Returns:
            The decorator (it returns the object unchanged).
        """
        def decorate(obj):
            key = f"{package}>{name or obj.__name__}"
            self.custom_objects[key] = obj
            self._keys[obj] = key
            return obj
        return decorate

    def registered_key(self, obj):
        """The "package>Name" `obj` itself was registered under, or None."""
        return self._keys.get(obj)

    def registered_name(self, obj):
        """The "package>Name" a class or function was registered under, else its `__name__`
        (as Keras: a registered function gives "Custom>fn", not "function")."""
        key = self._keys.get(obj)
        return key if key is not None else obj.__name__

    def registered_object(self, name, custom_objects=None, module_objects=None):
        """Looks `name` up in `custom_objects`, the active scopes (innermost first),
        the registered objects, then `module_objects`; None if absent."""
        for source in (custom_objects or {}, *reversed(self._scopes), self.custom_objects,
                       module_objects or {}):
            if name in source:
                return source[name]
        return None

    def push_scope(self, objects):
        """Makes `objects` (dict name -> object) visible to lookups until `pop_scope`."""
        self._scopes.append(objects)

    def pop_scope(self, objects):
        """Removes the innermost scope that is `objects`."""
        for i in range(len(self._scopes) - 1, -1, -1):
            if self._scopes[i] is objects:
                del self._scopes[i]
                return

    # safe mode -----------------------------------------------------------------
    @contextlib.contextmanager
    def safe_mode_scope(self, safe_mode=True):
        """Within it, deserializing Python code (Lambda layers) is refused if `safe_mode`."""
        previous = self._safe_mode
        self._safe_mode = bool(safe_mode)
        try:
            yield
        finally:
            self._safe_mode = previous

    def in_safe_mode(self):
        """True unless inside `safe_mode_scope(False)` or after
        `keras.config.enable_unsafe_deserialization()`."""
        return self._safe_mode and not self.unsafe_deserialization

    # public namespaces -----------------------------------------------------------
    def add_namespace(self, name, objects, catalog=None):
        """Makes a package's public names visible to deserialization.

        Args:
            name: the package path below `kerasish` ("layers",
                "optimizers.schedules"; "" for the top package).
            objects: its names (the package's `globals()`, read when looked up).
            catalog: its `Catalog`, if it has `get`/`serialize`/`deserialize`.
        """
        self._namespaces[name] = objects
        if catalog is not None:
            self._catalogs[name] = catalog

    def catalog(self, name):
        """The `Catalog` of a registered package ("losses", "metrics", ...).

        Modules inside a package use it to resolve names without importing
        their own package's `__init__` (which imports them).
        """
        return self._catalogs[name]

    def lookup_public(self, namespace, name):
        """`kerasish.<namespace>.<name>` if that namespace is registered and has it, else None."""
        return self._namespaces.get(namespace, {}).get(name)

    def _from_module(self, module, class_name):
        """A class from a Keras module path ("keras.layers", "keras.src.models.functional"),
        found in the deepest registered namespace the path starts with. As in Keras,
        modules outside keras/kerasish named in a file are never imported."""
        if not module or module.split(".")[0] not in ("keras", "kerasish"):
            return None
        parts = module.split(".")[1:]
        if parts[:1] == ["src"]:
            parts = parts[1:]
        if not parts:
            return self.lookup_public("", class_name)
        for depth in range(len(parts), 0, -1):
            namespace = ".".join(parts[:depth])
            if namespace in self._namespaces:
                found = self.lookup_public(namespace, class_name)
                if found is not None:
                    return found
                break
        return _internal_class(parts, class_name)

    def _builtin(self, class_name):
        """A public kerasish class by its Keras class name (legacy configs have no module)."""
        if class_name in _CLASS_ALIASES:
            return self.lookup_public(*_CLASS_ALIASES[class_name])
        for namespace in _BUILTIN_SEARCH:
            found = self.lookup_public(namespace, class_name)
            if isinstance(found, type):
                return found
        return None

    def find_class(self, config, custom_objects=None, module_objects=None):
        """The class a `{"module", "class_name", "registered_name"}` entry names, or None."""
        class_name = config["class_name"]
        for name in (config.get("registered_name"), class_name):
            if name:
                cls = self.registered_object(name, custom_objects, module_objects)
                if cls is not None:
                    return cls
        return self._from_module(config.get("module"), class_name) or self._builtin(class_name)

    def find_function(self, name, module=None, custom_objects=None, module_objects=None):
        """The function a `{"class_name": "function", "config": name, "module": ...}` entry
        names, or None: a custom/registered object first, then (as Keras) the public
        `keras.<module>` it names, or for module "builtins" the built-in activations,
        losses, metrics...; last, a custom object registered as "package>name" (Keras
        <= 3.6 saved custom functions by bare name)."""
        found = self.registered_object(name, custom_objects, module_objects)
        if found is None and module == "builtins":
            found = next((f for f in (self.lookup_public(ns, name) for ns in _FUNCTION_SEARCH)
                          if f is not None), None)
        elif found is None and module:
            found = self._from_module(module, name)
            parts = module.split(".")
            if found is None and parts[0] in ("keras", "kerasish") and len(parts) == 2:
                found = getattr(self.lookup_public("", parts[1]), name, None)   # keras.ops
        if found is None and ">" not in name:
            for source in (custom_objects or {}, *reversed(self._scopes), self.custom_objects):
                found = next((obj for key, obj in source.items()
                              if str(key).endswith(f">{name}")), None)
                if found is not None:
                    break
        return found

    # Keras 3's config format ---------------------------------------------------------
    def serialize(self, obj):
        """A JSON-friendly config of `obj` in Keras 3's format (see `serialize_keras_object`)."""
        if obj is None or isinstance(obj, (str, int, float, bool)):
            return obj
        if isinstance(obj, (list, tuple)):
            return [self.serialize(o) for o in obj]
        if isinstance(obj, dict):
            return {k: self.serialize(v) for k, v in obj.items()}
        if isinstance(obj, types.FunctionType) and obj.__name__ != "<lambda>":
            # Keras 3's form for every function (a loss, a metric): its registered
            # "package>name" or its name, found again by it on loading
            return {"module": "builtins", "class_name": "function",
                    "config": self._keys.get(obj, obj.__name__), "registered_name": "function"}
        if isinstance(obj, types.FunctionType) or not hasattr(obj, "get_config"):
            name = getattr(obj, "__name__", None)
            if name is None:
                raise TypeError(f"Cannot serialize object {obj} of type {type(obj)}. To be "
                                "serializable, a class must implement the `get_config()` "
                                "method.")   # Keras's words
            return name
        cls = type(obj)
        config = obj.get_config()
        if isinstance(config, dict):  # objects inside a config are serialized too (as Keras)
            config = {k: self._serialize_nested(v) for k, v in config.items()}
        module, registered = _public_module(cls), self._keys.get(cls)
        if not cls.__module__.startswith("kerasish.") and registered is None:
            registered = cls.__name__   # Keras: a user's class is named by its class name
        elif cls.__module__.startswith("kerasish.applications."):
            # a Keras class outside its public API (ConvNeXt's LayerScale): Keras names it
            # by its `keras.src` module and its class name
            module, registered = "keras.src" + cls.__module__[len("kerasish"):], cls.__name__
        return {"module": None if module == "__main__" else module,   # as Keras
                "class_name": cls.__name__, "config": config, "registered_name": registered}

    def _serialize_nested(self, value):
        """Config values: objects with `get_config` (layers, initializers...) become
        their serialized form; containers are walked; other values are kept."""
        if isinstance(value, dict):
            return {k: self._serialize_nested(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self._serialize_nested(v) for v in value) \
                if type(value) in (list, tuple) else value
        if not isinstance(value, type) and callable(getattr(value, "get_config", None)):
            return self.serialize(value)
        ops = self.lookup_public("", "ops")
        if ops is not None and ops.is_tensor(value) and not hasattr(value, "assign"):
            return serialize_object_as_keras(value)   # Keras's `__tensor__` entry
        return value

    def deserialize(self, config, custom_objects=None, module_objects=None, safe_mode=True):
        """Rebuilds an object from `serialize`'s output (see `deserialize_keras_object`)."""
        if safe_mode is False and self.in_safe_mode():
            with self.safe_mode_scope(False):
                return self.deserialize(config, custom_objects, module_objects)
        if config is None or isinstance(config, (int, float, bool)):
            return config
        if isinstance(config, str):
            found = self.registered_object(config, custom_objects, module_objects)
            if found is None:
                raise ValueError(_unknown_class(config, config))
            return found
        if not isinstance(config, dict) or "class_name" not in config:
            raise ValueError(f"Cannot deserialize {config!r}: expected a dict with a 'class_name' "
                             "(and 'config') key, as written by `serialize_keras_object`.")
        if config["class_name"] == "function" and isinstance(config.get("config"), str):
            found = self.find_function(config["config"], config.get("module"), custom_objects,
                                       module_objects)
            if found is None:
                raise TypeError(_unknown_class(config["config"], config, kind="function"))
            return found
        cls = self.find_class(config, custom_objects, module_objects)
        inner = config.get("config", {})
        if cls is None:  # a TypeError, as Keras's _retrieve_class_or_fn raises
            raise TypeError(_unknown_class(config["class_name"], config))
        if not hasattr(cls, "from_config"):
            if not cls.__module__.startswith("kerasish"):
                raise TypeError(
                    f"Unable to reconstruct an instance of '{config['class_name']}' because "
                    f"the class is missing a `from_config()` method. Full object config: "
                    f"{config}")
            return cls(**inner)
        try:
            if custom_objects and _accepts_custom_objects(cls):
                return cls.from_config(inner, custom_objects=custom_objects)
            return cls.from_config(inner)
        except TypeError as e:
            raise TypeError(
                f"{cls} could not be deserialized properly. Please ensure that components "
                "that are Python object instances (layers, models, etc.) returned by "
                "`get_config()` are explicitly deserialized in the model's `from_config()` "
                f"method.\n\nconfig={config}.\n\nException encountered: {e}") from e


REGISTRY = Registry()


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
        REGISTRY.push_scope(self.custom_objects)
        return self

    def __exit__(self, *exc):
        REGISTRY.pop_scope(self.custom_objects)


# the Keras-facing functions (re-exported by keras.saving and keras.utils)
custom_object_scope = CustomObjectScope
safe_mode_scope = REGISTRY.safe_mode_scope
in_safe_mode = REGISTRY.in_safe_mode
find_class = REGISTRY.find_class


def register_keras_serializable(package="Custom", name=None):
    """Class decorator registering a custom object for `load_model` and configs.

    Args:
        package: a namespace, "Custom" by default.
        name: the registered class name (the class's own name by default).

    Returns:
        The decorator.

    Example:
        >>> @keras.saving.register_keras_serializable(package="MyLayers")
        ... class Scale(keras.layers.Layer): ...
    """
    return REGISTRY.register(package, name)


def get_registered_name(obj):
    """The registered "package>Name" of a class (or its plain name).

    Example:
        >>> keras.saving.get_registered_name(keras.layers.Dense)
        'Dense'
    """
    return REGISTRY.registered_name(obj)


def get_registered_object(name, custom_objects=None, module_objects=None):
    """Looks `name` up in custom_objects, active `custom_object_scope`s, the
    registry, then module_objects.

    Args:
        name: a class/function name or registered "package>Name".
        custom_objects: optional dict name -> object.
        module_objects: optional dict of built-in names.

    Returns:
        The object, or None.

    Example:
        >>> keras.saving.get_registered_object("NoSuchThing") is None
        True
    """
    return REGISTRY.registered_object(name, custom_objects, module_objects)


def get_custom_objects():
    """The global registry dict ("package>Name" -> object); entries added to it are found.

    Example:
        >>> isinstance(keras.saving.get_custom_objects(), dict)
        True
    """
    return REGISTRY.custom_objects


def serialize_keras_object(obj):
    """Returns a JSON-friendly config of `obj` (None, str, numbers pass through).

    Args:
        obj: an object with `get_config()`, a function, or a plain value.

    Returns:
        dict in Keras 3's `{"module", "class_name", "config", "registered_name"}` form.

    Example:
        >>> keras.saving.serialize_keras_object(keras.layers.Dense(2))["class_name"]
        'Dense'
    """
    return REGISTRY.serialize(obj)


def serialize_object_as_keras(obj):
    """`keras.saving.serialize_keras_object`: Keras 3.15.1's public output.

    Beyond `serialize_keras_object` (the form kerasish's own configs nest):
    functions give Keras's `{"module": "builtins", "class_name": "function",
    ...}` dict, tuples stay tuples, numpy values and tensors give Keras's
    `__numpy__`/`__tensor__` entries, a class outside Keras's public API
    (Functional, a user's unregistered class) is named by its module and
    registered name, and `build_config` / `compile_config` are added when
    the object has them (a built layer, a model).

    Args:
        obj: any object Keras can serialize.

    Returns:
        A JSON-friendly structure.

    Example:
        >>> keras.saving.serialize_keras_object(keras.activations.relu)["config"]
        'relu'
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [serialize_object_as_keras(x) for x in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, dict):
        return {k: serialize_object_as_keras(v) for k, v in obj.items()}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__", "config": {
            "start": serialize_object_as_keras(obj.start),
            "stop": serialize_object_as_keras(obj.stop),
            "step": serialize_object_as_keras(obj.step)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(obj, np.generic) or (isinstance(obj, np.ndarray) and obj.ndim == 0):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return {"class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": str(obj.dtype)}}
    ops = REGISTRY.lookup_public("", "ops")
    if ops is not None and ops.is_tensor(obj) and not hasattr(obj, "assign"):
        return {"class_name": "__tensor__",
                "config": {"value": obj.numpy().tolist(), "dtype": str(np.dtype(obj.dtype))}}
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) and \
            obj.__name__ != "<lambda>":
        kind = type(obj).__name__
        name = REGISTRY._keys.get(obj, obj.__name__)
        return {"module": "builtins", "class_name": kind, "config": name,
                "registered_name": kind}
    config = REGISTRY.serialize(obj)
    if isinstance(config, dict) and "module" in config:
        cls = type(obj)
        if config["module"] == "keras.models" and cls.__name__ != "Sequential":
            if cls.__module__.startswith("kerasish."):   # Functional: not public in Keras
                config["module"] = "keras.src.models.functional"
                config["registered_name"] = cls.__name__
        elif cls.__name__ == "Sequential" and cls.__module__.startswith("kerasish."):
            config["module"] = "keras"
        _add_build_and_compile_config(obj, config)
    return config


def _tensor_entry(inner, _):
    ops = REGISTRY.lookup_public("", "ops")
    return ops.convert_to_tensor(np.array(inner["value"], dtype=inner["dtype"]))


# Keras's special `{"class_name": "__xxx__", "config": ...}` entries for plain values
_VALUE_ENTRIES = {
    "__numpy__": lambda inner, _: np.array(inner["value"], dtype=inner["dtype"]),
    "__tensor__": _tensor_entry,
    "__bytes__": lambda inner, _: inner["value"].encode("utf-8"),
    "__ellipsis__": lambda inner, _: Ellipsis,
    "__slice__": lambda inner, rebuild: slice(rebuild(inner["start"]), rebuild(inner["stop"]),
                                             rebuild(inner["step"])),
}


def _add_build_and_compile_config(obj, config):
    """Keras's `get_build_and_compile_config`."""
    if hasattr(obj, "get_build_config"):
        build_config = obj.get_build_config()
        if build_config is not None:
            config["build_config"] = serialize_object_as_keras(build_config)
    if hasattr(obj, "get_compile_config"):
        compile_config = obj.get_compile_config()
        if compile_config is not None:
            config["compile_config"] = serialize_object_as_keras(compile_config)


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
    return REGISTRY.deserialize(config, custom_objects, module_objects, safe_mode)


def deserialize_object_as_keras(config, custom_objects=None, module_objects=None,
                                safe_mode=True, **kwargs):
    """`keras.saving.deserialize_keras_object`: `deserialize_keras_object`, then, as
    Keras, an unbuilt object with a `build_config` is built from it and one with a
    non-empty `compile_config` is compiled from it.

    Args:
        config, custom_objects, module_objects, safe_mode: as `deserialize_keras_object`.

    Returns:
        The object.

    Example:
        >>> model = deserialize_keras_object(serialize_keras_object(compiled_model))
        >>> model.compiled
        True
    """
    # Keras's plain values: a name that is no custom or registered object stays a
    # string, lists and tuples become lists, a dict that is no object entry has its
    # values rebuilt; `__numpy__`, `__tensor__`, `__bytes__`... entries are values.
    if isinstance(config, str):
        found = REGISTRY.registered_object(config, custom_objects, module_objects)
        return config if found is None else found
    if isinstance(config, (list, tuple)):
        return [deserialize_object_as_keras(c, custom_objects, module_objects, safe_mode)
                for c in config]
    if isinstance(config, dict) and ("class_name" not in config or "config" not in config):
        return {k: deserialize_object_as_keras(v, custom_objects, module_objects, safe_mode)
                for k, v in config.items()}
    if isinstance(config, dict) and config["class_name"] in _VALUE_ENTRIES:
        return _VALUE_ENTRIES[config["class_name"]](
            config["config"] or {},
            lambda c: deserialize_object_as_keras(c, custom_objects, module_objects, safe_mode))
    instance = REGISTRY.deserialize(config, custom_objects, module_objects, safe_mode)
    if isinstance(config, dict):
        build_config = config.get("build_config")
        if build_config and not getattr(instance, "built", True):
            instance.build_from_config(build_config)
        compile_config = config.get("compile_config")
        if compile_config and hasattr(instance, "compile_from_config"):
            instance.compile_from_config(compile_config)
    return instance


def _internal_class(parts, class_name):
    """A class Keras keeps outside its public API (`keras.src.applications.convnext`'s
    LayerScale), from the kerasish module of the same path; None if there is none."""
    try:
        module = importlib.import_module("kerasish." + ".".join(parts))
    except ImportError:
        return None
    found = getattr(module, class_name, None)
    return found if isinstance(found, type) else None


def _public_module(cls):
    parts = cls.__module__.split(".")
    if parts[:3] == ["kerasish", "optimizers", "schedules"]:
        return "keras.optimizers.schedules"  # as Keras writes learning-rate schedules
    if parts[0] == "kerasish" and len(parts) > 1 and parts[1] in _PUBLIC_MODULES:
        return _PUBLIC_MODULES[parts[1]]
    return cls.__module__


def _accepts_custom_objects(cls):
    try:
        return "custom_objects" in inspect.signature(cls.from_config).parameters
    except (TypeError, ValueError):
        return False


def _unknown_class(name, full_config, kind="class"):
    """Keras 3.15.1's message (`_retrieve_class_or_fn`) for a class or function that no
    custom object, registration or Keras module provides."""
    return (f"Could not locate {kind} '{name}'. Make sure custom classes and functions are "
            "decorated with `@keras.saving.register_keras_serializable()`. If they are "
            "already decorated, make sure they are all imported so that the decorator is run "
            f"before trying to load them. Full object config: {full_config}")


def _unwrap_function_form(config):
    """Keras's `{"class_name": "function", "config": name}` form -> name."""
    if isinstance(config, dict) and config.get("class_name") == "function":
        return config["config"]
    return config


# catalogs: how each public module reads identifiers -------------------------------------
def _not_interpreted(kind, identifier):
    """Keras 3.15.1's error for an identifier `get` cannot resolve (its exact words)."""
    return ValueError(f"Could not interpret {kind} identifier: {identifier}")


def _deserialize_or_not_interpreted(catalog, config, identifier=None):
    """`catalog.deserialize(config)`; an unknown class gives Keras's `get` error."""
    if catalog.registry.find_class(config, None, catalog.objects) is None and \
            (not isinstance(catalog, OptimizerCatalog)
             or str(config.get("class_name")).lower() not in catalog.objects):
        raise _not_interpreted(catalog.kind, config if identifier is None else identifier)
    return catalog.deserialize(config)
class Catalog:
    """The built-in objects of one public module and its `serialize`/`deserialize`.

    Args:
        kind: what the objects are, for messages ("initializer").
        objects: dict name -> built-in object (the names `get` accepts).
        registry: the `Registry` (the global one by default).
    """

    def __init__(self, kind, objects, registry=REGISTRY):
        self.kind = kind
        self.objects = objects
        self.registry = registry

    def serialize(self, obj):
        """`obj`'s saved form: its Keras 3 config dict (functions: their name)."""
        return self.registry.serialize(obj)

    def deserialize(self, config, custom_objects=None):
        """The object `serialize`'s output describes (built-ins looked up in `objects`)."""
        return self.registry.deserialize(config, custom_objects=custom_objects,
                                         module_objects=self.objects)


class InstanceCatalog(Catalog):
    """Initializers, regularizers, constraints: names and classes give a default instance.

    A name is looked up among the built-ins first, then the registered objects.
    """

    def deserialize(self, config, custom_objects=None):
        """As `Catalog.deserialize`; a name ("zeros", "l2") gives an instance, as in Keras."""
        obj = super().deserialize(config, custom_objects)
        return obj() if inspect.isclass(obj) else obj

    def lookup(self, name):
        """The built-in or registered object named `name`; ValueError listing valid names."""
        found = self.objects.get(name) or self.registry.registered_object(name)
        if found is None:
            raise _not_interpreted(self.kind, name)
        return found

    def get(self, identifier):
        """None -> None; a name, config dict, class, instance or callable -> a callable.

        Raises:
            ValueError: an unknown name, or an identifier of another kind.
        """
        if identifier is None:
            return None
        if isinstance(identifier, dict):
            obj = _deserialize_or_not_interpreted(self, identifier)
        elif isinstance(identifier, str):
            obj = self.lookup(identifier)
        else:
            obj = identifier
        if inspect.isclass(obj):
            return obj()
        if callable(obj):
            return obj
        raise _not_interpreted(self.kind, identifier)


class FunctionCatalog(Catalog):
    """Activations: functions saved by name; `get(None)` is `default`; classes are not called.

    A name is looked up in custom objects, scopes and registered objects
    before the built-ins.

    Args:
        kind: "activation function".
        objects: dict name -> built-in function.
        default: what `get(None)` returns.
        short_kind: the word used in "a registered custom ..." ("activation").
    """

    def __init__(self, kind, objects, default, short_kind, registry=REGISTRY):
        super().__init__(kind, objects, registry)
        self.default = default
        self.short_kind = short_kind

    def serialize(self, fn):
        """A built-in's name, a registered function's "package>name", an object's config."""
        name = getattr(fn, "__name__", None)
        if self.objects.get(name) is fn:
            return name
        if isinstance(fn, types.FunctionType):
            if name in self.objects:  # Keras checks only the name against its module
                return name
            # Keras 3's form for any other function, by its registered "package>name"
            return {"module": "builtins", "class_name": "function",
                    "config": self.registry.registered_key(fn) or name,
                    "registered_name": "function"}
        if isinstance(fn, types.BuiltinFunctionType):
            return self.registry.registered_key(fn) or fn.__name__
        if hasattr(fn, "get_config"):
            return self.registry.serialize(fn)
        raise ValueError(
            "Cannot serialize activation: expected a function or an object with get_config(). "
            f"Received: activation={fn!r} ({type(fn).__name__})"
        )

    def lookup(self, name, custom_objects=None):
        """The function named `name` (custom objects first); ValueError listing valid names."""
        found = self.registry.registered_object(name, custom_objects, self.objects)
        if found is None:
            raise _not_interpreted(self.kind, name)
        return found

    def deserialize(self, config, custom_objects=None):
        """A name, Keras's `{"class_name": "function"}` form or a config dict -> the object."""
        config = _unwrap_function_form(config)
        if isinstance(config, str):
            return self.lookup(config, custom_objects)
        return super().deserialize(config, custom_objects)

    def get(self, identifier):
        """None -> `default`; a name or config dict -> the function; callables pass through."""
        if identifier is None:
            return self.default
        obj = self.deserialize(identifier) if isinstance(identifier, (str, dict)) else identifier
        if callable(obj):
            return obj
        raise _not_interpreted(self.kind, identifier)


class LossCatalog(Catalog):
    """Losses and metrics: names are built-ins only (classes get their defaults).

    Args:
        kind: "loss" or "metric".
        objects: dict name -> built-in class/function (the names `get` accepts).
        extra_objects: more names only deserialization knows (metric functions).
    """

    def __init__(self, kind, objects, extra_objects=None, registry=REGISTRY):
        super().__init__(kind, objects, registry)
        self.extra_objects = extra_objects or {}

    def deserialize(self, config, custom_objects=None):
        """A name, the function form or a config dict -> the loss/metric (class or function)."""
        objects = {**self.objects, **self.extra_objects} if self.extra_objects else self.objects
        return self.registry.deserialize(_unwrap_function_form(config),
                                         custom_objects=custom_objects, module_objects=objects)

    def _unknown(self, identifier):
        return _not_interpreted(self.kind, identifier)

    def get(self, identifier):
        """None -> None; a built-in name (class names give a default instance), a config
        dict or a callable -> the loss/metric. ValueError for anything else."""
        if identifier is None:
            return None
        if isinstance(identifier, dict):
            obj = _deserialize_or_not_interpreted(self, identifier)
        elif isinstance(identifier, str):
            obj = self.objects.get(identifier)
            if obj is None:
                raise self._unknown(identifier)
        else:
            obj = identifier
        if not callable(obj):
            raise self._unknown(identifier)
        return obj() if inspect.isclass(obj) else obj


class _ClassConfigCatalog(Catalog):
    """Objects always saved as a class config (optimizers, learning-rate schedules).

    Args:
        kind: for messages ("optimizer").
        objects: dict name -> built-in class.
        base: the class every instance derives from.
        module: the Keras module written for built-ins ("keras.optimizers").
        label: the name of the instance in `serialize`'s error ("Optimizer").
    """

    def __init__(self, kind, objects, base, module, label, registry=REGISTRY):
        super().__init__(kind, objects, registry)
        self.base = base
        self.module = module
        self.label = label

    def serialize(self, obj):
        """Keras 3's `{"module", "class_name", "config", "registered_name"}` dict."""
        if not isinstance(obj, self.base):
            raise ValueError(f"`serialize` expects {self.label} instance. Received: {obj!r}")
        cls = type(obj)
        builtin = cls in self.objects.values()
        return {
            "module": self.module if builtin else (None if cls.__module__ == "__main__"
                                                   else cls.__module__),   # as Keras
            "class_name": cls.__name__,
            "config": obj.get_config(),
            # a registered class by its "package>Name" (as Keras), else its class name
            "registered_name": None if builtin else (self.registry.registered_key(cls)
                                                     or cls.__name__),
        }


class OptimizerCatalog(_ClassConfigCatalog):
    """Optimizers: built-in class names match case-insensitively; `objects` keys are lower-case."""

    def deserialize(self, config, custom_objects=None):
        """A fresh optimizer from `serialize`'s output (custom classes via `custom_objects`)."""
        if not isinstance(config, dict) or "class_name" not in config:
            raise ValueError(
                "Could not interpret optimizer config: expected a dict with 'class_name' "
                f"and 'config'. Received: {config!r}"
            )
        names = [n for n in (config.get("registered_name"), config["class_name"]) if n]
        # custom_objects, the active scopes, then the registered classes (Keras finds a
        # `register_keras_serializable` optimizer by its "package>Name")
        cls = next((found for found in (self.registry.registered_object(n, custom_objects)
                                        for n in names) if found is not None), None)
        if cls is None:
            cls = self.objects.get(str(config["class_name"]).lower())
        if cls is None:
            raise ValueError(
                f"Could not interpret optimizer identifier: {config['class_name']!r}. "
                f"Valid names: {sorted(self.objects)}. Pass custom optimizers with "
                "`custom_objects`."
            )
        settings = dict(config.get("config") or {})
        if custom_objects:
            return cls.from_config(settings, custom_objects=custom_objects)
        return cls.from_config(settings)

    def get(self, identifier):
        """None or an optimizer pass through; a class name or config dict -> a new optimizer."""
        if identifier is None or isinstance(identifier, self.base):
            return identifier
        if isinstance(identifier, dict):
            return _deserialize_or_not_interpreted(self, identifier)
        if isinstance(identifier, str):
            return _deserialize_or_not_interpreted(
                self, {"class_name": identifier, "config": {}}, identifier)
        raise _not_interpreted(self.kind, identifier)


class ScheduleCatalog(_ClassConfigCatalog):
    """Learning-rate schedules: looked up by registered or class name, built-ins and custom."""

    def deserialize(self, config, custom_objects=None):
        """The schedule of `serialize`'s output (custom classes via `custom_objects`)."""
        if not isinstance(config, dict) or "class_name" not in config:
            raise ValueError(
                "Could not interpret learning rate schedule config: expected a dict "
                f"with 'class_name' and 'config'. Received: {config!r}"
            )
        known = dict(self.objects)
        known.update(custom_objects or {})
        cls = None
        for name in (config.get("registered_name"), config["class_name"]):
            # custom_objects, the active scopes, the registered classes, then built-ins
            found = self.registry.registered_object(name, custom_objects, self.objects) \
                if name else None
            if found is not None:
                cls = found
                break
        if cls is None:
            raise ValueError(
                f"Unknown decay: '{config['class_name']}'. Valid schedules: "
                f"{sorted(known)}. Pass custom schedules with `custom_objects`."
            )
        return cls.from_config(dict(config.get("config", {})))
