"""ConvNeXtTiny/Small/Base/Large/XLarge (Liu et al., 2022), as Keras builds them.

With `include_preprocessing=True` (the default) the model normalizes its
[0, 255] inputs itself (ImageNet mean and std), so `preprocess_input` is a
pass-through. `LayerScale` and `StochasticDepth` are Keras's
`keras.applications.convnext` layers.
"""
import numpy as np

from kerasish import initializers, layers, models, ops, random
from kerasish.applications import common, imagenet_utils
from kerasish.layers.layer import Layer

_ORIGIN = "convnext/"
# sha256 of Keras's ImageNet files, with and without the top
_IMAGENET_HASHES = {
    "convnext_tiny": ("8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
                      "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "convnext_small": ("ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
                       "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "convnext_base": ("52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
                      "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "convnext_large": ("070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
                       "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "convnext_xlarge": ("c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
                        "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
MODEL_CONFIGS = {
    "tiny": {"depths": [3, 3, 9, 3], "projection_dims": [96, 192, 384, 768],
             "default_size": 224},
    "small": {"depths": [3, 3, 27, 3], "projection_dims": [96, 192, 384, 768],
              "default_size": 224},
    "base": {"depths": [3, 3, 27, 3], "projection_dims": [128, 256, 512, 1024],
             "default_size": 224},
    "large": {"depths": [3, 3, 27, 3], "projection_dims": [192, 384, 768, 1536],
              "default_size": 224},
    "xlarge": {"depths": [3, 3, 27, 3], "projection_dims": [256, 512, 1024, 2048],
               "default_size": 224},
}


class StochasticDepth(Layer):
    """Drops the whole residual branch of a sample with probability `drop_path_rate`
    while training (the kept ones scaled by 1 / keep probability); identity otherwise.

    Args:
        drop_path_rate: probability of dropping a sample's branch, in [0, 1].

    Example:
        >>> layer = StochasticDepth(0.5)
        >>> layer(np.ones((4, 2, 2, 3), "float32"), training=True)  # 0 or 2 per sample
    """

    def __init__(self, drop_path_rate, **kwargs):
        super().__init__(**kwargs)
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None):
        if training:
            keep_prob = 1 - self.drop_path_rate
            shape = (ops.shape(x)[0],) + (1,) * (len(ops.shape(x)) - 1)
            mask = ops.floor(keep_prob + random.uniform(shape, 0, 1))
            return (x / keep_prob) * mask
        return x

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


class LayerScale(Layer):
    """Multiplies its input by a learned per-channel scale `gamma` (Touvron et al., 2021).

    Args:
        init_values: the scale's initial value.
        projection_dim: the channels (last axis).

    Example:
        >>> LayerScale(1e-6, 8)(np.ones((2, 8), "float32"))  # 1e-6 everywhere
    """

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, _):
        self.gamma = self.add_weight(shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values),
                                     trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "init_values": self.init_values,
                "projection_dim": self.projection_dim}


def ConvNeXtBlock(projection_dim, drop_path_rate=0.0, layer_scale_init_value=1e-6, name=None):
    """A ConvNeXt block: 7x7 depthwise conv, LayerNorm, Dense x4, GELU, Dense, LayerScale,
    StochasticDepth (or a linear Activation), residual.

    Args:
        projection_dim: the block's channels.
        drop_path_rate: stochastic depth rate (0: an identity Activation instead).
        layer_scale_init_value: LayerScale's initial value (None: no LayerScale).
        name: the layers' name prefix.

    Returns:
        a function of the input tensor.
    """
    def apply(inputs):
        x = layers.Conv2D(filters=projection_dim, kernel_size=7, padding="same",
                          groups=projection_dim, name=f"{name}_depthwise_conv")(inputs)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_layernorm")(x)
        x = layers.Dense(4 * projection_dim, name=f"{name}_pointwise_conv_1")(x)
        x = layers.Activation("gelu", name=f"{name}_gelu")(x)
        x = layers.Dense(projection_dim, name=f"{name}_pointwise_conv_2")(x)
        if layer_scale_init_value is not None:
            x = LayerScale(layer_scale_init_value, projection_dim,
                           name=f"{name}_layer_scale")(x)
        if drop_path_rate:
            layer = StochasticDepth(drop_path_rate, name=f"{name}_stochastic_depth")
        else:
            layer = layers.Activation("linear", name=f"{name}_identity")
        return inputs + layer(x)
    return apply


def _prestem(x, name):
    """ImageNet mean/std normalization of [0, 255] pixels."""
    return layers.Normalization(
        mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
        variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
        name=f"{name}_prestem_normalization")(x)


def _head(x, classes, classifier_activation, name):
    x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
    x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
    return layers.Dense(classes, activation=classifier_activation, name=f"{name}_head_dense")(x)


def _downsample_layers(projection_dims, name):
    """The stem and the three downsampling blocks: nested Sequential models, as Keras."""
    stem = models.Sequential([
        layers.Conv2D(projection_dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
        layers.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm"),
    ], name=f"{name}_stem")
    blocks = [stem]
    for i in range(3):
        blocks.append(models.Sequential([
            layers.LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
            layers.Conv2D(projection_dims[i + 1], kernel_size=2, strides=2,
                          name=f"{name}_downsampling_conv_{i}"),
        ], name=f"{name}_downsampling_block_{i}"))
    return blocks


def ConvNeXt(depths, projection_dims, drop_path_rate=0.0, layer_scale_init_value=1e-6,
             default_size=224, name="convnext", include_preprocessing=True, include_top=True,
             weights=None, input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", weights_name=None):
    """The ConvNeXt builder (as Keras's `convnext.ConvNeXt`).

    Args:
        depths: blocks per stage (4 stages).
        projection_dims: channels per stage.
        drop_path_rate: the last block's stochastic depth rate (linear from 0).
        layer_scale_init_value: LayerScale's initial value.
        default_size: the default input height and width.
        weights_name: "convnext_tiny" ...: which ImageNet file `weights="imagenet"` loads.
        other arguments: as `ConvNeXtTiny`.

    Returns:
        a functional Model.
    """
    common.check_weights(weights, received=None, imagenet="`imagenet`")
    common.check_top(include_top, weights, classes,
                     'If using `weights="imagenet"` with `include_top=True`, `classes` should '
                     "be 1000. Received classes={classes}")
    inputs = common.image_input(input_shape, input_tensor, default_size, 32, include_top,
                                weights)
    x = inputs
    if include_preprocessing and inputs.shape[-1] == 3:
        x = _prestem(x, name)
    drop_rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i, downsample in enumerate(_downsample_layers(projection_dims, name)):
        x = downsample(x)
        for j in range(depths[i]):
            x = ConvNeXtBlock(projection_dims[i], drop_rates[cur + j], layer_scale_init_value,
                              name=f"{name}_stage_{i}_block_{j}")(x)
        cur += depths[i]
    if include_top:
        common.validate_activation(classifier_activation, weights)
        x = _head(x, classes, classifier_activation, name)
    else:
        x = common.pooled(x, pooling)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    model = models.Model(inputs, x, name=name)
    if weights == "imagenet":
        _check_imagenet_variant(depths, projection_dims, name, weights_name)
        suffix = ".h5" if include_top else "_notop.h5"
        common.load_weights(model, weights, _ORIGIN + name + suffix,
                            _IMAGENET_HASHES[weights_name][0 if include_top else 1])
    else:
        common.load_weights(model, weights, None)
    return model


def _check_imagenet_variant(depths, projection_dims, name, weights_name):
    expected = MODEL_CONFIGS[weights_name.split("convnext_")[-1]]
    if list(depths) != expected["depths"] or list(projection_dims) != \
            expected["projection_dims"]:
        raise ValueError(
            f"Architecture configuration does not match {weights_name} variant. When using "
            "pre-trained weights, the model architecture must match the pre-trained "
            f"configuration exactly. Expected depths: {expected['depths']}, got: {depths}. "
            f"Expected projection_dims: {expected['projection_dims']}, got: "
            f"{projection_dims}.")
    if weights_name not in name:
        raise ValueError(
            f'Model name "{name}" does not match weights variant "{weights_name}". When '
            "using imagenet weights, model name must contain the weights variant (e.g., "
            f'"convnext_{weights_name.split("convnext_")[-1]}").')


def _make(size, doc_count):
    config = MODEL_CONFIGS[size]
    display = "ConvNeXt" + {"xlarge": "XLarge"}.get(size, size.capitalize())

    def builder(include_top=True, include_preprocessing=True, weights="imagenet",
                input_tensor=None, input_shape=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=f"convnext_{size}"):
        return ConvNeXt(config["depths"], config["projection_dims"], drop_path_rate=0.0,
                        layer_scale_init_value=1e-6, default_size=config["default_size"],
                        name=name, include_preprocessing=include_preprocessing,
                        include_top=include_top, weights=weights, input_tensor=input_tensor,
                        input_shape=input_shape, pooling=pooling, classes=classes,
                        classifier_activation=classifier_activation,
                        weights_name=f"convnext_{size}")

    builder.__name__ = builder.__qualname__ = display
    builder.__doc__ = f"""{display} (stages of {config['depths']} blocks,
    {config['projection_dims']} channels) with Keras's layer names.

    Args:
        include_top: add the head (global average pooling, LayerNormalization, Dense).
        include_preprocessing: start with a Normalization of [0, 255] pixels by the
            ImageNet mean and std (3-channel inputs).
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); 224x224 with the top (at least 32x32).
        pooling: None, "avg" or "max" (without the top; a LayerNormalization follows).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model ({doc_count:,} parameters with the top).

    Example:
        >>> keras.applications.{display}(weights=None).count_params()
        {doc_count}
    """
    return builder


ConvNeXtTiny = _make("tiny", 28589128)
ConvNeXtSmall = _make("small", 50223688)
ConvNeXtBase = _make("base", 88591464)
ConvNeXtLarge = _make("large", 197767336)
ConvNeXtXLarge = _make("xlarge", 350196968)


preprocess_input = common.passthrough_preprocess_input


decode_predictions = imagenet_utils.decode_predictions
