"""The layers Keras defines inside its application modules (ConvNeXt's LayerScale and
StochasticDepth, InceptionResNetV2's CustomScaleLayer), the pass-through
preprocessing of the models that rescale their inputs, and the argument checks of
the newer applications (Keras's error texts)."""
import numpy as np
import pytest

import kerasish as keras
from kerasish.applications.convnext import LayerScale, StochasticDepth
from kerasish.applications.inception_resnet_v2 import CustomScaleLayer


def test_layer_scale_multiplies_by_gamma_and_round_trips_its_config():
    layer = LayerScale(0.5, 3, name="ls")
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x)), x * 0.5)
    assert [tuple(w.shape) for w in layer.trainable_weights] == [(3,)]
    layer.set_weights([np.array([1.0, 2.0, 3.0], "float32")])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x)), x * [1, 2, 3])
    again = LayerScale.from_config(layer.get_config())
    assert (again.init_values, again.projection_dim, again.name) == (0.5, 3, "ls")


def test_stochastic_depth_drops_whole_samples_while_training_only():
    layer = StochasticDepth(0.5)
    x = np.ones((400, 2, 2, 3), "float32")
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(layer(x)), x)
    out = keras.ops.convert_to_numpy(layer(x, training=True))
    per_sample = out.reshape(400, -1)
    # each sample is all 0 or all 1 / keep_prob = 2
    assert set(np.unique(per_sample)) <= {0.0, 2.0}
    assert (per_sample.min(axis=1) == per_sample.max(axis=1)).all()
    kept = (per_sample[:, 0] > 0).mean()
    assert 0.35 < kept < 0.65
    assert StochasticDepth.from_config(layer.get_config()).drop_path_rate == 0.5


def test_custom_scale_layer_adds_the_scaled_residual():
    a = np.full((2, 3), 2.0, "float32")
    b = np.full((2, 3), 4.0, "float32")
    layer = CustomScaleLayer(0.25)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer([a, b])), a + 0.25 * b)
    assert CustomScaleLayer.from_config(layer.get_config()).scale == 0.25
    x = keras.layers.Input((5,))
    assert layer([x, x]).shape == (None, 5)


@pytest.mark.parametrize("module", ["efficientnet", "efficientnet_v2", "mobilenet_v3",
                                    "convnext"])
def test_preprocess_input_passes_through(module):
    x = np.random.default_rng(0).uniform(0, 255, (1, 4, 4, 3)).astype("float32")
    assert getattr(keras.applications, module).preprocess_input(x) is x


@pytest.mark.parametrize("module", ["xception", "inception_v3", "inception_resnet_v2",
                                    "nasnet"])
def test_tf_mode_preprocessing(module):
    pixel = np.array([[[0.0, 127.5, 255.0]]], "float32")
    np.testing.assert_allclose(getattr(keras.applications, module).preprocess_input(pixel),
                               [[[-1.0, 0.0, 1.0]]], atol=1e-6)


def test_argument_errors_as_keras(zero_init):
    apps = keras.applications
    with pytest.raises(ValueError, match=r"alpha can be one of `0.75`, `1.0` for non "
                                         r"minimalistic or `1.0` for minimalistic only"):
        apps.MobileNetV3Small(alpha=0.5)
    with pytest.raises(ValueError, match=r"at least 32x32; Received `input_shape=\(16, 16, 3\)`"):
        apps.MobileNetV3Large(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        apps.EfficientNetB0(classes=10)
    with pytest.raises(ValueError, match="or the path to the weights file to be loaded.$"):
        apps.EfficientNetB0(weights="no_such_file.h5")
    with pytest.raises(ValueError, match="loaded; Received: weights=no_such_file.h5"):
        apps.InceptionV3(weights="no_such_file.h5")
    with pytest.raises(ValueError, match="at least 71x71"):
        apps.Xception(weights=None, include_top=False, input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match=r"`input_shape` should be \(299, 299, 3\)"):
        apps.InceptionResNetV2(input_shape=(224, 224, 3))
    with pytest.raises(ValueError, match="must be a multiple of 24"):
        apps.nasnet.NASNet(penultimate_filters=100, weights=None, include_top=False,
                           input_shape=(32, 32, 3))
    with pytest.raises(ValueError, match="ImageNet weights can only be loaded with NASNetLarge "
                                         "or NASNetMobile"):
        apps.nasnet.NASNet(default_size=96, include_top=False, input_shape=(96, 96, 3))
    with pytest.raises(ValueError, match="The number of repeats in `EfficientNet` must be > 0"):
        apps.efficientnet.EfficientNet(1.0, 1.0, 32, weights=None, include_top=False,
                                       input_shape=(32, 32, 3), blocks_args=[
                                           dict(kernel_size=3, repeats=0, filters_in=32,
                                                filters_out=16, expand_ratio=1, id_skip=True,
                                                strides=1, se_ratio=0.25)])


@pytest.mark.parametrize("name,size", [("EfficientNetB0", 32), ("EfficientNetV2B0", 32),
                                       ("MobileNetV3Small", 32), ("ConvNeXtTiny", 32),
                                       ("Xception", 71), ("InceptionV3", 75),
                                       ("InceptionResNetV2", 75), ("NASNetMobile", 32)])
def test_input_tensor_becomes_the_model_input(name, size, zero_init):
    inputs = keras.Input((size, size, 3))
    model = getattr(keras.applications, name)(input_tensor=inputs, include_top=False,
                                              weights=None, pooling="avg")
    assert model.inputs[0] is inputs
    assert model.output.shape[0] is None and len(model.output.shape) == 2


def test_mobilenet_v3_warns_when_imagenet_weights_do_not_match_the_input(monkeypatch,
                                                                         zero_init):
    loaded = []
    monkeypatch.setattr(keras.applications.common.file_utils, "get_file",
                        lambda fname, origin, **kwargs: loaded.append(fname) or "/x.h5")
    monkeypatch.setattr(keras.Model, "load_weights", lambda self, path: None)
    with pytest.warns(UserWarning, match=r"or `rows` is not 224. Weights for input shape "
                                         r"\(224, 224\) will be loaded as the default."):
        keras.applications.MobileNetV3Small(input_shape=(96, 96, 3), include_top=False,
                                            minimalistic=True)
    assert loaded == ["weights_mobilenet_v3_small_minimalistic_224_1.0_float_no_top_v2.h5"]


def test_layer_scale_serializes_as_keras_and_loads_back():
    # Keras 3.15.1: serialize_keras_object(LayerScale(1e-6, 4, name="ls")) names the class
    # by its keras.src module and class name; kerasish finds it again from that entry
    from kerasish.applications.convnext import LayerScale
    config = keras.saving.serialize_keras_object(LayerScale(1e-6, 4, name="ls"))
    assert config["module"] == "keras.src.applications.convnext"
    assert config["registered_name"] == "LayerScale"
    layer = keras.saving.deserialize_keras_object(config)
    assert isinstance(layer, LayerScale) and layer.projection_dim == 4


def test_convnext_model_config_names_layer_scale_as_keras():
    # Keras 3.15.1's ConvNeXtTiny(...).get_config(): the LayerScale entries carry
    # module "keras.src.applications.convnext" and registered_name "LayerScale"
    model = keras.applications.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3), classes=4)
    entries = [e for e in model.get_config()["layers"] if e["class_name"] == "LayerScale"]
    assert len(entries) == 18
    assert {(e["module"], e["registered_name"]) for e in entries} == {
        ("keras.src.applications.convnext", "LayerScale")}
    assert len(keras.Model.from_config(model.get_config()).layers) == len(model.layers)
