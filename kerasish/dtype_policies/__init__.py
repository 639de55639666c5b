"""Dtype policies: which dtype a layer computes in and stores variables in."""
from kerasish.backend import config
from kerasish.utils import registry

_global_policy = [None]


class DTypePolicy:
    """A layer's dtype policy, like `keras.DTypePolicy`.

    Args:
        name: a dtype name ("float32", "float64", ...) or "mixed_float16" /
            "mixed_bfloat16" (compute in 16 bits, keep variables in float32).

    Example:
        >>> keras.DTypePolicy("mixed_float16").compute_dtype
        'float16'
    """

    def __init__(self, name=None):
        name = name or config.floatx()
        if name.startswith("mixed_"):
            self._compute = config.standardize_dtype(name[len("mixed_"):])
            self._variable = "float32"
        else:
            self._compute = self._variable = config.standardize_dtype(name)
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def compute_dtype(self):
        return self._compute

    @property
    def variable_dtype(self):
        return self._variable

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config_dict):
        return cls(**config_dict)

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'


def get(identifier):
    """Returns a DTypePolicy for None, a name, a config dict or a policy."""
    if identifier is None:
        return global_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return DTypePolicy.from_config(identifier.get("config", identifier))
    return DTypePolicy(config.standardize_dtype(identifier)
                       if not str(identifier).startswith("mixed_") else str(identifier))


def set_global_policy(policy):
    """Sets the default policy for new layers (e.g. "mixed_float16")."""
    _global_policy[0] = get(policy) if policy is not None else None


def global_policy():
    """The default policy: the one set, else floatx()."""
    return _global_policy[0] or DTypePolicy(config.floatx())


# Keras's other names for policies; defined after `DTypePolicy` and `get`, which they use.
from kerasish.dtype_policies.dtype_policy_map import (  # noqa: E402
    DTypePolicyMap, FloatDTypePolicy, deserialize, serialize)

registry.REGISTRY.add_namespace("dtype_policies", globals())
