"""keras.utils.Config behaves as in Keras 3.15.1 (values observed on real Keras)."""
import pytest

import kerasish as keras


def test_attribute_and_item_access():
    c = keras.utils.Config(a=1, b=[1, 2])
    c.x = 3
    assert repr(c) == "<Config {'a': 1, 'b': [1, 2], 'x': 3}>"
    assert c["a"] == 1 and c.x == 3 and "a" in c and len(c) == 3 and list(c) == ["a", "b", "x"]
    assert c.get("z", 5) == 5 and c.as_dict() == {"a": 1, "b": [1, 2], "x": 3}
    assert c.to_json() == '{"a": 1, "b": [1, 2], "x": 3}'


def test_freeze_blocks_every_write():
    c = keras.utils.Config(a=1)
    c.freeze()
    assert c.frozen
    for write in (lambda: setattr(c, "y", 2), lambda: c.__setitem__("y", 2),
                  lambda: c.update(y=2), lambda: c.pop("a")):
        with pytest.raises(ValueError, match="Cannot mutate attribute"):
            write()
    c.unfreeze()
    c.y = 2
    assert list(c.keys()) == ["a", "y"]


def test_unknown_names():
    c = keras.utils.Config()
    with pytest.raises(AttributeError, match="Unknown attribute: 'nope'."):
        c.nope
    with pytest.raises(KeyError):
        c["nope"]
