"""The public surface of kerasish.ops: Keras 3 names, signatures and docstrings."""
import inspect

import pytest

from kerasish import ops

# Signatures copied from Keras 3.15 `keras.ops` (inspect.signature).
KERAS_SIGNATURES = {
    'cholesky': '(x, upper=False)',
    'cholesky_inverse': '(x, upper=False)',
    'eig': '(x)',
    'eigh': '(x)',
    'lstsq': '(a, b, rcond=None)',
    'lu_factor': '(x)',
    'matrix_rank': '(x, tol=None)',
    'pinv': '(x, rcond=None)',
    'qr': "(x, mode='reduced')",
    'solve_triangular': '(a, b, lower=False)',
    'svd': '(x, full_matrices=True, compute_uv=True)',
    'segment_prod': '(data, segment_ids, num_segments=None, sorted=False)',
    'adaptive_average_pool': '(inputs, output_size, data_format=None)',
    'adaptive_max_pool': '(inputs, output_size, data_format=None)',
    'gelu': '(x, approximate=True)',
    'leaky_relu': '(x, negative_slope=0.2)',
    'one_hot': '(x, num_classes, axis=-1, dtype=None, sparse=False)',
    'pad': "(x, pad_width, mode='constant', constant_values=None)",
    'split': '(x, indices_or_sections, axis=0)',
    'softmax': '(x, axis=-1)',
    'log_softmax': '(x, axis=-1)',
    'binary_crossentropy': '(target, output, from_logits=False)',
    'categorical_crossentropy': '(target, output, from_logits=False, axis=-1)',
    'sparse_categorical_crossentropy': '(target, output, from_logits=False, axis=-1)',
    'moments': '(x, axes, keepdims=False, synchronized=False)',
    'normalize': '(x, axis=-1, order=2, epsilon=None)',
    'top_k': '(x, k, sorted=True)',
    'in_top_k': '(targets, predictions, k)',
    'segment_sum': '(data, segment_ids, num_segments=None, sorted=False)',
    'segment_max': '(data, segment_ids, num_segments=None, sorted=False)',
    'scan': '(f, init, xs=None, length=None, reverse=False, unroll=1)',
    'while_loop': '(cond, body, loop_vars, maximum_iterations=None)',
    'fori_loop': '(lower, upper, body_fun, init_val)',
    'cond': '(pred, true_fn, false_fn)',
    'vectorized_map': '(function, elements)',
    'scatter_update': '(inputs, indices, updates, reduction=None)',
    'slice_update': '(inputs, start_indices, updates)',
    'meshgrid': "(*x, indexing='xy')",
    'tril': '(x, k=0)',
    'triu': '(x, k=0)',
    'diag': '(x, k=0)',
    'trace': '(x, offset=0, axis1=0, axis2=1)',
    'sort': '(x, axis=-1)',
    'argsort': '(x, axis=-1)',
    'logsumexp': '(x, axis=None, keepdims=False)',
    'take': '(x, indices, axis=None)',
    'take_along_axis': '(x, indices, axis=None)',
    'where': '(condition, x1=None, x2=None)',
    'clip': '(x, x_min, x_max)',
    'mean': '(x, axis=None, keepdims=False)',
    'sum': '(x, axis=None, keepdims=False)',
    'max': '(x, axis=None, keepdims=False, initial=None)',
    'cumsum': '(x, axis=None, dtype=None)',
    'matmul': '(x1, x2)',
    'einsum': '(subscripts, *operands, **kwargs)',
    'transpose': '(x, axes=None)',
    'reshape': '(x, newshape)',
    'stack': '(x, axis=0)',
    'concatenate': '(xs, axis=0)',
    'arange': '(start, stop=None, step=None, dtype=None)',
    'linspace': '(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)',
    'dot_product_attention': '(query, key, value, bias=None, mask=None, scale=None, is_causal=False, flash_attention=None, attn_logits_soft_cap=None)',
    'batch_normalization': '(x, mean, variance, axis, offset=None, scale=None, epsilon=0.001)',
    'convert_to_tensor': '(x, dtype=None, sparse=None, ragged=None)',
    'cast': '(x, dtype)',
    'stop_gradient': '(variable)',
    'custom_gradient': '(f)',
    'map': '(f, xs)',
    'switch': '(index, branches, *operands)',
    'associative_scan': '(f, elems, reverse=False, axis=0)',
    'multi_hot': '(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs)',
    'elu': '(x, alpha=1.0)',
    'celu': '(x, alpha=1.0)',
    'glu': '(x, axis=-1)',
    'var': '(x, axis=None, keepdims=False)',
    'std': '(x, axis=None, keepdims=False)',
    'prod': '(x, axis=None, keepdims=False, dtype=None)',
    'repeat': '(x, repeats, axis=None)',
    'tile': '(x, repeats)',
    'squeeze': '(x, axis=None)',
    'expand_dims': '(x, axis)',
    'unstack': '(x, num=None, axis=0)',
    'norm': '(x, ord=None, axis=None, keepdims=False)',
}

# Every Keras 3 op name kerasish implements (the others are listed in docs/ops.md).
KERAS_NAMES = """
abs absolute add all allclose amax amin any append arange arccos arccosh arcsin arcsinh arctan
arctan2 arctanh argmax argmin argsort array array_split associative_scan average average_pool
batch_normalization binary_crossentropy bincount bitwise_and bitwise_invert bitwise_left_shift
bitwise_not bitwise_or bitwise_right_shift bitwise_xor broadcast_to cast
categorical_crossentropy cbrt ceil celu clip concatenate cond conj conjugate conv conv_transpose
convert_to_numpy convert_to_tensor copy cos cosh count_nonzero cross cumprod cumsum
custom_gradient deg2rad depthwise_conv det diag diagflat diagonal diff digitize divide
divide_no_nan dot dot_product_attention dsplit dstack dtype einsum elu empty empty_like equal
erf erfc erfinv exp exp2 expand_dims expm1 eye flip fliplr flipud floor floor_divide fmod
fori_loop full full_like gcd gelu get_item glu greater greater_equal hard_shrink hard_sigmoid
hard_silu hard_swish hard_tanh heaviside hsplit hstack hypot identity imag in_top_k inner inv
is_tensor isclose isfinite isin isinf isnan isneginf isposinf kron layer_normalization lcm
leaky_relu left_shift less less_equal linspace log log10 log1p log2 log_sigmoid log_softmax
logaddexp logaddexp2 logdet logical_and logical_not logical_or logical_xor logspace logsumexp
map matmul max max_pool maximum mean median meshgrid min minimum mod moments moveaxis multi_hot
multiply nan_to_num nanmax nanmean nanmin nanprod nanstd nansum nanvar ndim negative nonzero
norm normalize not_equal one_hot ones ones_like outer pad percentile power prod psnr ptp
quantile rad2deg ravel real reciprocal relu relu6 repeat reshape right_shift rms_normalization
roll rot90 round rsqrt saturate_cast scan scatter scatter_update searchsorted segment_max
segment_min segment_sum select selu separable_conv shape sigmoid sign signbit silu sin sinc sinh
size slice slice_update slogdet soft_shrink softmax softplus softsign solve sort
sparse_categorical_crossentropy sparse_plus sparse_sigmoid sparsemax split sqrt square
squareplus squeeze stack std stop_gradient subtract sum swapaxes swish switch take
take_along_axis tan tanh tanh_shrink tensordot threshold tile top_k trace transpose trapezoid
tri tril triu true_divide trunc unique unravel_index unstack vander var vdot vectorized_map
vsplit vstack where while_loop zeros zeros_like
""".split()


@pytest.mark.parametrize("name", sorted(KERAS_SIGNATURES))
def test_signature_matches_keras(name):
    assert str(inspect.signature(getattr(ops, name))) == KERAS_SIGNATURES[name]


def test_keras_names_are_exported_and_documented():
    missing = [n for n in KERAS_NAMES if not callable(getattr(ops, n, None))]
    assert not missing
    undocumented = [n for n in KERAS_NAMES if not (getattr(ops, n).__doc__ or "").strip()]
    assert not undocumented


def test_public_functions_document_an_example():
    public = [n for n in dir(ops) if not n.startswith("_") and inspect.isfunction(getattr(ops, n))]
    module_prefix = "kerasish.ops."
    ours = [n for n in public if getattr(ops, n).__module__.startswith(module_prefix)
            and getattr(ops, n).__module__.split(".")[-1] not in ("conv", "pooling", "normalization", "rnn")]
    lacking = [n for n in ours if "Example" not in (getattr(ops, n).__doc__ or "")]
    assert not lacking, lacking


def test_math_names_reachable_like_keras():
    for name, module in [("logsumexp", "reduction"), ("rsqrt", "unary"), ("erf", "unary")]:
        fn = getattr(ops, name)
        assert fn.__name__ == name and fn.__module__ == f"kerasish.ops.{module}"
    assert abs(float(ops.logsumexp(ops.zeros((2,)))) - 0.6931472) < 1e-6
