"""FloatDTypePolicy, DTypePolicyMap and serialize/deserialize (Keras 3.15.1's outputs)."""
import pytest

import kerasish as keras

dp = keras.dtype_policies


def test_serialize_round_trip():
    policy = keras.DTypePolicy("mixed_float16")
    assert dp.serialize(policy) == {"module": "keras", "class_name": "DTypePolicy",
                                    "config": {"name": "mixed_float16"},
                                    "registered_name": None}
    assert dp.deserialize(dp.serialize(policy)) == policy
    assert repr(dp.deserialize({"class_name": "DTypePolicy", "config": {"name": "float16"}})) \
        == '<DTypePolicy "float16">'
    assert keras.FloatDTypePolicy("mixed_float16").compute_dtype == "float16"
    assert isinstance(keras.FloatDTypePolicy("float64"), keras.DTypePolicy)


def test_policy_map_lookup_and_config():
    policies = dp.DTypePolicyMap(default_policy="float32")
    policies["dense/kernel"] = "mixed_float16"
    assert policies["dense/kernel"].name == "mixed_float16"
    assert policies["other"].name == "float32"
    assert policies["model/dense/kernel"].name == "mixed_float16"  # regular-expression match
    assert policies.get_config() == {
        "default_policy": "float32",
        "policy_map": {"dense/kernel": {"module": "keras", "class_name": "DTypePolicy",
                                        "config": {"name": "mixed_float16"},
                                        "registered_name": None}}}
    with pytest.raises(ValueError, match="already exist"):
        policies["dense/kernel"] = "float32"
    policies["dense"] = "float64"
    with pytest.raises(ValueError, match="matches multiple dtype policy"):
        policies["x/dense/kernel"]
