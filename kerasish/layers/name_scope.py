"""`keras.name_scope`: a prefix for the paths of the weights created inside it."""
from kerasish.layers import layer as layer_module


class name_scope:  # noqa: N801 - Keras's public name
    """Prefixes the paths of layer weights created inside: `outer/dense/kernel`.

    Scopes nest (`a/b/dense/kernel`); a layer built inside adds its own name after them.

    Args:
        name: the scope's name (a non-empty string).
        **kwargs: Keras's `caller`, `deduplicate` and `override_parent` are accepted;
            `override_parent=name` starts the path at that name instead of the parents'.

    Example:
        >>> with keras.name_scope("encoder"):
        ...     dense = keras.layers.Dense(2)
        ...     dense.build((None, 3))
        >>> dense.kernel.path
        'encoder/dense/kernel'
    """

    def __init__(self, name, **kwargs):
        if not isinstance(name, str) or not name:
            raise ValueError("Argument `name` must be a non-empty string. "
                             f"Received: name={name!r}")
        self.name = name
        self.override_parent = kwargs.pop("override_parent", None)
        kwargs.pop("caller", None)
        kwargs.pop("deduplicate", None)
        if kwargs:
            raise TypeError(f"name_scope got unexpected keyword arguments: {sorted(kwargs)}")
        self._saved = None

    def __enter__(self):
        scopes = layer_module._context().scopes
        self._saved = list(scopes)
        if self.override_parent is not None:
            scopes[:] = [self.override_parent]
        scopes.append(self.name)
        return self

    def __exit__(self, *exc):
        layer_module._context().scopes[:] = self._saved
        return False
