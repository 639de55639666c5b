"""`FloatDTypePolicy`, `DTypePolicyMap`, and the policies' serialize/deserialize."""
import re

from kerasish import dtype_policies as _policies


class FloatDTypePolicy(_policies.DTypePolicy):
    """A policy of plain float dtypes ("float32", "mixed_float16", ...): Keras's name for the
    non-quantized `DTypePolicy`.

    Example:
        >>> keras.dtype_policies.FloatDTypePolicy("mixed_bfloat16").compute_dtype
        'bfloat16'
    """


def serialize(policy):
    """A policy as Keras writes it into configs.

    Args:
        policy: a `DTypePolicy`.

    Returns:
        `{"module": "keras", "class_name": "DTypePolicy", "config": {"name": ...},
        "registered_name": None}`.
    """
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(),
            "registered_name": None}


def deserialize(config, custom_objects=None):
    """The policy of a `serialize` dict (or a name, or a policy).

    Args:
        config: a dict from `serialize`, a policy name, or a policy.
        custom_objects: accepted for compatibility.

    Returns:
        a `DTypePolicy`.
    """
    del custom_objects
    if isinstance(config, dict) and "class_name" in config:
        if config["class_name"] not in ("DTypePolicy", "FloatDTypePolicy"):
            raise ValueError(f"deserialize: kerasish has no dtype policy class "
                             f"{config['class_name']!r} (quantized policies are not supported).")
        return FloatDTypePolicy(**config["config"])
    return _policies.get(config)


class DTypePolicyMap:
    """Policies by layer path, with a default: `map["encoder/dense"] = "mixed_float16"`.

    A lookup takes the exact path if stored, else the one stored key that matches the path
    as a regular expression (`re.search`), else the default policy. Two matching keys are
    an error.

    Args:
        default_policy: the policy for unmatched paths (the global policy when None).
        policy_map: an optional dict path -> policy (or policy name).

    Example:
        >>> policies = keras.dtype_policies.DTypePolicyMap(default_policy="float32")
        >>> policies["dense/kernel"] = "mixed_float16"
        >>> policies["other"].name
        'float32'
    """

    def __init__(self, default_policy=None, policy_map=None):
        self.default_policy = _policies.get(default_policy)
        self._policy_map = {}
        for key, policy in (policy_map or {}).items():
            self[key] = policy

    @property
    def policy_map(self):
        return dict(self._policy_map)

    def __setitem__(self, key, policy):
        if key in self._policy_map:
            raise ValueError(f"layer/variable path '{key}' already exist in the "
                             "DTypePolicyMap.")
        self._policy_map[key] = deserialize(policy)

    def __getitem__(self, key):
        if key in self._policy_map:
            return self._policy_map[key]
        matches = [k for k in self._policy_map if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(f"Path '{key}' matches multiple dtype policy specification keys: "
                             f"{matches}. Please make sure each path only matches at most one "
                             "dtype policy specification key in the DTypePolicyMap.")
        return self._policy_map[matches[0]] if matches else self.default_policy

    def __delitem__(self, key):
        del self._policy_map[key]

    def __contains__(self, key):
        return key in self._policy_map

    def __len__(self):
        return len(self._policy_map)

    def __iter__(self):
        return iter(self._policy_map)

    def get_config(self):
        """`{"default_policy": name, "policy_map": {path: serialized policy}}`."""
        return {"default_policy": self.default_policy.name,
                "policy_map": {k: serialize(v) for k, v in self._policy_map.items()}}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        mapping = [(k, v.name) for k, v in self._policy_map.items()]
        return (f"<DTypePolicyMap at {hex(id(self))} default_policy="
                f"{self.default_policy.name}, mapping={mapping}>")
