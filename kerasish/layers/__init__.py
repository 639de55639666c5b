"""kerasish.layers: one public class per module, exported here with Keras's names."""
from kerasish.layers.activations.elu import ELU
from kerasish.layers.activations.leaky_relu import LeakyReLU
from kerasish.layers.activations.prelu import PReLU
from kerasish.layers.activations.relu import ReLU
from kerasish.layers.activations.softmax import Softmax
from kerasish.layers.core.activation import Activation
from kerasish.layers.core.dense import Dense
from kerasish.layers.core.identity import Identity
from kerasish.layers.core.input_layer import Input, InputLayer
from kerasish.layers.core.lambda_layer import Lambda
from kerasish.layers.input_spec import InputSpec
from kerasish.layers.layer import Layer
from kerasish.layers.merging.add import Add
from kerasish.layers.merging.average import Average
from kerasish.layers.merging.concatenate import Concatenate
from kerasish.layers.merging.dot import Dot
from kerasish.layers.merging.maximum import Maximum
from kerasish.layers.merging.minimum import Minimum
from kerasish.layers.merging.multiply import Multiply
from kerasish.layers.merging.subtract import Subtract
from kerasish.layers.regularization.dropout import Dropout
from kerasish.layers.reshaping.flatten import Flatten
from kerasish.layers.reshaping.permute import Permute
from kerasish.layers.reshaping.repeat_vector import RepeatVector
from kerasish.layers.reshaping.reshape import Reshape

# --- vision layers (convolution, pooling, normalization, image reshaping)
from kerasish.layers.convolutional.conv1d import Conv1D
from kerasish.layers.convolutional.conv2d import Conv2D
from kerasish.layers.convolutional.conv2d_transpose import Conv2DTranspose
from kerasish.layers.convolutional.depthwise_conv2d import DepthwiseConv2D
from kerasish.layers.convolutional.separable_conv2d import SeparableConv2D
from kerasish.layers.normalization.batch_normalization import BatchNormalization
from kerasish.layers.normalization.group_normalization import GroupNormalization
from kerasish.layers.normalization.layer_normalization import LayerNormalization
from kerasish.layers.pooling.average_pooling1d import AveragePooling1D
from kerasish.layers.pooling.average_pooling2d import AveragePooling2D
from kerasish.layers.pooling.global_average_pooling1d import GlobalAveragePooling1D
from kerasish.layers.pooling.global_average_pooling2d import GlobalAveragePooling2D
from kerasish.layers.pooling.global_max_pooling1d import GlobalMaxPooling1D
from kerasish.layers.pooling.global_max_pooling2d import GlobalMaxPooling2D
from kerasish.layers.pooling.max_pooling1d import MaxPooling1D
from kerasish.layers.pooling.max_pooling2d import MaxPooling2D
from kerasish.layers.reshaping.cropping1d import Cropping1D
from kerasish.layers.reshaping.cropping2d import Cropping2D
from kerasish.layers.reshaping.up_sampling1d import UpSampling1D
from kerasish.layers.reshaping.up_sampling2d import UpSampling2D
from kerasish.layers.reshaping.zero_padding1d import ZeroPadding1D
from kerasish.layers.reshaping.zero_padding2d import ZeroPadding2D
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution2DTranspose = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D

# --- sequence layers (embedding, recurrent, masking, wrappers)
from kerasish.layers.core.embedding import Embedding
from kerasish.layers.core.masking import Masking
from kerasish.layers.rnn.bidirectional import Bidirectional
from kerasish.layers.rnn.gru import GRU
from kerasish.layers.rnn.gru_cell import GRUCell
from kerasish.layers.rnn.lstm import LSTM
from kerasish.layers.rnn.lstm_cell import LSTMCell
from kerasish.layers.rnn.rnn import RNN
from kerasish.layers.rnn.simple_rnn import SimpleRNN
from kerasish.layers.rnn.simple_rnn_cell import SimpleRNNCell
from kerasish.layers.rnn.stacked_rnn_cells import StackedRNNCells
from kerasish.layers.rnn.time_distributed import TimeDistributed

from kerasish.layers.keras_tensor import _install_operators  # noqa: E402

_install_operators()

# --- preprocessing layers (numeric, lookup, text)
from kerasish.layers.preprocessing.category_encoding import CategoryEncoding  # noqa: E402
from kerasish.layers.preprocessing.discretization import Discretization  # noqa: E402
from kerasish.layers.preprocessing.hashed_crossing import HashedCrossing  # noqa: E402
from kerasish.layers.preprocessing.hashing import Hashing  # noqa: E402
from kerasish.layers.preprocessing.integer_lookup import IntegerLookup  # noqa: E402
from kerasish.layers.preprocessing.normalization import Normalization  # noqa: E402
from kerasish.layers.preprocessing.rescaling import Rescaling  # noqa: E402
from kerasish.layers.preprocessing.string_lookup import StringLookup  # noqa: E402
from kerasish.layers.preprocessing.text_vectorization import TextVectorization  # noqa: E402

# --- image preprocessing layers
from kerasish.layers.preprocessing.auto_contrast import AutoContrast  # noqa: E402
from kerasish.layers.preprocessing.center_crop import CenterCrop  # noqa: E402
from kerasish.layers.preprocessing.random_brightness import RandomBrightness  # noqa: E402
from kerasish.layers.preprocessing.random_contrast import RandomContrast  # noqa: E402
from kerasish.layers.preprocessing.random_crop import RandomCrop  # noqa: E402
from kerasish.layers.preprocessing.random_flip import RandomFlip  # noqa: E402
from kerasish.layers.preprocessing.random_grayscale import RandomGrayscale  # noqa: E402
from kerasish.layers.preprocessing.random_rotation import RandomRotation  # noqa: E402
from kerasish.layers.preprocessing.random_translation import RandomTranslation  # noqa: E402
from kerasish.layers.preprocessing.random_zoom import RandomZoom  # noqa: E402
from kerasish.layers.preprocessing.resizing import Resizing  # noqa: E402
from kerasish.layers.preprocessing.solarization import Solarization  # noqa: E402
from kerasish.layers.preprocessing.mix_up import MixUp  # noqa: E402
from kerasish.layers.preprocessing.random_hue import RandomHue  # noqa: E402
from kerasish.layers.preprocessing.random_saturation import RandomSaturation  # noqa: E402
