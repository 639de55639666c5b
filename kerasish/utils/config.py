"""`keras.utils.Config`: a dict you can also read and write as attributes, and freeze."""
import json


class Config:
    """A configuration object: `config.lr` and `config["lr"]` are the same entry.

    Args:
        **kwargs: the initial entries.

    Example:
        >>> config = keras.utils.Config(learning_rate=0.1, layers=[32, 32])
        >>> config.epochs = 3
        >>> config.freeze()          # later writes raise ValueError
        >>> config.as_dict()
        {'learning_rate': 0.1, 'layers': [32, 32], 'epochs': 3}
    """

    __slots__ = ("_config", "_frozen")

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        """True after `freeze()`: entries cannot be added, changed or removed."""
        return self._frozen

    def freeze(self):
        """Makes the config read-only."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        """Makes the config writable again."""
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def __getattr__(self, name):
        try:
            return self._config[name]
        except KeyError:
            raise AttributeError(f"Unknown attribute: '{name}'.") from None

    def __setattr__(self, name, value):
        self._raise_if_frozen()
        self._config[name] = value

    def __getitem__(self, key):
        return self._config[key]

    def __setitem__(self, key, value):
        self._raise_if_frozen()
        self._config[key] = value

    def __contains__(self, item):
        return item in self._config

    def __len__(self):
        return len(self._config)

    def __iter__(self):
        return iter(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"

    def get(self, key, default=None):
        """The entry for `key`, or `default`."""
        return self._config.get(key, default)

    def pop(self, *args):
        """Removes and returns an entry, like `dict.pop`."""
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        """Adds or replaces entries, like `dict.update`."""
        self._raise_if_frozen()
        self._config.update(*args, **kwargs)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def as_dict(self):
        """A plain dict copy of the entries."""
        return dict(self._config)

    def to_json(self):
        """The entries as a JSON string."""
        return json.dumps(self._config)
