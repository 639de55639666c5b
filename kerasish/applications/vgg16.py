"""VGG16 (Simonyan & Zisserman, 2014), as `keras.applications.VGG16` builds it."""
from kerasish import layers, models
from kerasish.applications import common, imagenet_utils

_BLOCKS = ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3))
# Keras's ImageNet files: (path under common.WEIGHTS_ORIGIN, md5) with and without the top
IMAGENET_FILES = {
    True: ("vgg16/vgg16_weights_tf_dim_ordering_tf_kernels.h5",
           "64373286793e3c8b2b4e3219cbf3544b"),
    False: ("vgg16/vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
            "6d6bbae143d832006294945121d1f1fc"),
}


def build_vgg(blocks, include_top, weights, input_tensor, input_shape, pooling, classes,
              classifier_activation, name, imagenet_files):
    """A VGG network: `blocks` of (filters, convolutions), each ending in a 2x2 max pool."""
    common.check_weights(weights)
    common.check_top(include_top, weights, classes)
    inputs = common.image_input(input_shape, input_tensor, 224, 32, include_top, weights)
    x = inputs
    for block, (filters, convs) in enumerate(blocks, start=1):
        for i in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = common.pooled(x, pooling)
    model = models.Model(inputs, x, name=name)
    common.load_weights(model, weights, *imagenet_files[include_top])
    return model


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
          classes=1000, classifier_activation="softmax", name="vgg16"):
    """VGG16 with Keras's layer names (block1_conv1 ... fc1, fc2, predictions).

    Args:
        include_top: add Flatten, fc1, fc2 and the `classes`-way classifier.
        weights: "imagenet" (Keras's ImageNet weights, downloaded once into
            `~/.keras/models`), None (random initialization) or the path of a
            weights file saved by Keras or kerasish.
        input_tensor: optional input tensor.
        input_shape: (height, width, 3); 224x224 with the top.
        pooling: None, "avg" or "max" (without the top).
        classes: classifier outputs.
        classifier_activation: the classifier's activation.
        name: the model's name.

    Returns:
        a functional Model (138,357,544 parameters with the top).

    Example:
        >>> keras.applications.VGG16(weights=None).count_params()
        138357544
    """
    return build_vgg(_BLOCKS, include_top, weights, input_tensor, input_shape, pooling, classes,
                     classifier_activation, name, IMAGENET_FILES)


def preprocess_input(x, data_format=None):
    """Keras's VGG16 preprocessing ('caffe'): RGB -> BGR, ImageNet means subtracted."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
