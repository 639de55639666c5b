"""ELU layer config as Keras 3.15.1 prints it."""
import kerasish as keras


def test_config_key_order_as_keras():
    # Keras 3.15.1 printed {'name': 'elu', 'alpha': 1.0, 'trainable': True, 'dtype': {...}}.
    config = keras.layers.ELU(alpha=0.5, name="elu").get_config()
    assert list(config) == ["name", "alpha", "trainable", "dtype"]
    assert config["alpha"] == 0.5
    assert keras.layers.ELU.from_config(config).alpha == 0.5
