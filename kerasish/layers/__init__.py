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
from kerasish.layers.merging.add import Add, add
from kerasish.layers.merging.average import Average, average
from kerasish.layers.merging.concatenate import Concatenate, concatenate
from kerasish.layers.merging.dot import Dot, dot
from kerasish.layers.merging.maximum import Maximum, maximum
from kerasish.layers.merging.minimum import Minimum, minimum
from kerasish.layers.merging.multiply import Multiply, multiply
from kerasish.layers.merging.subtract import Subtract, subtract
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
from kerasish.layers.convolutional.conv1d_transpose import Conv1DTranspose
from kerasish.layers.convolutional.conv3d import Conv3D
from kerasish.layers.convolutional.conv3d_transpose import Conv3DTranspose
from kerasish.layers.convolutional.depthwise_conv1d import DepthwiseConv1D
from kerasish.layers.convolutional.separable_conv1d import SeparableConv1D
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
from kerasish.layers.pooling.average_pooling3d import AveragePooling3D  # noqa: E402
from kerasish.layers.pooling.global_average_pooling3d import GlobalAveragePooling3D  # noqa: E402
from kerasish.layers.pooling.global_max_pooling3d import GlobalMaxPooling3D  # noqa: E402
from kerasish.layers.pooling.max_pooling3d import MaxPooling3D  # noqa: E402
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D

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

from kerasish.layers.core.lambda_layer import SymbolicOp as _SymbolicOp  # noqa: E402

# --- attention layers
from kerasish.layers.attention.additive_attention import AdditiveAttention  # noqa: E402
from kerasish.layers.attention.attention import Attention  # noqa: E402
from kerasish.layers.attention.grouped_query_attention import GroupedQueryAttention  # noqa: E402
from kerasish.layers.attention.multi_head_attention import MultiHeadAttention  # noqa: E402
from kerasish.layers.core.einsum_dense import EinsumDense  # noqa: E402
GroupQueryAttention = GroupedQueryAttention

# --- the rest of the layer zoo
from kerasish.layers.core.wrapper import Wrapper  # noqa: E402
from kerasish.layers.normalization.spectral_normalization import SpectralNormalization  # noqa: E402
from kerasish.layers.normalization.unit_normalization import UnitNormalization  # noqa: E402
from kerasish.layers.regularization.activity_regularization import ActivityRegularization  # noqa: E402,E501
from kerasish.layers.regularization.alpha_dropout import AlphaDropout  # noqa: E402
from kerasish.layers.regularization.gaussian_dropout import GaussianDropout  # noqa: E402
from kerasish.layers.regularization.gaussian_noise import GaussianNoise  # noqa: E402
from kerasish.layers.regularization.spatial_dropout1d import SpatialDropout1D  # noqa: E402
from kerasish.layers.regularization.spatial_dropout2d import SpatialDropout2D  # noqa: E402
from kerasish.layers.regularization.spatial_dropout3d import SpatialDropout3D  # noqa: E402
from kerasish.layers.reshaping.cropping3d import Cropping3D  # noqa: E402
from kerasish.layers.reshaping.up_sampling3d import UpSampling3D  # noqa: E402
from kerasish.layers.reshaping.zero_padding3d import ZeroPadding3D  # noqa: E402
from kerasish.layers.rnn.conv_lstm1d import ConvLSTM1D  # noqa: E402
from kerasish.layers.rnn.conv_lstm2d import ConvLSTM2D  # noqa: E402
from kerasish.layers.rnn.conv_lstm3d import ConvLSTM3D  # noqa: E402
from kerasish.layers.core.reversible_embedding import ReversibleEmbedding  # noqa: E402
from kerasish.layers.normalization.rms_normalization import RMSNormalization  # noqa: E402
from kerasish.layers.serialization import deserialize, serialize  # noqa: E402
from kerasish.layers.pooling.adaptive_average_pooling1d import AdaptiveAveragePooling1D  # noqa: E402,E501
from kerasish.layers.pooling.adaptive_average_pooling2d import AdaptiveAveragePooling2D  # noqa: E402,E501
from kerasish.layers.pooling.adaptive_average_pooling3d import AdaptiveAveragePooling3D  # noqa: E402,E501
from kerasish.layers.pooling.adaptive_max_pooling1d import AdaptiveMaxPooling1D  # noqa: E402
from kerasish.layers.pooling.adaptive_max_pooling2d import AdaptiveMaxPooling2D  # noqa: E402
from kerasish.layers.pooling.adaptive_max_pooling3d import AdaptiveMaxPooling3D  # noqa: E402

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
from kerasish.layers.preprocessing.random_invert import RandomInvert  # noqa: E402
from kerasish.layers.preprocessing.random_posterization import RandomPosterization  # noqa: E402
from kerasish.layers.preprocessing.equalization import Equalization  # noqa: E402
from kerasish.layers.preprocessing.random_sharpness import RandomSharpness  # noqa: E402
from kerasish.layers.preprocessing.pipeline import Pipeline  # noqa: E402
from kerasish.layers.preprocessing.random_gaussian_blur import RandomGaussianBlur  # noqa: E402
from kerasish.layers.preprocessing.stft_spectrogram import STFTSpectrogram  # noqa: E402
from kerasish.layers.preprocessing.mel_spectrogram import MelSpectrogram  # noqa: E402
from kerasish.layers.preprocessing.random_erasing import RandomErasing  # noqa: E402
from kerasish.layers.preprocessing.random_color_degeneration import RandomColorDegeneration  # noqa: E402
from kerasish.layers.preprocessing.random_shear import RandomShear  # noqa: E402
from kerasish.layers.preprocessing.random_perspective import RandomPerspective  # noqa: E402
from kerasish.layers.preprocessing.random_elastic_transform import RandomElasticTransform  # noqa: E402
from kerasish.layers.preprocessing.cut_mix import CutMix  # noqa: E402
from kerasish.layers.preprocessing.clahe import ContrastLimitedAdaptiveHistogramEqualization  # noqa: E402,E501
from kerasish.layers.preprocessing.random_color_jitter import RandomColorJitter  # noqa: E402
from kerasish.layers.preprocessing.aug_mix import AugMix  # noqa: E402
from kerasish.layers.preprocessing.rand_augment import RandAugment  # noqa: E402

from kerasish.utils import registry as _registry  # noqa: E402

_registry.REGISTRY.add_namespace("layers", globals())
# The graph node of an op called on KerasTensors (`ops.sum(x)`, `x + 1`): kerasish.ops,
# a lower floor, finds it by name (see kerasish/ops/symbolic.py).
_registry.REGISTRY.add_namespace("layers.graph", {"SymbolicOp": _SymbolicOp})
